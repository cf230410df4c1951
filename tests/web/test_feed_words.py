"""Issue 17: each ruleset words its own feed lines (``Ruleset.describe``); the page names no event class."""

from __future__ import annotations

from tests.web.test_lodge_board import page, site  # noqa: F401  (the Lodge's fixture)


def test_the_feed_reads_in_the_lodge_s_own_words(site):  # noqa: F811
    app, gid, tokens = site
    _, bob = page(app, gid, tokens["bob"])
    feed = bob[bob.index('id="feed"') :]
    assert "The actions phase has begun" in feed
    assert "PhaseBegan" not in feed and "MageAdded" not in feed
