"""Each battle and army decision of rules/ANALYSIS.md P.6 (issue 25), shown through the commands: battles through the
service's typed commands with explicit dice (``battle_helpers.Field``), level-ups through the army commands. The
docstring of each test quotes the decision. P-AMB-1 and P-AMB-18 are tested in test_battle_flow.py,
test_battle_goals.py and test_conformance_armies.py; P-AMB-13 in test_battle_goals.py."""

from __future__ import annotations

import json

import pytest

from domain.dice import FixedRoller
from domain.errors import RuleViolation
from domain.powers import army_types as at
from domain.powers import battle as pb
from domain.powers import world
from domain.powers.views import board_view
from tests.domain.battle_helpers import HEX, POWERS_2, Field, sturdy
from tests.domain.helpers import army_of
from tests.domain.test_conformance_armies import aimed, block, game, refused
from tests.domain.world_helpers import resolve_month

SIXES = [6, 6, 6]


def soft(**kw) -> dict:
    """No armor, Defense 3: every hit wounds."""
    return sturdy(**{"armor": 0, "defense": 3, **kw})


def two(x: dict, y: dict, x_units: int = 3, y_units: int = 3, **kw) -> Field:
    """North's "x" (the attackers, side A) against south's "y" (side B), both in the hex."""
    return Field({"x": ("north", HEX, x_units, x), "y": ("south", HEX, y_units, y)}, **kw)


def begin(f: Field, round_no: int = 1, allies: tuple[str, ...] = (), **setups: list[str]) -> dict:
    """Declare (north and its ``allies`` against south), set each side up, and pass to the Commands step of
    ``round_no``."""
    f.declare(allies=allies)
    for p, armies in (setups or {"north": ["x"], "south": ["y"]}).items():
        f.setup(p, armies)
    return f.pass_to("commands", round_no)


def refusal(f: Field, who: str, command, rule: str) -> RuleViolation:
    before = f.game().version
    with pytest.raises(RuleViolation) as err:
        f.run(who, command)
    assert err.value.rule == rule, err.value.message
    assert f.game().version == before
    return err.value


def test_p_amb_12_slay_hold_and_escalation_add_one_to_each_die():
    """P-AMB-12: "+1 to the static bonus on each die for that check ... Escalation likewise adds +1 static per point
    to attack dice." Hold [1,1,1] at Advance's threshold 2 scores 3 (not one success more, nor a fourth die); won,
    Advance gives +1 Escalation; then Slay [4,5,4] against Defense 6 scores 3 (+1 Slay, +1 Escalation)."""
    f = two(sturdy(presence={"die": 6, "bonus": 0}), sturdy())
    begin(f)
    f.command("south", "y", "rest")
    assert f.command("north", "x", "hold", [1, 1, 1], goal="advance")["presence"] == 3
    assert f.view("north")["sides"]["A"]["escalation"] == 1
    f.pass_to("commands", 2)
    f.command("south", "y", "rest")
    hit = f.command("north", "x", "slay", [4, 5, 4], target="y")["hit"]
    assert (hit["threshold"], hit["successes"]) == (6, 3)


def test_p_amb_14_a_unit_dies_at_its_second_wound_a_giants_at_its_third():
    """P-AMB-14: "A normal unit dies at its 2nd wound (capacity 1 without dying). Giant, Monster and Zombies die at
    their 3rd." Two wounds on one unit (Bloodlust puts both on unit 0) slay a normal unit and leave a Giant's."""
    for giant, slain in ((False, 1), (True, 0)):
        y = soft(cls="giant", titanic=True) if giant else soft()
        f = two(soft(keywords=["bloodlust"]), y, x_units=2)
        begin(f)
        f.command("south", "y", "rest")
        morale = [SIXES[:2]] if slain else [SIXES]  # Bloodied: the target's morale check, its active units' dice
        hit = f.command("north", "x", "slay", [6, 6], *morale, target="y", allocation=[0, 0])["hit"]
        assert hit["slain"] == slain
        units = f.army("y")["units"]
        assert len(units) == 3 - slain and (slain or units[0]["wounds"] == 2)


def test_p_amb_15_armor_soaks_first_wounds_go_where_the_defender_would_and_rest_restores_the_maximum():
    """P-AMB-15: "Armor soaks first and automatically, for untyped damage; then wounds, which the defender allocates
    by default. Rest restores armor to its maximum (equipment + base)." Three successes take 3 of 4 armor; two
    more break it and wound one unit, the least wounded (by post the defender is not asked mid-turn: [003:612]
    "defenders will want to put new wounds on the least wounded unit"); an attacker without Bloodlust may not
    allocate (P-BAT-6); the defender's Rest restores all 4."""
    f = two(sturdy(defense=3), sturdy(defense=6))
    begin(f)
    f.command("south", "y", "rest")
    refusal(f, "north", pb.GiveCommand("b1", "north", "x", "slay", "y", allocation=[0]), "P-BAT-6")
    hit = f.command("north", "x", "slay", [6, 6, 6], target="y")["hit"]
    assert (hit["armor_lost"], sum(hit["wounds"])) == (3, 0) and f.army("y")["armor"] == 1
    y = next(a for a in f.view("north")["armies"] if a["army_id"] == "y")
    assert (y["armor"], y["armor_max"]) == (1, 4)  # the battlemap shows what is left
    f.pass_to("commands", 2)
    f.command("south", "y", "slay", [1, 1, 1], target="x")
    hit = f.command("north", "x", "slay", [6, 6, 1], SIXES, target="y")["hit"]
    assert (hit["armor_lost"], hit["wounds"]) == (1, (1, 0, 0))
    f.pass_to("commands", 3)
    f.command("south", "y", "rest")
    assert f.army("y")["armor"] == 4 == next(a for a in f.view("south")["armies"] if a["army_id"] == "y")["armor"]


def test_p_amb_16_morale_threshold_is_the_rank_given_and_demons_rout_per_missing_success():
    """P-AMB-16: "A morale check = (dice = active units, die = morale die + static bonus, threshold = the rank
    given, for example the attacker's rank, or 2 for Demon/Devil, routs_due = floor(size/2) ...). Result: routs =
    max(0, routs_due - successes). For Demon/Devil "missing success" = (number of dice rolled - successes)."
    A Demon deploys: the mortal army's 4 dice [2,1,1,1] at threshold 2 make 1 success: 3 routs of 4. Then a rank 3
    army wounds a 4-unit army: routs_due 2, morale [3,2,2,2] at threshold 3 is 1 success: 1 rout."""
    f = Field(
        {
            "d": ("north", HEX, 2, soft(cls="demon", titanic=True)),
            "y": ("south", HEX, 4, soft()),
            "x": ("east", HEX, 1, soft(rank=3)),
            "z": ("south", HEX, 4, soft(presence={"die": 6, "bonus": 0})),
        }
    )
    f.declare(enemies=["south"], allies=["east"])
    f.setup("north", ["d"])
    f.setup("east", ["x"])
    f.dice.push([2, 1, 1, 1], [6, 6, 6, 6])  # the Demon's deployment: y's and z's morale checks
    f.setup("south", ["y", "z"])
    assert sum(u["routed"] for u in f.army("y")["units"]) == 3
    assert sum(u["routed"] for u in f.army("z")["units"]) == 0
    b = f.pass_to("commands", 1)
    while b["turn"]["power"] != "east":
        who = b["turn"]["power"]
        army = next(a["army_id"] for a in b["armies"] if a["power"] == who and a["army_id"] not in b["exhausted"])
        f.command(who, army, "rest")
        b = f.view("gm")
    out = f.command("east", "x", "slay", [6], [3, 2, 2, 2], target="z")
    assert (out["hit"]["routs_due"], out["routs"]) == (2, 1)


def test_p_amb_17_the_derop_stat_block_is_the_data_and_the_example_text_the_exception():
    """P-AMB-17: "Use the stat block as canonical data and keep the example as a documented exception." The Derop
    Levy placed with its printed block ([003:833]: Defense 4, morale d6+0) is charged by the Fangs of Grim Harbors
    (rank 4, 4 units, a basic attack without Slay's +1): 6,3,4,2 is 2 successes, the armor soaks one, 1 wound;
    Bloodied, 2 routs due; morale 1,2,1,2,3 at 4 is no success: 2 routed, not the text's 1 (P-EX-5 fixture B)."""
    levy = {k: v for k, v in at.EXAMPLE_BLOCKS["derop_levy"].items() if k != "units"}
    levy["armor"] = 0  # the printed Armor 1 is the Light tier's (P-ARMY-6: armor = base + tier)
    fangs = sturdy(rank=4, keywords=["skirmisher"], presence={"die": 6, "bonus": 0})
    f = Field({"fangs": ("north", HEX, 4, fangs), "levy": ("south", HEX, 5, block(**levy))})
    begin(f, north=["fangs"], south=["levy"])
    f.command("south", "levy", "rest")
    out = f.command(
        "north", "fangs", "charge", [6, 3, 4, 2], [1, 2, 1, 2, 3], [1, 1, 1, 1], target="levy", goal="advance"
    )
    hit = out["hit"]
    assert (hit["successes"], hit["armor_lost"], sum(hit["wounds"]), hit["routs_due"]) == (2, 1, 1, 2)
    assert out["routs"] == 2 and sum(not u["routed"] for u in f.army("levy")["units"]) == 3


def test_p_amb_19_the_stoneshatterers_take_the_rules_defense_not_the_printed_block():
    """P-AMB-19: Stoneshatterers "+ Defense" against a block showing +Presence: "Tests should assert the rules, not
    the block." The Hammers of Derop trained to rank 3 with + Defense, +Valiant and + Presence have Defense 6; the
    printed block keeps 5."""
    g = game()
    hammers = {k: v for k, v in at.EXAMPLE_BLOCKS["hammers_of_derop"].items() if k != "units"}
    hammers["armor"] = 0  # the printed Armor 1 is the Light tier's
    g.place_army("ham", "Hammers of Derop", "0,0", 4, controller="city", block=block(**hammers, cls="hammers"))
    aimed(g, "t", "train", {"army_id": "ham"}, [6, 6, 6, 6, 1, 1, 1])  # difficulty 3 + 4 // 4 = 4
    resolve_month(g)
    g.roll_level_up("ham", "city", FixedRoller([4, 6, 1]))
    g.choose_level_up("ham", "city", ["defense", {"bonus": "keyword", "keyword": "valiant"}, "presence"])
    ham = g.army("ham")
    assert (ham["rank"], ham["defense"], ham["presence"]["die"]) == (3, 6, 6)
    assert at.EXAMPLE_BLOCKS["derop_stoneshatterers"]["defense"] == 5 != ham["defense"]


def test_p_amb_20_the_level_up_faces_are_the_table_in_its_printed_order():
    """P-AMB-20: "Map d6 faces 1-6 to the entries in the order listed (P-ARMY-4)": Presence, Attack, Morale,
    Defense, Mobility, a keyword. Faces 1, 5, 6 offer Presence, Mobility and a keyword, and nothing else."""
    g = game()
    g.grant_experience("guard", 1)
    xp = g.army("guard")["experience"][0]
    aimed(g, "t", "train", {"army_id": "guard"}, [6, 6, 6, 6], assets=[{"asset_id": "cmd"}, {"asset_id": xp}])
    resolve_month(g)
    assert g.roll_level_up("guard", "city", FixedRoller([1, 5, 6])) == [1, 5, 6]
    refused(g, lambda: g.choose_level_up("guard", "city", ["attack", "presence", "mobility"]), "P-ARMY-4")
    g.choose_level_up("guard", "city", ["presence", "mobility", {"bonus": "keyword", "keyword": "valiant"}])
    guard = g.army("guard")
    assert (guard["presence"]["die"], guard["mobility"], "valiant" in guard["keywords"]) == (6, 3, True)


def test_p_amb_22_initiative_compares_sides_and_a_tie_goes_to_the_defenders():
    """P-AMB-22: "Compare sides by the number of armies deployed at the start. On a tie, the defender (the side not
    declaring the battle) has initiative." North (1 army) and east (2) against south (2): north has the fewest of
    any power, but the defenders' side has fewer, so south commands first; 2 against 2, the defenders again."""
    armies = {a: (p, HEX, 2, sturdy()) for a, p in (("n1", "north"), ("e1", "east"), ("e2", "east"))}
    armies |= {a: ("south", HEX, 2, sturdy()) for a in ("s1", "s2")}
    for east in (["e1", "e2"], ["e1"]):
        f = Field(armies)
        b = begin(f, allies=("east",), north=["n1"], east=east, south=["s1", "s2"])
        assert (b["initiative"], b["turn"]["power"]) == ("B", "south")


def test_p_amb_23_one_army_a_turn_sides_alternate_and_a_sides_powers_take_turns():
    """P-AMB-23: "One command (one army) per turn, sides alternating. A side with no unexhausted armies passes.
    Within a side, its powers alternate." South (1 army) commands first; then north, east, north: south has no army
    left to command. North may not command twice in a row."""
    armies = {a: (p, HEX, 2, sturdy()) for a, p in (("n1", "north"), ("n2", "north"), ("e1", "east"))}
    f = Field({**armies, "s1": ("south", HEX, 2, sturdy())})
    b = begin(f, allies=("east",), north=["n1", "n2"], east=["e1"], south=["s1"])
    turns = []
    while b["step"] == "commands":
        who = b["turn"]["power"]
        turns.append(who)
        if turns == ["south", "north"]:
            f.command("north", "n1", "rest")
            refusal(f, "north", pb.GiveCommand("b1", "north", "n2", "rest"), "P.1.3")
        else:
            army = next(a["army_id"] for a in b["armies"] if a["power"] == who and a["army_id"] not in b["exhausted"])
            f.command(who, army, "rest")
        b = f.view("gm")
    assert turns == ["south", "north", "east", "north"]


def test_p_amb_36_bloodied_counts_only_this_battles_wounds():
    """P-AMB-36: "Count only wounds received in this battle." A Giant unit wounded in an earlier battle (it
    retreated) takes a second wound in the next: it has 2 wounds, and its army is Bloodied 1, not 2."""
    f = two(soft(keywords=["bloodlust"]), soft(cls="giant", titanic=True), x_units=1, y_units=2)
    begin(f)
    f.command("south", "y", "rest")
    f.command("north", "x", "slay", [6], [6, 6], target="y", allocation=[0])
    assert f.pass_to("ended", retreat={"south": ["y"]})["result"]["reason"] == "only one side has active armies"
    assert f.army("y")["units"][0]["wounds"] == 1 and not f.army("y")["statuses"]
    f.bid = "b2"
    begin(f)
    f.command("south", "y", "rest")
    f.command("north", "x", "slay", [6], [6, 6], target="y", allocation=[0])
    y = next(a for a in f.view("south")["armies"] if a["army_id"] == "y")
    assert y["units"][0]["wounds"] == 2 and y["statuses"]["Bloodied"] == 1


def test_p_amb_40_experience_is_ranked_by_the_armies_of_every_side_that_lost_units():
    """P-AMB-40: "Rank = the number of armies (on all sides) that permanently lost at least one unit." Each side
    loses a unit (Bloodlust puts two wounds on one); south retreats: both survivors gain Experience of rank 2."""
    f = two(soft(keywords=["bloodlust"]), soft(keywords=["bloodlust"]))
    begin(f)
    f.command("south", "y", "slay", [6, 6, 1], [6, 6], target="x", allocation=[0, 0])
    f.command("north", "x", "slay", [6, 6], [6, 6], target="y", allocation=[0, 0])
    result = f.pass_to("ended", retreat={"south": ["y"]})["result"]
    assert (result["experience_rank"], sorted(result["lost"])) == (2, ["x", "y"])
    for aid in ("x", "y"):
        (xp,) = army_of(f.game(), aid)["experience"]
        assert xp["rank"] == 2


def test_p_amb_41_an_armys_level_is_its_rank():
    """P-AMB-41: "Level = rank." Intimidation, a conspiracy's generation mechanism ([003:1120]): "Once per season,
    when you win a battle in a hex, gain influence there equal to the greatest level of the opposed armies": the
    cult north wins against armies of rank 3 and 1 and gains 3 influence there, its Intimidation used."""
    armies = {
        "x": ("north", HEX, 2, sturdy()),
        "y": ("south", HEX, 2, sturdy(rank=3)),
        "z": ("south", HEX, 2, sturdy()),
    }
    f = Field(armies, powers=(("North", "conspiracy", "cult"), *POWERS_2))
    f.run("gm", world.SetMechanisms("north", ["intimidation"]))
    begin(f, north=["x"], south=["y", "z"])
    for who, army in (("north", "x"), ("south", "y"), ("south", "z")):
        f.command(who, army, "rest")
    assert f.pass_to("ended", retreat={"south": ["y", "z"]})["result"]["winner"] == "A"
    seen_by_north = board_view(f.game(), "north")["map"]
    assert {"power": "north", "hex": HEX, "amount": 3} in seen_by_north["influence"]
    assert seen_by_north["mechanisms"]["used"] == ["intimidation"]


def test_p_amb_44_delayed_ticks_down_at_cleanup_and_the_army_arrives_at_the_next_deployment():
    """P-AMB-44: "-1 at each round's Cleanup; the army arrives at the next Deployment once X = 0." Reinforcements 1
    and 2 hexes away (Delayed 1 and 2) arrive in rounds 2 and 3."""
    f = Field(
        {
            "x": ("north", HEX, 2, sturdy()),
            "near": ("north", "3,0", 2, sturdy(mobility=2)),
            "far": ("north", "4,0", 2, sturdy(mobility=2)),
            "y": ("south", HEX, 2, sturdy()),
        }
    )
    f.declare()
    f.setup("north", ["x"], reinforcements=["near", "far"])
    f.setup("south", ["y"])
    for r, near, far in ((1, "delayed", "delayed"), (2, "deployed", "delayed"), (3, "deployed", "deployed")):
        b = f.pass_to("commands", r)
        where = {a["army_id"]: a["where"] for a in b["armies"]}
        assert (where["near"], where["far"]) == (near, far), r
        while b["step"] == "commands":
            who = b["turn"]["power"]
            army = next(a["army_id"] for a in b["armies"] if a["power"] == who and a["army_id"] not in b["exhausted"]
                        and a["where"] == "deployed")  # fmt: skip
            f.command(who, army, "rest")
            b = f.view("gm")


def test_p_bat_3_a_standing_order_is_told_to_its_own_power_and_the_gm_alone():
    """P-BAT-3 / P.4: an army's standing order, what it does at a deadline when the GM's default is "standing", is
    its power's plan: the battlemap shows it to its power and the GM only, and no event the other side reads
    carries it (its setup tells the other side its armies and goals, [003:561])."""
    f = two(sturdy(), sturdy())
    f.declare()
    f.setup("north", ["x"], standing={"x": {"command": "slay", "target": "y"}})
    f.setup("south", ["y"])
    order = {"command": "slay", "target": "y", "goal": None}
    x = {who: next(a for a in f.view(who)["armies"] if a["army_id"] == "x") for who in ("north", "gm", "south")}
    assert x["north"]["standing_order"] == order == x["gm"]["standing_order"]
    assert "standing_order" not in x["south"]
    told = [e["data"] for e in f.games.visible_events(f.gid, "south") if e["data"].get("battle_id") == "b1"]
    assert told and "slay" not in json.dumps(told)
    mine = [e["data"] for e in f.games.visible_events(f.gid, "north") if e["data"].get("battle_id") == "b1"]
    assert "slay" in json.dumps(mine)
