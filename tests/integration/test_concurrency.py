"""Concurrent commands on one game over real HTTP, against PostgreSQL: none lost, none doubled."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest
import uvicorn

from api.app import create_app
from projections.settings import Settings
from tests.domain.helpers import step_of
from tests.integration.helpers import close_app
from tests.integration.topology import free_port

pytestmark = pytest.mark.integration


@pytest.fixture
def server(pg_schema_url):
    """The real app under uvicorn on a loopback port, on PostgreSQL."""
    app = create_app(Settings(database_url=pg_schema_url))
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    deadline = time.time() + 20
    while not srv.started:
        assert time.time() < deadline, "server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app
    srv.should_exit = True
    thread.join(10)
    close_app(app)


@pytest.fixture
def games(server):
    """The served app's application service."""
    return server[1].state.games


def test_twenty_concurrent_submissions_are_each_recorded_once_or_explicitly_refused(server, games):
    base, app = server
    with httpx.Client(base_url=base, timeout=30) as http:
        r = http.post("/games", json={"name": "Race"})
        game, gm = r.json()["game_id"], r.json()["gm_token"]
        tokens = {}
        for i in range(4):
            r = http.post(
                f"/games/{game}/powers",
                json={"name": f"Circle {i}", "cls": "conspiracy", "subclass": "circle"},
                headers={"Authorization": f"Bearer {gm}"},
            )
            tokens[r.json()["power_id"]] = r.json()["token"]
        for step in ("setup", "tidings"):
            assert (
                http.post(
                    f"/games/{game}/advance", headers={"Authorization": f"Bearer {gm}"}, json={"expected_step": step}
                ).status_code
                == 200
            )

    # 5 submissions per Circle: each may take only 4 private actions, so exactly 4 of the 20 must be refused.
    jobs = [(pid, tok, n) for n in range(5) for pid, tok in tokens.items()]
    barrier = threading.Barrier(len(jobs))

    def submit(job):
        pid, tok, n = job
        with httpx.Client(base_url=base, timeout=60) as http:
            barrier.wait()
            return pid, http.post(
                f"/games/{game}/actions",
                headers={"Authorization": f"Bearer {tok}"},
                json={"title": f"{pid} plot {n}", "convert": 0},
            )

    with ThreadPoolExecutor(len(jobs)) as pool:
        results = list(pool.map(submit, jobs))

    accepted = [(pid, r.json()["result"]["action_id"]) for pid, r in results if r.status_code == 201]
    refused = [r for _, r in results if r.status_code != 201]
    assert len(accepted) + len(refused) == 20
    for r in refused:
        assert r.status_code in (409, 422), r.text
        assert r.json()["rule"] == "P-ACT-1" or r.json()["error"] == "Conflict"
    stored = [e for e in games.iter_events(game) if type(e).__name__ == "ActionSubmitted"]
    stored_ids = [e.action_id for e in stored]
    assert sorted(stored_ids) == sorted(aid for _, aid in accepted)  # none lost, none doubled
    assert len(set(stored_ids)) == len(stored_ids)
    per_power = {pid: sum(1 for p, _ in accepted if p == pid) for pid in tokens}
    assert all(n <= 4 for n in per_power.values())
    assert sum(1 for r in refused if r.status_code == 422) == 20 - 16 - sum(4 - n for n in per_power.values())
    versions = [e.originator_version for e in games.iter_events(game)]
    assert versions == list(range(1, len(versions) + 1))


def test_a_burst_of_twenty_advances_with_the_same_expected_step_moves_the_game_exactly_once(server, games):
    """Twenty clicks on "advance" from Tidings: one moves the game to Planning, the others are refused
    with 409 naming the step the game is now at, and nothing else is recorded (Planning is not closed)."""
    base, app = server
    with httpx.Client(base_url=base, timeout=30) as http:
        r = http.post("/games", json={"name": "Burst"})
        game, gm = r.json()["game_id"], {"Authorization": f"Bearer {r.json()['gm_token']}"}
        http.post(f"/games/{game}/powers", headers=gm, json={"name": "A", "cls": "conspiracy", "subclass": "circle"})
        assert http.post(f"/games/{game}/advance", headers=gm, json={"expected_step": "setup"}).status_code == 200
    before = games.get_game(game).version
    barrier = threading.Barrier(20)

    def click(_):
        with httpx.Client(base_url=base, timeout=60) as http:
            barrier.wait()
            return http.post(f"/games/{game}/advance", headers=gm, json={"expected_step": "tidings"})

    with ThreadPoolExecutor(20) as pool:
        results = list(pool.map(click, range(20)))
    moved = [r for r in results if r.status_code == 200]
    assert len(moved) == 1 and moved[0].json()["result"]["step"] == "planning"
    for r in results:
        if r.status_code != 200:
            assert r.status_code == 409 and r.json()["field"] == "expected_step", r.text
            assert "now at planning" in r.json()["message"]
    new = [type(e).__name__ for e in games.iter_events(game)][before:]
    assert new == ["SeedSealed", "SeedCommitted", "WindowOpened", "StepBegan"]  # one step, nothing more
    assert step_of(games.get_game(game)) == "planning"
