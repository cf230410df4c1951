"""Heartbeat files, for the health checks of processes that serve nothing to probe (beat, the
projection runner): the process touches its file while it works; the check reads the file's age.

Only the standard library here: ``emissary health beat`` and ``emissary health projector`` read these files
without importing Celery or the application (issue 27); beat's scheduler, which touches its file, is
``workers.scheduler``."""

from __future__ import annotations

import time
from pathlib import Path

PROJECTOR = "{data_dir}/projector.heartbeat"  # the projection runner's, touched at each of its turns


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
    """Beat's file, beside its ``--schedule``."""
    return Path(f"{schedule}.heartbeat")


def projector_heartbeat(data_dir: Path | str) -> Path:
    """The projection runner's file, in the data directory."""
    return Path(PROJECTOR.format(data_dir=data_dir))
