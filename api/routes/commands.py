"""Platform commands every ruleset takes (visibility grants, a seat's time zone), and one typed route for
every command of every ruleset: ``POST /games/{game_id}/commands`` names a command class of the game's
ruleset (or of the platform) and its fields, so a ruleset's new commands reach the API without new routes."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from fastapi import APIRouter
from pydantic import TypeAdapter, ValidationError

from api import declare
from api.declare import Declared, Route
from api.deps import CurrentCaller, GamesDep, IdempotencyKey
from api.schemas import (
    GAME_COMMAND,
    CommandReceiptPublic,
    CommandRequest,
    GrantRequest,
    TimezoneRequest,
)
from api.web.forms import ISSUED, issues_token
from application.service import new_token
from domain import limits
from domain.errors import RuleViolation
from domain.platform.commands import PLATFORM_COMMANDS, Command, GrantVisibility, SetTimezone
from domain.platform.ruleset import Ruleset, UnknownCommand

router = APIRouter(prefix="/games/{game_id}", tags=["commands"], responses=GAME_COMMAND)


# The platform's own commands with a route of their own, each declared once (``api.declare``).
DECLARED = (
    Declared(
        GrantVisibility,
        Route(
            "POST",
            "/grants",
            "grant",
            "GM: show a power what it learned (a Seeking success, a ruling).",
            GrantRequest,
            201,
        ),
    ),
    Declared(
        SetTimezone,
        Route(
            "PUT",
            "/timezone",
            "set_timezone",
            "Choose the time zone your feed and deadlines are shown in.",
            TimezoneRequest,
            seat="seat",
        ),
    ),
)
declared_router = declare.router(DECLARED, tags=["commands"])


@router.post("/commands", response_model=CommandReceiptPublic)
def run_command(
    game_id: str, body: CommandRequest, games: GamesDep, caller: CurrentCaller, key: IdempotencyKey
) -> dict:
    """Run any command of this game's ruleset or of the platform, by its class name, with its fields as
    ``args``: ``{"command": "SetMonths", "args": {"months": 3}}``. An unknown command or a missing, unknown or
    ill-typed field is refused (422) naming it; the receipt is that of the same command sent any other way."""
    ruleset = games.get_game(game_id, for_update=False).ruleset
    cls = command_class(ruleset, body.command)
    token = None
    args = dict(body.args)
    if issues_token(cls):
        if ISSUED in args:
            raise RuleViolation(f"args.{ISSUED}: the server issues the sign-in token", field=f"args.{ISSUED}")
        token, args[ISSUED] = new_token()
    receipt = games.run(caller, game_id, build(cls, args), key)
    return {**receipt.as_dict(), "token": None if receipt.replayed else token}


def command_class(ruleset: Ruleset, name: str) -> type[Command]:
    """The command class of this name among the ruleset's commands and the platform's, else 422 naming it."""
    for cls in (*ruleset.commands, *PLATFORM_COMMANDS):
        if cls.__name__ == name:
            return cls
    known = ", ".join(sorted(c.__name__ for c in (*ruleset.commands, *PLATFORM_COMMANDS)))
    raise UnknownCommand(
        f"command: {ruleset.name!r} games take no command {limits.field_name([name])!r}; they take {known}",
        field="command",
    )


OLD_FIELDS = {"power_id": "seat"}
"""Fields' old names, still accepted in ``args`` where the command has the new one and not the old."""


def _renamed(name: str, accepted: set[str], args: dict[str, Any]) -> str:
    new = OLD_FIELDS.get(name)
    return new if name not in accepted and new in accepted and new not in args else name


def build(cls: type[Command], args: dict[str, Any]) -> Command:
    """The command from JSON fields, checked against its dataclass (strict types; a JSON string is a time)."""
    accepted = {f.name for f in dataclasses.fields(cls) if f.init}
    args = {_renamed(name, accepted, args): value for name, value in args.items()}
    for name in args:
        if name not in accepted:
            field = f"args.{limits.field_name([name])}"
            raise RuleViolation(
                f"{field} is not a field of {cls.__name__}; its fields are {', '.join(sorted(accepted))}", field=field
            )
    limits.check_whole_numbers(args, "args")  # before the fields' own checks: a number no store holds, by name
    try:
        return _adapter(cls).validate_json(json.dumps(args, allow_nan=False), strict=True)
    except ValidationError as err:
        first = err.errors()[0]
        field = "args." + limits.field_name(first["loc"]) if first["loc"] else "args"
        raise RuleViolation(f"{field}: {first['msg']} ({cls.__name__})", field=field) from None
    except ValueError:  # NaN or Infinity among the args: never a number
        raise RuleViolation(f"args: not a JSON number ({cls.__name__})", field="args") from None
    except RuleViolation as err:  # the command's own check of a field (Command.__post_init__)
        raise RuleViolation(f"args.{err.field}: {err.message}", rule=err.rule, field=f"args.{err.field}") from None


_ADAPTERS: dict[type, TypeAdapter] = {}


def _adapter(cls: type) -> TypeAdapter:
    if cls not in _ADAPTERS:
        _ADAPTERS[cls] = TypeAdapter(cls)
    return _ADAPTERS[cls]
