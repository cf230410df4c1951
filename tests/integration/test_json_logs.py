"""Issue 27, item 4: logs as JSON lines, never a token, from a service's first line to its last. The parents too:
the Celery worker and beat (whose banner, start-up and shutdown notices Celery writes past any logging we set up)
and uvicorn's (which installs its own handlers and formats). Each service runs as deployed, on a scratch
PostgreSQL schema and a Redis of the test's own that asks for a password; everything it writes on stdout and on
stderr, started, serving and stopped, is read: every line is a JSON object, and neither the broker's password nor a
caller's token is in any."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse

import httpx
import pytest
import redis

from projections import logs
from tests.integration.helpers import bearer
from tests.integration.topology import ROOT, free_port

pytestmark = pytest.mark.integration

PASSWORD = "Rp4dVw9Lk2Qm7Zx3Tt8uYb1c"  # the broker's: Celery names its broker when it connects
TOKEN = "Sx4dD9aQ0pLm2Zr7Tt1uVw8yXb3cEe5f"  # a caller's, in a query string and a header the access log sees
GAME = "0b9c5e4e-7f1c-4d8e-9a53-3c0f4c8f9f10"


@pytest.fixture
def env(pg_schema_url, private_redis, tmp_path) -> dict[str, str]:
    port = urlparse(private_redis).port
    redis.Redis(port=port).config_set("requirepass", PASSWORD)
    return {
        "EMISSARY_DATABASE_URL": pg_schema_url,
        "EMISSARY_BROKER_URL": f"redis://:{PASSWORD}@127.0.0.1:{port}/0",
        "EMISSARY_DATA_DIR": str(tmp_path),
        "EMISSARY_PORT": str(free_port()),
        "EMISSARY_LOG_LEVEL": "INFO",
        "EMISSARY_DB_POOL_SIZE": "1",
        "EMISSARY_READMODEL_POOL_SIZE": "1",
        "PYTHONUNBUFFERED": "1",
    }


def wait_for(what, timeout: float, proc: subprocess.Popen, output) -> None:
    deadline = time.monotonic() + timeout
    while not what():
        assert proc.poll() is None, f"exited with {proc.returncode}\n{output()}"
        assert time.monotonic() < deadline, f"not ready after {timeout}s\n{output()}"
        time.sleep(0.2)


def lines_of(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line.strip()]


def not_json(lines: list[str]) -> list[str]:
    def parses(line: str) -> bool:
        try:
            return isinstance(json.loads(line), dict)
        except ValueError:
            return False

    return [line for line in lines if not parses(line)]


# (the service's command line, what it logs once started)
SERVICES = {
    "worker": (["worker", "--concurrency", "1"], "ready."),
    "beat": (["beat", "--schedule", "{tmp}/beat-schedule"], "beat: Starting..."),
    "serve": (["serve", "--no-access-log"], "Uvicorn running on"),
    "serve --workers 2": (["serve", "--workers", "2"], "Started parent process"),
}


@pytest.mark.parametrize("service", list(SERVICES))
def test_a_service_writes_only_json_lines_and_no_secret_from_start_to_stop(service, env, procs, tmp_path):
    args, started = SERVICES[service]
    out, err = tmp_path / "stdout", tmp_path / "stderr"

    def output() -> str:
        return f"--- stdout\n{out.read_text()[-4000:]}\n--- stderr\n{err.read_text()[-4000:]}"

    with open(out, "w") as stdout, open(err, "w") as stderr:
        proc = procs.start(
            [sys.executable, "-m", "api.cli", *(a.format(tmp=tmp_path) for a in args)],
            cwd=ROOT,
            env={**os.environ, **env},
            stdout=stdout,
            stderr=stderr,
        )
    try:
        wait_for(lambda: started in err.read_text(), 120, proc, output)
        if service.startswith("serve"):
            base = f"http://127.0.0.1:{env['EMISSARY_PORT']}"
            wait_for(lambda: _answers(base), 120, proc, output)
            with httpx.Client(base_url=base, timeout=30) as http:
                for _ in range(3):  # (each server process, likely)
                    http.get(f"/games/{GAME}/view", params={"token": TOKEN}, headers=bearer(TOKEN))
        else:
            time.sleep(2)  # a beat's first sweep sent, a worker's first one taken
    finally:
        procs.close()  # SIGTERM: its shutdown notices are read too
    written = lines_of(out) + lines_of(err)
    assert started in err.read_text() and written
    assert not_json(written) == [], output()
    text = out.read_text() + err.read_text()
    for secret in (PASSWORD, TOKEN):
        assert secret not in text and secret[:12] not in text, output()
    records = [json.loads(line) for line in written]
    assert all({"at", "level", "logger", "message"} <= set(r) for r in records), records
    if service == "serve --workers 2":
        assert f"/games/{GAME}/view?token=[redacted]" in text  # the access log, from a server process


def _answers(base: str) -> bool:
    try:
        return httpx.get(f"{base}/health", timeout=2).status_code == 200
    except httpx.HTTPError:
        return False


def test_the_check_finds_a_line_that_is_not_json():
    assert not_json(["{}", '{"a": 1}', "[1]", "celery@vm ready.", " -------------- celery@vm v5"]) == [
        "[1]",
        "celery@vm ready.",
        " -------------- celery@vm v5",
    ]


def test_a_relayed_line_is_written_as_a_json_line_and_redacted():
    """What the supervisor relays from Celery: its own records as they are, other text as a record of its own;
    redacted either way."""
    wrapped = json.loads(logs.json_line(f"worker: Warm shutdown token={TOKEN}", "celery", logging.WARNING))
    assert (wrapped["logger"], wrapped["level"]) == ("celery", "WARNING")
    assert wrapped["message"] == "worker: Warm shutdown token=[redacted]"
    record = json.dumps({"at": "2026-12-07T12:00:00+00:00", "logger": "celery.worker", "message": f"token={TOKEN}"})
    assert json.loads(logs.json_line(record, "celery")) == {**json.loads(record), "message": "token=[redacted]"}
    assert json.loads(logs.json_line("[1, 2]", "celery"))["message"] == "[1, 2]"  # JSON, but not a record
