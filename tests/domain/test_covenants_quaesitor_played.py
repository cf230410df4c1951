"""The Quaesitor Investigation played through the game (A-AGG-1 [000:100], A-EVT-3 "Quaesitor Investigation | per
uninvestigated mage, once per Main Phase; even | marked. All marked → the investigation ends and the covenant
rejoins next season. A full year passes → unmarked mages are discarded"; [000:767]): commands through the service
with explicit dice; the views show the covenant out of play, its turns skipped and its holdings untouched."""

from __future__ import annotations

from domain.covenants.commands import Cast, DecideEvent, Investigate, Move, OfferTrade, Pass
from tests.covenants.play import Dice, fixed_three, move_all, pass_create, pass_main, pass_until, reckon, skip_season
from tests.domain.test_conformance_covenants_played import refused

LIGHTNING = {"ann": ["Cr", "Au", "Pe", "An", "Vi"]}  # Arc of Lightning


def investigated_ann(d: Dice):
    """Ann is marked in year one (a harmful spell at Cy's mage); in year two's Spring Bob, on the Event square,
    applies the Quaesitor Investigation the marks create to her covenant."""
    t = fixed_three(d, arts=LIGHTNING)
    move_all(t, [1, 2, 3])
    pass_create(t)
    t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", t.mage("cy"), 2))
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    move_all(t, [1, 9, 2])  # ann starts (her spent vis left her the lowest score); bob on the Event square
    pass_create(t)
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    t.run("bob", Pass("bob"))
    assert t.phase() == "main"
    return t


def test_a_evt_3_the_investigated_covenant_is_out_of_play_until_its_mages_roll_even():
    """[000:767] "the entire covenant is removed from the game. No resources are produced, nor are they consumed;
    the covenant's player may not create nor play cards ... nor is there any interaction between this covenant and
    the outside world": Ann has no turn; nobody may reach her; she rolls once per Main Phase; an even roll for her
    one mage ends the Investigation, and she rejoins at the next season."""
    d = Dice()
    t = investigated_ann(d)
    v = t.view("cy")
    assert v["investigation"]["target"] == "ann" and "ann" not in t.turn()
    held = {k: v["covenants"]["ann"][k] for k in ("gold", "vis", "provision")}
    pass_until(t, "bob")
    refused(t, "bob", OfferTrade("bob", "ann", {"gold": 1}, {}), "A-AGG-1")
    refused(t, "ann", Pass("ann"), "A-ORDER-1")  # no turn of hers to pass
    d.push([3])
    assert t.run("ann", Investigate("ann")) == {"rolls": {t.mage("ann"): 3}, "investigated": [], "over": False}
    refused(t, "ann", Investigate("ann"), "A-EVT-3")  # once per Main Phase
    pass_main(t)
    assert t.phase() == "move" and "ann" not in t.turn()  # she does not move either
    t.run("bob", Move("bob", 10))
    assert t.phase() == "reckoning" and "ann" not in t.turn()
    reckon(t)
    v = t.view("cy")
    assert {k: v["covenants"]["ann"][k] for k in ("gold", "vis", "provision")} == held  # nothing made nor paid
    move_all(t, [1, 2])
    pass_create(t)
    d.push([4])
    assert t.run("ann", Investigate("ann"))["over"] is True
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    v = t.view("cy")
    assert v["investigation"] == {} and "Quaesitor Investigation" not in v["events_in_play"]
    assert "ann" in t.turn() and t.phase() == "move"  # she rejoins as the next season begins


def test_a_evt_3_a_year_without_every_mage_marked_finds_the_unmarked_mages_guilty():
    """[000:767] "If, however, the Investigation lasts a full year without all the mages being marked, the unmarked
    mages are discarded (found guilty) along with this card." — and "if Winter Reckoning occurs while this card is in
    play, the state of the covenant (and the player's score) does not change"."""
    d = Dice()
    t = investigated_ann(d)
    mage = t.mage("ann")
    score = t.view("cy")["covenants"]["ann"]["score"]
    for season in range(4):
        d.push([1])
        t.run("ann", Investigate("ann"))
        pass_main(t)
        t.run(t.turn()[0], Move(t.turn()[0], 10))
        reckon(t)
        if season < 3:
            move_all(t, [1, 2])
            pass_create(t)
            while t.phase() == "events":
                t.run(t.turn()[0], Pass(t.turn()[0]))
    v = t.view("cy")
    assert v["game"]["season"] == "spring" and v["game"]["year"] == 3
    assert mage not in {c["id"] for c in v["covenants"]["ann"]["cards"]}  # found guilty
    assert v["covenants"]["ann"]["score"] == score and v["investigation"] == {}


def test_the_quaesitors_dice_are_rolled_by_mail_and_through_the_form(app, games):
    """A-EVT-3 by both channels: ``investigate`` by mail, then the table's button in the next Main Phase."""
    import re

    from fastapi.testclient import TestClient

    from api.mail_intake import MailIntake
    from application.service import Caller, new_token
    from domain.platform.commands import ReissueLink

    d = Dice()
    t = fixed_three(d, arts=LIGHTNING, games=games)
    move_all(t, [1, 2, 3])
    pass_create(t)
    t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", t.mage("cy"), 2))
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    move_all(t, [1, 9, 2])
    pass_create(t)
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    t.run("bob", Pass("bob"))
    token, digest = new_token()
    games.run(Caller.of("gm"), t.game_id, ReissueLink("ann", digest))
    intake = MailIntake(games)
    d.push([1])
    reply = intake.receive(intake.address_for(t.game_id, token), "<q-1@x>", "investigate", subject="turn")
    assert reply.accepted, reply.body
    inv = t.view("cy")["investigation"]
    assert inv["investigated"] == [] and inv["rolled"] == [5, t.view("cy")["game"]["cycle"]]  # odd: not yet
    pass_main(t)
    t.run("bob", Move("bob", 10))
    reckon(t)
    move_all(t, [1, 2])
    pass_create(t)
    client = TestClient(app)
    client.get(f"/signin/{t.game_id}/{token}")
    page = client.get(f"/play/{t.game_id}").text
    assert f'action="/play/{t.game_id}/investigate"' in page
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    d.push([2])
    client.post(f"/play/{t.game_id}/investigate", data={"csrf": csrf}, follow_redirects=True)
    assert t.view("cy")["investigation"]["investigated"] == [t.mage("ann")]
