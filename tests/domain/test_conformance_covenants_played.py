"""Rules that were arithmetic only, now played through the game (issue 14): each test runs commands through
``api.service.Games`` with explicit dice; refusals name the rule and record nothing."""

from __future__ import annotations

import pytest

from domain.covenants import rules
from domain.covenants.commands import DrawEvent, Move, PayTax, Support
from domain.errors import RuleViolation
from tests.covenants.play import Dice, events_of, fixed_three, move_all, pass_create, pass_main, skip_season


def refused(t, seat, command, rule):
    before = events_of(t)
    with pytest.raises(RuleViolation, match=rule):
        t.run(seat, command)
    assert events_of(t) == before


def winter_of_year_two_with_tax(d: Dice, options: dict | None = None):
    t = fixed_three(d, options=options)
    for _ in range(7):
        skip_season(t)
    move_all(t, [9, 1, 2])
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["bob"]
    d.push([3])  # Tax and Tithe, a Winter global event: played
    assert t.run("bob", DrawEvent("bob"))["played"] is True
    assert t.phase() == "main"
    return t


def test_a_reck_4_unpaid_tax_and_tithe_becomes_a_permanent_tribute_of_one():
    """A-RECK-4 "Tribute can be "permanent": Tax and Tithe → 1" with [000:667] "The tax is assessed at the beginning
    of the Main Phase of the season this card is played (subsequent conversions or additions and subtractions to
    gold do not change the tax). If the tax cannot be paid by the time of Reckoning, the covenant must accept a
    permanent tribute of 1 point owed to the lord."; A-EVT-4 "tax = ⌊(provision capacity + gold)/4⌋, minimum 2
    gold"."""
    d = Dice()
    # Gold is not consumed by the Yearly Reckoning here (A-AMB-9's campaign flag), so each covenant can pay.
    t = winter_of_year_two_with_tax(d, {"yearly_consumes": False})
    before = t.view("gm")["covenants"]
    owed = {seat: before[seat]["tax_owed"] for seat in t.seats}
    for seat in t.seats:  # nobody has provision capacity yet: the tax is the minimum, or a quarter of the gold
        assert owed[seat] == rules.tax(0, before[seat]["gold"]) >= 2
    assert t.view("bob")["covenants"]["ann"]["tax_owed"] == owed["ann"]  # the lord's demand is public
    gold_before = before["ann"]["gold"]
    t.run("ann", PayTax("ann"))
    after = t.view("gm")["covenants"]["ann"]
    assert after["gold"] == gold_before - owed["ann"] and after["tax_owed"] == 0
    refused(t, "ann", PayTax("ann"), "A-EVT-4")  # paid once; nothing more is owed
    scores = {seat: before[seat]["score"] for seat in t.seats}
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    assert t.phase() == "reckoning"
    after = {}
    while t.phase() == "reckoning":  # each covenant's holdings after its support are what the year converts
        seat = t.turn()[0]
        after[seat] = t.run(seat, Support(seat, []))["after"]
    v = t.view("gm")["covenants"]
    assert v["ann"]["tribute"] == []
    for seat in ("bob", "cy"):  # unpaid at the Reckoning: a permanent tribute of 1, kept after this year
        assert v[seat]["tribute"] == [{"to": None, "points": 1, "permanent": True}]
        assert v[seat]["tax_owed"] == 0
    for seat in t.seats:  # the Yearly Reckoning took the tribute from the year's points
        points = rules.yearly_points(after[seat]["provision"], after[seat]["gold"], after[seat]["vis"])
        expected = rules.apply_tribute(points, scores[seat], 0 if seat == "ann" else 1)[0]
        assert v[seat]["score"] == expected


def test_a_evt_4_the_tax_is_paid_in_gold_the_covenant_holds():
    """A-EVT-4 [000:667] "amounting to at least two gold (four provision points equivalent). Vis is not
    acceptable.": a covenant without the gold cannot pay, and nothing is recorded."""
    d = Dice()
    t = winter_of_year_two_with_tax(d)
    # The first Yearly Reckoning spent the gold, so nobody holds the two gold the tax asks for.
    v = t.view("gm")["covenants"]
    assert all(v[seat]["gold"] < v[seat]["tax_owed"] == 2 for seat in t.seats), v
    refused(t, "ann", PayTax("ann"), "A-EVT-4")
