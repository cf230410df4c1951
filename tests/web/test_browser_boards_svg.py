"""Issue 28 item 1 in a real (headless) Chromium: the covenant track with its tokens and cards, and the Lodge's floor
plan, at 1280 and 360 px with axe at 0 violations and nothing wider than a phone (``test_browser_axe.check``), each
drawing no wider than the page; a move made by keyboard alone and one made without JavaScript, each redrawn where
it lands (axe runs in pages with JavaScript: a page without runs no script, axe's included). Screenshots of each
board land in test-output/screenshots/board-*.png (docs/ keeps one of each, shown in the README). The server and
the browser are the fixtures of ``test_browser_signin``."""

from __future__ import annotations

import json

from application.service import Caller, new_token
from domain.lodge.ruleset import AddMage, AdvancePhase, BeginGame, PrepareSpells
from domain.platform.commands import ReissueLink
from tests.covenants.play import seat_three
from tests.web.test_browser_axe import check, signed_in
from tests.web.test_browser_month import SHOTS
from tests.web.test_browser_signin import browser, games, pytestmark, server  # noqa: F401  (fixtures)

GM = Caller.of("gm")


def _token(games, gid: str, seat: str) -> str:  # noqa: F811
    token, digest = new_token()
    games.run(GM, gid, ReissueLink(seat, digest))
    return token


def _tab_to(page, selector: str, most: int = 40) -> int:
    """Tab from the top of the page until ``selector`` has the focus; how many presses it took."""
    for n in range(1, most + 1):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return n
    raise AssertionError(f"{selector} not reached by {most} presses of Tab")


def _fits(page, selector: str) -> None:
    """The drawing is drawn, and no wider than the page (a phone's 360 px included)."""
    box = page.locator(selector).first.bounding_box()
    assert box and box["height"] > 40 and box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]


def test_the_covenant_track_and_cards_at_both_widths_and_a_move_by_keyboard_then_without_javascript(
    server,  # noqa: F811
    browser,  # noqa: F811
    games,  # noqa: F811
):
    base, _app = server
    found: dict = {}
    t = seat_three(games)
    first, second = t.turn()[0], t.turn()[1]
    page = signed_in(browser, base, t.game_id, _token(games, t.game_id, first))
    check(page, "board-covenants-at-turn", found)
    for width in (1280, 360):
        page.set_viewport_size({"width": width, "height": 900})
        _fits(page, "svg.track-svg")
        page.locator("section[aria-labelledby=track]").screenshot(path=str(SHOTS / f"board-covenant-track-{width}.png"))
    assert page.locator("svg.track-svg g.sq.legal").count() == len(t.view(first)["me"]["legal_moves"])
    assert page.locator("svg.card-svg").count() == sum(len(c["cards"]) for c in t.view("gm")["covenants"].values())

    # by keyboard alone: the move form is the first thing after the status strip, the track redrawn after it
    page.set_viewport_size({"width": 360, "height": 900})
    page.goto(f"{base}/play/{t.game_id}")
    presses = _tab_to(page, "#square")
    target = t.view(first)["me"]["legal_moves"][1]
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Tab")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert t.view("gm")["covenants"][first]["square"] == target
    covenant = t.view("gm")["covenants"][first]["covenant"]
    assert f"{covenant} (" in page.locator("#track-svg-desc").text_content()
    assert f"is on square {target}" in page.locator("#track-svg-desc").text_content()
    assert page.locator("svg.track-svg g.sq.legal").count() == 0  # no longer at turn: nothing to aim
    check(page, "board-covenants-after-move", found)

    # without JavaScript: the next seat moves, the drawing is the server's
    nojs = signed_in(browser, base, t.game_id, _token(games, t.game_id, second), js=False)
    nojs.set_viewport_size({"width": 360, "height": 900})
    legal = t.view(second)["me"]["legal_moves"]
    nojs.select_option("#square", str(legal[0]))
    nojs.get_by_role("button", name="Move", exact=True).click()
    assert t.view("gm")["covenants"][second]["square"] == legal[0]
    assert f"is on square {legal[0]}" in nojs.locator("#track-svg-desc").text_content()
    page.goto(f"{base}/play/{t.game_id}")  # axe runs in a page with JavaScript (a page without runs no script)
    check(page, "board-covenants-after-second-move", found)
    assert presses <= 25, presses  # the decision is near the top of the page
    assert not found, json.dumps(found, indent=1)


def test_the_lodge_floor_plan_at_both_widths_and_a_spell_cast_by_keyboard_then_without_javascript(
    server,  # noqa: F811
    browser,  # noqa: F811
    games,  # noqa: F811
):
    base, _app = server
    found: dict = {}
    gid, gm_token, _ = games.create_game("Lodge", ruleset="lodge")
    games.run_many(GM, gid, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    tokens = {m: _token(games, gid, m) for m in ("ann", "bob")}
    games.run(Caller.of("ann"), gid, PrepareSpells("ann", {"QUICK": "unravel", "I": "firebolt", "III": "oblivion"}))
    games.run(Caller.of("bob"), gid, PrepareSpells("bob", {"QUICK": "tremor", "I": "mend", "III": "restoration"}))
    games.run(GM, gid, AdvancePhase("prepare"))
    ann = signed_in(browser, base, gid, tokens["ann"])
    check(ann, "board-lodge-actions-ann", found)

    # by keyboard alone: Unravel on the Library (its select reached by Tab), its cubes then drawn there
    ann.set_viewport_size({"width": 360, "height": 900})
    _tab_to(ann, "#cast-QUICK select[name=target]")
    ann.keyboard.type("Library")  # the select's type-ahead
    assert ann.evaluate("document.activeElement.value") == "library"
    ann.keyboard.press("Tab")
    with ann.expect_navigation():
        ann.keyboard.press("Enter")
    library = games.view(gid, "gm")["rooms"]["library"]["slots"]
    assert library.count("ann") >= 1
    library_box = ann.locator("svg.floor-svg g.room", has_text="Library")
    assert library_box.locator("rect.cube.col-red").count() == library.count("ann")
    check(ann, "board-lodge-after-cast", found)

    # without JavaScript: Bob's Tremor on the Library, drawn in his colour on everyone's plan
    bob = signed_in(browser, base, gid, tokens["bob"], js=False)
    bob.select_option("#cast-QUICK select[name=target]", "library")
    bob.locator("#cast-QUICK").get_by_role("button", name="Cast").click()
    after = games.view(gid, "gm")["rooms"]["library"]["slots"]
    assert "bob" in after
    plan = bob.locator("svg.floor-svg g.room", has_text="Library")
    assert plan.locator("rect.cube.col-blue").count() == after.count("bob")
    host = signed_in(browser, base, gid, gm_token)
    check(host, "board-lodge-host", found)
    ann.goto(f"{base}/play/{gid}")  # axe runs in a page with JavaScript (a page without runs no script)
    check(ann, "board-lodge-after-tremor", found)
    for width in (1280, 360):
        ann.set_viewport_size({"width": width, "height": 900})
        _fits(ann, "svg.floor-svg")
        ann.locator("section[aria-labelledby=rooms]").screenshot(path=str(SHOTS / f"board-lodge-plan-{width}.png"))
    assert not found, json.dumps(found, indent=1)
