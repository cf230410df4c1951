"""``make bench``: speed figures as ratios against a baseline measured in the same run.

Prints one ``name: value`` line per figure (names from the issues), then the raw timings as
comments. Run from the project root: ``python tests/bench.py``.
"""

from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eventsourcing.application import Application  # noqa: E402
from eventsourcing.domain import Aggregate, event  # noqa: E402

from domain.dice import SeededRoller  # noqa: E402
from domain.powers.game import Game  # noqa: E402
from projections.service import Games  # noqa: E402
from projections.settings import Settings  # noqa: E402

NOTES: list[str] = []


class Tally(Aggregate):
    """The bare-store baseline: one tiny event per save."""

    @event("Created")
    def __init__(self) -> None:
        self.n = 0

    @event("Counted")
    def count(self) -> None:
        self.n += 1


class Bare(Application):
    pass


def bare_saves_per_second(env: dict, n: int, clients: int = 1) -> float:
    """Bare eventsourcing saves (one small event each), ``clients`` threads each on its own aggregate."""
    from concurrent.futures import ThreadPoolExecutor

    app = Bare(env={k: v for k, v in env.items() if k not in ("IS_SNAPSHOTTING_ENABLED",)})

    def work(_: int) -> int:
        agg = Tally()
        app.save(agg)
        for _ in range(n // clients):
            agg.count()
            app.save(agg)
        return n // clients

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        done = sum(pool.map(work, range(clients)))
    elapsed = time.perf_counter() - start
    app.close()
    return done / elapsed


def serve(settings: Settings, workers: int = 1):
    """``emissary serve`` in its own process on a loopback port; returns (base_url, stop)."""
    import socket
    import subprocess

    from tests import procs
    from tests.integration.topology import wait_healthy

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "EMISSARY_DATA_DIR": str(settings.data_dir),
           "EMISSARY_DATABASE_URL": settings.database_url, "EMISSARY_PORT": str(port)}
    # Its own process group (tests/procs.py): stopping it stops uvicorn's worker processes too.
    proc = procs.start([sys.executable, "-m", "api.cli", "serve", "--port", str(port), "--no-access-log",
                        "--workers", str(workers)], env=env,
                       cwd=str(Path(__file__).resolve().parent.parent), stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(base, 30, proc)
    except BaseException:
        procs.stop(proc)
        raise

    def stop() -> None:
        procs.stop(proc)

    return base, stop


def api_commands_per_second(settings: Settings, n_powers: int, clients: int = 1, workers: int = 1) -> float:
    """Durable commands over HTTP to the real server: each client plays its own game, in which every
    power submits and rolls its 4 actions (3 events in one transaction per command)."""
    from concurrent.futures import ThreadPoolExecutor

    import httpx

    base, stop = serve(settings, workers)
    try:
        def setup(_: int) -> tuple[str, list[str]]:
            with httpx.Client(base_url=base) as http:
                r = http.post("/games", json={"name": "bench"})
                game, gm = r.json()["game_id"], r.json()["gm_token"]
                h = {"Authorization": f"Bearer {gm}"}
                tokens = [http.post(f"/games/{game}/powers", headers=h,
                                    json={"name": f"C{i}", "cls": "conspiracy", "subclass": "circle"}
                                    ).json()["token"] for i in range(n_powers)]
                http.post(f"/games/{game}/advance", headers=h, json={"expected_step": "setup"})
                http.post(f"/games/{game}/advance", headers=h, json={"expected_step": "tidings"})
            return game, tokens

        games = [setup(i) for i in range(clients)]

        def play(job: tuple[str, list[str]]) -> int:
            # A lean keep-alive client, so that the client's own CPU (on the same 2 cores) is not measured.
            import http.client
            import json as jsonlib

            game, tokens = job
            done = 0
            host, port = base.removeprefix("http://").split(":")
            conn = http.client.HTTPConnection(host, int(port), timeout=30)
            for k in range(4):
                body = jsonlib.dumps({"title": f"plot {k}", "convert": 0})
                for tok in tokens:
                    conn.request("POST", f"/games/{game}/actions", body=body,
                                 headers={"Authorization": f"Bearer {tok}", "Content-Type": "application/json"})
                    r = conn.getresponse()
                    r.read()
                    assert r.status == 201, r.status
                    done += 1
            conn.close()
            return done

        start = time.perf_counter()
        with ThreadPoolExecutor(clients) as pool:
            count = sum(pool.map(play, games))
        return count / (time.perf_counter() - start)
    finally:
        stop()


def build_long_game(games: Games, target_events: int) -> Game:
    """A game of many months (4 powers, 4 actions each, resolved every month) of about ``target_events``."""
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    g = Game.start("long", "gm")
    powers = [("w", "champion", "wizard"), ("c", "conspiracy", "circle"), ("o", "city", "overlord"),
              ("d", "champion", "dragon")]
    for pid, cls, sub in powers:
        g.add_power(pid, pid, cls, sub)
        g.grant_asset(f"{pid}-might", pid, "might", "skill", 3)
    seed = "ab" * 32
    g.advance(now, seed)
    n = 0
    while g.version < target_events:
        g.advance(now, seed)  # -> planning (or tidings/cleanup on the way)
        if g.state.step != "planning":
            games.save(g)
            continue
        roller = SeededRoller(seed)
        for pid, _, sub in powers:
            # Every power uses all its slots, as players do: unused slots would pile up as schemes,
            # growing the state (not the history) month after month.
            for k in range(5 if sub == "wizard" else 4):
                slot = "public" if (sub in ("dragon",) or (sub == "overlord" and k < 2)) else "private"
                n += 1
                g.submit_action(pid, f"a{n}", f"action {n}", now=now, roller=roller, slot=slot,
                                assets=[{"asset_id": f"{pid}-might"}], convert=1, targets=["c"],
                                resistible=(k == 0 and pid != "c"))
        g.advance(now, seed)
        g.resolve(now=now, roller=roller)
        if g.state.step == "resistance":
            g.close_window(g.open_window("resistance").id, now=now + timedelta(days=2))
        games.save(g)
        now += timedelta(days=10)
    return g


def replay_vs_past_version(env: dict, events: int, samples: int = 30) -> tuple[float, float]:
    """(full replay seconds, mean seconds to get an arbitrary past version with snapshots)."""
    games = Games(env=env, snapshot_interval=100)
    g = build_long_game(games, events)
    gid = g.id
    games.close()
    no_cache = {k: v for k, v in env.items() if not k.startswith("AGGREGATE_CACHE")}
    plain = Games(env=no_cache, snapshot_interval=100)
    plain.snapshots = None  # full replay: no snapshots
    plain.repository.snapshot_store = None
    snap = Games(env=no_cache, snapshot_interval=100)
    replays = []
    for _ in range(3):
        t = time.perf_counter()
        full = plain.repository.get(gid)
        replays.append(time.perf_counter() - t)
    rng = random.Random(7)
    versions = [rng.randint(1, full.version) for _ in range(samples)]
    t = time.perf_counter()
    for v in versions:
        snap.repository.get(gid, version=v)
    per_get = (time.perf_counter() - t) / samples
    NOTES.append(f"# game of {full.version} events: full replay {statistics.median(replays) * 1000:.1f} ms, "
                 f"past version get {per_get * 1000:.2f} ms")
    plain.close()
    snap.close()
    return statistics.median(replays), per_get


def ratio(name: str, settings: Settings, bare_env: dict, clients: int, n_powers: int, workers: int = 1) -> float:
    bare = bare_saves_per_second(bare_env, 1200, clients)
    api = api_commands_per_second(settings, n_powers=n_powers // clients, clients=clients, workers=workers)
    NOTES.append(f"# {name}: {clients} writer(s), {workers} server process(es): bare saves {bare:.0f}/s, "
                 f"API commands {api:.0f}/s")
    return api / bare


def phase_view_seconds(games: Games, game_id: str, viewer: str, phases: list[str], rounds: int = 3) -> float:
    """Mean time to render a viewer's view at a past phase: phase index lookup, snapshot get, render."""
    games.view_at(game_id, "gm", phase=phases[0], as_viewer=viewer)  # warm the connections
    start = time.perf_counter()
    n = 0
    for _ in range(rounds):
        for phase in phases:
            games.view_at(game_id, "gm", phase=phase, as_viewer=viewer)
            n += 1
    return (time.perf_counter() - start) / n


def history_figures(tmp: Path) -> dict[str, float]:
    """phase_view_vs_replay, phase_view_100k_vs_1k and rebuild_vs_raw_scan, on SQLite files."""
    from projections.store import build_projector

    out: dict[str, float] = {}
    views: dict[int, float] = {}
    for size in (1_000, 10_000, 100_000):
        settings = Settings(data_dir=tmp / f"hist{size}")
        env = {k: v for k, v in settings.eventsourcing_env().items() if not k.startswith("AGGREGATE_CACHE")}
        games = Games(env=env, snapshot_interval=100)
        game = build_long_game(games, size)
        projector = build_projector(games, settings)
        projector.rebuild()
        phases = [p["phase"] for p in projector.phases(str(game.id))]
        rng = random.Random(size)
        sample = rng.sample(phases[: len(phases) * 9 // 10], min(20, len(phases) // 2))
        views[size] = phase_view_seconds(games, str(game.id), "c", sample)
        if size == 10_000:
            t = time.perf_counter()
            replay = Games(env=env, snapshot_interval=100)
            replay.snapshots = None
            replay.repository.snapshot_store = None
            full = statistics.median([_timed(lambda: replay.repository.get(game.id)) for _ in range(3)])
            out["phase_view_vs_replay"] = full / views[size]
            rebuilds, scans = [], []
            for _ in range(3):  # alternate the two, and take medians: this machine is noisy
                t = time.perf_counter()
                applied = projector.rebuild()
                rebuilds.append(applied / (time.perf_counter() - t))
                scans.append(raw_scan_rate(games))
            rebuild_rate, scan = statistics.median(rebuilds), statistics.median(scans)
            out["rebuild_vs_raw_scan"] = rebuild_rate / scan
            NOTES.append(f"# {size} events: full replay {full * 1000:.0f} ms, phase view {views[size] * 1000:.2f} ms; "
                         f"rebuild {rebuild_rate:.0f} events/s, raw scan and decode {scan:.0f} events/s")
            replay.close()
        NOTES.append(f"# {game.version} events: phase view {views[size] * 1000:.2f} ms")
        projector.db.close()
        games.close()
    out["phase_view_100k_vs_1k"] = views[100_000] / views[1_000]
    return out


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def raw_scan_rate(games: Games) -> float:
    """Events per second of a bare scan of the notification log, decoding every event."""
    start = time.perf_counter()
    n = 0
    position = 0
    while True:
        batch = games.recorder.select_notifications(start=position, limit=5000, inclusive_of_start=False)
        if not batch:
            break
        for notification in batch:
            games.mapper.to_domain_event(notification)
        n += len(batch)
        position = batch[-1].id
    return n / (time.perf_counter() - start)


def window_figures(tmp: Path, pg_url: str, count: int = 500, sweep_seconds: float = 5.0) -> dict[str, float]:
    """close_lag_p99_over_sweep and window_closes_per_s: ``count`` windows due at one moment, closed by a
    real Celery worker and beat over the machine's Redis, on PostgreSQL."""
    import psycopg
    import redis

    from projections.store import build_projector
    from tests.integration.topology import Topology, make_windows

    schema = f"bench_w_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    settings = Settings(database_url=f"{pg_url}?schema={schema}")
    games = Games(env=settings.eventsourcing_env(), snapshot_interval=100)
    projector = build_projector(games, settings)
    r = redis.Redis(host="127.0.0.1", port=6379, db=9)
    r.flushdb()
    logdir = tmp / "windows"
    logdir.mkdir(parents=True, exist_ok=True)
    topo = Topology({"EMISSARY_DATABASE_URL": settings.database_url, "EMISSARY_BROKER_URL": "redis://127.0.0.1:6379/9",
                     "EMISSARY_SWEEP_SECONDS": str(sweep_seconds), "EMISSARY_DATA_DIR": str(logdir)}, logdir)
    try:
        due = datetime.now(timezone.utc) + timedelta(seconds=30 + count * 0.03)
        ids = make_windows(games, count, due)
        projector.catch_up()
        topo.start("worker", "worker")
        topo.start("beat", "beat", "--schedule", str(logdir / "beat-schedule"))
        closed: dict[str, datetime] = {}
        deadline = time.time() + (due - datetime.now(timezone.utc)).total_seconds() + 120
        while len(closed) < count and time.time() < deadline:
            time.sleep(1)
            for gid in ids:
                if gid not in closed:
                    for e in games.iter_events(gid):
                        if type(e).__name__ == "WindowClosed":
                            closed[gid] = datetime.fromisoformat(e.closed_at)
    finally:
        topo.stop_all()
        projector.db.close()
        games.close()
        r.flushdb()
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    lags = sorted((c - due).total_seconds() for c in closed.values())
    p99 = lags[max(0, int(len(lags) * 0.99) - 1)] if lags else float("inf")
    span = max(lags) if lags else float("inf")
    NOTES.append(f"# {len(closed)}/{count} windows due at once closed; lag p50 {lags[len(lags) // 2]:.2f}s, "
                 f"p99 {p99:.2f}s, last {span:.2f}s; sweep every {sweep_seconds}s")
    return {"close_lag_p99_over_sweep": p99 / sweep_seconds, "window_closes_per_s": len(closed) / max(span, 1e-3)}


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="emissary-bench-"))
    pg_url = os.environ.get("EMISSARY_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    try:
        import psycopg

        with psycopg.connect(pg_url, autocommit=True, connect_timeout=3) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
    except Exception as exc:  # noqa: BLE001 - PostgreSQL is optional for a local bench
        NOTES.append(f"# PostgreSQL not reachable ({exc}); command figures on SQLite only")
        pg_url = ""
    sqlite_settings = Settings(data_dir=tmp / "api")
    sqlite_env = {**sqlite_settings.eventsourcing_env(), "SQLITE_DBNAME": str(tmp / "bare.sqlite3")}
    figures: dict[str, float] = {}
    if pg_url:
        try:
            pg = Settings(database_url=f"{pg_url}?schema={schema}")
            # The production store, with 4 concurrent writers on both sides (each on its own game/aggregate).
            figures["command_vs_bare_store"] = ratio("postgres", pg, pg.eventsourcing_env(), 4, 200, workers=3)
            figures["command_vs_bare_store_postgres_1_writer"] = ratio("postgres", pg, pg.eventsourcing_env(), 1, 100)
        finally:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    sqlite_ratio = ratio("sqlite", sqlite_settings, sqlite_env, 1, 100)
    figures.setdefault("command_vs_bare_store", sqlite_ratio)
    figures["command_vs_bare_store_sqlite_1_writer"] = sqlite_ratio
    replay, past = replay_vs_past_version({**sqlite_settings.eventsourcing_env(),
                                           "SQLITE_DBNAME": str(tmp / "long.sqlite3")}, 10_000)
    figures["past_version_vs_replay"] = replay / past
    figures.update(history_figures(tmp))
    if pg_url:
        figures.update(window_figures(tmp, pg_url))
    for name, value in figures.items():
        print(f"{name}: {value:.2f}")
    for note in NOTES:
        print(note)


if __name__ == "__main__":
    main()
