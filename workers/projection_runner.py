"""The projection runner (keeps the read models up to date) and its watchdog, which restarts the
runner when it falls behind the event store without making progress, or dies."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import time

from api.compose import build_games, build_projector
from projections.settings import Settings
from workers import heartbeat

log = logging.getLogger("emissary.projector")
HEARTBEAT = "{data_dir}/projector.heartbeat"


def run(settings: Settings, stop_after: float | None = None) -> None:
    """Catch up, then poll for new events, forever (or for ``stop_after`` seconds)."""
    games = build_games(settings)
    projector = build_projector(games, settings)
    started = time.monotonic()
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    while not stopping and (stop_after is None or time.monotonic() - started < stop_after):
        heartbeat.touch(HEARTBEAT.format(data_dir=settings.data_dir))  # for `emissary health projector`
        applied = projector.catch_up(max_batches=10)
        if applied:
            log.info("projected events=%s position=%s", applied, projector.position())
        else:
            time.sleep(settings.projector_poll_seconds)
    projector.db.close()
    games.close()


def lag(settings: Settings) -> tuple[int, int]:
    """(position of the read models, last notification id of the event store)."""
    games = build_games(settings)
    projector = build_projector(games, settings)
    try:
        return projector.position(), games.recorder.max_notification_id() or 0
    finally:
        projector.db.close()
        games.close()


class Watchdog:
    """Runs the projection runner as a child process; restarts it when it dies, or when the read models
    are behind the event store and have not moved for ``stall_seconds``."""

    def __init__(self, settings: Settings, command: list[str] | None = None, check_seconds: float = 2.0) -> None:
        self.settings = settings
        self.command = command or [sys.executable, "-m", "api.cli", "projector", "--run"]
        self.check_seconds = check_seconds
        self.child: subprocess.Popen | None = None
        self.restarts = 0

    def start_child(self) -> None:
        self.child = subprocess.Popen(self.command)
        log.info("projection runner started pid=%s", self.child.pid)

    def run(self, stop_after: float | None = None) -> None:
        def stop(signum: int, _frame: object) -> None:
            raise SystemExit(128 + signum)  # so that ``finally`` stops the runner and closes the pools

        signal.signal(signal.SIGTERM, stop)
        games = build_games(self.settings)
        projector = build_projector(games, self.settings)
        self.start_child()
        last_position, last_move = projector.position(), time.monotonic()
        started = time.monotonic()
        try:
            while stop_after is None or time.monotonic() - started < stop_after:
                time.sleep(self.check_seconds)
                position = projector.position()
                head = games.recorder.max_notification_id() or 0
                if position != last_position:
                    last_position, last_move = position, time.monotonic()
                stalled = head > position and time.monotonic() - last_move > self.settings.watchdog_stall_seconds
                if self.child.poll() is not None or stalled:
                    log.warning(
                        "restarting the projection runner: %s (position=%s head=%s)",
                        "it exited" if self.child.poll() is not None else "stalled",
                        position,
                        head,
                    )
                    self.child.kill()
                    self.child.wait()
                    self.restarts += 1
                    self.start_child()
                    last_move = time.monotonic()
        finally:
            if self.child and self.child.poll() is None:
                self.child.terminate()
                self.child.wait(10)
            projector.db.close()
            games.close()
