"""Windows closed by real Celery workers on a real Redis and PostgreSQL: each exactly once, on time,
whatever is killed or restarted (worker kill -9, beat restart, Redis restart)."""

from __future__ import annotations

import contextlib
import random
import re
import time
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone

import psycopg
import pytest
import redis

from api.compose import build_games, build_projector
from projections.settings import Settings
from tests.integration.helpers import close_services
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
    close_services(games, projector)


def closes(games, game_ids: list[str]) -> dict[str, list[datetime]]:
    """When each game's Planning window was closed (every WindowClosed event for it)."""
    out = {}
    for gid in game_ids:
        out[gid] = [
            datetime.fromisoformat(e.closed_at)
            for e in games.iter_events(gid)
            if type(e).__name__ == "WindowClosed" and e.window_id == "s1m1-planning"
        ]
    return out


def wait_for(games, game_ids: list[str], timeout: float) -> dict[str, list[datetime]]:
    deadline = time.time() + timeout
    while True:
        seen = closes(games, game_ids)
        if all(seen.values()) or time.time() > deadline:
            return seen
        time.sleep(0.5)


def wait_until(condition, timeout: float, what: str, logs=lambda: "") -> None:
    """Poll ``condition`` (bounded): the test waits for a state, not for a number of seconds."""
    deadline = time.time() + timeout
    while not condition():
        assert time.time() < deadline, f"timed out waiting for {what}\n{logs()}"
        time.sleep(0.05)


@pytest.fixture
def topologies(stack):
    """Make topologies with ``topologies(broker)``; every process they start (and its children) is
    stopped at teardown, whatever the test did."""
    settings, _, _, tmp = stack
    made: list[Topology] = []

    def make(broker: str) -> Topology:
        made.append(
            Topology(
                {
                    "EMISSARY_DATABASE_URL": settings.database_url,
                    "EMISSARY_BROKER_URL": broker,
                    "EMISSARY_SWEEP_SECONDS": str(SWEEP),
                    "EMISSARY_CLAIM_SECONDS": "4",
                    "EMISSARY_ETA_LOOKAHEAD_SECONDS": "20",
                    "EMISSARY_DATA_DIR": str(tmp),
                },
                tmp,
            )
        )
        return made[-1]

    yield make
    for topo in made:
        topo.stop_all()


def nothing_pending(client: redis.Redis) -> bool:
    """No task waits in the queue, and none is reserved by a worker (acks_late: until it finishes)."""
    return client.llen("emissary") == 0 and client.hlen("unacked") == 0


class CloseGate:
    """A pause inside the database, so that a kill lands mid-way every time: the first ``after``
    WindowClosed rows are inserted as usual; every later insert waits, inside the worker's transaction,
    on an advisory lock this connection holds, until the gate opens. The workers need no test hook."""

    def __init__(self, schema: str, conn: psycopg.Connection, after: int) -> None:
        self.schema, self.conn, self.after = schema, conn, after
        self.key = random.randrange(1, 2**31)

    def shut(self) -> None:
        s = self.schema
        self.conn.execute("SELECT pg_advisory_lock(%s)", (self.key,))
        self.conn.execute(f'CREATE SEQUENCE "{s}".close_gate')
        self.conn.execute(f"""CREATE FUNCTION "{s}".close_gate() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
              IF NEW.topic LIKE '%.WindowClosed' AND nextval('"{s}".close_gate') > {self.after} THEN
                PERFORM pg_advisory_xact_lock_shared({self.key});
              END IF;
              RETURN NEW;
            END $$""")
        self.conn.execute(
            f'CREATE TRIGGER close_gate BEFORE INSERT ON "{s}".emissary_events '
            f'FOR EACH ROW EXECUTE FUNCTION "{s}".close_gate()'
        )

    def waiting(self) -> int:
        """How many transactions wait at the gate now."""
        return self.conn.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = 0 AND objid = %s",
            (self.key,),
        ).fetchone()[0]

    def closed_count(self) -> int:
        return self.conn.execute(
            f"SELECT count(*) FROM \"{self.schema}\".emissary_events WHERE topic LIKE '%.WindowClosed'"
        ).fetchone()[0]

    def open(self) -> None:
        # Unlock first: a transaction waiting at the gate holds the events table lock DROP TRIGGER needs.
        self.conn.execute("SELECT pg_advisory_unlock_all()")
        self.conn.execute(f'DROP TRIGGER IF EXISTS close_gate ON "{self.schema}".emissary_events')


@contextlib.contextmanager
def close_gate(settings: Settings, after: int) -> Iterator[CloseGate]:
    schema = re.search(r"schema=([^&]+)", settings.database_url).group(1)
    with psycopg.connect(settings.database_url.split("?")[0], autocommit=True) as conn:
        gate = CloseGate(schema, conn, after)
        gate.shut()
        try:
            yield gate
        finally:
            gate.open()


def test_500_windows_due_at_once_are_each_closed_exactly_once_on_time(stack, private_redis, topologies):
    settings, games, projector, tmp = stack
    ids, due = make_windows(games, 500, timedelta(seconds=40))
    projector.catch_up()
    topo = topologies(private_redis)
    topo.start("worker", "worker", "--concurrency", "2")
    topo.start("beat", "beat", "--schedule", str(tmp / "beat-schedule"))
    seen = wait_for(games, ids, timeout=(due - datetime.now(timezone.utc)).total_seconds() + 120)
    topo.stop_all()
    assert all(len(v) == 1 for v in seen.values()), (sum(len(v) != 1 for v in seen.values()), topo.logs())
    lags = sorted((v[0] - due).total_seconds() for v in seen.values())
    assert lags[0] >= 0  # never early
    # Speed is the benchmark's business (close_lag_p99_over_sweep); here a bound no loaded machine misses.
    assert lags[-1] < 90, lags[-10:]


def test_a_worker_killed_mid_sweep_misses_nothing_and_closes_nothing_twice(stack, private_redis, topologies):
    settings, games, projector, tmp = stack
    ids, due = make_windows(games, 60, timedelta(seconds=15))
    projector.catch_up()
    topo = topologies(private_redis)
    with close_gate(settings, after=10) as gate:  # the 11th close, and every later one, waits
        topo.start("worker", "worker", "--concurrency", "2")
        topo.start("beat", "beat", "--schedule", str(tmp / "beat-schedule"))
        wait_until(lambda: gate.waiting() > 0, 90, "the worker to close windows", topo.logs)
        topo.kill9("worker")  # in the middle of closing them: some closed, some waiting, some not begun
        partly = gate.closed_count()
    assert 0 < partly <= 10 < len(ids)  # the kill really happened mid-way
    # A close in flight had sent its whole transaction, COMMIT included, in one pipeline (projections/keys.py):
    # PostgreSQL may still commit it once the gate opens, as it would a commit whose answer a crash lost; each
    # of the 2 worker processes has at most one in flight. Either way each window closes once (below).
    recorded = sum(1 for v in closes(games, ids).values() if v)
    assert partly <= recorded <= partly + 2
    topo.start("worker", "worker", "--concurrency", "2")
    seen = wait_for(games, ids, timeout=90)
    topo.stop_all()
    assert all(len(v) == 1 for v in seen.values()), topo.logs()


def test_windows_due_while_beat_is_down_close_when_it_restarts(stack, private_redis, topologies):
    settings, games, projector, tmp = stack
    topo = topologies(private_redis)
    broker = redis.Redis.from_url(private_redis)
    topo.start("worker", "worker", "--concurrency", "2")
    topo.start("beat", "beat", "--schedule", str(tmp / "beat-schedule"))
    wait_until(lambda: re.search(r"Task workers.sweep\[\S+\] succeeded", topo.log("worker")), 60, "a sweep", topo.logs)
    topo.kill9("beat")
    # A sweep beat sent before it died could still schedule the windows below: wait until none is left.
    wait_until(lambda: nothing_pending(broker), 60, "the worker to finish the sweeps beat sent", topo.logs)
    ids, due = make_windows(games, 20, timedelta(seconds=5))
    projector.catch_up()
    wait_until(lambda: datetime.now(timezone.utc) > due + timedelta(seconds=3), 60, "the deadline to pass")
    assert not any(closes(games, ids).values())  # nothing closes them while beat is down
    topo.start("beat", "beat", "--schedule", str(tmp / "beat-schedule"))
    seen = wait_for(games, ids, timeout=60)
    topo.stop_all()
    assert all(len(v) == 1 for v in seen.values()), topo.logs()


def test_windows_still_close_after_redis_restarts(stack, topologies):
    settings, games, projector, tmp = stack
    broker = PrivateRedis(tmp).start()
    topo = topologies(broker.url)
    topo.start("worker", "worker", "--concurrency", "2")
    topo.start("beat", "beat", "--schedule", str(tmp / "beat-schedule"))
    wait_until(lambda: re.search(r"Task workers.sweep\[\S+\] succeeded", topo.log("worker")), 60, "a sweep", topo.logs)
    ids, due = make_windows(games, 20, timedelta(seconds=10))
    projector.catch_up()
    # The sweep has scheduled ETA closes: the worker holds them, reserved, in Redis ...
    wait_until(lambda: re.search(r"sweep at=\S+ due=\d+ eta=[1-9]", topo.log("worker")), 60, "ETA closes", topo.logs)
    assert datetime.now(timezone.utc) < due, "the machine was too slow to kill Redis before the deadline"
    broker.kill()  # ... and they are lost with it: it keeps nothing on disk
    wait_until(lambda: datetime.now(timezone.utc) > due + timedelta(seconds=2), 60, "the deadline to pass")
    broker.start()
    seen = wait_for(games, ids, timeout=90)
    topo.stop_all()
    assert all(len(v) == 1 for v in seen.values()), topo.logs()
