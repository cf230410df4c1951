"""The worked examples of the covenant game (ANALYSIS A.5, A-EX-1..14), with explicit dice.

Every example is played through the commands, as ANALYSIS.md writes it, in
tests/domain/test_covenants_worked_examples.py; the arithmetic-only tests that stood here for A-EX-5, -7, -9,
-12 and -13 went there as played games."""

from __future__ import annotations

import pytest

from domain.covenants import house, rules
from domain.covenants.commands import (
    Cast,
    Challenge,
    ChooseArt,
    Generate,
    Keep,
    Move,
    Pass,
    ResolveCertamen,
    SealBid,
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


def card(t, card_id):
    for cov in t.view("gm")["covenants"].values():
        for c in cov["cards"]:
            if c["id"] == card_id:
                return c
    return None


def names(t, seat):
    return [c["name"] for c in t.view("gm")["covenants"][seat]["cards"]]


SEMPIRIS = "Magus: Sempiris of House Flambeau"


def test_a_ex_1_sempiris_is_unique_while_in_play_and_comes_back_once_discarded():
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
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t, {"ann": [sempiris]})  # starved, so discarded (A-GEN-2: Discard is for a card just generated)
    move_all(t, [1, 3, 2])  # bob on Personnel again
    pass_until_create(t, "bob")
    d.push([15])
    back = t.run("bob", Generate("bob"))["card_id"]
    t.run("bob", Keep("bob", back))
    assert SEMPIRIS in names(t, "bob")


def pass_until_create(t, seat):
    while t.turn()[0] != seat:
        t.run(t.turn()[0], Pass(t.turn()[0]))


def test_a_ex_2_a_year_spell_cast_in_spring_main_ends_as_next_springs_main_begins():
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Mu", "Co", "Vi", "Re", "Au"]})
    move_all(t, [1, 2, 3])
    pass_create(t)
    grogs = next(c["id"] for c in t.view("gm")["covenants"]["bob"]["cards"] if c["kind"] == "grogs")
    t.run("ann", Cast("ann", t.mage("ann"), "Incantation of the Stone Warrior", grogs, 3))
    assert card(t, grogs)["substance"] == "Te"
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    for season in ("autumn", "winter", "spring"):
        skip_season(t)
        assert t.view("gm")["game"]["season"] == season
        assert card(t, grogs)["substance"] == "Te"
    move_all(t, [1, 2, 3])
    pass_create(t)  # Spring of year 2: still stone through Create/Play
    assert t.phase() == "main" and card(t, grogs)["substance"] == "Co"  # ended as the Main Phase began
    assert t.view("gm")["effects"] == []


def test_a_ex_3_aegis_worth_one_point_and_magical_resistance():
    # case 1 and 5, and the arithmetic of the others
    assert rules.aegis_value(3) == 1 and rules.aegis_value(2) == 0
    assert rules.effective_magnitude(1 - rules.resistance(rival=True, aegis=1, mr=0), 1, 99) is None
    assert 4 - rules.resistance(rival=True, aegis=1, mr=1) == 2
    assert 2 - rules.resistance(rival=False, aegis=1, mr=1) == 2
    assert rules.marks_aggression(target_covenant="ann", caster_covenant="ann", harmful=True)
    d = Dice()
    arts = {
        "ann": ["Cr", "Au", "Pe", "An", "Vi"],
        "bob": ["Re", "Vi", "Pe", "Im", "Mu"],
        "cy": ["Cr", "Au", "Re", "Mu", "An"],
    }
    t = fixed_three(d, arts=arts, options={"yearly_consumes": False})
    move_all(t, [2, 1, 3])
    kept = generate_and_keep(t, d, {"bob": 7})  # Livestock for bob
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    skip_season(t)
    skip_season(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    assert t.phase() == "reckoning" and t.view("gm")["game"]["season"] == "winter"
    t.run("bob", Cast("bob", t.mage("bob"), "Aegis of the Hearth", "bob", 3))  # Winter Reckoning
    assert t.view("cy")["effects"][0]["aegis"] == 1
    reckon(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_until(t, "ann")
    before = t.view("gm")["covenants"]["ann"]["vis"]
    out = t.run("ann", Cast("ann", t.mage("ann"), "Pestilence of the Flock", kept["bob"], 2))  # case 2
    assert out["strength"] == 1 and card(t, kept["bob"])["damage"] == 1 and not card(t, kept["bob"])["active"]
    assert t.view("cy")["covenants"]["ann"]["marked"] and t.view("gm")["covenants"]["ann"]["vis"] == before - 2
    pass_until(t, "cy")
    out = t.run("cy", Cast("cy", t.mage("cy"), "Arc of Lightning", t.mage("bob"), 4))  # case 3: 4 - 1 - 1
    assert out["strength"] == 2 and card(t, t.mage("bob"))["damage"] == 2


def test_a_ex_4_damage_stays_after_a_substance_change_and_a_later_cast_is_illegal():
    d = Dice()
    arts = {
        "ann": ["Cr", "Ig", "Vi", "An", "Au"],
        "bob": ["Mu", "Co", "Vi", "Re", "Pe"],
        "cy": ["Cr", "Ig", "Re", "Mu", "An"],
    }
    t = fixed_three(d, arts=arts)
    move_all(t, [1, 2, 3])
    pass_create(t)
    grogs = next(c["id"] for c in t.view("gm")["covenants"]["cy"]["cards"] if c["kind"] == "grogs")
    t.run("ann", Cast("ann", t.mage("ann"), "Sphere of Flame", grogs, 1))
    t.run("bob", Cast("bob", t.mage("bob"), "Incantation of the Stone Warrior", grogs, 3))
    assert card(t, grogs)["damage"] == 1
    before = events_of(t)
    with pytest.raises(RuleViolation, match="A-SPELL-7"):
        t.run("cy", Cast("cy", t.mage("cy"), "Sphere of Flame", grogs, 1))
    assert events_of(t) == before


def test_a_ex_6_targeting_yourself():
    rules.check_self_target(raises_own=False, self_allowed=False, meets_targeting=True)  # Levitate
    rules.check_self_target(raises_own=False, self_allowed=True, meets_targeting=True)  # Stone Warrior
    for raises in (True,):  # Enhance Resistance, The Subtle Accomplice
        with pytest.raises(RuleViolation, match="A-SPELL-6"):
            rules.check_self_target(raises_own=raises, self_allowed=False, meets_targeting=True)
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Re", "Au", "Vi", "Mu", "Co"]})
    move_all(t, [1, 2, 3])
    pass_create(t)
    t.run("ann", Cast("ann", t.mage("ann"), "Levitate on Wings of Air", t.mage("ann"), 1))
    pass_until(t, "ann")
    with pytest.raises(RuleViolation, match="A-SPELL-6"):
        t.run("ann", Cast("ann", t.mage("ann"), "Enhance Resistance", t.mage("ann"), 2))


def test_a_ex_8_season_track_legality():
    d = Dice()
    t = fixed_three(d)  # P1 ann, P2 bob, P3 cy
    t.run("ann", Move("ann", 9))
    for bad in (9, 10):
        before = events_of(t)
        with pytest.raises(RuleViolation, match="A-TRACK-1"):
            t.run("bob", Move("bob", bad))
        assert events_of(t) == before
    t.run("bob", Move("bob", 8))
    t.run("cy", Move("cy", 1))
    pass_create(t)
    pass_main(t)
    assert t.view("ann")["me"]["legal_moves"] == [10]
    t.run("ann", Move("ann", 10))
    v = t.view("gm")
    assert v["game"]["phase"] == "reckoning" and {c["square"] for c in v["covenants"].values()} == {10}


def certamen(d, bids, *, knock_out=False):
    arts = {
        "ann": ["Cr", "In", "Co", "Im", "Vi"],
        "bob": ["Pe", "Im", "Vi", "Re", "Mu"],
        "cy": ["Cr", "Au", "Re", "Mu", "An"],
    }
    t = fixed_three(d, arts=arts)
    move_all(t, [1, 2, 3])
    pass_create(t)
    cid = t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))["challenge_id"]
    if knock_out:
        t.run("bob", Pass("bob"))
        t.run("cy", Cast("cy", t.mage("cy"), "Arc of Lightning", t.mage("bob"), 2))
    pass_main(t)
    if not knock_out:
        t.run("ann", ChooseArt("ann", cid, "Cr"))
        t.run("bob", ChooseArt("bob", cid, "Vi"))
        t.run("ann", SealBid("ann", cid, bids[0]))
        t.run("bob", SealBid("bob", cid, bids[1]))
    return t, t.run("ann", ResolveCertamen("ann", cid))


def test_a_ex_10_certamen():
    assert rules.certamen_score(1, ["Cr", "In", "Co", "Im"], "Cr", "Vi", 2) == 4
    assert rules.certamen_score(2, ["Pe", "Im", "Vi"], "Cr", "Vi", 1) == 4
    assert rules.certamen_score(2, ["Pe", "Im", "Vi"], "Cr", "Vi", 1, distracted=True) == 2
    t, out = certamen(Dice(), (1, 2))  # ann 1 + Cr + Vi + 1 = 4; bob 1 + Vi + 2 = 4
    assert out["scores"] == {"ann": 4, "bob": 4} and out["winner"] is None and out["winnings"] == {}
    v = t.view("cy")["covenants"]
    assert v["ann"]["vis"] == 3 and v["bob"]["vis"] == 2  # spent whatever the result
    t, out = certamen(Dice(), (0, 0), knock_out=True)
    assert out == {"winner": "ann", "by_default": True, "winnings": {"tribute": 1, "from": "bob", "to": "ann"}}


def test_a_ex_11_yearly_reckoning_with_tribute():
    assert rules.yearly_points(9, 5, 2) == 6
    assert rules.apply_tribute(6, 20, 1) == (25, 1, 0) and rules.winners({"a": 25}) == ["a"]
    assert rules.apply_tribute(0, 20, 1) == (19, 0, 1)
    t, out = certamen(Dice(), (3, 0))
    assert out["winner"] == "ann" and out["winnings"]["tribute"] == 1
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    year = [e for e in t.games.visible_events(t.game_id, "cy") if e["type"] == "YearReckoned"][-1]["data"]
    assert year["scores"]["bob"] == year["points"]["bob"] - 1  # owed to ann, taken from bob's points
    assert year["scores"]["ann"] == year["points"]["ann"] + 1
    assert year["scores"]["cy"] == year["points"]["cy"]


def test_a_ex_14_random_arts_for_a_starting_mage():
    tech, form, _, _ = rules.random_arts([6, 2, 2, 4], [3, 4, 20, 11], house.TECHNIQUES, house.FORMS)
    assert tech == ["In", "Pe"] and form == ["Aq", "Vi", "Ig"]
    d = Dice().push([6], [2], [2], [4], [3], [4], [20], [11])  # after the starting-player draw
    t = fixed_three(d, arts={"ann": []})
    mage = card(t, t.mage("ann"))
    assert mage["arts"] == ["In", "Pe", "Aq", "Vi", "Ig"]
    rolled = [e["data"]["faces"][0] for e in t.games.visible_events(t.game_id, "bob") if e["type"] == "DieRolled"]
    assert rolled == [1, 6, 2, 2, 4, 3, 4, 20, 11]
