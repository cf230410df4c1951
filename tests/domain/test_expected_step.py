"""Commands that move the game name the step they were sent from (README, "Commands that can run twice")."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from domain.dice import SeededRoller
from domain.errors import Conflict
from domain.powers.game import Game
from tests.domain.helpers import step_of

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
SEED = "ab" * 32


def planning() -> Game:
    game = Game.start("Steps", "GM")
    game.add_power("alpha", "Alpha", "conspiracy", "circle")
    game.advance(NOW, SEED, "setup")
    game.advance(NOW, SEED, "tidings")
    game.collect_events()
    return game


@pytest.mark.parametrize(
    "command",
    [
        lambda g: g.advance(NOW, SEED, "tidings"),
        lambda g: g.resolve(now=NOW, roller=SeededRoller(SEED), expected_step="resolution"),
        lambda g: g.close_window("s1m1-planning", now=NOW, force=True, expected_step="resistance"),
    ],
)
def test_a_command_sent_for_another_step_is_refused_naming_the_current_one_and_records_nothing(command):
    game = planning()
    with pytest.raises(Conflict) as refused:
        command(game)
    assert refused.value.field == "expected_step" and "now at planning" in refused.value.message
    assert game.collect_events() == [] and step_of(game) == "planning"


def test_the_expected_step_lets_the_command_through():
    game = planning()
    assert game.advance(NOW, SEED, "planning") == "resolution"
    assert game.resolve(now=NOW, roller=SeededRoller(SEED), expected_step="resolution") == []
