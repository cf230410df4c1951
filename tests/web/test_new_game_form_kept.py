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


FOOTER = ("lang", "next")  # the footer's language form, not the game's


def _changed(page: Controls) -> list[tuple[str, str]]:
    """What a browser posts after a person changed every choice of the form: each select but the zone at its last
    option, each checkbox flipped, the names typed; the zone one that is none (so the form is refused)."""
    out = []
    for c in page.controls:
        name = c.get("name")
        if not name or c.get("type") == "submit" or name in FOOTER:
            continue
        if c.get("type") == "checkbox":
            if "checked" not in c:
                out.append((name, c.get("value") or "on"))
        elif c["tag"] == "select":
            out.append((name, "Mars/Olympus" if name == "timezone" else c["options"][-1]))
        elif name in ("name", "gm_name"):
            out.append((name, f"Typed {name}"))
        else:
            out.append((name, c.get("value", "")))
    return out


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_a_refused_form_of_every_ruleset_keeps_every_value_it_was_posted_with(app, browser, name):
    """Issue 28 item 5, "a refused form keeps every value", on every registered ruleset's form: every control
    comes back as it was posted (each choice changed from its default, each box flipped), nothing recorded."""
    _, page = page_of(browser, name)
    posted = _changed(page)
    assert any(k.startswith("options.") for k, _ in posted), "the form holds the ruleset's options"
    before = stored(app)
    data: dict[str, list[str]] = {}
    for key, value in posted:
        data.setdefault(key, []).append(value)
    location = post(browser, data)
    assert location.startswith("/new") and stored(app) == before
    again = Controls()
    again.feed(browser.get(location).text)
    assert sorted((k, v) for k, v in again.posted() if k not in FOOTER) == sorted(posted)
