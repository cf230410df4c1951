"""The Hedge Mage's curses 2 to 5 played through the game (A-EVT-4 [000:753]-[000:760], H-12): a curse laid by
a Hedge Mage Attack changes what the cursed covenant's casts do, and what casts at it do; each case runs
commands through the service with explicit dice and reads the views."""

from __future__ import annotations

import pytest

from domain.covenants import rules
from domain.covenants.commands import Cast
from tests.covenants.play import Dice, pass_create, pass_until
from tests.domain.test_conformance_covenants_played import cursed, moves, refused

SPHERE = "Sphere of Flame"  # Cr Ig: 1 damage per pawn to an An, Co or He being
ARC = "Arc of Lightning"  # Cr Au, Spring and Summer
ARTS = {"ann": ["Cr", "Ig", "Au", "Co", "Vi"], "bob": ["Cr", "Ig", "Pe", "Vi", "Re"]}


def main_of_summer(d: Dice, curse: int):
    """Year two, Summer, the Main Phase: Ann's covenant carries the curse ``curse``."""
    t = cursed(d, curse, {"yearly_consumes": False}, arts=ARTS)  # vis kept from year one, to cast with
    moves(t, {"ann": 1, "bob": 2, "cy": 3})
    pass_create(t)
    assert t.phase() == "main" and t.view("gm")["game"]["season"] == "summer"
    return t


def card(t, seat: str, name: str) -> dict:
    return next(c for c in t.view("cy")["covenants"][seat]["cards"] if c["name"] == name)


def test_a_evt_4_curse_2_a_spell_cast_without_mother_may_i_is_countered():
    """A-EVT-4 curse 2 [000:753] "The covenant's player must say "Mother may I" before any mage in the covenant casts
    a spell, else that spell is automatically countered." with H-12 "Enforce it as a required acknowledgement phrase
    on the cast command of a cursed covenant": the vis is spent and the spell does nothing."""
    d = Dice()
    t = main_of_summer(d, 2)
    grogs = card(t, "bob", "Grogs")["id"]
    pass_until(t, "ann")
    vis = t.view("cy")["covenants"]["ann"]["vis"]
    out = t.run("ann", Cast("ann", t.mage("ann"), SPHERE, grogs, 2))
    assert "Mother may I" in out["countered"] and out["magnitude"] is None
    v = t.view("cy")["covenants"]
    assert v["ann"]["vis"] == vis - 2 and card(t, "bob", "Grogs")["damage"] == 0
    pass_until(t, "ann")
    out = t.run("ann", Cast("ann", t.mage("ann"), ARC, grogs, 1, mother_may_i=True))  # said: it takes effect
    assert "countered" not in out and card(t, "bob", "Grogs")["damage"] == 1


def test_a_evt_4_curse_4_a_cr_spell_needs_one_more_pawn_and_bob_is_not_cursed():
    """A-EVT-4 curse 4 [000:757] "Any Cr spell cast by a mage in the covenant requires one additional pawn of vis.":
    the extra pawn is spent and gives no strength; a cast that cannot pay it is refused naming the rule; a covenant
    without the curse pays no more."""
    d = Dice()
    t = main_of_summer(d, 4)
    grogs = card(t, "bob", "Grogs")["id"]
    pass_until(t, "ann")
    refused(t, "ann", Cast("ann", t.mage("ann"), SPHERE, grogs, 1), "A-EVT-4")
    vis = t.view("cy")["covenants"]["ann"]["vis"]
    out = t.run("ann", Cast("ann", t.mage("ann"), SPHERE, grogs, 2))
    assert out["curse_surcharge"] == 1 and out["strength"] == 1 and out["magnitude"] == 1
    assert t.view("cy")["covenants"]["ann"]["vis"] == vis - 2 and card(t, "bob", "Grogs")["damage"] == 1
    pass_until(t, "bob")
    cy_grogs = card(t, "cy", "Grogs")["id"]
    out = t.run("bob", Cast("bob", t.mage("bob"), SPHERE, cy_grogs, 1))
    assert "curse_surcharge" not in out and out["magnitude"] == 1


def test_a_evt_4_curse_5_the_cursed_covenants_beings_lose_a_point_of_magical_resistance():
    """A-EVT-4 curse 5 [000:759] "The Magical Resistance of all beings in the covenant is reduced by 1, to a minimum
    of 0.": Bob's one pawn now reaches Ann's mage (MR 1), which it could not without the curse (A-SPELL-4)."""
    d = Dice()
    t = main_of_summer(d, 5)
    pass_until(t, "bob")
    target = t.mage("ann")
    out = t.run("bob", Cast("bob", t.mage("bob"), SPHERE, target, 1))
    assert out["strength"] == 1 and out["magnitude"] == 1
    mage = next(c for c in t.view("cy")["covenants"]["ann"]["cards"] if c["id"] == target)
    assert mage["damage"] == 1 and not mage["active"]  # A-DMG-1: a damaged mundane being is inactive


def test_a_evt_4_without_curse_5_one_pawn_does_not_reach_a_mage_of_mr_1():
    """The control for curse 5 (A-SPELL-4): with another curse, Bob's one pawn against Ann's mage (MR 1) fails."""
    d = Dice()
    t = main_of_summer(d, 6)
    pass_until(t, "bob")
    out = t.run("bob", Cast("bob", t.mage("bob"), SPHERE, t.mage("ann"), 1))
    assert out["strength"] == 0 and out["magnitude"] is None


@pytest.mark.parametrize(
    ("curses", "arts", "extra"),
    [
        ({3}, ["Mu", "Te"], 1),
        ({3}, ["Cr", "Ig"], 0),
        ({4}, ["Cr", "Ig"], 1),
        ({3, 4}, ["Cr", "Te"], 2),
        (set(), ["Cr"], 0),
    ],
)
def test_a_evt_4_curses_3_and_4_surcharge_te_and_cr_spells(curses, arts, extra):
    """A-EVT-4 curse 3 [000:755] "Any Te spell ... requires one additional pawn of vis." and curse 4 (Cr); the
    default house package has no Te spell to play it with, so curse 3 is checked on the rule the cast uses."""
    assert rules.curse_surcharge(curses, arts) == extra
