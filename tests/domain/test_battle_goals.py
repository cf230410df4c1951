"""Battle goals through the service's typed commands (issue 25): a goal's threshold and reward per side (P-BAT-8,
P-AMB-13), the worked example P-EX-12 played with its dice, and the campaign options ``goal_threshold_order``
(P-AMB-13) and ``battle_timing`` (P-AMB-1)."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.powers import battle as pb
from tests.domain.battle_helpers import HEX, Field, sturdy
from tests.domain.helpers import seen
from tests.domain.test_replay import replay

ASSASSINATE = "assassinate_count_caliphrase"
CALIPHRASE = {
    "name": "Assassinate Count Caliphrase",
    "attacker": 4,
    "defender": 2,
    "rewards": {"attacker": "Kill Count Caliphrase", "defender": "remove_next_round"},
}
NO_HITS = [1, 1, 1]  # a charge's attack dice that miss a Defense 6 army: no wounds, no morale check


def duel(**kw) -> Field:
    """North's "att" (side A, the attackers) against south's "dfn" (side B): three units each, presence d6+0,
    two momentum (Skirmisher) for two charges."""
    stats = sturdy(presence={"die": 6, "bonus": 0}, keywords=["skirmisher"])
    return Field({"att": ("north", HEX, 3, stats), "dfn": ("south", HEX, 3, stats)}, **kw)


def refused(f: Field, who: str, command, rule: str) -> RuleViolation:
    before = f.game().version
    with pytest.raises(RuleViolation) as err:
        f.run(who, command)
    assert err.value.rule == rule, err.value.message
    assert f.game().version == before  # nothing recorded
    return err.value


def test_p_ex_12_assassinate_count_caliphrase_played_through_the_commands():
    """P-EX-12 [003:644]-[003:647] "Assassinate Count Caliphrase: Attacker: Threshold 4, reward: Kill Count
    Caliphrase; Defender: Threshold 2, reward: remove this goal for next round". ANALYSIS.md: attacker presence
    [4,5,2] -> 2 successes, defender [2,3,1] -> 2: a tie, nobody scores; attacker [4,6,6] -> 3, defender [2,1,1]
    -> 1: the attacker wins "Kill Count Caliphrase"; the defender wins: the goal is removed for the next round
    only. Charge applies presence with no bonus (P-AMB-12: Hold's +1 is Hold's)."""
    f = duel()
    f.declare()
    f.setup("north", ["att"], goals=[CALIPHRASE])
    f.setup("south", ["dfn"])
    b = f.pass_to("commands", 1)
    assert b["goals"][ASSASSINATE]["A"] == 4 and b["goals"][ASSASSINATE]["B"] == 2
    assert b["turn"]["power"] == "south"  # one army a side: the defenders seize the initiative (P-AMB-22)
    out = f.command("south", "dfn", "charge", NO_HITS, [2, 3, 1], target="att", goal=ASSASSINATE)
    assert out["presence"] == 2
    out = f.command("north", "att", "charge", NO_HITS, [4, 5, 2], target="dfn", goal=ASSASSINATE)
    assert out["presence"] == 2
    score = f.view("north")["scores"][-1]
    assert score["successes"][ASSASSINATE] == {"A": 2, "B": 2} and score["winners"][ASSASSINATE] is None
    f.pass_to("commands", 2)
    f.command("south", "dfn", "charge", NO_HITS, [2, 1, 1], target="att", goal=ASSASSINATE)
    f.command("north", "att", "charge", NO_HITS, [4, 6, 6], target="dfn", goal=ASSASSINATE)
    score = f.view("south")["scores"][-1]
    assert score["successes"][ASSASSINATE] == {"A": 3, "B": 1} and score["winners"][ASSASSINATE] == "A"
    assert score["rewards"] == {ASSASSINATE: "Kill Count Caliphrase"}  # the GM rules the Count's fate
    b = f.pass_to("commands", 3)
    assert b["goals"][ASSASSINATE]["open"]  # the attackers' reward leaves the goal in play
    f.command("south", "dfn", "hold", [2, 2, 2], goal=ASSASSINATE)  # Hold: +1 a die, 3 successes at 2
    f.command("north", "att", "rest")
    score = f.view("north")["scores"][-1]
    assert score["winners"][ASSASSINATE] == "B" and score["rewards"] == {ASSASSINATE: "remove this goal next round"}
    b = f.pass_to("commands", 4)
    assert not b["goals"][ASSASSINATE]["open"]
    err = refused(f, "south", pb.GiveCommand("b1", "south", "dfn", "hold", goal=ASSASSINATE), "P-BAT-8")
    assert "round 4" in err.message
    f.command("south", "dfn", "hold", [1, 1, 1], goal="advance")
    refused(f, "north", pb.GiveCommand("b1", "north", "att", "hold", goal=ASSASSINATE), "P-BAT-8")
    f.command("north", "att", "rest")
    assert ASSASSINATE not in f.view("gm")["scores"][-1]["successes"]  # removed for the round: nothing to score
    b = f.pass_to("commands", 5)
    assert b["goals"][ASSASSINATE]["open"]  # back for round 5
    out = f.command("south", "dfn", "hold", [2, 2, 1], goal=ASSASSINATE)
    assert out["presence"] == 3
    game = f.game()
    assert replay(list(f.games.events.get(game.id))).state == game.state  # the goals fold from the events


def test_p_bat_8_a_proposed_goal_takes_one_threshold_for_both_sides_or_one_a_side():
    """P-BAT-8 [003:637] "Some goals are asymmetric, with different thresholds for different sides": a proposal
    gives ``threshold`` (both sides, 2 if not given) and may set a side's own with ``attacker`` or ``defender``;
    the declarer's side attacks (P-AMB-13: stored per side, never parsed from "a/b"). A threshold that is not a
    whole number from 1 to 20, rewards keyed by anything but the sides, or a name the battle's goals already have
    is refused naming P-BAT-8, and nothing is recorded."""
    f = duel()
    f.declare()
    for goal in (
        {"name": "Ford", "defender": "2"},
        {"name": "Ford", "rewards": {"attackers": "remove"}},
        {"name": "Ford", "rewards": "remove"},
        {"name": "Ford", "attacker": 0},
        {"name": "Advance", "threshold": 5},  # a base goal's name: it would replace Advance
    ):
        refused(f, "south", pb.SubmitBattleSetup("b1", "south", ["dfn"], goals=[goal]), "P-BAT-8")
    f.setup(
        "south", ["dfn"], goals=[{"name": "Ford", "threshold": 3}, {"name": "Bridge", "threshold": 3, "attacker": 5}]
    )
    goals = f.view("south")["goals"]
    assert (goals["ford"]["A"], goals["ford"]["B"]) == (3, 3)
    assert (goals["bridge"]["A"], goals["bridge"]["B"]) == (5, 3)


def test_p_bat_8_attackers_who_take_the_walls_remove_the_goal():
    """[003:639]-[003:642] Walls: "Attacker: Threshold 2, reward: Remove this goal". Once the attackers win it the
    goal is gone for the rest of the battle: presence on it is refused naming P-BAT-8."""
    walls = [{"id": "w", "kind": "wooden_walls", "hex": HEX, "controller": "south"}]
    f = duel(features=walls)
    f.declare()
    f.setup("north", ["att"])
    f.setup("south", ["dfn"])
    f.pass_to("commands", 1)
    f.command("south", "dfn", "rest")
    f.command("north", "att", "hold", [3, 3, 1], goal="walls")
    assert f.view("north")["scores"][-1]["winners"]["walls"] == "A"
    b = f.pass_to("commands", 2)
    assert not b["walls"] and not b["goals"]["walls"]["open"]
    f.command("south", "dfn", "rest")
    refused(f, "north", pb.GiveCommand("b1", "north", "att", "hold", goal="walls"), "P-BAT-8")


@pytest.mark.parametrize(("order", "attacker", "defender"), [(None, 4, 2), ("attacker_defender", 2, 4)])
def test_p_amb_13_goal_threshold_order_reads_the_printed_walls_thresholds(order, attacker, defender):
    """P-AMB-13: Stone Walls have "thresholds 2/4" ([003:437]). Recommended (``goal_threshold_order`` =
    ``defender_attacker``): a/b is defender/attacker, so stronger walls raise the attackers' threshold; the campaign
    option ``attacker_defender`` reads it the other way. The attackers' Hold on the walls ([2,2,2] with Hold's +1:
    three 3s) scores 3 at threshold 2 and 0 at threshold 4."""
    walls = [{"id": "w", "kind": "stone_walls", "hex": HEX, "controller": "south"}]
    f = duel(features=walls, options={"goal_threshold_order": order} if order else None)
    f.declare()
    f.setup("north", ["att"])
    f.setup("south", ["dfn"])
    b = f.pass_to("commands", 1)
    assert (b["goals"]["walls"]["A"], b["goals"]["walls"]["B"]) == (attacker, defender)
    f.command("south", "dfn", "rest")
    out = f.command("north", "att", "hold", [2, 2, 2], goal="walls")
    assert out["presence"] == (3 if attacker == 2 else 0)


@pytest.mark.parametrize("option", ["goal_threshold_order", "battle_timing"])
def test_p_amb_13_and_p_amb_1_the_battle_options_take_only_their_values(option):
    """P-AMB-13 ``goal_threshold_order`` and P-AMB-1 ``battle_timing``: any other value is refused naming the
    option."""
    from application.service import Games

    games = Games()
    with pytest.raises(RuleViolation) as err:
        games.create_game("Bad", "GM", options={option: "a/b"})
    assert err.value.field == f"options.{option}"


@pytest.mark.parametrize(
    ("timing", "month", "allowed"), [(None, 1, True), ("season_end", 1, False), ("season_end", 2, True)]
)
def test_p_amb_1_battle_timing_every_month_or_only_at_the_seasons_end(timing, month, allowed):
    """P-AMB-1: "Battles are checked in every month's Battle step" (``battle_timing`` = ``every_month``, the
    recommendation); the campaign option ``season_end`` keeps [003:561] "Whenever opposed armies end a season in the
    same hex": a battle is declared only in the Battle step of the season's last month; earlier it is refused
    naming P-AMB-1 and nothing is recorded."""
    f = duel(options={"battle_timing": timing} if timing else None, month=month)
    if allowed:
        assert f.declare()["battle_id"] == "b1"
        assert f.view("south")["step"] == "setup"
    else:
        err = refused(f, "north", pb.DeclareBattle("b1", HEX, "north", ["south"]), "P-AMB-1")
        assert "last month" in err.message
        assert seen(f.game())["battles"] == []


def test_p_bat_8_while_walls_stand_the_attackers_score_no_advance():
    """P-BAT-8 [003:639] Walls: "While this goal remains, attackers may not score Advance Goals." The attackers'
    three successes on Advance against none win nothing while the walls stand; once they take the walls, the same
    Advance gives them +1 Escalation."""
    walls = [{"id": "w", "kind": "wooden_walls", "hex": HEX, "controller": "south"}]
    f = duel(features=walls)
    f.declare()
    f.setup("north", ["att"])
    f.setup("south", ["dfn"])
    f.pass_to("commands", 1)
    f.command("south", "dfn", "rest")
    assert f.command("north", "att", "hold", [1, 1, 1], goal="advance")["presence"] == 3
    score = f.view("north")["scores"][-1]
    assert score["successes"]["advance"] == {"A": 3, "B": 0} and score["winners"]["advance"] is None
    assert f.view("north")["sides"]["A"]["escalation"] == 0
    f.pass_to("commands", 2)
    f.command("south", "dfn", "rest")
    f.command("north", "att", "hold", [1, 1, 1], goal="walls")
    f.pass_to("commands", 3)
    f.command("south", "dfn", "rest")
    f.command("north", "att", "hold", [1, 1, 1], goal="advance")
    assert f.view("north")["scores"][-1]["winners"]["advance"] == "A"
    assert f.view("north")["sides"]["A"]["escalation"] == 1
