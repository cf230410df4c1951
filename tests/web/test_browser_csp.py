"""Issue 27, hardening: under the pages' Content-Security-Policy (``api/headers.py``) the pages' JavaScript and htmx
still work in a real Chromium, and the browser reports no violation: the countdowns, the console's tabs, and a
live update of the status strip drawn again without a reload."""

from __future__ import annotations

from tests.web.test_browser_month import browser, games, pytestmark, server  # noqa: F401  (fixtures)
from tests.web.test_browser_play_surface import rich_game


def watched(chromium, base: str, url: str, messages: list[str]):
    page = chromium.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
    page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
    page.goto(f"{base}{url}")
    page.evaluate(
        """() => { window.cspViolations = [];
        document.addEventListener('securitypolicyviolation', e => window.cspViolations.push(e.violatedDirective)); }"""
    )
    return page


def test_pages_and_live_updates_work_under_the_policy_with_no_violation(server, browser):  # noqa: F811
    base, app = server
    gid, gm_token, tokens = rich_game(app)
    messages: list[str] = []
    gm = watched(browser, base, f"/signin/{gid}/{gm_token}", messages)
    policy = gm.evaluate("fetch(location.href).then(r => r.headers.get('content-security-policy'))")
    assert "default-src 'self'" in policy
    gm.evaluate("window.notReloaded = true")
    assert gm.locator("span.countdown").count() > 0  # app.js ran
    assert gm.evaluate("typeof htmx") == "object" and gm.evaluate("htmx.config.allowEval") is False

    gandalf = watched(browser, base, f"/signin/{gid}/{tokens['gandalf']}", messages)
    gandalf.get_by_role("button", name="I am done for this month").click()
    gm.wait_for_function(
        "() => document.querySelector('#status-strip').innerText.includes('Gandalf: ready')", timeout=30000
    )
    assert gm.evaluate("window.notReloaded") is True  # htmx drew the strip again
    assert gm.evaluate("window.cspViolations") == []  # Gandalf's page was left by his form post
    for page in (gm, gandalf):
        page.reload()
        page.wait_for_load_state("networkidle")
    # Chromium reports each violation in the console ("Refused to ... Content Security Policy ..."); a missing
    # favicon is not one.
    assert not [m for m in messages if "Content Security Policy" in m or m.startswith("pageerror")], messages
