"""The class catalogue and the partial rules (rules/ANALYSIS.md P.2.1-P.2.4, P.2.12) as conformance tests
named after their rule ids, with the dice given explicitly."""

from __future__ import annotations

import pytest

from application.service import Caller, Games
from domain.dice import FixedRoller, SeededRoller
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.powers import catalogue_commands as cc
from domain.powers import catalogue_rules as cr
from domain.powers import commands as pc
from domain.powers.game import Game
from domain.powers.verify import verify_events
from domain.powers.views import board_view
from projections.gamestore import event_data
from tests.domain.helpers import (
    NOW,
    SEED,
    action_of,
    asset_of,
    game_in_planning,
    later,
    refused,
    resolved_of,
    seen,
    sheet_of,
    step_of,
    submit,
)
from tests.domain.world_helpers import world_game
from tests.helpers import add_power


def names(events) -> list[str]:
    return [type(e).__name__ for e in events]


def export(events, gm: bool = False) -> list[dict]:
    """The events as an export a viewer downloads, numbered; the GM's carries versions, for the audit of roll
    numbers (gap-free under each seed)."""
    out = [{"seq": i, "type": type(e).__name__, "data": event_data(e)} for i, e in enumerate(events, start=1)]
    if gm:
        for item, e in zip(out, events):
            item["version"] = e.originator_version
    return out


def propose(g: Game, power: str, action_id: str, kind: str, params: dict, **kw):
    """Submit a class action without rolling it (its difficulty is set at submission)."""
    kw.setdefault("now", NOW)
    kw.setdefault("roller", FixedRoller())
    kw.setdefault("roll", False)
    return g.submit_class_action(power, action_id, kind, params, **kw)


def next_month(g: Game) -> None:
    """On to the next month's Planning, resolving this month and waiving every reaction."""
    g.advance(NOW, SEED)
    while step_of(g) != "planning":
        if step_of(g) == "resolution":
            g.resolve(now=NOW, roller=FixedRoller())
        elif step_of(g) == "resistance":
            for p in g.pending_resisters():
                g.waive_reactions(p, now=NOW)
        else:
            g.advance(NOW, SEED)


def to_resistance(g: Game) -> None:
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    assert step_of(g) == "resistance", step_of(g)


# ---------------------------------------------------------------- P-DICE-13: dice outside challenges


def test_p_dice_13_a_d10_roll_comes_from_the_committed_seed_and_verifies_like_any_roll():
    """[003:1262] "Roll an Xd10 attack..." and other fixed rolls: "The service must support these fixed
    rolls" (P-DICE-13), through the same committed dice as challenges, so a viewer checks them."""
    g = game_in_planning(("gm-power", "city", "sovereign"))
    g.submit_action("gm-power", "before", "Before", now=NOW, roller=SeededRoller(SEED), slot="public")
    out = g.roll_dice("r1", roller=SeededRoller(SEED), dice="3d10", public=True)
    g.submit_action("gm-power", "after", "After", now=NOW, roller=SeededRoller(SEED), slot="public")
    assert len(out["faces"]) == 3 and all(1 <= f <= 10 for f in out["faces"])
    assert out["total"] == sum(out["faces"])
    events = g.collect_events()
    rolled = [e for e in events if type(e).__name__ == "ExtraDiceRolled"]
    assert [(e.dice, e.sides, e.audience) for e in rolled] == [("3d10", 10, ["public"])]
    report = verify_events(export(events, gm=True))
    assert report.ok and report.rolls_verified == 3, report.mismatches  # roll numbers are gap-free with it
    forged = export(events)
    for item in forged:
        if item["type"] == "ExtraDiceRolled":
            item["data"]["faces"] = [f % 10 + 1 for f in item["data"]["faces"]]
    bad = verify_events(forged)
    assert not bad.ok and "its key gives" in bad.mismatches[0]


def test_p_dice_13_the_extractor_rolls_1d4_and_yields_on_4_or_more_specialized_adds_one():
    """[003:376] "roll 1d4. On a 4 or greater, gain an instance of the unique resource"; [003:384] +1."""
    g = game_in_planning(("sov", "city", "sovereign"))
    assert g.roll_dice("x1", roller=FixedRoller([4]), purpose="extractor", power_id="sov")["hits"] == 1
    assert g.roll_dice("x2", roller=FixedRoller([3]), purpose="extractor", power_id="sov")["hits"] == 0
    out = g.roll_dice("x3", roller=FixedRoller([3]), purpose="extractor", power_id="sov", params={"specialized": True})
    assert (out["values"], out["hits"]) == ([4], 1)
    rolled = [e for e in g.collect_events() if type(e).__name__ == "ExtraDiceRolled"]
    assert {tuple(e.audience) for e in rolled} == {("power:sov",)}  # the power's own roll, not the table's


def test_p_dice_13_a_college_rolls_1d4_for_its_insights_rank_and_a_random_build_rolls_d6s():
    """P-DICE-13: College [003:404] "When used, also gain an insight of rank 1d4." Random build [003:687] "you roll
    many d6 and just take the first three unique bonuses for each level" (the GM asks for as many as it takes)."""
    g = game_in_planning(("sov", "city", "sovereign"))
    out = g.roll_dice("c1", roller=FixedRoller([3]), purpose="college", power_id="sov")
    assert (out["dice"], out["values"], out["total"]) == ("1d4", [3], 3)
    out = g.roll_dice("rb", roller=FixedRoller([2, 2, 5, 1, 5, 6]), purpose="random_build", power_id="sov")
    assert (out["dice"], out["values"]) == ("6d6", [2, 2, 5, 1, 5, 6])
    out = g.roll_dice("rb2", roller=FixedRoller([4] * 9), purpose="random_build", params={"count": 9})
    assert out["dice"] == "9d6"
    refused(
        g,
        lambda: g.roll_dice("rb3", roller=FixedRoller([1]), purpose="random_build", params={"count": "many"}),
        "P-DICE-13",
    )


def test_p_dice_13_saboteurs_roll_one_d10_per_influence_in_the_hex_and_a_level_up_three_plus_excess():
    """[003:1262] "Xd10 ... where X is your influence in its hex"; level-up: 3 dice plus one per excess."""
    g = game_in_planning(("cause", "conspiracy", "cause"))
    g.set_influence("cause", "0,0", 3)
    assert (
        g.roll_dice("s", roller=FixedRoller([10, 1, 7]), purpose="saboteurs", power_id="cause", params={"hex": "0,0"})[
            "dice"
        ]
        == "3d10"
    )
    refused(
        g,
        lambda: g.roll_dice(
            "s2", roller=FixedRoller([1]), purpose="saboteurs", power_id="cause", params={"hex": "5,5"}
        ),
        "P-DICE-13",
    )
    out = g.roll_dice("lv", roller=FixedRoller([1, 2, 3, 4, 5]), purpose="level_up", params={"excess": 2})
    assert out["dice"] == "5d6"


def test_p_dice_13_a_roll_outside_a_month_or_of_an_unknown_shape_is_refused_and_records_nothing():
    g = Game.start("t", "GM")
    g.add_power("sov", "Sov", "city", "sovereign")
    g.advance(NOW, SEED)  # Tidings: no month seed is committed
    refused(g, lambda: g.roll_dice("r", roller=FixedRoller([2]), dice="1d4"), "P-DICE-13")
    g.advance(NOW, SEED)
    refused(g, lambda: g.roll_dice("r", roller=FixedRoller([2]), dice="d4 please"), "P-DICE-13")
    refused(g, lambda: g.roll_dice("r", roller=FixedRoller([2]), dice="1d1"), "P-DICE-13")
    refused(g, lambda: g.roll_dice("r", roller=FixedRoller([2]), purpose="tarot"), "P-DICE-13")


# ---------------------------------------------------------------- P-ACT-5: free actions


def _agents():
    g = game_in_planning(
        ("sov", "city", "sovereign"),
        assets=[("spy", "sov", "Spymaster", "agent", 2), ("thug", "sov", "Hired thug", "agent", 1)],
    )
    g.set_asset_terms("spy", {"loyal_to": "sov", "fee": 1})
    g.set_asset_terms("thug", {"fee": 1})
    return g


def test_p_act_5_executing_an_agent_in_your_power_costs_no_action_even_with_none_left():
    """[003:176] "Executing an agent in your power is a free action." Fear equal to its rank (P-ASSET-10)."""
    g = _agents()
    for k in range(4):
        submit(g, "sov", f"A{k}", [], slot="public")
    before = g.slots_used("sov")
    g.choose_control("sov", "fear")
    out = g.take_free_action("sov", "execute_agent", asset_id="spy")
    assert out["gained"] == {"fear": 2} and g.holdings("sov").wallet == {"fear": 5}
    assert g.slots_used("sov") == before
    assert asset_of(g, "spy") is None  # executed: on no sheet any more
    refused(g, lambda: g.take_free_action("sov", "execute_agent", asset_id="thug"), "P-ACT-5")  # not loyal


def test_p_act_5_negotiating_with_npcs_is_an_action_and_talking_to_players_is_nothing_to_record():
    """[003:24] "Communication with other players is not an action, but substantial negotiations to convince
    or coordinate with NPCs is an action." """
    g = _agents()
    err = refused(g, lambda: g.take_free_action("sov", "negotiate_npc", asset_id="spy"), "P-ACT-5")
    assert "is an action" in err.message
    refused(g, lambda: g.take_free_action("sov", "communicate", asset_id="spy"), "P-ACT-5")


def test_p_act_5_a_levy_is_disbanded_freely_only_in_its_origin_town():
    g = game_in_planning(("sov", "city", "sovereign"), assets=[("levy", "sov", "Derop levy", "army", 1)])
    g.set_asset_terms("levy", {"levy": True, "origin": "0,0", "hex": "1,0"})
    refused(g, lambda: g.take_free_action("sov", "disband_levy", asset_id="levy"), "P-ACT-5")
    g.set_asset_terms("levy", {"levy": True, "origin": "0,0", "hex": "0,0"})
    g.take_free_action("sov", "disband_levy", asset_id="levy")
    assert asset_of(g, "levy") is None  # disbanded: on no sheet any more


# ---------------------------------------------------------------- P-ACT-1: quotas that change in play


def test_p_act_1_a_paragon_who_starts_leading_an_army_takes_public_actions_from_then_on():
    """[003:1386] "You take 4 actions per month: they are public if you are leading any armies, and private
    otherwise." The slots already spent stay spent."""
    g = game_in_planning(("par", "champion", "paragon"))
    submit(g, "par", "P1", [])
    refused(g, lambda: submit(g, "par", "Px", [], slot="public"), "P-ACT-1")
    g.collect_events()
    g.change_quota_perk("par", "leading_army", True)
    changed = [e for e in g.collect_events() if type(e).__name__ == "QuotaChanged"]
    assert [e.audience for e in changed] == [["public"]]  # perks are public
    assert (sheet_of(g, "par")["quota"]["public"], sheet_of(g, "par")["quota"]["private"]) == (4, 0)
    submit(g, "par", "P2", [], slot="public")
    err = refused(g, lambda: submit(g, "par", "P3", [], slot="private"), "P-ACT-1")
    assert "no private actions" in err.message
    submit(g, "par", "P3", [], slot="public")
    submit(g, "par", "P4", [], slot="public")
    refused(g, lambda: submit(g, "par", "P5", [], slot="public"), "P-ACT-2")  # four a month in all


def test_p_act_1_subtle_titan_gained_in_play_makes_half_a_dragons_actions_private():
    """[003:1354] "Subtle Titan: ... half of your monthly actions become private"."""
    g = game_in_planning(("dra", "champion", "dragon"))
    refused(g, lambda: submit(g, "dra", "D1", [], slot="private"), "P-ACT-1")
    assert g.change_quota_perk("dra", "subtle_titan", True) == {"public": 2, "private": 2}
    submit(g, "dra", "D1", [], slot="private")
    refused(g, lambda: g.change_quota_perk("dra", "leading_army", True), "P-ACT-1")  # a Paragon's, not a Dragon's


# ---------------------------------------------------------------- P-RES-1, P-ACT-2: extra reactions


def _attacked(defender_opts: dict, *assets, defender: tuple[str, str] = ("city", "sovereign")):
    g = game_in_planning(
        ("a", "champion", "dragon"),
        ("b", *defender, defender_opts),
        assets=[("b-might", "b", "might", "skill", 2), *assets],
    )
    for k in (1, 2):
        submit(g, "a", f"A{k}", [], slot="public", targets=["b"], resistible=True, difficulty=0)
    to_resistance(g)
    return g


def test_p_act_2_desperate_reaction_borrows_an_action_from_next_month():
    """[003:875] "You can use up to one additional reaction each month by spending an action from the next
    month." The budget of next month is debited in advance (P-ACT-2)."""
    g = _attacked({"desperate_reaction": True})
    g.declare_reaction("b", "r1", "A1", now=later(1), roller=FixedRoller([5, 2]), assets=[{"asset_id": "b-might"}])
    assert step_of(g) == "resistance"  # the perk could still buy a reaction: the window waits
    refused(
        g,
        lambda: g.declare_reaction("b", "r2", "A2", now=later(2), roller=FixedRoller([5, 5]), assets=[]),
        "P-RES-1",
    )
    g.gain_extra_reaction("b", "desperate_reaction", now=later(2))
    refused(g, lambda: g.gain_extra_reaction("b", "desperate_reaction", now=later(2)), "P-RES-1")  # once a month
    g.declare_reaction("b", "r2", "A2", now=later(2), roller=FixedRoller([]), assets=[])
    assert [(r["reaction_id"], r["power"]) for r in seen(g)["reactions"]] == [("r1", "b"), ("r2", "b")]
    assert sheet_of(g, "b")["reactions_left"] == 0 and step_of(g) == "battle"
    g.advance(later(3), SEED)
    assert (seen(g)["game"]["month"], sheet_of(g, "b")["quota"]["lost_this_month"]) == (2, 1)
    for k in range(3):
        submit(g, "b", f"B{k}", [], slot="public", now=later(3))
    refused(g, lambda: submit(g, "b", "B4", [], slot="public", now=later(3)), "P-ACT-2")
    assert seen(g, "b")["catalogue"]["extra_reactions"] == []  # the extra reaction was for last month only
    assert sheet_of(g, "b")["reactions_left"] == 1


def test_p_res_1_each_perk_buys_at_most_one_extra_reaction_a_month_and_is_paid_for():
    """[003:883] Prepared Reaction spends a scheme ("The scheme does not apply as an asset to the resistance
    roll"); [003:911] Mystic Reactions an A mana; each "up to one additional" a month; no perk, none."""
    g = _attacked(
        {"prepared_reaction": True, "mystic_reactions": True},
        ("plan", "b", "scheme", "scheme", 2),
        defender=("conspiracy", "circle"),  # a Circle stores mana ([003:1155]): a Sovereign no Air
    )
    refused(g, lambda: g.gain_extra_reaction("b", "desperate_reaction", now=later(1)), "P-RES-1")  # not its perk
    refused(g, lambda: g.gain_extra_reaction("b", "mystic_reactions", now=later(1)), "P-RES-1")  # no A mana
    g.grant_mana("b", "A", 1)
    g.gain_extra_reaction("b", "mystic_reactions", now=later(1))
    assert sheet_of(g, "b")["mana"] == {}
    refused(g, lambda: g.gain_extra_reaction("b", "mystic_reactions", now=later(1)), "P-RES-1")  # once a month
    refused(g, lambda: g.gain_extra_reaction("b", "prepared_reaction", now=later(1)), "P-RES-1")  # no scheme named
    g.gain_extra_reaction("b", "prepared_reaction", now=later(1), scheme_id="plan")
    assert asset_of(g, "plan")["used_up"]
    assert seen(g, "b")["catalogue"]["extra_reactions"] == ["mystic_reactions", "prepared_reaction"]
    assert sheet_of(g, "b")["reactions_left"] == 3
    refused(
        g,
        lambda: g.declare_reaction("b", "r", "A1", now=later(2), roller=FixedRoller([]), assets=[{"asset_id": "plan"}]),
        "P-ASSET-8",
    )


# ---------------------------------------------------------------- P-RES-7: reactions that are not resistances


def test_p_res_7_the_celestials_teleport_home_uses_the_reaction_without_resisting_anything():
    """[003:1028] "you can teleport back to your capitol as a reaction if needed": a reaction, no dice."""
    g = game_in_planning(("a", "champion", "dragon"), ("cel", "city", "celestial"), ("sov", "city", "sovereign"))
    submit(g, "a", "A1", [], slot="public", targets=["cel", "sov"], resistible=True, difficulty=0)
    to_resistance(g)
    out = g.use_reaction("cel", "tp", "teleport_home", now=later(1), roller=FixedRoller(), trigger="A1")
    assert out["kind"] == "teleport_home"
    assert list(seen(g, "cel")["catalogue"]["triggered_reactions"]) == ["tp"] and seen(g)["reactions"] == []
    assert sheet_of(g, "cel")["reactions_left"] == 0
    refused(g, lambda: g.declare_reaction("cel", "r", "A1", now=later(2), roller=FixedRoller([]), assets=[]), "P-RES-1")
    refused(g, lambda: g.use_reaction("sov", "x", "teleport_home", now=later(2), roller=FixedRoller()), "P-RES-7")
    g.waive_reactions("sov", now=later(2))
    assert action_of(g, "A1")["result"]["resisted"] == 0  # nothing was subtracted


def test_p_res_7_a_satellite_shrines_removal_answers_an_action_and_uses_the_reaction():
    """P-RES-7: "Some reaction uses are triggered responses rather than dice subtractions: ... Satellite Shrine
    removal ([003:1056])." [003:1056] "They are an action to remove, and when they are removed in a town where you
    maintain a claim, you can react." It answers a named action, rolls nothing, subtracts nothing, and is a
    Celestial's."""
    g = game_in_planning(("a", "champion", "dragon"), ("cel", "city", "celestial"), ("sov", "city", "sovereign"))
    submit(g, "a", "A1", [], slot="public", targets=["cel"], resistible=True, difficulty=0)
    to_resistance(g)
    refused(g, lambda: g.use_reaction("cel", "s0", "satellite_shrine", now=later(1), roller=FixedRoller()), "P-RES-7")
    refused(
        g,
        lambda: g.use_reaction("sov", "s1", "satellite_shrine", now=later(1), roller=FixedRoller(), trigger="A1"),
        "P-RES-7",
    )
    out = g.use_reaction("cel", "s2", "satellite_shrine", now=later(1), roller=FixedRoller(), trigger="A1")
    assert out == {"reaction_id": "s2", "kind": "satellite_shrine"}
    assert list(seen(g, "cel")["catalogue"]["triggered_reactions"]) == ["s2"] and seen(g)["reactions"] == []
    assert sheet_of(g, "cel")["reactions_left"] == 0
    assert action_of(g, "A1")["result"]["resisted"] == 0


def test_p_res_7_gate_guardians_roll_against_the_mustering_armys_fee_and_the_excess_is_their_size():
    """[003:1232] "The difficulty is equal to the army's fee, and the number of excess successes is the size
    of the army." Only a Cult has it."""
    g = game_in_planning(
        ("a", "city", "overlord"),
        ("cult", "conspiracy", "cult"),
        ("cel", "city", "celestial"),
        assets=[("lore", "cult", "might", "skill", 4)],
    )
    submit(g, "a", "Muster", [], slot="public", targets=["cult", "cel"], resistible=True, difficulty=0)
    to_resistance(g)
    bad = {"trigger": "Muster", "fee": 1}
    refused(
        g, lambda: g.use_reaction("cel", "g2", "gate_guardians", now=later(1), roller=FixedRoller(), **bad), "P-RES-7"
    )
    out = g.use_reaction(
        "cult",
        "gg",
        "gate_guardians",
        now=later(1),
        roller=FixedRoller([6, 5, 4, 1]),
        trigger="Muster",
        fee=2,
        assets=[{"asset_id": "lore"}],
        convert=1,
    )
    assert (out["successes"], out["success"], out["guardians"]) == (3, True, 1)
    events = g.collect_events()
    used = [e for e in events if type(e).__name__ == "ReactionUsed"]
    assert [e.audience for e in used] == [["power:cult"]]


def test_p_res_7_a_gate_guardians_roll_comes_from_the_committed_seed_and_verifies():
    g = game_in_planning(
        ("a", "city", "overlord"), ("cult", "conspiracy", "cult"), assets=[("s", "cult", "might", "skill", 3)]
    )
    submit(g, "a", "Muster", [], slot="public", targets=["cult"], resistible=True, difficulty=0)
    to_resistance(g)
    g.use_reaction(
        "cult",
        "gg",
        "gate_guardians",
        now=later(1),
        roller=SeededRoller(SEED),
        trigger="Muster",
        fee=1,
        assets=[{"asset_id": "s"}],
    )
    events = g.collect_events()
    report = verify_events(export(events))
    assert report.ok and report.rolls_verified == 2, report.mismatches  # the muster's (empty) roll and the guardians'
    forged = export(events)
    for item in forged:
        if item["type"] == "ReactionUsed":
            item["data"]["pool"]["dice"][0]["face"] = item["data"]["pool"]["dice"][0]["face"] % 6 + 1
    assert not verify_events(forged).ok


# ---------------------------------------------------------------- P-ACT-6: duel


def _duel(declared: str, faces: list[int]):
    g = game_in_planning(
        ("gandalf", "champion", "wizard"),
        ("saruman", "champion", "wizard"),
        assets=[("might", "gandalf", "might", "skill", 3)],
    )
    g.record_location("saruman", "3,-1")
    g.submit_duel(
        "gandalf",
        "duel",
        "saruman",
        declared,
        now=NOW,
        roller=FixedRoller(faces),
        assets=[{"asset_id": "might"}],
        convert=0,
        skill="might",
    )
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    return g


def test_p_act_6_a_duel_declared_where_the_target_is_not_is_lost():
    """[003:54] "You must declare the target's location at the time of the attack; if you declare
    incorrectly, the action is lost. ... Difficulty: 1." """
    g = _duel("0,0", [6, 6, 6])
    duel = resolved_of(g, "duel")
    assert (duel["status"], duel["success"], duel["net"]) == ("resolved", False, 0)
    lost = [e for e in g.collect_events() if type(e).__name__ == "ActionLost"]
    assert [(e.action_id, e.audience) for e in lost] == [("duel", ["power:gandalf"])]
    assert "3,-1" not in lost[0].reason  # the attacker is not told where the target was


def test_p_act_6_a_duel_at_the_right_place_is_difficulty_1_and_the_target_may_resist():
    g = _duel("3,-1", [6, 2, 1])
    duel = action_of(g, "duel")
    assert (duel["status"], duel["difficulty"], duel["resistible"], duel["targets"]) == (
        "provisional",
        1,
        True,
        ["saruman"],
    )
    assert g.pending_resisters() == ["saruman"]


# ---------------------------------------------------------------- P-DICE-12: perks that ignore consequences


@pytest.mark.parametrize(
    ("taken", "kinds", "perks", "effective"),
    [
        (0, ["duel"], {"confident_duelist": True}, 0),
        (1, ["duel"], {"confident_duelist": True}, 0),
        (4, ["duel"], {"confident_duelist": True}, 3),
        (5, ["duel"], {"confident_duelist": True}, 3),
        (6, ["duel"], {"confident_duelist": True}, 4),
        (3, ["negotiation"], {"confident_duelist": True}, 3),  # the perk covers duels only
        (3, ["negotiation"], {"confident_negotiator": True}, 2),
        (1, ["summoning"], {"flexible_summoning": True}, 1),
        (2, ["summoning"], {"flexible_summoning": True}, 1),
        (5, ["summoning"], {"flexible_summoning": True}, 4),
    ],
)
def test_p_dice_12_perks_ignore_the_consequences_they_name(taken, kinds, perks, effective):
    """[003:867] "When Dueling, you ignore your 1st and 5th consequences." [003:1228] "Ignore the second
    consequence on challenges to produce these armies." """
    assert cr.effective_consequences(taken, kinds, perks) == effective


def test_p_dice_12_a_confident_duelists_duel_counts_its_consequences_without_the_first():
    g = game_in_planning(
        ("gandalf", "champion", "wizard", {"confident_duelist": True}),
        ("balrog", "champion", "wizard"),
        assets=[("might", "gandalf", "might", "skill", 3)],
    )
    g.submit_duel(
        "gandalf", "duel", "balrog", "0,0", now=NOW, roller=FixedRoller([4, 3, 1]), assets=[{"asset_id": "might"}]
    )
    g.lock_conversions("duel", now=NOW, convert=2)
    duel = action_of(g, "duel")
    assert (duel["consequences"], duel["effective_consequences"]) == (2, 1)
    mine = board_view(g, "gandalf")["my_actions"][0]
    assert (mine["consequences"], mine["effective_consequences"]) == (2, 1)


# ---------------------------------------------------------------- P-ACT-7: seeking


@pytest.mark.parametrize(
    ("successes", "broad", "named", "found"),
    [
        (0, False, None, set()),
        (1, False, None, {"influence"}),
        (1, False, "hidden_army", {"influence", "hidden_army"}),  # one assured success against the thing named
        (2, False, "creature", {"influence", "hidden_army", "creature"}),
        (3, False, None, {"influence", "hidden_army", "creature", "hidden_object"}),
        (1, True, None, set()),
        (2, True, None, {"influence"}),
        (5, True, None, {"influence", "hidden_army"}),
        (6, True, None, {"influence", "hidden_army", "creature", "hidden_object"}),
    ],
)
def test_p_act_7_seeking_thresholds_are_1_2_3_doubled_for_broad_seeking(successes, broad, named, found):
    """[003:58] "Influence is detected on one success, hidden armies on two successes, and any creatures or
    hidden objects are uncovered on 3 successes." [003:60] Broad: "the difficulty ... is doubled"."""
    detected = cr.seeking_detects(successes, broad, named)
    assert {k for k, v in detected.items() if v} == found


def test_p_act_7_seeking_cannot_be_resisted_and_reports_what_it_uncovered_over_its_area():
    """[003:58] "Cannot be resisted." [003:60] Broad Seeking "covers a hex and all surrounding hexes"."""
    g = game_in_planning(
        ("circ", "conspiracy", "circle"),
        ("sov", "city", "sovereign"),
        assets=[("eye", "circ", "vigilance", "skill", 4)],
    )
    refused(
        g,
        lambda: g.submit_seeking("circ", "s0", "0,0", now=NOW, roller=FixedRoller([6]), resistible=True),
        "P-ACT-7",
    )
    g.submit_seeking(
        "circ", "seek", "0,0", broad=True, now=NOW, roller=FixedRoller([6, 6, 5, 5]), assets=[{"asset_id": "eye"}]
    )
    refused(g, lambda: g.set_ruling("seek", resistible=True, resisters=["sov"]), "P-ACT-7")
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    outcome = [e for e in g.collect_events() if type(e).__name__ == "ClassActionOutcome"]
    assert len(outcome) == 1 and outcome[0].audience == ["power:circ"]
    out = outcome[0].outputs
    assert len(out["area"]) == 7 and "0,0" in out["area"]
    assert out["detected"] == {"influence": True, "hidden_army": True, "creature": False, "hidden_object": False}


# ---------------------------------------------------------------- P-RES-4: per-target resistance


def test_p_res_4_inquisition_applies_each_targets_resistance_to_that_target_only():
    """[003:955] "Affected conspiracies may react to reduce the number of successes applied to themselves. For
    each excess success, remove an influence. Gain Fear equal to the amount of influence removed." """
    g = game_in_planning(
        ("inq", "city", "sovereign", {"inquisition": True}),
        ("c1", "conspiracy", "circle"),
        ("c2", "conspiracy", "cult"),
        assets=[("law", "inq", "might", "skill", 4), ("c1-eye", "c1", "might", "skill", 3)],
    )
    g.choose_control("inq", "fear")
    g.submit_class_action(
        "inq",
        "inq1",
        "inquisition",
        {"hex": "0,0"},
        now=NOW,
        roller=FixedRoller([6, 6, 5, 5]),
        slot="public",
        targets=["c1", "c2"],
        assets=[{"asset_id": "law"}],
        convert=0,
    )
    to_resistance(g)
    g.declare_reaction("c1", "r1", "inq1", now=later(1), roller=FixedRoller([6, 5, 5]), assets=[{"asset_id": "c1-eye"}])
    g.collect_events()
    g.close_window("s1m1-resistance", now=later(24))
    events = g.collect_events()
    per = {e.target: (e.result, e.audience) for e in events if type(e).__name__ == "TargetResult"}
    assert per["c1"][0] == {"resisted": 3, "net": 1, "success": True, "excess": 1}
    assert per["c2"][0] == {"resisted": 0, "net": 4, "success": True, "excess": 4}
    assert per["c1"][1] == ["power:c1", "power:inq"]  # each target learns its own share only
    inq = resolved_of(g, "inq1")
    assert (inq["net"], inq["resisted"]) == (4, 3)  # not 4 - 3 for everyone, as a summed resistance would give
    outcome = next(e for e in events if type(e).__name__ == "ClassActionOutcome")
    assert outcome.outputs == {"removed": {"c1": 1, "c2": 4}, "fear": 5}
    assert g.holdings("inq").wallet == {"fear": 8}  # 3 to start with and 5 for the influence removed


# ---------------------------------------------------------------- P-DICE-11: shared actions


def _shared():
    g = game_in_planning(
        ("a", "city", "overlord"),
        ("b", "conspiracy", "circle"),
        ("c", "champion", "dragon"),
        assets=[("a-skill", "a", "craft", "skill", 2), ("b-skill", "b", "craft", "skill", 2)],
    )
    submit(
        g,
        "a",
        "Build",
        [5, 5],
        slot="public",
        skill="craft",
        difficulty=4,
        collaborators=["b"],
        assets=[{"asset_id": "a-skill"}],
        convert=0,
    )
    return g


def test_p_dice_11_a_collaborator_spends_its_own_action_and_adds_its_own_pool():
    """[003:40] "Powers can combine their assets and resources for a shared action, though each must spend an
    action to do so. They roll their asset pools separately ... each power has final control and
    responsibility for consequences within their pool." Summed (P-AMB-43)."""
    g = _shared()
    out = g.join_action(
        "b", "Build", now=NOW, roller=FixedRoller([6, 3]), assets=[{"asset_id": "b-skill"}], convert=1, slot="private"
    )
    assert out["successes"] == 2
    assert g.slots_used("b") == (0, 1)
    build = action_of(g, "Build")
    assert (build["successes"], build["consequences"], build["pool_size"]) == (4, 0, 4)  # a's pool took none; b's 1
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    build = resolved_of(g, "Build")
    assert (build["successes"], build["success"]) == (4, True)


def test_p_dice_11_a_collaborators_roll_comes_from_the_committed_seed_and_verifies():
    g = game_in_planning(
        ("a", "city", "overlord"), ("b", "conspiracy", "circle"), assets=[("b-skill", "b", "craft", "skill", 3)]
    )
    g.submit_action("a", "Build", "Build", now=NOW, roller=SeededRoller(SEED), slot="public", collaborators=["b"])
    g.join_action("b", "Build", now=NOW, roller=SeededRoller(SEED), assets=[{"asset_id": "b-skill"}])
    events = g.collect_events()
    report = verify_events(export(events))
    assert report.ok and report.rolls_verified == 2, report.mismatches  # a's (empty) roll and b's
    forged = export(events)
    for item in forged:
        if item["type"] == "ShareRolled":
            item["data"]["pool"]["dice"][0]["face"] = item["data"]["pool"]["dice"][0]["face"] % 6 + 1
    assert not verify_events(forged).ok


def test_p_dice_11_only_a_declared_collaborator_joins_and_only_once():
    g = _shared()
    g.join_action("b", "Build", now=NOW, roller=FixedRoller([6, 6]), assets=[{"asset_id": "b-skill"}])
    refused(g, lambda: g.join_action("b", "Build", now=NOW, roller=FixedRoller([6, 6]), assets=[]), "P-DICE-11")
    refused(g, lambda: g.join_action("c", "Build", now=NOW, roller=FixedRoller([]), assets=[]), "P-DICE-11")


def test_p_dice_11_a_collaborator_with_no_action_left_cannot_join():
    g = _shared()
    for k in range(4):
        submit(g, "b", f"B{k}", [])
    refused(g, lambda: g.join_action("b", "Build", now=NOW, roller=FixedRoller([]), assets=[]), "P-ACT-1")


def test_p_dice_11_a_collaborators_used_up_shared_asset_is_undercut_in_queue_order():
    """P-ASSET-13 holds for every pool of a shared action: the industry used earlier in the queue wins."""
    g = _shared()
    g.grant_asset("guild", "c", "Guild", "industry", 2)
    g.grant_asset("guild", "b", "Guild", "industry", 2)
    submit(g, "c", "C1", [5, 5], slot="public", assets=[{"asset_id": "guild"}], convert=0)  # a champion goes first
    g.join_action("b", "Build", now=NOW, roller=FixedRoller([6, 6]), assets=[{"asset_id": "guild"}])
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    build = resolved_of(g, "Build")
    assert (build["successes"], build["success"]) == (2, False)
    cut = [e for e in g.collect_events() if type(e).__name__ == "ShareUndercut"]
    assert [(e.action_id, e.audience) for e in cut] == [("Build", ["power:b"])]


# ---------------------------------------------------------------- P-ASSET-5..7: fees, loyalty, mobility, professions


def test_p_asset_5_an_agent_charges_its_fee_each_time_unless_loyal_and_a_rooted_one_stays_near_home():
    """[003:97] "Agents charge a fee each time they act for a power (unless they are Loyal)." [003:101]
    "Rooted agents ... only acting within their mobility range of that location." [003:99] mobility 3."""
    g = game_in_planning(
        ("a", "city", "overlord"),
        assets=[("spy", "a", "Spy", "agent", 2), ("sage", "a", "Sage", "agent", 1)],
    )
    g.set_asset_terms("spy", {"fee": 2, "rooted": True, "home": "0,0"})
    g.set_asset_terms("sage", {"fee": 3, "loyal_to": "a"})
    g.adjust_resources("a", {"coin": 3}, "treasury")
    refused(g, lambda: submit(g, "a", "Far", [5, 5], location="4,0", assets=[{"asset_id": "spy"}]), "P-ASSET-5")
    submit(g, "a", "Near", [5, 5], location="3,0", assets=[{"asset_id": "spy"}], convert=0)
    submit(g, "a", "Wise", [5], assets=[{"asset_id": "sage"}], convert=0)
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    fees = [(e.action_id, e.total, e.paid, e.audience) for e in g.collect_events() if type(e).__name__ == "FeesDue"]
    assert fees == [("Near", 2, True, ["power:a"])]  # the loyal sage waives its fee
    assert g.holdings("a").wallet == {"coin": 1}


def test_p_asset_5_a_fee_the_wallet_cannot_pay_is_recorded_unpaid_for_the_gm():
    g = game_in_planning(("a", "city", "overlord"), assets=[("spy", "a", "Spy", "agent", 1)])
    g.set_asset_terms("spy", {"fee": 2})
    submit(g, "a", "Spy", [5], assets=[{"asset_id": "spy"}], convert=0)
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    fees = [(e.total, e.paid) for e in g.collect_events() if type(e).__name__ == "FeesDue"]
    assert fees == [(2, False)] and g.holdings("a").wallet == {}


def test_p_asset_5_a_follower_works_from_where_its_power_is_based():
    """[003:101] a follower works as if based in any influenced hex (a Conspiracy) or moves with its Champion."""
    g = game_in_planning(
        ("circ", "conspiracy", "circle"),
        ("wiz", "champion", "wizard"),
        assets=[("acolyte", "circ", "Acolyte", "agent", 1), ("squire", "wiz", "Squire", "agent", 1)],
    )
    g.set_asset_terms("acolyte", {"follower": True, "mobility": 1})
    g.set_asset_terms("squire", {"follower": True})
    g.set_influence("circ", "5,0", 1)
    refused(g, lambda: submit(g, "circ", "X", [5], location="0,0", assets=[{"asset_id": "acolyte"}]), "P-ASSET-5")
    submit(g, "circ", "Near", [5], location="4,0", assets=[{"asset_id": "acolyte"}], convert=0)
    g.record_location("wiz", "0,0")
    refused(g, lambda: submit(g, "wiz", "X", [5], location="0,4", assets=[{"asset_id": "squire"}]), "P-ASSET-5")
    submit(g, "wiz", "Along", [5], location="0,3", assets=[{"asset_id": "squire"}], convert=0)


def test_p_asset_6_a_loyal_industry_refuses_to_act_against_its_power_and_waives_its_fee():
    """[003:106] "industries loyal to a power will refuse to act against them and will waive the fee for that
    power." """
    g = game_in_planning(
        ("a", "city", "overlord"), ("b", "city", "sovereign"), assets=[("mill", "a", "Mill", "industry", 2)]
    )
    g.grant_asset("mill", "b", "Mill", "industry", 2)
    g.set_asset_terms("mill", {"fee": 1, "loyal_to": "a"})
    refused(
        g,
        lambda: submit(g, "b", "Hit", [5, 5], slot="public", targets=["a"], assets=[{"asset_id": "mill"}]),
        "P-ASSET-6",
    )
    submit(g, "b", "Grind", [5, 5], slot="public", assets=[{"asset_id": "mill"}], convert=0)
    assert cr.fee_due("industry", {"fee": 1, "loyal_to": "a"}, "a") == 0
    assert cr.fee_due("industry", {"fee": 1, "loyal_to": "a"}, "b") == 1


def test_p_asset_6_a_claimant_pays_an_industrys_fee_when_it_acts_and_the_power_it_is_loyal_to_pays_none():
    """P-ASSET-6 "Any power with a claim on the town may use it by paying its fee. A loyal industry ... waives the
    fee for that power." [003:106]"""
    g = game_in_planning(
        ("a", "city", "overlord"),
        ("b", "city", "sovereign"),
        assets=[("mill", "a", "Mill", "industry", 2), ("forge", "a", "Forge", "industry", 1)],
    )
    g.grant_asset("mill", "b", "Mill", "industry", 2)
    g.set_asset_terms("mill", {"fee": 1, "loyal_to": "a"})
    g.set_asset_terms("forge", {"fee": 2, "loyal_to": "a"})
    g.adjust_resources("a", {"coin": 3}, "treasury")
    g.adjust_resources("b", {"coin": 3}, "treasury")
    submit(g, "b", "Grind", [5, 5], slot="public", assets=[{"asset_id": "mill"}], convert=0)
    submit(g, "a", "Smith", [5], slot="public", assets=[{"asset_id": "forge"}], convert=0)
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    fees = [(e.action_id, e.power_id, e.total, e.paid) for e in g.collect_events() if type(e).__name__ == "FeesDue"]
    assert fees == [("Grind", "b", 1, True)]
    assert (g.holdings("a").wallet, g.holdings("b").wallet) == ({"coin": 3}, {"coin": 2})


def test_p_asset_7_only_an_army_with_a_profession_helps_outside_combat_and_only_where_it_was_mustered():
    """[003:110] "Armies without such keywords are not organized to be helpful outside of combat. Once mustered
    to a new hex, an army can only be used in the new hex ... A Personal Army ... never assists in a
    challenge, duels included." """
    g = game_in_planning(
        ("a", "champion", "dragon"),
        ("b", "champion", "wizard"),
        assets=[("troops", "a", "Troops", "army", 2), ("body", "a", "The dragon", "army", 4)],
    )
    g.set_asset_terms("troops", {"hex": "1,0"})
    refused(
        g,
        lambda: submit(g, "a", "X", [5, 5], slot="public", location="1,0", assets=[{"asset_id": "troops"}]),
        "P-ASSET-7",
    )
    g.set_asset_terms("troops", {"hex": "1,0", "profession": "Engineers"})
    refused(
        g,
        lambda: submit(g, "a", "X", [5, 5], slot="public", location="0,0", assets=[{"asset_id": "troops"}]),
        "P-ASSET-7",
    )
    submit(g, "a", "Dig", [5, 5], slot="public", location="1,0", assets=[{"asset_id": "troops"}], convert=0)
    g.set_asset_terms("body", {"personal": True})
    refused(
        g,
        lambda: g.submit_duel(
            "a",
            "d",
            "b",
            "0,0",
            now=NOW,
            roller=FixedRoller([5, 5, 5, 5]),
            assets=[{"asset_id": "body"}],
            slot="public",
        ),
        "P-ASSET-7",
    )
    refused(g, lambda: g.set_asset_terms("body", {"personal": True, "profession": "Arcane"}), "P-ASSET-7")


# ---------------------------------------------------------------- P.2.12: class actions


def test_p_2_12_annex_is_as_hard_as_the_towns_already_claimed_and_only_a_city_annexes():
    """[003:965] "Difficulty: The number of towns you already claim." Claimants may resist."""
    g = game_in_planning(("sov", "city", "sovereign"), ("circ", "conspiracy", "circle"))
    out = g.submit_class_action(
        "sov",
        "ann",
        "annex",
        {"towns_claimed": 3, "town": "1,1"},
        now=NOW,
        roller=FixedRoller(),
        roll=False,
        slot="public",
        targets=["circ"],
    )
    a = action_of(g, "ann")
    assert (out["difficulty"], a["difficulty"], a["resistible"], a["targets"]) == (3, 3, True, ["circ"])
    refused(
        g,
        lambda: g.submit_class_action(
            "circ", "x", "annex", {"towns_claimed": 0}, now=NOW, roller=FixedRoller(), roll=False
        ),
        "P.2.12",
    )


def test_p_2_12_coming_of_age_gets_easier_each_season_and_stops_at_three_heirs():
    """[003:1009] "to a maximum of 3. Difficulty: 4, reduced by 1 for every season since you last used this
    action (or since the start of the epic)." """
    g = game_in_planning(("sov", "city", "sovereign"), assets=[("charm", "sov", "negotiation", "skill", 4)])
    difficulties = []
    for k in range(3):
        out = g.submit_class_action(
            "sov",
            f"c{k}",
            "coming_of_age",
            {},
            now=NOW,
            roller=FixedRoller([6, 6, 6, 6]),
            slot="public",
            assets=[{"asset_id": "charm"}],
            convert=0,
        )
        difficulties.append((seen(g)["game"]["season"], out["difficulty"]))
        next_month(g)
    # season 1: one season since the start of the epic; then used this season; then one season since
    assert difficulties == [(1, 3), (1, 4), (2, 3)]
    assert seen(g)["catalogue"]["counters"]["sov"]["heirs"] == 3
    refused(g, lambda: propose(g, "sov", "c4", "coming_of_age", {}, slot="public"), "P.2.12")


def test_p_2_12_hidden_runes_rank_is_at_most_the_influence_in_the_hex_one_rune_per_hex():
    """[003:1175] "place a Rune asset there with rank up to that amount of influence ... Difficulty: The
    rune's rank." [003:1161] "Each hex can have at most one of your runes." """
    g = game_in_planning(("circ", "conspiracy", "circle"), assets=[("sub", "circ", "subtlety", "skill", 2)])
    g.set_influence("circ", "0,0", 2)
    g.grant_mana("circ", "A", 2)  # each rune costs its rank in mana (P-MAG-2); no map, so any element
    g.grant_mana("circ", "W", 2)
    refused(g, lambda: propose(g, "circ", "r", "hidden_runes", {"hex": "0,0", "rank": 3}), "P.2.12")
    out = g.submit_class_action(
        "circ", "r1", "hidden_runes", {"hex": "0,0", "rank": 2}, now=NOW, roller=FixedRoller([]), extra_actions=1
    )
    assert out["difficulty"] == 2
    next_month(g)
    assert seen(g)["actions"] == [] and "runes" not in seen(g)["catalogue"]["counters"].get("circ", {})  # 1 < 2: none
    g.submit_class_action(
        "circ",
        "r2",
        "hidden_runes",
        {"hex": "0,0", "rank": 2},
        now=NOW,
        roller=FixedRoller([6, 5]),
        assets=[{"asset_id": "sub"}],
        convert=0,
    )
    next_month(g)
    assert seen(g)["catalogue"]["counters"]["circ"]["runes"] == {"0,0": 2}
    refused(g, lambda: propose(g, "circ", "r3", "hidden_runes", {"hex": "0,0", "rank": 1}), "P.2.12")


def test_p_2_12_saboteurs_get_harder_with_each_use_this_season_and_molotovs_add_one():
    """[003:1262] "Difficulty: 2, increased by a further 2 until the end of the season" (P-AMB-38:
    cumulative); [003:1270] Molotovs: "increases the difficulty by 1"; Cost: 2 Influence."""
    g = game_in_planning(("cause", "conspiracy", "cause", {"molotovs": True}), ("c2", "conspiracy", "cause"))
    g.set_influence("cause", "0,0", 5)
    first = propose(g, "cause", "s1", "saboteurs", {"hex": "0,0"})
    second = g.submit_class_action(
        "cause", "s2", "saboteurs", {"hex": "0,0", "molotovs": True}, now=NOW, roller=FixedRoller(), roll=False
    )
    assert (first["difficulty"], second["difficulty"]) == (2, 5)
    g.set_influence("c2", "0,0", 3)
    refused(
        g,
        lambda: g.submit_class_action(
            "c2", "s", "saboteurs", {"hex": "0,0", "molotovs": True}, now=NOW, roller=FixedRoller(), roll=False
        ),
        "P.2.12",
    )
    g.set_influence("c2", "1,0", 1)
    refused(
        g,
        lambda: g.submit_class_action(
            "c2", "s", "saboteurs", {"hex": "1,0"}, now=NOW, roller=FixedRoller(), roll=False
        ),
        "P.2.12",
    )


@pytest.mark.parametrize(
    ("kind", "who", "params", "difficulty"),
    [
        ("recruit_mercenaries", ("city", "overlord"), {"size": 3, "mercenary_armies": 1, "capitol_population": 6}, 4),
        ("reshape_the_land", ("conspiracy", "circle"), {"hex": "0,0", "in_town": True}, 4),
        ("reshape_the_land", ("conspiracy", "circle"), {"hex": "0,0"}, 2),
        ("uplift_master", ("conspiracy", "circle"), {"converted_rank": 3}, 1),
        ("sacrificial_summoning", ("conspiracy", "cult"), {"army_size": 5, "army_rank": 2}, 3),
        ("rise_fingers", ("conspiracy", "cult"), {"units_slain": 4, "hex": "0,0"}, 1),
        ("riot_shaping", ("conspiracy", "cause"), {"harm": 2}, 3),
        ("loyalist_levy", ("conspiracy", "cause"), {"hex": "0,0", "size": 3}, 3),
        ("commandeer", ("champion", "wizard"), {"town": "0,0"}, 0),
        ("wander", ("champion", "wizard"), {"path": [f"{q},0" for q in range(1, 9)]}, 2),
        ("trample_terrain", ("champion", "dragon"), {"movement": 5, "mobility": 3, "opposing_levels": 4}, 6),
        (
            "slaughter",
            ("champion", "dragon"),
            {"uprising": 2, "depopulated": 1, "opposing_units": 3, "population": 4},
            6,
        ),
        ("sack", ("champion", "dragon"), {"uprising": 2, "opposing_units": 3, "wealth": 3}, 5),
        (
            "march",
            ("champion", "paragon"),
            {"steps": [{"rough": True}, {"rough": True}, {"road": True}], "mobilities": [3, 4]},
            1,
        ),
        ("reform", ("city", "celestial"), {"units": 5}, 0),
        ("channel", ("city", "sovereign"), {"town": "0,0"}, 0),
    ],
)
def test_p_2_12_class_action_difficulties_follow_their_formulas(kind, who, params, difficulty):
    """P.2.12: each class action's difficulty is computed from its formula, as data."""
    g = game_in_planning(("p", *who))
    g.set_influence("p", "0,0", 5)
    for element in "AFW" if kind in ("uplift_master", "sacrificial_summoning", "rise_fingers") else "":
        g.grant_mana("p", element, 1)  # Uplift Master costs AW, the Fingers FW (P-MAG-2)
    slot = "public" if who[1] in ("overlord", "dragon", "celestial", "sovereign", "cause") else "private"
    out = g.submit_class_action("p", "act", kind, params, now=NOW, roller=FixedRoller(), roll=False, slot=slot)
    assert out["difficulty"] == difficulty == action_of(g, "act")["difficulty"]


def test_p_2_12_recruit_mercenaries_number_at_most_half_the_capitols_population():
    """[003:1094] "size up to half your capitols population" (P-AMB-27: rounded down)."""
    g = game_in_planning(("ov", "city", "overlord"))
    refused(
        g,
        lambda: g.submit_class_action(
            "ov",
            "m",
            "recruit_mercenaries",
            {"size": 4, "mercenary_armies": 0, "capitol_population": 7},
            now=NOW,
            roller=FixedRoller(),
            roll=False,
            slot="public",
        ),
        "P.2.12",
    )


def test_p_2_12_rise_fingers_raises_an_army_of_the_excess_at_most_the_units_slain():
    """[003:1230] "size equal to the number of excess successes, to a maximum of the number of units slain"."""
    g = game_in_planning(("cult", "conspiracy", "cult"), assets=[("s", "cult", "might", "skill", 5)])
    g.grant_mana("cult", "F", 1)  # Cost: FW (P-MAG-2)
    g.grant_mana("cult", "W", 1)
    g.submit_class_action(
        "cult",
        "rise",
        "rise_fingers",
        {"hex": "0,0", "units_slain": 2},
        now=NOW,
        roller=FixedRoller([6, 6, 6, 5, 1]),
        assets=[{"asset_id": "s"}],
        convert=0,
    )
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    outcome = next(e for e in g.collect_events() if type(e).__name__ == "ClassActionOutcome")
    assert outcome.outputs == {"finger_army_size": 2}  # excess 3, but only 2 units were slain


def test_p_2_12_health_drive_pays_two_respect_a_success_once_per_town_a_season():
    """[003:947] "For each success, gain 2 respect. If your successes exceed the town population, it gains 1
    population. Difficulty 1. Usable once per town per season." """
    g = game_in_planning(
        ("sov", "city", "sovereign", {"health_drive": True}), assets=[("s", "sov", "might", "skill", 3)]
    )
    g.choose_control("sov", "respect")
    g.submit_class_action(
        "sov",
        "hd",
        "health_drive",
        {"town": "derop", "population": 2},
        now=NOW,
        roller=FixedRoller([6, 5, 5]),
        assets=[{"asset_id": "s"}],
        convert=0,
        slot="public",
    )
    refused(
        g,
        lambda: g.submit_class_action(
            "sov",
            "hd2",
            "health_drive",
            {"town": "derop", "population": 2},
            now=NOW,
            roller=FixedRoller(),
            roll=False,
            slot="public",
        ),
        "P.2.12",
    )
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    outcome = next(e for e in g.collect_events() if type(e).__name__ == "ClassActionOutcome")
    assert outcome.outputs == {"respect": 6, "population": 1}
    assert outcome.audience == ["power:sov"]  # resources are private (P.4)
    assert g.holdings("sov").wallet == {"respect": 9}  # 3 to start with ([003:263]) and 6 earned


def test_p_2_12_commandeer_is_announced_publicly_even_from_a_private_slot():
    """[003:1276] "Claim a town you stand in until you leave it. Announced publicly"."""
    g = game_in_planning(("wiz", "champion", "wizard"), ("sov", "city", "sovereign"))
    g.collect_events()
    propose(g, "wiz", "cmd", "commandeer", {"town": "0,0"})
    declared = [e for e in g.collect_events() if type(e).__name__ == "ClassActionDeclared"]
    assert [e.audience for e in declared] == [["public"]]


# ---------------------------------------------------------------- the commands, through the one command path


def test_p_2_12_the_catalogue_commands_run_through_the_service_and_refusals_name_their_rule():
    """Every channel sends these commands through ``Games.run``: a player's class action, a collaborator joining
    it, the GM's dice; a refusal names its rule and records nothing."""
    games = Games()
    gid, _, _ = games.create_game("Catalogue", "GM")
    gm = Caller.of("gm")
    ov = add_power(games, gid, "gm", "Overlord", "city", "overlord")[0]
    circ = add_power(games, gid, "gm", "Circle", "conspiracy", "circle")[0]
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    r = games.run(
        Caller.of(ov),
        gid,
        cc.SubmitClassAction(
            ov,
            "recruit_mercenaries",
            {"size": 2, "mercenary_armies": 1, "capitol_population": 5},
            slot="public",
            collaborators=[circ],
            convert=0,
        ),
    )
    assert (r.result["difficulty"], r.result["kind"], r.result["status"]) == (3, "recruit_mercenaries", "submitted")
    joined = games.run(Caller.of(circ), gid, cc.JoinAction(circ, r.result["action_id"]))
    assert joined.result["action_id"] == r.result["action_id"]
    rolled = games.run(gm, gid, cc.RollDice(dice="2d10", power_id=ov))
    assert len(rolled.result["faces"]) == 2 and rolled.result["dice"] == "2d10"
    before = len(games.visible_events(gid, "gm", limit=10_000))
    with pytest.raises(RuleViolation) as err:
        games.run(Caller.of(circ), gid, cc.SubmitClassAction(circ, "annex", {"towns_claimed": 1}))
    assert err.value.rule == "P.2.12"
    with pytest.raises(Forbidden):
        games.run(Caller.of(circ), gid, cc.RollDice(dice="1d4"))
    assert len(games.visible_events(gid, "gm", limit=10_000)) == before
    board = games.view(gid, circ)
    assert board["catalogue"]["shares"][r.result["action_id"]][0]["power"] == circ
    assert "counters" in board["catalogue"] and "locations" not in board["catalogue"]


def test_p_2_12_a_class_actions_cost_is_recorded_as_amounts_to_debit():
    """[003:1094] "Cost: 2 Coin per unit."; [003:1173] "Cost: 3 Influence."; [003:1224] "Cost: FW"."""
    assert cr.price("recruit_mercenaries", {"size": 3}) == {"coin": 6}
    assert cr.price("reshape_the_land", {"hex": "0,0"}) == {"influence": {"hex": "0,0", "amount": 3}}
    assert cr.price("sacrificial_summoning", {}) == {"mana": {"F": 1, "W": 1}}
    g = game_in_planning(("ov", "city", "overlord"))
    propose(
        g, "ov", "m", "recruit_mercenaries", {"size": 2, "mercenary_armies": 0, "capitol_population": 4}, slot="public"
    )
    assert seen(g)["catalogue"]["kinds"]["m"]["price"] == {"coin": 4}


def test_p_2_12_a_class_action_whose_cost_cannot_be_paid_at_its_turn_is_lost_and_one_paid_debits_the_wallet():
    """[003:28] "Costs are paid at the start of each action"; Recruit Mercenaries "Cost: 2 Coin per unit"."""
    g = game_in_planning(("ov", "city", "overlord"), assets=[("s", "ov", "negotiation", "skill", 4)])
    g.adjust_resources("ov", {"coin": 5}, "treasury")
    params = {"size": 2, "mercenary_armies": 0, "capitol_population": 4}
    for k in (1, 2):
        g.submit_class_action(
            "ov",
            f"m{k}",
            "recruit_mercenaries",
            params,
            now=NOW,
            roller=FixedRoller([6, 6, 6, 6] if k == 1 else []),
            slot="public",
            assets=[{"asset_id": "s"}] if k == 1 else [],
            convert=0,
        )
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    events = g.collect_events()
    assert g.holdings("ov").wallet == {"coin": 1}  # 4 paid for the first; 1 left is short of the second's 4
    lost = [(e.action_id, e.audience) for e in events if type(e).__name__ == "ActionLost"]
    assert lost == [("m2", ["power:ov"])]
    assert action_of(g, "m1")["result"]["success"] is True


# ---------------------------------------------------------------- worked examples through the catalogue


def test_p_ex_2_gandalf_duels_the_balrog_through_the_duel_action():
    """P-EX-2 as a Duel (P-ACT-6): difficulty 1 and resistible come from the action; S 6, resisted by 3, net 3."""
    g = game_in_planning(
        ("gandalf", "champion", "wizard"),
        ("balrog", "champion", "adversary", {"private_actions": 2}),
        assets=[
            ("might", "gandalf", "might", "skill", 3),
            ("staff", "gandalf", "Staff of Orthanc", "item", 3),
            ("blade", "gandalf", "Demonhunting blade", "consumable", 2, {"assured": True}),
            ("b-might", "balrog", "might", "skill", 5),
        ],
    )
    g.record_location("balrog", "2,3")  # Moria
    g.submit_duel(
        "gandalf",
        "duel",
        "balrog",
        "2,3",
        now=NOW,
        roller=FixedRoller([5, 4, 3, 3, 2, 1]),
        skill="might",
        assets=[{"asset_id": "might"}, {"asset_id": "staff"}, {"asset_id": "blade", "mode": "assured"}],
        convert=3,
    )
    to_resistance(g)
    duel = action_of(g, "duel")
    assert (duel["status"], duel["successes"], duel["difficulty"]) == ("provisional", 6, 1)
    assert board_view(g, "balrog")["may_resist"][0]["pool_size"] == 8
    g.declare_reaction(
        "balrog", "rx", "duel", now=later(3), roller=FixedRoller([6, 5, 5, 2, 1]), assets=[{"asset_id": "b-might"}]
    )
    duel = resolved_of(g, "duel")
    assert (duel["resisted"], duel["net"], duel["success"], duel["excess"]) == (3, 3, True, 2)
    assert seen(g)["catalogue"]["kinds"]["duel"]["outcome"] == {"success": True, "target": "balrog", "defeated": True}


def test_p_ex_16_a_second_reaction_is_accepted_once_a_perk_granted_extra_reaction_is_paid():
    """P-EX-16: "t0+4h: power B Resist(another action) -> rejected unless a perk-granted extra reaction is
    paid (scheme / A mana / next-month action)"."""
    g = game_in_planning(
        ("a", "champion", "dragon"),
        ("b", "city", "sovereign", {"prepared_reaction": True}),
        assets=[("a-might", "a", "might", "skill", 3), ("b-might", "b", "might", "skill", 2)],
    )
    submit(
        g,
        "a",
        "A1",
        [5, 5, 1],
        slot="public",
        skill="might",
        targets=["b"],
        resistible=True,
        difficulty=1,
        assets=[{"asset_id": "a-might"}],
        convert=0,
    )
    submit(g, "a", "A2", [], slot="public", targets=["b"], resistible=True, difficulty=0)
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    g.grant_asset("plan", "b", "scheme", "scheme", 2)
    g.declare_reaction("b", "rb", "A1", now=later(3), roller=FixedRoller([5, 2]), assets=[{"asset_id": "b-might"}])
    refused(g, lambda: g.declare_reaction("b", "rb2", "A2", now=later(4), roller=FixedRoller([]), assets=[]), "P-RES-1")
    g.gain_extra_reaction("b", "prepared_reaction", now=later(4), scheme_id="plan")
    g.declare_reaction("b", "rb2", "A2", now=later(4), roller=FixedRoller([]), assets=[])
    assert [(r["reaction_id"], r["power"]) for r in seen(g)["reactions"]] == [("rb", "b"), ("rb2", "b")]
    assert sheet_of(g, "b")["reactions_left"] == 0 and step_of(g) == "battle"


def test_p_2_12_dread_growth_adds_one_unit_each_tidings_or_two_below_the_maximum():
    """[003:1327] "At the start of each season, during Tidings, gain 1 unit in your army, keeping track of the
    maximum reached. If you are less than the maximum, gain 2 instead." """
    g = Game.start("t", "GM")
    g.add_power("dra", "Dra", "champion", "dragon")
    g.add_power("wiz", "Wiz", "champion", "wizard")
    g.advance(NOW, SEED)
    assert g.dread_growth("dra", 6) == {"gain": 1, "units": 7, "maximum": 7}
    refused(g, lambda: g.dread_growth("dra", 7), "P.2.12")  # once a season
    refused(g, lambda: g.dread_growth("wiz", 3), "P.2.12")
    g.advance(NOW, SEED)
    refused(g, lambda: g.dread_growth("dra", 7), "P.2.12")  # Tidings only
    while step_of(g) != "tidings":
        if step_of(g) == "resolution":
            g.resolve(now=NOW, roller=FixedRoller())
        else:
            g.advance(NOW, SEED)
    assert g.dread_growth("dra", 4) == {"gain": 2, "units": 6, "maximum": 7}  # lost units in battle


def test_p_res_4_the_gm_may_rule_any_action_with_several_targets_resisted_per_target():
    """P-AMB-7: "For an outcome that concerns everyone ... net = S - sum S_resist_i. For an effect on several
    targets, apply each resister's successes to that resister's share only"."""
    g = game_in_planning(
        ("a", "champion", "dragon"),
        ("b", "city", "sovereign"),
        ("c", "city", "celestial"),
        assets=[
            ("a-s", "a", "might", "skill", 3),
            ("b-s", "b", "might", "skill", 2),
            ("c-s", "c", "might", "skill", 2),
        ],
    )
    submit(
        g,
        "a",
        "Raid",
        [6, 6, 5],
        slot="public",
        targets=["b", "c"],
        resistible=True,
        difficulty=1,
        assets=[{"asset_id": "a-s"}],
        convert=0,
    )
    submit(g, "a", "Solo", [], slot="public", targets=["b"], resistible=True)
    refused(g, lambda: g.rule_per_target("Solo"), "P-RES-4")  # one target: nothing to split
    g.rule_per_target("Raid")
    to_resistance(g)
    g.declare_reaction("b", "rb", "Raid", now=later(1), roller=FixedRoller([6, 6]), assets=[{"asset_id": "b-s"}])
    g.declare_reaction("c", "rc", "Raid", now=later(1), roller=FixedRoller([6, 1]), assets=[{"asset_id": "c-s"}])
    raid = resolved_of(g, "Raid")
    per = seen(g)["catalogue"]["kinds"]["Raid"]["per_target_results"]
    assert per == {
        "b": {"resisted": 2, "net": 1, "success": True, "excess": 0},
        "c": {"resisted": 1, "net": 2, "success": True, "excess": 1},
    }
    assert (raid["net"], raid["resisted"]) == (3, 3)  # summed, the raid would have failed everyone: 3 - 3 = 0 < 1
    assert board_view(g, "b")["catalogue"]["class_actions"]["Raid"]["per_target_results"] == {"b": per["b"]}


def test_p_dice_11_a_collaborator_answers_for_the_consequences_of_its_own_pool():
    """[003:40] "each power has final control and responsibility for consequences within their pool"."""
    g = _shared()
    g.join_action("b", "Build", now=NOW, roller=FixedRoller([6, 3]), assets=[{"asset_id": "b-skill"}], convert=1)
    with pytest.raises(NotFound) as err:
        g.propose_share_consequence("Build", "c", "k", "no part of it", [])
    assert err.value.rule == "P-DICE-11"
    g.propose_share_consequence("Build", "b", "k1", "the circle's masons talk", [{"kind": "lose_actions", "count": 1}])
    g.accept_share_consequence("b", "Build", "k1")
    assert (sheet_of(g, "b")["quota"]["lost_next_month"], sheet_of(g, "a")["quota"]["lost_next_month"]) == (1, 0)
    refused(g, lambda: g.accept_share_consequence("b", "Build", "k1"), "GM-3")  # accepted once
    g.discard_action("Build", now=NOW)  # P-AMB-29: a discarded action applies no consequences, anyone's
    assert sheet_of(g, "b")["quota"]["lost_next_month"] == 0 and g.slots_used("b") == (0, 1)  # the action stays spent


def test_p_res_1_a_perk_gained_through_development_buys_its_extra_reaction():
    """The perk the GM grants (P-DEV-5) is the one the catalogue reads: Desperate Reaction [003:875]."""
    g = _attacked({})
    refused(g, lambda: g.gain_extra_reaction("b", "desperate_reaction", now=later(1)), "P-RES-1")
    g.grant_perk("b", "Desperate Reaction")
    g.gain_extra_reaction("b", "desperate_reaction", now=later(1))
    assert seen(g, "b")["catalogue"]["extra_reactions"] == ["desperate_reaction"]
    assert sheet_of(g, "b")["reactions_left"] == 2


def test_p_dice_10_a_discarded_actions_conversions_can_no_longer_be_locked():
    """Found by the no-leak property test with a duel rolled without its conversions: a lock after the discard
    recorded a digest that Resolution (which skips discarded actions) never published."""
    g = game_in_planning(("a", "champion", "dragon"), ("b", "city", "sovereign"))
    g.submit_duel("a", "d", "b", "0,0", now=NOW, roller=FixedRoller([]), slot="public")
    g.discard_action("d", now=NOW)
    refused(g, lambda: g.lock_conversions("d", now=NOW, convert=0), "P-DICE-10")
    g.collect_events()
    g.advance(NOW, SEED)  # nor does Planning's close lock it
    assert "ConversionsLocked" not in names(g.collect_events())


def test_p_2_12_annex_counts_the_towns_claimed_on_the_map_not_what_the_submitter_says():
    """[003:965] "Difficulty: The number of towns you already claim": once the GM declared the map, its claims
    (P-TOWN-1) decide; a city's followers work from its claimed towns ([003:101], P-ASSET-5)."""
    towns = [
        {"id": "derop", "name": "Derop", "hex": "0,0", "population": 5, "wealth": 2},
        {"id": "caliph", "name": "Caliph", "hex": "1,0", "population": 3, "wealth": 1},
    ]
    g = world_game(("sov", "city", "sovereign"), towns=towns, assets=[("clerk", "sov", "Clerk", "agent", 1)])
    g.set_claim("derop", "sov")
    out = propose(g, "sov", "ann", "annex", {"towns_claimed": 0, "town": "caliph"}, slot="public")
    assert out["difficulty"] == 1
    g.set_asset_terms("clerk", {"follower": True, "mobility": 0})
    refused(
        g,
        lambda: submit(g, "sov", "X", [5], slot="public", location="1,0", assets=[{"asset_id": "clerk"}]),
        "P-ASSET-5",
    )
    submit(g, "sov", "Ledger", [5], slot="public", location="0,0", assets=[{"asset_id": "clerk"}], convert=0)


@pytest.mark.parametrize(
    ("kind", "who", "params"),
    [
        ("rise_fingers", ("conspiracy", "cult"), {"hex": "0,0"}),  # units slain: what the new army is capped at
        ("health_drive", ("city", "sovereign", {"health_drive": True}), {"town": "derop"}),  # population
        ("sack", ("champion", "dragon"), {"uprising": 1, "opposing_units": 0}),  # wealth: the coin gained
    ],
)
def test_p_2_12_an_input_the_outcome_needs_is_required_at_submission_not_at_resolution(kind, who, params):
    g = game_in_planning(("p", *who))
    refused(g, lambda: propose(g, "p", "act", kind, params, slot="public"), "P.2.12")


def test_p_2_12_little_cruelties_gain_one_fear_at_the_start_of_each_month():
    """[003:957] "Little Cruelties: At the start of each month, gain 1 Fear." """
    g = Game.start("t", "GM")
    g.add_power("cruel", "Cruel", "city", "overlord")
    g.add_power("kind", "Kind", "city", "sovereign")
    g.choose_control("cruel", "fear")
    g.choose_control("kind", "fear")
    g.grant_perk("cruel", "Little Cruelties")
    g.advance(NOW, SEED)
    assert g.holdings("cruel").wallet == {"fear": 3}  # Tidings is no month
    g.advance(NOW, SEED)
    assert (g.holdings("cruel").wallet, g.holdings("kind").wallet) == ({"fear": 4}, {"fear": 3})
    next_month(g)
    assert g.holdings("cruel").wallet == {"fear": 5}
