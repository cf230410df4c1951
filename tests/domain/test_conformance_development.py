"""Conformance tests of fame, development, ambitions and resources (rules/ANALYSIS.md P.2.2, P.2.5), and the
worked examples P-EX-7 and P-EX-13 as written there."""

from __future__ import annotations

import pytest

from domain.dice import FixedRoller
from domain.errors import NotFound, RuleViolation
from domain.powers.game import Game
from domain.powers.views import board_view
from tests.domain.helpers import (
    NOW,
    SEED,
    action_of,
    ambition_of,
    asset_of,
    question_of,
    refused,
    resolved_of,
    seen,
    sheet_of,
    step_of,
    submit,
)


def at_tidings(*powers: tuple) -> Game:
    """A game at the first Tidings with these ``(id, cls, subclass)`` powers."""
    g = Game.start("Development", "GM")
    for pid, cls, sub, *opts in powers:
        g.add_power(pid, pid.title(), cls, sub, opts[0] if opts else None)
    g.advance(NOW, SEED)
    assert step_of(g) == "tidings"
    return g


def wallet(g: Game, power: str) -> dict:
    return dict(g.holdings(power).wallet)


def names(g: Game) -> list[str]:
    return [type(e).__name__ for e in g.collect_events()]


# ---------------------------------------------------------------------- resources


def test_p_asset_9_resources_are_never_assets():
    """P-ASSET-9 — "Coin, respect, fear, mana, favor, insight and influence cannot go into a pool."
    [003:146] "These are not assets in and of themselves, so cannot be directly applied to challenges." """
    g = at_tidings(("rangers", "conspiracy", "circle"))
    for resource in ("coin", "respect", "fear", "mana", "favor", "insight", "influence"):
        refused(g, lambda r=resource: g.grant_asset(f"a-{r}", "rangers", r.title(), r, 2), "P-ASSET-9")
    g.adjust_resources("rangers", {"coin": 5, "insight": 2}, "starting resources")
    g.grant_asset("nego", "rangers", "negotiation", "skill", 2)
    g.advance(NOW, SEED)
    for pick in ({"asset_id": "coin"}, {"resource": "insight"}, {"resource": "Fear"}):
        err = refused(
            g,
            lambda p=pick: submit(g, "rangers", "bribe", [6, 6, 6], assets=[{"asset_id": "nego"}, p]),
            "P-ASSET-9",
        )
        assert err.field == "assets"
    submit(g, "rangers", "bribe", [6, 6], assets=[{"asset_id": "nego"}])  # the same pool without the resource
    assert action_of(g, "bribe")["pool"] is not None


def test_p_asset_10_respect_and_fear_are_spent_like_coin_but_never_traded():
    """P-ASSET-10 — "Respect and fear are spendable but not tradeable."
    [003:166] "Respect can be spent like coin, but can't be traded." [003:263] "Choose whether your power
    uses Respect or Fear (see Resources) to exert control, and start with 3 of the chosen resources." """
    g = at_tidings(("overlord", "city", "overlord"), ("cause", "conspiracy", "cause"))
    g.choose_control("overlord", "fear")
    assert wallet(g, "overlord") == {"fear": 3}
    g.spend_resources("overlord", {"fear": 2}, "cow the guild into paying its fee")
    assert wallet(g, "overlord") == {"fear": 1}
    ledger = [e for e in g.collect_events() if type(e).__name__ == "WalletChanged"]
    assert [(e.changes, e.reason, e.audience) for e in ledger] == [
        ({"fear": 3}, "starts with 3 fear ([003:263])", ["power:overlord"]),
        ({"fear": -2}, "cow the guild into paying its fee", ["power:overlord"]),
    ]
    refused(g, lambda: g.choose_control("overlord", "respect"), "P-ASSET-10")  # chosen once
    err = refused(g, lambda: g.spend_resources("overlord", {"fear": 2}, "more"), "P-ASSET-10")
    assert "has 1 fear and cannot pay 2" in err.message
    g.adjust_resources("cause", {"coin": 4}, "tithes")
    g.choose_control("cause", "respect")
    refused(g, lambda: g.propose_trade("overlord", "t1", "cause", {"fear": 1}, {"coin": 1}), "P-ASSET-10")
    refused(g, lambda: g.propose_trade("overlord", "t1", "cause", {}, {"respect": 1}), "P-ASSET-10")
    refused(g, lambda: g.adjust_resources("cause", {"coin": -5}, "fine"), "P-ASSET-10")
    assert wallet(g, "overlord") == {"fear": 1} and wallet(g, "cause") == {"coin": 4, "respect": 3}


def test_p_asset_10_a_trade_is_an_offer_both_sides_move_when_the_other_accepts():
    """P-ASSET-10 — coin (and favor and insight) change hands; a trade is an offer accepted by both sides:
    [003:158] "Coin … can also change hands to cover fees, bribes, and the costs of many other actions." """
    g = at_tidings(
        ("gondor", "city", "sovereign"), ("rangers", "conspiracy", "circle"), ("smaug", "champion", "dragon")
    )
    g.adjust_resources("gondor", {"coin": 5}, "treasury")
    g.adjust_resources("rangers", {"insight": 2, "favor": 1}, "old debts")
    refused(g, lambda: g.propose_trade("gondor", "t0", "rangers", {"coin": 6}, {}), "P-ASSET-10")
    g.propose_trade("gondor", "t1", "rangers", {"coin": 3}, {"insight": 1, "favor": 1}, note="for the maps")
    assert wallet(g, "gondor") == {"coin": 5}  # nothing moves on an offer
    with pytest.raises(RuleViolation, match="only the power it was offered to"):
        g.accept_trade("gondor", "t1")
    with pytest.raises(NotFound):
        g.accept_trade("smaug", "t1")  # a third power does not learn the trade exists
    g.collect_events()
    g.accept_trade("rangers", "t1")
    assert names(g) == ["TradeAccepted"]  # one event moves both sides
    assert wallet(g, "gondor") == {"coin": 2, "insight": 1, "favor": 1}
    assert wallet(g, "rangers") == {"coin": 3, "insight": 1, "favor": 0}
    refused(g, lambda: g.accept_trade("rangers", "t1"), None)  # accepted once
    # A wallet that no longer holds what it offered: the acceptance is refused and nothing moves.
    g.propose_trade("rangers", "t2", "gondor", {"insight": 1}, {"coin": 2})
    g.spend_insight("rangers", "q1", "Who funds the rebels?")
    refused(g, lambda: g.accept_trade("gondor", "t2"), "P-ASSET-11")
    g.withdraw_trade("rangers", "t2")
    # The side that accepts learns the offer fails, not what the other wallet holds ([003:330]).
    g.propose_trade("gondor", "t5", "rangers", {"coin": 2}, {})
    g.spend_resources("gondor", {"coin": 1}, "a bribe")
    err = refused(g, lambda: g.accept_trade("rangers", "t5"), "P-ASSET-10")
    assert "no longer holds what it offered" in err.message and "has 1" not in err.message
    g.withdraw_trade("gondor", "t5")
    g.propose_trade("rangers", "t3", "gondor", {"coin": 1}, {})
    g.decline_trade("gondor", "t3")
    # every trade made, as the GM sees them on the sheet of gondor (a side of each)
    assert [(t["trade_id"], t["status"]) for t in seen(g)["development"]["sheets"]["gondor"]["trades"]] == [
        ("t1", "accepted"),
        ("t2", "withdrawn"),
        ("t3", "declined"),
        ("t5", "withdrawn"),
    ]
    refused(g, lambda: g.propose_trade("rangers", "t4", "gondor", {"fame": 1}, {}), "P-DEV-1")


def test_p_asset_11_a_favor_is_an_infusion_of_three_light_or_dark_mana():
    """P-ASSET-11 — "Favor may be exchanged for 3 Light or Dark mana."
    [003:180] "You can spend a favor for game-breaking instantaneous miracles, for an infusion of 3 Light or
    Dark mana, or to replace an army keyword with a premium keyword on levelup."
    A Cult stores 2 of each mana (P-MAG-1): the 3 Dark go to its store only once it can hold them; before, they
    are spent during one of its actions and held by it (P-AMB-37)."""
    g = at_tidings(("cult", "conspiracy", "cult"))
    refused(g, lambda: g.spend_favor("cult", "mana", question_id="f0", element="Dark"), "P-ASSET-11")
    g.adjust_resources("cult", {"favor": 3}, "a patron's boon")
    refused(g, lambda: g.spend_favor("cult", "mana", question_id="f0", element="Fire"), "P-ASSET-11")
    refused(g, lambda: g.spend_favor("cult", "wish", question_id="f0"), "P-ASSET-11")
    refused(g, lambda: g.spend_favor("cult", "mana", question_id="f0", element="Dark"), "P-MAG-1")  # cap 2
    g.advance(NOW, SEED)
    submit(g, "cult", "a1", [], title="Call the dark", roll=False)
    g.spend_favor("cult", "mana", question_id="f1", element="Dark", action_id="a1", now=NOW)
    assert sheet_of(g, "cult")["mana"] == {} and wallet(g, "cult") == {"favor": 2}
    assert names(g)[-2:] == ["FavorSpent", "ManaChannelled"]
    g.grant_magic_perk("cult", "excellent_personal_magic")  # stores 3 of each
    g.spend_favor("cult", "mana", question_id="f2", element="Dark")
    assert sheet_of(g, "cult")["mana"] == {"D": 3} and wallet(g, "cult") == {"favor": 1}
    assert names(g)[-2:] == ["FavorSpent", "ManaGranted"]
    g.spend_favor("cult", "miracle", question_id="f3", request="Part the river at Derop")
    assert wallet(g, "cult") == {"favor": 0}
    assert question_of(g, "f3")["text"] == "Part the river at Derop"
    refused(g, lambda: g.spend_resources("cult", {"favor": 1}, "spend it like coin"), "P-ASSET-11")


def test_p_asset_11_an_insight_is_spent_when_its_question_is_asked_and_the_gm_answers():
    """P-ASSET-11 — "Insights are spent to ask follow-up questions; the GM answers, so this is a workflow."
    [003:162] "You can expend an insight to ask followup questions to any piece of information that the GM
    provides." """
    g = at_tidings(("rangers", "conspiracy", "circle"), ("gondor", "city", "sovereign"))
    refused(g, lambda: g.spend_insight("rangers", "q1", "Where is the mentor held?"), "P-ASSET-11")
    g.adjust_resources("rangers", {"insight": 1}, "a spy's report")
    g.spend_insight("rangers", "q1", "Where is the mentor held?")
    assert wallet(g, "rangers") == {"insight": 0}
    g.answer_question("q1", "In the Octarine Oubliette, first floor")
    mine = board_view(g, "rangers")["development"]["mine"]["questions"]
    assert mine == [
        {
            "question_id": "q1",
            "kind": "insight",
            "text": "Where is the mentor held?",
            "answer": "In the Octarine Oubliette, first floor",
        }
    ]
    assert "Octarine" not in str(board_view(g, "gondor"))


def test_a_wallet_change_is_an_event_with_its_reason_seen_by_the_owner_and_the_gm_only():
    """P.4 — "A power's non-asset resources such as coin, respect, fear, and mana are private." [003:330]"""
    g = at_tidings(("gondor", "city", "sovereign"), ("rangers", "conspiracy", "circle"))
    g.collect_events()
    g.adjust_resources("gondor", {"coin": 7, "fame": 2}, "taxes of Minas Tirith")
    [e] = g.collect_events()
    assert (type(e).__name__, e.changes, e.reason, e.audience) == (
        "WalletChanged",
        {"coin": 7, "fame": 2},
        "taxes of Minas Tirith",
        ["power:gondor"],
    )
    assert board_view(g, "gondor")["development"]["mine"]["wallet"]["coin"] == 7
    assert "mine" not in board_view(g, "gm")["development"]
    assert board_view(g, "gm")["development"]["sheets"]["gondor"]["wallet"]["coin"] == 7
    other = board_view(g, "rangers")["development"]
    assert other["mine"]["wallet"]["coin"] == 0 and "sheets" not in other and "Minas" not in str(other)
    refused(g, lambda: g.adjust_resources("gondor", {"coin": 1}, "  "), None)
    refused(g, lambda: g.adjust_resources("gondor", {"mana": 1}, "x"), None)


# ---------------------------------------------------------------------- fame and development


def test_p_dev_1_fame_is_spent_only_during_tidings():
    """P-DEV-1 — "When fame can be spent. Only during Tidings."
    [003:241] "At the start of each season, during Tidings, powers may spend fame on new skills, new skill
    ranks and new perks." """
    g = at_tidings(("gondor", "city", "sovereign"))
    g.award_fame("gondor", 10, "helped the GM")
    g.advance(NOW, SEED)
    assert step_of(g) == "planning"
    for kind, name in (("skill", "lore"), ("perk", "Quickdraw")):
        err = refused(g, lambda k=kind, n=name: g.buy_development("gondor", k, n, asset_id="s1"), "P-DEV-1")
        assert "Tidings" in err.message
    assert wallet(g, "gondor") == {"fame": 10}


def test_p_dev_2_the_kth_new_skill_costs_2k_fame_and_starting_skills_do_not_count():
    """P-DEV-2 — "The k-th New Skill purchase costs 2k fame (2, 4, 6, …). The counter is kept per power and
    ignores starting skills." [003:243] "New Skill: 2 Fame, then increase the cost of this development by 2" """
    g = at_tidings(("gondor", "city", "sovereign"), ("rohan", "city", "sovereign"))
    g.grant_asset("g-might", "gondor", "might", "skill", 2)
    g.grant_asset("g-nego", "gondor", "negotiation", "skill", 2)
    g.award_fame("gondor", 12, "GM award")
    g.award_fame("rohan", 2, "GM award")
    assert g.buy_development("gondor", "skill", "lore", asset_id="s1") == 2
    assert g.buy_development("gondor", "skill", "craft", asset_id="s2") == 4
    assert g.buy_development("gondor", "skill", "delve", asset_id="s3") == 6
    assert wallet(g, "gondor")["fame"] == 0
    assert (asset_of(g, "s3")["name"], asset_of(g, "s3")["rank"], asset_of(g, "s3")["holders"]) == (
        "delve",
        1,
        ["gondor"],
    )
    assert g.buy_development("rohan", "skill", "lore", asset_id="s4") == 2  # the counter is per power
    g.award_fame("gondor", 7, "GM award")
    refused(g, lambda: g.buy_development("gondor", "skill", "command", asset_id="s5"), "P-DEV-2")  # costs 8
    refused(g, lambda: g.buy_development("gondor", "skill", "might", asset_id="s5"), "P-DEV-2")  # already held


def test_p_dev_3_raising_a_skill_to_rank_r_costs_2r_fame():
    """P-DEV-3 — "Raising a skill to rank r costs 2r. Going from rank 2 to rank 3 costs 6."
    [003:244] "+1 Skill Rank: The number of ranks you're reaching times 2" """
    g = at_tidings(("gondor", "city", "sovereign"))
    g.grant_asset("g-might", "gondor", "might", "skill", 2)
    g.award_fame("gondor", 6, "GM award")
    assert g.buy_development("gondor", "rank", "might") == 6
    assert asset_of(g, "g-might")["rank"] == 3 and wallet(g, "gondor")["fame"] == 0
    g.award_fame("gondor", 7, "GM award")
    err = refused(g, lambda: g.buy_development("gondor", "rank", "might"), "P-DEV-3")
    assert "costs 8 fame" in err.message
    refused(g, lambda: g.buy_development("gondor", "rank", "lore"), "P-DEV-3")  # no lore skill to raise


def test_p_dev_4_the_kth_new_perk_or_upgrade_costs_5_plus_2_k_minus_1_on_one_counter():
    """P-DEV-4 — "The k-th New-Perk-or-Upgrade purchase costs 5 + 2(k−1) (5, 7, 9, …). New perks and upgrades
    share one counter (P-AMB-33). Starting perks do not count." [003:245] "New Perk or upgrade this perk: 5 Fame,
    then increase the cost of this development by 2" """
    g = at_tidings(("smaug", "champion", "dragon"))
    g.grant_perk("smaug", "Subtle Titan")  # a starting perk: free, not counted
    g.award_fame("smaug", 21, "GM award")
    assert g.buy_development("smaug", "perk", "Warbacked") == 5
    assert g.buy_development("smaug", "upgrade", "Subtle Titan") == 7
    assert g.buy_development("smaug", "perk", "Monstrous") == 9
    assert wallet(g, "smaug")["fame"] == 0
    perks = board_view(g, "gm")["development"]["perks"]["smaug"]
    assert [(p["name"], p["upgrades"], p["starting"]) for p in perks] == [
        ("Subtle Titan", 1, True),
        ("Warbacked", 0, False),
        ("Monstrous", 0, False),
    ]
    g.award_fame("smaug", 20, "GM award")
    refused(g, lambda: g.buy_development("smaug", "upgrade", "Subtle Titan"), "P-DEV-4")  # already upgraded
    refused(g, lambda: g.buy_development("smaug", "upgrade", "Warbacked"), "P-DEV-4")  # has no upgrade


def test_p_dev_4_personal_touch_bought_makes_actions_spent_as_assets_rank_2():
    """P-DEV-4 with [003:885] "Personal Touch: Your actions are rank 2 assets for challenges": a perk bought
    is read by the rules at once."""
    g = at_tidings(("gondor", "city", "sovereign"))
    g.award_fame("gondor", 5, "GM award")
    g.buy_development("gondor", "perk", "Personal Touch")
    g.advance(NOW, SEED)
    submit(g, "gondor", "a1", [], slot="public", extra_actions=1)
    assert [(a["cls"], a["rank"], a["mode"]) for a in action_of(g, "a1")["pool"]["assets"]] == [
        ("action", 2, "assured")
    ]


def test_p_dev_5_perks_restricted_to_conspiracies_to_the_chosen_resource_and_exclusive_pairs():
    """P-DEV-5 — "Only Conspiracies can take these perks" (influence perks, [003:927]). Respect perks and fear
    perks require the power's chosen resource ([003:943], [003:953]). A pair marked 🆚 is mutually exclusive;
    for example, Municipal Mana and Urban Outposts ([003:938])."""
    g = at_tidings(("gondor", "city", "sovereign"), ("cult", "conspiracy", "cult"))
    g.award_fame("gondor", 50, "GM award")
    g.award_fame("cult", 50, "GM award")
    err = refused(g, lambda: g.buy_development("gondor", "perk", "Mass Channel"), "P-DEV-5")
    assert "only Conspiracies" in err.message
    refused(g, lambda: g.buy_development("gondor", "perk", "Mercy Campaign"), "P-DEV-5")  # no resource chosen
    g.choose_control("gondor", "fear")
    refused(g, lambda: g.buy_development("gondor", "perk", "Mercy Campaign"), "P-DEV-5")  # a respect perk
    assert g.buy_development("gondor", "perk", "Little Cruelties") == 5
    assert g.buy_development("cult", "perk", "Municipal Mana") == 5
    err = refused(g, lambda: g.buy_development("cult", "perk", "Urban Outposts"), "P-DEV-5")
    assert "exclude each other" in err.message
    refused(g, lambda: g.buy_development("cult", "perk", "Big Family"), "P-DEV-5")  # a Sovereign's perk
    refused(g, lambda: g.buy_development("cult", "perk", "Municipal Mana"), "P-DEV-5")  # held already
    refused(g, lambda: g.buy_development("cult", "perk", "Sword of Truth"), "P-DEV-5")  # not in the catalogue
    # Repeatable perks are taken again only with another choice ([003:901]).
    assert g.buy_development("cult", "perk", "Elemental Efficiency", detail="Fire") == 7
    refused(g, lambda: g.buy_development("cult", "perk", "Elemental Efficiency", detail="fire"), "P-DEV-5")
    assert g.buy_development("cult", "perk", "Elemental Efficiency", detail="Water") == 9


def test_p_dev_6_a_nerfed_perk_earns_a_1_fame_tip_and_may_be_refunded_or_swapped():
    """P-DEV-6 — "When a mechanic the power relied on is nerfed, the power gets +1 fame and either a refund or
    a swap." [003:253] "The power which controls it may decide to refund the cost to obtain it, or to exchange it
    for a similarly costed object. Those powers receive a 1 fame tip either way" """
    g = at_tidings(("smaug", "champion", "dragon"), ("gandalf", "champion", "wizard"))
    g.award_fame("smaug", 12, "GM award")
    g.buy_development("smaug", "perk", "Quickdraw")  # 5
    g.buy_development("smaug", "perk", "Forced March")  # 7
    g.nerf_perk("smaug", "Forced March", reason="too strong")
    assert wallet(g, "smaug")["fame"] == 1  # the tip
    refused(g, lambda: g.settle_nerf("smaug", "Quickdraw", "refund"), "P-DEV-6")  # not nerfed
    g.settle_nerf("smaug", "Forced March", "refund")
    assert wallet(g, "smaug")["fame"] == 8  # 1 tip + the 7 it cost
    assert [p["name"] for p in g.holdings("smaug").perks] == ["Quickdraw"]
    g.nerf_perk("smaug", "Quickdraw")
    refused(g, lambda: g.settle_nerf("smaug", "Quickdraw", "swap", swap_to="Perfected Spell"), "P-DEV-5")
    g.settle_nerf("smaug", "Quickdraw", "swap", swap_to="Capable Generals")
    assert wallet(g, "smaug")["fame"] == 9 and g.holdings("smaug").perks_bought == 2  # a swap is not a purchase
    assert [p["name"] for p in board_view(g, "gandalf")["development"]["perks"]["smaug"]] == ["Capable Generals"]
    g.grant_perk("gandalf", "Dreamwalk")
    g.nerf_perk("gandalf", "Dreamwalk")
    g.settle_nerf("gandalf", "Dreamwalk", "keep")
    assert wallet(g, "gandalf")["fame"] == 1 and g.holdings("gandalf").perks[0]["name"] == "Dreamwalk"


def test_p_ex_13_development_costs():
    """P-EX-13 (derived; P-DEV) as written:
    - New Skill #1 → 2 fame; #2 → 4; #3 → 6 (starting skills ignored)
    - Skill rank 1→2 → 4; 2→3 → 6; 3→4 → 8
    - New Perk #1 → 5; Perk upgrade (#2 development) → 7; New Perk #3 → 9
    - Purchase outside Tidings → rejected"""
    g = at_tidings(("gandalf", "champion", "wizard"))
    g.grant_asset("g-lore", "gandalf", "lore", "skill", 3)  # a starting skill
    g.award_fame("gandalf", 2 + 4 + 6 + 4 + 6 + 8 + 5 + 7 + 9, "P-EX-13")
    assert [g.buy_development("gandalf", "skill", s, asset_id=f"s-{s}") for s in ("might", "craft", "delve")] == [
        2,
        4,
        6,
    ]
    assert [g.buy_development("gandalf", "rank", "might") for _ in range(3)] == [4, 6, 8]
    assert asset_of(g, "s-might")["rank"] == 4
    assert g.buy_development("gandalf", "perk", "Perfected Spell") == 5
    assert g.buy_development("gandalf", "upgrade", "Perfected Spell") == 7
    assert g.buy_development("gandalf", "perk", "Dreamwalk") == 9
    assert wallet(g, "gandalf")["fame"] == 0
    g.award_fame("gandalf", 11, "more")
    g.advance(NOW, SEED)
    refused(g, lambda: g.buy_development("gandalf", "perk", "Master of Artifice"), "P-DEV-1")


# ---------------------------------------------------------------------- ambitions


QUELL = dict(
    name="Quell Rebellion in The Western Villages",
    kind="minor",
    fame=9,
    required=2,
    type="Deed",
    reward={"fear": 7},
    tasks=[
        {"text": "Interrogate Elizabeth Caltrop, the previous rebel leader sitting in your prison"},
        {"text": "Meet with Simon Caltrop, the rebel leader"},
        {"text": "Discover who is financially supporting the rebellion"},
        {"text": "Stop the financial support going to the rebels", "central": True, "mysterious": True},
        {"text": "Remove the Rogue Army of Dwarven Rebels outside the town of Maleran", "central": True},
        {"text": "Reduce the counts of Uprising in the village of Derop to 0.", "central": True},
    ],
)


def quell(g: Game, power: str = "overlord", ambition_id: str = "quell") -> None:
    g.offer_ambition(power, ambition_id, **QUELL)
    g.accept_ambition(power, ambition_id)


def test_p_ambi_1_fame_scores_lie_in_their_ranges_and_n_central_tasks_achieve_the_ambition():
    """P-AMBI-1 — "Fame score ranges: major ambitions 15–25, minor 5–10. Tasks marked ❗ are central, and completing
    N of them achieves the ambition." [003:188] "Major ambitions have a fame score between 15 and 25, while minor
    ambitions have a score between 5 and 10." """
    g = at_tidings(("overlord", "city", "overlord"))
    task = [{"text": "Win", "central": True}]
    for kind, fame in (("minor", 4), ("minor", 11), ("major", 14), ("major", 26), ("epic", 9)):
        refused(g, lambda k=kind, f=fame: g.offer_ambition("overlord", "a", "Win", k, f, 1, task), "P-AMBI-1")
    refused(g, lambda: g.offer_ambition("overlord", "a", "Win", "minor", 5, 2, task), "P-AMBI-1")  # N > ❗ tasks
    refused(g, lambda: g.offer_ambition("overlord", "a", "Win", "minor", 5, 1, task, reward={"fame": 3}), "P-DEV-1")
    g.offer_ambition("overlord", "major", "Rule the West", "major", 25, 1, task)
    g.offer_ambition("overlord", "minor", "Win a duel", "minor", 5, 1, task, compensation={"coin": 2})
    g.accept_ambition("overlord", "major")
    g.accept_ambition("overlord", "minor")
    assert wallet(g, "overlord") == {"coin": 2}  # compensation for a problem created ([003:190])
    g.complete_task("minor", "t1")
    assert ambition_of(g, "minor")["status"] == "achieved"
    assert wallet(g, "overlord") == {"coin": 2, "fame": 5}


def test_p_ambi_1_at_most_one_major_and_one_minor_a_wizard_holds_two_minors():
    """P-AMBI-1 — "At most one minor and one major ambition at a time; the Wizard's Multifocused allows two
    minors." [003:1294] "Multifocused: You can have two minor ambitions at a time" """
    g = at_tidings(("overlord", "city", "overlord"), ("gandalf", "champion", "wizard"))
    task = [{"text": "Win", "central": True}]
    for p in ("overlord", "gandalf"):
        for n in range(3):
            g.offer_ambition(p, f"{p}-minor-{n}", f"Minor {n}", "minor", 5, 1, task)
        g.offer_ambition(p, f"{p}-major-0", "Major 0", "major", 15, 1, task)
        g.offer_ambition(p, f"{p}-major-1", "Major 1", "major", 15, 1, task)
        g.accept_ambition(p, f"{p}-major-0")
        refused(g, lambda p=p: g.accept_ambition(p, f"{p}-major-1"), "P-AMBI-1")
        g.accept_ambition(p, f"{p}-minor-0")
    refused(g, lambda: g.accept_ambition("overlord", "overlord-minor-1"), "P-AMBI-1")
    g.accept_ambition("gandalf", "gandalf-minor-1")
    refused(g, lambda: g.accept_ambition("gandalf", "gandalf-minor-2"), "P-AMBI-1")
    # "(You still start with just one)": before the first season a Wizard takes one minor ambition.
    start = Game.start("Start", "GM")
    start.add_power("gandalf", "Gandalf", "champion", "wizard")
    for n in range(2):
        start.offer_ambition("gandalf", f"m{n}", f"Minor {n}", "minor", 5, 1, task)
    start.accept_ambition("gandalf", "m0")
    refused(start, lambda: start.accept_ambition("gandalf", "m1"), "P-AMBI-1")
    start.advance(NOW, SEED)
    start.accept_ambition("gandalf", "m1")
    # A power may abandon an ambition at any time, which frees its slot.
    g.abandon_ambition("overlord", "overlord-minor-0")
    g.accept_ambition("overlord", "overlord-minor-1")
    assert ambition_of(g, "overlord-minor-0")["status"] == "abandoned"


def test_p_ambi_1_adversaries_earn_no_fame():
    """P-AMBI-1 — "Adversaries earn no fame." [003:194] "Adversaries don't gain fame from their ambitions." """
    g = at_tidings(("balrog", "champion", "adversary", {"private_actions": 2}))
    g.offer_ambition("balrog", "a", "Guard Moria", "major", 20, 1, [{"text": "Hold the bridge", "central": True}])
    g.accept_ambition("balrog", "a")
    g.complete_task("a", "t1")
    assert ambition_of(g, "a")["status"] == "achieved" and wallet(g, "balrog") == {}
    refused(g, lambda: g.award_fame("balrog", 1, "tip"), "P-AMBI-1")


def test_p_ambi_1_mysterious_tasks_stay_hidden_from_their_owner_until_the_task_before_is_done():
    """P-AMBI-1 — "Tasks marked ❓ stay hidden until the previous task is done." P.4: "The name and fame scores
    of ambitions are revealed publicly, but their details are not." [003:322]"""
    g = at_tidings(("overlord", "city", "overlord"), ("cause", "conspiracy", "cause"))
    quell(g)
    secret = "Stop the financial support going to the rebels"
    events = g.collect_events()
    for viewer in ("overlord", "cause"):
        seen = [vars(e) for e in events if "gm" not in e.audience and (viewer == "overlord" or "public" in e.audience)]
        assert secret not in str(seen)
        assert secret not in str(board_view(g, viewer))
    mine = board_view(g, "overlord")["development"]["mine"]["ambitions"][0]
    assert mine["tasks"][3] == {"task_id": "t4", "locked": True, "central": True, "mysterious": True}
    assert secret in str(board_view(g, "gm"))
    public = board_view(g, "cause")["development"]["ambitions"]
    assert public == [{"ambition_id": "quell", "power": "overlord", "name": QUELL["name"], "kind": "minor", "fame": 9}]
    assert "Derop" not in str(board_view(g, "cause")) and "fear" not in str(public)
    refused(g, lambda: g.complete_task("quell", "t4"), "P-AMBI-1")  # not revealed yet
    g.complete_task("quell", "t3")
    [revealed] = [e for e in g.collect_events() if type(e).__name__ == "AmbitionTaskRevealed"]
    assert (revealed.text, revealed.audience) == (secret, ["power:overlord"])
    assert board_view(g, "overlord")["development"]["mine"]["ambitions"][0]["tasks"][3]["text"] == secret


def test_p_ex_7_example_ambitions():
    """P-EX-7 — Example ambitions [003:212]–[003:237] (bookkeeping), as written:
    QuellRebellion: {type: Deed, required_central: 2, central_tasks: 3 (one is ❓❗, hidden until its predecessor
    is done), reward: {fame: 9, fear: 7}}
      when: complete "Remove the Rogue Army…" and "Reduce … Uprising in … Derop to 0" → then: achieved, fame +9,
      fear +7
      when: the rogue army is destroyed by another power without your help → "Remove…" is lost; you need both
      remaining ❗ (incl. the ❓ one)
    FreeMyMentor: {required_central: 1, central_tasks: 2, reward: 7 fame + loyal mentor}
    BladeOfAaronNoda: {required_central: 1, central_tasks: 3, reward: 5 fame + Aaron's Blade}
    fame_range_check: 9, 7 and 5 all lie in the minor range 5–10 ✓"""
    g = at_tidings(("overlord", "city", "overlord"), ("sov", "city", "sovereign"), ("gandalf", "champion", "wizard"))
    quell(g)
    g.complete_task("quell", "t5")  # Remove the Rogue Army
    assert ambition_of(g, "quell")["status"] == "active"
    g.complete_task("quell", "t6")  # Uprising in Derop to 0
    a = ambition_of(g, "quell")
    assert (a["status"], a["fame_awarded"]) == ("achieved", 9)
    assert wallet(g, "overlord") == {"fame": 9, "fear": 7}
    # The other branch: another power destroys the rogue army without your help.
    quell(g, "sov", "quell-2")
    g.lose_task("quell-2", "t5", "the rogue army was destroyed by another power without substantial help")
    assert ambition_of(g, "quell-2")["status"] == "active"  # both remaining ❗ are still needed
    g.complete_task("quell-2", "t6")
    assert ambition_of(g, "quell-2")["status"] == "active"
    g.complete_task("quell-2", "t3")  # reveals the ❓❗ task
    g.complete_task("quell-2", "t4")
    assert ambition_of(g, "quell-2")["status"] == "achieved" and wallet(g, "sov") == {"fame": 9, "fear": 7}
    # Losing a second ❗ makes two impossible: the ambition fails.
    quell(g, "gandalf", "quell-3")
    g.lose_task("quell-3", "t5", "destroyed by another power")
    g.lose_task("quell-3", "t6", "the village burned")
    assert ambition_of(g, "quell-3")["status"] == "failed" and wallet(g, "gandalf") == {}
    # FreeMyMentor and BladeOfAaronNoda: one ❗ of two (three) achieves them; 7 and 5 are minor scores.
    g.offer_ambition(
        "gandalf",
        "mentor",
        "Free My Mentor From Count Caliphrase",
        "minor",
        7,
        1,
        [
            {"text": "Discover where my mentor is being held"},
            {"text": "Sneak past that town's Watching Walls without being detected"},
            {"text": "Delve into the Octarine Oubliette to at least the first floor", "central": True},
            {"text": "Obtain leverage over Caliphrase"},
            {"text": "Negotiate with Caliphrase to free my mentor.", "central": True},
        ],
        type="Grace",
        reward_text="A loyal rank 2 Mentor follower",
    )
    g.offer_ambition(
        "gandalf",
        "blade",
        "Recover the Blade of Aaron Noda",
        "minor",
        5,
        1,
        [
            {"text": "Read about the blade in the library of Windhome"},
            {"text": "Discuss the blade with the historian Maude Steelmolde"},
            {"text": "Travel to the Blade's location", "central": True, "mysterious": True},
            {
                "text": "Delve into the dungeon where the blade is located, to at least the second floor.",
                "central": True,
            },
            {"text": "Cast Aaron's ritual of conjuration to summon the blade.", "central": True},
        ],
        type="Quest",
        reward_text="Aaron's Blade",
    )
    g.accept_ambition("gandalf", "mentor")
    g.accept_ambition("gandalf", "blade")  # Multifocused: a Wizard's second minor
    g.complete_task("mentor", "t5")
    g.complete_task("blade", "t4")
    assert [ambition_of(g, x)["status"] for x in ("mentor", "blade")] == ["achieved", "achieved"]
    assert wallet(g, "gandalf") == {"fame": 12}
    assert ambition_of(g, "mentor")["reward_text"] == "A loyal rank 2 Mentor follower"  # one reward


def test_p_ambi_1_powers_that_take_the_same_ambition_split_its_fame():
    """P-AMBI-1 [003:192] "Multiple powers can take the same ambition (major or minor), but they then split the
    fame reward based on their relative contributions." The GM gives each power its share."""
    g = at_tidings(("overlord", "city", "overlord"), ("sov", "city", "sovereign"))
    quell(g, "overlord", "q1")
    quell(g, "sov", "q2")
    refused(g, lambda: g.complete_task("q1", "t5", fame=10), "P-AMBI-1")
    g.complete_task("q1", "t5", fame=6)
    g.complete_task("q1", "t6", fame=6)
    g.complete_task("q2", "t5", fame=3)
    g.complete_task("q2", "t6", fame=3)
    assert wallet(g, "overlord")["fame"] == 6 and wallet(g, "sov")["fame"] == 3


def test_refused_ambition_and_development_commands_record_nothing():
    g = at_tidings(("overlord", "city", "overlord"))
    quell(g)
    with pytest.raises(NotFound):
        g.complete_task("quell", "t99")
    refused(g, lambda: g.buy_development("overlord", "spell", "Fireball"), "P-DEV-1")
    refused(g, lambda: g.accept_ambition("overlord", "quell"), "P-AMBI-1")
    g.abandon_ambition("overlord", "quell")
    refused(g, lambda: g.abandon_ambition("overlord", "quell"), "P-AMBI-1")
    refused(g, lambda: g.complete_task("quell", "t5"), "P-AMBI-1")


def test_a_skill_bought_at_tidings_joins_a_pool_in_the_month_after():
    """P-DEV-2: the new skill is an asset of rank 1 (P-ASSET-3) the power uses from the next month on."""
    g = at_tidings(("gondor", "city", "sovereign"))
    g.award_fame("gondor", 2, "x")
    g.buy_development("gondor", "skill", "might", asset_id="m")
    g.advance(NOW, SEED)
    submit(g, "gondor", "a1", [6], slot="public", skill="might", assets=[{"asset_id": "m"}])
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    assert resolved_of(g, "a1")["successes"] == 1


def test_p_asset_10_only_a_power_that_uses_respect_gains_respect_and_likewise_fear():
    """P-ASSET-10 — "Respect is gained from Build and Train successes. Fear is gained from slaying units and from
    killing agents." [003:166] "Powers that use respect: • Gain respect equal to their number of successes on town
    Build actions" and [003:173] "Powers that use fear: …" """
    g = at_tidings(("gondor", "city", "sovereign"), ("mordor", "city", "overlord"))
    g.choose_control("gondor", "respect")
    g.choose_control("mordor", "fear")
    assert g.earn("gondor", "respect", 2, "2 successes on Build at Osgiliath") == 2
    assert g.earn("mordor", "respect", 2, "2 successes on Build at Barad-dur") == 0
    assert g.earn("mordor", "fear", 4, "slew 3 units, the highest of rank 1") == 4
    assert g.earn("gondor", "coin", 1, "tended Pelargir") == 1
    assert wallet(g, "gondor") == {"respect": 5, "coin": 1} and wallet(g, "mordor") == {"fear": 7}


def test_a_cost_another_rule_charges_is_refused_naming_that_rule_when_the_wallet_falls_short():
    """[003:146] "Some actions come with additional costs, paid for with resources"; a wallet never goes
    negative, and the refusal names the rule that charged (here an agent's fee, P-ASSET-5)."""
    g = at_tidings(("gondor", "city", "sovereign"))
    g.adjust_resources("gondor", {"coin": 2}, "treasury")
    err = refused(
        g, lambda: g.pay("gondor", {"coin": 3}, "the spy's fee", rule="P-ASSET-5", actor="system"), "P-ASSET-5"
    )
    assert "the spy's fee" in err.message
    g.pay("gondor", {"coin": 2}, "the spy's fee", rule="P-ASSET-5", actor="system")
    assert wallet(g, "gondor") == {"coin": 0}


def test_p_dev_5_the_gm_adds_perks_the_text_lacks_with_the_group_that_decides_who_may_take_them():
    """P-DEV-5 with P-AMB-42 ("Catalogue data has to come from the designer. The engine stays data-driven."):
    a perk the GM adds is restricted by its group, and a 🆚 it names excludes both ways."""
    g = at_tidings(("gondor", "city", "sovereign"), ("cult", "conspiracy", "cult"))
    g.award_fame("gondor", 20, "GM award")
    g.award_fame("cult", 20, "GM award")
    g.define_perk("Sea Kings", "sovereign", upgrade=True)
    g.define_perk("Harbour Spies", "influence", versus="Mass Channel")
    refused(g, lambda: g.define_perk("Quickdraw", "military"), "P-DEV-5")  # already in the catalogue
    refused(g, lambda: g.define_perk("Odd", "cosmic"), "P-DEV-5")
    refused(g, lambda: g.define_perk("Odd", "general", versus="Nothing"), "P-DEV-5")
    refused(g, lambda: g.buy_development("cult", "perk", "Sea Kings"), "P-DEV-5")
    assert g.buy_development("gondor", "perk", "Sea Kings") == 5
    assert g.buy_development("gondor", "upgrade", "Sea Kings") == 7
    refused(g, lambda: g.buy_development("gondor", "perk", "Harbour Spies"), "P-DEV-5")  # only Conspiracies
    g.buy_development("cult", "perk", "Mass Channel")
    err = refused(g, lambda: g.buy_development("cult", "perk", "Harbour Spies"), "P-DEV-5")
    assert "Harbour Spies and Mass Channel exclude each other" in err.message
    g.add_power("circle", "Circle", "conspiracy", "circle")
    g.award_fame("circle", 20, "GM award")
    g.buy_development("circle", "perk", "Harbour Spies")
    err = refused(g, lambda: g.buy_development("circle", "perk", "Mass Channel"), "P-DEV-5")  # the other way
    assert "Mass Channel and Harbour Spies exclude each other" in err.message
