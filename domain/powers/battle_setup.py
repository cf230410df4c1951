"""Each power's part of its side's setup (P.1.3, P-BAT-3, P-BAT-8, P-BAT-14, [003:561]): the side's goals, its
armies in order, standing orders (to the power alone), secret assets (to the GM only), a champion joining, and
reinforcements from within their mobility (Delayed X). At the deadline the GM's default deploys the power's visible
armies in the hex in id order with no goals."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain import limits
from domain import visibility as vis
from domain.copying import deepcopy
from domain.dice import Roller
from domain.errors import NotFound, RuleViolation
from domain.ids import SYSTEM
from domain.powers import battle_rules as br
from domain.powers import hexmap
from domain.powers.armies_state import visible
from domain.powers.battle_base import BattleEvent, armies_in, audience, battles_of, check_turn, record, side_of

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState

MAX_GOALS = 2  # [003:561] "Each side proposes up to two battle goals"
SIDE_OF_ROLE = {"attacker": "A", "defender": "B"}  # the declarer's side attacks (P-AMB-13 walls "attacker")


def slug(name: str) -> str:
    """A goal's key, from its name."""
    return "".join(c if c.isalnum() else "_" for c in name.strip().lower())[:40] or "goal"


def clean_goal(g: Any) -> dict[str, Any]:
    """A goal a side proposes ([003:561], P-BAT-8): its name; ``threshold`` for both sides (2 if not given) and a
    side's own as ``attacker`` or ``defender`` ([003:637] "different thresholds for different sides", stored per
    side: P-AMB-13); ``rewards`` per side: a reward the rules act on (``battle_rules.GOAL_REWARDS``) or any other,
    recorded for the GM when the side wins the goal."""
    if not isinstance(g, dict) or not isinstance(g.get("name"), str):
        raise RuleViolation("a goal is {name, threshold, attacker, defender, rewards}", rule="P-BAT-8", field="goals")
    limits.check_text(g["name"], "goals", limits.ASSET_NAME, required=True, what="a goal's name")
    both = limits.whole_number(g.get("threshold", 2), "goals", 1, 20, "P-BAT-8")
    out: dict[str, Any] = {"name": g["name"].strip(), "rewards": {}}
    for role, side in SIDE_OF_ROLE.items():
        out[side] = limits.whole_number(g.get(role, both), "goals", 1, 20, "P-BAT-8")
    rewards = g.get("rewards", {})
    if not isinstance(rewards, dict) or not set(rewards) <= set(SIDE_OF_ROLE):
        raise RuleViolation("a goal's rewards are {attacker: reward, defender: reward}", rule="P-BAT-8", field="goals")
    for role, reward in sorted(rewards.items()):
        limits.check_text(reward, "goals", limits.ASSET_NAME, required=True, what="a goal's reward")
        out["rewards"][SIDE_OF_ROLE[role]] = reward.strip()
    return out


def checked_order(b: dict[str, Any], side: str, order: Any) -> dict[str, Any]:
    """An order (a standing order, a command): its command, target and goal, checked (P-BAT-3, P-BAT-8)."""
    if not isinstance(order, dict) or order.get("command") not in (*br.COMMANDS, "special"):
        raise RuleViolation(
            f"an order is {{command, target, goal}}; a command is one of {', '.join(br.COMMANDS)} or special",
            rule="P-BAT-3",
            field="command",
        )
    out = {"command": order["command"], "target": order.get("target"), "goal": order.get("goal")}
    if out["command"] == "special":  # [003:590] a class's special command, once per battle; the GM rules it
        name = order.get("special")
        if not isinstance(name, str) or not name.strip():
            raise RuleViolation("a special command has its name", rule="P-BAT-3", field="special")
        limits.check_text(name, "special", limits.IDENTIFIER, required=True, what="a special command")
        out["special"] = name.strip().lower()
    if out["goal"] is not None and out["goal"] not in list(b["goals"]):
        raise RuleViolation(f"no goal {out['goal']!r} in this battle", rule="P-BAT-8", field="goal")
    return out


def submit_battle_setup(
    game: Game,
    battle_id: str,
    power_id: str,
    *,
    goals: list[Any],
    armies: list[str],
    standing: dict[str, Any],
    assets: list[str],
    champion: bool,
    reinforcements: list[str],
    now: datetime,
    roller: Roller,
) -> None:
    """A power's part of its side's setup: goals (at most two for the side, [003:561]), its armies in order,
    standing orders, secret assets (to the GM only), a champion opting in, reinforcements (Delayed X)."""
    b = game.battle(battle_id)
    check_turn(game.state, b, power_id, "setup", now)
    side = side_of(b, power_id)
    if not isinstance(goals, list) or not isinstance(armies, list) or not isinstance(reinforcements, list):
        raise RuleViolation("goals, armies and reinforcements are lists", rule="P.1.3", field="goals")
    clean_goals = [clean_goal(g) for g in goals]
    _check_goals(b, side, clean_goals)
    _check_armies(game, b, power_id, armies, reinforcements)
    orders = _check_standing(b, side, standing, armies, reinforcements)
    if champion:  # [003:561] "Any champions may also declare their involvement if they are also in that hex"
        where = game.state.catalogue.get("locations", {}).get(power_id)
        if game.power(power_id).cls != "champion" or (where is not None and where != b["hex"]):
            raise RuleViolation(
                f"a champion in {b['hex']} may join its battle: {power_id} is not one",
                rule="P.1.3",
                field="champion",
            )
    s = game.state
    for a in assets:
        if not isinstance(a, str) or a not in s.assets or power_id not in s.assets[a].holders:
            raise NotFound(f"you hold no asset {a!r}", field="assets")
    record_setup(game, b, power_id, clean_goals, armies, orders, reinforcements, bool(champion), assets, False)
    game._after_act(b, now, roller)


def _check_goals(b: dict[str, Any], side: str, clean_goals: list[dict[str, Any]]) -> None:
    have = b["sides"][side]["goals"]
    if len(have) + len(clean_goals) > MAX_GOALS:
        raise RuleViolation("a side proposes at most two battle goals ([003:561])", rule="P-BAT-8", field="goals")
    keys = [slug(g["name"]) for g in clean_goals]
    for key, g in zip(keys, clean_goals, strict=True):
        if key in b["goals"] or keys.count(key) > 1:
            raise RuleViolation(
                f"this battle already has a goal named like {g['name']!r}: name yours apart",
                rule="P-BAT-8",
                field="goals",
            )


def _check_armies(game: Game, b: dict[str, Any], power_id: str, armies: list[str], reinforcements: list[str]) -> None:
    for aid in [*armies, *reinforcements]:
        army = game.army(aid)
        if army["controller"] != power_id:
            raise NotFound(f"you control no army {aid!r}", field="armies")
        if aid in b["armies"]:
            raise RuleViolation(f"{aid} is already in this battle", rule="P.1.3", field="armies")
    if len(set(armies) | set(reinforcements)) != len(armies) + len(reinforcements):
        raise RuleViolation("each army is listed once", rule="P.1.3", field="armies")
    for aid in armies:
        if game.army(aid)["hex"] != b["hex"]:
            raise RuleViolation(f"{aid} is not in {b['hex']}: list it as a reinforcement", rule="P.1.3")
    for aid in reinforcements:
        army = game.army(aid)
        d = hexmap.distance(army["hex"], b["hex"])
        if d == 0 or d > army["mobility"]:
            raise RuleViolation(
                f"{aid} is {d} hexes away: a reinforcement comes from within its mobility ({army['mobility']})",
                rule="P-BAT-14",
                field="reinforcements",
            )


def _check_standing(
    b: dict[str, Any], side: str, standing: Any, armies: list[str], reinforcements: list[str]
) -> dict[str, Any]:
    if not isinstance(standing, dict):
        raise RuleViolation("standing orders are {army: order}", rule="P-BAT-3", field="standing")
    orders = {}
    for aid, order in standing.items():
        if aid not in armies and aid not in reinforcements:
            raise RuleViolation(f"{aid} is not in your list", rule="P-BAT-3", field="standing")
        orders[aid] = checked_order(b, side, order)
        if orders[aid]["command"] == "special":
            raise RuleViolation("a standing order is slay, hold, charge or rest", rule="P-BAT-3", field="standing")
    return orders


def default_setup(game: Game, b: dict[str, Any], power_id: str) -> None:
    """The GM's default at the deadline: its armies the table sees, no goals. A Stealthy or hidden army stays out of
    sight unless its power sends it (P.4)."""
    armies = [a["id"] for a in armies_in(game.state, b["hex"]) if a["controller"] == power_id and visible(a)]
    record_setup(game, b, power_id, [], armies, {}, [], False, [], by_default=True)


def record_setup(
    game: Game,
    b: dict[str, Any],
    power_id: str,
    goals: list[Any],
    armies: list[str],
    standing: dict[str, Any],
    reinforcements: list[str],
    champion: bool,
    assets: list[str],
    by_default: bool,
) -> None:
    """Record a power's setup: its secret assets (to it and the GM), the setup, its standing orders (to it alone)."""
    side = side_of(b, power_id)
    delayed = {aid: hexmap.distance(game.army(aid)["hex"], b["hex"]) for aid in reinforcements}
    if assets:
        record(
            game,
            BattleAssetsRevealed,
            battle_id=b["id"],
            power_id=power_id,
            assets=list(assets),
            actor=power_id,
            audience=vis.powers([power_id]),
        )
    record(
        game,
        BattleSetupSubmitted,
        battle_id=b["id"],
        power_id=power_id,
        side=side,
        goals=goals,
        armies=list(armies),
        standing={},  # the orders go to the power alone (BattleOrdersGiven); stored events before carry them here
        delayed=delayed,
        champion=champion,
        by_default=by_default,
        actor=SYSTEM if by_default else power_id,
        audience=audience(b),
    )
    if standing:  # P-BAT-3, P.4: a standing order is its power's plan, shown to it and the GM alone
        record(
            game,
            BattleOrdersGiven,
            battle_id=b["id"],
            power_id=power_id,
            orders=standing,
            actor=power_id,
            audience=vis.powers([power_id]),
        )


# ---------------------------------------------------------------------- events


class BattleOrdersGiven(BattleEvent):
    battle_id: str
    power_id: str
    orders: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        armies = battles_of(s)[self.battle_id]["armies"]
        for aid, order in self.orders.items():
            armies[aid]["order"] = deepcopy(order)


class BattleAssetsRevealed(BattleEvent):
    battle_id: str
    power_id: str
    assets: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = battles_of(s)[self.battle_id]
        b.setdefault("assets", {})[self.power_id] = list(self.assets)


class BattleSetupSubmitted(BattleEvent):
    battle_id: str
    power_id: str
    side: str
    goals: list[Any]
    armies: list[str]
    standing: dict[str, Any]
    delayed: dict[str, Any]
    champion: bool
    by_default: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = battles_of(s)[self.battle_id]
        power_id, standing = self.power_id, self.standing
        sd = b["sides"][self.side]
        for g in self.goals:
            key = slug(g["name"])
            sd["goals"][key] = g["name"]
            a, d = (g["A"], g["B"]) if "A" in g else (g["threshold"], g["threshold"])  # one threshold: before issue 25
            b["goals"][key] = {
                "A": a,
                "B": d,
                "name": g["name"],
                "side": self.side,
                "rewards": dict(g.get("rewards", {})),
            }
        for aid in self.armies:
            b["armies"][aid] = {"side": self.side, "power": power_id, "where": "reserve", "order": standing.get(aid)}
            sd["order"].append(aid)
        for aid, x in self.delayed.items():
            b["armies"][aid] = {"side": self.side, "power": power_id, "where": "delayed", "order": standing.get(aid)}
            sd["order"].append(aid)
            s.armies.armies[aid]["statuses"]["Delayed"] = x
        if self.champion:
            sd.setdefault("champions", []).append(power_id)
        if power_id not in b["acted"]:
            b["acted"].append(power_id)
