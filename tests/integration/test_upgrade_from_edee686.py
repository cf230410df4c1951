"""Upgrading a server the release of commit edee686 (29 November 2026) wrote: tests/fixtures/edee686/.

The fixture is that release's own embedded store (its event store and read models, with mail queued), written
by that commit's code (tests/fixtures/edee686/make_edee686_fixture.py, run in a checkout of edee686): a Powers
month rolled back by its GM and played again, and a quiet game. Today's ``emissary migrate`` upgrades a copy,
twice (the second run applies nothing and says so); then every viewer's sequence agrees with the events they are
listed, views and exports load and verify, a write waited for (``wait_for``) is answered at once, and every game
plays on. That release counted ``GameCreated`` twice in the sequences, and its rollbacks embedded the whole state,
those sequences included: folded today, the rolled-back game reported every viewer one event ahead of its list.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from projections import migrations
from projections.settings import Settings
from tests.integration.helpers import bearer, close_app

FIXTURE = Path(__file__).parents[1] / "fixtures" / "edee686"
MANIFEST = json.loads((FIXTURE / "manifest.json").read_text())
FILES = ("emissary.sqlite3", "emissary.readmodels.sqlite3")


def emissary(data_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """Today's ``emissary`` command on the embedded store in ``data_dir`` (no other setting of the caller's)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMISSARY_")}
    env.update(EMISSARY_DATA_DIR=str(data_dir), EMISSARY_ENV="development")
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args],
        cwd=data_dir.parent,  # no .env of the checkout
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def dump(data_dir: Path) -> list[str]:
    """Everything both databases hold, as SQL."""
    out: list[str] = []
    for name in FILES:
        with sqlite3.connect(data_dir / name) as conn:
            out += list(conn.iterdump())
    return out


@pytest.fixture
def old_server(tmp_path) -> Path:
    """A copy of the fixture's databases, as an operator's data directory holds them before the upgrade."""
    data = tmp_path / "data"
    data.mkdir()
    for name in FILES:
        with gzip.open(FIXTURE / f"{name}.gz", "rb") as src, (data / name).open("wb") as dst:
            shutil.copyfileobj(src, dst)
    return data


@pytest.fixture
def upgraded(old_server) -> Path:
    done = emissary(old_server, "migrate")
    assert done.returncode == 0, done.stdout + done.stderr
    return old_server


@pytest.fixture
def api(upgraded):
    app = create_app(Settings(data_dir=upgraded, read_wait_seconds=3))
    try:
        with TestClient(app) as client:
            app.state.projector.catch_up()  # the upgrade emptied the read models: rebuilt from event 1
            yield client
    finally:
        close_app(app)


def test_the_fixture_was_written_by_edee686_with_what_it_promises(old_server):
    assert MANIFEST["commit"] == "edee6865f9f3c93b7ac48fcf1ac42ac266f01c85"
    with sqlite3.connect(old_server / "emissary.sqlite3") as conn:
        topics = {t for (t,) in conn.execute("SELECT DISTINCT topic FROM stored_events")}
        snapshots = conn.execute("SELECT COUNT(*) FROM stored_snapshots").fetchone()[0]
    assert {"domain.powers.game:Game.GameRolledBack", "domain.powers.game:Game.StateRestored"} <= topics
    assert snapshots > 0
    with sqlite3.connect(old_server / "emissary.readmodels.sqlite3") as conn:
        tables = {t for (t,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        queued = conn.execute("SELECT COUNT(*) FROM mail_ledger WHERE status = 'queued'").fetchone()[0]
    assert "alembic_version" not in tables and "rm_timeline" not in tables  # that release had neither
    assert queued == MANIFEST["mail_queued"] > 0


def test_migrate_says_what_it_applied_then_that_there_is_nothing_to_do(old_server):
    first = emissary(old_server, "migrate")
    assert first.returncode == 0, first.stdout + first.stderr
    lines = first.stdout.splitlines()
    assert lines[0].startswith("applied 0001, 0002, 0003, ") and lines[0].endswith(", ".join(migrations.heads()))
    assert f"schema at revision {', '.join(migrations.heads())}" in lines[1]
    before = dump(old_server)
    second = emissary(old_server, "migrate")
    assert second.returncode == 0, second.stdout + second.stderr
    assert second.stdout.splitlines()[0] == "already up to date: nothing applied"
    assert dump(old_server) == before  # a no-op
    with sqlite3.connect(old_server / "emissary.readmodels.sqlite3") as conn:
        queued = conn.execute("SELECT COUNT(*) FROM mail_ledger WHERE status = 'queued'").fetchone()[0]
    assert queued == MANIFEST["mail_queued"]  # the mail queued before the upgrade is still to be sent


def events_of(api, game_id: str, token: str, **params) -> list[dict]:
    r = api.get(f"/games/{game_id}/events", headers=bearer(token), params={"limit": 1000, **params})
    assert r.status_code == 200, r.text
    return r.json()


@pytest.mark.parametrize("name", sorted(MANIFEST["games"]))
def test_every_viewer_sequence_agrees_with_the_events_listed(api, name):
    game = MANIFEST["games"][name]
    gid = game["game_id"]
    for viewer, token in game["tokens"].items():
        events = events_of(api, gid, token)
        view = api.get(f"/games/{gid}/view", headers=bearer(token))
        assert view.status_code == 200, view.text
        # The same events that release listed, numbered 1..n, and the sequence the view reports is n.
        assert len(events) == game["viewers"][viewer]["events"], viewer
        assert [e["seq"] for e in events] == list(range(1, len(events) + 1)), viewer
        assert view.json()["sequence"] == len(events), viewer
        export = api.get(f"/games/{gid}/export", headers=bearer(token))
        assert export.status_code == 200 and len(export.text.splitlines()) == len(events), viewer
        report = api.post("/verify", content=export.text, headers={"content-type": "application/x-ndjson"}).json()
        assert report["ok"], (viewer, report["mismatches"])


@pytest.mark.parametrize("name", sorted(MANIFEST["games"]))
def test_a_write_waited_for_is_answered_at_once_and_the_game_plays_on(api, name):
    game = MANIFEST["games"][name]
    gid, tokens = game["game_id"], game["tokens"]
    seat = sorted(v for v in tokens if v != "gm")[0]
    for who, token in (("gm", tokens["gm"]), (seat, tokens[seat])):
        body = {"command": "GrantVisibility", "args": {"to": seat, "text": f"AFTER-UPGRADE-{who}"}}
        if who != "gm":
            body = {"command": "SetTimezone", "args": {"seat": seat, "timezone": "Asia/Tokyo"}}
        r = api.post(f"/games/{gid}/commands", headers=bearer(token), json=body)
        assert r.status_code == 200, r.text
        receipt = r.json()
        started = time.monotonic()
        r = api.get(f"/games/{gid}/events", headers=bearer(token), params={"wait_for": receipt["sequence"]})
        waited = time.monotonic() - started
        assert r.status_code == 200 and "X-Lagging" not in r.headers, (who, r.status_code, r.headers)
        assert waited < 1.0, waited
        assert r.json()[-1]["seq"] == receipt["sequence"], who
    assert any("AFTER-UPGRADE-gm" in json.dumps(e) for e in events_of(api, gid, tokens[seat]))


def sequences(games, game_id: str, version: int, viewers: tuple[str, ...]) -> tuple[dict, dict]:
    """The game at ``version`` as the store loads it (through a snapshot, if it has them): its counts of the events
    each audience may see, and each viewer's sequence."""
    import uuid

    state = games.repository.get(uuid.UUID(game_id), version=version).state
    return dict(state.seen), {viewer: state.sequence_for(viewer) for viewer in viewers}


def test_no_snapshot_of_an_upgraded_rolled_back_game_disagrees_with_its_events(upgraded):
    """The snapshots that release wrote (before its rollback, GameCreated counted twice, upcast by ``Game``'s
    class version 1 to 2) and those today's code writes after the upgrade (playing on, rolling back to the start of
    a phase whose state one of those old snapshots gives, and to one no snapshot reaches) load every version of the
    game with the sequences a replay of its events alone gives, for every viewer. So no snapshot holds a wrong
    count, and none needs discarding. (Other fields may differ: that release's snapshots keep the options' defaults
    of their day, and no ``seed_first_roll``, which its seeds, without per-roll keys, never read.)"""
    import uuid

    from api.compose import build_games, build_projector
    from application.service import Games
    from tests.integration.helpers import close_services

    game = MANIFEST["games"]["month"]
    gid = game["game_id"]
    settings = Settings(data_dir=upgraded, snapshot_interval=7)  # today's snapshots, often
    games = build_games(settings)
    projector = build_projector(games, settings)
    try:
        projector.catch_up()
        seats = sorted(v for v in game["tokens"] if v != "gm")
        phases = games.phases(gid)
        old_snapshot = [ph for ph in phases if ph["version"] in (30, 60, 90)]
        early = [ph for ph in phases if ph["version"] < 30 and ph["phase"] != "setup"]
        assert old_snapshot and early, phases
        for i in range(9):
            games.grant_visibility(gid, "gm", seats[i % len(seats)], f"after-upgrade-{i}")
        games.rollback(gid, "gm", "again, after the upgrade", phase=old_snapshot[-1]["phase"])
        for i in range(9):
            games.grant_visibility(gid, "gm", seats[i % len(seats)], f"after-a-second-rollback-{i}")
        games.rollback(gid, "gm", "further back", phase=early[-1]["phase"])
        for i in range(9):
            games.set_timezone(gid, seats[i % len(seats)], seats[i % len(seats)], ("UTC", "Asia/Tokyo")[i % 2])
        projector.catch_up()
        head = games.get_game(gid).version
    finally:
        close_services(games, projector)
    env = settings.eventsourcing_env()
    loaded = Games(env=env, snapshot_interval=7)
    replayed = Games(env={**env, "IS_SNAPSHOTTING_ENABLED": "n"})
    try:
        assert replayed.snapshots is None
        snapshots = [s.originator_version for s in loaded.snapshots.get(uuid.UUID(gid))]  # type: ignore[union-attr]
        assert {30, 60, 90} < set(snapshots) and max(snapshots) > 106, snapshots  # theirs and ours
        for version in range(1, head + 1):
            viewers = ("gm", *seats)
            assert sequences(loaded, gid, version, viewers) == sequences(replayed, gid, version, viewers), version
    finally:
        loaded.close()
        replayed.close()
