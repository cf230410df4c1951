"""Armies through the command path (who may give each command) and through the store: replaying an army's
season of events, and loading it from snapshots, reproduces the state the battle will read."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from application.service import Caller, Games
from domain.dice import FixedRoller
from domain.errors import DomainError, Forbidden
from domain.powers import armies as a
from domain.powers import commands as pc
from domain.powers import world
from tests.domain.helpers import NOW, SEED
from tests.domain.test_conformance_armies import aimed, block, game
from tests.domain.test_replay import replay
from tests.domain.world_helpers import act, resolve_month
from tests.helpers import add_power


def test_army_commands_go_through_the_ruleset_with_who_may_give_them():
    games = Games()
    gid, _, _ = games.create_game("Armies", "GM")
    city = add_power(games, gid, "gm", "City", "city", "sovereign")[0]
    rival = add_power(games, gid, "gm", "Rival", "city", "sovereign")[0]
    gm, me = Caller.of("gm"), Caller.of(city)
    towns = [{"id": "derop", "hex": "0,0", "population": 1, "claims": {"city": city}}]
    games.run(gm, gid, world.DeclareMap(hexes=[{"hex": "0,0"}, {"hex": "1,0"}], towns=towns))
    with pytest.raises(Forbidden):
        games.run(me, gid, a.PlaceArmy("guard", "Guard", "0,0", 3, city, block=block()))
    games.run(gm, gid, a.PlaceArmy("guard", "Guard", "0,0", 3, city, block=block(), loyal=True))
    games.run(gm, gid, a.DefineArmyType("ent", block(cls="giant", titanic=True, wondrous=True)))
    games.send(gid, "gm", pc.Advance())  # Tidings
    with pytest.raises(Forbidden):
        games.run(Caller.of(rival), gid, a.PaySupport(city, {"coin": 2}))
    board = games.view(gid, city)["armies"]
    assert board["support"][city] == {"limit": 1, "units": 3, "due": 2, "settled": None}
    games.run(me, gid, a.DisbandArmy(city, "guard"))  # a loyal army, at the start of Tidings
    assert games.view(gid, "gm")["armies"]["armies"] == []
    assert "ent" in games.view(gid, rival)["armies"]["types"]


def _season_of_armies():
    g = game()
    g.grant_experience("guard", 1)
    xp = g.army("guard")["experience"][0]
    aimed(g, "t", "train", {"army_id": "guard"}, [6, 6, 6, 6], assets=[{"asset_id": "cmd"}, {"asset_id": xp}])
    aimed(g, "m", "muster", {"moves": [{"army_id": "guard", "path": ["0,0", "1,0"]}]}, [6, 6, 6])
    resolve_month(g)
    g.roll_level_up("guard", "city", FixedRoller([1, 1, 5]))
    g.choose_level_up("guard", "city", ["presence", "mobility", "presence"])
    g.advance(NOW, SEED)
    resolve_month(g)
    g.advance(NOW, SEED)  # Cleanup: the guard goes home
    g.advance(NOW, SEED)  # Tidings
    return g


def test_replaying_the_armies_events_reproduces_their_state():
    g = _season_of_armies()
    events = list(g._pending_events)
    replayed = replay(events)
    assert replayed.state == g.state
    guard = replayed.state.armies.armies["guard"]
    assert (guard["rank"], guard["presence"]["die"], guard["mobility"], guard["hex"]) == (3, 8, 3, "0,0")
    assert replayed.state.next_roll == g.state.next_roll


def test_stored_events_and_snapshots_reproduce_the_armies():
    g = _season_of_armies()
    events = list(g._pending_events)
    app = Games(snapshot_interval=5)
    app.save(g)
    assert app.repository.get(g.id).state == g.state
    for version in range(1, g.version + 1, 4):
        assert app.repository.get(g.id, version=version).state == replay(events[:version]).state


KEYS = ["army_id", "path", "moves", "regarrison", "town_id", "size", "ancestry", "bonus", "keyword", "card", "tier"]
KEYS += ["name", "die", "attack", "morale", "presence", "defense", "keywords", "cls", "premium", "titanic", "element"]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 12) | st.sampled_from(["0,0", "1,0", "guard", "derop", "keyword", "x"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(KEYS), inner, max_size=5),
    max_leaves=12,
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(a.ARMY_AIMS), st.dictionaries(st.sampled_from(KEYS), JSON, max_size=5), JSON)
def test_any_json_given_to_the_army_commands_is_refused_or_recorded_never_a_crash(kind, params, junk):
    """The generic command route passes clients' JSON into these dicts: a bad value is a refusal, never a 500."""
    g = game()
    act(g, "city", "x", "0,0")
    for call in (
        lambda: g.aim_army_action("x", kind, params),
        lambda: g.place_army("new", "New", "1,0", 2, controller="city", block=block() | params),
        lambda: g.define_army_type("t", junk if isinstance(junk, dict) else block()),
        lambda: g.pay_support("city", params),
    ):
        try:
            call()
        except DomainError:
            pass
