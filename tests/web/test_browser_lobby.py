"""Issue 28 item 5 in a real (headless) Chromium at 1280 and 360 px, with and without JavaScript, and by keyboard
alone: the GM opens a seat listed in the lobby (with a note, the pace and the language) on the Seats page; a
newcomer finds it in the lobby, takes it with their address (a bad one is refused by its field, keeping what was
typed) and lands on the seat's notifications, signed in, with a link to confirm the address on its way; the GM
invites an address, and the invitee takes the seat by the mailed link; axe finds no violation on any of these
pages."""

from __future__ import annotations

import re

import pytest

from tests.helpers import add_power
from tests.mail.sink import Sink
from tests.web.axe import violations
from tests.web.test_browser_signin import browser, games, pytestmark, server, shot, unlabelled  # noqa: F401


def _table(service):
    gid, gm_token, _ = service.create_game("Middle-earth")
    seat, _token, _ = add_power(service, gid, "gm", "Gandalf", "champion", "wizard")
    return gid, gm_token, seat


def project(app) -> None:
    """The read models caught up with the commands sent (the lobby is one)."""
    app.state.projector.catch_up()


def _checked(page, width: int, js: bool) -> None:
    if js:
        assert unlabelled(page) == [] and violations(page) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("width", [1280, 360])
def test_the_gm_lists_a_seat_and_a_newcomer_takes_it_from_the_lobby(server, browser, games, width, js):  # noqa: F811
    base, app = server
    gid, gm_token, seat = _table(games)
    size = {"width": width, "height": 900}
    gm = browser.new_context(java_script_enabled=js, viewport=size).new_page()
    gm.goto(f"{base}/signin/{gid}/{gm_token}")
    gm.goto(f"{base}/play/{gid}/seats")
    _checked(gm, width, js)
    gm.get_by_label("A note for newcomers (public)").fill("Seeks a patient wizard")
    gm.get_by_label("Pace").select_option("steady")
    gm.get_by_label("Language of the table").select_option("de")
    gm.get_by_label("List it in the lobby").check()
    gm.get_by_role("button", name="Open the seat Gandalf").click()
    gm.wait_for_load_state()
    assert "Open, and listed in the lobby." in gm.content()
    _checked(gm, width, js)
    shot(gm, f"lobby-seats-{width}{'' if js else '-nojs'}")
    project(app)

    newcomer = browser.new_context(java_script_enabled=js, viewport=size).new_page()
    newcomer.goto(f"{base}/lobby")
    assert "Seeks a patient wizard" in newcomer.content() and "German" in newcomer.content()
    _checked(newcomer, width, js)
    shot(newcomer, f"lobby-{width}{'' if js else '-nojs'}")
    newcomer.get_by_label("Pace").select_option("brisk")
    newcomer.get_by_role("button", name="Show").click()
    newcomer.wait_for_load_state()
    assert "Seeks a patient wizard" not in newcomer.content()  # filtered out: the seat is steady
    newcomer.get_by_label("Pace").select_option("steady")
    newcomer.get_by_role("button", name="Show").click()
    newcomer.wait_for_load_state()
    newcomer.get_by_role("link", name="Take the seat Gandalf in Middle-earth").click()
    newcomer.wait_for_url(f"**/lobby/{gid}/{seat}")
    _checked(newcomer, width, js)
    address = f"newcomer{width}{js}@example.org".lower()
    if js:  # past the browser's own check of an email field, to the server's
        newcomer.get_by_label("Your email address").fill("not an address")
        newcomer.locator("#take-email").evaluate("e => e.type = 'text'")
        newcomer.get_by_role("button", name="Take this seat").click()
        newcomer.wait_for_load_state()
        assert newcomer.locator("#err-take-email").is_visible()
        assert newcomer.get_by_label("Your email address").input_value() == "not an address"
        assert violations(newcomer) == [] and games.contact_of(gid, seat)[0] is None
    newcomer.get_by_label("Your email address").fill(address)
    newcomer.get_by_role("button", name="Take this seat").click()
    newcomer.wait_for_url(f"**/play/{gid}/contact*")  # its notifications: a link to confirm the address is on its way
    assert games.contact_of(gid, seat)[0] is None and "on its way" in newcomer.content()
    assert "Gandalf" in newcomer.content()
    shot(newcomer, f"lobby-taken-{width}{'' if js else '-nojs'}")


def test_the_seats_and_take_forms_by_keyboard_alone(server, browser, games):  # noqa: F811
    base, app = server
    gid, gm_token, seat = _table(games)
    gm = browser.new_context(viewport={"width": 360, "height": 900}).new_page()
    gm.goto(f"{base}/signin/{gid}/{gm_token}")
    gm.goto(f"{base}/play/{gid}/seats")
    note = f"open-{seat}-note"
    while gm.evaluate("document.activeElement.id") != note:
        gm.keyboard.press("Tab")
    gm.keyboard.type("By keyboard")
    gm.keyboard.press("Tab")
    assert gm.evaluate("document.activeElement.id") == f"open-{seat}-pace"
    gm.keyboard.type("brisk")
    gm.keyboard.press("Tab")
    assert gm.evaluate("document.activeElement.id") == f"open-{seat}-language"
    gm.keyboard.press("Tab")
    assert gm.evaluate("document.activeElement.id") == f"open-{seat}-listed"
    gm.keyboard.press("Space")
    gm.keyboard.press("Tab")
    assert gm.evaluate("document.activeElement.textContent") == "Open the seat Gandalf"
    with gm.expect_navigation():
        gm.keyboard.press("Enter")
    assert "Open, and listed in the lobby." in gm.content()
    project(app)
    newcomer = browser.new_context(viewport={"width": 360, "height": 900}).new_page()
    newcomer.goto(f"{base}/lobby")
    link = "Take the seat Gandalf in Middle-earth"
    while newcomer.evaluate("document.activeElement.textContent") != link:
        newcomer.keyboard.press("Tab")
    with newcomer.expect_navigation():
        newcomer.keyboard.press("Enter")
    while newcomer.evaluate("document.activeElement.id") != "take-email":
        newcomer.keyboard.press("Tab")
    newcomer.keyboard.type("keys@example.org")
    newcomer.keyboard.press("Tab")
    assert newcomer.evaluate("document.activeElement.textContent") == "Take this seat"
    with newcomer.expect_navigation():
        newcomer.keyboard.press("Enter")
    newcomer.wait_for_url(f"**/play/{gid}/contact*")
    assert games.contact_of(gid, seat)[0] is None and "keys@example.org" in newcomer.content()


def deliver_invitations(app) -> None:
    """Send the outbox's invitations as the workers do (framed as they go out)."""
    from application.mails import Framer
    from workers import mail

    db, settings = app.state.projector.db, app.state.settings
    for (row_id,) in db.query("SELECT id FROM mail_ledger WHERE kind LIKE 'invitation %' AND status = 'queued'"):
        mail.deliver(db, settings, row_id, frame=Framer(app.state.games, settings))


INVITE = re.compile(r"(https?://\S+/signin/invite/\S+)")


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("width", [1280, 360])
def test_the_gm_invites_an_address_and_the_invitee_takes_the_seat(server, browser, games, sink, width, js):  # noqa: F811
    base, app = server
    gid, gm_token, seat = _table(games)
    size = {"width": width, "height": 900}
    gm = browser.new_context(java_script_enabled=js, viewport=size).new_page()
    gm.goto(f"{base}/signin/{gid}/{gm_token}")
    gm.goto(f"{base}/play/{gid}/seats")
    address = f"invitee{width}{js}@example.org".lower()
    field = gm.get_by_label("Invite an address to play Gandalf")
    if js:  # past the browser's own check of an email field, to the server's
        field.fill("not an address")
        gm.locator(f"#invite-{seat}-email").evaluate("e => e.type = 'text'")
        gm.get_by_role("button", name="Invite to Gandalf").click()
        gm.wait_for_load_state()
        assert gm.locator(f"#err-invite-{seat}-email").is_visible()
        assert gm.get_by_label("Invite an address to play Gandalf").input_value() == "not an address"
        _checked(gm, width, js)
    gm.get_by_label("Invite an address to play Gandalf").fill(address)
    gm.get_by_label("Their language, if you know it").select_option("de")
    gm.get_by_role("button", name="Invite to Gandalf").click()
    gm.wait_for_load_state()
    assert "on its way" in gm.get_by_role("status").inner_text()
    _checked(gm, width, js)
    shot(gm, f"invite-sent-{width}{'' if js else '-nojs'}")
    deliver_invitations(app)
    sink.wait_for(len(sink.messages) + 1)
    link = INVITE.search(Sink.text(sink.to(address)[-1])).group(1)
    invitee = browser.new_context(java_script_enabled=js, viewport=size).new_page()
    invitee.goto(link)
    _checked(invitee, width, js)
    shot(invitee, f"invitation-{width}{'' if js else '-nojs'}")
    invitee.get_by_role("button", name="Take the seat").click()
    invitee.wait_for_url(f"**/play/{gid}")
    assert games.contact_of(gid, seat) == (address, "immediate")


def test_the_invitation_forms_by_keyboard_alone(server, browser, games, sink):  # noqa: F811
    base, app = server
    gid, gm_token, seat = _table(games)
    gm = browser.new_context(viewport={"width": 360, "height": 900}).new_page()
    gm.goto(f"{base}/signin/{gid}/{gm_token}")
    gm.goto(f"{base}/play/{gid}/seats")
    while gm.evaluate("document.activeElement.id") != f"invite-{seat}-email":
        gm.keyboard.press("Tab")
    gm.keyboard.type("keys@example.org")
    gm.keyboard.press("Tab")
    assert gm.evaluate("document.activeElement.id") == f"invite-{seat}-language"
    gm.keyboard.press("Tab")
    assert gm.evaluate("document.activeElement.textContent") == "Invite to Gandalf"
    with gm.expect_navigation():
        gm.keyboard.press("Enter")
    deliver_invitations(app)
    sink.wait_for(1)
    link = INVITE.search(Sink.text(sink.to("keys@example.org")[-1])).group(1)
    invitee = browser.new_context(viewport={"width": 360, "height": 900}).new_page()
    invitee.goto(link)
    while invitee.evaluate("document.activeElement.textContent") != "Take the seat":
        invitee.keyboard.press("Tab")
    with invitee.expect_navigation():
        invitee.keyboard.press("Enter")
    invitee.wait_for_url(f"**/play/{gid}")
    assert games.contact_of(gid, seat) == ("keys@example.org", "immediate")
