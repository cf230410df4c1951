"""A game is created with a ruleset name and loaded through the ruleset it recorded (issue 11, DESIGN
"Rulesets on one platform")."""

from __future__ import annotations

import re

import pytest

from application.service import Games
from domain.platform import ruleset as registry
from domain.platform.ruleset import RulesetNotInstalled
from domain.powers.ruleset import POWERS


def test_a_game_created_with_the_powers_ruleset_records_its_name_and_version(api, games):
    r = api.post("/games", json={"ruleset": "powers", "name": "Middle-earth", "gm_name": "Mira"})
    assert r.status_code == 201, r.text
    created = next(games.iter_events(r.json()["game_id"]))  # the game's first event records them
    assert (created.ruleset, created.rules_version) == ("powers", POWERS.version)
    assert games.get_game(r.json()["game_id"], for_update=False).ruleset is POWERS
    r = api.post("/games", json={"name": "Default"})
    assert r.status_code == 201, r.text
    assert games.get_game(r.json()["game_id"], for_update=False).ruleset is POWERS


def test_an_unknown_ruleset_is_refused_with_422_naming_the_field_and_the_registered_ones_and_records_nothing(
    api, games
):
    before = games.recorder.max_notification_id()
    r = api.post("/games", json={"ruleset": "chess", "name": "Kasparov"})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["field"] == "ruleset" and body["error"] == "UnknownRuleset"
    assert "'chess'" in body["message"] and "powers" in body["message"]
    assert games.recorder.max_notification_id() == before


def test_a_game_whose_ruleset_is_not_installed_is_refused_when_loaded_naming_it():
    games = Games()
    game_id, _, _ = games.create_game("Lost rules", "GM")
    registry.unregister("powers")
    try:
        with pytest.raises(RulesetNotInstalled) as err:
            games.get_game(game_id)
    finally:
        registry.register(POWERS)
    assert err.value.field == "ruleset" and err.value.status == 501
    assert "'powers'" in err.value.message and POWERS.version in err.value.message
    assert games.get_game(game_id).ruleset is POWERS


# ---------------------------------------------------------------- one typed command route for every ruleset


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def stored(api) -> int:
    return api.app.state.games.recorder.max_notification_id() or 0


@pytest.fixture
def table():
    yield registry.get("table")  # the fake ruleset, installed as a plugin (tests/plugins/emissary-fake)


def test_a_powers_command_runs_through_the_typed_command_route_with_its_receipt(api):
    r = api.post("/games", json={"name": "Typed"})
    gid, gm = r.json()["game_id"], r.json()["gm_token"]
    r = api.post(f"/games/{gid}/commands", headers=bearer(gm), json={"command": "SetMonths", "args": {"months": 3}})
    assert r.status_code == 200, r.text
    assert r.json()["events"] == ["SeasonLengthSet"] and r.json()["token"] is None
    assert api.get(f"/games/{gid}/view", headers=bearer(gm)).json()["game"]["months_per_season"] == 3
    # a command that issues a sign-in link: the server makes the token, shows it once, and it works
    body = {"command": "AddPower", "args": {"name": "Gondor", "cls": "city", "subclass": "sovereign"}}
    r = api.post(f"/games/{gid}/commands", headers=bearer(gm), json=body)
    assert r.status_code == 200, r.text
    power, token = r.json()["result"]["power_id"], r.json()["token"]
    assert api.get(f"/games/{gid}/view", headers=bearer(token)).json()["viewer"] == power
    # the same route refuses what the rules refuse, naming the rule's field, as the dedicated route does
    r = api.post(f"/games/{gid}/commands", headers=bearer(token), json={"command": "SetMonths", "args": {"months": 2}})
    assert r.status_code == 403, r.text


def test_the_typed_command_route_honours_the_idempotency_key(api):
    r = api.post("/games", json={"name": "Typed again"})
    gid, gm = r.json()["game_id"], r.json()["gm_token"]
    headers = {**bearer(gm), "Idempotency-Key": "months-1"}
    body = {"command": "SetMonths", "args": {"months": 3}}
    first = api.post(f"/games/{gid}/commands", headers=headers, json=body)
    before = stored(api)
    again = api.post(f"/games/{gid}/commands", headers=headers, json=body)
    assert first.status_code == again.status_code == 200, again.text
    assert again.json()["replayed"] and again.json()["digest"] == first.json()["digest"]
    assert stored(api) == before
    other = api.post(f"/games/{gid}/commands", headers=headers, json={"command": "SetMonths", "args": {"months": 2}})
    assert other.status_code == 422 and other.json()["field"] == "Idempotency-Key", other.text
    body = {"command": "AddPower", "args": {"name": "Rohan", "cls": "city", "subclass": "sovereign"}}
    headers = {**bearer(gm), "Idempotency-Key": "rohan"}
    added = api.post(f"/games/{gid}/commands", headers=headers, json=body).json()
    retried = api.post(f"/games/{gid}/commands", headers=headers, json=body).json()
    assert added["token"] and retried["token"] is None and retried["result"] == added["result"]


@pytest.mark.parametrize(
    "body,field,named",
    [
        ({"command": "CastFireball", "args": {}}, "command", "CastFireball"),
        ({"command": "SetMonths", "args": {"months": "three"}}, "args.months", "SetMonths"),
        ({"command": "SetMonths", "args": {"months": 3, "weeks": 1}}, "args.weeks", "SetMonths"),
        ({"command": "SetMonths", "args": {}}, "args.months", "SetMonths"),
        ({"command": "SetDeadline", "args": {"window_id": "w", "closes_at": "soon"}}, "args.closes_at", "SetDeadline"),
        (
            {"command": "AddPower", "args": {"name": "X", "cls": "city", "subclass": "sovereign", "token_hash": "0"}},
            "args.token_hash",
            "token",
        ),
    ],
)
def test_an_unknown_command_or_bad_args_get_422_naming_it_and_record_nothing(api, body, field, named):
    r = api.post("/games", json={"name": "Refusals"})
    gid, gm = r.json()["game_id"], r.json()["gm_token"]
    before = stored(api)
    r = api.post(f"/games/{gid}/commands", headers=bearer(gm), json=body)
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field and named in r.json()["message"], r.json()
    assert stored(api) == before


def test_the_fake_rulesets_commands_reach_the_api_without_a_route_of_their_own(api, table):
    r = api.post("/games", json={"ruleset": "table", "name": "Tea"})
    assert r.status_code == 201, r.text
    gid, gm = r.json()["game_id"], r.json()["gm_token"]
    before = stored(api)
    r = api.post(
        f"/games/{gid}/commands", headers=bearer(gm), json={"command": "Post", "args": {"seat_id": "ann", "text": "hi"}}
    )
    assert r.status_code == 422 and r.json()["rule"] == "TABLE-1", r.text
    assert stored(api) == before
    r = api.post(
        f"/games/{gid}/commands",
        headers=bearer(gm),
        json={"command": "Join", "args": {"seat_id": "ann", "name": "Ann"}},
    )
    assert r.status_code == 200 and r.json()["events"] == ["Joined", "SeedCommitted"], r.text  # its dice, committed
    r = api.post(
        f"/games/{gid}/commands", headers=bearer(gm), json={"command": "Post", "args": {"seat_id": "ann", "text": "hi"}}
    )
    assert r.status_code == 200 and r.json()["events"] == ["Posted"], r.text
    assert api.get(f"/games/{gid}/view", headers=bearer(gm)).json() == {
        "seats": ["ann"],
        "posts": [{"seat": "ann", "text": "hi"}],
    }
    # a Powers command is not a command of this ruleset: refused naming it and the ruleset
    r = api.post(f"/games/{gid}/commands", headers=bearer(gm), json={"command": "SetMonths", "args": {"months": 3}})
    assert r.status_code == 422 and r.json()["field"] == "command", r.text
    assert "'table'" in r.json()["message"] and "SetMonths" in r.json()["message"]
    # a platform command every ruleset takes
    body = {"command": "GrantVisibility", "args": {"to": "ann", "text": "the kettle is on"}}
    r = api.post(f"/games/{gid}/commands", headers=bearer(gm), json=body)
    assert r.status_code == 200 and r.json()["events"], r.text


@pytest.mark.parametrize(
    "ruleset,options,field",
    [
        ("table", {"planning_hours": 72}, "options.planning_hours"),
        ("powers", {"planning_hours": "soon"}, "options.planning_hours"),
        ("powers", {"dragons": True}, "options.dragons"),
    ],
)
def test_options_are_validated_by_the_chosen_rulesets_schema_naming_the_field_and_the_ruleset(
    api, table, ruleset, options, field
):
    before = stored(api)
    r = api.post("/games", json={"ruleset": ruleset, "name": "Options", "options": options})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == field and f"'{ruleset}'" in r.json()["message"], r.json()
    assert stored(api) == before


def test_a_rulesets_own_options_are_accepted_for_its_games(api):
    r = api.post("/games", json={"ruleset": "powers", "name": "Quick", "options": {"planning_hours": 12}})
    assert r.status_code == 201, r.text
    view = api.get(f"/games/{r.json()['game_id']}/view", headers=bearer(r.json()["gm_token"])).json()
    assert view["game"]["options"]["planning_hours"] == 12


def test_a_ruleset_without_pages_gets_the_platforms_page_and_forms_not_powers(api, table):
    """The board route hands the page to the game's ruleset's web module; one without any says so, and the
    platform's forms still work for its games while Powers' forms are not forms of this game."""
    r = api.post("/games", json={"ruleset": "table", "name": "Tea"})
    gid, gm = r.json()["game_id"], r.json()["gm_token"]
    page = api.get(f"/signin/{gid}/{gm}")  # follows the redirect to the board
    assert page.status_code == 200 and "No board here" in page.text, page.text[:300]
    csrf = re.search(r'name="csrf" value="([^"]+)"', api.get("/new").text).group(1)
    origin = {"Origin": str(api.base_url)}
    before = stored(api)
    r = api.post(f"/play/{gid}/advance", data={"csrf": csrf, "expected_step": "setup"}, headers=origin)
    assert r.status_code == 404 and stored(api) == before, r.text
    r = api.post(f"/play/{gid}/ready", data={"csrf": csrf}, headers=origin, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"].startswith(f"/play/{gid}"), r.text
