"""Conformance of the Lodge's board rules: L-INST (R31, R32), L-HEAL (R33-R35), L-DEF (R36-R38), L-IMM (R39,
R40) and L-SCORE (R45-R50) at Clean-up, and the worked examples L-EX-1..10 of ANALYSIS L.5."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.lodge.engine import Choices
from domain.lodge.scoring import score_defeat, score_room
from domain.lodge.state import BLACK_ROSE, DUMMY
from tests.domain.lodge_helpers import (
    NOW,
    arrange,
    board,
    cubes,
    kinds,
    lodge,
    phrases,
    recorded,
    room_of,
    sheet,
    slot,
    summoned,
    tokens,
)


def cast(g, mage, card, target=None, where="I", **choices):
    slot(g, mage, card, where)
    g.cast_spell(mage, where, target, Choices(**choices))
    return recorded(g)


def instability(g, room, *owners):
    arrange(g, *({"op": "instability", "room": room, "slot": i, "by": o} for i, o in enumerate(owners)))


def refused(g, rule, fn, *args):
    before = g.version
    with pytest.raises(RuleViolation) as err:
        fn(*args)
    assert err.value.rule == rule, err.value.message
    assert g.version == before and not g.collect_events()


def to_cleanup(g):
    """End the Actions and Black Rose phases: Clean-up runs, then the next turn begins."""
    g.advance(now=NOW)
    g.advance(now=NOW)
    return recorded(g)


# ---------------------------------------------------------------------- L-INST


def test_l_inst_1_instability_fills_vacant_slots_from_the_left():
    """L-INST-1 [002:R32]: "When a Mage (or the Black Rose) places Instability they must place cubes on the vacant
    slots starting from the left"."""
    g = lodge()
    arrange(g, {"op": "instability", "room": "hall", "slot": 1, "by": "bob"})
    (p,) = phrases(cast(g, "ann", "tremor", "hall"))
    assert board(g)["rooms"]["hall"]["slots"] == ["ann", "bob", "ann", None, None] and p["status"] == "applied"
    (p,) = phrases(cast(g, "cy", "unravel", "hall"))
    assert board(g)["rooms"]["hall"]["slots"] == ["ann", "bob", "ann", "cy", "cy"]
    assert p["skipped"] == [{"part": "1 Instability", "reason": "no vacant slot in hall", "rule": "L-INST-1"}]


def test_l_inst_2_a_full_room_is_rebuilt_and_flipped_at_cleanup():
    """L-INST-2 [002:R31]: "A Room where all Instability Slots are filled with Instability Cubes will be rebuilt
    during the Clean-up Phase and will be flipped to its other side"."""
    g = lodge()
    cast(g, "ann", "unravel", "observatory")
    assert board(g)["rooms"]["observatory"]["must_rebuild"] is True  # the moment the last slot fills
    assert board(g)["rooms"]["observatory"]["side"] == "A"
    to_cleanup(g)
    assert board(g)["rooms"]["observatory"] == {"side": "B", "slots": [None] * 3, "must_rebuild": False}


# ---------------------------------------------------------------------- L-HEAL


def test_l_heal_1_heal_up_to_n_cubes_of_any_colours_which_go_back_to_their_owners():
    """L-HEAL-1 [002:R33] "...the Mage chooses a number of Damage Cubes equal to or less than the amount indicated
    by the Effect"; [002:R34] "Healed Damage Cubes must be returned to their owners; you can choose any color
    combination of Damage Cubes to Heal from those assigned to the target"."""
    g = lodge()
    cubes(g, "cy", "ann", "bob", "ann")
    slot(g, "bob", "mend")
    refused(g, "L-HEAL-1", g.cast_spell, "bob", "I", "cy", Choices(heal=[0, 1, 2]))  # more than 2
    g.cast_spell("bob", "I", "cy", Choices(heal=[0]))  # fewer than N is the healer's choice
    (ev,) = [e for e in g.collect_events() if type(e).__name__ == "PhraseResolved"]
    assert [c["returned_to"] for c in ev.changes] == ["ann"] and sheet(g, "cy")["damage"] == ["bob", "ann"]


def test_l_heal_2_an_avatar_heals_a_mage_from_the_right():
    """L-HEAL-2 [002:R35]: "When an Avatar Heals Damage on themselves or another Mage they choose the Damage cubes
    placed on the target's Mage Sheet starting from the right"."""
    g = lodge(avatar=("bob",))
    cubes(g, "cy", "ann", "bob", "ann")
    slot(g, "bob", "mend")
    refused(g, "L-HEAL-2", g.cast_spell, "bob", "I", "cy", Choices(heal=[0, 1]))
    g.cast_spell("bob", "I", "cy", Choices(heal=[1, 2]))
    assert sheet(g, "cy")["damage"] == ["ann"]


# ---------------------------------------------------------------------- L-DEF


def test_l_def_1_who_inflicted_the_defeating_damage_gains_a_trophy_of_the_defeated_mage():
    """L-DEF-1 [002:R36]: "The Mage (or the Black Rose) who inflicted the Damage that caused the Mage to be
    defeated (or who resolved the Effect that automatically defeated the Mage) gains 1 Trophy Token of the defeated
    Mage"; [002:R37] Trophies "grant additional Power Points at the end of the game"."""
    g = lodge()
    cubes(g, "cy", "bob", "bob", "bob", "bob", "bob")
    supply = g.state.mages["cy"]["trophy_tokens"]
    cast(g, "ann", "firebolt", "cy")
    assert sheet(g, "ann")["trophies"] == ["cy"] and sheet(g, "bob")["trophies"] == []
    assert g.state.mages["cy"]["trophy_tokens"] == supply - 1
    assert sheet(g, "cy")["damage"] == [] and room_of(g, "cy") == "cell-green"  # the house rule
    g = lodge()
    cast(g, "bob", "doom", "ann")  # an Effect that defeats a Mage outright
    assert sheet(g, "bob")["trophies"] == ["ann"] and room_of(g, "ann") == "cell-red"


def test_l_def_2_ties_for_damage_on_a_defeat_gain_one_less_unless_one_or_less():
    """L-DEF-2 [002:R38]: "In the event that multiple Mages (or the Black Rose) have inflicted the same number of
    Damage, those Mages gain the corresponding amount of Power Points reduced by 1; in the case of 1 Power Point or
    less, this amount is not reduced"."""
    assert score_defeat({"ann": 3, "bob": 3, "cy": 1}, [3, 2, 1]) == {"ann": 2, "bob": 2, "cy": 2}
    assert score_defeat({"ann": 2, "bob": 1, "cy": 1}, [3, 1]) == {"ann": 3, "bob": 1, "cy": 1}
    assert score_defeat({"ann": 3}, []) == {}  # L-AMB-4: no table, no Power Points
    g = lodge(defeat_pp=[3, 2, 1])
    cubes(g, "cy", "ann", "ann", "bob", "bob", "bob")
    cast(g, "ann", "firebolt", "cy")  # the first cube defeats cy: ann 3, bob 3
    assert sheet(g, "ann")["power_points"] == 2 and sheet(g, "bob")["power_points"] == 2


# ---------------------------------------------------------------------- L-IMM


def test_l_imm_1_a_mage_and_their_evocations_ignore_damage_from_their_own_effects():
    """L-IMM-1 [002:R39]: "Unless specified by the Effect, a Mage and the Evocations they control ignore all Damage
    inflicted or converted by any Effect resolved by that Mage"."""
    g = lodge()
    ev = summoned(g, "ann", "golem", "hall")
    (p,) = phrases(cast(g, "ann", "quake"))
    assert sheet(g, "ann")["damage"] == [] and board(g)["evocations"][ev]["damage"] == []
    assert {s["rule"] for s in p["skipped"]} == {"L-IMM-1"} and p["status"] == "partly applied"
    cast(g, "ann", "self-immolation", where="II")  # "unless specified by the Effect"
    assert sheet(g, "ann")["damage"] == ["ann"] and board(g)["evocations"][ev]["damage"] == ["ann"]


def test_l_imm_2_an_evocation_does_not_damage_its_own_side():
    """L-IMM-2 [002:R40]: "An Evocation does not inflict Damage on the Mage that controls it or the Evocations
    controlled by that Mage"."""
    g = lodge()
    ev = summoned(g, "ann", "golem", "hall")
    other = summoned(g, "ann", "hound", "hall")
    refused(g, "L-IMM-2", g.command_evocation, "ann", ev, [], "ann")
    refused(g, "L-IMM-2", g.command_evocation, "ann", ev, [], other)
    g.command_evocation("ann", ev, [], "bob")
    assert sheet(g, "bob")["damage"] == ["ann"] * 3


# ---------------------------------------------------------------------- L-SCORE


def test_l_score_1_a_rebuilt_room_scores_by_its_banner_at_cleanup():
    """L-SCORE-1 [002:R45]: "For each Room that must be Rebuilt, count the Instability Cubes of each color and
    assign Power Points as described below and based on the quantities indicated by the banner of the Rebuilt
    Room" (R46-R50, dense ranking: L-AMB-1)."""
    g = lodge()
    instability(g, "hall", "ann", "ann", "bob", "bob", BLACK_ROSE)  # banner A of the Hall: [4, 2, 1]
    events = to_cleanup(g)
    (scored,) = [d for k, d in events if k == "RoomScored"]
    assert scored["pp"] == {"ann": 3, "bob": 3, BLACK_ROSE: 2} and scored["banner"] == [4, 2, 1]
    assert (sheet(g, "ann")["power_points"], board(g)["black_rose"]["power_points"]) == (3, 2)
    g = lodge(ranking_mode="competition")
    instability(g, "hall", "ann", "ann", "bob", "bob", BLACK_ROSE)
    (scored,) = [d for k, d in to_cleanup(g) if k == "RoomScored"]
    assert scored["pp"] == {"ann": 3, "bob": 3, BLACK_ROSE: 1}


# ---------------------------------------------------------------------- worked examples (L.5)

L_EX_1 = [
    ({"Red": 3}, {"Red": 5}),
    ({"Red": 2, "Blue": 1}, {"Red": 4, "Blue": 2}),
    ({"Red": 2, "Blue": 2}, {"Red": 3, "Blue": 3}),
    ({"Red": 2, "Blue": 2, "Green": 1}, {"Red": 3, "Blue": 3, "Green": 2}),
    ({"Red": 3, "Blue": 1, "Green": 1}, {"Red": 4, "Blue": 1, "Green": 1}),
    ({"Red": 2, "Blue": 1, "Green": 1, "BlackRose": 1}, {"Red": 4, "Blue": 1, "Green": 1, "BlackRose": 1}),
    ({"Red": 3, "Blue": 2, "Green": 1, "Yellow": 1}, {"Red": 4, "Blue": 2, "Green": 1, "Yellow": 1}),
]
L_EX_2 = [
    ({"Red": 3, "Blue": 2, "Green": 1, "Yellow": 1}, {"Red": 5, "Blue": 3, "Green": 1, "Yellow": 1}),
    ({"Red": 2, "Blue": 2, "Green": 1, "Yellow": 1}, {"Red": 4, "Blue": 4, "Green": 2, "Yellow": 2}),
]


@pytest.mark.parametrize(("counts", "expect"), L_EX_1)
def test_l_ex_1_instability_scoring_with_banner_4_2_1(counts, expect):
    assert score_room(counts, (4, 2, 1)) == expect


@pytest.mark.parametrize(("counts", "expect"), L_EX_2)
def test_l_ex_2_instability_scoring_with_banner_5_3_2(counts, expect):
    assert score_room(counts, (5, 3, 2)) == expect


def test_l_ex_2_competition_ranking_differs_as_the_example_notes():
    assert score_room({"Red": 2, "Blue": 2, "Green": 1, "Yellow": 1}, (5, 3, 2), "competition") == {
        "Red": 4,
        "Blue": 4,
        "Green": 1,
        "Yellow": 1,
    }


def test_l_ex_3_phrase_skipping_on_the_dummy_target():
    g = lodge()
    events = cast(g, "ann", "arcane-surge", DUMMY)
    p1, p2, p3 = phrases(events)
    assert (p1["status"], p1["skipped"][0]["reason"]) == ("skipped", "the Dummy Target ignores this (R24)")
    assert (p2["status"], p2["skipped"][0]["reason"]) == ("skipped", "the Dummy Target ignores this (R25)")
    assert (p3["status"], p3["applied"]) == ("applied", ["ann gains 1 Power Points"])
    assert kinds(events)[-1] == "EffectResolved" and sheet(g, "ann")["power_points"] == 1


def test_l_ex_4_partial_application_of_instability():
    g = lodge()
    instability(g, "library", "bob")
    cast(g, "ann", "unravel", "library")
    library = board(g)["rooms"]["library"]
    assert library["slots"] == ["bob", "ann", "ann", "ann"] and library["must_rebuild"]
    g = lodge()
    instability(g, "library", "bob", "bob")
    (p,) = phrases(cast(g, "ann", "unravel", "library"))
    library = board(g)["rooms"]["library"]
    assert library["slots"] == ["bob", "bob", "ann", "ann"] and library["must_rebuild"]
    assert p["status"] == "partly applied" and p["skipped"][0]["part"] == "1 Instability"
    g = lodge()
    instability(g, "hall", "bob")
    cast(g, "ann", "tremor", "hall")
    assert board(g)["rooms"]["hall"]["slots"] == ["bob", "ann", "ann", None, None]
    assert not board(g)["rooms"]["hall"]["must_rebuild"]


def _healed(g):
    (ev,) = [e for e in g.collect_events() if type(e).__name__ == "PhraseResolved"]
    return [(c["index"], c["returned_to"]) for c in ev.changes], ev.data


def test_l_ex_5_healing():
    # the target's cubes left to right: [Red, Blue, Red] (ann is red, bob blue); cy is the target
    g = lodge()
    cubes(g, "cy", "ann", "bob", "ann")
    slot(g, "cy", "mend")
    g.cast_spell("cy", "I", "cy", Choices(heal=[1, 2]))  # an ordinary healer picks {Blue, Red}
    healed, _ = _healed(g)
    assert sorted(r for _, r in healed) == ["ann", "bob"]  # each back to its owner
    g = lodge(avatar=("bob",))
    cubes(g, "cy", "ann", "bob", "ann")
    slot(g, "bob", "mend")
    g.cast_spell("bob", "I", "cy", Choices())  # an Avatar takes from the right: Red (3rd), then Blue (2nd)
    healed, _ = _healed(g)
    assert healed == [(2, "ann"), (1, "bob")]
    g = lodge()
    cubes(g, "cy", "ann", "bob", "ann")
    slot(g, "ann", "restoration")
    g.cast_spell("ann", "I", "cy", Choices())  # Heal 5 with 3 cubes heals 3
    healed, data = _healed(g)
    assert len(healed) == 3 and sheet(g, "cy")["damage"] == []
    assert data["status"] == "partly applied" and data["skipped"][0]["part"] == "Heal 2"


@pytest.mark.parametrize(
    ("spell", "controller", "card", "buff", "removed"),
    [
        ("banish", "bob", "hound", 0, True),
        ("banish", "bob", "hound", 1, False),
        ("banish", "bob", "shade", 0, False),
        ("banish", "ann", "wraith", 0, True),
        ("oblivion", "bob", "wraith", 0, True),
    ],
)
def test_l_ex_6_removal_legality(spell, controller, card, buff, removed):
    g = lodge()
    ev = summoned(g, controller, card, "hall")
    if buff:
        slot(g, "cy", "empower", "II")
        g.cast_spell("cy", "II", ev, Choices())  # printed Health 3, buffed to 4
    cast(g, "ann", spell, ev)
    assert (ev not in board(g)["evocations"]) is removed


def test_l_ex_7_evocation_defeat():
    g = lodge()
    hound = summoned(g, "ann", "hound", "hall")  # Health 3
    cubes(g, hound, "bob", "cy")
    ghoul = summoned(g, "bob", "ghoul", "hall")  # Strength 2
    bases = sheet(g, "ann")["evocation_bases"]
    g.command_evocation("bob", ghoul, [], hound)
    (p,) = [e for e in g.collect_events() if type(e).__name__ == "PhraseResolved"]
    assert [c["op"] for c in p.changes] == ["cube", "evocation_gone"]  # the 2nd cube is not placed
    assert p.changes[1]["returned"] == {"bob": 2, "cy": 1}
    assert p.data["skipped"][0]["rule"] == "L-AMB-10"
    assert hound not in board(g)["evocations"] and sheet(g, "ann")["evocation_bases"] == bases + 1
    assert g.state.deck[-1] == "hound"  # the deck's order is shown to nobody (L.4)


def test_l_ex_8_immunity():
    g = lodge()
    ev = summoned(g, "ann", "ghoul", "hall")
    bob_ev = summoned(g, "bob", "hound", "hall")
    cast(g, "ann", "quake")
    assert sheet(g, "ann")["damage"] == [] and board(g)["evocations"][ev]["damage"] == []
    assert sheet(g, "bob")["damage"] == ["ann"] and board(g)["evocations"][bob_ev]["damage"] == ["ann"]
    assert sheet(g, "cy")["damage"] == ["ann"]
    refused(g, "L-IMM-2", g.command_evocation, "ann", ev, [], "ann")


def test_l_ex_9_trophy():
    g = lodge()
    ghoul = summoned(g, "bob", "ghoul", "hall")
    cubes(g, "cy", "ann", "ann", "ann", "ann", "ann")
    g.command_evocation("bob", ghoul, [], "cy")  # bob's Evocation deals the killing damage
    assert sheet(g, "bob")["trophies"] == ["cy"] and sheet(g, "ann")["trophies"] == []
    g = lodge()
    g.advance(now=NOW)  # the Black Rose's phase
    g.black_rose_act("wither", "cy")
    assert board(g)["black_rose"]["trophies"] == ["cy"]


@pytest.mark.parametrize("crown", [False, True])
def test_l_ex_10_cleanup_order(crown):
    g = lodge(crown_of_the_summoner=crown)
    cast(g, "ann", "thornskin", "bob", where="II")  # ann's token on bob's sheet
    summoned(g, "ann", "hound", "hall")
    cast(g, "cy", "unravel", "observatory")  # the Observatory is full
    g.physical_action("bob", "walk", None, Choices(moves=["library"]))
    events = to_cleanup(g)
    order = kinds(events)[kinds(events).index("CleanupBegan") + 1 : kinds(events).index("TurnBegan")]
    assert order == [
        "PersistentTokensReturned",
        *(["EvocationsRotated"] if crown else []),
        "PhysicalActionTokensFlipped",
        "RoomsToRebuild",
        "RoomScored",
        "RoomFlipped",
    ]
    data = dict(events)
    assert data["PersistentTokensReturned"]["tokens"] == ["ann:II"] and tokens(g) == {}
    assert data["RoomsToRebuild"]["rooms"] == ["observatory"] and data["RoomScored"]["pp"] == {"cy": 4}
    assert sheet(g, "bob")["physical_actions"]["walk"] == "available"
    assert all(ev["rotated"] is crown for ev in board(g)["evocations"].values())
