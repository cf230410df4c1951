"""Rules that were arithmetic only, now played through the game (issue 14): each test runs commands through
``application.service.Games`` with explicit dice; refusals name the rule and record nothing."""

from __future__ import annotations

import pytest

from domain.covenants import rules
from domain.covenants.commands import (
    DecideEvent,
    Discard,
    DrawEvent,
    FaceBandits,
    FaceHedgeMage,
    Generate,
    Keep,
    Move,
    Pass,
    PayTax,
    Support,
    UseMouse,
)
from domain.errors import RuleViolation
from domain.platform.commands import CloseWindow
from tests.covenants.play import (
    Dice,
    events_of,
    fixed_three,
    generate_and_keep,
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


def winter_of_year_two_with_tax(d: Dice, options: dict | None = None, games=None):
    t = fixed_three(d, options=options, games=games)
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


def vis_source_under_a_hedge_mage(d: Dice, options: dict | None = None, arts: dict | None = None, games=None):
    """Year two, Spring: Ann keeps Grogs then a Vis Source; Bob, on the Event square, directs a Hedge Mage Attack
    at her; the Main Phase passes, and the Hedge Mage claims the source."""
    t = fixed_three(d, options=options, arts=arts, games=games)
    for _ in range(4):
        skip_season(t)
    squares = {"ann": 3, "bob": 1, "cy": 2}  # personnel for Ann
    for seat in list(t.turn()):
        t.run(seat, Move(seat, squares[seat]))
    generate_and_keep(t, d, {"ann": 1})  # Grogs: a Vis Source needs a Grogs card in play (A-LIM-1)
    pass_main(t)
    squares = {"ann": 6, "bob": 9, "cy": 4}  # property for Ann, the Event square for Bob
    for seat in list(t.turn()):
        t.run(seat, Move(seat, squares[seat]))
    source = generate_and_keep(t, d, {"ann": 15})["ann"]  # Equinox Vis Source
    assert t.phase() == "events" and t.turn() == ["bob"]
    d.push([10])  # Hedge Mage Attack (directed)
    t.run("bob", DrawEvent("bob"))
    refused(t, "bob", DecideEvent("bob", "play", target="cy"), "A-EVT-2")  # cy has no Vis Source to claim
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    pass_main(t)
    assert t.phase() == "hedge" and t.turn() == ["ann"]
    return t, source


def test_a_evt_4_a_hedge_mage_curse_is_rolled_when_the_covenant_keeps_its_vis_source():
    """A-EVT-4 "Hedge Mage Attack | d6 on the curse table (1–6) | that curse" with [000:748] "At the end of the Main
    Phase, the covenant must either give up (discard) a Vis Source of its choice or face the Hedge Mage's curse.
    The curse is determined by rolling a 6-sided die"."""
    d = Dice()
    t, source = vis_source_under_a_hedge_mage(d)
    refused(t, "bob", FaceHedgeMage("bob"), "A-ORDER-1")  # not Bob's to answer
    mage = t.mage("ann")
    refused(t, "ann", FaceHedgeMage("ann", give_up=mage), "A-EVT-4")  # only a Vis Source may be given up
    d.push([6])
    assert t.run("ann", FaceHedgeMage("ann"))["curse"] == 6
    v = t.view("cy")
    assert {"curse": 6, "covenant": "ann", "source": "Hedge Mage Attack"} in v["effects"]
    assert any(c["id"] == source for c in v["covenants"]["ann"]["cards"])  # she kept her source
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert t.phase() == "move"


def test_a_evt_4_giving_up_the_vis_source_spares_the_covenant_the_curse():
    """A-EVT-4 [000:748] "the covenant must either give up (discard) a Vis Source of its choice or face the Hedge
    Mage's curse."."""
    d = Dice()
    t, source = vis_source_under_a_hedge_mage(d)
    rolls = len(d.rolls)
    t.run("ann", FaceHedgeMage("ann", give_up=source))
    v = t.view("cy")
    assert len(d.rolls) == rolls  # no die is rolled
    assert not any(e.get("curse") for e in v["effects"])
    assert not any(c["id"] == source for c in v["covenants"]["ann"]["cards"])
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert t.phase() == "move"


def test_a_evt_4_silence_before_the_hedge_mage_gives_up_a_vis_source():
    """H-9 with A-EVT-4 [000:748]: the claimed covenant "must either give up (discard) a Vis Source of its choice or
    face the Hedge Mage's curse"; its silence at the deadline gives up the source (the curse would need its roll)."""
    d = Dice()
    t, source = vis_source_under_a_hedge_mage(d)
    (window,) = t.view("ann")["windows"]
    assert window["kind"].startswith("hedge:ann:")
    t.run("ann", CloseWindow(window["id"]))  # Ann hosts: she closes her own turn now
    v = t.view("cy")
    assert not any(e.get("curse") for e in v["effects"])
    assert not any(c["id"] == source for c in v["covenants"]["ann"]["cards"])
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert t.phase() == "move"


def reckon_after(t, starve: dict | None = None) -> dict:
    """The Reckoning: each covenant supports (starving what ``starve`` names); its holdings after support."""
    after = {}
    while t.phase() == "reckoning":
        seat = t.turn()[0]
        after[seat] = t.run(seat, Support(seat, list((starve or {}).get(seat, []))))["after"]
    return after


def cursed(d: Dice, curse: int, options: dict | None = None, arts: dict | None = None):
    """Ann keeps her source and rolls ``curse``; Bob ends the season; Ann cannot feed her Grogs and starves them."""
    t, source = vis_source_under_a_hedge_mage(d, options, arts)
    d.push([curse])
    t.run("ann", FaceHedgeMage("ann"))
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    t.run("bob", Move("bob", 10))
    grogs = next(c["id"] for c in t.view("ann")["covenants"]["ann"]["cards"] if c["name"] == "Grogs")
    reckon_after(t, {"ann": [grogs]})
    assert t.view("gm")["game"]["phase"] == "move"
    return t


def test_a_gen_1_hedge_curse_1_rolls_a_generation_die_twice_and_keeps_the_lesser():
    """A-GEN-1 step 1 "Hedge Mage curse 1. [000:751] "1: Every time the covenant's player rolls a die, he" "must roll
    it twice and use the lesser value." → roll = min(d, d)", the curse laid by a Hedge Mage Attack in play."""
    d = Dice()
    t = cursed(d, 1)
    squares = {"ann": 3, "bob": 1, "cy": 2}  # personnel for Ann
    for seat in list(t.turn()):
        t.run(seat, Move(seat, squares[seat]))
    while t.turn()[0] != "ann":
        t.run(t.turn()[0], Pass(t.turn()[0]))
    d.push([12, 7])  # Lady Luisa would be 8+; the lesser, 7, is Alonzo
    card = t.run("ann", Generate("ann"))["card_id"]
    names = {c["id"]: c["name"] for c in t.view("ann")["covenants"]["ann"]["cards"]}
    assert names[card] == "Companion: Alonzo, Son of a Merchant"


def test_a_reck_6_hedge_curse_6_takes_a_point_from_the_yearly_surplus():
    """A-RECK-6 "Hedge Mage curse 6. [000:762] "6: At every Yearly Reckoning, the covenant's surplus" "is reduced by
    1 point."", the curse laid by a Hedge Mage Attack in play."""
    d = Dice()
    t = cursed(d, 6, {"yearly_consumes": False})  # the first year's holdings stay: a surplus to reduce
    skip_season(t)  # Summer
    skip_season(t)  # Autumn
    scores = {seat: c["score"] for seat, c in t.view("gm")["covenants"].items()}
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    after = reckon_after(t)
    v = t.view("gm")["covenants"]
    for seat in t.seats:
        points = rules.yearly_points(after[seat]["provision"], after[seat]["gold"], after[seat]["vis"])
        assert points >= 1  # a surplus the curse can reduce
        assert v[seat]["score"] == scores[seat] + (points - 1 if seat == "ann" else points)


def moves(t, squares: dict) -> None:
    for seat in list(t.turn()):
        t.run(seat, Move(seat, squares[seat]))


def bandits_at_the_end_of_main(d: Dice, games=None):
    """Year two, Spring: Ann keeps Grogs A with a Sword and Grogs B; Bob draws a Wave of Bandits; Main ends."""
    t = fixed_three(d, options={"yearly_consumes": False}, games=games)  # everyone keeps gold to pay with
    for _ in range(4):
        skip_season(t)
    moves(t, {"ann": 3, "bob": 1, "cy": 2})
    grogs_a = generate_and_keep(t, d, {"ann": 1})["ann"]
    pass_main(t)
    moves(t, {"ann": 4, "bob": 5, "cy": 6})
    d.push([1])  # a Sword, for Grogs A
    while t.turn()[0] != "ann":
        t.run(t.turn()[0], Pass(t.turn()[0]))
    sword = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", sword, attach_to=grogs_a))
    pass_create(t)
    pass_main(t)
    moves(t, {"ann": 8, "bob": 9, "cy": 7})
    grogs_b = generate_and_keep(t, d, {"ann": 2})["ann"]
    d.push([5])  # Wave of Bandits, a global event for any season
    assert t.run("bob", DrawEvent("bob"))["played"] is True
    pass_main(t)
    assert t.phase() == "bandits" and t.turn() == ["bob", "cy", "ann"]  # from the starting player
    return t, grogs_a, grogs_b, sword


def test_a_ex_12_a_covenant_fights_the_wave_of_bandits_and_allocates_its_damage():
    """A-EX-12 (derived) "covenant with Grogs A (MM 2, Sword +1), Grogs B (MM 2) ...; Wave of Bandits (MM 4); player
    chooses to fight / then: covenant deals 2+1+2 = 5 → Bandits damage 5 ≥ 4 → Bandits discarded at season end /
    Bandits deal 4 → must fill capacities first ... → both damaged → both inactive / at season end no active Grogs
    → lose all 3 gold outside a Treasury ([000:683])"; A-BAT-1 "Each being first takes up to its capacity ... Only
    after every being has reached capacity may surplus be assigned."; H-6 "The receiving player allocates"."""
    d = Dice()
    t, grogs_a, grogs_b, sword = bandits_at_the_end_of_main(d)
    gold = {seat: c["gold"] for seat, c in t.view("gm")["covenants"].items()}
    refused(t, "ann", FaceBandits("ann", fight=True, allocation={grogs_a: 2, grogs_b: 2}), "A-ORDER-1")
    t.run("bob", FaceBandits("bob", fight=False))
    t.run("cy", FaceBandits("cy", fight=False))
    refused(t, "ann", FaceBandits("ann", fight=True, allocation={grogs_a: 3, grogs_b: 1}), "A-BAT-1")  # A over cap
    refused(t, "ann", FaceBandits("ann", fight=True, allocation={grogs_a: 2, grogs_b: 1}), "A-BAT-1")  # not all 4
    refused(t, "ann", FaceBandits("ann", fight=True, allocation={sword: 4}), "A-BAT-1")  # not a being
    # Her starting Grogs fights too: 2 + 1 (Sword) + 2 + 2; the 4 damage may leave one being short of capacity.
    assert t.run("ann", FaceBandits("ann", fight=True, allocation={grogs_a: 2, grogs_b: 2}))["dealt"] == 7
    v = t.view("gm")["covenants"]
    assert v["bob"]["gold"] == gold["bob"] - 1 and v["cy"]["gold"] == gold["cy"] - 1
    cards = {c["id"]: c for c in v["ann"]["cards"]}
    assert cards[grogs_a]["damage"] == 2 and cards[grogs_b]["damage"] == 2
    assert not cards[grogs_a]["active"] and not cards[grogs_b]["active"]
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert t.phase() == "move"
    t.run("bob", Move("bob", 10))
    starting = next(c for c in cards if cards[c]["name"] == "Grogs" and c not in (grogs_a, grogs_b))
    assert cards[starting]["active"] and cards[starting]["damage"] == 0
    reckon_after(t, {"ann": [grogs_a, grogs_b, starting]})  # she cannot feed them: no active Grogs remain
    v = t.view("gm")
    assert gold["ann"] > 0 and v["covenants"]["ann"]["gold"] == 0  # fought, and no active Grogs at the season end
    assert v["covenants"]["bob"]["gold"] > 0


def test_a_evt_4_silence_before_the_bandits_pays_them_off():
    """H-9 with A-EVT-4 [000:679] "each covenant must decide whether to engage the bandits in mundane battle or to
    pay them off with 1 gold": a covenant silent at its deadline pays, if it holds the gold."""
    d = Dice()
    t, *_ = bandits_at_the_end_of_main(d)
    gold = t.view("gm")["covenants"]["bob"]["gold"]
    (window,) = t.view("bob")["windows"]
    assert window["kind"].startswith("bandits:bob:")
    t.run("ann", CloseWindow(window["id"]))  # the host closes Bob's turn now
    assert t.view("gm")["covenants"]["bob"]["gold"] == gold - 1 and t.turn() == ["cy", "ann"]


def test_a_gen_1_the_mouse_changes_the_roll_after_it_is_seen():
    """A-GEN-1 step 4 "Familiar: Mouse. ±0..2, once per season: [000:405] "you may add or subtract up to 2 to any
    single Resource or Event card generation dice roll once per season."": the player sees the roll, then changes
    it; the changed value makes the card."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [5, 1, 2])
    d.push([5])  # Familiar: Mouse
    t.run("ann", Keep("ann", t.run("ann", Generate("ann"))["card_id"]))
    pass_create(t)
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    move_all(t, [4, 1, 2])  # ann on Item (d6)
    while t.turn()[0] != "ann":
        t.run(t.turn()[0], Pass(t.turn()[0]))
    d.push([3])  # the Leather Shield; seen, Ann adds 2: 5, the Girdle
    shield = t.run("ann", Generate("ann"))["card_id"]
    names = {c["id"]: c["name"] for c in t.view("ann")["covenants"]["ann"]["cards"]}
    assert names[shield] == "Mundane Item (Shield): Leather Shield"
    refused(t, "ann", UseMouse("ann", shield, 3), "A-GEN-1")  # up to 2
    refused(t, "bob", UseMouse("bob", shield, 1), "A-ORDER-1")
    girdle = t.run("ann", UseMouse("ann", shield, 2))["card_id"]
    names = {c["id"]: c["name"] for c in t.view("ann")["covenants"]["ann"]["cards"]}
    assert shield not in names and names[girdle] == "Enchanted Item: Girdle of Magical Finesse"
    refused(t, "ann", UseMouse("ann", girdle, -1), "A-GEN-1")  # once a season
    t.run("ann", Discard("ann", girdle))
    assert t.turn()[0] != "ann"


def test_a_evt_3_hedge_curse_1_rolls_the_event_die_twice_too():
    """A-EVT-3 "Every roll is an RNG event, and the Hedge curse #1 applies to it." with [000:751] "1: Every time the
    covenant's player rolls a die, he must roll it twice and use the lesser value."."""
    d = Dice()
    t = cursed(d, 1)
    moves(t, {"ann": 9, "bob": 1, "cy": 2})
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["ann"]
    d.push([8, 1])  # a Dragon Attack, or the Market Fair: the lesser
    result = t.run("ann", DrawEvent("ann"))
    assert result["face"] == 1 and result["event"] == "Market Fair"
