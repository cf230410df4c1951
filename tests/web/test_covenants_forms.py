"""Issue 14: every covenant command has a form on the web table. Each test plays a rule's choice through the
form the page offers the seat (``POST /play/{id}/{form}``, the same ``Games.run`` as the API and mail) with
explicit dice, then reads the state; a form the page does not offer is not posted."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from application.service import Caller, new_token
from domain.covenants.commands import DrawEvent, Generate, Keep, Move, Pass
from domain.platform.commands import ReissueLink
from tests.covenants.play import Dice, fixed_three, pass_create, pass_main, pass_until, reckon, skip_season
from tests.domain.test_conformance_covenants_played import (
    bandits_at_the_end_of_main,
    moves,
    vis_source_under_a_hedge_mage,
    winter_of_year_two_with_tax,
)
from tests.domain.test_covenants_battles_played import boosted_battle, drawn, grogs
from tests.domain.test_covenants_service_played import called_to_service


class Seats:
    """Signed-in browsers, one per seat; ``post`` fills a form the seat's page offers and sends it."""

    def __init__(self, app, t) -> None:
        self.app, self.t, self.clients = app, t, {}

    def client(self, seat: str) -> TestClient:
        if seat not in self.clients:
            token, digest = new_token()
            self.app.state.games.run(Caller.of("gm"), self.t.game_id, ReissueLink(seat, digest))
            client = TestClient(self.app)
            client.get(f"/signin/{self.t.game_id}/{token}")
            self.clients[seat] = client
        return self.clients[seat]

    def page(self, seat: str) -> str:
        return self.client(seat).get(f"/play/{self.t.game_id}").text

    def post(self, seat: str, form: str, data: dict | None = None) -> str:
        page = self.page(seat)
        assert f'action="/play/{self.t.game_id}/{form}"' in page, f"{seat}'s page offers no {form} form"
        csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
        html = (
            self.client(seat)
            .post(f"/play/{self.t.game_id}/{form}", data={**(data or {}), "csrf": csrf}, follow_redirects=True)
            .text
        )
        alert = re.search(r'<p class="error" role="alert">(.*?)</p>', html, re.S)
        assert alert is None, alert.group(1)
        return html


def test_season_of_chaos_and_its_battle_are_played_through_the_forms(app, games):
    """A-EX-7 by the web table: roll, choose the rival, accept the battle, allocate the damage."""
    d = Dice()
    t = drawn(d, 6, games=games)
    w = Seats(app, t)
    assert f'/play/{t.game_id}/chaos"' not in w.page("cy")  # not cy's turn to roll
    d.push([4])
    w.post("bob", "chaos")
    w.post("bob", "rival", {"rival": "ann"})
    assert "Pay bob 4 gold to avert the battle" in w.page("ann")
    w.post("ann", "avert", {"pay": "no"})
    d.push([1], [1])
    w.post("cy", "chaos")
    w.post("ann", "chaos")
    pass_main(t)
    assert t.phase() == "battle" and "allocate the 2 damage" in w.page("bob")
    w.post("bob", "allocate", {f"alloc:{grogs(t, 'bob')['id']}": "2"})
    w.post("ann", "allocate", {f"alloc:{grogs(t, 'ann')['id']}": "2"})
    v = t.view("cy")["covenants"]
    assert v["ann"]["marked"] and v["bob"]["marked"] and grogs(t, "ann")["damage"] == 2


def test_every_seat_confirms_no_counter_through_the_form(app, games):
    """A-EX-5, H-15: the deferred battle offers each seat still to confirm a "No counter" button, in any order."""
    d = Dice()
    t, spell = boosted_battle(d, games=games)
    w = Seats(app, t)
    for seat in ("ann", "cy", "bob"):
        assert spell in w.page(seat)
        w.post(seat, "nocounter")
    assert t.view("cy")["battle"]["dealt"] == {"bob": 2, "ann": 3}


def test_call_to_service_is_answered_through_the_form(app, games):
    """A-RECK-4: Bob sends a Grogs, Cy pays 3 gold, Ann's Courtly Connections roll excuses her."""
    d = Dice()
    t = called_to_service(d, games=games)
    w = Seats(app, t)
    sent = grogs(t, "bob")["id"]
    w.post("bob", "service", {"grogs": sent})
    assert "pay 3 gold" in w.page("cy")
    w.post("cy", "service", {"pay": "yes"})
    d.push([2])
    w.post("ann", "service")
    assert t.view("bob")["service"]["answers"] == {"bob": "grogs", "cy": "paid", "ann": "excused"}


def test_the_tax_is_paid_through_the_form(app, games):
    """A-EVT-4: the page offers the tax it owes; paying it clears the debt."""
    d = Dice()
    t = winter_of_year_two_with_tax(d, {"yearly_consumes": False}, games=games)
    w = Seats(app, t)
    owed = t.view("ann")["covenants"]["ann"]["tax_owed"]
    assert f"Pay the Tax and Tithe ({owed} gold)" in w.page("ann")
    w.post("ann", "tax")
    assert t.view("ann")["covenants"]["ann"]["tax_owed"] == 0


def test_the_hedge_mage_is_answered_through_the_form(app, games):
    """A-EVT-4 [000:748]: the claimed covenant gives up the Vis Source it picks."""
    d = Dice()
    t, source = vis_source_under_a_hedge_mage(d, games=games)
    w = Seats(app, t)
    w.post("ann", "hedge", {"give_up": source})
    assert source not in {c["id"] for c in t.view("ann")["covenants"]["ann"]["cards"]}


def test_the_bandits_are_paid_off_and_fought_through_the_forms(app, games):
    """A-EX-12: two covenants pay 1 gold; Ann fights and allocates the 4 damage capacity first."""
    d = Dice()
    t, grogs_a, grogs_b, _ = bandits_at_the_end_of_main(d, games=games)
    w = Seats(app, t)
    w.post("bob", "bandits")
    w.post("cy", "bandits")
    w.post("ann", "bandits", {"fight": "yes", f"alloc:{grogs_a}": "2", f"alloc:{grogs_b}": "2"})
    cards = {c["id"]: c for c in t.view("gm")["covenants"]["ann"]["cards"]}
    assert cards[grogs_a]["damage"] == 2 and cards[grogs_b]["damage"] == 2


def test_the_mouse_changes_a_roll_through_the_form(app, games):
    """A-GEN-1 step 4: seen the roll, the page offers the Mouse; +2 turns a Leather Shield into the Girdle."""
    d = Dice()
    t = fixed_three(d, games=games)
    moves(t, {"ann": 5, "bob": 1, "cy": 2})
    d.push([5])  # Familiar: Mouse
    t.run("ann", Keep("ann", t.run("ann", Generate("ann"))["card_id"]))
    pass_create(t)
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    moves(t, {"ann": 4, "bob": 1, "cy": 2})
    while t.turn()[0] != "ann":
        t.run(t.turn()[0], Pass(t.turn()[0]))
    d.push([3])
    shield = t.run("ann", Generate("ann"))["card_id"]
    w = Seats(app, t)
    assert f'action="/play/{t.game_id}/mouse"' in w.page("ann")
    w.post("ann", "mouse", {"card_id": shield, "by": "2"})
    assert f'action="/play/{t.game_id}/mouse"' not in w.page("ann")  # once a season (A-AMB-6)
    names = [c["name"] for c in t.view("ann")["covenants"]["ann"]["cards"] if c["pending"]]
    assert names == ["Enchanted Item: Girdle of Magical Finesse"]


def test_a_directed_event_is_held_through_the_form(app, games):
    """A-EVT-1 / H-5: the drawer of a directed event holds it for another season."""
    d = Dice()
    t = fixed_three(d, games=games)
    for _ in range(4):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([13])  # Clique of Thieves (directed)
    t.run("bob", DrawEvent("bob"))
    w = Seats(app, t)
    w.post("bob", "event", {"choice": "hold", "season": "summer"})
    assert t.view("cy")["held_events"] == [{"event": "Clique of Thieves", "seat": "bob", "season": "summer"}]


def test_a_custom_action_is_ruled_on_and_a_trade_offered_and_accepted_through_the_forms(app, games):
    """H-8: Ann takes a custom action and, as host, rules on it; H-10: she offers Bob a trade, which he accepts."""
    d = Dice()
    t = fixed_three(d, games=games)
    moves(t, {"ann": 1, "bob": 2, "cy": 3})
    pass_create(t)
    w = Seats(app, t)
    w.post("ann", "action", {"action": "custom", "text": "we hire a cartographer"})
    assert "Rule on action 0" not in w.page("bob")  # only the host (or the auditor) rules
    w.post("ann", "rule", {"index": "0", "approved": "yes", "note": "for 1 gold"})
    assert t.view("cy")["actions"][0]["ruling"] == {"approved": True, "note": "for 1 gold"}
    pass_until(t, "ann")
    w.post("ann", "offer", {"to": "bob", "give_gold": "3", "get_vis": "2"})
    (trade,) = t.view("bob")["trades"]
    w.post("bob", "trade", {"trade_id": trade["id"], "accept": "yes"})
    v = t.view("cy")["covenants"]
    assert (v["ann"]["gold"], v["ann"]["vis"], v["bob"]["gold"], v["bob"]["vis"]) == (1, 6, 7, 2)


def test_an_army_of_skeletons_is_paid_off_through_the_form(app, games):
    """A-EVT-4 [000:727]: the battle form offers the target to pay the Skeletons 1 vis instead of fighting."""
    from domain.covenants.commands import DecideEvent

    d = Dice()
    t = fixed_three(d, options={"yearly_consumes": False}, games=games)
    for _ in range(4):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([9])
    t.run("bob", DrawEvent("bob"))
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    vis = t.view("ann")["covenants"]["ann"]["vis"]
    pass_main(t)
    w = Seats(app, t)
    assert "Pay the Army of Skeletons off (1 vis)" in w.page("ann")
    w.post("ann", "allocate", {"pay_off": "yes"})
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert t.view("ann")["covenants"]["ann"]["vis"] == vis - 1 and t.phase() == "move"


def test_a_herbalist_heals_through_the_form(app, games):
    """A-DMG-1: the Main Phase offers the healer and the damaged beings of the covenant."""
    from domain.covenants.commands import Cast

    d = Dice()
    t = fixed_three(d, arts={"bob": ["Cr", "Ig", "Au", "Pe", "Vi"]}, games=games)
    moves(t, {"ann": 3, "bob": 1, "cy": 2})
    d.push([14])  # Specialist: Herbalist
    t.run("ann", Keep("ann", t.run("ann", Generate("ann"))["card_id"]))
    pass_create(t)
    t.run("ann", Pass("ann"))
    target = next(c["id"] for c in t.view("ann")["covenants"]["ann"]["cards"] if c["name"] == "Grogs")
    t.run("bob", Cast("bob", t.mage("bob"), "Sphere of Flame", target, 1))
    pass_until(t, "ann")
    w = Seats(app, t)
    herbalist = next(c["id"] for c in t.view("ann")["covenants"]["ann"]["cards"] if "Herbalist" in c["name"])
    w.post("ann", "heal", {"healer": herbalist, "target": target})
    grogs_card = next(c for c in t.view("ann")["covenants"]["ann"]["cards"] if c["id"] == target)
    assert grogs_card["damage"] == 0 and grogs_card["active"]


def test_the_plague_is_answered_through_the_form(app, games):
    """A-EVT-4 [000:671]: the page offers the covenant's Animate Co beings; it ticks as many as the counters."""
    d = Dice()
    t = fixed_three(d, options={"yearly_consumes": False}, games=games)
    for _ in range(4):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([4])  # Plague
    t.run("bob", DrawEvent("bob"))
    pass_main(t)
    t.run("bob", Move("bob", 10))
    reckon(t)
    moves(t, {"ann": 1, "bob": 2, "cy": 3})
    pass_create(t)
    pass_main(t)
    assert t.phase() == "plague" and t.turn()[0] == "bob"
    w = Seats(app, t)
    assert "choose 1 of your Animate Co beings" in w.page("bob")
    target = grogs(t, "bob")["id"]
    w.post("bob", "plague", {"cards[]": target})
    assert grogs(t, "bob")["damage"] == 1


def test_a_marked_covenant_is_unmarked_by_the_tribunal_through_the_form(app, games):
    """The house Gathering of the Tribunal: the page offers a marked covenant to pay 1 vis; an unmarked one has no
    such button."""
    from domain.covenants.commands import Cast
    from tests.domain.test_covenants_events_played import drawn_in

    d = Dice()
    t = drawn_in(d, 16, seasons=5, arts={"ann": ["Cr", "Ig", "Co", "Im", "Vi"]}, games=games)
    pass_until(t, "ann")
    t.run("ann", Cast("ann", t.mage("ann"), "Sphere of Flame", grogs(t, "bob")["id"], 1))
    w = Seats(app, t)
    assert f'/play/{t.game_id}/tribunal"' not in w.page("bob")
    w.post("ann", "tribunal")
    assert not t.view("cy")["covenants"]["ann"]["marked"]
