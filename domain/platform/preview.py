"""A preview for the GM or host (issue 29 item 2): what closing the pending step would do, shown before it is done.

The pending step is the game's open window that governs it (the first open window a rule declares and that is not
stale, or the one named): what the GM's or host's close of it (``CloseWindow``) does is what the flow
(``domain.platform.flow.close``) decides: a Powers resolution or battle round, a covenant Reckoning, a Lodge effect
chain, the fake table's round. The service closes it in a scratch copy of the game (folded afresh from the store at
the game's version, so nothing of it can reach the game), and answers each viewer's outcome from the copy.

The dice of the copy are the game's: the same committed seed and the same next roll number (``state.next_roll``),
so the close, done later for real, draws the same faces (``domain.dice``: faces follow from the seed and the roll
number alone). Nothing the copy records is kept; the game records one audit line, ``Previewed``, which only the GM
and the hosts see (nobody else's sequence moves); the copy holds it too, since a close may read the game's version
(a covenant turn's window is named after it). A preview holds until anything else is recorded.

Only a role holding ``windows`` (the GM; the covenant game's host) may preview; a host who plays sees only its own
outcome and the observers' (a host at the table sees the table as a player: ``domain.platform.roles``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from eventsourcing.domain import Aggregate

from domain import visibility as vis
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.ids import GM
from domain.platform.roles import WINDOWS
from domain.platform.state import Window

OBSERVER = "observer"  # a viewer of the public audience only: what an observer of the table sees


def role_words(names: list[str]) -> str:
    return " or the ".join("GM" if n == GM else n for n in names) or "nobody"


def require_previewer(game: Any, principal: str) -> None:
    """The caller's roles must hold ``windows`` (who may close the step may preview its close); else Forbidden naming
    the roles that may and the caller's own."""
    if game.may(principal, WINDOWS):
        return
    holders = role_words(list(game.ruleset.roles.holders(WINDOWS)))
    mine = sorted(game.roles_of(principal)) or [OBSERVER]
    raise Forbidden(
        f"only the {holders} may preview the pending step; you are {' and '.join(mine)} here", field="authorization"
    )


def require_settled(game: Any, principal: str, w: Window) -> None:
    """A host who plays previews only a step every seat has acted in: before, the preview would show it the dice
    still to be rolled for moves not yet made, its own among them (the GM plays no seat and may preview any time).
    Forbidden naming the seats still waited on; nothing is recorded."""
    if principal == GM or principal not in game.seats:
        return
    waited = [s for s in game.seats if _waits_on(game, w, s)]
    if waited:
        names = ", ".join(str(getattr(game.seats[s], "name", s)) for s in waited)
        raise Forbidden(
            f"a host who plays may preview a step only once every seat has acted; it still waits on {names}",
            field="window_id",
        )


def _waits_on(game: Any, w: Window, seat: str) -> bool:
    try:
        return bool(game.waits_on(w, seat))
    except (NotImplementedError, KeyError):
        return False


def pending_window(game: Any, window_id: str | None = None) -> Window:
    """The window whose close is the pending step: the one named, else the first open window a rule governs and
    that is not stale. NotFound or RuleViolation naming ``window_id`` when there is none: nothing is recorded."""
    from domain.platform import flow  # flow builds on the commands, which build on the game

    if window_id is not None:
        w = game.state.windows.get(window_id)
        if w is None or w.closed:
            raise NotFound(f"no open window {window_id!r} to preview", field="window_id")
        return w  # type: ignore[no-any-return]
    for w in game.state.windows.values():
        rule = flow.rule_for(game, w)
        if not w.closed and rule is not None and not rule.stale(game, w):
            return w  # type: ignore[no-any-return]
    raise RuleViolation("nothing is pending to preview: no window of this game is open", field="window_id")


def step_of(game: Any, w: Window) -> str:
    """The step a window's close ends, in the game's own word (Powers' ``step``, a covenant ``phase``)."""
    state = game.state
    return str(getattr(state, "step", None) or getattr(state, "phase", None) or w.kind)


def viewers(game: Any, principal: str) -> list[str]:
    """Whose outcomes a previewer sees: the GM (the organiser) every seat's, the GM's and the observers'; a host who
    plays its own and the observers' alone."""
    if principal == GM:
        return [GM, *game.seats, OBSERVER]
    return [principal, OBSERVER]


def audience(game: Any) -> list[str]:
    """Who sees the audit line: the GM and every seat holding ``windows`` (a host)."""
    return [GM, *(vis.seat(s) for s in game.seats if s != GM and game.may(s, WINDOWS))]


class Previews:
    """The audit half of ``PlatformGame`` for previews (a mixin: its event becomes the platform's)."""

    if TYPE_CHECKING:  # the aggregate supplies these (domain.platform.game.PlatformGame)
        state: Any
        trigger_event: Any

    class Previewed(Aggregate.Event):
        window_id: str
        step: str
        at: str
        actor: str
        audience: list[str]  # the GM's and the hosts': the game's base event counts it in their sequences

    def record_preview(self, by: str, window_id: str, step: str, at: str, audience: list[str]) -> None:
        """The one line a preview leaves in the game: who previewed which step, and when."""
        self.trigger_event(self.Previewed, window_id=window_id, step=step, at=at, actor=by, audience=audience)
