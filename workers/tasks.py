"""Celery tasks: thin, idempotent, named as verbs. Every one is safe to run twice."""

from __future__ import annotations

import logging
from datetime import datetime

from domain.errors import DomainError
from workers import claims, runtime
from workers.app import celery_app

log = logging.getLogger("emissary.workers")


@celery_app.task(name="workers.sweep", acks_late=True)
def sweep() -> dict:
    """Find due windows in the deadlines read model and hand each to a close task; schedule ETA closes
    for windows due within minutes; queue due reminders."""
    projector = runtime.projector()
    settings = runtime.settings()
    claims.ensure_tables(projector.db)
    projector.catch_up(max_batches=4)  # the runner keeps up; this guards against a stalled runner
    now = runtime.now()
    due = claims.claim_due(projector.db, now, settings.claim_seconds)
    for game_id, window_id in due:
        close_window.delay(game_id, window_id)
    soon = claims.soon_due(projector.db, now, settings.eta_lookahead_seconds)
    for game_id, window_id, closes_at in soon:
        close_window.apply_async((game_id, window_id), eta=datetime.fromisoformat(closes_at.replace("Z", "+00:00")))
    reminders = claims.reminders_due(projector.db, now, _reminder_offsets())
    for game_id, window_id in reminders:
        queue_reminders.delay(game_id, window_id)
    if due or soon or reminders:
        log.info("sweep at=%s due=%s eta=%s reminders=%s", now.isoformat(), len(due), len(soon), len(reminders))
    return {"due": len(due), "eta": len(soon), "reminders": len(reminders)}


@celery_app.task(name="workers.close_window", acks_late=True)
def close_window(game_id: str, window_id: str) -> bool:
    """Close one window if it is due; a no-op if closed already (or not yet due, for an early ETA)."""
    try:
        closed = runtime.games().close_due_window(game_id, window_id)
    except DomainError as err:
        log.warning("window not closed game=%s window=%s: %s", game_id, window_id, err.message)
        return False
    if closed:
        log.info("window closed game=%s window=%s at=%s", game_id, window_id, runtime.now().isoformat())
    return closed


@celery_app.task(name="workers.queue_reminders", acks_late=True)
def queue_reminders(game_id: str, window_id: str) -> list[str]:
    """Record the reminders now due for a window (each offset once per window)."""
    recipients = runtime.games().queue_due_reminders(game_id, window_id)
    if recipients:
        log.info("reminders queued game=%s window=%s to=%s", game_id, window_id, ",".join(recipients))
    return recipients


def _reminder_offsets() -> list[float]:
    # Every game may set its own offsets; the sweep looks as far ahead as the largest default.
    return [24.0, 1.0]
