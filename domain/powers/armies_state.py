"""The armies' state and the army as the state keeps it (rules/ANALYSIS.md P.2.10, P.2.6): pure data and pure
functions of it, read by every part of the armies (``domain.powers.armies``) and by the battle.

An army is a plain dict (``new_army``): what the battle (P-BAT-*) reads is all on it: its hex, units (wounds and
routs per unit), stats, armor (base and tier), keywords, statuses, momentum, its Experience assets and the wounds a
unit survives. Who sees it (P.4, [003:326]): the table if it is visible, else its controller and those the GM says
detected it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from domain import visibility as vis
from domain.copying import deepcopy
from domain.powers import army_rules as ar

ARMY_AIMS = ("muster", "train", "forge", "levy", "gather")


class Support(TypedDict):
    """A power's support settled for a season (P-SUP-1): the units' cost beyond its limit and what it paid (None:
    unpaid at the end of Tidings)."""

    season: int
    due: int
    paid: dict[str, int] | None


class Bound(TypedDict):
    """An asset bound to one army's action (P-ASSET-14, P-ARMY-7): Experience to its Train, a former command to its
    Gather Cowards."""

    army: str
    kind: str


@dataclass
class ArmiesState:
    # type id -> stat block the GM defined (wondrous armies)
    types: dict[str, dict[str, Any]] = field(default_factory=dict)
    armies: dict[str, dict[str, Any]] = field(default_factory=dict)  # army id -> the army (see new_army)
    # a disbanded levy's card, kept for a re-levy (P-ARMY-5)
    cards: dict[str, dict[str, Any]] = field(default_factory=dict)
    # army id -> an army fully dispersed by rout (P-ARMY-7)
    dispersed: dict[str, dict[str, Any]] = field(default_factory=dict)
    aims: dict[str, dict[str, Any]] = field(default_factory=dict)  # this month's action id -> what it does to armies
    bound: dict[str, Bound] = field(default_factory=dict)  # asset id -> the army it serves: Experience, command
    support: dict[str, Support] = field(default_factory=dict)  # power -> its support settled this season (P-SUP-1)
    bonus: dict[str, int] = field(default_factory=dict)  # power -> support limit from effects (P-SUP-2)


ARMIES_TYPES = (ArmiesState,)

STAT_KEYS = (
    "rank",
    "tier",
    "attack",
    "morale",
    "presence",
    "defense",
    "armor_base",
    "mobility",
    "fee",
    "keywords",
    "element",
    "cls",
    "ancestry",
    "premium",
    "titanic",
    "wondrous",
)


def new_army(
    army_id: str,
    name: str,
    controller: str | None,
    stats: dict[str, Any],
    units: int,
    hex_id: str,
    garrison: str,
    loyal: bool,
    personal: bool,
    hidden: bool,
) -> dict[str, Any]:
    """An army as the state keeps it: what the battle (P-BAT-*) will read is all here."""
    army = {k: deepcopy(stats[k]) for k in STAT_KEYS}
    army.update(
        {
            "id": army_id,
            "name": name,
            "controller": controller,
            "units": [{"wounds": 0, "routed": False} for _ in range(units)],
            "wounds_to_die": ar.wounds_to_die(stats["cls"], stats["ancestry"]),
            "hex": hex_id,
            "garrison": garrison,
            "mustered": False,
            "loyal": loyal,
            "personal": personal,
            "hidden": hidden,
            "seen_by": [],
            "origin_town": None,
            "levy_size": None,
            "experience": [],
            "statuses": {},
            "momentum": 0,
            "fee_due": 0,
            "level_up": None,
            "keep_scars": False,
        }
    )
    return army


def visible(army: dict[str, Any]) -> bool:
    """[003:326] Stealthy and dispersed armies (and those the GM hides, inside an outpost) are not visible."""
    return not (army["hidden"] or "stealthy" in army["keywords"])


def army_audience(army: dict[str, Any]) -> list[str]:
    """Who sees an army's scores and position: the table if it is visible, else its controller and those
    who detected it (P.4)."""
    if visible(army):
        return [vis.PUBLIC]
    return vis.powers([p for p in [army["controller"], *army["seen_by"]] if p])


def army_owner(army: dict[str, Any]) -> list[str]:
    """The army's controller alone, as an audience (none for an army no one controls)."""
    return vis.powers([army["controller"]] if army["controller"] else [])
