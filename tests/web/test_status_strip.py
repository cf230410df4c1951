"""The status strip's platform function (issue 17, ``api.web.status``): the timeline leaves out what a rollback
undid, and an earlier phase shows no deadline and no "your move"."""

from __future__ import annotations

from zoneinfo import ZoneInfo

from api.web.routes import latest_rollback
from api.web.status import status_strip
from domain.powers import commands as pc
from tests.web.test_browser_play_surface import rich_game


def strip_of(app, gid, who, **kw):
    games = app.state.games
    game = games.get_game(gid, for_update=False)
    rolled = latest_rollback(app.state.projector, str(game.id))
    return status_strip(game, who, games.view(gid, who), ZoneInfo("UTC"), games.recent_phases(gid), rolled, **kw)


def test_after_a_rollback_the_timeline_is_at_the_phase_returned_to_and_leaves_out_what_was_undone(app, games):
    gid, _, _ = rich_game(app)
    games.send(gid, "gm", pc.Advance())  # close Planning
    games.send(gid, "gm", pc.Resolve())  # on to Battle (nothing to resist)
    games.send(gid, "gm", pc.Advance())  # month 2 Planning
    before = strip_of(app, gid, "gondor")["timeline"]
    assert before["current"] == "Season 1, month 2: Planning"
    assert "Season 1, month 1: Battle" in before["recent"]
    games.rollback(gid, "gm", "a lost beacon", phase="s1m1-planning")
    after = strip_of(app, gid, "gondor")
    assert after["timeline"]["current"] == "Season 1, month 1: Planning"
    assert after["timeline"]["recent"] == ["Season 1: Tidings"]  # month 1's later phases were undone
    assert after["status"] == ("mine", "Your move.")
    past = strip_of(app, gid, "gondor", past=True)
    assert past["deadlines"] == [] and past["seats"] == [] and past["status"][0] == "past"
