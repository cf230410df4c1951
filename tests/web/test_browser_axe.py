"""Issue 17, "Checks": axe-core finds no violation on any page state, at 1280 and at 360 px, and nothing
overflows a 360 px screen sideways (``document.scrollingElement.scrollWidth <= 360``). The states: home,
new game, sign-in, the Powers board of a player and the GM's console in Planning (dice drawn), in the
resistance window, resolved (Battle), an earlier phase, after a rollback (the banner), the audit, every
confirmation page (discard, close Planning, roll back, fork), the covenant table and the Lodge board.
Screenshots of every state at both widths land in test-output/screenshots/axe-*.png. The server and the
browser are the fixtures of ``test_browser_signin`` (stopped even when a test fails)."""

from __future__ import annotations

import json
import re

from domain.powers import commands as pc
from tests.domain.helpers import seen, step_of
from tests.web.axe import violations
from tests.web.test_browser_month import shot
from tests.web.test_browser_play_surface import rich_game
from tests.web.test_browser_signin import browser, games, pytestmark, server  # noqa: F401  (fixtures)

WIDTHS = (1280, 360)


def check(page, name: str, found: dict) -> None:
    """axe at both widths on the page as it stands (no reload: a page reached by a POST stays as it is),
    the 360 px overflow, and a screenshot of each; what is wrong goes into ``found`` by state."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        wrong = violations(page)
        if wrong:
            found[f"{name}@{width}"] = wrong
        if width == 360:
            scroll = page.evaluate("document.scrollingElement.scrollWidth")
            if scroll > 360:
                found[f"{name}@360 overflow"] = scroll
        shot(page, f"axe-{name}-{width}")


def signed_in(browser, base: str, gid: str, token: str, js: bool = True):  # noqa: F811
    page = browser.new_context(java_script_enabled=js, viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    return page


def test_every_powers_page_state_has_no_axe_violation_at_1280_and_360(server, browser, games):  # noqa: F811
    base, app = server
    found: dict = {}
    anon = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    for path, name in (("/", "home"), ("/new", "new-game"), ("/signin", "signin")):
        anon.goto(base + path)
        check(anon, name, found)

    gid, gm_token, tokens = rich_game(app)
    games.send(gid, "gm", pc.GrantAsset("gandalf", "Staff", "item", 2, assured=True))
    gandalf = signed_in(browser, base, gid, tokens["gandalf"])
    check(gandalf, "board-planning", found)
    gandalf.get_by_label("Title", exact=True).fill("Duel the Witch-king")
    gandalf.get_by_role("group", name=re.compile("^Targets")).get_by_label("Gondor").check()
    gandalf.get_by_label("Can be resisted").check()
    boxes = gandalf.locator("#compose input[name='asset[]']")
    boxes.nth(0).check()
    boxes.nth(1).check()
    gandalf.get_by_role("button", name="Submit and roll").click()
    assert gandalf.locator("ul.dice li").count() >= 2
    check(gandalf, "board-rolled-dice", found)
    gandalf.get_by_role("button", name="Confirm conversions").click()

    rangers = signed_in(browser, base, gid, tokens["rangers"])
    rangers.get_by_label("Title", exact=True).fill("Spy on Minas Tirith")
    rangers.get_by_label("Propose only: the GM sets the difficulty first, then I roll").check()
    rangers.get_by_role("button", name="Submit and roll").click()
    gondor = signed_in(browser, base, gid, tokens["gondor"])
    gondor.get_by_label("Title", exact=True).fill("Light the beacons")
    gondor.get_by_role("button", name="Submit and roll").click()
    gondor.get_by_role("button", name="Discard").click()
    assert "Discard this action?" in gondor.content()
    check(gondor, "confirm-discard", found)

    gm = signed_in(browser, base, gid, gm_token)
    check(gm, "console-planning", found)
    gm.get_by_role("button", name="Close Planning", exact=True).click()
    assert "Close Planning now?" in gm.content()
    check(gm, "confirm-close-planning", found)
    gm.get_by_role("button", name="Yes, close Planning").click()
    check(gm, "console-resolution", found)
    gm.get_by_label("Announcement to the table").fill("The beacons are lit!")
    gm.get_by_role("button", name="Resolve and publish").click()
    assert step_of(games.get_game(gid, for_update=False)) == "resistance"
    gm.goto(f"{base}/play/{gid}")
    check(gm, "console-resistance", found)
    gondor.goto(f"{base}/play/{gid}")
    assert gondor.locator("#resistance").count() == 1
    check(gondor, "board-resistance", found)
    gondor.get_by_role("button", name="Waive my reaction").click()
    check(gondor, "board-waived", found)
    assert step_of(games.get_game(gid, for_update=False)) == "battle"
    gandalf.goto(f"{base}/play/{gid}")
    check(gandalf, "board-resolved", found)
    gm.goto(f"{base}/play/{gid}")
    check(gm, "console-resolved", found)
    gm.get_by_role("button", name="End the month").click()
    assert seen(games.get_game(gid, for_update=False))["game"]["month"] == 2

    gondor.goto(f"{base}/play/{gid}?phase=s1m1-planning")
    assert "as it ended" in gondor.locator(".past").inner_text()
    check(gondor, "board-earlier-phase", found)
    gm.goto(f"{base}/play/{gid}?phase=s1m1-planning")
    check(gm, "console-earlier-phase", found)
    gm.goto(f"{base}/play/{gid}/audit")
    check(gm, "audit", found)
    gm.goto(f"{base}/play/{gid}#tab-history")  # fork and roll back sit in the console's History tab
    gm.locator("#fk-name").fill("Sandbox")
    gm.get_by_role("button", name="Fork", exact=True).click()
    assert "Fork a sandbox game from" in gm.content()
    check(gm, "confirm-fork", found)
    gm.get_by_role("link", name="No, go back").click()
    gm.locator("#rb-phase").select_option(label="Season 1, month 1: Planning")
    gm.locator("#rb-reason").fill("Gondor's beacon was lost in the post")
    gm.get_by_role("button", name="Roll back", exact=True).click()
    check(gm, "confirm-rollback", found)
    gm.get_by_role("button", name="Yes, roll back").click()
    assert seen(games.get_game(gid, for_update=False))["game"]["month"] == 1
    check(gm, "console-after-rollback", found)
    gondor.goto(f"{base}/play/{gid}")
    assert gondor.locator("#rolled-back").count() == 1
    check(gondor, "board-after-rollback", found)
    assert not found, json.dumps(found, indent=1)


def test_the_covenant_table_and_the_lodge_board_have_no_axe_violation_at_1280_and_360(server, browser, games):  # noqa: F811
    from application.service import Caller, new_token
    from domain.lodge.ruleset import AddMage, AdvancePhase, BeginGame, CastSpell, PrepareSpells
    from domain.platform.commands import ReissueLink
    from tests.covenants.play import seat_three

    base, app = server
    found: dict = {}
    gm = Caller.of("gm")
    table = seat_three(games)
    for seat in (table.turn()[0], table.turn()[-1], "gm"):
        token, digest = new_token()
        games.run(gm, table.game_id, ReissueLink(seat, digest))
        check(signed_in(browser, base, table.game_id, token), f"covenants-{seat}", found)

    gid, gm_token, _ = games.create_game("Lodge", ruleset="lodge")
    games.run_many(gm, gid, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    tokens = {"gm": gm_token}
    for mage in ("ann", "bob"):
        token, digest = new_token()
        games.run(gm, gid, ReissueLink(mage, digest))
        tokens[mage] = token
    check(signed_in(browser, base, gid, tokens["ann"]), "lodge-prepare-ann", found)
    games.run(Caller.of("ann"), gid, PrepareSpells("ann", {"QUICK": "unravel", "I": "firebolt", "III": "oblivion"}))
    games.run(Caller.of("bob"), gid, PrepareSpells("bob", {"I": "mend", "III": "restoration"}))
    games.run(gm, gid, AdvancePhase("prepare"))
    games.run(Caller.of("ann"), gid, CastSpell("ann", "I", "bob"))
    for who in ("ann", "bob", "gm"):
        check(signed_in(browser, base, gid, tokens[who]), f"lodge-actions-{who}", found)
    assert not found, json.dumps(found, indent=1)
