"""Observers by invitation (issue 28 item 5) in a real (headless) Chromium at 1280 and 360 px, with and without
JavaScript, and by keyboard alone: the GM invites an address to observe on the Seats page (a bad address is refused
by its field, keeping what was typed), the invitee follows the mailed link, presses the button and lands on the
observer's page (the table's public record, signed in); the GM revokes the observer and its browser is signed out;
axe finds no violation on any of these pages."""

from __future__ import annotations

import pytest

from tests.mail.sink import Sink
from tests.web.axe import violations
from tests.web.test_browser_lobby import INVITE, _checked, _table, deliver_invitations, project
from tests.web.test_browser_signin import browser, games, pytestmark, server, shot, unlabelled  # noqa: F401


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("width", [1280, 360])
def test_the_gm_invites_an_observer_who_watches_until_revoked(server, browser, games, sink, width, js):  # noqa: F811
    base, app = server
    gid, gm_token, _seat = _table(games)
    size = {"width": width, "height": 900}
    gm = browser.new_context(java_script_enabled=js, viewport=size).new_page()
    gm.goto(f"{base}/signin/{gid}/{gm_token}")
    gm.goto(f"{base}/play/{gid}/seats")
    _checked(gm, width, js)
    address = f"observer{width}{js}@example.org".lower()
    if js:  # past the browser's own check of an email field, to the server's
        gm.get_by_label("Invite an address to observe").fill("not an address")
        gm.locator("#observers-email").evaluate("e => e.type = 'text'")
        gm.get_by_role("button", name="Invite to observe").click()
        gm.wait_for_load_state()
        assert gm.locator("#err-observers-email").is_visible()
        assert gm.get_by_label("Invite an address to observe").input_value() == "not an address"
        _checked(gm, width, js)
    gm.get_by_label("Invite an address to observe").fill(address)
    gm.get_by_label("The observer's language, if you know it").select_option("de")
    gm.get_by_role("button", name="Invite to observe").click()
    gm.wait_for_load_state()
    assert "on its way" in gm.get_by_role("status").inner_text()
    _checked(gm, width, js)
    shot(gm, f"observer-invited-{width}{'' if js else '-nojs'}")
    project(app)
    deliver_invitations(app)
    sink.wait_for(len(sink.messages) + 1)
    link = INVITE.search(Sink.text(sink.to(address)[-1])).group(1)
    watcher = browser.new_context(java_script_enabled=js, viewport=size).new_page()
    watcher.goto(link)
    _checked(watcher, width, js)
    watcher.get_by_role("button", name="Observe the game").click()
    watcher.wait_for_url(f"**/play/{gid}")
    assert "You are observing" in watcher.content() and "Gandalf" in watcher.content()
    _checked(watcher, width, js)
    shot(watcher, f"observer-page-{width}{'' if js else '-nojs'}")
    gm.goto(f"{base}/play/{gid}/seats")
    gm.get_by_role("button", name=f"Revoke the observer {address}").click()
    gm.wait_for_load_state()
    assert "no longer works" in gm.get_by_role("status").inner_text()
    _checked(gm, width, js)
    watcher.goto(f"{base}/play/{gid}")
    assert "You are observing" not in watcher.content()


def test_the_observer_forms_by_keyboard_alone(server, browser, games, sink):  # noqa: F811
    base, app = server
    gid, gm_token, _seat = _table(games)
    gm = browser.new_context(viewport={"width": 360, "height": 900}).new_page()
    gm.goto(f"{base}/signin/{gid}/{gm_token}")
    gm.goto(f"{base}/play/{gid}/seats")
    while gm.evaluate("document.activeElement.id") != "observers-email":
        gm.keyboard.press("Tab")
    gm.keyboard.type("watching-keys@example.org")
    gm.keyboard.press("Tab")
    assert gm.evaluate("document.activeElement.id") == "observers-language"
    gm.keyboard.press("Tab")
    assert gm.evaluate("document.activeElement.textContent") == "Invite to observe"
    with gm.expect_navigation():
        gm.keyboard.press("Enter")
    project(app)
    deliver_invitations(app)
    sink.wait_for(1)
    link = INVITE.search(Sink.text(sink.to("watching-keys@example.org")[-1])).group(1)
    watcher = browser.new_context(viewport={"width": 360, "height": 900}).new_page()
    watcher.goto(link)
    while watcher.evaluate("document.activeElement.textContent") != "Observe the game":
        watcher.keyboard.press("Tab")
    with watcher.expect_navigation():
        watcher.keyboard.press("Enter")
    watcher.wait_for_url(f"**/play/{gid}")
    assert "You are observing" in watcher.content()
    gm.goto(f"{base}/play/{gid}/seats")
    revoke = "Revoke the observer watching-keys@example.org"
    while gm.evaluate("document.activeElement.textContent") != revoke:
        gm.keyboard.press("Tab")
    with gm.expect_navigation():
        gm.keyboard.press("Enter")
    assert "no longer works" in gm.content()
    assert violations(gm) == [] and unlabelled(gm) == []
