"""Readiness is data the platform runs (issue 26 item 2, ``domain.platform.flow``): each window rule says whether a seat
may declare itself ready in it (``WindowRule.ready``, the platform's ``DeclareReady``), for every registered ruleset.

Seeded random play (``tests/contract/test_liveness.py``) reaches windows; at each state with a window open, on a copy
of the game in that state: where no open window's rule allows readiness, a seat's ``DeclareReady`` is refused naming
``WindowRule.ready`` and records nothing; where one does, every seat it waits on declares itself ready, and the
window closes after the last, exactly once.
"""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime
from typing import Any

import pytest

from application.service import Caller
from domain.errors import DomainError, RuleViolation
from domain.platform import flow
from domain.platform.commands import DeclareReady
from domain.platform.state import Window
from tests.contract.test_liveness import Play, _fork_at, plan_for


def _declared(ruleset: Any, ready: bool) -> bool:
    return any(rule.ready is ready for step in ruleset.steps for rule in step.windows)


def test_readiness_is_refused_where_no_open_windows_rule_allows_it_and_closes_a_window_that_does_once(ruleset):
    assert _declared(ruleset, True) or _declared(ruleset, False), f"{ruleset.name}: its steps declare no window"
    plan = plan_for(ruleset)
    refused: set[str] = set()  # the kinds of window a readiness was refused in
    closed: set[str] = set()  # the kinds of window closed by everyone's readiness
    for seed in range(plan.games):
        game = Play(ruleset, plan, seed)
        try:
            for _ in range(plan.turns):
                if _ended(game) or game.out.broken:
                    break
                _check(game, refused, closed)
                game.turn()
        finally:
            game.games.close()
    if _declared(ruleset, False):
        assert refused, f"{ruleset.name}: random play reached no window whose rule takes no readiness"
    if _declared(ruleset, True):
        assert closed, f"{ruleset.name}: random play reached no window whose rule takes readiness"


def _ended(game: Play) -> bool:
    """Whether the game's rules ended it."""
    return bool(game.read(lambda g: game.plan.ended(g.state)))


def _check(game: Play, refused: set[str], closed: set[str]) -> None:
    """On a copy of the game now: a readiness is refused, or everyone's closes the window that takes it, once."""
    version, now = game.read(lambda g: g.version), game.now[0]
    opened: list[tuple[Window, bool]] = game.read(
        lambda g: [(w, _takes_readiness(g, w)) for w in g.state.windows.values() if not w.closed]
    )
    if not opened:
        return
    taking = [w for w, ready in opened if ready]
    if not taking:
        kinds = {w.kind.split(":")[0] for w, _ in opened}
        if not kinds <= refused:
            _refused(game, version)
            refused.update(kinds)
        return
    w = taking[0]
    if w.kind.split(":")[0] in closed or now >= datetime.fromisoformat(w.final_closes_at):
        return
    _everyone_ready(game, version, w)
    closed.add(w.kind.split(":")[0])


def _takes_readiness(game: Any, w: Window) -> bool:
    rule = flow.rule_for(game, w)
    return rule is not None and rule.ready and not rule.stale(game, w)


def _refused(game: Play, version: int) -> None:
    copy = _fork_at(game, version)
    seat = game.table.seats[0]
    before = game.games.get_game(copy, for_update=False).version
    with pytest.raises(RuleViolation) as refusal:
        game.games.run(Caller.of(seat), copy, DeclareReady(seat))
    assert refusal.value.field == "command" and "WindowRule.ready" in refusal.value.message, refusal.value.as_dict()
    assert game.games.get_game(copy, for_update=False).version == before, "a refused readiness recorded something"


def _everyone_ready(game: Play, version: int, w: Window) -> None:
    copy = _fork_at(game, version)
    seats = game.games.read(copy, lambda g: flow.waiting(g, w)) or [
        game.games.read(copy, lambda g: next(s for s, seat in sorted(g.seats.items()) if not seat.ready))
    ]
    for i, seat in enumerate(seats):
        try:
            game.games.run(Caller.of(seat), copy, DeclareReady(seat))
        except DomainError as err:
            pytest.fail(f"{game.ruleset.name}: {seat} declared itself ready in {w.id} and was refused: {err.as_dict()}")
        still = game.games.read(copy, lambda g: not g.state.windows[w.id].closed)
        assert still is (i < len(seats) - 1), f"{w.id}: closed {'before' if still is False else 'after'} the last"
    closes = [e for e in game.games.events.get(uuid.UUID(copy)) if type(e).__name__ == "WindowClosed"]
    assert [e.window_id for e in closes].count(w.id) == 1, f"{w.id} closed {len(closes)} times"


# ---------------------------------------------------------------------- on the platform alone: the fake's round


def test_on_the_platform_alone_a_round_that_takes_readiness_closes_once_everyone_is_ready():
    """The fake's round, planted to take readiness: the platform records each seat's, and closes the round after the
    last, once, and the next round opens with nobody ready; a seat already ready is refused, and so is a readiness
    where the round's own rule says no."""
    from emissary_fake.ruleset import FAKE, ROUND, Join

    from application.service import Games
    from tests.contract.conftest import swapped

    planted = dataclasses.replace(
        FAKE, steps=(dataclasses.replace(FAKE.steps[0], windows=(dataclasses.replace(ROUND, ready=True),)),)
    )
    games = Games()
    try:
        with swapped(planted):
            game_id, _, _ = games.create_game("Ready", ruleset="table")
            games.run_many(Caller.of("gm"), game_id, [Join("ann", "Ann"), Join("bob", "Bob"), Join("cy", "Cy")])
            events = [games.run(Caller.of(s), game_id, DeclareReady(s)).events for s in ("ann", "bob", "cy")]
            assert events == [["ReadyDeclared"], ["ReadyDeclared"], ["ReadyDeclared", "WindowClosed", "WindowOpened"]]
            assert games.read(game_id, lambda g: not any(seat.ready for seat in g.seats.values()))  # the next round
            assert games.run(Caller.of("ann"), game_id, DeclareReady("ann")).events == ["ReadyDeclared"]
            with pytest.raises(RuleViolation, match="already said you are ready"):
                games.run(Caller.of("ann"), game_id, DeclareReady("ann"))
        version = games.get_game(game_id, for_update=False).version
        with swapped(FAKE), pytest.raises(RuleViolation, match=r"WindowRule\.ready"):  # the round as declared
            games.run(Caller.of("bob"), game_id, DeclareReady("bob"))
        assert games.get_game(game_id, for_update=False).version == version
    finally:
        games.close()
