"""Windows: deadlines, extensions (GM-8), and saying you are ready (early close, P-AMB-39)."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import SenderDep
from api.schemas import (
    GAME_COMMAND,
    DeadlineRequest,
    ExtensionRequest,
    GrantExtensionRequest,
    ReadyRequest,
    ReceiptPublic,
    RefuseExtensionRequest,
)
from domain.platform.commands import DeclareReady, GrantExtension, RefuseExtension, RequestExtension, SetDeadline

router = APIRouter(prefix="/games/{game_id}", tags=["windows"], responses=GAME_COMMAND)


@router.put("/windows/{window_id}/deadline", response_model=ReceiptPublic)
async def set_deadline(game_id: str, window_id: str, body: DeadlineRequest, sender: SenderDep) -> dict:
    """GM: move a window's deadline (kept in UTC: daylight saving never moves it)."""
    return await sender.run(game_id, SetDeadline(window_id, body.closes_at))


@router.post("/windows/{window_id}/extensions", status_code=201, response_model=ReceiptPublic)
async def request_extension(game_id: str, window_id: str, body: ExtensionRequest, sender: SenderDep) -> dict:
    """Ask the GM for more time in a window."""
    command = RequestExtension(body.seat or sender.caller.principal, body.hours, window_id, body.reason)
    return await sender.run(game_id, command)


@router.post("/extensions/{request_id}/grant", response_model=ReceiptPublic)
async def grant_extension(game_id: str, request_id: str, body: GrantExtensionRequest, sender: SenderDep) -> dict:
    """GM: grant a request within the game's caps; granting it again changes nothing."""
    return await sender.run(game_id, GrantExtension(request_id, body.hours))


@router.post("/extensions/{request_id}/refuse", response_model=ReceiptPublic)
async def refuse_extension(game_id: str, request_id: str, body: RefuseExtensionRequest, sender: SenderDep) -> dict:
    """GM: refuse a request."""
    return await sender.run(game_id, RefuseExtension(request_id, body.reason))


@router.post("/ready", response_model=ReceiptPublic)
async def ready(game_id: str, body: ReadyRequest, sender: SenderDep) -> dict:
    """Say you have submitted all you will this month; Planning closes early once everyone has."""
    return await sender.run(game_id, DeclareReady(body.seat or sender.caller.principal))
