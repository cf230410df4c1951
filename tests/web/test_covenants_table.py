"""The covenant game's web table (issue 14): the track, every covenant's cards, gold, vis and score, whose
move it is and the viewer's legal moves as forms posting to the same service; a player's page carries no
other covenant's sealed bid and no order of the discard pile (A.4)."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from application.service import Caller, new_token
from domain.covenants.commands import Discard, Generate
from domain.platform.commands import ReissueLink
from tests.covenants.play import Dice, fixed_three, move_all, play_to_a_sealed_bid, seat_three


def _signed_in(app, gid: str, seat: str) -> TestClient:
    token, digest = new_token()
    app.state.games.run(Caller.of("gm"), gid, ReissueLink(seat, digest))
    client = TestClient(app)
    client.get(f"/signin/{gid}/{token}")
    return client


def _csrf(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


def test_the_table_shows_every_covenant_and_offers_the_seat_at_turn_its_legal_moves(app, games):
    t = fixed_three(Dice(), starting_face=2, games=games)  # explicit dice: Bob starts
    first = t.turn()[0]
    assert first == "bob"
    other = t.turn()[-1]  # still not at turn after the first seat moves
    page = _signed_in(app, t.game_id, first).get(f"/play/{t.game_id}").text
    for seat, cov in t.view("gm")["covenants"].items():
        assert cov["covenant"] in page and all(c["name"] in page for c in cov["cards"])  # by name (issue 28)
    assert "Your move." in page and "Score" in page and "Vis" in page
    offered = re.findall(r'<option value="(\d+)">\d+: ', page)
    assert [int(s) for s in offered] == t.view(first)["me"]["legal_moves"]
    waiting = _signed_in(app, t.game_id, other)
    page_other = waiting.get(f"/play/{t.game_id}").text
    assert "Waiting for" in page_other and f'/play/{t.game_id}/move"' not in page_other

    client = _signed_in(app, t.game_id, first)
    html = client.post(
        f"/play/{t.game_id}/move",
        data={"square": offered[0], "csrf": _csrf(client.get(f"/play/{t.game_id}").text)},
        follow_redirects=True,
    ).text
    assert "Moved." in html and t.view("gm")["covenants"][first]["square"] == int(offered[0])
    before = t.games.recorder.max_notification_id()
    html = waiting.post(
        f"/play/{t.game_id}/move", data={"square": "1", "csrf": _csrf(page_other)}, follow_redirects=True
    ).text
    assert 'role="alert"' in html and t.games.recorder.max_notification_id() == before  # not its turn


def test_a_players_page_shows_no_sealed_bid_of_another_nor_the_discard_piles_order(app, games):
    t = play_to_a_sealed_bid(games)
    nonce = t.notes["ann_nonce"]
    ann = _signed_in(app, t.game_id, "ann").get(f"/play/{t.game_id}").text
    assert nonce in ann  # the bidder sees its own sealed bid
    for seat in ("bob", "cy"):
        page = _signed_in(app, t.game_id, seat).get(f"/play/{t.game_id}").text
        assert "Certamen" in page and "sealed bids from: ann" in page
        assert nonce not in page and "your sealed bid" not in page and "the bids (auditor)" not in page


def test_a_players_page_shows_the_discard_piles_size_and_not_its_cards_or_order(app, games):
    d = Dice()
    t = fixed_three(d, games=games)
    move_all(t, [1, 3, 5])
    d.push([7], [15], [5])  # Livestock, Sempiris, a Mouse
    while t.phase() == "create":  # every generated card is discarded, face down ([000:8])
        seat = t.turn()[0]
        t.run(seat, Discard(seat, t.run(seat, Generate(seat))["card_id"]))
    pile = t.view("gm")["discard"]["cards"]
    assert len(pile) == 3
    auditor = _signed_in(app, t.game_id, "gm").get(f"/play/{t.game_id}").text
    order = re.search(r'<ol id="discard-order">(.*?)</ol>', auditor, re.S)  # A.4: the auditor sees all, in order
    assert order is not None and re.findall(r"<li>([^<]*)</li>", order.group(1)) == [d["name"] for d in pile]
    for seat in t.seats:
        page = _signed_in(app, t.game_id, seat).get(f"/play/{t.game_id}").text
        assert f"Discard pile: {len(pile)} cards" in page and 'id="discard-order"' not in page
        # a card id as a token of its own: the game's random UUID or CSRF token on the page may hold "c13"
        assert not any(re.search(rf"(?<![\w-]){d['id']}(?![\w-])", page) for d in pile)
        assert not any(d["name"] in page for d in pile)  # the contents are face down too


def test_a_card_is_generated_and_discarded_and_a_turn_passed_through_the_tables_forms(app, games):
    d = Dice()
    t = fixed_three(d, games=games)
    move_all(t, [1, 3, 5])
    assert t.phase() == "create"
    seat = t.turn()[0]
    client = _signed_in(app, t.game_id, seat)
    page = client.get(f"/play/{t.game_id}").text
    assert f'/play/{t.game_id}/generate"' in page and f'/play/{t.game_id}/pass"' in page
    d.push([7])  # Livestock: the page offers to keep or discard it, and no second roll
    page = client.post(f"/play/{t.game_id}/generate", data={"csrf": _csrf(page)}, follow_redirects=True).text
    (pending,) = [c for c in t.view(seat)["covenants"][seat]["cards"] if c["pending"]]
    assert pending["name"] == "Livestock"
    assert f'name="card_id" value="{pending["id"]}"' in page and f"/play/{t.game_id}/generate" not in page
    page = client.post(
        f"/play/{t.game_id}/discard", data={"card_id": pending["id"], "csrf": _csrf(page)}, follow_redirects=True
    ).text
    assert "Discarded." in page and t.view("gm")["discard"]["count"] == 1
    assert t.turn()[0] != seat
    nxt = t.turn()[0]
    other = _signed_in(app, t.game_id, nxt)
    page = other.post(
        f"/play/{t.game_id}/pass", data={"csrf": _csrf(other.get(f"/play/{t.game_id}").text)}, follow_redirects=True
    ).text
    assert "Passed." in page and t.turn()[0] != nxt


def test_the_status_strip_says_whose_turn_it_is_and_who_comes_next(app, games):
    """Issue 17: the table's strip says "Your move." to the seat at turn only (``waits_on``: a turn's window waits
    on its seat alone) and "Waiting on others." to the rest, with the turn order (public, A.1.2) and the phase in
    words; the live fragment says the same."""
    t = seat_three(games)
    first, other = t.turn()[0], t.turn()[-1]
    words = r'seat-name">([^<]*)</span>: <span class="seat-word">([^<]*)<'

    def strip(seat: str) -> str:
        html = _signed_in(app, t.game_id, seat).get(f"/play/{t.game_id}").text
        return re.search(r'<section class="strip.*?</section>', html, re.S).group(0)

    mine, theirs = strip(first), strip(other)
    assert "Your move." in mine and "Your move." not in theirs and "Waiting on others." in theirs
    assert "Year 1, spring, cycle 1: Move" in mine and "waiting on you" in mine and "waiting on you" not in theirs
    covenant = t.view("gm")["covenants"][first]["covenant"]
    assert (covenant, "at turn") in re.findall(words, theirs) and ("You", "at turn") in re.findall(words, mine)
    live = _signed_in(app, t.game_id, other).get(f"/play/{t.game_id}/live").text
    assert re.findall(words, live) == re.findall(words, theirs)


def test_phases_are_named_in_words_and_the_turn_window_closes_in_the_viewers_zone(app, games):
    """Issue 17 ("phases named in words"; "every time in the viewer's zone and language"): the table's earlier
    phases read as titles, and a turn window's close reads as a date in the viewer's zone, not raw ISO."""
    t = fixed_three(Dice(), starting_face=2, games=games)
    first = t.turn()[0]
    client = _signed_in(app, t.game_id, first)
    page = client.get(f"/play/{t.game_id}").text
    options = re.findall(r'<option value="(y\d-[a-z0-9-]+)"[^>]*>([^<]*)</option>', page)
    assert options and all(label != value for value, label in options), options
    closes = re.findall(r'closes <time datetime="([^"]+)">([^<]+)</time>', page)
    assert closes and all(not re.search(r"\d-\d\dT\d", shown) and shown.endswith("UTC") for _, shown in closes), closes
    past = client.get(f"/play/{t.game_id}", params={"phase": options[0][0]}).text
    assert f"You are looking at <strong>{options[0][1]}</strong>" in past
