"""The world's state (map, towns, features, claims, influence) is reproduced by replaying its events, through
the store and its snapshots too."""

from __future__ import annotations

from application.service import Games
from tests.domain.helpers import NOW, SEED, sheet_of
from tests.domain.test_replay import replay
from tests.domain.world_helpers import act, resolve_month, world_game


def _season_of_the_world():
    g = world_game(
        ("cult", "conspiracy", "cult"),
        ("city", "city", "sovereign"),
        ("wiz", "champion", "wizard"),
        towns=[{"id": "derop", "hex": "0,0", "population": 4, "wealth": 1, "statuses": {"sickened": 1}}],
        features=[
            {"id": "o1", "kind": "outpost", "hex": "1,1", "controller": "cult"},
            {"id": "keep", "kind": "stronghold", "hex": "3,0", "controller": "wiz"},
            {"id": "tomb", "kind": "dungeon", "hex": "2,0", "public": True, "floors": [{"difficulty": 1}]},
            {"id": "farm", "kind": "farm", "town": "derop"},
        ],
        assets=[("might", "city", "might", "skill", 2), ("delve", "wiz", "delve", "skill", 2)],
    )
    g.set_claim("derop", "city")
    g.set_influence("cult", "0,0", 2)
    g.set_mechanisms("cult", ["coercion"])
    g.generate_influence("cult", "coercion", "1,0", [2])
    act(g, "city", "tax", "0,0", [6, 6], assets=[{"asset_id": "might"}])
    g.aim_action("tax", "town", town_id="derop", kind="tax")
    act(g, "wiz", "dive", "2,0", [6, 1], assets=[{"asset_id": "delve"}])
    g.aim_action("dive", "delve", feature_id="tomb", floor=1)
    act(g, "cult", "inf", "0,0", [], assets=[])
    g.aim_action("inf", "infiltrate", town_id="derop")
    resolve_month(g)
    g.reveal_feature("o1", "wiz")
    g.amend_map(hexes=[{"hex": "9,9", "terrain": "swamp"}])
    g.advance(NOW, SEED)  # month 2
    resolve_month(g)
    g.advance(NOW, SEED)  # Cleanup
    g.advance(NOW, SEED)  # Tidings
    g.shift_influence("cult", [["1,1", "2,0"]])
    return g


def test_replaying_the_worlds_events_reproduces_its_state():
    g = _season_of_the_world()
    events = list(g._pending_events)
    replayed = replay(events)
    assert replayed.state == g.state
    w = replayed.state.world
    assert w.features["tomb"]["cleared"] == {"wiz": 1} and w.towns["derop"]["claims"]["city"]["power"] == "city"
    assert w.towns["derop"]["population"] == 3 and w.towns["derop"]["statuses"] == {}
    assert sheet_of(replayed, "cult")["influence"] == {"0,0": 2, "1,0": 2, "1,1": 2, "2,0": 1}
    assert w.towns["derop"]["claims"]["conspiracy"]["power"] == "cult"


def test_stored_events_and_snapshots_reproduce_the_world():
    g = _season_of_the_world()
    events = list(g._pending_events)
    app = Games(snapshot_interval=5)
    app.save(g)
    assert app.repository.get(g.id).state == g.state
    for version in range(1, g.version + 1, 4):
        assert app.repository.get(g.id, version=version).state == replay(events[:version]).state
