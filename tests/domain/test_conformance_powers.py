"""Worked examples of rules/ANALYSIS.md P.5 as conformance tests, with the dice given explicitly."""

from __future__ import annotations

import pytest

from domain.dice import FixedRoller
from domain.errors import RuleViolation
from domain.powers.views import board_view
from tests.domain.helpers import (
    NOW,
    SEED,
    action_of,
    game_in_planning,
    later,
    resolved_of,
    seen,
    sheet_of,
    step_of,
    submit,
)


def test_p_ex_1_rangers_negotiate_with_elrond_full_success_with_one_consequence():
    """[003:52] "They roll 6,6,5,3,1,1. They take 1 consequence" -> 4 successes, the top tier."""
    g = game_in_planning(
        ("rangers", "conspiracy", "circle"),
        ("gondor", "city", "sovereign"),
        assets=[
            ("nego", "rangers", "negotiation", "skill", 3),
            ("archive", "rangers", "Dunedain archive", "secret", 3),
        ],
    )
    g.submit_action(
        "rangers", "talk", "Win Elrond over", now=NOW, roller=FixedRoller(), skill="negotiation", roll=False
    )
    g.set_difficulty(
        "talk", 2, sealed=True, nonce="n" * 16, tiers={2: "deal, artifact handed over", 4: "full, no artifact"}
    )
    g.roll_action(
        "talk",
        now=NOW,
        roller=FixedRoller([6, 6, 5, 3, 1, 1]),
        assets=[{"asset_id": "nego"}, {"asset_id": "archive"}],
        convert=1,
    )
    g.propose_consequence(
        "talk",
        "c1",
        "Enemies kidnapped one of the emissaries; another power now knows you have "
        "the artifact and the location of one of your outposts",
        [{"kind": "disclose", "to": "gondor", "text": "Rangers hold the artifact; outpost at Weathertop"}],
    )
    g.accept_consequence("talk", "c1")
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    a = resolved_of(g, "talk")
    assert (a["successes"], a["success"], a["excess"]) == (4, True, 2)
    assert action_of(g, "talk")["consequences"] == 1
    events = g.collect_events()
    resolved = [e for e in events if type(e).__name__ == "ActionResolved"][-1]
    assert resolved.tier == "full, no artifact"
    assert resolved.audience == ["power:rangers"]  # a private action's result: its owner (and the GM)
    grants = [e for e in events if type(e).__name__ == "VisibilityGranted"]
    assert [(e.to, e.text, e.audience) for e in grants] == [
        ("gondor", "Rangers hold the artifact; outpost at Weathertop", ["power:gondor"])
    ]
    gondor = board_view(g, "gondor")
    assert "Win Elrond over" not in str(gondor)  # the private action itself stays hidden


def test_p_ex_1_alternative_branch_without_conversion_reaches_only_the_deal():
    """convert_3s4s = 0 -> successes 3 -> tier 2 (deal, artifact transferred)."""
    g = game_in_planning(("rangers", "conspiracy", "circle"), assets=[("nego", "rangers", "negotiation", "skill", 6)])
    g.submit_action("rangers", "talk", "Win Elrond over", now=NOW, roller=FixedRoller(), roll=False)
    g.set_difficulty("talk", 2, tiers={2: "deal", 4: "full"})
    g.roll_action("talk", now=NOW, roller=FixedRoller([6, 6, 5, 3, 1, 1]), assets=[{"asset_id": "nego"}], convert=0)
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    resolved = [e for e in g.collect_events() if type(e).__name__ == "ActionResolved"][-1]
    assert (resolved.successes, resolved.tier) == (3, "deal")


def _gandalf_month():
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
    submit(
        g,
        "gandalf",
        "duel",
        [5, 4, 3, 3, 2, 1],
        title="Duel the Balrog",
        skill="might",
        targets=["balrog"],
        resistible=True,
        difficulty=1,
        assets=[{"asset_id": "might"}, {"asset_id": "staff"}, {"asset_id": "blade", "mode": "assured"}],
        convert=3,
    )
    g.propose_consequence(
        "duel",
        "c1",
        "lose two actions next month; the party is Despondent",
        [{"kind": "lose_actions", "count": 2}, {"kind": "status", "name": "Despondent", "stacks": 2}],
    )
    g.accept_consequence("duel", "c1")
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    return g


def test_p_ex_2_gandalf_duels_the_balrog_and_wins_on_net_successes():
    """S_action 6 (1 + 3 converted + 2 assured), 3 consequences; resisted by 3 -> net 3 >= 1, excess 2."""
    g = _gandalf_month()
    duel = action_of(g, "duel")
    assert duel["status"] == "provisional" and duel["successes"] == 6
    assert duel["consequences"] == 3
    assert board_view(g, "balrog")["may_resist"] == [
        {
            "action_id": "duel",
            "power": "gandalf",
            "power_name": "Gandalf",
            "title": "Duel the Balrog",
            "skill": "might",
            "pool_size": 8,
            "status": "provisional",
        }
    ]
    g.collect_events()
    g.declare_reaction(
        "balrog",
        "rx",
        "duel",
        now=later(3),
        roller=FixedRoller([6, 5, 5, 2, 1]),
        assets=[{"asset_id": "b-might"}],
        convert=0,
    )
    names = [type(e).__name__ for e in g.collect_events()]
    # Rewards only after the window closes (P-RES-5): here it closes early, everyone having acted.
    assert names == ["ReactionDeclared", "WindowClosed", "ActionResolved", "StepBegan"]
    duel = resolved_of(g, "duel")
    assert (duel["successes"], duel["resisted"], duel["net"], duel["success"], duel["excess"]) == (6, 3, 3, True, 2)


def test_p_ex_2_gandalf_has_three_actions_next_month():
    """Consequence "lose two actions next month": 5 - 2 = 3 (P-ACT-2)."""
    g = _gandalf_month()
    g.waive_reactions("balrog", now=later(1))
    g.advance(later(2), SEED)
    assert (seen(g)["game"]["month"], step_of(g)) == (2, "planning")
    for i in range(3):
        submit(g, "gandalf", f"m2-{i}", [], now=later(2))
    with pytest.raises(RuleViolation) as refused:
        submit(g, "gandalf", "m2-4", [], now=later(2))
    assert refused.value.rule == "P-ACT-2"
    assert "this would be the 4th" in refused.value.message
    assert sheet_of(g, "gandalf")["statuses"] == {"Despondent": 2}


def _three_powers(wizard_actions: int):
    g = game_in_planning(("wiz", "champion", "wizard"), ("circ", "conspiracy", "circle"), ("sov", "city", "sovereign"))
    for k in range(1, 5):
        submit(g, "sov", f"Sov{k}", [], slot="public")
        submit(g, "circ", f"Circ{k}", [])
    for k in range(1, wizard_actions + 1):
        submit(g, "wiz", f"Wiz{k}", [])
    g.advance(NOW, SEED)
    return g


def test_p_ex_14_resolution_order_champion_conspiracy_city_wizard_final_last():
    g = _three_powers(5)
    queue = g.resolve(now=NOW, roller=FixedRoller())
    assert queue == [
        "Wiz1",
        "Circ1",
        "Sov1",
        "Wiz2",
        "Circ2",
        "Sov2",
        "Wiz3",
        "Circ3",
        "Sov3",
        "Wiz4",
        "Circ4",
        "Sov4",
        "Wiz5",
    ]


def test_p_ex_14_a_wizard_reduced_to_three_actions_still_resolves_its_final_action_last():
    g = _three_powers(3)
    queue = g.resolve(now=NOW, roller=FixedRoller())
    assert queue == ["Wiz1", "Circ1", "Sov1", "Wiz2", "Circ2", "Sov2", "Circ3", "Sov3", "Circ4", "Sov4", "Wiz3"]


def test_p_ex_14_two_cities_tie_is_broken_by_a_logged_coin_flip():
    g = game_in_planning(("sov", "city", "sovereign"), ("sov2", "city", "celestial"))
    submit(g, "sov", "Sov1", [], slot="public")
    submit(g, "sov2", "Sov'1", [], slot="public")
    g.advance(NOW, SEED)
    g.collect_events()
    queue = g.resolve(now=NOW, roller=FixedRoller(permutations=[[1, 0]]))
    assert queue == ["Sov'1", "Sov1"]
    flips = [e for e in g.collect_events() if type(e).__name__ == "TiesBroken"]
    assert [(f.tied, f.order, f.audience) for f in flips] == [(["sov", "sov2"], ["sov2", "sov"], ["gm"])]


def test_p_ex_15_undercut_on_a_shared_asset_removes_its_dice_and_their_consequences():
    """Y1 used GuildX first; X1 loses GuildX's [5,3] and the consequence on the 3: successes 1 (the 6)."""
    g = game_in_planning(
        ("y", "champion", "dragon"),
        ("x", "conspiracy", "circle"),
        assets=[("guildx", "y", "Guild X", "industry", 2), ("skill-x", "x", "craft", "skill", 2)],
    )
    g.grant_asset("guildx", "x", "Guild X", "industry", 2)
    submit(g, "y", "Y1", [6, 5], slot="public", assets=[{"asset_id": "guildx"}], convert=0)
    submit(g, "x", "X1", [5, 3, 6, 2], assets=[{"asset_id": "guildx"}, {"asset_id": "skill-x"}], convert=1)
    g.advance(NOW, SEED)
    g.collect_events()
    g.resolve(now=NOW, roller=FixedRoller())
    x1 = action_of(g, "X1")
    assert (x1["successes"], x1["consequences"]) == (1, 0)
    assert resolved_of(g, "Y1")["successes"] == 2
    undercuts = [e for e in g.collect_events() if type(e).__name__ == "AssetUndercut"]
    assert [(u.action_id, u.audience) for u in undercuts] == [("X1", ["power:x"])]  # told to the loser only


def _window_game():
    g = game_in_planning(
        ("a", "champion", "dragon"),
        ("b", "city", "sovereign"),
        ("c", "city", "overlord"),
        assets=[
            ("a-might", "a", "might", "skill", 3),
            ("b-might", "b", "might", "skill", 2),
            ("c-might", "c", "might", "skill", 2),
        ],
    )
    submit(
        g,
        "a",
        "A1",
        [5, 5, 1],
        slot="public",
        skill="might",
        targets=["b", "c"],
        resistible=True,
        difficulty=1,
        assets=[{"asset_id": "a-might"}],
        convert=0,
    )
    submit(g, "a", "A2", [], slot="public", targets=["b"], resistible=True, difficulty=0)
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    return g


def test_p_ex_16_one_reaction_a_month_and_the_window_closes_at_its_deadline():
    g = _window_game()
    assert sheet_of(g, "b")["reactions_left"] == 1
    g.declare_reaction("b", "rb", "A1", now=later(3), roller=FixedRoller([5, 2]), assets=[{"asset_id": "b-might"}])
    assert sheet_of(g, "b")["reactions_left"] == 0  # its one reaction this month is used
    with pytest.raises(RuleViolation) as second:
        g.declare_reaction("b", "rb2", "A2", now=later(4), roller=FixedRoller([6, 6]), assets=[{"asset_id": "b-might"}])
    assert second.value.rule == "P-RES-1"
    with pytest.raises(RuleViolation) as early:  # not yet due: a worker's close is refused
        g.close_window("s1m1-resistance", now=later(23))
    assert (early.value.rule, early.value.field) == ("P-RES-2", "window_id")
    assert g.close_window("s1m1-resistance", now=later(24)) is True
    assert g.close_window("s1m1-resistance", now=later(24)) is False  # idempotent
    a1 = resolved_of(g, "A1")
    assert (a1["successes"], a1["resisted"], a1["net"], a1["success"]) == (
        2,
        1,
        1,
        True,
    )
    with pytest.raises(RuleViolation) as late:
        g.declare_reaction("c", "rc", "A1", now=later(25), roller=FixedRoller([6, 6]), assets=[{"asset_id": "c-might"}])
    assert late.value.rule == "P-RES-2"


def test_p_ex_16_a_late_reaction_is_refused_even_before_any_worker_closed_the_window():
    g = _window_game()
    with pytest.raises(RuleViolation) as late:
        g.declare_reaction(
            "c", "rc", "A1", now=later(24.01), roller=FixedRoller([6, 6]), assets=[{"asset_id": "c-might"}]
        )
    assert late.value.rule == "P-RES-2"
    assert seen(g)["reactions"] == []
