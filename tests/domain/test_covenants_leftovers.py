"""The covenant game's leftovers of issue 25 ("Rules as written"): each rule played through the typed commands of
the service with explicit dice, each test named after its rule id with the rules text or the ANALYSIS decision.
A refusal names the rule and records nothing."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from application.service import Games
from domain.covenants.commands import (
    AllocateDamage,
    AnswerTrade,
    Cast,
    DecideEvent,
    DrawEvent,
    Generate,
    Keep,
    Move,
    NoCounter,
    OfferTrade,
    Pass,
    Support,
)
from domain.covenants.house import default_data
from domain.covenants.ruleset import COVENANTS
from domain.errors import RuleViolation
from domain.platform.commands import CloseWindow
from tests.covenants.play import (
    Dice,
    Table,
    events_of,
    fixed_three,
    generate_and_keep,
    move_all,
    pass_create,
    pass_main,
    reckon,
    seat_three,
    skip_season,
)
from tests.domain.test_covenants_battles_played import BEAR, BOOST_ARTS
from tests.domain.test_covenants_events_played import drawn_in
from tests.domain.test_covenants_worked_examples import end_season, grogs_fight_with, move_all_to, package


def refused(t: Table, seat: str, command: object, rule: str) -> RuleViolation:
    before = events_of(t)
    with pytest.raises(RuleViolation, match=rule) as info:
        t.run(seat, command)
    assert events_of(t) == before
    return info.value


def card(t: Table, seat: str, name: str) -> dict:
    return next(c for c in t.view("gm")["covenants"][seat]["cards"] if c["name"] == name)


# ---------------------------------------------------------------- A-AMB-17: spells of several targets

# A spell of the rules text's kind "For each pawn of vis expended up to a maximum of three, choose a target"
# ([000:574] The Pact of Peace; [000:513] "Destroy the Undead ... Inflict 1 point damage on each target"): the house
# package ships none, so this test package adds one that damages beings of Co.
HAIL = {
    "arts": ["Pe", "Co"], "min_vis": 1, "max_vis": 3, "target": "being", "forms": ["Co"], "harmful": True,
    "damage_per_pawn": 1, "pawns_per_target": 1,
}  # fmt: skip
PE_CO = ["Pe", "Co", "Vi", "An", "In"]


def hail_table(**options: object) -> Table:
    """Ann and Bob have Pe, Co and Vi; Ann casts first in the first Main Phase."""
    data = default_data()
    data["spells"] = {**data["spells"], "Hail of Stones": HAIL}
    t = fixed_three(Dice(), arts={"ann": PE_CO, "bob": PE_CO}, options={"house": "custom", "house_package": data,
                                                                         **options})  # fmt: skip
    move_all(t, [1, 2, 3])
    pass_create(t)
    assert t.turn()[0] == "ann"
    return t


def bobs_three(t: Table) -> list[str]:
    """Bob's mage (MR 1), Villagers and Grogs (MR 0), all of Co."""
    return [t.mage("bob"), card(t, "bob", "Villagers")["id"], card(t, "bob", "Grogs")["id"]]


def test_a_amb_17_a_spell_of_several_targets_reaches_all_or_none_past_the_highest_magical_resistance():
    """A-AMB-17 [000:87] "Multiple targets are calculated independently; therefore, the maximum Magical Resistance
    determines the spell strength for reaching all targets." Decision: "Use the highest MR for all targets, so the
    spell reaches all or none." Ann's 3 pawns at Bob's mage (MR 1), Villagers and Grogs: strength 2, short of the 3
    the three targets take, so it reaches none and the pawns are spent; [000:88] "The caster may boost the amount
    of vis a spell receives beyond the spell's maximum to overcome Magical Resistance": Bob's 4 pawns (one over the
    maximum of 3) at Ann's three reach them all, strength 3, 1 damage each."""
    t = hail_table()
    mage, villagers, grogs = bobs_three(t)
    out = t.run("ann", Cast("ann", t.mage("ann"), "Hail of Stones", mage, 3, more_targets=[villagers, grogs]))
    assert (out["strength"], out["magnitude"], out["reached"]) == (2, None, [])
    assert [card(t, "bob", n)["damage"] for n in ("Starting Mage", "Villagers", "Grogs")] == [0, 0, 0]
    assert t.view("cy")["covenants"]["ann"]["vis"] == 1
    ann3 = [t.mage("ann"), card(t, "ann", "Villagers")["id"], card(t, "ann", "Grogs")["id"]]
    out = t.run("bob", Cast("bob", t.mage("bob"), "Hail of Stones", ann3[0], 4, more_targets=ann3[1:]))
    assert (out["strength"], out["magnitude"], out["reached"]) == (3, 3, ann3)
    assert [card(t, "ann", n)["damage"] for n in ("Starting Mage", "Villagers", "Grogs")] == [1, 1, 1]


def test_a_amb_17_per_target_each_target_is_reached_past_its_own_magical_resistance():
    """A-AMB-17 "A per-target variant is a campaign option" (multi_target_resistance per_target, [000:87]
    "calculated independently"): Ann's 3 pawns at Bob's mage (MR 1), Villagers and Grogs reach the Villagers and
    the Grogs (strength 3 each) but not the mage (strength 2), all three pawns spent."""
    t = hail_table(multi_target_resistance="per_target")
    mage, villagers, grogs = bobs_three(t)
    out = t.run("ann", Cast("ann", t.mage("ann"), "Hail of Stones", mage, 3, more_targets=[villagers, grogs]))
    assert (out["magnitude"], out["reached"]) == (2, [villagers, grogs])
    assert [card(t, "bob", n)["damage"] for n in ("Starting Mage", "Villagers", "Grogs")] == [0, 1, 1]
    assert t.view("cy")["covenants"]["ann"]["vis"] == 1


def test_a_amb_17_a_counter_undoes_a_spell_of_several_targets_on_every_target():
    """A-SPELL-5 [000:111] "if this happens after some consequence of the spell, those consequences must also be
    reversed": Ann's Hail of 2 pawns reaches Bob's Villagers and Grogs (MR 0: strength 2), 1 damage each; Bob's
    Counterspell of 3 pawns exceeds its strength and the damage goes from both."""
    t = hail_table()
    _, villagers, grogs = bobs_three(t)
    out = t.run("ann", Cast("ann", t.mage("ann"), "Hail of Stones", villagers, 2, more_targets=[grogs]))
    assert (out["strength"], out["magnitude"], out["reached"]) == (2, 2, [villagers, grogs])
    assert [card(t, "bob", n)["damage"] for n in ("Villagers", "Grogs")] == [1, 1]
    got = t.run("bob", Cast("bob", t.mage("bob"), "Counterspell", out["spell_id"], 3))
    assert got["countered"] is True
    assert [(card(t, "bob", n)["damage"], card(t, "bob", n)["active"]) for n in ("Villagers", "Grogs")] == [
        (0, True),
        (0, True),
    ]


def test_a_amb_17_the_board_offers_a_spell_of_several_targets_at_several_and_accepts_what_it_offers():
    """A-AMB-17 with the offers' promise (offered == accepted): Ann, with 4 vis, is offered her Hail of Stones at
    as many of a covenant's beings of Co as its maximum of 3 allows, one pawn each; sending the offer casts it."""
    t = hail_table()
    offered = t.games.read(t.game_id, lambda g: COVENANTS.offers(g, "ann"))
    several = [c for c in offered if isinstance(c, Cast) and c.spell == "Hail of Stones" and c.more_targets]
    bobs = next(c for c in several if c.target == t.mage("bob"))
    beings = {c["id"] for c in t.view("ann")["covenants"]["bob"]["cards"] if c["substance"] == "Co"}
    assert bobs.vis == 3 and len(bobs.more_targets) == 2 and set(bobs.more_targets) <= beings
    assert t.run("ann", bobs)["reached"] == []  # Bob's mage's MR 1 leaves strength 2 for three targets


def test_a_amb_17_a_spell_takes_only_the_targets_its_text_and_pawns_allow():
    """A-AMB-17: a spell of one target takes no more; "For each pawn of vis expended up to a maximum of three,
    choose a target" ([000:574]): not more targets than pawns, nor than the maximum, nor one target twice. Each
    refusal names the rule and records nothing."""
    t = hail_table()
    mage, villagers, grogs = bobs_three(t)
    ann = t.mage("ann")
    refused(t, "ann", Cast("ann", ann, "Pestilence of the Flock", villagers, 2, more_targets=[grogs]), "A-AMB-17")
    refused(t, "ann", Cast("ann", ann, "Hail of Stones", villagers, 1, more_targets=[grogs]), "A-AMB-17")
    refused(t, "ann", Cast("ann", ann, "Hail of Stones", villagers, 2, more_targets=[villagers]), "A-AMB-17")
    cys = t.mage("cy")
    refused(t, "ann", Cast("ann", ann, "Hail of Stones", villagers, 4, more_targets=[grogs, mage, cys]), "A-AMB-17")
    t.run("ann", Pass("ann"))


# ---------------------------------------------------------------- H-9: how long a turn waits


def test_h_9_a_game_waits_the_turn_hours_it_was_created_with_before_silence_counts_as_a_pass():
    """H-9 "A timeout worker treats silence as a pass": the window a covenant has for its turn is the game's
    turn_hours (48 unless the game says otherwise); a game created with 12 closes its first turn's window 12 hours
    on, not 48. A value out of its bounds is refused naming the option, and no game is created."""
    now = [datetime(2026, 3, 1, 12, tzinfo=timezone.utc)]
    games = Games(clock=lambda: now[0])
    t = seat_three(games, options={"turn_hours": 12})
    (window,) = t.view(t.turn()[0])["windows"]
    assert window["closes_at"] == (now[0] + timedelta(hours=12)).isoformat()
    now[0] += timedelta(hours=12, minutes=1)
    assert games.close_due_window(t.game_id, window["id"]) is True
    default = seat_three(Games(clock=lambda: now[0]))
    (window,) = default.view(default.turn()[0])["windows"]
    assert window["closes_at"] == (now[0] + timedelta(hours=48)).isoformat()
    empty = Games()
    for bad in (0, 24 * 15):
        with pytest.raises(RuleViolation, match="turn_hours"):
            empty.create_game("x", ruleset="covenants", options={"turn_hours": bad})
    assert empty.recorder.max_notification_id() in (None, 0)


# ---------------------------------------------------------------- A-ECON-1: the provision a covenant owns


def test_a_econ_1_a_trade_gives_the_provision_the_covenants_cards_make_this_season_as_a_conversion_does():
    """A-ECON-1 [000:632] "all covenants may convert resources they own" and [000:636] "Covenants may trade among
    themselves": what a covenant owns to trade is what it may convert (A-EX-9), its provision this season's too
    ([000:49] "any provisions generated during a season", [000:187] Villagers "generates 2 provision points per
    season"). In the first Main Phase Bob holds no provision, but his two Villagers make 4: he offers Cy 1 for a
    gold, and Cy accepts; 5 is more than he owns, refused naming the rule."""
    t = fixed_three(Dice())
    move_all(t, [1, 2, 3])
    pass_create(t)
    t.run("ann", Pass("ann"))
    assert t.view("gm")["covenants"]["bob"]["provision"] == 0
    refused(t, "bob", OfferTrade("bob", "cy", {"provision": 5}, {"gold": 1}), "A-ECON-1")
    trade = t.run("bob", OfferTrade("bob", "cy", {"provision": 1}, {"gold": 1}))["trade_id"]
    t.run("cy", AnswerTrade("cy", trade, True))
    v = t.view("ann")["covenants"]
    assert (v["bob"]["provision"], v["bob"]["gold"], v["cy"]["provision"], v["cy"]["gold"]) == (-1, 5, 1, 3)


def test_a_econ_1_after_its_support_a_covenant_owns_the_provision_its_reckoning_left_it():
    """A-ECON-1 with A-RECK-1: a covenant owns this season's provision until its Reckoning counts it ([000:49]);
    once it has allocated its support, what it owns is what the Reckoning left it, its production not counted a
    second time. Ann asks Bob for 4 provision in the first Main Phase; Bob, whose Villagers make 4, answers after
    his support has paid his upkeep out of them: he no longer owns 4, refused naming the rule and the field."""
    t = fixed_three(Dice())
    move_all(t, [1, 2, 3])
    pass_create(t)
    trade = t.run("ann", OfferTrade("ann", "bob", {"gold": 1}, {"provision": 4}))["trade_id"]
    pass_main(t)
    t.run("ann", Move("ann", 10))
    for seat in ("ann", "bob"):
        t.run(seat, Support(seat, []))
    assert t.phase() == "reckoning"  # Cy has yet to allocate
    held = t.view("gm")["covenants"]["bob"]["provision"]
    assert 0 <= held < 4
    assert refused(t, "bob", AnswerTrade("bob", trade, True), "A-ECON-1").field == "get"
    assert t.view("gm")["covenants"]["bob"]["provision"] == held


def test_a_econ_1_the_winter_of_wolves_is_paid_with_the_provision_the_covenant_makes_this_winter():
    """The house Winter of Wolves ("pay 1 provision per covenant or fight") is paid with what the covenant owns, as a
    conversion or a trade (A-ECON-1, [000:49]): in Winter nobody holds provision (cleared at the Autumn Reckoning,
    A-RECK-2), but each covenant's Villagers make 2 each this Winter ([000:187]); Bob pays and does not fight, the
    others fight."""
    d = Dice()
    t = drawn_in(d, 18, seasons=7)  # year two, Winter
    assert t.view("cy")["game"]["season"] == "winter" and t.view("gm")["covenants"]["bob"]["provision"] == 0
    pass_main(t)
    assert t.phase() == "battle" and t.turn() == ["bob"]
    assert t.run("bob", AllocateDamage("bob", pay_off=True))["paid"] == {"provision": 1}
    for seat in ("cy", "ann"):
        assert t.turn() == [seat]
        t.run(seat, AllocateDamage(seat, {card(t, seat, "Grogs")["id"]: 3}))
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert [card(t, seat, "Grogs")["damage"] for seat in ("ann", "bob", "cy")] == [3, 0, 3]
    assert t.view("gm")["covenants"]["bob"]["provision"] == -1 and t.phase() == "move"


# ---------------------------------------------------------------- [000:409] the Cat's Art


def cat_then_pestilence(options: dict | None = None) -> tuple[Table, Cast]:
    """Ann (Cr, In, Co, Im, An) keeps the Cat on her mage; Bob keeps Livestock; Ann's Pestilence of the Flock (Pe,
    An) at it, to send."""
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Cr", "In", "Co", "Im", "An"]}, options=options)
    move_all(t, [5, 1, 2])  # Ann on Magic, Bob on Property
    d.push([6])
    cat = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", cat, attach_to=t.mage("ann")))
    livestock = generate_and_keep(t, d, {"bob": 7})["bob"]
    return t, Cast("ann", t.mage("ann"), "Pestilence of the Flock", livestock, 1)


def test_the_cat_lists_mentem_and_a_game_pinned_to_the_earlier_house_package_keeps_its_perdo():
    """[000:409] "Familiar: Cat Substance: Animate An Arts: Me": the house package 1.1.0 lists Me (1.0.0 had Pe),
    so a mage without Perdo keeping the Cat cannot cast Pestilence of the Flock (Pe, An; A-SPELL-1). A game keeps
    the package it pinned when it was created (A-AMB-1): one created with 1.0.0's content still plays its Cat
    with Pe."""
    t, cast = cat_then_pestilence()
    assert t.view("bob")["game"]["house"]["version"] == "1.1.0"
    refused(t, "ann", cast, "A-SPELL-1")
    earlier = default_data()
    earlier["version"] = "1.0.0"
    earlier["cards"]["Familiar: Cat"]["arts"] = ["Pe"]
    old, cast = cat_then_pestilence({"house": "custom", "house_package": earlier})
    assert old.view("bob")["game"]["house"]["version"] == "1.0.0"
    assert old.run("ann", cast)["magnitude"] == 1


# ---------------------------------------------------------------- A-SPELL-9: an Art's study counters


def test_a_spell_9_an_art_card_is_discarded_when_its_last_study_counter_is_removed():
    """A-SPELL-9 [000:433] Art: "If this card was attached to a mage from a Lab, place three counters on this card.
    ... At the end of each season, remove one counter. When the last counter is removed, this card is discarded.
    The Mage targeted by this card gains use of that particular Art." Ann keeps an Art (Me) on her mage: after two
    season ends it is in play with one counter; at the third the mage has Me and the card is gone."""
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Cr", "In", "Co", "Im", "An"]})
    move_all(t, [5, 1, 2])  # Ann on Magic
    d.push([1])  # the Art
    art = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", art, attach_to=t.mage("ann"), art="Me"))
    pass_create(t)
    pass_main(t)
    while t.phase() == "events":
        t.run(t.turn()[0], Pass(t.turn()[0]))
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    skip_season(t)
    ids = {c["id"]: c for c in t.view("bob")["covenants"]["ann"]["cards"]}
    assert ids[art]["counters"] == 1 and "Me" not in card(t, "ann", "Starting Mage")["arts"]
    skip_season(t)
    assert art not in {c["id"] for c in t.view("bob")["covenants"]["ann"]["cards"]}
    assert "Me" in card(t, "ann", "Starting Mage")["arts"]


# ---------------------------------------------------------------- A-EX-5: a boosted Riots battle undone


def test_a_ex_5_undoing_a_boosted_riots_battle_gives_the_town_back_its_state_before_it():
    """A-EX-5 [000:111] "the damage from such a battle may have to be redistributed if the spell is countered" with
    A-AMB-15 "A counter emits compensating events": Ann's Grogs (Might 2, a package of the test's), raised to 3 by
    her Might of the Bear, fight the Riots' Town before Bob agreed (the host closes his turn); [000:781] under 4
    damage the Town "is made inactive (rotated)" with 3. Bob counters the boost in the extra round: the Town is
    again active and undamaged, as before the battle, and the battle fought again un-boosted leaves it rotated
    with 2 (not 3 + 2 = 5, which would have ended the Riots)."""
    d = Dice()
    t = fixed_three(d, arts=BOOST_ARTS, options={**package(grogs_fight_with(2)), "yearly_consumes": False})
    for squares, face in (({"ann": 1, "bob": 2, "cy": 3}, 1), ({"ann": 2, "bob": 3, "cy": 4}, 2),
                          ({"ann": 6, "bob": 7, "cy": 8}, 1)):  # fmt: skip
        move_all_to(t, squares)
        generate_and_keep(t, d, {"ann": face})  # Villagers, Improve Covenant (Expansion/Minor), Villagers
        pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    move_all_to(t, {"ann": 1, "bob": 2, "cy": 3})
    town = generate_and_keep(t, d, {"ann": 19})["ann"]  # the Town: the four Villagers go
    end_season(t)
    skip_season(t)
    skip_season(t)
    move_all_to(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([12])  # Riots (directed)
    t.run("bob", DrawEvent("bob"))
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    while t.turn()[0] != "ann":
        t.run(t.turn()[0], Pass(t.turn()[0]))
    grogs = card(t, "ann", "Grogs")["id"]
    spell = t.run("ann", Cast("ann", t.mage("ann"), BEAR, grogs, 1))["spell_id"]
    pass_main(t)
    t.run("cy", NoCounter("cy"))
    t.run("ann", NoCounter("ann"))
    (window,) = t.view("bob")["windows"]
    t.run("ann", CloseWindow(window["id"]))  # Bob has not agreed
    assert t.view("cy")["battle"]["dealt"] == {"ann": 3, "Riots": 5}
    t.run("ann", AllocateDamage("ann", {grogs: 5}))
    town_now = next(c for c in t.view("cy")["covenants"]["ann"]["cards"] if c["id"] == town)
    assert (town_now["damage"], town_now["active"]) == (3, False)
    assert t.run("bob", Cast("bob", t.mage("bob"), "Counterspell", spell, 2))["countered"] is True
    town_now = next(c for c in t.view("cy")["covenants"]["ann"]["cards"] if c["id"] == town)
    assert (town_now["damage"], town_now["active"]) == (0, True)
    pass_main(t)
    assert t.view("cy")["battle"]["dealt"] == {"ann": 2, "Riots": 5}
    t.run("ann", AllocateDamage("ann", {grogs: 5}))
    town_now = next(c for c in t.view("cy")["covenants"]["ann"]["cards"] if c["id"] == town)
    assert (town_now["damage"], town_now["active"]) == (2, False)
    assert "Riots" in t.view("cy")["events_in_play"]
