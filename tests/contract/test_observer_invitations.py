"""Observers by invitation (issue 28 item 5; P.4), for every registered ruleset and the fake one: only a role holding
``links`` invites an address to observe; accepting (the service, once the link's proof holds) gives a principal of its
own, ``observer:<invitation>``, a sign-in link, once; that observer sees what an observer may (``domain.visibility``:
the public audience only): its events are exactly the public ones, and neither they nor its view carry any seat's
hidden text, the invited address, or a credential; it holds no privilege and acts for no seat; withdrawing the
invitation revokes it (its link stops working) and a withdrawn invitation makes nobody an observer. Bad input is
refused naming its field and records nothing."""

from __future__ import annotations

import json

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import SYSTEM_CALLER, Caller, Games, hash_token
from domain import visibility as vis
from domain.errors import DomainError, Forbidden, RuleViolation, Unauthorized
from domain.platform.commands import (
    AcceptInvitation,
    InviteObserver,
    InviteToSeat,
    ReissueLink,
    SetTimezone,
    WithdrawInvitation,
)
from domain.platform.roles import LINKS
from tests.contract.drivers import DRIVERS, Played

ADDRESS = "watcher@example.org"


def _opener_and_player(games: Games, played: Played) -> tuple[str, str]:
    game = games.get_game(played.game_id, for_update=False)
    opener = next(p for p in played.viewers if game.may(p, LINKS))
    player = next(v for v in played.viewers if v in game.seats and not game.may(v, LINKS))
    return opener, player


def credentials_of(games: Games, game_id: str) -> dict[str, str]:
    """The game's credentials (token hash -> principal): sealed, no view shows them."""
    return dict(games.get_game(game_id, for_update=False).state.credentials)


def _version(games: Games, game_id: str) -> int:
    return games.get_game(game_id, for_update=False).version


def _watching(games: Games, played: Played, invitation: str, token: str) -> str:
    opener, _player = _opener_and_player(games, played)
    games.run(Caller.of(opener), played.game_id, InviteObserver(invitation, ADDRESS, language="de"))
    receipt = games.run(SYSTEM_CALLER, played.game_id, AcceptInvitation(invitation, hash_token(token)))
    return str(receipt.result["principal"])


def test_only_a_role_holding_links_invites_an_observer_and_bad_input_records_nothing(games, played):
    gid = played.game_id
    opener, player = _opener_and_player(games, played)
    before = _version(games, gid)
    with pytest.raises(Forbidden):
        games.run(Caller.of(player), gid, InviteObserver("a1b2c3d4", ADDRESS))
    for bad, field in (
        (InviteObserver("a1b2c3d4", "not an address"), "email"),
        (InviteObserver("a1b2c3d4", ADDRESS, language="not a language"), "language"),
        (InviteObserver("not hex!", ADDRESS), "invitation"),
    ):
        with pytest.raises(DomainError) as refused:
            games.run(Caller.of(opener), gid, bad)
        assert refused.value.field == field, bad
    assert _version(games, gid) == before


def test_p_4_an_invited_observer_sees_the_public_audience_only_and_no_seats_hidden_text(games, played):
    gid = played.game_id
    principal = _watching(games, played, "0b5e4e01", "the-observers-link")
    assert principal == vis.observer("0b5e4e01") and games.authenticate(gid, "the-observers-link") == principal
    public = [e for e in games.stored_events(games.get_game(gid, for_update=False).id) if vis.PUBLIC in e.audience]
    events = games.visible_events(gid, principal, limit=10_000)
    assert [(i["seq"], i["type"]) for i in events] == [(n, type(e).__name__) for n, e in enumerate(public, 1)]
    game = games.get_game(gid, for_update=False)
    hidden = {h for texts in DRIVERS[game.ruleset.name].hidden(played).values() for h in texts if h}
    shown = json.dumps([events, games.view(gid, principal)], default=str)
    leaked = [h for h in [*hidden, *credentials_of(games, gid), ADDRESS] if h in shown]
    assert leaked == []
    assert games.view(gid, principal) == games.view(gid, vis.OBSERVER)  # every observer sees the table alike


def test_an_observer_holds_no_privilege_and_acts_for_no_seat(games, played):
    gid = played.game_id
    _opener, player = _opener_and_player(games, played)
    principal = _watching(games, played, "0b5e4e02", "watching")
    game = games.get_game(gid, for_update=False)
    assert principal not in game.seats and not any(game.may(principal, p) for p in (LINKS, "rule", "windows"))
    before = _version(games, gid)
    for command in (
        InviteToSeat("c0c0c0c0", player, "friend@example.org"),
        InviteObserver("c0c0c0c1", "friend@example.org"),
        WithdrawInvitation("0b5e4e02"),
        ReissueLink(player, hash_token("stolen")),
        SetTimezone(player, "Europe/Berlin"),
    ):
        with pytest.raises(DomainError):
            games.run(Caller.of(principal, hash_token("watching")), gid, command)
    assert _version(games, gid) == before


def test_a_withdrawn_invitation_makes_no_observer_and_withdrawing_revokes_one(games, played):
    gid = played.game_id
    opener, player = _opener_and_player(games, played)
    games.run(Caller.of(opener), gid, InviteObserver("0b5e4e03", ADDRESS))
    games.run(Caller.of(opener), gid, WithdrawInvitation("0b5e4e03"))
    before = _version(games, gid)
    with pytest.raises(RuleViolation):
        games.run(SYSTEM_CALLER, gid, AcceptInvitation("0b5e4e03", hash_token("too-late")))
    assert _version(games, gid) == before
    principal = _watching(games, played, "0b5e4e04", "soon-revoked")
    with pytest.raises(RuleViolation):  # once
        games.run(SYSTEM_CALLER, gid, AcceptInvitation("0b5e4e04", hash_token("a-second-link")))
    with pytest.raises(Forbidden):
        games.run(Caller.of(player), gid, WithdrawInvitation("0b5e4e04"))
    assert games.authenticate(gid, "soon-revoked") == principal
    games.run(Caller.of(opener), gid, WithdrawInvitation("0b5e4e04"))
    with pytest.raises(Unauthorized):
        games.authenticate(gid, "soon-revoked")
    with pytest.raises(RuleViolation):  # revoked once
        games.run(Caller.of(opener), gid, WithdrawInvitation("0b5e4e04"))
    game = games.get_game(gid, for_update=False)
    assert game.invitations["0b5e4e04"]["state"] == "withdrawn" and principal not in credentials_of(games, gid).values()


def test_an_observer_waits_for_its_own_number_in_the_public_record(games, played):
    """``?wait_for=N`` from an observer (a receipt-less reader of the public events) waits on the public record,
    which numbers what it sees; it once waited on a viewer row observers do not have, the whole wait every time."""
    from domain import visibility as vis
    from projections.db import ReadModelDB
    from projections.projector import Projector
    from projections.settings import Settings

    projector = Projector(games, ReadModelDB(Settings(database_url="memory")))
    try:
        while projector.catch_up():
            pass
        key = str(games.get_game(played.game_id, for_update=False).id)
        watcher = vis.observer("inv-1")
        shown = len(projector.timeline(key, watcher, 0, 100_000))
        assert shown > 0
        assert projector.wait_for(key, watcher, shown, timeout=0.05)
        assert not projector.wait_for(key, watcher, shown + 1, timeout=0.05)
    finally:
        projector.db.close()
