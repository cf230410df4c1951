"""A preview for the GM or host (issue 29 item 2; ``domain.platform.preview``): the pending step closed in a scratch
copy of the game, every viewer's outcome answered from the copy, one audit line recorded in the game.

The copy is folded afresh from the store at the game's version, in the same transaction as the audit line, and
given the audit line too (a covenant turn's window is named after the game's version), so the step previewed is the
step a close right after publishes, with the same committed seed and roll numbers (the copy's rolls
are never the game's: nothing of the copy is saved). The outcome is answered to the caller only: it is not in the
receipt a key would keep (a preview takes no idempotency key), nor anywhere in the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from application.mails import names_of
from application.service import Caller, Games, Turn
from domain import visibility as vis
from domain.errors import DomainError
from domain.platform import explain
from domain.platform import preview as previews
from domain.platform.commands import CloseWindow
from domain.platform.feed import describe_event
from projections.gamestore import event_data


@dataclass
class Preview:
    """What a preview found: the step, who previewed it and when, and each viewer's outcome."""

    game_id: str
    window_id: str
    step: str
    by: str
    at: str
    blocked: str | None = None  # the refusal that would keep the close from happening (the close would block)
    outcomes: dict[str, dict[str, Any]] = field(default_factory=dict)  # viewer -> events, view, derivations

    def as_dict(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "window_id": self.window_id,
            "step": self.step,
            "previewed_by": self.by,
            "at": self.at,
            "blocked": self.blocked,
            "viewers": self.outcomes,
        }


def preview(games: Games, caller: Caller, game_id: str, window_id: str | None = None) -> Preview:
    """Preview the pending step (the open window named, or the first that governs the game) for the GM or a host:
    Forbidden for anyone else, naming the roles (nothing recorded); the audit line ``Previewed`` is recorded with the
    copy's making in one transaction."""
    found: dict[str, Any] = {}

    def turn(t: Turn) -> dict[str, Any]:
        game = t.game
        previews.require_previewer(game, caller.principal)
        w = previews.pending_window(game, window_id)
        previews.require_settled(game, caller.principal, w)
        step = previews.step_of(game, w)
        now: datetime = games.clock()
        line = (caller.principal, w.id, step, now.isoformat(), previews.audience(game))
        scratch = games.get_game(game_id, game.version, for_update=True)  # folded afresh: shares nothing with game
        upto = scratch.version  # the stored events the copy was folded from (not the audit line, nor what follows)
        game.record_preview(*line)
        scratch.record_preview(*line)  # the copy holds the audit line too: a close reads the game's version
        mark = len(scratch.pending_events)
        blocked = _close_in(games, caller, scratch, w.id)
        found.update(
            scratch=scratch, upto=upto, mark=mark, window_id=w.id, step=step, blocked=blocked, at=now.isoformat()
        )
        return {"previewed": w.id, "step": step}

    games.run_turn(caller, game_id, turn)
    scratch = found["scratch"]
    out = Preview(game_id, found["window_id"], found["step"], caller.principal, found["at"], found["blocked"])
    out.outcomes = outcomes(games, scratch, previews.viewers(scratch, caller.principal), found["mark"], found["upto"])
    return out


def _close_in(games: Games, caller: Caller, scratch: Any, window_id: str) -> str | None:
    """Close the window in the scratch copy as the GM's close would; the refusal in words if the close would block
    (a default the rules refuse: the real close then records the block instead)."""
    held = scratch.blocked_at(window_id)
    if held is not None:
        return str(held.get("reason") or held.get("rule") or "blocked")
    try:
        Turn(games, caller, scratch, []).execute(CloseWindow(window_id))
    except DomainError as err:
        return str(err)
    return None


def outcomes(
    games: Games, scratch: Any, viewers: Iterable[str], mark: int = 0, upto: int | None = None
) -> dict[str, dict[str, Any]]:
    """Each viewer's outcome of the step closed in ``scratch``: the events of it they would see (numbered on from
    their own events), their view after it, and the derivations of the results it publishes (``explain``). The
    copy's first ``mark`` unsaved events came before the step (the audit line), and it was folded from the stored
    events up to ``upto`` (the game's own audit line, stored since, and anything recorded after are not the copy's)."""
    earlier = [*games.stored_events(scratch.id, lte=upto), *scratch.pending_events[:mark]]
    new = list(scratch.pending_events[mark:])
    names = names_of(scratch, gm="the GM")
    out: dict[str, dict[str, Any]] = {}
    for viewer in viewers:
        before = _items(e for e in earlier if vis.can_see(e.audience, viewer))
        after = _items((e for e in new if vis.can_see(e.audience, viewer)), start=len(before))
        derived = explain.derivations(scratch.ruleset, [*before, *after])
        out[viewer] = {
            "events": [
                {**item, "text": describe_event(scratch.ruleset, item["type"], item["data"], names)} for item in after
            ],
            "view": _view(games, scratch, viewer),
            "derivations": {k: d for k, d in derived.items() if int(d["source"].get("seq") or 0) > len(before)},
        }
    return out


def _items(events: Iterable[Any], start: int = 0) -> list[dict[str, Any]]:
    return [
        {"seq": start + n, "type": type(e).__name__, "actor": e.actor, "data": event_data(e)}
        for n, e in enumerate(events, start=1)
    ]


def _view(games: Games, scratch: Any, viewer: str) -> dict[str, Any] | None:
    """The viewer's view of the copy after the step (None where the ruleset shows an observer no view)."""
    try:
        return games._view(scratch, viewer)
    except (DomainError, KeyError, ValueError, AttributeError):
        return None
