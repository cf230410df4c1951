"""Request and response schemas (``*Request`` / ``*Public``). Unknown fields are refused by name.

Every text field is bounded by the limits in ``domain/limits.py`` (the commands enforce the same
limits for every other channel), every number by a sanity bound (the rules set the real ranges and
name the rule), and NaN or Infinity are never numbers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AliasChoices, BaseModel, ConfigDict, Field

from api import rulesets
from domain import limits
from domain.errors import DomainError
from domain.platform.notifications import KINDS
from domain.platform.posts import POST_TEXT


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def _email(value: str) -> str:
    try:
        return limits.check_email(value)
    except DomainError as err:
        raise ValueError(err.message) from None


def _sane_time(value: datetime) -> datetime:
    # Far enough for any deadline, near enough that converting between zones cannot overflow.
    if not 2000 <= value.year <= 9000:
        raise ValueError("a deadline is between the years 2000 and 9000")
    return value


Id = Annotated[str, Field(max_length=limits.IDENTIFIER)]
Number = Annotated[int, Field(ge=-limits.NUMBER, le=limits.NUMBER)]
Version = Annotated[int, Field(ge=1, le=limits.NUMBER * 1000)]
# Whole numbers a request names in its path or query: each is within what both stores hold (a signed 64-bit
# column), so a larger one is refused (422) naming it before any store sees it.
Position = Annotated[int, Field(ge=0, le=limits.BIGINT)]  # a version, a sequence, a cursor, a count read
AtVersion = Annotated[int, Field(ge=1, le=limits.BIGINT)]  # an event's version (the first is 1)
PageSize = Annotated[int, Field(ge=1, le=limits.PAGE)]
Email = Annotated[str, Field(max_length=limits.EMAIL), AfterValidator(_email)]
Moment = Annotated[datetime, AfterValidator(_sane_time)]


class ReceiptPublic(BaseModel):
    game_id: str
    sequence: int = Field(description="Your gap-free sequence number of events you may see, after this command")
    recorded_at: str = Field(description="Server time (UTC) the events were recorded")
    digest: str = Field(description="sha256 of the canonical JSON of what was recorded (as you may see it)")
    events: list[str]
    result: dict[str, Any] = {}
    replayed: bool = Field(
        default=False,
        description="True when this is the first receipt of an Idempotency-Key sent again: nothing new was recorded",
    )


class CreateGameRequest(Strict):
    ruleset: str | None = Field(
        default=None,
        max_length=limits.IDENTIFIER,
        description="The registered ruleset the game is played by (omitted: the first installed, powers)",
    )
    name: str = Field(min_length=1, max_length=limits.GAME_NAME)
    gm_name: str = Field(default="GM", max_length=limits.GM_NAME)
    timezone: str = Field(default="UTC", max_length=limits.TIMEZONE, description="IANA time zone of the game")
    options: dict[Id, Any] = Field(
        default={},
        max_length=limits.ITEMS,
        description="The chosen ruleset's options (its option schema): unknown, ill-typed or out-of-range options "
        "are refused, naming the option and the ruleset",
    )


class GameCreatedPublic(BaseModel):
    game_id: str
    gm_token: str | None = Field(description="Bearer token of the GM; shown once (null on an Idempotency-Key retry)")
    receipt: ReceiptPublic


EXPECTED_STEP = (
    "The step you saw the game at (see your view's game.step); if the game has moved on since, "
    "the command is refused with 409 and records nothing, so a repeated click moves the game once"
)


class CloseWindowRequest(Strict):
    expected_step: Id = Field(description=EXPECTED_STEP)


class TokenReplacedPublic(BaseModel):
    seat: str
    token: str | None = Field(
        description="The seat's new bearer token; shown once (null when the request is "
        "a retry of one already answered: tokens are kept only as hashes)"
    )
    receipt: ReceiptPublic


class ErrorPublic(BaseModel):
    error: str
    rule: str | None = None
    field: str | None = None
    message: str


class ValidationErrorPublic(ErrorPublic):
    errors: list[dict[str, str]] = Field(default=[], description="Every field refused, each with its message")


class TooManyPublic(ErrorPublic):
    limit: str = Field(description="The limit the client went over, such as '30 per 1 minute'")


# The statuses a route can answer besides its success, in the error shape of ``api.app`` (each names the rule
# or field): one mapping, which the routers and routes pick from with ``responses=``.
ERRORS: dict[int, dict[str, Any]] = {
    400: {"model": ErrorPublic, "description": "The body could not be read as JSON"},
    401: {"model": ErrorPublic, "description": "No valid bearer token for this game"},
    403: {"model": ErrorPublic, "description": "Your role may not do this (the GM's, a host's, another seat's)"},
    404: {"model": ErrorPublic, "description": "No such game, or nothing of that id that you may see"},
    409: {"model": ErrorPublic, "description": "The game moved on (expected_step) or stayed busy; nothing recorded"},
    413: {"model": ErrorPublic, "description": "The body is larger than the service takes"},
    422: {"model": ValidationErrorPublic, "description": "A rule or a field refused it, by name; nothing recorded"},
    429: {"model": TooManyPublic, "description": "Too many requests (or failed sign-ins) from your address"},
    503: {"model": ErrorPublic, "description": "The game stayed busy; nothing recorded: send it again (Retry-After)"},
}


Responses = dict[int | str, dict[str, Any]]  # a route's ``responses=``


def errors(*codes: int) -> Responses:
    """The shared descriptions of these error statuses, for ``responses=``."""
    return {code: ERRORS[code] for code in codes}


# A game's routes: who may (401, 403), which game (404), what they name (422), the failed sign-in budget (429).
GAME_READ = errors(401, 403, 404, 422, 429)
# A write with a JSON body: one that cannot be parsed (400) or is too large (413).
BODY = errors(400, 413, 422)
# A command: also refused when the game moved on or stayed busy (409); on a game, with the game's statuses.
COMMAND = {**BODY, **errors(409)}
GAME_COMMAND = {**GAME_READ, **COMMAND}
LAGGING: Responses = {
    202: {"description": "Your read models do not hold ``wait_for`` yet: the page as it stands, with X-Lagging"}
}
JSON_LINES = "application/x-ndjson"


class RollbackRequest(Strict):
    # The reason's and the name's rules are the handler's (RollBack, Fork): the generic route answers alike.
    reason: str = Field(description=f"Required; at most {limits.REASON} characters")
    phase: Id | None = Field(default=None, description="Phase to return to, such as s1m2-planning")
    version: Version | None = None


class ForkRequest(Strict):
    name: str = Field(description=f"Required; at most {limits.GAME_NAME} characters")
    reason: str = Field(default="", description=f"At most {limits.REASON} characters")
    phase: Id | None = None
    version: Version | None = None


class GrantRequest(Strict):
    to: Id
    text: str = Field(min_length=1, max_length=limits.GRANT_TEXT)
    source: Literal["seeking", "ruling", "consequence"] = "ruling"
    about: Id | None = None


SEAT_NAMES = AliasChoices("seat", *(old for old, to in rulesets.old_names("FIELDS").items() if to == "seat"))
MySeat = Annotated[Id | None, Field(validation_alias=SEAT_NAMES)]
"""The seat a body is about, sent as ``seat`` (or a name a ruleset's clients gave it first,
``api.rulesets.old_names``); none: the caller's own."""


class TimezoneRequest(Strict):
    seat: MySeat = None
    timezone: str = Field(max_length=limits.TIMEZONE)


class LanguageRequest(Strict):
    seat: MySeat = None
    language: str | None = Field(default=None, max_length=20, description='A language tag ("de"); null: the game\'s')


class DeadlineRequest(Strict):
    closes_at: Moment = Field(description="ISO 8601; without an offset it is read in the game's time zone")


class ExtensionRequest(Strict):
    seat: MySeat = None
    hours: float = Field(gt=0, le=72)
    reason: str = Field(default="", max_length=limits.REASON)


class GrantExtensionRequest(Strict):
    hours: float | None = Field(default=None, gt=0, le=72)


class RefuseExtensionRequest(Strict):
    reason: str = Field(default="", max_length=limits.REASON)


class ReadyRequest(Strict):
    seat: MySeat = None


Choices = Annotated[
    dict[Annotated[str, Field(max_length=20)], Annotated[str, Field(max_length=10)]],
    Field(max_length=len(KINDS), description="A kind of news -> now, digest or off; kinds not named: now"),
]


class NotificationsRequest(Strict):
    seat: MySeat = None
    mail: Choices = Field(default_factory=dict)
    push: Choices = Field(default_factory=dict)
    quiet_from: str | None = Field(default=None, max_length=5, description='Quiet hours begin ("22:00"), seat\'s zone')
    quiet_until: str | None = Field(default=None, max_length=5, description='Quiet hours end ("07:00")')


class ContactRequest(Strict):
    seat: MySeat = None
    email: Email | None = Field(description="A valid address of at most 254 characters, or null for none")
    mode: Literal["immediate", "digest", "off"] = "immediate"


class CommandRequest(Strict):
    command: Id = Field(description="The class name of a command of the game's ruleset or of the platform (SetMonths)")
    args: dict[Id, Any] = Field(
        default={}, max_length=limits.ITEMS, description="The command's fields by name, as its dataclass declares them"
    )


class CommandReceiptPublic(ReceiptPublic):
    token: str | None = Field(
        default=None,
        description="A command that issues a sign-in link (AddPower, ReissueLink) gets its bearer token here, "
        "shown once (null on an Idempotency-Key retry: tokens are kept only as hashes)",
    )


# ---------------------------------------------------------------------- posts (issue 16)


class ThreadRequest(Strict):
    seats: list[Id] = Field(min_length=1, max_length=limits.ITEMS)
    title: str = Field("", max_length=limits.TITLE)


class PostRequest(Strict):
    text: str = Field(min_length=1, max_length=POST_TEXT)
    tied_to: str | None = Field(None, max_length=limits.IDENTIFIER * 2)
    reply_to: str | None = Field(None, max_length=limits.IDENTIFIER)  # the post it answers, in the thread


class EditPostRequest(Strict):
    text: str = Field(min_length=1, max_length=POST_TEXT)


class HidePostRequest(Strict):
    reason: str = Field(min_length=1, max_length=limits.REASON)


class ReadMarkRequest(Strict):
    seq: int | None = Field(None, ge=0, le=limits.NUMBER * 1000)
