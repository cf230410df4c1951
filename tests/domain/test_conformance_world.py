"""Conformance tests of the world around the month: the map (P-ACT-4, P.4), towns (P-TOWN-1..4), features
(P-FEAT-1..4) and influence (P-INFL-2..6), one test per rule id, the rule quoted in each docstring."""

from __future__ import annotations

import pytest

from domain.dice import FixedRoller
from domain.errors import NotFound, RuleViolation
from domain.powers import world_resolution
from domain.powers import world_rules as wr
from domain.powers.views import board_view
from domain.powers.world import map_view
from tests.domain.helpers import NOW, SEED, action_of, features_seen, refused, seen, sheet_of, town_of
from tests.domain.world_helpers import act, names, resolve_month, to_next_season, world_game


def violates(rule: str, call) -> None:
    with pytest.raises(RuleViolation) as info:
        call()
    assert info.value.rule == rule, info.value.message


TOWN = {"id": "derop", "name": "Derop", "hex": "0,0", "population": 5, "wealth": 2}


# ---------------------------------------------------------------------- the map (P-ACT-4, P.4)


def test_p_act_4_the_gm_declares_the_map_as_data_and_amends_it():
    """P-ACT-4: actions have a location, a hex of the map the GM declared as data (hexes "q,r", terrain,
    roads, towns, features)."""
    g = world_game(("city", "city", "sovereign"), towns=[TOWN], planning=False)
    events = g.collect_events()
    assert "MapDeclared" in names(events) and "MapPublished" in names(events)
    declared = next(e for e in events if type(e).__name__ == "MapDeclared")
    assert declared.audience == ["gm"]
    g.amend_map(hexes=[{"hex": "5,0", "terrain": "coast", "road": True}], remove=["1,1"])
    view = map_view(g, "city")
    hexes = {h["hex"]: h for h in view["hexes"]}
    assert hexes["5,0"] == {"hex": "5,0", "terrain": "coast", "road": True, "name": "", "element": None}
    assert "1,1" not in hexes
    assert view["towns"][0]["name"] == "Derop"
    # A town must stand on a hex of the map: refused naming the rule, nothing recorded.
    refused(g, lambda: g.amend_map(towns=[{"id": "x", "hex": "9,9"}]), "P-ACT-4")
    refused(g, lambda: g.amend_map(hexes=[{"hex": "north"}]), "P-ACT-4")
    # Nothing is left standing on a removed hex or town: remove it too, or keep the hex.
    g.amend_map(features=[{"id": "den", "kind": "outpost", "hex": "2,0"}])
    refused(g, lambda: g.amend_map(remove=["2,0"]), "P-ACT-4")
    refused(
        g, lambda: g.amend_map(features=[{"id": "w", "kind": "farm", "town": "derop"}], remove=["derop"]), "P-ACT-4"
    )
    g.amend_map(remove=["2,0", "den"])
    assert "den" not in features_seen(g) and "2,0" not in [h["hex"] for h in seen(g)["map"]["hexes"]]
    refused(
        g, lambda: g.amend_map(features=[{"id": "h", "kind": "herd", "hex": "0,0", "mount": "unicorns"}]), "P-FEAT-1"
    )


def test_p_act_4_an_action_on_an_unknown_hex_is_refused():
    """P-ACT-4: "the location can either be the origin or destination point" - a point of the map; an
    action located anywhere else is refused and nothing is recorded."""
    g = world_game(("city", "city", "sovereign"))
    refused(g, lambda: act(g, "city", "a1", "9,9"), "P-ACT-4")
    refused(g, lambda: act(g, "city", "a1", "Weathertop"), "P-ACT-4")
    act(g, "city", "a1", "2,0")
    assert action_of(g, "a1")["location"] == "2,0"


def test_p_act_4_every_asset_is_within_its_mobility_of_the_action_location():
    """P-ACT-4: "Every asset must be within its mobility of the action's location." A Farm has mobility 3;
    Extended doubles it."""
    g = world_game(
        ("city", "city", "sovereign"),
        hexes=[{"hex": f"{q},0"} for q in range(8)],
        towns=[{"id": "t", "hex": "0,0", "population": 5}],
        features=[
            {"id": "farm", "kind": "farm", "town": "t", "asset_id": "food"},
            {"id": "farm2", "kind": "farm", "town": "t", "asset_id": "food2", "upgrades": ["extended"]},
        ],
        assets=[("food", "city", "plentiful food", "industry", 1), ("food2", "city", "more food", "industry", 1)],
    )
    refused(g, lambda: act(g, "city", "far", "4,0", [6], assets=[{"asset_id": "food"}]), "P-ACT-4")
    act(g, "city", "near", "3,0", [6], assets=[{"asset_id": "food"}])
    act(g, "city", "ext", "6,0", [6], assets=[{"asset_id": "food2"}])
    # The same check holds when the pool is rolled after the action was proposed.
    act(g, "city", "later", "7,0")
    refused(
        g,
        lambda: g.roll_action("later", now=NOW, roller=FixedRoller([6]), assets=[{"asset_id": "food2"}]),
        "P-ACT-4",
    )


def test_p_4_map_knowledge_each_viewer_sees_what_the_rules_allow():
    """P.4: "The built features of towns, such as their industries, are public information. Other landscape
    features can be public or private." Non-built features: per feature; a stronghold's insides and the
    controller of a feature stay with its controller; what a power learned stays known."""
    g = world_game(
        ("cult", "conspiracy", "cult"),
        ("city", "city", "sovereign"),
        ("wiz", "champion", "wizard"),
        towns=[TOWN],
        features=[
            {"id": "mine", "kind": "extractor", "name": "Iron mine", "town": "derop", "controller": "city"},
            {"id": "den", "kind": "outpost", "name": "Smugglers den", "hex": "1,1", "controller": "cult"},
            {"id": "tomb", "kind": "dungeon", "name": "Delian Tomb", "hex": "2,0", "floors": [{"difficulty": 3}]},
            {
                "id": "keep",
                "kind": "stronghold",
                "name": "Keep",
                "hex": "3,0",
                "controller": "wiz",
                "modules": ["tower"],
                "protection": "talking alligators",
            },
        ],
    )
    city, cult, wiz, gm = (map_view(g, p) for p in ("city", "cult", "wiz", "gm"))
    assert [f["name"] for f in city["towns"][0]["features"]] == ["Iron mine"]  # built: public
    assert "controller" in city["towns"][0]["features"][0] and "controller" not in cult["towns"][0]["features"][0]
    assert {f["id"] for f in city["features"]} == {"keep"}  # the outpost and the tomb are hidden
    assert {f["id"] for f in cult["features"]} == {"den", "keep"}
    assert {f["id"] for f in gm["features"]} == {"den", "tomb", "keep"}
    keep_city = next(f for f in city["features"] if f["id"] == "keep")
    keep_wiz = next(f for f in wiz["features"] if f["id"] == "keep")
    assert "modules" not in keep_city and "protection" not in keep_city and "goal" not in keep_city
    assert keep_wiz["modules"] == ["tower"] and keep_wiz["protection"] == "talking alligators"
    assert "alligators" not in str(board_view(g, "city")) and "Smugglers" not in str(board_view(g, "city"))
    # Seeking finds the tomb: the finder learns it for good, nobody else does.
    g.collect_events()
    g.reveal_feature("tomb", "city")
    learned = g.collect_events()
    assert [(type(e).__name__, e.audience) for e in learned] == [("FeatureLearned", ["power:city"])]
    assert "tomb" in {f["id"] for f in map_view(g, "city")["features"]}
    assert "tomb" not in {f["id"] for f in map_view(g, "wiz")["features"]}
    assert board_view(g, "city")["map"] == map_view(g, "city")


def test_p_4_the_public_map_event_carries_only_public_facts():
    """P.4: the table's feed shows the map's public part; each controller is told of its hidden features."""
    g = world_game(
        ("cult", "conspiracy", "cult"),
        ("city", "city", "sovereign"),
        features=[{"id": "den", "kind": "outpost", "name": "Smugglers den", "hex": "1,1", "controller": "cult"}],
        planning=False,
    )
    events = g.collect_events()
    published = next(e for e in events if type(e).__name__ == "MapPublished")
    assert published.audience == ["public"] and "Smugglers" not in str(published.map)
    shown = [e for e in events if type(e).__name__ == "FeaturesShown"]
    assert [(e.power_id, e.audience, list(e.features)) for e in shown] == [("cult", ["power:cult"], ["den"])]
    # An amendment tells the table what changed that it may see; a hidden feature's removal stays hidden.
    g.amend_map(
        hexes=[{"hex": "7,0", "terrain": "hills"}],
        features=[{"id": "ruin", "kind": "ruin", "hex": "7,0"}],
        remove=["den"],
    )
    amended = [e for e in g.collect_events() if type(e).__name__ == "MapPublished"]
    assert [(e.whole, [h["hex"] for h in e.map["hexes"]], e.map["features"], e.removed) for e in amended] == [
        (False, ["7,0"], [], [])
    ]


# ---------------------------------------------------------------------- towns (P-TOWN-1..4)


def test_p_town_1_one_claimant_of_each_type_and_the_senior_claimant_decides():
    """P-TOWN-1: "Each town can be claimed by up to one power of each type. When a town makes decisions, they
    generally default to the senior claimant - the power which has maintained the claim for the longest time." """
    g = world_game(
        ("city", "city", "sovereign"),
        ("city2", "city", "overlord"),
        ("wiz", "champion", "wizard"),
        towns=[TOWN],
    )
    g.set_claim("derop", "wiz")
    g.set_claim("derop", "city")
    refused(g, lambda: g.set_claim("derop", "city2"), "P-TOWN-1")
    view = map_view(g, "city")["towns"][0]
    assert view["claims"] == {"champion": "wiz", "city": "city"}
    assert view["senior_claimant"] == "wiz"
    assert wr.senior_claimant({"city": {"power": "a", "since": 5}, "champion": {"power": "b", "since": 2}}) == "b"
    g.drop_claim("derop", "wiz")
    assert map_view(g, "city")["towns"][0]["senior_claimant"] == "city"
    assert "senior_claimant" not in map_view(g, "city2")["towns"][0]  # not a claimant


def test_p_town_2_town_action_formulas():
    """P-TOWN-2: Tax "Difficulty: The sum of negative statuses"; Trade "The excess mobility ... increased by a
    further 2 if the towns are not claimed by the same power"; Lay Roads "3, increased to 6 for hexes with
    difficult terrain"; Feast "+1 and then doubled" (P-AMB-25); Feed "Current population, doubled for each
    time"; Build "complexity of the new feature, plus the number of existing features"; Upgrade "... other
    existing features", less 1 (P-AMB-26); Demolish "Difficulty: 1"."""
    assert wr.tax_difficulty({"taxed": 2, "uprising": 1, "depopulated": 1, "booming": 3}) == 4
    assert wr.trade_difficulty(1, same_claimant=True) == 1 and wr.trade_difficulty(1, same_claimant=False) == 3
    assert wr.roads_difficulty("plains") == 3 and wr.roads_difficulty("mountains") == 6
    assert wr.feast_difficulty(3, agents_died_recently=False) == 3
    assert wr.feast_difficulty(3, agents_died_recently=True) == 8
    assert [wr.feed_difficulty(5, n) for n in range(3)] == [5, 10, 20]
    assert wr.build_difficulty(wr.complexity("guild", ["commercial"]), 2) == 7
    assert wr.upgrade_difficulty(wr.complexity("guild", ["commercial", "durable"]), 1) == 7
    assert wr.DEMOLISH_DIFFICULTY == 1


def test_p_town_2_town_actions_need_a_claim_and_apply_their_formula():
    """P-TOWN-2: "All of them require a claim on the town." The rules set the difficulty by the formula, and
    the effect is recorded when the action succeeds: Tax applies Taxed and Uprising 1; Feed adds a
    population and doubles the next Feed; Build adds a feature loyal to the builder."""
    g = world_game(
        ("city", "city", "sovereign"),
        ("other", "city", "overlord"),
        towns=[{**TOWN, "statuses": {"uprising": 1}}],
        assets=[("might", "city", "might", "skill", 3)],
    )
    g.set_claim("derop", "city")
    act(g, "other", "x", "0,0")
    refused(g, lambda: g.aim_action("x", "town", town_id="derop", kind="tax"), "P-TOWN-2")
    act(g, "city", "tax", "0,0")
    g.aim_action("tax", "town", town_id="derop", kind="tax")
    assert action_of(g, "tax")["difficulty"] == 1
    g.roll_action("tax", now=NOW, roller=FixedRoller([6, 1, 1]), assets=[{"asset_id": "might"}])
    act(g, "city", "feed", "0,0")
    g.aim_action("feed", "town", town_id="derop", kind="feed")
    assert action_of(g, "feed")["difficulty"] == 5
    act(g, "city", "build", "0,0")
    g.aim_action("build", "town", town_id="derop", kind="build", params={"feature": "guild", "id": "g1"})
    assert action_of(g, "build")["difficulty"] == 3  # a guild's complexity 3, no features yet
    act(g, "city", "far", "3,0")
    refused(g, lambda: g.aim_action("far", "town", town_id="derop", kind="feed"), "P-ACT-4")
    resolve_month(g)
    t = town_of(g, "derop")
    assert t["statuses"] == {"taxed": 1, "uprising": 2}
    taxed = [e for e in g.collect_events() if type(e).__name__ == "TaxesCollected"]
    assert [(e.power_id, e.coin, e.audience) for e in taxed] == [("city", 2, ["power:city"])]
    assert g.holdings("city").wallet.get("coin") == 2  # "Gain coins equal to the wealth of the town"


def test_p_town_2_slumlord_taxes_by_population_and_a_prison_takes_fear():
    """P-TOWN-2 Tax: "Slumlord: +coin = population and adds Uprising instead of Taxed. Prison: may take Fear by
    population instead." [003:893] "When taxing, you may gain coin equal to the population rather than the
    wealth. Adds 'Uprising' instead of 'Taxed'." [003:416] "When you tax in this town, you can generate Fear
    based on the population rather than coin based on the wealth." Population is effective (P-TOWN-3)."""
    g = world_game(
        ("city", "city", "sovereign"),
        towns=[
            {**TOWN, "population": 5, "statuses": {"depopulated": 1}},
            {"id": "maleran", "name": "Maleran", "hex": "2,0", "population": 4, "wealth": 1},
        ],
        features=[{"id": "jail", "kind": "prison", "town": "maleran"}],
        assets=[("might", "city", "might", "skill", 3)],
    )
    g.set_claim("derop", "city")
    g.set_claim("maleran", "city")
    g.choose_control("city", "fear")
    act(g, "city", "t1", "0,0")
    refused(
        g, lambda: g.aim_action("t1", "town", town_id="derop", kind="tax", params={"take": "population"}), "P-TOWN-2"
    )
    refused(g, lambda: g.aim_action("t1", "town", town_id="derop", kind="tax", params={"take": "fear"}), "P-TOWN-2")
    g.grant_perk("city", "Slumlord")
    g.aim_action("t1", "town", town_id="derop", kind="tax", params={"take": "population"})
    assert action_of(g, "t1")["difficulty"] == 1
    g.roll_action("t1", now=NOW, roller=FixedRoller([6, 6, 1]), assets=[{"asset_id": "might"}], convert=0)
    act(g, "city", "t2", "2,0")
    g.aim_action("t2", "town", town_id="maleran", kind="tax", params={"take": "fear"})
    resolve_month(g)
    assert town_of(g, "derop")["statuses"] == {"depopulated": 1, "uprising": 2}
    assert g.holdings("city").wallet == {"coin": 4, "fear": 3 + 4}  # 5 - 1 depopulated; Maleran's 4 in Fear
    assert town_of(g, "maleran")["statuses"] == {"taxed": 1, "uprising": 1}


def test_p_town_2_feed_doubles_within_a_season_and_build_is_loyal_to_the_builder():
    """P-TOWN-2: Feed "Increase the population of this town by 1. Difficulty: Current population, doubled for
    each time this action has been taken in this town this season." Build: "It is loyal to you." """
    g = world_game(("city", "city", "sovereign"), towns=[TOWN], assets=[("might", "city", "might", "skill", 1)])
    g.set_claim("derop", "city")
    act(g, "city", "feed", "0,0")
    g.aim_action("feed", "town", town_id="derop", kind="feed")
    g.set_difficulty("feed", 0)  # the GM may still rule otherwise; here it waives it, to see the doubling
    g.roll_action("feed", now=NOW, roller=FixedRoller([1]), assets=[{"asset_id": "might"}])
    act(g, "city", "build", "0,0", [1], assets=[])
    g.aim_action("build", "town", town_id="derop", kind="build", params={"feature": "farm", "id": "f1"})
    g.set_difficulty("build", 0)
    resolve_month(g)
    assert town_of(g, "derop")["population"] == 6
    assert features_seen(g)["f1"]["controller"] == "city"
    g.advance(NOW, SEED)
    act(g, "city", "feed2", "0,0")
    g.aim_action("feed2", "town", town_id="derop", kind="feed")
    assert action_of(g, "feed2")["difficulty"] == 12  # population 6, doubled once this season


def test_p_town_3_industries_stop_when_the_town_is_too_small():
    """P-TOWN-3: "industries cease to operate if the town population falls below their complexity. If the
    population falls below the number of industries, they also cease to operate, in an order based on the
    town's senior claimant." Population is effective: Depopulated X reduces it, Booming X raises it."""
    industries = [{"id": "a", "complexity": 1}, {"id": "b", "complexity": 1}, {"id": "c", "complexity": 3}]
    assert wr.stopped_industries(3, industries) == []
    assert wr.stopped_industries(2, industries) == ["c"]
    assert wr.stopped_industries(1, industries) == ["b", "c"]  # the latest built stops first by default
    assert wr.stopped_industries(1, industries, stop_order=["a"]) == ["a", "c"]
    assert wr.effective_population(5, {"depopulated": 3, "booming": 1}) == 3
    g = world_game(
        ("city", "city", "sovereign"),
        towns=[{**TOWN, "population": 3, "statuses": {"depopulated": 1}}],
        features=[{"id": "col", "kind": "college", "town": "derop"}, {"id": "farm", "kind": "farm", "town": "derop"}],
    )
    town = map_view(g, "city")["towns"][0]
    assert town["stopped"] == ["col"] and town["effective_population"] == 2
    college = next(f for f in town["features"] if f["id"] == "col")
    assert college["working"] is False
    assert town["wealth"] == 2 + 1  # the farm's +1; the stopped college adds nothing


def test_p_town_4_statuses_act_and_tick_down_at_cleanup():
    """P-TOWN-4: "Sickened: ... Lose 1 population each cleanup." "Growing: ... Gain 1 population each
    cleanup. Counteracts Sickened." Statuses are stacks that tick down at Cleanup; each change is in the
    table's feed, with the industries it stops."""
    g = world_game(
        ("city", "city", "sovereign"),
        towns=[
            {"id": "a", "hex": "0,0", "population": 3, "statuses": {"sickened": 2, "taxed": 1}},
            {"id": "b", "hex": "1,0", "population": 3, "statuses": {"growing": 1}},
            {"id": "c", "hex": "2,0", "population": 3, "statuses": {"growing": 1, "sickened": 1}},
        ],
        features=[{"id": "guild", "kind": "guild", "town": "a"}],
    )
    assert wr.cleanup_statuses(3, {"sickened": 1, "growing": 2}) == (3, {"growing": 1})
    g.collect_events()
    to_next_season(g)
    w = {t["id"]: t for t in seen(g)["map"]["towns"]}
    assert (w["a"]["population"], w["a"]["statuses"]) == (2, {"sickened": 1})
    assert (w["b"]["population"], w["b"]["statuses"]) == (4, {})
    assert (w["c"]["population"], w["c"]["statuses"]) == (3, {})
    events = g.collect_events()
    cleaned = next(e for e in events if type(e).__name__ == "TownsCleanedUp")
    assert cleaned.audience == ["public"]
    stopped = next(e for e in events if type(e).__name__ == "IndustriesChanged")
    assert (stopped.town_id, stopped.stopped) == ("a", ["guild"])


# ---------------------------------------------------------------------- features (P-FEAT-1..4)


def test_p_feat_1_the_feature_catalogue_is_data():
    """P-FEAT-1: each feature type has mobility, asset rank, fee, wealth, complexity and materials, and a list
    of upgrades "Each upgrade increases complexity by 2" (Port and Caravansary: and +1 wealth). Bank wealth =
    min(stored/3, 3), or 6 Specialized; a Prison removes 1 Uprising each month, 2 Specialized."""
    assert (wr.complexity("extractor"), wr.mobility("extractor"), wr.CATALOGUE["extractor"].assured_for) == (
        1,
        3,
        "craft",
    )
    assert wr.complexity("college", ["extended", "durable"]) == 10
    assert wr.mobility("guild", ["extended"]) == 12 and wr.mobility("training_grounds", ["extended"]) == 6
    assert wr.wealth("port") == 2 and wr.wealth("port", ["extended", "durable"]) == 4
    assert wr.wealth("guild", ["commercial"]) == 3
    assert [wr.wealth("bank", [], s) for s in (2, 7, 30)] == [0, 2, 3]
    assert wr.wealth("bank", ["specialized"], 30) == 6
    assert wr.complexity("herd", [], "drakes") == 7
    assert [
        wr.asset_rank("guild"),
        wr.asset_rank("guild", ["specialized"]),
        wr.asset_rank("college", ["specialized"]),
    ] == [
        2,
        3,
        3,
    ]
    assert wr.asset_rank("caravansary", ["vast"]) == 2 and wr.is_critical("port", ["specialized"])
    assert not wr.is_critical("guild", ["specialized"])
    violates("P-FEAT-1", lambda: wr.check_upgrades("farm", ["commercial"]))
    violates("P-FEAT-1", lambda: wr.feature_type("castle"))
    # A Prison at the end of each month.
    g = world_game(
        ("city", "city", "sovereign"),
        towns=[
            {**TOWN, "statuses": {"uprising": 3}},
            {"id": "t2", "hex": "1,0", "population": 5, "statuses": {"uprising": 3}},
        ],
        features=[
            {"id": "p1", "kind": "prison", "town": "derop"},
            {"id": "p2", "kind": "prison", "town": "t2", "upgrades": ["specialized"]},
        ],
    )
    resolve_month(g)
    g.advance(NOW, SEED)
    assert town_of(g, "derop")["statuses"] == {"uprising": 2}
    assert town_of(g, "t2")["statuses"] == {"uprising": 1}


def test_p_feat_2_walls_are_battle_goals_recorded_as_data():
    """P-FEAT-2: "Wooden walls 2/2 (complexity 2); Stone 2/4 (complexity 4); Layered 2/6 (complexity 7)",
    read defender/attacker (P-AMB-13) and stored per side; Wallkeepers add 1, 2 or 3 morale."""
    assert wr.wall_goal("wooden_walls") == {
        "name": "Wooden Walls",
        "defender": 2,
        "attacker": 2,
        "wallkeepers_morale": 1,
    }
    assert (wr.wall_goal("stone_walls")["attacker"], wr.complexity("stone_walls")) == (4, 4)
    assert (wr.wall_goal("layered_walls")["attacker"], wr.complexity("layered_walls")) == (6, 7)
    assert wr.wall_goal("stronghold")["name"] == "Stone Walls"
    assert wr.wall_goal("stronghold", ["labyrinth"])["name"] == "Layered Walls"
    assert wr.wall_goal("farm") is None
    g = world_game(
        ("city", "city", "sovereign"), towns=[TOWN], features=[{"id": "w", "kind": "wooden_walls", "town": "derop"}]
    )
    assert map_view(g, "city")["towns"][0]["features"][0]["goal"]["attacker"] == 2


def test_p_feat_3_strongholds_modules_and_maintenance():
    """P-FEAT-3: "A module's complexity is 3, plus 3 for each module the stronghold already has ... The
    stronghold's own complexity of 6 is separate" and "A stronghold costs 2 coin +1 coin per module in
    maintenance each Tidings. If you can't pay, the stronghold will become inoperable." """
    g = world_game(
        ("wiz", "champion", "wizard"),
        features=[
            {"id": "keep", "kind": "stronghold", "hex": "3,0", "controller": "wiz", "modules": ["tower"]},
            {"id": "hold", "kind": "stronghold", "hex": "4,0", "controller": "wiz"},
        ],
        assets=[("craft", "wiz", "craft", "skill", 6)],
        planning=False,
    )
    assert wr.complexity("stronghold") == 6
    g.collect_events()
    g.advance(NOW, SEED)  # the first Tidings: maintenance falls due
    due = [e for e in g.collect_events() if type(e).__name__ == "MaintenanceDue"]
    assert [(e.feature_id, e.coin) for e in due] == [("hold", 2), ("keep", 3)]
    refused(g, lambda: g.pay_maintenance("keep", "wiz"), "P-FEAT-3")  # an empty wallet cannot pay
    g.adjust_resources("wiz", {"coin": 9}, "a hoard")
    g.pay_maintenance("keep", "wiz")
    g.pay_maintenance("hold", "wiz")
    assert g.holdings("wiz").wallet["coin"] == 4
    g.advance(NOW, SEED)
    act(g, "wiz", "mod", "3,0")
    g.aim_action("mod", "module", feature_id="keep", params={"module": "barracks"})
    assert action_of(g, "mod")["difficulty"] == 6  # the 2nd module
    g.roll_action("mod", now=NOW, roller=FixedRoller([6] * 6), assets=[{"asset_id": "craft"}], convert=0)
    act(g, "wiz", "mod2", "3,0")
    refused(g, lambda: g.aim_action("mod2", "module", feature_id="keep", params={"module": "tower"}), "P-FEAT-3")
    resolve_month(g)
    assert features_seen(g)["keep"]["modules"] == ["tower", "barracks"]
    g.advance(NOW, SEED)
    g.collect_events()
    resolve_month(g)
    g.advance(NOW, SEED)
    g.advance(NOW, SEED)  # Tidings
    due = [e for e in g.collect_events() if type(e).__name__ == "MaintenanceDue"]
    assert [(e.feature_id, e.coin, e.audience) for e in due] == [("hold", 2, ["power:wiz"]), ("keep", 4, ["power:wiz"])]
    g.pay_maintenance("keep", "wiz")  # 4 coin: all there is, so the other goes unpaid
    refused(g, lambda: g.pay_maintenance("keep", "wiz"), "P-FEAT-3")
    refused(g, lambda: g.pay_maintenance("hold", "wiz"), "P-FEAT-3")
    g.advance(NOW, SEED)  # Tidings ends: the unpaid one becomes inoperable
    assert features_seen(g)["hold"]["inoperable"] is True
    assert features_seen(g)["keep"]["inoperable"] is False


def test_p_feat_4_dungeon_floors_and_ruin_threat():
    """P-FEAT-4: Dungeon: "Completing a floor reveals the next one." Ruin: "each removes an amount of Threat
    equal to the excess successes"; the rewards come when threat reaches 0."""
    assert wr.floor_open(0, 1) and not wr.floor_open(0, 2) and wr.floor_open(1, 2)
    assert wr.ruin_progress(13, 2, 5) == 10 and wr.ruin_progress(13, 2, 1) == 13 and wr.ruin_progress(2, 2, 9) == 0


# ---------------------------------------------------------------------- influence (P-INFL-2..6)


def _conspiracies(**kw):
    return world_game(
        ("cult", "conspiracy", "cult"),
        ("circle", "conspiracy", "circle"),
        ("city", "city", "sovereign"),
        towns=[TOWN],
        **kw,
    )


def test_p_infl_2_spending_influence_from_the_action_hex_and_one_from_each_neighbour():
    """P-INFL-2: "When you spend influence, you may remove any amount of influence from the hex where the action
    is occurring and up to one from each surrounding hex." """
    g = _conspiracies()
    for h, n in (("0,0", 4), ("1,0", 3), ("2,0", 3)):
        g.set_influence("cult", h, n)
    g.set_influence("circle", "1,0", 1)
    act(g, "cult", "a", "0,0")
    refused(g, lambda: g.spend_influence("cult", "a", {"1,0": 2}), "P-INFL-2")
    refused(g, lambda: g.spend_influence("cult", "a", {"2,0": 1}), "P-INFL-2")
    refused(g, lambda: g.spend_influence("cult", "a", {"0,0": 5}), "P-INFL-2")
    g.collect_events()
    g.spend_influence("cult", "a", {"0,0": 4, "1,0": 1})
    assert sheet_of(g, "cult")["influence"] == {"1,0": 2, "2,0": 3}
    events = g.collect_events()
    assert [(type(e).__name__, e.audience) for e in events] == [
        ("InfluenceSpent", ["power:cult"]),
        ("InfluenceSet", ["power:cult"]),
        ("InfluenceSet", ["power:circle", "power:cult"]),  # the circle has influence in 1,0 (P.4)
    ]
    violates("P-INFL-2", lambda: wr.check_spend("0,0", {"0,-1": 1}, {"0,-1": 1, "3,0": 1}))


def test_p_infl_3_spreading_down_a_gradient_of_two_during_tidings():
    """P-INFL-3: "During tidings, you may shift influence any number of times. It must always shift down a
    gradient of at least two influence (from a 2 to a 0, making two 1s for instance)." """
    g = _conspiracies()
    g.set_influence("cult", "0,0", 4)
    refused(g, lambda: g.shift_influence("cult", [["0,0", "1,0"]]), "P-INFL-3")  # not Tidings
    to_next_season(g)
    refused(g, lambda: g.shift_influence("cult", [["0,0", "2,0"]]), "P-INFL-3")  # not a neighbour
    g.shift_influence("cult", [["0,0", "1,0"], ["0,0", "-1,0"]])
    assert sheet_of(g, "cult")["influence"] == {"0,0": 2, "1,0": 1, "-1,0": 1}
    refused(g, lambda: g.shift_influence("cult", [["1,0", "2,0"]]), "P-INFL-3")


def test_p_infl_4_outposts_rise_to_three_at_tidings():
    """P-INFL-4: "At the start of each season, during tidings, increase your influence in each outpost to a
    minimum of 3." """
    g = _conspiracies(
        features=[
            {"id": "o1", "kind": "outpost", "hex": "1,1", "controller": "cult"},
            {"id": "o2", "kind": "outpost", "hex": "2,0", "controller": "cult"},
        ]
    )
    g.set_influence("cult", "2,0", 5)
    to_next_season(g)
    assert sheet_of(g, "cult")["influence"] == {"1,1": 3, "2,0": 5}
    assert wr.outpost_floor(1) == 3 and wr.outpost_floor(5) == 5


def test_p_infl_4_mercurial_swaps_before_the_outpost_reset():
    """P-INFL-4: "At Tidings each outpost is raised to at least 3 influence, inf = max(inf, 3). Mercurial's swap
    happens before this reset." Mercurial [003:931]: "During Tidings, before resetting the influence in your
    outposts, swap your influence between any two hexes twice." """
    g = _conspiracies(features=[{"id": "o1", "kind": "outpost", "hex": "1,1", "controller": "cult"}])
    g.grant_perk("cult", "Mercurial")
    g.set_influence("cult", "1,1", 1)
    g.set_influence("cult", "2,0", 5)
    to_next_season(g)
    # The reset already raised the outpost 1 -> 3; the swap works on the values before it: 1,1 had 1, 2,0 had 5.
    assert sheet_of(g, "cult")["influence"] == {"1,1": 3, "2,0": 5}
    g.mercurial_swap("cult", "1,1", "2,0")
    # After the swap the outpost holds 5 (no raise needed) and 2,0 holds the earlier 1, not the raised 3.
    assert sheet_of(g, "cult")["influence"] == {"1,1": 5, "2,0": 1}
    # Swapping the outpost with an empty hex: the outpost is raised again from 0, the 5 moves out.
    g.mercurial_swap("cult", "1,1", "0,0")
    assert sheet_of(g, "cult")["influence"] == {"1,1": 3, "2,0": 1, "0,0": 5}
    # Twice each Tidings, no more; refused naming the rule, nothing recorded.
    refused(g, lambda: g.mercurial_swap("cult", "0,0", "2,0"), "P-INFL-4")
    # Only a Mercurial holder swaps, only during Tidings, between two hexes of the map.
    refused(g, lambda: g.mercurial_swap("circle", "0,0", "2,0"), "P-INFL-4")
    g.advance(NOW, SEED)  # month 1 Planning
    refused(g, lambda: g.mercurial_swap("cult", "0,0", "2,0"), "P-INFL-4")
    to_next_season(g)
    refused(g, lambda: g.mercurial_swap("cult", "0,0", "0,0"), "P-INFL-4")
    refused(g, lambda: g.mercurial_swap("cult", "0,0", "9,9"), "P-INFL-4")
    g.mercurial_swap("cult", "0,0", "2,0")  # a new Tidings, two new swaps
    assert sheet_of(g, "cult")["influence"] == {"1,1": 3, "2,0": 5, "0,0": 1}
    assert wr.mercurial_swap({"1,1": 3, "2,0": 5}, {"1,1": 2}, {"1,1"}, "1,1", "2,0") == ({"1,1": 5, "2,0": 1}, {})
    # Influence shifted out of the raised outpost since the reset: its earlier value is nothing, never less.
    shifted = wr.mercurial_swap({"1,1": 1, "2,0": 4}, {"1,1": 3}, {"1,1"}, "2,0", "0,0")
    assert shifted == ({"1,1": 3, "0,0": 4}, {"1,1": 3})


def test_p_infl_5_each_generation_mechanism_fires_once_a_season():
    """P-INFL-5: "Each mechanism fires once per season and needs its own counter." Coercion, Emissaries,
    Sacrifice and Witchcraft give the rank; Intimidation the greatest level of the opposed armies."""
    g = _conspiracies()
    refused(g, lambda: g.generate_influence("cult", "sacrifice", "0,0", [2]), "P-INFL-5")  # not picked
    g.set_mechanisms("cult", ["sacrifice", "intimidation"])
    g.generate_influence("cult", "sacrifice", "0,0", [2])
    g.generate_influence("cult", "intimidation", "1,0", [1, 3, 2])
    assert sheet_of(g, "cult")["influence"] == {"0,0": 2, "1,0": 3}
    refused(g, lambda: g.generate_influence("cult", "sacrifice", "0,0", [1]), "P-INFL-5")
    to_next_season(g)
    g.generate_influence("cult", "sacrifice", "0,0", [1])  # a new season, a new counter
    assert sheet_of(g, "cult")["influence"]["0,0"] == 3
    violates("P-INFL-5", lambda: wr.generated("bribery", [1]))


def test_p_infl_6_infiltrate_claims_a_town_where_the_conspiracy_has_the_most_influence():
    """P-INFL-6: Infiltrate "Attempt to claim a town in which you have the most influence. Announce to other
    conspiracies with influence in the town and any powers with claims on it. Other powers with a claim to the
    town may resist. On success, other conspiracies lose any claims to this town. You lose the claim if you
    lose all influence in the town and all adjacent hexes. Difficulty: The number of towns you already claim,
    plus the sum of other influences in the town." """
    g = _conspiracies(assets=[("sub", "cult", "subtlety", "skill", 3)])
    g.set_claim("derop", "city")
    g.set_influence("cult", "0,0", 2)
    g.set_influence("circle", "0,0", 2)
    act(g, "cult", "inf", "0,0")
    refused(g, lambda: g.aim_action("inf", "infiltrate", town_id="derop"), "P-INFL-6")  # a tie is not the most
    g.set_influence("cult", "0,0", 3)
    g.collect_events()
    g.aim_action("inf", "infiltrate", town_id="derop")
    a = action_of(g, "inf")
    assert (a["difficulty"], a["resistible"], a["targets"]) == (2, True, ["city"])
    told = next(e for e in g.collect_events() if type(e).__name__ == "InfiltrationAnnounced")
    assert told.audience == ["power:circle", "power:city"]
    g.roll_action("inf", now=NOW, roller=FixedRoller([6, 6, 1]), assets=[{"asset_id": "sub"}])
    resolve_month(g)
    assert town_of(g, "derop")["claims"]["conspiracy"] == "cult"
    # Shown to the claimants and the conspiracies with influence there, not the whole table (P.4).
    assert map_view(g, "circle")["towns"][0]["claims"]["conspiracy"] == "cult"
    assert "conspiracy" not in map_view(g, "public")["towns"][0]["claims"]
    g.advance(NOW, SEED)
    g.set_influence("cult", "0,0", 0)
    assert "conspiracy" not in town_of(g, "derop")["claims"]


def test_p_infl_6_a_successful_infiltration_takes_the_town_from_the_conspiracy_that_claimed_it():
    """P-INFL-6: Infiltrate "On success, other conspiracies lose any claims to this town." Difficulty "The number
    of towns you already claim, plus the sum of other influences in the town": here 0 + 1."""
    g = _conspiracies(assets=[("sub", "cult", "subtlety", "skill", 2)])
    g.set_influence("circle", "0,0", 1)
    g.set_claim("derop", "circle")
    g.set_influence("cult", "0,0", 2)
    act(g, "cult", "inf", "0,0")
    g.aim_action("inf", "infiltrate", town_id="derop")
    a = action_of(g, "inf")
    assert (a["difficulty"], a["targets"]) == (1, ["circle"])
    g.roll_action("inf", now=NOW, roller=FixedRoller([6, 1]), assets=[{"asset_id": "sub"}])
    resolve_month(g)
    assert action_of(g, "inf")["result"]["success"] is True
    assert town_of(g, "derop")["claims"]["conspiracy"] == "cult"
    assert "circle" not in str(town_of(g, "derop")["claims"])


def test_p_infl_6_conspiracy_action_costs_and_difficulties():
    """P-INFL-6: Into the Fold "Cost: Influence equal to the agent's rank. Difficulty: the agent's rank", three
    excess successes make a follower; Workers, Unite! half the complexity (rounded down, P-AMB-27); Heretical
    Soldiers "Cost: Influence equal to the army's rank. Difficulty: the army size times 2"."""
    assert wr.into_the_fold(3) == (3, 3) and wr.into_the_fold_follower(3) and not wr.into_the_fold_follower(2)
    assert wr.workers_unite(7) == (3, 3) and wr.workers_unite(1) == (1, 1)
    assert wr.heretical_soldiers(2, 5) == (2, 10)
    assert wr.infiltrate_difficulty(2, 3) == 5
    assert wr.has_most_influence(3, [2, 1]) and not wr.has_most_influence(2, [2])
    assert wr.keeps_claim({"1,0": 1}, "0,0") and not wr.keeps_claim({"2,0": 1}, "0,0")


def test_p_infl_6_workers_unite_pays_half_the_complexity_and_wins_the_industry():
    """P-INFL-6: Workers, Unite! "Attempt to bring an industry in a claimed town completely into your employ. On a
    success, they become loyal only to you. If they were loyal to another power, that power may resist. Cost:
    Influence equal to half the industry's complexity. Difficulty: half the industry's complexity" (rounded
    down, P-AMB-27). The cost is paid by the rule of P-INFL-2."""
    g = _conspiracies(
        features=[{"id": "col", "kind": "college", "town": "derop", "controller": "city", "upgrades": ["durable"]}],
        assets=[("neg", "cult", "negotiation", "skill", 4)],
    )
    g.set_influence("cult", "0,0", 2)
    g.set_influence("cult", "1,0", 2)
    act(g, "cult", "wu", "0,0", [6, 6, 6, 6], assets=[{"asset_id": "neg"}])
    refused(g, lambda: g.aim_action("wu", "workers_unite", feature_id="col"), "P-INFL-6")  # no claim yet
    g.set_claim("derop", "cult")
    refused(g, lambda: g.aim_action("wu", "workers_unite", feature_id="col"), "P-INFL-2")  # 4 > 2 in the hex
    refused(
        g,
        lambda: g.aim_action("wu", "workers_unite", feature_id="col", params={"amounts": {"0,0": 2, "1,0": 2}}),
        "P-INFL-2",
    )
    g.set_influence("cult", "0,0", 3)
    g.aim_action("wu", "workers_unite", feature_id="col", params={"amounts": {"0,0": 3, "1,0": 1}})
    a = action_of(g, "wu")
    assert (a["difficulty"], a["resistible"], a["targets"]) == (4, True, ["city"])  # complexity 8 (6 + Durable)
    assert sheet_of(g, "cult")["influence"] == {"1,0": 1}
    resolve_month(g)
    assert features_seen(g)["col"]["controller"] == "cult"
    assert "conspiracy" in town_of(g, "derop")["claims"]  # influence next door keeps the claim


def test_p_infl_6_channel_influence_spends_one_at_each_location_for_its_element():
    """P-INFL-6: Channel Influence "Spend 1 Influence at up to 3 locations, generating a mana of the terrain
    element from each." The element of each hex is data the GM declares."""
    hexes = [{"hex": "0,0", "element": "E"}, {"hex": "1,0", "element": "F"}, {"hex": "2,0"}, {"hex": "3,0"}]
    g = world_game(("cult", "conspiracy", "cult"), hexes=hexes, assets=[("lore", "cult", "lore", "skill", 1)])
    for h in ("0,0", "1,0", "2,0"):
        g.set_influence("cult", h, 1)
    act(g, "cult", "ch", "0,0", [6], assets=[{"asset_id": "lore"}])
    refused(g, lambda: g.aim_action("ch", "channel", params={"hexes": ["0,0", "2,0"]}), "P-INFL-6")  # no element
    refused(g, lambda: g.aim_action("ch", "channel", params={"hexes": ["0,0", "3,0"]}), "P-INFL-6")  # no influence
    g.aim_action("ch", "channel", params={"hexes": ["0,0", "1,0"]})
    assert sheet_of(g, "cult")["influence"] == {"2,0": 1}
    resolve_month(g)
    assert sheet_of(g, "cult")["mana"] == {"E": 1, "F": 1}


def test_p_mag_1_channel_influence_keeps_only_what_the_storage_cap_holds():
    """P-MAG-1: "Each power has a per-element storage cap"; P-AMB-37: mana gained during an action is spent in
    it or lost with it. Decision: Channel Influence (P-INFL-6) and the catalogue's Channel (P.2.12) follow one
    rule, ``magic_state.kept_gain``: the power keeps the mana up to its cap, and the rest is lost. A Cause stores 1
    of each element (Novice Mages [003:1248]), so two Fire hexes channelled give it 1 Fire, not 2."""
    hexes = [{"hex": "0,0", "element": "F"}, {"hex": "1,0", "element": "F"}, {"hex": "2,0", "element": "E"}]
    g = world_game(("cause", "conspiracy", "cause"), hexes=hexes, assets=[("lore", "cause", "lore", "skill", 1)])
    for h in ("0,0", "1,0", "2,0"):
        g.set_influence("cause", h, 1)
    act(g, "cause", "ch", "0,0", [6], assets=[{"asset_id": "lore"}])
    g.aim_action("ch", "channel", params={"hexes": ["0,0", "1,0", "2,0"]})
    assert sheet_of(g, "cause")["influence"] == {}  # all three influences are spent, whatever is kept
    g.collect_events()
    resolve_month(g)
    granted = [(e.element, e.amount) for e in g.collect_events() if type(e).__name__ == "ManaGranted"]
    assert granted == [("F", 1), ("E", 1)]
    assert sheet_of(g, "cause")["mana"] == {"F": 1, "E": 1}


def test_p_feat_1_durable_ignores_the_first_demolition_each_season():
    """P-FEAT-1: Durable "Ignores the first effect each season that would disrupt or damage it" (a per-season
    flag). Demolish: "Other powers with a claim on the town can resist. Difficulty: 1." """
    g = world_game(
        ("city", "city", "sovereign"),
        ("wiz", "champion", "wizard"),
        towns=[TOWN],
        features=[{"id": "mine", "kind": "extractor", "town": "derop", "upgrades": ["durable"]}],
        assets=[("might", "wiz", "might", "skill", 2)],
    )
    g.set_claim("derop", "city")
    g.set_claim("derop", "wiz")
    act(g, "wiz", "d1", "0,0", [6, 6], assets=[{"asset_id": "might"}])
    g.aim_action("d1", "town", town_id="derop", kind="demolish", params={"feature_id": "mine"})
    a = action_of(g, "d1")
    assert (a["difficulty"], a["resistible"], a["targets"]) == (1, True, ["city"])
    resolve_month(g)
    assert "mine" in features_seen(g)  # the first blow this season is ignored
    g.advance(NOW, SEED)
    act(g, "wiz", "d2", "0,0", [6, 6], assets=[{"asset_id": "might"}])
    g.aim_action("d2", "town", town_id="derop", kind="demolish", params={"feature_id": "mine"})
    resolve_month(g)
    assert "mine" not in features_seen(g)


def test_p_feat_1_durable_asked_of_a_feature_not_on_the_map_is_refused_naming_it():
    """P-FEAT-1: whether Durable holds is asked of a feature on the map; asked of any other, the answer is a
    refusal naming ``feature_id`` and the rule, not a bare KeyError, and nothing is recorded."""
    g = world_game(
        ("city", "city", "sovereign"),
        towns=[TOWN],
        features=[{"id": "mine", "kind": "extractor", "town": "derop", "upgrades": ["durable"]}],
    )
    g.collect_events()
    before = (g.version, seen(g))
    with pytest.raises(NotFound) as info:
        world_resolution._durable_holds(g, "nowhere")
    assert (info.value.field, info.value.rule) == ("feature_id", "P-FEAT-1")
    assert "'nowhere'" in info.value.message
    assert g.collect_events() == []
    assert (g.version, seen(g)) == before


def test_p_4_a_hidden_industry_stays_hidden_when_it_stops():
    """P.4: "Other landscape features can be public or private": an industry the GM keeps hidden is not named
    to the table when the town shrinks and it stops (P-TOWN-3), in the view or the Cleanup record."""
    g = world_game(
        ("city", "city", "sovereign"),
        ("cult", "conspiracy", "cult"),
        towns=[{**TOWN, "population": 3, "statuses": {"sickened": 1}}],
        features=[{"id": "secret-lab", "kind": "guild", "town": "derop", "public": False, "controller": "cult"}],
    )
    g.collect_events()
    to_next_season(g)
    assert "secret-lab" not in str(map_view(g, "city")) and "secret-lab" not in str(map_view(g, "public"))
    assert map_view(g, "cult")["towns"][0]["stopped"] == ["secret-lab"]
    public = [e for e in g.collect_events() if "public" in e.audience]
    assert "secret-lab" not in str([e.__dict__ for e in public])


def test_gm_2_an_action_with_a_sealed_difficulty_is_not_aimed_at_a_formula():
    """GM-2: a secret difficulty is committed before the roll and can never be replaced, so an action whose
    difficulty the GM sealed cannot take a difficulty from a formula afterwards."""
    g = world_game(("city", "city", "sovereign"), towns=[TOWN])
    g.set_claim("derop", "city")
    act(g, "city", "tax", "0,0")
    g.set_difficulty("tax", 3, sealed=True, nonce="n" * 16)
    refused(g, lambda: g.aim_action("tax", "town", town_id="derop", kind="tax"), "GM-2")


def test_p_feat_3_anything_inside_a_stronghold_is_immune_to_subtle_targeting():
    """P-FEAT-3: "Anything inside is immune to subtle targeting" - [003:445] "powers must find a way to overcome
    this immunity in order to target anything inside this stronghold subtly. Unsubtle means, such as magic or
    invading a stronghold with an army naturally bypass this immunity." Whether a means is subtle, and whether
    the protection was overcome, is the GM's ruling (GM-22)."""
    g = world_game(
        ("dragon", "champion", "dragon"),
        ("city", "city", "sovereign"),
        features=[
            {"id": "lair", "kind": "stronghold", "hex": "3,0", "controller": "dragon"},
            {"id": "den", "kind": "outpost", "hex": "2,0", "controller": "city"},
        ],
        planning=False,
    )
    g.advance(NOW, SEED)
    g.adjust_resources("dragon", {"coin": 2}, "a hoard")
    g.pay_maintenance("lair", "dragon")
    g.advance(NOW, SEED)
    act(g, "city", "spy", "3,0", title="Steal the egg")
    act(g, "city", "bold", "3,0", title="Storm the gate")
    act(g, "dragon", "hoard", "3,0", title="Count the gold")
    before = len(g.collect_events())
    refused(g, lambda: g.rule_subtle("spy", "lair"), "P-FEAT-3")
    refused(g, lambda: g.rule_subtle("spy", "den"), "P-FEAT-3")  # not a stronghold
    assert len(g.collect_events()) == 0 and before > 0
    # Not ruled subtle (an army, magic), the action goes ahead; the owner may act subtly in its own stronghold.
    g.rule_subtle("hoard", "lair")
    # The GM rules the protection overcome: the subtle action may then target what is inside.
    g.rule_subtle("spy", "lair", overcome=True)
    ruled = [e for e in g.collect_events() if type(e).__name__ == "SubtleRuled"]
    assert [(e.action_id, e.overcome, e.audience) for e in ruled] == [
        ("hoard", False, ["power:dragon"]),
        ("spy", True, ["power:city"]),
    ]
    assert g.state.world.subtle["spy"] == {"feature_id": "lair", "overcome": True}
    resolve_month(g)
    refused(g, lambda: g.rule_subtle("bold", "lair", overcome=True), "P-FEAT-3")  # not after Planning
    g.advance(NOW, SEED)  # the month ends: its rulings are done with
    assert g.state.world.subtle == {}


def test_p_feat_3_actions_taken_inside_ones_stronghold_are_private():
    """P-FEAT-3: "any actions taken here become Private" ([003:445]); P-AMB-32: "an action located in a
    stronghold is private whichever slot it uses" - it still counts against the slot it used."""
    g = world_game(
        ("dragon", "champion", "dragon"),
        ("city", "city", "sovereign"),
        features=[{"id": "lair", "kind": "stronghold", "hex": "3,0", "controller": "dragon"}],
        planning=False,
    )
    g.advance(NOW, SEED)
    g.adjust_resources("dragon", {"coin": 2}, "a hoard")
    g.pay_maintenance("lair", "dragon")  # an inoperable stronghold would shelter nothing
    g.advance(NOW, SEED)
    act(g, "dragon", "inside", "3,0", [], title="Hoard the gold")
    act(g, "dragon", "outside", "2,0", [], title="Burn the fields")
    assert g.slots_used("dragon") == (2, 0)
    g.collect_events()
    resolve_month(g)
    resolved = {e.action_id: e.audience for e in g.collect_events() if type(e).__name__ == "ActionResolved"}
    assert resolved == {"inside": ["power:dragon"], "outside": ["public"]}
    seen = [a["title"] for a in board_view(g, "city")["public_actions"]]
    assert seen == ["Burn the fields"]


def test_p_4_what_a_power_learned_of_the_map_survives_a_rollback():
    """P.4: visibility grants "cannot be revoked": a hidden feature a power found stays known to it when the GM
    rolls the game back to before it was found."""
    from domain.powers.game import fold

    g = world_game(
        ("city", "city", "sovereign"),
        ("cult", "conspiracy", "cult"),
        features=[{"id": "den", "kind": "outpost", "name": "Smugglers den", "hex": "1,1", "controller": "cult"}],
    )
    start = g.version
    events = list(g.collect_events())
    g.reveal_feature("den", "city")
    restored = fold(None, events).state
    g.rollback(start, restored, reason="a ruling undone", now=NOW, seed=SEED)
    assert "den" in {f["id"] for f in map_view(g, "city")["features"]}
    assert "den" not in {f["id"] for f in map_view(g, "public")["features"]}
    assert fold(None, [*events, *g.collect_events()]).state == g.state  # and the history folds to it


def test_p_town_2_trade_roads_and_upgrade_take_their_formulas_and_effects():
    """P-TOWN-2: Trade "Each town gains wealth equal to the number of new resources they have access to ...
    Unclaimed towns cannot trade ... increased by a further 2 if the towns are not claimed by the same power";
    Lay Roads "Difficulty: 3, increased to 6 for hexes with difficult terrain"; Upgrade "Difficulty: The
    complexity of the new feature, plus the number of other existing features", less 1 (P-AMB-26)."""
    g = world_game(
        ("city", "city", "sovereign"),
        ("wiz", "champion", "wizard"),
        towns=[TOWN, {"id": "lake", "hex": "1,0", "population": 2, "wealth": 1}, {"id": "wild", "hex": "2,0"}],
        features=[
            {"id": "guild", "kind": "guild", "town": "derop"},
            {"id": "farm", "kind": "farm", "town": "derop"},
        ],
        assets=[("craft", "city", "craft", "skill", 6)],
    )
    g.set_claim("derop", "city")
    g.set_claim("lake", "wiz")
    act(g, "city", "trade", "0,0", [6] * 6, assets=[{"asset_id": "craft"}])
    refused(
        g, lambda: g.aim_action("trade", "town", town_id="derop", kind="trade", params={"with": "wild"}), "P-TOWN-2"
    )
    facts = {"with": "lake", "new_resources": 2, "excess_mobility": 1}
    # How many resources are new and how far goods travel are the GM's to say: a player aims without them.
    refused(
        g, lambda: g.aim_action("trade", "town", town_id="derop", kind="trade", params=facts, actor="city"), "P-TOWN-2"
    )
    g.aim_action("trade", "town", town_id="derop", kind="trade", params={"with": "lake"}, actor="city")
    assert action_of(g, "trade")["difficulty"] == 2
    refused(g, lambda: g.aim_action("trade", "town", town_id="derop", kind="tax", actor="city"), "P-ACT-4")
    g.aim_action("trade", "town", town_id="derop", kind="trade", params=facts, actor="gm")
    assert action_of(g, "trade")["difficulty"] == 3  # 1 excess mobility, +2: not one claimant of both
    act(g, "city", "roads", "0,0", [6] * 6, assets=[{"asset_id": "craft"}])
    g.aim_action("roads", "town", town_id="derop", kind="lay_roads", params={"hex": "0,1"})
    assert action_of(g, "roads")["difficulty"] == 6  # mountains
    act(g, "city", "up", "0,0", [6] * 6, assets=[{"asset_id": "craft"}])
    g.aim_action("up", "town", town_id="derop", kind="upgrade", params={"feature_id": "guild", "upgrades": ["durable"]})
    assert action_of(g, "up")["difficulty"] == 5  # complexity 3 + 2, one other feature, less 1
    resolve_month(g)
    events = g.collect_events()
    trades = [
        (e.town_id, e.effect["trade"]) for e in events if type(e).__name__ == "TownChanged" and "trade" in e.effect
    ]
    assert trades == [("derop", {"with": "lake", "wealth": 2})]  # each town's wealth: derop 2 -> 4, lake 1 -> 3
    assert "TownHarmed" not in names(events)  # nothing else changed a town's wealth
    (road,) = [h for h in seen(g)["map"]["hexes"] if h["hex"] == "0,1"]
    assert road["road"] is True
    assert features_seen(g)["guild"]["upgrades"] == ["durable"]
