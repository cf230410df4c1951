"""Issue 28 item 1 for observers (P.4, A.4, L.4): an invited observer's page shows the ruleset's board drawn (the
Powers map, the covenant track and cards, the Lodge's floor plan) with its text equivalent, from the view every
observer shares, the public audience's. The drawing and its words carry nothing private: no seat's private action,
no influence, no hidden army or feature, no unit's wounds (Powers, P.4 and [003:326]); no sealed Certamen bid
(A-AMB-7); no Mage's face-down Spell (L.4). The id scan (``tests/web/id_scan.py``) reads the observer's page of
each demo game, its board drawn, and finds no id."""

from __future__ import annotations

import re
import secrets
import uuid

import pytest
from fastapi.testclient import TestClient

from api.powers import season_demo as season
from application.service import SYSTEM_CALLER, Caller, Games, hash_token
from domain.platform.commands import AcceptInvitation, InviteObserver
from domain.powers import armies, world
from domain.powers import commands as pc
from tests.contract.drivers import DRIVERS
from tests.integration.test_battle_api import BLOCK
from tests.web.id_scan import scan_page
from tests.web.test_lobby import hidden_texts
from tests.web.test_words_not_ids import RULESETS

BOARD = {  # the drawn board of each ruleset on the observer's page, and the heading of its words
    "powers": ("svg.hexmap", "The map, hex by hex"),
    "covenants": ("svg.track-svg", "The track in words"),
    "lodge": ("svg.floor-svg", "The Rooms in words"),
}
SVG_CLASS = {"powers": 'class="hexmap"', "covenants": "track-svg", "lodge": "floor-svg"}


def observer_token(games: Games, game_id: str, inviter: str = "gm") -> str:
    """An observer of the game, invited by ``inviter`` and accepted as the invitation's link does: its sign-in token."""
    invitation = uuid.uuid4().hex
    games.run(Caller.of(inviter), game_id, InviteObserver(invitation, "watcher@example.org"))
    token = secrets.token_urlsafe(32)
    games.run(SYSTEM_CALLER, game_id, AcceptInvitation(invitation, hash_token(token)))
    return token


def observer_client(app, games: Games, game_id: str, inviter: str = "gm") -> TestClient:
    client = TestClient(app)
    assert client.get(f"/signin/{game_id}/{observer_token(games, game_id, inviter)}").status_code == 200
    return client


def drawn(page: str, ruleset: str) -> str:
    """The board drawn on a page: its SVG(s) and its text equivalent, the part of the page between its first SVG
    and the observer's list of seats."""
    start = page.index(SVG_CLASS[ruleset])
    return page[page.rfind("<section", 0, start) : page.index('id="table-h"')]


def powers_secrets(games: Games) -> tuple[str, set[str]]:
    """The demo month with its map (P.4): a hidden army, a visible army whose units' wounds are its controller's,
    a private action's title, a power's influence (2 in Tharbad's hex, the Rangers'), the hidden Barrow-downs."""
    gid, _seats, _names = RULESETS["powers"](games)
    gm = Caller.of("gm")
    games.run(gm, gid, armies.PlaceArmy("shadow", "SHADOW-HOST", "4,0", 2, "gandalf", block=BLOCK, hidden=True))
    games.send(gid, "rangers-of-the-north", pc.SubmitAction("rangers-of-the-north", title="PRIVATE-WATCH-GREENWAY"))
    return gid, {"SHADOW-HOST", "PRIVATE-WATCH-GREENWAY", "Barrow-downs", "wounds by unit", "influence"}


@pytest.mark.parametrize("ruleset", list(RULESETS))
def test_an_observer_sees_the_board_drawn_with_its_words_and_no_id(app, games, ruleset):
    """Issue 28 items 1 and 3: the drawn board and its text equivalent on the observer's page, and no id on it."""
    gid, _seats, names = RULESETS[ruleset](games)
    client = observer_client(app, games, gid)
    page = client.get(f"/play/{gid}").text
    assert "You are observing" in page
    assert SVG_CLASS[ruleset] in page and BOARD[ruleset][1] in page, ruleset
    assert 'role="img"' in page or 'role="group"' in page
    assert scan_page(page, f"observer /play/{gid}", names) == []
    if ruleset == "powers":  # a hex chosen on the map: its panel, in words
        chosen = client.get(f"/play/{gid}?hex=2%2C0").text
        assert "Chosen hex: column 2, row 0" in chosen
        assert scan_page(chosen, f"observer /play/{gid}?hex=2,0", names) == []


def test_the_observers_map_shows_what_the_table_sees_and_nothing_private(app, games):
    """P.4: the observer's map draws the public armies (a visible army by its public card, no wounds), the towns, the
    public features and claims; not the hidden army, the hidden Barrow-downs, any influence or a private action."""
    gid, private = powers_secrets(games)
    client = observer_client(app, games, gid)
    page = client.get(f"/play/{gid}").text
    board = drawn(page, "powers")
    assert "Grey Legion" in board and "Bree" in board  # the visible army and a town are drawn and listed
    assert 'data-hex="2,0"' in board
    assert [p for p in private if p in page] == []
    chosen = client.get(f"/play/{gid}?hex=1%2C0").text  # a chosen hex says what the table knows, and offers no form
    assert "Chosen hex: column 1, row 0" in chosen and "Grey Legion" in chosen
    assert (
        "Move Grey Legion" not in chosen
        and "Compose an action" not in chosen
        and "<form" not in drawn(chosen, "powers")
    )
    assert [p for p in private if p in chosen] == []
    # the same game's Rangers see their own influence and private action on their own board: the secrets are real
    rangers = TestClient(app)
    rangers.get(f"/signin/{gid}/{games.reissue_link(gid, 'gm', 'rangers-of-the-north')[0]}")
    own = rangers.get(f"/play/{gid}?show=all").text
    assert "PRIVATE-WATCH-GREENWAY" in own and "your influence 2" in own
    gm = str(games.view(gid, "gm")["map"]) + str(games.view(gid, "gm")["armies"])
    assert "Barrow-downs" in gm and "SHADOW-HOST" in gm and "'units'" in gm


def private_to_the_board(games: Games, ruleset: str, game_id: str) -> set[str]:
    """What the board itself could draw that the table may not see: Powers' influence (the rich month's is on hexes
    "hex-7" and "hex-9", P.4), the covenant game's discard pile, face down ([000:8]: its cards by name, the
    auditor's alone, but for a name also on a card in play)."""
    if ruleset == "powers":
        return {"hex-7", "hex-9"}
    if ruleset == "covenants":
        gm = games.view(game_id, "gm")
        shown = {c["name"] for cov in gm["covenants"].values() for c in cov["cards"]}
        return {d["name"] for d in gm["discard"]["cards"]} - shown
    return set()


@pytest.mark.parametrize("ruleset", ["powers", "covenants", "lodge"])
def test_the_observers_board_carries_nothing_any_seat_may_not_see(app, games, ruleset):
    """P.4, A.4, L.4: on the contract's played games (Powers' private actions, a Secret and a seeking result; the
    covenant game's sealed Certamen bid, A-AMB-7; each Mage's face-down Spell in slot III and Cy's face-down
    Plunder, L.4), the observer's page, its board drawn included, carries no text some seat may not see."""
    played = DRIVERS[ruleset].play(games)
    gid = played.game_id
    if ruleset == "powers":  # the rich month has no map: the season demo's, so that the map is drawn
        games.run(
            Caller.of("gm"), gid, world.DeclareMap(hexes=season.HEXES, towns=season.TOWNS, features=season.FEATURES)
        )
    page = observer_client(app, games, gid).get(f"/play/{gid}").text
    assert SVG_CLASS[ruleset] in page
    hidden = hidden_texts(ruleset, played)
    assert hidden and [h for h in hidden if re.search(rf"\b{re.escape(h)}\b", page, re.IGNORECASE)] == []
    # what the board could draw from a fuller view, looked for in the drawing and its words (a discarded card's name
    # may be in the feed: it was in play for all to see; the pile's contents and order are the auditor's)
    board = drawn(page, ruleset)
    private = private_to_the_board(games, ruleset, gid)
    assert [h for h in private if re.search(rf"\b{re.escape(h)}\b", board)] == []
    assert 'id="discard-order"' not in page
