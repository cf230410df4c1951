"""Issue 28 item 7 (the map part) and item 1's leftover in a real (headless) Chromium: the GM's map editor on the
console at 1280 and 360 px with axe at 0 violations and nothing wider than a phone; a hex edited with the keyboard
alone, with JavaScript and without (its link reloads the console with the editor filled in); and a GM form filled
from a chosen hex (an army placed there) the same two ways. The demo month (``emissary demo``) is the game."""

from __future__ import annotations

import json

import pytest

from tests.integration.test_battle_api import BLOCK
from tests.web.axe import violations
from tests.web.test_battle_page import at_battle
from tests.web.test_browser_month import shot, unlabelled
from tests.web.test_browser_powers_map import board, demo_month
from tests.web.test_browser_signin import browser, games, pytestmark, server  # noqa: F401  (fixtures)


def gm_battles(app, gid: str) -> list[dict]:
    """The battles of the game as the GM's view lists them."""
    return list(app.state.games.view(gid, "gm")["battles"])


def test_the_map_editor_at_1280_and_360_has_no_axe_violation_and_fits_a_phone(server, browser, games):  # noqa: F811
    base, _ = server
    gid, tokens = demo_month(games)
    page = board(browser, base, gid, tokens["gm"])
    found = {}
    for query in ("#tab-tools", "?hex=2,0", "?hex=1,1"):  # none chosen (its tab); a town's hex; a dungeon's
        page.goto(f"{base}/play/{gid}{query}")
        for width in (1280, 360):
            page.set_viewport_size({"width": width, "height": 900})
            if wrong := violations(page):
                found[f"{query}@{width}"] = wrong
            box = page.locator("#map-editor").bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (query, width)
            if width == 360:
                assert page.evaluate("document.scrollingElement.scrollWidth") <= 360, query
            page.locator("#map-editor").screenshot(
                path=str(shot_path(f"powers-map-editor{'-chosen' if '?' in query else ''}-{width}"))
            )
        assert unlabelled(page) == []
    assert found == {}, found


def shot_path(name: str):
    from tests.web.test_browser_month import SHOTS

    return SHOTS / f"{name}.png"


def keyboard(page, js: bool):
    """Tab to an element matching ``test``; follow a link with Enter (in place with JavaScript, else a reload)."""

    def tab_to(test: str, limit: int = 600) -> None:
        for _ in range(limit):
            page.keyboard.press("Tab")
            if page.evaluate(f"(() => {{ const el = document.activeElement; return {test}; }})()"):
                return
        raise AssertionError(f"Tab never reached {test}")

    def follow(url: str) -> None:
        if js:
            page.keyboard.press("Enter")
            page.wait_for_url(f"**{url}")
        else:
            with page.expect_navigation(url=f"**{url}"):
                page.keyboard.press("Enter")

    return tab_to, follow


def to_the_map(page, tab_to) -> None:
    """The console opens on its phase; the map is in the "Map and rulings" tab, a link away (issue 28 item 2)."""
    tab_to("el.getAttribute('href') === '#tab-tools'")
    page.keyboard.press("Enter")
    page.wait_for_url("**#tab-tools")


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_the_gm_edits_a_hex_with_the_keyboard_alone(server, browser, games, js):  # noqa: F811
    base, _ = server
    gid, tokens = demo_month(games)
    page = board(browser, base, gid, tokens["gm"], js=js, width=360)
    tab_to, follow = keyboard(page, js)
    to_the_map(page, tab_to)
    tab_to("el.matches('svg.hexmap a.hex') && el.dataset.hex === '4,0'")
    follow("?hex=4%2C0#map-pick")
    tab_to("el.textContent.startsWith('Edit this hex')")
    page.keyboard.press("Enter")
    tab_to("el.id === 'me-terrain'")
    page.keyboard.type("hills")  # a select takes what is typed: the option that starts so
    assert page.locator("#me-terrain").input_value() == "hills"
    tab_to("el.id === 'me-name'")
    page.keyboard.type("Weathertop")
    tab_to("el.id === 'me-town-0-id'")
    page.keyboard.type("amon-sul")
    tab_to("el.id === 'me-town-0-population'")
    page.keyboard.type("2")
    tab_to("el.textContent.trim() === 'Save the hex'")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "Map amended." in page.locator("#map-editor").text_content()
    assert page.locator("#me-name").input_value() == "Weathertop"  # the console is back on the hex it changed
    m = games.view(gid, "gm")["map"]
    assert next(h for h in m["hexes"] if h["hex"] == "4,0")["terrain"] == "hills"
    assert [(t["id"], t["hex"], t["population"]) for t in m["towns"] if t["id"] == "amon-sul"] == [
        ("amon-sul", "4,0", 2)
    ]
    # A bad field: refused by its input, nothing recorded, the form as typed.
    tab_to("el.id === 'me-town-0-population'")
    page.keyboard.press("Control+A")
    page.keyboard.type("lots")
    tab_to("el.textContent.trim() === 'Save the hex'")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("#err-map-editor-towns\\[amon-sul\\]\\.population").text_content() == "give a whole number"
    assert page.locator("#me-town-0-population").input_value() == "lots"
    assert games.view(gid, "gm")["map"] == m
    shot(page, f"powers-map-editor-keyboard-360-{'js' if js else 'no-js'}")


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_a_chosen_hex_fills_the_gms_army_form_which_places_an_army_there(server, browser, games, js):  # noqa: F811
    base, _ = server
    gid, tokens = demo_month(games)
    page = board(browser, base, gid, tokens["gm"], js=js, width=1280)
    tab_to, follow = keyboard(page, js)
    to_the_map(page, tab_to)
    tab_to("el.matches('svg.hexmap a.hex') && el.dataset.hex === '3,0'")
    follow("?hex=3%2C0#map-pick")
    assert page.locator("#map-pick h3").text_content() == "Chosen hex: column 3, row 0"
    assert page.locator("#gapa-hex").input_value() == "3,0" and page.locator("#rl-hex").input_value() == "3,0"
    tab_to("el.textContent.startsWith('Place an army here')")
    page.keyboard.press("Enter")
    tab_to("el.id === 'gapa-id'")
    page.keyboard.type("watch")
    tab_to("el.id === 'gapa-name'")
    page.keyboard.type("Isengard Watch")
    tab_to("el.id === 'gapa-units'")
    page.keyboard.type("3")
    tab_to("el.id === 'gapa-block'")
    page.keyboard.type(json.dumps(BLOCK))
    tab_to("el.textContent.trim() === 'Place army'")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "Army placed." in page.content()
    placed = [a for a in games.view(gid, "gm")["armies"]["armies"] if a["army_id"] == "watch"]
    assert [(a["name"], a["hex"]) for a in placed] == [("Isengard Watch", "3,0")]


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_a_hex_chosen_on_the_console_fills_the_gms_battle_declaration_for_a_power(server, browser, js):  # noqa: F811
    """P-AMB-1: the GM declares a battle for a power, at the chosen hex, against the others with armies there."""
    base, app = server
    gid, tokens = at_battle(app)
    page = board(browser, base, gid, tokens["gm"], js=js, width=360)
    page.goto(f"{base}/play/{gid}#tab-tools")  # the map's tab (issue 28 item 2)
    page.locator('svg.hexmap a.hex[data-hex="2,0"] polygon').click()
    page.wait_for_url("**?hex=2%2C0#map-pick")
    page.get_by_role("link", name="Declare a battle here for a power (the form is filled in)").click()
    assert page.locator("#db-hex").input_value() == "2,0" and page.locator("#db-power").input_value() == "east"
    assert page.locator("#db-enemies").input_value() == "north south"
    page.locator("#db-enemies").fill("south")
    page.locator("#db-allies").fill("north")
    page.get_by_role("button", name="Declare", exact=True).click()
    assert "Battle declared" in page.content()
    assert [b["hex"] for b in gm_battles(app, gid)] == ["2,0"]
    assert not js or violations(page) == []  # axe runs as a script: not in a page without JavaScript


def test_a_towns_statuses_a_dungeons_floors_and_a_strongholds_modules_at_1280_and_360_with_axe_at_0(
    server,  # noqa: F811
    browser,  # noqa: F811
    games,  # noqa: F811
):
    """P-TOWN-4, P-FEAT-3, P-FEAT-4: the editor shows Tharbad's statuses, the Barrow-downs' floors and Orthanc's
    modules as inputs, labelled, with no axe violation, within a phone's width."""
    base, _ = server
    gid, tokens = demo_month(games)
    page = board(browser, base, gid, tokens["gm"])
    found = {}
    for query, field in (
        ("?hex=2,0", "#me-town-0-status-uprising"),
        ("?hex=1,1", "#me-feature-0-floor-1-difficulty"),
        ("?hex=3,0", 'input[name="feature-0-module-barracks"]'),
    ):
        page.goto(f"{base}/play/{gid}{query}#map-editor")
        for width in (1280, 360):
            page.set_viewport_size({"width": width, "height": 900})
            assert page.locator(field).is_visible(), (query, width)
            box = page.locator(field).bounding_box()
            assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width, (query, width)
            if wrong := violations(page):
                found[f"{query}@{width}"] = wrong
            if width == 360:
                assert page.evaluate("document.scrollingElement.scrollWidth") <= 360, query
        assert unlabelled(page) == []
    assert found == {}, found
    page.goto(f"{base}/play/{gid}?hex=3,0#map-editor")
    page.set_viewport_size({"width": 360, "height": 900})
    page.locator("#map-editor").screenshot(path=str(shot_path("powers-map-editor-modules-360")))


@pytest.mark.parametrize("js", [True, False], ids=["js", "no-js"])
def test_the_gm_sets_statuses_floors_and_modules_with_the_keyboard_alone(server, browser, games, js):  # noqa: F811
    """P-TOWN-4, P-FEAT-3, P-FEAT-4 by keyboard, with JavaScript and without; a bad status is refused by its
    input, naming it, and nothing is recorded."""
    base, _ = server
    gid, tokens = demo_month(games)
    page = board(browser, base, gid, tokens["gm"], js=js, width=360)
    tab_to, _ = keyboard(page, js)

    def save() -> None:
        tab_to("el.textContent.trim() === 'Save the hex'")
        with page.expect_navigation():
            page.keyboard.press("Enter")

    def gm_map() -> dict:
        return games.view(gid, "gm")["map"]

    page.goto(f"{base}/play/{gid}?hex=3,0#map-editor")
    tab_to("el.name === 'feature-0-module-barracks'")
    page.keyboard.press("Space")
    save()
    assert "Map amended." in page.locator("#map-editor").text_content()
    assert next(f for f in gm_map()["features"] if f["id"] == "orthanc")["modules"] == ["tower", "barracks"]
    page.goto(f"{base}/play/{gid}?hex=1,1#map-editor")
    tab_to("el.id === 'me-feature-0-floor-1-difficulty'")
    page.keyboard.type("4")
    tab_to("el.id === 'me-feature-0-floor-1-reward'")
    page.keyboard.type("a silver horn")
    save()
    barrow = next(f for f in gm_map()["features"] if f["id"] == "barrow")
    assert [(x["difficulty"], x["reward"]) for x in barrow["floors"]] == [(2, ""), (4, "a silver horn")]
    page.goto(f"{base}/play/{gid}?hex=2,0#map-editor")
    tab_to("el.id === 'me-town-0-status-uprising'")
    page.keyboard.type("1")
    save()
    assert next(t for t in gm_map()["towns"] if t["id"] == "tharbad")["statuses"] == {"uprising": 1}
    m = gm_map()
    tab_to("el.id === 'me-town-0-status-taxed'")
    page.keyboard.type("lots")
    save()
    assert page.locator("#err-map-editor-towns\\[tharbad\\]\\.statuses\\.taxed").text_content() == "give a whole number"
    assert page.locator("#me-town-0-status-taxed").input_value() == "lots"
    assert gm_map() == m
