"""Dependencies: the game service and the caller's identity (``Annotated`` aliases)."""

from __future__ import annotations

import hashlib
import json
from typing import Annotated

from fastapi import Depends, Header, Path, Request
from starlette.concurrency import run_in_threadpool

from projections.service import CommandKey, Games, hash_token, presented_token


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


async def idempotency_key(
    request: Request,
    idempotency_key: Annotated[str | None, Header(
        alias="Idempotency-Key", min_length=1, max_length=200,
        description="Any unique string (a UUID): a retry with the same key returns the first receipt and "
                    "records nothing new; the same key with a different request is refused (422)")] = None,
) -> CommandKey | None:
    """The request's ``Idempotency-Key``, with a fingerprint of the request (method, path, body) it names."""
    if idempotency_key is None:
        return None
    raw = await request.body()
    try:  # the same JSON body sent again with its keys in another order is the same request
        body = json.dumps(json.loads(raw), sort_keys=True, separators=(",", ":")).encode() if raw else b""
    except ValueError:
        body = raw
    what = b"\n".join([request.method.encode(), request.url.path.encode(), request.url.query.encode(), body])
    return CommandKey(idempotency_key, hashlib.sha256(what).hexdigest())


IdempotencyKey = Annotated[CommandKey | None, Depends(idempotency_key)]
