"""The processes ``make bench`` starts end with it, however it ends (issue 27, item 6): the bench killed with SIGKILL
leaves no API server, Celery worker or beat, projection runner or bare-store process behind (before, each lived on
in a session of its own, holding its port and its database connections).

A driver runs the bench's own starting code (``bench.serve_processes``, whose servers start from a thread pool's
threads, the ``Topology`` its window figures use, ``bench.BareProcesses``) and is then killed with SIGKILL alone."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests import procs
from tests.integration.topology import ROOT

pytestmark = pytest.mark.integration

DRIVER = textwrap.dedent(
    """
    import json, sys, time
    from pathlib import Path

    from projections.settings import Settings
    from tests import bench, procs
    from tests.integration.topology import Topology

    url, redis_url, tmp = sys.argv[1:4]
    settings = Settings(database_url=url, data_dir=Path(tmp))
    bases, stop = bench.serve_processes(settings, 2)  # started from a thread pool's threads, which have ended
    topo = Topology(
        {"EMISSARY_DATABASE_URL": url, "EMISSARY_BROKER_URL": redis_url, "EMISSARY_DATA_DIR": tmp,
         "EMISSARY_DB_POOL_SIZE": "1", "EMISSARY_DB_MAX_OVERFLOW": "1", "EMISSARY_READMODEL_POOL_SIZE": "1"},
        Path(tmp),
    )
    topo.start("worker", "worker", "--concurrency", "1")
    topo.start("beat", "beat", "--schedule", str(Path(tmp) / "beat-schedule"))
    topo.start("projector", "projector")
    bare = bench.BareProcesses(settings.eventsourcing_env(), 1)
    print(json.dumps({"servers": bases, "groups": {name: p.pid for name, p in topo.procs.items()},
                      "bare": [p.pid for p in bare.procs]}), flush=True)
    time.sleep(600)
    """
)
# members of each group once it is up: the Celery worker's supervisor, Celery and its pool process; beat's
# supervisor and Celery beat; the projector's watchdog and its runner
MEMBERS = {"worker": 3, "beat": 2, "projector": 2}


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid`` (children, theirs, ...), from /proc."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and procs.alive(int(entry)):
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            parents[int(entry)] = int(stat[stat.rfind(")") + 2 :].split()[1])
    found, todo = set(), [pid]
    while todo:
        parent = todo.pop()
        for child, ppid in parents.items():
            if ppid == parent and child not in found:
                found.add(child)
                todo.append(child)
    return found


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:200]
    except OSError:
        return "?"


def test_killing_the_bench_leaves_none_of_its_processes(pg_schema_url, private_redis, tmp_path):
    driver = procs.start(
        [sys.executable, "-c", DRIVER, pg_schema_url, private_redis, str(tmp_path)],
        cwd=ROOT,
        env={k: v for k, v in os.environ.items() if not k.startswith("EMISSARY_")},
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    seen: set[int] = set()
    groups: list[int] = []
    try:
        ready, _, _ = select.select([driver.stdout], [], [], 240)
        line = driver.stdout.readline() if ready else ""  # type: ignore[union-attr]
        assert line, f"the driver did not start the bench's processes (exit {driver.poll()})"
        started = json.loads(line)
        groups = list(started["groups"].values())
        deadline = time.time() + 120
        while any(len(procs.group_members(started["groups"][n])) < m for n, m in MEMBERS.items()):
            assert time.time() < deadline, {n: procs.group_members(g) for n, g in started["groups"].items()}
            time.sleep(0.2)
        seen = descendants(driver.pid)
        servers = [p for p in seen if "serve" in cmdline(p)]
        assert len(servers) == 2, [cmdline(p) for p in seen]  # alive, though the threads that started them ended
        assert set(started["bare"]) <= seen
        os.kill(driver.pid, signal.SIGKILL)  # the bench alone
        driver.wait(30)
        deadline = time.time() + 30
        while left := {p for p in seen | {m for g in groups for m in procs.group_members(g)} if procs.alive(p)}:
            assert time.time() < deadline, "outlived the bench: " + "; ".join(f"{p} {cmdline(p)}" for p in left)
            time.sleep(0.2)
    finally:
        for pid in seen | set(groups):
            for kill in (os.killpg, os.kill):
                try:
                    kill(pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
