"""What the class actions of P.2.12 do to the map once they succeed (rules/ANALYSIS.md P.2.12): towns lowered,
claims made and mana gained, through the world's own records, with the dice given explicitly."""

from __future__ import annotations

import pytest

from application.service import Caller, Games
from domain.dice import FixedRoller
from domain.errors import Forbidden, RuleViolation
from domain.ids import GM
from domain.powers import catalogue_commands as cc
from domain.powers import world
from domain.powers.game import Game
from domain.powers.views import board_view
from domain.powers.world import map_view
from tests.domain.helpers import NOW, SEED, action_of, army_of, asset_of, refused, seen, sheet_of, step_of, town_of
from tests.domain.world_helpers import HEXES, resolve_month, to_next_season, world_game
from tests.helpers import add_power

DEROP = {"id": "derop", "hex": "1,0", "population": 4, "wealth": 3}


def names(events) -> list[str]:
    return [type(e).__name__ for e in events]


def succeed(g: Game, power: str, action_id: str, kind: str, params: dict, **kw) -> list:
    """Submit a class action with three successes on the dice (its one agent rolls 6, 5, 5), resolve the
    month, and return the events recorded from the submission on."""
    g.collect_events()
    kw.setdefault("slot", "public" if sheet_of(g, power)["quota"]["private"] == 0 else "private")
    g.submit_class_action(
        power,
        action_id,
        kind,
        params,
        now=NOW,
        roller=FixedRoller([6, 5, 5]),
        assets=[{"asset_id": "agent"}],
        convert=0,
        **kw,
    )
    resolve_month(g)
    assert action_of(g, action_id)["result"]["success"]
    return g.collect_events()


def test_p_2_12_sack_lowers_the_towns_wealth_by_one_and_applies_two_uprising():
    """[003:1339] "Sack: Reduce the wealth of a claimed town you are in by 1, then gain Coin equal to the new
    Wealth. Apply 2 "Uprising"." """
    g = world_game(("drg", "champion", "dragon"), towns=[DEROP], assets=[("agent", "drg", "might", "skill", 3)])
    # The map's wealth counts, not what the dragon declared: 3 - 1 = 2 coin.
    events = succeed(g, "drg", "sk", "sack", {"town": "derop", "uprising": 0, "opposing_units": 0, "wealth": 9})
    t = town_of(g, "derop")
    assert (t["wealth"], t["population"], t["statuses"]) == (2, 4, {"uprising": 2})
    harmed = next(e for e in events if type(e).__name__ == "TownHarmed")
    assert harmed.audience == ["public"]  # a town is public (P.4)
    assert g.holdings("drg").wallet.get("coin") == 2


def test_p_2_12_slaughter_lowers_the_towns_population_by_one_and_applies_two_uprising():
    """[003:1338] "Slaughter: Reduce the population of a claimed town you are in by 1, then gain Fear or Respect
    equal to the new population. Apply 2 "Uprising"." """
    town = {**DEROP, "statuses": {"uprising": 1}}
    g = world_game(("drg", "champion", "dragon"), towns=[town], assets=[("agent", "drg", "might", "skill", 3)])
    succeed(
        g,
        "drg",
        "sl",
        "slaughter",
        {"town": "1,0", "uprising": 1, "depopulated": 0, "opposing_units": 0, "population": 4},
    )
    t = town_of(g, "derop")
    assert (t["population"], t["wealth"], t["statuses"]) == (3, 3, {"uprising": 3})
    assert seen(g)["catalogue"]["kinds"]["sl"]["params"]["town"] == "derop"  # named by its hex, recorded by its id


def test_p_2_12_annex_claims_the_town_for_the_city_in_place_of_the_city_that_claimed_it():
    """[003:965] "Annex - Select a town where you control an army, and attempt to claim it." One claimant of
    each type (P-TOWN-1): the new city's claim replaces the old city's."""
    town = {**DEROP, "claims": {"city": "old"}}
    g = world_game(
        ("sov", "city", "sovereign"),
        ("old", "city", "sovereign"),
        towns=[town],
        assets=[("agent", "sov", "might", "skill", 3)],
    )
    events = succeed(g, "sov", "ann", "annex", {"town": "derop"})
    assert town_of(g, "derop")["claims"]["city"] == "sov"
    assert names(events).count("ClaimLost") == 1 and names(events).count("ClaimSet") == 1


def test_p_2_12_commandeer_claims_the_town_and_renounces_all_claims_on_other_towns():
    """[003:1276] "Commandeer - Claim a town you stand in until you leave it. Announced publicly, and renounces
    all claims on other towns." """
    other = {"id": "vale", "hex": "3,0", "population": 2, "wealth": 1, "claims": {"champion": "wiz"}}
    g = world_game(("wiz", "champion", "wizard"), towns=[DEROP, other], assets=[("agent", "wiz", "might", "skill", 3)])
    events = succeed(g, "wiz", "cmd", "commandeer", {"town": "derop"})
    assert town_of(g, "derop")["claims"]["champion"] == "wiz"
    assert "champion" not in town_of(g, "vale")["claims"]
    assert [e.audience for e in events if type(e).__name__ in ("ClaimSet", "ClaimLost")] == [["public"], ["public"]]


def channel_game(perk: str | None) -> Game:
    hexes = [{**h, "element": "F"} if h["hex"] == "1,0" else h for h in HEXES]
    town = {**DEROP, "claims": {"city": "sov"}}
    vale = {"id": "vale", "hex": "3,0", "population": 2, "wealth": 1}
    g = world_game(
        ("sov", "city", "sovereign"), towns=[town, vale], hexes=hexes, assets=[("agent", "sov", "might", "skill", 3)]
    )
    if perk is not None:
        g.grant_magic_perk("sov", perk)
    return g


def test_p_2_12_channel_gains_mana_of_the_towns_element_for_each_season_since_it_was_last_channelled():
    """[003:967] "Channel - Select a claimed town. Gain one mana matching its element for every season since the
    last time this action was taken there." The mana element of a hex is the GM's (P-INFL-6); the storage cap
    holds (P-MAG-1: "you must have a special perk to be able to channel or store mana")."""
    g = channel_game("novice_mages")
    unclaimed = {"town": "vale"}
    kw = {"now": NOW, "roller": FixedRoller(), "roll": False, "slot": "public"}
    refused(g, lambda: g.submit_class_action("sov", "ch2", "channel", unclaimed, **kw), "P.2.12")
    events = succeed(g, "sov", "ch", "channel", {"town": "derop"})
    granted = [e for e in events if type(e).__name__ == "ManaGranted"]
    assert [(e.element, e.amount, e.audience) for e in granted] == [("F", 1, ["power:sov"])]
    assert sheet_of(g, "sov")["mana"] == {"F": 1}
    g = channel_game(None)
    events = succeed(g, "sov", "ch", "channel", {"town": "derop"})
    assert "ManaGranted" not in names(events) and not sheet_of(g, "sov")["mana"]


def test_p_2_12_blighted_neighborhood_lowers_the_chosen_town_each_cleanup_for_five_fear():
    """[003:959] "Blighted Neighborhood: Choose a town you claim. During each Cleanup Step, reduce its population
    and wealth by 1 and gain 5 Fear. During your action declarations for the first month of each season, if you
    claim no town chosen this way, choose another claimed town." """
    vale = {"id": "vale", "hex": "3,0", "population": 2, "wealth": 1}
    town = {**DEROP, "claims": {"city": "sov"}}
    g = world_game(
        ("sov", "city", "sovereign", {"blighted_neighborhood": True}),
        ("old", "city", "sovereign"),
        towns=[town, vale],
    )
    refused(g, lambda: g.choose_blighted_town("sov", "vale"), "P.2.12")  # not a town it claims
    refused(g, lambda: g.choose_blighted_town("old", "derop"), "P.2.12")  # no Blighted Neighborhood
    g.choose_blighted_town("sov", "derop")
    boards = {v: board_view(g, v)["catalogue"] for v in ("sov", "old")}
    assert (boards["sov"]["blighted_town"], boards["old"]["blighted_town"]) == ("derop", None)  # P.4: its own
    g.choose_control("sov", "fear")  # only a power that uses fear gains it ([003:166])
    refused(g, lambda: g.choose_blighted_town("sov", "derop"), "P.2.12")  # still claimed: it stays chosen
    fear = g.holdings("sov").wallet.get("fear", 0)
    g.collect_events()
    to_next_season(g)
    t = town_of(g, "derop")
    assert (t["population"], t["wealth"]) == (3, 2)
    assert g.holdings("sov").wallet.get("fear", 0) == fear + 5
    harmed = [e for e in g.collect_events() if type(e).__name__ == "TownHarmed"]
    assert [(e.audience, e.by) for e in harmed] == [(["public"], None)]  # the town is public, who blights it is not
    g.drop_claim("derop", "sov")
    g.set_claim("derop", "old")  # the sovereign lost its claim: the town is spared, and it may choose again
    g.set_claim("vale", "sov")
    g.choose_blighted_town("sov", "vale")
    assert seen(g)["catalogue"]["blighted"] == {"sov": "vale"}


def test_p_2_12_blighted_neighborhood_is_chosen_through_the_service_by_the_power_alone():
    """[003:959] "Choose a town you claim." The choice runs through ``Games.run`` like every command: the power
    chooses, others are refused, and a refusal names its rule and records nothing."""
    games = Games()
    gid, _, _ = games.create_game("Blight", "GM")
    sov = add_power(games, gid, "gm", "Sovereign", "city", "sovereign", {"blighted_neighborhood": True})[0]
    other = add_power(games, gid, "gm", "Other", "city", "sovereign")[0]
    town = {**DEROP, "claims": {"city": sov}}
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[town]))
    with pytest.raises(Forbidden):
        games.run(Caller.of(other), gid, cc.ChooseBlightedTown(sov, "derop"))
    before = len(games.visible_events(gid, "gm", limit=10_000))
    with pytest.raises(RuleViolation, match="claims no town") as err:
        games.run(Caller.of(sov), gid, cc.ChooseBlightedTown(sov, "elsewhere"))
    assert err.value.rule == "P.2.12"
    assert len(games.visible_events(gid, "gm", limit=10_000)) == before
    games.run(Caller.of(sov), gid, cc.ChooseBlightedTown(sov, "derop"))
    assert games.view(gid, sov)["catalogue"]["blighted_town"] == "derop"
    assert games.view(gid, other)["catalogue"]["blighted_town"] is None


def test_p_2_12_hidden_runes_place_a_rune_asset_in_the_hex_usable_once_there_only():
    """[003:1175] Hidden Runes: "Choose a hex where you have at least one influence and place a Rune asset there
    with rank up to that amount of influence." [003:1161] "A rune can be expended once as part of any ritual or
    challenge targeting that hex ... Each hex can have at most one of your runes." The rune is the Circle's
    private asset (P.4); once expended, the hex may hold a new one."""
    g = world_game(
        ("circ", "conspiracy", "circle"),
        ("city", "city", "sovereign"),
        assets=[("agent", "circ", "subtlety", "skill", 3)],
    )
    g.set_influence("circ", "1,0", 2)
    g.grant_mana("circ", "A", 2)  # the runes' cost: their rank in mana, any element on this map (P-MAG-2)
    g.grant_mana("circ", "E", 1)
    # one rune per hex, counted from the moment it is declared: a second this month is refused
    g.submit_class_action(
        "circ", "r1", "hidden_runes", {"hex": "1,0", "rank": 2}, now=NOW, roller=FixedRoller(), roll=False
    )
    refused(
        g,
        lambda: g.submit_class_action(
            "circ", "r2", "hidden_runes", {"hex": "1,0", "rank": 1}, now=NOW, roller=FixedRoller(), roll=False
        ),
        "P.2.12",
    )
    g.discard_action("r1", now=NOW)
    events = succeed(g, "circ", "r3", "hidden_runes", {"hex": "1,0", "rank": 2})
    placed = [e for e in events if type(e).__name__ == "RunePlaced"]
    assert [(e.hex, e.rank, e.asset_id, e.audience) for e in placed] == [("1,0", 2, "rune-r3", ["power:circ"])]
    rune = asset_of(g, "rune-r3")
    assert (rune["cls"], rune["rank"], rune["holders"], rune["name"]) == ("rune", 2, ["circ"], "Rune at 1,0")
    assert g.live_runes("circ") == {"1,0": 2}
    # on the Circle's map and the GM's, never on another power's (P.4: hidden until detected)
    assert map_view(g, "circ")["runes"] == [{"power": "circ", "hex": "1,0", "rank": 2}]
    assert map_view(g, GM)["runes"] == [{"power": "circ", "hex": "1,0", "rank": 2}]
    assert map_view(g, "city")["runes"] == []
    assert "rune-r3" not in str(board_view(g, "city"))
    g.advance(NOW, SEED)  # month 2 Planning
    assert step_of(g) == "planning"
    # only in a challenge in its hex
    refused(
        g,
        lambda: g.submit_action(
            "circ",
            "far",
            "Elsewhere",
            now=NOW,
            roller=FixedRoller([6, 6]),
            location="0,0",
            assets=[{"asset_id": "rune-r3"}],
            slot="private",
        ),
        "P.2.12",
    )
    g.submit_action(
        "circ",
        "here",
        "Here",
        now=NOW,
        roller=FixedRoller([6, 6]),
        location="1,0",
        assets=[{"asset_id": "rune-r3"}],
        slot="private",
        convert=0,
    )
    assert asset_of(g, "rune-r3")["used_up"] and g.live_runes("circ") == {} and map_view(g, "circ")["runes"] == []
    # expended: the hex may hold a new rune
    g.submit_class_action(
        "circ", "r4", "hidden_runes", {"hex": "1,0", "rank": 1}, now=NOW, roller=FixedRoller(), roll=False
    )


FINGER_BLOCK = {
    "rank": 2,
    "defense": 4,
    "attack": {"die": 6, "bonus": 0},
    "morale": {"die": 6, "bonus": 0},
    "presence": {"die": 4, "bonus": 0},
    "armor": 2,
    "fee": 2,
    "mobility": 2,
    "keywords": [],
    "cls": "infantry",
    "element": "D",
}


def finger_game() -> Game:
    g = world_game(
        ("cult", "conspiracy", "cult"),
        assets=[("agent", "cult", "might", "skill", 3)],
    )
    g.define_army_type("cult-fingers", FINGER_BLOCK)
    g.grant_mana("cult", "F", 1)  # Rise, Fingers and Sacrificial Summoning cost FW (P-MAG-2)
    g.grant_mana("cult", "W", 1)
    return g


def test_p_2_12_rise_fingers_creates_a_finger_army_of_min_excess_and_units_slain_in_the_hex():
    """[003:1230] Rise, Fingers: "Create a new Patron's Finger Army with size equal to the number of excess
    successes, to a maximum of the number of units slain. Cost: FW. Difficulty: 1". The army's stats are the
    Cult's Patron's Finger design ([003:1203] "a repeated template"), an army type the GM defines; on a declared
    map the action must name it (``params.type``). Excess 2 (three successes against 1), slain 4: 2 units."""
    g = finger_game()
    kw = {"now": NOW, "roller": FixedRoller(), "roll": False}
    refused(
        g, lambda: g.submit_class_action("cult", "x", "rise_fingers", {"hex": "2,0", "units_slain": 4}, **kw), "P.2.12"
    )  # no design named
    refused(
        g,
        lambda: g.submit_class_action(
            "cult", "x", "rise_fingers", {"hex": "9,9", "units_slain": 4, "type": "cult-fingers"}, **kw
        ),
        "P.2.12",
    )
    events = succeed(g, "cult", "rise", "rise_fingers", {"hex": "2,0", "units_slain": 4, "type": "cult-fingers"})
    assert next(e for e in events if type(e).__name__ == "ClassActionOutcome").outputs == {"finger_army_size": 2}
    army = g.state.armies.armies["fingers-rise"]
    assert (army["controller"], army["hex"], len(army["units"]), army["rank"], army["armor_base"]) == (
        "cult",
        "2,0",
        2,
        2,
        2,
    )
    assert asset_of(g, "fingers-rise")["holders"] == ["cult"]  # the army is the Cult's asset (P-ASSET-7)
    # slain 1: capped at 1 however many excess successes
    g = finger_game()
    succeed(g, "cult", "rise", "rise_fingers", {"hex": "2,0", "units_slain": 1, "type": "cult-fingers"})
    assert len(army_of(g, "fingers-rise")["units"]) == 1


def test_p_2_12_sacrificial_summoning_converts_the_army_into_a_finger_army_of_the_same_size():
    """[003:1224] "Your patron converts an army you control into a Patron's Finger Army of the same size. Cost:
    FW Difficulty: The sacrificed army's size minus its rank." On a map the army's size and rank are the map's,
    not what the Cult declared."""
    g = finger_game()
    g.place_army("thralls", "Thralls", "3,0", 5, controller="cult", type_id="cult-fingers")
    kw = {"now": NOW, "roller": FixedRoller(), "roll": False}
    refused(
        g,
        lambda: g.submit_class_action(
            "cult", "x", "sacrificial_summoning", {"army": "nope", "type": "cult-fingers"}, **kw
        ),
        "P.2.12",
    )
    g.collect_events()
    g.submit_class_action(
        "cult",
        "sac",
        "sacrificial_summoning",
        {"army": "thralls", "army_size": 9, "army_rank": 1, "type": "cult-fingers"},
        now=NOW,
        roller=FixedRoller([6, 5, 5]),
        assets=[{"asset_id": "agent"}],
        convert=0,
    )
    assert action_of(g, "sac")["difficulty"] == 3  # 5 units - rank 2, from the map
    resolve_month(g)
    assert "thralls" not in [a["army_id"] for a in seen(g)["armies"]["armies"]]
    army = army_of(g, "fingers-sac")
    assert (army["hex"], len(army["units"]), army["controller"]) == ("3,0", 5, "cult")


def test_p_2_12_runes_and_finger_armies_replay_from_their_events():
    """The rune (RunePlaced) and the Finger Army (ArmyPlaced and the Cult's asset) are folded by their events
    alone: replaying the game's events reproduces the state, as every event must (DESIGN, "The event model")."""
    from tests.domain.test_replay import replay

    g = world_game(
        ("cult", "conspiracy", "cult"),
        ("circ", "conspiracy", "circle"),
        assets=[("agent", "cult", "might", "skill", 3), ("sub", "circ", "subtlety", "skill", 3)],
    )
    g.define_army_type("cult-fingers", FINGER_BLOCK)
    g.set_influence("circ", "1,0", 2)
    for power, element in (("cult", "F"), ("cult", "W"), ("circ", "A"), ("circ", "E")):
        g.grant_mana(power, element, 1)  # FW for the Fingers, 2 for the rune (P-MAG-2)
    kw = {"now": NOW, "convert": 0}
    g.submit_class_action(
        "cult",
        "rise",
        "rise_fingers",
        {"hex": "2,0", "units_slain": 4, "type": "cult-fingers"},
        roller=FixedRoller([6, 5, 5]),
        assets=[{"asset_id": "agent"}],
        **kw,
    )
    g.submit_class_action(
        "circ",
        "rune",
        "hidden_runes",
        {"hex": "1,0", "rank": 2},
        roller=FixedRoller([6, 5, 5]),
        assets=[{"asset_id": "sub"}],
        **kw,
    )
    resolve_month(g)
    assert "fingers-rise" in [a["army_id"] for a in seen(g)["armies"]["armies"]] and "rune-rune" in g.state.assets
    assert replay(list(g._pending_events)).state == g.state
