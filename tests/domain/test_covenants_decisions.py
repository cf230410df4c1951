"""The covenant game's ambiguity decisions (ANALYSIS A.6, A-AMB-1 .. A-AMB-22), one test or more per decision,
each named after it and played through the typed commands of the service with explicit dice; the campaign options
a decision creates are played both ways. A refusal names the rule and records nothing."""

from __future__ import annotations

import pytest

from application.service import Games
from domain.covenants.commands import (
    AllocateDamage,
    AnswerTrade,
    Cast,
    Challenge,
    ChooseArt,
    Convert,
    DecideEvent,
    Discard,
    DrawEvent,
    FaceBandits,
    Forfeit,
    Generate,
    Investigate,
    Keep,
    Move,
    NoCounter,
    OfferTrade,
    Pass,
    ResolveCertamen,
    SealBid,
    Support,
    TakeAction,
)
from domain.covenants.house import DEFAULT, default_data
from domain.covenants.options import CovenantOptions, option
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
from tests.domain.test_covenants_events_played import moves, town_for_ann


def refused(t, seat, command, rule):
    before = events_of(t)
    with pytest.raises(RuleViolation, match=rule):
        t.run(seat, command)
    assert events_of(t) == before


def main_phase(options: dict | None = None, d: Dice | None = None):
    """Ann starts; everyone moved and passed Create/Play: the first Main Phase, Ann's turn."""
    d = d or Dice()
    t = fixed_three(d, options=options)
    move_all(t, [1, 2, 3])
    pass_create(t)
    assert t.phase() == "main" and t.turn() == ["ann", "bob", "cy"]
    return d, t


def passes(t, *seats):
    for seat in seats:
        t.run(seat, Pass(seat))


# ---------------------------------------------------------------- A-AMB-5: how long the Main Phase lasts


def test_a_amb_5_the_main_phase_runs_rounds_until_everyone_passes_then_one_extra_round():
    """A-AMB-5 "Main Phase = clockwise turns of one action each. Loop until a full round in which every player
    passes. Then run the MainPhase.end triggers. Then give one extra round of single actions or passes, to cover
    "does not prohibit"." (main_phase_mode passes_then_extra_round, the default)."""
    d, t = main_phase()
    t.run("ann", TakeAction("ann", "custom", "a feast"))
    passes(t, "bob", "cy")
    assert t.phase() == "main" and t.turn() == ["ann", "bob", "cy"]  # someone acted: another round
    refused(t, "bob", Pass("bob"), "A-ORDER-1")  # one action each, clockwise
    passes(t, "ann", "bob", "cy")  # a full round of passes: no end-of-phase event, so the extra round
    assert t.phase() == "main" and t.turn() == ["ann", "bob", "cy"] and t.view("ann")["game"]["extra_round"]
    t.run("ann", TakeAction("ann", "custom", "a second feast"))
    passes(t, "bob", "cy")  # one extra round only, even if someone acted in it
    assert t.phase() == "move" and t.view("ann")["game"]["cycle"] == 2


def test_a_amb_5_the_extra_round_comes_after_the_end_of_main_phase_events():
    """A-AMB-5 "Then run the MainPhase.end triggers. Then give one extra round": [000:115] "at the end of the Main
    Phase ... does not prohibit the players from taking more actions after the Event's effects have completed":
    the Wave of Bandits is faced first, then every covenant has one more turn."""
    d = Dice()
    t = fixed_three(d, options={"yearly_conversion_consumes": False})  # gold kept to pay the bandits with
    for _ in range(4):
        skip_season(t)
    assert t.view("gm")["game"]["starting_player"] == "bob"
    move_all(t, [9, 1, 2])
    pass_create(t)
    d.push([5])  # Wave of Bandits, a global event for any season: played

    assert t.run("bob", DrawEvent("bob"))["played"] is True
    assert t.phase() == "main" and t.turn() == ["bob", "cy", "ann"]
    passes(t, "bob", "cy", "ann")
    assert t.phase() == "bandits"  # the end of the Main Phase first
    for seat in ("bob", "cy", "ann"):
        t.run(seat, FaceBandits(seat, fight=False))
    assert t.phase() == "main" and t.turn() == ["bob", "cy", "ann"] and t.view("bob")["game"]["extra_round"]
    passes(t, "bob", "cy", "ann")
    assert t.phase() == "move"  # the bandits are not faced again


def test_a_amb_5_main_phase_mode_one_round_ends_the_main_phase_after_one_round():
    """A-AMB-5 "A campaign option allows exactly one round": with main_phase_mode one_round the Main Phase ends
    after one round of single actions ([000:17] "each player has the opportunity to take one action"), even though
    Ann acted in it."""
    d, t = main_phase({"main_phase_mode": "one_round"})
    t.run("ann", TakeAction("ann", "custom", "a feast"))
    passes(t, "bob", "cy")
    assert t.phase() == "move" and t.view("ann")["game"]["cycle"] == 2


def test_a_amb_5_main_phase_mode_until_everyone_passes_gives_no_extra_round():
    """A-AMB-5 with main_phase_mode until_everyone_passes: rounds go on while someone acts, and the first round of
    passes ends the Main Phase, with no extra round."""
    d, t = main_phase({"main_phase_mode": "until_everyone_passes"})
    t.run("ann", TakeAction("ann", "custom", "a feast"))
    passes(t, "bob", "cy")
    assert t.phase() == "main" and t.turn() == ["ann", "bob", "cy"]
    passes(t, "ann", "bob", "cy")
    assert t.phase() == "move"


# ---------------------------------------------------------------- A-AMB-7: Certamen


def certamen_between(first: str, second: str, options: dict | None = None):
    """In the first Main Phase ``first`` passes (if it is not Ann) until ``second`` challenges ``first``."""
    d, t = main_phase(options)
    while t.turn()[0] != second:
        t.run(t.turn()[0], Pass(t.turn()[0]))
    cid = t.run(second, Challenge(second, t.mage(second), t.mage(first)))["challenge_id"]
    pass_main(t)
    assert t.phase() == "certamen"
    return d, t, cid


def test_a_amb_7_a_challenge_is_resolved_on_the_turn_of_the_first_of_its_two_players_clockwise():
    """A-AMB-7 "A challenge is resolved on the turn of the first of its two players in clockwise order from the
    starting player.": Bob challenges Ann, the starting player; the challenge is resolved on Ann's turn."""
    d, t, cid = certamen_between("ann", "bob")
    assert t.turn() == ["ann"]
    t.run("bob", ChooseArt("bob", cid, "Re"))
    t.run("ann", ChooseArt("ann", cid, "Vi"))
    t.run("bob", SealBid("bob", cid, 1))
    t.run("ann", SealBid("ann", cid, 0))
    refused(t, "bob", ResolveCertamen("bob", cid), "A-ORDER-1|A-AMB-7")  # not Bob's turn
    out = t.run("ann", ResolveCertamen("ann", cid))
    assert out["winner"] == "bob" and t.phase() == "move"


def test_a_amb_7_the_same_player_is_challenged_again_in_the_next_season_but_one():
    """A-AMB-7 "The challenger may challenge the same player again in the next season but one: a whole season must
    pass in between." (certamen_rechallenge_gap 2, the default): Ann challenges Bob in Spring; in Summer she may
    not, in Autumn she may."""
    d, t = main_phase()
    cid = t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))["challenge_id"]
    pass_main(t)
    t.run("bob", Forfeit("bob", cid))
    t.run("ann", Move("ann", 10))
    reckon(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    assert t.view("ann")["game"]["season"] == "summer" and t.turn()[0] == "ann"
    refused(t, "ann", Challenge("ann", t.mage("ann"), t.mage("bob")), "A-CERT-1")
    t.run("ann", Challenge("ann", t.mage("ann"), t.mage("cy")))  # another player may be challenged
    pass_main(t)
    t.run("cy", Forfeit("cy", t.view("ann")["challenges"][0]["id"]))
    t.run("ann", Move("ann", 10))
    reckon(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    assert t.view("ann")["game"]["season"] == "autumn"
    t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))


def test_a_amb_7_certamen_rechallenge_gap_one_allows_the_next_season():
    """A-AMB-7's reading "the next season" as a campaign option: certamen_rechallenge_gap 1 lets Ann challenge Bob
    again in Summer; the option is bounded (1 to 4 seasons)."""
    d, t = main_phase({"certamen_rechallenge_gap": 1})
    cid = t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))["challenge_id"]
    pass_main(t)
    t.run("bob", Forfeit("bob", cid))
    t.run("ann", Move("ann", 10))
    reckon(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    assert t.view("ann")["game"]["season"] == "summer"
    t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))

    with pytest.raises(RuleViolation, match="certamen_rechallenge_gap"):
        Games().create_game("x", ruleset="covenants", options={"certamen_rechallenge_gap": 0})


# ---------------------------------------------------------------- A-AMB-8: ties


def a_year_with_a_gift(options: dict):
    """Cy gives Ann 1 gold in the first Main Phase; a quiet year follows. At the Yearly Reckoning Ann and Bob both
    score 6 (Ann's 5 gold make 2 points and leave 1 unconverted), Cy 5 (3 gold)."""
    d, t = main_phase({"target_score": 6, **options})
    passes(t, "ann", "bob")
    trade = t.run("cy", OfferTrade("cy", "ann", {"gold": 1}, {}))["trade_id"]
    t.run("ann", AnswerTrade("ann", trade, True))
    pass_main(t)
    t.run("ann", Move("ann", 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    return t


def test_a_amb_8_a_tied_win_is_shared():
    """A-AMB-8 "Winning tie → shared victory" (winner_tiebreak shared, the default): Ann and Bob both reach 6."""
    t = a_year_with_a_gift({})
    v = t.view("cy")
    assert [v["covenants"][s]["score"] for s in ("ann", "bob", "cy")] == [6, 6, 5]
    assert v["game"]["phase"] == "over" and v["game"]["winners"] == ["ann", "bob"]


def test_a_amb_8_winner_tiebreak_the_larger_unconverted_surplus():
    """A-AMB-8 "or an optional tiebreak: the larger unconverted surplus" (winner_tiebreak unconverted_surplus): Ann
    keeps 1 gold unconverted, Bob none; Ann wins alone."""
    t = a_year_with_a_gift({"winner_tiebreak": "unconverted_surplus"})
    v = t.view("cy")
    assert [v["covenants"][s]["score"] for s in ("ann", "bob", "cy")] == [6, 6, 5]
    assert v["covenants"]["ann"]["gold"] == 1 and v["covenants"]["bob"]["gold"] == 0
    assert v["game"]["winners"] == ["ann"]


# ---------------------------------------------------------------- A-AMB-9: yearly conversion


def test_a_amb_9_the_yearly_conversion_consumes_the_gold_and_vis_converted():
    """A-AMB-9 "the conversion consumes the gold and vis converted" (yearly_conversion_consumes, the default): a
    quiet year: 4 gold and 4 vis make 6 points and are spent; the odd provision is lost anyway."""
    t = fixed_three(Dice())
    for _ in range(4):
        skip_season(t)
    v = t.view("gm")["covenants"]["ann"]
    assert (v["score"], v["gold"], v["vis"], v["provision"]) == (6, 0, 0, 0)


def test_a_amb_9_yearly_conversion_consumes_false_keeps_them():
    """A-AMB-9 "Make consumption a campaign flag": with yearly_conversion_consumes false the points are scored
    and the gold and vis stay (the name yearly_consumes of earlier games is read too)."""
    for name in ("yearly_conversion_consumes", "yearly_consumes"):
        t = fixed_three(Dice(), options={name: False})
        for _ in range(4):
            skip_season(t)
        v = t.view("gm")["covenants"]["ann"]
        assert (v["score"], v["gold"], v["vis"], v["provision"]) == (6, 4, 4, 0)


# ---------------------------------------------------------------- A-AMB-1: the lost tables are house rules


def test_a_amb_1_the_lost_tables_come_from_a_versioned_house_package_the_game_pins_and_plays():
    """A-AMB-1 "Build the engine around versioned, data-driven tables (generators, winnings, events, action
    catalogue). Give the host a "house rules" editor, and record the version in each game's first event.": a custom
    package pins its own name, version and hash, and its forfeit penalty and Main Phase actions are the ones played;
    a package that leaves a table empty is refused naming it and creates no game."""
    data = default_data()
    data.update(version="house-2", certamen={"winnings": ["vis"], "forfeit_penalty": {"gold": 2}})
    data["main_actions"] = {"feast": {"text": "Hold a feast."}}
    games = Games()
    with pytest.raises(RuleViolation, match="A-GEN-0"):
        games.create_game(
            "x", ruleset="covenants", options={"house": "custom", "house_package": {**data, "events": {}}}
        )
    t = fixed_three(Dice(), options={"house": "custom", "house_package": data})
    pin = t.view("bob")["game"]["house"]
    assert pin["version"] == "house-2" and pin["sha256"] != DEFAULT.pin()["sha256"]
    move_all(t, [1, 2, 3])
    pass_create(t)
    refused(t, "ann", TakeAction("ann", "custom", "a duel"), "actions are \\['feast'\\]")  # not in this package
    cid = t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))["challenge_id"]
    pass_main(t)
    t.run("bob", Forfeit("bob", cid))  # this package's penalty: 2 gold
    v = t.view("cy")["covenants"]
    assert (v["bob"]["gold"], v["ann"]["gold"], v["bob"]["vis"]) == (2, 6, 4)


# ---------------------------------------------------------------- A-AMB-2, -3, -4: the track


def test_a_amb_2_the_events_phase_begins_only_after_the_first_four_seasons():
    """A-AMB-2 "This only occurs after the first four seasons" belongs to "The Events Phase": in the first Spring
    Ann stands on the Event square and no Events Phase begins (nobody draws); in the fifth season it does."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [9, 1, 2])
    assert t.turn() == ["bob", "cy"]  # Create/Play: the Event square generates nothing
    pass_create(t)
    assert t.phase() == "main"
    refused(t, "ann", DrawEvent("ann"), "A-ORDER-1")
    pass_main(t)
    t.run("ann", Move("ann", 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    assert t.view("gm")["game"]["year"] == 2 and t.view("gm")["game"]["starting_player"] == "bob"
    move_all(t, [9, 1, 2])
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["bob"]


def test_a_amb_3_every_token_goes_back_to_begin_when_a_season_begins():
    """A-AMB-3 "Reset them to Begin at the start of every season. "First move in a season" only makes sense that
    way.": after Spring every token is on Begin, and Summer's first move may again go no further than Event."""
    d, t = main_phase()
    pass_main(t)
    t.run("ann", Move("ann", 10))  # a second move may reach End
    reckon(t)
    v = t.view("bob")
    assert v["game"]["season"] == "summer" and {c["square"] for c in v["covenants"].values()} == {0}
    refused(t, "ann", Move("ann", 10), "A-TRACK-1")
    t.run("ann", Move("ann", 9))


def test_a_amb_4_a_token_on_end_begins_the_reckoning_at_once_and_nobody_else_moves():
    """A-AMB-4 "Go to Reckoning immediately. Players who have not moved yet do not move, and Create/Play, Events,
    Main and Certamen are skipped for that cycle.": Ann's second move reaches End; Bob and Cy do not move."""
    d, t = main_phase()
    pass_main(t)
    assert t.phase() == "move" and t.turn() == ["ann", "bob", "cy"]
    t.run("ann", Move("ann", 10))
    v = t.view("cy")
    assert v["game"]["phase"] == "reckoning" and v["game"]["cycle"] == 2
    assert {c["square"] for c in v["covenants"].values()} == {10}  # all other tokens join it
    refused(t, "bob", Move("bob", 5), "A-ORDER-1")
    refused(t, "bob", TakeAction("bob", "custom", "a feast"), "A-ORDER-1")


# ---------------------------------------------------------------- A-AMB-8, A-AMB-9: the Yearly Reckoning


def test_a_amb_8_the_lowest_score_starts_and_a_tie_goes_to_the_first_clockwise_after_the_starter():
    """A-AMB-8 "Starting-player tie → the tied player who comes first clockwise after the current starting
    player.": a quiet year leaves all three on 6, so Bob (after Ann) starts; with Cy's gift to Ann, Cy has the
    lowest score, 5, and starts."""
    t = fixed_three(Dice())
    for _ in range(4):
        skip_season(t)
    assert t.view("cy")["game"]["starting_player"] == "bob"
    t = a_year_with_a_gift({"target_score": 25})
    assert t.view("cy")["game"]["starting_player"] == "cy"


def test_a_amb_9_tribute_comes_off_this_years_points_and_then_only_permanent_tribute_stays():
    """A-AMB-9 "Tribute is taken point by point, first from this year's points, then from the score. Permanent
    tribute recurs every Yearly Reckoning.": Bob loses a Certamen to Ann and owes her 1 point: at the Yearly
    Reckoning his 6 points become 5 and Ann's 7; the tribute is not permanent, so it is gone after."""
    d, t = main_phase()
    cid = t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))["challenge_id"]
    pass_main(t)
    t.run("ann", ChooseArt("ann", cid, "Cr"))
    t.run("bob", ChooseArt("bob", cid, "Im"))
    t.run("ann", SealBid("ann", cid, 0))
    t.run("bob", SealBid("bob", cid, 0))
    assert t.run("ann", ResolveCertamen("ann", cid))["winner"] == "ann"  # 1 + Cr + Im = 3 against 1 + Im = 2
    v = t.view("cy")["covenants"]
    assert v["bob"]["tribute"] == [{"to": "ann", "points": 1, "permanent": False}]
    t.run("ann", Move("ann", 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    v = t.view("cy")["covenants"]
    assert [v[s]["score"] for s in ("ann", "bob", "cy")] == [7, 5, 6] and v["bob"]["tribute"] == []


# ---------------------------------------------------------------- A-AMB-12, -18, -20: spells


def test_a_amb_12_a_ritual_cast_again_on_the_same_target_spends_its_vis_and_does_nothing():
    """A-AMB-12 "The vis is spent; there is no effect." [000:71] "A ritual spell, if cast again by anyone using the
    same target while the original is still in effect, has no result.": Ann's Enhance Resistance on her Grogs, cast
    again next round, costs 2 vis and adds no second effect."""
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Re", "Vi", "Cr", "Co", "Im"]})
    move_all(t, [1, 2, 3])
    pass_create(t)
    grogs = next(c["id"] for c in t.view("ann")["covenants"]["ann"]["cards"] if c["name"] == "Grogs")
    first = t.run("ann", Cast("ann", t.mage("ann"), "Enhance Resistance", grogs, 2))
    assert first["recast"] is False and first["magnitude"] == 2
    passes(t, "bob", "cy")
    again = t.run("ann", Cast("ann", t.mage("ann"), "Enhance Resistance", grogs, 2))
    assert again["recast"] is True and again["magnitude"] is None
    v = t.view("bob")
    assert v["covenants"]["ann"]["vis"] == 0
    assert [e["target"] for e in v["effects"] if e["spell"] == "Enhance Resistance"] == [grogs]


def winter_reckoning(arts: dict):
    """A quiet year to its Winter Reckoning (Bob moves to End)."""
    t = fixed_three(Dice(), arts=arts)
    for _ in range(3):
        skip_season(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    assert t.phase() == "reckoning" and t.view("gm")["game"]["season"] == "winter"
    return t


def test_a_amb_18_an_aegis_is_worth_its_vis_less_two_so_two_pawns_give_none():
    """A-AMB-18 "Reduce by the Aegis value = clamp(vis − 2, 0, 3). Cast with 2 vis it gives 0": Bob's Aegis of 2
    pawns is worth 0, Cy's of 4 is worth 2."""
    aegis = ["Re", "Vi", "Mu", "Co", "Im"]
    t = winter_reckoning({"bob": aegis, "cy": aegis})
    t.run("bob", Cast("bob", t.mage("bob"), "Aegis of the Hearth", "bob", 2))
    t.run("cy", Cast("cy", t.mage("cy"), "Aegis of the Hearth", "cy", 4))
    worth = {e["target"]: e["aegis"] for e in t.view("ann")["effects"] if e["spell"] == "Aegis of the Hearth"}
    assert worth == {"bob": 0, "cy": 2}


def test_a_amb_20_a_spell_naming_no_phase_is_cast_in_the_main_phase_and_a_counter_in_any():
    """A-AMB-20 "The Main Phase, plus counters in any phase.": Arc of Lightning names seasons but no phase, so it is
    refused in Create/Play and cast in the Main Phase; a Counterspell is cast out of turn in that phase."""
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Cr", "Au", "Pe", "An", "Vi"], "bob": ["Pe", "Vi", "Cr", "Au", "Mu"]})
    move_all(t, [1, 2, 3])
    grogs = next(c["id"] for c in t.view("cy")["covenants"]["cy"]["cards"] if c["name"] == "Grogs")
    assert t.phase() == "create" and t.turn()[0] == "ann"
    refused(t, "ann", Cast("ann", t.mage("ann"), "Arc of Lightning", grogs, 2), "A-SPELL-8")
    d.push([20])
    assert t.run("ann", Generate("ann"))["card_id"] is None  # face 20 of Property makes nothing
    pass_create(t)
    cast = t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", grogs, 2))
    assert cast["magnitude"] == 2 and t.turn()[0] == "bob"
    t.run("bob", Pass("bob"))
    assert t.turn()[0] == "cy"
    out = t.run("bob", Cast("bob", t.mage("bob"), "Counterspell", cast["spell_id"], 3))  # not Bob's turn
    assert out["countered"] is True


def test_a_amb_15_a_spell_may_be_countered_until_its_phase_closes_and_not_after():
    """A-AMB-15 "Every spell gets a pending stage until its phase closes ... A counter emits compensating events.":
    Ann's Sphere of Flame damages Cy's Grogs; Bob's counter later in the Main Phase undoes the damage; a spell of a
    Main Phase that has closed can no longer be countered."""
    d = Dice()
    counter = ["Pe", "Vi", "Cr", "Ig", "Au"]  # a counter needs the Arts of the spell it counters
    t = fixed_three(d, arts={"ann": ["Cr", "Ig", "Vi", "An", "Au"], "bob": counter})
    move_all(t, [1, 2, 3])
    pass_create(t)
    grogs = next(c["id"] for c in t.view("cy")["covenants"]["cy"]["cards"] if c["name"] == "Grogs")

    def damage():
        return next(c for c in t.view("cy")["covenants"]["cy"]["cards"] if c["id"] == grogs)["damage"]

    first = t.run("ann", Cast("ann", t.mage("ann"), "Sphere of Flame", grogs, 1))
    assert damage() == 1
    passes(t, "bob", "cy")
    assert t.turn() == ["ann", "bob", "cy"]  # a later round of the same Main Phase
    assert t.run("bob", Cast("bob", t.mage("bob"), "Counterspell", first["spell_id"], 2))["countered"] is True
    assert damage() == 0
    again = t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", grogs, 1))  # a second spell, left be
    assert damage() == 1
    pass_main(t)
    assert t.phase() == "move"  # the Main Phase closed: its spells are no longer pending
    refused(t, "bob", Cast("bob", t.mage("bob"), "Counterspell", again["spell_id"], 2), "A-SPELL-5")
    assert damage() == 1


# ---------------------------------------------------------------- A-AMB-16: starting mages


def test_a_amb_16_a_rolled_starting_mage_has_two_techniques_and_three_forms_rerolling_a_duplicate_form():
    """A-AMB-16 "Randomly generated mages get 2 + 3. Reroll when the Form is a duplicate.": Ann's mage rolls d6 1
    (Cr), 1 again (rerolled), 6 (rerolled), 2 (In); d20 1 (An), 2 (An again, a different face: rerolled), 3 (Aq),
    20 (Vi). "Sample mages keep their printed Arts": a Sempiris generated later carries Cr, Pe, Ig."""
    d = Dice()
    d.push([1], [1], [6], [2], [1], [2], [3], [20])
    t = fixed_three(d, arts={"ann": []})
    assert sorted(
        next(c for c in t.view("bob")["covenants"]["ann"]["cards"] if c["id"] == t.mage("ann"))["arts"]
    ) == sorted(["Cr", "In", "An", "Aq", "Vi"])

    move_all(t, [3, 1, 2])  # Ann on a Personnel square
    d.push([15])
    sempiris = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", sempiris))
    assert next(c for c in t.view("bob")["covenants"]["ann"]["cards"] if c["id"] == sempiris)["arts"] == [
        "Cr",
        "Pe",
        "Ig",
    ]


# ---------------------------------------------------------------- A-AMB-21: unique events


def a_season_drawing(t, d: Dice, face: int) -> dict:
    """The first seat clockwise moves to the Event square and draws ``face``; a Wave of Bandits is paid off; the
    season ends when that seat moves on to End."""
    first = t.turn()[0]
    move_all(t, [9, 1, 2])
    pass_create(t)
    assert t.turn() == [first]
    d.push([face])
    drawn = t.run(first, DrawEvent(first))
    pass_main(t)
    while t.phase() == "bandits":
        t.run(t.turn()[0], FaceBandits(t.turn()[0], fight=False))
    pass_main(t)
    t.run(first, Move(first, 10))
    reckon(t)
    return drawn


def test_a_amb_21_an_event_in_play_is_not_drawn_again_and_a_discarded_one_is():
    """A-AMB-21 "In play → no card. In the discard pile → it may be fetched and played again ([000:174]).": in year
    two the Gathering of the Tribunal (a Summer event) drawn in Spring is created and discarded, and drawn again in
    Summer it is played; the Wave of Bandits played in Autumn stays in play, so drawing it in Winter gives no card."""
    d = Dice()
    t = fixed_three(d, options={"yearly_conversion_consumes": False})  # gold kept to pay the bandits with
    for _ in range(4):
        skip_season(t)
    assert a_season_drawing(t, d, 16) == {"face": 16, "event": "Gathering of the Tribunal", "played": False}
    assert a_season_drawing(t, d, 16) == {"face": 16, "event": "Gathering of the Tribunal", "played": True}
    assert a_season_drawing(t, d, 5)["played"] is True
    assert "Wave of Bandits" in t.view("ann")["events_in_play"] and t.view("ann")["game"]["season"] == "winter"
    assert a_season_drawing(t, d, 5) == {"face": 5, "event": None}


# ---------------------------------------------------------------- A-AMB-6: the Mouse


def test_a_amb_6_each_mouse_changes_one_roll_a_season_counted_again_each_season():
    """A-AMB-6 "Each "once per season" is counted per source card per season.": Ann's Mouse changes one roll in
    Summer, a second that Summer is refused, and in Autumn it changes one again."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [5, 1, 2])  # Ann on the Magic square
    d.push([5])  # Familiar: Mouse
    t.run("ann", Keep("ann", t.run("ann", Generate("ann"))["card_id"]))
    pass_create(t)
    pass_main(t)
    t.run("ann", Move("ann", 10))
    reckon(t)
    for season in ("summer", "autumn"):
        assert t.view("ann")["game"]["season"] == season
        move_all(t, [4, 1, 2])  # Ann on the Item square (d6)
        d.push([3])  # 3 - 2 = 1: a Sword instead of the Leather Shield
        card = t.run("ann", Generate("ann", mouse=-2))["card_id"]
        assert next(c for c in t.view("bob")["covenants"]["ann"]["cards"] if c["id"] == card)["name"].endswith("Sword")
        t.run("ann", Discard("ann", card))
        pass_create(t)
        pass_main(t)
        move_all(t, [6, 7, 8])  # the season's second cycle: Ann on Property
        refused(t, "ann", Generate("ann", mouse=1), "A-GEN-1")  # the Mouse was used this season
        pass_create(t)
        pass_main(t)
        t.run("ann", Move("ann", 10))
        reckon(t)


# ---------------------------------------------------------------- A-AMB-11: holdings and active Grogs


def test_a_amb_11_vis_sources_and_mines_go_when_the_active_grogs_no_longer_guard_them():
    """A-AMB-11 "Check against active Grogs (the stricter reading, and the one with a stated trigger) whenever any
    Grogs changes state.": Ann's one Grogs guards her Mine and Vis Source; Bob's Sphere of Flame damages it, it is
    rotated, and both holdings are discarded although the Grogs is still in play."""
    d = Dice()
    t = fixed_three(d, arts={"bob": ["Cr", "Ig", "Pe", "Vi", "Mu"]})
    move_all(t, [1, 2, 3])
    mine = generate_and_keep(t, d, {"ann": 12})["ann"]
    pass_main(t)
    move_all(t, [6, 7, 8])
    source = generate_and_keep(t, d, {"ann": 15})["ann"]
    grogs = next(c["id"] for c in t.view("ann")["covenants"]["ann"]["cards"] if c["name"] == "Grogs")
    t.run("ann", Pass("ann"))
    t.run("bob", Cast("bob", t.mage("bob"), "Sphere of Flame", grogs, 1))
    cards = {c["id"]: c for c in t.view("cy")["covenants"]["ann"]["cards"]}
    assert grogs in cards and not cards[grogs]["active"]
    assert mine not in cards and source not in cards


# ---------------------------------------------------------------- A-AMB-14: the Market Fair


def test_a_amb_14_the_market_fair_converts_both_ways_at_the_stated_rates():
    """A-AMB-14 "Market Fair converts both ways at the stated ratios." ([000:634] 2 provision for 1 gold, [000:635]
    2 gold for 1 pawn vis): with the Market Fair in play Ann turns 2 gold into 1 vis and back, 1 gold into 2
    provision and back; without it, nothing converts (A-ECON-1)."""
    d = Dice()
    t = fixed_three(d, options={"yearly_conversion_consumes": False})
    for _ in range(4):
        skip_season(t)
    move_all(t, [9, 1, 2])  # Bob starts year two, on the Event square
    pass_create(t)
    d.push([1])
    assert t.run("bob", DrawEvent("bob"))["event"] == "Market Fair"
    gold, vis = (t.view("ann")["covenants"]["ann"][k] for k in ("gold", "vis"))
    assert t.run("ann", Convert("ann", "gold", 2, "vis"))["got"] == 1
    assert t.run("ann", Convert("ann", "vis", 1, "gold"))["got"] == 2
    assert t.run("ann", Convert("ann", "gold", 1, "provision"))["got"] == 2
    assert t.run("ann", Convert("ann", "provision", 2, "gold"))["got"] == 1
    refused(t, "ann", Convert("ann", "provision", 1, "gold"), "A-ECON-1")  # in lots of 2
    v = t.view("bob")["covenants"]["ann"]
    assert (v["gold"], v["vis"], v["provision"]) == (gold, vis, 0)


# ---------------------------------------------------------------- A-AMB-22: capacity in battle


def test_a_amb_22_a_shield_raises_a_beings_capacity_and_the_receiving_side_assigns_the_damage():
    """A-AMB-22 "Capacity = Might + shield/armour modifiers − damage already taken. Surplus damage is assigned by
    the receiving side.": Ann's first Grogs carries a Leather Shield (capacity 2 + 1), her second has none (2). Ann
    fights the Wave of Bandits' 4: 3 on the shielded Grogs is within its capacity, 3 on the other is not."""
    d = Dice()
    t = fixed_three(d, options={"yearly_conversion_consumes": False})
    first = next(c["id"] for c in t.view("ann")["covenants"]["ann"]["cards"] if c["name"] == "Grogs")
    move_all(t, [4, 1, 2])  # Ann on the Item square
    d.push([3])  # Mundane Item (Shield): Leather Shield
    t.run("ann", Keep("ann", t.run("ann", Generate("ann"))["card_id"], attach_to=first))
    pass_create(t)
    pass_main(t)
    t.run("ann", Move("ann", 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    assert t.view("ann")["game"]["starting_player"] == "ann"  # the lowest score: she paid for the shield
    move_all(t, [3, 9, 1])  # year two: Ann on Personnel, Bob on the Event square
    d.push([1])  # Grogs
    second = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", second))
    pass_create(t)
    d.push([5])  # Wave of Bandits
    t.run("bob", DrawEvent("bob"))
    pass_main(t)
    assert t.phase() == "bandits" and t.turn() == ["ann", "bob", "cy"]
    refused(t, "ann", FaceBandits("ann", fight=True, allocation={first: 1, second: 3}), "A-BAT-1")
    out = t.run("ann", FaceBandits("ann", fight=True, allocation={first: 3, second: 1}))
    assert out["taken"] == {first: 3, second: 1}
    cards = {c["id"]: c for c in t.view("cy")["covenants"]["ann"]["cards"]}
    assert (cards[first]["damage"], cards[second]["damage"]) == (3, 1)


# ---------------------------------------------------------------- A-AMB-10: the end of Winter


def kinds_since(t, position: int, wanted: set[str]) -> list[str]:
    """The kinds of the events recorded after ``position`` that are in ``wanted``, in order."""
    out = []
    for n in t.games.recorder.select_notifications(start=position + 1, limit=1000):
        kind = n.topic.rsplit(".", 1)[-1]
        if kind in wanted:
            out.append(kind)
    return out


def test_a_amb_10_the_end_of_winter_runs_support_discards_healing_then_the_yearly_reckoning():
    """A-AMB-10 "Winter Reckoning.begin (item upkeep, Bailiff, Aegis casting) → support allocation → discard
    unsupported → passive healing → discard inactive mundane beings ([000:122]) → Yearly Reckoning → clear provisions
    → new starting player → year token to Spring.": in Autumn Bob deals Cy's Grogs 2 and Cy deals Ann's 1; at the
    Winter Reckoning Bob casts his Aegis, then each covenant supports (Bob starving a Villagers), then the Grogs heal
    (Ann's fully), Cy's, still damaged, is discarded, and the year is reckoned before Spring begins."""
    arts = {"bob": ["Cr", "Ig", "Re", "Vi", "Pe"], "cy": ["Cr", "Ig", "Re", "Mu", "An"]}
    t = fixed_three(Dice(), arts=arts)
    for _ in range(2):
        skip_season(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    cards = t.view("cy")["covenants"]
    ann_grogs, cy_grogs = (next(c["id"] for c in cards[s]["cards"] if c["name"] == "Grogs") for s in ("ann", "cy"))
    pass_until(t, "bob")
    t.run("bob", Cast("bob", t.mage("bob"), "Sphere of Flame", cy_grogs, 2))
    t.run("cy", Cast("cy", t.mage("cy"), "Sphere of Flame", ann_grogs, 1))
    pass_main(t)
    t.run("ann", Move("ann", 10))
    reckon(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_main(t)
    t.run("ann", Move("ann", 10))
    assert t.phase() == "reckoning" and t.view("cy")["game"]["season"] == "winter"
    position = events_of(t)
    t.run("bob", Cast("bob", t.mage("bob"), "Aegis of the Hearth", "bob", 2))
    villagers = next(c["id"] for c in t.view("bob")["covenants"]["bob"]["cards"] if c["name"] == "Villagers")
    for seat in ("ann", "bob", "cy"):
        t.run(seat, Support(seat, [villagers] if seat == "bob" else []))
    wanted = {"SpellCast", "SupportAllocated", "CardDiscarded", "CardHealed", "YearReckoned", "SeasonBegan"}
    assert kinds_since(t, position, wanted) == [
        "SpellCast", "SupportAllocated", "SupportAllocated", "CardDiscarded", "SupportAllocated",
        "CardHealed", "CardHealed", "CardDiscarded", "YearReckoned", "SeasonBegan",
    ]  # fmt: skip
    v = t.view("cy")
    assert v["game"]["season"] == "spring" and v["game"]["year"] == 2
    assert not any(c["id"] == cy_grogs for c in v["covenants"]["cy"]["cards"])
    assert next(c for c in v["covenants"]["ann"]["cards"] if c["id"] == ann_grogs)["active"]
    assert all(c["provision"] == 0 for c in v["covenants"].values())


# ---------------------------------------------------------------- A-AMB-19: the Quaesitors


LEVITATE = ["Re", "Au", "Cr", "Co", "Vi"]  # Levitate on Wings of Air: a spell that harms nobody


def test_a_amb_19_the_created_investigation_ignores_a_held_event_and_goes_to_any_marked_covenant():
    """A-AMB-19 "The auto-created investigation may target any marked covenant. ... Auto-creation ignores the "no
    event on hold" gate but respects "no investigation in progress".": in year two Bob holds a Lost Apprentice for
    Winter; Ann levitates Bob's Grogs (marked, though she damaged nobody). In Summer an Investigation is created for
    Cy on the Event square although an event is on hold, and Cy applies it to Ann; Cy gains no Events card of her own
    while the event is on hold ([000:15] "If there is no Event currently on hold ..."). In Autumn Bob is marked, but
    with the Investigation in progress none is created, and Bob on the Event square has no Events turn."""
    d = Dice()
    t = fixed_three(d, arts={"ann": LEVITATE, "bob": LEVITATE}, options={"yearly_conversion_consumes": False})
    for _ in range(4):
        skip_season(t)
    move_all(t, [9, 1, 2])  # year two, Bob starts: Bob on the Event square
    pass_create(t)
    d.push([19])  # Lost Apprentice (directed): held for Winter
    t.run("bob", DrawEvent("bob"))
    t.run("bob", DecideEvent("bob", "hold", season="winter"))
    passes(t, "bob", "cy")
    t.run("ann", Cast("ann", t.mage("ann"), "Levitate on Wings of Air", grogs_of(t, "bob"), 1))
    assert t.view("cy")["covenants"]["ann"]["marked"]
    pass_main(t)
    t.run("bob", Move("bob", 10))
    reckon(t)
    move_all(t, [1, 9, 2])  # Summer: Cy on the Event square
    pass_create(t)
    v = t.view("ann")
    assert v["held_events"] and v["pending_event"] == {
        "seat": "cy",
        "event": "Quaesitor Investigation",
        "quaesitor": True,
    }
    t.run("cy", DecideEvent("cy", "play", target="ann"))
    assert t.view("bob")["investigation"]["target"] == "ann"
    refused(t, "cy", DrawEvent("cy"), "A-EVT-1")
    t.run("cy", Pass("cy"))
    t.run("bob", Cast("bob", t.mage("bob"), "Levitate on Wings of Air", grogs_of(t, "cy"), 1))
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    assert t.view("ann")["game"]["season"] == "autumn" and t.view("ann")["covenants"]["bob"]["marked"]
    move_all(t, [9, 1])  # Autumn: Bob on the Event square; Ann is out of play
    pass_create(t)
    v = t.view("ann")
    assert v["pending_event"] is None and v["investigation"]["target"] == "ann"
    assert v["events_in_play"].count("Quaesitor Investigation") == 1
    assert t.phase() == "main"  # no Events turn: nothing to decide, and no card to gain while one is on hold


def grogs_of(t, seat: str) -> str:
    return next(c["id"] for c in t.view("gm")["covenants"][seat]["cards"] if c["name"] == "Grogs")


def test_a_amb_19_a_drawn_investigation_goes_only_to_a_covenant_that_has_damaged_another():
    """A-AMB-19 "A drawn Quaesitor card needs both conditions" ([000:767] "This event can only be directed at a
    covenant that has perpetrated an act of aggression and has damaged another."): Cy burnt Bob's Grogs in year one;
    the Investigation created for it in year two is over by Summer, when Bob draws a Quaesitor Investigation: Ann,
    who never harmed anyone, may not be its target; Cy may, and is investigated."""
    d = Dice()
    t = fixed_three(d, arts={"cy": ["Cr", "Ig", "Re", "Mu", "An"]}, options={"yearly_conversion_consumes": False})
    move_all(t, [1, 2, 3])
    pass_create(t)
    passes(t, "ann", "bob")
    t.run("cy", Cast("cy", t.mage("cy"), "Sphere of Flame", grogs_of(t, "bob"), 1))
    pass_main(t)
    t.run("ann", Move("ann", 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    assert t.view("ann")["game"]["starting_player"] == "cy"  # the vis she spent: the lowest score
    move_all(t, [1, 9, 2])  # year two: Ann on the Event square
    pass_create(t)
    t.run("ann", DecideEvent("ann", "play", target="cy"))  # the created Investigation
    t.run("ann", Pass("ann"))
    d.push([2])
    t.run("cy", Investigate("cy"))  # her one mage rolls even: the Investigation is over
    pass_main(t)
    t.run("ann", Move("ann", 10))
    reckon(t)
    assert t.view("ann")["investigation"] == {} and not any(c["marked"] for c in t.view("ann")["covenants"].values())
    move_all(t, [1, 2, 9])  # Summer: Bob on the Event square
    pass_create(t)
    d.push([11])
    t.run("bob", DrawEvent("bob"))
    assert t.view("ann")["pending_event"] == {"seat": "bob", "event": "Quaesitor Investigation"}
    refused(t, "bob", DecideEvent("bob", "play", target="ann"), "A-AMB-19")
    t.run("bob", DecideEvent("bob", "play", target="cy"))
    assert t.view("ann")["investigation"]["target"] == "cy"


def test_a_amb_19_a_held_investigation_is_not_played_while_one_is_in_progress():
    """A-AMB-19 "respects "no investigation in progress"": in year two Bob draws a Quaesitor Investigation and holds
    it for Autumn; Cy burns Bob's Grogs; in Summer the Investigation created for Cy on the Event square goes to Cy.
    In Autumn Bob's held card fires while Cy's Investigation is in progress: it may not be played (on Cy or anyone),
    refused naming the rule, and Bob discards it; the Investigation in progress is unchanged."""
    d = Dice()
    t = fixed_three(d, arts={"cy": ["Cr", "Ig", "Re", "Mu", "An"]}, options={"yearly_conversion_consumes": False})
    for _ in range(4):
        skip_season(t)
    move_all(t, [9, 1, 2])  # year two, Bob starts: Bob on the Event square
    pass_create(t)
    d.push([11])  # Quaesitor Investigation
    t.run("bob", DrawEvent("bob"))
    t.run("bob", DecideEvent("bob", "hold", season="autumn"))
    passes(t, "bob")
    t.run("cy", Cast("cy", t.mage("cy"), "Sphere of Flame", grogs_of(t, "bob"), 1))
    pass_main(t)
    t.run("bob", Move("bob", 10))
    reckon(t)
    move_all(t, [1, 9, 2])  # Summer: Cy on the Event square
    pass_create(t)
    assert t.view("ann")["pending_event"] == {"seat": "cy", "event": "Quaesitor Investigation", "quaesitor": True}
    t.run("cy", DecideEvent("cy", "play", target="cy"))
    before = t.view("ann")["investigation"]
    assert before["target"] == "cy"
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    assert t.view("ann")["game"]["season"] == "autumn"
    move_all(t, [9, 1])  # Autumn: Bob on the Event square; Cy is out of play
    pass_create(t)
    assert t.view("ann")["pending_event"] == {"seat": "bob", "event": "Quaesitor Investigation", "season": "autumn"}
    for target in ("cy", "ann"):
        refused(t, "bob", DecideEvent("bob", "play", target=target), "A-AMB-19")
    t.run("bob", DecideEvent("bob", "discard"))
    v = t.view("ann")
    assert v["investigation"] == before and v["events_in_play"].count("Quaesitor Investigation") == 1


def test_a_amb_9_a_covenant_may_keep_gold_and_vis_unconverted_at_the_winter_reckoning():
    """A-AMB-9 "The player may choose to keep some unconverted; leftover provision is lost anyway.": at the Winter
    Reckoning Ann keeps 2 gold and 1 vis: she scores 1 + 3 = 4 and holds them into the new year, where Bob, who
    kept nothing, scores 6 and holds none. Keeping more than she will hold, or at another season's Reckoning, is
    refused."""
    t = fixed_three(Dice())
    for _ in range(2):
        skip_season(t)
    for season in ("autumn", "winter"):
        move_all(t, [1, 2, 3])
        pass_create(t)
        pass_main(t)
        t.run("ann", Move("ann", 10))
        assert t.phase() == "reckoning" and t.view("ann")["game"]["season"] == season
        if season == "autumn":
            refused(t, "ann", Support("ann", keep={"gold": 2}), "A-AMB-9")
            reckon(t)
    refused(t, "ann", Support("ann", keep={"gold": 5}), "A-AMB-9")  # she holds 4
    refused(t, "ann", Support("ann", keep={"provision": 1}), "A-AMB-9")
    t.run("ann", Support("ann", keep={"gold": 2, "vis": 1}))
    reckon(t)
    v = t.view("cy")["covenants"]
    assert (v["ann"]["score"], v["ann"]["gold"], v["ann"]["vis"]) == (4, 2, 1)
    assert (v["bob"]["score"], v["bob"]["gold"], v["bob"]["vis"]) == (6, 0, 0)


# ---------------------------------------------------------------- A-AMB-13: Riots


def test_a_amb_13_while_riots_are_in_effect_their_thresholds_and_not_the_structure_limit_decide_the_town():
    """A-AMB-13 "While Riots is in effect, Riots' thresholds override the Town's 5-damage structure limit." (and
    "in excess of 9" read as ≥ 9): Cy raises Ann's Grogs' Might by 3, so Ann's side deals her rioting Town 5 — a
    structure's destruction at 5 (A-DMG-2) does not apply: 4 to 8 ends the Riots and the Town reverts to normal."""
    d = Dice()
    t, town = town_for_ann(d)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([12])  # Riots (directed)
    t.run("bob", DrawEvent("bob"))
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    assert t.turn() == ["ann", "bob", "cy"]
    passes(t, "ann", "bob")
    t.run("cy", Cast("cy", t.mage("cy"), "Might of the Bear", grogs_of(t, "ann"), 3))
    pass_main(t)
    for seat in ("ann", "bob", "cy"):  # H-15: the battle waits for every "no counter"
        t.run(seat, NoCounter(seat))
    assert t.view("cy")["battle"]["dealt"] == {"ann": 5, "Riots": 5}
    t.run("ann", AllocateDamage("ann", {grogs_of(t, "ann"): 5}))
    town_card = next(c for c in t.view("cy")["covenants"]["ann"]["cards"] if c["id"] == town)
    assert town_card["damage"] == 0 and town_card["active"]  # 5 damage, and the Town stands
    pass_main(t)
    while t.turn()[0] != "bob":
        t.run(t.turn()[0], Move(t.turn()[0], 3))
    t.run("bob", Move("bob", 10))
    reckon(t, {"ann": [grogs_of(t, "ann")]})
    v = t.view("cy")
    assert "Riots" not in v["events_in_play"] and any(c["id"] == town for c in v["covenants"]["ann"]["cards"])


# ---------------------------------------------------------------- the options, validated


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("main_phase_mode", "forever"),
        ("yearly_conversion_consumes", "no"),
        ("certamen_rechallenge_gap", 5),
        ("winner_tiebreak", "coin"),
        ("house", "mine"),
    ],
)
def test_a_campaign_option_out_of_its_values_is_refused_naming_it(name, value):
    """Each campaign option A.6 creates is one of its values (A-AMB-5, -9, -7, -8; A-AMB-1's house package): any other
    is refused naming the option, and no game is created."""
    games = Games()
    with pytest.raises(RuleViolation, match=name):
        games.create_game("x", ruleset="covenants", options={name: value})
    assert games.recorder.max_notification_id() in (None, 0)
    assert "A-AMB" in (CovenantOptions.model_fields[name].description or "")


# ---------------------------------------------------------------- A-LIM-2, played


def test_a_lim_2_an_inactive_mage_can_neither_cast_nor_challenge():
    """A-LIM-2 [000:50] "this prevents the card from being used in play": Bob's Arc of Lightning damages Cy's mage
    (Magical Resistance 1: 3 pawns give strength 2), which is rotated; Cy may not cast with it nor challenge with it."""
    d = Dice()
    t = fixed_three(d, arts={"bob": ["Cr", "Au", "Pe", "Vi", "Mu"], "cy": ["Cr", "Ig", "Re", "Mu", "An"]})
    move_all(t, [1, 2, 3])
    pass_create(t)
    t.run("ann", Pass("ann"))
    t.run("bob", Cast("bob", t.mage("bob"), "Arc of Lightning", t.mage("cy"), 3))
    mage = next(c for c in t.view("ann")["covenants"]["cy"]["cards"] if c["id"] == t.mage("cy"))
    assert mage["damage"] == 2 and not mage["active"]
    refused(t, "cy", Cast("cy", t.mage("cy"), "Sphere of Flame", grogs_of(t, "ann"), 1), "A-LIM-2")
    refused(t, "cy", Challenge("cy", t.mage("cy"), t.mage("ann")), "A-CERT-1")  # "both mages must be active"


def test_a_game_stored_before_the_options_had_their_names_reads_them_under_the_earlier_ones():
    """A game's options are stored as it was created: one created with the earlier yearly_consumes or
    main_extra_round flag plays by it (A-AMB-9, A-AMB-5); a game created before an option existed gets its default."""
    assert option({"yearly_consumes": False}, "yearly_conversion_consumes") is False
    assert option({"main_extra_round": False}, "main_phase_mode") == "until_everyone_passes"
    assert option({"main_extra_round": True}, "main_phase_mode") == "passes_then_extra_round"
    assert option({}, "certamen_rechallenge_gap") == 2 and option({}, "winner_tiebreak") == "shared"


# ---------------------------------------------------------------- A-AMB-17: Magical Resistance


def test_a_amb_17_a_spell_reaches_its_targets_past_the_highest_magical_resistance_among_them():
    """A-AMB-17 "Use the highest MR for all targets, so the spell reaches all or none." Every spell of the house
    package has one target, so the highest MR is that target's: Ann's Arc of Lightning of 2 pawns reaches Bob's mage
    (MR 1: strength 1) and damages it 1; Cy's of 1 pawn does not reach Ann's mage (strength 0), and its pawn is spent.
    Spells of several targets and the per-target option: test_covenants_leftovers."""
    lightning = ["Cr", "Au", "Pe", "An", "Vi"]
    t = fixed_three(Dice(), arts={"ann": lightning, "cy": lightning})
    move_all(t, [1, 2, 3])
    pass_create(t)
    out = t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", t.mage("bob"), 2))
    assert (out["strength"], out["magnitude"]) == (1, 1)
    assert next(c for c in t.view("cy")["covenants"]["bob"]["cards"] if c["id"] == t.mage("bob"))["damage"] == 1
    t.run("bob", Pass("bob"))
    out = t.run("cy", Cast("cy", t.mage("cy"), "Arc of Lightning", t.mage("ann"), 1))
    assert (out["strength"], out["magnitude"]) == (0, None) and t.view("bob")["covenants"]["cy"]["vis"] == 3
    assert next(c for c in t.view("cy")["covenants"]["ann"]["cards"] if c["id"] == t.mage("ann"))["damage"] == 0
