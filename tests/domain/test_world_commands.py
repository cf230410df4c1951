"""The world's commands through the one command path: who may send each, and what its receipt says."""

from __future__ import annotations

import pytest

from application.service import Caller, Games
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.powers import commands as pc
from domain.powers import world
from domain.powers.ruleset import POWERS
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power

TOWN = {"id": "derop", "hex": "0,0", "population": 3}


@pytest.fixture
def table():
    games = Games()
    gid, _, _ = games.create_game("World")
    city = add_power(games, gid, "gm", "City", "city", "sovereign")[0]
    cult = add_power(games, gid, "gm", "Cult", "conspiracy", "cult")[0]
    return games, gid, city, cult


def test_every_world_command_is_a_powers_command():
    for command, handler in world.WORLD_COMMANDS.items():
        assert POWERS.handler(command.__new__(command)) is handler


def test_only_the_gm_declares_and_amends_the_map(table):
    games, gid, city, _ = table
    with pytest.raises(Forbidden):
        games.run(Caller.of(city), gid, world.DeclareMap(hexes=HEXES))
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[TOWN]))
    with pytest.raises(Forbidden):
        games.run(Caller.of(city), gid, world.AmendMap(remove=["4,0"]))
    with pytest.raises(Forbidden):
        games.run(Caller.of(city), gid, world.SetClaim("derop", city))
    games.run(Caller.of("gm"), gid, world.SetClaim("derop", city))
    assert games.view(gid, city)["map"]["towns"][0]["claims"] == {"city": city}


def test_a_power_aims_and_spends_only_for_its_own_actions(table):
    games, gid, city, cult = table
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[TOWN]))
    games.send(gid, "gm", pc.SetInfluence(cult, "0,0", 3))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    aid = games.send(gid, cult, pc.SubmitAction(cult, title="Whispers", location="0,0", roll=False)).result["action_id"]
    with pytest.raises(NotFound):
        games.run(Caller.of(city), gid, world.AimAction(aid, "infiltrate", town_id="derop"))
    with pytest.raises(Forbidden):
        games.run(Caller.of(city), gid, world.SpendInfluence(cult, aid, {"0,0": 1}))
    receipt = games.run(Caller.of(cult), gid, world.AimAction(aid, "infiltrate", town_id="derop"))
    assert receipt.result == {"action_id": aid, "difficulty": 0}
    games.run(Caller.of(cult), gid, world.SpendInfluence(cult, aid, {"0,0": 1}))
    assert games.view(gid, cult)["me"]["influence"] == {"0,0": 2}


def test_the_gm_completes_a_town_action_with_the_facts_only_the_gm_knows(table):
    games, gid, city, _ = table
    towns = [TOWN, {"id": "lake", "hex": "1,0", "population": 2}]
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=towns))
    games.run(Caller.of("gm"), gid, world.SetClaim("derop", city))
    games.run(Caller.of("gm"), gid, world.SetClaim("lake", city))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    aid = games.send(gid, city, pc.SubmitAction(city, title="Trade", slot="public", location="0,0", roll=False)).result[
        "action_id"
    ]
    facts = {"with": "lake", "new_resources": 1, "excess_mobility": 2}
    with pytest.raises(RuleViolation):
        games.run(Caller.of(city), gid, world.AimAction(aid, "town", town_id="derop", kind="trade", params=facts))
    games.run(
        Caller.of(city), gid, world.AimAction(aid, "town", town_id="derop", kind="trade", params={"with": "lake"})
    )
    receipt = games.run(Caller.of("gm"), gid, world.AimAction(aid, "town", town_id="derop", kind="trade", params=facts))
    assert receipt.result["difficulty"] == 2  # one power claims both towns: no +2


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"towns": [{**TOWN, "statuses": {"taxed": 101}}]}, "towns[derop].statuses.taxed"),
        (
            {"features": [{"id": "tomb", "kind": "dungeon", "hex": "0,0", "floors": [{"difficulty": 2}, {}]}]},
            "features[tomb].floors[2].difficulty",
        ),
        (
            {"features": [{"id": "tomb", "kind": "dungeon", "hex": "0,0", "floors": [{"difficulty": 2, "reward": 7}]}]},
            "features[tomb].floors[1].reward",
        ),
        (
            {"features": [{"id": "tomb", "kind": "dungeon", "hex": "0,0", "modules": ["tower"]}]},
            "features[tomb].modules",
        ),
    ],
    ids=["status", "floor-difficulty", "floor-reward", "modules"],
)
def test_p_town_4_p_feat_3_p_feat_4_a_bad_status_floor_or_module_names_its_own_field_and_records_nothing(
    table, change, field
):
    """The JSON path's refusals name the field the map editor shows the value in (issue 28 item 7)."""
    games, gid, _, _ = table
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[TOWN]))
    before = games.view(gid, "gm")["map"]
    with pytest.raises(RuleViolation) as refused:
        games.run(Caller.of("gm"), gid, world.AmendMap(**change))
    assert refused.value.field == field
    assert games.view(gid, "gm")["map"] == before
