"""What every part of the world (``domain.powers.world``) shares: the base of its events, how they are recorded,
and the lookups its rules refuse by.

The world's rules live in sub-domain modules (``world_map``: the map and what is known of it; ``world_claims``:
claims on towns; ``world_influence``: a conspiracy's influence; ``world_aims``: actions aimed at the world and
what they do; ``world_season``: strongholds' upkeep, Tidings and Cleanup; ``world_view``: who sees what), each a
pair: functions that decide, which check a command against the state and record its events, and the events,
whose ``evolve`` folds one into the state and reads nothing else. ``World`` names every event class, so each is
stored under the topic it always had, ``domain.powers.world:World.<Name>``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from domain import limits
from domain.errors import NotFound, RuleViolation
from domain.powers import hexmap
from domain.powers.part import PartEvent

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState
    from domain.powers.world_state import Feature, Town


class WorldEvent(PartEvent):
    """Base of the world's events: ``evolve`` folds the event into the state, reading nothing else. ``World``
    names each subclass, and the library redefines it there as ``World.<Name>``, the topic the world's events have
    always been stored under (not a ``PowersEvent``: those are recorded as ``Game.<Name>``)."""


def record(game: Game, event: type[WorldEvent], **fields: Any) -> None:
    """Record a world event as ``World`` names it (``domain.powers.world:World.<Name>``, its stored topic)."""
    from domain.powers.world import World

    game.trigger_event(getattr(World, event.__name__), **fields)


def whole(value: object, field: str, low: int = 0, high: int = limits.NUMBER) -> int:
    """A whole number within bounds, or a refusal naming the field (P-FEAT-1)."""
    return limits.whole_number(value, field, low, high, "P-FEAT-1")


def hex_of(value: object) -> str:
    """A hex id "q,r", normalised; refusals name the field "hex", as they always have."""
    return hexmap.normal_hex(value)


def map_hex(state: GameState, hex_id: object, field: str = "hex", rule: str = "P-ACT-4") -> str:
    """A hex of the declared map, or a refusal naming ``field`` and ``rule``."""
    hid = hex_of(hex_id)
    if hid not in state.world.hexes:
        raise RuleViolation(f"{hex_id!r} is not a hex of the map", rule=rule, field=field)
    return hid


def feature(state: GameState, feature_id: str, rule: str | None = None) -> Feature:
    """The feature of this id on the map, or NotFound naming ``feature_id`` (and ``rule``, where one asks)."""
    f: Feature | None = state.world.features.get(feature_id)
    if f is None:
        raise NotFound(f"no feature {feature_id!r} on the map", rule=rule, field="feature_id")
    return f


def town(state: GameState, town_id: str) -> Town:
    """The town of this id on the map, or NotFound."""
    t: Town | None = state.world.towns.get(town_id)
    if t is None:
        raise NotFound(f"no town {town_id!r} on the map", field="town_id")
    return t


def has_perk(game: Game, power_id: str, name: str) -> bool:
    """Whether the power holds a perk of this name (Mercurial, Slumlord...)."""
    return any(p["name"].strip().lower() == name for p in game.holdings(power_id).perks)


def runes_of(game: Game) -> Callable[[str], dict[str, int]]:
    """A power's placed runes by hex, as the Circle's magic keeps them (hidden: the map shows them to the owner)."""
    return lambda power_id: game.live_runes(power_id, placed_only=True)


def claimant(t: Town, claim_type: str) -> str | None:
    """The power holding the town's claim of this type (P-TOWN-1), if any."""
    c = t["claims"].get(claim_type)
    return c["power"] if c else None
