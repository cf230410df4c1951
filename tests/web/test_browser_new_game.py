"""Issue 28 item 5 in a real (headless) Chromium, at 1280 and 360 px, with and without JavaScript, and by keyboard
alone: `/new` offers each ruleset's form, the zone from a list, and a refused form comes back with everything
that was typed and the error under its field; axe finds no violation on either page."""

from __future__ import annotations

import pytest

from tests.web.axe import violations
from tests.web.test_browser_month import browser, games, pytestmark, server, shot, unlabelled  # noqa: F401
from tests.web.test_new_game_options import RULESETS


def checked(page, width: int, js: bool) -> None:
    """Every control labelled, no axe violation, nothing wider than the screen (axe runs in the page, so only
    where the page runs scripts: the no-JavaScript run checks the same page's controls and their values)."""
    if js:
        assert unlabelled(page) == [] and violations(page) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    else:
        assert page.locator("label[for=name]").count() == 1 and page.locator("label[for=timezone]").count() == 1


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("width", [1280, 360])
def test_a_refused_new_game_keeps_what_was_typed_and_then_starts(server, browser, games, width, js):  # noqa: F811
    base, _app = server
    page = browser.new_context(java_script_enabled=js, viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{base}/new")
    for name in ("Covenants", "Lodge"):  # every listed ruleset is one link away
        assert page.get_by_role("link", name=name).count() == 1
    page.get_by_role("link", name="Lodge").click()
    page.wait_for_url("**/new?ruleset=lodge")
    checked(page, width, js)
    page.get_by_label("Game name").fill("A lodge in Berlin")
    page.get_by_label("Time zone of the game").select_option("Europe/Berlin")
    page.get_by_text("Campaign options").click()
    reminders = page.locator("#option-reminder_hours")
    reminders.fill("400")
    page.get_by_role("button", name="Create the game").click()
    page.wait_for_load_state()
    alert = page.locator("#err-new-options\\.reminder_hours")
    assert alert.is_visible() and "reminder_hours" in alert.inner_text()
    assert page.get_by_label("Game name").input_value() == "A lodge in Berlin"
    assert page.get_by_label("Time zone of the game").input_value() == "Europe/Berlin"
    assert reminders.input_value() == "400"
    checked(page, width, js)
    shot(page, f"new-game-refused-{width}{'' if js else '-nojs'}")
    reminders.fill("24")
    page.get_by_role("button", name="Create the game").click()
    page.wait_for_url("**/play/*")
    game_id = page.url.rsplit("/", 1)[-1]
    created = next(games.iter_events(game_id))
    assert created.timezone == "Europe/Berlin" and created.name == "A lodge in Berlin"


def test_the_new_game_form_by_keyboard_alone(server, browser, games):  # noqa: F811
    base, _app = server
    page = browser.new_context(viewport={"width": 360, "height": 900}).new_page()
    page.goto(f"{base}/new?ruleset=covenants")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.className") == "skip"
    while page.evaluate("document.activeElement.id") != "name":
        page.keyboard.press("Tab")
    page.keyboard.type("By keys")
    page.keyboard.press("Tab")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "timezone"
    page.keyboard.type("Europe/Lisbon")  # a select's type-ahead
    assert page.evaluate("document.activeElement.value") == "Europe/Lisbon"
    while page.evaluate("document.activeElement.textContent") != "Create the game":
        page.keyboard.press("Tab")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_load_state()
    assert "/play/" in page.url
    created = next(games.iter_events(page.url.rsplit("/", 1)[-1]))
    assert created.timezone == "Europe/Lisbon" and created.name == "By keys"


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_rulesets_new_game_form_has_no_axe_violation_at_1280_and_360(server, browser, name):  # noqa: F811
    """Issue 28 item 5, "`/new` offers every registered ruleset with its options as a form": each ruleset's form
    (the test above reads the Lodge's), every control labelled, no axe violation, nothing wider than the screen."""
    base, _app = server
    for width in (1280, 360):
        page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
        page.goto(f"{base}/new?ruleset={name}")
        assert page.locator("[name^='options.']").count() > 0, name  # its options, as controls of the form
        checked(page, width, js=True)
        page.context.close()
