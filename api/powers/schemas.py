"""Powers' request and response schemas (``*Request`` / ``*Public``), beside its routes. Unknown fields are
refused by name; every text and number is bounded (``domain/limits.py``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from api.schemas import EXPECTED_STEP, Id, Number, ReceiptPublic, Strict
from domain import limits
from domain.platform.posts import POST_TEXT


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


class AdvanceRequest(Strict):
    expected_step: Step = Field(description=EXPECTED_STEP)
    tidings: str = Field(
        "", max_length=POST_TEXT, description="When a season begins: the GM's Tidings, posted to the narration thread"
    )


class ResolveRequest(Strict):
    announcement: str = Field(default="", max_length=limits.ANNOUNCEMENT)
    expected_step: Step = Field(description=EXPECTED_STEP)


class ReactionRequest(Strict):
    power_id: Id | None = None
    action_id: Id
    assets: list[PoolAssetRequest] = Field(default=[], max_length=limits.ITEMS)
    convert: Number | None = 0


class WaiveRequest(Strict):
    power_id: Id | None = None


class SeasonLengthRequest(Strict):
    months: Number


class ShareSecretRequest(Strict):
    power_id: Id | None = None
    to: Id


class InfluenceRequest(Strict):
    power_id: Id
    hex: Id
    amount: Number
