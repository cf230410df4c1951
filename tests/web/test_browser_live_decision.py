"""Issue 28 item 6, "Live updates refresh the open decision as well, without losing what is being typed", in a real
(headless) Chromium at 1280 and 360 px: the GM's commands change two powers' decisions; the page of the power not
typing updates without a reload; the page of the power typing in its compose form keeps what it typed and its
focus, and says politely "This decision has changed — update", whose button applies it. axe finds nothing. The
server and the browser are the fixtures of ``test_browser_month``; screenshots land in test-output/screenshots/."""

from __future__ import annotations

import pytest

from domain.powers import commands as pc
from tests.web.axe import violations
from tests.web.test_browser_month import browser, games, pytestmark, server, shot  # noqa: F401  (fixtures)
from tests.web.test_browser_play_surface import rich_game

POLL = 30000  # ms: the strip polls every 10 s


def page_of(chromium, base, gid, token, width, js=True):
    page = chromium.new_context(viewport={"width": width, "height": 900}, java_script_enabled=js).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    page.evaluate("window.notReloaded = true") if js else None
    return page


def headline(page) -> str:
    return page.locator("#open-decision h1").inner_text()


@pytest.mark.parametrize("width", (1280, 360))
def test_issue28_the_open_decision_updates_live_and_waits_for_a_form_being_typed_in(server, browser, width, games):  # noqa: F811
    """GM-2: the GM sets the difficulty of Rangers' proposal: Rangers' page offers the roll without a reload.
    The GM then closes Planning (P-ACT-1): Rangers' page reads Resolution, its compose form gone; Gondor, who was typing
    an action's title, keeps the text and the focus and reads the notice (polite, not an alert); its button,
    by keyboard, applies the new decision and puts the focus on its heading."""
    base, app = server
    gid, _, tokens = rich_game(app)
    games.send(gid, "rangers", pc.SubmitAction("rangers", title="Spy on Minas Tirith", slot="private", roll=False))
    rangers = page_of(browser, base, gid, tokens["rangers"], width)
    gondor = page_of(browser, base, gid, tokens["gondor"], width)
    assert rangers.get_by_role("button", name="Roll now").count() == 0
    assert gondor.locator("#decision-notice").get_attribute("aria-live") == "polite"
    title = gondor.get_by_label("Title", exact=True)
    title.fill("Muster the Rohirrim")
    title.focus()

    proposal = games.view(gid, "rangers")["my_actions"][0]["action_id"]
    games.send(gid, "gm", pc.SetDifficulty(proposal, 2))
    rangers.get_by_role("button", name="Roll now").wait_for(timeout=POLL)
    assert rangers.evaluate("window.notReloaded") is True
    assert violations(rangers) == []

    games.send(gid, "gm", pc.Advance())
    rangers.wait_for_function(
        "() => document.querySelector('#open-decision h1').innerText.includes('Resolution')", timeout=POLL
    )
    assert rangers.evaluate("window.notReloaded") is True
    assert rangers.locator("#compose").count() == 0
    assert rangers.locator("#decision-notice").inner_text() == ""  # nobody was typing: swapped in, no notice
    shot(rangers, f"live28-01-swapped-{width}")

    notice = gondor.locator("#decision-notice")
    notice.get_by_role("button", name="update").wait_for(timeout=POLL)
    assert " ".join(notice.inner_text().split()) == "This decision has changed — update"
    assert gondor.evaluate("window.notReloaded") is True
    assert headline(gondor) == "Season 1, month 1: Planning"  # held back
    assert title.input_value() == "Muster the Rohirrim"
    assert gondor.evaluate("document.activeElement.id") == "title"  # the focus is not stolen
    assert gondor.locator("[role=alert]").count() == 0
    assert violations(gondor) == []
    assert gondor.evaluate("document.documentElement.scrollWidth") <= width
    shot(gondor, f"live28-02-held-{width}")

    notice.get_by_role("button", name="update").focus()
    gondor.keyboard.press("Enter")
    assert headline(gondor) == "Season 1, month 1: Resolution" and gondor.locator("#compose").count() == 0
    assert notice.inner_text() == ""
    assert gondor.evaluate("document.activeElement.id") == "where"
    assert gondor.evaluate("window.notReloaded") is True
    assert violations(gondor) == []
    shot(gondor, f"live28-03-updated-{width}")


def test_issue28_an_untouched_form_is_swapped_and_the_no_javascript_board_is_as_served(server, browser, games):  # noqa: F811
    """A power that only looked (no control focused or changed) gets the new decision without a notice; a select
    changed back to its served choice counts as untouched. Without JavaScript nothing polls: the board stays as
    served, its notice empty, until it is loaded again."""
    base, app = server
    gid, _, tokens = rich_game(app)
    gondor = page_of(browser, base, gid, tokens["gondor"], 1280)
    skill = gondor.get_by_label("Skill tag")
    skill.select_option("might")
    skill.select_option("")
    gondor.locator("#where").click()  # the focus leaves the form (the heading is not a control)
    nojs = page_of(browser, base, gid, tokens["gandalf"], 1280, js=False)
    games.send(gid, "gm", pc.Advance())
    gondor.wait_for_function(
        "() => document.querySelector('#open-decision h1').innerText.includes('Resolution')", timeout=POLL
    )
    assert gondor.evaluate("window.notReloaded") is True and gondor.locator("#decision-notice").inner_text() == ""

    nojs.wait_for_timeout(11000)
    assert headline(nojs) == "Season 1, month 1: Planning" and nojs.locator("#decision-notice").inner_text() == ""
    nojs.reload()
    assert headline(nojs) == "Season 1, month 1: Resolution"
