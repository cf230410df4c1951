"""Tests that start processes stop them and their children, even when the test body raises or the test
run is interrupted (tests/procs.py). Each case runs a small test file in a pytest of its own, then
checks that the process it started, and that process's own child, are gone."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.procs import alive

ROOT = Path(__file__).resolve().parents[1]

INNER = """
import os, signal, subprocess, sys

from tests import procs

# A parent that starts a child of its own (as a Celery worker starts its pool), then prints that pid.
PARENT = ("import subprocess, sys, time; "
          "c = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)']); "
          "print(c.pid, flush=True); time.sleep(600)")


def spawn(start):
    parent = start([sys.executable, "-c", PARENT], stdout=subprocess.PIPE, text=True)
    child = int(parent.stdout.readline())
    with open(os.environ["PIDS_FILE"], "a") as fh:
        fh.write(f"{parent.pid} {child}\\n")


def test_with_the_fixture_and_a_failing_body(procs):
    spawn(procs.start)
    raise RuntimeError("the test body failed")


def test_started_directly_and_left_running():
    spawn(procs.start)
    assert False, "forgot to stop it"


def test_interrupted():
    if os.environ.get("INTERRUPT") == "SIGTERM":
        spawn(procs.start)
        os.kill(os.getpid(), signal.SIGTERM)  # as a CI timeout does
    if os.environ.get("INTERRUPT") == "SIGKILL":
        spawn(procs.start)
        os.kill(os.getpid(), signal.SIGKILL)  # no teardown, no atexit: the reaper is left
"""


def run_inner(tmp_path: Path, *, interrupt: str = "") -> tuple[subprocess.CompletedProcess, list[int]]:
    test_file = tmp_path / "test_inner.py"
    test_file.write_text(textwrap.dedent(INNER))
    pids = tmp_path / "pids"
    env = {**os.environ, "PIDS_FILE": str(pids), "PYTHONPATH": str(ROOT), "INTERRUPT": interrupt}
    selection = ["-k", "interrupted"] if interrupt else ["-k", "not interrupted"]
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-p",
            "tests.procs",
            "-q",
            "-p",
            "no:cacheprovider",
            str(test_file),
            *selection,
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    started = [int(p) for p in pids.read_text().split()] if pids.exists() else []
    return done, started


def test_a_spawned_process_and_its_children_are_gone_after_a_test_that_raised(tmp_path):
    done, started = run_inner(tmp_path)
    assert "2 failed" in done.stdout and "the test body failed" in done.stdout, done.stdout + done.stderr
    assert len(started) == 4  # two parents, each with a child of its own
    assert [pid for pid in started if alive(pid)] == [], done.stdout


def test_a_spawned_process_and_its_children_are_gone_after_the_run_is_interrupted(tmp_path):
    done, started = run_inner(tmp_path, interrupt="SIGTERM")
    assert done.returncode == pytest.ExitCode.INTERRUPTED, done.stdout + done.stderr
    assert len(started) == 2
    assert [pid for pid in started if alive(pid)] == [], done.stdout


def test_a_spawned_process_and_its_children_are_gone_after_the_run_is_killed(tmp_path):
    """SIGKILL to the test run (or to ``make bench``, which starts its processes here too): no teardown and no
    atexit hook runs, and the reaper kills the groups (the parent and the child it started, which has no lifeline)."""
    done, started = run_inner(tmp_path, interrupt="SIGKILL")
    assert done.returncode == -signal.SIGKILL, done.stdout + done.stderr
    assert len(started) == 2
    deadline = time.monotonic() + 10
    while left := [pid for pid in started if alive(pid)]:
        assert time.monotonic() < deadline, f"{left} outlived the killed run"
        time.sleep(0.05)
