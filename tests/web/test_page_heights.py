"""Issue 28 item 2, "A page for a glance": a player's board opens on what they must decide now (the open decision,
its deadline, its form) and folds the rest away, one step off. Measured in a real (headless) Chromium on the
demo games (``emissary demo`` of each ruleset, as ``test_words_not_ids`` plays them): a player's board is at most
2,500 px tall at 1280 px wide during a typical month or turn (``document.documentElement.scrollHeight``), has no
axe violation at 1280 and 360 px, and with JavaScript off every folded part still opens (a ``<details>`` opens
without script) and every "one step off" link leads to its part.

The states: Powers in month 2's Planning (the demo month played, a map with armies, two actions of the player's
composed) and in the Battle step with a battle declared (the player's setup form open); the covenant table at the
end of the demo's year, as the seat whose move it is; the Lodge board after the demo's turn 1, as a Mage."""

from __future__ import annotations

import json

import pytest

from application.service import Caller
from domain.powers import armies, battle
from domain.powers import commands as pc
from tests.domain.helpers import step_of
from tests.integration.test_battle_api import BLOCK
from tests.web.axe import violations
from tests.web.test_browser_month import shot
from tests.web.test_browser_powers_map import RANGERS, demo_month
from tests.web.test_browser_signin import browser, games, pytestmark, server  # noqa: F401  (fixtures)
from tests.web.test_words_not_ids import _covenants, _lodge

GLANCE_PX = 2500  # issue 28 item 2: a player's board at 1280 px, during a typical month
HEIGHT = "document.documentElement.scrollHeight"


def powers_planning(games) -> tuple[str, str]:  # noqa: F811
    """The demo's month 2 Planning with its map and armies; the Rangers have composed two actions (one rolled,
    one proposed to the GM)."""
    gid, tokens = demo_month(games)
    games.send(gid, RANGERS, pc.SubmitAction(RANGERS, title="Watch the Greenway", slot="private", convert=0))
    games.send(gid, RANGERS, pc.SubmitAction(RANGERS, title="Parley at Bree", slot="private", roll=False))
    return gid, tokens[RANGERS]


def powers_battle(games) -> tuple[str, str]:  # noqa: F811
    """The same month carried to its Battle step, where the Rangers declare a battle against Gondor's legion in
    2,0: the Rangers' board waits for their setup."""
    gid, tokens = demo_month(games)
    gm = Caller.of("gm")
    games.run(gm, gid, armies.PlaceArmy("vanguard", "Gondor's Vanguard", "2,0", 2, "gondor", block=BLOCK))
    games.send(gid, RANGERS, pc.SubmitAction(RANGERS, title="Watch the Greenway", slot="private", convert=0))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement="Rain over the Shire."))
    while step_of(games.get_game(gid, for_update=False)) != "battle":
        games.send(gid, "gm", pc.Advance())
    games.run(Caller.of(RANGERS), gid, battle.DeclareBattle("greenway", "2,0", RANGERS, ["gondor"], []))
    return gid, tokens[RANGERS]


def covenants_turn(games) -> tuple[str, str]:  # noqa: F811
    """The covenant demo's year played; the seat whose move it is (else the first)."""
    gid, seats, _ = _covenants(games)
    whose = games.view(gid, "gm")["game"].get("whose_turn") or seats[0]
    return gid, games.reissue_link(gid, "gm", whose)[0]


def lodge_turn(games) -> tuple[str, str]:  # noqa: F811
    """The Lodge demo's turn 1 with its Clean-up; the first Mage."""
    gid, seats, _ = _lodge(games)
    return gid, games.reissue_link(gid, "gm", seats[0])[0]


STATES = {
    "powers-planning": powers_planning,
    "powers-battle": powers_battle,
    "covenants": covenants_turn,
    "lodge": lodge_turn,
}
DECIDE = {  # the button of the decision each state opens on
    "powers-planning": "Submit and roll",
    "powers-battle": "Submit the setup",
    "covenants": "Move",
    "lodge": "Prepare",
}


def board(browser, base: str, gid: str, token: str, width: int = 1280, js: bool = True):  # noqa: F811
    page = browser.new_context(java_script_enabled=js, viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    page.goto(f"{base}/play/{gid}")
    return page


@pytest.mark.parametrize("state", list(STATES))
def test_a_players_board_is_at_most_2500_px_tall_at_1280_with_no_axe_violation(server, browser, games, state):  # noqa: F811
    base, _ = server
    gid, token = STATES[state](games)
    page = board(browser, base, gid, token)
    height = page.evaluate(HEIGHT)
    shot(page, f"glance-{state}-1280")
    print(f"\n{state}: {height} px at 1280")
    found: dict = {}
    if wrong := violations(page):
        found["1280"] = wrong
    page.set_viewport_size({"width": 360, "height": 800})
    if wrong := violations(page):
        found["360"] = wrong
    if page.evaluate("document.scrollingElement.scrollWidth") > 360:
        found["360 overflow"] = page.evaluate("document.scrollingElement.scrollWidth")
    shot(page, f"glance-{state}-360")
    assert not found, json.dumps(found, indent=1)
    assert height <= GLANCE_PX, f"{state}: {height} px at 1280 (at most {GLANCE_PX})"


def top(page, selector: str) -> float:
    return page.locator(selector).first.evaluate("e => e.getBoundingClientRect().top + window.scrollY")


@pytest.mark.parametrize("state", list(STATES))
def test_the_board_opens_on_the_open_decision_its_deadline_and_its_form(server, browser, games, state):  # noqa: F811
    """The deadline is on the first screen, at the top of the decision (``#decision``, whose open decision live
    updates refresh, issue 28 item 6) above its form, which is in view; every other part comes after it, folded."""
    base, _ = server
    gid, token = STATES[state](games)
    page = board(browser, base, gid, token)
    deadline = top(page, "#where ~ .deadline time, #where ~ .window time")
    decision = page.locator("#decision")
    assert decision.get_by_role("button", name=DECIDE[state], exact=True).first.is_visible(), state
    assert top(page, "#decision") <= deadline < top(page, "#decision form") < top(page, "#folds"), state
    assert deadline < 900, state
    folds = page.locator("#folds details.fold")
    assert folds.count() >= 3 and folds.evaluate_all("ds => ds.every(d => !d.open)"), state


@pytest.mark.parametrize("state", list(STATES))
def test_with_javascript_off_every_folded_part_opens_by_keyboard_and_by_its_address(server, browser, games, state):  # noqa: F811
    """Without JavaScript: Tab goes from one folded part's summary to the next, Enter opens it and its part shows;
    ``?show=NAME`` opens that part alone and ``?show=all`` every part (the one-step-off links)."""
    base, _ = server
    gid, token = STATES[state](games)
    page = board(browser, base, gid, token, js=False)
    names = page.locator("#folds details.fold").evaluate_all("ds => ds.map(d => d.id.slice('fold-'.length))")
    summaries = page.locator("#folds details.fold > summary")
    summaries.first.focus()
    for n, name in enumerate(names):
        assert page.evaluate("document.activeElement.parentElement.id") == f"fold-{name}", (state, name)
        part = page.locator(f"#fold-{name} > :not(summary)").first
        assert not part.is_visible(), (state, name)
        page.keyboard.press("Enter")
        assert part.is_visible() and page.locator(f"#fold-{name}").evaluate("d => d.open"), (state, name)
        page.keyboard.press("Enter")  # folded again, so Tab reaches the next summary rather than the part's links
        if n + 1 < len(names):
            page.keyboard.press("Tab")
    for name in names:
        page.goto(f"{base}/play/{gid}?show={name}")
        opened = page.locator("#folds details.fold[open]").evaluate_all("ds => ds.map(d => d.id)")
        assert opened == [f"fold-{name}"], (state, name, opened)
        assert page.locator(f"#fold-{name} > :not(summary)").first.is_visible(), (state, name)
    page.goto(f"{base}/play/{gid}?show=all")
    assert page.locator("#folds details.fold:not([open])").count() == 0, state
