"""Given events / when command / then events, for the Powers game aggregate. No database."""

from __future__ import annotations

import pytest

from domain.dice import FixedRoller, seal_difficulty
from domain.errors import NotFound
from domain.powers import rules
from domain.powers.game import Game
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


@pytest.mark.parametrize(
    "subclass,cls,options,public,private",
    [
        ("sovereign", "city", {}, 4, 0),
        ("celestial", "city", {}, 4, 0),
        ("overlord", "city", {}, 2, 2),
        ("circle", "conspiracy", {}, 0, 4),
        ("cult", "conspiracy", {}, 0, 4),
        ("cause", "conspiracy", {}, 2, 2),
        ("wizard", "champion", {}, 0, 5),
        ("dragon", "champion", {}, 4, 0),
        ("dragon", "champion", {"subtle_titan": True}, 2, 2),
        ("dragon", "champion", {"subtle_titan_upgraded": True}, 0, 4),
        ("paragon", "champion", {"leading_army": True}, 4, 0),
        ("paragon", "champion", {}, 0, 4),
        ("adversary", "champion", {"private_actions": 2}, 0, 2),
    ],
)
def test_p_act_1_every_class_and_subclass_gets_its_monthly_slots(subclass, cls, options, public, private):
    g = Game.start("g", "gm")
    g.add_power("p", "P", cls, subclass, options)
    quota = sheet_of(g, "p")["quota"]
    assert (quota["public"], quota["private"]) == (public, private)


def test_p_act_1_a_subclass_must_belong_to_its_class():
    g = Game.start("g", "gm")
    refused(g, lambda: g.add_power("p", "P", "city", "wizard"), "P-ACT-1")


def test_p_act_1_an_overlord_third_private_action_is_refused_in_plain_words():
    g = game_in_planning(("ov", "city", "overlord"))
    submit(g, "ov", "a1", [])
    submit(g, "ov", "a2", [])
    err = refused(g, lambda: submit(g, "ov", "a3", []), "P-ACT-1")
    assert err.message == "an Overlord takes 2 private actions a month; this would be the 3rd"
    assert err.field == "slot"
    submit(g, "ov", "a3", [], slot="public")  # the public slots are still free


def test_submitting_records_the_action_the_tagged_roll_and_the_locked_conversions():
    g = game_in_planning(
        ("c", "conspiracy", "circle"), assets=[("s", "c", "subtlety", "skill", 2), ("ag", "c", "Spy", "agent", 1)]
    )
    g.collect_events()
    submit(g, "c", "a1", [3, 6, 4], skill="subtlety", assets=[{"asset_id": "s"}, {"asset_id": "ag"}], convert=1)
    events = g.collect_events()
    assert [type(e).__name__ for e in events] == ["ActionSubmitted", "DiceRolled", "ConversionsLocked"]
    rolled = events[1]
    assert [(d["face"], d["asset"]) for d in rolled.pool["dice"]] == [(3, "s"), (6, "s"), (4, "ag")]
    assert rolled.pool["roll_no"] == 1 and rolled.audience == ["power:c"]
    assert events[2].converted == [0]  # one conversion: the first 3/4
    assert all(e.actor == "c" for e in events)


def test_roll_numbers_are_gap_free_across_actions_and_reactions():
    g = game_in_planning(
        ("c", "conspiracy", "circle"),
        ("d", "champion", "dragon"),
        assets=[("s", "c", "might", "skill", 1), ("t", "d", "might", "skill", 1)],
    )
    submit(g, "c", "a1", [1], assets=[{"asset_id": "s"}], targets=["d"], resistible=True, skill="might")
    submit(g, "d", "a2", [1], slot="public", assets=[{"asset_id": "t"}])
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    g.declare_reaction("d", "r", "a1", now=NOW, roller=FixedRoller([6]), assets=[{"asset_id": "t"}])
    (reaction,) = [r for r in seen(g)["reactions"] if r["reaction_id"] == "r"]
    assert [
        action_of(g, "a1")["pool"]["roll_no"],
        action_of(g, "a2")["pool"]["roll_no"],
        reaction["pool"]["roll_no"],
    ] == [1, 2, 3]


def test_p_asset_1_two_assets_of_one_class_are_refused():
    g = game_in_planning(
        ("c", "conspiracy", "circle"), assets=[("ag1", "c", "Spy", "agent", 1), ("ag2", "c", "Thief", "agent", 2)]
    )
    err = refused(
        g, lambda: submit(g, "c", "a1", [1, 2, 3], assets=[{"asset_id": "ag1"}, {"asset_id": "ag2"}]), "P-ASSET-1"
    )
    assert "only one agent" in err.message


def test_p_asset_3_an_action_tagged_with_a_skill_uses_only_that_skill():
    g = game_in_planning(("c", "conspiracy", "circle"), assets=[("m", "c", "might", "skill", 1)])
    refused(g, lambda: submit(g, "c", "a1", [1], skill="subtlety", assets=[{"asset_id": "m"}]), "P-ASSET-3")


def test_p_dice_8_an_asset_is_never_both_assured_and_critical():
    g = game_in_planning(
        ("c", "conspiracy", "circle"), assets=[("i", "c", "Ring", "item", 2, {"assured": True, "critical": True})]
    )
    refused(g, lambda: submit(g, "c", "a1", [], assets=[{"asset_id": "i", "mode": "both"}]), "P-DICE-8")


def test_p_dice_6_an_asset_that_is_not_assured_cannot_be_used_assured():
    g = game_in_planning(("c", "conspiracy", "circle"), assets=[("i", "c", "Ring", "item", 2)])
    refused(g, lambda: submit(g, "c", "a1", [], assets=[{"asset_id": "i", "mode": "assured"}]), "P-DICE-6")


def test_p_dice_9_a_novel_asset_is_assured_on_first_use_only():
    g = game_in_planning(("c", "conspiracy", "circle"), assets=[("i", "c", "New trick", "item", 2, {"novel": True})])
    submit(g, "c", "a1", [], assets=[{"asset_id": "i", "mode": "assured"}], convert=0)
    assert action_of(g, "a1")["successes"] == 2
    refused(g, lambda: submit(g, "c", "a2", [], assets=[{"asset_id": "i", "mode": "assured"}]), "P-DICE-6")


def test_p_dice_7_critical_triples_the_assets_rolled_successes_not_its_consequences():
    """P-AMB-5: roll the asset's dice, its successes (converted 3/4s included) x3; consequences not multiplied."""
    g = game_in_planning(
        ("c", "conspiracy", "circle"),
        assets=[("i", "c", "Ring", "item", 3, {"critical": True}), ("s", "c", "lore", "skill", 1)],
    )
    submit(g, "c", "a1", [5, 3, 1, 4], assets=[{"asset_id": "i", "mode": "critical"}, {"asset_id": "s"}], convert=1)
    a = action_of(g, "a1")
    # The conversion goes to the critical asset's 3 first: (5 + 3) x 3 = 6; the skill's 4 stays unconverted.
    assert (a["successes"], a["consequences"], a["pool_size"]) == (6, 1, 4)


def test_p_asset_2_an_extra_action_is_a_rank_one_assured_asset_and_spends_a_slot():
    g = game_in_planning(("c", "conspiracy", "circle"))
    submit(g, "c", "a1", [], extra_actions=1, convert=0)
    assert action_of(g, "a1")["successes"] == 1
    assert g.slots_used("c") == (0, 2)
    refused(g, lambda: submit(g, "c", "a2", [], extra_actions=2), "P-AMB-30")


def test_p_dice_3_converting_more_3s_and_4s_than_rolled_is_refused_after_seeing_the_dice():
    g = game_in_planning(("c", "conspiracy", "circle"), assets=[("s", "c", "lore", "skill", 2)])
    submit(g, "c", "a1", [3, 6], assets=[{"asset_id": "s"}])
    err = refused(g, lambda: g.lock_conversions("a1", now=NOW, convert=2), "P-DICE-3")
    assert err.message == "you rolled 1 3s and 4s, so you can convert at most 1"


def test_p_dice_5_conversions_lock_once_and_dice_are_never_rerolled():
    g = game_in_planning(("c", "conspiracy", "circle"), assets=[("s", "c", "lore", "skill", 2)])
    submit(g, "c", "a1", [3, 4], assets=[{"asset_id": "s"}], convert=1)
    refused(g, lambda: g.lock_conversions("a1", now=NOW, convert=2), "P-DICE-5")
    refused(g, lambda: g.roll_action("a1", now=NOW, roller=FixedRoller([6, 6]), assets=[{"asset_id": "s"}]), "P-DICE-5")


def test_p_amb_29_a_discarded_action_stays_spent_and_is_not_resolved():
    g = game_in_planning(("ov", "city", "overlord"))
    submit(g, "ov", "a1", [], convert=0)
    g.discard_action("a1", now=NOW)
    submit(g, "ov", "a2", [], convert=0)
    refused(g, lambda: submit(g, "ov", "a3", []), "P-ACT-1")
    g.advance(NOW, SEED)
    assert g.resolve(now=NOW, roller=FixedRoller()) == ["a2"]


def test_gm_2_a_sealed_difficulty_must_come_before_the_roll():
    g = game_in_planning(("c", "conspiracy", "circle"))
    submit(g, "c", "a1", [], convert=0)
    err = refused(g, lambda: g.set_difficulty("a1", 3, sealed=True, nonce="x" * 16), "GM-2")
    assert "before the roll" in err.message


def test_gm_2_a_sealed_difficulty_is_committed_by_hash_and_revealed_to_the_owner_at_resolution():
    g = game_in_planning(("c", "conspiracy", "circle"))
    submit(g, "c", "a1", roll=False)
    g.collect_events()
    g.set_difficulty("a1", 3, sealed=True, nonce="k" * 16)
    recorded, committed = g.collect_events()
    assert (type(recorded).__name__, recorded.audience, recorded.value) == ("DifficultyRecorded", ["gm"], 3)
    assert (type(committed).__name__, committed.audience) == ("DifficultyCommitted", ["power:c"])
    assert committed.commitment == seal_difficulty(3, "k" * 16) and not hasattr(committed, "value")
    g.roll_action("a1", now=NOW, roller=FixedRoller(), assets=[], convert=0)
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    revealed = [e for e in g.collect_events() if type(e).__name__ == "DifficultyRevealed"]
    assert [(e.value, e.nonce, e.audience) for e in revealed] == [(3, "k" * 16, ["power:c"])]
    assert action_of(g, "a1")["result"]["success"] is False


def test_closing_planning_converts_each_missing_action_into_a_rank_2_scheme():
    """[003:26] "excess actions each convert into rank 2 schemes"."""
    g = game_in_planning(("ov", "city", "overlord"), ("w", "champion", "wizard"))
    submit(g, "ov", "a1", [], convert=0)
    g.collect_events()
    g.advance(NOW, SEED)
    grants = {e.power_id: e.asset_ids for e in g.collect_events() if type(e).__name__ == "SchemesGranted"}
    assert {p: len(ids) for p, ids in grants.items()} == {"ov": 3, "w": 5}
    assert all(asset_of(g, i)["rank"] == 2 and asset_of(g, i)["cls"] == "scheme" for i in grants["w"])


def test_an_unlocked_roll_locks_with_no_conversions_when_planning_closes():
    g = game_in_planning(("c", "conspiracy", "circle"), assets=[("s", "c", "lore", "skill", 2)])
    submit(g, "c", "a1", [3, 4], assets=[{"asset_id": "s"}])
    g.advance(NOW, SEED)
    assert action_of(g, "a1")["pool"]["locked"] and action_of(g, "a1")["consequences"] == 0


def test_actions_are_refused_outside_planning_and_after_its_deadline():
    g = game_in_planning(("c", "conspiracy", "circle"))
    err = refused(g, lambda: submit(g, "c", "a1", [], now=later(72)), "P.1.2")
    assert err.field == "deadline"
    g.advance(NOW, SEED)
    refused(g, lambda: submit(g, "c", "a1", []), "P.1.2")


def test_p_res_3_a_resister_uses_only_its_own_assets():
    g = game_in_planning(
        ("a", "champion", "dragon"), ("b", "city", "sovereign"), assets=[("a-s", "a", "might", "skill", 1)]
    )
    submit(g, "a", "A1", [6], slot="public", targets=["b"], resistible=True, assets=[{"asset_id": "a-s"}])
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    refused(
        g,
        lambda: g.declare_reaction("b", "r", "A1", now=NOW, roller=FixedRoller([6]), assets=[{"asset_id": "a-s"}]),
        "P-RES-3",
    )


def test_only_an_eligible_resister_may_resist():
    g = game_in_planning(("a", "champion", "dragon"), ("b", "city", "sovereign"), ("c", "city", "celestial"))
    submit(g, "a", "A1", [], slot="public", targets=["b"], resistible=True)
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    with pytest.raises(NotFound) as info:
        g.declare_reaction("c", "r", "A1", now=NOW, roller=FixedRoller(), assets=[])
    assert (info.value.rule, info.value.field) == ("P-RES-1", "action_id")
    assert info.value.message == "there is no action you may resist with that id"  # the same as for no such action


def test_p_amb_7_several_resisters_are_summed():
    g = game_in_planning(
        ("a", "champion", "dragon"),
        ("b", "city", "sovereign"),
        ("c", "city", "celestial"),
        assets=[
            ("a-s", "a", "might", "skill", 4),
            ("b-s", "b", "might", "skill", 1),
            ("c-s", "c", "might", "skill", 1),
        ],
    )
    submit(
        g,
        "a",
        "A1",
        [6, 6, 5, 5],
        slot="public",
        targets=["b", "c"],
        resistible=True,
        difficulty=2,
        assets=[{"asset_id": "a-s"}],
    )
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    g.declare_reaction("b", "rb", "A1", now=NOW, roller=FixedRoller([6]), assets=[{"asset_id": "b-s"}])
    g.declare_reaction("c", "rc", "A1", now=NOW, roller=FixedRoller([5]), assets=[{"asset_id": "c-s"}])
    a = resolved_of(g, "A1")
    assert (a["net"], a["success"], a["excess"], step_of(g)) == (2, True, 0, "battle")


def test_the_calendar_runs_tidings_months_cleanup_and_the_next_season():
    g = game_in_planning(("c", "conspiracy", "circle"))
    g.set_months(3)
    steps = []
    for _ in range(14):
        if step_of(g) == "resolution":
            g.resolve(now=NOW, roller=FixedRoller())
        else:
            g.advance(NOW, SEED)
        steps.append((seen(g)["game"]["season"], seen(g)["game"]["month"], step_of(g)))
    # Resolving with nothing to resist closes the window at once, so Resistance passes straight to Battle.
    assert steps == [
        (1, 1, "resolution"),
        (1, 1, "battle"),
        (1, 2, "planning"),
        (1, 2, "resolution"),
        (1, 2, "battle"),
        (1, 3, "planning"),
        (1, 3, "resolution"),
        (1, 3, "battle"),
        (1, 3, "cleanup"),
        (2, 0, "tidings"),
        (2, 1, "planning"),
        (2, 1, "resolution"),
        (2, 1, "battle"),
        (2, 2, "planning"),
    ]


def test_cleanup_ticks_statuses_down_and_dissipates_mana():
    g = game_in_planning(("c", "conspiracy", "circle"))
    submit(g, "c", "a1", [], convert=0)
    g.propose_consequence(
        "a1",
        "c1",
        "despair and fire",
        [{"kind": "status", "name": "Despondent", "stacks": 2}, {"kind": "status", "name": "Burning", "stacks": 1}],
    )
    g.accept_consequence("a1", "c1")
    g.grant_mana("c", "F", 2)
    assert (sheet_of(g, "c")["statuses"], sheet_of(g, "c")["mana"]) == ({"Despondent": 2, "Burning": 1}, {"F": 2})
    for _ in range(8):
        if step_of(g) == "resolution":
            g.resolve(now=NOW, roller=FixedRoller())
        elif step_of(g) != "cleanup":
            g.advance(NOW, SEED)
    assert step_of(g) == "cleanup"
    assert sheet_of(g, "c")["statuses"] == {"Despondent": 1} and sheet_of(g, "c")["mana"] == {}


def test_a_season_lasts_two_or_three_months():
    g = Game.start("g", "gm")
    refused(g, lambda: g.set_months(4), "P-AMB-2")


def test_event_names_are_past_tense_and_carry_actor_and_audience():
    g = game_in_planning(("c", "conspiracy", "circle"))
    submit(g, "c", "a1", [], convert=0)
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    for e in g.collect_events():
        assert e.actor in ("gm", "system", "c")
        assert isinstance(e.audience, list) and e.audience
    assert rules.ordinal(3) == "3rd" and rules.ordinal(11) == "11th" and rules.ordinal(22) == "22nd"
