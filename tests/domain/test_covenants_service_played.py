"""Call to Service played through the game (A-RECK-4 "Tribute can be "permanent": ... Call to Service → 2"; A-EVT-3
"Call to Service | 1 roll per card with Courtly Connections; any even | no service"): commands through the service
with explicit dice; the views show the Grogs in service, the gold paid and the tribute owed."""

from __future__ import annotations

from domain.covenants.commands import AnswerService, DrawEvent, Move
from tests.covenants.play import Dice, fixed_three, generate_and_keep, pass_create, pass_main, reckon, skip_season
from tests.domain.test_conformance_covenants_played import moves, refused


def card(t, seat: str, name: str) -> dict:
    return next(c for c in t.view("bob")["covenants"][seat]["cards"] if c["name"] == name)


def called_to_service(d: Dice, games=None):
    """Year one: Ann keeps Lady Luisa (Courtly Connections), Cy starves his Grogs; year two, Spring: Bob draws the
    Call to Service, played at once (a Spring global event); its step opens the Main Phase."""
    t = fixed_three(d, options={"yearly_consumes": False}, games=games)  # everyone keeps its gold
    moves(t, {"ann": 3, "bob": 1, "cy": 2})
    generate_and_keep(t, d, {"ann": 8})  # Companion: Luisa, Lady of Aragon
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t, {"cy": [card(t, "cy", "Grogs")["id"]]})
    for _ in range(3):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([20])
    assert t.run("bob", DrawEvent("bob"))["event"] == "Call to Service"
    assert t.phase() == "service" and sorted(t.turn()) == ["ann", "bob", "cy"]
    return t


def answer(t, d: Dice, answers: dict) -> dict:
    out = {}
    while t.phase() == "service":
        seat = t.turn()[0]
        command, faces = answers[seat]
        if faces:
            d.push(faces)
        out[seat] = t.run(seat, command)
    return out


def test_a_reck_4_call_to_service_a_grogs_is_sent_a_covenant_without_pays_and_courtly_connections_excuse():
    """[000:669] "flip one active Grogs card over ... Remove any existing damage. If a covenant has no active Grogs,
    it must pay 3 gold immediately or accept a permanent tribute of 2 points owed to the lord. If the covenant
    possesses one or more cards with the Courtly Connections attribute, roll a 6-sided die per card with that
    attribute; if any roll is even, no service or penalty is required."."""
    d = Dice()
    t = called_to_service(d)
    gold = {seat: c["gold"] for seat, c in t.view("ann")["covenants"].items()}
    bob_grogs = card(t, "bob", "Grogs")["id"]
    assert t.turn() == ["bob", "cy", "ann"]  # from the starting player
    refused(t, "cy", AnswerService("cy"), "A-ORDER-1")
    refused(t, "bob", AnswerService("bob", grogs=card(t, "bob", "Villagers")["id"]), "A-RECK-4")  # a Grogs
    out = answer(
        t,
        d,
        {
            "ann": (AnswerService("ann"), [2]),  # Luisa's roll: even, excused
            "bob": (AnswerService("bob", grogs=bob_grogs), None),
            "cy": (AnswerService("cy", pay=True), None),  # no active Grogs: 3 gold
        },
    )
    assert out["ann"] == {"outcome": "excused", "rolls": [2]}
    assert t.phase() == "main"
    v = t.view("ann")
    assert v["service"]["answers"] == {"ann": "excused", "bob": "grogs", "cy": "paid"}
    sent = card(t, "bob", "Grogs")
    assert not sent["active"] and sent["inactive_until"] == "autumn" and sent["damage"] == 0
    assert card(t, "ann", "Grogs")["active"]
    assert v["covenants"]["cy"]["gold"] == gold["cy"] - 3 and v["covenants"]["cy"]["tribute"] == []
    assert v["covenants"]["ann"]["gold"] == gold["ann"]
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    assert not card(t, "bob", "Grogs")["active"]  # still serving in Summer
    skip_season(t)
    assert t.view("gm")["game"]["season"] == "autumn"
    assert card(t, "bob", "Grogs")["active"]  # "unflip all affected cards in the beginning of Autumn"


def test_a_reck_4_an_odd_courtly_roll_sends_a_grogs_and_a_covenant_that_will_not_pay_owes_permanent_tribute_2():
    """A-RECK-4 with [000:669]: an odd roll for Lady Luisa does not excuse Ann, who sends her Grogs; Cy, with no
    active Grogs, accepts the permanent tribute of 2 rather than pay."""
    d = Dice()
    t = called_to_service(d)
    ann_grogs, bob_grogs = card(t, "ann", "Grogs")["id"], card(t, "bob", "Grogs")["id"]
    out = answer(
        t,
        d,
        {
            "ann": (AnswerService("ann", grogs=ann_grogs), [3]),
            "bob": (AnswerService("bob", grogs=bob_grogs), None),
            "cy": (AnswerService("cy"), None),
        },
    )
    assert out["ann"] == {"outcome": "grogs", "card": ann_grogs}
    v = t.view("bob")["covenants"]
    assert v["cy"]["tribute"] == [{"to": None, "points": 2, "permanent": True}]
    assert not card(t, "ann", "Grogs")["active"]
