"""Request and response schemas (``*Request`` / ``*Public``). Unknown fields are refused by name.

Every text field is bounded by the limits in ``domain/limits.py`` (the commands enforce the same
limits for every other channel), every number by a sanity bound (the rules set the real ranges and
name the rule), and NaN or Infinity are never numbers.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from domain import limits
from domain.errors import DomainError
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
    months_per_season: Number = Field(default=2, description="2 or 3 (GM-28)")
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
    power_id: str
    token: str | None = Field(
        description="The power's new bearer token; shown once (null when the request is "
        "a retry of one already answered: tokens are kept only as hashes)"
    )
    receipt: ReceiptPublic


class ErrorPublic(BaseModel):
    error: str
    rule: str | None = None
    field: str | None = None
    message: str


class RollbackRequest(Strict):
    reason: str = Field(min_length=1, max_length=limits.REASON)
    phase: Id | None = Field(default=None, description="Phase to return to, such as s1m2-planning")
    version: Version | None = None


class ForkRequest(Strict):
    name: str = Field(min_length=1, max_length=limits.GAME_NAME)
    reason: str = Field(default="", max_length=limits.REASON)
    phase: Id | None = None
    version: Version | None = None


class GrantRequest(Strict):
    to: Id
    text: str = Field(min_length=1, max_length=limits.GRANT_TEXT)
    source: Literal["seeking", "ruling", "consequence"] = "ruling"
    about: Id | None = None


class TimezoneRequest(Strict):
    power_id: Id | None = None
    timezone: str = Field(max_length=limits.TIMEZONE)


class DeadlineRequest(Strict):
    closes_at: Moment = Field(description="ISO 8601; without an offset it is read in the game's time zone")


class ExtensionRequest(Strict):
    power_id: Id | None = None
    hours: float = Field(gt=0, le=72)
    reason: str = Field(default="", max_length=limits.REASON)


class GrantExtensionRequest(Strict):
    hours: float | None = Field(default=None, gt=0, le=72)


class RefuseExtensionRequest(Strict):
    reason: str = Field(default="", max_length=limits.REASON)


class ReadyRequest(Strict):
    power_id: Id | None = None


class ContactRequest(Strict):
    power_id: Id | None = None
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


class EditPostRequest(Strict):
    text: str = Field(min_length=1, max_length=POST_TEXT)


class HidePostRequest(Strict):
    reason: str = Field(min_length=1, max_length=limits.REASON)


class ReadMarkRequest(Strict):
    seq: int | None = Field(None, ge=0, le=limits.NUMBER * 1000)
