"""The services' health checks (``emissary health <service>``), each importing only what it checks (issue 27): a
container's check must answer within its timeout on a busy host, so none loads the application to do it.

- api: ``GET /health`` (urllib);
- worker: a Celery ping to one node (the only check that needs Celery);
- beat: the age of its heartbeat file (``workers.heartbeat``, standard library alone);
- projector: the age of the runner's heartbeat file, then how far the read models are behind the event store,
  read with the database's own driver (sqlite3, psycopg): no event store library, no read-model code;
- smtpd: an SMTP ``NOOP`` (smtplib).

Each returns what is wrong, or None when the service is healthy. Settings (pydantic) are read by the checks that
need a default from them."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from projections.tables import EVENTS_TABLE
from workers import heartbeat

if TYPE_CHECKING:
    from projections.settings import Settings


class Unreadable(Exception):
    """The database could not be read (not reachable, not migrated)."""


def api(url: str, timeout: float) -> str | None:
    import urllib.request

    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return None if response.status == 200 else f"{url} answered {response.status}"
    except OSError as exc:
        return f"{url}: {exc}"


def worker(node: str, timeout: float) -> str | None:
    """This node only: another worker answering proves nothing about this container."""
    from workers.app import celery_app

    replies = celery_app.control.ping(destination=[node], timeout=timeout)
    return None if any(node in reply for reply in replies) else f"{node} did not answer a ping"


def fresh(path: Path, max_age: float) -> str | None:
    """Whether a heartbeat file was touched within ``max_age`` seconds."""
    seconds = heartbeat.age(path)
    if seconds is None or seconds > max_age:
        return f"{path}: {'never written' if seconds is None else f'{seconds:.0f}s old'} (max {max_age:.0f}s)"
    return None


def beat(settings: Settings, schedule: str, max_age: float | None = None) -> str | None:
    """Beat's scheduler touches its file at every tick: stale for six sweeps (or 30 s) means it stopped."""
    return fresh(heartbeat.beat_heartbeat(schedule), max_age or max(30.0, 6 * settings.sweep_seconds))


def projector(settings: Settings, max_lag: int, max_age: float | None = None) -> str | None:
    """The runner's heartbeat is fresh and the read models are at most ``max_lag`` events behind."""
    path = heartbeat.projector_heartbeat(settings.data_dir)
    problem = fresh(path, max_age or max(30.0, 2 * settings.watchdog_stall_seconds))
    if problem:
        return problem
    try:
        position, head = lag(settings)
    except Unreadable as exc:
        return f"the read models' position cannot be read: {exc}"
    if head - position > max_lag:
        return f"the read models are {head - position} events behind (max {max_lag})"
    return None


def smtpd(host: str, port: int, timeout: float) -> str | None:
    import smtplib

    try:
        with smtplib.SMTP(host, port, timeout=timeout) as smtp:
            code, _ = smtp.noop()
            return None if code == 250 else f"NOOP answered {code}"
    except (OSError, smtplib.SMTPException) as exc:
        return f"{host}:{port}: {exc}"


def lag(settings: Settings) -> tuple[int, int]:
    """(position of the read models, last notification id of the event store), as ``Projector.position`` and the
    event store's ``max_notification_id`` give them, read in one connection with the database's own driver.
    An in-memory store lives in its own process alone: (0, 0). Raises ``Unreadable``."""
    from projections.db import TRACKING, sqlite_path

    env = settings.eventsourcing_env()
    if settings.is_postgres:
        return _postgres_lag(settings, env.get("POSTGRES_SCHEMA", "public"))
    if env["PERSISTENCE_MODULE"] != "eventsourcing.sqlite":
        return 0, 0
    try:
        with _read_only(env["SQLITE_DBNAME"]) as events, _read_only(sqlite_path(settings)) as reads:
            head = events.execute(f"SELECT MAX(rowid) FROM {EVENTS_TABLE['sqlite']}").fetchone()[0]
            row = reads.execute("SELECT position FROM rm_tracking WHERE name = ?", (TRACKING,)).fetchone()
    except sqlite3.Error as exc:
        raise Unreadable(str(exc)) from exc
    return (row[0] if row else 0), head or 0


def _read_only(path: str) -> closing[sqlite3.Connection]:
    """A SQLite file opened read-only (a check creates no file), closed on leaving ``with``."""
    return closing(sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True, timeout=5))


def _postgres_lag(settings: Settings, schema: str) -> tuple[int, int]:
    import psycopg
    from psycopg import sql

    from projections.db import TRACKING, conninfo

    try:
        with psycopg.connect(conninfo(settings), connect_timeout=5, autocommit=True) as conn:
            head = conn.execute(
                sql.SQL("SELECT MAX(notification_id) FROM {}.{}").format(
                    sql.Identifier(schema), sql.Identifier(EVENTS_TABLE["postgres"])
                )
            ).fetchone()
            row = conn.execute(
                sql.SQL("SELECT position FROM {}.rm_tracking WHERE name = %s").format(sql.Identifier(schema)),
                (TRACKING,),
            ).fetchone()
    except psycopg.Error as exc:
        raise Unreadable(str(exc).strip()) from exc
    return (row[0] if row else 0), (head[0] if head and head[0] else 0)
