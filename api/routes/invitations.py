"""Invitations by address (issue 28 item 5): the GM (or a host who holds links) invites an address to a seat; the
mail goes out through the outbox, its link written only as it is sent (``application.invitations``)."""

from __future__ import annotations

import uuid

from fastapi import APIRouter
from pydantic import Field

from api.deps import SenderDep
from api.schemas import GAME_COMMAND, Email, Id, Strict
from domain.platform.commands import InviteObserver, InviteToSeat, WithdrawInvitation

router = APIRouter(prefix="/games", tags=["invitations"])


class InvitationRequest(Strict):
    """An address to invite to a seat, and the invitee's language if known (the mail is written in it)."""

    seat: Id
    email: Email
    language: str = Field("", max_length=20, description="a language tag such as de or en-GB, or empty")


@router.post("/{game_id}/invitations", status_code=201, responses=GAME_COMMAND)
async def invite(game_id: str, body: InvitationRequest, sender: SenderDep) -> dict:
    """GM: invite an address to a seat; the answer is the receipt with the invitation's id (its link is mailed)."""
    # the mail is queued by the projector from the event (projections.invitations): a retried request (its
    # Idempotency-Key) answers the first receipt and records nothing, so it mails once
    return await sender.run(game_id, InviteToSeat(uuid.uuid4().hex, body.seat, body.email, body.language))


class ObserverInvitationRequest(Strict):
    """An address to invite to observe, and the invitee's language if known (the mail is written in it)."""

    email: Email
    language: str = Field("", max_length=20, description="a language tag such as de or en-GB, or empty")


@router.post("/{game_id}/observers", status_code=201, responses=GAME_COMMAND)
async def invite_observer(game_id: str, body: ObserverInvitationRequest, sender: SenderDep) -> dict:
    """GM: invite an address to observe (the public view and events only); the answer is the receipt with the
    invitation's id (its link is mailed; the observer it makes is revoked by withdrawing the invitation)."""
    return await sender.run(game_id, InviteObserver(uuid.uuid4().hex, body.email, body.language))


@router.delete("/{game_id}/invitations/{invitation}", responses=GAME_COMMAND)
async def withdraw(game_id: str, invitation: str, sender: SenderDep) -> dict:
    """GM: withdraw an invitation not yet accepted (its link stops working), or revoke the observer it made."""
    return await sender.run(game_id, WithdrawInvitation(invitation[:64]))
