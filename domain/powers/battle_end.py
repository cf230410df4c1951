"""A round's end and the battle's (P-BAT-8, P-BAT-9, P-BAT-12, P-BAT-13, [003:580], [003:581], [003:651]): goals
scored, terms of surrender offered for an escalation and answered (silence declines), Cleanup's statuses and
frightened morale, armies retreated or routed by their powers; the battle ends when one side stands or after seven
rounds, and its aftermath (experience, fear, Scoundrels' coin, Intimidation's influence, fees, the dispersed) is
recorded. The GM's rulings inside a battle (a status on an army) are here too."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain import limits
from domain import visibility as vis
from domain.copying import deepcopy
from domain.dice import Roller
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.game import _iso
from domain.powers import army_rules as ar
from domain.powers import battle_base as bb
from domain.powers import battle_field as bfield
from domain.powers import battle_rules as br
from domain.powers import battle_steps as steps
from domain.powers.battle_base import BattleEvent, BattleRoll, BattleRuled, record

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def score_goals(game: Game, b: dict[str, Any], now: datetime) -> None:
    successes: dict[str, dict[str, int]] = {
        g: {"A": 0, "B": 0} for g, goal in b["goals"].items() if br.goal_open(goal, b["round"])
    }
    for aid, per_goal in b["presence"].items():
        side = b["armies"][aid]["side"]
        if aid not in game._fighting(b, side):
            continue
        for g, n in per_goal.items():
            successes[g][side] += n
    winners = br.score_goals(successes, walls_standing=b["walls"], attackers="A")
    escalation = {side: b["sides"][side]["escalation"] for side in ("A", "B")}
    initiative = b["initiative"]
    walls = b["walls"]
    for g, side in winners.items():
        if side is None:
            continue
        if g == "advance":
            escalation[side] += 1
        elif g == "initiative":
            initiative = side
        elif g == "walls" and side == "A":
            walls = False
    changes: dict[str, dict[str, Any]] = {}
    for aid in game._fighting(b):  # Drakes gain when their side wins a goal; Water elementals when it loses one
        side = b["armies"][aid]["side"]
        army = game.state.armies.armies[aid]
        after = army
        if any(w == side for w in winners.values()):
            after = br.momentum_trigger(after, "goal_won", round_no=b["round"])
        if any(w == bb.other(side) for w in winners.values()):
            after = br.momentum_trigger(after, "goal_lost", round_no=b["round"])
        d = bb.diff(army, after)
        if d:
            changes[aid] = d
    record(
        game,
        BattleGoalsScored,
        battle_id=b["id"],
        round=b["round"],
        successes=successes,
        changes=changes,
        winners=winners,
        escalation=escalation,
        initiative=initiative,
        walls=walls,
        actor=SYSTEM,
        audience=bb.audience(b),
    )
    offerers = [p for side in ("A", "B") if escalation[side] > 0 for p in b["sides"][side]["powers"]]
    steps.open_step(game, b, "goals", offerers, now)


def offer_terms(
    game: Game, battle_id: str, power_id: str, terms: str | None, *, now: datetime, roller: Roller, actor: str
) -> None:
    """Goals: spend 1 escalation to offer terms of surrender ([003:580], P-BAT-9); no terms: pass."""
    b = game.battle(battle_id)
    bb.check_turn(game.state, b, power_id, "goals", now)
    side = bb.side_of(b, power_id)
    if terms is not None:
        limits.check_text(terms, "terms", limits.REASON, required=True, what="the terms")
        if any(o["side"] == side for o in b["offers"]):
            raise RuleViolation("your side has already offered terms this round", rule="P-BAT-9", field="terms")
        left = br.offer_surrender(b["sides"][side]["escalation"])
        record(
            game,
            BattleTermsOffered,
            battle_id=battle_id,
            round=b["round"],
            power_id=power_id,
            side=side,
            terms=terms.strip(),
            escalation=left,
            actor=actor,
            audience=bb.audience(b),
        )
    steps.acted(game, b, power_id, "goals", False, actor)
    game._after_act(b, now, roller)


def after_goals(game: Game, b: dict[str, Any], now: datetime, roller: Roller) -> None:
    if b["offers"]:
        to = sorted({p for o in b["offers"] for p in b["sides"][bb.other(o["side"])]["powers"]})
        steps.open_step(game, b, "surrender", to, now)
    else:
        begin_cleanup(game, b, now, roller)


def answer_terms(
    game: Game, battle_id: str, power_id: str, accept: bool, *, now: datetime, roller: Roller, actor: str
) -> None:
    """The recipient side accepts or declines the terms offered; silence declines (P-BAT-9)."""
    b = game.battle(battle_id)
    bb.check_turn(game.state, b, power_id, "surrender", now)
    side = bb.side_of(b, power_id)
    record(
        game,
        BattleTermsAnswered,
        battle_id=battle_id,
        round=b["round"],
        power_id=power_id,
        side=side,
        accept=bool(accept),
        actor=actor,
        audience=bb.audience(b),
    )
    game._after_act(b, now, roller)


def after_surrender(game: Game, b: dict[str, Any], now: datetime, roller: Roller) -> None:
    accepted = [o for o in b["offers"] if o["answer"] is True]
    if accepted:
        loser = bb.other(accepted[0]["side"])
        end_battle(game, b, f"side {loser} accepted terms", bb.other(loser), now)
    else:
        begin_cleanup(game, b, now, roller)


def begin_cleanup(game: Game, b: dict[str, Any], now: datetime, roller: Roller) -> None:
    s = game.state
    rolls: list[BattleRoll] = []
    changes: dict[str, dict[str, Any]] = {}
    lines: list[str] = []
    for aid in game._fighting(b):
        army = s.armies.armies[aid]
        frightened = None
        if br.cleanup_dice(army):
            frightened = bb.roll(
                game, roller, rolls, f"frightened morale of {aid}", br.cleanup_dice(army), br.die_size(army, "morale")
            )
        # P-BAT-7 end-of-round triggers, before the statuses tick: Harpies "end a round without receiving a
        # wound or routing" (against the army as the round began, or as it deployed); Light elementals at the
        # end of the first round, or the first four "in sunlight" (decision: the GM's terrain effects say so).
        ended = br.momentum_trigger(
            army,
            "round_end",
            round_no=b["round"],
            unharmed=b.get("round_start", {}).get(aid) == bb.marks(army),
            sunlight="sunlight" in (b["effects"] + " " + b["terrain"]).lower(),
        )
        after, said = br.cleanup(ended, frightened)
        lines += [f"{army['name']}: {x}" for x in said]
        d = bb.diff(s.armies.armies[aid], after)
        if d:
            changes[aid] = d
    for aid, e in sorted(b["armies"].items()):
        if e["where"] == "delayed":
            d = bb.diff(s.armies.armies[aid], br.tick_delayed(s.armies.armies[aid]))
            if d:
                changes[aid] = d
    record(
        game,
        BattleCleanedUp,
        battle_id=b["id"],
        round=b["round"],
        rolls=rolls,
        changes=changes,
        lines=lines,
        actor=SYSTEM,
        audience=bb.audience(b),
    )
    steps.open_step(game, b, "cleanup", sorted({b["armies"][a]["power"] for a in game._fighting(b)}), now)


def retreat_or_rout(
    game: Game,
    battle_id: str,
    power_id: str,
    retreat: list[str],
    routs: dict[str, Any],
    *,
    now: datetime,
    roller: Roller,
    actor: str,
) -> None:
    """Cleanup ([003:581]): retreat armies from the battlefield, or rout units (by index) of one's armies."""
    b = game.battle(battle_id)
    bb.check_turn(game.state, b, power_id, "cleanup", now)
    mine = [a for a in game._fighting(b) if b["armies"][a]["power"] == power_id]
    if not isinstance(retreat, list) or not isinstance(routs, dict):
        raise RuleViolation("retreat is a list of armies, routs {army: [unit index]}", rule="P.1.3")
    changes: dict[str, dict[str, Any]] = {}
    for aid in [*retreat, *routs]:
        if aid not in mine:
            raise RuleViolation(f"{aid} is not one of your armies on the field", rule="P.1.3", field="army_id")
    for aid, idx in routs.items():
        units = deepcopy(game.state.armies.armies[aid]["units"])
        if not isinstance(idx, list) or any(
            not isinstance(i, int) or not 0 <= i < len(units) or units[i]["routed"] for i in idx
        ):
            raise RuleViolation("rout active units by their index", rule="P.1.3", field="routs")
        for i in idx:
            units[i]["routed"] = True
        changes[aid] = {"units": units}
    record(
        game,
        BattleWithdrawn,
        battle_id=battle_id,
        round=b["round"],
        power_id=power_id,
        retreat=list(retreat),
        changes=changes,
        actor=actor,
        audience=bb.audience(b),
    )
    game._after_act(b, now, roller)


def end_check(game: Game, b: dict[str, Any], now: datetime, roller: Roller) -> None:
    """[003:651] A battle ends when only one side has active armies remaining or at the end of 7 rounds."""
    alive = [
        side
        for side in ("A", "B")
        if game._fighting(b, side)
        or any(e["where"] in ("delayed", "reserve") and e["side"] == side for e in b["armies"].values())
    ]
    if len(alive) <= 1:
        reason = "only one side has active armies" if alive else "no side stands"
        end_battle(game, b, reason, alive[0] if alive else None, now)
    elif b["round"] >= br.MAX_ROUNDS:
        end_battle(game, b, f"{br.MAX_ROUNDS} rounds fought", None, now)
    else:
        bfield.begin_round(game, b, now, roller)


def end_battle(game: Game, b: dict[str, Any], reason: str, winner: str | None, now: datetime) -> None:
    s = game.state
    before = b["before"]
    after = {aid: deepcopy(s.armies.armies[aid]) for aid in b["armies"] if aid in s.armies.armies}
    fear_users = {p for p in game._powers_of(b) if control_of(game.state, p) == "fear"}
    scoundrels = {p for p in game._powers_of(b) if "Scoundrels" in game._perks(p)}
    sides = {aid: e["side"] for aid, e in b["armies"].items()}
    # Intimidation is a conspiracy's generation mechanism, once a season ([003:1120], P-INFL-5): picked and unused
    picked, used = s.world.mechanisms, s.world.generated
    intimidators = {
        p for p in game._powers_of(b) if "intimidation" in picked.get(p, []) and "intimidation" not in used.get(p, [])
    }
    math = br.after_battle(
        before,
        after,
        fear_users=fear_users,
        scoundrels=scoundrels,
        kills=[tuple(k) for k in b.get("kills", [])],
        sides=sides,
        intimidators=intimidators,
        winner=winner,
    )
    cleared = {aid: bb.diff(a, br.clear_battle(a)) for aid, a in after.items() if a["units"]}
    destroyed = sorted(aid for aid, a in after.items() if not a["units"])  # every unit slain (P-BAT-4)
    fled = sorted(aid for aid, a in after.items() if a["units"] and ar.size(a) == 0)  # routed: P-ARMY-7
    record(
        game,
        BattleEnded,
        battle_id=b["id"],
        round=b["round"],
        reason=reason,
        winner=winner,
        aftermath={
            "experience_rank": math.experience_rank,
            "survivors": list(math.survivors),
            "fear": dict(math.fear),
            "coin": dict(math.coin),
            "influence": dict(math.influence),
            "lost": list(math.lost),
            "destroyed": destroyed,
            "dispersed": fled,
        },
        changes={k: v for k, v in cleared.items() if v},
        actor=SYSTEM,
        audience=bb.audience(b),
    )
    w = s.windows.get(b["window"] or "")
    if w is not None and not w.closed:
        game._window_closed(
            window_id=w.id, reason="battle ended", closed_at=_iso(now), actor=SYSTEM, audience=[vis.PUBLIC]
        )
    for aid in fled:
        game.record_dispersal(aid)
    if math.experience_rank >= 1:
        for aid in math.survivors:
            army = s.armies.armies.get(aid)
            if army is not None and army["controller"]:
                game.grant_experience(aid, min(math.experience_rank, 10))
    for aid in sorted(b["armies"]):
        army = s.armies.armies.get(aid)
        if army is not None and b["armies"][aid]["where"] != "delayed":
            game._fee_due(army)
    for p, n in sorted(math.fear.items()):
        if n:
            game.earn(p, "fear", min(n, 1000), f"battle {b['id']}")
    for p, n in sorted(math.coin.items()):
        if n:
            game.earn(p, "coin", min(n, 1000), f"battle {b['id']} (Scoundrels)")
    for p, n in sorted(math.influence.items()):  # Intimidation: the greatest level (P-AMB-41: rank) opposed
        if n:
            game.generate_influence(p, "intimidation", b["hex"], [n])


def set_battle_status(game: Game, battle_id: str, army_id: str, status: str, stacks: int, reason: str) -> None:
    """GM: a battle status on an army (a spell's effect, the terrain; P-BAT-12): stacks 0 removes it."""
    b = game.battle(battle_id)
    if army_id not in b["armies"]:
        raise NotFound(f"no army {army_id!r} in this battle", field="army_id")
    limits.check_text(status, "status", limits.IDENTIFIER, required=True, what="a status")
    limits.check_text(reason, "reason", limits.REASON, what="the reason")
    n = limits.whole_number(stacks, "stacks", 0, 20, "P-BAT-12")
    statuses = dict(game.state.armies.armies[army_id]["statuses"])
    if n:
        statuses[status] = n
    else:
        statuses.pop(status, None)
    record(
        game,
        BattleRuled,
        battle_id=battle_id,
        round=b["round"],
        changes={army_id: {"statuses": statuses}},
        reason=reason.strip(),
        actor=GM,
        audience=bb.audience(b),
    )


def control_of(state: GameState, p: str) -> str | None:
    h = state.development.holdings.get(p)
    return h.control if h is not None else None


# ---------------------------------------------------------------------- events


class BattleGoalsScored(BattleEvent):
    battle_id: str
    round: int
    successes: dict[str, Any]
    changes: dict[str, dict[str, Any]]
    winners: dict[str, Any]
    escalation: dict[str, Any]
    initiative: str
    walls: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = bb.battles_of(s)[self.battle_id]
        bb.apply_changes(s, self.changes)
        for side, n in self.escalation.items():
            b["sides"][side]["escalation"] = n
        b.update({"initiative": self.initiative, "walls": self.walls, "offers": []})
        changed, rewards = br.goal_rewards(b["goals"], self.winners, self.round)  # P-BAT-8 [003:641], [003:647]
        for g, change in changed.items():
            b["goals"][g].update(change)
        b.setdefault("scores", []).append(
            {
                "round": self.round,
                "successes": deepcopy(self.successes),
                "winners": dict(self.winners),
                "rewards": rewards,
            }
        )


class BattleTermsOffered(BattleEvent):
    battle_id: str
    round: int
    power_id: str
    side: str
    terms: str
    escalation: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = bb.battles_of(s)[self.battle_id]
        b["sides"][self.side]["escalation"] = self.escalation
        b["offers"].append({"side": self.side, "by": self.power_id, "terms": self.terms, "answer": None})


class BattleTermsAnswered(BattleEvent):
    battle_id: str
    round: int
    power_id: str
    side: str
    accept: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = bb.battles_of(s)[self.battle_id]
        for o in b["offers"]:
            if o["side"] != self.side and o["answer"] is not True:
                o["answer"] = self.accept
        if self.power_id not in b["acted"]:
            b["acted"].append(self.power_id)


class BattleCleanedUp(BattleEvent):
    battle_id: str
    round: int
    rolls: list[BattleRoll]
    changes: dict[str, dict[str, Any]]
    lines: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        bb.apply_changes(s, self.changes)
        bb.advance_rolls(s, self.rolls)


class BattleWithdrawn(BattleEvent):
    battle_id: str
    round: int
    power_id: str
    retreat: list[str]
    changes: dict[str, dict[str, Any]]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = bb.battles_of(s)[self.battle_id]
        for aid in self.retreat:
            b["armies"][aid]["where"] = "retreated"
            b["presence"].pop(aid, None)
        bb.apply_changes(s, self.changes)
        if self.power_id not in b["acted"]:
            b["acted"].append(self.power_id)


class BattleEnded(BattleEvent):
    battle_id: str
    round: int
    reason: str
    winner: str | None
    aftermath: dict[str, Any]
    changes: dict[str, dict[str, Any]]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = bb.battles_of(s)[self.battle_id]
        bb.apply_changes(s, self.changes)
        b.update(
            {"step": "ended", "result": {"reason": self.reason, "winner": self.winner, **deepcopy(self.aftermath)}}
        )
        for aid in self.aftermath["destroyed"]:
            army = s.armies.armies.pop(aid, None)
            if army is not None and aid in s.assets:
                s.assets[aid].holders = []
        for aid in b["armies"]:
            army = s.armies.armies.get(aid)
            if army is not None:
                army["statuses"].pop("Delayed", None)
