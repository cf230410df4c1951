"""Disputes (issue 29 item 4) in a real (headless) Chromium at 1280 and 360 px, with and without JavaScript, and by
keyboard alone: a power follows its feed line's "Dispute" link, raises a dispute with the form (an empty one is
refused beside it), its feed line says "disputed: open"; the GM answers pointing at a preview and upholds it; the
power reads the outcome. Axe finds no violation on any of these pages and nothing is wider than the screen."""

from __future__ import annotations

import pytest

from tests.helpers import add_power
from tests.web.axe import violations
from tests.web.test_browser_signin import browser, games, pytestmark, server, shot, unlabelled  # noqa: F401


def _table(service):
    gid, gm_token, _ = service.create_game("Disputed realm")
    ann, ann_token, _ = add_power(service, gid, "gm", "Ann", "champion", "wizard")
    add_power(service, gid, "gm", "Bob", "city", "overlord")
    return gid, gm_token, ann, ann_token


def project(app) -> None:
    """The read models caught up with the commands sent (the feed is one)."""
    app.state.projector.catch_up()


def _checked(page, width: int, js: bool) -> None:
    if js:
        assert unlabelled(page) == [] and violations(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("width", [1280, 360])
def test_a_power_disputes_a_feed_line_and_the_gm_answers_and_upholds_it(server, browser, games, width, js):  # noqa: F811
    base, app = server
    gid, gm_token, ann, ann_token = _table(games)
    project(app)
    size = {"width": width, "height": 900}
    tag = f"{width}{'' if js else '-nojs'}"
    player = browser.new_context(java_script_enabled=js, viewport=size).new_page()
    player.goto(f"{base}/signin/{gid}/{ann_token}")
    player.goto(f"{base}/play/{gid}?show=feed")  # the feed is folded away, one step off (issue 28 item 2)
    link = player.locator("#feed a.dispute").first
    label = link.get_attribute("aria-label") or ""
    assert label.startswith("Dispute event #")
    seq = int(label.rsplit("#", 1)[1])
    link.click()
    player.wait_for_url(f"**/play/{gid}/disputes?seq={seq}#raise")
    assert player.get_by_label("Event number").input_value() == str(seq)
    _checked(player, width, js)
    if js:  # past the browser's own check of a required field, to the server's
        player.locator("#dispute-text").evaluate("e => e.required = false")
        player.get_by_role("button", name="Raise the dispute").click()
        player.wait_for_load_state()
        assert player.locator("#err-raise-form").is_visible()
        assert violations(player) == []
        player.get_by_label("Event number").fill(str(seq))
    player.get_by_label("What you dispute, and why").fill("ANN-DISPUTE: I was added twice")
    player.get_by_role("button", name="Raise the dispute").click()
    player.wait_for_load_state()
    assert "Dispute raised." in player.content() and "Outcome: open" in player.content()
    _checked(player, width, js)
    shot(player, f"disputes-raised-{tag}")
    project(app)
    player.goto(f"{base}/play/{gid}?show=feed")
    assert "disputed: open" in player.locator(f"#event-{seq}").inner_text()

    gm = browser.new_context(java_script_enabled=js, viewport=size).new_page()
    gm.goto(f"{base}/signin/{gid}/{gm_token}")
    gm.goto(f"{base}/play/{gid}/disputes")
    assert "Ann disputes event #" in gm.content()
    _checked(gm, width, js)
    gm.get_by_text("Answer", exact=True).click()
    gm.get_by_label("Your answer").fill("GM-ANSWER: see the preview")
    gm.get_by_label("It points at").select_option("preview")
    gm.get_by_role("button", name="Post the answer").click()
    gm.wait_for_load_state()
    assert "Answer posted." in gm.content() and "pointing at a preview of the pending step" in gm.content()
    gm.get_by_text("Settle", exact=True).click()
    gm.get_by_label("Upheld").check()
    gm.get_by_label("Note").fill("added once only")
    gm.get_by_role("button", name="Settle the dispute").click()
    gm.wait_for_load_state()
    assert "Outcome: upheld" in gm.content()
    _checked(gm, width, js)
    shot(gm, f"disputes-settled-{tag}")

    player.goto(f"{base}/play/{gid}/disputes")
    assert "Outcome: upheld" in player.content() and "added once only" in player.content()
    _checked(player, width, js)


def test_a_dispute_is_raised_by_keyboard_alone(server, browser, games):  # noqa: F811
    base, app = server
    gid, _gm_token, ann, ann_token = _table(games)
    project(app)
    player = browser.new_context(viewport={"width": 360, "height": 900}).new_page()
    player.goto(f"{base}/signin/{gid}/{ann_token}")
    player.goto(f"{base}/play/{gid}")
    for _ in range(400):
        if (player.evaluate("document.activeElement.getAttribute('aria-label')") or "").startswith("Dispute event #"):
            break
        if player.evaluate("document.activeElement.matches('#fold-feed:not([open]) > summary')"):
            player.keyboard.press("Enter")  # the feed is folded away, one step off (issue 28 item 2)
        player.keyboard.press("Tab")
    with player.expect_navigation():
        player.keyboard.press("Enter")
    while player.evaluate("document.activeElement.id") != "dispute-seq":
        player.keyboard.press("Tab")
    player.keyboard.press("Tab")
    assert player.evaluate("document.activeElement.id") == "dispute-text"
    player.keyboard.type("By keyboard")
    player.keyboard.press("Tab")
    assert player.evaluate("document.activeElement.textContent") == "Raise the dispute"
    with player.expect_navigation():
        player.keyboard.press("Enter")
    assert "Dispute raised." in player.content()
    assert [d for d in games.get_game(gid, for_update=False).disputes_for(ann)]
