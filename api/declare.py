"""One declaration per command (issue 26): a ruleset's API package lists its commands once, in ``declared.py``
as ``DECLARED``, each with where the JSON API takes it (``Route``: its method, path, request schema, status and
name) and the web form that sends it (``api.web.forms.Form``). From that list the platform makes the JSON routes,
with their OpenAPI entries, and the forms the pages post; the command's handler is the one its ruleset registers
(``Ruleset.commands``), and every channel sends the command through ``Games.run``.

A route's command is built from its path's parameters and its body's fields, by name (``args`` adjusts them
where a name differs); the field named ``seat`` is the caller's seat when the body leaves it out; a command that
carries a sign-in token's hash (``token_hash``) gets a fresh token, which the answer shows once (``answer``).
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from fastapi import APIRouter
from pydantic import BaseModel

from api import rulesets
from api.deps import SenderDep
from api.schemas import COMMAND, GAME_READ, ReceiptPublic
from api.web.forms import ISSUED, Form, issues_token
from application.service import Receipt, new_token
from domain.platform.commands import Command

Fields = dict[str, Any]


@dataclass(frozen=True)
class Route:
    """Where the JSON API takes a command, under ``/games/{game_id}``."""

    method: Literal["POST", "PUT"]
    path: str  # its parameters (``{action_id}``) name the command's fields
    name: str  # the route's name (its OpenAPI operation)
    doc: str  # what the OpenAPI document says of it
    body: type[BaseModel] | None = None  # the request schema; None: the route takes no body
    status: int = 200
    seat: str | None = None  # a field that is the caller's own seat when the body leaves it out
    args: Callable[[Fields], Fields] | None = None  # the fields by the command's names, where the body's differ
    response_model: type[BaseModel] = ReceiptPublic
    answer: Callable[[Receipt, str | None], dict[str, Any]] | None = None  # (receipt, token) -> the answer

    def parameters(self) -> list[str]:
        return re.findall(r"\{(\w+)\}", self.path)


@dataclass(frozen=True)
class Declared:
    """A command, declared once: its JSON route and its web form (either may be absent)."""

    command: type[Command]
    route: Route | None = None
    form: Form | None = None


def command_of(
    declared: Declared, path: Mapping[str, str], body: BaseModel | None, seat: str, token_hash: str | None = None
) -> Command:
    """The command a route's request means: its path's parameters and its body's fields, by name."""
    route = declared.route
    assert route is not None
    fields: Fields = {**path, **(body.model_dump() if body is not None else {})}
    if route.seat is not None and fields.get(route.seat) is None:
        fields[route.seat] = seat
    if route.args is not None:
        fields = route.args(fields)
    if token_hash is not None:
        fields[ISSUED] = token_hash
    return declared.command(**fields)


def _endpoint(declared: Declared) -> Callable[..., Any]:
    route = declared.route
    assert route is not None
    issues = issues_token(declared.command)

    async def endpoint(**given: Any) -> dict[str, Any]:
        sender, game_id, body = given.pop("sender"), given.pop("game_id"), given.pop("body", None)
        token, token_hash = new_token() if issues else (None, None)
        command = command_of(declared, given, body, sender.caller.principal, token_hash)
        if route.answer is None:
            return await sender.run(game_id, command)
        receipt = await sender.receipt(game_id, command)
        return route.answer(receipt, None if receipt.replayed else token)

    keyword = inspect.Parameter.KEYWORD_ONLY
    params = [inspect.Parameter(p, keyword, annotation=str) for p in ("game_id", *route.parameters())]
    if route.body is not None:
        params.append(inspect.Parameter("body", keyword, annotation=route.body))
    params.append(inspect.Parameter("sender", keyword, annotation=SenderDep))
    endpoint.__signature__ = inspect.Signature(params, return_annotation=dict)  # type: ignore[attr-defined]
    endpoint.__name__ = endpoint.__qualname__ = route.name
    endpoint.__doc__ = route.doc
    return endpoint


def router(declared: Sequence[Declared], tags: list[str | Any] | None = None) -> APIRouter:
    """The JSON routes of these commands (each a write with a body; 409 when the game moved on)."""
    out = APIRouter(prefix="/games/{game_id}", tags=tags, responses=GAME_READ)
    for d in declared:
        if d.route is None:
            continue
        out.add_api_route(
            d.route.path,
            _endpoint(d),
            methods=[d.route.method],
            name=d.route.name,
            status_code=d.route.status,
            response_model=d.route.response_model,
            responses=COMMAND,
        )
    return out


def forms(declared: Sequence[Declared]) -> dict[str, Callable[..., Any]]:
    """The web forms of these commands, by the name a page posts to (``POST /play/{game_id}/{name}``)."""
    return {d.form.name: d.form.bound(d.command).handler() for d in declared if d.form is not None}


def declared_of(ruleset: str) -> tuple[Declared, ...]:
    """What a ruleset's API package declares (its ``declared`` module's ``DECLARED``), else nothing."""
    return _declared(ruleset) if ruleset in rulesets.API_PACKAGES else ()


@functools.cache
def _declared(ruleset: str) -> tuple[Declared, ...]:
    module = rulesets.part(ruleset, "declared")
    return tuple(getattr(module, "DECLARED", ())) if module is not None else ()


@functools.cache
def forms_of(ruleset: str) -> Mapping[str, Callable[..., Any]]:
    """A ruleset's declared forms, by name."""
    return forms(declared_of(ruleset))


def routers() -> list[APIRouter]:
    """Every ruleset's declared JSON routes, one router each, tagged with the ruleset's name."""
    return [router(d, tags=[name]) for name in rulesets.API_PACKAGES if (d := declared_of(name))]


__all__ = ["Declared", "Form", "Route", "command_of", "declared_of", "forms", "forms_of", "router", "routers"]
