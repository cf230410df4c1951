"""History over HTTP: feed in my time zone, GM audit and export, views of the past, rollback, fork, verify."""

from __future__ import annotations

import csv
import io
import json

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from tests.helpers import add_power
from tests.integration.helpers import bearer, close_app


@pytest.fixture
def world(store_settings):
    app = create_app(store_settings)
    games = app.state.games
    gid, gm, _ = games.create_game("HTTP history", "GM", "Europe/Paris")
    tokens = {}
    for name, cls, sub in (("Ana", "conspiracy", "circle"), ("Bo", "city", "sovereign")):
        pid, tok, _ = add_power(games, gid, "gm", name, cls, sub)
        tokens[pid] = tok
    with TestClient(app) as client:
        yield client, gid, gm, tokens
    close_app(app)


def test_my_feed_is_in_my_time_zone(world):
    client, gid, gm, tok = world
    assert (
        client.put(
            f"/games/{gid}/timezone", headers=bearer(tok["ana"]), json={"timezone": "America/New_York"}
        ).status_code
        == 200
    )
    feed = client.get(f"/games/{gid}/feed", headers=bearer(tok["ana"])).json()
    assert feed[0]["timezone"] == "America/New_York" and feed[0]["local_time"].endswith(("-05:00", "-04:00"))
    bo = client.get(f"/games/{gid}/feed", headers=bearer(tok["bo"])).json()
    assert bo[0]["timezone"] == "Europe/Paris" and bo[0]["local_time"].endswith(("+01:00", "+02:00"))
    assert "TimezoneSet" not in [f["type"] for f in bo]
    r = client.put(f"/games/{gid}/timezone", headers=bearer(tok["ana"]), json={"timezone": "Mars/Olympus"})
    assert r.status_code == 422 and r.json()["field"] == "timezone"


def test_the_audit_is_for_the_gm_and_exports_as_jsonl_and_csv(world):
    client, gid, gm, tok = world
    client.post(f"/games/{gid}/advance", headers=bearer(gm), json={"expected_step": "setup"})
    assert client.get(f"/games/{gid}/audit", headers=bearer(tok["ana"])).status_code == 403
    rows = client.get(f"/games/{gid}/audit", headers=bearer(gm)).json()
    assert rows[0]["type"] == "GameCreated" and {"actor", "at", "phase", "audience", "shown_to"} <= set(rows[0])
    jsonl = client.get(f"/games/{gid}/audit?format=jsonl&type=PowerAdded", headers=bearer(gm)).text.splitlines()
    assert [json.loads(line)["data"]["name"] for line in jsonl] == ["Ana", "Bo"]
    text = client.get(f"/games/{gid}/audit?format=csv&actor=gm", headers=bearer(gm)).text
    table = list(csv.DictReader(io.StringIO(text)))
    assert table and all(r["actor"] == "gm" for r in table) and "shown_to" in table[0]


def test_export_then_verify_needs_no_account(world):
    client, gid, gm, tok = world
    for step in ("setup", "tidings"):
        client.post(f"/games/{gid}/advance", headers=bearer(gm), json={"expected_step": step})
    client.post(f"/games/{gid}/actions", headers=bearer(tok["bo"]), json={"title": "Edict", "slot": "public"})
    client.post(f"/games/{gid}/advance", headers=bearer(gm), json={"expected_step": "planning"})
    client.post(f"/games/{gid}/resolve", headers=bearer(gm), json={"expected_step": "resolution"})
    r = client.post(f"/games/{gid}/advance", headers=bearer(gm), json={"expected_step": "battle"})
    assert r.status_code == 200, r.text  # nothing to resist: the resistance window closed at once
    export = client.get(f"/games/{gid}/export", headers=bearer(tok["ana"])).text
    report = client.post("/verify", content=export, headers={"content-type": "application/x-ndjson"}).json()
    assert report["ok"] is True and report["rolls_verified"] == 1 and report["rolls_pending"] == 0
    assert report["seeds_verified"] == 0  # the seed goes to the GM only (P.4)
    gm_export = client.get(f"/games/{gid}/export", headers=bearer(gm)).text
    gm_report = client.post("/verify", content=gm_export, headers={"content-type": "application/x-ndjson"}).json()
    assert gm_report["ok"] is True and gm_report["seeds_verified"] == 1 and gm_report["keys_verified"] == 1


def test_rollback_fork_and_past_views_over_http(world, store_settings):
    client, gid, gm, tok = world
    for step in ("setup", "tidings"):
        client.post(f"/games/{gid}/advance", headers=bearer(gm), json={"expected_step": step})
    client.post(f"/games/{gid}/actions", headers=bearer(tok["ana"]), json={"title": "Whisper"})
    phases = client.get(f"/games/{gid}/phases", headers=bearer(tok["ana"])).json()
    assert [p["phase"] for p in phases] == ["setup", "s1-tidings", "s1m1-planning"] and "version" not in phases[0]
    past = client.get(f"/games/{gid}/history/view?phase=s1m1-planning", headers=bearer(tok["ana"])).json()
    assert past["my_actions"] == []
    assert (
        client.get(f"/games/{gid}/history/view?phase=s1m1-planning&as=bo", headers=bearer(tok["ana"])).status_code
        == 403
    )
    assert (
        client.get(f"/games/{gid}/history/view?phase=s1m1-planning&as=bo", headers=bearer(gm)).json()["viewer"] == "bo"
    )
    assert (
        client.post(
            f"/games/{gid}/rollback", headers=bearer(tok["ana"]), json={"reason": "no", "phase": "s1-tidings"}
        ).status_code
        == 403
    )
    r = client.post(f"/games/{gid}/fork", headers=bearer(gm), json={"name": "Sandbox", "phase": "s1m1-planning"})
    assert r.status_code == 201
    fork = r.json()["game_id"]
    assert client.get(f"/games/{fork}/view", headers=bearer(gm)).json()["game"]["name"] == "Sandbox"
    # A fork is the GM's sandbox: a player's link of the source game does not open it (issue 24, item 2).
    assert client.get(f"/games/{fork}/view", headers=bearer(tok["ana"])).status_code == 401
    r = client.post(f"/games/{gid}/rollback", headers=bearer(gm), json={"reason": "redo", "phase": "s1m1-planning"})
    assert r.status_code == 200, r.text
    assert client.get(f"/games/{gid}/view", headers=bearer(tok["ana"])).json()["my_actions"] == []
    feed = client.get(f"/games/{gid}/feed", headers=bearer(tok["bo"])).json()
    assert feed[-1]["type"] != "ActionSubmitted" and any(f["type"] == "GameRolledBack" for f in feed)


def _audit_routes(app) -> list[str]:
    """Every GET route of the JSON API whose path says it is an audit (so a new one is covered too)."""
    return [p for p, ops in app.openapi()["paths"].items() if "audit" in p and "get" in ops]


def test_a_players_token_gets_403_from_every_audit_route_and_the_gms_gets_the_data(world):
    client, gid, gm, tok = world
    r = client.post(f"/games/{gid}/advance", headers=bearer(gm), json={"expected_step": "setup"})
    assert r.status_code == 200, r.text
    routes = _audit_routes(client.app)
    assert routes == ["/games/{game_id}/audit"]
    queries = [
        "",
        "?format=json",
        "?format=jsonl",
        "?format=csv",
        "?type=PowerAdded",
        "?power=bo",
        "?actor=gm&format=csv",
        "?phase=setup&format=jsonl",
    ]
    urls = [r.replace("{game_id}", gid) + q for r in routes for q in queries]
    for me, token in tok.items():
        other = next(p for p in tok if p != me)
        # Another viewer's view of the past is the GM's alone.
        for url in [*urls, f"/games/{gid}/history/view?phase=s1-tidings&as={other}"]:
            r = client.get(url, headers=bearer(token))
            assert r.status_code == 403, (url, r.status_code, r.text[:200])
            assert r.json()["field"] in ("authorization", "as")
            assert "PowerAdded" not in r.text and "GameCreated" not in r.text
    for url in urls:
        r = client.get(url, headers=bearer(gm))
        assert r.status_code == 200, (url, r.text[:200])
        assert "PowerAdded" in r.text, url
    past = client.get(f"/games/{gid}/history/view?phase=s1-tidings&as=bo", headers=bearer(gm))
    assert past.json()["viewer"] == "bo"


def test_a_players_browser_gets_403_from_the_audit_pages_and_the_gms_gets_the_log(world):
    client, gid, gm, tok = world
    player = TestClient(client.app)
    assert player.get(f"/signin/{gid}/{tok['ana']}", follow_redirects=False).status_code == 303
    for url in (f"/play/{gid}/audit", f"/play/{gid}/audit?format=csv", f"/play/{gid}/audit?type=PowerAdded"):
        r = player.get(url)
        assert r.status_code == 403 and "PowerAdded" not in r.text, (url, r.status_code)
    master = TestClient(client.app)
    assert master.get(f"/signin/{gid}/{gm}", follow_redirects=False).status_code == 303
    page = master.get(f"/play/{gid}/audit?format=csv")
    assert page.status_code == 200 and "PowerAdded" in page.text
