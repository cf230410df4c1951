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
from domain.powers.options import PowersOptions


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
    ruleset: str = Field(
        default="powers",
        max_length=limits.IDENTIFIER,
        description="The registered ruleset the game is played by (today: powers)",
    )
    name: str = Field(min_length=1, max_length=limits.GAME_NAME)
    gm_name: str = Field(default="GM", max_length=limits.GM_NAME)
    timezone: str = Field(default="UTC", max_length=limits.TIMEZONE, description="IANA time zone of the game")
    months_per_season: Number = Field(default=2, description="2 or 3 (GM-28)")
    options: PowersOptions = Field(
        default_factory=PowersOptions, description="Unknown, ill-typed or out-of-range options are refused"
    )


class GameCreatedPublic(BaseModel):
    game_id: str
    gm_token: str | None = Field(description="Bearer token of the GM; shown once (null on an Idempotency-Key retry)")
    receipt: ReceiptPublic


class AddPowerRequest(Strict):
    name: str = Field(min_length=1, max_length=limits.POWER_NAME)
    cls: Literal["city", "conspiracy", "champion"] = Field(description="P-ACT-1 class")
    subclass: Id = Field(description="sovereign|celestial|overlord|circle|cult|cause|wizard|dragon|paragon|adversary")
    options: dict[Id, Any] = Field(
        default={},
        max_length=limits.ITEMS,
        description="Perks (personal_touch, incorruptible, subtle_titan, "
        "subtle_titan_upgraded, leading_army); an adversary's "
        "public_actions and private_actions",
    )


class PowerAddedPublic(BaseModel):
    power_id: str
    token: str | None = Field(description="Bearer token of the power; shown once (null on an Idempotency-Key retry)")
    receipt: ReceiptPublic


class GrantAssetRequest(Strict):
    name: str = Field(min_length=1, max_length=limits.ASSET_NAME)
    cls: Id
    rank: Number
    asset_id: Id | None = Field(
        default=None, description="Reuse an existing id to share the asset (agents, industries)"
    )
    assured: bool = False
    critical: bool = False
    novel: bool = Field(default=False, description="Newly acquired: assured or critical on first use (P-DICE-9)")


class PoolAssetRequest(Strict):
    asset_id: Id
    mode: Literal["normal", "assured", "critical", "both"] = "normal"


class SubmitActionRequest(Strict):
    power_id: Id | None = Field(default=None, description="Defaults to your own power; the GM names an adversary")
    title: str = Field(min_length=1, max_length=limits.TITLE)
    description: str = Field(default="", max_length=limits.DESCRIPTION)
    skill: Id | None = None
    slot: Literal["public", "private"] = "private"
    location: str | None = Field(default=None, max_length=limits.LOCATION)
    targets: list[Id] = Field(default=[], max_length=limits.ITEMS)
    resistible: bool = False
    difficulty: Number | None = Field(default=None, description="A listed difficulty of a prespecified action")
    assets: list[PoolAssetRequest] = Field(default=[], max_length=limits.ITEMS)
    extra_actions: Number = Field(default=0, description="Actions spent as a rank-1 assured asset (P-ASSET-2), 0 or 1")
    convert: Number | None = Field(default=None, description="How many 3s and 4s to convert now; omit to choose later")
    roll: bool = Field(default=True, description="False: propose only, so the GM can set the difficulty first")
    dungeon: bool = Field(
        default=False, description="A challenge inside a dungeon: Delve joins up to one other skill (P-ASSET-4, P-EX-8)"
    )


class RollRequest(Strict):
    assets: list[PoolAssetRequest] = Field(default=[], max_length=limits.ITEMS)
    extra_actions: Number = 0
    convert: Number | None = None


class ConvertRequest(Strict):
    convert: Number | None = None
    dice: list[Number] | None = Field(
        max_length=limits.ITEMS, default=None, description="Exact die indices to convert instead of a count"
    )


class DifficultyRequest(Strict):
    value: Number
    sealed: bool = Field(default=False, description="Record secretly, committed by hash before the roll (GM-2)")
    tiers: dict[Annotated[str, Field(max_length=8)], Annotated[str, Field(max_length=limits.TIER_TEXT)]] = Field(
        default={}, max_length=limits.ITEMS, description="Successes -> what that tier achieves"
    )


class RulingRequest(Strict):
    resistible: bool
    resisters: list[Id] = Field(default=[], max_length=limits.ITEMS)


class EffectRequest(Strict):
    kind: Literal["lose_actions", "status", "disclose", "note"]
    count: Number | None = Field(default=None, description="lose_actions: 1 to 5 (P-ACT-2)")
    name: str | None = Field(default=None, max_length=limits.ASSET_NAME, description="status: its name")
    stacks: Number | None = Field(default=None, description="status: its stacks, one ticks off at each Cleanup")
    to: Id | None = Field(default=None, description="disclose: the power it is disclosed to")
    text: str | None = Field(default=None, max_length=limits.GRANT_TEXT, description="disclose: what")


class ConsequenceRequest(Strict):
    text: str = Field(min_length=1, max_length=limits.CONSEQUENCE_TEXT)
    effects: list[EffectRequest] = Field(default=[], max_length=limits.ITEMS)


Step = Literal["setup", "tidings", "planning", "resolution", "resistance", "battle", "cleanup"]
EXPECTED_STEP = (
    "The step you saw the game at (see your view's game.step); if the game has moved on since, "
    "the command is refused with 409 and records nothing, so a repeated click moves the game once"
)


class AdvanceRequest(Strict):
    expected_step: Step = Field(description=EXPECTED_STEP)


class CloseWindowRequest(Strict):
    expected_step: Step = Field(description=EXPECTED_STEP)


class ResolveRequest(Strict):
    announcement: str = Field(default="", max_length=limits.ANNOUNCEMENT)
    expected_step: Step = Field(description=EXPECTED_STEP)


class TokenReplacedPublic(BaseModel):
    power_id: str
    token: str | None = Field(
        description="The power's new bearer token; shown once (null when the request is "
        "a retry of one already answered: tokens are kept only as hashes)"
    )
    receipt: ReceiptPublic


class ReactionRequest(Strict):
    power_id: Id | None = None
    action_id: Id
    assets: list[PoolAssetRequest] = Field(default=[], max_length=limits.ITEMS)
    convert: Number | None = 0


class WaiveRequest(Strict):
    power_id: Id | None = None


class SeasonLengthRequest(Strict):
    months: Number


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


class ShareSecretRequest(Strict):
    power_id: Id | None = None
    to: Id


class GrantRequest(Strict):
    to: Id
    text: str = Field(min_length=1, max_length=limits.GRANT_TEXT)
    source: Literal["seeking", "ruling", "consequence"] = "ruling"
    about: Id | None = None


class InfluenceRequest(Strict):
    power_id: Id
    hex: Id
    amount: Number


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
