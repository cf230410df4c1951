"""Issue 17 in a real (headless) Chromium: signing in by a link mailed over SMTP (a loopback sink) opens My
games with every seat of the address and "waiting on you"; and dark mode (``prefers-color-scheme: dark``)
changes the page's colours while body text keeps a contrast of at least 4.5:1. Screenshots land in
test-output/screenshots/. The server and the SMTP sink stop even when a test fails (fixture teardown)."""

from __future__ import annotations

import re
import threading
import time

import pytest
import uvicorn

from api.app import create_app
from domain.powers import commands as pc
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.topology import free_port
from tests.mail.sink import Sink
from tests.web.axe import violations
from tests.web.test_browser_month import ARGS, CHROMIUM, SHOTS, pytestmark, shot, unlabelled  # noqa: F401

ANN = "ann@example.org"
LINK = re.compile(r"(https?://\S+/signin/email/\S+)")


@pytest.fixture
def server(tmp_path, sink):
    port = free_port()
    settings = Settings(data_dir=tmp_path, public_url=f"http://127.0.0.1:{port}", smtp_port=sink.port)
    app = create_app(settings)
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    try:
        while not srv.started:
            if not thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}", app
    finally:
        srv.should_exit = True
        thread.join(10)
        app.state.projector.db.close()
        app.state.games.close()


@pytest.fixture
def games(server):
    """The served app's application service: a test sends its commands and reads its views through it."""
    return server[1].state.games


@pytest.fixture
def browser():
    from playwright.sync_api import sync_playwright

    SHOTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield b
        finally:
            b.close()


def two_games(app) -> dict:
    """Ann holds a seat in a game of Powers (in Planning) and one in a covenant game; Bob one in Powers."""
    from tests.covenants.play import seat_three

    games = app.state.games
    gid, _, _ = games.create_game("Middle-earth", timezone_name="Europe/Paris")
    ann, token, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
    bob, _, _ = add_power(games, gid, "gm", "Balrog", "champion", "adversary")
    games.set_contact(gid, ann, ann, ANN, "immediate")
    games.set_contact(gid, bob, bob, "bob@example.org", "immediate")
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    table = seat_three(games)
    games.set_contact(table.game_id, "cy", "cy", ANN, "immediate")
    return {"powers": gid, "ann": ann, "token": token, "covenants": table.game_id}


def test_a_person_signs_in_by_email_in_the_browser_and_opens_a_board_without_its_link(server, browser, sink):
    base, app = server
    g = two_games(app)
    for width in (1280, 360):
        page = browser.new_context(viewport={"width": width, "height": 900}).new_page()
        page.goto(f"{base}/signin")
        assert unlabelled(page) == [] and violations(page) == []
        page.get_by_label("Email address").fill(ANN)
        page.get_by_role("button", name="Mail me a sign-in link").click()
        assert "a sign-in link is on its way" in page.get_by_role("status").inner_text()
        assert violations(page) == []
        shot(page, f"signin-asked-{width}")
        mails = sink.wait_for(1 if width == 1280 else 2)
        link = LINK.search(Sink.text(sink.to(ANN)[-1])).group(1)
        # The link: on another device (a fresh context) it signs in all the same.
        phone = browser.new_context(viewport={"width": width, "height": 900}).new_page()
        phone.goto(link)
        assert violations(phone) == []
        phone.get_by_role("button", name="Sign in").click()
        phone.wait_for_url("**/me")
        assert phone.get_by_role("heading", name="My games").is_visible()
        assert unlabelled(phone) == [] and violations(phone) == []
        games = phone.locator("li.my-game")
        assert games.count() == 2
        middle = games.filter(has_text="Middle-earth")
        assert middle.get_by_text("waiting on you").is_visible()
        assert "Season 1, month 1: Planning" in middle.inner_text()
        assert "Balrog" not in phone.content()
        assert phone.evaluate("document.documentElement.scrollWidth") <= width
        shot(phone, f"my-games-{width}")
        phone.emulate_media(color_scheme="dark")  # My games in dark mode: the badge and the muted line still read
        dark = phone.evaluate(COLOURS)
        badge = phone.evaluate(
            "() => { const b = getComputedStyle(document.querySelector('.badge'));"
            " return [b.backgroundColor, b.color]; }"
        )
        assert contrast(dark["card"], dark["muted"]) >= 4.5 and contrast(*badge) >= 4.5, (dark, badge)
        assert violations(phone) == []
        shot(phone, f"my-games-dark-{width}")
        phone.emulate_media(color_scheme="light")
        middle.get_by_role("link", name="Middle-earth").click()
        phone.wait_for_url(f"**/play/{g['powers']}")
        assert f"/play/{g['powers']}" in phone.url and "Gandalf" in phone.content()
        shot(phone, f"my-games-board-{width}")
        # The link was used: a second try says so.
        again = browser.new_context().new_page()
        again.goto(link)
        assert "does not work" in again.content() and violations(again) == []
        assert len(mails) >= 1


def srgb(color: str) -> tuple[float, float, float]:
    r, g, b = (int(x) for x in re.findall(r"\d+", color)[:3])
    return r, g, b


def luminance(color: str) -> float:
    def channel(c: float) -> float:
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in srgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


COLOURS = """() => {
  const s = (el) => getComputedStyle(el);
  const card = document.querySelector('.card');
  const link = document.querySelector('main a');
  const muted = document.querySelector('.muted');
  const button = document.querySelector('button:not(.link)');
  return {
    bg: s(document.body).backgroundColor, fg: s(document.body).color,
    card: card ? s(card).backgroundColor : null, cardFg: card ? s(card).color : null,
    link: link ? s(link).color : null, muted: muted ? s(muted).color : null,
    button: button ? s(button).backgroundColor : null, buttonFg: button ? s(button).color : null,
  };
}"""


def test_dark_mode_changes_the_colours_and_keeps_body_text_readable(server, browser, sink):
    base, app = server
    g = two_games(app)
    names = {"/signin": "signin", f"/signin/{g['powers']}/{g['token']}": "board", "/": "home"}
    pages = list(names)
    seen = {}
    for scheme in ("light", "dark"):
        page = browser.new_context(color_scheme=scheme, viewport={"width": 1280, "height": 900}).new_page()
        for path in pages:
            page.goto(base + path)
            colours = page.evaluate(COLOURS)
            seen[scheme, path] = colours
            assert contrast(colours["bg"], colours["fg"]) >= 4.5, (scheme, path, colours)
            if colours["button"]:
                assert contrast(colours["button"], colours["buttonFg"]) >= 4.5, (scheme, path, colours)
            if colours["card"]:
                assert contrast(colours["card"], colours["cardFg"]) >= 4.5, (scheme, path, colours)
            if colours["link"]:
                assert contrast(colours["bg"], colours["link"]) >= 4.5, (scheme, path, colours)
            if colours["muted"] and colours["card"]:
                assert contrast(colours["card"], colours["muted"]) >= 4.5, (scheme, path, colours)
            assert violations(page) == [], (scheme, path)  # axe's colour-contrast rule included
            shot(page, f"{scheme}-{names[path]}")
    for path in pages:
        light, dark = seen["light", path], seen["dark", path]
        assert dark["bg"] != light["bg"] and dark["fg"] != light["fg"], path
        assert luminance(dark["bg"]) < luminance(light["bg"]) and luminance(dark["fg"]) > luminance(light["fg"])
