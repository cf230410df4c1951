"""A minimal supervisor: run a command, and run it again if it dies (what a deployment's restart
policy does, built in so that ``emissary worker`` recovers by itself, for example when its broker
restarts under it and Celery gives up).

The command ends with the supervisor, whoever kills it: SIGTERM or SIGINT is passed on to it and waited for
(SIGKILL after ``grace`` seconds); if the supervisor itself is killed, the kernel sends the command SIGTERM
(workers.lifeline). In JSON mode it writes what the command writes as JSON lines too (``relay``)."""

from __future__ import annotations

import logging
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from typing import IO, Any

from workers import lifeline

log = logging.getLogger("emissary.supervisor")
_writing = threading.Lock()  # one relayed line at a time


def supervise(
    argv: list[str],
    *,
    backoff: float = 1.0,
    max_backoff: float = 30.0,
    grace: float = 30.0,
    json_lines: bool = False,
) -> int:
    """Run ``argv`` until SIGTERM/SIGINT; restart it whenever it exits on its own. With ``json_lines``, every line
    the command writes is written on as a JSON line (``relay``)."""
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
        pipes: dict[str, Any] = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE} if json_lines else {}
        child = subprocess.Popen(argv, preexec_fn=lifeline.preexec(), **pipes)
        relays = relay(child, argv[2] if len(argv) > 2 else argv[0]) if json_lines else []
        try:
            rc = _wait(child, lambda: stopping, grace)
        finally:
            for thread in relays:  # the last lines written (its pool's too), before the next run or the exit
                thread.join(5)
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


def relay(child: subprocess.Popen, name: str) -> list[threading.Thread]:
    """Write every line the child writes on its stdout and stderr to this process's own, as JSON lines (issue 27): its
    log records as they are, anything else (what Celery writes past its logging: a shutdown notice to the terminal, a
    warning before its logging is set up, a crash's traceback) as a record of the logger ``name``."""
    from projections import logs

    def copy(source: IO[bytes], target: IO[str], level: int) -> None:
        with source:
            for raw in iter(source.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                if line.strip():
                    with _writing:
                        target.write(logs.json_line(line, name, level) + "\n")
                        target.flush()

    assert child.stdout is not None and child.stderr is not None
    threads = [
        threading.Thread(target=copy, args=(child.stdout, sys.stdout, logging.INFO), name="relay-out", daemon=True),
        threading.Thread(target=copy, args=(child.stderr, sys.stderr, logging.WARNING), name="relay-err", daemon=True),
    ]
    for thread in threads:
        thread.start()
    return threads
