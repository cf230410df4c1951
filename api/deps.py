"""Dependencies: the game service and the caller's identity (``Annotated`` aliases)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Path, Request
from starlette.concurrency import run_in_threadpool

from projections.service import Games


async def get_games(request: Request) -> Games:
    return request.app.state.games


GamesDep = Annotated[Games, Depends(get_games)]


async def current_principal(games: GamesDep, game_id: Annotated[str, Path()],
                            authorization: Annotated[str | None, Header()] = None) -> str:
    """``gm`` or a power id, from ``Authorization: Bearer <token>`` (from memory when it can, else the store)."""
    token = None
    if authorization and authorization.lower().startswith("bearer "):
        token = authorization[7:].strip()
    return games.authenticate_cached(game_id, token) or await run_in_threadpool(games.authenticate, game_id, token)


Principal = Annotated[str, Depends(current_principal)]
