"""Request and response schemas (``*Request`` / ``*Public``). Unknown fields are refused by name."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ReceiptPublic(BaseModel):
    game_id: str
    sequence: int = Field(description="Your gap-free sequence number of events you may see, after this command")
    recorded_at: str = Field(description="Server time (UTC) the events were recorded")
    digest: str = Field(description="sha256 of the canonical JSON of what was recorded (as you may see it)")
    events: list[str]
    result: dict[str, Any] = {}
    replayed: bool = Field(default=False, description="True when this is the first receipt of an Idempotency-Key "
                                                      "sent again: nothing new was recorded")


class CreateGameRequest(Strict):
    name: str = Field(min_length=1, max_length=120)
    gm_name: str = Field(default="GM", max_length=120)
    timezone: str = Field(default="UTC", description="IANA time zone of the game")
    months_per_season: int = Field(default=2, description="2 or 3 (GM-28)")
    options: dict[str, Any] = {}


class GameCreatedPublic(BaseModel):
    game_id: str
    gm_token: str | None = Field(description="Bearer token of the GM; shown once (null on an Idempotency-Key retry)")
    receipt: ReceiptPublic


class AddPowerRequest(Strict):
    name: str = Field(min_length=1, max_length=80)
    cls: Literal["city", "conspiracy", "champion"] = Field(description="P-ACT-1 class")
    subclass: str = Field(description="sovereign|celestial|overlord|circle|cult|cause|wizard|dragon|paragon|adversary")
    options: dict[str, Any] = {}


class PowerAddedPublic(BaseModel):
    power_id: str
    token: str | None = Field(description="Bearer token of the power; shown once "
                                          "(null on an Idempotency-Key retry)")
    receipt: ReceiptPublic


class GrantAssetRequest(Strict):
    name: str = Field(min_length=1, max_length=80)
    cls: str
    rank: int
    asset_id: str | None = Field(default=None, description="Reuse an existing id to share the asset (agents, industries)")
    assured: bool = False
    critical: bool = False
    novel: bool = Field(default=False, description="Newly acquired: assured or critical on first use (P-DICE-9)")


class PoolAssetRequest(Strict):
    asset_id: str
    mode: Literal["normal", "assured", "critical", "both"] = "normal"


class SubmitActionRequest(Strict):
    power_id: str | None = Field(default=None, description="Defaults to your own power; the GM names an adversary")
    title: str = Field(min_length=1, max_length=200)
    description: str = Field(default="", max_length=5000)
    skill: str | None = None
    slot: Literal["public", "private"] = "private"
    location: str | None = None
    targets: list[str] = []
    resistible: bool = False
    difficulty: int | None = Field(default=None, description="A listed difficulty of a prespecified action")
    assets: list[PoolAssetRequest] = []
    extra_actions: int = Field(default=0, description="Actions spent as a rank-1 assured asset (P-ASSET-2), 0 or 1")
    convert: int | None = Field(default=None, description="How many 3s and 4s to convert now; omit to choose later")
    roll: bool = Field(default=True, description="False: propose only, so the GM can set the difficulty first")


class RollRequest(Strict):
    assets: list[PoolAssetRequest] = []
    extra_actions: int = 0
    convert: int | None = None


class ConvertRequest(Strict):
    convert: int | None = None
    dice: list[int] | None = Field(default=None, description="Exact die indices to convert instead of a count")


class DifficultyRequest(Strict):
    value: int
    sealed: bool = Field(default=False, description="Record secretly, committed by hash before the roll (GM-2)")
    tiers: dict[str, str] = {}


class RulingRequest(Strict):
    resistible: bool
    resisters: list[str] = []


class ConsequenceRequest(Strict):
    text: str = Field(min_length=1, max_length=2000)
    effects: list[dict[str, Any]] = []


Step = Literal["setup", "tidings", "planning", "resolution", "resistance", "battle", "cleanup"]
EXPECTED_STEP = ("The step you saw the game at (see your view's game.step); if the game has moved on since, "
                 "the command is refused with 409 and records nothing, so a repeated click moves the game once")


class AdvanceRequest(Strict):
    expected_step: Step = Field(description=EXPECTED_STEP)


class CloseWindowRequest(Strict):
    expected_step: Step = Field(description=EXPECTED_STEP)


class ResolveRequest(Strict):
    announcement: str = Field(default="", max_length=20000)
    expected_step: Step = Field(description=EXPECTED_STEP)


class TokenReplacedPublic(BaseModel):
    power_id: str
    token: str | None = Field(description="The power's new bearer token; shown once (null when the request is "
                                          "a retry of one already answered: tokens are kept only as hashes)")
    receipt: ReceiptPublic


class ReactionRequest(Strict):
    power_id: str | None = None
    action_id: str
    assets: list[PoolAssetRequest] = []
    convert: int | None = 0


class WaiveRequest(Strict):
    power_id: str | None = None


class SeasonLengthRequest(Strict):
    months: int


class ErrorPublic(BaseModel):
    error: str
    rule: str | None = None
    field: str | None = None
    message: str


class RollbackRequest(Strict):
    reason: str = Field(min_length=1, max_length=2000)
    phase: str | None = Field(default=None, description="Phase to return to, such as s1m2-planning")
    version: int | None = None


class ForkRequest(Strict):
    name: str = Field(min_length=1, max_length=120)
    reason: str = Field(default="", max_length=2000)
    phase: str | None = None
    version: int | None = None


class ShareSecretRequest(Strict):
    power_id: str | None = None
    to: str


class GrantRequest(Strict):
    to: str
    text: str = Field(min_length=1, max_length=5000)
    source: Literal["seeking", "ruling", "consequence"] = "ruling"
    about: str | None = None


class InfluenceRequest(Strict):
    power_id: str
    hex: str
    amount: int


class TimezoneRequest(Strict):
    power_id: str | None = None
    timezone: str


class DeadlineRequest(Strict):
    closes_at: datetime = Field(description="ISO 8601; without an offset it is read in the game's time zone")


class ExtensionRequest(Strict):
    power_id: str | None = None
    hours: float = Field(gt=0, le=72)
    reason: str = Field(default="", max_length=2000)


class GrantExtensionRequest(Strict):
    hours: float | None = Field(default=None, gt=0, le=72)


class RefuseExtensionRequest(Strict):
    reason: str = Field(default="", max_length=2000)


class ReadyRequest(Strict):
    power_id: str | None = None
