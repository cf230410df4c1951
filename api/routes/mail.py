"""Email: hosted inbound mail (a provider POSTs the parsed message), bounces, contacts, the ledger."""

from __future__ import annotations

import hmac
from typing import Annotated, Literal

from fastapi import APIRouter, Header, Request
from pydantic import BaseModel, ConfigDict, Field

from api.deps import GamesDep, IdempotencyKey, Principal
from api.schemas import ReceiptPublic
from domain.errors import Forbidden
from projections.mail import MailIntake
from workers import mail

router = APIRouter(tags=["mail"])


class InboundMailRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    to: str
    sender: str = Field(alias="from")
    subject: str = ""
    text: str | None = None
    html: str | None = None
    message_id: str


class BounceRequest(BaseModel):
    message_id: str


class ContactRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    power_id: str | None = None
    email: str | None
    mode: Literal["immediate", "digest", "off"] = "immediate"


def _check_key(request: Request, key: str | None) -> None:
    expected = request.app.state.settings.inbound_key
    if expected and not hmac.compare_digest(expected, key or ""):
        raise Forbidden("wrong inbound key", field="x-emissary-inbound-key")


@router.post("/inbound/email")
def inbound_email(body: InboundMailRequest, request: Request, games: GamesDep,
                  x_emissary_inbound_key: Annotated[str | None, Header()] = None) -> dict:
    """A mail received by a hosted provider: the same intake as `emissary smtpd`; the reply is queued."""
    _check_key(request, x_emissary_inbound_key)
    settings = request.app.state.settings
    reply = MailIntake(games, settings.mail_domain).receive(body.to, body.message_id, body.text, body.html,
                                                             body.subject)
    db = request.app.state.projector.db
    mail.ensure_tables(db)
    from workers.tasks import deliver_mail

    deliver_mail.delay(mail.record_reply(db, reply, body.message_id, body.sender))
    return {"accepted": reply.accepted, "subject": reply.subject, "body": reply.body}


@router.post("/inbound/bounce")
def inbound_bounce(body: BounceRequest, request: Request,
                   x_emissary_inbound_key: Annotated[str | None, Header()] = None) -> dict:
    """A provider reports that a mail we sent bounced."""
    _check_key(request, x_emissary_inbound_key)
    db = request.app.state.projector.db
    mail.ensure_tables(db)
    with db.transaction() as cur:
        cur.execute("UPDATE mail_ledger SET status = 'bounced' WHERE message_id = ?", (body.message_id,))
    return {"ok": True}


@router.put("/games/{game_id}/contact", response_model=ReceiptPublic)
def set_contact(game_id: str, body: ContactRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """Where my notifications go, and whether at once or as a daily digest."""
    return games.set_contact(game_id, me, body.power_id or me, body.email, body.mode, key=key).as_dict()


@router.get("/games/{game_id}/mail")
def mail_ledger(game_id: str, request: Request, games: GamesDep, me: Principal) -> list[dict]:
    """The delivery ledger: the GM sees every mail; a player their own ("was I told?")."""
    db = request.app.state.projector.db
    mail.ensure_tables(db)
    key = str(games.get_game(game_id, for_update=False).id)
    return mail.ledger(db, key, None if me == "gm" else me)
