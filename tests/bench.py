"""``make bench``: speed figures as ratios against a baseline measured in the same run.

Prints one ``name: value`` line per figure (names from the issues), then the raw timings as
comments. Run from the project root: ``python tests/bench.py [--only NAME]``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from eventsourcing.application import Application  # noqa: E402
from eventsourcing.domain import Aggregate, event  # noqa: E402

from application.service import Games  # noqa: E402
from domain.dice import SeededRoller  # noqa: E402
from domain.powers import commands as pc  # noqa: E402
from domain.powers.game import Game  # noqa: E402
from projections.settings import Settings  # noqa: E402
from tests.helpers import add_power  # noqa: E402

NOTES: list[str] = []


class Tally(Aggregate):
    """The bare-store baseline: tiny events, as many per save as one command records (``events_per_command``)."""

    @event("Created")
    def __init__(self) -> None:
        self.n = 0

    @event("Counted")
    def count(self) -> None:
        self.n += 1


class Bare(Application):
    pass


def _bare_saves(app: Application, n: int, clients: int, events: int = 1) -> tuple[int, float, float]:
    """``clients`` threads each make ``n // clients`` saves of ``events`` tiny events to an aggregate of its own;
    returns (saves, start, end) on the monotonic clock, which is the same in every process."""
    from concurrent.futures import ThreadPoolExecutor

    def work(_: int) -> int:
        agg = Tally()
        app.save(agg)
        for _ in range(n // clients):
            for _ in range(events):
                agg.count()
            app.save(agg)
        return n // clients

    start = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        done = sum(pool.map(work, range(clients)))
    return done, start, time.perf_counter()


def bare_env(env: dict) -> dict:
    return {k: v for k, v in env.items() if k not in ("IS_SNAPSHOTTING_ENABLED",)}


def _bare_process(conn, env: dict) -> None:
    """One bare-store process: one application (warmed by its first run), runs on request. It ends with the bench,
    however the bench ends (workers/lifeline.py), not only when it reads the end of its pipe between runs."""
    import multiprocessing
    import signal

    from workers import lifeline

    parent = multiprocessing.parent_process()
    lifeline.bind(signal.SIGKILL, parent=parent.pid if parent else None)
    app = Bare(env=bare_env(env))
    conn.send("ready")
    try:
        while (job := conn.recv()) is not None:
            conn.send(_bare_saves(app, *job))
    finally:
        app.close()
        conn.close()


def writer_shares(clients: int, processes: int) -> list[int]:
    """How many of ``clients`` writers each of ``processes`` processes gets, on both sides of the comparison."""
    return [clients // processes + (1 if i < clients % processes else 0) for i in range(processes)]


def writer_homes(clients: int, processes: int) -> list[int]:
    """The process each writer uses: writer ``i`` of ``writer_shares``, in order."""
    return [p for p, m in enumerate(writer_shares(clients, processes)) for _ in range(m)]


def events_per_command() -> int:
    """How many events the benchmarked command (a power submits and rolls an action) records in its one
    transaction, counted on an in-memory game: the bare side saves that many per save."""
    from application.service import Caller
    from domain.powers.commands import SubmitAction

    games = Games()
    game_id, _, _ = games.create_game("count")
    power, _, _ = add_power(games, game_id, "gm", "C0", "conspiracy", "circle")
    games.send(game_id, "gm", pc.Advance(expected_step="setup"))
    games.send(game_id, "gm", pc.Advance(expected_step="tidings"))
    before = games.get_game(game_id).version
    games.run(Caller.of(power), game_id, SubmitAction(power_id=power, title="count", convert=0))
    return games.get_game(game_id).version - before


class BareProcesses:
    """``processes`` processes saving to the bare store, as the server has ``processes`` processes;
    ``clients`` writer threads in all, spread over them."""

    def __init__(self, env: dict, processes: int) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        self.conns, self.procs = [], []
        for _ in range(processes):
            parent, child = ctx.Pipe()
            proc = ctx.Process(target=_bare_process, args=(child, env), daemon=True)
            proc.start()
            self.conns.append(parent)
            self.procs.append(proc)
            # One at a time: the first creates the tables (concurrent CREATE TABLEs race on PostgreSQL).
            if not parent.poll(60) or parent.recv() != "ready":
                self.close()
                raise RuntimeError("a bare-store process did not start")

    def rate(self, n: int, clients: int, events: int = 1) -> float:
        """Saves per second of ``n`` saves (of ``events`` events each) by ``clients`` writers over all processes."""
        shares = writer_shares(clients, len(self.conns))
        busy = [(c, m) for c, m in zip(self.conns, shares) if m]
        for conn, m in busy:
            conn.send((n * m // clients, m, events))
        results = [conn.recv() for conn, _ in busy]
        return sum(r[0] for r in results) / (max(r[2] for r in results) - min(r[1] for r in results))

    def close(self) -> None:
        for conn in self.conns:
            with contextlib.suppress(OSError):
                conn.send(None)
        for proc in self.procs:
            proc.join(10)
            if proc.is_alive():
                proc.kill()
                proc.join()


def serve(settings: Settings, workers: int = 1, timeout: float = 90):
    """``emissary serve`` in its own process on a loopback port; returns (base_url, stop)."""
    import socket
    import subprocess

    from tests import procs
    from tests.integration.topology import wait_healthy

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    # Embedded workers off and read models kept by a runner, as in production: what is measured is the
    # command path (the bare side does no projection either), not a projector sharing its CPU.
    # The bench creates more games a minute than the per-client limit allows a person.
    env = {
        **os.environ,
        "EMISSARY_DATA_DIR": str(settings.data_dir),
        "EMISSARY_DATABASE_URL": settings.database_url,
        "EMISSARY_PORT": str(port),
        "EMISSARY_EMBEDDED_WORKERS": "false",
        "EMISSARY_READ_MODELS_SYNC": "false",
        "EMISSARY_RATELIMIT_CREATE_GAME": "100000/minute",
    }
    # Its own process group (tests/procs.py): stopping it stops uvicorn's worker processes too.
    proc = procs.start(
        [sys.executable, "-m", "api.cli", "serve", "--port", str(port), "--no-access-log", "--workers", str(workers)],
        env=env,
        cwd=str(Path(__file__).resolve().parent.parent),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        # Generous: on the shared 2 cores, a server's imports alone can take tens of seconds.
        wait_healthy(base, timeout, proc)
    except BaseException:
        procs.stop(proc)
        raise

    def stop() -> None:
        procs.stop(proc)

    return base, stop


def serve_processes(settings: Settings, processes: int) -> tuple[list[str], Callable[[], None]]:
    """``processes`` one-process servers on one store; returns (their base URLs, stop).

    Not ``serve --workers N``: its workers share one listening socket, and the kernel hands each
    keep-alive client to whichever worker wakes first (4 clients on 3 workers land 2-1-1, 2-2 or even
    4-0-0), while the bare side's writers are spread evenly. Separate servers, with each client pinned
    to one the way a writer is pinned to a bare process (``writer_homes``), make both sides alike."""
    from concurrent.futures import ThreadPoolExecutor

    # The first alone, so that it creates the tables before the others start (as BareProcesses does).
    started = [serve(settings)]
    try:
        with ThreadPoolExecutor(max(1, processes - 1)) as pool:
            futures = [pool.submit(serve, settings) for _ in range(processes - 1)]
            for future in futures:
                with contextlib.suppress(Exception):
                    started.append(future.result())
            for future in futures:
                future.result()  # raise the first failure, if any, after keeping every server to stop it
    except BaseException:
        for _, stop in started:
            stop()
        raise

    def stop_all() -> None:
        for _, stop in started:
            stop()

    return [base for base, _ in started], stop_all


def api_setup_games(bases: list[str], n_powers: int, clients: int) -> list[tuple[str, str, list[str]]]:
    """One game per client over HTTP, each with ``n_powers`` powers, at month 1 Planning (not timed), on the
    server the client will play on; returns (base, game, power tokens) per client."""
    import httpx

    homes = writer_homes(clients, len(bases))

    def setup(i: int) -> tuple[str, str, list[str]]:
        base = bases[homes[i]]
        with httpx.Client(base_url=base) as http:
            r = http.post("/games", json={"name": "bench"})
            r.raise_for_status()
            game, gm = r.json()["game_id"], r.json()["gm_token"]
            h = {"Authorization": f"Bearer {gm}"}
            tokens = [
                http.post(
                    f"/games/{game}/powers",
                    headers=h,
                    json={"name": f"C{i}", "cls": "conspiracy", "subclass": "circle"},
                ).json()["token"]
                for i in range(n_powers)
            ]
            http.post(f"/games/{game}/advance", headers=h, json={"expected_step": "setup"})
            http.post(f"/games/{game}/advance", headers=h, json={"expected_step": "tidings"})
        return base, game, tokens

    return [setup(i) for i in range(clients)]


class RawClient:
    """A minimal HTTP/1.1 keep-alive client on one socket: the request's bytes written at once, the status line
    and headers read to find the body's length. http.client parses every response's headers with the email
    package (~0.2 ms of CPU a command here), on the same two cores as the server it measures."""

    def __init__(self, base: str, timeout: float = 30) -> None:
        import socket

        host, port = base.removeprefix("http://").split(":")
        self.host = f"{host}:{port}"
        self.sock = socket.create_connection((host, int(port)), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.file = self.sock.makefile("rb")

    def post(self, path: str, body: bytes, token: str) -> tuple[int, bytes]:
        """POST ``body`` (JSON) with a bearer token; (status, response body)."""
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {self.host}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        self.sock.sendall(head.encode() + body)
        status = int(self.file.readline().split(b" ", 2)[1])
        length = 0
        while (line := self.file.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, self.file.read(length)

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def api_play(games: list[tuple[str, str, list[str]]]) -> float:
    """Durable commands per second over HTTP: each client (a thread) plays its own game on its own server,
    in which every power submits and rolls its 4 actions (``events_per_command`` events in one transaction
    per command)."""
    from concurrent.futures import ThreadPoolExecutor

    def play(job: tuple[str, str, list[str]]) -> int:
        # A lean keep-alive client, so that the client's own CPU (on the same 2 cores) is not measured.
        base, game, tokens = job
        done = 0
        client = RawClient(base)
        try:
            for k in range(4):
                body = json.dumps({"title": f"plot {k}", "convert": 0}).encode()
                for tok in tokens:
                    status, answer = client.post(f"/games/{game}/actions", body, tok)
                    assert status == 201, (status, answer)
                    done += 1
        finally:
            client.close()
        return done

    start = time.perf_counter()
    with ThreadPoolExecutor(len(games)) as pool:
        count = sum(pool.map(play, games))
    return count / (time.perf_counter() - start)


LONG_GAME_POWERS = [
    ("w", "champion", "wizard"),
    ("c", "conspiracy", "circle"),
    ("o", "city", "overlord"),
    ("d", "champion", "dragon"),
]


def build_long_game(games: Games, target_events: int, game: Game | None = None) -> Game:
    """A game of many months (4 powers, 4 actions each, resolved every month) of about ``target_events``,
    driven through the domain (not over HTTP), so that a 10,000-event game takes seconds. ``game``: a game
    in setup that already has the powers of ``LONG_GAME_POWERS`` (e.g. added through the service, with
    tokens); else one is started here."""
    now = datetime(2026, 1, 1, tzinfo=timezone.utc)
    powers = LONG_GAME_POWERS
    g = game
    if g is None:
        g = Game.start("long", "gm")
        for pid, cls, sub in powers:
            g.add_power(pid, pid, cls, sub)
    for pid, _, _ in powers:
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
                g.submit_action(
                    pid,
                    f"a{n}",
                    f"action {n}",
                    now=now,
                    roller=roller,
                    slot=slot,
                    assets=[{"asset_id": f"{pid}-might"}],
                    convert=1,
                    targets=["c"],
                    resistible=(k == 0 and pid != "c"),
                )
        g.advance(now, seed)
        g.resolve(now=now, roller=roller)
        if g.state.step == "resistance":
            g.close_window(g.open_window("resistance").id, now=now + timedelta(days=2))
        games.save(g)
        now += timedelta(days=10)
    return g


def played_game(games: Games, target_events: int) -> tuple[str, str, str]:
    """A long game whose powers were added through the service (so they have tokens), then played
    through the domain to about ``target_events``; returns (game id, the token of power ``c``, the GM's token)."""
    from domain.ids import GM

    game_id, gm_token, _ = games.create_game("long", "gm")
    assert gm_token is not None
    tokens = {}
    for pid, cls, sub in LONG_GAME_POWERS:
        got, token, _ = add_power(games, game_id, GM, pid, cls, sub)
        assert got == pid, got
        tokens[pid] = token
    build_long_game(games, target_events, games.get_game(game_id))
    return game_id, tokens["c"], gm_token


class TimedASGI:
    """Wraps an ASGI app and keeps how long each HTTP request took in the server, from the call to the
    last byte of the response (no client, no socket)."""

    def __init__(self, app) -> None:
        self.app = app
        self.last = 0.0

    async def __call__(self, scope, receive, send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        start = time.perf_counter()

        async def timed_send(message) -> None:
            if message["type"] == "http.response.body" and not message.get("more_body", False):
                self.last = time.perf_counter() - start
            await send(message)

        await self.app(scope, receive, timed_send)


def read_figures(tmp: Path, small: int = 100, large: int = 10_000, runs: int = 15, page: int = 50) -> dict[str, float]:
    """board_10k_vs_100 and events_page_10k_vs_100: server time of a player's board page, and of one
    page (the newest ``page`` events) of ``/events`` and of the feed, in a ``large``-event game divided
    by the same in a ``small``-event game. board_console_10k_vs_100 (issue 17): the player's board and
    the GM's console together, timed alike (each from its own signed-in client). Both games are in one
    SQLite store, built through the domain; the read models are caught up before anything is timed;
    medians of ``runs`` alternating requests."""
    from fastapi.testclient import TestClient

    from api.app import create_app
    from api.compose import build_games

    settings = Settings(data_dir=tmp / "reads", embedded_workers=False)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    builder = build_games(settings)
    built = {size: played_game(builder, size) for size in (small, large)}
    builder.close()
    app = create_app(settings)  # a fresh service, as a server (re)started on this store has
    games, projector = app.state.games, app.state.projector
    while projector.catch_up():
        pass
    timed = TimedASGI(app)
    times: dict[tuple[int, str], list[float]] = {}
    with (
        TestClient(timed) as small_client,
        TestClient(timed) as large_client,
        TestClient(timed) as small_gm,
        TestClient(timed) as large_gm,
    ):
        targets = {}
        gm_clients = {}
        for size, client, gm_client in ((small, small_client, small_gm), (large, large_client, large_gm)):
            game_id, token, gm_token = built[size]
            r = client.get(f"/signin/{game_id}/{token}", follow_redirects=False)
            assert r.status_code == 303, r.status_code
            r = gm_client.get(f"/signin/{game_id}/{gm_token}", follow_redirects=False)
            assert r.status_code == 303, r.status_code
            gm_clients[size] = (gm_client, f"/play/{game_id}")
            n_events = len(games.visible_events(game_id, "c", limit=10**9))
            n_feed = len(projector.feed(str(games.get_game(game_id, for_update=False).id), "c", 0, 10**9))
            auth = {"Authorization": f"Bearer {token}"}
            targets[size] = (
                client,
                {
                    "board": (f"/play/{game_id}", {}),
                    "events": (f"/games/{game_id}/events?after={max(0, n_events - page)}&limit={page}", auth),
                    "feed": (f"/games/{game_id}/feed?after={max(0, n_feed - page)}&limit={page}", auth),
                },
            )
            NOTES.append(
                f"# reads: game of {games.get_game(game_id, for_update=False).version} events, "
                f"{n_events} visible to the player, {n_feed} in the player's feed"
            )
        for run in range(runs + 1):  # the first round warms caches and connections
            for size in (small, large):
                client, routes = targets[size]
                for what, (url, headers) in routes.items():
                    r = client.get(url, headers=headers)
                    assert r.status_code == 200, (url, r.status_code)
                    if run:
                        times.setdefault((size, what), []).append(timed.last)
                gm_client, console = gm_clients[size]
                r = gm_client.get(console)
                assert r.status_code == 200 and "GM console" in r.text, (console, r.status_code)
                if run:
                    times.setdefault((size, "console"), []).append(timed.last)
    games.close()
    med = {key: statistics.median(v) for key, v in times.items()}
    spread = {key: (min(v), max(v)) for key, v in times.items()}
    for what in ("board", "console", "events", "feed"):
        NOTES.append(
            f"# {what}: {small}-event game {med[small, what] * 1000:.1f} ms "
            f"({spread[small, what][0] * 1000:.1f}-{spread[small, what][1] * 1000:.1f}), "
            f"{large}-event game {med[large, what] * 1000:.1f} ms "
            f"({spread[large, what][0] * 1000:.1f}-{spread[large, what][1] * 1000:.1f}); "
            f"server time, median of {runs}"
        )
    ratio_of = {what: med[large, what] / med[small, what] for what in ("board", "events", "feed")}
    both = {
        size: statistics.median(b + c for b, c in zip(times[size, "board"], times[size, "console"]))
        for size in (small, large)
    }
    return {
        "board_10k_vs_100": ratio_of["board"],
        "board_console_10k_vs_100": both[large] / both[small],
        "events_page_10k_vs_100": max(ratio_of["events"], ratio_of["feed"]),
        "events_page_10k_vs_100_events": ratio_of["events"],
        "events_page_10k_vs_100_feed": ratio_of["feed"],
    }


def post_figures(tmp: Path, small: int = 100, large: int = 10_000, runs: int = 15, page: int = 50) -> dict[str, float]:
    """thread_page_10k_vs_100 and search_10k_posts_ms (issue 16): server time of one page (the newest ``page``
    posts) of a thread of ``large`` posts divided by one of ``small`` posts, both in one game; and of a search
    over the ``large`` posts, as a ratio to one read of the player's board. SQLite; posts made through the
    domain, the read models caught up before anything is timed; medians of ``runs`` alternating requests."""
    from fastapi.testclient import TestClient

    from api.app import create_app
    from api.compose import build_games

    settings = Settings(data_dir=tmp / "posts", embedded_workers=False)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    builder = build_games(settings)
    game_id, _, _ = builder.create_game("talkative", "gm")
    tokens = {pid: add_power(builder, game_id, "gm", pid, cls, sub)[1] for pid, cls, sub in LONG_GAME_POWERS}
    g = builder.get_game(game_id)
    g.open_thread("c", ["o"], "the small thread", "thr-small")
    words = ["amber", "basalt", "cinder", "dune", "ember", "fjord", "glacier", "heath"]
    for i in range(max(small, large)):
        if i < small:
            g.make_post("o", "thr-small", f"small post {i} about the {words[i % len(words)]}", post_id=f"s{i}")
        g.make_post("c" if i % 2 else "o", "table", f"post {i} on the {words[i % len(words)]} road", post_id=f"l{i}")
        if i % 500 == 499:
            builder.save(g)
    builder.save(g)
    builder.close()
    app = create_app(settings)
    games, projector = app.state.games, app.state.projector
    while projector.catch_up():
        pass
    timed = TimedASGI(app)
    auth = {"Authorization": f"Bearer {tokens['c']}"}
    routes = {
        "small": f"/games/{game_id}/threads/thr-small/posts?limit={page}",
        "large": f"/games/{game_id}/threads/table/posts?limit={page}",
        "search": f"/games/{game_id}/search?q=glacier+road&limit={page}",
        "board": f"/play/{game_id}",
    }
    times: dict[str, list[float]] = {}
    with TestClient(timed) as client:
        r = client.get(f"/signin/{game_id}/{tokens['c']}", follow_redirects=False)
        assert r.status_code == 303, r.status_code
        for run in range(runs + 1):  # the first round warms caches and connections
            for what, url in routes.items():
                r = client.get(url, headers=auth)
                assert r.status_code == 200, (url, r.status_code)
                if what == "search":
                    assert len(r.json()) == page, len(r.json())
                if run:
                    times.setdefault(what, []).append(timed.last)
    games.close()
    med = {what: statistics.median(v) for what, v in times.items()}
    NOTES.append(
        f"# posts: a page of {page} of a {small}-post thread {med['small'] * 1000:.1f} ms, of a {large}-post thread "
        f"{med['large'] * 1000:.1f} ms; search over {large} posts {med['search'] * 1000:.1f} ms; the board "
        f"{med['board'] * 1000:.1f} ms; server time, median of {runs}"
    )
    return {
        "thread_page_10k_vs_100": med["large"] / med["small"],
        "search_10k_posts_ms": med["search"] / med["board"],
    }


class ApiCalls:
    """One keep-alive HTTP connection to a server, for a client that plays a game step by step."""

    def __init__(self, base: str) -> None:
        import http.client

        host, port = base.removeprefix("http://").split(":")
        self.conn = http.client.HTTPConnection(host, int(port), timeout=60)

    def __call__(self, method: str, path: str, token: str, body: dict | None = None, ok: tuple = (200, 201)) -> dict:
        self.conn.request(
            method,
            path,
            body=json.dumps(body) if body is not None else None,
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
        )
        r = self.conn.getresponse()
        data = r.read()
        assert r.status in ok, (method, path, r.status, data[:300])
        return json.loads(data) if data else {}

    def close(self) -> None:
        self.conn.close()


def actions_over_http(call: ApiCalls, n_powers: int, months: dict[str, int]) -> Iterator[float]:
    """A new Powers game of ``n_powers`` powers over HTTP; each step submits its next action (a power's
    action, rolled on receipt; the GM moves the game on first, untimed, when the month's slots are used)
    and yields the action's round-trip seconds. ``months`` counts each game's months."""
    created = call("POST", "/games", "", {"name": "late"})
    game, gm = created["game_id"], created["gm_token"]
    tokens = [
        call("POST", f"/games/{game}/powers", gm, {"name": f"C{i}", "cls": "conspiracy", "subclass": "circle"})["token"]
        for i in range(n_powers)
    ]
    planned: set[str] = set()

    def to_planning() -> None:
        """GM: move the game on to the next month's Planning."""
        while True:
            view = call("GET", f"/games/{game}/view", gm)
            step, resolved = view["game"]["step"], view["game"]["resolved"]
            open_windows = [w["window_id"] for w in view["windows"] if not w["closed"]]
            if step == "planning" and open_windows and open_windows[0] not in planned:
                planned.add(open_windows[0])
                return
            if step == "resolution" and not resolved:
                call("POST", f"/games/{game}/resolve", gm, {"expected_step": step})
            elif step == "resistance" and open_windows:
                for wid in open_windows:
                    call("POST", f"/games/{game}/windows/{wid}/close", gm, {"expected_step": step})
            else:
                call("POST", f"/games/{game}/advance", gm, {"expected_step": step})

    while True:
        to_planning()
        months[game] = months.get(game, 0) + 1
        for k in range(4):
            for token in tokens:
                start = time.perf_counter()
                call("POST", f"/games/{game}/actions", token, {"title": f"plot {months[game]}.{k}", "convert": 0})
                yield time.perf_counter() - start


def command_late_vs_early(
    tmp: Path,
    actions: int = 1000,
    window: int = 200,
    n_powers: int = 5,
    games: int = 3,
    name: str = "command_late_vs_early",
) -> float:
    """Action submissions per second (one client, sequential, over HTTP to a real server on SQLite) in
    the last ``window`` of an ``actions``-action game divided by the first ``window`` of a game. Every
    power uses its 4 actions a month, and the GM moves the game on month after month between them (not
    timed). So that the other load on a shared machine hits both alike, the two are timed side by side:
    an old game is first played to ``actions - window`` actions, then a new game's actions and the old
    game's last ones alternate. ``games`` such pairs on one warmed server: the median of their ratios."""
    settings = Settings(data_dir=tmp / f"late-{n_powers}")
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    base, stop = serve(settings)
    api = ApiCalls(base)
    months: dict[str, int] = {}

    def play() -> Iterator[float]:
        return actions_over_http(api, n_powers, months)

    try:
        api_play(api_setup_games([base], 2, 1))  # warm the server on another game first
        pairs = []
        for _ in range(games):
            old = play()
            for _ in range(actions - window):
                next(old)
            young = play()
            early, late = [], []
            for _ in range(window):
                early.append(next(young))
                late.append(next(old))
            pairs.append((window / sum(early), window / sum(late)))
    finally:
        api.close()
        stop()
    ratios = sorted(late / early for early, late in pairs)
    NOTES.append(
        f"# {name}: {games} pair(s) of games, {n_powers} powers, {max(months.values())} month(s) to "
        f"{actions} actions; one client, sequential, SQLite, embedded workers off: first {window} "
        f"{', '.join(f'{e:.0f}' for e, _ in pairs)}/s, last {window} "
        f"{', '.join(f'{la:.0f}' for _, la in pairs)}/s; ratios {', '.join(f'{r:.2f}' for r in ratios)}"
    )
    return statistics.median(ratios)


ROOT = Path(__file__).resolve().parent.parent
PEER_SCRIPT = ROOT / "tests" / "bench_peer" / "peer.js"
PEER_CACHE = ROOT / ".bench-cache" / "boardgameio"
PEER_PACKAGE = "boardgame.io@0.50"


def install_peer(cache: Path = PEER_CACHE) -> Path | None:
    """boardgame.io 0.50 from the npm registry into the bench's own cache (gitignored), once; None, with a
    note saying why, when npm or node is absent or when run in CI (the peer is never installed there)."""
    import shutil
    import subprocess

    if os.environ.get("CI"):
        NOTES.append("# vs_boardgameio_memory: skipped in CI (the peer, boardgame.io, is installed from npm)")
        return None
    if shutil.which("npm") is None or shutil.which("node") is None:
        NOTES.append("# vs_boardgameio_memory: skipped, npm (or node) is not installed to fetch boardgame.io 0.50")
        return None
    installed = cache / "node_modules" / "boardgame.io" / "package.json"
    if not installed.exists() or not json.loads(installed.read_text())["version"].startswith("0.50."):
        cache.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["npm", "install", "--prefix", str(cache), "--no-audit", "--no-fund", "--loglevel=error", PEER_PACKAGE],
            check=True,
            timeout=600,
            stdout=subprocess.DEVNULL,
        )
    return cache


def node_peer(cache: Path) -> tuple[list[str], list[str]]:
    """The argv of the peer's server and of its client (tests/bench_peer/peer.js), less the client's port."""
    return ["node", str(PEER_SCRIPT), "server", str(cache)], ["node", str(PEER_SCRIPT), "client", str(cache)]


class Peer:
    """The peer's server and one client, each a process of its own (tests/procs.py: stopped with their
    children, whatever happens); the client plays when told, over a line protocol on its stdin and stdout."""

    def __init__(self, server: list[str], client: list[str], timeout: float = 60) -> None:
        import subprocess

        from tests import procs

        self.timeout = timeout
        self.procs: list[subprocess.Popen] = []
        self.lines: dict[int, Any] = {}  # pid -> the queue of its stdout's lines
        env = {**os.environ, "NODE_ENV": "production"}  # as deployed: no debug logging, no dev-only checks
        pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "text": True, "env": env, "cwd": str(ROOT)}
        try:
            self.server = procs.start(server, **pipes)
            self.procs.append(self.server)
            port = ""
            while not port:
                words = self._line(self.server).split()
                if words[:1] == ["listening"]:
                    port = words[1]
            self.client = procs.start([*client, port], **pipes)
            self.procs.append(self.client)
        except BaseException:
            self.close()
            raise

    def _line(self, proc) -> str:
        """The next line ``proc`` writes, waiting at most the timeout (a thread reads each pipe: a buffered
        pipe's second line may already be read from the file, where select would not see it)."""
        import queue
        import threading

        if proc.pid not in self.lines:
            self.lines[proc.pid] = queue.Queue()
            threading.Thread(target=lambda q=self.lines[proc.pid]: [q.put(x) for x in proc.stdout], daemon=True).start()
        try:
            return self.lines[proc.pid].get(timeout=self.timeout)
        except queue.Empty:
            raise RuntimeError(f"the peer ({proc.args[2]}) did not answer in {self.timeout:.0f} s") from None

    def ask(self, command: str) -> dict:
        """Send one command to the client; its JSON answer (an error in it is raised)."""
        self.client.stdin.write(command + "\n")
        self.client.stdin.flush()
        answer = json.loads(self._line(self.client))
        if "error" in answer:
            raise RuntimeError(f"the peer failed: {answer['error']}")
        return answer

    def new_match(self) -> None:
        self.ask("new")

    def play(self, n: int) -> list[float]:
        """``n`` actions one after another in the current match; each one's round-trip seconds."""
        return [float(s) for s in self.ask(f"play {n}")["seconds"]]

    def close(self) -> None:
        from tests import procs

        for proc in reversed(self.procs):
            procs.stop(proc, grace=5)


def vs_boardgameio_memory(
    tmp: Path,
    actions: int = 1000,
    window: int = 200,
    chunk: int = 20,
    games: int = 3,
    n_powers: int = 5,
    peer_argv: tuple[list[str], list[str]] | None = None,
) -> dict[str, float]:
    """vs_boardgameio_memory_early and _late: one client submitting actions one after another, each rolled
    (3 dice) on the server, over each one's usual network transport: Emissary's HTTP API on its embedded,
    durable store (``serve``: SQLite, synchronous commits; workers and read models left to a runner, as in
    the other command figures), against boardgame.io 0.50's server (Koa and socket.io, the match in memory,
    not durable) and its client (tests/bench_peer/peer.js). Each side plays a game of ``actions`` actions
    (five seats, four actions a month, a new month after every seat's four; Emissary's GM moves the game on
    between months, untimed); the two alternate every ``chunk`` actions, so that the machine's other load
    hits both alike. Rates of the first and last ``window`` actions; Emissary's over the peer's, the median
    of ``games`` pairs of games after a warming game on each. ``peer_argv``: the peer's server and client
    commands (default: node and boardgame.io from ``install_peer``); {} when the peer cannot be had."""
    if peer_argv is None:
        cache = install_peer()
        if cache is None:
            return {}
        peer_argv = node_peer(cache)
    settings = Settings(data_dir=tmp / "peer")
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    base, stop = serve(settings)
    api = ApiCalls(base)
    months: dict[str, int] = {}
    peer = None
    rates: list[tuple[float, float, float, float]] = []  # ours early, theirs early, ours late, theirs late
    try:
        peer = Peer(*peer_argv)
        ours = actions_over_http(api, n_powers, months)  # warm both: a first game of ``window`` actions each
        for _ in range(window):
            next(ours)
        peer.new_match()
        peer.play(window)
        for _ in range(games):
            ours = actions_over_http(api, n_powers, months)
            peer.new_match()
            mine: list[float] = []
            theirs: list[float] = []
            while len(mine) < actions:
                step = min(chunk, actions - len(mine))
                mine += [next(ours) for _ in range(step)]
                theirs += peer.play(step)
            early_pair = (window / sum(mine[:window]), window / sum(theirs[:window]))
            late_pair = (window / sum(mine[-window:]), window / sum(theirs[-window:]))
            rates.append((*early_pair, *late_pair))
    finally:
        if peer is not None:
            peer.close()
        api.close()
        stop()
    early = sorted(a / b for a, b, _, _ in rates)
    late = sorted(c / d for _, _, c, d in rates)
    NOTES.append(
        f"# vs_boardgameio_memory: {games} pair(s) of games of {actions} actions, one client each, alternating every "
        f"{chunk}; first {window}: Emissary {', '.join(f'{r[0]:.0f}' for r in rates)}/s, boardgame.io "
        f"{', '.join(f'{r[1]:.0f}' for r in rates)}/s; last {window}: Emissary "
        f"{', '.join(f'{r[2]:.0f}' for r in rates)}/s, boardgame.io {', '.join(f'{r[3]:.0f}' for r in rates)}/s; "
        f"ratios early {', '.join(f'{r:.2f}' for r in early)}, late {', '.join(f'{r:.2f}' for r in late)}"
    )
    return {
        "vs_boardgameio_memory_early": statistics.median(early),
        "vs_boardgameio_memory_late": statistics.median(late),
    }


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
    NOTES.append(
        f"# game of {full.version} events: full replay {statistics.median(replays) * 1000:.1f} ms, "
        f"past version get {per_get * 1000:.2f} ms"
    )
    plain.close()
    snap.close()
    return statistics.median(replays), per_get


def ratio(
    name: str,
    settings: Settings,
    store_env: dict,
    clients: int,
    n_powers: int,
    workers: int = 1,
    runs: int = 5,
    bare_saves: int = 1200,
) -> float:
    """API commands per second divided by bare saves per second, like for like: ``workers`` server
    processes against ``workers`` bare-store processes, ``clients`` writers on both sides spread over them
    alike (``writer_shares``), each bare save recording as many events in its transaction as one command
    does, embedded workers off, both sides warmed first, then ``runs`` alternating runs; the median of the
    runs' ratios."""
    events = events_per_command()
    bare = BareProcesses(store_env, workers)
    try:
        bases, stop = serve_processes(settings, workers)
    except BaseException:
        bare.close()
        raise
    try:
        per_client = max(1, n_powers // clients)
        bare.rate(max(clients, bare_saves // 10), clients, events)  # warm: connections, tables, imports
        api_play(api_setup_games(bases, max(1, per_client // 10), clients))
        bares, apis = [], []
        for _ in range(runs):
            bares.append(bare.rate(bare_saves, clients, events))
            apis.append(api_play(api_setup_games(bases, per_client, clients)))
    finally:
        stop()
        bare.close()
    ratios = sorted(a / b for a, b in zip(apis, bares))
    NOTES.append(
        f"# {name}: {clients} writer(s), {workers} process(es) each side, {runs} alternating runs, "
        f"{events} event(s) per command and per bare save: "
        f"bare saves median {statistics.median(bares):.0f}/s ({min(bares):.0f}-{max(bares):.0f}), "
        f"API commands median {statistics.median(apis):.0f}/s ({min(apis):.0f}-{max(apis):.0f}); "
        f"ratios {', '.join(f'{r:.2f}' for r in ratios)}"
    )
    return statistics.median(ratios)


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
    from api.compose import build_projector

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
            NOTES.append(
                f"# {size} events: full replay {full * 1000:.0f} ms, phase view {views[size] * 1000:.2f} ms; "
                f"rebuild {rebuild_rate:.0f} events/s, raw scan and decode {scan:.0f} events/s"
            )
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

    from api.compose import build_projector
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
    topo = Topology(
        {
            "EMISSARY_DATABASE_URL": settings.database_url,
            "EMISSARY_BROKER_URL": "redis://127.0.0.1:6379/9",
            "EMISSARY_SWEEP_SECONDS": str(sweep_seconds),
            "EMISSARY_DATA_DIR": str(logdir),
        },
        logdir,
    )
    try:
        ids, due = make_windows(games, count, timedelta(seconds=10))
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
    NOTES.append(
        f"# {len(closed)}/{count} windows due at once closed; lag p50 {lags[len(lags) // 2]:.2f}s, "
        f"p99 {p99:.2f}s, last {span:.2f}s; sweep every {sweep_seconds}s"
    )
    return {"close_lag_p99_over_sweep": p99 / sweep_seconds, "window_closes_per_s": len(closed) / max(span, 1e-3)}


def command_figures(tmp: Path, pg_url: str) -> dict[str, float]:
    """command_vs_bare_store (PostgreSQL, 4 writers, 3 processes each side) and the one-writer figures."""
    figures: dict[str, float] = {}
    sqlite_settings = Settings(data_dir=tmp / "api")
    sqlite_settings.data_dir.mkdir(parents=True, exist_ok=True)
    sqlite_env = {**sqlite_settings.eventsourcing_env(), "SQLITE_DBNAME": str(tmp / "bare.sqlite3")}
    if pg_url:
        import psycopg

        schema = f"bench_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
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
    return figures


def covenants_turn_vs_powers_action(tmp: Path, runs: int = 30, seasons: int = 3, months: int = 3) -> float:
    """Server time of one Create/Play turn of the covenant game (the seat at turn generates a card and keeps
    it, or discards it if it cannot) divided by the server time of one Powers action submission, like for
    like: one in-process service (``build_games``) on one SQLite store, timed around the service's ``run``
    (no HTTP), both warmed by a first game, then ``runs`` alternating samples; medians. Games of similar
    length: a covenant game plays ``seasons`` seasons (3 seats), a Powers game ``months`` months (3 powers,
    4 actions a month each), and a new game of each starts when one is done (the moves between are untimed)."""
    from api.compose import build_games
    from application.service import Caller
    from domain.covenants.commands import Discard, Generate, Keep, Pass
    from domain.errors import RuleViolation
    from domain.powers.commands import SubmitAction
    from tests.covenants.play import move_all, pass_main, seat_three

    settings = Settings(data_dir=tmp / "turns", embedded_workers=False)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    games = build_games(settings)
    lengths: dict[str, list[int]] = {"covenants": [], "powers": []}

    def covenant_turns() -> Iterator[float]:
        while True:
            t = seat_three(games)
            for season in range(seasons):
                move_all(t, [3 * season + 1, 3 * season + 2, 3 * season + 3])
                while t.phase() == "create":
                    seat = t.turn()[0]
                    start = time.perf_counter()
                    card = t.run(seat, Generate(seat))["card_id"]
                    if card is not None:
                        try:
                            t.run(seat, Keep(seat, card))
                        except RuleViolation:
                            t.run(seat, Discard(seat, card))
                    yield time.perf_counter() - start
                pass_main(t)
                while t.phase() == "events":
                    t.run(t.turn()[0], Pass(t.turn()[0]))
            lengths["covenants"].append(games.get_game(t.game_id, for_update=False).version)

    def powers_actions() -> Iterator[float]:
        while True:
            game_id, _, _ = games.create_game("powers", "gm")
            powers = [add_power(games, game_id, "gm", f"C{i}", "conspiracy", "circle")[0] for i in range(3)]
            planned: set[str] = set()
            for month in range(months):
                while True:
                    view = games.view(game_id, "gm")
                    step, resolved = view["game"]["step"], view["game"]["resolved"]
                    open_windows = [w["window_id"] for w in view["windows"] if not w["closed"]]
                    if step == "planning" and open_windows and open_windows[0] not in planned:
                        planned.add(open_windows[0])
                        break
                    if step == "resolution" and not resolved:
                        games.send(game_id, "gm", pc.Resolve(expected_step=step))
                    elif step == "resistance" and open_windows:
                        for wid in open_windows:
                            games.close_window(game_id, "gm", wid)
                    else:
                        games.send(game_id, "gm", pc.Advance(expected_step=step))
                for k in range(4):
                    for power in powers:
                        start = time.perf_counter()
                        games.run(
                            Caller.of(power), game_id, SubmitAction(power_id=power, title=f"p{month}.{k}", convert=0)
                        )
                        yield time.perf_counter() - start
            lengths["powers"].append(games.get_game(game_id, for_update=False).version)

    try:
        turns, actions = covenant_turns(), powers_actions()
        warm = max(9 * seasons, 12 * months)  # a whole first game of each
        for _ in range(warm):
            next(turns)
            next(actions)
        turn_times, action_times = [], []
        for _ in range(runs):
            turn_times.append(next(turns))
            action_times.append(next(actions))
    finally:
        games.close()
    turn, action = statistics.median(turn_times), statistics.median(action_times)
    NOTES.append(
        f"# covenants_turn_vs_powers_action: one in-process service on SQLite, timed around run; "
        f"Create/Play turn {turn * 1000:.2f} ms (median of {runs}, {min(turn_times) * 1000:.2f}-"
        f"{max(turn_times) * 1000:.2f}), Powers action {action * 1000:.2f} ms ({min(action_times) * 1000:.2f}-"
        f"{max(action_times) * 1000:.2f}); games of {', '.join(map(str, lengths['covenants']))} (covenants) and "
        f"{', '.join(map(str, lengths['powers']))} (Powers) events"
    )
    return turn / action


def battle_round_vs_command(tmp: Path, runs: int = 40, warm: int = 12) -> dict[str, float]:
    """battle_round_vs_command: the server time to resolve one battle round of 8 armies divided by the server
    time of one Powers action submission, like for like: one in-process service (``build_games``) on one SQLite
    store, timed around the service's ``run`` (no HTTP), both warmed, then ``runs`` alternating samples; medians.

    Resolving the round is the one call that closes its Commands window at the deadline: the 8 armies' orders by
    the GM's default (each a standing Slay order, else Hold), with their attack, morale and presence dice, turn
    by turn, then the Goals scored (and, when no side may offer terms, the Cleanup's statuses). The players'
    own later decisions (terms, retreats) are windows of their own: ``battle_round_vs_command_all_windows`` sums
    every close from one round's Commands window to the next round's. Two sides of two powers, 8 armies of 4
    units; a new battle (in a new game) starts when one ends or loses an army. The action is a SubmitAction rolled
    on receipt, in
    a game of 3 powers (a new game after 4 actions each)."""
    from api.compose import build_games
    from application.service import Caller
    from domain.platform.commands import CloseWindow
    from domain.powers.commands import SubmitAction
    from tests.scenarios import four_power_battle

    settings = Settings(data_dir=tmp / "battle", embedded_workers=False)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    games = build_games(settings)
    gm = Caller.of("gm")
    sizes: list[int] = []

    def new_battle() -> str:
        return four_power_battle(games, "battle bench")[0]

    def the_battle(gid: str) -> dict:
        return games.view(gid, "gm")["battles"][0]

    def rounds() -> Iterator[float]:
        while True:
            gid = new_battle()
            b = the_battle(gid)
            while b["step"] != "commands" and b["step"] != "ended":
                games.run(gm, gid, CloseWindow(b["window"]))
                b = the_battle(gid)
            while b["step"] != "ended":
                start_round, spent, resolve = b["round"], 0.0, None
                if len([a for a in b["armies"] if a["where"] == "deployed" and a["size"]]) < 8:
                    break  # a round of 8 armies: a battle that lost one gives way to a new one
                sizes.append(8)
                while b["step"] != "ended" and (b["round"] == start_round or b["step"] != "commands"):
                    start = time.perf_counter()
                    games.run(gm, gid, CloseWindow(b["window"]))
                    took = time.perf_counter() - start
                    resolve = took if resolve is None else resolve
                    spent += took
                    b = the_battle(gid)
                if b["step"] != "ended" and resolve is not None:  # a whole round, to the next round's Commands
                    yield resolve, spent

    def actions() -> Iterator[float]:
        while True:
            gid, _, _ = games.create_game("actions", "gm")
            powers = [add_power(games, gid, "gm", f"C{i}", "conspiracy", "circle")[0] for i in range(3)]
            games.send(gid, "gm", pc.Advance())
            games.send(gid, "gm", pc.Advance())
            for k in range(4):
                for p in powers:
                    start = time.perf_counter()
                    games.run(Caller.of(p), gid, SubmitAction(power_id=p, title=f"a{k}", convert=0))
                    yield time.perf_counter() - start

    try:
        r, a = rounds(), actions()
        for _ in range(warm):  # a battle's first rounds, and a whole first game of actions
            next(r)
            next(a)
        round_times, whole_times, action_times = [], [], []
        for _ in range(runs):
            resolve, whole = next(r)
            round_times.append(resolve)
            whole_times.append(whole)
            action_times.append(next(a))
    finally:
        games.close()
    per_round, whole, action = (statistics.median(x) for x in (round_times, whole_times, action_times))
    NOTES.append(
        f"# battle_round_vs_command: one in-process service on SQLite, timed around run; a round of 8 armies "
        f"resolved at its Commands deadline {per_round * 1000:.2f} ms (median of {runs}, "
        f"{min(round_times) * 1000:.2f}-{max(round_times) * 1000:.2f}; every window of the round {whole * 1000:.2f} "
        f"ms; {len(sizes)} rounds of 8 armies on the field), Powers action {action * 1000:.2f} ms "
        f"({min(action_times) * 1000:.2f}-{max(action_times) * 1000:.2f})"
    )
    return {"battle_round_vs_command": per_round / action, "battle_round_vs_command_all_windows": whole / action}


def lodge_long_package(turns: int) -> dict:
    """The default rules package with its game end moved to ``turns`` turns (the installed one ends after 3)."""
    from domain.lodge.package import DEFAULT_PACKAGE, installed_package

    package = installed_package(DEFAULT_PACKAGE)
    return package.model_copy(update={"game_end": package.game_end.model_copy(update={"after_turns": turns})})


def effect_phrases_per_s_vs_events_saved(tmp: Path, turns: int = 60, runs: int = 5, warm_turns: int = 6) -> float:
    """Lodge phrases resolved per second in a long scripted game divided by bare saves per second on the same
    store, like for like: one in-process service (``build_games``) on SQLite, timed around the service's
    ``run`` for every Mage command that resolves phrases (two spell casts and a walk a turn); the bare side
    saves as many tiny events in each transaction as such a command records (the median, counted). The game
    pins the default package with its end moved past ``turns`` turns; the Mages' preparing and the host's
    moving the phases on are untimed. Both sides warmed, then ``runs`` alternating runs of equal shares of
    the turns; the median of the runs' ratios."""
    from unittest import mock

    from api.compose import build_games
    from application.service import Caller
    from domain.lodge.ruleset import AddMage, AdvancePhase, BeginGame, CastSpell, PhysicalAction, PrepareSpells

    settings = Settings(data_dir=tmp / "lodge", embedded_workers=False)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    long = lodge_long_package(turns + warm_turns)
    with mock.patch("domain.lodge.game.installed_package", lambda name: long):
        games = build_games(settings)
        game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    bare = Bare(env=bare_env({**settings.eventsourcing_env(), "SQLITE_DBNAME": str(tmp / "lodge-bare.sqlite3")}))
    gm, ann, bob = (Caller.of(p) for p in ("gm", "ann", "bob"))
    games.run_many(gm, game_id, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    per_cast: list[int] = []

    def play_turn(n: int) -> tuple[int, float, int]:
        """One turn; returns (phrases resolved, seconds in the Mages' commands, those commands)."""
        phrases, seconds, casts = 0, 0.0, 0
        games.run(ann, game_id, PrepareSpells("ann", {"QUICK": "unravel"}))
        games.run(bob, game_id, PrepareSpells("bob", {"QUICK": "tremor"}))
        games.run(gm, game_id, AdvancePhase("prepare"))
        walk = PhysicalAction("bob", "walk", moves=["hall" if n % 2 else "library"])
        for caster, command in (
            (ann, CastSpell("ann", "QUICK", "observatory")),
            (bob, CastSpell("bob", "QUICK", "library")),
            (bob, walk),  # entering a Room resolves its phrases too
        ):
            start = time.perf_counter()
            receipt = games.run(caster, game_id, command)
            seconds += time.perf_counter() - start
            phrases += receipt.events.count("PhraseResolved")
            per_cast.append(len(receipt.events))
            casts += 1
        games.run(gm, game_id, AdvancePhase("actions"))
        games.run(gm, game_id, AdvancePhase("black-rose"))
        return phrases, seconds, casts

    try:
        for n in range(warm_turns):
            play_turn(n)
        events = max(1, round(statistics.median(per_cast)))
        _bare_saves(bare, 20, 1, events)  # warm: connection, tables, imports
        share = max(1, turns // runs)
        ratios, rates, bares = [], [], []
        n = warm_turns
        for _ in range(runs):
            phrases, seconds, casts = 0, 0.0, 0
            for _ in range(share):
                p, s, c = play_turn(n)
                phrases, seconds, casts = phrases + p, seconds + s, casts + c
                n += 1
            saves, start, end = _bare_saves(bare, casts, 1, events)
            rates.append(phrases / seconds)
            bares.append(saves / (end - start))
            ratios.append(rates[-1] / bares[-1])
        length = games.get_game(game_id, for_update=False).version
    finally:
        games.close()
        bare.close()
    NOTES.append(
        f"# effect_phrases_per_s_vs_events_saved: one Lodge game of {n} turns, {length} events, SQLite, in-process "
        f"service timed around run; {events} events a Mage command; phrases {', '.join(f'{r:.0f}' for r in rates)}/s, "
        f"bare saves {', '.join(f'{b:.0f}' for b in bares)}/s; {runs} alternating runs, ratios "
        f"{', '.join(f'{r:.2f}' for r in sorted(ratios))}"
    )
    return statistics.median(ratios)


def late_vs_early_figures(tmp: Path) -> dict[str, float]:
    """The game as players play it (5 powers, every slot used, month after month: the history grows);
    and a crowded month (250 powers, all 1,000 actions in one month: the state grows)."""
    return {
        "command_late_vs_early": command_late_vs_early(tmp),
        "command_late_vs_early_one_month": command_late_vs_early(
            tmp, n_powers=250, games=1, name="command_late_vs_early_one_month"
        ),
    }


def past_version_figures(tmp: Path) -> dict[str, float]:
    env = {**Settings(data_dir=tmp).eventsourcing_env(), "SQLITE_DBNAME": str(tmp / "long.sqlite3")}
    replay, past = replay_vs_past_version(env, 10_000)
    return {"past_version_vs_replay": replay / past}


class AsyncRaw:
    """``RawClient`` on asyncio: one keep-alive HTTP/1.1 connection of many in one event loop, so that hundreds of
    clients cost the bench one thread (hundreds of threads would contend for the GIL on the two cores they share
    with the server they measure)."""

    def __init__(self, reader, writer, host: str) -> None:
        self.reader, self.writer, self.host = reader, writer, host

    @classmethod
    async def open(cls, base: str) -> AsyncRaw:
        import asyncio
        import socket

        host, port = base.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.get_extra_info("socket").setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return cls(reader, writer, f"{host}:{port}")

    async def request(self, method: str, path: str, body: dict | None = None, token: str = "") -> tuple[int, bytes]:
        data = json.dumps(body).encode() if body is not None else b""
        auth = f"Authorization: Bearer {token}\r\n" if token else ""
        head = (
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\n{auth}"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        self.writer.write(head.encode() + data)
        status = int((await self.reader.readline()).split(b" ", 2)[1])
        length = 0
        while (line := await self.reader.readline()) not in (b"\r\n", b"\n", b""):
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        return status, await self.reader.readexactly(length)

    async def call(self, method: str, path: str, body: dict | None = None, token: str = "") -> dict:
        status, answer = await self.request(method, path, body, token)
        assert status in (200, 201), (method, path, status, answer[:300])
        return json.loads(answer) if answer else {}

    def close(self) -> None:
        self.writer.close()


def cpu_seconds(pid: int) -> float | None:
    """A process's user + system CPU seconds so far, from /proc/<pid>/stat (None if it is gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()  # state is field 3; utime and stime are fields 14 and 15
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def runqueue_wait_seconds(pid: int) -> float | None:
    """Seconds a process's threads have waited, runnable, for a core so far (/proc/<pid>/task/*/schedstat's second
    field): time the machine's other load took from it. None if it is gone."""
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return None
    waited = 0
    for task in tasks:
        with contextlib.suppress(OSError, IndexError, ValueError):
            with open(f"/proc/{pid}/task/{task}/schedstat") as fh:
                waited += int(fh.read().split()[1])
    return waited / 1e9


def machine_busy_seconds() -> float:
    """CPU seconds the whole machine (every core, everyone's processes) has been busy, from /proc/stat."""
    with open("/proc/stat") as fh:
        ticks = [int(x) for x in fh.readline().split()[1:]]
    return (sum(ticks[:8]) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # less idle and iowait


class CpuSampler:
    """CPU seconds that named sets of processes use between ``begin`` and ``end`` (``name``), and seconds they wait
    for a core (``name:wait``), sampled every half second from /proc (PostgreSQL's backends come and go with the
    pools' overflow: one first seen after ``begin`` counts from zero; one that ends between samples loses its last
    half second)."""

    def __init__(self, groups: dict[str, Callable[[], list[int]]]) -> None:
        import threading

        self.groups = groups
        self.base: dict[tuple[str, int], float] = {}
        self.last: dict[tuple[str, int], float] = {}
        self.started = False
        self.lock = threading.Lock()  # the sampler's thread and ``begin``/``end`` take turns
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _sample(self) -> None:
        with self.lock:
            self._sample_locked()

    def _sample_locked(self) -> None:
        for name, pids in self.groups.items():
            for pid in pids():
                for key, seconds in (
                    ((name, pid), cpu_seconds(pid)),
                    ((f"{name}:wait", pid), runqueue_wait_seconds(pid)),
                ):
                    if seconds is None:
                        continue
                    if key not in self.base:
                        self.base[key] = 0.0 if self.started else seconds
                    self.last[key] = seconds

    def _run(self) -> None:
        while not self.stopping.wait(0.5):
            with contextlib.suppress(Exception):  # a sample missed is a half second lost, not a failed bench
                self._sample()

    def begin(self) -> None:
        with self.lock:
            self.started = False
            self.base.clear()
            self.last.clear()
            self._sample_locked()
            self.started = True

    def end(self) -> dict[str, float]:
        self._sample()
        used = {key: 0.0 for name in self.groups for key in (name, f"{name}:wait")}
        for (name, pid), seconds in self.last.items():
            used[name] += seconds - self.base[(name, pid)]
        return used

    def close(self) -> None:
        self.stopping.set()
        self.thread.join(5)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))]


async def capacity_setup(base: str, games: int, seats: int, parallel: int = 16) -> list[tuple[str, list[str]]]:
    """``games`` Powers games over HTTP, each with ``seats`` powers (one a client), at month 1 Planning (not
    timed); (game, power tokens) each."""
    import asyncio

    async def one(client: AsyncRaw) -> tuple[str, list[str]]:
        created = await client.call("POST", "/games", {"name": "capacity"})
        game, gm = created["game_id"], created["gm_token"]
        tokens = []
        for i in range(seats):
            power = {"name": f"C{i}", "cls": "conspiracy", "subclass": "circle"}
            tokens.append((await client.call("POST", f"/games/{game}/powers", power, gm))["token"])
        for step in ("setup", "tidings"):
            await client.call("POST", f"/games/{game}/advance", {"expected_step": step}, gm)
        return game, tokens

    async def worker(share: int) -> list[tuple[str, list[str]]]:
        client = await AsyncRaw.open(base)
        try:
            return [await one(client) for _ in range(share)]
        finally:
            client.close()

    shares = writer_shares(games, parallel)
    return [g for part in await asyncio.gather(*(worker(m) for m in shares if m)) for g in part]


async def capacity_drive(
    base: str, games: list[tuple[str, list[str]]], closed: int, peak_rate: float
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """Every seat of every game a client on a connection of its own, all at once. First each client submits and
    rolls ``closed`` actions back to back (the service saturated: commands/s is its capacity); then the clients
    together send one more each at ``peak_rate`` a second, evenly spaced whatever the answers (the latency at that
    rate). (start, end) of each command, on the monotonic clock, for both parts."""
    import asyncio

    seats = [(game, token) for game, tokens in games for token in tokens]
    clients = await asyncio.gather(*(AsyncRaw.open(base) for _ in seats))
    saturated: list[tuple[float, float]] = []
    paced: list[tuple[float, float]] = []

    async def command(client: AsyncRaw, game: str, token: str, k: int, into: list, start: float = 0.0) -> None:
        start = start or time.perf_counter()
        status, answer = await client.request(
            "POST", f"/games/{game}/actions", {"title": f"plot {k}", "convert": 0}, token
        )
        assert status == 201, (status, answer[:300])
        into.append((start, time.perf_counter()))

    async def play(client: AsyncRaw, game: str, token: str) -> None:
        for k in range(closed):
            await command(client, game, token, k, saturated)

    try:
        await asyncio.gather(*(play(c, g, t) for c, (g, t) in zip(clients, seats)))
        for client in clients:
            client.close()
        clients = []

        async def once(game: str, token: str) -> None:
            # A connection of its own, its opening timed: a client idle for uvicorn's keep-alive (5 s) is closed.
            start = time.perf_counter()
            client = await AsyncRaw.open(base)
            try:
                await command(client, game, token, closed, paced, start)
            finally:
                client.close()

        t0 = time.perf_counter()
        sent = []
        for i, (game, token) in enumerate(seats):
            await asyncio.sleep(max(0.0, t0 + i / peak_rate - time.perf_counter()))
            sent.append(asyncio.ensure_future(once(game, token)))
        await asyncio.gather(*sent)
    finally:
        for client in clients:
            client.close()
    return saturated, paced


def capacity_run(
    settings: Settings, pg_url: str, processes: int, games: int, seats: int, closed: int, peak_rate: float
) -> dict[str, float]:
    """One run of ``capacity_figures`` against ``emissary serve --workers processes``: its figures and a note."""
    import asyncio

    import psycopg

    from tests import procs

    tag = f"emissary-capacity-{uuid.uuid4().hex[:8]}"
    saved = os.environ.get("PGAPPNAME")
    os.environ["PGAPPNAME"] = tag  # the server's connections, named so that their backends can be found
    try:
        base, stop = serve(settings, workers=processes)
    finally:
        if saved is None:
            os.environ.pop("PGAPPNAME", None)
        else:
            os.environ["PGAPPNAME"] = saved
    sampler = None
    try:
        played = asyncio.run(capacity_setup(base, games, seats))
        server = next(p for p in procs.live() if f"--port {base.rsplit(':', 1)[1]}" in " ".join(map(str, p.args)))
        monitor = psycopg.connect(pg_url, autocommit=True)
        try:

            def backends() -> list[int]:
                rows = monitor.execute("SELECT pid FROM pg_stat_activity WHERE application_name = %s", (tag,))
                return [r[0] for r in rows]

            commits = monitor.execute("SHOW synchronous_commit").fetchone()[0]  # type: ignore[index]
            isolation = monitor.execute("SHOW default_transaction_isolation").fetchone()[0]  # type: ignore[index]
            sampler = CpuSampler({"api": lambda: procs.group_members(server.pid), "postgres": backends})
            sampler.begin()
            machine, own = machine_busy_seconds(), sum(os.times()[:2])
            saturated, paced = asyncio.run(capacity_drive(base, played, closed, peak_rate))
            used = sampler.end()
            machine, own = machine_busy_seconds() - machine, sum(os.times()[:2]) - own
        finally:
            if sampler is not None:
                sampler.close()
            monitor.close()
    finally:
        stop()
    # The steady middle of the saturated part: from its 10th to its 90th percentile of completions, so that
    # neither the clients' start nor the last stragglers are in the rate.
    ends = sorted(end for _, end in saturated)
    lo, hi = ends[len(ends) // 10], ends[len(ends) * 9 // 10]
    middle = [end - start for start, end in saturated if start >= lo and end <= hi] or [e - s for s, e in saturated]
    rate = (len(ends) * 9 // 10 - len(ends) // 10) / max(hi - lo, 1e-9)
    paced_latency = [end - start for start, end in paced]
    span = max(end for _, end in saturated + paced) - min(start for start, _ in saturated)
    suffix = "" if processes == 1 else f"_{processes}_api"
    NOTES.append(
        f"# capacity{suffix}: {games} games x {seats} clients ({games * seats} connections) on `serve --workers "
        f"{processes}`, PostgreSQL (synchronous_commit {commits}, {isolation}), {closed} actions a client "
        f"back to back: {rate:.0f} commands/s, latency p50 {percentile(middle, 0.5) * 1000:.0f} ms, "
        f"p99 {percentile(middle, 0.99) * 1000:.0f} ms; then one a client at {peak_rate:.0f}/s: "
        f"p50 {percentile(paced_latency, 0.5) * 1000:.0f} ms, p99 {percentile(paced_latency, 0.99) * 1000:.0f} ms. "
        f"CPU over the {span:.1f} s ({len(saturated) + len(paced)} commands), in cores: API processes "
        f"{used['api'] / span:.2f}, their PostgreSQL backends {used['postgres'] / span:.2f}, the bench's clients "
        f"{own / span:.2f}, the whole machine (everyone's) {machine / span:.2f} of {os.cpu_count()}; "
        f"ms of CPU a command: API {used['api'] * 1000 / (len(saturated) + len(paced)):.2f}, "
        f"PostgreSQL {used['postgres'] * 1000 / (len(saturated) + len(paced)):.2f}; waiting, runnable, for a core "
        f"(taken by other load): API {used['api:wait'] / span:.2f} cores' worth, PostgreSQL "
        f"{used['postgres:wait'] / span:.2f}"
    )
    return {
        f"capacity_commands_per_s_postgres{suffix}": rate,
        f"capacity_p99_ms_postgres{suffix}": percentile(middle, 0.99) * 1000,
        f"capacity_p99_ms_postgres_at_peak{suffix}": percentile(paced_latency, 0.99) * 1000,
    }


def capacity_figures(
    tmp: Path,
    pg_url: str,
    games: int = 200,
    seats: int = 4,
    closed: int = 3,
    peak_rate: float = 116,
    processes: tuple[int, ...] = (1, 2),
) -> dict[str, float]:
    """One server's capacity (issue 30): ``games`` Powers games of ``seats`` powers at once, each power a client
    of its own over HTTP (keep-alive), against ``emissary serve`` with 1 and then 2 API processes on the real
    PostgreSQL, production defaults (synchronous commits, its isolation, the default pools: 2 + 3 event-store and 3
    read-model connections a process), embedded workers off. Each count of processes gets fresh games in a
    schema of its own. ``peak_rate`` is 100,000 players' ten commands a day at ten times the mean (116/s)."""
    import psycopg

    figures: dict[str, float] = {}
    for n in processes:
        schema = f"bench_cap_{uuid.uuid4().hex[:8]}"
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f'CREATE SCHEMA "{schema}"')
        try:
            settings = Settings(database_url=f"{pg_url}?schema={schema}", data_dir=tmp / f"capacity-{n}")
            settings.data_dir.mkdir(parents=True, exist_ok=True)
            figures.update(capacity_run(settings, pg_url, n, games, seats, closed, peak_rate))
        finally:
            with psycopg.connect(pg_url, autocommit=True) as conn:
                conn.execute(f'DROP SCHEMA "{schema}" CASCADE')
    return figures


# Each group of figures measured together, and the figures it prints (``--only NAME`` runs one group).
GROUPS: list[tuple[tuple[str, ...], Callable[[Path, str], dict[str, float]], bool]] = [
    (
        ("command_vs_bare_store", "command_vs_bare_store_postgres_1_writer", "command_vs_bare_store_sqlite_1_writer"),
        command_figures,
        False,
    ),
    (("command_late_vs_early", "command_late_vs_early_one_month"), lambda tmp, pg: late_vs_early_figures(tmp), False),
    (
        ("vs_boardgameio_memory_early", "vs_boardgameio_memory_late"),
        lambda tmp, pg: vs_boardgameio_memory(tmp),
        False,
    ),
    (
        (
            "board_10k_vs_100",
            "board_console_10k_vs_100",
            "events_page_10k_vs_100",
            "events_page_10k_vs_100_events",
            "events_page_10k_vs_100_feed",
        ),
        lambda tmp, pg: read_figures(tmp),
        False,
    ),
    (("past_version_vs_replay",), lambda tmp, pg: past_version_figures(tmp), False),
    (("thread_page_10k_vs_100", "search_10k_posts_ms"), lambda tmp, pg: post_figures(tmp), False),
    (
        ("covenants_turn_vs_powers_action",),
        lambda tmp, pg: {"covenants_turn_vs_powers_action": covenants_turn_vs_powers_action(tmp)},
        False,
    ),
    (
        ("battle_round_vs_command", "battle_round_vs_command_all_windows"),
        lambda tmp, pg: battle_round_vs_command(tmp),
        False,
    ),
    (
        ("effect_phrases_per_s_vs_events_saved",),
        lambda tmp, pg: {"effect_phrases_per_s_vs_events_saved": effect_phrases_per_s_vs_events_saved(tmp)},
        False,
    ),
    (
        ("phase_view_vs_replay", "phase_view_100k_vs_1k", "rebuild_vs_raw_scan"),
        lambda tmp, pg: history_figures(tmp),
        False,
    ),
    (("close_lag_p99_over_sweep", "window_closes_per_s"), window_figures, True),  # needs PostgreSQL
    (
        (
            "capacity_commands_per_s_postgres",
            "capacity_p99_ms_postgres",
            "capacity_p99_ms_postgres_at_peak",
            "capacity_commands_per_s_postgres_2_api",
            "capacity_p99_ms_postgres_2_api",
            "capacity_p99_ms_postgres_at_peak_2_api",
        ),
        capacity_figures,
        True,  # needs PostgreSQL
    ),
]


def main(argv: list[str] | None = None) -> None:
    import argparse
    import shutil

    names = [name for group in GROUPS for name in group[0]]
    parser = argparse.ArgumentParser(description="Speed figures as ratios measured in one run.")
    parser.add_argument(
        "--only",
        choices=names,
        metavar="NAME",
        help=f"measure only the figure NAME (and those measured with it): {', '.join(names)}",
    )
    args = parser.parse_args(argv)
    tmp = Path(tempfile.mkdtemp(prefix="emissary-bench-"))
    pg_url = os.environ.get("EMISSARY_BENCH_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
    try:
        import psycopg

        with psycopg.connect(pg_url, autocommit=True, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except Exception as exc:  # noqa: BLE001 - PostgreSQL is optional for a local bench
        NOTES.append(f"# PostgreSQL not reachable ({exc}); command figures on SQLite only")
        pg_url = ""
    figures: dict[str, float] = {}
    try:
        for group, measure, needs_pg in GROUPS:
            if args.only and args.only not in group:
                continue
            if needs_pg and not pg_url:
                continue
            figures.update(measure(tmp, pg_url))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for name, value in figures.items():
        print(f"{name}: {value:.2f}")
    for note in NOTES:
        print(note)


if __name__ == "__main__":
    main()
