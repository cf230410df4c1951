"""The projection runner (keeps the read models up to date) and its watchdog, which restarts the
runner when it falls behind the event store without making progress, or dies.

Of the library's projection machinery (``eventsourcing.projection``), the runner uses the recorder's
subscription to learn of new events, and the projector the tracking recorder (``projections.tracking``:
the position written in the same transaction as the read-model rows). The library's ``ProjectionRunner``
with a ``Projection`` does not fit, for three reasons:

- it applies one event at a time (``process_event(event, tracking)``), each with its own tracking record;
  the read models render each game's boards and windows once per batch, from the game as it stands at the
  batch's last event, in one transaction per batch: per event, a 1,000-event batch would load and render a
  game up to 1,000 times;
- it needs a recorder with ``subscribe``, which the library's SQLite recorder (the default store, ``make
  run``) does not have (eventsourcing 9.5: NotImplementedError);
- it builds its own application from a class and an environment, and its view through the library's
  infrastructure factory; the embedded mode projects in the process that recorded a command, on that
  service (``Games.on_recorded``), right after the write, and the read models live in ``ReadModelDB``.

``EventSourcedProjection`` records new events, not read-model rows: it does not apply here either.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import subprocess
import sys
import threading
import time
from typing import Any

from application.compose import build_games, build_projector
from projections.settings import Settings
from workers import heartbeat

log = logging.getLogger("emissary.projector")


class Follower:
    """Wakes the runner when the event store records something new: through the recorder's subscription
    (the library's: PostgreSQL LISTEN/NOTIFY, the in-memory store) where the store has one, else after
    ``poll_seconds`` (SQLite). The runner reads the events itself, in batches from its tracked position
    (``Projector.catch_up``): the subscription only says when to."""

    def __init__(self, recorder: Any, gt: int, poll_seconds: float) -> None:
        self.poll_seconds = poll_seconds
        self.news = threading.Event()
        self.subscription: Any = None
        with contextlib.suppress(NotImplementedError):
            self.subscription = recorder.subscribe(gt=gt or None).__enter__()
        self._thread: threading.Thread | None = None
        if self.subscription is not None:
            self._thread = threading.Thread(target=self._listen, name="emissary-projector-follow", daemon=True)
            self._thread.start()

    @property
    def subscribed(self) -> bool:
        return self.subscription is not None

    def _listen(self) -> None:
        try:
            for _ in self.subscription:  # each new notification: the runner catches up from its own position
                self.news.set()
        except Exception:  # noqa: BLE001 - the runner falls back to polling; the watchdog sees a stalled runner
            log.exception("the event store's subscription failed; polling instead")
            self.subscription = None
        self.news.set()

    def wait(self) -> None:
        """Until there may be something new (or ``poll_seconds``, so the heartbeat and a stop are seen)."""
        self.news.wait(self.poll_seconds)
        self.news.clear()

    def stop(self) -> None:
        subscription, self.subscription = self.subscription, None
        if subscription is not None:
            subscription.__exit__(None, None, None)  # stops it and joins its threads
        self.news.set()
        if self._thread is not None:
            self._thread.join(5)


def run(settings: Settings, stop_after: float | None = None) -> None:
    """Catch up, then follow the event store for new events, forever (or for ``stop_after`` seconds)."""
    games = build_games(settings)
    projector = build_projector(games, settings)
    started = time.monotonic()
    stopping = threading.Event()
    follower: Follower | None = None

    def stop(*_: object) -> None:
        stopping.set()
        if follower is not None:
            follower.news.set()

    signal.signal(signal.SIGTERM, stop)
    try:
        while not stopping.is_set() and (stop_after is None or time.monotonic() - started < stop_after):
            heartbeat.touch(heartbeat.projector_heartbeat(settings.data_dir))  # for `emissary health projector`
            applied = projector.catch_up(max_batches=10)
            if applied:
                log.info("projected events=%s position=%s", applied, projector.position())
                continue
            if follower is None:  # subscribed once caught up, so that it never reads the backlog a second time
                follower = Follower(games.recorder, projector.position(), settings.projector_poll_seconds)
            follower.wait()
    finally:
        if follower is not None:
            follower.stop()
        projector.db.close()
        games.close()


class Watchdog:
    """Runs the projection runner as a child process; restarts it when it dies, or when the read models
    are behind the event store and have not moved for ``stall_seconds``."""

    def __init__(self, settings: Settings, command: list[str] | None = None, check_seconds: float = 2.0) -> None:
        self.settings = settings
        self.command = command or [sys.executable, "-m", "api.cli", "projector", "--run"]
        self.check_seconds = check_seconds
        self.child: subprocess.Popen[bytes] | None = None
        self.restarts = 0

    def start_child(self) -> subprocess.Popen[bytes]:
        self.child = child = subprocess.Popen(self.command)
        log.info("projection runner started pid=%s", child.pid)
        return child

    def run(self, stop_after: float | None = None) -> None:
        def stop(signum: int, _frame: object) -> None:
            raise SystemExit(128 + signum)  # so that ``finally`` stops the runner and closes the pools

        signal.signal(signal.SIGTERM, stop)
        games = build_games(self.settings)
        projector = build_projector(games, self.settings)
        child = self.start_child()
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
                if child.poll() is not None or stalled:
                    log.warning(
                        "restarting the projection runner: %s (position=%s head=%s)",
                        "it exited" if child.poll() is not None else "stalled",
                        position,
                        head,
                    )
                    child.kill()
                    child.wait()
                    self.restarts += 1
                    child = self.start_child()
                    last_move = time.monotonic()
        finally:
            if self.child and self.child.poll() is None:
                self.child.terminate()
                self.child.wait(10)
            projector.db.close()
            games.close()
