"""The embedded default (no Redis): an in-memory broker, an in-process Celery worker and sweep
running the same task code; and the sweep's reminders landing in the notification outbox."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from domain.powers import commands as pc
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_services
from workers import runtime


def test_make_run_closes_windows_without_any_external_service(tmp_path):
    settings = Settings(data_dir=tmp_path, sweep_seconds=0.5)
    app = create_app(settings, embedded_workers=True)
    with TestClient(app):
        games = app.state.games
        gid, _, _ = games.create_game("Embedded", options={"planning_hours": 1.5 / 3600})
        add_power(games, gid, "gm", "A", "conspiracy", "circle")
        games.send(gid, "gm", pc.Advance())
        games.send(gid, "gm", pc.Advance())
        deadline = time.time() + 20
        while games.view(gid, "gm")["game"]["step"] == "planning":
            assert time.time() < deadline, "the embedded worker never closed Planning"
            time.sleep(0.1)
        closed = [e for e in games.visible_events(gid, "gm") if e["type"] == "WindowClosed"]
    assert [(e["actor"], e["data"]["reason"]) for e in closed] == [("system", "deadline")]


@pytest.fixture
def eager(tmp_path):
    """Run tasks inline (Celery's eager mode) against this process's service and read models."""
    from api.compose import build_games, build_projector
    from workers.app import celery_app

    settings = Settings(data_dir=tmp_path)
    games = build_games(settings)
    projector = build_projector(games, settings)
    runtime.use(games, projector, settings)
    celery_app.conf.task_always_eager = True
    yield games, projector
    celery_app.conf.task_always_eager = False
    close_services(games, projector)


def test_the_sweep_queues_reminders_once_into_the_outbox(eager, monkeypatch):
    from workers.tasks import sweep

    games, projector = eager
    gid, _, _ = games.create_game("Reminders")
    a = add_power(games, gid, "gm", "A", "conspiracy", "circle")[0]
    b = add_power(games, gid, "gm", "B", "city", "sovereign")[0]
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    games.declare_ready(gid, b, b)
    closes = datetime.now(timezone.utc) + timedelta(minutes=30)
    games.set_deadline(gid, "gm", "s1m1-planning", closes)
    projector.catch_up()
    assert sweep()["reminders"] == 1
    assert sweep()["reminders"] == 0  # once per window, deadline and offset
    projector.catch_up()
    key = str(games.get_game(gid).id)
    outbox = [o for o in projector.outbox(key) if o["kind"].startswith("reminder ")]
    assert [(o["recipient"], o["kind"], o["body"]["hours_before"]) for o in outbox] == [
        (a, "reminder s1m1-planning 1", 1.0)
    ]
    # Both the 24 h and the 1 h periods were entered at once: only the nearest reminder goes, to A alone.


def test_the_sweep_closes_due_windows_and_nothing_else(eager, monkeypatch):
    from workers.tasks import sweep

    games, projector = eager
    gid, _, _ = games.create_game("Sweep", options={"planning_hours": 1 / 3600})
    add_power(games, gid, "gm", "A", "conspiracy", "circle")
    other, _, _ = games.create_game("Later")
    add_power(games, other, "gm", "A", "conspiracy", "circle")
    for g in (gid, other):
        games.send(g, "gm", pc.Advance())
        games.send(g, "gm", pc.Advance())
    projector.catch_up()
    time.sleep(1.1)
    result = sweep()
    assert result["due"] == 1
    assert games.view(gid, "gm")["game"]["step"] == "resolution"
    assert games.view(other, "gm")["game"]["step"] == "planning"
