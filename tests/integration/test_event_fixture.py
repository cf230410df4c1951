"""Games recorded in November 2026 keep loading: tests/fixtures/events_2026_11/ (DESIGN "Event evolution").

The fixture holds the stored records (topic, version, state bytes) of three games and of their
snapshots as the code of that time wrote them (tests/fixtures/make_events_fixture.py, run once), and
the facts that code read from them. Each game is loaded into a fresh store (SQLite and PostgreSQL),
replayed from its events alone and from its snapshots, and both must agree with each other and with
those facts: step, powers, action outcomes, what carried over each rollback, each viewer's count.
"""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path

import pytest
from eventsourcing.persistence import StoredEvent

from api.compose import build_games
from domain.ids import GM
from domain.powers import commands as pc
from tests.domain.helpers import sheet_of
from tests.fixtures.make_events_fixture import facts

FIXTURE = Path(__file__).parents[1] / "fixtures" / "events_2026_11" / "games.json"
RECORDED = json.loads(FIXTURE.read_text())["games"]
BY_NAME = {g["name"]: g for g in RECORDED}


def _stored(records: list[dict]) -> list[StoredEvent]:
    return [
        StoredEvent(
            originator_id=uuid.UUID(r["originator_id"]),
            originator_version=r["originator_version"],
            topic=r["topic"],
            state=r["state"].encode("utf-8"),
        )
        for r in records
    ]


# Keys of the state renamed since, each read under its new name (upcast as a snapshot is read, and written so by
# today's events): where (a pattern of the path), the old key -> the new key. An extension request named its seat by
# Powers' word (domain.platform.state._upcast_requests).
RENAMED = {(re.compile(r"state\.windows\.[^.]+\.requests\.[^.]+"), "power"): "seat"}


def _now_named(where: str, key: str) -> str:
    return next((new for (at, old), new in RENAMED.items() if old == key and at.fullmatch(where)), key)


def contains(recorded, now, where: str = "state") -> None:
    """Every value recorded then is read the same now (fields added since, with defaults, may be extra; a key renamed
    since, under its new name)."""
    if isinstance(recorded, dict):
        assert isinstance(now, dict), where
        for k, v in recorded.items():
            k_now = _now_named(where, k)
            assert k_now in now, f"{where}.{k} is gone"
            contains(v, now[k_now], f"{where}.{k}")
    elif isinstance(recorded, list):
        assert isinstance(now, list) and len(now) == len(recorded), where
        for i, (a, b) in enumerate(zip(recorded, now)):
            contains(a, b, f"{where}[{i}]")
    else:
        assert recorded == now, f"{where}: recorded {recorded!r}, read now {now!r}"


def same_facts(expected: dict, actual: dict) -> None:
    for key, value in expected.items():
        if key == "state":
            contains(value, actual["state"])
        else:
            assert actual[key] == value, key


@pytest.fixture
def loaded(store_settings):
    games = build_games(store_settings)
    for g in RECORDED:
        games.recorder.insert_events(_stored(g["events"]))
        games.snapshots.recorder.insert_events(_stored(g["snapshots"]))
    yield games
    games.close()


def _events_only(games):
    """A repository over the same store that ignores the snapshots."""
    return type(games.repository)(games.events)


@pytest.mark.parametrize("name", sorted(BY_NAME))
def test_a_game_recorded_in_november_2026_replays_from_its_events_and_from_its_snapshots(loaded, name):
    recorded = BY_NAME[name]
    gid = recorded["game_id"]
    key = uuid.UUID(gid)
    plain = _events_only(loaded)
    from_events = plain.get(key)
    from_snapshot = loaded.repository.get(key)
    assert from_events.state == from_snapshot.state and from_events.version == from_snapshot.version
    same_facts(recorded["expected"], facts(loaded, gid))
    for version, expected in recorded["expected_at_snapshots"].items():
        at = int(version)
        assert plain.get(key, version=at).state == loaded.repository.get(key, version=at).state, at
        same_facts(expected, facts(loaded, gid, at))
    for viewer, count in recorded["expected"]["visible"].items():
        assert from_events.state.sequence_for(viewer) == count, viewer


def test_the_fixture_covers_what_it_promises():
    """Rollbacks (one whose target lies after another), a fork, old mail turns, extensions, reactions,
    sealed difficulties, and snapshots taken mid-game."""

    def kinds(g):
        return [r["topic"].rsplit(".", 1)[-1] for r in g["events"]]

    everything = [k for g in RECORDED for k in kinds(g)]
    for kind in (
        "StateRestored",
        "GameForked",
        "MailTurnRecorded",
        "ExtensionGranted",
        "ExtensionRefused",
        "ReactionDeclared",
        "DifficultyCommitted",
        "DifficultyRevealed",
        "ActionResolved",
    ):
        assert kind in everything, kind
    assert kinds(BY_NAME["rollback"]).count("StateRestored") == 2
    assert all(g["snapshots"] and g["snapshots"][0]["originator_version"] < len(g["events"]) for g in RECORDED)


def test_a_recorded_game_goes_on_and_rolls_back_again(loaded):
    """New events on top of the recorded ones: a rollback in the recorded rollback game replays the
    same from its events, from its snapshots and from the service's cache."""
    recorded = BY_NAME["rollback"]
    gid = recorded["game_id"]
    p = recorded["powers"]
    loaded.grant_visibility(gid, GM, p["wiz"], "AFTER-LOADING", source="ruling")
    loaded.rollback(gid, GM, "from the first planning again", phase="s1m1-planning")
    loaded.send(gid, p["sov"], pc.SubmitAction(p["sov"], title="AFTER-LOADING-EDICT", slot="public", convert=0))
    key = uuid.UUID(gid)
    now = loaded.get_game(gid)
    assert _events_only(loaded).get(key).state == now.state == loaded.repository.get(key).state
    assert now.state.rollbacks == 3 and now.state.step == "planning"
    assert any(g["text"] == "AFTER-LOADING" for g in sheet_of(now, p["wiz"])["learned"])
    for viewer in ["gm", *p.values()]:
        assert now.state.sequence_for(viewer) == len(loaded.visible_events(gid, viewer, limit=100_000))
    restored = [r for r in loaded.recorder.select_events(key) if r.topic.endswith(".StateRestored")]
    old_shape, new_shape = json.loads(restored[0].state), json.loads(restored[-1].state)
    assert "state" in old_shape and "class_version" not in old_shape  # as recorded in 2026-11
    assert "state" not in new_shape and new_shape["class_version"] == 2
    assert new_shape["to_version"] == loaded.phase_version(gid, "s1m1-planning", None)
    assert "PRIVATE-WIZ-DUEL" not in restored[-1].state.decode()  # no superseded action rides along


def test_a_fork_of_a_recorded_game_after_its_rollbacks_equals_its_source(loaded):
    """The copied events include the old whole-state StateRestored events (upcast, written again as
    version 2 with the state they carried): the sandbox replays to its source's state."""
    recorded = BY_NAME["rollback"]
    gid = recorded["game_id"]
    source = loaded.get_game(gid)
    fork_id, _ = loaded.fork(gid, GM, "Sandbox of the past", "what if", version=source.version)
    fork = loaded.get_game(fork_id)
    plain = _events_only(loaded).get(uuid.UUID(fork_id))
    assert plain.state == fork.state
    assert fork.state.actions == source.state.actions and fork.state.rollbacks == source.state.rollbacks == 2
    assert fork.state.forked_from["version"] == source.version


def test_another_process_fast_forwards_its_cached_game_over_a_rollback(store_settings, loaded):
    """Two services on one store: the second holds the game cached, the first rolls it back; the second
    folds the new StateRestored onto its cached game by re-folding the target version from the store."""
    recorded = BY_NAME["month"]
    gid = recorded["game_id"]
    other = build_games(store_settings)
    try:
        before = other.get_game(gid, for_update=False)
        assert other._cached(gid) is not None and before.state.month == 2
        loaded.rollback(gid, GM, "back to the first planning", phase="s1m1-planning")
        after = other.get_game(gid, for_update=False)
        assert after.version == loaded.get_game(gid).version and after.state == loaded.get_game(gid).state
        assert after.state.month == 1 and after.state.step == "planning" and after.state.rollbacks == 1
    finally:
        other.close()
