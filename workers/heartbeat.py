"""Heartbeat files, for the health checks of processes that serve nothing to probe (beat, the
projection runner): the process touches its file while it works; the check reads the file's age."""

from __future__ import annotations

import time
from pathlib import Path

from celery.beat import PersistentScheduler


def touch(path: Path | str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.touch()


def age(path: Path | str) -> float | None:
    """Seconds since the file was last touched, or None if it was never written."""
    try:
        return time.time() - Path(path).stat().st_mtime
    except FileNotFoundError:
        return None


def beat_heartbeat(schedule: Path | str) -> Path:
    return Path(f"{schedule}.heartbeat")


class HeartbeatScheduler(PersistentScheduler):
    """Celery beat's scheduler, touching ``<schedule>.heartbeat`` at every tick (every few seconds,
    since the sweep is due every ``EMISSARY_SWEEP_SECONDS``)."""

    def tick(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201 - Celery's signature
        interval = super().tick(*args, **kwargs)
        touch(beat_heartbeat(self.schedule_filename))
        return interval
