"""A service's children end with it, whoever kills it (issue 27): a process supervisor or an operator's ``kill``
that reaches the parent alone, SIGTERM or SIGKILL, leaves no server process, Celery pool process, beat or
projection runner behind with its database connections, its port or its schedule.

Each service runs against the real PostgreSQL (a scratch schema) and a Redis of the test's own, in a process group
of its own (tests/procs.py): whatever a test leaves, failing or not, is stopped with its whole group."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from tests import procs
from tests.integration.topology import Topology, free_port, wait_healthy

pytestmark = pytest.mark.integration

# children each service has once it is up: serve --workers 2 its two server processes; worker the Celery worker
# and its two pool processes; beat the Celery beat; projector the projection runner
CHILDREN = {"serve": 2, "worker": 3, "beat": 1, "projector": 1}


def command(service: str, port: int, tmp_path: Path) -> list[str]:
    return {
        "serve": ["serve", "--workers", "2", "--port", str(port), "--no-access-log"],
        "worker": ["worker", "--concurrency", "2"],
        "beat": ["beat", "--schedule", str(tmp_path / "beat-schedule")],
        "projector": ["projector"],
    }[service]


def descendants(leader: subprocess.Popen) -> list[int]:
    """The live processes of the leader's group other than itself: its children, and theirs (an orphan keeps it)."""
    return [pid for pid in procs.group_members(leader.pid) if pid != leader.pid]


def wait_children(topo: Topology, leader: subprocess.Popen, count: int, timeout: float = 60) -> list[int]:
    deadline = time.time() + timeout
    while len(children := descendants(leader)) < count:
        assert leader.poll() is None, f"the service exited with {leader.returncode}\n{topo.logs()}"
        assert time.time() < deadline, f"{len(children)} of {count} children after {timeout}s\n{topo.logs()}"
        time.sleep(0.2)
    return children


def beats(schedule: Path) -> list[int]:
    """Every running Celery beat of this schedule, on the whole machine, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or not procs.alive(int(entry)):
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"celery" in argv and b"beat" in argv and str(schedule).encode() in argv:
            found.append(int(entry))
    return found


@pytest.fixture
def topology(pg_schema_url, tmp_path, private_redis):
    topo = Topology(
        {
            "EMISSARY_DATABASE_URL": pg_schema_url,
            "EMISSARY_BROKER_URL": private_redis,
            "EMISSARY_DATA_DIR": str(tmp_path),
            "EMISSARY_SWEEP_SECONDS": "1",
            "EMISSARY_DB_POOL_SIZE": "1",
            "EMISSARY_READMODEL_POOL_SIZE": "1",
        },
        tmp_path,
    )
    try:  # every process started, with its whole group, stopped whatever happens
        yield topo
    finally:
        topo.stop_all()


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
@pytest.mark.parametrize("service", list(CHILDREN))
def test_killing_only_the_parent_leaves_no_child(service, sig, topology, tmp_path):
    port = free_port()
    leader = topology.start(service, *command(service, port, tmp_path))
    children = wait_children(topology, leader, CHILDREN[service])
    if service == "serve":  # its server processes are up (and bound to it)
        try:
            wait_healthy(f"http://127.0.0.1:{port}", 60, proc=leader)
        except RuntimeError:
            pytest.fail(topology.logs())
    os.kill(leader.pid, sig)  # the parent alone, not its group
    leader.wait(60)
    if sig == signal.SIGTERM:  # the parent stopped its children and waited for them
        assert descendants(leader) == [], f"{service} exited before its children\n{topology.logs()}"
    deadline = time.time() + 15
    while left := descendants(leader):
        assert time.time() < deadline, f"{service}: {left} of {children} outlived it\n{topology.logs()}"
        time.sleep(0.1)
    if service == "beat":  # a new beat is the only one running
        schedule = tmp_path / "beat-schedule"
        again = topology.start("beat", *command(service, port, tmp_path))
        wait_children(topology, again, 1)
        time.sleep(2)  # a second beat, were there one, would still be running
        assert beats(schedule) == descendants(again), topology.logs()
    if service == "serve":  # the port is free: a new API binds it
        again = topology.start("serve", "serve", "--port", str(port), "--no-access-log")
        try:
            wait_healthy(f"http://127.0.0.1:{port}", 60, proc=again)
        except RuntimeError:
            pytest.fail(topology.logs())
        assert "address already in use" not in topology.log("serve").lower()
