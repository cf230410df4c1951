"""A child process's lifeline to the service that started it: the child ends when its parent does, however the
parent ended (a SIGTERM that reached it alone, or SIGKILL), instead of living on with its database connections,
its port or its schedule (a second beat).

On Linux the child asks the kernel for a signal when its parent dies (``prctl(PR_SET_PDEATHSIG)``, through
ctypes), and watches ``getppid()`` from a thread as a fallback (another system, or a parent thread that forked it
and ended). ``preexec`` does it between fork and exec for a command a service starts itself (the setting survives
exec); ``bind`` does it first thing in a child a library started (uvicorn's server processes, Celery's pool
processes, the projection runner)."""

from __future__ import annotations

import ctypes
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable

log = logging.getLogger("emissary.lifeline")

PR_SET_PDEATHSIG = 1  # linux/prctl.h
PARENT = "EMISSARY_LIFELINE_PARENT"  # a parent's pid, set for a child to ``bind`` to (not every run of its command)
_bound = threading.Event()


def _prctl() -> Callable[..., int] | None:
    """libc's prctl, resolved before any fork (a child between fork and exec should not load libraries)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _ask_kernel(prctl: Callable[..., int] | None, sig: int) -> bool:
    return prctl is not None and prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0


def preexec(sig: int = signal.SIGTERM) -> Callable[[], None]:
    """A ``preexec_fn`` for ``subprocess.Popen``: the command it starts gets ``sig`` when this process dies."""
    parent, prctl = os.getpid(), _prctl()

    def in_child() -> None:
        _ask_kernel(prctl, sig)
        if os.getppid() != parent:  # the parent died before the kernel was asked
            os.kill(os.getpid(), sig)

    return in_child


def bind(sig: int = signal.SIGTERM, *, parent: int | None = None, poll: float = 1.0, grace: float = 10.0) -> None:
    """In a child process, first thing: end (``sig``, then exit after ``grace`` seconds) when its parent does.

    ``parent``: the pid expected, if known (then a parent that died before this call is noticed too; else the
    child's parent now). Idempotent within a process; its children do not inherit it (the kernel clears it)."""
    if _bound.is_set():
        return
    _bound.set()
    expected = parent or os.getppid()
    _ask_kernel(_prctl(), sig)

    def watch() -> None:
        while os.getppid() == expected:  # (the first check at once: the parent may have died before the kernel knew)
            time.sleep(poll)
        log.warning("the parent process %s is gone: pid %s ends", expected, os.getpid())
        os.kill(os.getpid(), sig)
        time.sleep(grace)
        os._exit(1)

    threading.Thread(target=watch, name="lifeline", daemon=True).start()


def after_fork_in_child() -> None:
    """Forget a parent's binding in a forked child (its watch thread did not survive the fork)."""
    _bound.clear()


os.register_at_fork(after_in_child=after_fork_in_child)
