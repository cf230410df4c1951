"""The worked examples of ANALYSIS L.5 (L-EX-1 .. L-EX-10), each played through the typed commands on the service
as the analysis writes it: every cube, Damage and draw comes from a command, and the Evocation deck's order from
the seed the game is begun with (its draws are asserted where an example needs a card).

L-EX-1 and L-EX-2 need Rooms of 6 and 7 Instability slots, and banners the shipped package does not give; they are
played with the optional package of Rooms ``lodge-wide-rooms`` (domain/lodge/data/packages), whose A sides carry
[4, 2, 1] (the Vault and the Chapel [5, 3, 2])."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import RuleViolation
from domain.lodge.ruleset import (
    AdvancePhase,
    BlackRoseAct,
    CastSpell,
    CommandEvocation,
    PhysicalAction,
)
from domain.lodge.state import DUMMY
from tests.domain.lodge_helpers import HOUND_GHOUL, MAGE, SHADE, WRAITH, Table


@pytest.fixture
def tables():
    made: list[Table] = []

    def table(*args: Any, **kwargs: Any) -> Table:
        made.append(Table(*args, **kwargs))
        return made[-1]

    yield table
    for t in made:
        t.close()


def _phrases(events: list[tuple[str, dict]]) -> list[dict]:
    return [d for k, d in events if k == "PhraseResolved"]


# ---------------------------------------------------------------------- L-EX-1, L-EX-2 (R45-R50)

# the Room of the wide package that each count fills exactly, on its A side
ROOM_OF = {(3, (4, 2, 1)): "garden", (4, (4, 2, 1)): "library", (5, (4, 2, 1)): "hall"}
ROOM_OF |= {(7, (4, 2, 1)): "gallery", (7, (5, 3, 2)): "vault", (6, (5, 3, 2)): "chapel"}
SPELL = {3: "unravel", 2: "tremor"}  # Place 3 / Place 2 Instability in the target Room; 1 is a Meddle there

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
    ({"Red": 3, "Blue": 2, "Green": 1, "Yellow": 1}, "dense", {"Red": 5, "Blue": 3, "Green": 1, "Yellow": 1}),
    ({"Red": 2, "Blue": 2, "Green": 1, "Yellow": 1}, "dense", {"Red": 4, "Blue": 4, "Green": 2, "Yellow": 2}),
    ({"Red": 2, "Blue": 2, "Green": 1, "Yellow": 1}, "competition", {"Red": 4, "Blue": 4, "Green": 1, "Yellow": 1}),
]


def _scored(tables: Any, counts: dict[str, int], banner: tuple[int, int, int], ranking: str = "dense") -> dict:
    """Fill the Room of the wide package that ``counts`` fills, by commands: each Mage's 3 or 2 cubes by a spell
    on the Room, her 1 by walking there (from the Hall) and meddling; the Black Rose's by its Bloom, last, in its
    phase (2 cubes, 1 slot left: the other skipped, R3). Returns the Room's RoomScored at Clean-up."""
    room = ROOM_OF[(sum(counts.values()), banner)]
    mages = tuple(m for m in ("ann", "bob", "cy", "dee") if m in {MAGE[c] for c in counts} or m in ("ann", "bob"))
    t = tables(mages, package="lodge-wide-rooms", ranking_mode=ranking)
    assert t.view()["rooms"][room]["side"] == "A" and len(t.view()["rooms"][room]["slots"]) == sum(counts.values())
    t.prepare(**{MAGE[c]: {"I": SPELL[n]} for c, n in counts.items() if n > 1})
    for colour, n in counts.items():
        mage = MAGE[colour]
        if colour == "BlackRose":
            continue
        if n > 1:
            t.run(mage, CastSpell(mage, "I", room))
            continue
        if room != "hall":
            t.run(mage, PhysicalAction(mage, "walk", moves=[room]))
        t.run(mage, PhysicalAction(mage, "meddle"))
    if "BlackRose" in counts:
        t.run("gm", AdvancePhase("actions"))
        t.new()
        t.run("gm", BlackRoseAct("bloom", room))
        (bloom,) = _phrases(t.new())
        assert bloom["status"] == "partly applied" and bloom["skipped"][0]["part"] == "1 Instability"
    assert t.view()["rooms"][room]["must_rebuild"]
    (scored,) = [d for k, d in t.to_cleanup() if k == "RoomScored"]
    assert scored["room"] == room and tuple(scored["banner"]) == banner
    assert scored["counts"] == {MAGE[c]: n for c, n in counts.items()}
    return {c: scored["pp"][MAGE[c]] for c in counts}


@pytest.mark.parametrize(("counts", "expect"), L_EX_1)
def test_l_ex_1_instability_scoring_with_banner_4_2_1(tables, counts, expect):
    """L-EX-1 (banner [4,2,1], dense ranking, the recommended L-AMB-1): R46 one colour alone gains the leftmost + 1;
    R47/R48/R49 the most, the second highest number, every other; R50 any tie one less unless 1 or less."""
    assert _scored(tables, counts, (4, 2, 1)) == expect


@pytest.mark.parametrize(("counts", "ranking", "expect"), L_EX_2)
def test_l_ex_2_instability_scoring_with_banner_5_3_2(tables, counts, ranking, expect):
    """L-EX-2 (banner [5,3,2]): a tie on the rightmost gains 2-1; dense ranking gives the next count the central
    banner, competition ranking (the option ranking_mode, L-AMB-1) the rightmost: Green 1, Yellow 1."""
    assert _scored(tables, counts, (5, 3, 2), ranking) == expect


# ---------------------------------------------------------------------- L-EX-3 .. L-EX-10


def test_l_ex_3_phrase_skipping_on_the_dummy_target(tables):
    """L-EX-3 (R2-R4, R24-R26): "Inflict 2 Damage on target Model. Move the target 1. Gain 1 Power Point." on the
    Dummy Target: the first phrase skipped (R24), the second skipped (R25), the third applied to the caster, and
    the Effect resolved."""
    t = tables()
    t.prepare(ann={"I": "arcane-surge"})
    t.new()
    t.run("ann", CastSpell("ann", "I", DUMMY))
    events = t.new()
    p1, p2, p3 = _phrases(events)
    assert (p1["status"], p1["skipped"][0]["reason"]) == ("skipped", "the Dummy Target ignores this (R24)")
    assert (p2["status"], p2["skipped"][0]["reason"]) == ("skipped", "the Dummy Target ignores this (R25)")
    assert (p3["status"], p3["applied"]) == ("applied", ["ann gains 1 Power Points"])
    assert events[-1][0] == "EffectResolved" and events[-1][1]["statuses"] == ["skipped", "skipped", "applied"]
    assert t.view()["mages"]["ann"]["power_points"] == 1


@pytest.mark.parametrize(
    ("room", "before", "spell", "after", "skipped", "full"),
    [
        ("library", "meddle", "unravel", ["bob", "ann", "ann", "ann"], [], True),
        ("library", "tremor", "unravel", ["bob", "bob", "ann", "ann"], ["1 Instability"], True),
        ("hall", "meddle", "tremor", ["bob", "ann", "ann", None, None], [], False),
    ],
)
def test_l_ex_4_partial_application_of_instability(tables, room, before, spell, after, skipped, full):
    """L-EX-4 (R3, R32; X a cube of another colour): [X,_,_,_] and Place 3 -> [X,me,me,me], to be rebuilt;
    [X,X,_,_] and Place 3 -> [X,X,me,me], 1 cube skipped; [X,_,_,_,_] and Place 2 -> [X,me,me,_,_], not full."""
    t = tables()
    t.prepare(ann={"I": spell}, bob={"I": "tremor"})
    if before == "tremor":
        t.run("bob", CastSpell("bob", "I", room))
    else:
        if room != "hall":
            t.run("bob", PhysicalAction("bob", "walk", moves=[room]))
        t.run("bob", PhysicalAction("bob", "meddle"))
    t.new()
    t.run("ann", CastSpell("ann", "I", room))
    (p,) = _phrases(t.new())
    assert [s["part"] for s in p["skipped"]] == skipped
    assert t.view()["rooms"][room]["slots"] == after and t.view()["rooms"][room]["must_rebuild"] is full


def _red_blue_red(t: Table) -> None:
    """Cy's cubes, left to right: Red, Blue, Red (Ann's Strike, Bob's Strike, Ann's Quake on her Room)."""
    t.run("ann", PhysicalAction("ann", "strike", "cy"))
    t.run("bob", PhysicalAction("bob", "strike", "cy"))
    t.run("ann", CastSpell("ann", "QUICK"))
    assert t.view()["mages"]["cy"]["damage"] == ["ann", "bob", "ann"]


def test_l_ex_5_healing(tables):
    """L-EX-5 (R33-R35): cubes [Red, Blue, Red] and Heal 2: an ordinary healer picks {Blue, Red}, each back to its
    owner; an Avatar must take from the right, Red (3rd) then Blue (2nd); Heal 5 with 3 cubes heals 3."""
    t = tables()
    t.prepare(ann={"QUICK": "quake", "I": "restoration"}, cy={"I": "mend"})
    _red_blue_red(t)
    t.new()
    t.run("cy", CastSpell("cy", "I", "cy", heal=[1, 2]))
    (p,) = _phrases(t.new())
    assert p["applied"] == ["healed 2 on cy: ann, bob"] and t.view()["mages"]["cy"]["damage"] == ["ann"]

    t = tables(avatars=("bob",))
    t.prepare(ann={"QUICK": "quake"}, bob={"I": "mend"})
    _red_blue_red(t)
    with pytest.raises(RuleViolation) as refused:  # an Avatar may not pick the Blue and the first Red
        t.run("bob", CastSpell("bob", "I", "cy", heal=[0, 1]))
    assert refused.value.rule == "L-HEAL-2"
    t.new()
    t.run("bob", CastSpell("bob", "I", "cy"))
    (p,) = _phrases(t.new())
    assert p["applied"] == ["healed 2 on cy: ann, bob"] and t.view()["mages"]["cy"]["damage"] == ["ann"]

    t = tables()
    t.prepare(ann={"QUICK": "quake", "I": "restoration"})
    _red_blue_red(t)
    t.new()
    t.run("ann", CastSpell("ann", "I", "cy"))
    (p,) = _phrases(t.new())
    assert p["status"] == "partly applied" and p["skipped"][0]["part"] == "Heal 2"
    assert t.view()["mages"]["cy"]["damage"] == []


@pytest.mark.parametrize(
    ("seed", "card", "controller", "spell", "buff", "removed"),
    [
        (HOUND_GHOUL, "hound", "bob", "banish", False, True),  # an opponent's, current Health 3
        (HOUND_GHOUL, "hound", "bob", "banish", True, False),  # printed Health 3, buffed to 4 (R18: current)
        (SHADE, "shade", "bob", "banish", False, False),  # an opponent's Forgotten Evocation, Health 2 (R17)
        (WRAITH, "wraith", "ann", "banish", False, True),  # her own Forgotten Evocation, Health 6 (R19)
        (WRAITH, "wraith", "bob", "oblivion", False, True),  # a Forgotten Spell on another's, Health 6 (R20)
    ],
)
def test_l_ex_6_removal_legality(tables, seed, card, controller, spell, buff, removed):
    """L-EX-6 (R17-R20): who may remove an Evocation, the Evocation drawn from the deck the seed shuffled."""
    t = tables(seed=seed)
    cards = {"ann": {"II": spell}, "cy": {"I": "empower"}}
    cards[controller] = cards.get(controller, {}) | {"QUICK": "call-beast"}
    t.prepare(**cards)
    t.run(controller, CastSpell(controller, "QUICK"))
    ev = t.evocation(card)  # the explicit draw: the top of the deck the seed shuffled
    if buff:
        t.run("cy", CastSpell("cy", "I", ev))
        assert t.view()["evocations"][ev]["health_mod"] == 1
    t.new()
    t.run("ann", CastSpell("ann", "II", ev))
    (p,) = _phrases(t.new())
    assert (ev not in t.view()["evocations"]) is removed
    if not removed:
        assert p["status"] == "skipped" and p["skipped"][0]["rule"] == "L-EVO-5"


def test_l_ex_7_evocation_defeat(tables):
    """L-EX-7 (R16, L-AMB-10): an Evocation of Health 3 with 2 cubes, attacked by an enemy Evocation of Strength
    2: the 1st cube brings it to 3 = Health, defeated; the 2nd is not placed; the Model leaves the Lodge, the card
    goes back into the deck, the base to its owner, the cubes to their owners."""
    t = tables(seed=HOUND_GHOUL)
    t.prepare(ann={"QUICK": "call-beast"}, bob={"QUICK": "call-beast"})
    t.run("ann", CastSpell("ann", "QUICK"))
    t.run("bob", CastSpell("bob", "QUICK"))
    hound, ghoul = t.evocation("hound"), t.evocation("ghoul")  # the deck's first two draws
    t.run("bob", PhysicalAction("bob", "strike", hound))
    t.run("cy", PhysicalAction("cy", "strike", hound))
    assert t.view()["evocations"][hound]["damage"] == ["bob", "cy"]
    bases, deck = t.view()["mages"]["ann"]["evocation_bases"], t.view()["evocation_deck"]["cards"]
    t.new()
    t.run("bob", CommandEvocation("bob", ghoul, attack=hound))
    (p,) = _phrases(t.new())
    assert p["applied"] == ["1 Damage to " + hound] and p["skipped"][0]["rule"] == "L-AMB-10"
    view = t.view()
    assert hound not in view["evocations"] and view["evocation_deck"]["cards"] == deck + 1
    assert view["mages"]["ann"]["evocation_bases"] == bases + 1


def test_l_ex_8_immunity(tables):
    """L-EX-8 (R39, R40): Ann resolves "1 Damage to every Model in the Room": she and her Evocation take none, the
    others 1; her Evocation, in the Room where she stands, cannot attack her."""
    t = tables(seed=HOUND_GHOUL)
    t.prepare(ann={"QUICK": "call-beast", "I": "quake"}, bob={"QUICK": "call-beast"})
    t.run("ann", CastSpell("ann", "QUICK"))
    t.run("bob", CastSpell("bob", "QUICK"))
    hound, ghoul = t.evocation("hound"), t.evocation("ghoul")
    t.run("ann", CastSpell("ann", "I"))
    view = t.view()
    assert view["mages"]["ann"]["damage"] == [] and view["evocations"][hound]["damage"] == []
    assert view["mages"]["bob"]["damage"] == ["ann"] and view["mages"]["cy"]["damage"] == ["ann"]
    assert view["evocations"][ghoul]["damage"] == ["ann"]
    with pytest.raises(RuleViolation) as refused:
        t.run("ann", CommandEvocation("ann", hound, attack="ann"))
    assert refused.value.rule == "L-IMM-2"


def test_l_ex_9_trophy(tables):
    """L-EX-9 (R36, L-AMB-5): Bob's Evocation deals the killing Damage to Cy: Bob, its controller, gains a Trophy
    of Cy; the Black Rose's effect kills Cy: the Black Rose gains it."""
    t = tables(seed=HOUND_GHOUL)
    t.prepare(ann={"QUICK": "firebolt", "I": "firebolt"}, bob={"QUICK": "call-beast"})
    t.run("bob", CastSpell("bob", "QUICK"))
    hound = t.evocation("hound")  # Strength 1
    t.run("ann", CastSpell("ann", "QUICK", "cy"), CastSpell("ann", "I", "cy"), PhysicalAction("ann", "strike", "cy"))
    assert len(t.view()["mages"]["cy"]["damage"]) == 5  # of 6
    t.run("bob", CommandEvocation("bob", hound, attack="cy"))
    assert t.view()["mages"]["bob"]["trophies"] == ["cy"] and t.view()["mages"]["ann"]["trophies"] == []

    t = tables()
    t.run("gm", AdvancePhase("prepare"), AdvancePhase("actions"), BlackRoseAct("wither", "cy"))
    assert t.view()["black_rose"]["trophies"] == ["cy"]


@pytest.mark.parametrize("crown", [False, True])
def test_l_ex_10_cleanup_order(tables, crown):
    """L-EX-10 (R41-R45, R31): Ann's Persistent Token on Bob's sheet and a full Room: PersistentTokensReturned,
    [EvocationsRotated with the Crown of the Summoner], PhysicalActionTokensFlipped, RoomsToRebuild, RoomScored,
    RoomFlipped."""
    t = tables(seed=HOUND_GHOUL, crown_of_the_summoner=crown)
    t.prepare(ann={"II": "thornskin", "QUICK": "call-beast"}, cy={"I": "unravel"})
    t.run("ann", CastSpell("ann", "II", "bob"), CastSpell("ann", "QUICK"))
    t.run("cy", CastSpell("cy", "I", "observatory"))  # the Observatory is full
    t.run("bob", PhysicalAction("bob", "walk", moves=["library"]))
    events = t.to_cleanup()
    kinds = [k for k, _ in events]
    order = kinds[kinds.index("CleanupBegan") + 1 : kinds.index("TurnBegan")]
    assert order == [
        "PersistentTokensReturned",
        *(["EvocationsRotated"] if crown else []),
        "PhysicalActionTokensFlipped",
        "RoomsToRebuild",
        "RoomScored",
        "RoomFlipped",
    ]
    data = dict(events)
    assert data["PersistentTokensReturned"]["tokens"] == ["ann:II"] and data["RoomsToRebuild"]["rooms"] == [
        "observatory"
    ]
    assert t.view()["evocations"][t.evocation("hound")]["rotated"] is crown
