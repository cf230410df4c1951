"""The contract every registered ruleset keeps (issue 11, DESIGN "Rulesets on one platform").

Each test runs once per ruleset in the registry (``domain.rulesets`` registers the installed ones, the fake
ruleset of ``tests/plugins/emissary-fake`` among them); a ruleset is driven by its entry in
``tests/contract/drivers.py`` or by the contract module its package declares, and a registered ruleset without a
driver fails here. Replay reproduces state, a refused command records nothing, no viewer's events or
views carry what is hidden from them, a rollback equals the history view of the phase it returns to,
a fork equals its source up to the fork, and every viewer's export verifies.
"""

from __future__ import annotations

import json

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import Games
from domain.errors import DomainError
from domain.platform import ruleset as registry
from tests.contract.conftest import RULESETS
from tests.contract.drivers import DRIVERS, Driver, Played, contract_modules


@pytest.fixture
def driver(ruleset: registry.Ruleset) -> Driver:
    assert ruleset.name in DRIVERS, f"ruleset {ruleset.name!r} is registered but has no driver in drivers.py"
    return DRIVERS[ruleset.name]


@pytest.fixture
def games():
    g = Games(snapshot_interval=7)  # snapshots along the way, so loading goes through them
    yield g
    g.close()


@pytest.fixture
def played(games: Games, driver: Driver) -> Played:
    return driver.play(games)


def test_every_registered_ruleset_has_a_driver():
    plugins = contract_modules()  # rulesets of packages of their own, the fake among them
    assert plugins, "no ruleset package of the tests is installed: `make .venv/.test-plugins` installs tests/plugins/*"
    assert "powers" in RULESETS and set(plugins) <= set(RULESETS) and sorted(set(RULESETS) - set(DRIVERS)) == []


def test_replay_from_the_events_alone_reproduces_the_state(games, ruleset, played):
    loaded = games.get_game(played.game_id, for_update=False)  # through snapshots
    assert type(loaded) is ruleset.aggregate and loaded.ruleset is ruleset
    assert ruleset.fold is not None
    replayed = ruleset.fold(None, list(games.events.get(loaded.id)))
    assert replayed.version == loaded.version
    assert replayed.state == loaded.state


def test_a_refused_command_records_nothing(games, driver, played):
    before = games.recorder.max_notification_id()
    state = games.get_game(played.game_id, for_update=False).state
    with pytest.raises(DomainError) as refused:
        driver.refused(games, played)
    assert refused.value.rule or refused.value.field, "a refusal names its rule or field"
    assert games.recorder.max_notification_id() == before
    assert games.get_game(played.game_id, for_update=False).state == state


def test_no_viewers_events_or_views_carry_what_is_hidden_from_them(games, ruleset, driver, played):
    game = games.get_game(played.game_id, for_update=False)
    credentials = list(game.state.credentials)  # sealed: no viewer, not even the GM, reads a token hash
    assert credentials
    hidden = driver.hidden(played)
    for v in played.viewers:
        shown = [
            games.visible_events(played.game_id, v),
            games.view(played.game_id, v),
            games.view_at(played.game_id, "gm", phase=driver.rollback_phase, as_viewer=v),
        ]
        text = json.dumps(shown, default=str)
        leaked = [h for h in [*hidden[v], *credentials] if h in text]
        assert leaked == [], (v, leaked)
    seen_by_someone = json.dumps([games.visible_events(played.game_id, v) for v in played.viewers], default=str)
    assert all(h in seen_by_someone for v in played.viewers for h in hidden[v]), "each hidden text is seen by someone"


def test_a_rollback_equals_the_history_view_of_the_phase_it_returns_to(games, ruleset, driver, played):
    before = {v: games.view_at(played.game_id, "gm", phase=driver.rollback_phase, as_viewer=v) for v in played.viewers}
    games.rollback(played.game_id, "gm", "the contract rolls back", phase=driver.rollback_phase)
    game = games.get_game(played.game_id, for_update=False)
    for v in played.viewers:
        assert ruleset.view is not None
        assert driver.comparable(ruleset.view(game, v), v) == driver.comparable(before[v], v), v
    assert ruleset.fold is not None  # and the rolled-back game replays to the same state
    assert ruleset.fold(None, list(games.events.get(game.id))).state == game.state


def test_a_fork_equals_its_source_up_to_the_fork(games, driver, played):
    fork_id, _ = games.fork(played.game_id, "gm", "contract fork", phase=driver.fork_phase)
    for phase in driver.earlier_phases:
        for v in played.viewers:
            assert games.view_at(fork_id, "gm", phase=phase, as_viewer=v) == games.view_at(
                played.game_id, "gm", phase=phase, as_viewer=v
            ), (phase, v)


def test_every_viewers_export_verifies(games, ruleset, played):
    from domain.platform.verify import verify_export  # its ruleset's checks, or the platform's alone (the fake's)

    for v in played.viewers:
        report = verify_export(games.visible_events(played.game_id, v))
        assert report.ok and report.ruleset == ruleset.name, (v, report.mismatches)


def test_phases_and_seats_come_only_from_the_kinds_of_event_the_ruleset_marks(games, ruleset, played):
    """The read models decode an event for ``phase_of`` and ``seat_of`` only if its kind is in ``marks``: no
    other event of a played game begins a phase or adds a seat, and the marked kinds do both that the game has."""
    events = list(games.events.get(games.get_game(played.game_id, for_update=False).id))
    answered = {type(e).__name__ for e in events if ruleset.phase_of(e) is not None or ruleset.seat_of(e) is not None}
    assert answered  # the played game began phases or seated someone
    if ruleset.marks is not None:
        assert answered <= ruleset.marks, sorted(answered - ruleset.marks)


def test_every_phase_carries_the_labels_its_ruleset_declares(games, ruleset, played):
    """Issue 26: each ruleset labels its own phases. What ``phase_of`` gives a phase beside its name and step (the
    phase lists show it) is what ``phase_labels`` declares, the labels setup is shown with."""
    events = games.events.get(games.get_game(played.game_id, for_update=False).id)
    began = [phase for e in events if (phase := ruleset.phase_of(e)) is not None]
    assert began
    assert [sorted(set(p) - {"phase", "step"}) for p in began] == [sorted(ruleset.phase_labels)] * len(began)


def test_a_snapshot_is_written_byte_for_byte_as_the_librarys_json_writes_it(games, ruleset, played):
    """Snapshots are encoded by orjson (``projections.gamestore.SnapshotTranscoder``), for speed: for every ruleset's
    state it must write the very bytes the library's ``json`` encoder writes (which the store decodes)."""
    from projections.gamestore import SnapshotTranscoder

    game = games.get_game(played.game_id)
    if not ruleset.state_types:  # a ruleset that declares no state types is never snapshotted (the fake one)
        assert type(game) not in games.snapshot_intervals
        return
    snapshot = getattr(type(game), "Snapshot", type(games).snapshot_class).take(game)
    assert isinstance(games.snapshots.mapper.transcoder, SnapshotTranscoder)
    written = games.snapshots.mapper.to_stored_event(snapshot)
    assert written.state == games.mapper.to_stored_event(snapshot).state
    read = games.snapshots.mapper.to_domain_event(written)
    assert read.originator_id == game.id and read.originator_version == game.version
    assert read.state["state"] == game.state


def test_each_save_that_crosses_an_interval_snapshots_the_game_as_its_events_fold(games, ruleset, driver, played):
    """The store snapshots the game it holds whenever a save crosses a multiple of the interval (7 here), and a
    fork gets a snapshot at each multiple of its copied history: each one is the game as its events fold to there."""
    fork_id, _ = games.fork(played.game_id, "gm", "contract fork", phase=driver.fork_phase)
    for game_id in (played.game_id, fork_id):
        game = games.get_game(game_id, for_update=False)
        snapshots = list(games.snapshots.get(game.id)) if games.snapshots is not None else []
        if not ruleset.state_types:  # never snapshotted (the fake ruleset)
            assert snapshots == []
            continue
        assert game.version >= 7 and snapshots, "the driver plays past the first interval"
        versions = sorted(s.originator_version for s in snapshots)
        assert versions[-1] // 7 == game.version // 7  # the last multiple crossed
        if game_id == played.game_id:
            assert len({v // 7 for v in versions}) == len(versions)  # one for each multiple a save crossed
        else:
            assert set(range(7, game.version, 7)) <= set(versions)
        events = list(games.events.get(game.id))
        for snapshot in snapshots:
            assert snapshot.mutate(None).state == ruleset.fold(None, events[: snapshot.originator_version]).state
