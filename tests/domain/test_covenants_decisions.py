"""The covenant game's ambiguity decisions (ANALYSIS A.6, A-AMB-1 .. A-AMB-22), one test or more per decision,
each named after it and played through the typed commands of the service with explicit dice; the campaign options
a decision creates are played both ways. A refusal names the rule and records nothing."""

from __future__ import annotations

import pytest

from domain.covenants.commands import (
    AnswerTrade,
    Challenge,
    ChooseArt,
    Forfeit,
    Move,
    OfferTrade,
    Pass,
    ResolveCertamen,
    SealBid,
    TakeAction,
)
from domain.errors import RuleViolation
from tests.covenants.play import (
    Dice,
    events_of,
    fixed_three,
    move_all,
    pass_create,
    pass_main,
    reckon,
    skip_season,
)


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
    from domain.covenants.commands import DrawEvent, FaceBandits

    assert t.run("bob", DrawEvent("bob"))["played"] is True
    assert t.phase() == "main" and t.turn() == ["bob", "cy", "ann"]
    passes(t, "bob", "cy", "ann")
    assert t.phase() == "bandits"  # the end of the Main Phase first
    for seat in ("bob", "cy", "ann"):
        t.run(seat, FaceBandits(seat, fight=False))
    assert t.phase() == "main" and t.turn() == ["bob", "cy", "ann"] and t.view("bob")["game"]["extra_round"]
    passes(t, "bob", "cy", "ann")
    assert t.phase() == "move"  # the bandits are not faced again


@pytest.mark.parametrize(
    ("mode", "after_passes"),
    [("until_everyone_passes", "move"), ("one_round", "move")],
)
def test_a_amb_5_main_phase_mode_until_everyone_passes_or_one_round(mode, after_passes):
    """A-AMB-5 "A campaign option allows exactly one round": main_phase_mode one_round ends the Main Phase after
    one round of single actions ([000:17] "each player has the opportunity to take one action"), acted or not;
    until_everyone_passes ends it at the first round of passes, with no extra round."""
    d, t = main_phase({"main_phase_mode": mode})
    t.run("ann", TakeAction("ann", "custom", "a feast"))
    passes(t, "bob", "cy")
    if mode == "one_round":
        assert t.phase() == "move"
        return
    assert t.phase() == "main" and t.turn() == ["ann", "bob", "cy"]
    passes(t, "ann", "bob", "cy")
    assert t.phase() == after_passes


def test_a_amb_5_main_phase_mode_is_validated():
    """A-AMB-5: the option is one of its three modes; anything else is refused naming the option."""
    from api.service import Games

    with pytest.raises(RuleViolation, match="main_phase_mode"):
        Games().create_game("x", ruleset="covenants", options={"main_phase_mode": "forever"})


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
    from api.service import Games

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
