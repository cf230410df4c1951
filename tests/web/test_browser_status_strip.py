"""Issue 17, "What players expect": the status strip on every board, the GM console in tabs, and live updates
without a reload, in a real (headless) Chromium at 1280 and 360 px, with axe-core finding nothing. The server and
the browser are the fixtures of ``test_browser_month`` (both stopped even when a test fails); screenshots land in
test-output/screenshots/."""

from __future__ import annotations

import pytest

from domain.powers import commands as pc
from tests.web.axe import violations
from tests.web.test_browser_month import browser, games, pytestmark, server, shot  # noqa: F401  (fixtures)
from tests.web.test_browser_play_surface import rich_game

WIDTHS = (1280, 360)


def page_of(chromium, base, gid, token, width, js=True):
    page = chromium.new_context(viewport={"width": width, "height": 900}, java_script_enabled=js).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    return page


def strip(page) -> str:
    return " ".join(page.locator("#status-strip").inner_text().split())


def seat_words(page) -> dict[str, str]:
    names = page.locator("#status-strip .seat-name").all_inner_texts()
    words = page.locator("#status-strip .seat-word").all_inner_texts()
    return dict(zip(names, words, strict=True))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_strip_says_whose_move_it_is_the_deadline_and_who_is_ready(server, browser, width, games):  # noqa: F811
    """A power that must act reads "Your move." with Planning's deadline in its own zone, marked as waiting on it;
    a power that said it is ready reads "Waiting on others."; neither learns another power's readiness (a power
    sheet is the owner's and the GM's, P.4). The GM reads who is still to act by name, and "Your move" once no
    window waits on a player. Every strip shows the phases in words and the calendar with the current step."""
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    games.declare_ready(gid, "gandalf", "gandalf")
    games.set_timezone(gid, "gondor", "gondor", "America/New_York")

    gondor = page_of(browser, base, gid, tokens["gondor"], width)
    text = strip(gondor)
    assert "Your move." in text and "waiting on you" in text
    assert "Planning closes" in text and ("EST" in text or "EDT" in text)  # Gondor's own zone
    assert "Season 1: Tidings" in text and "Season 1, month 1: Planning" in text
    assert gondor.locator('#status-strip .steps li[aria-current="step"]').inner_text().startswith("Planning")
    assert seat_words(gondor) == {"You (Gondor)": "4 actions left"}
    assert gondor.evaluate("document.documentElement.scrollWidth") <= width  # nothing overflows a phone
    assert violations(gondor) == []
    shot(gondor, f"strip17-01-must-act-{width}")

    gandalf = page_of(browser, base, gid, tokens["gandalf"], width)
    text = strip(gandalf)
    assert "Waiting on others." in text and "Your move" not in text and "waiting on you" not in text
    assert "CET" in text  # the game's zone, Gandalf having chosen none
    assert seat_words(gandalf) == {"You (Gandalf)": "ready"}  # nobody else's readiness
    assert violations(gandalf) == []
    shot(gandalf, f"strip17-02-has-acted-{width}")

    gm = page_of(browser, base, gid, gm_token, width)
    text = strip(gm)
    assert "Waiting on the players: Gondor, Rangers." in text
    assert seat_words(gm) == {"Gandalf": "ready", "Gondor": "still planning", "Rangers": "still planning"}
    assert violations(gm) == []
    shot(gm, f"strip17-03-gm-planning-{width}")

    games.close_window(gid, "gm", games.view(gid, "gm")["windows"][-1]["window_id"])
    gm.reload()
    assert "Your move" in strip(gm) and "Season 1, month 1: Resolution" in strip(gm)
    gondor.reload()
    assert "Waiting on the GM." in strip(gondor) and "Your move" not in strip(gondor)
    shot(gondor, f"strip17-04-waiting-on-gm-{width}")


@pytest.mark.parametrize("js", (False, True))
def test_the_console_tabs_switch_with_and_without_javascript(server, browser, js, games):  # noqa: F811
    """The console opens on "This phase"; "Powers and links" and "History" show their sections alone, by links
    (CSS :target), with JavaScript on or off; an address naming a section opens its tab. Names, not ids: the
    queue and the windows name the powers."""
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    games.send(
        gid,
        "gandalf",
        pc.SubmitAction("gandalf", title="Duel the Witch-king", skill="might", targets=["gondor"], resistible=True),
    )
    for width in WIDTHS:
        gm = page_of(browser, base, gid, gm_token, width, js=js)
        assert gm.locator("#queue").is_visible() and gm.locator("#windows").is_visible()
        assert not gm.locator("#seats").is_visible() and not gm.locator("#feed").is_visible()
        assert "Still to act: Gandalf, Gondor, Rangers." in gm.locator("#windows").inner_text()
        assert "resistible by Gondor)" in gm.locator("#queue").inner_text()
        assert not js or violations(gm) == []  # axe runs as a script: with JavaScript on
        shot(gm, f"strip17-05-tab-phase-{'js' if js else 'nojs'}-{width}")
        gm.get_by_role("link", name="Powers and links").click()
        assert gm.locator("#seats").is_visible() and not gm.locator("#queue").is_visible()
        assert not js or violations(gm) == []  # axe runs as a script: with JavaScript on
        shot(gm, f"strip17-06-tab-powers-{'js' if js else 'nojs'}-{width}")
        gm.get_by_role("link", name="History").click()
        assert gm.locator("#feed").is_visible() and gm.locator("#rewind").is_visible()
        assert not gm.locator("#seats").is_visible() and not gm.locator("#queue").is_visible()
        assert not js or violations(gm) == []  # axe runs as a script: with JavaScript on
        shot(gm, f"strip17-07-tab-history-{'js' if js else 'nojs'}-{width}")
        gm.get_by_role("link", name="This phase").click()
        assert gm.locator("#queue").is_visible() and not gm.locator("#feed").is_visible()
        gm.goto(f"{base}/play/{gid}#seats")  # where a form of the powers tab sends the GM back
        assert gm.locator("#seats").is_visible() and not gm.locator("#queue").is_visible()
        assert gm.evaluate("document.documentElement.scrollWidth") <= width


def test_another_players_readiness_appears_without_a_reload(server, browser):  # noqa: F811
    """The GM's console (1280 px) and Rangers' board (360 px) are open; Gandalf, in a browser of his own, says he
    is done. Without a reload, the GM's strip shows Gandalf ready and the GM's feed its line (htmx polling the
    live fragment); Rangers' strip goes on saying nothing of Gandalf (not Rangers' to know, P.4)."""
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    gm = page_of(browser, base, gid, gm_token, 1280)
    rangers = page_of(browser, base, gid, tokens["rangers"], 360)
    for page in (gm, rangers):
        page.evaluate("window.notReloaded = true")
    assert seat_words(gm)["Gandalf"] == "still planning"

    gandalf = page_of(browser, base, gid, tokens["gandalf"], 1280)
    gandalf.get_by_role("button", name="I am done for this month").click()
    assert "Waiting on others." in strip(gandalf)

    assert "Gandalf is done for now." not in gm.locator("#feed").text_content()
    gm.wait_for_function(
        "() => document.querySelector('#status-strip').innerText.includes('Gandalf: ready')", timeout=30000
    )
    assert gm.evaluate("window.notReloaded") is True
    assert "Waiting on the players: Gondor, Rangers." in strip(gm)
    gm.wait_for_function(
        "() => document.querySelector('#feed').textContent.includes('Gandalf is done for now.')", timeout=30000
    )
    assert gm.evaluate("window.notReloaded") is True
    shot(gm, "strip17-08-live-gm-sees-ready")
    assert violations(gm) == []
    # Rangers' strip is drawn again too, and still names only Rangers.
    rangers.wait_for_timeout(12000)
    assert rangers.evaluate("window.notReloaded") is True
    assert seat_words(rangers) == {"You (Rangers)": "4 actions left"} and "Gandalf" not in strip(rangers)
    shot(rangers, "strip17-09-live-player-phone")


@pytest.mark.parametrize("width", WIDTHS)
def test_the_lodge_board_shows_the_strip_and_another_mages_pass_appears_live(server, browser, width, games):  # noqa: F811
    """The Lodge's board carries the same strip (one platform partial): Ann reads "Your move." and Bob "still
    acting"; when Bob passes (public, L.4), Ann's strip says so without a reload. axe finds nothing."""
    from application.service import Caller, new_token
    from domain.lodge.ruleset import AddMage, BeginGame, Pass
    from domain.platform.commands import ReissueLink

    base, app = server
    gid, _, _ = games.create_game("Lodge", ruleset="lodge")
    gm = Caller.of("gm")
    games.run_many(gm, gid, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    token, token_hash = new_token()
    games.run(gm, gid, ReissueLink("ann", token_hash))
    ann = page_of(browser, base, gid, token, width)
    ann.evaluate("window.notReloaded = true")
    assert "Your move." in strip(ann) and "Turn 1: Prepare" in strip(ann)
    assert seat_words(ann) == {"You": "still acting", "Bob": "still acting"}
    assert violations(ann) == []
    assert ann.evaluate("document.documentElement.scrollWidth") <= width
    games.run(Caller.of("bob"), gid, Pass("bob"))
    ann.wait_for_function(
        "() => document.querySelector('#status-strip').innerText.includes('Bob: passed')", timeout=30000
    )
    assert ann.evaluate("window.notReloaded") is True
    shot(ann, f"strip17-10-lodge-live-{width}")
