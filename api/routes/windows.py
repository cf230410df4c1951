"""Windows: deadlines, extensions (GM-8), and saying you are ready (early close, P-AMB-39)."""

from __future__ import annotations

from fastapi import APIRouter

from api.deps import CurrentCaller, GamesDep, IdempotencyKey
from api.schemas import (
    DeadlineRequest,
    ExtensionRequest,
    GrantExtensionRequest,
    ReadyRequest,
    ReceiptPublic,
    RefuseExtensionRequest,
)
from domain.platform.commands import DeclareReady, GrantExtension, RefuseExtension, RequestExtension, SetDeadline

router = APIRouter(prefix="/games/{game_id}", tags=["windows"])


@router.put("/windows/{window_id}/deadline", response_model=ReceiptPublic)
def set_deadline(
    game_id: str, window_id: str, body: DeadlineRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """GM: move a window's deadline (kept in UTC: daylight saving never moves it)."""
    return games.run(caller, game_id, SetDeadline(window_id, body.closes_at), key).as_dict()


@router.post("/windows/{window_id}/extensions", status_code=201, response_model=ReceiptPublic)
def request_extension(
    game_id: str, window_id: str, body: ExtensionRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """Ask the GM for more time in a window."""
    command = RequestExtension(body.power_id or caller.principal, body.hours, window_id, body.reason)
    return games.run(caller, game_id, command, key).as_dict()


@router.post("/extensions/{request_id}/grant", response_model=ReceiptPublic)
def grant_extension(
    game_id: str,
    request_id: str,
    body: GrantExtensionRequest,
    games: GamesDep,
    caller: CurrentCaller,
    key: IdempotencyKey,
) -> dict:
    """GM: grant a request within the game's caps; granting it again changes nothing."""
    return games.run(caller, game_id, GrantExtension(request_id, body.hours), key).as_dict()


@router.post("/extensions/{request_id}/refuse", response_model=ReceiptPublic)
def refuse_extension(
    game_id: str,
    request_id: str,
    body: RefuseExtensionRequest,
    games: GamesDep,
    caller: CurrentCaller,
    key: IdempotencyKey,
) -> dict:
    """GM: refuse a request."""
    return games.run(caller, game_id, RefuseExtension(request_id, body.reason), key).as_dict()


@router.post("/ready", response_model=ReceiptPublic)
def ready(game_id: str, body: ReadyRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey) -> dict:
    """Say you have submitted all you will this month; Planning closes early once everyone has."""
    return games.run(caller, game_id, DeclareReady(body.power_id or caller.principal), key).as_dict()
