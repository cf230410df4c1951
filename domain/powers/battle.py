"""The battle sub-machine of Powers, played by post (rules/ANALYSIS.md P.1.3, P-BAT-1..14, P-AMB-1, P.4).

A battle is declared in a month's Battle step where opposed armies stand in the same hex (P-AMB-1: checked in
every month's Battle step; who may declare is the campaign option ``battle_declared_by``). Its setup, then each
round's Deployment > Spellcasting > Commands > Goals > Cleanup, is a chain of platform windows (kind ``battle``):
each opens with a deadline (``battle_hours``), is reminded, may be extended, and closes early once everyone it
waits for has acted. At a deadline the GM's default for the battle is applied and recorded as events: a command
not given is ``hold`` on Advance, or the army's standing order (``default="standing"``); a setup not given
deploys the power's visible armies in the hex in id order with no goals; the other steps pass.

The rules themselves (checks, attacks, morale, goals, cleanup, the aftermath) are ``domain.powers.battle_rules``;
the battle's sub-domain modules (``battle_base`` lists them: declaring and the windows, setup, the field, commands,
the end) decide, rolling the dice the rules ask for on the game's committed dice service and recording what they
return, and declare the events, whose ``evolve`` folds each into the state. ``Battles`` names every event, so each
is stored under the topic it always had (``domain.powers.battle:Battles.<Name>``), runs the chain of steps
(``_run_on``) and keeps the commands a battle is played by.

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

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain import visibility as vis
from domain.dice import Roller
from domain.errors import NotFound
from domain.ids import GM, SYSTEM
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.platform.game import _iso
from domain.platform.state import Window
from domain.powers import battle_base as bb
from domain.powers import battle_commands as commands
from domain.powers import battle_end as end
from domain.powers import battle_field as bfield
from domain.powers import battle_setup as setup
from domain.powers import battle_steps as steps
from domain.powers.base import GameBase
from domain.powers.battle_base import WINDOW_KIND as WINDOW_KIND
from domain.powers.battle_base import BattleRoll as BattleRoll
from domain.powers.battle_view import REPORTED
from domain.powers.battle_view import battle_report as battle_report
from domain.powers.battle_view import battle_view as battle_view
from domain.powers.battle_view import battles_view as battles_view
from domain.powers.part import as_game

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def _battle_of_window(state: GameState, window_id: str) -> dict[str, Any] | None:
    """The battle whose current window this is, if any (``domain.powers.windows`` asks)."""
    return bb.battle_of_window(state, window_id)


class Battles(GameBase):
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
    # the field: the start, each round's deployment and spells
    BattleStarted = bfield.BattleStarted
    BattleRoundBegan = bfield.BattleRoundBegan
    BattleDeployed = bfield.BattleDeployed
    BattleSpellCast = bfield.BattleSpellCast
    # commands
    BattleCommandGiven = commands.BattleCommandGiven
    # goals, surrender, cleanup, the end, rulings
    BattleGoalsScored = end.BattleGoalsScored
    BattleTermsOffered = end.BattleTermsOffered
    BattleTermsAnswered = end.BattleTermsAnswered
    BattleCleanedUp = end.BattleCleanedUp
    BattleWithdrawn = end.BattleWithdrawn
    BattleEnded = end.BattleEnded
    BattleRuled = bb.BattleRuled

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
        return bb.roll(as_game(self), roller, rolls, what, count, sides)

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
        steps.declare_battle(as_game(self), battle_id, hex_id, by, enemies, allies, now, actor)

    def _armies_at(self, h: str) -> list[dict[str, Any]]:
        return bb.armies_in(self.state, h)

    def set_battle_terrain(self, battle_id: str, terrain: str, effects: str, default: str) -> None:
        """GM: the terrain and its effects ([003:561]), and the default for commands not given by a deadline."""
        steps.set_battle_terrain(as_game(self), battle_id, terrain, effects, default)

    # ------------------------------------------------------------------ windows

    def _open_step(
        self, b: dict[str, Any], step: str, eligible: list[str], now: datetime, turn: dict[str, Any] | None = None
    ) -> None:
        steps.open_step(as_game(self), b, step, eligible, now, turn)

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
            setup.default_setup(as_game(self), b, p)
        elif step == "commands":
            commands.default_command(as_game(self), b, p, roller)
        else:
            steps.acted(as_game(self), b, p, step, True, SYSTEM)

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
            as_game(self),
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
        g = as_game(self)
        while b["step"] != "ended" and not self.battle_pending(b):
            if b["step"] == "commands" and steps.next_turn(g, b, now, first=False):
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
                bfield.start_battle(g, b, roller)
                bfield.begin_round(g, b, now, roller)
            elif step == "deployment":
                steps.open_step(g, b, "spellcasting", bfield.casters(self.state, b), now)
            elif step == "spellcasting":
                steps.next_turn(g, b, now, first=True)
            elif step == "commands":
                end.score_goals(g, b, now)
            elif step == "goals":
                end.after_goals(g, b, now, roller)
            elif step == "surrender":
                end.after_surrender(g, b, now, roller)
            elif step == "cleanup":
                end.end_check(g, b, now, roller)

    # ------------------------------------------------------------------ deployment and spellcasting ([003:575])

    def deploy_armies(
        self, battle_id: str, power_id: str, army_ids: list[str], *, now: datetime, roller: Roller, actor: str
    ) -> None:
        """Deployment ([003:575]): deploy armies of one's reserve (none: pass)."""
        bfield.deploy_armies(as_game(self), battle_id, power_id, army_ids, now=now, roller=roller, actor=actor)

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
        """Spellcasting: one fast spell per power per round ([003:576]), or none; its mana paid by the rules of
        spell costs (P-MAG-2), its effect, where it is not data, the GM's (``battle_field.cast_battle_spell``)."""
        bfield.cast_battle_spell(
            as_game(self), battle_id, power_id, spell_id, target, now=now, roller=roller, actor=actor, pay=pay
        )

    # ------------------------------------------------------------------ commands (P-BAT-2, P-BAT-3)

    def _commandable(self, b: dict[str, Any], side: str, power_id: str | None = None) -> list[str]:
        """A side's armies on the field not yet commanded this round (a power's, if named)."""
        return [
            aid
            for aid in self._fighting(b, side)
            if aid not in b["exhausted"] and (power_id is None or b["armies"][aid]["power"] == power_id)
        ]

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
        """Commands ([003:577]): the power whose turn it is commands one of its armies, which is exhausted, with
        the choices the rules give it (``battle_commands.give_command``)."""
        return commands.give_command(
            as_game(self),
            battle_id,
            power_id,
            army_id,
            command,
            target,
            goal,
            now=now,
            roller=roller,
            actor=actor,
            special=special,
            options=options,
            damage=damage,
            allocation=allocation,
            restore=restore,
            pass_to=pass_to,
        )

    # ------------------------------------------------------------------ surrender, cleanup, rulings (P-BAT-9, -12)

    def offer_terms(
        self, battle_id: str, power_id: str, terms: str | None, *, now: datetime, roller: Roller, actor: str
    ) -> None:
        """Goals: spend 1 escalation to offer terms of surrender ([003:580], P-BAT-9); no terms: pass."""
        end.offer_terms(as_game(self), battle_id, power_id, terms, now=now, roller=roller, actor=actor)

    def answer_terms(
        self, battle_id: str, power_id: str, accept: bool, *, now: datetime, roller: Roller, actor: str
    ) -> None:
        """The recipient side accepts or declines the terms offered; silence declines (P-BAT-9)."""
        end.answer_terms(as_game(self), battle_id, power_id, accept, now=now, roller=roller, actor=actor)

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
        end.retreat_or_rout(as_game(self), battle_id, power_id, retreat, routs, now=now, roller=roller, actor=actor)

    def set_battle_status(self, battle_id: str, army_id: str, status: str, stacks: int, reason: str) -> None:
        """GM: a battle status on an army (a spell's effect, the terrain; P-BAT-12): stacks 0 removes it."""
        end.set_battle_status(as_game(self), battle_id, army_id, status, stacks, reason)


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
