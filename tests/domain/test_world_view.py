"""The world's pure functions (``domain.powers.world_view`` and the pure checks of ``world_aims``): who sees what of
the map (P.4) and the town rules' arithmetic, each over a state built by hand."""

from __future__ import annotations

import pytest

from domain import visibility as vis
from domain.errors import RuleViolation
from domain.ids import GM
from domain.powers import world_aims, world_view
from domain.powers.state import GameState, PowerState
from domain.powers.world_state import Feature, Town


def _power(pid: str, cls: str, influence: dict[str, int] | None = None, **options: bool) -> PowerState:
    return PowerState(
        id=pid,
        name=pid.title(),
        cls=cls,
        subclass="cult" if cls == "conspiracy" else "x",
        options=dict(options),
        public=2,
        private=1,
        influence=dict(influence or {}),
    )


def _feature(**kw: object) -> dict[str, object]:
    base: Feature = {
        "kind": "outpost",
        "name": "Hidden",
        "hex": "0,0",
        "town": None,
        "controller": None,
        "public": False,
        "upgrades": [],
        "modules": [],
        "mount": None,
        "stored": 0,
        "floors": [],
        "threat": 0,
        "difficulty": 0,
        "reward": "",
        "becomes": None,
        "known_to": [],
        "cleared": {},
        "asset_id": None,
        "protection": "",
        "inoperable": False,
        "maintenance_due": None,
    }
    return {**base, **kw}


def _world() -> GameState:
    s = GameState(name="g", gm_name="GM", timezone="UTC", ruleset="powers", rules_version="1", options={})
    s.powers = {
        "cult": _power("cult", "conspiracy", {"0,0": 2}),
        "sect": _power("sect", "conspiracy", {"0,0": 1}),
        "city": _power("city", "city"),
        "seer": _power("seer", "city", incorruptible=True),
        "far": _power("far", "conspiracy", {"5,5": 3}),
    }
    town: Town = {
        "name": "Ford",
        "hex": "0,0",
        "population": 3,
        "wealth": 2,
        "statuses": {"taxed": 1},
        "claims": {"city": {"power": "city", "since": 1}},
        "feeds": 1,
        "stop_order": [],
    }
    s.world.towns = {"ford": town}
    s.world.features = {"den": _feature(controller="cult", known_to=["sect"]), "keep": _feature(public=True)}
    return s


def test_a_hidden_feature_is_seen_by_the_gm_its_controller_and_who_learned_of_it():
    s = _world()
    assert [v for v in (GM, "cult", "sect", "city", vis.PUBLIC) if world_view.sees_feature(s, "den", v)] == [
        GM,
        "cult",
        "sect",
    ]
    assert all(world_view.sees_feature(s, "keep", v) for v in (GM, "city", vis.PUBLIC))


def test_a_conspiracy_claim_is_heard_by_the_claimants_and_the_conspiracies_with_influence_there():
    s = _world()
    assert world_view.claim_watchers(s, "ford") == ["city", "cult", "sect"]
    assert world_view.claim_audience(s, "ford", "city") == [vis.PUBLIC]
    assert set(world_view.claim_audience(s, "ford", "cult")) == set(vis.powers(["city", "cult", "sect"]))
    assert vis.PUBLIC not in world_view.claim_audience(s, "ford", "cult")


def test_a_conspiracy_sees_anothers_influence_only_where_it_has_some_and_incorruptible_sees_all():
    s = _world()
    assert world_view.influence_seen(s, s.powers["sect"]) == [{"power": "cult", "hex": "0,0", "amount": 2}]
    assert world_view.influence_seen(s, s.powers["far"]) == []
    assert world_view.influence_seen(s, s.powers["city"]) == []
    assert len(world_view.influence_seen(s, s.powers["seer"])) == 3
    assert sorted(world_view.influence_watchers(s, "0,0", "cult")) == ["sect", "seer"]


def test_a_town_actions_difficulty_follows_the_town_as_it_stands():
    s = _world()
    assert world_aims.town_difficulty(s, "ford", "feast", {"feast": True}) is None  # the GM's facts set it
    assert world_aims.town_difficulty(s, "ford", "feed", {"population": 1}) is not None


def test_infiltrate_needs_the_most_influence_and_costs_the_others_influence_and_the_towns_claimed():
    s = _world()
    town = s.world.towns["ford"]
    assert world_aims.infiltration(town, "cult", s.powers, s.world.towns) == (1, ["city"])
    with pytest.raises(RuleViolation, match="most influence"):
        world_aims.infiltration(town, "sect", s.powers, s.world.towns)
    with pytest.raises(RuleViolation, match="only conspiracies"):
        world_aims.infiltration(town, "city", s.powers, s.world.towns)


def test_only_the_gm_gives_the_facts_of_the_world_a_town_action_needs():
    world_aims.check_gm_facts(GM, {"new_resources": 2})
    world_aims.check_gm_facts("cult", {"hex": "0,0"})
    with pytest.raises(RuleViolation, match="the GM gives new_resources"):
        world_aims.check_gm_facts("cult", {"new_resources": 2})
