"""A minimal supervisor: run a command, and run it again if it dies (what a deployment's restart
policy does, built in so that ``emissary worker`` recovers by itself, for example when its broker
restarts under it and Celery gives up)."""

from __future__ import annotations

import logging
import signal
import subprocess
import time

log = logging.getLogger("emissary.supervisor")


def supervise(argv: list[str], *, backoff: float = 1.0, max_backoff: float = 30.0) -> int:
    """Run ``argv`` until SIGTERM/SIGINT; restart it whenever it exits on its own."""
    stopping = False
    child: subprocess.Popen | None = None

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    delay = backoff
    while not stopping:
        started = time.monotonic()
        child = subprocess.Popen(argv)
        rc = child.wait()
        if stopping:
            return rc
        delay = backoff if time.monotonic() - started > 60 else min(delay * 2, max_backoff)
        log.warning("%s exited with %s; restarting in %.0fs", argv[2] if len(argv) > 2 else argv[0], rc, delay)
        time.sleep(delay)
    return 0
