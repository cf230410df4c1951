"""The Celery app as ``emissary worker`` and ``emissary beat`` run it (``celery -A workers.celery_main:celery_app``):
logging as every other service's, set up first thing (JSON lines on stderr, every record redacted; issue 27), and
Celery told to keep its hands off it. Only Celery's own programs import this module: a process that merely uses the
app (the API's embedded worker, a test's) keeps its logging as it is."""

from __future__ import annotations

import logging

from celery.signals import setup_logging

from projections import logs
from projections.settings import Settings
from workers.app import celery_app

__all__ = ["celery_app"]

logs.configure(Settings().log_level)  # before Celery warns of anything (running as root, say)
logging.captureWarnings(True)


@setup_logging.connect
def _keep_ours(loglevel: int | str | None = None, **_: object) -> None:
    """Celery asks its receivers to set up the logging: with one, it installs no handler, format or redirection of
    its own (``worker_hijack_root_logger``), and the worker's pool processes inherit ours."""
    if loglevel:
        logging.getLogger().setLevel(loglevel)
