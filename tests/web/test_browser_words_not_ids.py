"""Issue 28 item 3, "words, not ids", in a real (headless) Chromium, with JavaScript (what the page's scripts write
is read too: the live decision, the times in the reader's zone): each ruleset's scripted demo, read as every role,
every page a role may open (``tests/web/id_scan.pages_for``) shows no id or command class name in the text the
browser renders (``document.body.innerText``, the stored record the audit quotes left out, as the scanner does);
each role's board has no axe violation and nothing wider than the screen at 1280 and 360 px. The pages read as the
HTML the server sends are ``test_words_not_ids``. Screenshots of each board land in test-output/screenshots."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from application.service import Caller, new_token
from domain.platform.commands import ReissueLink
from tests.web.axe import violations
from tests.web.id_scan import pages_for, scan_text
from tests.web.test_browser_month import shot
from tests.web.test_browser_signin import browser, games, pytestmark, server  # noqa: F401  (fixtures)
from tests.web.test_words_not_ids import RULESETS

RENDERED = """() => {
    document.querySelectorAll('.record').forEach(e => { e.style.display = 'none'; });
    return document.body.innerText;
}"""


def _tokens(games, gid: str, seats: list[str]) -> dict[str, str]:  # noqa: F811 (the service, not the fixture)
    """A fresh sign-in link for the GM and every seat."""
    tokens = {}
    for who in ["gm", *seats]:
        token, digest = new_token()
        games.run(Caller.of("gm"), gid, ReissueLink(who, digest))
        tokens[who] = token
    return tokens


def _urls(app, gid: str, token: str) -> list[str]:
    """Every page this role may open, as the scanner finds them (through the app's own client)."""
    client = TestClient(app)
    assert client.get(f"/signin/{gid}/{token}").status_code == 200
    return list(pages_for(client, gid))


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_every_page_as_every_role_renders_words_and_its_board_passes_axe(server, browser, games, ruleset):  # noqa: F811
    base, app = server
    gid, seats, names = RULESETS[ruleset](games)
    found: list[str] = []
    wrong: dict[str, list] = {}
    read = 0
    for who, token in _tokens(games, gid, seats).items():
        urls = _urls(app, gid, token)
        assert f"/play/{gid}" in urls, who
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.goto(f"{base}/signin/{gid}/{token}")
        for url in urls:
            page.goto(base + url)
            page.wait_for_load_state()
            text = page.evaluate(RENDERED)
            found += scan_text(text, f"{who} {url}", names)
            read += 1
            if url == f"/play/{gid}":  # the board was rendered, naming its seats in words
                assert any(name in text for name in names.seats.values()), (who, text[:500])
        page.goto(f"{base}/play/{gid}")
        for width in (1280, 360):
            page.set_viewport_size({"width": width, "height": 900})
            if problems := violations(page):
                wrong[f"{who}@{width}"] = problems
            if width == 360 and (scroll := page.evaluate("document.scrollingElement.scrollWidth")) > 360:
                wrong[f"{who}@360 overflow"] = [scroll]
            shot(page, f"words-{ruleset}-{who}-{width}")
        page.context.close()
    assert read >= 10 * (1 + len(seats)), read  # every role read its board, phases, feed, posts and the rest
    assert found == [], "\n".join(found)
    assert wrong == {}, wrong
