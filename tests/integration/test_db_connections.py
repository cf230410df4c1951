"""Database connections: pool sizes are settings with small defaults, every process keeps to its budget
on the real PostgreSQL (measured in pg_stat_activity), and connection strings survive any password."""

from __future__ import annotations

import time
import uuid
from datetime import datetime, timedelta, timezone
from urllib.parse import quote

import httpx
import psycopg
import pytest
from psycopg.conninfo import conninfo_to_dict

from api.compose import build_games, build_projector
from projections.db import ReadModelDB, conninfo
from projections.settings import Settings
from tests.integration.helpers import close_services
from tests.integration.topology import Topology, free_port, make_windows, wait_healthy

pytestmark = pytest.mark.integration


def test_pool_sizes_are_settings_with_small_defaults(pg_schema_url, monkeypatch):
    defaults = Settings(database_url=pg_schema_url)
    assert (defaults.db_pool_size, defaults.db_max_overflow, defaults.readmodel_pool_size) == (2, 3, 3)
    monkeypatch.setenv("EMISSARY_DB_POOL_SIZE", "1")
    monkeypatch.setenv("EMISSARY_DB_MAX_OVERFLOW", "2")
    monkeypatch.setenv("EMISSARY_READMODEL_POOL_SIZE", "3")
    settings = Settings(database_url=pg_schema_url)
    games = build_games(settings)
    db = ReadModelDB(settings)
    try:
        es_pool = games.recorder.datastore.pool
        assert (es_pool.min_size, es_pool.max_size) == (1, 1 + 2)
        assert (db.pool.min_size, db.pool.max_size) == (1, 3)
    finally:
        db.close()
        games.close()


def test_pool_settings_refuse_nonsense():
    with pytest.raises(ValueError, match="db_pool_size"):
        Settings(db_pool_size=0)
    with pytest.raises(ValueError, match="db_max_overflow"):
        Settings(db_max_overflow=-1)


@pytest.mark.parametrize("password", ["two words", "it's", "back\\slash 'and' = signs"])
def test_a_password_with_a_space_or_a_quote_reaches_postgres_intact(pg_schema_url, password):
    """README, EMISSARY_DATABASE_URL: the password of postgresql://user:pass@host/db, URL-encoded, is the
    password PostgreSQL is given, whatever characters it holds (the test server trusts any password, so
    connecting proves the string parsed; the parsed fields prove it is the right password)."""
    url = pg_schema_url.replace("postgresql://postgres@", f"postgresql://postgres:{quote(password, safe='')}@")
    settings = Settings(database_url=url)
    fields = conninfo_to_dict(conninfo(settings))
    assert (fields["password"], fields["user"], fields["dbname"]) == (password, "postgres", "test")
    db = ReadModelDB(settings)
    games = build_games(settings)
    try:
        assert db.query("SELECT 1") == [(1,)]
        assert games.recorder.max_notification_id() in (None, 0)
    finally:
        db.close()
        games.close()


# Each process keeps at most pool + overflow event-store connections and readmodel read-model ones.
POOL, OVERFLOW, READMODEL = 1, 2, 2
PER_PROCESS = POOL + OVERFLOW + READMODEL
# Processes that hold connections: the API (one uvicorn process), the worker's two pool processes (the
# Celery parent and the supervisor hold none), the watchdog and its projection runner; beat holds none.
BUDGET = {"api": 1 * PER_PROCESS, "worker": 2 * PER_PROCESS, "beat": 0, "projector": 2 * PER_PROCESS}


def test_every_process_of_the_topology_keeps_to_its_connection_budget(pg_schema_url, tmp_path, private_redis):
    """The API, a worker, beat and the projection runner, on PostgreSQL, closing windows and answering
    requests: pg_stat_activity, sampled all along, never shows a role above its budget (one pool per
    process, of the configured size, whatever number of tasks ran)."""
    marker = f"emissary-t{uuid.uuid4().hex[:8]}"
    settings = Settings(database_url=pg_schema_url)
    games = build_games(settings)
    projector = build_projector(games, settings)
    port = free_port()
    topo = Topology(
        {
            "EMISSARY_DATABASE_URL": pg_schema_url,
            "EMISSARY_BROKER_URL": private_redis,
            "EMISSARY_SWEEP_SECONDS": "1",
            "EMISSARY_CLAIM_SECONDS": "4",
            "EMISSARY_ETA_LOOKAHEAD_SECONDS": "20",
            "EMISSARY_DATA_DIR": str(tmp_path),
            "EMISSARY_PORT": str(port),
            "EMISSARY_DB_POOL_SIZE": str(POOL),
            "EMISSARY_DB_MAX_OVERFLOW": str(OVERFLOW),
            "EMISSARY_READMODEL_POOL_SIZE": str(READMODEL),
        },
        tmp_path,
    )
    peak: dict[str, int] = {}

    def sample(conn: psycopg.Connection) -> dict[str, int]:
        rows = conn.execute(
            "SELECT application_name, count(*) FROM pg_stat_activity WHERE application_name LIKE %s GROUP BY 1",
            (f"{marker}-%",),
        ).fetchall()
        now = {name.removeprefix(f"{marker}-"): n for name, n in rows}
        for role, n in now.items():
            peak[role] = max(peak.get(role, 0), n)
        return now

    try:
        with psycopg.connect(pg_schema_url.split("?")[0], autocommit=True) as conn:
            for role, args in [
                ("api", ["serve", "--port", str(port), "--no-access-log"]),
                ("worker", ["worker", "--concurrency", "2"]),
                ("beat", ["beat", "--schedule", str(tmp_path / "beat-schedule")]),
                ("projector", ["projector"]),
            ]:
                topo.start(role, *args, env={"PGAPPNAME": f"{marker}-{role}"})  # libpq names each connection
            base = f"http://127.0.0.1:{port}"
            wait_healthy(base, 60)
            ids, due = make_windows(games, 30, timedelta(seconds=6))
            projector.catch_up()
            with httpx.Client(base_url=base, timeout=10) as http:
                deadline = time.time() + 120
                while True:
                    sample(conn)
                    r = http.post("/games", json={"name": "busy"})  # the API at work meanwhile
                    assert r.status_code == 201, r.text
                    http.get(
                        f"/games/{r.json()['game_id']}/view",
                        headers={"Authorization": f"Bearer {r.json()['gm_token']}"},
                    )
                    closed = conn.execute(
                        f'SELECT count(*) FROM "{settings.eventsourcing_env()["POSTGRES_SCHEMA"]}"'
                        ".emissary_events WHERE topic LIKE '%.WindowClosed'"
                    ).fetchone()[0]
                    if closed >= len(ids):
                        break
                    assert time.time() < deadline, (closed, topo.logs())
                    time.sleep(0.2)
            for _ in range(10):  # and a moment after the work
                sample(conn)
                time.sleep(0.2)
    finally:
        topo.stop_all()
        close_services(games, projector)
    assert peak.get("api", 0) >= 1 and peak.get("worker", 0) >= 1 and peak.get("projector", 0) >= 1, peak
    over = {role: (n, BUDGET[role]) for role, n in peak.items() if n > BUDGET[role]}
    assert not over, (peak, BUDGET)


def test_worker_tasks_reuse_the_process_pools(pg_schema_url, monkeypatch):
    """A worker process builds its service and read models once, on its first task; no task opens a
    pool of its own afterwards, however many run."""
    import psycopg_pool

    from workers import runtime
    from workers.app import celery_app
    from workers.tasks import close_window, sweep

    settings = Settings(database_url=pg_schema_url)
    opened: list[int] = []
    real_init = psycopg_pool.ConnectionPool.__init__

    def counting_init(self, *args, **kwargs):
        opened.append(1)
        real_init(self, *args, **kwargs)

    monkeypatch.setattr(psycopg_pool.ConnectionPool, "__init__", counting_init)
    monkeypatch.setattr(runtime, "_state", {"settings": settings})  # a fresh worker process
    celery_app.conf.task_always_eager = True
    try:
        sweep()
        first = len(opened)
        games = runtime.games()
        ids, due = make_windows(games, 3, timedelta(seconds=1))
        while datetime.now(timezone.utc) <= due:
            time.sleep(0.05)
        for _ in range(3):
            sweep()
        for gid in ids:
            close_window(gid, "s1m1-planning")
        assert first == 2 and len(opened) == first, opened  # the event store's pool and the read models'
        assert all(games.view(gid, "gm")["game"]["step"] == "resolution" for gid in ids)
    finally:
        celery_app.conf.task_always_eager = False
        if "projector" in runtime._state:
            runtime._state["projector"].db.close()
        if "games" in runtime._state:
            runtime._state["games"].close()
