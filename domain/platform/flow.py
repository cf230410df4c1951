"""The platform runs the flow (issue 26 item 2): a ruleset declares its windows as data, the platform executes them.

As boardgame.io runs a game's phases and turn order from the game object (each phase's ``onBegin``, ``endIf``,
``next``; each turn's ``activePlayers``), a ruleset's steps (``domain.platform.ruleset.Step``) name the kinds of
window they open, and for each kind a ``WindowRule`` says, as functions of the game's state:

- whom the window waits on (``waits_on``): who is reminded, who may ask for more time, whose move it is;
- what closes it early (``closes_early``): the platform checks it after each of the ruleset's own commands and
  each close, and closes the window then;
- whether a seat may declare itself ready in it (``ready``): the platform refuses a seat's ``DeclareReady`` unless an
  open window's rule allows it (``ready_window``), records the readiness, and closes the window once every seat it
  waits on is ready, checked after each readiness only (Powers' Planning);
- its default on silence (``on_silence``): the command each seat still waited on is taken to send when the window
  closes (its deadline, or the GM's or host's close); the platform sends it through the ruleset's own handler, as
  that seat, with ``Context.silent`` set, so a default is a command the ruleset accepts like any other;
- what follows its close (``then``): what the step enters next (the next turn's window, the next phase).

A ruleset opens a window when its step is entered (``Step.on_entry``, which the platform runs: ``enter``; or
``open_window``); everything after is the platform's: the deadline, reminders and extensions
(``domain.platform.game``), readiness, the close early, the defaults on silence, the close at the deadline, and the
entry into what follows. The events recorded are the platform's ``WindowOpened`` and
``WindowClosed`` and the ruleset's own, as before.

A window whose kind no rule declares is closed by the ruleset's own ``close_window``; every ruleset here declares
all of its windows, and ``PlatformGame.close_window`` refuses such a close, naming the window.

``Game`` is ``Any`` here on purpose: each rule's functions take its own ruleset's game (a Lodge's, a covenant
game's), which a ``Callable`` of the platform's game type would not accept (its parameters are contravariant).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any

from domain import visibility as vis
from domain.errors import DomainError, RuleViolation
from domain.ids import SYSTEM
from domain.platform.commands import Command, Context, DeclareReady
from domain.platform.state import Window

Game = Any  # a ruleset's game aggregate (a ``PlatformGame``); its rules read its own state


def _never(game: Game, w: Window) -> bool:
    return False


def _public(game: Game, w: Window) -> list[str]:
    return [vis.PUBLIC]


@dataclass(frozen=True)
class WindowRule:
    """How one kind of window runs, as data the platform executes.

    ``kind`` is the window's kind (``Window.kind``) or its first part before a colon (a turn's window
    ``move:ann:1:2`` is of kind ``move``)."""

    kind: str
    waits_on: Callable[[Game, Window], Sequence[str]]
    # what closes it before its deadline, checked after every command of the ruleset's own and every close; the close
    # records ``early`` as its reason
    closes_early: Callable[[Game, Window], bool] = _never
    early: str = "everyone acted"
    # whether a seat may declare itself ready in a window of this kind (the platform's ``DeclareReady``; refused in a
    # window whose rule says False): once every seat it waits on is ready, the platform closes it (reason ``early``),
    # checked after each readiness only (not after every command, nor after a rollback, whose restored state may hold
    # a window its step no longer runs)
    ready: bool = False
    # the command a seat the window still waits on is taken to send at the close, or None (its silence does nothing)
    on_silence: Callable[[Game, Window, str], Command | None] | None = None
    # what follows the close (early, at the deadline or by the GM): the next window, the next step
    then: Callable[[Game, Window, Context], None] | None = None
    # the window of this kind the game's state wants open now, as (window id, kind, hours to its deadline), or None:
    # after each of the ruleset's commands and each close, the platform opens it unless one of its kind is open
    # (a turn's window, which follows the turn order as boardgame.io's turn follows its ``order``)
    opens: Callable[[Game], tuple[str, str, float] | None] | None = None
    # whether the close is recorded before the silent seats' defaults (a turn that is over, then what silence does
    # in it) or after them (a default that closes its own window, such as a choice's answer)
    close_first: bool = False
    # who records the close, and who sees it (the window's own viewers)
    closed_by: str = SYSTEM
    audience: Callable[[Game, Window], list[str]] = _public
    # whether an open window of this kind no longer governs the game (its step is over, as after a rollback): the
    # platform does not close such a window, nor run its defaults or what follows (the close is a no-op, False)
    stale: Callable[[Game, Window], bool] = _never
    # a wider test of the kinds it governs, where a game names them (the phases of a Lodge's rules package)
    matches: Callable[[str], bool] | None = None

    def governs(self, kind: str) -> bool:
        if self.matches is not None:
            return self.matches(kind)
        return kind == self.kind or kind.startswith(self.kind + ":")


def rules_of(game: Game) -> tuple[WindowRule, ...]:
    """Every window rule the steps of the game's ruleset declare, each once (steps share their rules: a covenant
    game's every turn step declares ``TURNS``), in the order first declared."""
    steps = game.ruleset.steps
    return tuple(dict.fromkeys(rule for step in steps for rule in step.windows))


def rule_for(game: Game, w: Window) -> WindowRule | None:
    """The rule of this window's kind (the first declared that governs it), or None if the ruleset declares none."""
    return next((r for r in rules_of(game) if r.governs(w.kind)), None)


def waiting(game: Game, w: Window) -> list[str]:
    """Whom an open window waits on, as its rule says (NotImplementedError if no rule declares its kind)."""
    rule = rule_for(game, w)
    if rule is None:
        raise NotImplementedError(f"no rule declares windows of kind {w.kind!r}")
    return list(rule.waits_on(game, w))


def defaults(game: Game, w: Window) -> dict[str, Command]:
    """The command each seat this open window waits on is taken to send if it stays silent until the close."""
    rule = rule_for(game, w)
    if rule is None or rule.on_silence is None or w.closed:
        return {}
    found = {seat: rule.on_silence(game, w, seat) for seat in rule.waits_on(game, w)}
    return {seat: command for seat, command in found.items() if command is not None}


def send_default(game: Game, seat: str, command: Command, ctx: Context) -> Any:
    """Send a silent seat's default through its ruleset's handler, as that seat (``Context.silent``)."""
    silent = dataclasses.replace(ctx, principal=seat, silent=True)
    return game.ruleset.handler(command)(game, command, silent)


def open_window(
    game: Game,
    window_id: str,
    kind: str,
    *,
    now: datetime,
    hours: float,
    audience: list[str] | None = None,
) -> None:
    """Open a window of a declared kind, its deadline ``hours`` from ``now`` (kept in UTC)."""
    opened = now.astimezone(timezone.utc)
    game._window_opened(
        window_id=window_id,
        kind=kind,
        opened_at=opened.isoformat(),
        closes_at=(opened + timedelta(hours=hours)).isoformat(),
        actor=SYSTEM,
        audience=list(audience or [vis.PUBLIC]),
    )


def close(game: Game, window_id: str, ctx: Context, *, reason: str) -> bool:
    """Close a declared window (its deadline, or the GM's or host's close): each seat it still waits on is taken to
    send its default, then the window closes and what follows is entered. False if it is closed or gone. A default
    the rules refuse raises: the service then keeps nothing of the close and records the block."""
    w = game.state.windows.get(window_id)
    if w is None or w.closed:
        return False
    rule = rule_for(game, w)
    if rule is None:
        raise NotImplementedError(f"no rule declares windows of kind {w.kind!r}")
    if rule.stale(game, w):
        return False
    silent = defaults(game, w)
    if rule.close_first:
        _record_close(game, w, rule, reason, ctx)
    for seat, command in silent.items():
        if w.closed and not rule.close_first:  # a default closed it (a choice's answer closes its own window)
            break
        send_default(game, seat, command, ctx)
    _finish(game, w, rule, reason, ctx)
    settle(game, ctx)
    return True


def check_after(game: Game, command: Command | None) -> str | None:
    """What the flow checks after this command (None: a close), the one test ``Ruleset.run`` and ``settle`` share:
    ``"early"`` after one of the ruleset's own commands or a close (each window's ``closes_early``), ``"ready"`` after
    a seat's readiness (whether every seat a window that allows readiness waits on is ready), None after any other
    platform command (nothing)."""
    if command is None or type(command) in game.ruleset.commands:
        return "early"
    if isinstance(command, DeclareReady):
        return "ready"
    return None


def all_ready(game: Game, w: Window) -> bool:
    """Whether every seat this window waits on has declared itself ready (``PlatformGame.seats``' ``ready``)."""
    rule = rule_for(game, w)
    if rule is None or not rule.ready:
        return False
    return all(getattr(game.seats.get(seat), "ready", False) for seat in rule.waits_on(game, w))


def takes_readiness(game: Game, kind: str) -> bool:
    """Whether a window of this kind takes a seat's readiness (its rule's ``ready``): it opens with nobody ready.
    False where the game's ruleset is not installed here (its stored events are still read)."""
    try:
        rules = rules_of(game)
    except DomainError:
        return False
    rule = next((r for r in rules if r.governs(kind)), None)
    return rule is not None and rule.ready


def ready_window(game: Game) -> Window:
    """The open window a seat declares itself ready in: the first whose rule allows readiness (``WindowRule.ready``)
    and still governs the game. Else RuleViolation naming the rule's field: nothing is recorded."""
    windows: list[Window] = [w for w in game.state.windows.values() if not w.closed]
    found = [(w, rule_for(game, w)) for w in windows]
    for w, rule in found:
        if rule is not None and rule.ready and not rule.stale(game, w):
            return w
    if not found:
        raise RuleViolation(
            f"no window of this {game.state.ruleset!r} game is open to declare oneself ready in (WindowRule.ready)",
            field="command",
        )
    named = ", ".join(f"{w.id!r} ({w.kind})" for w, _ in found)
    raise RuleViolation(
        f"a seat may not declare itself ready in {named}: the rule of that window does not allow readiness "
        "(WindowRule.ready)",
        field="command",
    )


def enter(game: Game, step: str, now: datetime) -> None:
    """Enter a step of the game's ruleset: the platform runs what its declaration says happens then
    (``Step.on_entry``: open its window, deal...), if anything."""
    on_entry = game.ruleset.step(step).on_entry
    if on_entry is not None:
        on_entry(game, now)


def _due(game: Game, w: Window, rule: WindowRule, check: str) -> bool:
    """Whether this open window closes now, after a command that asks the flow for ``check``."""
    if w.closed or rule.stale(game, w):
        return False
    if check == "ready":
        return rule.ready and all_ready(game, w)
    return rule.closes_early(game, w)


def settle(game: Game, ctx: Context, *, command: Command | None = None, limit: int = 64) -> None:
    """After a command (``command``, or a close): close every open window whose rule says it is over (``check_after``
    says which test), and enter what follows each; then open each window the rules want open. Nothing after a
    platform command that asks nothing of the flow."""
    check = check_after(game, command)
    if check is None:
        return
    for _ in range(limit):
        due = [
            (w, rule)
            for w in list(game.state.windows.values())
            if (rule := rule_for(game, w)) is not None and _due(game, w, rule, check)
        ]
        if not due:
            _open_wanted(game, ctx)
            return
        w, rule = due[0]
        _finish(game, w, rule, rule.early, ctx)
    raise RuntimeError(f"the windows of this game kept closing early after {limit} closes: a rule never settles")


def _open_wanted(game: Game, ctx: Context) -> None:
    """Open each window the rules want open that is not (``WindowRule.opens``)."""
    for rule in rules_of(game):
        wanted = rule.opens(game) if rule.opens is not None else None
        if wanted is not None and game.open_window(wanted[1]) is None:
            window_id, kind, hours = wanted
            open_window(game, window_id, kind, now=ctx.now, hours=hours)


def _record_close(game: Game, w: Window, rule: WindowRule, reason: str, ctx: Context) -> None:
    if not w.closed:
        game._window_closed(
            window_id=w.id,
            reason=reason,
            closed_at=ctx.now.isoformat(),
            actor=rule.closed_by,
            audience=rule.audience(game, w),
        )


def _finish(game: Game, w: Window, rule: WindowRule, reason: str, ctx: Context) -> None:
    _record_close(game, w, rule, reason, ctx)
    if rule.then is not None:
        rule.then(game, w, ctx)


__all__ = [
    "WindowRule",
    "all_ready",
    "check_after",
    "close",
    "defaults",
    "enter",
    "open_window",
    "ready_window",
    "rule_for",
    "send_default",
    "settle",
    "takes_readiness",
    "waiting",
]
