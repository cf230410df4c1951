"""The GM console's forms that move the game send the step they were shown (server-rendered, no browser)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from domain.powers import commands as pc
from tests.domain.helpers import step_of
from tests.helpers import add_power


def test_an_advance_form_submitted_twice_moves_the_game_once(app, games):
    gid, gm, _ = games.create_game("Double click")
    add_power(games, gid, "gm", "Lord", "city", "overlord")
    games.send(gid, "gm", pc.Advance("setup"))
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


def test_destructive_forms_do_nothing_until_confirmed(app, games):
    """Issue 17: closing a window, closing Planning, discarding, rolling back and forking answer a post
    without ``confirm=yes`` with a page that asks (carrying every field), and record nothing."""
    gid, gm, _ = games.create_game("Careful")
    pid, token, _ = add_power(games, gid, "gm", "Lord", "city", "overlord")
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    action = games.send(gid, pid, pc.SubmitAction(pid, title="Tax the farms", slot="public")).result["action_id"]
    client = TestClient(app)
    client.get(f"/signin/{gid}/{gm}")
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get(f"/play/{gid}").text).group(1)
    version = games.get_game(gid, for_update=False).version
    posts = {
        "close": {"window_id": "s1m1-planning", "expected_step": "planning"},
        "advance": {"expected_step": "planning"},
        "rollback": {"phase": "s1-tidings", "reason": "a typo"},
        "fork": {"phase": "s1-tidings", "name": "Sandbox", "reason": "try"},
    }
    for form, data in posts.items():
        html = client.post(f"/play/{gid}/{form}", data={**data, "csrf": csrf}).text
        assert '<input type="hidden" name="confirm" value="yes">' in html, form
        for key, value in data.items():
            assert f'name="{key}" value="{value}"' in html, (form, key)
    player = TestClient(app)
    player.get(f"/signin/{gid}/{token}")
    pcsrf = re.search(r'name="csrf" value="([^"]+)"', player.get(f"/play/{gid}").text).group(1)
    assert "Discard this action?" in player.post(f"/play/{gid}/discard", data={"action_id": action, "csrf": pcsrf}).text
    assert games.get_game(gid, for_update=False).version == version  # nothing recorded
    r = client.post(
        f"/play/{gid}/rollback", data={**posts["rollback"], "csrf": csrf, "confirm": "yes"}, follow_redirects=False
    )
    assert r.status_code == 303 and step_of(games.get_game(gid, for_update=False)) == "tidings"
