"""Invitations by address (issue 28 item 5), for every registered ruleset and the fake one: only a role holding
``links`` invites an address to a seat or withdraws an invitation; accepting (sent by the service only, once the
link's proof is checked) gives the seat a new sign-in link (every earlier one stops working) and the invited address
as its contact, once; a withdrawn or used invitation takes nothing; bad input is refused naming its field and records
nothing; the address is seen by the GM and, once accepted, by the seat alone: no other viewer's view or events
carry it."""

from __future__ import annotations

import json

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import SYSTEM_CALLER, Caller, Games, hash_token
from domain.errors import DomainError, Forbidden, RuleViolation, Unauthorized
from domain.platform.commands import AcceptInvitation, InviteToSeat, ReissueLink, WithdrawInvitation
from domain.platform.roles import LINKS
from tests.contract.drivers import Played

ADDRESS = "invited.person@example.org"


def _cast(games: Games, played: Played) -> tuple[str, str, str]:
    """Who may invite, a seat to invite to (not the inviter's), and a seat that may not invite."""
    game = games.get_game(played.game_id, for_update=False)
    opener = next(p for p in played.viewers if game.may(p, LINKS))
    seats = [v for v in played.viewers if v in game.seats and v != opener and not game.may(v, LINKS)]
    return opener, seats[-1], seats[0]


def _version(games: Games, game_id: str) -> int:
    return games.get_game(game_id, for_update=False).version


def test_only_a_role_holding_links_invites_and_bad_input_records_nothing(games, played):
    gid = played.game_id
    opener, seat, player = _cast(games, played)
    before = _version(games, gid)
    with pytest.raises(Forbidden):
        games.run(Caller.of(player), gid, InviteToSeat("a1b2c3d4", seat, ADDRESS))
    for bad, field in (
        (InviteToSeat("a1b2c3d4", seat, "not an address"), "email"),
        (InviteToSeat("a1b2c3d4", seat, ADDRESS, language="not a language"), "language"),
        (InviteToSeat("not hex!", seat, ADDRESS), "invitation"),
        (InviteToSeat("a1b2c3d4", "nobody-sits-here", ADDRESS), None),  # named as the ruleset names its seats
    ):
        with pytest.raises(DomainError) as refused:
            games.run(Caller.of(opener), gid, bad)
        assert refused.value.field == field if field else refused.value.field, bad
    with pytest.raises(Forbidden):  # only the service accepts, once a link's proof holds
        games.run(Caller.of(seat), gid, AcceptInvitation("a1b2c3d4", hash_token("x")))
    assert _version(games, gid) == before


def test_an_accepted_invitation_takes_the_seat_once_with_the_invited_address(games, played):
    gid = played.game_id
    opener, seat, player = _cast(games, played)
    games.run(Caller.of(opener), gid, ReissueLink(seat, hash_token("the-old-link")))
    games.run(Caller.of(opener), gid, InviteToSeat("a1b2c3d4", seat, ADDRESS, language="de"))
    with pytest.raises(RuleViolation) as twice:
        games.run(Caller.of(opener), gid, InviteToSeat("a1b2c3d4", seat, ADDRESS))
    assert twice.value.field == "invitation"
    games.run(SYSTEM_CALLER, gid, AcceptInvitation("a1b2c3d4", hash_token("the-new-link")))
    assert games.authenticate(gid, "the-new-link") == seat
    with pytest.raises(Unauthorized):
        games.authenticate(gid, "the-old-link")
    assert games.contact_of(gid, seat) == (ADDRESS, "immediate")
    used = _version(games, gid)
    with pytest.raises(RuleViolation) as again:  # once
        games.run(SYSTEM_CALLER, gid, AcceptInvitation("a1b2c3d4", hash_token("a-third-link")))
    assert again.value.field == "invitation" and _version(games, gid) == used
    assert games.authenticate(gid, "the-new-link") == seat


def test_a_withdrawn_invitation_takes_nothing(games, played):
    gid = played.game_id
    opener, seat, player = _cast(games, played)
    games.run(Caller.of(opener), gid, InviteToSeat("feedbeef", seat, ADDRESS))
    with pytest.raises(Forbidden):
        games.run(Caller.of(player), gid, WithdrawInvitation("feedbeef"))
    games.run(Caller.of(opener), gid, WithdrawInvitation("feedbeef"))
    before = _version(games, gid)
    with pytest.raises(RuleViolation):
        games.run(SYSTEM_CALLER, gid, AcceptInvitation("feedbeef", hash_token("too-late")))
    assert _version(games, gid) == before and games.contact_of(gid, seat)[0] != ADDRESS


def test_p_4_no_other_viewer_sees_the_invited_address(games, played):
    gid = played.game_id
    opener, seat, player = _cast(games, played)
    games.run(Caller.of(opener), gid, InviteToSeat("0123abcd", seat, ADDRESS))
    games.run(SYSTEM_CALLER, gid, AcceptInvitation("0123abcd", hash_token("the-new-link")))
    for viewer in played.viewers:
        shown = json.dumps(games.view(gid, viewer), default=str) + json.dumps(
            games.visible_events(gid, viewer), default=str
        )
        assert hash_token("the-new-link") not in shown, viewer
        if viewer not in (seat, "gm"):
            assert ADDRESS not in shown, viewer
