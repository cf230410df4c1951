"""Conformance tests named after core Powers rule ids that were enforced but had no test of their own:
P-DICE-1, P-DICE-4, P-INFL-1, P-RES-5 and P-ASSET-13 (rules/ANALYSIS.md P.2)."""

from __future__ import annotations

from domain.dice import FixedRoller
from domain.powers.game import Game
from tests.domain.helpers import (
    NOW,
    SEED,
    action_of,
    game_in_planning,
    later,
    refused,
    resolved_of,
    seen,
    sheet_of,
    step_of,
    submit,
)
from tests.domain.world_helpers import to_next_season, world_game


def _resolved(events: list, action_id: str) -> list:
    return [e for e in events if type(e).__name__ == "ActionResolved" and e.action_id == action_id]


def _duo() -> Game:
    """A dragon acting against a city that can resist it."""
    return game_in_planning(
        ("a", "champion", "dragon"),
        ("b", "city", "sovereign"),
        assets=[("a-might", "a", "might", "skill", 4), ("b-might", "b", "might", "skill", 3)],
    )


def _resolve(g: Game) -> None:
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())


# ------------------------------------------------------------------ P-DICE-1


def test_p_dice_1_no_difficulty_listed_is_difficulty_0_and_resolves_at_once_without_resistance():
    """P-DICE-1: "otherwise they have difficulty 0" — an unlisted difficulty is 0, so an unresistible action
    with no dice at all succeeds at Resolution with excess 0, and no resistance window stays open."""
    g = _duo()
    submit(g, "a", "A1", [], slot="public", assets=[])
    assert action_of(g, "A1")["difficulty"] is None
    _resolve(g)
    a1 = resolved_of(g, "A1")
    assert (
        a1["status"],
        a1["difficulty"] or 0,
        a1["successes"],
        a1["success"],
        a1["excess"],
    ) == ("resolved", 0, 0, True, 0)
    assert step_of(g) == "battle"  # nothing to resist: the window closed at once


def test_p_dice_1_a_resistible_action_is_a_challenge_even_at_difficulty_0():
    """P-DICE-1 ([003:42] "still a challenge even when the difficulty is 0"): a resistible action at
    difficulty 0 is rolled and resisted like any other; resistance reduces its excess (P-RES-4)."""
    g = _duo()
    submit(
        g,
        "a",
        "A1",
        [6, 5, 1, 1],
        slot="public",
        skill="might",
        targets=["b"],
        resistible=True,
        difficulty=0,
        assets=[{"asset_id": "a-might"}],
        convert=0,
    )
    _resolve(g)
    a1 = action_of(g, "A1")
    assert a1["status"] == "provisional" and a1["result"] is None  # waits for the resistance step
    assert step_of(g) == "resistance"
    g.declare_reaction("b", "rb", "A1", now=later(1), roller=FixedRoller([5, 1, 1]), assets=[{"asset_id": "b-might"}])
    a1 = resolved_of(g, "A1")
    assert (
        a1["successes"],
        a1["resisted"],
        a1["net"],
        a1["success"],
        a1["excess"],
    ) == (2, 1, 1, True, 1)


def test_p_dice_1_a_difficulty_outside_0_to_50_is_refused_and_records_nothing():
    g = _duo()
    for bad in (-1, 51):
        err = refused(g, lambda bad=bad: submit(g, "a", "A1", [], slot="public", difficulty=bad), "P-DICE-1")
        assert err.field == "difficulty"
    assert seen(g)["actions"] == []


# ------------------------------------------------------------------ P-DICE-4


def test_p_dice_4_successes_equal_to_the_difficulty_succeed_with_no_excess_and_one_short_fails():
    """P-DICE-4: success iff successes >= difficulty; excess = successes - difficulty (never negative)."""
    g = game_in_planning(("a", "champion", "dragon"), assets=[("a-might", "a", "might", "skill", 4)])
    for action_id, faces in (("exact", [6, 5, 2, 1]), ("short", [6, 2, 2, 1]), ("over", [6, 6, 5, 1])):
        submit(
            g,
            "a",
            action_id,
            faces,
            slot="public",
            difficulty=2,
            assets=[{"asset_id": "a-might"}],
            convert=0,
        )
    _resolve(g)
    results = {a["action_id"]: a["result"] for a in seen(g)["actions"]}
    got = {k: (r["successes"], r["success"], r["excess"]) for k, r in results.items()}
    assert got == {"exact": (2, True, 0), "short": (1, False, 0), "over": (3, True, 1)}


def test_p_dice_4_a_resisted_action_is_judged_on_net_successes():
    """P-DICE-4 with P-RES-4: 3 successes against difficulty 2 would pass, but resisted by 2 the net is 1 and fails."""
    g = _duo()
    submit(
        g,
        "a",
        "A1",
        [6, 5, 5, 1],
        slot="public",
        skill="might",
        targets=["b"],
        resistible=True,
        difficulty=2,
        assets=[{"asset_id": "a-might"}],
        convert=0,
    )
    _resolve(g)
    g.collect_events()
    g.declare_reaction("b", "rb", "A1", now=later(1), roller=FixedRoller([6, 5, 1]), assets=[{"asset_id": "b-might"}])
    a1 = resolved_of(g, "A1")
    assert (
        a1["successes"],
        a1["resisted"],
        a1["net"],
        a1["success"],
        a1["excess"],
    ) == (3, 2, 1, False, 0)
    [resolved] = _resolved(g.collect_events(), "A1")
    assert (resolved.net, resolved.difficulty, resolved.success, resolved.excess) == (1, 2, False, 0)


# ------------------------------------------------------------------ P-INFL-1


def test_p_infl_1_influence_is_a_whole_number_per_conspiracy_and_hex():
    """P-INFL-1: each (conspiracy, hex) holds its own count; setting one hex leaves the others and the other
    conspiracy's alone, and 0 removes the entry."""
    g = world_game(("cult", "conspiracy", "cult"), ("circle", "conspiracy", "circle"))
    g.set_influence("cult", "0,0", 4)
    g.set_influence("cult", "1,0", 2)
    g.set_influence("circle", "0,0", 1)
    assert sheet_of(g, "cult")["influence"] == {"0,0": 4, "1,0": 2}
    assert sheet_of(g, "circle")["influence"] == {"0,0": 1}
    g.set_influence("cult", "0,0", 0)
    assert sheet_of(g, "cult")["influence"] == {"1,0": 2}
    assert sheet_of(g, "circle")["influence"] == {"0,0": 1}


def test_p_infl_1_out_of_range_influence_and_unknown_hexes_are_refused_naming_p_infl_1():
    g = world_game(("cult", "conspiracy", "cult"))
    g.set_influence("cult", "0,0", 3)
    for bad in (-1, 21, 2.5, True):  # a whole number: not a fraction, not a flag
        err = refused(g, lambda bad=bad: g.set_influence("cult", "0,0", bad), "P-INFL-1")
        assert err.field == "amount"
    refused(g, lambda: g.set_influence("cult", "9,9", 1), "P-INFL-1")  # not on the declared map
    assert sheet_of(g, "cult")["influence"] == {"0,0": 3}


def test_p_infl_1_only_conspiracies_hold_influence_to_spread():
    """P-INFL-1: influence belongs to conspiracies; a city cannot shift influence at Tidings."""
    g = world_game(("cult", "conspiracy", "cult"), ("sov", "city", "sovereign"))
    to_next_season(g)
    refused(g, lambda: g.shift_influence("sov", [["0,0", "1,0"]]), "P-INFL-1")


# ------------------------------------------------------------------ P-RES-5


def test_p_res_5_a_resistible_action_grants_nothing_until_the_resistance_window_closes():
    """P-RES-5 ([003:44]): the resistible action stays provisional (no result, no excess, no ActionResolved)
    while an unresistible one of the same month resolves at once; it resolves when the window closes."""
    g = _duo()
    submit(
        g,
        "a",
        "A1",
        [6, 6, 5, 1],
        slot="public",
        skill="might",
        targets=["b"],
        resistible=True,
        difficulty=1,
        assets=[{"asset_id": "a-might"}],
        convert=0,
    )
    submit(g, "a", "A2", [], slot="public")
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    events = g.collect_events()
    a1, a2 = action_of(g, "A1"), resolved_of(g, "A2")
    assert _resolved(events, "A1") == [] and len(_resolved(events, "A2")) == 1
    assert (a1["status"], a1["result"]) == ("provisional", None)  # no success, excess or net yet
    assert a1["successes"] == 3  # its roll is known, its reward is not granted
    assert a2["status"] == "resolved" and a2["success"] is True
    assert g.close_window("s1m1-resistance", now=later(24)) is True
    assert len(_resolved(g.collect_events(), "A1")) == 1
    a1 = resolved_of(g, "A1")
    assert (a1["status"], a1["successes"], a1["success"], a1["net"], a1["excess"]) == ("resolved", 3, True, 3, 2)


# ------------------------------------------------------------------ P-ASSET-13


def test_p_asset_13_the_later_power_in_resolution_order_loses_the_shared_asset_not_the_later_submitter():
    """P-ASSET-13: X (a conspiracy) submits first, Y (a champion) second, but champions resolve first
    (P-EX-14), so X is undercut: it loses the industry's dice and the consequence on them, and its
    outcome is re-evaluated (2 successes with the industry, 1 without, against difficulty 2)."""
    g = game_in_planning(
        ("x", "conspiracy", "circle"),
        ("y", "champion", "dragon"),
        assets=[("guild", "y", "Guild", "industry", 2), ("skill-x", "x", "craft", "skill", 2)],
    )
    g.grant_asset("guild", "x", "Guild", "industry", 2)
    submit(
        g,
        "x",
        "X1",
        [5, 3, 6, 2],
        difficulty=2,
        assets=[{"asset_id": "guild"}, {"asset_id": "skill-x"}],
        convert=1,
    )
    submit(g, "y", "Y1", [6, 1], slot="public", assets=[{"asset_id": "guild"}], convert=0)
    g.advance(NOW, SEED)
    g.collect_events()
    queue = g.resolve(now=NOW, roller=FixedRoller())
    assert queue == ["Y1", "X1"]
    undercuts = [e for e in g.collect_events() if type(e).__name__ == "AssetUndercut"]
    assert [(u.action_id, u.asset_id) for u in undercuts] == [("X1", "guild")]
    tally = action_of(g, "X1")
    assert (tally["successes"], tally["consequences"]) == (1, 0)
    x1, y1 = resolved_of(g, "X1"), resolved_of(g, "Y1")
    assert (x1["successes"], x1["success"]) == (1, False)
    assert (y1["successes"], y1["success"]) == (1, True)  # the earlier one keeps its dice
