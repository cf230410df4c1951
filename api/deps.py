"""Dependencies: the game service and the caller's identity (``Annotated`` aliases)."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Path, Request
from starlette.concurrency import run_in_threadpool

from projections.service import Games, hash_token, presented_token


async def get_games(request: Request) -> Games:
    return request.app.state.games


GamesDep = Annotated[Games, Depends(get_games)]


async def current_principal(games: GamesDep, game_id: Annotated[str, Path()],
                            authorization: Annotated[str | None, Header()] = None) -> str:
    """``gm`` or a power id, from ``Authorization: Bearer <token>`` (from memory when it can, else the store)."""
    token = None
    if authorization and authorization.lower().startswith("bearer "):
        token = authorization[7:].strip()
    principal = games.authenticate_cached(game_id, token) or await run_in_threadpool(games.authenticate, game_id, token)
    # Every read and command of this request checks the token again against the state it uses.
    presented_token.set(hash_token(token))
    return principal


Principal = Annotated[str, Depends(current_principal)]
