"""Issue 28 item 5: `/new` takes the game's time zone from a list, and a refused form is shown again with every
value it was posted with (the game's name, the GM's, the zone and each campaign option), the error under the
field it names; nothing is recorded."""

from __future__ import annotations

import re
from zoneinfo import available_timezones

import pytest
from fastapi.testclient import TestClient

from tests.web.test_new_game_options import RULESETS, Controls, page_of, stored


@pytest.fixture
def browser(app):
    with TestClient(app) as client:
        yield client


def post(browser: TestClient, data: dict) -> str:
    r = browser.post("/new", data=data, headers={"Origin": str(browser.base_url)}, follow_redirects=False)
    assert r.status_code == 303, r.text[:300]
    return r.headers["location"]


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_the_time_zone_is_chosen_from_the_zones_this_machine_knows_utc_at_first(browser, name):
    _, page = page_of(browser, name)
    (zone,) = page.named("timezone")
    assert zone["tag"] == "select" and zone["selected"] == "UTC"
    assert set(zone["options"]) == available_timezones()


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_zone_that_is_none_is_refused_for_every_ruleset_naming_it(app, browser, name):
    """A post can name a zone that is none (a covenant game took "Mars/Olympus" before issue 28)."""
    _, page = page_of(browser, name)
    posted = {**dict(page.posted()), "name": "Nowhere", "timezone": "Mars/Olympus"}
    before = stored(app)
    location = post(browser, posted)
    assert location.startswith("/new") and stored(app) == before
    assert 'id="err-new-timezone"' in browser.get(location).text


def test_a_refused_zone_keeps_every_value_and_names_the_zone_and_records_nothing(app, browser):
    """The zone list cannot be mistyped, but a post can name a zone that is none: refused naming ``timezone``."""
    _, page = page_of(browser, "covenants")
    posted = dict(page.posted())
    posted.update(
        {"name": "The Order of Hermes", "gm_name": "Bonisagus", "timezone": "Mars/Olympus", "options.players": "3"}
    )
    posted["options.target_score"] = "12"
    before = stored(app)
    location = post(browser, posted)
    assert location == "/new?ruleset=covenants" and stored(app) == before
    text = browser.get(location).text
    error = re.search(r'<p class="error" role="alert" id="err-new-timezone">(.*?)</p>', text, re.S)
    assert error and "Mars/Olympus" in error.group(1) and "time zone" in error.group(1)
    again = Controls()
    again.feed(text)
    kept = dict(again.posted())
    assert kept["name"] == "The Order of Hermes" and kept["gm_name"] == "Bonisagus"
    assert kept["timezone"] == "Mars/Olympus"  # shown as posted, to be chosen again from the list
    assert kept["options.players"] == "3" and kept["options.target_score"] == "12"
    assert 'aria-invalid="true" aria-describedby="err-new-timezone"' in text


def test_a_refused_option_keeps_the_games_name_and_every_other_value(app, browser):
    _, page = page_of(browser, "powers")
    posted = dict(page.posted())
    flag = next(c["name"] for c in page.controls if c.get("type") == "checkbox")
    posted.update(
        {"name": "Middle-earth", "gm_name": "Eru", "timezone": "Europe/Berlin", "options.planning_hours": "0"}
    )
    ticked = "on" not in (posted.get(flag) or "")
    data = {**posted, flag: ["off", "on"] if ticked else "off"}
    before = stored(app)
    r = browser.post("/new", data=data, headers={"Origin": str(browser.base_url)}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/new" and stored(app) == before
    text = browser.get("/new").text
    again = Controls()
    again.feed(text)
    kept = dict(again.posted())
    assert kept["name"] == "Middle-earth" and kept["gm_name"] == "Eru" and kept["timezone"] == "Europe/Berlin"
    assert kept["options.planning_hours"] == "0"
    assert ("checked" in again.named(flag)[-1]) is ticked  # a checkbox keeps what was posted, not its default
    assert re.search(r'id="err-new-options\.planning_hours">[^<]*options\.planning_hours', text)
    # shown once: a fresh page is at the defaults again
    fresh = dict(page_of(browser, "powers")[1].posted())
    assert fresh.get("name", "") == "" and fresh["timezone"] == "UTC"


def test_a_game_is_created_in_the_zone_chosen_from_the_list(browser, games):
    _, page = page_of(browser, "lodge")
    posted = dict(page.posted())
    posted.update({"name": "A lodge in Tokyo", "timezone": "Asia/Tokyo"})
    location = post(browser, posted)
    assert location.startswith("/play/")
    created = next(games.iter_events(location.removeprefix("/play/")))
    assert created.timezone == "Asia/Tokyo"
