"""Worked examples P-EX-8 .. P-EX-11 of rules/ANALYSIS.md P.5, as written there, with the dice given explicitly."""

from __future__ import annotations

from domain.powers import world_rules as wr
from domain.powers.world import map_view
from tests.domain.helpers import NOW, SEED, action_of, features_seen, refused, resolved_of, sheet_of, step_of
from tests.domain.world_helpers import act, resolve_month, to_next_season, world_game

TOMB = {
    "id": "tomb",
    "kind": "dungeon",
    "name": "The Delian Tomb",
    "hex": "2,0",
    "public": True,
    "floors": [
        {"difficulty": 3, "reward": "An Amulet of Arson and a Lightning Helix scroll"},
        {"difficulty": 5, "reward": "An army's worth of heavy armor and weapons. A Giantsbane Axe."},
        {"difficulty": 7, "reward": "Friendship with an army of Drauger Knights"},
    ],
}


def _tomb():
    return world_game(
        ("delver", "champion", "wizard"),
        ("rival", "champion", "wizard"),
        features=[TOMB],
        assets=[
            ("delve", "delver", "delve", "skill", 2),
            ("sub", "delver", "subtlety", "skill", 2),
            ("vig", "delver", "vigilance", "skill", 1),
        ],
    )


def test_p_ex_8_delian_tomb_pools_in_a_dungeon():
    """P-EX-8 [003:479]: "each power can use Delve alongside up to one other skill": {Delve 2, Subtlety 2} is
    accepted; {Delve 2, Subtlety 2, Vigilance 1} is rejected (a third skill). The dungeon is where the action
    is: the map says so (P-ASSET-4)."""
    g = _tomb()
    three = [{"asset_id": "delve"}, {"asset_id": "sub"}, {"asset_id": "vig"}]
    refused(g, lambda: act(g, "delver", "bad", "2,0", [6, 6, 5, 1, 1], assets=three), "P-ASSET-4")
    g.collect_events()
    act(g, "delver", "f1", "2,0", [6, 6, 5, 1], assets=[{"asset_id": "delve"}, {"asset_id": "sub"}])
    (submitted,) = [e for e in g.collect_events() if type(e).__name__ == "ActionSubmitted"]
    assert submitted.action_id == "f1" and submitted.dungeon is True
    # Away from the tomb the usual rule holds: one skill per pool (P-ASSET-3).
    refused(
        g,
        lambda: act(g, "delver", "out", "0,0", [6, 6, 5, 1], assets=[{"asset_id": "delve"}, {"asset_id": "sub"}]),
        "P-ASSET-3",
    )


def test_p_ex_8_delian_tomb_floors_are_revealed_one_by_one_to_the_delver_only():
    """P-EX-8: "floor 1 attempt with 3 successes -> floor 1 cleared; floor 2 revealed to the delver only";
    "floor 2 attempt before floor 1 is cleared -> rejected (floor not revealed)"."""
    g = _tomb()
    act(g, "delver", "f1", "2,0", [6, 6, 5, 1], assets=[{"asset_id": "delve"}, {"asset_id": "sub"}], convert=0)
    act(g, "delver", "f2", "2,0")
    refused(g, lambda: g.aim_action("f2", "delve", feature_id="tomb", floor=2), "P-FEAT-4")
    g.aim_action("f1", "delve", feature_id="tomb", floor=1)
    assert action_of(g, "f1")["difficulty"] == 3
    g.collect_events()
    resolve_month(g)
    a = resolved_of(g, "f1")
    assert (a["successes"], a["success"]) == (3, True)
    cleared = [e for e in g.collect_events() if type(e).__name__ == "FloorCleared"]
    assert [(e.floor, e.next_floor["difficulty"], e.audience) for e in cleared] == [(1, 5, ["power:delver"])]
    delver = next(f for f in map_view(g, "delver")["features"] if f["id"] == "tomb")
    rival = next(f for f in map_view(g, "rival")["features"] if f["id"] == "tomb")
    assert [f["difficulty"] for f in delver["floors"]] == [3, 5] and delver["cleared"] == 1
    assert [f["difficulty"] for f in rival["floors"]] == [3] and rival["cleared"] == 0
    g.advance(NOW, SEED)
    act(g, "delver", "f2", "2,0")
    g.aim_action("f2", "delve", feature_id="tomb", floor=2)  # now revealed to the delver
    act(g, "rival", "r2", "2,0")
    refused(g, lambda: g.aim_action("r2", "delve", feature_id="tomb", floor=2), "P-FEAT-4")


def test_p_ex_8_delian_tomb_floors_have_difficulties_3_5_7_and_are_cleared_in_order():
    """P-EX-8 [003:481]-[003:485]: floors [{n: 1, difficulty: 3}, {n: 2, difficulty: 5}, {n: 3, difficulty: 7}];
    each cleared floor reveals the next to the delver only, and the last reveals none."""
    g = world_game(
        ("delver", "champion", "wizard"),
        ("rival", "champion", "wizard"),
        features=[TOMB],
        assets=[("delve", "delver", "delve", "skill", 4), ("sub", "delver", "subtlety", "skill", 3)],
    )
    pool = [{"asset_id": "delve"}, {"asset_id": "sub"}]
    cleared = []
    for floor, difficulty, faces in ((1, 3, [6, 6, 5, 1, 1, 1, 1]), (2, 5, [6, 6, 6, 5, 5, 1, 1]), (3, 7, [6] * 7)):
        while step_of(g) != "planning":
            g.advance(NOW, SEED)
        act(g, "delver", f"f{floor}", "2,0", faces, assets=pool, convert=0)
        g.aim_action(f"f{floor}", "delve", feature_id="tomb", floor=floor)
        assert action_of(g, f"f{floor}")["difficulty"] == difficulty
        g.collect_events()
        resolve_month(g)
        floor_action = resolved_of(g, f"f{floor}")
        assert (floor_action["successes"], floor_action["success"]) == (difficulty, True)
        cleared += [e for e in g.collect_events() if type(e).__name__ == "FloorCleared"]
    assert [(e.floor, (e.next_floor or {}).get("difficulty")) for e in cleared] == [(1, 5), (2, 7), (3, None)]
    assert all(e.audience == ["power:delver"] for e in cleared)
    delver = next(f for f in map_view(g, "delver")["features"] if f["id"] == "tomb")
    assert [f["difficulty"] for f in delver["floors"]] == [3, 5, 7] and delver["cleared"] == 3


def test_p_ex_9_the_fallen_castle_ruin():
    """P-EX-9 [003:493]: threat 13, difficulty 2. A clear action with 5 successes -> threat 10 (excess 3); with
    2 successes -> threat 10 (excess 0, the action succeeds with no progress); threat 0 -> the rewards (4
    potions each of ranks 1, 2, 3) and the ruin becomes a Stronghold with Barracks + Alchemy Lab."""
    castle = {
        "id": "castle",
        "kind": "ruin",
        "name": "The Fallen Castle",
        "hex": "3,0",
        "public": True,
        "threat": 13,
        "difficulty": 2,
        "reward": "4 potions each of ranks 1, 2 and 3",
        "becomes": {"kind": "stronghold", "modules": ["barracks", "alchemical_laboratory"]},
    }
    g = world_game(
        ("hero", "champion", "paragon"),
        ("other", "champion", "wizard"),
        features=[castle],
        assets=[("might", "hero", "might", "skill", 5), ("army", "hero", "Knights", "army", 10)],
    )
    act(g, "hero", "c1", "3,0", [6, 6, 6, 5, 5], assets=[{"asset_id": "might"}])
    g.aim_action("c1", "clear", feature_id="castle")
    act(g, "hero", "c2", "3,0", [6, 5, 1, 1, 1], assets=[{"asset_id": "might"}])
    g.aim_action("c2", "clear", feature_id="castle")
    g.collect_events()
    resolve_month(g)
    reduced = [(e.removed, e.threat) for e in g.collect_events() if type(e).__name__ == "ThreatReduced"]
    assert reduced == [(3, 10), (0, 10)]
    assert action_of(g, "c2")["result"]["success"] is True
    assert features_seen(g)["castle"]["threat"] == 10
    g.advance(NOW, SEED)
    act(g, "hero", "c3", "3,0", [6] * 15, assets=[{"asset_id": "might"}, {"asset_id": "army"}])
    g.aim_action("c3", "clear", feature_id="castle")
    resolve_month(g)
    events = g.collect_events()
    cleared = next(e for e in events if type(e).__name__ == "RuinCleared")
    assert (cleared.reward, cleared.audience) == ("4 potions each of ranks 1, 2 and 3", ["power:hero"])
    rebuilt = next(e for e in events if type(e).__name__ == "FeatureRebuilt")
    assert rebuilt.audience == ["public"] and "hero" not in str(rebuilt.__dict__)
    mine = next(f for f in map_view(g, "hero")["features"] if f["id"] == "castle")
    theirs = next(f for f in map_view(g, "other")["features"] if f["id"] == "castle")
    assert mine["kind"] == "stronghold" and mine["modules"] == ["barracks", "alchemical_laboratory"]
    assert theirs["kind"] == "stronghold" and "modules" not in theirs and "controller" not in theirs


def test_p_ex_10_stronghold_modules():
    """P-EX-10 [003:447]: module_complexities [3, 6, 9, 12] (the k-th module is 3k; the stronghold itself stays
    at 6); maintenance_per_tidings {modules 0: 2, 1: 3, 2: 4}."""
    assert [wr.module_complexity(k) for k in range(4)] == [3, 6, 9, 12]
    assert {m: wr.maintenance(m) for m in range(3)} == {0: 2, 1: 3, 2: 4}
    g = world_game(
        ("wiz", "champion", "wizard"),
        features=[{"id": "keep", "kind": "stronghold", "hex": "3,0", "controller": "wiz"}],
        assets=[("craft", "wiz", "craft", "skill", 3)],
    )
    act(g, "wiz", "m1", "3,0", [6, 6, 6], assets=[{"asset_id": "craft"}])
    g.aim_action("m1", "module", feature_id="keep", params={"module": "tower"})
    assert action_of(g, "m1")["difficulty"] == 3
    resolve_month(g)
    g.advance(NOW, SEED)
    act(g, "wiz", "m2", "3,0")
    g.aim_action("m2", "module", feature_id="keep", params={"module": "barracks"})
    assert action_of(g, "m2")["difficulty"] == 6
    keep = next(f for f in map_view(g, "wiz")["features"] if f["id"] == "keep")
    assert (keep["complexity"], keep["maintenance"], keep["next_module_complexity"]) == (6, 3, 6)


def test_p_ex_11_influence_spreading():
    """P-EX-11 [003:1110]: {a: 2, b: 0, shift a->b} -> {a: 1, b: 1}; {a: 1, b: 0, shift} -> rejected
    (gradient 1); {a: 3, b: 0, shift, shift} -> first ok {2, 1}, second rejected (gradient 1); an outpost at
    Tidings with 1 -> 3, with 5 -> 5."""
    assert wr.shift({"0,0": 2}, "0,0", "1,0") == {"0,0": 1, "1,0": 1}
    g = world_game(
        ("cult", "conspiracy", "cult"),
        features=[
            {"id": "o1", "kind": "outpost", "hex": "0,1", "controller": "cult"},
            {"id": "o5", "kind": "outpost", "hex": "1,1", "controller": "cult"},
        ],
    )
    for h, n in (("0,0", 2), ("2,0", 1), ("4,0", 3), ("0,1", 1), ("1,1", 5)):
        g.set_influence("cult", h, n)
    to_next_season(g)
    inf = sheet_of(g, "cult")["influence"]
    assert (inf["0,1"], inf["1,1"]) == (3, 5)  # the outposts at Tidings
    g.shift_influence("cult", [["0,0", "-1,0"]])
    inf = sheet_of(g, "cult")["influence"]
    assert (inf.get("0,0"), inf.get("-1,0")) == (1, 1)
    refused(g, lambda: g.shift_influence("cult", [["2,0", "3,0"]]), "P-INFL-3")
    g.shift_influence("cult", [["4,0", "3,0"]])
    inf = sheet_of(g, "cult")["influence"]
    assert (inf["4,0"], inf["3,0"]) == (2, 1)
    refused(g, lambda: g.shift_influence("cult", [["4,0", "3,0"]]), "P-INFL-3")
    # Shifted one at a time: the whole list is refused if any step is, and nothing moves.
    refused(g, lambda: g.shift_influence("cult", [["1,1", "2,0"], ["4,0", "3,0"]]), "P-INFL-3")
    assert sheet_of(g, "cult")["influence"]["1,1"] == 5
