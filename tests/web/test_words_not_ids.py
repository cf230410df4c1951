"""Issue 28 item 3, "words, not ids": every page of every ruleset, read as every role, names seats, cards,
rooms and windows in words; no id or command class name reaches the visible text (``tests/web/id_scan.py``).

Each ruleset's scripted demo (``emissary demo``) plays on the test app's own service, then every role signs in
with its own link and the scanner reads each page it may open: the board (each earlier phase, each older feed
page), the live fragment, the audit and webhooks (the GM's), the posts and "My games", each seat's notifications,
the seats and rules-change pages (the GM's), the disputes, the push page, "/me" and the lobby (``EVERY_GAME_PAGE``).
The help pages and the routes' reference are left out: a reference names the commands and options the API takes."""

from __future__ import annotations

import re
from typing import Any

import pytest
from fastapi.testclient import TestClient

from api.covenants import demo as covenant_demo
from api.lodge import demo as lodge_demo
from api.powers import demo as powers_demo
from api.powers import season_demo as season
from application.service import Caller
from domain.powers import armies, world
from domain.powers import commands as pc
from tests.integration.test_battle_api import BLOCK
from tests.web.id_scan import Names, scan_game, scan_page

UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def _play(games, play) -> str:
    said: list[str] = []
    play(said.append, games)
    return UUID.search("\n".join(said)).group(0)


def _clients(app, games, gid: str, seats: list[str]) -> dict[str, TestClient]:
    clients = {}
    for seat in ["gm", *seats]:
        token, _ = games.reissue_link(gid, "gm", seat) if seat != "gm" else (None, None)
        client = TestClient(app)
        if seat == "gm":
            token = _gm_token(games, gid)
        assert client.get(f"/signin/{gid}/{token}").status_code == 200, seat
        clients[seat] = client
    return clients


def _gm_token(games, gid: str) -> str:
    from application.service import Caller, new_token
    from domain.platform.commands import ReissueLink

    token, digest = new_token()
    games.run(Caller.of("gm"), gid, ReissueLink("gm", digest))
    return token


def _covenants(games) -> tuple[str, list[str], Names]:
    gid = _play(games, covenant_demo.play_demo)
    v = games.view(gid, "gm")
    cards = {c["id"]: c["name"] for cov in v["covenants"].values() for c in cov["cards"]}
    cards |= {c["id"]: c["name"] for c in v["discard"]["cards"]}
    seats = {seat: cov["name"] for seat, cov in v["covenants"].items()}
    return gid, list(seats), Names(seats=seats, cards=cards)


def _lodge(games) -> tuple[str, list[str], Names]:
    gid = _play(games, lodge_demo.play_demo)
    v = games.view(gid, "gm")
    seats = {seat: m["name"] for seat, m in v["mages"].items()}
    catalogue = games.get_game(gid, for_update=False).catalogue  # the public card texts, not the state
    rooms = {r.id: r.name for r in catalogue.rooms}
    cards = {c.id: c.name for c in [*catalogue.spells, *catalogue.black_rose]}
    return gid, list(seats), Names(seats=seats, rooms=rooms, cards=cards)


def _powers(games) -> tuple[str, list[str], Names]:
    gid = _play(games, powers_demo.play_demo_month)
    v = games.view(gid, "gm")
    seats = {p["power_id"]: p["name"] for p in v["powers"]}
    gm = Caller.of("gm")  # the season demo's map: towns (one unnamed), features, a claim and influence on hexes
    games.run(gm, gid, world.DeclareMap(hexes=season.HEXES, towns=season.TOWNS, features=season.FEATURES))
    games.run(gm, gid, world.SetClaim("bree", "gondor", "annex"))
    games.run(gm, gid, pc.SetInfluence("rangers-of-the-north", "2,0", 2))
    games.run(gm, gid, armies.PlaceArmy("legion", "Grey Legion", "1,0", 3, "gondor", block=BLOCK))
    return gid, list(seats), Names(seats=seats)


RULESETS: dict[str, Any] = {"covenants": _covenants, "lodge": _lodge, "powers": _powers}


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_no_page_of_any_role_shows_an_id_or_a_class_name(app, games, ruleset):
    gid, seats, names = RULESETS[ruleset](games)
    found, read = scan_game(_clients(app, games, gid, seats), gid, names)
    roles = {r.split()[0] for r in read}
    assert roles == {"gm", *seats}
    assert any("/audit" in r for r in read) and any("/talk" in r for r in read)
    for page in ("/seats", "/rules", "/disputes", "/lobby", "/me"):  # the GM's pages and those beside the game
        assert f"gm /play/{gid}{page}" in read or f"gm {page}" in read, page
    assert all(f"{seat} /play/{gid}/contact" in read for seat in seats)  # each seat's own notifications
    if ruleset == "powers":  # the map, its towns and the army were read, as their names
        gm_board = _clients(app, games, gid, [])["gm"].get(f"/play/{gid}").text
        assert "Grey Legion" in gm_board and "Bree" in gm_board and "column 2, row 0" in gm_board
    assert found == [], "\n".join(found)


def test_the_scanner_flags_each_kind_of_id_and_passes_words():
    """The scanner itself: each kind of id it must find, in text a reader sees, and none in tags or values."""
    names = Names(seats={"bob": "Bob"}, rooms={"hall": "Great Hall"}, cards={"c12": "Mine"})
    bad = {
        "<p>Turn window move:bob:1:1</p>": "window id",
        "<li>w24 opened.</li>": "short window id",
        "<p>Season 1: s1m1-planning</p>": "phase id",
        "<p>You may: CastSpell, Pass</p>": "CamelCase",
        "<p>a vis_source</p>": "snake_case",
        "<p>Room: hall.</p>": "raw room id",
        "<p>Damage: bob.</p>": "raw seat id",
        "<p>Card c12 kept.</p>": "raw card id",
        "<p>Game 90e7bbcf-9119-4855-9ef8-3c190ba1034f</p>": "uuid",
    }
    for page, kind in bad.items():
        found = scan_page(page, "t", names)
        assert any(f": {kind} " in f for f in found), (page, found)
    good = (
        '<p>Room: Great Hall. <a href="/play/g?phase=s1m1-planning">Bob</a> kept Mine at 14:30.</p>'
        '<input type="hidden" name="window" value="move:bob:1:1"><option value="hall">Great Hall</option>'
        "<script>var CastSpell = 1;</script>"
    )
    assert scan_page(good, "t", names) == []


@pytest.mark.parametrize(
    ("ruleset", "german"),
    [("covenants", "Jetzt der Zug von"), ("lodge", "Zauber vorbereiten"), ("powers", "Fertigkeit")],
)
def test_a_german_reader_reads_the_same_pages_in_german_with_no_id(app, games, ruleset, german):
    """The lines and choices worded for issue 28 read in the reader's language (here German), ids still none."""
    gid, seats, names = RULESETS[ruleset](games)
    clients = _clients(app, games, gid, seats)
    for client in clients.values():
        client.get("/language?lang=de&next=/")
    found, read = scan_game(clients, gid, names)
    assert found == [], "\n".join(found)
    board = clients[seats[0]].get(f"/play/{gid}").text
    assert german in board, ruleset
