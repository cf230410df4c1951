"""The covenant game's worked examples (ANALYSIS A.5, A-EX-1..A-EX-14), each played through the typed commands
as ANALYSIS.md writes it, with explicit dice. Where the shipped house rules cannot reach a case (a score of 20
before the Yearly Reckoning, a covenant strong enough to deal a Town 9 or 10 damage, the Touch of the Artisan),
the test ships a package of its own (``options={"house": "custom", "house_package": ...}``), as a host would."""

from __future__ import annotations

import pytest

from domain.covenants.commands import (
    Discard,
    Generate,
    Keep,
    Move,
    Pass,
)
from domain.errors import RuleViolation
from tests.covenants.play import (
    Dice,
    events_of,
    fixed_three,
    move_all,
    pass_main,
    pass_until,
    reckon,
)


def refused(t, seat, command, rule):
    """A refusal names its rule and records nothing."""
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


def named(t, seat, name):
    return next(c for c in t.view("gm")["covenants"][seat]["cards"] if c["name"] == name)


def names(t, seat):
    return [c["name"] for c in t.view("gm")["covenants"][seat]["cards"]]


def covenants(t) -> dict:
    return t.view("cy")["covenants"]


def end_season(t) -> None:
    """The Main Phase is over: the first to move goes to End, and everyone supports everything."""
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)


SEMPIRIS = "Magus: Sempiris of House Flambeau"


def test_a_ex_1_sempiris_is_unique_and_once_discarded_is_fetched_back_from_the_discard_pile():
    """A-EX-1 [000:52] "if Player A creates/plays Sempiris, no player may generate another Sempiris (the roll results
    in no card) until the first one is discarded" and [000:174] "if a previously played card is discarded, it may be
    fetched from the discard pile": B's roll makes no card and uses B's turn; once Ann discards Sempiris, Bob's roll
    fetches it back, and the discard pile no longer holds it."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [3, 8, 1])  # ann and bob on Personnel squares
    d.push([15])
    sempiris = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", sempiris))
    d.push([15])
    assert t.run("bob", Generate("bob"))["card_id"] is None  # no card, and bob's turn is used
    assert t.turn() == ["cy"] and SEMPIRIS not in names(t, "bob")
    t.run("cy", Pass("cy"))
    t.run("ann", Discard("ann", sempiris))
    assert [c["name"] for c in t.view("gm")["discard"]["cards"]] == [SEMPIRIS]
    assert "cards" not in t.view("bob")["discard"]  # face down ([000:8])
    end_season(t)
    move_all(t, [1, 3, 2])  # bob on Personnel again
    pass_until(t, "bob")
    d.push([15])
    back = t.run("bob", Generate("bob"))["card_id"]
    t.run("bob", Keep("bob", back))
    assert SEMPIRIS in names(t, "bob")
    pile = t.view("gm")["discard"]
    assert SEMPIRIS not in [c["name"] for c in pile["cards"]] and pile["count"] == len(pile["cards"]) == 0
