"""What every part of the armies (``domain.powers.armies``) shares: the base of their events, how they are recorded,
and the lookups their rules refuse by.

The armies' rules live in sub-domain modules (``armies_roster``: the GM's types and armies, detection, Experience
and dispersal; ``armies_aims``: actions aimed at armies; ``armies_resolution``: what they do once resolved;
``armies_levels``: level-ups; ``armies_support``: support, fees, desertion and disbanding; ``armies_season``:
Cleanup; ``armies_view``: who sees what), each a pair: functions that decide, which check a command against the
state and record its events, and the events, whose ``evolve`` folds one into the state and reads nothing else.
``Armies`` names every event class, so each is stored under the topic it always had,
``domain.powers.armies:Armies.<Name>``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import limits
from domain.errors import NotFound, RuleViolation
from domain.platform.game import PlatformGame
from domain.powers import hexmap

if TYPE_CHECKING:
    from domain.powers.armies_state import ArmiesState
    from domain.powers.game import Game
    from domain.powers.state import GameState
    from domain.powers.world_state import WorldState


class ArmyEvent(PlatformGame.Event):
    """Base of the armies' events: ``evolve`` folds the event into the state, reading nothing else. ``Armies``
    names each subclass, and the library redefines it there as ``Armies.<Name>``, the topic the armies' events have
    always been stored under (not a ``PowersEvent``: those are recorded as ``Game.<Name>``)."""

    def evolve(self, s: GameState) -> None:
        pass  # a record the feed tells and the state does not keep

    def apply(self, aggregate: Any) -> None:
        self.evolve(aggregate.state)
        super().apply(aggregate)


def record(game: Game, event: type[ArmyEvent], **fields: Any) -> None:
    """Record an army event as ``Armies`` names it (``domain.powers.armies:Armies.<Name>``, its stored topic)."""
    from domain.powers.armies import Armies

    game.trigger_event(getattr(Armies, event.__name__), **fields)


def whole(value: Any, field: str, low: int, high: int, rule: str) -> int:
    """A whole number within bounds, or a refusal naming the field and the rule."""
    return limits.whole_number(value, field, low, high, rule)


def hex_of(value: Any, field: str = "hex") -> str:
    """A hex id "q,r", normalised; refusals name the field "hex", as they always have."""
    return hexmap.normal_hex(value)


def map_hex(world: WorldState, hex_id: Any) -> str:
    """A hex of the map, or refused (P-ACT-4)."""
    h = hex_of(hex_id)
    if h not in world.hexes:
        raise RuleViolation(f"{h} is not on the map", rule="P-ACT-4", field="hex")
    return h


def can_garrison(world: WorldState, hex_id: str) -> bool:
    """Whether an army may garrison at ``hex_id``: a town or a stronghold or outpost stands there."""
    return any(t["hex"] == hex_id for t in world.towns.values()) or any(
        f["hex"] == hex_id and f["kind"] in ("stronghold", "outpost") for f in world.features.values()
    )


def army(s: GameState, army_id: str) -> dict[str, Any]:
    """The army, or NotFound."""
    try:
        return s.armies.armies[army_id]
    except KeyError:
        raise NotFound(f"no army {army_id!r}", field="army_id") from None


def own_army(s: GameState, army_id: str, power_id: str) -> dict[str, Any]:
    """The power's army, or NotFound (another's army is not named to it)."""
    a = army(s, army_id)
    if a["controller"] != power_id:
        raise NotFound(f"you control no army {army_id!r}", field="army_id")
    return a


def armies_of(s: GameState, power_id: str) -> list[dict[str, Any]]:
    """A power's armies, by id."""
    return [a for _, a in sorted(s.armies.armies.items()) if a["controller"] == power_id]


def perks(s: GameState, power_id: str) -> set[str]:
    """The perks a power holds (domain.powers.development), by the names the rules give them."""
    holdings = s.development.holdings.get(power_id)
    return {p["name"] for p in holdings.perks} if holdings is not None else set()


def settled(armies: ArmiesState, power_id: str, season: int) -> bool:
    """Whether the power's support was settled (paid, or recorded unpaid) this season (P-SUP-1)."""
    support = armies.support.get(power_id)
    return support is not None and support["season"] == season


def bound_misused(armies: ArmiesState, asset_id: str, aim: dict[str, Any] | None) -> bool:
    """Whether an asset bound to an army's action (its kind and army) joins another action."""
    b = armies.bound.get(asset_id)
    if b is None:
        return False
    return aim is None or aim["kind"] != b["kind"] or aim.get("army_id") != b["army"]


def aim_of(s: GameState, action_id: str) -> dict[str, Any] | None:
    """What this month's action does to armies, if it was aimed at them."""
    aim = s.armies.aims.get(action_id)
    if aim is None or (aim["season"], aim["month"]) != (s.season, s.month):
        return None
    return aim
