"""Snapshots from before every viewer's sequence counted each event once (issue 29's review: the platform's mixin
events, open seats, invitations and previews, counted twice until d962c0c) are upcast to the aggregate's current
version with their sequences marked stale, and counted again from the stored events when loaded: a game loaded
through such a snapshot numbers what each viewer was shown exactly as folding its events does, on every ruleset
and the fake. New snapshots carry the current version and are loaded as they are."""

from __future__ import annotations

import dataclasses

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import Games
from domain.platform import ruleset as registry
from domain.platform.game import RECOUNT_SEEN, PlatformGame
from tests.contract.drivers import DRIVERS


@pytest.fixture
def games():
    g = Games()
    yield g
    g.close()


def folded_seen(games: Games, game_id: str) -> dict[str, int]:
    """The sequences of the game folded from its events alone (no snapshot): the truth."""
    game = games.get_game(game_id, for_update=False)
    return dict(games.fold_onto(None, list(games.stored_events(game.id))).state.seen)


def seen_of(game) -> dict[str, int]:
    """The game's viewers' sequences as its state keeps them (what a snapshot holds)."""
    return dict(game.state.seen)


def snapshot_state(snap) -> dict:
    """A snapshot's stored state (the aggregate's fields, its version among them), as a dict to rewrite."""
    return dict(snap.state)


def load_fresh(games: Games, game_id: str):
    games._evict(games.get_game(game_id, for_update=False))
    return games.get_game(game_id, for_update=False)


@pytest.mark.parametrize("name", sorted(DRIVERS))
def test_an_old_snapshots_inflated_sequences_are_counted_again_from_the_events(games: Games, name: str) -> None:
    if name not in registry.registered():
        pytest.skip(f"{name} is not installed")  # pragma: no cover - `make test` installs every driver's ruleset
    played = DRIVERS[name].play(games)
    game = games.get_game(played.game_id, for_update=False)
    truth = folded_seen(games, played.game_id)
    assert truth, "the play showed its viewers events"
    if type(game) not in games.snapshot_intervals:  # the fake declares no state types: never snapshotted
        assert name == "table" and not registry.registered()[name].state_types
        return
    snap = type(game).Snapshot.take(game)
    old = snapshot_state(snap)
    assert old["class_version"] == type(game).class_version >= 2  # a new snapshot is of the current version
    old.pop("class_version")  # as a snapshot of version 1 was stored: no version
    inflated = {viewer: n + 2 for viewer, n in truth.items()}  # a mixin event counted twice, twice over
    old["state"] = dataclasses.replace(old["state"], seen=inflated)
    assert games.snapshots is not None
    games.snapshots.put([dataclasses.replace(snap, state=old)])
    loaded = load_fresh(games, played.game_id)
    assert loaded.version == game.version
    assert seen_of(loaded) == truth, "the stale sequences were counted again from the stored events"
    assert RECOUNT_SEEN not in loaded.__dict__
    assert seen_of(loaded) == seen_of(game)  # so every viewer's number, which the sequences make


def test_a_current_snapshot_is_loaded_as_it_is(games: Games) -> None:
    """A snapshot of the current version is not recounted: its sequences are taken as they stand (a planted
    difference survives the load, which it would not were every snapshot recounted)."""
    played = DRIVERS["powers"].play(games)
    game = games.get_game(played.game_id, for_update=False)
    snap = type(game).Snapshot.take(game)
    state = snapshot_state(snap)
    planted = {**seen_of(game), "gm": seen_of(game)["gm"] + 7}
    state["state"] = dataclasses.replace(state["state"], seen=planted)
    assert games.snapshots is not None
    games.snapshots.put([dataclasses.replace(snap, state=state)])
    assert seen_of(load_fresh(games, played.game_id))["gm"] == planted["gm"]
    assert issubclass(type(game), PlatformGame) and type(game).class_version >= PlatformGame.class_version
