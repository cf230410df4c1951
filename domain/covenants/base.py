"""What every part of the covenant game shares: its constants, the pinned house rules read from the state, and
the base of its events.

The game's rules live in sub-domain modules (``setup``, ``track``, ``cards``, ``spells``, ``market``, ``certamen``,
``battle``, ``hazards``, ``demands``, ``eventcards``, ``reckoning``), each a pair: functions that decide, which check
a command against the state and record its events through the aggregate, and the events themselves, whose
``evolve`` folds one into the state and reads nothing else. ``CovenantGame`` names every event class (so each is
stored under the topic it always had, ``domain.covenants.game:CovenantGame.<Name>``) and keeps what the platform asks.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

from domain import visibility as vis
from domain.covenants import rules
from domain.covenants.errors import RuleViolation
from domain.covenants.house import HousePackage
from domain.covenants.state import CovenantState, Effect
from domain.platform.game import PlatformGame

PUBLIC = [vis.PUBLIC]
TURN_PHASES = (
    "move",
    "create",
    "events",
    "service",
    "chaos",
    "main",
    "hedge",
    "bandits",
    "battle",
    "plague",
    "certamen",
    "reckoning",
)
AFTER_MAIN = ("hedge", "bandits", "battle", "plague", "certamen")  # the end of the Main Phase, in this order
END_OF_MAIN = ("hedge", "bandits", "battle", "plague")  # the Main Phase's end: its spells may still be countered
PLAGUE_COUNTERS = 5  # [000:671] "When this card has gained five counters, discard this card."
SERVICE_TOLL, SERVICE_TRIBUTE = 3, 2  # [000:669] "pay 3 gold immediately or accept a permanent tribute of 2"
CHAOS_TOLL = 4  # [000:693] "The rival covenant may pay 4 gold at the time of the roll"
INVASION_MIGHT = 10  # [000:697] Armed Invasion: "Mundane Might: 10"
# Events that fight covenants in mundane battle at the end of the Main Phase, and what paying them off costs
# ([000:727] Army of Skeletons: "The covenant may avoid a battle each season by paying 1 pawn vis"; the house
# Winter of Wolves: "pay 1 provision per covenant or fight"); their Might is the house package's.
ENEMIES: dict[str, tuple[str, int] | None] = {
    "Armed Invasion": None,
    "Army of Skeletons": ("vis", 1),
    "Winter of Wolves": ("provision", 1),
    "Riots": None,
}
MAIN_EFFECTS = ("Redcap's Tidings", "Lost Apprentice", "Clique of Thieves", "Wizard's March")
BANDITS_MIGHT = 4  # [000:676] the Wave of Bandits: "Mundane Might: 4"


def bid_commitment(challenge_id: str, seat: str, vis_amount: int, nonce: str) -> str:
    """The public hash of a sealed Certamen bid (A-AMB-7)."""
    return hashlib.sha256(f"certamen-bid:{challenge_id}:{seat}:{vis_amount}:{nonce}".encode()).hexdigest()


_HOUSES: dict[str, HousePackage] = {}


def house_of(s: CovenantState) -> HousePackage:
    """The pinned house rules, parsed once per content hash (kept outside the state, so snapshots and copies of a
    game carry only its data)."""
    key = s.pin["sha256"]
    found = _HOUSES.get(key)
    if found is None:
        found = _HOUSES[key] = HousePackage.model_validate(s.house)
    return found


class CovenantEvent(PlatformGame.Event):
    """Base of the covenant game's events: ``evolve`` folds the event into the state, reading nothing else.
    ``CovenantGame`` names each subclass, and the library redefines it there as ``CovenantGame.<Name>``."""

    def evolve(self, s: CovenantState) -> None:
        raise NotImplementedError

    def apply(self, aggregate: Any) -> None:
        self.evolve(aggregate.state)
        super().apply(aggregate)


def evolve(s: CovenantState, e: CovenantEvent) -> CovenantState:
    """Fold one event into the state."""
    e.evolve(s)
    return s


def check_taken(damage: int, capacities: dict[str, int], allocation: dict[str, int]) -> None:
    """A-BAT-1 [000:139] "all cards with the Mundane Might attribute are subject to damage": a covenant with such
    beings assigns all the damage among them, capacity first; a covenant with none has nothing the damage can land
    on, and takes none (its allocation is empty). The rules name no other target, and a covenant that may not pay
    an enemy off (no vis for the Army of Skeletons [000:733]) must still be able to answer its battle."""
    if capacities:
        rules.check_allocation(damage, capacities, allocation)
    elif any(allocation.values()):
        raise RuleViolation("you have no beings of Mundane Might to take damage", rule="A-BAT-1", field="allocation")


def _expire(s: CovenantState, ended: Callable[[Effect], bool]) -> None:
    """Drop the effects that ended; a changed substance returns to what it was (A-SPELL-3)."""
    for e in [e for e in s.effects if ended(e)]:
        if "was" in e and e["target"] in s.cards:
            s.cards[e["target"]].substance = e["was"]
    s.effects = [e for e in s.effects if not ended(e)]


class DieRolled(CovenantEvent):
    seat: str | None
    purpose: str
    sides: int
    faces: list[int]
    roll_no: int
    commitment: str
    key: str | None
    path: list[str] | None
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.next_roll = self.roll_no + 1
