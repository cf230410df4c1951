"""Games of any ruleset: create, replace a sign-in link, close a window, view, events."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from api.deps import GamesDep, IdempotencyKey, Principal, SenderDep
from api.routes.history import WaitFor, clamp, next_page, read_models_at
from api.schemas import (
    BODY,
    GAME_COMMAND,
    GAME_READ,
    LAGGING,
    AtVersion,
    CloseWindowRequest,
    CreateGameRequest,
    GameCreatedPublic,
    PageSize,
    Position,
    ReceiptPublic,
    TokenReplacedPublic,
    errors,
)
from application.service import new_token
from domain.platform.commands import CloseWindow, ReissueLink

router = APIRouter(prefix="/games", tags=["games"])


@router.post("", status_code=201, response_model=GameCreatedPublic, responses={**BODY, **errors(429)})
def create_game(body: CreateGameRequest, games: GamesDep, key: IdempotencyKey) -> dict:
    """Create a game of a registered ruleset (default Powers), with options its option schema accepts; the response
    carries the GM's token (shown once)."""
    game_id, token, receipt = games.create_game(
        body.name,
        body.gm_name,
        body.timezone,
        body.options,
        ruleset=body.ruleset,
        key=key,
    )
    return {"game_id": game_id, "gm_token": token, "receipt": receipt.as_dict()}


@router.post(
    "/{game_id}/seats/{seat}/token", status_code=201, response_model=TokenReplacedPublic, responses=GAME_COMMAND
)
async def replace_token(game_id: str, seat: str, sender: SenderDep) -> dict:
    """GM: replace a seat's token (and its mail address); the old one stops working at once."""
    token, token_hash = new_token()
    receipt = await sender.receipt(game_id, ReissueLink(seat, token_hash))
    return {"seat": seat, "token": None if receipt.replayed else token, "receipt": receipt.as_dict()}


@router.post("/{game_id}/windows/{window_id}/close", response_model=ReceiptPublic, responses=GAME_COMMAND)
async def close_window(game_id: str, window_id: str, body: CloseWindowRequest, sender: SenderDep) -> dict:
    """GM: close a window now, at ``expected_step`` (a no-op if it is already closed)."""
    return await sender.run(game_id, CloseWindow(window_id, body.expected_step))


@router.get("/{game_id}/view", responses=GAME_READ)
def my_view(game_id: str, games: GamesDep, me: Principal, version: AtVersion | None = None) -> dict:
    """The board as you may see it (P.4); the GM sees everything."""
    return games.view(game_id, me, version if me == "gm" else None)


@router.get("/{game_id}/events", responses={**GAME_READ, **LAGGING})
def my_events(
    game_id: str,
    request: Request,
    response: Response,
    games: GamesDep,
    me: Principal,
    after: Position = 0,
    limit: PageSize = 500,
    wait_for: WaitFor = None,
) -> list[dict]:
    """The events you may see, numbered by your own gap-free sequence: one page after ``after`` (the next
    page's cursor in ``X-Next-After`` and ``Link``); ``wait_for=<receipt sequence>`` waits for your write."""
    read_models_at(request, response, game_id, me, wait_for)
    limit = clamp(limit)
    items = games.visible_events(game_id, me, after=after, limit=limit + 1)
    next_page(request, response, items[limit - 1]["seq"] if len(items) > limit else None)
    return items[:limit]
