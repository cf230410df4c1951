"""Issue 17: each ruleset words its own feed lines (``Ruleset.describe``); the page names no event class."""

from __future__ import annotations

from domain.powers import commands as pc
from tests.helpers import add_power
from tests.web.test_lodge_board import page, site  # noqa: F401  (the Lodge's fixture)


def test_the_feed_reads_in_the_lodge_s_own_words(site):  # noqa: F811
    app, gid, tokens = site
    _, bob = page(app, gid, tokens["bob"])
    feed = bob[bob.index('id="feed"') :]
    assert "The actions phase has begun" in feed
    assert "PhaseBegan" not in feed and "MageAdded" not in feed


def test_a_difficulty_changed_after_the_roll_says_so_in_the_feed(app, games):
    """Issue 17: a difficulty the GM sets after the roll is said to be so in the actor's feed."""
    import re

    from fastapi.testclient import TestClient

    gid, _, _ = games.create_game("Late difficulty")
    pid, token, _ = add_power(games, gid, "gm", "Lord", "city", "overlord")
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    action = games.send(gid, pid, pc.SubmitAction(pid, title="Tax the farms", slot="public", difficulty=1)).result
    games.send(gid, "gm", pc.SetDifficulty(action["action_id"], 3))
    client = TestClient(app)
    client.get(f"/signin/{gid}/{token}")
    html = client.get(f"/play/{gid}").text
    feed = re.sub(r"\s+", " ", html[html.index('id="feed"') :])
    assert "The GM set the difficulty of an action to 3 after the roll." in feed
