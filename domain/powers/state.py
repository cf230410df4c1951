"""The state a Powers game folds from its events. Plain mutable dataclasses of JSON-native fields,
so snapshots transcode them and a replay reproduces them field for field.

Only the current month's actions and reactions are kept: earlier months live in the event
history (and in the phase views), so state and snapshots stay small however long the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from domain.platform.state import ViewerSequences
from domain.platform.state import Window as Window  # re-exported: a Powers game's windows are the platform's
from domain.powers.armies import ARMIES_TYPES, ArmiesState
from domain.powers.battle_base import BattlesState
from domain.powers.development import DEVELOPMENT_TYPES, DevelopmentState
from domain.powers.magic_state import MagicState
from domain.powers.options import DEFAULT_OPTIONS
from domain.powers.world_state import WorldState


@dataclass
class Asset:
    id: str
    name: str
    cls: str
    rank: int
    holders: list[str]
    assured: bool = False
    critical: bool = False
    novel: bool = False
    used_up: bool = False


@dataclass
class PowerState:
    id: str
    name: str
    cls: str
    subclass: str
    options: dict[str, Any]
    public: int
    private: int
    debt_this_month: int = 0
    ready: bool = False
    extension_hours_used: float = 0.0
    debt_next_month: int = 0
    reactions_used: int = 0
    reaction_allowance: int = 1
    done_reacting: bool = False
    statuses: dict[str, Any] = field(default_factory=dict)  # name -> stacks; each Cleanup (once a season) ticks one off
    mana: dict[str, Any] = field(default_factory=dict)
    commands: int = 0
    timezone: str | None = None
    email: str | None = None
    mail_mode: str = "immediate"
    language: str | None = None  # the language its mail is written in (issue 28; None: the game's)
    influence: dict[str, Any] = field(default_factory=dict)
    grants: list[Any] = field(default_factory=list)


@dataclass
class Die:
    face: int
    asset: str
    converted: bool = False
    removed: bool = False


@dataclass
class PoolAsset:
    asset_id: str
    name: str
    cls: str
    rank: int
    mode: str
    undercut: bool = False


@dataclass
class Pool:
    roll_no: int
    assets: list[PoolAsset]
    dice: list[Die]
    locked: bool = False
    commitment: str | None = None
    key: str | None = None  # the roll's own key and Merkle path (domain.dice), for those who see the roll
    path: list[Any] | None = None


@dataclass
class Consequence:
    id: str
    text: str
    effects: list[Any]
    status: str = "proposed"


@dataclass
class ActionState:
    id: str
    power: str
    index: int
    title: str
    description: str
    skill: str | None
    slot: str
    location: str | None
    targets: list[str]
    resistible: bool
    collaborators: list[Any] = field(default_factory=list)
    dungeon: bool = False  # a challenge inside a dungeon (P-ASSET-4), until the map knows where dungeons are
    extra_actions: int = 0
    difficulty: int | None = None
    tiers: dict[str, Any] = field(default_factory=dict)
    sealed: str | None = None
    revealed: bool = False
    # The GM's ruling after the roll ({"from": the difficulty the roll faced or None, "to": the new one}),
    # so the result can say so (issue 17, "What was seen"); None when the roll faced its final difficulty.
    changed_after_roll: dict[str, Any] | None = None
    pool: Pool | None = None
    discarded: bool = False
    status: str = "proposed"
    consequences: list[Consequence] = field(default_factory=list)
    digest: str | None = None
    salt: str | None = None
    successes: int | None = None
    resisted: int = 0
    net: int | None = None
    success: bool | None = None
    excess: int | None = None
    hidden_from_resisters: list[Any] = field(
        default_factory=list
    )  # pool assets the GM keeps from them (GM-19, P-AMB-3)


@dataclass
class Reaction:
    id: str
    power: str
    action_id: str
    pool: Pool
    consequences: list[Consequence] = field(default_factory=list)  # the GM's form of the resister's (P-AMB-6)


@dataclass
class GameState(ViewerSequences):
    name: str
    gm_name: str
    timezone: str
    ruleset: str
    rules_version: str
    options: dict[str, Any]
    months_per_season: int = 2
    season: int = 0
    month: int = 0
    step: str = "setup"
    powers: dict[str, PowerState] = field(default_factory=dict)
    assets: dict[str, Asset] = field(default_factory=dict)
    actions: dict[str, ActionState] = field(default_factory=dict)
    reactions: dict[str, Reaction] = field(default_factory=dict)
    queue: list[str] = field(default_factory=list)
    season_ledger: dict[str, str] = field(default_factory=dict)  # once-a-season asset id -> who used it
    windows: dict[str, Window] = field(default_factory=dict)
    sealed_difficulties: dict[str, Any] = field(default_factory=dict)
    credentials: dict[str, Any] = field(default_factory=dict)
    seed: str | None = None
    seed_commitment: str | None = None
    seed_root: str | None = None  # Merkle root of the month's roll keys (None: a month committed before them)
    seed_first_roll: int = 1
    next_roll: int = 1
    resolved: bool = False
    seen: dict[str, Any] = field(default_factory=dict)
    forked_from: dict[str, Any] | None = None
    rollbacks: int = 0
    mail_replies: dict[str, Any] = field(default_factory=dict)
    catalogue: dict[str, Any] = field(default_factory=dict)  # domain.powers.catalogue: class actions, shares, terms...
    magic: MagicState = field(default_factory=MagicState)  # domain.powers.magic: spells, perks, conduits, casts (P.2.9)
    world: WorldState = field(default_factory=WorldState)
    development: DevelopmentState = field(default_factory=DevelopmentState)  # wallets, perks, ambitions, trades
    armies: ArmiesState = field(default_factory=ArmiesState)  # domain.powers.armies (P.2.10, P.2.6)
    battles: BattlesState = field(default_factory=BattlesState)  # domain.powers.battle_base: battles by id (P.1.3)

    def __post_init__(self) -> None:
        # A game folded from its events gets every option's default merged in when it is created (GameCreated);
        # a snapshot taken before an option existed must load the same state, so a decoded state gets them too.
        self.options = {**DEFAULT_OPTIONS, **self.options}


STATE_TYPES = (
    Asset,
    PowerState,
    Die,
    PoolAsset,
    Pool,
    Consequence,
    ActionState,
    Reaction,
    Window,
    GameState,
    WorldState,
    *DEVELOPMENT_TYPES,
    *ARMIES_TYPES,
)
