"""The open seats and invitations live in the game's state (issue 28's audit), for every registered ruleset and the
fake one: not beside it on the aggregate, where a snapshot, a fork's copy and the state reads each had to know of
them. A snapshot carries them in its state and loads them back; a snapshot of the earlier shape (them on the
aggregate) is upcast into the state; a rollback carries them over as it does the credentials (a withdrawn
invitation's link does not work again, a seat opened stays open), and the events fold to the same; a fork's copy
carries them as its source had them at the fork."""

from __future__ import annotations

import dataclasses

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import SYSTEM_CALLER, Caller, Games, hash_token
from domain.errors import RuleViolation
from domain.platform.commands import AcceptInvitation, InviteObserver, InviteToSeat, OpenSeat, WithdrawInvitation
from domain.platform.roles import LINKS
from domain.platform.state import SEATING_FIELDS
from tests.contract.drivers import DRIVERS, Played


@pytest.fixture
def games():
    """The service, taking no snapshot of its own: the tests put the snapshots they load."""
    g = Games(snapshot_interval=100_000)
    yield g
    g.close()


def _seated(games: Games, played: Played) -> tuple[str, str, str]:
    """Who may open seats and invite, and two seats that may not (one to open, one to invite to)."""
    game = games.get_game(played.game_id, for_update=False)
    opener = next(p for p in played.viewers if game.may(p, LINKS))
    seats = [v for v in played.viewers if v in game.seats and v != opener and not game.may(v, LINKS)]
    return opener, seats[0], seats[-1]


def _arrange(games: Games, played: Played) -> tuple[str, str]:
    """A listed open seat, an invitation sent, one withdrawn and an observer's: the (open seat, withdrawn id)."""
    opener, open_seat, invited = _seated(games, played)
    gid, by = played.game_id, Caller.of(opener)
    games.run(by, gid, OpenSeat(open_seat, "Seeks a patient player", listed=True, pace="steady", language="de"))
    games.run(by, gid, InviteToSeat("a1b2c3d4", invited, "invited@example.org", language="de"))
    games.run(by, gid, InviteToSeat("0badc0de", invited, "wrong@example.org"))
    games.run(by, gid, WithdrawInvitation("0badc0de"))
    games.run(by, gid, InviteObserver("feedf00d", "watcher@example.org"))
    return open_seat, "0badc0de"


def seating(game) -> dict:
    """The open seats and invitations, as the game's state keeps them."""
    return {name: dataclasses.asdict(game.state)[name] for name in SEATING_FIELDS}


def beside_the_state(aggregate_state: dict) -> list[str]:
    """What of the open seats and invitations a snapshot's aggregate keeps outside its state."""
    return [name for name in SEATING_FIELDS if name in aggregate_state]


def snapshot_state(snap) -> dict:
    """A snapshot's stored state (the aggregate's fields, its version among them), as a dict to rewrite."""
    return dict(snap.state)


def _fresh(games: Games, game_id: str):
    games._evict(games.get_game(game_id, for_update=False))
    return games.get_game(game_id, for_update=False)


def _folded(games: Games, game_id: str):
    game = games.get_game(game_id, for_update=False)
    return games.fold_onto(None, list(games.stored_events(game.id)))


def _snapshotted(games: Games, played: Played):
    game = games.get_game(played.game_id, for_update=False)
    if type(game) not in games.snapshot_intervals:  # the fake declares no state types: never snapshotted
        pytest.skip("this ruleset's games are not snapshotted")
    return game, type(game).Snapshot.take(game)


def test_a_snapshot_keeps_the_open_seats_and_invitations_in_the_state_and_loads_them(games, played):
    _arrange(games, played)
    game, snap = _snapshotted(games, played)
    assert beside_the_state(snapshot_state(snap)) == []
    assert seating(game)["lobby"] and seating(game)["invited"]
    assert games.snapshots is not None
    games.snapshots.put([snap])
    loaded = _fresh(games, played.game_id)
    assert seating(loaded) == seating(game) == seating(_folded(games, played.game_id))
    assert loaded.listed_seats == game.listed_seats and loaded.invitations == game.invitations


def test_a_snapshot_that_kept_them_beside_the_state_is_upcast_into_it(games, played):
    """A snapshot of the aggregate's previous version kept the open seats and invitations on the aggregate."""
    _arrange(games, played)
    game, snap = _snapshotted(games, played)
    old = snapshot_state(snap)
    before = seating(game)
    old["class_version"] = type(game).class_version - 1
    old["state"] = dataclasses.replace(old["state"], lobby={}, lobby_terms={}, invited={})
    old.update(before)  # where the previous version kept them
    assert games.snapshots is not None
    games.snapshots.put([dataclasses.replace(snap, state=old)])
    loaded = _fresh(games, played.game_id)
    assert seating(loaded) == before
    assert beside_the_state(vars(loaded)) == []


def test_a_rollback_carries_the_open_seats_and_invitations_over(games, ruleset, played):
    open_seat, withdrawn = _arrange(games, played)
    game = games.get_game(played.game_id, for_update=False)
    before = seating(game)
    games.rollback(played.game_id, "gm", "the contract rolls back", phase=DRIVERS[ruleset.name].rollback_phase)
    game = games.get_game(played.game_id, for_update=False)
    assert game.open_seats.get(open_seat) == "Seeks a patient player"
    assert seating(game)["invited"] == before["invited"]  # a withdrawn invitation stays withdrawn
    with pytest.raises(RuleViolation) as refused:  # so its link takes no seat
        games.run(SYSTEM_CALLER, played.game_id, AcceptInvitation(withdrawn, hash_token("a link")))
    assert refused.value.field == "invitation"
    assert seating(_folded(games, played.game_id)) == seating(game) == seating(_fresh(games, played.game_id))


def test_a_fork_carries_the_open_seats_and_invitations_its_source_had(games, played):
    _arrange(games, played)
    source = games.get_game(played.game_id, for_update=False)
    fork_id, _ = games.fork(played.game_id, "gm", "a sandbox", version=source.version)
    fork = games.get_game(fork_id, for_update=False)
    assert seating(fork) == seating(source)
    assert seating(_folded(games, fork_id)) == seating(fork)
