"""Dependencies: the game service and the caller's identity (``Annotated`` aliases)."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Header, Path, Request
from fastapi.dependencies.models import Dependant
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.concurrency import run_in_threadpool

from application.service import Caller, CommandKey, Games, Receipt, hash_token
from domain.platform.commands import Command


async def get_games(request: Request) -> Games:
    return request.app.state.games


GamesDep = Annotated[Games, Depends(get_games)]


def _bearer(authorization: str | None) -> str | None:
    if authorization and authorization.lower().startswith("bearer "):
        return authorization[7:].strip()
    return None


async def current_caller(
    request: Request,
    games: GamesDep,
    game_id: Annotated[str, Path()],
    authorization: Annotated[str | None, Header()] = None,
) -> Caller:
    """Who sends a command, from ``Authorization: Bearer <token>``: from memory when it can, since the
    command carries the token's hash and ``Games.run`` checks it again against the state it runs on
    (a read authenticates against the store's latest state)."""
    token = _bearer(authorization)
    fresh = request.method in ("GET", "HEAD")
    principal = None if fresh else games.authenticate_cached(game_id, token)
    if principal is None:
        principal = await run_in_threadpool(lambda: games.authenticate(game_id, token, fresh=fresh))
    return Caller.of(principal, hash_token(token or ""))


CurrentCaller = Annotated[Caller, Depends(current_caller)]


async def current_principal(
    games: GamesDep, game_id: Annotated[str, Path()], authorization: Annotated[str | None, Header()] = None
) -> str:
    """``gm`` or a power id, authenticated against the store's latest state: a token replaced by another
    process stops at once for reads (and for the routes that call the service's convenience methods)."""
    token = _bearer(authorization)
    return await run_in_threadpool(lambda: games.authenticate(game_id, token, fresh=True))


Principal = Annotated[str, Depends(current_principal)]


KEY_DESCRIPTION = (
    "Any unique string (a UUID): a retry with the same key returns the first receipt and "
    "records nothing new; the same key with a different request is refused (422)"
)

IdempotencyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=200,
        description=KEY_DESCRIPTION,
    ),
]


async def idempotency_key(
    request: Request,
    idempotency_key: IdempotencyHeader = None,
) -> CommandKey | None:
    """The request's ``Idempotency-Key``, with a fingerprint of the request (method, path, body) it names."""
    return await idempotency_key_of(request, idempotency_key)


async def idempotency_key_of(request: Request, idempotency_key: str | None) -> CommandKey | None:
    """The key sent (None if none), with a fingerprint of the request it names."""
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


@dataclass(frozen=True)
class Sender:
    """What a command route needs, solved as one dependency: the service, the caller (``Authorization``) and
    the ``Idempotency-Key``. One dependency and an ``async`` route cost the request one hop to a thread
    (``Games.run``); three dependencies and a sync route (a hop for the route, another for checking its answer)
    cost more than the command's own rules."""

    games: Games
    caller: Caller
    key: CommandKey | None

    async def receipt(self, game_id: str, command: Command) -> Receipt:
        """``Games.run`` in one of the service's threads (``Games.threads``): a command's one hop off the event
        loop, in the request's context (its language)."""
        run = functools.partial(contextvars.copy_context().run, self.games.run, self.caller, game_id, command, self.key)
        return await asyncio.get_running_loop().run_in_executor(self.games.threads, run)

    async def run(self, game_id: str, command: Command) -> dict:
        """The command's receipt, as the route answers it."""
        return (await self.receipt(game_id, command)).as_dict()


KEY_LENGTH = (1, 200)  # what ``IdempotencyHeader`` allows

# The headers a command route reads, as its OpenAPI entry shows them (``document_sender_headers``): ``command_sender``
# reads them from the request itself, since FastAPI's solving two declared headers cost a command more than its answer.
SENDER_OPENAPI: dict = {
    "parameters": [
        {"name": "authorization", "in": "header", "required": False, "schema": {"type": "string"}},
        {
            "name": "Idempotency-Key",
            "in": "header",
            "required": False,
            "description": KEY_DESCRIPTION,
            "schema": {"type": "string", "minLength": KEY_LENGTH[0], "maxLength": KEY_LENGTH[1]},
        },
    ]
}


def document_sender_headers(router: APIRouter) -> APIRouter:
    """Each of the router's routes that takes a ``SenderDep`` documents the headers ``command_sender`` reads."""
    for route in router.routes:
        if isinstance(route, APIRoute) and _depends_on(route.dependant, command_sender):
            extra = route.openapi_extra or {}
            have = extra.get("parameters", [])
            named = {p["name"] for p in have}  # once, however many apps a process builds on the same routers
            route.openapi_extra = {
                **extra,
                "parameters": [*have, *(p for p in SENDER_OPENAPI["parameters"] if p["name"] not in named)],
            }
    return router


def _depends_on(dependant: Dependant, call: Callable[..., Any]) -> bool:
    return dependant.call is call or any(_depends_on(d, call) for d in dependant.dependencies)


def _checked_key(value: str | None) -> str | None:
    """The ``Idempotency-Key`` sent, refused as FastAPI refuses a declared header out of its bounds."""
    if value is None or KEY_LENGTH[0] <= len(value) <= KEY_LENGTH[1]:
        return value
    short = len(value) < KEY_LENGTH[0]
    bound = KEY_LENGTH[0] if short else KEY_LENGTH[1]
    problem = f"at least {bound} character" if short else f"at most {bound} characters"
    raise RequestValidationError(
        [
            {
                "type": "string_too_short" if short else "string_too_long",
                "loc": ("header", "Idempotency-Key"),
                "msg": f"String should have {problem}",
                "input": value,
                "ctx": {"min_length" if short else "max_length": bound},
            }
        ]
    )


async def command_sender(request: Request, game_id: Annotated[str, Path()]) -> Sender:
    """The command's sender: authenticated as ``current_caller`` does, with the key as ``idempotency_key``. Its
    headers are read here, not declared (see ``SENDER_OPENAPI``), which saves FastAPI's solving them."""
    games = request.app.state.games
    headers = request.headers
    caller = await current_caller(request, games, game_id, headers.get("authorization"))
    key = await idempotency_key_of(request, _checked_key(headers.get("idempotency-key")))
    return Sender(games, caller, key)


SenderDep = Annotated[Sender, Depends(command_sender)]
