"""The workers' composition root: one game service and one projector per worker process, built lazily."""

from __future__ import annotations

import threading
from datetime import datetime, timezone

from celery.signals import worker_process_init

from application.compose import build_games, build_projector
from application.service import Games
from projections.projector import Projector
from projections.settings import Settings

_lock = threading.Lock()
_state: dict = {}


@worker_process_init.connect
def _end_with_the_worker(**_: object) -> None:
    """A pool process of ``emissary worker`` ends when the Celery worker that forked it does (issue 27): SIGKILL,
    as Celery asks the kernel itself (a pool process blocks SIGTERM while it reads its next task); the getppid()
    watch is for a Celery that does not."""
    import signal

    from workers import lifeline

    lifeline.bind(signal.SIGKILL)


def settings() -> Settings:
    with _lock:
        if "settings" not in _state:
            _state["settings"] = Settings()
        return _state["settings"]


def games() -> Games:
    with _lock:
        if "games" not in _state:
            _state["games"] = build_games(_state.get("settings") or Settings())
        return _state["games"]


def projector() -> Projector:
    g = games()
    with _lock:
        if "projector" not in _state:
            _state["projector"] = build_projector(g, _state.get("settings") or Settings())
        return _state["projector"]


def use(games_service: Games, projector_: Projector, settings_: Settings) -> None:
    """Share the API's service and read models with in-process workers (the embedded mode)."""
    with _lock:
        _state.update(games=games_service, projector=projector_, settings=settings_)


def now() -> datetime:
    return datetime.now(timezone.utc)
