"""Celery beat's scheduler (``emissary beat`` runs it: ``--scheduler workers.scheduler:HeartbeatScheduler``)."""

from __future__ import annotations

from celery.beat import PersistentScheduler

from workers.heartbeat import beat_heartbeat, touch


class HeartbeatScheduler(PersistentScheduler):
    """Celery beat's scheduler, touching ``<schedule>.heartbeat`` at every tick (every few seconds,
    since the sweep is due every ``EMISSARY_SWEEP_SECONDS``), for ``emissary health beat``."""

    def tick(self, *args, **kwargs):  # noqa: ANN002, ANN003, ANN201 - Celery's signature
        interval = super().tick(*args, **kwargs)
        touch(beat_heartbeat(self.schedule_filename))
        return interval
