"""The catalogue's state and the reads its pieces share (ANALYSIS.md P.2.12): pure functions of a game's state.

The catalogue keeps its records in ``GameState.catalogue``, plain JSON data (so snapshots and replays reproduce
it); each sub-domain module (``catalogue_actions``, ``catalogue_partial``, ``catalogue_shares``,
``catalogue_reactions``, ``catalogue_assets``) reads its own part of it and declares the events that fold into it.
``Catalogue`` names each event, so the library redefines it as ``Catalogue.<Name>``, the topic it has always been
stored under; ``record`` records it so. The towns are the map's (``domain.powers.world``), read here as the
catalogue needs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, NotRequired, TypedDict, cast

from domain.platform.game import PlatformGame
from domain.powers.base import PoolData
from domain.powers.part import PartEvent

if TYPE_CHECKING:
    from domain.powers.state import GameState


class CatalogueEvent(PartEvent):
    """Base of the catalogue's events: ``evolve`` folds the event into the state, reading nothing else; the one
    whose fold needs another part of the game overrides ``fold`` instead. ``Catalogue`` names each subclass, and
    the library redefines it there as ``Catalogue.<Name>``, the topic the catalogue's events have always been
    stored under (not a ``PowersEvent``: those are recorded as ``Game.<Name>``)."""


def record(game: PlatformGame, event: type[CatalogueEvent], **fields: Any) -> None:
    """Record a catalogue event as ``Catalogue`` names it (``domain.powers.catalogue:Catalogue.<Name>``, the topic it
    has always been stored under)."""
    from domain.powers.catalogue import Catalogue

    game.trigger_event(getattr(Catalogue, event.__name__), **fields)


class ClassActionRecord(TypedDict):
    """A class action, a duel, a seeking or a ruling per target, by action id (P.2.12, P-ACT-6, P-ACT-7, P-RES-4)."""

    kind: str
    params: dict[str, Any]  # the action's declared inputs: small JSON (domain.powers.catalogue_actions._check_params)
    difficulty: int
    formula: str
    cost: str
    price: dict[str, Any]  # catalogue_rules.price: coin, mana, mana_cost
    declared: list[str]
    kinds: list[str]
    per_target: bool
    outcome: NotRequired[dict[str, Any]]  # success and what the formula yielded (catalogue_rules.ClassAction.yields)
    per_target_results: NotRequired[dict[str, dict[str, Any]]]  # target -> its own result (P-RES-4)


class ShareConsequence(TypedDict):
    """A collaborator's own consequence, as the GM proposed it (P-DICE-11)."""

    id: str
    text: str
    effects: list[dict[str, Any]]  # domain.powers.game's effects (lose_actions, status, disclose...)
    status: str


class ShareRecord(TypedDict):
    """A collaborator's part of a shared action (P-DICE-11): its pool and its own consequences."""

    power: str
    slot: str
    pool: PoolData  # the pool as rolled
    consequences: NotRequired[list[ShareConsequence]]


class ReactionOutcome(TypedDict, total=False):
    """What a triggered reaction's roll gave (P-RES-7: Gate Guardians against the mustering army's fee); empty for a
    reaction that rolls nothing."""

    successes: int
    difficulty: int
    success: bool
    guardians: int  # the excess: the guardians' size


class TriggeredReaction(TypedDict):
    """A reaction that resists nothing (P-RES-7)."""

    power: str
    kind: str
    trigger: str | None
    outcome: ReactionOutcome


class Terms(TypedDict, total=False):
    """An agent's, industry's or army's terms as the GM recorded them (P-ASSET-5..7)."""

    fee: int
    loyal_to: str
    mobility: int
    home: str
    rooted: bool
    follower: bool
    hex: str
    profession: str
    personal: bool
    levy: bool
    origin: str


class Counters(TypedDict, total=False):
    """What the catalogue counts for a power across months (P.2.12)."""

    heirs: int
    masters: int
    runes: dict[str, int]  # hex -> rank
    rune_assets: dict[str, str]  # hex -> the Rune asset placed there
    saboteurs: dict[str, int]  # season -> uses (P-AMB-38)
    health_drives: dict[str, list[str]]  # season -> towns
    last_coming_of_age: int
    last_channel: dict[str, int]  # town -> season
    royal_guard_rank: int
    dread_maximum: int
    dread_growth_season: int


class Immunity(TypedDict):
    immunity: str
    bypassed_by: list[str]


class Wielder(TypedDict):
    power: str
    wielder: str


class CatalogueData(TypedDict, total=False):
    """``GameState.catalogue``: each key is absent until something records it, so a game without catalogue records
    folds as it did before they existed. ``kinds``, ``shares``, ``extra_reactions`` and ``triggered`` are the
    month's (cleared when the next month's Planning begins)."""

    kinds: dict[str, ClassActionRecord]  # action id ->
    shares: dict[str, list[ShareRecord]]  # action id ->
    extra_reactions: dict[str, list[str]]  # power -> the perks that bought one
    triggered: dict[str, TriggeredReaction]  # reaction id ->
    terms: dict[str, Terms]  # asset id ->
    counters: dict[str, Counters]  # power ->
    locations: dict[str, str]  # power -> its true hex (P-ACT-6)
    immunities: dict[str, Immunity]  # power ->
    wielders: dict[str, Wielder]  # item id ->
    blighted: dict[str, str]  # power -> its blighted town


def cat(state: GameState) -> CatalogueData:
    """The catalogue's records of a game's state."""
    return cast(CatalogueData, state.catalogue)


def rune_hexes(state: GameState, holders: list[str]) -> dict[str, str]:
    """hex -> the Rune asset placed there, for these holders."""
    out: dict[str, str] = {}
    for power_id in holders:
        out.update(cat(state).get("counters", {}).get(power_id, {}).get("rune_assets", {}))
    return out


def world_towns(state: GameState) -> dict[str, dict[str, Any]]:
    """The towns on the map, if the GM declared any (P-TOWN-1)."""
    world = getattr(state, "world", None)
    return dict(getattr(world, "towns", {}) or {})


def claimed_towns(state: GameState, power_id: str) -> list[dict[str, Any]]:
    """The towns a power claims on the map (P-TOWN-1), if the GM declared towns."""
    return [t for t in world_towns(state).values() if any(c["power"] == power_id for c in t["claims"].values())]


def claims_of(state: GameState, power_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(town id, town) for each town a power claims on the map, by id."""
    return [
        (tid, t)
        for tid, t in sorted(world_towns(state).items())
        if any(c["power"] == power_id for c in t["claims"].values())
    ]


def map_town(state: GameState, ref: object) -> str | None:
    """The town a class action names, by its id or its hex, if the GM put it on the map."""
    towns = world_towns(state)
    if not isinstance(ref, str):
        return None
    if ref in towns:
        return ref
    return next((tid for tid, t in sorted(towns.items()) if t["hex"] == ref), None)
