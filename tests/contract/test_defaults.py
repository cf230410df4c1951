"""Every default on silence is a command the ruleset accepts (issue 26 item 2, DESIGN "Promises are platform
properties"): the platform runs each ruleset's windows from its steps (``domain.platform.flow``), and at a window's
close each seat it still waits on is taken to send its declared default through the ruleset's own handler.

For every registered ruleset, seeded random play (``tests/contract/test_liveness.py``) reaches windows; at each one
open after each turn, each pending seat's declared default is sent as the platform sends it at the close (as that
seat, ``Context.silent``), on a copy of the game in that state: it must be accepted. A window's kind no step of its
ruleset declares is named, so no ruleset can open a window with no legal default.
"""

from __future__ import annotations

from copy import deepcopy

import pytest

from application.service import Caller
from domain.errors import DomainError
from domain.platform import flow
from domain.platform import ruleset as registry
from domain.platform.commands import Command
from tests.contract.test_liveness import Play, plan_for


def _declares_windows(ruleset: registry.Ruleset) -> bool:
    return any(step.windows for step in ruleset.steps)


def test_every_pending_seats_default_on_silence_is_accepted_at_every_window_random_play_reaches(ruleset):
    if not _declares_windows(ruleset):
        pytest.skip(f"{ruleset.name!r} runs its own windows still: its steps declare none (issue 26 item 2)")
    plan = plan_for(ruleset)
    checked: set[tuple[str, str]] = set()
    defaults = 0
    for seed in range(plan.games):
        defaults += _play(Play(ruleset, plan, seed), checked)
    assert checked, f"{ruleset.name}: random play reached no window"
    assert defaults, f"{ruleset.name}: no window random play reached had a default on silence to send"


def _play(game: Play, checked: set[tuple[str, str]]) -> int:
    """One seeded game, the open windows' defaults checked after each turn; how many defaults were sent."""
    sent = 0
    try:
        for _ in range(game.plan.turns):
            if game.read(lambda g: game.plan.ended(g.state)) or game.out.broken:
                break
            sent += _check_open_windows(game, checked)
            game.turn()
        assert game.out.broken is None, game.out.broken
    finally:
        game.games.close()
    return sent


def _check_open_windows(game: Play, checked: set[tuple[str, str]]) -> int:
    """Send each pending seat's default at each open window (once per window and seat); how many were sent."""
    checked.update((w, "") for w in game.read(lambda g: [w.id for w in g.state.windows.values() if not w.closed]))
    found: list[tuple[str, str, str, Command]] = game.read(lambda g: list(_pending_defaults(g)))
    sent = 0
    for window_id, kind, seat, command in found:
        if (window_id, seat) in checked:
            continue
        checked.add((window_id, seat))
        # on a copy of the game in this state (random play's own closes save what the defaults record)
        trial = deepcopy(game.games.get_game(game.table.game_id, for_update=False))
        ctx = game.games.context(Caller.of(seat), trial)
        try:
            flow.send_default(trial, seat, command, ctx)
        except DomainError as err:
            pytest.fail(
                f"{game.ruleset.name}: at window {window_id} ({kind}) {seat}'s default on silence {command!r} was "
                f"refused: {err.as_dict()}"
            )
        sent += 1
    return sent


def _pending_defaults(game: object):
    for w in list(getattr(game, "state").windows.values()):
        if w.closed:
            continue
        assert flow.rule_for(game, w) is not None, (
            f"window {w.id} of kind {w.kind!r}: no step of its ruleset declares it"
        )
        for seat, command in flow.defaults(game, w).items():
            assert isinstance(command, Command), f"{seat}'s default at {w.id} is not a command: {command!r}"
            yield w.id, w.kind, seat, command


def test_the_contract_names_a_default_the_ruleset_refuses():
    import dataclasses

    from emissary_fake.ruleset import FAKE, ROUND, Post

    from tests.contract.conftest import swapped

    # a round whose silent seats are taken to post for a seat that never joined (TABLE-1 refuses it)
    wrong = dataclasses.replace(ROUND, on_silence=lambda game, w, seat: Post("zed", "(silent)"))
    planted = dataclasses.replace(FAKE, steps=(dataclasses.replace(FAKE.steps[0], windows=(wrong,)),))
    with swapped(planted), pytest.raises(pytest.fail.Exception, match=r"default on silence .*zed.* refused.*TABLE-1"):
        test_every_pending_seats_default_on_silence_is_accepted_at_every_window_random_play_reaches(planted)
