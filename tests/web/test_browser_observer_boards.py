"""Issue 28 item 1 for observers, in a real (headless) Chromium: an invited observer's page of each ruleset's demo game
shows its board drawn (the Powers map, the covenant track and cards, the Lodge's floor plan) with its text
equivalent, at 1280 and 360 px with axe at 0 violations, nothing wider than a phone and the drawing's smallest
label readable there; by keyboard alone the observer reaches the drawing's words (and on the Powers map a hex, whose
panel says what the table knows of it and offers no form), and without JavaScript the same page is drawn by the
server (a chosen hex by its link). Screenshots land in test-output/screenshots/observer-board-*.png."""

from __future__ import annotations

import pytest

from tests.web.test_browser_axe import check
from tests.web.test_browser_month import SHOTS
from tests.web.test_browser_signin import browser, games, pytestmark, server, unlabelled  # noqa: F401  (fixtures)
from tests.web.test_observer_boards import BOARD, observer_token
from tests.web.test_words_not_ids import RULESETS

READABLE_PX = 9  # the smallest label a drawing may have at 360 px (as the Powers map's test holds its own)
WORDS = {  # how the drawing's text equivalent is reached: the element that opens or holds it
    "powers": "table.map-table",
    "covenants": "section[aria-labelledby=track] details > summary",
    "lodge": "section[aria-labelledby=rooms] details > summary",
}


def smallest_label_px(page, selector: str) -> float:
    """The smallest text drawn in the SVG, in CSS pixels as drawn now (its font size times the drawing's scale)."""
    return page.evaluate(
        """(sel) => { const svg = document.querySelector(sel);
        const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
        const sizes = [...svg.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize));
        return Math.min(...sizes) * scale; }""",
        selector,
    )


def observing(browser, base: str, gid: str, token: str, js: bool = True, width: int = 1280):  # noqa: F811
    page = browser.new_context(java_script_enabled=js, viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    assert page.url.endswith(f"/play/{gid}") and "You are observing" in page.content()
    return page


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_the_observers_board_at_1280_and_360_has_no_axe_violation_and_reads_on_a_phone(server, browser, games, ruleset):  # noqa: F811
    base, _app = server
    gid, _seats, _names = RULESETS[ruleset](games)
    page = observing(browser, base, gid, observer_token(games, gid))
    svg = BOARD[ruleset][0]
    found: dict = {}
    check(page, f"observer-{ruleset}", found)
    assert found == {}, found
    assert unlabelled(page) == []
    for width in (1280, 360):
        page.set_viewport_size({"width": width, "height": 900})
        box = page.locator(svg).first.bounding_box()
        assert box and box["height"] > 40 and box["x"] >= 0 and box["x"] + box["width"] <= width, (ruleset, width)
        if width == 360:
            assert smallest_label_px(page, svg) >= READABLE_PX, ruleset
        page.screenshot(path=str(SHOTS / f"observer-board-{ruleset}-{width}.png"), full_page=True)
    assert page.locator(WORDS[ruleset]).count() >= 1
    assert page.locator("main form, #map-pick a").count() == 0  # an observer is offered nothing to send


@pytest.mark.parametrize("ruleset", list(RULESETS))
@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_by_keyboard_alone_the_observer_reaches_the_boards_words(server, browser, games, ruleset, js):  # noqa: F811
    """Tab reaches the drawing's text equivalent (the covenant track's and the Lodge's in words open with Enter; the
    Powers map's table is a focusable region), and on the Powers map a hex, whose link (Enter) says what the table
    knows of it, with JavaScript in place and without by reloading the page."""
    base, _app = server
    gid, _seats, _names = RULESETS[ruleset](games)
    page = observing(browser, base, gid, observer_token(games, gid), js=js, width=360)

    def tab_to(test: str, limit: int = 200) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(f"(() => {{ const el = document.activeElement; return {test}; }})()"):
                return
        raise AssertionError(f"Tab never reached {test}")

    if ruleset == "powers":
        tab_to("el.matches('svg.hexmap a.hex') && el.dataset.hex === '1,0'")
        title = page.evaluate("document.activeElement.querySelector('title').textContent")
        assert title.startswith("Hex column 1, row 0") and "army Grey Legion" in title
        if js:
            page.keyboard.press("Enter")
            page.wait_for_url("**?hex=1%2C0#map-pick")
        else:
            with page.expect_navigation(url="**?hex=1%2C0#map-pick"):
                page.keyboard.press("Enter")
        assert page.locator("#map-pick h3").text_content() == "Chosen hex: column 1, row 0"
        assert "Grey Legion (Gondor, size 3)" in page.locator("#map-pick").text_content()
        assert page.locator("#map-pick a, #map-pick form").count() == 0
        tab_to("el.matches('div.scroll[role=region]')")
        assert "The map, hex by hex" in page.evaluate("document.activeElement.textContent")
    else:
        summary = WORDS[ruleset]
        tab_to(f"el.matches({summary!r})")
        words = page.locator(summary).locator("xpath=..").locator(":scope > :not(summary)").first
        assert not words.is_visible()
        page.keyboard.press("Enter")
        assert words.is_visible()
    page.screenshot(path=str(SHOTS / f"observer-board-{ruleset}-keyboard-{'js' if js else 'no-js'}-360.png"))
