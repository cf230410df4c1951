"""Powers rule ids whose only tests refused a command or called a pure function, now played through the typed
commands on the service (issue 25): each rule accepting what it allows and refusing what it forbids, the refusal
recording nothing, with the dice given explicitly."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.platform.commands import GrantExtension, RequestExtension
from domain.powers import armies as pa
from domain.powers import battle as pb
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import magic as m
from domain.powers import world
from tests.domain.battle_helpers import HEX, Field, sturdy
from tests.domain.helpers import asset_of, step_of, window_of
from tests.domain.test_conformance_armies import block
from tests.domain.test_powers_resistance_decisions import Table
from tests.domain.world_helpers import HEXES

BATTLE = "b1"  # the battle Field's helpers act on


def soft(**kw) -> dict:
    """No armor, Defense 3: every hit wounds."""
    return block(**{"defense": 3, "armor": 0, "rank": 2, **kw})


def battle(armies: dict[str, tuple[str, int, dict]], **setups: list[str]) -> Field:
    """North declares against south with these ``army -> (power, units, block)`` in the hex; each power sets up
    the armies named; the battle is at round 1's Commands step."""
    f = Field({aid: (power, HEX, units, stats) for aid, (power, units, stats) in armies.items()})
    f.declare()
    for power, order in setups.items():
        f.setup(power, order)
    f.pass_to("commands", 1)
    return f


def battle_refused(f: Field, who: str, command, rule: str) -> str:
    """The battle command is refused naming ``rule``, and nothing is recorded."""
    before = f.game().version
    with pytest.raises(RuleViolation) as info:
        f.run(who, command)
    assert info.value.rule == rule, info.value.message
    assert f.game().version == before
    return info.value.message


def test_p_dice_2_the_pool_is_the_sum_of_the_ranks_less_the_assured_dice():
    """P-DICE-2: "pool = Σ rank(asset) over the chosen assets. The roll is that many d6, less the dice of assured
    assets, which do not roll." [003:30] "roll a number of d6 equal to the sum of the ranks of those assets".
    Lore 2 + a spy 1 roll three dice; an assured ring of 2 adds to the pool but rolls none. An asset of another
    power adds nothing: the pool is refused and nothing is rolled."""
    t = Table(("Circle", "conspiracy", "circle"), ("Gondor", "city", "sovereign"))
    lore = t.asset("circle", "lore", "skill", 2)
    spy = t.asset("circle", "Spy", "agent", 1)
    ring = t.asset("circle", "Ring", "item", 2, assured=True)
    theirs = t.asset("gondor", "Guard", "agent", 3)
    t.to_planning()
    picks = [{"asset_id": lore}, {"asset_id": spy}, {"asset_id": ring, "mode": "assured"}]
    rolled = t.run("circle", pc.SubmitAction("circle", "Study", assets=picks, convert=0), [6, 5, 2])
    assert (rolled["pool_size"], rolled["faces"], rolled["successes"]) == (5, [6, 5, 2], 2 + 2)
    assert [d["asset"] for d in rolled["dice"]] == [lore, lore, spy]
    t.refused(
        "circle", pc.SubmitAction("circle", "Borrow", assets=[{"asset_id": lore}, {"asset_id": theirs}]), "P-ASSET-1"
    )


def test_p_dice_5_conversions_chosen_with_the_roll_stand_when_the_sealed_difficulty_is_revealed():
    """P-DICE-5: "The number of 3s and 4s converted is fixed at roll time, before any hidden difficulty is
    revealed ... An amendment after a difficulty is revealed must be impossible." [003:34]. The GM seals a
    difficulty of 2; the roll [5, 4, 3] converts one: 2 successes, 1 consequence, a success once revealed. A
    proposed action rolled with its conversions left open may fix them once; a second change is refused."""
    t = Table(("Circle", "conspiracy", "circle"))
    lore = t.asset("circle", "lore", "skill", 3)
    t.to_planning()
    plot = t.act("circle", None, title="Plot", roll=False)
    t.run("gm", pc.SetDifficulty(plot, 2, sealed=True))
    rolled = t.run("circle", pc.RollAction(plot, [{"asset_id": lore}], convert=1), [5, 4, 3])
    assert (rolled["locked"], rolled["successes"], rolled["consequences"]) == (True, 2, 1)
    t.refused("circle", pc.LockConversions(plot, convert=2), "P-DICE-5")
    t.refused("circle", pc.RollAction(plot, [{"asset_id": lore}]), "P-DICE-5")
    open_ = t.act("circle", [4, 3, 1], title="Open", assets=[{"asset_id": t.asset("circle", "Spy", "agent", 3)}])
    locked = t.run("circle", pc.LockConversions(open_, convert=2))
    assert (locked["locked"], locked["successes"], locked["consequences"]) == (True, 2, 2)
    t.refused("circle", pc.LockConversions(open_, convert=0), "P-DICE-5")
    t.resolve()
    result = t.action(plot)["result"]
    assert (result["successes"], result["success"], t.action(plot)["consequences"]) == (2, True, 1)


def test_p_dice_6_an_assured_asset_adds_its_rank_and_rolls_no_dice():
    """P-DICE-6: "An assured asset of rank r adds r automatic successes and rolls no dice." [003:136] "An asset
    that is assured doesn't roll, instead providing that many successes automatically." A rank-3 assured guild
    used assured rolls nothing and gives 3; a rank-3 agent that is not assured cannot be used so."""
    t = Table(("Gondor", "city", "sovereign"))
    guild = t.asset("gondor", "Guild", "industry", 3, assured=True)
    spy = t.asset("gondor", "Spy", "agent", 3)
    t.to_planning()
    rolled = t.run(
        "gondor", pc.SubmitAction("gondor", "Build", slot="public", assets=[{"asset_id": guild, "mode": "assured"}])
    )
    assert (rolled["faces"], rolled["pool_size"], rolled["successes"], rolled["consequences"]) == ([], 3, 3, 0)
    err = t.refused(
        "gondor",
        pc.SubmitAction("gondor", "Spy", slot="public", assets=[{"asset_id": spy, "mode": "assured"}]),
        "P-DICE-6",
    )
    assert err.message == "'Spy' is not assured"


def test_p_dice_8_an_asset_both_assured_and_critical_gives_the_benefit_its_user_chooses_never_both():
    """P-DICE-8: "The user picks one of the two benefits, never both." [003:142] "If an asset would be both assured
    and critical its user applies a benefit of their choice, not both." A rank-2 ring, both: assured gives 2 and
    rolls nothing; critical rolls its 2 dice, [5, 1], and triples the one success; both is refused."""
    t = Table(("Circle", "conspiracy", "circle"))
    ring = t.asset("circle", "Ring", "item", 2, assured=True, critical=True)
    t.to_planning()
    assured = t.run("circle", pc.SubmitAction("circle", "Ward", assets=[{"asset_id": ring, "mode": "assured"}]))
    assert (assured["faces"], assured["successes"]) == ([], 2)
    critical = t.run(
        "circle",
        pc.SubmitAction("circle", "Strike", assets=[{"asset_id": ring, "mode": "critical"}], convert=0),
        [5, 1],
    )
    assert (critical["faces"], critical["successes"]) == ([5, 1], 3)
    err = t.refused(
        "circle", pc.SubmitAction("circle", "Both", assets=[{"asset_id": ring, "mode": "both"}]), "P-DICE-8"
    )
    assert "not both" in err.message


def test_p_asset_1_a_pool_holds_at_most_one_asset_of_each_class():
    """P-ASSET-1: "At most one asset per class in a challenge ... The service should reject a pool that contains
    two assets of the same class." A skill, an agent and an item together roll; a second agent is refused, and so
    is the same asset named twice."""
    t = Table(("Circle", "conspiracy", "circle"))
    lore = t.asset("circle", "lore", "skill", 1)
    spy = t.asset("circle", "Spy", "agent", 1)
    thief = t.asset("circle", "Thief", "agent", 1)
    ring = t.asset("circle", "Ring", "item", 1)
    t.to_planning()
    picks = [{"asset_id": lore}, {"asset_id": spy}, {"asset_id": ring}]
    rolled = t.run("circle", pc.SubmitAction("circle", "Heist", assets=picks, convert=0), [6, 5, 1])
    assert (rolled["pool_size"], rolled["successes"]) == (3, 2)
    err = t.refused(
        "circle", pc.SubmitAction("circle", "Two", assets=[{"asset_id": spy}, {"asset_id": thief}]), "P-ASSET-1"
    )
    assert "only one agent" in err.message
    t.refused(
        "circle", pc.SubmitAction("circle", "Twice", assets=[{"asset_id": ring}, {"asset_id": ring}]), "P-ASSET-1"
    )


def test_p_asset_3_an_action_uses_one_skill_its_tag_and_a_reaction_answers_subtlety_with_vigilance():
    """P-ASSET-3: "A power uses at most one skill per action. An action carrying a skill tag can use only that
    skill. A reaction must use the same skill as the action it answers, except that Subtlety is always resisted
    with Vigilance and vice versa." A subtlety action uses subtlety, not lore, nor two skills; Gondor resists it
    with vigilance, never with subtlety."""
    t = Table(("Circle", "conspiracy", "circle"), ("Gondor", "city", "sovereign"))
    sub = t.asset("circle", "subtlety", "skill", 2)
    lore = t.asset("circle", "lore", "skill", 2)
    g_sub = t.asset("gondor", "subtlety", "skill", 2)
    g_vig = t.asset("gondor", "vigilance", "skill", 1)
    t.to_planning()
    err = t.refused(
        "circle", pc.SubmitAction("circle", "Sneak", skill="subtlety", assets=[{"asset_id": lore}]), "P-ASSET-3"
    )
    assert "only the subtlety skill" in err.message
    t.refused(
        "circle",
        pc.SubmitAction("circle", "Sneak", skill="subtlety", assets=[{"asset_id": sub}, {"asset_id": lore}]),
        "P-ASSET-3",
    )
    sneak = t.act(
        "circle", [6, 6], title="Sneak", skill="subtlety", targets=["gondor"], resistible=True,
        assets=[{"asset_id": sub}], convert=0,
    )  # fmt: skip
    t.resolve()
    err = t.refused("gondor", pc.DeclareReaction("gondor", sneak, [{"asset_id": g_sub}]), "P-ASSET-3")
    assert "must use vigilance" in err.message
    assert t.resist("gondor", sneak, [5], [g_vig])["successes"] == 1


def test_p_asset_4_in_a_dungeon_delve_joins_one_other_skill():
    """P-ASSET-4: "In a dungeon challenge, Delve may be used together with one other skill." Delve and might roll
    together in a dungeon; might and lore do not, nor delve with two others, nor two skills outside one."""
    t = Table(("Hero", "champion", "paragon"))
    delve = t.asset("hero", "delve", "skill", 1)
    might = t.asset("hero", "might", "skill", 2)
    lore = t.asset("hero", "lore", "skill", 1)
    t.to_planning()
    both = [{"asset_id": delve}, {"asset_id": might}]
    rolled = t.run("hero", pc.SubmitAction("hero", "Floor 1", assets=both, dungeon=True, convert=0), [6, 5, 2])
    assert (rolled["pool_size"], rolled["successes"]) == (3, 2)
    t.refused(
        "hero",
        pc.SubmitAction("hero", "Floor 2", assets=[{"asset_id": might}, {"asset_id": lore}], dungeon=True),
        "P-ASSET-4",
    )
    t.refused("hero", pc.SubmitAction("hero", "Floor 2", assets=[*both, {"asset_id": lore}], dungeon=True), "P-ASSET-4")
    t.refused("hero", pc.SubmitAction("hero", "Street", assets=both), "P-ASSET-3")


def test_p_res_2_reactions_are_declared_while_the_window_is_open_and_an_extension_keeps_it_open():
    """P-RES-2: "It opens when the resolution is published and closes after 24 h by default. The GM may grant a
    per-power extension." Before the Resolution is published a reaction is refused; within the 24 hours it is
    declared; after them it is refused, unless the GM extended that power's window."""
    t = Table(("Smaug", "champion", "dragon"), ("Gondor", "city", "sovereign"), ("Rohan", "city", "sovereign"))
    might = t.asset("smaug", "might", "skill", 1)
    g_might = t.asset("gondor", "might", "skill", 1)
    r_might = t.asset("rohan", "might", "skill", 1)
    t.to_planning()
    burn = t.act(
        "smaug", [6], title="Burn", slot="public", targets=["gondor", "rohan"], resistible=True,
        assets=[{"asset_id": might}], convert=0,
    )  # fmt: skip
    t.refused("gondor", pc.DeclareReaction("gondor", burn, [{"asset_id": g_might}]), "P-RES-2")
    t.run("gm", pc.Advance("planning"))
    t.refused("gondor", pc.DeclareReaction("gondor", burn, [{"asset_id": g_might}]), "P-RES-2")
    t.run("gm", pc.Resolve("resolution"))
    window = t.window("resistance")
    t.later(20)
    t.run("rohan", RequestExtension("rohan", 12.0, reason="the riders are far"))
    t.run("gm", GrantExtension(next(iter(window_of(t.games.get_game(t.gid), window)["requests"]))))
    t.later(23)
    assert t.resist("gondor", burn, [1], [g_might])["successes"] == 0
    t.later(25)
    err = t.refused("gondor", pc.WaiveReactions("gondor"), "P-RES-2")
    assert err.field == "deadline"
    assert t.resist("rohan", burn, [5], [r_might])["successes"] == 1  # its window runs to 36 hours
    assert t.action(burn)["result"]["resisted"] == 1


def test_p_res_3_a_resister_resists_alone_with_its_own_assets():
    """P-RES-3: "The resister's pool may contain only its own assets." [003:304] "you must resist alone. You cannot
    receive assistance or assets from other powers." Gondor resists with its own might; Rohan's might, held by
    another power, and an action spent as an asset are refused, and nothing is recorded."""
    t = Table(("Smaug", "champion", "dragon"), ("Gondor", "city", "sovereign"), ("Rohan", "city", "sovereign"))
    might = t.asset("smaug", "might", "skill", 2)
    g_might = t.asset("gondor", "might", "skill", 2)
    r_might = t.asset("rohan", "might", "skill", 2)
    t.to_planning()
    burn = t.act(
        "smaug", [6, 5], title="Burn", slot="public", skill="might", targets=["gondor"], resistible=True,
        difficulty=1, assets=[{"asset_id": might}], convert=0,
    )  # fmt: skip
    t.resolve()
    err = t.refused("gondor", pc.DeclareReaction("gondor", burn, [{"asset_id": r_might}]), "P-RES-3")
    assert "a resister uses only its own assets" in err.message
    t.refused("gondor", pc.DeclareReaction("gondor", burn, [{"asset_id": "action"}]), "P-RES-3")
    assert t.resist("gondor", burn, [6, 2], [g_might])["successes"] == 1
    result = t.action(burn)["result"]
    assert (result["successes"], result["resisted"], result["net"], result["success"]) == (2, 1, 1, True)


def test_p_dev_1_fame_is_spent_during_tidings_and_refused_in_the_months():
    """P-DEV-1: "When fame can be spent. Only during Tidings." [003:241] "At the start of each season, during
    Tidings, powers may spend fame on new skills, new skill ranks and new perks." In Tidings Gondor buys lore for 2
    fame; in Planning the next purchase is refused and its fame stays."""
    t = Table(("Gondor", "city", "sovereign"))
    t.run("gm", dev.AwardFame("gondor", 10, "helped the GM"))
    t.run("gm", pc.Advance("setup"))
    assert t.view("gm")["game"]["step"] == "tidings"
    receipt = t.run("gondor", dev.BuyDevelopment("gondor", "skill", "lore"))
    assert receipt["price"] == 2
    assert "lore" in [a["name"] for a in t.view("gondor")["me"]["assets"]]
    t.run("gm", pc.Advance("tidings"))
    err = t.refused("gondor", dev.BuyDevelopment("gondor", "skill", "craft"), "P-DEV-1")
    assert "Tidings" in err.message
    assert t.view("gondor")["development"]["mine"]["wallet"]["fame"] == 8


def test_p_bat_1_a_combat_check_rolls_a_die_for_each_active_unit_and_each_status_die():
    """P-BAT-1: "Roll n dice, where n = the army's active units plus or minus status dice. Each die adds the
    attribute's static bonus. Count the dice that are ≥ the threshold." [003:604]. Three units slay (+1 static,
    P-AMB-12) against Defense 3: [2, 1, 6] is 3, 2 and 7, two successes. A unit routed at Cleanup rolls no more;
    Strengthened 1 adds an attack die: three dice again, and [1, 1, 1] scores nothing."""
    f = battle({"x": ("north", 3, sturdy()), "y": ("south", 3, soft())}, north=["x"], south=["y"])
    f.command("south", "y", "rest")
    hit = f.command("north", "x", "slay", [2, 1, 6], [6, 6, 6], target="y")["hit"]  # then y's morale check
    assert (hit["threshold"], hit["successes"], sum(hit["wounds"])) == (3, 2, 2)
    f.pass_to("cleanup", 1)
    f.run("north", pb.RetreatArmies(BATTLE, "north", [], {"x": [0]}))
    f.run("south", pb.RetreatArmies(BATTLE, "south"))
    f.pass_to("commands", 2)
    assert next(a["size"] for a in f.view("gm")["armies"] if a["army_id"] == "x") == 2
    f.run("gm", pb.SetBattleStatus(BATTLE, "x", "Strengthened", 1, "a war-song"))
    f.command("south", "y", "rest")
    out = f.command("north", "x", "slay", [1, 1, 1], target="y")
    assert (out["rolls"], out["hit"]["successes"]) == ([[1, 1, 1]], 0)


def test_p_bat_4_a_unit_dies_at_its_second_wound_and_an_army_without_units_is_destroyed():
    """P-BAT-4: "A unit dies when it reaches 2 wounds ... "Size" = active units ... An army is destroyed when its
    last unit is lost." [003:612]. Bloodlust puts both wounds of [6, 6] on Y's first unit: it dies, Y's size is 1;
    the next round the last unit dies and Y is destroyed: it can no longer be attacked (nor commanded)."""
    f = battle(
        {"x": ("north", 2, soft(keywords=["bloodlust"])), "y": ("south", 2, soft()), "z": ("south", 3, sturdy())},
        north=["x"],
        south=["y", "z"],
    )
    hit = f.command("north", "x", "slay", [6, 6], target="y", allocation=[0, 0])["hit"]
    assert (list(hit["wounds"]), hit["slain"]) == ([2, 0], 1)
    assert f.army("y")["units"] == [{"wounds": 0, "routed": False}]
    f.command("south", "y", "rest")
    f.command("south", "z", "rest")
    f.pass_to("commands", 2)
    assert f.command("north", "x", "slay", [6, 6], target="y", allocation=[0, 0])["hit"]["slain"] == 1
    assert f.army("y")["units"] == [] and f.view("gm")["armies"][1]["size"] == 0
    battle_refused(f, "south", pb.GiveCommand(BATTLE, "south", "y", "rest"), "P-BAT-3")
    f.command("south", "z", "rest")
    f.pass_to("commands", 3)
    assert "name the target" in battle_refused(f, "north", pb.GiveCommand(BATTLE, "north", "x", "slay", "y"), "P-BAT-2")


def test_p_bat_10_a_battle_ends_after_its_seventh_round():
    """P-BAT-10: "A battle lasts at most 7 rounds." [003:651] "A battle ends when only one side has active armies
    remaining or at the end of 7 rounds." Two armies that only rest fight round 7 and the battle ends with no
    winner; a command after it is refused."""
    f = battle({"x": ("north", 3, sturdy()), "y": ("south", 3, sturdy())}, north=["x"], south=["y"])
    for round_no in range(1, 8):
        assert f.pass_to("commands", round_no)["round"] == round_no
        f.command("south", "y", "rest")
        f.command("north", "x", "rest")
    b = f.pass_to("ended")
    assert (b["round"], b["result"]["reason"], b["result"]["winner"]) == (7, "7 rounds fought", None)
    battle_refused(f, "north", pb.GiveCommand(BATTLE, "north", "x", "rest"), "P.1.3")


def test_p_bat_12_battle_statuses_change_targets_defense_and_wounds_then_tick_down():
    """P-BAT-12: "Burning: no armor gain; 1 Burn wound each cleanup. Vulnerable: −2 Defense. Flying: cannot be
    targeted by melee." Statuses "all tick down by 1" at Cleanup ([003:581]). A melee attack on the Flying Y is
    refused; on the Vulnerable Z (Defense 6 − 2) Slay's [3, 2] is 4 and 3, one success, soaked by armor. At
    Cleanup Burning X takes a wound that armor does not soak, and every status ticks down."""
    f = battle(
        {"x": ("north", 2, sturdy()), "y": ("south", 2, sturdy()), "z": ("south", 2, sturdy())},
        north=["x"],
        south=["y", "z"],
    )
    for army, status, stacks in (("y", "Flying", 1), ("z", "Vulnerable", 1), ("x", "Burning", 2)):
        f.run("gm", pb.SetBattleStatus(BATTLE, army, status, stacks, "the GM's ruling"))
    message = battle_refused(f, "north", pb.GiveCommand(BATTLE, "north", "x", "slay", "y"), "P-BAT-12")
    assert "Flying" in message
    hit = f.command("north", "x", "slay", [3, 2], target="z")["hit"]
    assert (hit["threshold"], hit["successes"], hit["armor_lost"], list(hit["wounds"])) == (4, 1, 1, [0, 0])
    f.command("south", "y", "rest")
    f.command("south", "z", "rest")
    armies = {a["army_id"]: a for a in f.pass_to("commands", 2)["armies"]}
    assert [u["wounds"] for u in armies["x"]["units"]] == [1, 0] and armies["x"]["armor"] == 4
    assert armies["x"]["statuses"]["Burning"] == 1
    assert armies["y"]["statuses"] == {} and armies["z"]["statuses"] == {}
    f.command("north", "x", "slay", [1, 1], target="y")  # no longer Flying


def test_p_bat_14_a_reinforcement_within_its_mobility_arrives_when_delayed_reaches_zero():
    """P-BAT-14: "An army with Delayed X arrives in the Deployment step once X reaches 0", X dropping by 1 at each
    round's Cleanup (P-AMB-44); [003:563] "Armies that are in nearby hexes (within their mobility) can also arrive
    to reinforce a battle ... marked with Delayed X, where X is their distance". R, one hex away, waits out round 1
    and is deployed in round 2; Far, two hexes away with mobility 1, is refused."""
    f = Field(
        {
            "x": ("north", HEX, 3, sturdy()),
            "r": ("north", "3,0", 2, sturdy(mobility=2)),
            "far": ("north", "4,0", 2, sturdy(mobility=1)),
            "y": ("south", HEX, 3, sturdy()),
        }
    )
    f.declare()
    message = battle_refused(
        f, "north", pb.SubmitBattleSetup(BATTLE, "north", ["x"], reinforcements=["far"]), "P-BAT-14"
    )
    assert "within its mobility" in message
    f.setup("north", ["x"], reinforcements=["r"])
    f.setup("south", ["y"])
    where = {a["army_id"]: (a["where"], a["statuses"]) for a in f.pass_to("commands", 1)["armies"]}
    assert where["r"] == ("delayed", {"Delayed": 1})
    f.command("south", "y", "rest")
    f.command("north", "x", "rest")
    where = {a["army_id"]: (a["where"], a["statuses"]) for a in f.pass_to("commands", 2)["armies"]}
    assert where["r"] == ("deployed", {})


def test_gm_3_the_gm_offers_the_consequences_once_locked_and_the_accepted_effects_apply():
    """GM-3: "Once the consequence count is locked, the GM writes a ConsequenceProposed with text and structured
    effects ... The player then either Accepts or Discards the action." [003:32] "You work with the GM to determine
    the form the consequences take." Before the conversions are locked, or with an effect of no known kind, the
    offer is refused; Despondent 2, accepted, is the power's status; accepted once only."""
    t = Table(("Circle", "conspiracy", "circle"))
    lore = t.asset("circle", "lore", "skill", 2)
    t.to_planning()
    plot = t.act("circle", [4, 6], title="Plot", assets=[{"asset_id": lore}])
    despondent = [{"kind": "status", "name": "Despondent", "stacks": 2}]
    t.refused("gm", pc.ProposeConsequence(plot, "Your spies grow weary", despondent), "GM-3")
    t.run("circle", pc.LockConversions(plot, convert=1))
    err = t.refused("gm", pc.ProposeConsequence(plot, "Banished", [{"kind": "banish"}]), "GM-3")
    assert err.field == "effects"
    cid = t.run("gm", pc.ProposeConsequence(plot, "Your spies grow weary", despondent))["consequence_id"]
    t.run("circle", pc.AcceptConsequence(plot, cid))
    assert t.view("circle")["me"]["statuses"] == {"Despondent": 2}
    t.refused("circle", pc.AcceptConsequence(plot, cid), "GM-3")


def test_gm_6_the_gm_rules_a_new_action_resistible_and_names_who_may_resist():
    """GM-6: "Whether a new action can be resisted, and who may resist: a field on the ruling; the service derives
    the list of eligible resisters." The Circle's new action is ruled resistible by Gondor: Gondor is offered the
    reaction and resists; Rohan, not named, may not; once the month is resolved no ruling is made."""
    t = Table(("Circle", "conspiracy", "circle"), ("Gondor", "city", "sovereign"), ("Rohan", "city", "sovereign"))
    lore = t.asset("circle", "lore", "skill", 2)
    g_lore = t.asset("gondor", "lore", "skill", 1)
    r_lore = t.asset("rohan", "lore", "skill", 1)
    t.to_planning()
    well = t.act("circle", [6, 5], title="Poison the well", skill="lore", assets=[{"asset_id": lore}], convert=0)
    t.run("gm", pc.SetRuling(well, resistible=True, resisters=["gondor"]))
    t.resolve()
    assert [n["action_id"] for n in t.view("gondor")["may_resist"]] == [well]
    assert t.view("rohan")["may_resist"] == []
    t.refused("rohan", pc.DeclareReaction("rohan", well, [{"asset_id": r_lore}]), "P-RES-1")
    t.refused("gm", pc.SetRuling(well, resistible=True, resisters=["rohan"]), "GM-6")
    assert t.resist("gondor", well, [5], [g_lore])["successes"] == 1
    result = t.action(well)["result"]
    assert (result["successes"], result["resisted"], result["net"]) == (2, 1, 1)


def _feature(t: Table, viewer: str, feature_id: str) -> dict:
    return next(f for f in t.view(viewer)["map"]["features"] if f["id"] == feature_id)


def test_p_feat_4_a_dungeon_floor_opens_when_the_one_above_is_cleared_and_a_ruin_loses_threat_by_excess():
    """P-FEAT-4: "Dungeon: floors of increasing difficulty; completing a floor reveals the next. Ruin: a Threat
    pool. Each action against it removes threat equal to its excess successes over the ruin's difficulty."
    Floor 2 is refused before floor 1 is cleared; [6, 6, 5] clears floor 1 (difficulty 3) and reveals floor 2 to
    the delver only. [6, 6, 6, 5] against the ruin's difficulty 2 removes 2 threat of 5."""
    tomb = {
        "id": "tomb", "kind": "dungeon", "name": "The Delian Tomb", "hex": "2,0", "public": True,
        "floors": [{"difficulty": 3, "reward": "An amulet"}, {"difficulty": 5, "reward": "Heavy armor"}],
    }  # fmt: skip
    ruin = {
        "id": "castle", "kind": "ruin", "name": "The Fallen Castle", "hex": "3,0", "public": True, "threat": 5,
        "difficulty": 2, "reward": "4 potions", "becomes": None,
    }  # fmt: skip
    t = Table(("Hero", "champion", "paragon"), ("Rival", "champion", "wizard"))
    might = t.asset("hero", "might", "skill", 4)
    delve = t.asset("hero", "delve", "skill", 3)
    t.run("gm", world.DeclareMap(HEXES, [], [tomb, ruin]))
    t.to_planning()
    floor = t.act("hero", [6, 6, 5], title="Floor", location="2,0", assets=[{"asset_id": delve}], convert=0)
    t.refused("hero", world.AimAction(floor, "delve", feature_id="tomb", floor=2), "P-FEAT-4")
    t.run("hero", world.AimAction(floor, "delve", feature_id="tomb", floor=1))
    clear = t.act("hero", [6, 6, 6, 5], title="Clear", location="3,0", assets=[{"asset_id": might}], convert=0)
    t.run("hero", world.AimAction(clear, "clear", feature_id="castle"))
    t.resolve()
    assert [f["difficulty"] for f in _feature(t, "hero", "tomb")["floors"]] == [3, 5]
    assert [f["difficulty"] for f in _feature(t, "rival", "tomb")["floors"]] == [3]
    assert _feature(t, "hero", "castle")["threat"] == 3


def test_p_town_3_an_industry_that_has_ceased_to_operate_lends_no_asset_to_a_challenge():
    """P-TOWN-3: "An industry with complexity greater than the town's population stops. If population < number of
    industries, industries stop in an order set by the senior claimant." [003:372] "industries cease to operate".
    Derop (population 1) has two farms: the first works and its asset joins Gondor's pool; the second, built
    later, has stopped, so its asset is refused naming the rule and nothing is recorded."""
    t = Table(("Gondor", "city", "sovereign"))
    first = t.asset("gondor", "Upper farm", "industry", 1, asset_id="farm-a")
    second = t.asset("gondor", "Lower farm", "industry", 1, asset_id="farm-b")
    derop = {"id": "derop", "name": "Derop", "hex": "0,0", "population": 1, "wealth": 2}
    farms = [{"id": f"f{k}", "kind": "farm", "town": "derop", "asset_id": f"farm-{k}"} for k in ("a", "b")]
    t.run("gm", world.DeclareMap(HEXES, [derop], farms))
    t.run("gm", world.SetClaim("derop", "gondor"))
    t.to_planning()
    assert t.view("gondor")["map"]["towns"][0]["stopped"] == ["fb"]
    sow = pc.SubmitAction("gondor", "Sow", slot="public", location="0,0", assets=[{"asset_id": first}], convert=0)
    assert t.run("gondor", sow, [5])["successes"] == 1
    reap = pc.SubmitAction("gondor", "Reap", slot="public", location="0,0", assets=[{"asset_id": second}])
    err = t.refused("gondor", reap, "P-TOWN-3")
    assert "ceased to operate" in err.message


def test_p_dice_3_fives_and_sixes_succeed_and_each_converted_three_or_four_costs_a_consequence():
    """P-DICE-3: "Faces 5 and 6 always count as successes. Faces 3 and 4 count only if the player converts them,
    and each conversion adds +1 consequence. Faces 1 and 2 never count." [003:30]. [6, 5, 4, 3, 2, 1]: converting
    the 4 (die 2) is 3 successes and 1 consequence; a 2 (die 4) cannot be converted, nor three of the two 3s and
    4s; converting both gives 4 successes and 2 consequences."""
    t = Table(("Circle", "conspiracy", "circle"))
    lore = t.asset("circle", "lore", "skill", 6)
    t.to_planning()
    one = t.act("circle", [6, 5, 4, 3, 2, 1], title="One", assets=[{"asset_id": lore}])
    err = t.refused("circle", pc.LockConversions(one, dice=[2, 4]), "P-DICE-3")
    assert err.field == "dice"
    locked = t.run("circle", pc.LockConversions(one, dice=[2]))
    assert (locked["successes"], locked["consequences"]) == (3, 1)
    assert [d["converted"] for d in locked["dice"]] == [False, False, True, False, False, False]
    two = t.act("circle", [6, 5, 4, 3, 2, 1], title="Two", assets=[{"asset_id": t.asset("circle", "Spy", "agent", 6)}])
    t.refused("circle", pc.LockConversions(two, convert=3), "P-DICE-3")
    locked = t.run("circle", pc.LockConversions(two, convert=2))
    assert (locked["successes"], locked["consequences"]) == (4, 2)


def test_gm_15_the_gm_approves_a_powers_own_design_whose_rank_is_computed_and_taught_to_it_alone():
    """GM-15: "Approving spell, ritual and item designs ... A design submission approved by the GM. Once approved,
    costs and ranks are computed automatically (P-MAG)." [003:511] "the magic of each power is too unique to
    teach". The Wizard's slow Emberfall, 2FF, is approved: rank 2 + 1 = 3, element Fire; the Wizard learns it, the
    Circle neither learns nor sees it, and a design never approved is taught to nobody."""
    t = Table(("Wiz", "champion", "wizard"), ("Circle", "conspiracy", "circle"))
    t.run("gm", m.DefineSpell("emberfall", "Emberfall", "slow", "2FF", for_power="wiz"))
    t.run("gm", m.TeachSpell("wiz", "emberfall"))
    [known] = t.view("wiz")["magic"]["powers"]["wiz"]["known"]
    assert (known["spell_id"], known["rank"], known["elements"]) == ("emberfall", 3, ["F"])
    err = t.refused("gm", m.TeachSpell("circle", "emberfall"), "GM-15")
    assert "too unique to teach" in err.message
    t.refused("gm", m.TeachSpell("wiz", "starfall"), "GM-15")
    assert "Emberfall" not in t.seen("circle")


def test_p_army_9_after_a_battle_routed_units_return_and_half_the_size_in_wounds_heal_at_cleanup():
    """P-ARMY-9: "Routed units return, and each army heals ⌊size/2⌋ wounds ... Orcs may keep scars." [003:653] "At
    the end of each season any routed units return and each army heals a number of wounds equal to half their
    size." In month 2's battle Y's Slay wounds three of X's four units and its morale check [1, 1, 1, 1] routs two;
    Y2 wounds both of the orcs' units. The battle over, the orcs keep their scars (a scar is refused to any army
    not of orcs); at Cleanup X's routed units are back and 2 of its 3 wounds are healed, the orcs' stay."""
    f = Field(
        {
            "x": ("north", HEX, 4, soft()),
            "o": ("north", HEX, 2, soft(ancestry="orcs")),
            "y": ("south", HEX, 3, sturdy()),
            "y2": ("south", HEX, 2, sturdy()),
        },
        months=2,
        month=2,
    )
    f.declare()
    f.setup("north", ["x", "o"])
    f.setup("south", ["y", "y2"])
    f.pass_to("commands", 1)
    assert f.command("south", "y", "slay", [6, 6, 6], [1, 1, 1, 1], target="x")["hit"]["routs_due"] == 2
    f.command("north", "x", "rest")
    f.command("south", "y2", "slay", [6, 6], [6, 6], target="o")
    f.command("north", "o", "rest")
    f.pass_to("cleanup", 1)
    f.run("north", pb.RetreatArmies(BATTLE, "north", ["x", "o"]))
    f.run("south", pb.RetreatArmies(BATTLE, "south"))
    assert f.view("gm")["step"] == "ended"
    assert [(u["wounds"], u["routed"]) for u in f.army("x")["units"]] == [(1, True), (1, True), (1, False), (0, False)]
    message = battle_refused(f, "south", pa.KeepScars("south", "y", True), "P-ARMY-9")
    assert "only orc armies" in message
    f.run("north", pa.KeepScars("north", "o", True))
    f.games.send(f.gid, "gm", pc.Advance())
    assert step_of(f.game()) == "cleanup"
    x = f.army("x")["units"]
    assert not any(u["routed"] for u in x) and sum(u["wounds"] for u in x) == 1
    assert [u["wounds"] for u in f.army("o")["units"]] == [1, 1]


def test_p_army_7_cowards_routed_from_a_battle_are_gathered_next_season_up_to_the_number_that_fled():
    """P-ARMY-7: "Units recovered = min(successes, units that fled). A power that previously controlled the units
    gets a +3 asset." [003:661]. North routs both of X's units at the battle's Cleanup: X disperses and North holds
    its former command, a rank-3 asset. In month 2 Gather Cowards is refused (X fled this season) and the command
    serves no other action; next season the command and a skill roll [6, 6, 5, 2]: 3 successes, 2 units back."""
    f = Field({"x": ("north", HEX, 2, sturdy()), "z": ("north", HEX, 2, sturdy()), "y": ("south", HEX, 3, sturdy())})
    f.declare()
    f.setup("north", ["x", "z"])
    f.setup("south", ["y"])
    f.pass_to("commands", 1)
    for power, army in (("south", "y"), ("north", "x"), ("north", "z")):
        f.command(power, army, "rest")
    f.pass_to("cleanup", 1)
    f.run("north", pb.RetreatArmies(BATTLE, "north", ["z"], {"x": [0, 1]}))
    f.run("south", pb.RetreatArmies(BATTLE, "south"))
    assert f.view("gm")["result"]["dispersed"] == ["x"]
    cowards = asset_of(f.game(), "x.cowards1")
    assert (cowards["rank"], cowards["holders"]) == (3, ["north"])
    f.games.send(f.gid, "gm", pc.Advance())  # month 2 Planning
    skill = f.run("gm", pc.GrantAsset("north", "command", "skill", 1))["asset_id"]
    rally = f.run("north", pc.SubmitAction("north", "Rally", slot="public", location=HEX, roll=False))["action_id"]
    battle_refused(f, "north", pa.AimArmyAction(rally, "gather", {"army_id": "x"}), "P-ARMY-7")
    battle_refused(f, "north", pc.RollAction(rally, [{"asset_id": "x.cowards1"}], convert=0), "P-ARMY-7")
    f.games.send(f.gid, "gm", pc.Advance())
    f.games.send(f.gid, "gm", pc.Resolve(announcement=""))
    for _ in range(3):
        f.games.send(f.gid, "gm", pc.Advance())  # Cleanup, Tidings, and season 2's first Planning
    gather = f.run("north", pc.SubmitAction("north", "Gather", slot="public", location=HEX, roll=False))["action_id"]
    f.run("north", pa.AimArmyAction(gather, "gather", {"army_id": "x"}))
    f.dice.push([6, 6, 5, 2])
    picks = [{"asset_id": "x.cowards1"}, {"asset_id": skill}]
    assert f.run("north", pc.RollAction(gather, picks, convert=0))["successes"] == 3
    f.games.send(f.gid, "gm", pc.Advance())
    f.games.send(f.gid, "gm", pc.Resolve(announcement=""))
    x = f.army("x")
    assert (len(x["units"]), x["controller"]) == (2, "north")
