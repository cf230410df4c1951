"""Windows closed by real Celery workers on a real Redis and PostgreSQL: each exactly once, on time,
whatever is killed or restarted (worker kill -9, beat restart, Redis restart)."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
import redis

from projections.settings import Settings
from projections.store import build_games, build_projector
from tests.integration.topology import PrivateRedis, Topology, make_windows

pytestmark = pytest.mark.integration
SWEEP = 1.0


@pytest.fixture
def stack(pg_schema_url, tmp_path):
    """The game service and read models in this process; workers in their own processes."""
    settings = Settings(database_url=pg_schema_url)
    games = build_games(settings)
    projector = build_projector(games, settings)
    yield settings, games, projector, tmp_path
    projector.db.close()
    games.close()


def closes(games, game_ids: list[str]) -> dict[str, list[datetime]]:
    """When each game's Planning window was closed (every WindowClosed event for it)."""
    out = {}
    for gid in game_ids:
        out[gid] = [datetime.fromisoformat(e.closed_at) for e in games.iter_events(gid)
                    if type(e).__name__ == "WindowClosed" and e.window_id == "s1m1-planning"]
    return out


def wait_for(games, game_ids: list[str], timeout: float) -> dict[str, list[datetime]]:
    deadline = time.time() + timeout
    while True:
        seen = closes(games, game_ids)
        if all(seen.values()) or time.time() > deadline:
            return seen
        time.sleep(0.5)


def topology(settings: Settings, broker: str, tmp_path) -> Topology:
    return Topology({"EMISSARY_DATABASE_URL": settings.database_url, "EMISSARY_BROKER_URL": broker,
                     "EMISSARY_SWEEP_SECONDS": str(SWEEP), "EMISSARY_CLAIM_SECONDS": "4",
                     "EMISSARY_ETA_LOOKAHEAD_SECONDS": "20", "EMISSARY_DATA_DIR": str(tmp_path)}, tmp_path)


@pytest.fixture
def machine_redis():
    """The machine's Redis (127.0.0.1:6379), on a database of its own for this test."""
    client = redis.Redis(host="127.0.0.1", port=6379, db=7)
    client.flushdb()
    yield "redis://127.0.0.1:6379/7"
    client.flushdb()


def test_500_windows_due_at_once_are_each_closed_exactly_once_on_time(stack, machine_redis):
    settings, games, projector, tmp = stack
    due = datetime.now(timezone.utc) + timedelta(seconds=40)
    ids = make_windows(games, 500, due)
    projector.catch_up()
    topo = topology(settings, machine_redis, tmp)
    try:
        topo.start("worker", "worker", "--concurrency", "2")
        topo.start("beat", "beat", "--schedule", str(tmp / "beat-schedule"))
        seen = wait_for(games, ids, timeout=(due - datetime.now(timezone.utc)).total_seconds() + 90)
    finally:
        topo.stop_all()
    assert all(len(v) == 1 for v in seen.values()), (sum(len(v) != 1 for v in seen.values()), topo.logs())
    lags = sorted((v[0] - due).total_seconds() for v in seen.values())
    assert lags[0] >= 0  # never early
    assert lags[-1] < 60, lags[-10:]


def test_a_worker_killed_mid_sweep_misses_nothing_and_closes_nothing_twice(stack, machine_redis):
    settings, games, projector, tmp = stack
    due = datetime.now(timezone.utc) + timedelta(seconds=25)
    ids = make_windows(games, 200, due)
    projector.catch_up()
    topo = topology(settings, machine_redis, tmp)
    try:
        topo.start("worker", "worker", "--concurrency", "2")
        topo.start("beat", "beat", "--schedule", str(tmp / "beat-schedule"))
        while datetime.now(timezone.utc) < due + timedelta(seconds=0.5):
            time.sleep(0.1)
        topo.kill9("worker")  # in the middle of closing them
        partly = sum(1 for v in closes(games, ids).values() if v)
        time.sleep(2)
        topo.start("worker", "worker", "--concurrency", "2")
        seen = wait_for(games, ids, timeout=90)
    finally:
        topo.stop_all()
    assert partly < len(ids)  # the kill really happened mid-way
    assert all(len(v) == 1 for v in seen.values()), topo.logs()


def test_windows_due_while_beat_is_down_close_when_it_restarts(stack, machine_redis):
    settings, games, projector, tmp = stack
    topo = topology(settings, machine_redis, tmp)
    try:
        topo.start("worker", "worker", "--concurrency", "2")
        topo.start("beat", "beat", "--schedule", str(tmp / "beat-schedule"))
        time.sleep(3)
        topo.kill9("beat")
        due = datetime.now(timezone.utc) + timedelta(seconds=8)
        ids = make_windows(games, 20, due)
        projector.catch_up()
        time.sleep(max(0.0, (due - datetime.now(timezone.utc)).total_seconds()) + 3)
        assert not any(closes(games, ids).values())  # nothing closes them while beat is down
        topo.start("beat", "beat", "--schedule", str(tmp / "beat-schedule"))
        seen = wait_for(games, ids, timeout=60)
    finally:
        topo.stop_all()
    assert all(len(v) == 1 for v in seen.values()), topo.logs()


def test_windows_still_close_after_redis_restarts(stack):
    settings, games, projector, tmp = stack
    broker = PrivateRedis(tmp).start()
    topo = topology(settings, broker.url, tmp)
    try:
        topo.start("worker", "worker", "--concurrency", "2")
        topo.start("beat", "beat", "--schedule", str(tmp / "beat-schedule"))
        due = datetime.now(timezone.utc) + timedelta(seconds=12)
        ids = make_windows(games, 20, due)
        projector.catch_up()
        time.sleep(4)  # the sweep has scheduled ETA closes in Redis by now
        broker.kill()  # ... and they are lost with it: it keeps nothing on disk
        time.sleep(max(0.0, (due - datetime.now(timezone.utc)).total_seconds()) + 2)
        broker.start()
        seen = wait_for(games, ids, timeout=90)
    finally:
        topo.stop_all()
        broker.kill()
    assert all(len(v) == 1 for v in seen.values()), topo.logs()
