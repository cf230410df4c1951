"""Processes that tests start: each in a process group of its own, stopped with all its children.

``start`` runs a command in a new session (``start_new_session=True``: its own process group, so a
Celery worker's pool processes, a supervisor's child or the projection watchdog's runner belong to
it) and registers it. ``stop`` sends SIGTERM to the whole group, waits a bounded time, then SIGKILLs
whatever of the group is left, leader gone or not. Three nets make sure nothing outlives the tests:

- the ``procs`` fixture stops what it started at teardown, whether the test passed, failed or raised;
- the autouse ``stop_leftover_processes`` fixture stops anything a test started
  through this module and did not stop;
- an ``atexit`` hook kills every group still registered when the interpreter exits (SIGTERM to the
  test run is turned into KeyboardInterrupt, so teardowns and atexit run then too);
- a reaper: when the process that started them dies without any of that running (SIGKILL, a crash; ``make
  bench`` killed), a small process of its own kills every group still registered. It learns each group through
  a pipe from this process, and the end of that pipe (this process gone, whatever killed it) is its signal; it
  runs in a session of its own, so that a signal to this process's group or terminal does not end it first.

tests/conftest.py imports its fixtures and calls ``interrupt_on_sigterm``; ``pytest -p tests.procs``
does the same for a test file outside this suite.
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence

import pytest

_live: dict[int, subprocess.Popen] = {}  # process group id (the leader's pid) -> leader
_lock = threading.Lock()
_reaper: dict[int, subprocess.Popen] = {}  # this process's pid -> its reaper (a forked child starts its own)

# The reaper: "+PGID" registers a group, "-PGID" forgets it; at the end of its input (the process that started it
# is gone, or closed it at exit) it kills every group still registered, and exits.
REAPER = """
import os, signal, sys
for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(sig, signal.SIG_IGN)
groups = set()
for line in sys.stdin:
    line = line.strip()
    if line[:1] == "+":
        groups.add(int(line[1:]))
    elif line[:1] == "-":
        groups.discard(int(line[1:]))
for pgid in groups:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except OSError:
        pass
"""


def _tell_reaper(line: str) -> None:
    """Tell this process's reaper (started on first use) about a group; under ``_lock``."""
    reaper = _reaper.get(os.getpid())
    if reaper is None or reaper.poll() is not None:
        reaper = _reaper[os.getpid()] = subprocess.Popen(
            [sys.executable, "-c", REAPER],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            text=True,
        )
        for pgid in _live:  # (a reaper that died is replaced, knowing every group)
            reaper.stdin.write(f"+{pgid}\n")  # type: ignore[union-attr]
    try:
        reaper.stdin.write(line + "\n")  # type: ignore[union-attr]
        reaper.stdin.flush()  # type: ignore[union-attr]
    except (BrokenPipeError, ValueError):  # it is gone (killed by someone): the next call starts another
        pass


def start(argv: Sequence[str], **popen: object) -> subprocess.Popen:
    """Start ``argv`` as the leader of a new process group, registered for teardown (and with the reaper)."""
    proc = subprocess.Popen(list(argv), start_new_session=True, **popen)  # type: ignore[call-overload]
    with _lock:
        _live[proc.pid] = proc
        _tell_reaper(f"+{proc.pid}")
    return proc


def _forget(proc: subprocess.Popen) -> None:
    with _lock:
        if _live.pop(proc.pid, None) is not None:
            _tell_reaper(f"-{proc.pid}")


def group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of a process group, from /proc."""
    members = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                stat = fh.read()
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()  # after "pid (comm) ": state ppid pgrp ...
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            members.append(int(entry))
    return members


def alive(pid: int) -> bool:
    """Whether ``pid`` is a running process (a zombie counts as gone)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            stat = fh.read()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2 :].split()[0] not in ("Z", "X")


def _signal_group(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _wait_group_gone(proc: subprocess.Popen, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while True:
        proc.poll()  # reap the leader, so that it does not linger as a zombie member
        if not group_members(proc.pid):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)


def kill(proc: subprocess.Popen) -> None:
    """kill -9 the process and every process of its group, at once (a crash, not a shutdown)."""
    _signal_group(proc.pid, signal.SIGKILL)
    proc.wait()
    _wait_group_gone(proc, 10)
    _forget(proc)


def stop(proc: subprocess.Popen, grace: float = 10) -> None:
    """SIGTERM the group; SIGKILL whatever of it is left after ``grace`` seconds (children that outlive
    their leader, or ignore SIGTERM, still carry its group id)."""
    _signal_group(proc.pid, signal.SIGTERM)
    if not _wait_group_gone(proc, grace):
        _signal_group(proc.pid, signal.SIGKILL)
        _wait_group_gone(proc, 10)
    proc.wait()
    _forget(proc)


def stop_all(procs: Sequence[subprocess.Popen] | None = None, grace: float = 10) -> None:
    """Stop the given processes (default: every one still registered), all groups signalled at once."""
    with _lock:
        targets = list(_live.values()) if procs is None else [p for p in procs if p.pid in _live]
    for proc in targets:
        _signal_group(proc.pid, signal.SIGTERM)
    for proc in targets:
        stop(proc, grace)


def live() -> list[subprocess.Popen]:
    with _lock:
        return list(_live.values())


@atexit.register
def _kill_everything_left() -> None:
    for proc in live():
        _signal_group(proc.pid, signal.SIGKILL)
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        _forget(proc)  # (the reaper, at the end of its input, kills nothing that is gone: its group id may be reused)


def interrupt_on_sigterm() -> None:
    """Make SIGTERM to the test run behave like Ctrl-C: fixtures are torn down and atexit runs."""
    if signal.getsignal(signal.SIGTERM) is signal.SIG_DFL and threading.current_thread() is threading.main_thread():

        def interrupt(signum: int, frame: object) -> None:
            raise KeyboardInterrupt(f"signal {signum}")

        signal.signal(signal.SIGTERM, interrupt)


def pytest_configure(config: pytest.Config) -> None:
    interrupt_on_sigterm()


@pytest.fixture(autouse=True)
def stop_leftover_processes() -> Iterator[None]:
    """Whatever a test started through this module and left running is stopped, with its children."""
    before = {p.pid for p in live()}
    yield
    stop_all([p for p in live() if p.pid not in before])


class Group:
    """The processes one test (or fixture) started; ``close`` stops them all."""

    def __init__(self) -> None:
        self.procs: list[subprocess.Popen] = []

    def start(self, argv: Sequence[str], **popen: object) -> subprocess.Popen:
        proc = start(argv, **popen)
        self.procs.append(proc)
        return proc

    def close(self) -> None:
        stop_all(self.procs)


@pytest.fixture
def procs() -> Iterator[Group]:
    """Start processes with ``procs.start(argv, ...)``; all of them and their children are stopped at
    teardown, even when the test fails or raises."""
    group = Group()
    try:
        yield group
    finally:
        group.close()
