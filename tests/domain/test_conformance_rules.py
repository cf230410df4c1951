"""Rules the service used to get wrong (issue 9), as conformance tests named after their rule ids
in rules/ANALYSIS.md (Part P), with the dice given explicitly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from domain.dice import FixedRoller, SeededRoller, commitment, derive_permutation, seal_difficulty
from domain.powers import rules
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


def names(events) -> list[str]:
    return [type(e).__name__ for e in events]


def to_next_month(g: Game, when=NOW) -> None:
    """From Planning (or later) of this month to Planning of the next, waiving every reaction."""
    if step_of(g) == "planning":
        g.advance(when, SEED)
    if step_of(g) == "resolution":
        g.resolve(now=when, roller=FixedRoller())
    if step_of(g) == "resistance":
        for p in g.pending_resisters():
            g.waive_reactions(p, now=when)
    assert step_of(g) == "battle"
    g.advance(when, SEED)


# ---------------------------------------------------------------- P.1.4 / GM-7: ties and coin flips


def test_gm_7_ties_at_two_indexes_after_the_first_submitter_discards_its_first_action_resolve_by_their_flips():
    """A discards its 1st action, so the live actions are listed 2nd-index first: the flips must still be
    drawn and used in queue order (index 1's tie, then index 2's), each for its own group."""
    g = game_in_planning(("a", "city", "sovereign"), ("b", "city", "celestial"), ("c", "city", "overlord"))
    submit(g, "a", "A1", [], slot="public")
    submit(g, "a", "A2", [], slot="public")
    submit(g, "b", "B1", [], slot="public")
    submit(g, "b", "B2", [], slot="public")
    submit(g, "c", "C1", [], slot="public")
    g.discard_action("A1", now=NOW)
    g.advance(NOW, SEED)
    g.collect_events()
    queue = g.resolve(now=NOW, roller=FixedRoller(permutations=[[1, 0], [0, 1]]))
    assert queue == ["C1", "B1", "A2", "B2"]
    flips = [e for e in g.collect_events() if type(e).__name__ == "TiesBroken"]
    assert [(f.tied, f.order) for f in flips] == [(["b", "c"], ["c", "b"]), (["a", "b"], ["a", "b"])]


def test_p_amb_24_a_tie_between_actions_that_touch_nothing_in_common_is_a_logged_coin_flip_from_the_committed_dice():
    """Nothing in common (no targets, no assets), yet the order is a flip derived from the month's committed
    seed and its roll number, never the power ids' order; anyone can check it once the seed is revealed."""
    g = game_in_planning(("sov", "city", "sovereign"), ("sov2", "city", "celestial"))
    for k in (1, 2):
        submit(g, "sov", f"Sov{k}", [], slot="public")
        submit(g, "sov2", f"Sov'{k}", [], slot="public")
    g.advance(NOW, SEED)
    g.collect_events()
    queue = g.resolve(now=NOW, roller=SeededRoller(SEED))
    flips = [e for e in g.collect_events() if type(e).__name__ == "TiesBroken"]
    assert [(f.tied, f.roll_no, f.commitment, f.audience) for f in flips] == [
        (["sov", "sov2"], 5, commitment(SEED), ["gm"]),
        (["sov", "sov2"], 6, commitment(SEED), ["gm"]),
    ]
    for f in flips:
        assert f.order == [f.tied[i] for i in derive_permutation(SEED, f.roll_no, 2)]
    assert queue == ["Sov'1", "Sov1", "Sov2", "Sov'2"]  # roll 5 swaps the pair, roll 6 does not


@given(st.lists(st.tuples(st.sampled_from("abcdef"), st.integers(1, 5)), max_size=20, unique=True), st.randoms())
def test_gm_7_the_flips_are_drawn_for_the_ties_in_the_order_the_queue_meets_them(actions, rnd):
    """Whatever order the actions are listed in and whatever indexes discards left, ``tie_groups`` lists the
    ties exactly as ``resolution_queue`` asks for them, so flip k breaks tie k."""
    cls = {"a": "city", "b": "city", "c": "conspiracy", "d": "conspiracy", "e": "champion", "f": "champion"}
    entries = [
        rules.Entry(action_id=f"{p}{k}", power=p, cls=cls[p], index=k, final_goes_last=p == "f") for p, k in actions
    ]
    rnd.shuffle(entries)
    asked: list[list[str]] = []
    queue = rules.resolution_queue(entries, lambda group: asked.append(group) or list(reversed(group)))
    assert asked == rules.tie_groups(entries)
    assert sorted(queue) == sorted(e.action_id for e in entries)


# ---------------------------------------------------------------- reactions share the action path's bookkeeping


def _reaction_month(*extra_assets: tuple):
    """A (dragon) attacks B openly, resistibly; B holds a might skill and the given assets."""
    g = game_in_planning(
        ("a", "champion", "dragon"),
        ("b", "city", "overlord"),
        assets=[("a-s", "a", "might", "skill", 2), ("b-s", "b", "might", "skill", 1), *extra_assets],
    )
    submit(
        g,
        "a",
        "A1",
        [5, 5],
        slot="public",
        skill="might",
        targets=["b"],
        resistible=True,
        assets=[{"asset_id": "a-s"}],
        convert=0,
    )
    return g


def test_p_asset_8_a_consumable_used_in_a_reaction_is_used_up():
    g = _reaction_month(("potion", "b", "Potion of Fury", "consumable", 1))
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    g.declare_reaction(
        "b",
        "rb",
        "A1",
        now=later(1),
        roller=FixedRoller([6, 5]),
        assets=[{"asset_id": "b-s"}, {"asset_id": "potion"}],
        convert=0,
    )
    assert action_of(g, "A1")["result"]["resisted"] == 2
    g.advance(later(2), SEED)
    err = refused(g, lambda: submit(g, "b", "B1", [6, 6], now=later(2), assets=[{"asset_id": "potion"}]), "P-ASSET-8")
    assert err.message == "'Potion of Fury' has been used up"


def test_p_dice_9_a_novel_asset_used_assured_in_a_reaction_loses_its_surprise():
    g = _reaction_month(("plan", "b", "Hidden postern", "secret", 2, {"novel": True}))
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    g.declare_reaction(
        "b",
        "rb",
        "A1",
        now=later(1),
        roller=FixedRoller([1]),
        assets=[{"asset_id": "b-s"}, {"asset_id": "plan", "mode": "assured"}],
        convert=0,
    )
    assert action_of(g, "A1")["result"]["resisted"] == 2  # the surprise counted once, in the reaction
    g.advance(later(2), SEED)
    err = refused(
        g, lambda: submit(g, "b", "B1", [], now=later(2), assets=[{"asset_id": "plan", "mode": "assured"}]), "P-DICE-6"
    )
    assert err.message == "'Hidden postern' is not assured"


@pytest.mark.parametrize("cls", ["agent", "industry", "army"])
def test_p_asset_12_an_asset_already_used_this_season_adds_nothing_to_a_reaction(cls):
    """P-ASSET-5..7: agents, industries and armies act once a season; B's own action used it this month."""
    g = _reaction_month(("x", "b", "Old friend", cls, 2))
    submit(g, "b", "B1", [6, 6], slot="public", assets=[{"asset_id": "x"}], convert=0)
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    assert g.state.season_ledger == {"x": "B1"}
    err = refused(
        g,
        lambda: g.declare_reaction(
            "b",
            "rb",
            "A1",
            now=later(1),
            roller=FixedRoller([6, 6, 6]),
            assets=[{"asset_id": "b-s"}, {"asset_id": "x"}],
        ),
        "P-ASSET-12",
    )
    assert err.field == "assets" and f"an {cls} acts once a season" in err.message


def test_p_asset_12_a_reaction_enters_the_season_ledger_so_a_later_action_is_undercut():
    g = _reaction_month(("spy", "b", "Spy", "agent", 2))
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    g.declare_reaction(
        "b",
        "rb",
        "A1",
        now=later(1),
        roller=FixedRoller([6, 2, 5]),
        assets=[{"asset_id": "b-s"}, {"asset_id": "spy"}],
        convert=0,
    )
    assert g.state.season_ledger == {"spy": "rb"}
    g.advance(later(2), SEED)  # month 2 of the same season
    submit(g, "b", "B1", [6, 6], now=later(2), slot="public", assets=[{"asset_id": "spy"}], convert=0)
    g.advance(later(2), SEED)
    g.collect_events()
    g.resolve(now=later(2), roller=FixedRoller())
    undercuts = [e for e in g.collect_events() if type(e).__name__ == "AssetUndercut"]
    assert [(u.action_id, u.asset_id, u.audience) for u in undercuts] == [("B1", "spy", ["power:b"])]
    assert resolved_of(g, "B1")["successes"] == 0


# ---------------------------------------------------------------- P-DICE-10 / P-AMB-29: discarding undoes accepting


def test_p_dice_10_discarding_after_accepting_a_consequence_undoes_its_lost_actions_and_status():
    """P-AMB-29: a discarded action applies no consequences; the disclosure, once seen, stays seen."""
    g = game_in_planning(
        ("ov", "city", "overlord"), ("spy", "conspiracy", "circle"), assets=[("s", "ov", "lore", "skill", 2)]
    )
    submit(g, "ov", "a1", [3, 4], assets=[{"asset_id": "s"}], convert=2)
    g.propose_consequence(
        "a1",
        "c1",
        "the scouts are lost; the court grows Restless; a spy learns of it",
        [
            {"kind": "lose_actions", "count": 2},
            {"kind": "status", "name": "Restless", "stacks": 2},
            {"kind": "disclose", "to": "spy", "text": "the Overlord is sending scouts"},
        ],
    )
    g.accept_consequence("a1", "c1")
    ov = sheet_of(g, "ov")
    assert (ov["quota"]["lost_next_month"], ov["statuses"]) == (2, {"Restless": 2})
    g.discard_action("a1", now=NOW)
    ov = sheet_of(g, "ov")
    assert (ov["quota"]["lost_next_month"], ov["statuses"]) == (0, {})
    assert [c["status"] for c in action_of(g, "a1")["consequence_offers"]] == ["undone"]
    assert [x["text"] for x in sheet_of(g, "spy")["learned"]] == ["the Overlord is sending scouts"]
    to_next_month(g)
    for k in range(4):  # all four slots next month: nothing was lost
        submit(g, "ov", f"m2-{k}", [], slot="public" if k < 2 else "private")
    assert sheet_of(g, "ov")["statuses"] == {}


def test_p_amb_29_discarding_undoes_only_that_actions_consequences_and_tells_collaborators_nothing_more():
    g = game_in_planning(("ov", "city", "overlord"), ("ally", "conspiracy", "circle"))
    submit(g, "ov", "a1", [], convert=0, collaborators=["ally"])
    submit(g, "ov", "a2", [], convert=0)
    for aid, count, status in (("a1", 1, "Restless"), ("a2", 2, "Restless"), ("a2", 0, "Burning")):
        effects = [{"kind": "status", "name": status, "stacks": 1}]
        effects += [{"kind": "lose_actions", "count": count}] if count else []
        g.propose_consequence(aid, f"c-{aid}-{status}", "a setback", effects)
        g.accept_consequence(aid, f"c-{aid}-{status}")
    g.collect_events()
    g.discard_action("a1", now=NOW)
    ov = sheet_of(g, "ov")
    assert (ov["quota"]["lost_next_month"], ov["statuses"]) == (2, {"Restless": 1, "Burning": 1})
    (discarded,) = g.collect_events()
    # The ally sees this event: it carries what a1's own consequences undo, not the owner's other statuses.
    assert discarded.audience == ["power:ally", "power:ov"]
    assert discarded.undo == {"lose_actions": 1, "statuses": {"Restless": 1}}


# ---------------------------------------------------------------- GM-2: a sealed difficulty is opened, never replaced


@pytest.mark.parametrize("sealed", [False, True])
def test_gm_2_a_sealed_difficulty_cannot_be_replaced_after_the_roll(sealed):
    g = game_in_planning(("c", "conspiracy", "circle"), assets=[("s", "c", "lore", "skill", 2)])
    submit(g, "c", "a1", roll=False)
    g.set_difficulty("a1", 5, sealed=True, nonce="k" * 16)
    g.roll_action("a1", now=NOW, roller=FixedRoller([6, 5]), assets=[{"asset_id": "s"}], convert=0)
    err = refused(g, lambda: g.set_difficulty("a1", 1, sealed=sealed, nonce="j" * 16), "GM-2")
    assert "can never be replaced" in err.message
    g.advance(NOW, SEED)
    refused(g, lambda: g.set_difficulty("a1", 1), "GM-2")  # nor during Resolution
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    revealed = [e for e in g.collect_events() if type(e).__name__ == "DifficultyRevealed"]
    assert [(e.value, e.commitment) for e in revealed] == [(5, seal_difficulty(5, "k" * 16))]
    a = resolved_of(g, "a1")
    assert (a["difficulty"], a["successes"], a["success"]) == (5, 2, False)


def test_gm_2_before_the_roll_the_gm_may_still_change_a_sealed_difficulty():
    g = game_in_planning(("c", "conspiracy", "circle"))
    submit(g, "c", "a1", roll=False)
    g.set_difficulty("a1", 5, sealed=True, nonce="k" * 16)
    g.set_difficulty("a1", 2)  # no dice seen yet: nothing to adjust to
    assert (action_of(g, "a1")["difficulty"], action_of(g, "a1")["difficulty_commitment"]) == (2, None)


# ---------------------------------------------------------------- P-AMB-5: conversions go where they count


def test_p_amb_5_in_rank_mode_a_conversion_goes_where_it_counts():
    """critical_mode "rank": the critical Ring counts 3 x 2 = 6 whatever its dice; converting its 3 would
    add nothing, so the one conversion goes to the skill's 4: 7 successes, 1 consequence."""
    g = game_in_planning(
        ("c", "conspiracy", "circle"),
        options={"critical_mode": "rank"},
        assets=[("ring", "c", "Ring", "item", 2, {"critical": True}), ("s", "c", "lore", "skill", 1)],
    )
    submit(g, "c", "a1", [3, 1, 4], assets=[{"asset_id": "ring", "mode": "critical"}, {"asset_id": "s"}], convert=1)
    a = action_of(g, "a1")
    assert [i for i, d in enumerate(a["pool"]["dice"]) if d["converted"]] == [2]
    assert (a["successes"], a["consequences"]) == (7, 1)


def test_p_amb_5_in_rank_mode_converting_a_critical_assets_die_is_refused():
    g = game_in_planning(
        ("c", "conspiracy", "circle"),
        options={"critical_mode": "rank"},
        assets=[("ring", "c", "Ring", "item", 2, {"critical": True}), ("s", "c", "lore", "skill", 1)],
    )
    submit(g, "c", "a1", [3, 1, 4], assets=[{"asset_id": "ring", "mode": "critical"}, {"asset_id": "s"}])
    err = refused(g, lambda: g.lock_conversions("a1", now=NOW, dice=[0]), "P-AMB-5")
    assert err.field == "dice" and "add nothing" in err.message
    err = refused(g, lambda: g.lock_conversions("a1", now=NOW, convert=2), "P-AMB-5")
    assert err.message.startswith("you rolled 2 3s and 4s, so you can convert at most 1")
    g.lock_conversions("a1", now=NOW, convert=1)
    assert action_of(g, "a1")["successes"] == 7


def test_p_amb_5_in_rolled_mode_a_conversion_still_goes_to_the_critical_asset_first():
    g = game_in_planning(
        ("c", "conspiracy", "circle"),
        assets=[("ring", "c", "Ring", "item", 2, {"critical": True}), ("s", "c", "lore", "skill", 1)],
    )
    submit(g, "c", "a1", [3, 1, 4], assets=[{"asset_id": "ring", "mode": "critical"}, {"asset_id": "s"}], convert=1)
    a = action_of(g, "a1")
    assert (a["successes"], a["consequences"]) == (3, 1)


# ---------------------------------------------------------------- [003:310]: statuses are stacks, ticked at Cleanup


def test_p_cleanup_status_stacks_tick_down_once_a_season_at_cleanup_and_mana_dissipates():
    """[003:310] "Cleanup: Statuses tick down. Mana dissipates." Cleanup comes once a season, after the
    final month; a month passing ticks nothing. A status is given in stacks, which add up."""
    g = game_in_planning(("c", "conspiracy", "circle"))
    submit(g, "c", "a1", [], convert=0)
    g.propose_consequence(
        "a1",
        "c1",
        "the cell is Despondent and Burning",
        [{"kind": "status", "name": "Despondent", "stacks": 1}, {"kind": "status", "name": "Burning", "stacks": 1}],
    )
    g.accept_consequence("a1", "c1")
    submit(g, "c", "a2", [], convert=0)
    g.propose_consequence("a2", "c2", "more despair", [{"kind": "status", "name": "Despondent", "stacks": 1}])
    g.accept_consequence("a2", "c2")
    g.grant_mana("c", "F", 2)
    assert sheet_of(g, "c")["statuses"] == {"Despondent": 2, "Burning": 1}
    to_next_month(g)
    assert (seen(g)["game"]["month"], sheet_of(g, "c")["statuses"]) == (2, {"Despondent": 2, "Burning": 1})
    assert sheet_of(g, "c")["mana"] == {"F": 2}
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    g.advance(NOW, SEED)
    assert step_of(g) == "cleanup"
    assert sheet_of(g, "c")["statuses"] == {"Despondent": 1} and sheet_of(g, "c")["mana"] == {}


def test_p_cleanup_a_status_given_in_months_is_refused_naming_stacks():
    g = game_in_planning(("c", "conspiracy", "circle"))
    submit(g, "c", "a1", [], convert=0)
    err = refused(
        g, lambda: g.propose_consequence("a1", "c1", "x", [{"kind": "status", "name": "D", "months": 2}]), "GM-3"
    )
    assert err.field == "effects" and "stacks" in err.message and "once a season" in err.message


# ---------------------------------------------------------------- P-EX-8: the Delian Tomb (P-ASSET-4)


def _tomb():
    return game_in_planning(
        ("delver", "champion", "paragon"),
        assets=[
            ("delve", "delver", "delve", "skill", 2),
            ("sub", "delver", "subtlety", "skill", 2),
            ("vig", "delver", "vigilance", "skill", 1),
        ],
    )


def test_p_ex_8_delian_tomb_delve_and_one_other_skill_clear_floor_1():
    """floors: difficulty 3, 5, 7. Pool {Delve 2, Subtlety 2} inside the dungeon: accepted; dice 5,6 | 5,2
    -> 3 successes -> floor 1 (difficulty 3) cleared, excess 0."""
    g = _tomb()
    submit(
        g,
        "delver",
        "floor1",
        [5, 6, 5, 2],
        skill="delve",
        dungeon=True,
        difficulty=3,
        assets=[{"asset_id": "delve"}, {"asset_id": "sub"}],
        convert=0,
    )
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    a = resolved_of(g, "floor1")
    assert (a["successes"], a["difficulty"], a["success"], a["excess"]) == (3, 3, True, 0)


def test_p_ex_8_delian_tomb_a_third_skill_is_refused():
    g = _tomb()
    err = refused(
        g,
        lambda: submit(
            g,
            "delver",
            "floor1",
            [5, 6, 5, 2, 1],
            skill="delve",
            dungeon=True,
            assets=[{"asset_id": "delve"}, {"asset_id": "sub"}, {"asset_id": "vig"}],
        ),
        "P-ASSET-4",
    )
    assert err.message == (
        "in a dungeon a pool may hold Delve and up to one other skill, not delve + subtlety + vigilance"
    )


def test_p_asset_4_two_skills_without_delve_or_outside_a_dungeon_are_refused():
    g = _tomb()
    refused(
        g,
        lambda: submit(g, "delver", "x", [5, 6, 1], dungeon=True, assets=[{"asset_id": "sub"}, {"asset_id": "vig"}]),
        "P-ASSET-4",
    )
    err = refused(
        g,
        lambda: submit(
            g, "delver", "y", [5, 6, 5, 2], skill="delve", assets=[{"asset_id": "delve"}, {"asset_id": "sub"}]
        ),
        "P-ASSET-3",
    )
    assert "only one skill" in err.message
