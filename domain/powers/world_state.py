"""The state of the world around the month (``domain.powers.world``): the map the GM declared, towns,
features, claims and the season's counters. Plain JSON-native fields, so snapshots transcode it and a
replay reproduces it; the records below name the shape of each entry.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NotRequired, Required, TypedDict


class Hex(TypedDict):
    """One hex of the map (P-ACT-4): its terrain, whether a road runs through it, its name, its mana element."""

    terrain: str
    road: bool
    name: str
    element: str | None


class Claim(TypedDict):
    """A power's claim on a town (P-TOWN-1): claims are ordered by ``since``, the earliest the senior."""

    power: str
    since: int


class Town(TypedDict):
    """A town on the map (P.2.7): its claims are {claim type: claim}, its statuses {name: stacks}."""

    name: str
    hex: str
    population: int
    wealth: int
    statuses: dict[str, int]
    claims: dict[str, Claim]
    feeds: int  # the Feeds taken this season (P-TOWN-2)
    stop_order: list[str]


class Floor(TypedDict):
    """A dungeon's floor (P-FEAT-4)."""

    difficulty: int
    reward: str


class Feature(TypedDict):
    """A feature on the map (P-FEAT-1): a town's industry, walls, a stronghold, an outpost, a dungeon, a ruin..."""

    kind: str
    name: str
    hex: str
    town: str | None
    controller: str | None
    public: bool
    upgrades: list[str]
    modules: list[str]
    mount: str | None
    stored: int
    floors: list[Floor]
    threat: int
    difficulty: int
    reward: str
    becomes: dict[str, Any] | None  # what a cleared ruin becomes: {kind, modules[, controller]}
    known_to: list[str]
    cleared: dict[str, int]  # power -> the dungeon floors it cleared
    asset_id: str | None
    protection: str
    inoperable: bool
    maintenance_due: int | None
    durable_used: NotRequired[bool]  # Durable ignored its first disruption this season


class Mercurial(TypedDict):
    """A Mercurial holder's Tidings: the influence the outpost reset added per hex, and the swaps used."""

    raised: dict[str, int]
    swaps: int


class Built(TypedDict):
    """A feature a Build puts up (P-TOWN-2): public, loyal to its builder once built."""

    id: str
    kind: str
    name: str
    upgrades: list[str]
    mount: str | None


class Upgrade(TypedDict):
    """Upgrades an Upgrade adds to a feature of the town (P-TOWN-2)."""

    feature_id: str
    upgrades: list[str]


# A Trade's gain: the town trades ``with`` another, and each gains ``wealth`` (P-TOWN-2); "with" names a keyword.
Trade = TypedDict("Trade", {"with": str, "wealth": int})


class TownEffect(TypedDict, total=False):
    """What a change does to a town (P-TOWN-2, P-FEAT-1, P-ARMY-5): statuses added (or, negative, removed),
    population, a road laid, a trade, a feature built, upgraded or demolished, a feast held."""

    statuses: dict[str, int]
    population: int
    road: str
    feast: bool
    trade: Trade
    build: Built
    upgrade: Upgrade
    demolish: str


class Aim(TypedDict, total=False):
    """What an action of the month is aimed at (P-ACT-4) and the facts its aim fixed: a feature (with a dungeon's
    floor or a stronghold's module), a town (with a town action's kind, effect, difficulty and what a Tax takes),
    the influence it paid and the mana it channels."""

    aim: Required[str]
    power: Required[str]
    feature_id: str
    floor: int
    module: str
    town_id: str
    kind: str
    effect: TownEffect
    difficulty: int
    take: str
    paid: dict[str, int]
    mana: list[str]


class Subtle(TypedDict):
    """The GM ruled that an action targets inside this stronghold subtly (P-FEAT-3)."""

    feature_id: str
    overcome: bool


@dataclass
class WorldState:
    hexes: dict[str, Hex] = field(default_factory=dict)  # hex id "q,r"
    towns: dict[str, Town] = field(default_factory=dict)  # town id
    features: dict[str, Any] = field(default_factory=dict)  # feature id -> Feature (its readers name it so)
    claim_seq: int = 0  # claims are ordered by when they were made: the earliest is the senior (P-TOWN-1)
    mechanisms: dict[str, list[str]] = field(default_factory=dict)  # power -> its generation mechanisms (P-INFL-5)
    generated: dict[str, list[str]] = field(default_factory=dict)  # power -> mechanisms that fired this season
    mercurial: dict[str, Mercurial] = field(default_factory=dict)  # Mercurial holder
    aims: dict[str, Aim] = field(default_factory=dict)  # this month's action id
    # this month's action id -> {hex: influence it spent there}: a neighbour gives at most 1 per action (P-INFL-2)
    spent: dict[str, dict[str, int]] = field(default_factory=dict)
    subtle: dict[str, Subtle] = field(default_factory=dict)  # this month's action id
