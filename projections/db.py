"""A thin SQL layer for read models, on SQLite (embedded) or PostgreSQL (production).

Queries are written once with ``?`` placeholders; the PostgreSQL side rewrites them to ``%s``.
``transaction()`` takes the projection lock for the whole transaction (``BEGIN IMMEDIATE`` on
SQLite, ``SELECT ... FOR UPDATE`` on the tracking row on PostgreSQL), so several projector
processes can run without ever applying an event twice.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from projections.settings import Settings

TRACKING = "emissary-read-models"  # the read models' row in rm_tracking (projections.tracking)


def conninfo(settings: Settings) -> str:
    """The libpq connection string for the configured PostgreSQL, quoted by psycopg (a password may
    hold spaces, quotes or backslashes)."""
    from psycopg.conninfo import make_conninfo

    env = settings.eventsourcing_env()
    return make_conninfo(
        host=env["POSTGRES_HOST"],
        port=env["POSTGRES_PORT"],
        dbname=env["POSTGRES_DBNAME"],
        user=env["POSTGRES_USER"],
        password=env.get("POSTGRES_PASSWORD") or None,
    )


SCHEMA = [
    """CREATE TABLE IF NOT EXISTS rm_tracking (name TEXT PRIMARY KEY, position BIGINT NOT NULL)""",
    # The audit points at the event store (issue 30): an event's payload is read from the store by its game and
    # version (``projections.stored``), not copied here. ``data`` is kept only where SQL reads it: the kinds of
    # ``projections.stored.KEPT`` (windows, contacts, posts made) and a sealed event's ``{"sealed": true}``; NULL else.
    """CREATE TABLE IF NOT EXISTS rm_audit (
        game_id TEXT NOT NULL, version INTEGER NOT NULL, notification_id BIGINT NOT NULL, type TEXT NOT NULL,
        actor TEXT NOT NULL, at TEXT NOT NULL, phase TEXT NOT NULL, audience TEXT NOT NULL, shown_to TEXT NOT NULL,
        scope INTEGER NOT NULL, data TEXT, superseded_by INTEGER,
        PRIMARY KEY (game_id, version)) {without_rowid}""",
    """CREATE TABLE IF NOT EXISTS rm_feed (
        game_id TEXT NOT NULL, token TEXT NOT NULL, version INTEGER NOT NULL,
        PRIMARY KEY (game_id, token, version)) {without_rowid}""",
    # A phase's labels (and a game's, now) are its ruleset's (``Ruleset.phase_labels``): a JSON object, kept in the
    # order the ruleset gave them.
    """CREATE TABLE IF NOT EXISTS rm_phases (
        game_id TEXT NOT NULL, version INTEGER NOT NULL, phase TEXT NOT NULL, step TEXT NOT NULL,
        labels TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (game_id, version))""",
    """CREATE TABLE IF NOT EXISTS rm_windows (
        game_id TEXT NOT NULL, window_id TEXT NOT NULL, kind TEXT NOT NULL, opened_at TEXT NOT NULL,
        closes_at TEXT NOT NULL, closed INTEGER NOT NULL, reason TEXT, PRIMARY KEY (game_id, window_id))""",
    """CREATE TABLE IF NOT EXISTS rm_reminders (
        game_id TEXT NOT NULL, window_id TEXT NOT NULL, hours_before REAL NOT NULL, remind_at TEXT NOT NULL,
        closes_at TEXT NOT NULL, PRIMARY KEY (game_id, window_id, hours_before))""",
    """CREATE TABLE IF NOT EXISTS rm_games (
        game_id TEXT PRIMARY KEY, name TEXT NOT NULL, timezone TEXT NOT NULL, step TEXT NOT NULL,
        version INTEGER NOT NULL, forked_from TEXT, labels TEXT NOT NULL DEFAULT '{}')""",
    # Which seat's contact is which address (issue 17, projections.people): a person signed in by email sees
    # the seats whose contact is theirs, in every game, as each game stands now (rollbacks included).
    """CREATE TABLE IF NOT EXISTS rm_seat_contacts (
        email TEXT NOT NULL, game_id TEXT NOT NULL, seat TEXT NOT NULL, PRIMARY KEY (email, game_id, seat))""",
    """CREATE INDEX IF NOT EXISTS rm_seat_contacts_by_game ON rm_seat_contacts (game_id)""",
    # The lobby (issue 28, projections.lobby): the open seats GMs chose to list, with public facts only.
    """CREATE TABLE IF NOT EXISTS rm_lobby (
        game_id TEXT NOT NULL, seat TEXT NOT NULL, game_name TEXT NOT NULL, ruleset TEXT NOT NULL,
        seat_name TEXT NOT NULL, note TEXT NOT NULL, pace TEXT NOT NULL, language TEXT NOT NULL,
        PRIMARY KEY (game_id, seat))""",
    """CREATE TABLE IF NOT EXISTS rm_outbox (
        game_id TEXT NOT NULL, version INTEGER NOT NULL, recipient TEXT NOT NULL, kind TEXT NOT NULL,
        body TEXT NOT NULL, created_at TEXT NOT NULL, status TEXT NOT NULL,
        PRIMARY KEY (game_id, version, recipient))""",
    # Each viewer's timeline: the events they may see, numbered by their own gap-free sequence (one row per
    # viewer and event), so that a page of /events or of the feed is one range of an index at any game length.
    """CREATE TABLE IF NOT EXISTS rm_timeline (
        game_id TEXT NOT NULL, viewer TEXT NOT NULL, seq INTEGER NOT NULL, version INTEGER NOT NULL,
        PRIMARY KEY (game_id, viewer, seq)) {without_rowid}""",
    """CREATE TABLE IF NOT EXISTS rm_viewers (
        game_id TEXT NOT NULL, viewer TEXT NOT NULL, seq INTEGER NOT NULL, PRIMARY KEY (game_id, viewer))""",
    # Posts (issue 16, projections.posts): each thread a viewer may read, and its posts numbered in order.
    """CREATE TABLE IF NOT EXISTS rm_threads (
        game_id TEXT NOT NULL, thread_id TEXT NOT NULL, kind TEXT NOT NULL, title TEXT NOT NULL,
        members TEXT NOT NULL, audience TEXT NOT NULL, version INTEGER NOT NULL, posts INTEGER NOT NULL,
        last_at TEXT, PRIMARY KEY (game_id, thread_id))""",
    """CREATE TABLE IF NOT EXISTS rm_posts (
        game_id TEXT NOT NULL, thread_id TEXT NOT NULL, seq INTEGER NOT NULL, post_id TEXT NOT NULL,
        version INTEGER NOT NULL, author TEXT NOT NULL, at TEXT NOT NULL, text TEXT NOT NULL, html TEXT NOT NULL,
        rolls TEXT NOT NULL, tied_to TEXT, edited_at TEXT, earlier TEXT NOT NULL, hidden INTEGER NOT NULL,
        hidden_reason TEXT, earlier_shown INTEGER NOT NULL,
        {post_search_column}PRIMARY KEY (game_id, thread_id, seq)) {without_rowid}""",
    """CREATE UNIQUE INDEX IF NOT EXISTS rm_posts_by_id ON rm_posts (game_id, post_id)""",
    """CREATE INDEX IF NOT EXISTS rm_posts_by_tie ON rm_posts (game_id, tied_to, version)""",
    """CREATE INDEX IF NOT EXISTS rm_audit_by_type ON rm_audit (game_id, type, version)""",
    """CREATE INDEX IF NOT EXISTS rm_audit_by_actor ON rm_audit (game_id, actor, version)""",
    """CREATE INDEX IF NOT EXISTS rm_audit_by_phase ON rm_audit (game_id, phase, version)""",
    """CREATE INDEX IF NOT EXISTS rm_phases_by_name ON rm_phases (game_id, phase, version)""",
    """CREATE INDEX IF NOT EXISTS rm_windows_due ON rm_windows (closed, closes_at)""",
    """CREATE INDEX IF NOT EXISTS rm_reminders_due ON rm_reminders (remind_at)""",
]


# Search over posts: SQLite's FTS5 when embedded, PostgreSQL's full-text search (a generated tsvector with a
# GIN index) in production; both rebuilt from the events like every read model.
POST_SEARCH = {
    "sqlite": [
        """CREATE VIRTUAL TABLE IF NOT EXISTS rm_post_search USING fts5(
            text, game_id UNINDEXED, post_id UNINDEXED, tokenize = 'unicode61 remove_diacritics 2')""",
    ],
    "postgres": ["""CREATE INDEX IF NOT EXISTS rm_posts_search ON rm_posts USING GIN (search)"""],
}
POST_SEARCH_COLUMN = {
    "sqlite": "",
    "postgres": "search tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED, ",
}


def read_model_ddl(dialect: str) -> list[str]:
    """The read models' DDL for ``dialect`` (``sqlite`` or ``postgres``): what ``create_tables`` and the
    migrations run."""
    # SQLite: tables keyed by (game, version) are stored in key order, which makes appends cheap.
    without_rowid = "WITHOUT ROWID" if dialect == "sqlite" else ""
    return [
        ddl.replace("{without_rowid}", without_rowid).replace("{post_search_column}", POST_SEARCH_COLUMN[dialect])
        for ddl in SCHEMA
    ] + POST_SEARCH[dialect]


# The audit's secondary indexes (its filters), which no projection reads while it writes: a rebuild builds them
# after the rows are in (issue 30).
DEFERRED = ("rm_audit_by_type", "rm_audit_by_actor", "rm_audit_by_phase")

TABLES = [
    "rm_audit",
    "rm_feed",
    "rm_phases",
    "rm_windows",
    "rm_reminders",
    "rm_games",
    "rm_seat_contacts",
    "rm_lobby",
    "rm_outbox",
    "rm_tracking",
    "rm_timeline",
    "rm_viewers",
    "rm_threads",
    "rm_posts",
    "rm_post_search",
]


def sqlite_path(settings: Settings) -> str:
    """Where the read models live beside a SQLite event store (a file next to it), or ``:memory:``."""
    env = settings.eventsourcing_env()
    if env.get("PERSISTENCE_MODULE") == "eventsourcing.popo":
        return ":memory:"
    return str(Path(env["SQLITE_DBNAME"]).with_suffix("")) + ".readmodels.sqlite3"


def utc_key(moment: datetime | str) -> str:
    """A UTC instant as fixed-width text, so that deadlines compare correctly as strings in SQL."""
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class ReadModelDB:
    """Connections and transactions for the read-model tables."""

    def __init__(self, settings: Settings) -> None:
        self.dialect = "postgres" if settings.is_postgres else "sqlite"
        self._lock = threading.RLock()
        if self.dialect == "postgres":
            from psycopg import sql
            from psycopg_pool import ConnectionPool

            schema = settings.eventsourcing_env().get("POSTGRES_SCHEMA", "public")

            def configure(conn: Any) -> None:
                conn.execute(sql.SQL("SET search_path TO {}").format(sql.Identifier(schema)))
                conn.commit()

            self.pool = ConnectionPool(
                conninfo(settings), min_size=1, max_size=settings.readmodel_pool_size, configure=configure, open=True
            )
        else:
            path = sqlite_path(settings)
            self.conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=30)
            if path != ":memory:":
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
        self.auto_migrate = settings.auto_migrate
        if settings.auto_migrate:  # else (production) `emissary migrate` ran before any process started
            from projections import migrations

            migrations.ensure_current(self)

    def _sql(self, sql: str) -> str:
        return re.sub(r"\?", "%s", sql) if self.dialect == "postgres" else sql

    @contextlib.contextmanager
    def transaction(self, lock_name: str | None = None) -> Iterator[Cursor]:
        """One transaction; with ``lock_name``, holding that projection's lock until commit."""
        if self.dialect == "postgres":
            with self.pool.connection() as conn, conn.transaction():
                cur = Cursor(self, conn.cursor())
                if lock_name:
                    cur.execute(
                        "INSERT INTO rm_tracking (name, position) VALUES (?, 0) ON CONFLICT DO NOTHING", (lock_name,)
                    )
                    cur.execute("SELECT position FROM rm_tracking WHERE name = ? FOR UPDATE", (lock_name,))
                yield cur
        else:
            with self._lock:
                self.conn.execute("BEGIN IMMEDIATE")
                try:
                    yield Cursor(self, self.conn.cursor())
                except BaseException:
                    self.conn.execute("ROLLBACK")
                    raise
                self.conn.execute("COMMIT")

    def query(self, sql: str, params: Sequence[Any] = ()) -> list[tuple]:
        """Rows of a read-only query."""
        if self.dialect == "postgres":
            with self.pool.connection() as conn:
                return list(conn.execute(self._sql(sql), params).fetchall())
        with self._lock:
            return list(self.conn.execute(sql, params).fetchall())

    @contextlib.contextmanager
    def raw_connection(self) -> Iterator[Any]:
        """The driver's own connection, for this thread alone (migrations run on it)."""
        if self.dialect == "postgres":
            with self.pool.connection() as conn:
                yield conn
        else:
            with self._lock:
                yield self.conn

    def create_tables(self, *, deferred: bool = True) -> None:
        """Every read model's table and index; ``deferred=False`` (a rebuild): the indexes of ``DEFERRED`` are left
        for ``create_deferred``, once the rows are in (one sort is cheaper than an index kept up row by row)."""
        with self.transaction() as cur:
            for ddl in read_model_ddl(self.dialect):
                if deferred or not any(f" {name} " in ddl for name in DEFERRED):
                    cur.execute(ddl)

    def create_deferred(self) -> None:
        """The indexes ``create_tables(deferred=False)`` left out (idempotent)."""
        with self.transaction() as cur:
            for ddl in read_model_ddl(self.dialect):
                if any(f" {name} " in ddl for name in DEFERRED):
                    cur.execute(ddl)

    def drop_tables(self) -> None:
        """Drop every read model (a rebuild). On SQLite, without overwriting their freed pages (``secure_delete``,
        on in this build, wrote every page of them again, a fifth of a rebuild's time): what they held is derived from
        the events, which the store keeps beside them; the tables never rebuilt keep it on for what they delete."""
        with contextlib.ExitStack() as stack:
            if self.dialect == "sqlite":
                stack.enter_context(self._lock)  # released after the setting is put back
                before = self.conn.execute("PRAGMA secure_delete").fetchone()[0]
                self.conn.execute("PRAGMA secure_delete = 0")
                stack.callback(self.conn.execute, f"PRAGMA secure_delete = {int(before)}")
            with self.transaction() as cur:
                for table in TABLES:
                    cur.execute(f"DROP TABLE IF EXISTS {table}")

    def close(self) -> None:
        if self.dialect == "postgres":
            self.pool.close()
        else:
            self.conn.close()


class Cursor:
    """A cursor that speaks ``?`` placeholders on both databases."""

    def __init__(self, db: ReadModelDB, cursor: Any) -> None:
        self.db = db
        self.cursor = cursor

    def execute(self, sql: str, params: Sequence[Any] = ()) -> Cursor:
        self.cursor.execute(self.db._sql(sql), params)
        return self

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        if rows:
            self.cursor.executemany(self.db._sql(sql), rows)

    def fetchall(self) -> list[tuple]:
        return list(self.cursor.fetchall())

    def fetchone(self) -> tuple | None:
        return self.cursor.fetchone()
