"""Open seats (issue 28 item 5), for every registered ruleset and the fake one: only a role holding ``links`` (the
GM; where a ruleset says so, its host) opens or closes a seat; a newcomer takes an open seat with a new sign-in
link (every earlier one stops working) and their address as its contact; a seat not open, a seat open already and
a bad address are refused naming the field and record nothing; no viewer's view carries the new link's hash."""

from __future__ import annotations

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import Caller, Games, hash_token
from domain.errors import DomainError, Forbidden, RuleViolation, Unauthorized
from domain.platform.commands import OpenSeat, ReissueLink, TakeSeat
from domain.platform.roles import LINKS
from tests.contract.drivers import Played


def _cast(games: Games, played: Played) -> tuple[str, str, str]:
    """Who may open seats, a seat to open (not the opener's), and a seat that may not open seats."""
    game = games.get_game(played.game_id, for_update=False)
    opener = next(p for p in played.viewers if game.may(p, LINKS))
    seats = [v for v in played.viewers if v in game.seats and v != opener]
    player = next(s for s in seats if not game.may(s, LINKS))
    return opener, seats[-1], player


def _version(games: Games, game_id: str) -> int:
    return games.get_game(game_id, for_update=False).version


def _open(games: Games, game_id: str) -> dict[str, str]:
    return dict(games.get_game(game_id, for_update=False).open_seats)


def test_only_a_role_holding_links_opens_a_seat_and_a_refusal_records_nothing(games, played):
    gid = played.game_id
    opener, seat, player = _cast(games, played)
    before = _version(games, gid)
    with pytest.raises(Forbidden):
        games.run(Caller.of(player), gid, OpenSeat(seat, "mine now"))
    with pytest.raises(DomainError):
        games.run(Caller.of(opener), gid, OpenSeat("nobody-sits-here", ""))
    with pytest.raises(RuleViolation) as long_note:
        games.run(Caller.of(opener), gid, OpenSeat(seat, "x" * 201))
    assert long_note.value.field == "note"
    assert _version(games, gid) == before and _open(games, gid) == {}
    games.run(Caller.of(opener), gid, OpenSeat(seat, "Seeks a player who likes long games"))
    assert _open(games, gid) == {seat: "Seeks a player who likes long games"}
    again = _version(games, gid)
    with pytest.raises(RuleViolation) as twice:
        games.run(Caller.of(opener), gid, OpenSeat(seat, ""))
    assert twice.value.field == "seat" and _version(games, gid) == again
    games.run(Caller.of(opener), gid, OpenSeat(seat, open=False))
    assert _open(games, gid) == {}


def test_a_newcomer_takes_an_open_seat_with_a_new_link_and_their_address(games, played):
    gid = played.game_id
    opener, seat, player = _cast(games, played)
    games.run(Caller.of(opener), gid, ReissueLink(seat, hash_token("the-old-link")))
    before = _version(games, gid)
    with pytest.raises(RuleViolation) as closed:  # not open: nobody takes it
        games.run(Caller.of(seat), gid, TakeSeat(seat, hash_token("a-new-link"), "new@example.org"))
    assert closed.value.field == "seat" and _version(games, gid) == before
    games.run(Caller.of(opener), gid, OpenSeat(seat, ""))
    opened = _version(games, gid)
    with pytest.raises(RuleViolation) as bad:
        games.run(Caller.of(seat), gid, TakeSeat(seat, hash_token("a-new-link"), "not an address"))
    assert bad.value.field == "email" and _version(games, gid) == opened and seat in _open(games, gid)
    new_hash = hash_token("a-new-link")
    games.run(Caller.of(seat), gid, TakeSeat(seat, new_hash, "new@example.org"))
    assert _open(games, gid) == {}
    assert games.authenticate(gid, "a-new-link") == seat
    with pytest.raises(Unauthorized):
        games.authenticate(gid, "the-old-link")
    assert games.contact_of(gid, seat) == ("new@example.org", "immediate")
    for viewer in played.viewers:  # the link's hash is sealed; the address is the seat's own
        shown = str(games.view(gid, viewer))
        assert new_hash not in shown, viewer
        if viewer not in (seat, "gm"):
            assert "new@example.org" not in shown, viewer
    with pytest.raises(RuleViolation):  # taken: no longer open to anyone
        games.run(Caller.of(player), gid, TakeSeat(seat, hash_token("third"), "third@example.org"))


def test_the_feed_words_opening_and_taking_a_seat_by_the_seats_name(games, played):
    """Words, not ids (issue 28 item 3): the public lines name the seat as the table knows it."""
    from domain.platform.feed import platform_line

    opener, seat, _player = _cast(games, played)
    names = {seat: "The Wanderer"}
    for kind in ("SeatOpened", "SeatClosed", "SeatTaken"):
        line = platform_line(kind, {"seat": seat, "actor": opener}, names, "")
        assert line and "The Wanderer" in line and kind not in line, (kind, line)
