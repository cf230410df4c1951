"""Declaring a battle and its chain of windows (P.1.3, P-AMB-1, walls [003:435]): a battle is declared where opposed
armies stand in one hex; the GM sets its terrain and default; each step opens a window (kind ``battle``) that waits
for the powers with something to decide, and the Commands step's turns follow in its window."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from domain import limits
from domain import visibility as vis
from domain.copying import deepcopy
from domain.errors import RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.game import _iso
from domain.powers import battle_rules as br
from domain.powers import hexmap
from domain.powers import world_rules as wr
from domain.powers.armies_state import visible
from domain.powers.battle_base import (
    WINDOW_KIND,
    BattleEvent,
    armies_in,
    audience,
    battle_powers,
    battles_of,
    in_battle,
    other,
    record,
)

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState

DEFAULTS = ("hold", "standing")


def declare_battle(
    game: Game,
    battle_id: str,
    hex_id: str,
    by: str,
    enemies: list[str],
    allies: list[str] | None,
    now: datetime,
    actor: str,
) -> None:
    """Declare a battle where opposed armies stand in the same hex (P-AMB-1, [003:561])."""
    s = game.state
    limits.check_text(battle_id, "battle_id", limits.IDENTIFIER, required=True, what="a battle's id")
    if battle_id in battles_of(s):
        raise RuleViolation(f"there is already a battle {battle_id!r}", rule="P.1.3", field="battle_id")
    br.check_declaration(s.step, s.options, s.month, s.months_per_season, by_gm=actor == GM)
    h = hexmap.normal_hex(hex_id)
    game.power(by)
    allies = sorted(set(allies or []) - {by})
    enemies = sorted(set(enemies))
    if not enemies:
        raise RuleViolation("a battle has an enemy: name the powers opposed", rule="P-AMB-1", field="enemies")
    for p in [*allies, *enemies]:
        game.power(p)
    if set(enemies) & {by, *allies}:
        raise RuleViolation("a power fights on one side", rule="P-AMB-1", field="enemies")
    if any(in_battle(s, p, h) for p in [by, *allies, *enemies]):
        raise RuleViolation(f"a battle is already being fought in {h}", rule="P.1.3", field="hex")
    here = {p: [a for a in armies_in(s, h) if a["controller"] == p] for p in [by, *allies, *enemies]}
    if actor != GM:  # a power declares against the armies it sees (P.4): a refusal tells it nothing hidden
        here.update({e: [a for a in here[e] if visible(a) or by in a["seen_by"]] for e in enemies})
    if not here[by] or not any(here[e] for e in enemies):
        raise RuleViolation(f"a battle needs opposed armies in {h}: {by}'s and an enemy's", rule="P-AMB-1", field="hex")
    check_walls(s, h, by, enemies)
    hours = float(s.options.get("battle_hours", 24))
    sides = {
        "A": {"powers": [by, *allies], "goals": {}, "escalation": 0, "order": []},
        "B": {"powers": enemies, "goals": {}, "escalation": 0, "order": []},
    }
    walls = walls_at(s, h)
    goals = br.opening_goals(walls, s.options.get("goal_threshold_order", "defender_attacker"))
    record(
        game,
        BattleDeclared,
        battle={
            "id": battle_id,
            "hex": h,
            "declared_by": by,
            "season": s.season,
            "month": s.month,
            "sides": sides,
            "goals": goals,
            "walls": walls is not None,
            "terrain": "",
            "effects": "",
            "default": "hold",
            "round": 0,
            "step": "setup",
            "hours": hours,
        },
        actor=actor,
        audience=[vis.PUBLIC],
    )
    b = game.battle(battle_id)
    open_step(game, b, "setup", battle_powers(b), now)


def set_battle_terrain(game: Game, battle_id: str, terrain: str, effects: str, default: str) -> None:
    """GM: the terrain and its effects ([003:561]), and the default for commands not given by a deadline."""
    b = game.battle(battle_id)
    if b["step"] == "ended":
        raise RuleViolation("this battle has ended", rule="P.1.3", field="battle_id")
    limits.check_text(terrain, "terrain", limits.REASON, what="the terrain")
    limits.check_text(effects, "effects", limits.REASON, what="the effects")
    if default not in DEFAULTS:
        raise RuleViolation("the default is hold or standing (the army's order)", rule="P.1.3", field="default")
    record(
        game,
        BattleTerrainSet,
        battle_id=battle_id,
        terrain=terrain.strip(),
        effects=effects.strip(),
        default=default,
        actor=GM,
        audience=audience(b),
    )


def walls_at(state: GameState, h: str) -> dict[str, Any] | None:
    """The walls standing in a hex (a walls feature, a stronghold's), as the battle's walls goal."""
    for _, f in sorted(state.world.features.items()):
        if f["hex"] == h:
            goal = wr.wall_goal(f["kind"], f.get("modules", []))
            if goal is not None:
                return {**goal, "controller": f.get("controller")}
    return None


def check_walls(state: GameState, h: str, by: str, enemies: list[str]) -> None:
    """[003:435]: "Armies outside the walls cannot declare a battle against armies inside the walls until they
    have spent at least one full month in the location" (P.1.3). Inside: the walls' controller's armies."""
    walls = walls_at(state, h)
    if walls is None or walls.get("controller") not in enemies:
        return
    s = state
    moved = set()
    for aim in s.armies.aims.values():
        if aim["kind"] == "muster" and (aim["season"], aim["month"]) == (s.season, s.month):
            moved |= {m["army_id"] for m in aim["moves"] if m["path"][-1] == h}
    if any(a["id"] in moved for a in armies_in(state, h) if a["controller"] == by):
        raise RuleViolation(
            f"armies outside the {walls['name']} cannot declare a battle before a full month in {h}",
            rule="P-FEAT-2",
            field="hex",
        )


# ---------------------------------------------------------------------- windows


def open_step(
    game: Game, b: dict[str, Any], step: str, eligible: list[str], now: datetime, turn: dict[str, Any] | None = None
) -> None:
    """Begin a step of the battle in a window of its own, waiting for ``eligible``."""
    r = b["round"]
    window_id = f"{WINDOW_KIND}-{b['id']}-" + ("setup" if step == "setup" else f"r{r}-{step}")
    record(
        game,
        BattleStepBegan,
        battle_id=b["id"],
        round=r,
        step=step,
        window_id=window_id,
        eligible=list(eligible),
        turn=turn,
        actor=SYSTEM,
        audience=audience(b),
    )
    game._window_opened(
        window_id=window_id,
        kind=WINDOW_KIND,
        opened_at=_iso(now),
        closes_at=_iso(now + timedelta(hours=b["hours"])),
        actor=SYSTEM,
        audience=[vis.PUBLIC],  # the battle is public (its declaration); its steps' deadlines are too
    )


def next_turn(game: Game, b: dict[str, Any], now: datetime, *, first: bool) -> bool:
    """Sides alternate, the initiative side first; a side of several powers alternates its powers
    ([003:577], [003:578]). The first turn opens the Commands window; the next ones begin in it. False when
    nobody has an army left to command (then the Goals step; at the first turn, at once)."""
    if not first and b["turn"] is None:
        return False
    ready = {sd: game._commandable(b, sd) for sd in ("A", "B")}  # each side's armies not yet commanded
    if first:
        side = b["initiative"]
    else:
        last = b["turn"]["side"]
        side = other(last) if ready[other(last)] else last
    if not ready[side]:
        side = other(side)
    if not ready[side]:
        if first:
            open_step(game, b, "commands", [], now)
        return False
    powers = b["sides"][side]["powers"]
    last_power = (b.get("last_power") or {}).get(side)
    start = (powers.index(last_power) + 1) if last_power in powers else 0
    mine = {b["armies"][aid]["power"] for aid in ready[side]}
    turn = {"side": side, "power": next(p for p in (powers * 2)[start:] if p in mine)}
    if first:
        open_step(game, b, "commands", [turn["power"]], now, turn=turn)
    else:
        record(
            game, BattleTurnBegan, battle_id=b["id"], round=b["round"], turn=turn, actor=SYSTEM, audience=audience(b)
        )
    return True


def acted(game: Game, b: dict[str, Any], power_id: str, step: str, by_default: bool, actor: str) -> None:
    """A power has done its part of this step (or passed, or the default did it for it)."""
    record(
        game,
        BattleActed,
        battle_id=b["id"],
        power_id=power_id,
        step=step,
        by_default=by_default,
        actor=actor,
        audience=audience(b),
    )


# ---------------------------------------------------------------------- events


class BattleDeclared(BattleEvent):
    battle: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = deepcopy(self.battle)
        b.update({"armies": {}, "window": None, "eligible": [], "acted": [], "presence": {}, "attacked": {}})
        b.update({"turn": None, "initiative": None, "offers": [], "before": {}, "result": None})
        s.battles.setdefault("battles", {})[b["id"]] = b


class BattleTerrainSet(BattleEvent):
    battle_id: str
    terrain: str
    effects: str
    default: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = battles_of(s)[self.battle_id]
        b.update({"terrain": self.terrain, "effects": self.effects, "default": self.default})


class BattleStepBegan(BattleEvent):
    battle_id: str
    round: int
    step: str
    window_id: str
    eligible: list[str]
    turn: dict[str, Any] | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = battles_of(s)[self.battle_id]
        b.update(
            {
                "round": self.round,
                "step": self.step,
                "window": self.window_id,
                "eligible": list(self.eligible),
                "acted": [],
            }
        )
        b["turn"] = dict(self.turn) if self.turn is not None else None  # {"side", "power"}: flat


class BattleTurnBegan(BattleEvent):
    """The next turn of the Commands step, in the same window (it waits for the power whose turn it is)."""

    battle_id: str
    round: int
    turn: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = battles_of(s)[self.battle_id]
        b.update({"turn": dict(self.turn), "eligible": [self.turn["power"]], "acted": []})


class BattleActed(BattleEvent):
    battle_id: str
    power_id: str
    step: str
    by_default: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = battles_of(s)[self.battle_id]
        if self.power_id not in b["acted"]:
            b["acted"].append(self.power_id)
