"""The covenant table drawn (issue 28 item 1, ``api/covenants/tracksvg.py``): the track with each covenant's token on
its square and the squares the seat at turn may move to; each covenant's cards drawn as cards, titled in words; and
nothing drawn that the viewer may not see (A.4: the discard pile's contents and order, sealed Certamen bids),
checked against the auditor's view of the same game."""

from __future__ import annotations

import html as htmllib
import re

from fastapi.testclient import TestClient

from api.covenants import tracksvg
from application.service import Caller, new_token
from domain.covenants.commands import Discard, Generate, Keep
from domain.platform.commands import ReissueLink
from tests.covenants.play import Dice, fixed_three, move_all, play_to_a_sealed_bid
from tests.web.id_scan import visible_text

TRACK_SVG = re.compile(r'<svg class="board-svg track-svg".*?</svg>', re.S)
HANDS = re.compile(r'<section aria-labelledby="covenants".*?</section>', re.S)
SQUARE = re.compile(r'<g class="sq( legal)?">(.*?)</g>', re.S)


def _page(app, games, gid: str, seat: str) -> str:
    token, digest = new_token()
    games.run(Caller.of("gm"), gid, ReissueLink(seat, digest))
    client = TestClient(app)
    client.get(f"/signin/{gid}/{token}")
    r = client.get(f"/play/{gid}")
    assert r.status_code == 200, r.text
    return r.text


def drawn(page: str) -> str:
    """What the page draws: the track's SVG, the cards' SVGs and the text beside them (the covenants' section)."""
    return TRACK_SVG.search(page).group(0) + HANDS.search(page).group(0)


def test_the_track_draws_each_token_on_its_square_and_marks_the_squares_the_seat_at_turn_may_move_to(app, games):
    t = fixed_three(Dice(), starting_face=2, games=games)
    first, other = t.turn()[0], t.turn()[-1]
    move_all_but_one = t.view("gm")["covenants"]
    page = _page(app, games, t.game_id, first)
    svg = TRACK_SVG.search(page).group(0)
    assert 'role="img"' in svg and "<title" in svg and "<desc" in svg
    squares = SQUARE.findall(svg)
    assert len(squares) == 11
    for seat, cov in move_all_but_one.items():  # each token on its square, labelled by its covenant
        label = tracksvg.token_label(cov["covenant"])
        on = [n for n, (_, body) in enumerate(squares) if f">{label}</text>" in body]
        assert on == [cov["square"]], (seat, on)
        assert f"{cov['covenant']} ({cov['name']}) is on square {cov['square']}" in svg  # the description, in words
    legal = [n for n, (mark, _) in enumerate(squares) if mark]
    assert legal == t.view(first)["me"]["legal_moves"] and legal
    assert svg.count('class="sq-legal"') == len(legal) and "You may move to:" in svg
    theirs = TRACK_SVG.search(_page(app, games, t.game_id, other)).group(0)
    assert 'class="sq legal"' not in theirs and "You may move to" not in theirs  # not at turn: nothing to aim


def test_each_covenants_cards_are_drawn_as_cards_titled_in_words_the_kept_card_with_its_kind(app, games):
    d = Dice()
    t = fixed_three(d, games=games)
    move_all(t, [1, 3, 5])
    seat = t.turn()[0]
    d.push([7])  # Livestock, generated and kept
    card = t.run(seat, Generate(seat))["card_id"]
    page = _page(app, games, t.game_id, seat)
    pending = re.findall(r'<svg class="card-svg"[^>]*role="img"><title>([^<]*)</title>', page)
    assert any(title.startswith("Livestock (livestock, just generated") for title in pending), pending
    assert 'class="card-face pending"' in page
    t.run(seat, Keep(seat, card))
    page = _page(app, games, t.game_id, seat)
    hands = HANDS.search(page).group(0)
    for cov in t.view("gm")["covenants"].values():
        assert hands.count('<svg class="card-svg"') >= len(cov["cards"])
        for c in cov["cards"]:
            assert f"<title>{htmllib.escape(c['name'], quote=False)} (" in hands, c
    assert "Livestock (livestock)" in hands and 'class="card-face pending"' not in hands
    mage = t.mage(seat)
    arts = " ".join(t.view("gm")["covenants"][seat]["cards"][0]["arts"])
    assert arts and f"arts {arts}" in hands and mage  # the starting mage's Arts are on its card
    mine = re.search(r"<h3>(.*?)</h3>", hands, re.S).group(1)
    assert "yours" in mine  # the viewer's own covenant comes first


def test_no_players_drawing_shows_the_discard_piles_cards_nor_another_seats_sealed_bid(app, games):
    """A.4: the auditor's view holds the discard pile's cards and every sealed bid; no player's drawing (the SVGs and
    the text beside them) names a discarded card or a bid, and the drawing from a player's view is the drawing from
    the auditor's view (everything drawn is public)."""
    d = Dice()
    t = fixed_three(d, games=games)
    move_all(t, [1, 3, 5])
    d.push([7], [15], [5])
    while t.phase() == "create":  # every generated card discarded, face down ([000:8])
        seat = t.turn()[0]
        t.run(seat, Discard(seat, t.run(seat, Generate(seat))["card_id"]))
    auditor = t.view("gm")
    pile = auditor["discard"]["cards"]
    assert len(pile) == 3
    hidden = {c["name"] for c in pile} | {c["id"] for c in pile}
    for seat in t.seats:
        text = visible_text(drawn(_page(app, games, t.game_id, seat)))
        assert leaks(text, hidden) == [], seat
        assert "Discard pile: 3 cards, face down." in text
        mine = t.view(seat)
        assert _neutral(tracksvg.hands(mine, "", str)) == _neutral(tracksvg.hands(auditor, "", str))
        assert tracksvg.track(mine, "", str) == tracksvg.track(auditor, "", str)
    # the check catches a leak: a discarded card drawn in a hand is found
    planted = dict(auditor, covenants={**auditor["covenants"]})
    seat = next(iter(planted["covenants"]))
    leaked = dict(auditor["covenants"][seat]["cards"][0], id=pile[0]["id"], name=pile[0]["name"], arts=[])
    planted["covenants"][seat] = dict(planted["covenants"][seat], cards=[leaked])
    assert leaks(" ".join(c["title"] for h in tracksvg.hands(planted, "", str) for c in h["cards"]), hidden)


def test_no_players_drawing_shows_a_sealed_bid(app, games):
    """A-AMB-7: Ann's sealed bid is in her view and the auditor's, in no other player's drawing."""
    s = play_to_a_sealed_bid(games)
    bid = s.notes["ann_nonce"]
    for seat in ("bob", "cy"):
        assert bid not in drawn(_page(app, games, s.game_id, seat))


def leaks(text: str, hidden: set[str]) -> list[str]:
    """Each hidden name or id that ``text`` shows as a word of its own."""
    return sorted(h for h in hidden if re.search(rf"(?<![\w-]){re.escape(h)}(?![\w-])", text))


def _neutral(hands: list[dict]) -> list[dict]:
    return sorted(hands, key=lambda h: h["seat"])
