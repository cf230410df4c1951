"""Issue 31 item 3 in a real (headless) Chromium, in German, at 1280 and 360 px, with and without JavaScript, and by
keyboard alone: a player chooses per channel and kind of news and sets quiet hours on their Notifications page; a
refusal names the field; the game's webhooks are listed read only; axe finds nothing and the page never overflows."""

from __future__ import annotations

import pytest

from application import webhooks
from domain.ids import GM
from tests.helpers import add_power
from tests.web.axe import violations
from tests.web.test_browser_signin import browser, games, pytestmark, server, shot, unlabelled  # noqa: F401


def recorded(games, gid: str) -> list:  # noqa: F811
    return [e for e in games.iter_events(gid) if type(e).__name__ == "NotificationsSet"]


def seated(games, app):  # noqa: F811
    gid, _, _ = games.create_game("Mittelerde", timezone_name="Europe/Berlin")
    seat, token, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
    key = str(games.get_game(gid, for_update=False).id)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(webhooks, "resolve", lambda host, port: ["93.184.216.34"])
        webhooks.add(
            app.state.projector.db, key, GM, "https://chat.example.org/hooks/TOKEN-PATH", "discord", ["phase", "end"],
            allow_private=False,
        )  # fmt: skip
    return gid, seat, token


def opened(browser, base, gid, token, *, width: int, js: bool = True):  # noqa: F811
    context = browser.new_context(java_script_enabled=js, viewport={"width": width, "height": 900}, locale="de-DE")
    page = context.new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    page.goto(f"{base}/play/{gid}/contact")
    return page


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("width", [1280, 360])
def test_a_player_chooses_how_news_comes_in_german(server, browser, games, width, js):  # noqa: F811
    base, app = server
    gid, seat, token = seated(games, app)
    page = opened(browser, base, gid, token, width=width, js=js)
    assert page.get_by_role("heading", name="Welche Neuigkeiten kommen, und wie").is_visible()
    hooks = page.locator("#hooks").inner_text()
    assert "https://chat.example.org/…" in hooks and "TOKEN-PATH" not in page.content()
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if js:
        assert unlabelled(page) == [] and violations(page) == []
    # one quiet hour alone is refused, naming it; what was chosen stays chosen
    page.locator("#pref-mail-post").select_option("off")
    page.get_by_label("Von").fill("22:00")
    page.get_by_role("button", name="Diese Einstellungen speichern").click()
    page.wait_for_load_state()
    assert page.locator("#err-prefs-quiet_until").is_visible() and recorded(games, gid) == []
    assert page.locator("#pref-mail-post").input_value() == "off"
    if js:
        assert violations(page) == []
    page.get_by_label("Bis", exact=True).fill("07:00")
    page.locator("#pref-push-results").select_option("digest")
    page.get_by_role("button", name="Diese Einstellungen speichern").click()
    page.wait_for_load_state()
    assert "Gespeichert" in page.get_by_role("status").inner_text()
    [event] = recorded(games, gid)
    assert event.mail == {"post": "off"} and event.push == {"results": "digest"}
    assert (event.quiet_from, event.quiet_until) == ("22:00", "07:00")
    assert page.locator("#pref-push-results").input_value() == "digest"
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    if js:
        assert violations(page) == []
    shot(page, f"notification-preferences-{width}{'' if js else '-nojs'}")


def test_preferences_by_keyboard_alone(server, browser, games):  # noqa: F811
    base, app = server
    gid, seat, token = seated(games, app)
    page = opened(browser, base, gid, token, width=360)
    for _ in range(80):
        if page.evaluate("document.activeElement.id") == "pref-mail-phase":
            break
        page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "pref-mail-phase"
    page.keyboard.type("gar")  # "gar nicht": an option chosen by typing its first letters
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "pref-push-phase"
    while page.evaluate("document.activeElement.id") != "quiet-from":
        page.keyboard.press("Tab")
    page.keyboard.type("1130PM")  # the browser's own time field, in its UI's (English) 12-hour clock
    page.keyboard.press("Tab")
    while page.evaluate("document.activeElement.id") != "quiet-until":
        page.keyboard.press("Tab")
    page.keyboard.type("0615AM")
    while page.evaluate("document.activeElement.textContent") != "Diese Einstellungen speichern":
        page.keyboard.press("Tab")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "Gespeichert" in page.get_by_role("status").inner_text()
    [event] = recorded(games, gid)
    assert event.mail == {"phase": "off"} and (event.quiet_from, event.quiet_until) == ("23:30", "06:15")
