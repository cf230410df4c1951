"""Actions aimed at armies (P-ARMY-1, 3, 5, 6, 7): a Planning action is aimed at its armies (``aim_army_action``)
as a Muster, a Train, a Forge Armaments, a Levy or a Gather Cowards, which sets its difficulty by the rule's
formula; Experience and a former command are assets only the aimed action may use (P-ASSET-14, P-ARMY-7), and an
army helps another action only by P-ASSET-7 (``check_pool``). Its effect is recorded when it resolves
(``domain.powers.armies_resolution``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import limits
from domain.copying import deepcopy
from domain.errors import NotFound, RuleViolation
from domain.ids import SYSTEM
from domain.powers import army_rules as ar
from domain.powers import army_types as at
from domain.powers.armies_base import (
    ArmyEvent,
    aim_of,
    bound_misused,
    can_garrison,
    hex_of,
    own_army,
    perks,
    record,
    whole,
)
from domain.powers.armies_state import ARMY_AIMS, STAT_KEYS

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def aim_army_action(game: Game, action_id: str, kind: str, params: dict[str, Any], actor: str | None = None) -> None:
    """Aim a Planning action at armies: Muster (P-ARMY-1), Train (P-ARMY-3), Forge Armaments (P-ARMY-6), Levy
    (P-ARMY-5) or Gather Cowards (P-ARMY-7). Aim before rolling: Experience and a former command are assets only
    the aimed action may use (P-ASSET-14, P-ARMY-7)."""
    a = game.action(action_id)
    s = game.state
    if s.step != "planning" or a.discarded or a.status not in ("proposed", "rolled", "locked"):
        raise RuleViolation("an action is aimed during Planning, before it is resolved", rule="P-ACT-4")
    if aim_of(s, action_id) is not None:
        raise RuleViolation("this action is already aimed", rule="P-ACT-4", field="action_id")
    if kind not in ARMY_AIMS:
        raise RuleViolation(f"an army action is one of {', '.join(ARMY_AIMS)}", rule="P-ACT-4", field="kind")
    params = dict(params or {})
    aim: dict[str, Any] = {"kind": kind, "power": a.power, "season": s.season, "month": s.month}
    if kind == "muster":
        aim["moves"], difficulty = plan_muster(s, a.power, params)
    elif kind == "train":
        army = own_army(s, str(params.get("army_id")), a.power)
        if army["level_up"] is not None:
            raise RuleViolation(f"{army['name']} has a level-up to finish first", rule="P-ARMY-3")
        aim["army_id"] = army["id"]
        difficulty = ar.train_difficulty(army["rank"] + 1, ar.size(army))
    elif kind == "forge":
        army = own_army(s, str(params.get("army_id")), a.power)
        tier = whole(params.get("tier"), "tier", 0, len(at.TIERS) - 1, "P-ARMY-6")
        ar.check_forge(army, tier)
        aim.update({"army_id": army["id"], "tier": tier})
        difficulty = ar.forge_difficulty(tier, ar.size(army), army["ancestry"])
    elif kind == "levy":
        aim["levy"], difficulty = plan_levy(s, a.power, params)
    else:
        army_id = str(params.get("army_id"))
        d = s.armies.dispersed.get(army_id)
        if d is None or d["season"] != s.season - 1:
            raise RuleViolation("Gather Cowards gathers an army fully dispersed by rout last season", rule="P-ARMY-7")
        aim["army_id"] = army_id
        difficulty = 0
    if a.pool is not None and any(bound_misused(s.armies, pa.asset_id, aim) for pa in a.pool.assets):
        raise RuleViolation("this action's pool uses an asset bound to another army's action", rule="P-ASSET-14")
    record(game, ArmyActionAimed, action_id=action_id, aim=aim, actor=actor or a.power, audience=game._audience(a))
    game._difficulty_declared(
        action_id=action_id,
        value=difficulty,
        tiers={},
        after_roll=a.pool is not None,
        actor=SYSTEM,
        audience=game._audience(a),
    )


def plan_muster(s: GameState, power_id: str, params: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
    """P-ARMY-1: each army from its garrison along a path of hexes; cost against mobility; +2 a regarrison."""
    moves = params.get("moves")
    if not isinstance(moves, list) or not moves:
        raise RuleViolation("a muster moves armies: moves [{army_id, path, regarrison}]", rule="P-ARMY-1")
    out: list[dict[str, Any]] = []
    costs: list[dict[str, Any]] = []
    for m in moves:
        if not isinstance(m, dict):
            raise RuleViolation("each move is {army_id, path, regarrison}", rule="P-ARMY-1", field="moves")
        army = own_army(s, str(m.get("army_id")), power_id)
        if any(o["army_id"] == army["id"] for o in out):
            raise RuleViolation(f"{army['name']} moves once in a muster", rule="P-ARMY-1", field="moves")
        if army["mustered"] and "Forced March" not in perks(s, power_id):  # [003:919]
            raise RuleViolation(
                f"{army['name']} is not in its garrison: a muster moves armies from their garrisons",
                rule="P-ARMY-1",
                field="moves",
            )
        path = m.get("path")
        if not isinstance(path, list) or not 2 <= len(path) <= 50:
            raise RuleViolation("a path is a list of hexes from the army's hex", rule="P-ARMY-1", field="path")
        path = [hex_of(h, "path") for h in path]
        if path[0] != army["hex"]:
            raise RuleViolation(f"{army['name']}'s path starts at {army['hex']}", rule="P-ARMY-1", field="path")
        cost = ar.path_cost(path, s.world.hexes, army["keywords"])
        regarrison = bool(m.get("regarrison", False))
        if regarrison and not can_garrison(s.world, path[-1]):
            raise RuleViolation(
                f"{path[-1]} has no town, stronghold or outpost to garrison", rule="P-ARMY-1", field="moves"
            )
        out.append({"army_id": army["id"], "path": path, "cost": cost, "regarrison": regarrison})
        costs.append({"cost": cost, "mobility": army["mobility"], "regarrison": regarrison})
    return out, ar.muster_difficulty(costs)


def plan_levy(s: GameState, power_id: str, params: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """P-ARMY-5: a new army in a claimed town that is not Depopulated, or a kept card raised again."""
    town_id = str(params.get("town_id"))
    town = s.world.towns.get(town_id)
    if town is None:
        raise NotFound(f"no town {town_id!r}", field="town_id")
    levy_size = whole(params.get("size"), "size", 1, ar.MAX_SIZE, "P-ARMY-5")
    ar.check_levy(town, power_id, levy_size)
    army_id = str(params.get("army_id"))
    limits.check_text(army_id, "army_id", limits.IDENTIFIER, required=True, what="an army's id")
    card_id = params.get("card")
    if card_id is not None:
        card = s.armies.cards.get(str(card_id))
        if card is None or card["controller"] != power_id:
            raise NotFound(f"you keep no army card {card_id!r}", field="card")
        if levy_size > card["levy_size"]:
            raise RuleViolation(
                f"a re-levy regains its card only if no larger than its recorded size ({card['levy_size']})",
                rule="P-ARMY-5",
                field="size",
            )
        army_id = str(card_id)
        stats: dict[str, Any] = {k: deepcopy(card[k]) for k in STAT_KEYS}
        name = card["name"]
    else:
        bonus = params.get("bonus")
        stats = ar.levy_stats(str(params.get("ancestry")), bonus if isinstance(bonus, dict) else {})
        stats.update({"ancestry": str(params.get("ancestry")), "rank": 1, "tier": 0})
        stats.update({"premium": False, "titanic": False, "wondrous": False})
        name = limits.check_text(params.get("name"), "name", limits.ASSET_NAME, required=True, what="a name")
    if army_id in s.armies.armies or (army_id in s.assets and card_id is None):
        raise RuleViolation(f"there is already an army or asset {army_id!r}", rule="P-ARMY-5", field="army_id")
    levy = {"army_id": army_id, "name": name, "town_id": town_id, "size": levy_size, "stats": stats}
    if card_id is not None:
        levy["card"] = str(card_id)
    return levy, ar.levy_difficulty(levy_size, town["statuses"].get("uprising", 0))


def check_pool(s: GameState, action_id: str | None, power_id: str, location: str | None, assets: list[Any]) -> None:
    """Before a pool is rolled: Experience only in its army's Train, a former command only in its Gather Cowards
    (P-ASSET-14, P-ARMY-7); an army helps only by P-ASSET-7."""
    aim = aim_of(s, action_id) if action_id else None
    for pick in assets:
        asset_id = pick.get("asset_id") if isinstance(pick, dict) else None
        if not isinstance(asset_id, str):
            continue
        if bound_misused(s.armies, asset_id, aim):
            b = s.armies.bound[asset_id]
            raise RuleViolation(
                f"{asset_id!r} serves only a {b['kind']} aimed at army {b['army']!r}: aim the action first",
                rule="P-ASSET-14" if b["kind"] == "train" else "P-ARMY-7",
                field="assets",
            )
        army = s.armies.armies.get(asset_id)
        if army is not None and army["controller"] == power_id:
            where = hex_of(location) if location else None
            used = s.season if asset_id in s.season_ledger else None
            ar.check_helps(army, where, used, s.season)


# ---------------------------------------------------------------------- events


class ArmyActionAimed(ArmyEvent):
    action_id: str
    aim: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.aims = {k: v for k, v in s.armies.aims.items() if (v["season"], v["month"]) == (s.season, s.month)}
        s.armies.aims[self.action_id] = deepcopy(self.aim)
