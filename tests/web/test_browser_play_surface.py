"""Issue 17, "What was seen": each fix shown in a real (headless) Chromium driven by Playwright, at 1280 and
360 px. The server and the browser are the fixtures of ``test_browser_month`` (both stopped even when a test
fails); screenshots land in test-output/screenshots/."""

from __future__ import annotations

import re

from tests.web.test_browser_month import browser, pytestmark, server, shot  # noqa: F401  (fixtures)


def rich_game(app, names=("Gandalf", "Rangers", "Gondor")):
    """A game in month 1 Planning with three powers, by the service; the GM's and the powers' tokens."""
    games = app.state.games
    gid, gm_token, _ = games.create_game("Middle-earth", "GM", "Europe/Paris")
    tokens = {}
    for name, cls, sub in zip(names, ("champion", "conspiracy", "city"), ("wizard", "circle", "sovereign")):
        pid, token, _ = games.add_power(gid, "gm", name, cls, sub)
        tokens[pid] = token
    for pid in tokens:
        games.grant_asset(gid, "gm", pid, "might", "skill", 2)
    games.advance(gid, "gm")
    games.advance(gid, "gm")
    return gid, gm_token, tokens


def signed_in(chromium, base, gid, token, width=1280):
    page = chromium.new_context(viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    return page


def feed_lines(page) -> list[str]:
    return [t.strip() for t in page.locator("#feed ol.feed li").all_inner_texts()]


def test_the_feed_reads_in_words_with_my_numbers_a_page_at_a_time(server, browser):  # noqa: F811
    """The feed names no internal event, numbers lines by the viewer's own event numbers (not by position,
    not the game's versions), and pages back past the newest 40 through "Older events"."""
    base, app = server
    games = app.state.games
    gid, gm_token, tokens = rich_game(app)
    for n in range(42):
        games.grant_asset(gid, "gm", "gondor", f"beacon{n}", "agent", 1)
    games.submit_action(gid, "gandalf", "gandalf", title="Duel the Witch-king", skill="might")
    gondor = signed_in(browser, base, gid, tokens["gondor"], width=360)
    lines = feed_lines(gondor)
    assert len(lines) == 40
    text = "\n".join(lines)
    assert not re.search(r"StepBegan|SeedCommitted|WindowOpened|AssetGranted|gm advanced", text)
    assert "Gondor gained the asset beacon41 (agent, rank 1)." in text
    assert "Duel the Witch-king" not in gondor.content()  # Gandalf's private action
    mine = games.visible_events(gid, "gondor", limit=1000)
    assert lines[0].startswith(f"#{mine[-1]['seq']} ")  # the newest, by Gondor's own number
    shot(gondor, "play17-01-feed-in-words-phone")
    gondor.get_by_role("link", name="Older events").click()
    older = feed_lines(gondor)
    assert older[0].startswith(f"#{mine[-41]['seq']} ") and older[-1].startswith("#1 ")
    assert "Season 1, month 1: Planning began." in "\n".join(lines + older)
    shot(gondor, "play17-02-feed-older-page")
    gm = signed_in(browser, base, gid, gm_token)
    gm_lines = feed_lines(gm)
    assert "Gandalf submitted “Duel the Witch-king” (private). by Gandalf" in "\n".join(gm_lines)
    assert gm_lines[0].startswith(f"#{games.visible_events(gid, 'gm', limit=1000)[-1]['seq']} ")
