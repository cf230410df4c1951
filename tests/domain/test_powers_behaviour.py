"""Powers rule ids whose only tests refused a command or called a pure function, now played through the typed
commands on the service (issue 25): each rule accepting what it allows and refusing what it forbids, the refusal
recording nothing, with the dice given explicitly."""

from __future__ import annotations

from domain.platform.commands import GrantExtension, RequestExtension
from domain.powers import commands as pc
from domain.powers import development as dev
from tests.domain.test_powers_resistance_decisions import Table


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
    t.run("gm", GrantExtension(next(iter(t.games.get_game(t.gid).state.windows[window].requests))))
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
