"""Issue 17, "every string ready for translation (gettext/Babel) with dates and numbers formatted by locale",
in a real (headless) Chromium at 1280 and 360 px: a browser that asks for German reads the board in German
(the catalog's words, German dates in the viewer's zone, German numbers, the script's countdown and Copy
label), an English browser switches with the footer's choice and back, and axe finds nothing either way.
Screenshots land in test-output/screenshots/."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from tests.web.axe import violations
from tests.web.test_browser_month import browser, games, pytestmark, server, shot  # noqa: F401  (fixtures)
from tests.web.test_browser_play_surface import rich_game

GERMAN_DATE = re.compile(r"[A-Z][a-z]\., \d{1,2}\. [A-Z][a-zä]+\.? 20\d\d, \d\d:\d\d (CET|CEST|MEZ|MESZ)")


def page_in(chromium, base, gid, token, *, width: int, locale: str | None):
    context = chromium.new_context(viewport={"width": width, "height": 900}, **({"locale": locale} if locale else {}))
    page = context.new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    return page


@pytest.mark.parametrize("width", [1280, 360])
def test_a_german_browser_reads_the_board_in_german(server, browser, width, games):  # noqa: F811
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    games.set_timezone(gid, "gondor", "gondor", "Europe/Berlin")
    gondor = page_in(browser, base, gid, tokens["gondor"], width=width, locale="de-DE")
    assert gondor.locator("html").get_attribute("lang") == "de"
    strip = gondor.locator("#status-strip").inner_text()
    assert "Du bist am Zug." in strip and "Your move." not in strip
    assert "Planung" in gondor.locator("#status-strip ol.steps").inner_text()  # the calendar's steps too
    assert gondor.get_by_label("Sprache").count() == 1  # the footer's choice, in German
    deadline = gondor.locator("#status-strip time").first.inner_text()
    assert GERMAN_DATE.fullmatch(deadline), deadline
    expect(gondor.locator(".countdown").first).to_have_text(re.compile(r"^ \(in (\d+ T\. )?\d+ Std\. \d+ Min\.\)$"))
    assert violations(gondor) == []
    assert gondor.evaluate("document.documentElement.scrollWidth") <= width
    shot(gondor, f"lang-01-board-german-{width}")

    gm = page_in(browser, base, gid, gm_token, width=width, locale="de-DE")
    gm.goto(f"{base}/play/{gid}#tab-powers")
    gm.locator("#pname").fill("Rohan")  # a link is listed, with Copy, in the browser that added the power
    with gm.expect_navigation():
        gm.locator("form:has(#pname) button[type=submit]").click()
    copy = gm.locator("button[data-copy]").first
    copy.click()
    expect(copy).to_have_text("Kopiert")
    assert violations(gm) == []
    shot(gm, f"lang-02-console-german-{width}")


@pytest.mark.parametrize("width", [1280, 360])
def test_the_footer_choice_overrides_the_browser_and_can_be_undone(server, browser, width):  # noqa: F811
    base, app = server
    gid, _, tokens = rich_game(app)
    gondor = page_in(browser, base, gid, tokens["gondor"], width=width, locale="en-US")
    assert "Your move." in gondor.locator("#status-strip").inner_text()
    gondor.get_by_label("Language").select_option(label="Deutsch")
    with gondor.expect_navigation():
        gondor.get_by_role("button", name="Change").click()
    assert gondor.url.endswith(f"/play/{gid}")  # back on the page it was chosen on
    assert "Du bist am Zug." in gondor.locator("#status-strip").inner_text()
    assert violations(gondor) == []
    shot(gondor, f"lang-03-chosen-german-{width}")
    gondor.get_by_label("Sprache").select_option(value="")
    with gondor.expect_navigation():
        gondor.get_by_role("button", name="Ändern").click()
    assert "Your move." in gondor.locator("#status-strip").inner_text()
