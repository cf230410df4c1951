"""Powers' windows on the platform's flow (P.1.2, P-RES-2, P.1.3; ``domain.platform.flow``).

Three kinds of window, each a ``WindowRule`` the platform runs at its deadline or the GM's close:

- ``planning`` (P.1.2) waits on the powers not ready with actions left; a power may declare itself ready in it (the
  platform's ``DeclareReady``, P-AMB-39), and it closes early once none is pending, checked after each readiness; its
  close locks every submission and turns unused actions into schemes ([003:26]).
- ``resistance`` (P-RES-2) waits on the powers that may still resist; silence is a waiver (P-AMB-39), so its
  close finalises the provisional actions (P-RES-4, P-RES-5) and begins Battle. Powers closes it itself once
  everyone acted or waived, or when nothing is left to resist.
- ``battle`` (P.1.3) waits on the powers a battle's step waits for; at its close each is taken to send
  ``BattleSilence``, the GM's default for that step (its visible armies set up, the default command, or its turn
  passed), which only the platform sends; then the battle runs on with the month's dice.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from domain.errors import Forbidden, RuleViolation
from domain.platform.commands import Command, Context, require_seat
from domain.platform.flow import WindowRule
from domain.platform.state import Window
from domain.powers.battle import WINDOW_KIND as BATTLE_WINDOW
from domain.powers.battle import _battle_of_window

if TYPE_CHECKING:
    from domain.powers.game import Game


@dataclass(frozen=True)
class BattleSilence(Command):
    """A power's silence at a battle step's deadline (P.1.3): the GM's default for that step. The platform sends it
    for each power the step's window still waits on when it closes; no caller may."""

    window_id: str
    power_id: str
    system: ClassVar[bool] = True


def battle_silence(game: Game, cmd: BattleSilence, ctx: Context) -> None:
    if not ctx.silent:
        raise Forbidden("only the platform sends a power's silence, when a battle's window closes", field="command")
    require_seat(game, ctx, cmd.power_id)
    b = _battle_of_window(game.state, cmd.window_id)
    if b is None or cmd.power_id not in game.battle_pending(b):
        raise RuleViolation(f"{cmd.window_id} does not wait on {cmd.power_id}", rule="P.1.3", field="window_id")
    game._default_for(b, cmd.power_id, ctx.now, ctx.roller(game))


def _planning_closed(game: Game, w: Window, ctx: Context) -> None:
    game._planning_closed(ctx.now)


def _resistance_closed(game: Game, w: Window, ctx: Context) -> None:
    game._finalise(ctx.now)


def _battle_closed(game: Game, w: Window, ctx: Context) -> None:
    game.battle_window_closed(w.id, ctx.now, ctx.roller(game))


PLANNING = WindowRule(
    "planning",
    waits_on=lambda game, w: game.planning_pending(),
    ready=True,  # a power declares itself ready (P-AMB-39); once nobody is pending, the platform closes it
    early="everyone is ready",
    stale=lambda game, w: game.state.step != "planning",  # a Planning window left open past its step
    then=_planning_closed,
)
RESISTANCE = WindowRule(
    "resistance",
    waits_on=lambda game, w: game.pending_resisters(),
    then=_resistance_closed,
)
BATTLE = WindowRule(
    BATTLE_WINDOW,
    waits_on=lambda game, w: game._battle_pending_in(w),
    on_silence=lambda game, w, seat: BattleSilence(w.id, seat),
    then=_battle_closed,
    close_first=True,  # the step's window closes, then each silent power takes the GM's default, in turn order
)
