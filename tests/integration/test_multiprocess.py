"""Three real `emissary serve` processes on one PostgreSQL store, committing to the same game at once.

Within one process a per-game lock takes commands in turn; across processes only the store's
optimistic concurrency stands between two saves. These tests make the processes race, count the
conflicts the store reported (each process logs every save it lost and retried), and check that
nothing was lost or doubled.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from api.compose import build_games
from projections.settings import Settings
from tests.integration.topology import Topology, free_port, wait_healthy

pytestmark = pytest.mark.integration
SERVERS = 3
RETRY_LINE = "concurrent save, retrying"


@pytest.fixture
def servers(pg_schema_url, tmp_path):
    """Three API processes on the same store (no workers: only the commands sent here write)."""
    topo = Topology(
        {
            "EMISSARY_DATABASE_URL": pg_schema_url,
            "EMISSARY_DATA_DIR": str(tmp_path),
            "EMISSARY_EMBEDDED_WORKERS": "false",
        },
        tmp_path,
    )
    bases = []
    try:
        for n in range(SERVERS):
            port = free_port()
            proc = topo.start(f"api{n}", "serve", "--port", str(port), "--no-access-log")
            bases.append(f"http://127.0.0.1:{port}")
            wait_healthy(bases[-1], 60, proc)
        yield bases, topo, pg_schema_url
    except RuntimeError:
        pytest.fail(topo.logs())
    finally:
        topo.stop_all()


def conflicts_logged(topo: Topology) -> int:
    return sum(p.read_text().count(RETRY_LINE) for p in topo.logdir.glob("api*.log"))


def race(calls: list) -> list[httpx.Response]:
    """Send every call at the same moment, each on its own connection."""
    barrier = threading.Barrier(len(calls))

    def send(call):
        base, path, headers, body = call
        with httpx.Client(base_url=base, timeout=120) as http:
            barrier.wait()
            return http.post(path, headers=headers, json=body)

    with ThreadPoolExecutor(len(calls)) as pool:
        return list(pool.map(send, calls))


def test_processes_racing_on_one_game_retry_their_conflicts_and_lose_or_double_nothing(servers):
    bases, topo, url = servers
    with httpx.Client(base_url=bases[0], timeout=30) as http:
        r = http.post("/games", json={"name": "Three servers"})
        game, gm = r.json()["game_id"], {"Authorization": f"Bearer {r.json()['gm_token']}"}
        powers = {}
        for i in range(6):
            r = http.post(
                f"/games/{game}/powers",
                headers=gm,
                json={"name": f"Circle {i}", "cls": "conspiracy", "subclass": "circle"},
            )
            powers[r.json()["power_id"]] = {"Authorization": f"Bearer {r.json()['token']}"}
        for step in ("setup", "tidings"):
            assert http.post(f"/games/{game}/advance", headers=gm, json={"expected_step": step}).status_code == 200
    for base in bases:  # every process now holds the game in its cache
        assert httpx.get(f"{base}/games/{game}/view", headers=gm, timeout=30).status_code == 200

    # Round 1: 18 actions (3 for each Circle, within its 4 private slots), spread over the processes.
    calls = [
        (bases[n % SERVERS], f"/games/{game}/actions", h, {"title": f"{pid} plot {n}", "convert": 0})
        for n, (pid, h) in enumerate([(p, h) for p, h in powers.items() for _ in range(3)])
    ]
    results = race(calls)
    # Then GM grants (no quota) until the store has reported conflicts, at most a few rounds.
    granted: list[str] = []
    for round_ in range(6):
        if conflicts_logged(topo) and round_:
            break
        grants = race(
            [
                (
                    bases[n % SERVERS],
                    f"/games/{game}/powers/{pid}/assets",
                    gm,
                    {"name": f"r{round_} g{n}", "cls": "item", "rank": 1},
                )
                for n, pid in enumerate(list(powers) * 3)
            ]
        )
        assert all(r.status_code in (201, 409) for r in grants), [r.text for r in grants]
        granted += [r.json()["result"]["asset_id"] for r in grants if r.status_code == 201]

    conflicts = conflicts_logged(topo)
    assert conflicts > 0, "the processes never raced: this test proved nothing\n" + topo.logs()
    for r in results:
        assert r.status_code in (201, 409), r.text
        if r.status_code == 409:
            assert r.json()["error"] == "Conflict"
    accepted = sorted(r.json()["result"]["action_id"] for r in results if r.status_code == 201)
    assert len(accepted) >= len(calls) - conflicts  # a refusal is a conflict that ran out of retries

    games = build_games(Settings(database_url=url))
    try:
        events = list(games.iter_events(game))
        stored = sorted(e.action_id for e in events if type(e).__name__ == "ActionSubmitted")
        assert stored == accepted  # none lost, none doubled
        assert sorted(e.asset_id for e in events if type(e).__name__ == "AssetGranted") == sorted(granted)
        assert [e.originator_version for e in events] == list(range(1, len(events) + 1))
    finally:
        games.close()


def test_one_idempotency_key_sent_to_every_process_at_once_records_one_action(servers):
    bases, topo, url = servers
    with httpx.Client(base_url=bases[0], timeout=30) as http:
        r = http.post("/games", json={"name": "One key"})
        game, gm = r.json()["game_id"], {"Authorization": f"Bearer {r.json()['gm_token']}"}
        r = http.post(
            f"/games/{game}/powers", headers=gm, json={"name": "A", "cls": "conspiracy", "subclass": "circle"}
        )
        me = {"Authorization": f"Bearer {r.json()['token']}"}
        for step in ("setup", "tidings"):
            http.post(f"/games/{game}/advance", headers=gm, json={"expected_step": step})
    for base in bases:
        httpx.get(f"{base}/games/{game}/view", headers=me, timeout=30)
    keyed = {**me, "Idempotency-Key": "one-click"}
    results = race(
        [(base, f"/games/{game}/actions", keyed, {"title": "Plot", "convert": 0}) for base in bases for _ in range(3)]
    )
    assert all(r.status_code == 201 for r in results), [r.text for r in results]
    assert len({r.json()["result"]["action_id"] for r in results}) == 1
    assert len({tuple(r.json()["result"]["faces"]) for r in results}) == 1  # no new dice
    assert sum(1 for r in results if not r.json()["replayed"]) == 1
    games = build_games(Settings(database_url=url))
    try:
        assert len([e for e in games.iter_events(game) if type(e).__name__ == "ActionSubmitted"]) == 1
    finally:
        games.close()
