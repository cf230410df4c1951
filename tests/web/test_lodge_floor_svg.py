"""The Lodge drawn as a floor plan (issue 28 item 1, ``api/lodge/floorsvg.py``): every Room with its doors, its
Instability cubes and the Models in it, from the viewer's own view; a Mage's plan carries nothing she may not see
(L.4: another Mage's face-down Spells, the Evocation deck's order), checked against the host's view of the same
game."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from api.lodge import floorsvg
from application.service import Caller, new_token
from domain.lodge import ruleset as lr
from domain.lodge.ruleset import AddMage, AdvancePhase, BeginGame, CastSpell, PrepareSpells
from domain.platform.commands import ReissueLink
from tests.web.id_scan import visible_text

FLOOR = re.compile(r'<svg class="board-svg floor-svg".*?</svg>', re.S)
ROOMS_IN_WORDS = re.compile(r"<details><summary>The Rooms in words</summary>.*?</details>", re.S)
ROOM = re.compile(r'<g class="room( rebuild)?">(.*?)</g>', re.S)


@pytest.fixture
def lodge(app, games):
    """Ann (red), Bob (blue) and Cy (green) in the Actions phase of turn 1: Ann cast Unravel and Bob Tremor on the
    Library (its cubes), Ann Firebolt on Bob (his Damage Cubes); each keeps Spells face down."""
    gid, gm_token, _ = games.create_game("Lodge", ruleset="lodge")
    gm = Caller.of("gm")
    games.run_many(
        gm,
        gid,
        [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), AddMage("cy", "Cy", "green"), BeginGame()],
    )
    tokens = {"gm": gm_token}
    for mage in ("ann", "bob", "cy"):
        token, digest = new_token()
        games.run(gm, gid, ReissueLink(mage, digest))
        tokens[mage] = token
    games.run(Caller.of("ann"), gid, PrepareSpells("ann", {"QUICK": "unravel", "I": "firebolt", "III": "oblivion"}))
    games.run(Caller.of("bob"), gid, PrepareSpells("bob", {"QUICK": "tremor", "I": "mend", "III": "restoration"}))
    games.run(Caller.of("cy"), gid, PrepareSpells("cy", {"I": "insight", "II": "siphon"}))
    games.run(gm, gid, AdvancePhase("prepare"))
    games.run(Caller.of("ann"), gid, CastSpell("ann", "QUICK", "library"))
    games.run(Caller.of("bob"), gid, CastSpell("bob", "QUICK", "library"))
    games.run(Caller.of("ann"), gid, CastSpell("ann", "I", "bob"))
    return app, gid, tokens


def _page(app, gid: str, token: str) -> str:
    client = TestClient(app)
    client.get(f"/signin/{gid}/{token}")
    r = client.get(f"/play/{gid}")
    assert r.status_code == 200, r.text
    return r.text


def test_the_plan_draws_every_room_its_cubes_and_the_mages_in_it_by_name(lodge, games):
    app, gid, tokens = lodge
    page = _page(app, gid, tokens["bob"])
    svg = FLOOR.search(page).group(0)
    assert 'role="img"' in svg and 'aria-labelledby="floor-svg-title floor-svg-desc"' in svg
    catalogue = games.get_game(gid, for_update=False).catalogue
    view = games.view(gid, "bob")
    rooms = {re.search(r'class="room-name">([^<]*)<', body).group(1): body for _, body in ROOM.findall(svg)}
    assert sorted(rooms) == sorted(r.name for r in catalogue.rooms)  # every Room, by name
    assert svg.count('class="door') == sum(len(r.adjacent) for r in catalogue.rooms) // 2  # each door drawn once
    library = rooms["Library"]
    cubes = re.findall(r'class="cube (col-\w+|empty)"', library)
    filled = [c for c in view["rooms"]["library"]["slots"] if c]
    assert filled and len(cubes) == len(view["rooms"]["library"]["slots"])
    assert sorted(c for c in cubes if c != "empty") == sorted(
        f"col-{view['mages'][by]['colour']}" for by in filled
    )  # each cube in its owner's colour
    for m, sheet in view["mages"].items():  # each Mage in her Room, ringed on her own plan
        body = rooms[next(r.name for r in catalogue.rooms if r.id == sheet["room"])]
        assert f'class="model-name">{sheet["name"]}</text>' in body
        assert (f'model col-{sheet["colour"]} mine"' in body) == (m == "bob")
    # Bob's two Damage Cubes, Ann's red, beside his name; the description says it in words
    owners = ", ".join(view["mages"][by]["name"] for by in filled)
    assert "Bob (blue), damage 2" in svg and f"instability {len(filled)} of 4: {owners}" in svg
    words = ROOMS_IN_WORDS.search(page).group(0)  # the text equivalent names each cube's owner, never her id
    assert '<span class="cube">Ann</span> <span class="cube">Bob</span>' in words


def test_a_mages_plan_shows_nothing_she_may_not_see_and_is_the_hosts_plan(lodge, games):
    """L.4: the host's view holds every face-down Spell and the deck's size; a Mage's plan and the text beside it
    name no Spell she has not seen, and no Evocation of the deck. The plan drawn from her view is the one drawn from
    the host's (the board is public) but for the ring around her own Model."""
    app, gid, tokens = lodge
    game = games.get_game(gid, for_update=False)
    host = games.view(gid, "gm")
    spells = {c.id: c.name for c in game.catalogue.spells}
    deck = {e.name for e in game.catalogue.evocations}
    for mage in ("ann", "bob", "cy"):
        mine = games.view(gid, mage)
        seen = {s["card"] for m in mine["mages"].values() for s in m["slots"].values() if s["card"]}
        hidden = {
            spells[s["card"]]
            for m in host["mages"].values()
            for s in m["slots"].values()
            if s["card"] and s["card"] not in seen
        }
        assert hidden  # another Mage holds a face-down Spell this one may not see
        page = _page(app, gid, tokens[mage])
        text = visible_text(FLOOR.search(page).group(0) + ROOMS_IN_WORDS.search(page).group(0))
        assert [n for n in hidden | deck if n in text] == [], mage
        ours = floorsvg.plan(mine, game.catalogue, mage, lambda x: x, str)
        theirs = floorsvg.plan(host, game.catalogue, mage, lambda x: x, str)
        assert ours == theirs
    # the check catches a leak: a face-down Spell laid as a token on a Room shows in the plan
    planted = dict(host, persistent_tokens=[{"mage": "ann", "slot": "III", "card": "Oblivion", "target": "hall"}])
    assert "Oblivion" in floorsvg.plan(planted, game.catalogue, "bob", lambda x: x, str)["desc"]


def test_a_room_to_rebuild_is_drawn_so_and_the_plan_follows_the_board(lodge, games):
    """The plan is the board as it stands: after Bob walks to the Library his token is drawn there."""
    app, gid, tokens = lodge
    games.run(Caller.of("bob"), gid, lr.PhysicalAction("bob", "walk", moves=["library"]))
    svg = FLOOR.search(_page(app, gid, tokens["ann"])).group(0)
    library = next(body for _, body in ROOM.findall(svg) if ">Library<" in body)
    assert 'class="model-name">Bob</text>' in library


def test_the_black_roses_cubes_are_drawn_black_and_named_in_words(lodge, games):
    """The Black Rose's Instability cubes: black on the plan, "the Black Rose" in the words beside it, never its id."""
    app, gid, tokens = lodge
    games.run(Caller.of("gm"), gid, AdvancePhase("actions"))
    games.run(Caller.of("gm"), gid, lr.BlackRoseAct("bloom", "crypt"))
    assert "black-rose" in games.view(gid, "gm")["rooms"]["crypt"]["slots"]
    page = _page(app, gid, tokens["ann"])
    svg = FLOOR.search(page).group(0)
    crypt = next(body for _, body in ROOM.findall(svg) if ">Crypt<" in body)
    assert 'class="cube col-black"' in crypt and "the Black Rose" in svg
    text = visible_text(svg + ROOMS_IN_WORDS.search(page).group(0))
    assert "black-rose" not in text and "the Black Rose" in text


def test_a_cell_offer_reads_in_words_with_no_id(app, games):
    """L-PERS-5: Cy, in her Cell, is offered Ann's Thornskin on Bob; her page says so by name (issue 28 item 3:
    before, it listed the offer's record: its id, "token ann:I", "card thornskin", "target bob")."""
    from tests.domain.test_lodge_offers import _thornskin_in_the_black_rose_phase
    from tests.web.id_scan import Names, scan_page

    gid = _thornskin_in_the_black_rose_phase(games)
    (offer,) = games.view(gid, "cy")["offers"]
    page = _page(app, gid, _token(games, gid, "cy"))
    assert offer["card"] == "thornskin" and f'name="offer_id" value="{offer["id"]}"' in page
    assert "Ann's Thornskin on Bob, offered to Cy in her Cell" in visible_text(page)
    catalogue = games.get_game(gid, for_update=False).catalogue
    names = Names(
        seats={"ann": "Ann", "bob": "Bob", "cy": "Cy"},
        rooms={r.id: r.name for r in catalogue.rooms},
        cards={c.id: c.name for c in catalogue.spells},
    )
    assert scan_page(page, "cy", names) == []


def _token(games, gid: str, seat: str) -> str:
    token, digest = new_token()
    games.run(Caller.of("gm"), gid, ReissueLink(seat, digest))
    return token
