"""Issue 17, "Checks": the page states no other browser test showed at both widths with axe-core, here at 1280 and
360 px, light and dark, with zero axe violations (and no text of its background's colour, which axe leaves
"incomplete"), nothing overflowing a phone, and a screenshot of each: test-output/screenshots/axe-<state>-<width>.png.

The audit: each item of issue 17 -> the browser tests that show it (file test_browser_<x> unless named), widths,
screenshots, axe. "w17:" is this file (every w17 state: 1280 and 360, axe, light and dark unless said).

  Links kept with Copy, 360 px box   play_surface (360, JS on/off; play17-11/12; no axe) + w17:links-kept
  Refused form keeps input; Wizard   play_surface (360; play17-13; no axe) + w17:refused-form-keeps-input
  No "Roll now" before difficulty;   play_surface (1280; no shot; no axe) + w17:proposal-waiting,
    the proposal's assured/critical    w17:proposal-roll-now, w17:dice-assured
  No "Go to Battle" in the window    play_surface (1280; no shot; no axe) + w17:console-window-open
  Announcement on every board;       play_surface (360; play17-16), axe (board-resolved, console-resolved; both)
    results in words                   + w17:results-done, w17:results-resisted
  Dice drawn, legend, no-JS preview  play_surface (360 no JS; play17-17), axe (board-rolled-dice) + w17:dice-assured
  Feed in words, paged, my numbers   play_surface (360; play17-01/02), axe (newest page on boards) + w17:feed-older
  Times in my zone; audit by name    play_surface (play17-03 360, play17-04 1280), axe (audit)
                                       + w17 talk: receipt and post times in the viewer's zone
  Confirmations; rollback banner     play_surface (no JS; play17-05..08), axe (confirm-*, *-after-rollback)
  Earlier phase as ended / began     play_surface (1280; play17-09/10), axe (board-earlier-phase)
                                       + w17:earlier-phase-as-it-began
  Waiver; resistance assets; no      play_surface (360; play17-14/15), axe (board-resistance, board-waived)
    "actions left" after Planning
  Status strip                       status_strip (1280+360, axe; strip17-01..04, lodge strip17-10)
  Console in tabs                    status_strip (1280+360, JS on and off, axe with JS; strip17-05..07)
  Live updates                       status_strip (GM 1280, player 360, lodge both; strip17-08..10; axe)
  Unread counts                      browser_talk (900 px; no axe) + w17 talk: board-unread, talk-index-unread
  Talk, thread and tied posts        browser_talk (900 px; no axe) + w17 talk: talk-index, thread-*, talk-search,
                                       board-tied-posts
  Battle section                     battle_page (HTML only) + w17 battle: setup, deployment, commands, GM terrain
  Dark mode                          signin (home, sign-in, board at 1280; My games both), + w17: every state of
                                       test_browser_axe again in dark (axe-dark-*), and every w17 state
  Email sign-in; "waiting on you"    signin (1280+360, axe; signin-asked-*, my-games-*)
  Ready for translation              test_i18n_talk (scanner on talk, thread, tied; talk.py phrases)
  Map's hex table at 360 px          w17 battle board: the scroll box is a focusable, labelled region (axe)

The server and the browser are the fixtures of ``test_browser_signin`` (stopped even when a test fails)."""

from __future__ import annotations

import json
import re

import pytest

import tests.web.test_browser_axe as axe_states
from domain.powers import commands as pc
from tests.domain.helpers import step_of
from tests.helpers import add_power
from tests.web.axe import AXE, violations
from tests.web.test_browser_axe import WIDTHS, check
from tests.web.test_browser_month import shot
from tests.web.test_browser_play_surface import rich_game
from tests.web.test_browser_signin import browser, games, pytestmark, server  # noqa: F401  (fixtures)

SCHEMES = ("light", "dark")

UNREADABLE = """async () => {
  const r = await axe.run(document, {runOnly: ['color-contrast']});
  return r.incomplete.flatMap(v => v.nodes).map(n => [n.target, (n.any[0] || {}).message || ''])
    .filter(([, m]) => /has a 1:1 contrast ratio/.test(m)).map(([t]) => t);
}"""


def inject_axe(page) -> None:
    """axe-core, evaluated in the page (an inline script tag would be refused by the pages' CSP, api/headers.py)."""
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;undefined")


def unreadable(page) -> list:
    """Text whose colour is its background's: axe leaves it "incomplete" (it may be hidden on purpose), so its
    colour-contrast rule passes a word no one can read (the assured die's word in dark mode did)."""
    if not AXE.exists():
        return []  # violations() has already skipped, or failed in CI
    inject_axe(page)
    found = page.evaluate(UNREADABLE)
    return [{"id": "color-contrast (1:1, left incomplete by axe)", "nodes": found}] if found else []


@pytest.fixture(autouse=True)
def _no_unreadable_text(monkeypatch):
    """Every state checked here (``test_browser_axe.check``) also fails on text of its background's colour."""
    monkeypatch.setattr(axe_states, "violations", lambda page: violations(page) + unreadable(page))


class Scheme:
    """A browser whose every new context prefers ``scheme`` (``prefers-color-scheme``), so another test's flow
    can be walked again in dark mode without copying it."""

    def __init__(self, chromium, scheme: str) -> None:
        self.chromium, self.scheme = chromium, scheme

    def new_context(self, **kw):
        return self.chromium.new_context(color_scheme=self.scheme, **kw)


def signed_in(chromium, base: str, gid: str, token: str, scheme: str = "light", js: bool = True):
    page = chromium.new_context(
        color_scheme=scheme, java_script_enabled=js, viewport={"width": 1280, "height": 900}
    ).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    return page


@pytest.mark.parametrize("scheme", SCHEMES)
def test_what_was_seen_states_no_other_test_showed_at_both_widths_with_axe(server, browser, scheme, games):  # noqa: F811
    """Each "What was seen" state that another browser test shows at one width or without axe (and assured dice
    drawn, which no axe state had), at 1280 and 360, light and dark."""
    base, app = server
    found: dict = {}

    # The console keeps every new link listed with Copy; at 360 px the link box does not overflow (check()).
    gid, gm_token, _ = games.create_game("Links", "GM", "UTC")
    gm = signed_in(browser, base, gid, gm_token, scheme)
    gm.get_by_role("link", name="Powers and links").click()
    for name, kind in (("Gandalf", "champion:wizard"), ("Rangers", "conspiracy:circle")):
        gm.locator("#pname").fill(name)
        gm.locator("#pkind").select_option(kind)
        gm.get_by_role("button", name="Add", exact=True).click()
    assert (
        gm.get_by_label("Sign-in link for Gandalf").count() == gm.get_by_label("Sign-in link for Rangers").count() == 1
    )
    check(gm, f"w17-{scheme}-links-kept", found)

    gid, gm_token, tokens = rich_game(app)
    games.send(gid, "gm", pc.GrantAsset("rangers", "Old map", "item", 1, assured=True))
    # A refused action keeps what was typed; a Wizard is offered no public slot.
    gandalf = signed_in(browser, base, gid, tokens["gandalf"], scheme)
    assert gandalf.get_by_label(re.compile(r"^Public")).count() == 0
    gandalf.get_by_label("Title", exact=True).fill("Scry the tower")
    gandalf.get_by_label("What you do").fill("Look into the palantir")
    gandalf.get_by_label("Skill tag").select_option("lore")  # "might" does not serve lore (P-ASSET-3)
    gandalf.get_by_role("group", name=re.compile("^Targets")).get_by_label("Gondor").check()
    gandalf.locator("#compose input[name='asset[]']").first.check()
    gandalf.get_by_role("button", name="Submit and roll").click()
    assert "P-ASSET-3" in gandalf.locator("#compose").inner_text()
    assert gandalf.get_by_label("Title", exact=True).input_value() == "Scry the tower"
    check(gandalf, f"w17-{scheme}-refused-form-keeps-input", found)

    # A proposal: no "Roll now" while it waits for the difficulty; then the roll form offers assured use.
    rangers = signed_in(browser, base, gid, tokens["rangers"], scheme)
    rangers.get_by_label("Title", exact=True).fill("Spy on Minas Tirith")
    rangers.get_by_label("Propose only: the GM sets the difficulty first, then I roll").check()
    rangers.get_by_role("button", name="Submit and roll").click()
    card = rangers.locator("article", has_text="Spy on Minas Tirith")
    assert "Waiting for the GM to set the difficulty" in card.inner_text()
    assert card.get_by_role("button", name="Roll now").count() == 0
    check(rangers, f"w17-{scheme}-proposal-waiting", found)
    games.send(gid, "gm", pc.SetDifficulty(games.view(gid, "rangers")["my_actions"][0]["action_id"], 2))
    rangers.reload()
    card = rangers.locator("article", has_text="Spy on Minas Tirith")
    assert card.get_by_role("button", name="Roll now").count() == 1
    assert "assured" in card.locator("select[name^='mode-']").locator("option").all_inner_texts()
    check(rangers, f"w17-{scheme}-proposal-roll-now", found)
    old_map = card.locator(".asset", has_text="Old map")
    old_map.get_by_role("checkbox").check()
    old_map.get_by_label("use as").select_option("assured")
    card.get_by_role("button", name="Roll now").click()
    card = rangers.locator("article", has_text="Spy on Minas Tirith")
    assert card.locator("ul.dice li.assured").count() == 1  # the assured die is drawn, with its word
    check(rangers, f"w17-{scheme}-dice-assured", found)

    # Results read in words; the console offers no "Go to Battle" while the resistance window is open.
    might = {p: games.view(gid, p)["me"]["assets"][0]["asset_id"] for p in tokens}
    gandalf_action = games.send(
        gid,
        "gandalf",
        pc.SubmitAction(
            "gandalf",
            title="Duel the Witch-king",
            skill="might",
            targets=["gondor"],
            resistible=True,
            difficulty=1,
            assets=[{"asset_id": might["gandalf"]}],
            convert=0,
        ),
    ).result["action_id"]
    games.send(gid, "rangers", pc.SubmitAction("rangers", title="Keep watch", convert=0))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement="The beacons are lit! Rohan answers."))
    gm = signed_in(browser, base, gid, gm_token, scheme)
    assert gm.get_by_role("button", name="Go to Battle").count() == 0
    assert "Battle begins when the resistance window closes" in gm.content()
    check(gm, f"w17-{scheme}-console-window-open", found)
    games.send(gid, "gondor", pc.DeclareReaction("gondor", gandalf_action, [{"asset_id": might["gondor"]}], 0))
    assert step_of(games.get_game(gid, for_update=False)) == "battle"
    rangers.goto(f"{base}/play/{gid}")
    done = rangers.locator("#actions article", has_text="Keep watch").locator("p.result")
    assert done.inner_text().startswith("Result: Done (no difficulty was set)")
    check(rangers, f"w17-{scheme}-results-done", found)
    gandalf.goto(f"{base}/play/{gid}")
    result = gandalf.locator("#actions p.result").inner_text()  # resistance takes away what its dice give, maybe 0
    assert re.fullmatch(
        r"Result: (Succeeded|Failed): \d+ success(es)?(, [1-9]\d* taken away by Gondor's resistance, net \d+)?"
        r" against difficulty 1( \(\d+ to spare\))?\.",
        result,
    ), result
    check(gandalf, f"w17-{scheme}-results-resisted", found)

    # The feed's older page, and an earlier phase as it began.
    for n in range(42):
        games.send(gid, "gm", pc.GrantAsset("gondor", f"beacon{n}", "agent", 1))
    gondor = signed_in(browser, base, gid, tokens["gondor"], scheme)
    gondor.goto(f"{base}/play/{gid}?show=feed")  # the feed is folded away, one step off (issue 28 item 2)
    gondor.get_by_role("link", name="Older events").click()
    assert gondor.locator("#feed ol.feed li").count() > 0
    check(gondor, f"w17-{scheme}-feed-older", found)
    gondor.goto(f"{base}/play/{gid}?phase=s1m1-planning")
    gondor.get_by_role("link", name="See it as it began").click()
    assert "as it began" in gondor.locator(".past").inner_text()
    assert gondor.locator("time[data-countdown]").count() == 0
    check(gondor, f"w17-{scheme}-earlier-phase-as-it-began", found)
    assert not found, json.dumps(found, indent=1)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_talk_pages_and_unread_counts_have_no_axe_violation_at_1280_and_360(server, browser, scheme, games):  # noqa: F811
    """The talk index (threads with what is new, search, the private-thread form), a thread (a post with its Edit
    form, a refused empty post, the GM's Hide form and a hidden post, a player's placeholder of it, a reply's
    quote and its preview, a narration read-only), the board's
    "(n new)" and the posts tied to an action on the board: each at both widths, light and dark. A post's time
    reads in the viewer's zone, not in UTC."""
    from api.web import i18n

    base, app = server
    found: dict = {}
    gid, gm_token, _ = games.create_game("Talk of the realm", "GM", "Europe/Paris")
    tokens = {"gm": gm_token}
    for name, cls, sub in (("Ann", "champion", "wizard"), ("Bob", "conspiracy", "circle"), ("Cy", "city", "overlord")):
        pid, token, _ = add_power(games, gid, "gm", name, cls, sub)
        tokens[pid] = token
    from application.service import Caller
    from domain.powers.commands import Advance

    games.run(Caller.of("gm"), gid, Advance(tidings="Winter: the passes close."))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "ann", pc.SubmitAction("ann", title="Raid the ford", slot="private", roll=False))
    name = f"w17-{scheme}"

    ann = signed_in(browser, base, gid, tokens["ann"], scheme)
    ann.goto(f"{base}/play/{gid}/talk")
    check(ann, f"{name}-talk-index", found)
    ann.get_by_label("Bob").check()
    ann.get_by_label("Title").fill("Ford talks")
    ann.get_by_role("button", name="Open the thread").click()
    assert "Thread opened." in ann.content()  # the flash of the open form, shown where the form lands
    receipt = ann.locator("p.receipt").inner_text()
    assert "+00:00" not in receipt and re.search(r"\d{1,2}:\d{2}\s?[AP]M CET", receipt), receipt  # in my zone
    check(ann, f"{name}-thread-opened", found)
    ann.get_by_label("Text (Markdown; [roll 3d6] rolls dice)").fill("I offer **gold** for the ford. [roll 2d6]")
    ann.get_by_role("button", name="Post").click()
    stamp = ann.locator("ol.posts li.post time").first
    zone_said = i18n._locale.set(i18n.choose("en-US", None))  # Chromium asks for en-US
    try:
        expected = i18n.local_time(stamp.get_attribute("datetime"), "Europe/Paris")
    finally:
        i18n._locale.reset(zone_said)
    assert stamp.inner_text() == expected and expected.endswith(("CET", "CEST")), stamp.inner_text()
    ann.locator("ol.posts summary", has_text="Edit").first.click()
    check(ann, f"{name}-thread-posted", found)
    ann.get_by_label("Text (Markdown; [roll 3d6] rolls dice)").fill("   ")
    ann.get_by_role("button", name="Post").click()
    assert ann.get_by_role("alert").inner_text().startswith("a post cannot be empty")
    check(ann, f"{name}-thread-refused", found)

    # Ann discusses her action at the table from its card: the post shows under the action on her board.
    ann.goto(f"{base}/play/{gid}")
    ann.locator("#actions").get_by_role("link", name="Discuss at the table").first.click()
    assert ann.get_by_label(re.compile(r"^Tied to")).input_value().startswith("action:")
    ann.get_by_label("Text (Markdown; [roll 3d6] rolls dice)").fill("Who rides with me to the ford?")
    ann.get_by_role("button", name="Post").click()
    ann.goto(f"{base}/play/{gid}")
    assert "Who rides with me to the ford?" in ann.locator("#actions .tied-posts").inner_text()
    check(ann, f"{name}-board-tied-posts", found)

    bob = signed_in(browser, base, gid, tokens["bob"], scheme)
    assert "(3 new)" in bob.locator("header .talk-link").inner_text()  # the Tidings, the offer, the table post
    check(bob, f"{name}-board-unread", found)
    bob.goto(f"{base}/play/{gid}/talk")
    assert "1 new" in bob.locator("ul.threads li", has_text="Ford talks").inner_text()
    check(bob, f"{name}-talk-index-unread", found)
    bob.get_by_label("Words").fill("gold")
    bob.get_by_role("button", name="Search").click()
    assert "1 post found." in bob.content()
    check(bob, f"{name}-talk-search", found)
    bob.goto(f"{base}/play/{gid}/talk")
    bob.get_by_role("link", name="Ford talks").click()
    bob.goto(f"{base}/play/{gid}")
    assert "(2 new)" in bob.locator("header .talk-link").inner_text()  # reading the thread cleared its post

    gm = signed_in(browser, base, gid, gm_token, scheme)
    gm.goto(f"{base}/play/{gid}/talk")
    gm.get_by_role("link", name="Ford talks").click()
    gm.locator("ol.posts summary", has_text="Hide").first.click()
    check(gm, f"{name}-thread-gm-hide-form", found)
    gm.get_by_label("Reason").first.fill("too rude")
    gm.get_by_role("button", name="Hide this post").first.click()
    assert "Hidden by the GM: too rude" in gm.content()
    check(gm, f"{name}-thread-gm-hidden", found)

    # issue 28: the players read a placeholder with the reason; Reply quotes a post; Preview shows the draft
    bob.goto(gm.url)
    assert "Hidden by the GM: too rude" in bob.content()
    check(bob, f"{name}-thread-placeholder", found)
    bob.goto(f"{base}/play/{gid}/talk/table")
    bob.get_by_role("link", name="Reply").first.click()
    assert bob.get_by_label("Text (Markdown").input_value().startswith("> ")
    bob.get_by_role("button", name="Preview").click()
    assert "Preview (not sent)" in bob.content() and bob.get_by_label("Text (Markdown").input_value().startswith("> ")
    check(bob, f"{name}-thread-reply-preview", found)

    cy = signed_in(browser, base, gid, tokens["cy"], scheme)
    cy.goto(f"{base}/play/{gid}/talk/narration")
    assert "Winter: the passes close." in cy.content() and cy.get_by_role("button", name="Post").count() == 0
    check(cy, f"{name}-thread-narration", found)
    assert not found, json.dumps(found, indent=1)


def check_section(page, selector: str, name: str, found: dict) -> None:
    """``test_browser_axe.check`` for one section of a page: axe run on ``selector`` only, at both widths, the
    360 px overflow of the whole page, and a screenshot of each."""
    for width in WIDTHS:
        page.set_viewport_size({"width": width, "height": 900})
        if AXE.exists():
            inject_axe(page)
            wrong = page.evaluate("async (s) => (await axe.run(s)).violations", selector)
            wrong = [{"id": v["id"], "nodes": [n["target"] for n in v["nodes"]]} for v in wrong]
            wrong += unreadable(page)
        else:
            wrong = violations(page)  # skips, or fails in CI, as tests/web/axe.py says
        if wrong:
            found[f"{name}@{width}"] = wrong
        if width == 360 and page.evaluate("document.scrollingElement.scrollWidth") > 360:
            found[f"{name}@360 overflow"] = page.evaluate("document.scrollingElement.scrollWidth")
        shot(page, f"axe-{name}-{width}")


def battle_game(app):
    """North, East and South with armies in one hex, in month 1's Battle step; North declares a battle against
    South with East as an ally (the fixture of ``test_battle_page``, by the service)."""
    from application.service import Caller
    from domain.powers import battle
    from tests.integration.test_battle_api import HEX
    from tests.web.test_battle_page import at_battle

    gid, tokens = at_battle(app, "Europe/Paris")
    games = app.state.games  # noqa: F811 - the service of the app given, not the fixture
    games.run(Caller.of("north"), gid, battle.DeclareBattle("b1", HEX, "north", ["south"], ["east"]))
    return gid, tokens


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_battle_section_has_no_axe_violation_at_1280_and_360(server, browser, scheme, games):  # noqa: F811
    """The board's and the console's battle section (axe on ``#battles``) at each step that waits for someone:
    setup (its form), deployment, commands (the command form of the power whose turn it is), and the GM's terrain
    form; light and dark, at both widths. The whole board with a drawn map is the next test's."""
    from application.service import Caller
    from domain.powers import battle

    base, app = server
    found: dict = {}
    gid, tokens = battle_game(app)
    name = f"w17-{scheme}-battle"
    north = signed_in(browser, base, gid, tokens["north"], scheme)
    assert north.get_by_role("button", name="Submit the setup").count() == 1
    check_section(north, "#battles", f"{name}-setup", found)
    gm = signed_in(browser, base, gid, tokens["gm"], scheme)
    gm.goto(f"{base}/play/{gid}#battles")
    assert gm.locator("#battles").get_by_label("Terrain", exact=True).count() == 1  # the map editor has its own
    check_section(gm, "#battles", f"{name}-gm-terrain", found)

    north.get_by_label("Your armies in order (ids, commas)").fill("n1")
    north.get_by_label(re.compile("^Goals, one a line")).fill("Hold the ford")
    north.get_by_label("Assets revealed to the GM only (ids)").fill("spyford")
    north.get_by_role("button", name="Submit the setup").click()
    assert "Setup recorded." in north.content()
    games.run(Caller.of("east"), gid, battle.SubmitBattleSetup("b1", "east", ["e1"]))
    games.run(Caller.of("south"), gid, battle.SubmitBattleSetup("b1", "south", ["s1", "s2"]))
    south = signed_in(browser, base, gid, tokens["south"], scheme)
    assert south.get_by_role("button", name="Deploy").count() == 1
    check_section(south, "#battles", f"{name}-deployment", found)
    south.get_by_role("button", name="Deploy").click()
    view = games.view(gid, "gm")["battles"][0]
    assert view["step"] == "commands"
    turn = signed_in(browser, base, gid, tokens[view["turn"]["power"]], scheme)
    assert turn.get_by_role("button", name="Give the command").count() == 1
    assert "The battlefield" in turn.content() and "Hold the ford" in turn.content()
    check_section(turn, "#battles", f"{name}-commands", found)
    gm.reload()
    assert "spyford" in gm.locator("#battles").inner_text()  # revealed to the GM only (P.4)
    check_section(gm, "#battles", f"{name}-gm-commands", found)
    assert not found, json.dumps(found, indent=1)


def test_a_board_with_a_drawn_map_has_no_axe_violation_at_1280_and_360(server, browser):  # noqa: F811
    """The battle's board as a whole: every Powers board with a declared map shows its hex table, which at 360 px
    scrolls sideways inside its box."""
    base, app = server
    found: dict = {}
    gid, tokens = battle_game(app)
    north = signed_in(browser, base, gid, tokens["north"])
    check(north, "w17-board-with-map", found)
    assert not found, json.dumps(found, indent=1)


def test_every_powers_page_state_in_dark_mode_has_no_axe_violation(server, browser, monkeypatch, games):  # noqa: F811
    """Every state of ``test_browser_axe`` (home, sign-in, the board and console from Planning to after a
    rollback, the audit, every confirmation) again with ``prefers-color-scheme: dark``: axe's colour-contrast
    rule holds in dark mode too. Screenshots: axe-dark-<state>-<width>.png."""
    monkeypatch.setattr(axe_states, "shot", lambda page, name: shot(page, name.replace("axe-", "axe-dark-", 1)))
    axe_states.test_every_powers_page_state_has_no_axe_violation_at_1280_and_360(server, Scheme(browser, "dark"), games)


def test_the_covenant_table_and_the_lodge_board_in_dark_mode_have_no_axe_violation(server, browser, monkeypatch, games):  # noqa: F811
    """The covenant table and the Lodge board of ``test_browser_axe``, again in dark mode."""
    monkeypatch.setattr(axe_states, "shot", lambda page, name: shot(page, name.replace("axe-", "axe-dark-", 1)))
    axe_states.test_the_covenant_table_and_the_lodge_board_have_no_axe_violation_at_1280_and_360(
        server, Scheme(browser, "dark"), games
    )
