"""Reminders follow each game's own ``reminder_hours``: the sweep selects, in SQL, the windows that
entered one of their game's reminder periods, and each offset is sent once per window and deadline."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from domain.powers import commands as pc
from tests.helpers import add_power
from tests.integration.helpers import close_services
from workers import runtime


@pytest.fixture
def eager(store_settings):
    """Tasks run inline (Celery's eager mode) against this process's service and read models."""
    from api.compose import build_games, build_projector
    from workers.app import celery_app

    games = build_games(store_settings)
    projector = build_projector(games, store_settings)
    runtime.use(games, projector, store_settings)
    celery_app.conf.task_always_eager = True
    yield games, projector
    celery_app.conf.task_always_eager = False
    close_services(games, projector)


def _planning_game(games, name: str, options: dict | None = None) -> tuple[str, str]:
    gid, _, _ = games.create_game(name, options=options)
    pid = add_power(games, gid, "gm", "A", "conspiracy", "circle")[0]
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    return gid, pid


def _reminders(games, projector, gid: str) -> list[tuple[str, float]]:
    projector.catch_up()
    key = str(games.get_game(gid).id)
    return [
        (o["recipient"], o["body"]["hours_before"]) for o in projector.outbox(key) if o["kind"].startswith("reminder ")
    ]


def test_a_game_with_reminder_hours_48_and_2_gets_its_48_hour_reminder(eager):
    from workers.tasks import sweep

    games, projector = eager
    custom, a = _planning_game(games, "Custom", {"reminder_hours": [48, 2]})
    usual, _ = _planning_game(games, "Usual")  # the default 24 h and 1 h: nothing due 47 h before
    closes = datetime.now(timezone.utc) + timedelta(hours=47)
    for gid in (custom, usual):
        games.set_deadline(gid, "gm", "s1m1-planning", closes)
    projector.catch_up()
    assert sweep()["reminders"] == 1
    assert sweep()["reminders"] == 0  # once per window, deadline and offset
    assert _reminders(games, projector, custom) == [(a, 48.0)]
    assert _reminders(games, projector, usual) == []
    # The deadline moves to 90 minutes away: the 2 h reminder is due, the 48 h one is not sent again.
    games.set_deadline(custom, "gm", "s1m1-planning", datetime.now(timezone.utc) + timedelta(minutes=90))
    projector.catch_up()
    sweep()
    assert _reminders(games, projector, custom) == [(a, 48.0), (a, 2.0)]


def test_reminder_rows_are_rebuilt_like_every_read_model(eager):
    games, projector = eager
    _planning_game(games, "Custom", {"reminder_hours": [48, 2]})
    projector.catch_up()
    before = projector.dump()["rm_reminders"]
    assert [(r[2]) for r in before] == [2.0, 48.0]
    projector.rebuild()
    assert projector.dump()["rm_reminders"] == before
