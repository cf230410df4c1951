"""Level-ups (P-ARMY-3, P-ARMY-4, P-ASSET-14): a Train that succeeded gives its army level-up dice (3 plus its excess
successes), rolled on the month's committed roller; the controller selects bonuses from the rolled options (rank +1,
fee +1; a Levy chooses its new class), or discards the Train, refunding the Experience spent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.copying import deepcopy
from domain.dice import Roller
from domain.errors import RuleViolation
from domain.powers import army_rules as ar
from domain.powers.armies_base import ArmyEvent, own_army, record
from domain.powers.armies_state import STAT_KEYS, army_audience, army_owner

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def roll_level_up(game: Game, army_id: str, power_id: str, roller: Roller, actor: str | None = None) -> list[int]:
    """P-ARMY-3/4: roll the level-up dice (3 plus the Train's excess successes) on the committed roller."""
    s = game.state
    army = own_army(s, army_id, power_id)
    lu = army["level_up"]
    if lu is None or lu["faces"] is not None:
        raise RuleViolation(f"{army['name']} has no level-up dice to roll", rule="P-ARMY-3", field="army_id")
    if s.seed is None:
        raise RuleViolation("level-up dice are rolled within the month of the Train", rule="P-DICE-2")
    roll_no = s.next_roll
    proof = game._roll_proof(roll_no)
    faces = roller.faces(roll_no, lu["dice"])
    record(
        game,
        LevelUpRolled,
        army_id=army_id,
        roll_no=roll_no,
        faces=list(faces),
        proof=proof,
        actor=actor or power_id,
        audience=army_owner(army),
    )
    return list(faces)


def choose_level_up(
    game: Game, army_id: str, power_id: str, choices: list[Any], new_class: str | None = None, actor: str | None = None
) -> None:
    """P-ARMY-3/4: "select three bonuses from the rolled options (repetitions allowed)"; rank +1 and fee +1. A Levy
    chooses its new class, which is one of the three (P-AMB-18; two with the campaign option)."""
    s = game.state
    army = own_army(s, army_id, power_id)
    lu = army["level_up"]
    if lu is None or lu["faces"] is None:
        raise RuleViolation(f"roll {army['name']}'s level-up dice first", rule="P-ARMY-3", field="army_id")
    if army["cls"] == "levy" and new_class is None:
        raise RuleViolation("a Levy chooses a new class when it levels up", rule="P-ARMY-4", field="new_class")
    if not isinstance(choices, list):
        raise RuleViolation("choices is a list of bonuses", rule="P-ARMY-4", field="choices")
    count = int(s.options.get("levelup_bonuses", 3))
    picked = ar.check_choices(ar.level_up_options(lu["faces"]), choices, count, new_class)
    stats = {k: deepcopy(army[k]) for k in STAT_KEYS}
    if new_class is not None:
        stats = ar.change_class(stats, army["cls"], new_class)
    for b in picked:
        stats = ar.apply_bonus(stats, b)
    stats["rank"] += 1
    stats["fee"] += 1
    record(
        game,
        ArmyLeveledUp,
        army_id=army_id,
        stats=stats,
        bonuses=picked,
        new_class=new_class,
        actor=actor or power_id,
        audience=army_audience(army),
    )


def discard_train(game: Game, army_id: str, power_id: str, actor: str | None = None) -> None:
    """P-ARMY-3 / P-ASSET-14: "If you are unhappy with the result you can discard the Train action, refunding any
    Experience spent but no other costs"."""
    army = own_army(game.state, army_id, power_id)
    if army["level_up"] is None:
        raise RuleViolation(f"{army['name']} has no Train to discard", rule="P-ARMY-3", field="army_id")
    record(
        game,
        TrainDiscarded,
        army_id=army_id,
        refunded=list(army["level_up"]["experience"]),
        actor=actor or power_id,
        audience=army_owner(army),
    )


# ---------------------------------------------------------------------- events


class LevelUpRolled(ArmyEvent):
    army_id: str
    roll_no: int
    faces: list[int]
    proof: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army_id]["level_up"]["faces"] = list(self.faces)
        s.next_roll = self.roll_no + 1


class ArmyLeveledUp(ArmyEvent):
    army_id: str
    stats: dict[str, Any]
    bonuses: list[dict[str, Any]]
    new_class: str | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        army = s.armies.armies[self.army_id]
        army.update(deepcopy(self.stats))
        army["level_up"] = None
        if self.army_id in s.assets:
            s.assets[self.army_id].rank = army["rank"]


class TrainDiscarded(ArmyEvent):
    army_id: str
    refunded: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army_id]["level_up"] = None
        for asset_id in self.refunded:
            if asset_id in s.assets:
                s.assets[asset_id].used_up = False
