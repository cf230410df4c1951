"""Platform commands every ruleset takes (visibility grants, a seat's time zone), and one typed route for
every command of every ruleset: ``POST /games/{game_id}/commands`` names a command class of the game's
ruleset (or of the platform) and its fields, so a ruleset's new commands reach the API without new routes."""

from __future__ import annotations

from fastapi import APIRouter, Request, Response

from api import declare
from api.declare import ISSUED, Declared, Route, build, issued, issues_token
from api.deps import CurrentCaller, GamesDep, IdempotencyKey
from api.ratelimit import too_many
from api.schemas import (
    GAME_COMMAND,
    CommandReceiptPublic,
    CommandRequest,
    GrantRequest,
    LanguageRequest,
    NotificationsRequest,
    TimezoneRequest,
)
from domain import limits
from domain.errors import Forbidden, RuleViolation
from domain.platform.commands import (
    PLATFORM_COMMANDS,
    Command,
    GrantVisibility,
    SetLanguage,
    SetNotifications,
    SetTimezone,
)
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
    Declared(
        SetLanguage,
        Route(
            "PUT",
            "/language",
            "set_language",
            "Choose the language your mail is written in (issue 28; null: the game's).",
            LanguageRequest,
            seat="seat",
        ),
    ),
    Declared(
        SetNotifications,
        Route(
            "PUT",
            "/notifications",
            "set_notifications",
            "Choose how your news comes (issue 31): per channel (mail, push) each kind now, in the daily digest or "
            "off, and quiet hours in your zone (held until they end, but for a deadline within them).",
            NotificationsRequest,
            seat="seat",
        ),
    ),
)
declared_router = declare.router(DECLARED, tags=["commands"])


# Commands a route counts against a rate limit (``api.ratelimit.COUNTED``): counted here too, sent by name.
COUNTED_BY_NAME = {"InviteToSeat": "invitations", "InviteObserver": "invitations"}


@router.post("/commands", response_model=CommandReceiptPublic)
def run_command(
    game_id: str,
    body: CommandRequest,
    games: GamesDep,
    caller: CurrentCaller,
    key: IdempotencyKey,
    request: Request,
) -> dict | Response:
    """Run any command of this game's ruleset or of the platform, by its class name, with its fields as
    ``args``: ``{"command": "SetMonths", "args": {"months": 3}}``. An unknown command or a missing, unknown or
    ill-typed field is refused (422) naming it; the receipt is that of the same command sent any other way."""
    ruleset = games.get_game(game_id, for_update=False).ruleset
    cls = command_class(ruleset, body.command)
    if getattr(cls, "system", False):  # the workers' and the service's own (an invitation's acceptance): refused first
        raise Forbidden(f"only the service's workers send {cls.__name__}", field="command")
    counted = COUNTED_BY_NAME.get(cls.__name__)
    if counted is not None:  # an invitation mails an address: its limit holds however it is sent
        limits = request.app.state.rate_limits
        over = limits.hit(counted, request.client.host if request.client else "unknown")
        if over is not None:
            return too_many(counted, *over)
    args = dict(body.args)
    if issues_token(cls):
        if ISSUED in args:
            raise RuleViolation(f"args.{ISSUED}: the server issues the sign-in token", field=f"args.{ISSUED}")
        args[ISSUED] = ""
    command, token = issued(build(cls, args))
    receipt = games.run(caller, game_id, command, key)
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
