"""The platform runs the flow a ruleset's steps declare (issue 26 item 2, ``domain.platform.flow``), seen through
the fake table's rounds: commands sent, the events their receipts name, and the table's view."""

from __future__ import annotations

import dataclasses
from datetime import UTC, datetime, timedelta

import pytest
from emissary_fake.ruleset import FAKE, ROUND, Join, Post

from application.service import SYSTEM_CALLER, Caller, Games
from domain.platform.commands import CloseDueWindow, CloseWindow
from tests.contract.conftest import swapped

START = datetime(2026, 12, 1, 12, tzinfo=UTC)


@pytest.fixture
def table():
    clock = [START]
    games = Games(clock=lambda: clock[0])
    with swapped(FAKE):
        game_id, _, _ = games.create_game("Rounds", ruleset="table")
        seated = games.run_many(Caller.of("gm"), game_id, [Join("ann", "Ann"), Join("bob", "Bob"), Join("cy", "Cy")])
        yield games, game_id, clock, seated
    games.close()


def _round(games: Games, game_id: str) -> str:
    """The open round's window id, as the platform's windows answer it."""
    return str(games.read(game_id, lambda g: g.open_window("round").id))


def test_a_full_table_opens_a_round_that_closes_early_when_everyone_posted_and_the_next_opens(table):
    games, game_id, clock, seated = table
    assert seated.events[-1] == "WindowOpened"  # the third seat makes the table full: a round opens on entry
    first = _round(games, game_id)
    for seat in ("ann", "bob"):
        assert games.run(Caller.of(seat), game_id, Post(seat, "hi")).events == ["Posted"]  # still waits on cy
    last = games.run(Caller.of("cy"), game_id, Post("cy", "hi"))
    assert last.events == ["Posted", "WindowClosed", "WindowOpened"]  # closed early, the next round entered
    assert _round(games, game_id) != first


def test_at_the_deadline_each_silent_seat_is_taken_to_send_its_default_through_the_rulesets_handler(table):
    games, game_id, clock, _ = table
    games.run(Caller.of("ann"), game_id, Post("ann", "here"))
    window = _round(games, game_id)
    assert games.run(SYSTEM_CALLER, game_id, CloseDueWindow(window)).result == {"closed": False}  # not due yet
    clock[0] = START + timedelta(hours=25)
    closed = games.run(SYSTEM_CALLER, game_id, CloseDueWindow(window))
    # bob and cy were silent: each is taken to post "(silent)", then the round closes and the next opens
    assert closed.result == {"closed": True}
    assert closed.events == ["Posted", "Posted", "WindowClosed", "WindowOpened"]
    assert games.view(game_id, "ann")["posts"][-2:] == [
        {"seat": "bob", "text": "(silent)"},
        {"seat": "cy", "text": "(silent)"},
    ]


def test_the_gm_closes_a_round_now_and_the_silent_seats_defaults_are_sent_the_same_way(table):
    games, game_id, _, _ = table
    window = _round(games, game_id)
    closed = games.run(Caller.of("gm"), game_id, CloseWindow(window))
    assert closed.events == ["Posted", "Posted", "Posted", "WindowClosed", "WindowOpened"]


def test_a_default_the_rules_refuse_keeps_nothing_of_the_close_and_blocks_the_game(table):
    games, game_id, clock, _ = table
    wrong = dataclasses.replace(ROUND, on_silence=lambda game, w, seat: Post("zed", "(silent)"))
    planted = dataclasses.replace(FAKE, steps=(dataclasses.replace(FAKE.steps[0], windows=(wrong,)),))
    window = _round(games, game_id)
    clock[0] = START + timedelta(hours=25)
    with swapped(planted):
        closed = games.run(SYSTEM_CALLER, game_id, CloseDueWindow(window))
    assert closed.result["closed"] is False and closed.result["blocked"]["rule"] == "TABLE-1"
    assert closed.events == []  # GameBlocked is recorded for the GM (and a host), not for the sweep to read
    assert games.view(game_id, "gm")["posts"] == []  # nothing of the close was kept


def test_closing_a_window_no_step_declares_is_refused_naming_it_and_records_nothing(table):
    """The platform closes every window a step declares; a window of another kind has no rule to close it, and a
    ruleset that does not close such windows itself refuses, naming the window, with nothing recorded."""
    from domain.errors import RuleViolation
    from domain.platform import flow
    from domain.platform.commands import PLATFORM_COMMANDS, trial_context

    games, game_id, clock, _ = table
    game = games.get_game(game_id, for_update=False)
    flow.open_window(game, "w-odd", "odd", now=START, hours=1)
    assert flow.rule_for(game, game.window("w-odd")) is None
    version = game.version
    with pytest.raises(RuleViolation) as refused:
        PLATFORM_COMMANDS[CloseWindow](game, CloseWindow("w-odd"), trial_context(game, "gm", START))
    assert refused.value.field == "window_id" and "'w-odd'" in refused.value.message
    assert game.version == version and not game.window("w-odd").closed
