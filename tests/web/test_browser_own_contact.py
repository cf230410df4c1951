"""Issue 28 item 5 in a real (headless) Chromium at 1280 and 360 px, with and without JavaScript, and by keyboard
alone: a player sets their own address from the board's Notifications page; the link mailed to it (over SMTP, a
loopback sink) confirms it on another device, which is then signed in and lists the seat on My games."""

from __future__ import annotations

import re

import pytest

from tests.helpers import add_power
from tests.mail.sink import Sink
from tests.web.axe import violations
from tests.web.test_browser_signin import browser, games, pytestmark, server, shot, unlabelled  # noqa: F401

LINK = re.compile(r"(https?://\S+/contact/confirm/\S+)")


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("width", [1280, 360])
def test_a_player_sets_and_confirms_their_own_address(server, browser, games, sink, width, js):  # noqa: F811
    base, _app = server
    gid, _, _ = games.create_game("Middle-earth")
    seat, token, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
    address = f"gandalf{width}{js}@example.org".lower()
    page = browser.new_context(java_script_enabled=js, viewport={"width": width, "height": 900}).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    page.get_by_role("link", name="Notifications").click()
    page.wait_for_url(f"**/play/{gid}/contact")
    if js:
        assert unlabelled(page) == [] and violations(page) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= width
    page.get_by_label("Email address for this seat's notifications").fill("not an address")
    if js:  # past the browser's own check of an email field, to the server's
        page.locator("#contact-email").evaluate("e => e.type = 'text'")
        page.get_by_role("button", name="Save", exact=True).click()
        page.wait_for_load_state()
        assert page.locator("#err-contact-email").is_visible()
        assert page.get_by_label("Email address for this seat's notifications").input_value() == "not an address"
        assert violations(page) == []
    page.get_by_label("Email address for this seat's notifications").fill(address)
    page.get_by_label("Notifications", exact=True).select_option("digest")
    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_load_state()
    assert "on its way" in page.get_by_role("status").inner_text()
    assert games.contact_of(gid, seat) == (None, "immediate")
    if js:
        assert violations(page) == []
    shot(page, f"contact-asked-{width}{'' if js else '-nojs'}")
    sink.wait_for(len(sink.messages) + 1)
    link = LINK.search(Sink.text(sink.to(address)[-1])).group(1)
    phone = browser.new_context(java_script_enabled=js, viewport={"width": width, "height": 900}).new_page()
    phone.goto(link)
    if js:
        assert violations(phone) == []
    phone.get_by_role("button", name="Confirm this address").click()
    phone.wait_for_url("**/me")
    assert games.contact_of(gid, seat) == (address, "digest")
    assert "Middle-earth" in phone.content()
    if js:
        assert violations(phone) == []
    shot(phone, f"contact-confirmed-{width}{'' if js else '-nojs'}")


def test_the_notifications_form_by_keyboard_alone(server, browser, games, sink):  # noqa: F811
    base, _app = server
    gid, _, _ = games.create_game("Keys")
    seat, token, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
    page = browser.new_context(viewport={"width": 360, "height": 900}).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    page.goto(f"{base}/play/{gid}/contact")
    while page.evaluate("document.activeElement.id") != "contact-email":
        page.keyboard.press("Tab")
    page.keyboard.type("keys@example.org")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "contact-mode"
    page.keyboard.type("a daily")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.textContent") == "Save"
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "on its way" in page.get_by_role("status").inner_text()
    sink.wait_for(1)
    assert "/contact/confirm/" in Sink.text(sink.to("keys@example.org")[-1])
