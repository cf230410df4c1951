"""Backup and restore (``emissary backup FILE``, ``emissary restore FILE``; issue 27).

A backup is one file, a tar of ``manifest.json`` and the store's archive:

- PostgreSQL: ``store.pgdump``, a ``pg_dump --format=custom`` of the store's schema, taken in the same snapshot as
  the manifest's counts (``--snapshot``). Every table comes with its data but the read models (``rm_*``), whose
  rows are rebuilt from the events and so go in empty: the events, the snapshots, the command keys (a retried
  command still gets its first receipt), the mail ledger (the outbox: what was sent is never sent again, what was
  queued is sent once), the claims on due windows and the reminders sent, web sessions and sign-in links (their
  hashes only), the posts each reader has read, and ``alembic_version``.
- SQLite: ``events.sqlite3`` (the event store, with its snapshots and command keys) and ``ledger.sqlite3`` (the
  read models' database, its read models emptied: the tables listed above), each copied with SQLite's online
  backup API, the events first, so that the ledger holds a row for every mail of an event in the copy.

The manifest says what the archive holds: the format version, Emissary's version, the migration heads, when it
was made, each game's event count and last notification id, and the sha256 of every file beside it.

``restore`` checks the hashes, refuses a target that holds anything (naming what) unless forced, restores, runs
the migrations (an archive made by an older Emissary is brought up to date) and rebuilds the read models.
Nothing here puts a password on a command line or in a message: pg_dump and pg_restore read the connection
from their environment (``PGPASSWORD``).
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import sqlite3
import subprocess
import tarfile
import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from application.version import release
from projections import migrations
from projections.settings import Settings
from projections.tables import EVENTS_TABLE

FORMAT = 1
MANIFEST = "manifest.json"
PG_ARCHIVE = "store.pgdump"
SQLITE_EVENTS = "events.sqlite3"
SQLITE_LEDGER = "ledger.sqlite3"
READ_MODELS = "rm_"  # the tables rebuilt from the events, carried empty
NOT_SHADOW = "sql NOT LIKE 'CREATE TABLE ''%'"  # SQLite: a full-text table's shadow tables go with it
UNCOUNTED = ("alembic_version", "rm_tracking")  # rows a fresh, migrated database has: not "something there"


class BackupError(Exception):
    """A backup or restore that cannot go on; the message says why (and never holds a secret)."""


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


# -- backup --------------------------------------------------------------------------------------------------------


def backup(settings: Settings, target: Path) -> dict:
    """Write a backup of the configured store to ``target``; returns its manifest."""
    with tempfile.TemporaryDirectory(prefix="emissary-backup-") as tmp:
        work = Path(tmp)
        if settings.is_postgres:
            files, facts = _backup_postgres(settings, work)
        else:
            files, facts = _backup_sqlite(settings, work)
        manifest = {
            "format": FORMAT,
            "emissary_version": release(),
            "store": "postgres" if settings.is_postgres else "sqlite",
            "migration_heads": facts.pop("heads"),
            "created_at": datetime.now(timezone.utc).isoformat(),
            **facts,
            "files": {name: {"sha256": sha256(work / name), "bytes": (work / name).stat().st_size} for name in files},
        }
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".partial")
        with tarfile.open(partial, "w") as tar:
            data = json.dumps(manifest, indent=2, sort_keys=True).encode()
            info = tarfile.TarInfo(MANIFEST)
            info.size, info.mtime = len(data), int(datetime.now(timezone.utc).timestamp())
            tar.addfile(info, io.BytesIO(data))
            for name in files:
                tar.add(work / name, arcname=name)
        partial.replace(target)  # never a half-written backup under the name asked for
    return manifest


def _games(rows: list[tuple]) -> dict[str, dict[str, int]]:
    return {
        str(uuid.UUID(str(originator))): {"events": int(n), "max_notification_id": int(top)}
        for originator, n, top in sorted(rows, key=lambda r: str(r[0]))
    }


def _backup_postgres(settings: Settings, work: Path) -> tuple[list[str], dict]:
    import psycopg

    from projections.db import conninfo

    schema = _schema(settings)
    with psycopg.connect(conninfo(settings), autocommit=True) as conn:
        # One snapshot for the counts and the dump: the manifest describes exactly what the archive holds.
        conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        snapshot = conn.execute("SELECT pg_export_snapshot()").fetchone()[0]  # type: ignore[index]
        tables = _pg_tables(conn, schema)
        events = _events_table(tables, EVENTS_TABLE["postgres"])
        rows = conn.execute(
            psycopg.sql.SQL("SELECT originator_id, count(*), max(notification_id) FROM {}.{} GROUP BY 1").format(
                psycopg.sql.Identifier(schema), psycopg.sql.Identifier(events)
            )
        ).fetchall()
        heads = _pg_heads(conn, schema, tables)
        argv = [
            "pg_dump",
            "--format=custom",
            f"--snapshot={snapshot}",
            f"--schema={schema}",
            f"--exclude-table-data={schema}.{READ_MODELS}*",
            "--no-owner",
            "--no-privileges",
            f"--file={work / PG_ARCHIVE}",
        ]
        try:
            _run_pg(settings, argv)
        finally:
            conn.execute("ROLLBACK")
    return [PG_ARCHIVE], {"heads": heads, "schema": schema, "games": _games(rows)}


def _backup_sqlite(settings: Settings, work: Path) -> tuple[list[str], dict]:
    events_path, ledger_path = _sqlite_paths(settings)
    if not events_path.exists():
        raise BackupError(f"no event store at {events_path}")
    # The events first, then the ledger: every mail of an event in the copy has its ledger row in the copy too.
    _sqlite_copy(events_path, work / SQLITE_EVENTS)
    _sqlite_copy(ledger_path, work / SQLITE_LEDGER)
    with _sqlite(work / SQLITE_LEDGER) as conn:
        for (table,) in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'rm\\_%' ESCAPE '\\' AND " + NOT_SHADOW
        ).fetchall():
            conn.execute(f'DELETE FROM "{table}"')
        conn.commit()
        conn.execute("VACUUM")
        heads = sorted(r[0] for r in conn.execute("SELECT version_num FROM alembic_version").fetchall())
    with _sqlite(work / SQLITE_EVENTS) as conn:
        rows = conn.execute(
            f"SELECT originator_id, count(*), max(rowid) FROM {EVENTS_TABLE['sqlite']} GROUP BY originator_id"
        ).fetchall()
    return [SQLITE_EVENTS, SQLITE_LEDGER], {"heads": heads, "games": _games(rows)}


# -- restore -------------------------------------------------------------------------------------------------------


def read_manifest(source: Path, into: Path) -> dict:
    """Unpack a backup into ``into`` and return its manifest, once every file's sha256 matches it."""
    try:
        with tarfile.open(source, "r") as tar:
            names = tar.getnames()
            if MANIFEST not in names:
                raise BackupError(f"{source} holds no {MANIFEST}: not an Emissary backup")
            manifest = json.loads(tar.extractfile(MANIFEST).read())  # type: ignore[union-attr]
            if manifest.get("format") != FORMAT:
                raise BackupError(f"{source} is a backup of format {manifest.get('format')!r}; this reads {FORMAT}")
            for name in manifest["files"]:
                if name not in names or "/" in name or name.startswith("."):
                    raise BackupError(f"{source}: the manifest names {name!r}, which the backup does not hold")
                tar.extract(name, into, filter="data")
    except (tarfile.TarError, OSError, ValueError, KeyError) as err:
        raise BackupError(f"{source} is not a readable backup: {err}") from None
    for name, expected in manifest["files"].items():
        found = sha256(into / name)
        if found != expected["sha256"]:
            raise BackupError(f"{source}: {name} has sha256 {found}, the manifest says {expected['sha256']}")
    return manifest


def restore(settings: Settings, source: Path, *, force: bool = False) -> dict:
    """Restore a backup into the configured store: refused if it holds anything, unless ``force`` (then what is
    there is dropped first). Then the migrations run and the read models are rebuilt. Returns the manifest, with
    what the restore found (``restored``: the migration heads now, the events the read models were rebuilt from)."""
    with tempfile.TemporaryDirectory(prefix="emissary-restore-") as tmp:
        work = Path(tmp)
        manifest = read_manifest(source, work)
        store = "postgres" if settings.is_postgres else "sqlite"
        if manifest["store"] != store:
            raise BackupError(f"{source} is a backup of a {manifest['store']} store; this one is {store}")
        unknown = set(manifest["migration_heads"]) - _known_revisions()
        if unknown:
            raise BackupError(
                f"{source} was made at migration {', '.join(sorted(unknown))}, which this Emissary "
                f"({release()}) does not know: restore it with the version that made it "
                f"({manifest['emissary_version']}) or a later one"
            )
        found = holdings(settings)
        if found and not force:
            listed = ", ".join(f"{table} ({n} rows)" for table, n in found.items())
            raise BackupError(f"the target database is not empty: {listed}; pass --force to replace what is there")
        if settings.is_postgres:
            _restore_postgres(settings, work, manifest)
        else:
            _restore_sqlite(settings, work)
    heads = migrations.migrate(settings)
    events = rebuild_read_models(settings)
    manifest["restored"] = {"migration_heads": heads, "events": events}
    return manifest


def rebuild_read_models(settings: Settings) -> int:
    """Rebuild every read model from event 1; returns how many events it applied."""
    from application.compose import build_games
    from projections.db import ReadModelDB
    from projections.projector import Projector

    games = build_games(settings)
    try:
        db = ReadModelDB(settings)
        try:
            return Projector(games, db).rebuild()
        finally:
            db.close()
    finally:
        games.close()


def holdings(settings: Settings) -> dict[str, int]:
    """The tables of the configured store that hold rows (but a fresh database's own), with their counts."""
    if settings.is_postgres:
        import psycopg

        from projections.db import conninfo

        schema = _schema(settings)
        with psycopg.connect(conninfo(settings)) as conn:
            counts = {
                table: conn.execute(
                    psycopg.sql.SQL("SELECT count(*) FROM {}.{}").format(
                        psycopg.sql.Identifier(schema), psycopg.sql.Identifier(table)
                    )
                ).fetchone()[0]  # type: ignore[index]
                for table in _pg_tables(conn, schema)
            }
    else:
        counts = {}
        for path in _sqlite_paths(settings):
            if path.exists():
                with _sqlite(path) as conn:
                    for (table,) in conn.execute(
                        "SELECT name FROM sqlite_master WHERE type = 'table' "
                        "AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND " + NOT_SHADOW
                    ).fetchall():
                        counts[table] = conn.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
    return {t: n for t, n in sorted(counts.items()) if n and t not in UNCOUNTED}


def _restore_postgres(settings: Settings, work: Path, manifest: dict) -> None:
    import psycopg

    from projections.db import conninfo

    schema = _schema(settings)
    if manifest["schema"] != schema:
        raise BackupError(
            f"the backup is of schema {manifest['schema']!r}; the target is {schema!r} (set ?schema= to match)"
        )
    with psycopg.connect(conninfo(settings), autocommit=True) as conn:  # what is there goes: empty, or forced
        ident = psycopg.sql.Identifier(schema)
        conn.execute(psycopg.sql.SQL("DROP SCHEMA IF EXISTS {} CASCADE").format(ident))
        conn.execute(psycopg.sql.SQL("CREATE SCHEMA {}").format(ident))
    archive = work / PG_ARCHIVE
    listing = _run_pg(settings, ["pg_restore", "--list", str(archive)])
    # The schema itself is there already (public always is): restore everything in it, not the schema.
    kept = [line for line in listing.splitlines() if not _names_the_schema(line, schema)]
    (work / "toc").write_text("\n".join(kept) + "\n")
    _run_pg(
        settings,
        [
            "pg_restore",
            "--no-owner",
            "--no-privileges",
            "--exit-on-error",
            "--single-transaction",
            f"--use-list={work / 'toc'}",
            f"--dbname={_pg_env(settings)['PGDATABASE']}",
            str(archive),
        ],
    )


def _names_the_schema(line: str, schema: str) -> bool:
    """Whether a line of ``pg_restore --list`` creates or comments the schema itself."""
    found = re.match(r"^\d+; \d+ \d+ (SCHEMA - (\S+)|COMMENT - SCHEMA (\S+)) ", line)
    return bool(found) and schema in (found.group(2), found.group(3))  # type: ignore[union-attr]


def _restore_sqlite(settings: Settings, work: Path) -> None:
    for path in _sqlite_paths(settings):
        for stale in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            stale.unlink(missing_ok=True)
    events_path, ledger_path = _sqlite_paths(settings)
    events_path.parent.mkdir(parents=True, exist_ok=True)
    _sqlite_copy(work / SQLITE_EVENTS, events_path)
    _sqlite_copy(work / SQLITE_LEDGER, ledger_path)


# -- the stores ----------------------------------------------------------------------------------------------------


def _known_revisions() -> set[str]:
    from alembic.script import ScriptDirectory

    return {r.revision for r in ScriptDirectory(str(migrations.HERE)).walk_revisions()}


def _schema(settings: Settings) -> str:
    return settings.eventsourcing_env().get("POSTGRES_SCHEMA", "public")


def _pg_tables(conn: Any, schema: str) -> list[str]:
    rows = conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = %s AND table_type = 'BASE TABLE' "
        "ORDER BY table_name",
        (schema,),
    ).fetchall()
    return [r[0] for r in rows]


def _events_table(tables: list[str], name: str) -> str:
    if name not in tables:
        raise BackupError(f"no event store here (no table {name}): run `emissary migrate` first")
    return name


def _pg_heads(conn: Any, schema: str, tables: list[str]) -> list[str]:
    import psycopg

    if "alembic_version" not in tables:
        return []
    query = psycopg.sql.SQL("SELECT version_num FROM {}.alembic_version").format(psycopg.sql.Identifier(schema))
    return sorted(r[0] for r in conn.execute(query).fetchall())


def _pg_env(settings: Settings) -> dict[str, str]:
    """The connection for pg_dump and pg_restore, in libpq's environment variables (never on a command line)."""
    env = settings.eventsourcing_env()
    out = {
        "PGHOST": env["POSTGRES_HOST"],
        "PGPORT": env["POSTGRES_PORT"],
        "PGDATABASE": env["POSTGRES_DBNAME"],
        "PGUSER": env["POSTGRES_USER"],
    }
    if env.get("POSTGRES_PASSWORD"):
        out["PGPASSWORD"] = env["POSTGRES_PASSWORD"]
    return out


def _run_pg(settings: Settings, argv: list[str]) -> str:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
    try:
        done = subprocess.run(argv, env={**environ, **_pg_env(settings)}, capture_output=True, text=True, check=False)
    except FileNotFoundError:
        raise BackupError(f"{argv[0]} is not installed (PostgreSQL's client tools, version 15 or later)") from None
    if done.returncode != 0:
        raise BackupError(f"{argv[0]} failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout


def _sqlite_paths(settings: Settings) -> tuple[Path, Path]:
    """The event store's file and the read models' (where the ledger and the other kept tables live)."""
    env = settings.eventsourcing_env()
    if env.get("PERSISTENCE_MODULE") != "eventsourcing.sqlite":
        raise BackupError("an in-memory store has nothing to back up or restore")
    events = Path(env["SQLITE_DBNAME"])
    return events, Path(str(events.with_suffix("")) + ".readmodels.sqlite3")


@contextmanager
def _sqlite(path: Path) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(path, timeout=30)
    try:
        yield conn
    finally:
        conn.close()


def _sqlite_copy(source: Path, target: Path) -> None:
    """Copy a live SQLite database with the online backup API (a consistent copy while others write)."""
    with _sqlite(source) as src, _sqlite(target) as dst:
        src.backup(dst)
