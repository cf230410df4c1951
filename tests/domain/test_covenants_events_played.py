"""Event effects of the house package's event table played through the game (A-EVT-1, A-EVT-2, A-EVT-4, A-BAT-1):
the enemies that fight covenants at the end of the Main Phase and may be paid off, and the events that act at
the beginning of the Main Phase. Commands through the service with explicit dice; state read from the views."""

from __future__ import annotations

from domain.covenants.commands import AllocateDamage, DecideEvent, DrawEvent, Move
from tests.covenants.play import Dice, fixed_three, generate_and_keep, pass_create, pass_main, reckon, skip_season
from tests.domain.test_conformance_covenants_played import moves, refused


def drawn_in(d: Dice, face: int, seasons: int = 4, arts: dict | None = None, games=None):
    """After ``seasons`` quiet seasons, Bob (on the Event square) draws the event on ``face``; gold and vis are
    kept from year to year."""
    t = fixed_three(d, options={"yearly_consumes": False}, arts=arts, games=games)
    for _ in range(seasons):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["bob"]
    t.notes["before"] = covenants(t)  # the table as the event is drawn
    d.push([face])
    t.run("bob", DrawEvent("bob"))
    return t


def grogs(t, seat: str) -> dict:
    return next(c for c in t.view("cy")["covenants"][seat]["cards"] if c["name"] == "Grogs")


def covenants(t) -> dict:
    return t.view("cy")["covenants"]


def test_a_evt_4_an_army_of_skeletons_is_paid_off_with_one_vis():
    """A-EVT-4 "Army of Skeletons | Mundane Might 5; pay 1 vis to skip" with [000:727] "The covenant may avoid a
    battle each season by paying 1 pawn vis; else it must engage the skeletons in mundane battle at the end of the
    Main Phase."; a battle without a toll cannot be paid off."""
    d = Dice()
    t = drawn_in(d, 9)
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    vis = covenants(t)["ann"]["vis"]
    pass_main(t)
    assert t.phase() == "battle" and t.turn() == ["ann"]
    assert t.view("cy")["battle"]["dealt"] == {"ann": 2, "Army of Skeletons": 5}
    t.run("ann", AllocateDamage("ann", pay_off=True))
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert covenants(t)["ann"]["vis"] == vis - 1 and grogs(t, "ann")["damage"] == 0 and t.phase() == "move"


def test_a_bat_1_a_covenant_fights_the_army_of_skeletons_and_its_grogs_take_the_five_damage():
    """A-BAT-1 with [000:727]: the target fights; its one Grogs takes all 5 (capacity first, then the surplus)."""
    d = Dice()
    t = drawn_in(d, 9)
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    pass_main(t)
    t.run("ann", AllocateDamage("ann", {grogs(t, "ann")["id"]: 5}))
    assert grogs(t, "ann")["damage"] == 5 and not grogs(t, "ann")["active"]
    assert not covenants(t)["ann"]["marked"]  # an event's battle marks no covenant (A-AGG-1)


def test_a_evt_4_the_winter_of_wolves_fights_every_covenant_that_cannot_pay_its_provision():
    """The house Winter of Wolves ("Mundane Might 3; pay 1 provision per covenant or fight"): a covenant that does
    not pay fights, from the starting player (one that pays: test_covenants_leftovers, A-ECON-1)."""
    d = Dice()
    t = drawn_in(d, 18, seasons=7)  # year two, Winter
    assert t.view("cy")["game"]["season"] == "winter"
    pass_main(t)
    assert t.phase() == "battle" and t.turn() == ["bob"]
    for seat in ("bob", "cy", "ann"):
        assert t.turn() == [seat] and t.view("ann")["battle"]["dealt"][seat] == 2
        t.run(seat, AllocateDamage(seat, {grogs(t, seat)["id"]: 3}))
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert all(grogs(t, seat)["damage"] == 3 for seat in ("ann", "bob", "cy")) and t.phase() == "move"


def test_a_evt_4_a_clique_of_thieves_takes_half_the_targets_gold_at_the_beginning_of_the_main_phase():
    """A-EVT-4 "Clique of Thieves | discard ⌊½⌋ of the gold outside the Treasury" with [000:784] "Target all the
    covenant's gold that is not attached to a Treasury at the beginning of the Main Phase. Discard half of it
    (rounded down)."."""
    d = Dice()
    t = drawn_in(d, 13)
    gold = {seat: c["gold"] for seat, c in covenants(t).items()}
    t.run("bob", DecideEvent("bob", "play", target="cy"))
    assert t.phase() == "main"
    v = covenants(t)
    assert v["cy"]["gold"] == gold["cy"] - gold["cy"] // 2 and v["ann"]["gold"] == gold["ann"]


def test_the_house_events_redcaps_tidings_and_lost_apprentice_take_effect_at_the_main_phase():
    """House events (A-AMB-1: the source stops at "Wizard's March"): Redcap's Tidings gives every covenant 1 gold;
    Lost Apprentice takes 1 vis from its target."""
    d = Dice()
    t = drawn_in(d, 17)
    before = t.notes["before"]
    assert t.phase() == "main"
    assert {seat: c["gold"] - before[seat]["gold"] for seat, c in covenants(t).items()} == {"ann": 1, "bob": 1, "cy": 1}

    d = Dice()
    t = drawn_in(d, 19)
    before = t.notes["before"]
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    v = covenants(t)
    assert v["ann"]["vis"] == before["ann"]["vis"] - 1 and v["cy"]["vis"] == before["cy"]["vis"]


def test_the_house_event_wizards_march_rests_the_targets_most_learned_mage_for_a_season():
    """The house Wizard's March: "the target's mage with the most Arts is inactive for one season"; it is active
    again when the next season begins (A-LIM-2: rotated only by an effect)."""
    d = Dice()
    t = drawn_in(d, 15)
    t.run("bob", DecideEvent("bob", "play", target="cy"))
    mage = t.mage("cy")
    card = next(c for c in covenants(t)["cy"]["cards"] if c["id"] == mage)
    assert not card["active"] and card["inactive_until"] == "summer"
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    card = next(c for c in covenants(t)["cy"]["cards"] if c["id"] == mage)
    assert card["active"] and t.view("cy")["game"]["season"] == "summer"


def test_a_evt_4_a_famine_halves_the_provision_made_and_forbids_converting_provision():
    """A-EVT-4 "Famine | loses ½ provision" with A-AMB-14 (keep ⌈P/2⌉) and A-ECON-1 "No conversion to or from
    provision during a Famine": played through the Main Phase and the Reckoning."""
    from domain.covenants.commands import Convert, Support

    d = Dice()
    t = drawn_in(d, 2)  # Famine, any season
    assert t.phase() == "main" and "Famine" in t.view("cy")["events_in_play"]
    refused(t, "bob", Convert("bob", "provision", 2, "gold"), "A-ECON-1")
    pass_main(t)
    t.run("bob", Move("bob", 10))
    seat = t.turn()[0]
    # two Villagers make 4 provision, halved to 2; the mage (1) and the Grogs (2) need 3: the Grogs must starve
    refused(t, seat, Support(seat, []), "A-RECK-1")
    grogs_id = grogs(t, seat)["id"]
    out = t.run(seat, Support(seat, [grogs_id]))
    assert out["made"]["provision"] == 2 and out["paid"]["provision"] == 1
    assert grogs_id not in {c["id"] for c in covenants(t)[seat]["cards"]}


def next_season_main(t, squares: dict | None = None, starve: dict | None = None) -> None:
    """End this season (the first to move goes to End) and play the next one up to its Main Phase."""
    if t.phase() == "main":
        pass_main(t)
    while t.phase() != "move":
        raise AssertionError(f"the season is at {t.phase()}")
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t, starve)
    moves(t, squares or {"ann": 1, "bob": 2, "cy": 3})
    pass_create(t)


def test_a_evt_4_events_stay_in_play_for_the_seasons_their_text_gives():
    """A-EVT-4 with the cards' texts: the Wave of Bandits "After a year has passed, discard this card" ([000:684])
    and, if not beaten, "survives for another season" and asks again; the Famine stays to "the end of the next
    Summer's Reckoning" ([000:661])."""
    from domain.covenants.commands import FaceBandits

    d = Dice()
    t = drawn_in(d, 5)  # Wave of Bandits, Spring of year two
    pass_main(t)
    while t.phase() == "bandits":
        t.run(t.turn()[0], FaceBandits(t.turn()[0], fight=False))  # everyone pays: the bandits are not beaten
    next_season_main(t)
    assert "Wave of Bandits" in t.view("cy")["events_in_play"] and t.view("cy")["game"]["season"] == "summer"
    pass_main(t)
    assert t.phase() == "bandits"  # they come back at the end of this season's Main Phase

    d = Dice()
    t = drawn_in(d, 2)  # Famine, Spring
    hungry = {seat: [grogs(t, seat)["id"]] for seat in ("ann", "bob", "cy")}  # half the provision: Grogs starve
    next_season_main(t, starve=hungry)
    assert "Famine" in t.view("cy")["events_in_play"]  # Summer: still in play
    next_season_main(t)
    assert t.view("cy")["game"]["season"] == "autumn" and "Famine" not in t.view("cy")["events_in_play"]


def test_a_evt_4_the_plague_gains_a_counter_a_season_and_each_covenant_chooses_the_beings_it_damages():
    """A-EVT-4 "Plague | +1 counter per season; at each Main Phase end, damage as many Animate Co beings as there
    are counters; discard at 5 counters" with [000:671] "each covenant must choose a number of active beings of
    substance Animate Co equal to the number of counters on this card" (H-6)."""
    from domain.covenants.commands import ChoosePlagued

    d = Dice()
    t = drawn_in(d, 4)  # Plague, Spring of year two
    assert t.view("cy")["plague"] == {"counters": 0}
    pass_main(t)
    assert t.phase() == "move"  # no counter yet: nobody is struck in the season it was played
    next_season_main(t)
    assert t.view("cy")["plague"]["counters"] == 1
    pass_main(t)
    assert t.phase() == "plague" and t.turn() == ["bob", "cy", "ann"]
    villagers = [c["id"] for c in covenants(t)["bob"]["cards"] if c["name"] == "Villagers"]
    refused(t, "bob", ChoosePlagued("bob", villagers), "A-EVT-4")  # one being: the counters say how many
    refused(t, "bob", ChoosePlagued("bob", [covenants(t)["ann"]["cards"][0]["id"]]), "A-EVT-4")  # his own
    t.run("bob", ChoosePlagued("bob", villagers[:1]))
    struck = next(c for c in covenants(t)["bob"]["cards"] if c["id"] == villagers[0])
    assert struck["damage"] == 1 and not struck["active"]
    t.run("cy", ChoosePlagued("cy", [grogs(t, "cy")["id"]]))
    t.run("ann", ChoosePlagued("ann", [t.mage("ann")]))
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert (
        t.phase() == "move" and not next(c for c in covenants(t)["ann"]["cards"] if c["id"] == t.mage("ann"))["active"]
    )


def town_for_ann(d: Dice):
    """Year one: Ann builds up to a Town (two more Villagers, an Expansion, then the Town, which takes the four
    Villagers, [000:47]); gold is kept from year to year."""
    t = fixed_three(d, options={"yearly_consumes": False})
    for squares, face in (({"ann": 1, "bob": 1, "cy": 2}, 1), ({"ann": 2, "bob": 3, "cy": 4}, 2),
                          ({"ann": 6, "bob": 5, "cy": 7}, 1)):  # fmt: skip
        moves(t, squares)
        generate_and_keep(t, d, {"ann": face})  # Villagers, Improve Covenant (Expansion/Minor), Villagers
        pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    moves(t, {"ann": 1, "bob": 2, "cy": 3})
    town = generate_and_keep(t, d, {"ann": 19})["ann"]  # the Town: 3 gold, and the four Villagers go
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    skip_season(t)
    skip_season(t)
    kinds = [c["kind"] for c in covenants(t)["ann"]["cards"]]
    assert "town" in kinds and "villagers" not in kinds
    return t, town


def test_a_evt_4_riots_the_town_fights_its_covenant_and_under_4_damage_is_rotated_for_the_season():
    """A-EVT-4 "Riots | damage > 9 → Town discarded; 4–8 → event ends; < 4 → Town inactive" with [000:776] "This
    event can only be directed at a covenant with a Town. ... The Town becomes a hostile force attacking the rest of
    the covenant in mundane battle at the end of the Main Phase." and A-AMB-13: the Town's Mundane Might 5 deals 5;
    Ann's Grogs deal it 2: rotated, it produces nothing this season and unrotates the next."""
    from domain.covenants.commands import Support

    d = Dice()
    t, town = town_for_ann(d)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([12])  # Riots (directed)
    t.run("bob", DrawEvent("bob"))
    refused(t, "bob", DecideEvent("bob", "play", target="cy"), "A-EVT-2")  # cy has no Town
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    pass_main(t)
    assert t.phase() == "battle" and t.view("cy")["battle"]["dealt"] == {"ann": 2, "Riots": 5}
    t.run("ann", AllocateDamage("ann", {grogs(t, "ann")["id"]: 5}))
    town_card = next(c for c in covenants(t)["ann"]["cards"] if c["id"] == town)
    assert town_card["damage"] == 2 and not town_card["active"] and town_card["inactive_until"] == "summer"
    assert "Riots" in t.view("cy")["events_in_play"]
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    while t.turn()[0] != "bob":  # Ann starts this year (the lowest score): she moves on, then Bob goes to End
        t.run(t.turn()[0], Move(t.turn()[0], 3))
    t.run("bob", Move("bob", 10))
    while t.phase() == "reckoning":
        seat = t.turn()[0]
        # with its Town rotated, Ann's covenant makes no provision: she starves her Grogs and her mage
        out = t.run(seat, Support(seat, [grogs(t, "ann")["id"], t.mage("ann")] if seat == "ann" else []))
        if seat == "ann":
            assert out["made"]["provision"] == 0  # the rotated Town produces nothing this season
    town_card = next(c for c in covenants(t)["ann"]["cards"] if c["id"] == town)
    assert town_card["active"] and town_card["damage"] == 2  # unrotated; the damage is kept


def test_the_house_event_gathering_of_the_tribunal_lets_a_marked_covenant_pay_1_vis_to_be_unmarked():
    """The house Gathering of the Tribunal ("every covenant may pay 1 vis to unmark itself"; A-AGG-1's marks): Ann,
    marked for a harmful spell at Bob's Grogs, pays 1 vis and is unmarked; an unmarked covenant has nothing to pay
    for; once the event is gone, nobody may."""
    from domain.covenants.commands import AttendTribunal, Cast
    from tests.covenants.play import pass_until

    d = Dice()
    t = drawn_in(d, 16, seasons=5, arts={"ann": ["Cr", "Ig", "Co", "Im", "Vi"]})  # Summer of year two
    assert "Gathering of the Tribunal" in t.view("cy")["events_in_play"] and t.phase() == "main"
    pass_until(t, "ann")
    t.run("ann", Cast("ann", t.mage("ann"), "Sphere of Flame", grogs(t, "bob")["id"], 1))
    vis = covenants(t)["ann"]["vis"]
    assert covenants(t)["ann"]["marked"]
    refused(t, "bob", AttendTribunal("bob"), "A-AGG-1")
    t.run("ann", AttendTribunal("ann"))
    assert not covenants(t)["ann"]["marked"] and covenants(t)["ann"]["vis"] == vis - 1
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    refused(t, "ann", AttendTribunal("ann"), "A-EVT-4")
