"""The armies' Cleanup (P-ARMY-2, P-ARMY-9): mustered armies return to their garrisons, then routed units return
and wounds heal, in the order P.1.2 recommends; an orc army may keep its wounds as scars through the recovery."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.copying import deepcopy
from domain.errors import RuleViolation
from domain.ids import SYSTEM
from domain.powers import army_rules as ar
from domain.powers.armies_base import ArmyEvent, own_army, record
from domain.powers.armies_resolution import ArmyMoved
from domain.powers.armies_state import army_audience, army_owner

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def cleanup(game: Game) -> None:
    """Cleanup: mustered armies return to their garrisons (P-ARMY-2), then routed units return and wounds heal
    (P-ARMY-9), in the order P.1.2 recommends."""
    s = game.state
    for army_id, army in sorted(s.armies.armies.items()):
        if army["mustered"]:
            record(
                game,
                ArmyMoved,
                army_id=army_id,
                hex=army["garrison"],
                garrison=army["garrison"],
                mustered=False,
                reason="returned",
                actor=SYSTEM,
                audience=army_audience(army),
            )
    for army_id, army in sorted(s.armies.armies.items()):
        units = ar.recover(army)
        if units != army["units"]:
            record(game, ArmyRecovered, army_id=army_id, units=units, actor=SYSTEM, audience=army_owner(army))


def keep_scars(game: Game, army_id: str, power_id: str, keep: bool, actor: str | None = None) -> None:
    """Orcs "may choose to leave a wound present as a scar instead of healing it" (P-ARMY-9): their wounds stay
    through the season's recovery while ``keep`` holds."""
    army = own_army(game.state, army_id, power_id)
    if army["ancestry"] != "orcs":
        raise RuleViolation("only orc armies keep their wounds as scars", rule="P-ARMY-9", field="army_id")
    record(game, ScarsKept, army_id=army_id, keep=bool(keep), actor=actor or power_id, audience=army_owner(army))


# ---------------------------------------------------------------------- events


class ScarsKept(ArmyEvent):
    army_id: str
    keep: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army_id]["keep_scars"] = self.keep


class ArmyRecovered(ArmyEvent):
    army_id: str
    units: list[dict[str, Any]]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army_id]["units"] = deepcopy(self.units)
