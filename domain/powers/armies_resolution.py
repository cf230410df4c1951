"""What an action aimed at armies does once it succeeds (P-ARMY-1, 3, 5, 6, 7; P-SUP-3 fees): a Muster moves its
armies (each then owes its fee), a Train earns a level-up's dice, a Forge Armaments arms its army, a Levy raises
an army in its town (or a kept card again), depopulating it, and a Gather Cowards brings back some of a dispersed
army's units."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import visibility as vis
from domain.copying import deepcopy
from domain.ids import SYSTEM
from domain.powers import army_rules as ar
from domain.powers.armies_base import ArmyEvent, aim_of, record
from domain.powers.armies_roster import ArmyRestored, place, record_army
from domain.powers.armies_state import army_audience, army_owner, new_army

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, GameState


def armies_resolved(game: Game, action_id: str) -> None:
    """An action aimed at armies has resolved: record its effect (P-ARMY-1, 3, 5, 6, 7; P-SUP-3 fees)."""
    s = game.state
    aim = aim_of(s, action_id)
    a = s.actions[action_id]
    if aim is None or not a.success:
        return
    kind = aim["kind"]
    if kind == "muster":
        _mustered(game, a, aim)
    elif kind == "train":
        _trained(game, action_id, a, aim)
    elif kind == "forge":
        army = s.armies.armies.get(aim["army_id"])
        if army is None or army["controller"] != a.power or army["tier"] >= aim["tier"]:
            return
        record(game, ArmyArmed, army_id=army["id"], tier=aim["tier"], actor=SYSTEM, audience=army_audience(army))
    elif kind == "levy":
        _levied(game, a, aim["levy"])
    else:
        _gathered(game, a, aim["army_id"])


def _mustered(game: Game, a: ActionState, aim: dict[str, Any]) -> None:
    for m in aim["moves"]:
        army = game.state.armies.armies.get(m["army_id"])
        if army is None or army["controller"] != a.power or army["hex"] != m["path"][0]:
            continue  # gone, deserted or moved since the muster was aimed
        home = m["path"][-1] if m["regarrison"] else army["garrison"]
        record(
            game,
            ArmyMoved,
            army_id=army["id"],
            hex=m["path"][-1],
            garrison=home,
            mustered=not m["regarrison"],
            reason="muster",
            actor=SYSTEM,
            audience=army_audience(army),
        )
        game._fee_due(army)


def _trained(game: Game, action_id: str, a: ActionState, aim: dict[str, Any]) -> None:
    army = game.state.armies.armies.get(aim["army_id"])
    if army is None or army["controller"] != a.power:
        return
    spent = [pa.asset_id for pa in (a.pool.assets if a.pool else []) if pa.asset_id in army["experience"]]
    record(
        game,
        TrainSucceeded,
        army_id=army["id"],
        action_id=action_id,
        dice=ar.level_up_dice(a.excess or 0),
        experience=spent,
        actor=SYSTEM,
        audience=army_owner(army),
    )


def _levied(game: Game, a: ActionState, levy: dict[str, Any]) -> None:
    s = game.state
    town = s.world.towns.get(levy["town_id"])
    if town is None or levy["army_id"] in s.armies.armies:
        return
    army = levied_army(levy, a.power, town["hex"], s.armies.cards[levy["card"]] if "card" in levy else None)
    if army["id"] in s.assets:  # a card raised again: its asset comes back to its controller
        place(game, army, SYSTEM)
        record(game, ArmyRestored, army_id=army["id"], power_id=a.power, actor=SYSTEM, audience=army_owner(army))
    else:
        record_army(game, army, actor=SYSTEM)
    stacks = ar.depopulation(levy["size"])
    if stacks:
        game._town_changed(
            town_id=levy["town_id"],
            kind="levy",
            effect={"statuses": {"depopulated": stacks}},
            by=None,
            actor=SYSTEM,
            audience=[vis.PUBLIC],
        )


def _gathered(game: Game, a: ActionState, army_id: str) -> None:
    d = game.state.armies.dispersed.get(army_id)
    if d is None:
        return
    back = ar.cowards_recovered(a.net or 0, d["fled"])
    if back == 0:
        return
    army = recovered_army(d, a.power, back)
    place(game, army, SYSTEM)
    record(game, ArmyRestored, army_id=army["id"], power_id=a.power, actor=SYSTEM, audience=army_owner(army))


def levied_army(levy: dict[str, Any], power: str, town_hex: str, card: dict[str, Any] | None) -> dict[str, Any]:
    """A Loyalist Levy's army, in its town (P-ARMY-5); raised from a card, it keeps the card's experience and
    levy size."""
    army = new_army(
        levy["army_id"], levy["name"], power, levy["stats"], levy["size"], town_hex, town_hex, False, False, False
    )
    army.update({"origin_town": levy["town_id"], "levy_size": levy["size"]})
    if card is not None:
        army.update({"experience": list(card["experience"]), "levy_size": card["levy_size"]})
    return army


def recovered_army(dispersed: dict[str, Any], power: str, back: int) -> dict[str, Any]:
    """A dispersed army's cowards gathered again by ``power`` (P-ARMY-7): ``back`` fresh units; gathered by
    another power than its own, it is not loyal, has no experience and is garrisoned where it stands."""
    army = {**deepcopy(dispersed), "controller": power, "seen_by": []}
    army["units"] = [{"wounds": 0, "routed": False} for _ in range(back)]
    army["mustered"], army["fee_due"], army["level_up"] = False, 0, None
    for k in ("fled", "season"):
        army.pop(k, None)
    if dispersed["controller"] != power:
        army.update({"loyal": False, "experience": [], "garrison": army["hex"]})
    return army


# ---------------------------------------------------------------------- events


class ArmyMoved(ArmyEvent):
    army_id: str
    hex: str
    garrison: str
    mustered: bool
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        army = s.armies.armies[self.army_id]
        army["hex"], army["garrison"], army["mustered"] = self.hex, self.garrison, self.mustered


class TrainSucceeded(ArmyEvent):
    army_id: str
    action_id: str
    dice: int
    experience: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army_id]["level_up"] = {
            "action_id": self.action_id,
            "dice": self.dice,
            "faces": None,
            "experience": list(self.experience),
        }


class ArmyArmed(ArmyEvent):
    army_id: str
    tier: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army_id]["tier"] = self.tier
