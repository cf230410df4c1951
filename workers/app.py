"""The Celery app. Redis broker in production (``EMISSARY_BROKER_URL=redis://...``), an in-memory
broker with an in-process worker for the embedded default.

Windows are not closed by long ETA tasks (with Redis they would be redelivered after the visibility
timeout): Celery beat runs ``workers.sweep`` every few seconds, which reads due windows from the
deadlines read model and enqueues short, idempotent close tasks; ETA tasks are only used for
windows due within minutes, to close them promptly.
"""

from __future__ import annotations

from celery import Celery

from projections import logs
from projections.settings import Settings

# The worker and beat import this module before they log anything (``celery -A workers.app:celery_app``): every
# record they and their pool's forked children make is redacted (issue 24), whatever handlers Celery installs.
logs.install()


def make_celery(settings: Settings | None = None) -> Celery:
    settings = settings or Settings()
    app = Celery("emissary", broker=settings.broker_url, include=["workers.tasks"])
    app.conf.update(
        task_acks_late=True,
        task_reject_on_worker_lost=True,
        worker_prefetch_multiplier=1,
        task_ignore_result=True,
        task_default_queue="emissary",
        broker_connection_retry_on_startup=True,
        broker_transport_options={"visibility_timeout": 3600},
        timezone="UTC",
        enable_utc=True,
        beat_schedule={
            "sweep-windows": {
                "task": "workers.sweep",
                "schedule": settings.sweep_seconds,
                "options": {"expires": settings.sweep_seconds * 4},
            },
        },
    )
    return app


celery_app = make_celery()
