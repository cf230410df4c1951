"""Email: hosted inbound mail (a provider POSTs the parsed message), bounces, contacts, the ledger."""

from __future__ import annotations

import hmac
import ipaddress
from typing import Annotated

from fastapi import APIRouter, Depends, Header, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field

from api.deps import GamesDep, Principal, SenderDep
from api.mail_intake import MAX_MAIL_BYTES, MailIntake
from api.schemas import BODY, GAME_COMMAND, GAME_READ, ContactRequest, ReceiptPublic, errors
from domain import limits
from domain.errors import Busy, DomainError, Forbidden, NotFound
from domain.platform.commands import SetContact
from workers import mail

router = APIRouter(tags=["mail"])


class TooLarge(DomainError):
    """The mail is larger than the service takes (413)."""

    status = 413


class InboundMailRequest(BaseModel):
    model_config = ConfigDict(extra="ignore")
    to: str = Field(max_length=320)
    sender: str = Field(alias="from", max_length=limits.HEADER)
    subject: str = Field(default="", max_length=limits.HEADER)
    text: str | None = Field(default=None, max_length=MAX_MAIL_BYTES)
    html: str | None = Field(default=None, max_length=MAX_MAIL_BYTES)
    message_id: str = Field(min_length=1, max_length=limits.MESSAGE_ID)


class BounceRequest(BaseModel):
    message_id: str = Field(min_length=1, max_length=limits.MESSAGE_ID)


def _is_loopback(host: str | None) -> bool:
    try:
        return host is not None and ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


async def check_inbound(
    request: Request, x_emissary_inbound_key: Annotated[str | None, Header(max_length=200)] = None
) -> None:
    """The provider's key (required in production); with no key set (development, test), only
    clients on this machine may post. A body over the mail size limit is refused."""
    expected = request.app.state.settings.inbound_key
    if expected:
        if not hmac.compare_digest(expected.encode(), (x_emissary_inbound_key or "").encode()):
            raise Forbidden("wrong inbound key", field="x-emissary-inbound-key")
    elif not _is_loopback(request.client.host if request.client else None):
        raise Forbidden(
            "EMISSARY_INBOUND_KEY is not set: only clients on this machine may post mail",
            field="x-emissary-inbound-key",
        )
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > MAX_MAIL_BYTES:
        raise TooLarge(f"a mail is at most {MAX_MAIL_BYTES} bytes", field="body")


InboundKey = Annotated[None, Depends(check_inbound)]


@router.post("/inbound/email", responses={**BODY, **errors(403, 404, 429, 503)})
def inbound_email(body: InboundMailRequest, request: Request, games: GamesDep, _: InboundKey) -> dict:
    """A mail received by a hosted provider: the same intake as `emissary smtpd`; the reply is queued."""
    settings = request.app.state.settings
    public_url = settings.public_url or str(request.base_url)  # where the refusal's help links point
    intake = MailIntake(games, settings.mail_domain, settings.secret_key, public_url)
    try:
        reply = intake.receive(body.to, body.message_id, body.text, body.html, body.subject)
    except Busy as err:  # a provider takes 409 as final: 503 with Retry-After is the answer it sends again on
        raise HTTPException(503, err.message, headers={"Retry-After": "5"}) from None
    if reply.principal is None:  # no such reply address: nobody to answer, nothing recorded
        raise NotFound("no such reply address (it may have been replaced)", field="to")
    db = request.app.state.projector.db
    from workers.tasks import hand_off

    # The reply is queued in the ledger (the outbox) before we answer; the broker is only the fast path.
    row_id = mail.record_reply(db, reply, body.message_id, intake.contact(reply))
    if mail.status(db, row_id) == "queued":
        hand_off(db, row_id)
    return {"accepted": reply.accepted, "subject": reply.subject, "body": reply.body}


@router.post("/inbound/bounce", responses={**BODY, **errors(403, 404, 429)})
def inbound_bounce(body: BounceRequest, request: Request, _: InboundKey) -> dict:
    """A provider reports that a mail this service sent bounced (any other Message-ID: 404)."""
    db = request.app.state.projector.db
    bare = body.message_id.strip().strip("<>")
    with db.transaction() as cur:
        found = cur.execute(
            "UPDATE mail_ledger SET status = 'bounced' WHERE message_id IN (?, ?) "
            "AND status IN ('sent', 'bounced') RETURNING id",
            (f"<{bare}>", bare),
        ).fetchall()
    if not found:
        raise NotFound("no mail sent by this service has this Message-ID", field="message_id")
    return {"ok": True}


@router.put("/games/{game_id}/contact", response_model=ReceiptPublic, responses=GAME_COMMAND)
async def set_contact(game_id: str, body: ContactRequest, sender: SenderDep) -> dict:
    """Where my notifications go, and whether at once or as a daily digest."""
    command = SetContact(body.seat or sender.caller.principal, body.email, body.mode)
    return await sender.run(game_id, command)


@router.get("/games/{game_id}/mail", responses=GAME_READ)
def mail_ledger(game_id: str, request: Request, games: GamesDep, me: Principal) -> list[dict]:
    """The delivery ledger: the GM sees every mail; a player their own ("was I told?")."""
    db = request.app.state.projector.db
    key = str(games.get_game(game_id, for_update=False).id)
    return mail.ledger(db, key, None if me == "gm" else me)
