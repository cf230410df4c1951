"""Issue 28 item 8 in a real (headless) Chromium: the help index and a ruleset's help page at 1280 and 360 px with no
axe violation and nothing wider than a phone, read by keyboard alone; a rule id's link opens the rules page at that
rule's anchor. Screenshots land in test-output/screenshots/help-*.png. The server stops even when a test fails
(the fixtures of ``test_browser_signin``)."""

from __future__ import annotations

import pytest

from domain.platform.ruleset import registered
from tests.web.axe import violations
from tests.web.test_browser_month import shot
from tests.web.test_browser_signin import browser, pytestmark, server  # noqa: F401  (fixtures)

WIDTHS = (1280, 360)


def test_the_help_index_and_a_ruleset_page_have_no_axe_violation_at_1280_and_360(server, browser):  # noqa: F811
    base, _app = server
    for width in WIDTHS:
        page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
        for path, name in (
            ("/help", "index"),
            ("/help/lodge", "lodge"),
            ("/help/covenants", "covenants"),
            ("/help/powers/decisions", "powers-decisions"),
        ):
            page.goto(base + path)
            assert violations(page) == [], (path, width)
            assert page.evaluate("document.scrollingElement.scrollWidth") <= width, (path, width)
            shot(page, f"help-{name}-{width}")
        page.goto(base + "/")
        page.get_by_role("link", name="Help").click()  # every page's footer links it
        page.wait_for_url("**/help")
        assert page.get_by_role("heading", name="Help", exact=True).is_visible()
        german = browser.new_context(viewport={"width": width, "height": 900}, locale="de-DE").new_page()
        german.goto(base + "/help/lodge")  # in the reader's language (Accept-Language): its words are longer
        assert german.get_by_role("heading", name="Per E-Mail").is_visible()
        assert violations(german) == [] and german.evaluate("document.scrollingElement.scrollWidth") <= width


def test_a_rule_ids_link_opens_the_rules_text_at_that_rule_by_keyboard(server, browser):  # noqa: F811
    base, _app = server
    page = browser.new_context(viewport={"width": 360, "height": 900}).new_page()
    page.goto(base + "/help/lodge")
    link = page.locator('a[href="/help/lodge/rules#L-MOVE-1"]').first
    link.focus()
    page.keyboard.press("Enter")
    page.wait_for_url("**/help/lodge/rules#L-MOVE-1")
    target = page.locator(":target")
    assert target.get_attribute("id") == "L-MOVE-1" and "L-MOVE-1" in target.inner_text()
    assert violations(page) == [] and page.evaluate("document.scrollingElement.scrollWidth") <= 360
    shot(page, "help-lodge-rules-360")


@pytest.mark.parametrize("name", sorted(registered()))
def test_every_rulesets_help_decisions_and_rules_pages_have_no_axe_violation_at_1280_and_360(server, browser, name):  # noqa: F811
    """Issue 28 item 8 on every registered ruleset (the test above reads a sample): its help page, its decisions
    and its rules text where it ships one, and the routes' reference, at both widths, with no axe violation and
    nothing wider than the screen."""
    base, _app = server
    wrong: dict[str, object] = {}
    for width in WIDTHS:
        page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
        for path in (f"/help/{name}", f"/help/{name}/decisions", f"/help/{name}/rules", "/help/routes"):
            answer = page.goto(base + path)
            assert answer is not None
            if answer.status == 404 and path.endswith("/rules"):
                continue  # a ruleset that ships no rules text (the tests' fake one)
            assert answer.status == 200, path
            if found := violations(page):
                wrong[f"{path}@{width}"] = found
            if (scroll := page.evaluate("document.scrollingElement.scrollWidth")) > width:
                wrong[f"{path}@{width} overflow"] = scroll
        page.context.close()
    assert wrong == {}, wrong
