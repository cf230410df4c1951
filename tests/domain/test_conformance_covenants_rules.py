"""Conformance of the covenant game (ANALYSIS A.2.3-A.2.8): one test per rule id, rule text quoted.

Dice are explicit (``tests.covenants.play.Dice``)."""

from __future__ import annotations

import pytest

from domain.covenants import rules
from domain.covenants.commands import (
    Cast,
    Challenge,
    ChooseArt,
    Convert,
    DecideEvent,
    DrawEvent,
    Forfeit,
    Generate,
    Keep,
    Move,
    Pass,
    ResolveCertamen,
    SealBid,
    Support,
)
from domain.errors import RuleViolation
from tests.covenants.play import (
    Dice,
    events_of,
    fixed_three,
    generate_and_keep,
    move_all,
    pass_create,
    pass_main,
    pass_until,
    reckon,
    skip_season,
)


def refused(t, seat, command, rule):
    before = events_of(t)
    with pytest.raises(RuleViolation, match=rule):
        t.run(seat, command)
    assert events_of(t) == before


def card(t, card_id):
    for cov in t.view("gm")["covenants"].values():
        for c in cov["cards"]:
            if c["id"] == card_id:
                return c
    return None


def of_kind(t, seat, kind):
    return [c for c in t.view("gm")["covenants"][seat]["cards"] if c["kind"] == kind]


LIGHTNING = {"ann": ["Cr", "Au", "Pe", "An", "Vi"]}  # Arc of Lightning, Pestilence of the Flock


def lightning_table():
    """Ann can cast Arc of Lightning and Pestilence; Bob keeps a Mine (property face 12), Cy a Livestock (7)."""
    d = Dice()
    t = fixed_three(d, arts=LIGHTNING)
    move_all(t, [2, 1, 1])
    kept = generate_and_keep(t, d, {"bob": 12, "cy": 7})
    pass_until(t, "ann")
    return d, t, kept


# ---------------------------------------------------------------- A-LIM


def test_a_lim_1_caps_town_villagers_holdings_per_grogs_and_unique_cards():
    """A-LIM-1 [000:44] "A basic (unenhanced) covenant may have at most 4 Villagers" [000:47] "A covenant may not
    have more than one Town card in play at any given time." [000:51] "A covenant may have at most 2 Vis Sources
    and/or Mines in play per Grogs card in play."."""
    cov = [{"kind": "villagers", "name": "Villagers", "active": True}] * 4
    with pytest.raises(RuleViolation, match="A-LIM-1"):
        rules.check_caps("villagers", "Villagers", cov, unique=False, in_play_names=set())
    rules.check_caps(
        "villagers", "Villagers", [*cov, {"kind": "improvement", "name": "X (Expansion/Minor)", "active": True}],
        unique=False, in_play_names=set(),
    )  # fmt: skip
    grogs = [{"kind": "grogs", "name": "Grogs", "active": True}, {"kind": "mine", "name": "Mine", "active": True}]
    rules.check_caps("vis_source", "Equinox Vis Source", grogs, unique=False, in_play_names=set())
    with pytest.raises(RuleViolation, match="A-LIM-1"):
        rules.check_caps("mine", "Mine", [*grogs, grogs[1]], unique=False, in_play_names=set())
    with pytest.raises(RuleViolation, match="A-LIM-1"):
        rules.check_caps("mage", "Sempiris", [], unique=True, in_play_names={"Sempiris"})
    d = Dice()
    t = fixed_three(d)
    move_all(t, [1, 2, 3])
    d.push([19])  # a Town: no Expansion in play, two Villagers
    town = t.run("ann", Generate("ann"))["card_id"]
    refused(t, "ann", Keep("ann", town), "A-LIM-1")


def test_a_lim_2_an_inactive_card_cannot_act_but_still_consumes_at_reckoning():
    """A-LIM-2 [000:50] "Unless otherwise specified, this prevents the card from being used in play, but it
    still consumes resources at Reckoning and may be the target of spells, effects and damage."."""
    d, t, kept = lightning_table()
    grogs = of_kind(t, "bob", "grogs")[0]["id"]
    t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", grogs, 1))
    assert not card(t, grogs)["active"] and card(t, grogs)["damage"] == 1
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 9))
    while t.phase() == "move":
        t.run(t.turn()[0], Move(t.turn()[0], 10))
    paid = {}
    while t.phase() == "reckoning":
        seat = t.turn()[0]
        paid[seat] = t.run(seat, Support(seat))["paid"]
    assert paid["bob"]["provision"] == 3  # the mage 1 and the inactive Grogs 2


def test_a_lim_3_untargetable_structures_need_an_effect_that_names_them():
    """A-LIM-3 [000:48] "An "untargetable structure" may not be targeted or affected by generic spells or
    effects; a spell or effect must explicitly name the resource in order to target it."."""
    d, t, kept = lightning_table()
    refused(t, "ann", Cast("ann", t.mage("ann"), "Arc of Lightning", kept["bob"], 2), "A-LIM-3")


# ---------------------------------------------------------------- A-SPELL


def test_a_spell_1_learning_needs_one_art_casting_needs_all_and_the_vis():
    """A-SPELL-1 [000:74] "In order to "learn" a spell, a Mage must have learned at least one of the Arts listed
    in the spell. In order to cast (use) a spell, a Mage must possess all the Arts listed in the spell, and must
    expend the correct amount of vis cited in the spell text."."""
    rules.check_learn(["Cr", "Au"], ["Cr"])
    with pytest.raises(RuleViolation, match="A-SPELL-1"):
        rules.check_learn(["Cr", "Au"], ["Pe"])
    d, t, kept = lightning_table()
    refused(t, "ann", Cast("ann", t.mage("ann"), "Sphere of Flame", kept["cy"], 1), "A-SPELL-1")  # no Ig
    refused(t, "ann", Cast("ann", t.mage("ann"), "Pestilence of the Flock", kept["cy"], 5), "A-SPELL-1")  # 4 vis


def test_a_spell_2_a_regular_spell_once_per_season_per_mage():
    """A-SPELL-2 [000:71] "A regular spell may only be cast by a particular mage once per season. A ritual
    spell, if cast again by anyone using the same target while the original is still in effect, has no
    result."."""
    d, t, kept = lightning_table()
    t.run("ann", Cast("ann", t.mage("ann"), "Pestilence of the Flock", kept["cy"], 1))
    pass_until(t, "ann")
    refused(t, "ann", Cast("ann", t.mage("ann"), "Pestilence of the Flock", kept["cy"], 1), "A-SPELL-2")


def test_a_spell_3_a_year_spell_ends_at_the_same_phase_a_year_on():
    """A-SPELL-3 [000:72] "Spells that specify a year or multiple season duration begin counting seasons at the
    time they are played; unless specified otherwise, the effect ends at the beginning of the same phase in which
    the card was played."."""
    assert rules.expires_at(1, 4) == 5 and rules.expires_at(3, 0) == 3


def test_a_spell_4_strength_is_vis_less_aegis_and_mr_of_a_rival_target():
    """A-SPELL-4 [000:85] "known as the spell strength and must be sufficient for the minimum" [000:87] "the
    maximum Magical Resistance determines the spell strength for reaching all targets." [000:88] "any excess vis
    remaining when the spell reaches the target is expended but has no effect."."""
    assert rules.target_strengths(4, [rules.resistance(rival=True, aegis=1, mr=1)], per_target=False) == [2]
    assert rules.target_strengths(2, [rules.resistance(rival=False, aegis=1, mr=3)], per_target=False) == [2]
    rivals = [rules.resistance(rival=True, aegis=0, mr=m) for m in (0, 2, 1)]
    assert rules.target_strengths(5, rivals, per_target=False) == [3, 3, 3]
    assert rules.effective_magnitude(0, 1, 3) is None and rules.effective_magnitude(5, 1, 3) == 3
    assert [rules.aegis_value(v) for v in (2, 3, 5, 7)] == [0, 1, 3, 3]
    d, t, kept = lightning_table()
    out = t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", t.mage("bob"), 3))
    assert out["strength"] == 2 and card(t, t.mage("bob"))["damage"] == 2  # the mage's MR 1


def test_a_spell_5_a_counter_succeeds_when_its_pawns_exceed_the_strength_and_undoes_the_spell():
    """A-SPELL-5 [000:614] "This spell counters the target spell if the number of pawns expended exceeds the
    spell strength of the target." [000:111] "Spells take effect immediately, but can be countered at any time
    within the same phase. If this happens after some consequence of the spell, those consequences must also be
    reversed."."""
    assert rules.counters(3, 2) and not rules.counters(2, 2)
    d = Dice()
    counter = ["Pe", "Vi", "Ig", "Re", "Mu"]
    t = fixed_three(d, arts={"ann": ["Cr", "Ig", "Vi", "An", "Au"], "bob": counter, "cy": counter})
    move_all(t, [1, 2, 3])
    pass_create(t)
    grogs = of_kind(t, "bob", "grogs")[0]["id"]
    cast = t.run("ann", Cast("ann", t.mage("ann"), "Sphere of Flame", grogs, 1))
    assert card(t, grogs)["damage"] == 1 and not card(t, grogs)["active"]
    failed = t.run("bob", Cast("bob", t.mage("bob"), "Counterspell", cast["spell_id"], 1))
    assert failed["countered"] is False and card(t, grogs)["damage"] == 1  # 1 pawn does not exceed strength 1
    refused(t, "bob", Cast("bob", t.mage("bob"), "Counterspell", cast["spell_id"], 2), "A-SPELL-2")
    assert t.turn()[0] == "bob"  # cy counters out of turn, in the same phase
    done = t.run("cy", Cast("cy", t.mage("cy"), "Counterspell", cast["spell_id"], 2))
    assert done["countered"] is True and card(t, grogs)["damage"] == 0 and card(t, grogs)["active"]
    assert t.view("ann")["covenants"]["cy"]["vis"] == 2 and t.view("ann")["covenants"]["bob"]["vis"] == 3
    t.run("bob", Pass("bob"))
    refused(t, "ann", Cast("ann", t.mage("ann"), "Counterspell", cast["spell_id"], 2), "A-SPELL-5")  # undone


def test_a_spell_6_a_mage_may_not_raise_its_own_abilities():
    """A-SPELL-6 [000:113] "Thus a mage can turn itself into stone or levitate itself with air, but it cannot
    increase its own Certamen or Magical Resistance ratings."."""
    rules.check_self_target(False, True, True)
    with pytest.raises(RuleViolation, match="A-SPELL-6"):
        rules.check_self_target(True, False, True)
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Re", "Vi", "Mu", "Co", "Au"]})
    move_all(t, [1, 2, 3])
    pass_create(t)
    refused(t, "ann", Cast("ann", t.mage("ann"), "Enhance Resistance", t.mage("ann"), 2), "A-SPELL-6")
    t.run("ann", Cast("ann", t.mage("ann"), "Incantation of the Stone Warrior", t.mage("ann"), 3))
    assert card(t, t.mage("ann"))["substance"] == "Te"


def test_a_spell_7_a_substance_changed_earlier_makes_the_target_illegal_damage_stays():
    """A-SPELL-7 [000:112] "Changing the nature of the target after a spell has been cast has no effect."."""
    d = Dice()
    arts = {
        "ann": ["Cr", "Ig", "Vi", "An", "Au"],
        "bob": ["Mu", "Co", "Vi", "Re", "Pe"],
        "cy": ["Cr", "Ig", "Re", "Mu", "An"],
    }
    t = fixed_three(d, arts=arts)
    move_all(t, [1, 2, 3])
    pass_create(t)
    grogs = of_kind(t, "cy", "grogs")[0]["id"]
    t.run("ann", Cast("ann", t.mage("ann"), "Sphere of Flame", grogs, 1))
    t.run("bob", Cast("bob", t.mage("bob"), "Incantation of the Stone Warrior", grogs, 3))
    assert card(t, grogs)["damage"] == 1 and card(t, grogs)["substance"] == "Te"  # the damage stays
    refused(t, "cy", Cast("cy", t.mage("cy"), "Sphere of Flame", grogs, 1), "A-SPELL-7")  # now Te, not An/Co/He


def test_a_spell_8_a_spell_naming_a_phase_or_season_is_cast_only_then():
    """A-SPELL-8 [000:73] "Spells that counter other spells or effects directly may be played in the same phase
    as the target." Arc of Lightning: "Cast in Spring or Summer."; Aegis: "Cast at the beginning of Winter
    Reckoning."."""
    with pytest.raises(RuleViolation, match="A-SPELL-8"):
        rules.check_phase(["main"], "main", ["spring", "summer"], "autumn")
    d, t, kept = lightning_table()
    refused(t, "ann", Cast("ann", t.mage("ann"), "Aegis of the Hearth", "ann", 3), "A-SPELL-8")


def test_a_spell_9_an_art_studied_from_a_lab_takes_three_season_ends():
    """A-SPELL-9 [000:433] "place three counters on this card. ... At the end of each season, remove one counter.
    When the last counter is removed, this card is discarded. The Mage targeted by this card gains use of that
    particular Art."."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [5, 1, 2])
    while t.phase() == "create":
        seat = t.turn()[0]
        if seat != "ann":
            t.run(seat, Pass(seat))
            continue
        d.push([1])  # an Art card
        art = t.run("ann", Generate("ann"))["card_id"]
        t.run("ann", Keep("ann", art, attach_to=t.mage("ann"), art="Au"))
    assert card(t, art)["counters"] == 3
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    assert card(t, art)["counters"] == 2 and "Au" not in card(t, t.mage("ann"))["arts"]
    skip_season(t)
    skip_season(t)
    assert "Au" in card(t, t.mage("ann"))["arts"]


# ---------------------------------------------------------------- A-DMG, A-BAT, A-AGG


def test_a_dmg_1_a_damaged_mundane_being_is_inactive_and_active_again_when_healed():
    """A-DMG-1 [000:117] "If a mundane being (animate substance) takes any amount of damage," [000:122] "becomes
    active again. At the end of Winter Reckoning, any inactive mundane"."""
    assert not rules.is_active_after_damage(animate=True, might_type="mundane", might=2, structure=False, damage=1)
    d, t, kept = lightning_table()
    grogs = of_kind(t, "bob", "grogs")[0]["id"]
    t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", grogs, 1))
    assert not card(t, grogs)["active"]
    assert kept["bob"] not in [c["id"] for c in t.view("gm")["covenants"]["bob"]["cards"]]  # the Mine went
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    assert card(t, grogs)["damage"] == 1  # damaged this season: no healing yet
    skip_season(t)
    assert card(t, grogs)["damage"] == 0 and card(t, grogs)["active"]


def test_a_dmg_2_a_structure_falls_at_five_damage():
    """A-DMG-2 [000:125] "Structures (animated or not) must take 5 damage to be destroyed—the points are
    cumulative, and cannot be removed except via "repair."."""
    assert not rules.destroyed(structure=True, damage=4) and rules.destroyed(structure=True, damage=5)
    assert rules.is_active_after_damage(animate=False, might_type=None, might=0, structure=True, damage=4)


def test_a_dmg_3_a_being_of_other_might_stays_active_until_damage_equals_its_might():
    """A-DMG-3 [000:126] "Beings with Might ratings other than mundane remain active after taking damage until
    that damage equals their Might rating."."""
    assert rules.is_active_after_damage(animate=True, might_type="faerie", might=2, structure=False, damage=1)
    assert not rules.is_active_after_damage(animate=True, might_type="faerie", might=2, structure=False, damage=2)


def test_a_dmg_4_passive_healing_after_a_whole_season_inactive_without_new_damage():
    """A-DMG-4 [000:128] "At the end of any season (after Reckoning) in which a mundane being"."""
    assert rules.passive_heal(2, True, False) == 1
    assert rules.passive_heal(2, True, True) == 2 and rules.passive_heal(2, False, False) == 2


def test_a_bat_1_might_totals_and_capacity_first_damage():
    """A-BAT-1 [000:137] "each side adds up its Might points; the other side must distribute damage among its
    forces equal to that total, up to a maximum of each being's Might total. After all maximums have been
    assigned on one side, surplus damage may be assigned."."""
    side = [{"might": 2, "weapon": 1}, {"might": 2}, {"might": 2, "active": False}]
    assert rules.attack_total(side) == 5 and rules.attack_total(side, bard=True, captains=1) == 8
    rules.check_allocation(4, {"a": 2, "b": 3}, {"a": 2, "b": 2})
    with pytest.raises(RuleViolation, match="A-BAT-1"):
        rules.check_allocation(4, {"a": 2, "b": 3}, {"a": 4})
    rules.check_allocation(7, {"a": 2, "b": 3}, {"a": 3, "b": 4})  # surplus once both are full


def test_a_agg_1_any_spell_at_a_rival_marks_a_harmful_one_at_home_too():
    """A-AGG-1 [000:98] "Casting any spell targeting that covenant or anything contained within it, whether
    beneficial or harmful" [000:99] "Certamen does not count as an act of aggression."."""
    assert rules.marks_aggression(target_covenant="b", caster_covenant="a", harmful=False)
    assert not rules.marks_aggression(target_covenant="a", caster_covenant="a", harmful=False)
    d, t, kept = lightning_table()
    t.run("ann", Cast("ann", t.mage("ann"), "Pestilence of the Flock", kept["cy"], 1))
    assert t.view("bob")["covenants"]["ann"]["marked"]
    t.run("bob", Challenge("bob", t.mage("bob"), t.mage("cy")))
    assert not t.view("cy")["covenants"]["bob"]["marked"]


def test_a_agg_1_while_a_covenant_is_marked_an_occupied_events_phase_creates_a_quaesitor_investigation():
    """A-AGG-1 [000:100] "while there are marked covenants, a "Quaesitor Investigation" Event card is
    automatically created during any Events Phase when the Event square is occupied, unless there is an
    Investigation already in progress. The player on the Event square decides where to apply the Investigation
    and the target covenant is unmarked."."""
    d = Dice()
    t = fixed_three(d, arts=LIGHTNING)
    move_all(t, [1, 2, 3])
    pass_create(t)
    t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", t.mage("cy"), 2))  # ann is marked
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    assert t.view("gm")["game"]["starting_player"] == "ann"  # her spent vis left her the lowest score
    move_all(t, [1, 9, 2])  # bob stands on the Event square
    pass_create(t)
    assert t.view("cy")["pending_event"] == {"seat": "bob", "event": "Quaesitor Investigation", "quaesitor": True}
    refused(t, "bob", DecideEvent("bob", "play", target="cy"), "A-AGG-1")  # cy is not marked
    refused(t, "bob", DecideEvent("bob", "discard"), "A-AGG-1")
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    v = t.view("cy")
    assert not v["covenants"]["ann"]["marked"] and "Quaesitor Investigation" in v["events_in_play"]
    assert t.turn() == ["bob"]  # then bob may still draw his own event, or pass
    t.run("bob", Pass("bob"))
    assert t.phase() == "main"


# ---------------------------------------------------------------- A-CERT


def certamen_table():
    d = Dice()
    t = fixed_three(d)
    move_all(t, [1, 2, 3])
    pass_create(t)
    cid = t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))["challenge_id"]
    return d, t, cid


def test_a_cert_1_one_challenge_per_main_phase_once_a_season_per_player_challenged():
    """A-CERT-1 [000:143] "During the Main Phase, a player may issue a single" [000:147] "Once a mage belonging to
    a player has been challenged, no other mage" [000:151] "full season has passed."."""
    d, t, cid = certamen_table()
    refused(t, "bob", Challenge("bob", t.mage("bob"), t.mage("ann")), "A-CERT-1")  # both mages engaged
    t.run("bob", Pass("bob"))
    refused(t, "cy", Challenge("cy", t.mage("cy"), t.mage("bob")), "A-CERT-1")  # bob was challenged this season
    t.run("cy", Pass("cy"))
    refused(t, "ann", Challenge("ann", t.mage("ann"), t.mage("cy")), "A-CERT-1")  # one per Main Phase


def test_a_cert_2_the_challenger_picks_the_technique_the_challenged_the_form_or_forfeits():
    """A-CERT-2 [000:154] "the challenged covenant may decide to forfeit the match and pay the penalty. If not,
    the challenging player picks the Technique the Certamen will use, and the challenged player picks the
    Form."."""
    d, t, cid = certamen_table()
    pass_main(t)
    refused(t, "bob", ChooseArt("bob", cid, "Cr"), "A-CERT-2")  # the challenged picks a Form
    refused(t, "ann", ResolveCertamen("ann", cid), "A-CERT-2")  # no Arts chosen yet
    refused(t, "ann", Forfeit("ann", cid), "A-CERT-2")
    t.run("bob", Forfeit("bob", cid))  # the house rules' penalty: 1 vis to the challenger
    v = t.view("cy")
    assert v["covenants"]["bob"]["vis"] == 3 and v["covenants"]["ann"]["vis"] == 5 and v["game"]["phase"] == "move"


def test_a_cert_3_score_is_rating_arts_and_sealed_vis_equal_scores_no_winner():
    """A-CERT-3 [000:155] "The two sides then add up their Certamen scores, consisting of whatever Certamen
    rating the mage has, plus one point per Art used in this challenge that the mage possesses, plus one point
    per pawn vis expended. If the amounts are equal, neither side wins."."""
    assert rules.certamen_score(1, ["Cr"], "Cr", "Vi", 2) == 4
    assert rules.certamen_score(2, ["Vi"], "Cr", "Vi", 1, distracted=True) == 2
    d, t, cid = certamen_table()
    pass_main(t)
    t.run("ann", ChooseArt("ann", cid, "Cr"))
    t.run("bob", ChooseArt("bob", cid, "Im"))
    t.run("ann", SealBid("ann", cid, 3))
    assert "my_bid" not in t.view("bob")["challenges"][0] and t.view("bob")["challenges"][0]["sealed"] == ["ann"]
    refused(t, "ann", ResolveCertamen("ann", cid), "A-CERT-3")  # the bids open together
    t.run("bob", SealBid("bob", cid, 1))
    out = t.run("ann", ResolveCertamen("ann", cid))
    assert out["scores"] == {"ann": 1 + 1 + 1 + 3, "bob": 1 + 0 + 1 + 1} and out["winner"] == "ann"
    assert out["winnings"] == {"tribute": 1, "from": "bob", "to": "ann"}  # the house rules' first preference
    v = t.view("cy")["covenants"]
    assert v["ann"]["vis"] == 1 and v["bob"]["vis"] == 3 and v["bob"]["tribute"][0]["to"] == "ann"


# ---------------------------------------------------------------- A-RECK, A-ECON


def test_a_reck_1_support_pays_upkeep_from_production_or_starves_cards():
    """A-RECK-1 [000:19] "each player tallies his provision points, gold and vis resources and applies them to any
    or all resources that require support; any cards that do not receive their required support by the end of
    this phase are discarded."."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_main(t)
    t.run("ann", Move("ann", 10))
    villagers = [c["id"] for c in of_kind(t, "ann", "villagers")]
    out = t.run("ann", Support("ann"))
    assert out["made"]["provision"] == 4 and out["paid"]["provision"] == 3 and out["after"]["provision"] == 1
    grogs = of_kind(t, "bob", "grogs")[0]["id"]
    t.run("bob", Support("bob", [grogs]))
    assert card(t, grogs) is None and villagers


def test_a_reck_2_provisions_do_not_carry_over():
    """A-RECK-2 [000:49] "Remember provision points are not permanent; any provisions generated during a season
    are lost at the end of that season."."""
    d = Dice()
    t = fixed_three(d)
    skip_season(t)
    assert all(c["provision"] == 0 for c in t.view("gm")["covenants"].values())


def test_a_reck_3_yearly_points_from_the_winter_surplus():
    """A-RECK-3 [000:21] "add 1 game point for every 4 provision points (rounded down), every 2 gold (rounded
    down), and each pawn of vis."."""
    assert rules.yearly_points(9, 5, 2) == 6
    d = Dice()
    t = fixed_three(d)
    for _ in range(4):
        skip_season(t)
    v = t.view("gm")
    assert v["game"]["year"] == 2 and v["game"]["season"] == "spring"
    # Winter surplus: 1 provision, 4 gold, 4 vis: 0 + 2 + 4 = 6; the gold and vis converted are spent (A-AMB-9)
    assert [v["covenants"][s]["score"] for s in ("ann", "bob", "cy")] == [6, 6, 6]
    assert v["covenants"]["ann"]["gold"] == 0 and v["covenants"]["ann"]["vis"] == 0


def test_a_reck_4_tribute_comes_off_this_years_points_then_the_score_and_goes_to_the_covenant_owed():
    """A-RECK-4 [000:159] "For every point of tribute owed, 1 game point is" "subtracted from the owing party's
    surplus before being added to the player's score; if there are no game points due to surplus, 1 game point is
    subtracted from the player's existing score."."""
    assert rules.apply_tribute(6, 20, 1) == (25, 1, 0)
    assert rules.apply_tribute(0, 20, 1) == (19, 0, 1)


def test_a_reck_5_a_score_of_25_or_more_at_the_yearly_reckoning_wins_ties_share():
    """A-RECK-5 [000:21] "If any player reaches or exceeds 25 points at the end of Yearly Reckoning, the highest
    current score wins."."""
    assert rules.winners({"a": 25, "b": 26}) == ["b"] and rules.winners({"a": 26, "b": 26}) == ["a", "b"]
    assert rules.winners({"a": 24}) == []
    d = Dice()
    t = fixed_three(d, options={"target_score": 6})
    for _ in range(4):
        skip_season(t)
    v = t.view("ann")["game"]
    assert v["phase"] == "over" and v["winners"] == ["ann", "bob", "cy"]
    refused(t, "ann", Move("ann", 1), "A-ORDER-1")


def test_a_reck_6_hedge_curse_six_takes_a_point_off_the_surplus():
    """A-RECK-6 [000:762] "6: At every Yearly Reckoning, the covenant's surplus" "is reduced by 1 point."."""
    assert rules.yearly_points(8, 0, 0, curse6=True) == 1 and rules.yearly_points(0, 0, 0, curse6=True) == 0


def test_a_econ_1_conversions_need_a_market_and_none_touch_provision_in_a_famine():
    """A-ECON-1 [000:634] "2 provision points for 1 gold" [000:635] "2 gold for 1 pawn vis" [000:590] "at the
    rate of 1 gold = 7 provision points."."""
    assert rules.convert("provision", 4, "gold", market=True, famine=False) == 2
    assert rules.convert("gold", 2, "vis", market=True, famine=False) == 1
    assert rules.convert("gold", 2, "provision", market=True, famine=False, artisan_rate=7) == 14
    with pytest.raises(RuleViolation, match="A-ECON-1"):
        rules.convert("provision", 4, "gold", market=True, famine=True)
    d = Dice()
    t = fixed_three(d)
    move_all(t, [1, 2, 3])
    pass_create(t)
    refused(t, "ann", Convert("ann", "gold", 2, "vis"), "A-ECON-1")


# ---------------------------------------------------------------- A-EVT


def to_year_two_events(d):
    t = fixed_three(d)
    for _ in range(4):
        skip_season(t)
    assert t.view("gm")["game"]["starting_player"] == "bob"  # A-ORDER-2: all tied, so the next clockwise
    move_all(t, [9, 1, 2])
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["bob"]
    return t


def test_a_evt_1_a_global_event_is_played_in_its_season_a_directed_one_played_held_or_discarded():
    """A-EVT-1 [000:15] "For Global Events, if the current season is appropriate, he must play it; else he
    discards it. For Directed Events, he may play it, discard it, or "hold" it until a later season."."""
    d = Dice()
    t = to_year_two_events(d)
    d.push([1])  # Market Fair, Spring: played
    assert t.run("bob", DrawEvent("bob"))["played"] is True
    assert t.view("cy")["events_in_play"] == ["Market Fair"] and t.phase() == "main"
    pass_until(t, "cy")
    # The Market Fair opens conversions: a refusal now is about what Cy holds (the Yearly Reckoning spent it all),
    # no longer about where to convert.
    with pytest.raises(RuleViolation, match="you hold 0 gold") as err:
        t.run("cy", Convert("cy", "gold", 2, "vis"))
    assert err.value.field == "amount"


def test_a_evt_1_a_held_directed_event_fires_at_the_first_events_phase_of_its_season():
    """A-EVT-1 [000:16] "During the matching season's first Events Phase, held Events are unrotated in the order
    they were generated and take effect immediately, under the control of the player(s) who generated them,
    regardless of who (if anyone) occupies the Events square that round."."""
    d = Dice()
    t = to_year_two_events(d)
    d.push([8])  # Dragon Attack (directed): bob holds it for Summer
    t.run("bob", DrawEvent("bob"))
    refused(t, "bob", Pass("bob"), "A-EVT-1")
    t.run("bob", DecideEvent("bob", "hold", season="summer"))
    assert t.view("cy")["held_events"] == [{"event": "Dragon Attack", "seat": "bob", "season": "summer"}]
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    move_all(t, [1, 2, 3])  # nobody on the Event square
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["bob"]
    assert t.view("ann")["pending_event"] == {"event": "Dragon Attack", "seat": "bob", "season": "summer"}
    refused(t, "bob", DecideEvent("bob", "hold", season="autumn"), "A-EVT-1")
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    v = t.view("cy")
    assert v["events_in_play"] == ["Dragon Attack"] and v["held_events"] == [] and v["game"]["phase"] == "main"


def test_a_evt_2_a_directed_event_on_a_target_once_a_game_and_held_for_another_season():
    """A-EVT-2 [000:57] "The same target may not be" "chosen more than once for the same type of Directed Event
    per game" [000:60] "No more than two Directed Events directed toward a particular target"."""
    with pytest.raises(RuleViolation, match="A-EVT-2"):
        rules.check_directed("Riots", "b", [("Riots", "b")], 0)
    rules.check_directed("Quaesitor Investigation", "b", [("Quaesitor Investigation", "b")], 0)
    with pytest.raises(RuleViolation, match="A-EVT-2"):
        rules.check_directed("Riots", "b", [], 2)
    d = Dice()
    t = to_year_two_events(d)
    d.push([8])  # Dragon Attack (directed)
    t.run("bob", DrawEvent("bob"))
    refused(t, "bob", DecideEvent("bob", "hold", season="spring"), "A-EVT-1")
    refused(t, "bob", DecideEvent("bob", "play"), "A-EVT-2")
    t.run("bob", DecideEvent("bob", "play", target="cy"))
    assert t.view("cy")["events_in_play"] == ["Dragon Attack"]


def test_a_evt_3_d6_tests_succeed_on_even():
    """A-EVT-3: "Random tests (d6, even = success). Every roll is an RNG event" ([000:223] "roll a 6-sided die. If
    the result is even, no tax is owed.")."""
    assert [rules.parity_success(f) for f in range(1, 7)] == [False, True, False, True, False, True]


def test_a_evt_4_event_arithmetic():
    """A-EVT-4 [000:667] Tax and Tithe, [000:661] Famine, [000:787] Riots: tax = floor((provision capacity +
    gold)/4), minimum 2 gold; Famine loses half; Riots "damage > 9 → Town discarded; 4–8 → event ends"."""
    assert rules.tax(10, 3) == 2 and rules.tax(20, 6) == 4 and rules.tax(20, 6, courtly=True) == 3
    assert rules.famine_loss(7) == 3
    assert [rules.riots_outcome(n) for n in (3, 4, 8, 9, 12)] == [
        "town_inactive", "event_ends", "event_ends", "town_discarded", "town_discarded",
    ]  # fmt: skip
    assert rules.unseelie_victims(5) == 2
