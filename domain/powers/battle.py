"""The battle sub-machine of Powers, played by post (rules/ANALYSIS.md P.1.3, P-BAT-1..14, P-AMB-1, P.4).

A battle is declared in a month's Battle step where opposed armies stand in the same hex (P-AMB-1: checked in
every month's Battle step; who may declare is the campaign option ``battle_declared_by``). Its setup, then each
round's Deployment > Spellcasting > Commands > Goals > Cleanup, is a chain of platform windows (kind ``battle``):
each opens with a deadline (``battle_hours``), is reminded, may be extended, and closes early once everyone it
waits for has acted. At a deadline the GM's default for the battle is applied and recorded as events: a command
not given is ``hold`` on Advance, or the army's standing order (``default="standing"``); a setup not given
deploys the power's visible armies in the hex in id order with no goals; the other steps pass.

The rules themselves (checks, attacks, morale, goals, cleanup, the aftermath) are ``domain.powers.battle_rules``;
this module only rolls the dice they ask for on the game's committed dice service and records what they return.

Decisions taken (recorded here, as STYLE asks):
- Sides: the declarer's side attacks (P-AMB-13 walls "attacker"); the declarer names its allies and its enemies
  among the powers with armies in the hex (P-AMB-1: the declaration makes the armies opposed).
- Walls (P.1.3, [003:435]): armies outside the walls cannot declare against those inside until they have spent a
  full month there: a declarer whose armies in the hex moved there by a muster resolved this month is refused
  when a walls feature (or a stronghold) of an enemy stands in the hex.
- Initiative at the start: the side with fewer deployed armies seizes it ([003:578], P-AMB-22); a tie: the defenders.
- The Commands step is one window for the round (a turn needs no window of its own: by post, a window a turn
  would stretch a battle over weeks); it waits for the power whose turn it is, and at its deadline every army not
  commanded takes the default, in turn order.
- Multi-power sides take turns by power, each power commanding one army a turn; when a side has no army left to
  command, the other side commands on.
- Fast spells in the spellcasting step are recorded for the battle (one per power per round, a fast spell the
  power knows, [003:576]); their mana and effects are ruled by the GM (``set_battle_status``).
- Surrender ([003:580], P-BAT-9): an offer spends 1 escalation; the recipient side answers in a window of its
  own (silence declines). An accepted offer ends the battle; the side that accepted retreats.
- Secret assets (P.4 row "Assets revealed in secret in a battle") go to the GM only, with their owner.
- Who sees the battle: its powers and the GM (the battlemap shows wounds); its declaration and its end are public.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict, cast

from eventsourcing.domain import event

from domain import limits
from domain import visibility as vis
from domain.copying import deepcopy
from domain.dice import Roller
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.platform.game import PlatformGame, _iso
from domain.platform.state import Window
from domain.powers import army_rules as ar
from domain.powers import battle_base as bb
from domain.powers import battle_rules as br
from domain.powers import battle_setup as setup
from domain.powers import battle_steps as steps
from domain.powers import hexmap
from domain.powers import magic_rules as mr
from domain.powers.battle_base import WINDOW_KIND as WINDOW_KIND
from domain.powers.battle_base import BattleRoll as BattleRoll
from domain.powers.battle_view import REPORTED
from domain.powers.battle_view import battle_report as battle_report
from domain.powers.battle_view import battle_view as battle_view
from domain.powers.battle_view import battles_view as battles_view
from domain.powers.magic import _of as _magic_of
from domain.powers.magic import current_cost, has_perk, spell_def

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState, PowerState

DECLARERS = ("controller", "gm")
STEP_WINDOWS = ("setup", "deployment", "spellcasting", "commands", "goals", "surrender", "cleanup")


def _battle_of_window(state: GameState, window_id: str) -> dict[str, Any] | None:
    """The battle whose current window this is, if any (``domain.powers.windows`` asks)."""
    return bb.battle_of_window(state, window_id)


class BattlesState(TypedDict, total=False):
    """``GameState.battles``: the game's battles by id (P.1.3), each a dict of JSON-native values (see
    ``_battle_declared``)."""

    battles: dict[str, dict[str, Any]]


class Battles(PlatformGame):
    """The battle sub-machine: its commands, events and windows (a base of ``Game``)."""

    # The events, each declared and folded in its sub-domain's module; named here, each is redefined by the
    # library as Battles.<Name>, the topic its stored events have always had.
    # declaring and the windows
    BattleDeclared = steps.BattleDeclared
    BattleTerrainSet = steps.BattleTerrainSet
    BattleStepBegan = steps.BattleStepBegan
    BattleTurnBegan = steps.BattleTurnBegan
    BattleActed = steps.BattleActed
    # setup
    BattleOrdersGiven = setup.BattleOrdersGiven
    BattleAssetsRevealed = setup.BattleAssetsRevealed
    BattleSetupSubmitted = setup.BattleSetupSubmitted

    if TYPE_CHECKING:  # the Game's events and queries this feature uses
        state: GameState
        army: Callable[[str], dict[str, Any]]
        grant_experience: Callable[[str, int], None]
        record_dispersal: Callable[[str], None]
        _fee_due: Callable[[dict[str, Any]], None]
        generate_influence: Callable[[str, str, str, list[int]], None]
        _perks: Callable[[str], set[str]]
        _mana_spent: Callable[..., None]  # an event of Game (keyword arguments: its fields)

        def power(self, power_id: str) -> PowerState: ...
        def earn(self, power_id: str, resource: str, amount: int, reason: str, actor: str = ...) -> int: ...

    def _game(self) -> Game:
        """This aggregate as the ``Game`` it is part of (a battle's rules call the game's own methods)."""
        return cast("Game", self)

    # ------------------------------------------------------------------ queries

    def battle(self, battle_id: str) -> dict[str, Any]:
        """The battle, or NotFound."""
        b = bb.battles_of(self.state).get(battle_id)
        if b is None:
            raise NotFound(f"no battle {battle_id!r}", field="battle_id")
        return b

    def active_battles(self) -> list[dict[str, Any]]:
        return bb.active_battles(self.state)

    def _powers_of(self, b: dict[str, Any]) -> list[str]:
        return bb.battle_powers(b)

    def _fighting(self, b: dict[str, Any], side: str | None = None) -> list[str]:
        return bb.fighting_in(self.state, b, side)

    def battle_pending(self, b: dict[str, Any]) -> list[str]:
        return bb.pending(b)

    def _battle_may_act(self, w: Window, power_id: str) -> bool:
        b = _battle_of_window(self.state, w.id)
        return b is not None and power_id in self.battle_pending(b)

    def _battle_pending_in(self, w: Window) -> list[str]:
        b = _battle_of_window(self.state, w.id)
        return self.battle_pending(b) if b is not None else []

    # ------------------------------------------------------------------ dice

    def _roll(self, roller: Roller, rolls: list[BattleRoll], what: str, count: int, sides: int) -> list[int]:
        """Roll on the committed dice service (P-DICE-2); the roll goes into the event with its proof."""
        return bb.roll(self._game(), roller, rolls, what, count, sides)

    # ------------------------------------------------------------------ declaring (P.1.3, P-AMB-1, walls)

    def declare_battle(
        self,
        battle_id: str,
        hex_id: str,
        by: str,
        enemies: list[str],
        allies: list[str] | None = None,
        *,
        now: datetime,
        actor: str,
    ) -> None:
        """Declare a battle where opposed armies stand in the same hex (P-AMB-1, [003:561])."""
        steps.declare_battle(self._game(), battle_id, hex_id, by, enemies, allies, now, actor)

    def _armies_at(self, h: str) -> list[dict[str, Any]]:
        return bb.armies_in(self.state, h)

    def set_battle_terrain(self, battle_id: str, terrain: str, effects: str, default: str) -> None:
        """GM: the terrain and its effects ([003:561]), and the default for commands not given by a deadline."""
        steps.set_battle_terrain(self._game(), battle_id, terrain, effects, default)

    # ------------------------------------------------------------------ windows

    def _open_step(
        self, b: dict[str, Any], step: str, eligible: list[str], now: datetime, turn: dict[str, Any] | None = None
    ) -> None:
        steps.open_step(self._game(), b, step, eligible, now, turn)

    def _after_act(self, b: dict[str, Any], now: datetime, roller: Roller) -> None:
        """Everyone this step waited for has acted: the battle runs on (closing the step's window early)."""
        if not self.battle_pending(b):
            self._run_on(b, now, roller)

    def battle_window_closed(self, window_id: str, now: datetime, roller: Roller) -> None:
        """A battle window's deadline passed (workers) or the GM closed it: apply the GM's default for whoever
        has not acted, recorded as events, and run the battle on."""
        b = _battle_of_window(self.state, window_id)
        # The Commands step is one window: at its deadline every army not commanded yet takes the default, turn by
        # turn, in the order the turns would have come.
        while b is not None and b["step"] != "ended" and b["window"] == window_id:
            for p in self.battle_pending(b):
                self._default_for(b, p, now, roller)
            self._run_on(b, now, roller)

    def _default_for(self, b: dict[str, Any], p: str, now: datetime, roller: Roller) -> None:
        step = b["step"]
        if step == "setup":
            setup.default_setup(self._game(), b, p)
        elif step == "commands":
            self._default_command(b, p, roller)
        else:
            steps.acted(self._game(), b, p, step, True, SYSTEM)

    # ------------------------------------------------------------------ setup (P.1.3, P-BAT-14)

    def submit_battle_setup(
        self,
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
        actor: str,
    ) -> None:
        """A power's part of its side's setup: goals (at most two for the side, [003:561]), its armies in order,
        standing orders, secret assets (to the GM only), a champion opting in, reinforcements (Delayed X)."""
        setup.submit_battle_setup(
            self._game(),
            battle_id,
            power_id,
            goals=goals,
            armies=armies,
            standing=standing,
            assets=assets,
            champion=champion,
            reinforcements=reinforcements,
            now=now,
            roller=roller,
        )

    # ------------------------------------------------------------------ the machine

    def _run_on(self, b: dict[str, Any], now: datetime, roller: Roller) -> None:
        """Resolve the step whose decisions are all in, then begin steps until one waits for someone."""
        while b["step"] != "ended" and not self.battle_pending(b):
            if b["step"] == "commands" and self._next_turn(b, now, first=False):
                continue  # the next turn, in the same window
            w = self.state.windows.get(b["window"])
            if w is not None and not w.closed:
                self._window_closed(
                    window_id=w.id,
                    reason="everyone acted",
                    closed_at=_iso(now),
                    actor=SYSTEM,
                    audience=[vis.PUBLIC],
                )
            step = b["step"]
            if step == "setup":
                self._start_battle(b, roller)
                self._begin_round(b, now, roller)
            elif step == "deployment":
                self._open_step(b, "spellcasting", _casters(self.state, b), now)
            elif step == "spellcasting":
                self._next_turn(b, now, first=True)
            elif step == "commands":
                self._score_goals(b, now)
            elif step == "goals":
                self._after_goals(b, now, roller)
            elif step == "surrender":
                self._after_surrender(b, now, roller)
            elif step == "cleanup":
                self._end_check(b, now, roller)

    def _start_battle(self, b: dict[str, Any], roller: Roller) -> None:
        """The armies listed take the field; the power with fewer deployed armies seizes the initiative
        ([003:578]); starting momentum (P-BAT-7)."""
        s = self.state
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
            far = _awesome_power_distance(self.state, army, b["hex"])
            if far:  # P-BAT-11 the Celestial's Awesome Power: wounds at the start, no rout check
                entered = br.awesome_power_wounds(entered, far)[0]
            d = bb.diff(army, entered)
            if d:
                changes[aid] = d
        self._battle_started(
            battle_id=b["id"],
            deployed=sorted(listed),
            initiative=initiative,
            changes=changes,
            actor=SYSTEM,
            audience=bb.audience(b),
        )
        self._deploy(
            b, SYSTEM, [a for s_ in ("A", "B") for a in b["sides"][s_]["order"] if a in listed], roller, at_start=True
        )

    @event("BattleStarted")
    def _battle_started(
        self,
        battle_id: str,
        deployed: list[str],
        initiative: str,
        changes: dict[str, dict[str, Any]],
        actor: str,
        audience: list[str],
    ) -> None:
        b = bb.battles_of(self.state)[battle_id]
        # The armies as they enter (P-BAT-13 counts losses from here): folded from the state, never carried in an
        # event, since an army's whole record (its Experience) is its controller's (P.4).
        armies = self.state.armies.armies
        before = {aid: deepcopy(armies[aid]) for aid in b["armies"] if aid in armies}
        for aid in deployed:
            b["armies"][aid]["where"] = "deployed"
        b["initiative"] = initiative
        b["before"] = deepcopy(before)
        bb.apply_changes(self.state, changes)

    def _begin_round(self, b: dict[str, Any], now: datetime, roller: Roller) -> None:
        """Deployment: delayed reinforcements whose Delayed reached 0 arrive (P-BAT-14); deploy triggers roll
        (P-BAT-11); then the powers with armies in reserve may deploy them."""
        r = b["round"] + 1
        arriving = [
            aid
            for aid, e in sorted(b["armies"].items())
            if e["where"] == "delayed" and br.arrives(self.state.armies.armies[aid])
        ]
        changes = {}
        for aid in self._fighting(b):
            army = self.state.armies.armies[aid]
            flying = br.round_statuses(army, r)
            d = bb.diff(army, br.add_statuses(army, flying)) if flying else {}
            if d:
                changes[aid] = d
        self._battle_round_began(battle_id=b["id"], round=r, changes=changes, actor=SYSTEM, audience=bb.audience(b))
        if arriving:
            self._deploy(b, SYSTEM, arriving, roller)
        self._open_step(b, "deployment", bb.reserve_powers(self.state, b), now)

    @event("BattleRoundBegan")
    def _battle_round_began(
        self, battle_id: str, round: int, changes: dict[str, dict[str, Any]], actor: str, audience: list[str]
    ) -> None:
        b = bb.battles_of(self.state)[battle_id]
        bb.apply_changes(self.state, changes)
        b.update({"round": round, "presence": {}, "attacked": {}, "exhausted": []})
        armies = self.state.armies.armies
        b["round_start"] = {aid: bb.marks(armies[aid]) for aid in sorted(b["armies"]) if aid in armies}

    def _deploy(
        self, b: dict[str, Any], who: str, army_ids: list[str], roller: Roller, *, at_start: bool = False
    ) -> None:
        """Armies take the field; their deployment triggers roll (P-BAT-11): a Demon's or Devil's opposed mortal
        armies, a Repulsive army's mortal allies. At the start all listed armies deploy at once."""
        s = self.state
        joined = {aid: {"side": bb.side_of(b, who), "power": who} for aid in army_ids if aid not in b["armies"]}
        rolls: list[BattleRoll] = []
        changes: dict[str, dict[str, Any]] = {}
        on_field = [x for x in self._fighting(b) if x not in army_ids] + (list(army_ids) if at_start else [])
        sides = {**{a: e["side"] for a, e in b["armies"].items()}, **{a: j["side"] for a, j in joined.items()}}

        def now_of(x: str) -> dict[str, Any]:
            return {**s.armies.armies[x], **changes.get(x, {}), "side": sides[x]}  # side: opposed or friendly

        for aid in army_ids:
            army = now_of(aid)
            others = [now_of(x) for x in on_field if sides[x] != sides[aid]]
            for target_id, dice, threshold in br.deployment_checks(army, others):
                target = now_of(target_id)
                faces = self._roll(
                    roller, rolls, f"deployment morale of {target_id}", dice, br.die_size(target, "morale")
                )
                ok = br.count_successes(faces, target["morale"]["bonus"], threshold)
                routs = br.deployment_routs(dice, ok)
                if routs:
                    changes.setdefault(target_id, {})["units"] = br.rout(target, routs)[0]["units"]
            allies = [now_of(x) for x in on_field if sides[x] == sides[aid] and x != aid]
            for target_id, dice, threshold, due in br.repulsive_checks(army, allies):
                target = now_of(target_id)
                faces = self._roll(
                    roller, rolls, f"repulsion morale of {target_id}", dice, br.die_size(target, "morale")
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
        self._battle_deployed(
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

    @event("BattleDeployed")
    def _battle_deployed(
        self,
        battle_id: str,
        round: int,
        by: str,
        armies: list[str],
        joined: dict[str, Any],
        rolls: list[BattleRoll],
        changes: dict[str, dict[str, Any]],
        actor: str,
        audience: list[str],
    ) -> None:
        b = bb.battles_of(self.state)[battle_id]
        for aid, j in joined.items():
            b["armies"][aid] = {"side": j["side"], "power": j["power"], "where": "reserve", "order": None}
            b["sides"][j["side"]]["order"].append(aid)
            b["before"][aid] = deepcopy(self.state.armies.armies[aid])
        for aid in armies:
            b["armies"][aid]["where"] = "deployed"
            army = self.state.armies.armies[aid]
            b.setdefault("round_start", {}).setdefault(aid, bb.marks(army))
            army["statuses"].pop("Delayed", None)
            if army["hex"] != b["hex"]:  # a reinforcement has marched to the battle: it goes home at Cleanup
                army["hex"], army["mustered"] = b["hex"], b["hex"] != army["garrison"]
        bb.apply_changes(self.state, changes)
        bb.advance_rolls(self.state, rolls)

    def deploy_armies(
        self, battle_id: str, power_id: str, army_ids: list[str], *, now: datetime, roller: Roller, actor: str
    ) -> None:
        """Deployment ([003:575]): deploy armies of one's reserve (none: pass)."""
        b = self.battle(battle_id)
        bb.check_turn(self.state, b, power_id, "deployment", now)
        reserve = bb.reserve(self.state, b, power_id)
        for aid in army_ids:
            if aid not in reserve:
                raise RuleViolation(
                    f"{aid} is not one of your armies in {b['hex']} outside the battle", rule="P.1.3", field="armies"
                )
        if army_ids:
            self._deploy(b, power_id, list(dict.fromkeys(army_ids)), roller)
        steps.acted(self._game(), b, power_id, "deployment", False, actor)
        self._after_act(b, now, roller)

    # ------------------------------------------------------------------ spellcasting ([003:576])

    def cast_battle_spell(
        self,
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
        b = self.battle(battle_id)
        bb.check_turn(self.state, b, power_id, "spellcasting", now)
        if spell_id is not None:
            sp = spell_def(self.state, spell_id)
            if sp is None or spell_id not in _magic_of(self.state, power_id).get("known", []):
                raise NotFound(f"the power knows no spell {spell_id!r}", rule="P-ASSET-8", field="spell_id")
            if sp.speed != "fast":
                raise RuleViolation("in the spellcasting step a power casts a fast spell", rule="P-ACT-3")
            if target is not None and target not in b["armies"]:
                raise NotFound(f"no army {target!r} in this battle", field="target")
            spent = _battle_spell_payment(self.state, power_id, sp, pay)
            self._mana_spent(
                power_id=power_id,
                action_id=f"battle-{battle_id}-r{b['round']}",
                cost=current_cost(self.state, sp, power_id).text,
                paid=spent,
                pooled={},
                from_wallet=spent,
                actor=actor,
                audience=vis.powers([power_id]),  # the wallet is its owner's (P.4)
            )
            self._battle_spell_cast(
                battle_id=battle_id,
                round=b["round"],
                power_id=power_id,
                spell_id=spell_id,
                target=target,
                actor=actor,
                audience=bb.audience(b),
            )
            self._spell_momentum(b, power_id, sp)
        steps.acted(self._game(), b, power_id, "spellcasting", False, actor)
        self._after_act(b, now, roller)

    def _spell_momentum(self, b: dict[str, Any], power_id: str, sp: Any) -> None:
        """P-BAT-7 spell triggers: Ashborn lose all momentum when a Water spell is cast and gain one for a Fire
        spell; Triumph Elves gain one when an ally casts a spell whose rank is the round number. Decision: a spell
        is of each element its cost names (P-MAG-2); the caster's own side are its allies. Recorded as a ruling of
        the battle (``BattleRuled``) by the system."""
        cost = current_cost(self.state, sp, power_id)
        rank = mr.rank(sp.speed, cost)
        side = bb.side_of(b, power_id)
        changes: dict[str, dict[str, Any]] = {}
        for aid in self._fighting(b):
            army = self.state.armies.armies[aid]
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
            self._battle_ruled(
                battle_id=b["id"],
                round=b["round"],
                changes=changes,
                reason=f"momentum: {sp.name} was cast (P-BAT-7)",
                actor=SYSTEM,
                audience=bb.audience(b),
            )

    @event("BattleSpellCast")
    def _battle_spell_cast(
        self,
        battle_id: str,
        round: int,
        power_id: str,
        spell_id: str,
        target: str | None,
        actor: str,
        audience: list[str],
    ) -> None:
        pass  # the report's record; the GM rules its effects

    # ------------------------------------------------------------------ commands (P-BAT-2, P-BAT-3)

    def _commandable(self, b: dict[str, Any], side: str, power_id: str | None = None) -> list[str]:
        return [
            aid
            for aid in self._fighting(b, side)
            if aid not in b["exhausted"] and (power_id is None or b["armies"][aid]["power"] == power_id)
        ]

    def _next_turn(self, b: dict[str, Any], now: datetime, *, first: bool) -> bool:
        return steps.next_turn(self._game(), b, now, first=first)

    def give_command(
        self,
        battle_id: str,
        power_id: str,
        army_id: str,
        command: str,
        target: str | None = None,
        goal: str | None = None,
        *,
        now: datetime,
        roller: Roller,
        actor: str,
        special: str | None = None,
        options: list[str] | None = None,
        damage: str | None = None,
        allocation: list[int] | None = None,
        restore: int = 0,
        pass_to: str | None = None,
    ) -> dict[str, Any]:
        """Commands ([003:577]): the power whose turn it is commands one of its armies, which is exhausted. A special
        command (``special``: its name) is once per army per battle ([003:590], P-BAT-3); its effect is the GM's.

        The commanding player's choices where the rules give one: attack ``options`` (P-BAT-2: ``needler``,
        ``slayer``, ``axes`` and ``hammers``, the last two spending a momentum each), the ``damage`` type among
        those the army's keywords allow this round (P-BAT-5, ``battle_rules.damage_types``; Hammers' Crush spends
        a momentum, a Stampeding Charge's does not), the wounds' ``allocation`` when the army has Bloodlust
        (P-BAT-6), the momentum a Shieldbearers army spends to ``restore`` armor and a Supports army passing one
        momentum ``pass_to`` an ally on the field (P-BAT-3, P-BAT-7), both before the command."""
        b = self.battle(battle_id)
        bb.check_turn(self.state, b, power_id, "commands", now)
        side = b["turn"]["side"]
        if army_id not in self._commandable(b, side, power_id):
            raise RuleViolation(
                f"{army_id} is not one of your armies on the field that may still take a command",
                rule="P-BAT-3",
                field="army_id",
            )
        order = setup.checked_order(b, side, {"command": command, "target": target, "goal": goal, "special": special})
        if command == "special":
            br.check_special(order["special"], b.get("specials", {}).get(army_id, []))
        order["choices"] = _check_choices(
            self.state, b, army_id, command, options, damage, allocation, restore, pass_to
        )
        out = self._execute(b, power_id, army_id, order, roller, by_default=False, actor=actor)
        self._after_act(b, now, roller)
        return out

    def _default_command(self, b: dict[str, Any], p: str, roller: Roller) -> None:
        side = b["turn"]["side"]
        army_id = self._commandable(b, side, p)[0]
        order = {"command": "hold", "target": None, "goal": "advance"}
        standing = b["armies"][army_id].get("order")
        if b["default"] == "standing" and standing:
            order = dict(standing)
        try:
            self._execute(b, p, army_id, order, roller, by_default=True, actor=SYSTEM)
        except RuleViolation:  # a standing order that no longer applies (its target gone, no momentum)
            self._execute(b, p, army_id, {"command": "hold", "target": None, "goal": "advance"}, roller, True, SYSTEM)

    def _execute(
        self,
        b: dict[str, Any],
        p: str,
        army_id: str,
        order: dict[str, Any],
        roller: Roller,
        by_default: bool,
        actor: str,
    ) -> dict[str, Any]:
        s = self.state
        side = b["armies"][army_id]["side"]
        cmd = order["command"]
        rolls: list[BattleRoll] = []
        hit: dict[str, Any] | None = None
        routs = 0
        presence = 0
        target_id = order.get("target")
        goal = order.get("goal") or "advance"
        choices = order.get("choices") or {}
        opts = frozenset(choices.get("options", ()))
        # The other side's armies on the field (the state does not change until the command's event).
        foes = self._fighting(b, bb.other(side)) if cmd in ("slay", "charge") else []
        _check_order_targets(b, cmd, target_id, foes, goal)
        # the rules return new dicts, never changing the state's
        army, changes = _ready_army(s.armies.armies, army_id, cmd, choices, opts)
        if cmd in ("slay", "charge"):
            assert target_id is not None
            army, hit, routs = self._strike(
                b, side, army_id, army, target_id, foes, cmd, choices, roller, rolls, changes
            )
        if cmd in ("hold", "charge"):
            threshold = b["goals"][goal][side]
            faces = self._roll(
                roller, rolls, f"presence of {army_id}", br.check_dice(army, "presence"), br.die_size(army, "presence")
            )
            presence = br.presence(army, faces, threshold, command=cmd, wall_goal=goal == "walls")
            army = br.momentum_trigger(army, "presence", round_no=b["round"])  # Air elementals (P-BAT-7)
        if cmd == "special":
            goal = order["special"]  # recorded as the command's goal: its name, for the report and the GM
        own = bb.diff(s.armies.armies[army_id], army)
        if own:
            changes[army_id] = own
        self._battle_command_given(
            battle_id=b["id"],
            round=b["round"],
            power_id=p,
            army_id=army_id,
            command=cmd,
            target=target_id if cmd in ("slay", "charge") else None,
            goal=goal if cmd in ("hold", "charge", "special") else None,
            rolls=rolls,
            hit=hit,
            routs=routs,
            presence=presence,
            changes=changes,
            by_default=by_default,
            actor=actor,
            audience=bb.audience(b),
        )
        return {"command": cmd, "hit": hit, "routs": routs, "presence": presence, "rolls": [r["faces"] for r in rolls]}

    def _strike(
        self,
        b: dict[str, Any],
        side: str,
        army_id: str,
        army: dict[str, Any],
        target_id: str,
        foes: list[str],
        cmd: str,
        choices: dict[str, Any],
        roller: Roller,
        rolls: list[BattleRoll],
        changes: dict[str, dict[str, Any]],
    ) -> tuple[dict[str, Any], dict[str, Any], int]:
        """A Slay's or a Charge's attack on its target (P-BAT-2 to P-BAT-7): the attack's and any morale roll go
        into ``rolls``, the target's and its allies' changes into ``changes``. Returns the attacker as it stands
        after, the hit as the event records it, and the units routed."""
        s = self.state
        opts, routs = frozenset(choices.get("options", ())), 0
        target = s.armies.armies[target_id]
        enemies = [s.armies.armies[x] for x in foes]
        br.check_target(army, target, enemies)
        damage = choices.get("damage")
        dice = br.check_dice(army, "attack", damage=damage)
        faces = self._roll(roller, rolls, f"attack of {army_id}", dice, br.die_size(army, "attack"))
        earlier = b["attacked"].get(target_id, 0)
        kind = br.attack_kind(army)
        reactions = br.defender_reactions(target, kind)
        target, h = br.attack(
            army,
            target,
            faces,
            command=cmd,
            escalation=b["sides"][side]["escalation"],
            earlier_attacks=earlier,
            terrain=b["terrain"] or None,
            options=opts,
            damage=damage,
            allocation=choices.get("allocation"),
            kind=kind,
            reactions=reactions,
        )
        hit = {f.name: getattr(h, f.name) for f in dataclasses.fields(h)}  # flat: asdict's recursion costs
        hit.update({"options": sorted(opts), "kind": kind, "reactions": sorted(reactions)})
        r_no = b["round"]
        army = br.momentum_trigger(br.attacker_momentum(army, h), "attacks", round_no=r_no)  # P-BAT-7
        target = br.momentum_trigger(target, "attacked", round_no=r_no, attacker=army)
        if h.routs_due > 0 and ar.size(target) > 0:
            mfaces = self._roll(
                roller, rolls, f"morale of {target_id}", br.morale_dice(target), br.die_size(target, "morale")
            )
            wall = b["goals"]["walls"].get("wallkeepers", 0) if b["walls"] and side == "A" else 0
            target, routs = br.morale(target, mfaces, army["rank"], h.routs_due, wall_rank=wall)
            if routs:  # Dark elementals: an enemy routs
                army = br.momentum_trigger(army, "enemy_routs", round_no=r_no)
        changes[target_id] = bb.diff(s.armies.armies[target_id], br.cap_momentum(target))
        for ally_id in foes if h.armor_broken else []:  # the target's allies: Mountain Dwarves (P-BAT-7)
            if ally_id != target_id:
                ally = s.armies.armies[ally_id]
                gained = bb.diff(ally, br.ally_momentum(ally, h))
                if gained:
                    changes[ally_id] = gained
        return army, hit, routs

    @event("BattleCommandGiven")
    def _battle_command_given(
        self,
        battle_id: str,
        round: int,
        power_id: str,
        army_id: str,
        command: str,
        target: str | None,
        goal: str | None,
        rolls: list[BattleRoll],
        hit: dict[str, Any] | None,
        routs: int,
        presence: int,
        changes: dict[str, dict[str, Any]],
        by_default: bool,
        actor: str,
        audience: list[str],
    ) -> None:
        b = bb.battles_of(self.state)[battle_id]
        s = self.state
        b["exhausted"].append(army_id)
        b.setdefault("last_power", {})[b["armies"][army_id]["side"]] = power_id
        if power_id not in b["acted"]:
            b["acted"].append(power_id)
        if target is not None:
            b["attacked"][target] = b["attacked"].get(target, 0) + 1
            if hit and hit.get("slain"):
                b.setdefault("kills", []).append([army_id, target, hit["slain"]])
        if command == "special" and goal is not None:
            b.setdefault("specials", {}).setdefault(army_id, []).append(goal)
        elif goal is not None and presence:
            mine = b["presence"].setdefault(army_id, {})
            mine[goal] = mine.get(goal, 0) + presence
        bb.apply_changes(s, changes)
        bb.advance_rolls(s, rolls)
        for aid in changes:
            army = s.armies.armies.get(aid)
            if army is not None and ar.size(army) == 0:
                b["presence"].pop(aid, None)  # routed or destroyed: its presence dissipates (P-BAT-8)

    # ------------------------------------------------------------------ goals and surrender (P-BAT-8, P-BAT-9)

    def _score_goals(self, b: dict[str, Any], now: datetime) -> None:
        successes: dict[str, dict[str, int]] = {
            g: {"A": 0, "B": 0} for g, goal in b["goals"].items() if br.goal_open(goal, b["round"])
        }
        for aid, per_goal in b["presence"].items():
            side = b["armies"][aid]["side"]
            if aid not in self._fighting(b, side):
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
        for aid in self._fighting(b):  # Drakes gain when their side wins a goal; Water elementals when it loses one
            side = b["armies"][aid]["side"]
            army = self.state.armies.armies[aid]
            after = army
            if any(w == side for w in winners.values()):
                after = br.momentum_trigger(after, "goal_won", round_no=b["round"])
            if any(w == bb.other(side) for w in winners.values()):
                after = br.momentum_trigger(after, "goal_lost", round_no=b["round"])
            d = bb.diff(army, after)
            if d:
                changes[aid] = d
        self._battle_goals_scored(
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
        self._open_step(b, "goals", offerers, now)

    @event("BattleGoalsScored")
    def _battle_goals_scored(
        self,
        battle_id: str,
        round: int,
        successes: dict[str, Any],
        changes: dict[str, dict[str, Any]],
        winners: dict[str, Any],
        escalation: dict[str, Any],
        initiative: str,
        walls: bool,
        actor: str,
        audience: list[str],
    ) -> None:
        b = bb.battles_of(self.state)[battle_id]
        bb.apply_changes(self.state, changes)
        for side, n in escalation.items():
            b["sides"][side]["escalation"] = n
        b.update({"initiative": initiative, "walls": walls, "offers": []})
        changed, rewards = br.goal_rewards(b["goals"], winners, round)  # P-BAT-8 [003:641], [003:647]
        for g, change in changed.items():
            b["goals"][g].update(change)
        b.setdefault("scores", []).append(
            {"round": round, "successes": deepcopy(successes), "winners": dict(winners), "rewards": rewards}
        )

    def offer_terms(
        self, battle_id: str, power_id: str, terms: str | None, *, now: datetime, roller: Roller, actor: str
    ) -> None:
        """Goals: spend 1 escalation to offer terms of surrender ([003:580], P-BAT-9); no terms: pass."""
        b = self.battle(battle_id)
        bb.check_turn(self.state, b, power_id, "goals", now)
        side = bb.side_of(b, power_id)
        if terms is not None:
            limits.check_text(terms, "terms", limits.REASON, required=True, what="the terms")
            if any(o["side"] == side for o in b["offers"]):
                raise RuleViolation("your side has already offered terms this round", rule="P-BAT-9", field="terms")
            left = br.offer_surrender(b["sides"][side]["escalation"])
            self._battle_terms_offered(
                battle_id=battle_id,
                round=b["round"],
                power_id=power_id,
                side=side,
                terms=terms.strip(),
                escalation=left,
                actor=actor,
                audience=bb.audience(b),
            )
        steps.acted(self._game(), b, power_id, "goals", False, actor)
        self._after_act(b, now, roller)

    @event("BattleTermsOffered")
    def _battle_terms_offered(
        self,
        battle_id: str,
        round: int,
        power_id: str,
        side: str,
        terms: str,
        escalation: int,
        actor: str,
        audience: list[str],
    ) -> None:
        b = bb.battles_of(self.state)[battle_id]
        b["sides"][side]["escalation"] = escalation
        b["offers"].append({"side": side, "by": power_id, "terms": terms, "answer": None})

    def _after_goals(self, b: dict[str, Any], now: datetime, roller: Roller) -> None:
        if b["offers"]:
            to = sorted({p for o in b["offers"] for p in b["sides"][bb.other(o["side"])]["powers"]})
            self._open_step(b, "surrender", to, now)
        else:
            self._begin_cleanup(b, now, roller)

    def answer_terms(
        self, battle_id: str, power_id: str, accept: bool, *, now: datetime, roller: Roller, actor: str
    ) -> None:
        """The recipient side accepts or declines the terms offered; silence declines (P-BAT-9)."""
        b = self.battle(battle_id)
        bb.check_turn(self.state, b, power_id, "surrender", now)
        side = bb.side_of(b, power_id)
        self._battle_terms_answered(
            battle_id=battle_id,
            round=b["round"],
            power_id=power_id,
            side=side,
            accept=bool(accept),
            actor=actor,
            audience=bb.audience(b),
        )
        self._after_act(b, now, roller)

    @event("BattleTermsAnswered")
    def _battle_terms_answered(
        self, battle_id: str, round: int, power_id: str, side: str, accept: bool, actor: str, audience: list[str]
    ) -> None:
        b = bb.battles_of(self.state)[battle_id]
        for o in b["offers"]:
            if o["side"] != side and o["answer"] is not True:
                o["answer"] = accept
        if power_id not in b["acted"]:
            b["acted"].append(power_id)

    def _after_surrender(self, b: dict[str, Any], now: datetime, roller: Roller) -> None:
        accepted = [o for o in b["offers"] if o["answer"] is True]
        if accepted:
            loser = bb.other(accepted[0]["side"])
            self._end_battle(b, f"side {loser} accepted terms", bb.other(loser), now)
        else:
            self._begin_cleanup(b, now, roller)

    # ------------------------------------------------------------------ cleanup (P-BAT-12, P-BAT-14)

    def _begin_cleanup(self, b: dict[str, Any], now: datetime, roller: Roller) -> None:
        s = self.state
        rolls: list[BattleRoll] = []
        changes: dict[str, dict[str, Any]] = {}
        lines: list[str] = []
        for aid in self._fighting(b):
            army = s.armies.armies[aid]
            frightened = None
            if br.cleanup_dice(army):
                frightened = self._roll(
                    roller, rolls, f"frightened morale of {aid}", br.cleanup_dice(army), br.die_size(army, "morale")
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
        self._battle_cleaned_up(
            battle_id=b["id"],
            round=b["round"],
            rolls=rolls,
            changes=changes,
            lines=lines,
            actor=SYSTEM,
            audience=bb.audience(b),
        )
        self._open_step(b, "cleanup", sorted({b["armies"][a]["power"] for a in self._fighting(b)}), now)

    @event("BattleCleanedUp")
    def _battle_cleaned_up(
        self,
        battle_id: str,
        round: int,
        rolls: list[BattleRoll],
        changes: dict[str, dict[str, Any]],
        lines: list[str],
        actor: str,
        audience: list[str],
    ) -> None:
        bb.apply_changes(self.state, changes)
        bb.advance_rolls(self.state, rolls)

    def retreat_or_rout(
        self,
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
        b = self.battle(battle_id)
        bb.check_turn(self.state, b, power_id, "cleanup", now)
        mine = [a for a in self._fighting(b) if b["armies"][a]["power"] == power_id]
        if not isinstance(retreat, list) or not isinstance(routs, dict):
            raise RuleViolation("retreat is a list of armies, routs {army: [unit index]}", rule="P.1.3")
        changes: dict[str, dict[str, Any]] = {}
        for aid in [*retreat, *routs]:
            if aid not in mine:
                raise RuleViolation(f"{aid} is not one of your armies on the field", rule="P.1.3", field="army_id")
        for aid, idx in routs.items():
            units = deepcopy(self.state.armies.armies[aid]["units"])
            if not isinstance(idx, list) or any(
                not isinstance(i, int) or not 0 <= i < len(units) or units[i]["routed"] for i in idx
            ):
                raise RuleViolation("rout active units by their index", rule="P.1.3", field="routs")
            for i in idx:
                units[i]["routed"] = True
            changes[aid] = {"units": units}
        self._battle_withdrawn(
            battle_id=battle_id,
            round=b["round"],
            power_id=power_id,
            retreat=list(retreat),
            changes=changes,
            actor=actor,
            audience=bb.audience(b),
        )
        self._after_act(b, now, roller)

    @event("BattleWithdrawn")
    def _battle_withdrawn(
        self,
        battle_id: str,
        round: int,
        power_id: str,
        retreat: list[str],
        changes: dict[str, dict[str, Any]],
        actor: str,
        audience: list[str],
    ) -> None:
        b = bb.battles_of(self.state)[battle_id]
        for aid in retreat:
            b["armies"][aid]["where"] = "retreated"
            b["presence"].pop(aid, None)
        bb.apply_changes(self.state, changes)
        if power_id not in b["acted"]:
            b["acted"].append(power_id)

    def _end_check(self, b: dict[str, Any], now: datetime, roller: Roller) -> None:
        """[003:651] A battle ends when only one side has active armies remaining or at the end of 7 rounds."""
        alive = [
            side
            for side in ("A", "B")
            if self._fighting(b, side)
            or any(e["where"] in ("delayed", "reserve") and e["side"] == side for e in b["armies"].values())
        ]
        if len(alive) <= 1:
            reason = "only one side has active armies" if alive else "no side stands"
            self._end_battle(b, reason, alive[0] if alive else None, now)
        elif b["round"] >= br.MAX_ROUNDS:
            self._end_battle(b, f"{br.MAX_ROUNDS} rounds fought", None, now)
        else:
            self._begin_round(b, now, roller)

    # ------------------------------------------------------------------ after the battle (P-BAT-13)

    def _end_battle(self, b: dict[str, Any], reason: str, winner: str | None, now: datetime) -> None:
        s = self.state
        before = b["before"]
        after = {aid: deepcopy(s.armies.armies[aid]) for aid in b["armies"] if aid in s.armies.armies}
        fear_users = {p for p in self._powers_of(b) if _control_of(self.state, p) == "fear"}
        scoundrels = {p for p in self._powers_of(b) if "Scoundrels" in self._perks(p)}
        sides = {aid: e["side"] for aid, e in b["armies"].items()}
        # Intimidation is a conspiracy's generation mechanism, once a season ([003:1120], P-INFL-5): picked and unused
        picked, used = s.world.mechanisms, s.world.generated
        intimidators = {
            p
            for p in self._powers_of(b)
            if "intimidation" in picked.get(p, []) and "intimidation" not in used.get(p, [])
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
        self._battle_ended(
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
            self._window_closed(
                window_id=w.id, reason="battle ended", closed_at=_iso(now), actor=SYSTEM, audience=[vis.PUBLIC]
            )
        for aid in fled:
            self.record_dispersal(aid)
        if math.experience_rank >= 1:
            for aid in math.survivors:
                army = s.armies.armies.get(aid)
                if army is not None and army["controller"]:
                    self.grant_experience(aid, min(math.experience_rank, 10))
        for aid in sorted(b["armies"]):
            army = s.armies.armies.get(aid)
            if army is not None and b["armies"][aid]["where"] != "delayed":
                self._fee_due(army)
        for p, n in sorted(math.fear.items()):
            if n:
                self.earn(p, "fear", min(n, 1000), f"battle {b['id']}")
        for p, n in sorted(math.coin.items()):
            if n:
                self.earn(p, "coin", min(n, 1000), f"battle {b['id']} (Scoundrels)")
        for p, n in sorted(math.influence.items()):  # Intimidation: the greatest level (P-AMB-41: rank) opposed
            if n:
                self.generate_influence(p, "intimidation", b["hex"], [n])

    @event("BattleEnded")
    def _battle_ended(
        self,
        battle_id: str,
        round: int,
        reason: str,
        winner: str | None,
        aftermath: dict[str, Any],
        changes: dict[str, dict[str, Any]],
        actor: str,
        audience: list[str],
    ) -> None:
        s = self.state
        b = bb.battles_of(self.state)[battle_id]
        bb.apply_changes(s, changes)
        b.update({"step": "ended", "result": {"reason": reason, "winner": winner, **deepcopy(aftermath)}})
        for aid in aftermath["destroyed"]:
            army = s.armies.armies.pop(aid, None)
            if army is not None and aid in s.assets:
                s.assets[aid].holders = []
        for aid in b["armies"]:
            army = s.armies.armies.get(aid)
            if army is not None:
                army["statuses"].pop("Delayed", None)

    # ------------------------------------------------------------------ GM rulings inside a battle

    def set_battle_status(self, battle_id: str, army_id: str, status: str, stacks: int, reason: str) -> None:
        """GM: a battle status on an army (a spell's effect, the terrain; P-BAT-12): stacks 0 removes it."""
        b = self.battle(battle_id)
        if army_id not in b["armies"]:
            raise NotFound(f"no army {army_id!r} in this battle", field="army_id")
        limits.check_text(status, "status", limits.IDENTIFIER, required=True, what="a status")
        limits.check_text(reason, "reason", limits.REASON, what="the reason")
        n = limits.whole_number(stacks, "stacks", 0, 20, "P-BAT-12")
        statuses = dict(self.state.armies.armies[army_id]["statuses"])
        if n:
            statuses[status] = n
        else:
            statuses.pop(status, None)
        self._battle_ruled(
            battle_id=battle_id,
            round=b["round"],
            changes={army_id: {"statuses": statuses}},
            reason=reason.strip(),
            actor=GM,
            audience=bb.audience(b),
        )

    @event("BattleRuled")
    def _battle_ruled(
        self,
        battle_id: str,
        round: int,
        changes: dict[str, dict[str, Any]],
        reason: str,
        actor: str,
        audience: list[str],
    ) -> None:
        bb.apply_changes(self.state, changes)


# ---------------------------------------------------------------------- folding helpers


def _control_of(state: GameState, p: str) -> str | None:
    h = state.development.holdings.get(p)
    return h.control if h is not None else None


def _awesome_power_distance(state: GameState, army: dict[str, Any], h: str) -> int:
    """P-BAT-11 [003:1028] the Celestial's Awesome Power: "when fighting outside your capitol, you take wounds at
    the start of each battle equal to your range distance from your capitol". Decision: the Celestial is its
    power's loyal titanic army (a Celestial "is" that army, Loyal only to itself); its capitol is the power's
    conduit marked capitol (P-MAG-5), else the army's home hex."""
    p = army.get("controller")
    if not p or not army.get("loyal") or not army.get("titanic") or bb.power_of(state, p).subclass != "celestial":
        return 0
    capitols = [c["hex"] for _, c in sorted(_magic_of(state, p).get("conduits", {}).items()) if c["capitol"]]
    home = capitols[0] if capitols else army["garrison"]
    return hexmap.distance(home, h)


def _casters(state: GameState, b: dict[str, Any]) -> list[str]:
    """The powers that know a fast spell (the others have nothing to decide)."""
    out = []
    for p in bb.battle_powers(b):
        known = _magic_of(state, p).get("known", [])
        if any((sp := spell_def(state, k)) is not None and sp.speed == "fast" for k in known):
            out.append(p)
    return out


def _battle_spell_payment(state: GameState, power_id: str, sp: Any, pay: list[str] | None) -> dict[str, Any]:
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


def _check_choices(
    state: GameState,
    b: dict[str, Any],
    army_id: str,
    command: str,
    options: Any,
    damage: Any,
    allocation: Any,
    restore: Any,
    pass_to: Any,
) -> dict[str, Any]:
    """The commanding player's choices, checked before anything is recorded (P-BAT-2, -3, -5, -6, -7)."""
    army = state.armies.armies[army_id]
    attacks = command in ("slay", "charge")
    opts = list(dict.fromkeys(options or []))
    if not all(isinstance(o, str) for o in opts):
        raise RuleViolation("attack options are names", rule="P-BAT-2", field="options")
    if opts and not attacks:
        raise RuleViolation("attack options go with an attack (slay, charge)", rule="P-BAT-2", field="options")
    for o in opts:
        if o not in br.ATTACK_OPTIONS:
            raise RuleViolation(
                f"an attack option is one of {', '.join(br.ATTACK_OPTIONS)}", rule="P-BAT-2", field="options"
            )
        if not br.has(army, o):
            raise RuleViolation(f"{army['name']} is not {o.title()}", rule="P-BAT-2", field="options")
    if "needler" in opts and "slayer" in opts:
        raise RuleViolation("Slayer conflicts with Needler: choose one", rule="P-BAT-2", field="options")
    if damage is not None:
        allowed = br.damage_types(army, round_no=b["round"], command=command)
        if not attacks or damage not in allowed:
            raise RuleViolation(
                f"{army['name']} deals {', '.join(allowed) or 'untyped damage only'} in this attack",
                rule="P-BAT-5",
                field="damage",
            )
        if damage == "crush" and not (br.has(army, "stampeding") and command == "charge"):
            opts.append("hammers")  # Hammers: "Crush damage for a momentum" ([003:696])
    if allocation is not None:
        if br.allocator(army) != "attacker":
            raise RuleViolation(
                "the defender allocates wounds; an army with Bloodlust chooses ([003:721])",
                rule="P-BAT-6",
                field="allocation",
            )
        if not attacks or not isinstance(allocation, list) or not all(isinstance(i, int) for i in allocation):
            raise RuleViolation("an allocation lists unit indexes of the target", rule="P-BAT-6")
    n = limits.whole_number(restore, "restore", 0, 20, "P-BAT-3")
    if n and not br.has(army, "shieldbearers"):
        raise RuleViolation(f"{army['name']} is not Shieldbearers", rule="P-BAT-3", field="restore")
    side = b["armies"][army_id]["side"]
    if pass_to is not None:
        if not br.has(army, "supports"):
            raise RuleViolation(f"{army['name']} is not Supports", rule="P-BAT-7", field="pass_to")
        if pass_to == army_id or pass_to not in bb.fighting_in(state, b, side):
            raise RuleViolation("momentum passes to an ally on the field", rule="P-BAT-7", field="pass_to")
    spend = n + sum(1 for o in opts if o in ("axes", "hammers")) + (1 if command == "charge" else 0)
    spend += 1 if pass_to is not None else 0
    if spend > int(army.get("momentum", 0)):
        raise RuleViolation(
            f"{army['name']} has {army.get('momentum', 0)} momentum; these choices spend {spend}",
            rule="P-BAT-3",
            field="momentum",
        )
    return {
        "options": sorted(opts),
        "damage": "crush" if "hammers" in opts else damage,
        "allocation": list(allocation) if allocation is not None else None,
        "restore": n,
        "pass_to": pass_to,
    }


def _check_order_targets(b: dict[str, Any], cmd: str, target_id: str | None, foes: list[str], goal: str) -> None:
    """An attack names an enemy army on the field (P-BAT-2); a Hold or a Charge, a goal still in play (P-BAT-8)."""
    if cmd in ("slay", "charge"):
        if target_id is None or target_id not in foes:
            raise RuleViolation("attack an enemy army on the field: name the target", rule="P-BAT-2", field="target")
    if cmd in ("hold", "charge") and goal not in b["goals"]:
        raise RuleViolation(f"no goal {goal!r} in this battle", rule="P-BAT-8", field="goal")
    if cmd in ("hold", "charge") and not br.goal_open(b["goals"][goal], b["round"]):
        raise RuleViolation(
            f"{b['goals'][goal].get('name', goal)} is removed in round {b['round']}: a side won it away",
            rule="P-BAT-8",
            field="goal",
        )


def _ready_army(
    armies: Mapping[str, dict[str, Any]], army_id: str, cmd: str, choices: dict[str, Any], opts: frozenset[str]
) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """The commanded army before its roll: Shieldbearers restore armor ([003:700]), Supports pass a momentum
    ([003:702]), a Charge and Axes or Hammers spend one ([003:695], [003:696]), a Rest rests. Returns the army
    and the changes to another army (the one passed to)."""
    army = armies[army_id]
    changes: dict[str, dict[str, Any]] = {}
    if choices.get("restore"):  # Shieldbearers ([003:700])
        army = br.restore_armor(army, choices["restore"])
    if choices.get("pass_to"):  # Supports ([003:702])
        army, gained = br.pass_momentum(army, armies[choices["pass_to"]], 1)
        changes[choices["pass_to"]] = bb.diff(armies[choices["pass_to"]], gained)
    if cmd == "charge":
        army = br.spend_momentum(army, 1)
    for o in ("axes", "hammers"):  # each spends a momentum ([003:695], [003:696])
        if o in opts:
            army = br.spend_momentum(army, 1)
    if cmd == "rest":
        army = br.cap_momentum(br.rest(army))
    return army, changes


# ---------------------------------------------------------------------- commands


@dataclass(frozen=True)
class DeclareBattle(Command):
    """Declare a battle where opposed armies stand in one hex (P-AMB-1); the GM may declare for a power."""

    battle_id: str
    hex: str
    power_id: str
    enemies: list[str]
    allies: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SetBattleTerrain(Command):
    """GM: the terrain, its effects, and the default for commands not given by a deadline (hold, standing)."""

    battle_id: str
    terrain: str = ""
    effects: str = ""
    default: str = "hold"


@dataclass(frozen=True)
class SubmitBattleSetup(Command):
    """A power's setup: goals, ordered armies, standing orders, secret assets, champion, reinforcements."""

    battle_id: str
    power_id: str
    armies: list[str]
    goals: list[dict[str, Any]] = field(default_factory=list)
    standing: dict[str, dict[str, Any]] = field(default_factory=dict)
    assets: list[str] = field(default_factory=list)
    champion: bool = False
    reinforcements: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class DeployArmies(Command):
    """Deployment: deploy armies from reserve; an empty list passes."""

    battle_id: str
    power_id: str
    armies: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class CastBattleSpell(Command):
    """Spellcasting: one fast spell, or none (pass)."""

    battle_id: str
    power_id: str
    spell_id: str | None = None
    target: str | None = None
    pay: list[str] | None = None  # the mana paid (P-MAG-2); none: in kind, the generic part from the most plentiful


@dataclass(frozen=True)
class GiveCommand(Command):
    """Commands: command one army (slay, hold, charge, rest); it is exhausted."""

    battle_id: str
    power_id: str
    army_id: str
    command: str
    target: str | None = None
    goal: str | None = None
    special: str | None = None  # a special command's name (command "special"), once per battle
    options: list[str] = field(default_factory=list)  # needler, slayer, axes, hammers (P-BAT-2)
    damage: str | None = None  # a damage type the army's keywords allow this attack (P-BAT-5)
    allocation: list[int] | None = None  # Bloodlust: the target's unit indexes, one a wound (P-BAT-6)
    restore: int = 0  # Shieldbearers: momentum spent to restore twice as much armor (P-BAT-3)
    pass_to: str | None = None  # Supports: an ally on the field the army passes a momentum to (P-BAT-7)


@dataclass(frozen=True)
class OfferTerms(Command):
    """Goals: spend 1 escalation to offer terms of surrender; no terms passes."""

    battle_id: str
    power_id: str
    terms: str | None = None


@dataclass(frozen=True)
class AnswerTerms(Command):
    """Accept or decline terms of surrender."""

    battle_id: str
    power_id: str
    accept: bool


@dataclass(frozen=True)
class RetreatArmies(Command):
    """Cleanup: retreat armies, rout units (by index); nothing passes."""

    battle_id: str
    power_id: str
    retreat: list[str] = field(default_factory=list)
    routs: dict[str, list[int]] = field(default_factory=dict)


@dataclass(frozen=True)
class SetBattleStatus(Command):
    """GM: a battle status on an army (0 stacks removes it), e.g. a spell's effect."""

    battle_id: str
    army_id: str
    status: str
    stacks: int
    reason: str = ""


def _declare(game: Game, cmd: DeclareBattle, ctx: Context) -> dict[str, Any]:
    if ctx.principal == GM:
        game.power(cmd.power_id)  # the GM declares for any power (P-AMB-1: in some campaigns only the GM does)
    else:
        require_seat(game, ctx, cmd.power_id)
    game.declare_battle(
        cmd.battle_id,
        cmd.hex,
        cmd.power_id,
        list(cmd.enemies),
        list(cmd.allies),
        now=ctx.now,
        actor=GM if ctx.principal == GM else cmd.power_id,
    )
    return {"battle_id": cmd.battle_id, "window_id": game.battle(cmd.battle_id)["window"]}


def _seat(game: Game, ctx: Context, power_id: str) -> None:
    """A power acts for itself; the GM for adversaries (GM-10)."""
    require_seat(game, ctx, power_id)


def _terrain(game: Game, cmd: SetBattleTerrain, ctx: Context) -> None:
    require_gm(ctx)
    game.set_battle_terrain(cmd.battle_id, cmd.terrain, cmd.effects, cmd.default)


def _window_of(game: Game, battle_id: str) -> dict[str, Any]:
    b = game.battle(battle_id)
    return {"battle_id": battle_id, "step": b["step"], "round": b["round"], "window_id": b["window"]}


def _setup(game: Game, cmd: SubmitBattleSetup, ctx: Context) -> dict[str, Any]:
    _seat(game, ctx, cmd.power_id)
    game.submit_battle_setup(
        cmd.battle_id,
        cmd.power_id,
        goals=list(cmd.goals),
        armies=list(cmd.armies),
        standing=dict(cmd.standing),
        assets=list(cmd.assets),
        champion=cmd.champion,
        reinforcements=list(cmd.reinforcements),
        now=ctx.now,
        roller=ctx.roller(game),
        actor=ctx.principal,
    )
    return _window_of(game, cmd.battle_id)


def _deploy(game: Game, cmd: DeployArmies, ctx: Context) -> dict[str, Any]:
    _seat(game, ctx, cmd.power_id)
    game.deploy_armies(
        cmd.battle_id, cmd.power_id, list(cmd.armies), now=ctx.now, roller=ctx.roller(game), actor=ctx.principal
    )
    return _window_of(game, cmd.battle_id)


def _spell(game: Game, cmd: CastBattleSpell, ctx: Context) -> dict[str, Any]:
    _seat(game, ctx, cmd.power_id)
    game.cast_battle_spell(
        cmd.battle_id,
        cmd.power_id,
        cmd.spell_id,
        cmd.target,
        now=ctx.now,
        roller=ctx.roller(game),
        actor=ctx.principal,
        pay=list(cmd.pay) if cmd.pay is not None else None,
    )
    return _window_of(game, cmd.battle_id)


def _command(game: Game, cmd: GiveCommand, ctx: Context) -> dict[str, Any]:
    _seat(game, ctx, cmd.power_id)
    out = game.give_command(
        cmd.battle_id,
        cmd.power_id,
        cmd.army_id,
        cmd.command,
        cmd.target,
        cmd.goal,
        now=ctx.now,
        roller=ctx.roller(game),
        actor=ctx.principal,
        special=cmd.special,
        options=list(cmd.options),
        damage=cmd.damage,
        allocation=list(cmd.allocation) if cmd.allocation is not None else None,
        restore=cmd.restore,
        pass_to=cmd.pass_to,
    )
    return {**out, **_window_of(game, cmd.battle_id)}


def _offer(game: Game, cmd: OfferTerms, ctx: Context) -> dict[str, Any]:
    _seat(game, ctx, cmd.power_id)
    game.offer_terms(cmd.battle_id, cmd.power_id, cmd.terms, now=ctx.now, roller=ctx.roller(game), actor=ctx.principal)
    return _window_of(game, cmd.battle_id)


def _answer(game: Game, cmd: AnswerTerms, ctx: Context) -> dict[str, Any]:
    _seat(game, ctx, cmd.power_id)
    game.answer_terms(
        cmd.battle_id, cmd.power_id, cmd.accept, now=ctx.now, roller=ctx.roller(game), actor=ctx.principal
    )
    return _window_of(game, cmd.battle_id)


def _retreat(game: Game, cmd: RetreatArmies, ctx: Context) -> dict[str, Any]:
    _seat(game, ctx, cmd.power_id)
    game.retreat_or_rout(
        cmd.battle_id,
        cmd.power_id,
        list(cmd.retreat),
        dict(cmd.routs),
        now=ctx.now,
        roller=ctx.roller(game),
        actor=ctx.principal,
    )
    return _window_of(game, cmd.battle_id)


def _status(game: Game, cmd: SetBattleStatus, ctx: Context) -> None:
    require_gm(ctx)
    game.set_battle_status(cmd.battle_id, cmd.army_id, cmd.status, cmd.stacks, cmd.reason)


BATTLE_COMMANDS: Mapping[type, Handler] = {
    DeclareBattle: _declare,
    SetBattleTerrain: _terrain,
    SubmitBattleSetup: _setup,
    DeployArmies: _deploy,
    CastBattleSpell: _spell,
    GiveCommand: _command,
    OfferTerms: _offer,
    AnswerTerms: _answer,
    RetreatArmies: _retreat,
    SetBattleStatus: _status,
}

BATTLE_EVENT_VERSIONS = {name: 1 for name in (*REPORTED, "BattleActed")}
