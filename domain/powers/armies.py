"""Armies outside combat (rules/ANALYSIS.md P.2.10 P-ARMY-1..9, P.2.6 P-SUP-1..3, P-ASSET-7, P-ASSET-14).

Armies stand on the hexes of the world's map. The GM places armies (rogue forces, a City's starting armies,
wondrous armies from types the GM defines as events: the rules' "Wondrous Armies" section is empty); powers
raise them by Levy and improve them by Train and Forge Armaments, move them by Muster and recover cowards by
Gather Cowards: each such action is aimed at its army during Planning (``aim_army_action``), which sets its
difficulty by the rule's formula, and its effect is recorded when it resolves (``_armies_resolved``).
Season bookkeeping runs from ``Game.advance``: support is settled at the end of Tidings, mustered armies go
home and recover at Cleanup.

``Armies`` is the armies' part of a Powers game (a base of ``Game``): it names the armies' events, each declared
and folded in its sub-domain's module (``domain.powers.armies_base`` lists them), and delegates each command to
the module that decides it. The army as the state keeps it is ``armies_state.new_army``.

The battle sub-machine (P-BAT-*) records through ``grant_experience`` (P-BAT-13), ``record_dispersal`` (a rout
that leaves no active unit) and ``_fee_due`` (a fee after a battle, P-SUP-3).

Who sees what (P.4, [003:326], ``armies_view``): "Scores and keywords of visible armies are default public"; a
non-visible army (Stealthy, dispersed, or hidden by the GM, e.g. inside an outpost) is seen by its controller, the
GM and those the GM says detected it. An army is recorded whole for its controller (``ArmyPlaced``) and its public
card for those who see it (``ArmySighted``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from domain.dice import Roller
from domain.errors import NotFound
from domain.ids import GM
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.platform.game import PlatformGame
from domain.powers import armies_aims as aims
from domain.powers import armies_base as base
from domain.powers import armies_levels as levels
from domain.powers import armies_resolution as resolution
from domain.powers import armies_roster as roster
from domain.powers import armies_season as season
from domain.powers import armies_state
from domain.powers import armies_support as support
from domain.powers.armies_state import ARMIES_TYPES as ARMIES_TYPES
from domain.powers.armies_state import ARMY_AIMS as ARMY_AIMS
from domain.powers.armies_state import ArmiesState as ArmiesState
from domain.powers.armies_state import Bound as Bound
from domain.powers.armies_state import Support as Support
from domain.powers.armies_state import army_audience as army_audience
from domain.powers.armies_state import army_owner as army_owner
from domain.powers.armies_state import visible as visible
from domain.powers.armies_view import armies_view as armies_view

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState

_new_army = armies_state.new_army  # the army as the state keeps it (the catalogue's Finger Armies, the tests)


class Armies(PlatformGame):
    """Armies outside combat: their commands and events (a base of ``Game``). A ``PlatformGame``, not a
    ``GameBase``: ``domain.powers.state`` imports this module's ``ArmiesState``, before ``domain.powers.base``."""

    if TYPE_CHECKING:
        state: GameState

    # The events, each declared and folded in its sub-domain's module; named here, each is redefined by the
    # library as Armies.<Name>, the topic its stored events have always had.
    # the roster
    ArmyTypeDefined = roster.ArmyTypeDefined
    ArmySighted = roster.ArmySighted
    ArmyPlaced = roster.ArmyPlaced
    ArmyDetected = roster.ArmyDetected
    ExperienceGained = roster.ExperienceGained
    ArmyDispersed = roster.ArmyDispersed
    ArmyRestored = roster.ArmyRestored
    # aims and their resolution
    ArmyActionAimed = aims.ArmyActionAimed
    ArmyMoved = resolution.ArmyMoved
    TrainSucceeded = resolution.TrainSucceeded
    ArmyArmed = resolution.ArmyArmed
    # level-ups
    LevelUpRolled = levels.LevelUpRolled
    ArmyLeveledUp = levels.ArmyLeveledUp
    TrainDiscarded = levels.TrainDiscarded
    # support, fees, desertion, disbanding
    SupportBonusSet = support.SupportBonusSet
    SupportSettled = support.SupportSettled
    SupportUnpaid = support.SupportUnpaid
    ArmyFeeDue = support.ArmyFeeDue
    ArmyFeePaid = support.ArmyFeePaid
    ArmyDeserted = support.ArmyDeserted
    ArmyDisbanded = support.ArmyDisbanded
    # Cleanup
    ScarsKept = season.ScarsKept
    ArmyRecovered = season.ArmyRecovered

    def _game(self) -> Game:
        """This aggregate as the ``Game`` it is part of (the armies' rules call the month's own methods)."""
        return cast("Game", self)

    # ------------------------------------------------------------------ queries

    def army(self, army_id: str) -> dict[str, Any]:
        """The army, or NotFound."""
        return base.army(self.state, army_id)

    def _own_army(self, army_id: str, power_id: str) -> dict[str, Any]:
        return base.own_army(self.state, army_id, power_id)

    def armies_of(self, power_id: str) -> list[dict[str, Any]]:
        return base.armies_of(self.state, power_id)

    def _perks(self, power_id: str) -> set[str]:
        """The perks a power holds (domain.powers.development), by the names the rules give them."""
        return base.perks(self.state, power_id)

    def units_counted(self, power_id: str) -> int:
        """P-SUP-1: the units a power's armies count against its limit."""
        return support.units_counted(self.state, power_id)

    def support_limit(self, power_id: str) -> int:
        """P-SUP-2, from the towns a power claims (world), its influence, its perks and what the GM records."""
        return support.support_limit(self._game(), power_id)

    def support_due(self, power_id: str) -> int:
        """P-SUP-1: the units beyond the support limit."""
        return support.support_due(self._game(), power_id)

    # ------------------------------------------------------------------ the GM's armies and types

    def define_army_type(self, type_id: str, block: dict[str, Any]) -> None:
        """GM: an army type as data (the rules' "Wondrous Armies" section is empty, P-AMB-42)."""
        roster.define_army_type(self._game(), type_id, block)

    def place_army(
        self,
        army_id: str,
        name: str,
        hex_id: str,
        units: int,
        *,
        controller: str | None = None,
        type_id: str | None = None,
        block: dict[str, Any] | None = None,
        garrison: str | None = None,
        loyal: bool = False,
        personal: bool = False,
        hidden: bool = False,
    ) -> None:
        """GM: put an army on the map (a rogue army, a City's starting army, a wondrous army of a type)."""
        roster.place_army(
            self._game(),
            army_id,
            name,
            hex_id,
            units,
            controller=controller,
            type_id=type_id,
            data=block,
            garrison=garrison,
            loyal=loyal,
            personal=personal,
            hidden=hidden,
        )

    def _record_army(self, army: dict[str, Any], actor: str = GM) -> None:
        roster.record_army(self._game(), army, actor)

    def _place(self, army: dict[str, Any], actor: str) -> None:
        roster.place(self._game(), army, actor)

    def detect_army(self, army_id: str, power_id: str) -> None:
        """GM: a power detected a non-visible army (Seeking, [003:497]); it sees its card from now on (P.4)."""
        roster.detect_army(self._game(), army_id, power_id)

    def set_support_bonus(self, power_id: str, bonus: int) -> None:
        """GM: what a power's other effects add to its support limit (P-SUP-2; the Paragon's 5 and the perks
        Warbacked, Crusader and Warmaster are counted from the power's class and perks)."""
        support.set_support_bonus(self._game(), power_id, bonus)

    def grant_experience(self, army_id: str, rank: int) -> None:
        """An army's Experience (P-ASSET-14, gained after battle, P-BAT-13): a one-use asset only this army uses
        (towards its Train)."""
        roster.grant_experience(self._game(), army_id, rank)

    def record_dispersal(self, army_id: str) -> None:
        """GM (or the battle): an army fully dispersed by rout; its cowards may be gathered next season
        (P-ARMY-7). Its former controller gets the "+3 asset" for gathering them."""
        roster.record_dispersal(self._game(), army_id)

    # ------------------------------------------------------------------ actions aimed at armies

    def aim_army_action(self, action_id: str, kind: str, params: dict[str, Any], actor: str | None = None) -> None:
        """Aim a Planning action at armies: Muster, Train, Forge Armaments, Levy or Gather Cowards
        (``armies_aims.aim_army_action``)."""
        aims.aim_army_action(self._game(), action_id, kind, params, actor)

    def _aim_of(self, action_id: str) -> dict[str, Any] | None:
        return base.aim_of(self.state, action_id)

    def _armies_check_pool(self, action_id: str | None, power_id: str, location: str | None, assets: list[Any]) -> None:
        """Before a pool is rolled: Experience only in its army's Train, a former command only in its Gather
        Cowards (P-ASSET-14, P-ARMY-7); an army helps only by P-ASSET-7."""
        aims.check_pool(self.state, action_id, power_id, location, assets)

    def _armies_resolved(self, action_id: str) -> None:
        """An action aimed at armies has resolved: record its effect (P-ARMY-1, 3, 5, 6, 7; P-SUP-3 fees)."""
        resolution.armies_resolved(self._game(), action_id)

    # ------------------------------------------------------------------ fees (P-SUP-3)

    def _fee_due(self, army: dict[str, Any]) -> None:
        """P-SUP-3: "The fee is paid after the army moves or fights a battle"."""
        support.fee_due(self._game(), army)

    def pay_army_fee(self, army_id: str, power_id: str, resource: str = "coin", actor: str | None = None) -> None:
        """Pay an army's fee (P-SUP-3) in coin, or in fear for a Servile army, halved ([003:771])."""
        support.pay_army_fee(self._game(), army_id, power_id, resource, actor)

    def desert_army(self, army_id: str, to: str | None, reason: str) -> None:
        """GM: an army whose fee went unpaid deserts, and may join another power (P-SUP-3, a GM decision); so may
        one of a power that left its support unpaid at the end of Tidings (P-SUP-1)."""
        support.desert_army(self._game(), army_id, to, reason)

    # ------------------------------------------------------------------ level-ups (P-ARMY-3, P-ARMY-4)

    def roll_level_up(self, army_id: str, power_id: str, roller: Roller, actor: str | None = None) -> list[int]:
        """P-ARMY-3/4: roll the level-up dice (3 plus the Train's excess successes) on the committed roller."""
        return levels.roll_level_up(self._game(), army_id, power_id, roller, actor)

    def choose_level_up(
        self, army_id: str, power_id: str, choices: list[Any], new_class: str | None = None, actor: str | None = None
    ) -> None:
        """P-ARMY-3/4: select the bonuses from the rolled options; rank +1 and fee +1; a Levy its new class."""
        levels.choose_level_up(self._game(), army_id, power_id, choices, new_class, actor)

    def discard_train(self, army_id: str, power_id: str, actor: str | None = None) -> None:
        """P-ARMY-3 / P-ASSET-14: discard a Train's level-up, refunding the Experience spent."""
        levels.discard_train(self._game(), army_id, power_id, actor)

    # ------------------------------------------------------------------ disbanding and support (P-SUP-1)

    def disband_army(self, army_id: str, power_id: str, actor: str | None = None) -> None:
        """P-SUP-1: a loyal army is disbanded at the start of Tidings; a levy in its origin town, its card kept
        (P-ARMY-5)."""
        support.disband_army(self._game(), army_id, power_id, actor)

    def _army_disbanded(self, army_id: str, keep_card: bool, actor: str, audience: list[str]) -> None:
        """Record ArmyDisbanded (the catalogue records it through this, P-AMB-38's Sacrificial Summoning)."""
        base.record(
            self._game(), support.ArmyDisbanded, army_id=army_id, keep_card=keep_card, actor=actor, audience=audience
        )

    def pay_support(self, power_id: str, changes: dict[str, int], actor: str | None = None) -> None:
        """P-SUP-1: during Tidings, one coin, respect or fear for each unit beyond the support limit."""
        support.pay_support(self._game(), power_id, changes, actor)

    def _armies_end_tidings(self) -> None:
        """The end of Tidings (P-SUP-1): unpaid support is owed; the GM rules what follows (P-SUP-3)."""
        support.end_tidings(self._game())

    # ------------------------------------------------------------------ Cleanup (P-ARMY-2, P-ARMY-9)

    def _armies_cleanup(self) -> None:
        """Cleanup: mustered armies return to their garrisons (P-ARMY-2), then routed units return and wounds
        heal (P-ARMY-9)."""
        season.cleanup(self._game())

    def keep_scars(self, army_id: str, power_id: str, keep: bool, actor: str | None = None) -> None:
        """Orcs may leave their wounds as scars through the season's recovery while ``keep`` holds (P-ARMY-9)."""
        season.keep_scars(self._game(), army_id, power_id, keep, actor)


# ---------------------------------------------------------------------- commands


@dataclass(frozen=True)
class DefineArmyType(Command):
    """GM: define an army type as data (wondrous armies)."""

    type_id: str
    block: dict[str, Any]


@dataclass(frozen=True)
class PlaceArmy(Command):
    """GM: put an army on the map, of a type or with its own stat block."""

    army_id: str
    name: str
    hex: str
    units: int
    controller: str | None = None
    type_id: str | None = None
    block: dict[str, Any] | None = None
    garrison: str | None = None
    loyal: bool = False
    personal: bool = False
    hidden: bool = False


@dataclass(frozen=True)
class DetectArmy(Command):
    """GM: a power detected a non-visible army (P.4)."""

    army_id: str
    power_id: str


@dataclass(frozen=True)
class SetSupportBonus(Command):
    """GM: what a power's effects add to its support limit (P-SUP-2)."""

    power_id: str
    bonus: int


@dataclass(frozen=True)
class GrantExperience(Command):
    """GM (or the battle): an army's one-use Experience asset (P-ASSET-14)."""

    army_id: str
    rank: int


@dataclass(frozen=True)
class RecordDispersal(Command):
    """GM (or the battle): an army fully dispersed by rout (P-ARMY-7)."""

    army_id: str


@dataclass(frozen=True)
class AimArmyAction(Command):
    """Aim one's Planning action at armies: muster, train, forge, levy or gather."""

    action_id: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RollLevelUp(Command):
    """Roll a trained army's level-up dice (P-ARMY-3)."""

    power_id: str
    army_id: str


@dataclass(frozen=True)
class ChooseLevelUp(Command):
    """Choose a level-up's bonuses from the rolled options (P-ARMY-4); a Levy its new class."""

    power_id: str
    army_id: str
    choices: list[Any]
    new_class: str | None = None


@dataclass(frozen=True)
class DiscardTrain(Command):
    """Discard a Train's level-up, refunding the Experience spent (P-ARMY-3)."""

    power_id: str
    army_id: str


@dataclass(frozen=True)
class KeepScars(Command):
    """An orc army keeps its wounds as scars through recovery, or heals them again (P-ARMY-9)."""

    power_id: str
    army_id: str
    keep: bool = True


@dataclass(frozen=True)
class PayArmyFee(Command):
    """Pay an army's fee (P-SUP-3)."""

    power_id: str
    army_id: str
    resource: str = "coin"


@dataclass(frozen=True)
class DesertArmy(Command):
    """GM: an army with an unpaid fee deserts, perhaps to another power (P-SUP-3)."""

    army_id: str
    reason: str
    to: str | None = None


@dataclass(frozen=True)
class DisbandArmy(Command):
    """Disband a loyal army at the start of Tidings, or a levy in its origin town (P-SUP-1, P-ARMY-5)."""

    power_id: str
    army_id: str


@dataclass(frozen=True)
class PaySupport(Command):
    """Pay for the units beyond the support limit in coin, respect or fear (P-SUP-1)."""

    power_id: str
    changes: dict[str, int]


def _define_army_type(game: Game, cmd: DefineArmyType, ctx: Context) -> None:
    require_gm(ctx)
    game.define_army_type(cmd.type_id, dict(cmd.block))


def _place_army(game: Game, cmd: PlaceArmy, ctx: Context) -> None:
    require_gm(ctx)
    game.place_army(
        cmd.army_id,
        cmd.name,
        cmd.hex,
        cmd.units,
        controller=cmd.controller,
        type_id=cmd.type_id,
        block=dict(cmd.block) if cmd.block is not None else None,
        garrison=cmd.garrison,
        loyal=cmd.loyal,
        personal=cmd.personal,
        hidden=cmd.hidden,
    )


def _detect_army(game: Game, cmd: DetectArmy, ctx: Context) -> None:
    require_gm(ctx)
    game.detect_army(cmd.army_id, cmd.power_id)


def _set_support_bonus(game: Game, cmd: SetSupportBonus, ctx: Context) -> None:
    require_gm(ctx)
    game.set_support_bonus(cmd.power_id, cmd.bonus)


def _grant_experience(game: Game, cmd: GrantExperience, ctx: Context) -> None:
    require_gm(ctx)
    game.grant_experience(cmd.army_id, cmd.rank)


def _record_dispersal(game: Game, cmd: RecordDispersal, ctx: Context) -> None:
    require_gm(ctx)
    game.record_dispersal(cmd.army_id)


def _aim_army_action(game: Game, cmd: AimArmyAction, ctx: Context) -> dict[str, Any]:
    a = game.state.actions.get(cmd.action_id)
    if a is None or (ctx.principal != GM and a.power != ctx.principal):
        raise NotFound(f"no action {cmd.action_id!r} of yours this month", field="action_id")
    require_seat(game, ctx, a.power)
    game.aim_army_action(cmd.action_id, cmd.kind, dict(cmd.params), actor=ctx.principal)
    return {"action_id": cmd.action_id, "difficulty": game.state.actions[cmd.action_id].difficulty}


def _roll_level_up(game: Game, cmd: RollLevelUp, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    return {"faces": game.roll_level_up(cmd.army_id, cmd.power_id, ctx.roller(game), actor=ctx.principal)}


def _choose_level_up(game: Game, cmd: ChooseLevelUp, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.choose_level_up(cmd.army_id, cmd.power_id, list(cmd.choices), cmd.new_class, actor=ctx.principal)


def _discard_train(game: Game, cmd: DiscardTrain, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.discard_train(cmd.army_id, cmd.power_id, actor=ctx.principal)


def _keep_scars(game: Game, cmd: KeepScars, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.keep_scars(cmd.army_id, cmd.power_id, cmd.keep, actor=ctx.principal)


def _pay_army_fee(game: Game, cmd: PayArmyFee, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.pay_army_fee(cmd.army_id, cmd.power_id, cmd.resource, actor=ctx.principal)


def _desert_army(game: Game, cmd: DesertArmy, ctx: Context) -> None:
    require_gm(ctx)
    game.desert_army(cmd.army_id, cmd.to, cmd.reason)


def _disband_army(game: Game, cmd: DisbandArmy, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.disband_army(cmd.army_id, cmd.power_id, actor=ctx.principal)


def _pay_support(game: Game, cmd: PaySupport, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.pay_support(cmd.power_id, dict(cmd.changes), actor=ctx.principal)


ARMY_COMMANDS: Mapping[type, Handler] = {
    DefineArmyType: _define_army_type,
    PlaceArmy: _place_army,
    DetectArmy: _detect_army,
    SetSupportBonus: _set_support_bonus,
    GrantExperience: _grant_experience,
    RecordDispersal: _record_dispersal,
    AimArmyAction: _aim_army_action,
    RollLevelUp: _roll_level_up,
    ChooseLevelUp: _choose_level_up,
    DiscardTrain: _discard_train,
    KeepScars: _keep_scars,
    PayArmyFee: _pay_army_fee,
    DesertArmy: _desert_army,
    DisbandArmy: _disband_army,
    PaySupport: _pay_support,
}
