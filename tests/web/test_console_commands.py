"""The GM console's forms that move the game send the step they were shown (server-rendered, no browser)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from api.app import create_app
from projections.settings import Settings
from tests.integration.helpers import close_app


def test_an_advance_form_submitted_twice_moves_the_game_once(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm, _ = games.create_game("Double click")
    games.add_power(gid, "gm", "Lord", "city", "overlord")
    games.advance(gid, "gm", "setup")
    client = TestClient(app)
    client.get(f"/signin/{gid}/{gm}")
    page = client.get(f"/play/{gid}").text
    form = re.search(r'action="/play/[^"]+/advance">.{0,200}?name="expected_step" value="(\w+)"', page)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    assert form and form.group(1) == "tidings"
    for _ in range(2):  # the same form, sent twice (a double click, a resent POST)
        client.post(f"/play/{gid}/advance", data={"expected_step": form.group(1), "csrf": csrf})
    assert games.view(gid, "gm")["game"]["step"] == "planning"  # not resolution: Planning stays open
    html = client.post(
        f"/play/{gid}/advance", data={"expected_step": "tidings", "csrf": csrf}, follow_redirects=True
    ).text
    assert "now at planning" in html
    close_app(app)
