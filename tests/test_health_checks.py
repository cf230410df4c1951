"""Issue 27, item 6: each ``emissary health <service>`` imports only what it checks. A container's check has a few
seconds on a busy host; loading the application for it took half of a 10 s timeout here (the beat check imported
the projection runner, and with it the event store, the rulesets and Celery)."""

from __future__ import annotations

import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from application.compose import build_games, build_projector
from projections.settings import Settings
from tests.integration.helpers import close_services
from workers import health, heartbeat

ROOT = Path(__file__).resolve().parents[1]
# What no check but the worker's may load: the web framework, the ORM, the event store library, the rules, the
# read models' code, the app; nor Celery.
HEAVY = ("fastapi", "starlette", "sqlalchemy", "eventsourcing", "domain", "celery", "alembic", "jinja2")
HEAVY_MODULES = ("projections.projector", "projections.gamestore", "application.service", "api.app", "workers.app")
# The command run as the operator's health check runs it, then what it loaded written down.
PROBE = """
import json, sys
from api.cli import main
try:
    code = main(sys.argv[2:])
finally:
    with open(sys.argv[1], "w") as fh:
        json.dump(sorted(sys.modules), fh)
sys.exit(code)
"""


def loaded_by(tmp_path: Path, env: dict[str, str], *args: str) -> tuple[subprocess.CompletedProcess, list[str]]:
    """Run ``emissary health ARGS`` in a fresh interpreter: its answer, and every module it had loaded."""
    out = tmp_path / "modules.json"
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(out), "health", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={**os.environ, **env},
    )
    return done, json.loads(out.read_text())


def heavy(modules: list[str], allowed: tuple[str, ...] = ()) -> list[str]:
    return [
        m
        for m in modules
        if (m.split(".")[0] in HEAVY and m.split(".")[0] not in allowed) or m.startswith(HEAVY_MODULES)
    ]


@pytest.fixture
def store(tmp_path):
    """A SQLite store with a game in it and its read models up to date, as the projection runner keeps them."""
    settings = Settings(data_dir=tmp_path / "data")
    games = build_games(settings)
    games.create_game(name="Healthy")
    projector = build_projector(games, settings)
    projector.catch_up()
    close_services(games, projector)
    return {"EMISSARY_DATA_DIR": str(tmp_path / "data"), "EMISSARY_DATABASE_URL": ""}


class Healthy(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        self.send_response(200 if self.path == "/health" else 404)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_the_beat_check_reads_its_heartbeat_and_imports_neither_celery_nor_the_application(tmp_path):
    heartbeat.touch(heartbeat.beat_heartbeat(tmp_path / "schedule"))
    done, modules = loaded_by(tmp_path, {}, "beat", "--schedule", str(tmp_path / "schedule"))
    assert (done.returncode, done.stdout) == (0, "beat: ok\n"), done.stderr
    assert heavy(modules) == []
    done, _ = loaded_by(tmp_path, {}, "beat", "--schedule", str(tmp_path / "another"))
    assert done.returncode == 1 and "another.heartbeat: never written" in done.stdout


def test_the_projector_check_reads_its_heartbeat_and_the_lag_with_the_driver_alone(tmp_path, store):
    heartbeat.touch(heartbeat.projector_heartbeat(store["EMISSARY_DATA_DIR"]))
    done, modules = loaded_by(tmp_path, store, "projector", "--max-lag", "0")
    assert (done.returncode, done.stdout) == (0, "projector: ok\n"), done.stderr
    assert "sqlite3" in modules and heavy(modules) == []


def test_the_smtpd_check_sends_a_noop_and_imports_nothing_else(tmp_path, sink):
    done, modules = loaded_by(tmp_path, {}, "smtpd", "--port", str(sink.port))
    assert (done.returncode, done.stdout) == (0, "smtpd: ok\n"), done.stderr
    assert heavy(modules) == [] and not any(m.startswith("pydantic") for m in modules)  # the port given: no settings


def test_the_api_check_gets_health_and_imports_nothing_else(tmp_path):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Healthy)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/health"
        done, modules = loaded_by(tmp_path, {}, "api", "--url", url)
        assert (done.returncode, done.stdout) == (0, "api: ok\n"), done.stderr
        assert heavy(modules) == [] and not any(m.startswith("pydantic") for m in modules)
        done, modules = loaded_by(tmp_path, {"EMISSARY_PORT": str(server.server_address[1])}, "api")
        assert (done.returncode, done.stdout) == (0, "api: ok\n"), done.stderr  # the port from the settings
        assert heavy(modules) == []
    finally:
        server.shutdown()
        server.server_close()


def test_the_worker_check_needs_celery_for_its_ping_and_nothing_of_the_application(tmp_path):
    env = {"EMISSARY_BROKER_URL": "memory://"}
    done, modules = loaded_by(tmp_path, env, "worker", "--node", "celery@nobody-here", "--timeout", "0.2")
    assert done.returncode == 1 and "celery@nobody-here did not answer a ping" in done.stdout, done.stderr
    assert "celery" in modules and heavy(modules, allowed=("celery",)) == ["workers.app"]


def test_the_import_check_catches_a_check_that_loads_the_application(tmp_path):
    """The probe would see what the old beat check loaded (the projection runner, for its heartbeat's name)."""
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text("import workers.projection_runner\n")
    done, modules = loaded_by(tmp_path, {"PYTHONPATH": f"{probe}{os.pathsep}{ROOT}"}, "smtpd", "--port", "1")
    found = heavy(modules)
    assert "projections.projector" in found and {"eventsourcing", "domain"} <= {m.split(".")[0] for m in found}


def test_the_projectors_lag_read_by_the_driver_is_the_event_stores_and_the_read_models(store_settings):
    """``health.lag`` reads with sqlite3 or psycopg what the event store library and the projector say."""
    settings = store_settings.model_copy(update={"read_models_sync": False})
    games = build_games(settings)
    projector = build_projector(games, settings)
    try:
        empty = health.lag(settings)
        games.create_game(name="One")
        games.create_game(name="Two")
        head = games.recorder.max_notification_id()
        assert head and empty == (0, 0) and health.lag(settings) == (projector.position(), head) == (0, head)
        projector.catch_up()
        assert health.lag(settings) == (head, head) == (projector.position(), games.recorder.max_notification_id())
    finally:
        close_services(games, projector)


def test_a_projector_check_that_cannot_read_the_store_says_so_and_creates_nothing(tmp_path):
    settings = Settings(data_dir=tmp_path / "data")
    heartbeat.touch(heartbeat.projector_heartbeat(settings.data_dir))
    problem = health.projector(settings, max_lag=10)
    assert problem and problem.startswith("the read models' position cannot be read: ")
    assert sorted(p.name for p in settings.data_dir.iterdir()) == ["projector.heartbeat"]
