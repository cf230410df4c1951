"""Backup and restore (issue 27): `emissary backup` a live Powers game, with a window open and mail both sent and
queued, `emissary restore` it into an empty database, and the restored service carries on as the first would have:
every export verifies, the read models rebuild to the same rows, the window closes once when due, and no mail is
sent twice. On PostgreSQL (scratch databases, dropped after) and on SQLite."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tarfile
import uuid
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from api.compose import build_games, build_projector
from application import backup
from application.service import Caller
from application.version import release
from domain.errors import NotFound
from domain.platform.commands import MakePost, OpenThread
from domain.platform.verify import parse_export, verify_export
from projections.settings import Settings
from tests.conftest import PG_URL
from tests.integration.helpers import close_services
from tests.scenarios import play_rich_month
from workers import mail, runtime, tasks

ROOT = Path(__file__).resolve().parents[2]


def read_models_hash(projector) -> str:
    """The rows of every read model (the projection tests' rebuild check, ``Projector.dump``), as one sha256."""
    return hashlib.sha256(json.dumps(projector.dump(), sort_keys=True, default=str).encode()).hexdigest()


@pytest.fixture
def scratch_pg(pg_available):
    """Two scratch databases with unique names (source, target), dropped afterwards."""
    import psycopg

    base = PG_URL.split("?")[0]
    names = [f"emissary_backup_{uuid.uuid4().hex[:10]}_{side}" for side in ("src", "dst")]
    with psycopg.connect(base, autocommit=True) as conn:
        for name in names:
            conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield [base.rsplit("/", 1)[0] + "/" + name for name in names]
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            for name in names:
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.integration)])
def stores(request, tmp_path, sink):
    """Settings of a source and an empty target store of one kind, mailing to the sink."""
    common = {"smtp_port": sink.port, "secret_key": "k" * 40}
    if request.param == "sqlite":
        return [Settings(data_dir=tmp_path / side, **common) for side in ("src", "dst")]
    src, dst = request.getfixturevalue("scratch_pg")
    return [Settings(database_url=url, **common) for url in (src, dst)]


def environ(settings: Settings) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("EMISSARY_")}
    if settings.is_postgres:
        env["EMISSARY_DATABASE_URL"] = settings.database_url
    else:
        env["EMISSARY_DATA_DIR"] = str(settings.data_dir)
    return env


def emissary(settings: Settings, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args],
        env=environ(settings),
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def export_of(games, game_id: str, viewer: str) -> str:
    """What GET /games/{id}/export streams: the viewer's events, one JSON object a line."""
    lines, page = [], games.visible_events(game_id, viewer, limit=500)
    while page:
        lines += [json.dumps(e, sort_keys=True) + "\n" for e in page]
        page = games.visible_events(game_id, viewer, after=page[-1]["seq"], limit=500) if len(page) == 500 else []
    return "".join(lines)


class Broker:
    """The mail tasks' broker: hands each row straight to a worker that delivers it, or (``down``) takes nothing,
    so that the row stays queued in the outbox for the sweep."""

    def __init__(self) -> None:
        self.down = False

    def delay(self, row_id: str) -> None:
        if not self.down:
            mail.deliver(runtime.projector().db, runtime.settings(), row_id)


def test_a_live_game_backed_up_and_restored_verifies_rebuilds_closes_its_window_once_and_sends_no_mail_twice(
    stores, sink, tmp_path, monkeypatch
):
    source, target = stores
    broker = Broker()
    monkeypatch.setattr(tasks.deliver_mail, "delay", broker.delay)
    games = build_games(source)
    projector = build_projector(games, source)
    try:
        runtime.use(games, projector, source)
        m = play_rich_month(games, finish=False)  # the month's action window is open
        p = m.powers
        for seat in (p["wiz"], p["sov"]):
            games.set_contact(m.game_id, seat, seat, f"{seat}@example.org", "immediate")
        thread = games.run(Caller.of(p["wiz"]), m.game_id, OpenThread([p["sov"]], "Border")).result["thread_id"]
        games.run(Caller.of(p["wiz"]), m.game_id, MakePost(thread, "Cede the ford?"))
        projector.catch_up()
        tasks.dispatch_mail(datetime.now(timezone.utc))  # sent before the backup
        sent_before = len(sink.wait_for(1))
        broker.down = True
        games.run(Caller.of(p["sov"]), m.game_id, MakePost(thread, "Never."))
        projector.catch_up()
        tasks.dispatch_mail(datetime.now(timezone.utc))  # queued, not sent
        key = str(games.get_game(m.game_id).id)
        queued = [r for r in mail.ledger(projector.db, key) if r["status"] == "queued"]
        assert [r["recipient"] for r in queued] == [p["wiz"]]
        assert len(sink.messages) == sent_before
        window_id, _ = projector.db.query("SELECT window_id, closes_at FROM rm_windows WHERE closed = 0")[0]
        deadline = datetime.now(timezone.utc).replace(microsecond=0) + timedelta(hours=2)
        games.set_deadline(m.game_id, "gm", window_id, deadline)
        projector.catch_up()
        before = read_models_hash(projector)
        events_before = games.visible_events(m.game_id, "gm", limit=10_000)
        version = games.get_game(m.game_id).version

        done = emissary(source, "backup", str(tmp_path / "emissary.backup"))
        assert done.returncode == 0, done.stderr
    finally:
        close_services(games, projector)

    with tarfile.open(tmp_path / "emissary.backup") as tar:
        manifest = json.loads(tar.extractfile("manifest.json").read())  # type: ignore[union-attr]
    assert manifest["format"] == backup.FORMAT and manifest["emissary_version"] == release()
    assert manifest["migration_heads"] and manifest["created_at"]
    assert manifest["games"][key]["events"] == version
    assert all(len(f["sha256"]) == 64 for f in manifest["files"].values())
    if source.is_postgres:
        assert source.database_url not in done.stdout + done.stderr

    done = emissary(target, "restore", str(tmp_path / "emissary.backup"))
    assert done.returncode == 0, done.stderr
    assert "read models rebuilt" in done.stdout

    again = emissary(target, "restore", str(tmp_path / "emissary.backup"))  # the target holds a game now
    assert again.returncode == 1
    assert "not empty" in again.stderr and "events" in again.stderr and "--force" in again.stderr

    # The restored service, its clock past the deadline: what a worker builds after the restore.
    clock = [datetime.now(timezone.utc)]
    games = build_games(target, clock=lambda: clock[0])
    projector = build_projector(games, target)
    try:
        runtime.use(games, projector, target)
        assert read_models_hash(projector) == before
        for game_id in manifest["games"]:
            for viewer in ["gm", *p.values()]:
                report = verify_export(parse_export(export_of(games, game_id, viewer)))
                assert report.ok, (viewer, report.mismatches)
        assert games.visible_events(m.game_id, "gm", limit=10_000) == events_before

        broker.down = False
        later = datetime.now(timezone.utc) + timedelta(minutes=5)  # past the lease the broker was handed
        tasks.dispatch_mail(later)
        tasks.dispatch_mail(later)
        after = sink.wait_for(sent_before + 1)
        assert len(after) == sent_before + 1
        assert after[-1]["To"] == f"{p['wiz']}@example.org" and "Never." in sink.text(after[-1])
        assert [r["status"] for r in mail.ledger(projector.db, key) if r["id"] == queued[0]["id"]] == ["sent"]

        assert games.close_due_window(m.game_id, window_id) is False  # not due yet
        clock[0] = deadline + timedelta(seconds=1)
        assert games.close_due_window(m.game_id, window_id) is True
        assert games.close_due_window(m.game_id, window_id) is False
        closed = [
            e
            for e in games.visible_events(m.game_id, "gm", limit=10_000)[len(events_before) :]
            if e["type"] == "WindowClosed" and e["data"].get("window_id") == window_id
        ]
        assert len(closed) == 1
    finally:
        close_services(games, projector)


def test_a_backup_whose_archive_was_altered_is_refused_and_nothing_is_restored(tmp_path):
    source, target = (Settings(data_dir=tmp_path / side) for side in ("src", "dst"))
    games = build_games(source)
    projector = build_projector(games, source)
    try:
        play_rich_month(games, finish=False)
        backup.backup(source, tmp_path / "good.backup")
    finally:
        close_services(games, projector)
    with tarfile.open(tmp_path / "good.backup") as tar:
        tar.extractall(tmp_path / "parts", filter="data")
    events = tmp_path / "parts" / backup.SQLITE_EVENTS
    events.write_bytes(events.read_bytes()[:-1] + b"\x01")
    with tarfile.open(tmp_path / "bad.backup", "w") as tar:
        for name in ("manifest.json", backup.SQLITE_EVENTS, backup.SQLITE_LEDGER):
            tar.add(tmp_path / "parts" / name, arcname=name)
    with pytest.raises(backup.BackupError, match="events.sqlite3 has sha256"):
        backup.restore(target, tmp_path / "bad.backup")
    assert backup.holdings(target) == {}


def test_an_archive_made_before_the_latest_migration_is_migrated_and_a_forced_restore_replaces_a_game(stores, tmp_path):
    """The target here was migrated already (empty tables are no obstacle); the archive is one revision behind."""
    from projections import migrations
    from projections.db import ReadModelDB

    source, target = stores
    games = build_games(source)
    projector = build_projector(games, source)
    try:
        m = play_rich_month(games, finish=False)
        version = games.get_game(m.game_id).version
    finally:
        close_services(games, projector)
    db = ReadModelDB(source)
    try:
        assert migrations.downgrade(db, "0008_seats") == ["0008_seats"]
    finally:
        db.close()
    made = backup.backup(source, tmp_path / "old.backup")
    assert made["migration_heads"] == ["0008_seats"] and list(made["games"].values())[0]["events"] == version
    migrations.migrate(target)
    assert backup.holdings(target) == {}

    restored = backup.restore(target, tmp_path / "old.backup")
    assert restored["restored"]["migration_heads"] == migrations.declared_heads()
    assert restored["restored"]["events"] == version

    games = build_games(target)
    projector = build_projector(games, target)
    try:
        other = games.create_game("Another", "GM", "Europe/Paris")[0]
    finally:
        close_services(games, projector)
    with pytest.raises(backup.BackupError, match="not empty") as refused:
        backup.restore(target, tmp_path / "old.backup")
    assert "events" in str(refused.value)
    backup.restore(target, tmp_path / "old.backup", force=True)
    games = build_games(target)
    projector = build_projector(games, target)
    try:
        assert [g for g, *_ in projector.dump()["rm_games"]] == [str(games.get_game(m.game_id).id)]
        with pytest.raises(NotFound):
            games.get_game(other)
    finally:
        close_services(games, projector)


@pytest.mark.integration
def test_pg_dump_and_pg_restore_get_the_password_in_their_environment_never_on_their_command_line(
    scratch_pg, tmp_path, monkeypatch
):
    """The test server trusts every local connection, so a password in the URL is accepted and ignored: what it
    checks is where the password goes."""
    secret = "pw-" + uuid.uuid4().hex
    source, target = (
        Settings(database_url=url.replace("postgres@", f"postgres:{secret}@"), data_dir=tmp_path) for url in scratch_pg
    )
    real_run = subprocess.run  # the real one, for pg_dump and pg_restore; every call is seen first
    calls: list[tuple[list[str], dict]] = []

    def seen(argv, **kwargs):
        calls.append((list(argv), dict(kwargs.get("env") or {})))
        return real_run(argv, **kwargs)

    monkeypatch.setattr(backup.subprocess, "run", seen)
    games = build_games(source)
    projector = build_projector(games, source)
    try:
        play_rich_month(games, finish=False)
    finally:
        close_services(games, projector)
    backup.backup(source, tmp_path / "pw.backup")
    backup.restore(target, tmp_path / "pw.backup")
    assert {argv[0] for argv, _ in calls} == {"pg_dump", "pg_restore"}
    for argv, env in calls:
        assert not any(secret in arg for arg in argv)
        assert env["PGPASSWORD"] == secret
