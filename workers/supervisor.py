"""A minimal supervisor: run a command, and run it again if it dies (what a deployment's restart
policy does, built in so that ``emissary worker`` recovers by itself, for example when its broker
restarts under it and Celery gives up).

The command ends with the supervisor, whoever kills it: SIGTERM or SIGINT is passed on to it and waited for
(SIGKILL after ``grace`` seconds); if the supervisor itself is killed, the kernel sends the command SIGTERM
(workers.lifeline)."""

from __future__ import annotations

import logging
import signal
import subprocess
import time
from collections.abc import Callable

from workers import lifeline

log = logging.getLogger("emissary.supervisor")


def supervise(argv: list[str], *, backoff: float = 1.0, max_backoff: float = 30.0, grace: float = 30.0) -> int:
    """Run ``argv`` until SIGTERM/SIGINT; restart it whenever it exits on its own."""
    stopping: float | None = None  # when the stop was asked
    child: subprocess.Popen | None = None

    def stop(signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = stopping or time.monotonic()
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    delay = backoff
    while stopping is None:
        started = time.monotonic()
        child = subprocess.Popen(argv, preexec_fn=lifeline.preexec())
        rc = _wait(child, lambda: stopping, grace)
        if stopping is not None:
            return rc
        delay = backoff if time.monotonic() - started > 60 else min(delay * 2, max_backoff)
        log.warning("%s exited with %s; restarting in %.0fs", argv[2] if len(argv) > 2 else argv[0], rc, delay)
        resume = time.monotonic() + delay
        while stopping is None and time.monotonic() < resume:
            time.sleep(0.2)
    return 0


def _wait(child: subprocess.Popen, stopping: Callable[[], float | None], grace: float) -> int:
    """The child's exit status; once a stop is asked (``stopping()`` gives when), SIGKILL after ``grace``."""
    while True:
        try:
            return child.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            since = stopping()
            if since is not None and time.monotonic() - since > grace:
                log.warning("pid %s still running %.0fs after the stop: killed", child.pid, grace)
                child.kill()
