"""The new-game form's checkboxes as a browser posts them (issue 25): the hidden "off" always, then "on" when
ticked, both under one name; without JavaScript an unticked default-on option is read off, a ticked one on."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tests.web.test_new_game_options import browser  # noqa: F401 (fixture)


def test_l_amb_6_and_lh_6_checkboxes_posted_as_a_browser_does_set_their_options(browser: TestClient, games):  # noqa: F811
    """L-AMB-6 non_spell_removal_restricted (default on) left unticked, LH-6 crown_of_the_summoner (default off)
    ticked: the browser posts "off" for the first, "off" and "on" for the second."""
    page = browser.get("/new", params={"ruleset": "lodge"}).text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    posted = [
        ("csrf", csrf),
        ("ruleset", "lodge"),
        ("name", "Flags"),
        ("options.non_spell_removal_restricted", "off"),
        ("options.crown_of_the_summoner", "off"),
        ("options.crown_of_the_summoner", "on"),
    ]
    body = "&".join(f"{k}={v}" for k, v in posted)
    r = browser.post(
        "/new",
        content=body,
        headers={"Origin": str(browser.base_url), "Content-Type": "application/x-www-form-urlencoded"},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"].startswith("/play/"), r.headers
    created = next(games.iter_events(r.headers["location"].removeprefix("/play/")))  # records the game's options
    assert created.options["non_spell_removal_restricted"] is False
    assert created.options["crown_of_the_summoner"] is True
