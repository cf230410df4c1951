"""Start Emissary's production topology as local processes (no Docker): API, Celery worker, Celery
beat, projection runner, against the real PostgreSQL and a real Redis."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import redis

from application.service import Caller, new_token
from domain.powers import commands as pc
from tests import procs

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateRedis:
    """A redis-server of our own on a free loopback port, so a test may kill and restart it."""

    def __init__(self, workdir: Path) -> None:
        self.port = free_port()
        self.workdir = workdir
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> PrivateRedis:
        self.proc = procs.start(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.workdir),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 10
        while True:
            try:
                redis.Redis(port=self.port).ping()
                return self
            except redis.ConnectionError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)

    def kill(self) -> None:
        if self.proc:
            procs.kill(self.proc)


@pytest.fixture
def private_redis(tmp_path) -> str:
    """The URL of a Redis of this test's own: tests running at the same time on one machine (another
    checkout, another CI job) never take each other's tasks, as they would sharing the machine's Redis."""
    broker = PrivateRedis(tmp_path).start()
    try:
        yield broker.url
    finally:
        broker.kill()


class Topology:
    """Processes sharing one environment; each logs to its own file under ``logdir``. Every process
    runs in a process group of its own (tests/procs.py): ``stop_all`` ends them with all their
    children; use it from a fixture or a ``finally``."""

    def __init__(self, env: dict[str, str], logdir: Path) -> None:
        # Load and topology tests create many games from one address: the rate limits (tested on their own
        # in test_security.py) would refuse them, unless a test sets its own.
        unlimited = {
            "EMISSARY_RATELIMIT_CREATE_GAME": "100000/minute",
            "EMISSARY_RATELIMIT_AUTH_FAILURES": "100000/minute",
        }
        self.env = {**os.environ, **unlimited, **env, "PYTHONUNBUFFERED": "1"}
        self.logdir = logdir
        self.procs: dict[str, subprocess.Popen] = {}
        self.runs: dict[str, int] = {}

    def start(self, name: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        self.runs[name] = self.runs.get(name, 0) + 1
        with open(self.logdir / f"{name}.{self.runs[name]}.log", "w") as log:
            proc = procs.start(
                [sys.executable, "-m", "api.cli", *args],
                cwd=ROOT,
                env={**self.env, **(env or {})},
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.procs[name] = proc
        return proc

    def kill9(self, name: str) -> None:
        """kill -9 the process and its children (a Celery worker's pool processes too)."""
        procs.kill(self.procs[name])

    def stop_all(self) -> None:
        procs.stop_all(list(self.procs.values()))

    def log(self, name: str) -> str:
        """Everything the process ``name`` has logged, over all its runs."""
        return "".join(p.read_text() for p in sorted(self.logdir.glob(f"{name}.*.log")))

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text()[-3000:]}" for p in sorted(self.logdir.glob("*.log")))


def wait_healthy(base: str, timeout: float = 30, proc: subprocess.Popen | None = None) -> None:
    """Wait until the API at ``base`` answers /health (or fail if ``proc`` exits first)."""
    import httpx

    deadline = time.time() + timeout
    while True:
        try:
            if httpx.get(f"{base}/health", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.time() > deadline or (proc is not None and proc.poll() is not None):
            raise RuntimeError(f"the API at {base} did not start")
        time.sleep(0.1)


def make_windows(games, count: int, lead: timedelta) -> tuple[list[str], datetime]:
    """``count`` games in Planning whose windows all fall due ``lead`` after they are all set up: (ids, due).

    The due time is chosen once the games exist, with room for setting the deadlines themselves (about a
    quarter of the time one game took to set up, each), so a loaded machine makes the test slower, never
    makes a deadline fall in the past before it is set."""
    ids = []
    gm = Caller.of("gm")
    began = time.monotonic()
    for i in range(count):
        gid, _, _ = games.create_game(f"w{i}")
        # through the one command path: a worker's service has no ruleset's convenience methods
        games.run(gm, gid, pc.AddPower("A", "conspiracy", "circle", new_token()[1]))
        games.run(gm, gid, pc.Advance())
        games.run(gm, gid, pc.Advance())
        ids.append(gid)
    setting = (time.monotonic() - began) / 4 * 2
    due = datetime.now(timezone.utc) + lead + timedelta(seconds=setting)
    for gid in ids:
        games.set_deadline(gid, "gm", "s1m1-planning", due)
    return ids, due
