"""The schema, created and migrated by ``emissary migrate`` (in development and tests, by whichever
process opens the database first).

Three kinds of tables, three treatments:

- the event store's tables (with the idempotency keys beside the events, ``projections/keys.py``):
  created by the event store library (``CREATE_TABLE``), which production turns off everywhere but here;
- the read models (``rm_*``, in ``projections/db.py``): created if missing; they are never migrated,
  only rebuilt from the events (``emissary projections rebuild``) when their shape changes (a revision
  drops one no longer kept, as 0005 drops ``rm_boards``);
- the tables that are never rebuilt, because they record what happened outside the event store (the
  mail ledger, claims on due windows, reminders sent, web sessions): Alembic revisions in ``versions/``.

To add or change one of the latter, add ``versions/NNNN_what.py`` whose ``down_revision`` is the latest
revision. Revisions written in parallel on two branches are fine: ``upgrade`` applies every head.
Everything runs in one transaction, under a lock (an advisory lock on PostgreSQL, ``BEGIN IMMEDIATE`` on
SQLite), so that processes starting together migrate once and never see half a schema.
"""

from __future__ import annotations

import ast
import contextvars
import functools
import logging
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from projections.db import ReadModelDB
    from projections.settings import Settings

log = logging.getLogger("emissary.migrate")
HERE = Path(__file__).resolve().parent
ADVISORY_LOCK = 0x454D4953  # "EMIS": serializes migrations of one database
COMMAND_LOCK = ADVISORY_LOCK + 1  # serializes `emissary migrate` runs (the event store's DDL too)
# Where ``emissary migrate`` collects the revisions it applies, also when opening the database applied them.
_applying: contextvars.ContextVar[list[str] | None] = contextvars.ContextVar("applying", default=None)


def _config(connection: Any) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(HERE))
    config.attributes["connection"] = connection
    return config


@functools.cache
def declared_heads() -> list[str]:
    """The latest revisions, read from ``versions/`` without importing Alembic (which takes a few tenths
    of a second): what every process that opens an up-to-date database checks, and all it checks."""
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (HERE / "versions").glob("[!_]*.py"):
        assignments = dict(re.findall(r"^(revision|down_revision) = (.+)$", path.read_text(), re.MULTILINE))
        revisions.add(ast.literal_eval(assignments["revision"]))
        down = ast.literal_eval(assignments["down_revision"])
        parents.update(down if isinstance(down, tuple | list) else [down] if down else [])
    return sorted(revisions - parents)


def ensure_current(db: ReadModelDB) -> None:
    """Development and tests: migrate the database this process opens, unless it is already current."""
    try:
        current_rows = db.query("SELECT version_num FROM alembic_version")
    except Exception:  # noqa: BLE001 - no version table yet (each driver raises its own error)
        current_rows = []
    if sorted(r[0] for r in current_rows) != declared_heads():
        upgrade(db, _applying.get())


def upgrade(db: ReadModelDB, applied: list[str] | None = None) -> list[str]:
    """Create the read models and bring the versioned tables to every head revision, in one locked
    transaction on the database's own connection. Idempotent. Returns the revisions now current; ``applied``,
    if given, receives those this call applied, oldest first (none on a database already current)."""
    from alembic import command

    from projections.db import read_model_ddl

    with _locked(db) as conn:
        for ddl in read_model_ddl(db.dialect):
            conn.exec_driver_sql(ddl)
        before = current(conn)
        command.upgrade(_config(conn), "heads")
        now = current(conn)
        if applied is not None:
            applied.extend(between(before, now))
        return now


def between(before: list[str], after: list[str]) -> list[str]:
    """The revisions that bring a database at ``before`` to ``after``, oldest first."""
    from alembic.script import ScriptDirectory

    script = ScriptDirectory(str(HERE))

    def lineage(heads: list[str]) -> list[str]:
        seen: list[str] = []
        todo = list(heads)
        while todo:
            revision = script.get_revision(todo.pop())
            if revision is None or revision.revision in seen:
                continue
            seen.append(revision.revision)
            down = revision.down_revision
            todo.extend([down] if isinstance(down, str) else list(down or ()))
        return seen

    older = set(lineage(before))
    return [r for r in reversed(lineage(after)) if r not in older]


def downgrade(db: ReadModelDB, revision: str) -> list[str]:
    """Take the versioned tables back to ``revision`` (each later revision's ``downgrade``), as ``upgrade``
    does forward. Returns the revisions now current."""
    from alembic import command

    with _locked(db) as conn:
        command.downgrade(_config(conn), revision)
        return current(conn)


@contextmanager
def _locked(db: ReadModelDB) -> Iterator[Any]:
    """An SQLAlchemy connection on the database's own connection, in one transaction (committed at the end)
    under ``ADVISORY_LOCK`` on PostgreSQL, ``BEGIN IMMEDIATE`` on SQLite."""
    from sqlalchemy import create_engine
    from sqlalchemy.pool import StaticPool

    url = "postgresql+psycopg://" if db.dialect == "postgres" else "sqlite://"
    with db.raw_connection() as raw:
        engine = create_engine(url, creator=lambda: raw, poolclass=StaticPool)
        with engine.connect() as conn:
            if db.dialect == "postgres":
                conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({ADVISORY_LOCK})")
            else:
                conn.exec_driver_sql("BEGIN IMMEDIATE")
            yield conn
            conn.commit()


def current(conn: Any) -> list[str]:
    """The revisions a database is at (on an SQLAlchemy connection)."""
    from alembic.migration import MigrationContext

    return sorted(MigrationContext.configure(conn).get_current_heads())


def heads() -> list[str]:
    """The latest revisions in ``versions/``."""
    from alembic.script import ScriptDirectory

    return sorted(ScriptDirectory(str(HERE)).get_heads())


def migrate(settings: Settings, applied: list[str] | None = None) -> list[str]:
    """Everything ``emissary migrate`` does: the event store's tables, the read models, the revisions;
    on PostgreSQL under a lock held (on a connection of its own) for the whole command, so that two runs
    never race on the event store's tables either. ``applied``: as ``upgrade``'s (a database that migrates
    itself as it is opened, in development, counts those revisions too)."""
    from projections.db import ReadModelDB
    from projections.gamestore import GameStore

    applied = [] if applied is None else applied
    told = _applying.set(applied)
    try:
        with command_lock(settings):
            GameStore(env={**settings.eventsourcing_env(), "CREATE_TABLE": "y"}).close()
            db = ReadModelDB(settings)
            try:
                return upgrade(db, applied)
            finally:
                db.close()
    finally:
        _applying.reset(told)


@contextmanager
def command_lock(settings: Settings) -> Iterator[None]:
    """On PostgreSQL, hold ``COMMAND_LOCK`` for the block, on a connection of its own: ``emissary migrate``
    runs under it, and so does a process that creates the event store's tables by itself (development and
    tests), since two processes starting at once would race on that DDL (a duplicate-type error).
    Elsewhere (SQLite) nothing: its writes are serialized already."""
    if not settings.is_postgres:
        yield
        return
    import psycopg

    from projections.db import conninfo

    with psycopg.connect(conninfo(settings), autocommit=True) as lock:  # closing it ends the session, and the lock
        lock.execute(f"SELECT pg_advisory_lock({COMMAND_LOCK})")
        yield
