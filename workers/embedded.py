"""The embedded default: an in-memory broker, an in-process worker and an in-process sweep, running
the same task code as production (no Redis needed)."""

from __future__ import annotations

import logging
import threading

from application.service import Games
from projections.projector import Projector
from projections.settings import Settings
from workers import runtime

log = logging.getLogger("emissary.embedded")


class EmbeddedWorkers:
    """A Celery worker thread on the in-memory broker, and a thread that sends the sweep every few seconds."""

    def __init__(self, games: Games, projector: Projector, settings: Settings) -> None:
        runtime.use(games, projector, settings)
        from workers.app import celery_app

        self.app = celery_app
        self.settings = settings
        self.stopping = threading.Event()
        self.worker = self.app.WorkController(
            pool_cls="solo",
            concurrency=1,
            loglevel="WARNING",
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
            queues=["emissary"],
        )
        self.threads = [
            threading.Thread(target=self.worker.start, name="emissary-worker", daemon=True),
            threading.Thread(target=self._beat, name="emissary-sweep", daemon=True),
        ]

    def start(self) -> EmbeddedWorkers:
        for t in self.threads:
            t.start()
        log.info("embedded worker and sweep started (every %ss)", self.settings.sweep_seconds)
        return self

    def _beat(self) -> None:
        from workers.tasks import sweep

        while not self.stopping.wait(self.settings.sweep_seconds):
            try:
                sweep.delay()
            except Exception:  # noqa: BLE001 - keep sweeping whatever one send did
                log.exception("could not send the sweep")

    def stop(self) -> None:
        self.stopping.set()
        self.worker.stop(in_sighandler=False)
