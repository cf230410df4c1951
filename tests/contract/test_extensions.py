"""Extensions come from the platform for every registered ruleset, the fake one included (issue 26 item 2; GM-8):
in a game's first open window a seat asks for more time and the GM grants it; its deadline moves by that much. A
ruleset whose options name no cap (``PlatformGame.extension_caps``) leaves the amount to the GM; one that names caps
refuses a grant beyond them, naming GM-8 and the field, and records nothing."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

import pytest

from application.service import Caller
from domain.errors import RuleViolation
from domain.ids import GM
from domain.platform.commands import GrantExtension, RequestExtension
from tests.contract.test_liveness import Play, plan_for


def _first_open_window(play: Play) -> tuple[str, list[str]] | None:
    """The first open window and the seats it waits on, after random legal play up to then."""
    from domain.platform import flow

    for _ in range(60):
        found = play.read(
            lambda g: next(
                (
                    (w.id, list(flow.waiting(g, w)))
                    for w in g.state.windows.values()
                    if not w.closed and flow.rule_for(g, w)
                ),
                None,
            )
        )
        if found and found[1]:
            return found
        play.turn()
        assert play.out.broken is None, play.out.broken
    return None


def _caps(game: Any) -> list[Any]:
    """The game's extension caps (per window, in all) as its options set them, None where they name none."""
    return [game.state.options.get(name) for name in type(game).extension_caps]


def test_a_seat_asks_for_more_time_and_the_gm_grants_it(ruleset):
    play = Play(ruleset, plan_for(ruleset), seed=3)
    try:
        found = _first_open_window(play)
        if found is None:
            pytest.fail(f"{ruleset.name}: random play opened no window a seat waits on")
        window_id, waited = found
        seat = waited[0]
        caps = play.read(_caps)
        hours = min([float(c) for c in caps if c is not None] + [48.0])
        before = play.read(lambda g: g.window(window_id).deadline_for(seat))
        asked = play.games.run(Caller.of(seat), play.table.game_id, RequestExtension(seat, hours, window_id))
        request_id = asked.result["request_id"]
        if hours > 0:
            play.games.run(Caller.of(GM), play.table.game_id, GrantExtension(request_id))
            after = play.read(lambda g: g.window(window_id).deadline_for(seat))
            moved = datetime.fromisoformat(after) - datetime.fromisoformat(before)
            assert moved >= timedelta(hours=hours) - timedelta(seconds=1), (before, after)
        if all(c is not None for c in caps):
            version = play.read(lambda g: g.version)
            again = play.games.run(Caller.of(seat), play.table.game_id, RequestExtension(seat, 1, window_id))
            with pytest.raises(RuleViolation) as refused:
                play.games.run(Caller.of(GM), play.table.game_id, GrantExtension(again.result["request_id"], 10_000))
            assert refused.value.rule == "GM-8" and refused.value.field == "hours"
            assert play.read(lambda g: g.version) == version + 1  # the request only
    finally:
        play.games.close()
