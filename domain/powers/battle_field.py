"""The battlefield (P.1.3, P-BAT-7, P-BAT-11, P-BAT-14, [003:575], [003:576], [003:578]): the armies listed take the
field and the side with fewer seizes the initiative; each round begins with its statuses, delayed reinforcements
arrive and the powers deploy armies from reserve, their deployment triggers rolled; then the powers that know a fast
spell may cast one, its mana paid by the rules of spell costs (P-MAG-2) and its momentum triggers recorded."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain import visibility as vis
from domain.copying import deepcopy
from domain.dice import Roller
from domain.errors import NotFound, RuleViolation
from domain.ids import SYSTEM
from domain.powers import battle_base as bb
from domain.powers import battle_rules as br
from domain.powers import battle_steps as steps
from domain.powers import hexmap
from domain.powers import magic_rules as mr
from domain.powers.battle_base import BattleEvent, BattleRoll, BattleRuled, record
from domain.powers.magic_mana import mana_spent
from domain.powers.magic_state import current_cost, has_perk, power_magic, spell_def
from domain.powers.spells import Spell

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def start_battle(game: Game, b: dict[str, Any], roller: Roller) -> None:
    """The armies listed take the field; the power with fewer deployed armies seizes the initiative
    ([003:578]); starting momentum (P-BAT-7)."""
    s = game.state
    listed = {aid: e for aid, e in b["armies"].items() if e["where"] == "reserve"}
    count = {side: sum(1 for e in listed.values() if e["side"] == side) for side in ("A", "B")}
    initiative = br.first_initiative(count, defender="B") or "B"  # P-AMB-22: sides compared; a tie: defenders
    changes: dict[str, dict[str, Any]] = {}
    for aid in listed:
        army = s.armies.armies[aid]
        side = listed[aid]["side"]
        mates = [s.armies.armies[x] for x in listed if x != aid and listed[x]["side"] == side]
        entered = br.add_statuses(army, br.starting_statuses(army))
        entered["momentum"] = br.starting_momentum(army, mates)
        far = awesome_power_distance(game.state, army, b["hex"])
        if far:  # P-BAT-11 the Celestial's Awesome Power: wounds at the start, no rout check
            entered = br.awesome_power_wounds(entered, far)[0]
        d = bb.diff(army, entered)
        if d:
            changes[aid] = d
    record(
        game,
        BattleStarted,
        battle_id=b["id"],
        deployed=sorted(listed),
        initiative=initiative,
        changes=changes,
        actor=SYSTEM,
        audience=bb.audience(b),
    )
    deploy(
        game, b, SYSTEM, [a for s_ in ("A", "B") for a in b["sides"][s_]["order"] if a in listed], roller, at_start=True
    )


def begin_round(game: Game, b: dict[str, Any], now: datetime, roller: Roller) -> None:
    """Deployment: delayed reinforcements whose Delayed reached 0 arrive (P-BAT-14); deploy triggers roll
    (P-BAT-11); then the powers with armies in reserve may deploy them."""
    r = b["round"] + 1
    arriving = [
        aid
        for aid, e in sorted(b["armies"].items())
        if e["where"] == "delayed" and br.arrives(game.state.armies.armies[aid])
    ]
    changes = {}
    for aid in game._fighting(b):
        army = game.state.armies.armies[aid]
        flying = br.round_statuses(army, r)
        d = bb.diff(army, br.add_statuses(army, flying)) if flying else {}
        if d:
            changes[aid] = d
    record(game, BattleRoundBegan, battle_id=b["id"], round=r, changes=changes, actor=SYSTEM, audience=bb.audience(b))
    if arriving:
        deploy(game, b, SYSTEM, arriving, roller)
    steps.open_step(game, b, "deployment", bb.reserve_powers(game.state, b), now)


def deploy(
    game: Game, b: dict[str, Any], who: str, army_ids: list[str], roller: Roller, *, at_start: bool = False
) -> None:
    """Armies take the field; their deployment triggers roll (P-BAT-11): a Demon's or Devil's opposed mortal
    armies, a Repulsive army's mortal allies. At the start all listed armies deploy at once."""
    s = game.state
    joined = {aid: {"side": bb.side_of(b, who), "power": who} for aid in army_ids if aid not in b["armies"]}
    rolls: list[BattleRoll] = []
    changes: dict[str, dict[str, Any]] = {}
    on_field = [x for x in game._fighting(b) if x not in army_ids] + (list(army_ids) if at_start else [])
    sides = {**{a: e["side"] for a, e in b["armies"].items()}, **{a: j["side"] for a, j in joined.items()}}

    def now_of(x: str) -> dict[str, Any]:
        return {**s.armies.armies[x], **changes.get(x, {}), "side": sides[x]}  # side: opposed or friendly

    for aid in army_ids:
        army = now_of(aid)
        others = [now_of(x) for x in on_field if sides[x] != sides[aid]]
        for target_id, dice, threshold in br.deployment_checks(army, others):
            target = now_of(target_id)
            faces = bb.roll(
                game, roller, rolls, f"deployment morale of {target_id}", dice, br.die_size(target, "morale")
            )
            ok = br.count_successes(faces, target["morale"]["bonus"], threshold)
            routs = br.deployment_routs(dice, ok)
            if routs:
                changes.setdefault(target_id, {})["units"] = br.rout(target, routs)[0]["units"]
        allies = [now_of(x) for x in on_field if sides[x] == sides[aid] and x != aid]
        for target_id, dice, threshold, due in br.repulsive_checks(army, allies):
            target = now_of(target_id)
            faces = bb.roll(
                game, roller, rolls, f"repulsion morale of {target_id}", dice, br.die_size(target, "morale")
            )
            after, _ = br.morale(target, faces, threshold, due)
            changes.setdefault(target_id, {})["units"] = after["units"]
        entering = now_of(aid)  # Orcs wounded, Antinium: momentum as they deploy (P-BAT-7)
        entered = br.momentum_trigger({k: v for k, v in entering.items() if k != "side"}, "deployment")
        d = bb.diff(s.armies.armies[aid], entered)
        if d:
            changes.setdefault(aid, {}).update(d)
        if aid not in on_field:
            on_field.append(aid)
    if at_start and not rolls and not changes:
        return
    record(
        game,
        BattleDeployed,
        battle_id=b["id"],
        round=b["round"],
        by=who,
        armies=list(army_ids),
        joined=joined,
        rolls=rolls,
        changes=changes,
        actor=who,
        audience=bb.audience(b),
    )


def deploy_armies(
    game: Game, battle_id: str, power_id: str, army_ids: list[str], *, now: datetime, roller: Roller, actor: str
) -> None:
    """Deployment ([003:575]): deploy armies of one's reserve (none: pass)."""
    b = game.battle(battle_id)
    bb.check_turn(game.state, b, power_id, "deployment", now)
    reserve = bb.reserve(game.state, b, power_id)
    for aid in army_ids:
        if aid not in reserve:
            raise RuleViolation(
                f"{aid} is not one of your armies in {b['hex']} outside the battle", rule="P.1.3", field="armies"
            )
    if army_ids:
        deploy(game, b, power_id, list(dict.fromkeys(army_ids)), roller)
    steps.acted(game, b, power_id, "deployment", False, actor)
    game._after_act(b, now, roller)


def cast_battle_spell(
    game: Game,
    battle_id: str,
    power_id: str,
    spell_id: str | None,
    target: str | None,
    *,
    now: datetime,
    roller: Roller,
    actor: str,
    pay: list[str] | None = None,
) -> None:
    """Spellcasting: one fast spell per power per round ([003:576]), or none. Its mana is paid by the rules of
    spell costs (P-MAG-2: ``pay`` lists the mana, else paid in kind and the generic part from the most
    plentiful), recorded as the power's own ManaSpent; a power that cannot pay is refused naming P-MAG-2 and
    nothing is recorded. The spell's effect, where it is not data, is the GM's (``set_battle_status``)."""
    b = game.battle(battle_id)
    bb.check_turn(game.state, b, power_id, "spellcasting", now)
    if spell_id is not None:
        sp = spell_def(game.state, spell_id)
        if sp is None or spell_id not in power_magic(game.state, power_id).get("known", []):
            raise NotFound(f"the power knows no spell {spell_id!r}", rule="P-ASSET-8", field="spell_id")
        if sp.speed != "fast":
            raise RuleViolation("in the spellcasting step a power casts a fast spell", rule="P-ACT-3")
        if target is not None and target not in b["armies"]:
            raise NotFound(f"no army {target!r} in this battle", field="target")
        spent = spell_payment(game.state, power_id, sp, pay)
        mana_spent(
            game,
            power_id=power_id,
            action_id=f"battle-{battle_id}-r{b['round']}",
            cost=current_cost(game.state, sp, power_id).text,
            paid=spent,
            pooled={},
            from_wallet=spent,
            actor=actor,
            audience=vis.powers([power_id]),  # the wallet is its owner's (P.4)
        )
        record(
            game,
            BattleSpellCast,
            battle_id=battle_id,
            round=b["round"],
            power_id=power_id,
            spell_id=spell_id,
            target=target,
            actor=actor,
            audience=bb.audience(b),
        )
        spell_momentum(game, b, power_id, sp)
    steps.acted(game, b, power_id, "spellcasting", False, actor)
    game._after_act(b, now, roller)


def spell_momentum(game: Game, b: dict[str, Any], power_id: str, sp: Spell) -> None:
    """P-BAT-7 spell triggers: Ashborn lose all momentum when a Water spell is cast and gain one for a Fire
    spell; Triumph Elves gain one when an ally casts a spell whose rank is the round number. Decision: a spell
    is of each element its cost names (P-MAG-2); the caster's own side are its allies. Recorded as a ruling of
    the battle (``BattleRuled``) by the system."""
    cost = current_cost(game.state, sp, power_id)
    rank = mr.rank(sp.speed, cost)
    side = bb.side_of(b, power_id)
    changes: dict[str, dict[str, Any]] = {}
    for aid in game._fighting(b):
        army = game.state.armies.armies[aid]
        after = army
        elements: list[str | None] = [*cost.elements] or [None]
        for element in elements:
            after = br.momentum_trigger(
                after,
                "spell",
                round_no=b["round"],
                spell_element=element,
                spell_rank=rank if b["armies"][aid]["side"] == side else None,
            )
        if after["momentum"] != army["momentum"]:
            changes[aid] = {"momentum": after["momentum"]}
    if changes:
        record(
            game,
            BattleRuled,
            battle_id=b["id"],
            round=b["round"],
            changes=changes,
            reason=f"momentum: {sp.name} was cast (P-BAT-7)",
            actor=SYSTEM,
            audience=bb.audience(b),
        )


def awesome_power_distance(state: GameState, army: dict[str, Any], h: str) -> int:
    """P-BAT-11 [003:1028] the Celestial's Awesome Power: "when fighting outside your capitol, you take wounds at
    the start of each battle equal to your range distance from your capitol". Decision: the Celestial is its
    power's loyal titanic army (a Celestial "is" that army, Loyal only to itself); its capitol is the power's
    conduit marked capitol (P-MAG-5), else the army's home hex."""
    p = army.get("controller")
    if not p or not army.get("loyal") or not army.get("titanic") or bb.power_of(state, p).subclass != "celestial":
        return 0
    capitols = [c["hex"] for _, c in sorted(power_magic(state, p).get("conduits", {}).items()) if c["capitol"]]
    home = capitols[0] if capitols else army["garrison"]
    return hexmap.distance(home, h)


def casters(state: GameState, b: dict[str, Any]) -> list[str]:
    """The powers that know a fast spell (the others have nothing to decide)."""
    out = []
    for p in bb.battle_powers(b):
        known = power_magic(state, p).get("known", [])
        if any((sp := spell_def(state, k)) is not None and sp.speed == "fast" for k in known):
            out.append(p)
    return out


def spell_payment(state: GameState, power_id: str, sp: Spell, pay: list[str] | None) -> dict[str, Any]:
    """P-MAG-2: the fast spell's cost (with the power's cost perks) paid from its wallet."""
    s = state
    if pay is not None and (not isinstance(pay, list) or not all(isinstance(e, str) for e in pay) or len(pay) > 60):
        raise RuleViolation("a payment lists mana by element letter", rule="P-MAG-2", field="pay")
    cost = current_cost(s, sp, power_id)
    held = dict(bb.power_of(state, power_id).mana)
    payment = mr.check_payment(
        cost,
        pay if pay is not None else mr.auto_payment(cost, held),
        improvised=has_perk(s, power_id, "improvised_instants"),
        flexible=has_perk(s, power_id, "elemental_flexibility"),
    )
    try:
        mr.check_held(payment.spent, held)
    except RuleViolation as e:
        raise RuleViolation(f"{sp.name} costs {cost.text}: {e}", rule="P-MAG-2", field="pay") from None
    return dict(sorted(payment.spent.items()))


# ---------------------------------------------------------------------- events


class BattleStarted(BattleEvent):
    battle_id: str
    deployed: list[str]
    initiative: str
    changes: dict[str, dict[str, Any]]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = bb.battles_of(s)[self.battle_id]
        # The armies as they enter (P-BAT-13 counts losses from here): folded from the state, never carried in an
        # event, since an army's whole record (its Experience) is its controller's (P.4).
        armies = s.armies.armies
        before = {aid: deepcopy(armies[aid]) for aid in b["armies"] if aid in armies}
        for aid in self.deployed:
            b["armies"][aid]["where"] = "deployed"
        b["initiative"] = self.initiative
        b["before"] = deepcopy(before)
        bb.apply_changes(s, self.changes)


class BattleRoundBegan(BattleEvent):
    battle_id: str
    round: int
    changes: dict[str, dict[str, Any]]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = bb.battles_of(s)[self.battle_id]
        bb.apply_changes(s, self.changes)
        b.update({"round": self.round, "presence": {}, "attacked": {}, "exhausted": []})
        armies = s.armies.armies
        b["round_start"] = {aid: bb.marks(armies[aid]) for aid in sorted(b["armies"]) if aid in armies}


class BattleDeployed(BattleEvent):
    battle_id: str
    round: int
    by: str
    armies: list[str]
    joined: dict[str, Any]
    rolls: list[BattleRoll]
    changes: dict[str, dict[str, Any]]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        b = bb.battles_of(s)[self.battle_id]
        for aid, j in self.joined.items():
            b["armies"][aid] = {"side": j["side"], "power": j["power"], "where": "reserve", "order": None}
            b["sides"][j["side"]]["order"].append(aid)
            b["before"][aid] = deepcopy(s.armies.armies[aid])
        for aid in self.armies:
            b["armies"][aid]["where"] = "deployed"
            army = s.armies.armies[aid]
            b.setdefault("round_start", {}).setdefault(aid, bb.marks(army))
            army["statuses"].pop("Delayed", None)
            if army["hex"] != b["hex"]:  # a reinforcement has marched to the battle: it goes home at Cleanup
                army["hex"], army["mustered"] = b["hex"], b["hex"] != army["garrison"]
        bb.apply_changes(s, self.changes)
        bb.advance_rolls(s, self.rolls)


class BattleSpellCast(BattleEvent):
    battle_id: str
    round: int
    power_id: str
    spell_id: str
    target: str | None
    actor: str
    audience: list[str]
