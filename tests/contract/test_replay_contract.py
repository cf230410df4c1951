"""Rules changes replayed (issue 29 item 3), for every registered ruleset and the fake one: each declares how a
version re-decides its recorded results (``Ruleset.redecide``); replaying a game's history under the version it is
pinned at shows no difference and records nothing; adopting a version whose rules
decide alike changes no viewer's view, pins the game at it, loads alike from the store (through snapshots too), and
tells each seat nothing changes for it. Players may not replay."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from datetime import datetime, timezone

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application import replay as replays
from application.service import Caller, Games
from domain.errors import Forbidden
from domain.platform import ruleset as registry

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def games():
    g = Games(clock=lambda: NOW, snapshot_interval=7)  # snapshots among the events replayed and after an adoption
    yield g
    g.close()


@contextlib.contextmanager
def alike(ruleset: registry.Ruleset) -> Iterator[registry.Ruleset]:
    """A version of the ruleset whose rules decide as the pinned one's, installed beside it for the while."""
    same = registry.register_version(dataclasses.replace(ruleset, version=f"{ruleset.version}-alike"))
    try:
        yield same
    finally:
        registry.unregister_version(ruleset.name, same.version)


def _plain(view: object, version: str) -> object:
    """A view as it compares across an adoption: the version it names and the viewer's sequence (which the lines
    telling it of the adoption move) set aside."""
    if isinstance(view, dict):
        return {k: _plain(v, version) for k, v in view.items() if k != "sequence"}
    if isinstance(view, list):
        return [_plain(v, version) for v in view]
    return view.removesuffix("-alike") if isinstance(view, str) and view.endswith("-alike") else view


def refolded_alike(games: Games, game_id: str) -> bool:
    """Whether the game folded from all its events, no snapshot, is the game the store loads."""
    now = games.get_game(game_id)
    again = games.fold_onto(None, list(games.iter_events(game_id)))
    return bool(again.state == now.state and again.version == now.version)


def stored(games: Games, game_id: str) -> list[str]:
    return [type(e).__name__ for e in games.iter_events(game_id)]


def pinned(games: Games, game_id: str) -> str:
    return games.read(game_id, lambda g: g.ruleset.version)


def test_every_ruleset_declares_how_a_version_re_decides_its_recorded_results(ruleset):
    """A rules change replayed re-decides each recorded result under the other version (``Ruleset.redecide``): a
    ruleset that declares none would fold its events unchanged and show no difference whatever the rules."""
    assert callable(ruleset.redecide), ruleset.name


def test_replaying_under_the_pinned_version_shows_no_difference(games, ruleset, played):
    """The pinned version re-decides every recorded result as it was recorded."""
    assert callable(ruleset.redecide), ruleset.name
    before = stored(games, played.game_id)
    out = replays.replay(games, Caller.of("gm"), played.game_id, pinned(games, played.game_id))
    assert out["differences"] == [] and out["final"] == [], ruleset.name
    assert stored(games, played.game_id) == before


def test_adopting_a_version_that_decides_alike_changes_no_view_and_loads_alike(games, ruleset, played):
    views = {v: _plain(games.view(played.game_id, v), ruleset.version) for v in played.viewers}
    with alike(ruleset) as same:
        out = replays.adopt(games, Caller.of("gm"), played.game_id, same.version, "setup")
        assert out["result"]["differences"] == 0 and pinned(games, played.game_id) == same.version
        for viewer in played.viewers:
            assert _plain(games.view(played.game_id, viewer), same.version) == views[viewer], (ruleset.name, viewer)
        assert refolded_alike(games, played.game_id), ruleset.name  # every event, no snapshot: the same state
        games._evict(games.get_game(played.game_id))
        assert pinned(games, played.game_id) == same.version  # folded again from the store (its snapshots)
        for viewer in played.viewers:
            assert _plain(games.view(played.game_id, viewer), same.version) == views[viewer], (ruleset.name, viewer)
            told = [
                e["data"]["changes"]
                for e in games.visible_events(played.game_id, viewer, limit=100_000)
                if e["type"] == "RulesChangeTold"
            ]
            assert told and all(t == [] for t in told), (ruleset.name, viewer)


def test_players_may_not_replay_and_record_nothing(games, ruleset, played):
    game = games.get_game(played.game_id, for_update=False)
    for viewer in played.viewers[1:]:
        if game.may(viewer, "windows"):
            continue  # a host replays
        before = stored(games, played.game_id)
        with pytest.raises(Forbidden, match="may replay or adopt a rules change"):
            replays.replay(games, Caller.of(viewer), played.game_id, game.ruleset.version)
        assert stored(games, played.game_id) == before


def test_a_host_who_plays_is_told_no_game_version(games, ruleset, played):
    """Where a host replays (the covenant game, the Lodge's host), its answer names no version of the game's history
    (``from_version``, ``upto``), which would count the events it was not shown; the GM's does."""
    game = games.get_game(played.game_id, for_update=False)
    gm = replays.replay(games, Caller.of("gm"), played.game_id, pinned(games, played.game_id))
    assert {"from_version", "upto"} <= set(gm)
    hosts = [v for v in played.viewers if v != "gm" and game.may(v, "windows")]
    for host in hosts:
        out = replays.replay(games, Caller.of(host), played.game_id, pinned(games, played.game_id))
        assert not {"from_version", "upto"} & set(out), (ruleset.name, host)
        assert out["pinned"] == gm["pinned"] and out["differences"] == []
