"""One declaration per command (issue 26): a ruleset's API package lists its commands once, in ``declared.py``
as ``DECLARED``, each with where the JSON API takes it (``Route``: its method, path, request schema, status and
name) and the web form that sends it (``api.web.forms.Form``). From that list the platform makes the JSON routes,
with their OpenAPI entries, and the forms the pages post; the command's handler is the one its ruleset registers
(``Ruleset.commands``), and every channel sends the command through ``Games.run``.

A command is built from fields one way (``build``), whichever channel names them: a route from its path's
parameters and its body's fields, by name (``args`` adjusts them where a name differs; the field named ``seat``
is the caller's seat when the body leaves it out), ``POST /games/{id}/commands`` from its ``args``, a form from
what was posted. A command that carries a sign-in token's hash (``ISSUED``) gets a fresh token in one place
(``application.service.issued``), which the answer shows once.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import json
import re
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from fastapi import APIRouter, HTTPException, Request, Response
from fastapi import routing as fastapi_routing
from fastapi.routing import APIRoute, serialize_response
from fastapi.telemetry import get_telemetry_data
from pydantic import BaseModel, TypeAdapter, ValidationError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.body_limit import MAX_BODY_SIZE_SCOPE_KEY

from api import rulesets
from api.deps import SenderDep, command_sender
from api.schemas import COMMAND, GAME_READ, ReceiptPublic
from application.service import ISSUED, Receipt, issued, issues_token
from domain import limits
from domain.errors import RuleViolation
from domain.platform.commands import Command

if TYPE_CHECKING:
    from api.web.forms import Form

Fields = dict[str, Any]
C = TypeVar("C", bound=Command)


def _renamed(name: str, accepted: AbstractSet[str], args: Fields) -> str:
    """A field's name in ``args``, or the platform's name for it where a ruleset's clients sent the one they gave it
    first (``api.rulesets.old_names``) and the command has the new name, not the old."""
    new = rulesets.old_names("FIELDS").get(name)
    return new if name not in accepted and new is not None and new in accepted and new not in args else name


def build(cls: type[C], args: Fields, where: str = "args") -> C:
    """The command from its fields by name, checked against its dataclass (strict types; a JSON string is a time).
    A bad field is refused naming it under ``where`` (``args.months``); a route's fields (``where=""``), which its
    request schema checked already, are named as they are."""
    accepted = _accepted(cls)
    args = {name if name in accepted else _renamed(name, accepted, args): value for name, value in args.items()}
    prefix = f"{where}." if where else ""
    for name in args:
        if name not in accepted:
            field = f"{prefix}{limits.field_name([name])}"
            raise RuleViolation(
                f"{field} is not a field of {cls.__name__}; its fields are {', '.join(sorted(accepted))}", field=field
            )
    limits.check_whole_numbers(args, where or "args")  # before the fields' own checks: a number no store holds
    try:
        if not where and _plain(cls) and _no_floats(args):
            # A route's fields are JSON's own values (its request schema dumped them): where the command's fields are
            # all of plain JSON types, the dataclass built from them directly checks each field as the adapter would
            # (strictly, by the same annotations: ``Command.__post_init__``) and holds the same values, at a third of
            # the adapter's cost (issue 30). Anything it refuses is built, or refused as always, by the adapter (and
            # a number with a fraction, which may be no JSON number at all, goes there first).
            try:
                return cls(**args)
            except (RuleViolation, TypeError):
                pass
        return _adapter(cls).validate_json(_JSON.encode(args), strict=True)
    except ValidationError as err:
        first = err.errors()[0]
        field = prefix + limits.field_name(first["loc"]) if first["loc"] else (where or "args")
        raise RuleViolation(f"{field}: {first['msg']} ({cls.__name__})", field=field) from None
    except ValueError:  # NaN or Infinity among the args: never a number
        raise RuleViolation(f"{where or 'args'}: not a JSON number ({cls.__name__})", field=where or "args") from None
    except RuleViolation as err:  # the command's own check of a field (Command.__post_init__)
        if not where:
            raise
        field = f"{prefix}{err.field}"
        raise RuleViolation(f"{field}: {err.message}", rule=err.rule, field=field) from None


def _plain(cls: type) -> bool:
    """Whether every field of a command is of plain JSON types (text, whole numbers, true/false, null, lists, objects
    with text keys, ``Any``, literals of these), which JSON neither converts nor reads otherwise (a time, a float, a
    tuple or a dataclass would): a command built of such values directly is the one the adapter builds from their
    JSON. Once per class."""
    found = _PLAIN.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        found = _PLAIN[cls] = all(_plain_type(hints[f.name]) for f in dataclasses.fields(cls))
    return found


def _plain_type(hint: Any) -> bool:
    if hint in (str, int, bool, type(None), Any):
        return True
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return all(type(a) in (str, int, bool) for a in args)
    if origin in (typing.Union, types.UnionType):
        return all(_plain_type(a) for a in args)
    if origin is list:
        return len(args) == 1 and _plain_type(args[0])
    if origin is dict:
        return len(args) == 2 and args[0] is str and _plain_type(args[1])
    return False


def _no_floats(value: dict | list) -> bool:
    """Whether ``value`` holds no float (NaN and Infinity are floats, which only the adapter's path refuses)."""
    for item in value.values() if type(value) is dict else value:
        kind = type(item)
        if kind is float or ((kind is dict or kind is list) and not _no_floats(item)):
            return False
    return True


_PLAIN: dict[type, bool] = {}
_JSON = json.JSONEncoder(
    allow_nan=False
)  # ``json.dumps(args, allow_nan=False)``, without building an encoder each call


def _accepted(cls: type) -> frozenset[str]:
    """The fields a command is built from (once per class)."""
    found = _ACCEPTED.get(cls)
    if found is None:
        found = _ACCEPTED[cls] = frozenset(f.name for f in dataclasses.fields(cls) if f.init)
    return found


_ACCEPTED: dict[type, frozenset[str]] = {}


_ADAPTERS: dict[type, TypeAdapter] = {}


def _adapter(cls: type) -> TypeAdapter:
    if cls not in _ADAPTERS:
        _ADAPTERS[cls] = TypeAdapter(cls)
    return _ADAPTERS[cls]


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


def command_of(declared: Declared, path: Mapping[str, str], body: BaseModel | None, seat: str) -> Command:
    """The command a route's request means: its path's parameters and its body's fields, by name (a sign-in
    token's hash left blank: ``issued`` fills it)."""
    route = declared.route
    assert route is not None
    fields: Fields = {**path, **(body.model_dump(mode="json") if body is not None else {})}
    if route.seat is not None and fields.get(route.seat) is None:
        fields[route.seat] = seat
    if route.args is not None:
        fields = route.args(fields)
    if issues_token(declared.command):
        fields[ISSUED] = ""
    return build(declared.command, fields, where="")


def _endpoint(declared: Declared) -> Callable[..., Any]:
    route = declared.route
    assert route is not None

    async def endpoint(**given: Any) -> dict[str, Any]:
        sender, game_id, body = given.pop("sender"), given.pop("game_id"), given.pop("body", None)
        command, token = issued(command_of(declared, given, body, sender.caller.principal))
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
    endpoint.declared_route = route  # type: ignore[attr-defined]  # what CommandRoute's lean path reads
    return endpoint


# FastAPI's handler for a route included in an app reads the inclusion's state (its dependencies, its overrides)
# from this context variable while it is built; the lean path reads the same (None: FastAPI's handler alone).
_EFFECTIVE = getattr(fastapi_routing, "_effective_route_context_var", None)
JSON = "application/json"


class CommandRoute(APIRoute):
    """A declared command's JSON route: FastAPI's handler, with a lean path in front of it for a well-formed request
    (issue 30). FastAPI's generic handler (its dependency solver, its parameter and header collection, its content-type
    parsing, its telemetry hooks) cost a command about as much CPU as its rules. The lean path does what that handler
    does for this route's shape, in the same order: the body read and parsed as JSON and validated by the route's
    request schema, the one dependency (``command_sender``: the caller, the ``Idempotency-Key``), the endpoint, and
    the answer validated and written by the route's response model with its status. Anything else (no or another
    content type, a body that is not JSON or that its schema refuses, dependencies added or overridden, FastAPI's
    telemetry on) goes to FastAPI's handler, whose refusals are then the same as before; the request's body, read
    once, is cached on the request, so FastAPI's handler reads it again. The OpenAPI entry is the route's, unchanged.
    ``tests/integration/test_command_route.py`` checks the two paths answer alike."""

    # Each handler built for this route (at its creation, at each inclusion in an app): whether it has the lean path.
    # ``tests/integration/test_command_route.py`` requires it of every declared route, so that a FastAPI upgrade that
    # moves the internals read here (``_effective_route_context_var``, the inclusion's dependant and response field)
    # fails there, loudly, instead of every command silently taking FastAPI's slower handler.
    lean_built: list[bool]

    def get_route_handler(self) -> Callable[[Request], Any]:
        handler, lean = self._handler()
        self.__dict__.setdefault("lean_built", []).append(lean)
        return handler

    def _handler(self) -> tuple[Callable[[Request], Any], bool]:
        full = super().get_route_handler()
        context = _EFFECTIVE.get() if _EFFECTIVE is not None else None
        route: Any = context if context is not None and context.original_route is self else self
        declared: Route | None = getattr(self.endpoint, "declared_route", None)
        dependant = route.dependant
        if (
            _EFFECTIVE is None
            or declared is None
            or dependant is None
            or [d.call for d in dependant.dependencies] != [command_sender]
            or route.response_field is None
        ):
            return full, False
        endpoint, body_model, status, field = self.endpoint, declared.body, route.status_code, route.response_field
        names = declared.parameters()
        overrides = getattr(route.dependency_overrides_provider, "dependency_overrides", None)

        async def handler(request: Request) -> Response:
            if overrides or get_telemetry_data() is not None:
                return await full(request)
            values: dict[str, Any] = {}
            if body_model is not None:
                kind = request.headers.get("content-type", "")
                if MAX_BODY_SIZE_SCOPE_KEY in request.scope or kind.partition(";")[0].strip().lower() != JSON:
                    return await full(request)
                try:
                    raw = await request.body()
                except StarletteHTTPException:
                    raise
                except Exception as exc:  # as FastAPI answers a body it could not read (no size limit set)
                    raise HTTPException(status_code=400, detail="There was an error parsing the body") from exc
                try:
                    values["body"] = body_model.model_validate(json.loads(raw))
                except Exception:  # noqa: BLE001 - not JSON (too deep, not UTF-8), or refused by the schema
                    return await full(request)  # which reads the body cached on the request and refuses it
            path = request.path_params
            game_id = path["game_id"]
            values.update({name: path[name] for name in names})
            values["sender"] = await command_sender(request, game_id)
            answer = await endpoint(game_id=game_id, **values)
            content = await serialize_response(
                field=field,
                response_content=answer,
                include=route.response_model_include,
                exclude=route.response_model_exclude,
                by_alias=route.response_model_by_alias,
                exclude_unset=route.response_model_exclude_unset,
                exclude_defaults=route.response_model_exclude_defaults,
                exclude_none=route.response_model_exclude_none,
                dump_json=True,
            )
            return Response(content=content, status_code=status, media_type=JSON)

        return handler, True


def router(declared: Sequence[Declared], tags: list[str | Any] | None = None) -> APIRouter:
    """The JSON routes of these commands (each a write with a body; 409 when the game moved on)."""
    out = APIRouter(prefix="/games/{game_id}", tags=tags, responses=GAME_READ, route_class=CommandRoute)
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


__all__ = [
    "ISSUED",
    "CommandRoute",
    "Declared",
    "Route",
    "build",
    "command_of",
    "declared_of",
    "forms",
    "forms_of",
    "issued",
    "issues_token",
    "router",
    "routers",
]
