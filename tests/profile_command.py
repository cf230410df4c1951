"""Where a command's time goes (issue 30): ``python tests/profile_command.py [cpu|table] [COMMANDS]``.

The server's side of ``POST /games/{id}/actions`` as ``command_vs_bare_store_sqlite_1_writer`` sends it (one
client, a 100-power game at month 1 Planning, each power submitting and rolling its 4 actions), run in-process:
the whole ASGI app (middleware, FastAPI, the route, ``Games.run``, the receipt) on the embedded SQLite store with
synchronous commits, workers and read models off as ``tests/bench.py``'s ``serve`` runs them, driven by raw ASGI
messages on one event loop. uvicorn's HTTP parsing and the socket are not in it. The command's hop to the service's
threads runs inline, so that the profiler sees it. ``cpu``: CPU seconds a command (thread time, no profiler),
seven rounds; ``table``: cProfile on the thread's CPU clock, then the README's table of phases (the profiler's
own cost weighs on call-heavy code, FastAPI's most: read the shares, not the milliseconds).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import cProfile
import json
import os
import pstats
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("EMISSARY_RATELIMIT_CREATE_GAME", "100000/minute")

from api.app import create_app  # noqa: E402
from projections.settings import Settings  # noqa: E402

# (label, file, function) whose cumulative time is the phase; None: computed from the others.
PHASES = [
    ("the app (middleware, FastAPI, the route, the service)", "fastapi/applications.py", "__call__"),
    ("  the middleware (request log, headers, limits, sessions, language)", None, None),
    ("  FastAPI's routing; the route: the caller (its one dependency), the answer checked", None, None),
    ("  the body to a typed command (validation)", "api/declare.py", "command_of"),
    ("  Games.run", "application/service.py", "run"),
    ("    loading (the cached game, its lock)", "projections/gamestore.py", "_cached"),
    ("    deciding (the rules, the dice, the events)", "application/service.py", "attempt"),
    ("    the receipt (what the caller sees, its digest)", "application/service.py", "_receipt"),
    ("    saving: the events encoded and inserted, committed", "projections/gamestore.py", "save"),
    ("      of which snapshots (every 100 events)", "projections/gamestore.py", "take_snapshots"),
    ("      of which COMMIT (SQLite's fsync)", "~", "<method 'commit' of 'sqlite3.Connection' objects>"),
    ("  the receipt as JSON", None, None),
]


class Inline(concurrent.futures.Executor):
    """Runs what is submitted at once, in the caller's thread."""

    def submit(self, fn, /, *args, **kwargs):  # type: ignore[no-untyped-def]
        future: concurrent.futures.Future = concurrent.futures.Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:  # noqa: BLE001 - handed to the awaiting route
            future.set_exception(exc)
        return future


class Driver:
    """Raw ASGI requests to the app, answered in full."""

    def __init__(self, app) -> None:
        self.app = app

    async def call(self, method: str, path: str, body: dict | None = None, token: str = "") -> dict:
        raw = json.dumps(body).encode() if body is not None else b""
        headers = [
            (b"host", b"127.0.0.1"),
            (b"content-type", b"application/json"),
            (b"content-length", b"%d" % len(raw)),
        ]
        if token:
            headers.append((b"authorization", f"Bearer {token}".encode()))
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": headers,
            "client": ("127.0.0.1", 5555),
            "server": ("127.0.0.1", 8000),
            "state": {},
        }
        messages = [{"type": "http.request", "body": raw, "more_body": False}]

        async def receive() -> dict:
            if messages:
                return messages.pop()
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        out: dict = {"body": b""}

        async def send(message: dict) -> None:
            if message["type"] == "http.response.start":
                out["status"] = message["status"]
            elif message["type"] == "http.response.body":
                out["body"] += message.get("body", b"")

        await self.app(scope, receive, send)
        assert out["status"] in (200, 201), (path, out)
        return json.loads(out["body"]) if out["body"] else {}

    async def game(self, n_powers: int) -> tuple[str, list[str]]:
        """A game of ``n_powers`` powers at month 1 Planning; its id and the powers' tokens."""
        created = await self.call("POST", "/games", {"name": "profile"})
        game, gm = created["game_id"], created["gm_token"]
        tokens = []
        for i in range(n_powers):
            power = {"name": f"C{i}", "cls": "conspiracy", "subclass": "circle"}
            tokens.append((await self.call("POST", f"/games/{game}/powers", power, gm))["token"])
        for step in ("setup", "tidings"):
            await self.call("POST", f"/games/{game}/advance", {"expected_step": step}, gm)
        return game, tokens

    async def play(self, game: str, tokens: list[str]) -> int:
        """Every power submits and rolls its 4 actions, as the bench's client does."""
        for k in range(4):
            for token in tokens:
                await self.call("POST", f"/games/{game}/actions", {"title": f"plot {k}", "convert": 0}, token)
        return 4 * len(tokens)


def table(stats_file: str, commands: int) -> list[tuple[str, float, float]]:
    """(phase, ms a command, share of the app) from a cProfile dump."""
    stats = pstats.Stats(stats_file).stats  # type: ignore[attr-defined]

    def cum(file: str, function: str) -> float:
        return max((v[3] for (f, _, name), v in stats.items() if name == function and f.endswith(file)), default=0.0)

    got = {label: cum(file, fn) for label, file, fn in PHASES if file}
    app = got[PHASES[0][0]]
    inner = cum("starlette/middleware/exceptions.py", "__call__")
    endpoint = cum("api/declare.py", "endpoint")  # the declared route's endpoint, on either path to it
    got[PHASES[1][0]] = app - inner
    got[PHASES[2][0]] = inner - endpoint
    got[PHASES[-1][0]] = cum("api/deps.py", "run") - cum("api/deps.py", "receipt")
    return [(label, got[label] / commands * 1000, got[label] / app) for label, _, _ in PHASES]


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "table"
    tmp = Path(tempfile.mkdtemp(prefix="emissary-profile-"))
    app = create_app(Settings(data_dir=tmp, embedded_workers=False, read_models_sync=False))
    app.state.games.__dict__["threads"] = Inline()
    driver = Driver(app)

    async def run() -> None:
        await driver.play(*await driver.game(10))  # warm
        if mode == "cpu":
            per = []
            for _ in range(7):
                game = await driver.game(100)
                start = time.thread_time()
                n = await driver.play(*game)
                per.append((time.thread_time() - start) / n * 1000)
            print(
                f"CPU ms a command: {' '.join(f'{x:.3f}' for x in per)}; median {statistics.median(per):.3f}, "
                f"least {min(per):.3f} (the machine's load only adds)"
            )
            return
        games = [await driver.game(100) for _ in range(2)]
        profile = cProfile.Profile(time.thread_time)
        profile.enable()
        n = sum([await driver.play(*game) for game in games])
        profile.disable()
        profile.dump_stats(str(tmp / "profile.out"))
        print(f"| phase ({n} commands, cProfile on thread CPU) | ms a command | share |\n|---|---|---|")
        for label, ms, share in table(str(tmp / "profile.out"), n):
            depth = len(label) - len(label.lstrip())
            print(f"| {'&nbsp;' * depth}{label.strip()} | {ms:.2f} | {share:.0%} |")

    try:
        asyncio.run(run())
    finally:
        app.state.games.close()


if __name__ == "__main__":
    main()
