"""Issue 27, Observability: a Powers month played through the JSON API moves the counters on ``/metrics`` as it
should (every command sent counted accepted, a refused one refused, a closed window's close lag, the outbox's depth
as the outbox holds it), on SQLite and on PostgreSQL; ``/metrics`` is refused without its key in production, and
served without one only to this machine outside it; ``emissary status`` prints the same store figures."""

from __future__ import annotations

import json
from datetime import datetime, timedelta

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from api import cli
from application import metrics
from tests.integration import test_api_month as month
from tests.integration.helpers import bearer

KEY = "metrics-key-" + "k" * 32
LOCAL = ("127.0.0.1", 50123)


def scrape(api, headers: dict | None = None) -> dict[tuple, float]:
    r = api.get("/metrics", headers=headers or {})
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }


def total(found: dict[tuple, float], name: str, **labels: str) -> float:
    """The sum of a metric's samples whose labels include ``labels``."""
    return sum(v for (n, ls), v in found.items() if n == name and set(labels.items()) <= set(ls))


class Counting:
    """The test client, counting the commands it sends (POST, PUT, DELETE) by how they were answered."""

    def __init__(self, api: TestClient) -> None:
        self.api = api
        self.accepted = self.refused = 0

    def request(self, method: str, url: str, **kwargs):
        r = self.api.request(method, url, **kwargs)
        if method != "GET":
            if r.status_code in (200, 201):
                self.accepted += 1
            elif r.status_code == 422:
                self.refused += 1
        return r

    def get(self, url: str, **kwargs):
        return self.request("GET", url, **kwargs)

    def post(self, url: str, **kwargs):
        return self.request("POST", url, **kwargs)

    def put(self, url: str, **kwargs):
        return self.request("PUT", url, **kwargs)


@pytest.fixture
def local(app):
    """The API as a client on this machine sees it (outside production, /metrics needs no key there)."""
    with TestClient(app, client=LOCAL) as client:
        yield client


def test_a_month_over_http_moves_the_counters_on_metrics(app, local, games, projector):
    before = scrape(local)
    api = Counting(local)
    month.test_a_gm_and_three_powers_play_a_whole_month_over_http(api)
    # A rule refusal: an Overlord's third private action of the month (P-ACT-1).
    game, gm_token, tokens, _ = month.setup_game(api)
    for seen in ("setup", "tidings"):
        assert api.post(f"/games/{game}/advance", headers=bearer(gm_token), json={"expected_step": seen}).status_code
    for n in range(3):
        r = api.post(f"/games/{game}/actions", headers=bearer(tokens["gondor"]), json={"title": f"Plot {n}"})
        assert r.status_code == (201 if n < 2 else 422), r.text
    assert r.json()["rule"] == "P-ACT-1" and api.refused == 1
    after = scrape(local)

    def moved(name: str, **labels: str) -> float:
        return total(after, name, **labels) - total(before, name, **labels)

    assert api.accepted > 30
    assert moved("emissary_commands_total", ruleset="powers", outcome="accepted") == api.accepted
    assert moved("emissary_commands_total", ruleset="powers", outcome="refused") == 1
    assert moved("emissary_commands_total", outcome="conflict") == 0
    assert moved("emissary_command_seconds_count", ruleset="powers") == api.accepted + 1
    assert moved("emissary_command_seconds_sum") > 0
    # The resistance window of the month closed early (everyone eligible acted): one close lag sample, 0 s.
    assert total(after, "emissary_window_close_lag_seconds_count") >= 1
    assert total(after, "emissary_window_close_lag_seconds_bucket", le="1.0") == total(
        after, "emissary_window_close_lag_seconds_count"
    )
    # The outbox's depth is the outbox's (no mail worker runs here: nothing has been handed on).
    outbox = projector.outbox()
    assert total(after, "emissary_outbox_depth") == len(outbox) == metrics.figures(projector)["outbox_depth"]
    assert total(after, "emissary_projector_lag_events") == 0 and total(after, "emissary_blocked_games") == 0

    # The sweep closes an open window at its deadline, 90 s late: a close lag sample of 90 s.
    window_id, closes_at = projector.db.query(
        "SELECT window_id, closes_at FROM rm_windows WHERE game_id = ? AND closed = 0", (game,)
    )[0]
    late = datetime.fromisoformat(closes_at) + timedelta(seconds=90)
    games.clock = lambda: late
    assert games.close_due_window(game, window_id)
    projector.catch_up()
    found = scrape(local)
    deadline = found[("emissary_window_close_lag_seconds_count", (("reason", "deadline"),))]
    assert deadline == 1
    assert found[("emissary_window_close_lag_seconds_sum", (("reason", "deadline"),))] == pytest.approx(90, abs=1)
    assert found[("emissary_window_close_lag_seconds_bucket", (("le", "60.0"), ("reason", "deadline")))] == 0
    assert found[("emissary_window_close_lag_seconds_bucket", (("le", "300.0"), ("reason", "deadline")))] == 1
    assert (
        total(found, "emissary_commands_total", ruleset="powers", outcome="accepted")
        == total(after, "emissary_commands_total", ruleset="powers", outcome="accepted") + 1
    )  # the sweep's close is a command too


def _served_with(app, settings) -> None:
    """The web app serves with these settings from now on."""
    app.state.settings = settings


def test_metrics_are_refused_without_the_key_in_production(app, settings):
    with TestClient(app, client=LOCAL) as api:
        _served_with(app, settings.model_copy(update={"env": "production", "metrics_key": KEY}))
        try:
            assert api.get("/metrics").status_code == 401
            assert api.get("/metrics", headers=bearer("not-the-key")).status_code == 401
            assert api.get("/metrics", headers={"Authorization": KEY}).status_code == 401
            assert "emissary_commands_total" in api.get("/metrics", headers=bearer(KEY)).text
            _served_with(app, settings.model_copy(update={"env": "production", "metrics_key": ""}))
            assert api.get("/metrics").status_code == 404  # production without a key: not served at all
        finally:
            _served_with(app, settings)
        assert api.get("/metrics").status_code == 200  # outside production, on this machine
    with TestClient(app) as elsewhere:  # ... and from any other address, refused
        assert elsewhere.get("/metrics").status_code == 403
        assert "/metrics" not in elsewhere.get("/openapi.json").text


def test_each_answer_names_its_request_and_every_log_line_is_json_with_it(app, capsys):
    import logging

    from projections import logs

    root = logging.getLogger()
    handler = logging.StreamHandler()
    handler.setFormatter(logs.JsonLines())
    root.addHandler(handler)
    level = root.level
    root.setLevel(logging.INFO)
    try:
        with TestClient(app, client=LOCAL) as api:
            r = api.post("/games", json={"name": "Logged"})
            game, token = r.json()["game_id"], r.json()["gm_token"]
            r = api.get(f"/games/{game}/view", headers={**bearer(token), "X-Request-ID": "req-42"})
            assert r.status_code == 200 and r.headers["x-request-id"] == "req-42"
            assert len(api.get("/health").headers["x-request-id"]) == 32  # one made up when the client sent none
            api.get(f"/games/{game}/view", params={"token": token})
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines() if line.startswith("{")]
    mine = [line for line in lines if line.get("request_id") == "req-42"]
    assert mine and all(line["game_id"] == game for line in mine)
    assert any(f"/games/{game}/view" in line["message"] for line in mine)
    assert token not in json.dumps(lines) and token[:12] not in json.dumps(lines)


def test_emissary_status_prints_the_store_figures(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("EMISSARY_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("EMISSARY_PORT", "9")  # nothing answers there: the API's counters are said to be unreachable
    from api.compose import build_games
    from projections.settings import Settings

    games = build_games(Settings())
    try:
        games.create_game("Status")
    finally:
        games.close()
    assert cli.main(["status", "--json", "--timeout", "0.5"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["projector_lag_events"] >= 0 and shown["outbox_depth"] == 0 and shown["blocked_games"] == 0
    assert "unreachable" in shown["api"]
    assert cli.main(["status", "--timeout", "0.5"]) == 0
    text = capsys.readouterr().out
    assert "projector lag events:" in text and "outbox depth: 0" in text and "blocked games: 0" in text


def test_several_processes_counts_add_up_in_multiprocess_mode(tmp_path):
    """With ``PROMETHEUS_MULTIPROC_DIR`` (``serve --workers N``), /metrics shows every process's counts: two processes
    each create a game; a third's exposition counts both."""
    import os
    import subprocess
    import sys

    shared = tmp_path / "prometheus"
    shared.mkdir()
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(shared), "EMISSARY_DATA_DIR": str(tmp_path / "data")}
    build = (
        "from api.compose import build_games, build_projector\nfrom projections.settings import Settings\n"
        "from application import metrics\ns = Settings(); g = build_games(s)\n"
    )
    for n in range(2):
        code = build + f"g.create_game('Game {n}'); g.close()\n"
        subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    code = build + "print(metrics.exposition(build_projector(g, s)).decode()); g.close()\n"
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120, capture_output=True, text=True)
    found = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(out.stdout)
        for s in family.samples
    }
    assert total(found, "emissary_commands_total", ruleset="powers", outcome="accepted") == 2
    assert total(found, "emissary_projector_lag_events") == 0
