"""What every part of magic (``domain.powers.magic``) shares: the state it keeps in ``GameState.magic``, the reads
its rules and the rest of the game make of it, the base of its events and how they are recorded.

Magic's rules live in sub-domain modules (``magic_catalogue``: the GM's spells, perks and conduits;
``magic_mana``: mana held by an action and an action's own cost; ``magic_casting``: casting; ``magic_rituals``:
rituals at Resolution), each a pair: functions that decide, which check a command against the state and record
its events, and the events, whose ``evolve`` folds one into the state and reads nothing else. ``Magic`` names every
event class, so each is stored under the topic it always had, ``domain.powers.magic:Magic.<Name>``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from domain.errors import RuleViolation
from domain.platform.game import PlatformGame
from domain.powers import magic_rules as mr
from domain.powers.part import PartEvent
from domain.powers.spells import CATALOGUE, Spell

if TYPE_CHECKING:
    from domain.powers.state import GameState


class MagicPerk(TypedDict):
    """A magic perk's choices: its elements and, for Perfected Spell, its spells."""

    elements: list[str]
    spells: list[str]


class Conduit(TypedDict):
    """What a power casts through (P-MAG-5): an heir, a mage, a shrine, an army..., where it stands."""

    id: str
    name: str
    hex: str
    kind: str
    tower: bool
    capitol: bool


class PowerMagic(TypedDict, total=False):
    """A power's magic record (empty until something is recorded; its first record has perks, known and conduits):
    its magic perks the GM recorded, spells known, conduits, the season Witchcraft last gave influence and when each
    Mana Gardens last reduced a ritual ([003:453])."""

    perks: dict[str, MagicPerk]
    known: list[str]
    conduits: dict[str, Conduit]
    witchcraft_season: int
    gardens: dict[str, int]


class ActionMana(TypedDict):
    """Mana held by one of this month's actions (P-AMB-37, [003:523]), element -> amount; what ``pool_of`` gives for
    an action that holds none has no season and month."""

    season: NotRequired[int]
    month: NotRequired[int]
    channelled: dict[str, int]
    contributed: dict[str, int]


class MagicState(TypedDict, total=False):
    """``GameState.magic``: see the module's docstring."""

    spells: dict[str, dict[str, Any]]
    powers: dict[str, PowerMagic]
    inflation: dict[str, int]
    casts: dict[str, dict[str, Any]]
    pools: dict[str, ActionMana]
    completed: dict[str, dict[str, Any]]


def magic_of(state: GameState) -> MagicState:
    return state.magic


def power_magic(state: GameState, power_id: str) -> PowerMagic:
    return magic_of(state).get("powers", {}).get(power_id, {})


def fold_power(state: GameState, power_id: str) -> PowerMagic:
    """A power's magic record, created on first use (only events' ``evolve`` call this)."""
    powers = magic_of(state).setdefault("powers", {})
    return powers.setdefault(power_id, {"perks": {}, "known": [], "conduits": {}})


def perks_of(state: Any, power_id: str) -> dict[str, dict[str, list[str]]]:
    """The power's magic perks (perk -> ``{"elements", "spells"}``): those it holds through development
    (``domain.powers.development``: bought with fame or granted at the start, named as the rules name them,
    their choice an element) and those the GM recorded here (class features' choices, Witchcraft)."""
    out = {
        k: {"elements": list(v["elements"]), "spells": list(v["spells"])}
        for k, v in power_magic(state, power_id).get("perks", {}).items()
    }
    development = getattr(state, "development", None)
    holdings = development.holdings.get(power_id) if development is not None else None
    for held in holdings.perks if holdings is not None else []:
        key = mr.perk_key(held["name"])
        if key not in mr.MAGIC_PERKS:
            continue
        params = out.setdefault(key, {"elements": [], "spells": []})
        element = mr.element_named(held.get("detail", ""))
        if key in mr.ELEMENT_PERKS and element is not None and element not in params["elements"]:
            params["elements"].append(element)
    return out


def caps_of(state: Any, power_id: str) -> dict[str, int]:
    """P-MAG-1: the power's storage cap per element, from its class and magic perks."""
    return mr.storage_caps(state.powers[power_id].subclass, perks_of(state, power_id))


def kept_gain(state: Any, power_id: str, element: str, amount: int) -> int:
    """How much of ``amount`` mana an action's outcome leaves a power: up to its storage cap (P-MAG-1); the rest
    is lost with the action that made it (P-AMB-37: a power whose cap is 0 spends such mana within that action
    or loses it). Both Channel (P.2.12) and Channel Influence (P-INFL-6) follow this one rule."""
    have = int(state.powers[power_id].mana.get(element, 0))
    return max(0, min(int(amount), caps_of(state, power_id).get(element, 0) - have))


def has_perk(state: Any, power_id: str, perk: str) -> bool:
    return perk in perks_of(state, power_id)


def spell_def(state: Any, spell_id: str) -> Spell | None:
    """A spell of this game: shipped, or defined by the GM."""
    if spell_id in CATALOGUE:
        return CATALOGUE[spell_id]
    data = magic_of(state).get("spells", {}).get(spell_id)
    return Spell(**data) if data is not None else None


def inflation_key(spell: Spell, power_id: str) -> str:
    """P-MAG-4: a ritual granted by a power's own rules inflates for that power only; others for everyone."""
    return f"{power_id}/{spell.id}" if spell.power_specific else spell.id


def current_cost(state: Any, spell: Spell, power_id: str) -> mr.Cost:
    """The cost now: a ritual's grows by 2 generic for every earlier success (P-MAG-4)."""
    base = mr.parse_cost(spell.cost)
    if spell.speed != "ritual":
        return base
    return mr.inflated(base, magic_of(state).get("inflation", {}).get(inflation_key(spell, power_id), 0))


def spell_summary(state: Any, spell: Spell, power_id: str | None) -> dict[str, Any]:
    """A spell as a viewer reads it: its cost (inflated for rituals), rank and difficulty (P-MAG-3)."""
    cost = current_cost(state, spell, power_id) if power_id else mr.parse_cost(spell.cost)
    out = {
        "spell_id": spell.id,
        "name": spell.name,
        "speed": spell.speed,
        "cost": cost.text,
        "base_cost": spell.cost,
        "elements": cost.elements,
        "rank": mr.rank(spell.speed, cost),
        "range": spell.range,
        "source": spell.source,
    }
    if spell.speed == "ritual":
        out["difficulty"] = mr.ritual_difficulty(cost, spell.difficulty)
        out["permanent"] = spell.permanent
    return out


def month_casts(state: Any, power_id: str) -> list[dict[str, Any]]:
    return [
        c
        for c in magic_of(state).get("casts", {}).values()
        if c["power_id"] == power_id and (c["season"], c["month"]) == (state.season, state.month)
    ]


def casts_on(state: Any, action_id: str) -> list[dict[str, Any]]:
    return [
        c
        for c in magic_of(state).get("casts", {}).values()
        if c.get("action_id") == action_id and (c["season"], c["month"]) == (state.season, state.month)
    ]


def pool_of(state: GameState, action_id: str) -> ActionMana:
    """This month's mana pool of an action: ``channelled`` (the owner's, P-AMB-37) and ``contributed``."""
    pool = magic_of(state).get("pools", {}).get(action_id)
    if pool is None or (pool.get("season"), pool.get("month")) != (state.season, state.month):
        return {"channelled": {}, "contributed": {}}
    return pool


def fold_pool(state: GameState, action_id: str) -> ActionMana:
    pools = magic_of(state).setdefault("pools", {})
    for old in [k for k, p in pools.items() if (p.get("season"), p.get("month")) != (state.season, state.month)]:
        del pools[old]
    return pools.setdefault(
        action_id, {"season": state.season, "month": state.month, "channelled": {}, "contributed": {}}
    )


def add_mana(wallet: dict[str, int], mana: Mapping[str, int], sign: int = 1) -> None:
    for e, n in mana.items():
        wallet[e] = wallet.get(e, 0) + sign * n
    for e in [e for e, n in wallet.items() if n <= 0]:
        del wallet[e]


def draw(spent: Mapping[str, int], usable: list[dict[str, int]]) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """Where a payment comes from: the action's own mana first (what it does not spend is lost with it,
    P-AMB-37, [003:523]), then the power's wallet. Returns ``(pooled, from_wallet)``."""
    need = Counter(spent)
    pooled: dict[str, dict[str, int]] = {}
    for name, source in zip(("channelled", "contributed"), usable, strict=False):
        taken = {e: min(n, need[e]) for e, n in sorted(source.items()) if min(n, need[e]) > 0}
        need.subtract(taken)
        if taken:
            pooled[name] = taken
    return pooled, {e: n for e, n in sorted(need.items()) if n > 0}


def take(
    state: Any,
    power_id: str,
    action_id: str | None,
    pooled: Mapping[str, Mapping[str, int]],
    from_wallet: Mapping[str, int],
) -> None:
    """Fold a payment: out of the action's pool and the power's wallet."""
    add_mana(state.powers[power_id].mana, from_wallet, -1)
    for source, taken in pooled.items():
        pool = fold_pool(state, str(action_id))
        add_mana(pool["channelled"] if source == "channelled" else pool["contributed"], taken, -1)


def ritual_of(state: Any, action_id: str) -> dict[str, Any] | None:
    """The ritual cast as this month's action ``action_id``, if it is one."""
    return next((c for c in casts_on(state, action_id) if c["speed"] == "ritual"), None)


def check_names(**names: Any) -> None:
    """Ids, letters and hexes are strings (or absent): anything else is refused naming the field."""
    for name, value in names.items():
        if value is not None and not isinstance(value, str):
            raise RuleViolation(f"{name} is a name, not {type(value).__name__}", rule="P-MAG-2", field=name)


class MagicEvent(PartEvent):
    """Base of magic's events: ``evolve`` folds the event into the state, reading nothing else. ``Magic`` names each
    subclass, and the library redefines it there as ``Magic.<Name>``, the topic magic's events have always been
    stored under."""


def record(game: PlatformGame, event: type[MagicEvent], **fields: Any) -> None:
    """Record a magic event as ``Magic`` names it (``domain.powers.magic:Magic.<Name>``, its stored topic)."""
    from domain.powers.magic import Magic

    game.trigger_event(getattr(Magic, event.__name__), **fields)
