"""A game is created with a ruleset name and loaded through the ruleset it recorded (issue 11, DESIGN
"Rulesets on one platform")."""

from __future__ import annotations

import pytest

from api.service import Games
from domain.platform import ruleset as registry
from domain.platform.ruleset import RulesetNotInstalled
from domain.powers.ruleset import POWERS


def test_a_game_created_with_the_powers_ruleset_records_its_name_and_version(api):
    r = api.post("/games", json={"ruleset": "powers", "name": "Middle-earth", "gm_name": "Mira"})
    assert r.status_code == 201, r.text
    game = api.app.state.games.get_game(r.json()["game_id"], for_update=False)
    assert (game.state.ruleset, game.state.rules_version) == ("powers", POWERS.version)
    assert game.ruleset is POWERS
    r = api.post("/games", json={"name": "Default"})
    assert r.status_code == 201, r.text
    assert api.app.state.games.get_game(r.json()["game_id"], for_update=False).ruleset is POWERS


def test_an_unknown_ruleset_is_refused_with_422_naming_the_field_and_the_registered_ones_and_records_nothing(api):
    games = api.app.state.games
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
