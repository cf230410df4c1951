"""Battles the events cause, played through the game (A-BAT-1 beyond the Wave of Bandits): the Season of Chaos
(A-EX-7, A-EVT-3) and the Armed Invasion (A-EVT-4). Commands run through the service with explicit dice; each
covenant allocates the damage it takes (H-6), capacity first; refusals name their rule and record nothing."""

from __future__ import annotations

from domain.covenants.commands import AllocateDamage, AvertBattle, ChooseRival, DrawEvent, RollChaos
from domain.platform.commands import CloseWindow
from tests.covenants.play import Dice, fixed_three, pass_create, pass_main, skip_season
from tests.domain.test_conformance_covenants_played import moves, refused


def drawn(d: Dice, face: int, games=None):
    """Year two, Spring: Bob, on the Event square, draws the global event on ``face``; everyone kept its gold."""
    t = fixed_three(d, options={"yearly_consumes": False}, games=games)
    for _ in range(4):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["bob"]
    d.push([face])
    assert t.run("bob", DrawEvent("bob"))["played"] is True
    return t


def grogs(t, seat: str) -> dict:
    return next(c for c in t.view("cy")["covenants"][seat]["cards"] if c["name"] == "Grogs")


def test_a_ex_7_season_of_chaos_an_even_roll_chooses_a_rival_who_declines_and_both_covenants_are_marked():
    """A-EX-7 "given: Season of Chaos in play; Player A rolls 4 (even) → chooses B; B declines to pay 4 gold / then:
    at Main Phase end the mundane battle A vs B resolves; the grogs of both deal damage → both covenants marked /
    given: A rolls 3 (odd) → no battle obligation for A"; [000:691]; A-EVT-3 "Season of Chaos | each player rolls;
    even | must choose a rival to battle; the rival may pay 4 gold to avoid it"; A-BAT-1; H-6."""
    d = Dice()
    t = drawn(d, 6)  # Season of Chaos
    assert t.phase() == "chaos" and t.turn() == ["bob", "cy", "ann"]  # from the starting player
    refused(t, "cy", RollChaos("cy"), "A-ORDER-1")
    refused(t, "bob", ChooseRival("bob", "ann"), "A-EVT-3")  # he has not rolled even yet
    d.push([4])
    assert t.run("bob", RollChaos("bob")) == {"face": 4, "must_choose_rival": True}
    refused(t, "bob", RollChaos("bob"), "A-EVT-3")  # one roll
    refused(t, "bob", ChooseRival("bob", "bob"), "A-EVT-3")
    t.run("bob", ChooseRival("bob", "ann"))
    assert t.turn() == ["ann", "cy", "ann"] and t.view("cy")["chaos"]["answering"] == {"chooser": "bob", "rival": "ann"}
    refused(t, "cy", AvertBattle("cy", False), "A-ORDER-1")
    t.run("ann", AvertBattle("ann", False))  # she declines to pay
    d.push([3])
    assert t.run("cy", RollChaos("cy"))["must_choose_rival"] is False  # odd: no battle obligation
    d.push([1])
    t.run("ann", RollChaos("ann"))
    assert t.phase() == "main"
    assert [(b["a"], b["b"]) for b in t.view("cy")["battles"]] == [("bob", "ann")]
    pass_main(t)
    assert t.phase() == "battle" and t.turn() == ["bob", "ann"]
    battle = t.view("cy")["battle"]
    assert battle["dealt"] == {"bob": 2, "ann": 2} and battle["to_allocate"] == {"bob": 2, "ann": 2}
    bob_grogs, ann_grogs = grogs(t, "bob")["id"], grogs(t, "ann")["id"]
    refused(t, "bob", AllocateDamage("bob", {bob_grogs: 1}), "A-BAT-1")  # all 2 points
    refused(t, "bob", AllocateDamage("bob", {ann_grogs: 2}), "A-BAT-1")  # his own beings take it
    t.run("bob", AllocateDamage("bob", {bob_grogs: 2}))
    assert not t.view("cy")["covenants"]["bob"]["marked"]  # the damage lands when both sides have allocated
    t.run("ann", AllocateDamage("ann", {ann_grogs: 2}))
    v = t.view("cy")["covenants"]
    assert v["ann"]["marked"] and v["bob"]["marked"] and not v["cy"]["marked"]
    assert grogs(t, "ann")["damage"] == 2 and not grogs(t, "ann")["active"]
    assert grogs(t, "bob")["damage"] == 2 and not grogs(t, "bob")["active"]
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert t.phase() == "move" and t.view("cy")["battle"] is None


def test_a_ex_7_the_rival_pays_four_gold_to_the_chooser_and_no_battle_is_fought():
    """[000:693] "The rival covenant may pay 4 gold at the time of the roll to the player who chose it to avert the
    battle."; a rival without 4 gold cannot (A-EVT-3)."""
    d = Dice()
    t = drawn(d, 6)
    gold = {seat: c["gold"] for seat, c in t.view("cy")["covenants"].items()}
    d.push([2])
    t.run("bob", RollChaos("bob"))
    t.run("bob", ChooseRival("bob", "cy"))
    t.run("cy", AvertBattle("cy", True))
    v = t.view("ann")["covenants"]
    assert v["cy"]["gold"] == gold["cy"] - 4 and v["bob"]["gold"] == gold["bob"] + 4
    assert t.view("ann")["battles"] == []
    d.push([6])
    t.run("cy", RollChaos("cy"))
    t.run("cy", ChooseRival("cy", "ann"))
    assert gold["ann"] == 4
    t.run("ann", AvertBattle("ann", False))
    d.push([6])
    t.run("ann", RollChaos("ann"))
    t.run("ann", ChooseRival("ann", "cy"))  # "the same two covenants [may] battle twice in the same season"
    assert t.view("ann")["covenants"]["cy"]["gold"] == gold["cy"] - 4 < 4
    refused(t, "cy", AvertBattle("cy", True), "A-EVT-3")  # cy has paid its gold away
    t.run("cy", AvertBattle("cy", False))
    pass_main(t)
    assert [(b["a"], b["b"]) for b in t.view("bob")["battles"]] == [("ann", "cy")]  # the second, still due
    assert t.phase() == "battle" and t.view("ann")["battle"]["a"] == "cy"
    for seat in ("cy", "ann"):  # both silent: each side's damage fills its beings, capacity first (H-9)
        (window,) = t.view(seat)["windows"]
        assert window["kind"].startswith(f"battle:{seat}:")
        t.run("ann", CloseWindow(window["id"]))  # the host closes the turn now
    assert grogs(t, "cy")["damage"] == 2 and grogs(t, "ann")["damage"] == 2
    # the second battle: no active being is left on either side to deal damage, so nobody allocates anything
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    v = t.view("bob")
    assert v["covenants"]["cy"]["marked"] and v["covenants"]["ann"]["marked"] and t.phase() == "move"
    assert grogs(t, "cy")["damage"] == 2 and v["battles"] == [] and v["battle"] is None


def test_a_bat_1_an_armed_invasion_fights_every_covenant_and_loses_might_as_it_takes_damage():
    """A-EVT-4 "Armed Invasion | Mundane Might 10, reduced by the damage it takes" with [000:699] "At the end of the
    Main Phase, beginning with the covenant belonging to the starting player, each covenant must engage in mundane
    battle with this card. The Might of this card is reduced by any damage it receives."; A-BAT-1: its damage is
    allocated capacity first, the surplus by the receiving side."""
    d = Dice()
    t = drawn(d, 7)
    assert t.phase() == "main"
    pass_main(t)
    assert t.phase() == "battle" and t.turn() == ["bob"]
    assert t.view("ann")["battle"]["dealt"] == {"bob": 2, "Armed Invasion": 10}
    g = grogs(t, "bob")["id"]
    t.run("bob", AllocateDamage("bob", {g: 10}))  # one being: the surplus goes to it too
    assert grogs(t, "bob")["damage"] == 10 and not grogs(t, "bob")["active"]
    assert t.turn() == ["cy"] and t.view("ann")["battle"]["dealt"] == {"cy": 2, "Armed Invasion": 8}
    t.run("cy", AllocateDamage("cy", {grogs(t, "cy")["id"]: 8}))
    assert t.view("ann")["battle"]["dealt"] == {"ann": 2, "Armed Invasion": 6}
    t.run("ann", AllocateDamage("ann", {grogs(t, "ann")["id"]: 6}))
    v = t.view("ann")
    assert v["invasion"]["damage"] == 6 and not any(c["marked"] for c in v["covenants"].values())
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert t.phase() == "move"


BEAR = "Might of the Bear"  # house spell, Mu An: +1 Mundane Might per pawn to a Co or An being, this season
BOOST_ARTS = {"ann": ["Mu", "An", "Co", "Im", "Vi"], "bob": ["Pe", "Vi", "An", "Re", "Mu"]}


def boosted_battle(d: Dice, games=None):
    """Season of Chaos: Bob chooses Ann, who accepts the battle; in the Main Phase Ann raises her Grogs' Might by 1;
    at the end of the Main Phase the battle waits for every player's "no counter"."""
    from domain.covenants.commands import Cast, Pass

    t = fixed_three(d, options={"yearly_consumes": False}, arts=BOOST_ARTS, games=games)
    for _ in range(4):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([6])
    t.run("bob", DrawEvent("bob"))
    d.push([2])
    t.run("bob", RollChaos("bob"))
    t.run("bob", ChooseRival("bob", "ann"))
    t.run("ann", AvertBattle("ann", False))
    d.push([1], [1])
    t.run("cy", RollChaos("cy"))
    t.run("ann", RollChaos("ann"))
    assert t.phase() == "main" and t.turn()[0] == "bob"
    t.run("bob", Pass("bob"))
    t.run("cy", Pass("cy"))
    spell = t.run("ann", Cast("ann", t.mage("ann"), BEAR, grogs(t, "ann")["id"], 1))["spell_id"]
    assert not t.view("cy")["covenants"]["ann"]["marked"]  # her own being, and not harmful (A-AGG-1)
    pass_main(t)
    return t, spell


def test_a_ex_5_a_battle_after_a_might_boost_waits_until_every_player_confirms_no_counter():
    """A-EX-5 "given: a spell raising a being's Mundane Might is cast in the Main Phase; a mundane battle is due in
    the same phase / then: the battle resolution is deferred until every player confirms "no counter" (H-15)";
    A-AMB-15 "Cross-phase dependencies (a battle) wait for confirmation"; once all confirmed, the spell can no longer
    be countered and the boosted Might fights (A-BAT-1)."""
    from domain.covenants.commands import Cast, NoCounter

    d = Dice()
    t, spell = boosted_battle(d)
    v = t.view("cy")
    assert t.phase() == "battle" and v["deferred"] == {"battle": v["deferred"]["battle"], "spells": [spell]}
    assert v["battle"] is None and t.turn() == ["bob", "cy", "ann"]
    bob_grogs, ann_grogs = grogs(t, "bob")["id"], grogs(t, "ann")["id"]
    refused(t, "bob", AllocateDamage("bob", {bob_grogs: 3}), "H-15")  # not yet: nobody has confirmed
    t.run("cy", NoCounter("cy"))  # in any order
    refused(t, "cy", NoCounter("cy"), "H-15")
    t.run("bob", NoCounter("bob"))
    assert t.view("cy")["battle"] is None  # Ann has still to confirm
    t.run("ann", NoCounter("ann"))
    battle = t.view("cy")["battle"]
    assert battle["dealt"] == {"bob": 2, "ann": 3}  # Ann's Grogs fight with Might 3
    refused(t, "bob", Cast("bob", t.mage("bob"), "Counterspell", spell, 3), "H-15")  # the window is closed
    t.run("bob", AllocateDamage("bob", {bob_grogs: 3}))  # one being: the surplus goes to it
    t.run("ann", AllocateDamage("ann", {ann_grogs: 2}))  # capacity 3 now: 2 leave it short of full
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert grogs(t, "bob")["damage"] == 3 and grogs(t, "ann")["damage"] == 2 and t.phase() == "move"


def test_a_ex_5_a_boost_countered_while_the_battle_waits_leaves_the_unboosted_might():
    """A-EX-5 with A-SPELL-5 "A spell can be countered at any point in the phase it was cast": while the battle waits
    (still the end of the Main Phase), Bob counters Ann's boost with more pawns than its strength; the battle is then
    fought with her Grogs' Might 2."""
    from domain.covenants.commands import Cast, NoCounter

    d = Dice()
    t, spell = boosted_battle(d)
    out = t.run("bob", Cast("bob", t.mage("bob"), "Counterspell", spell, 2))
    assert out["countered"] is True and not any(e.get("might") for e in t.view("cy")["effects"])
    for seat in ("bob", "cy", "ann"):
        t.run(seat, NoCounter(seat))
    assert t.view("cy")["battle"]["dealt"] == {"bob": 2, "ann": 2}
