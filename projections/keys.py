"""Idempotency keys beside the events: the event store's recorders, extended with one table.

A command sent with a key (HTTP ``Idempotency-Key``, a mail's Message-ID) stores its first receipt
under (game, caller, key) in the same transaction as the events it records, so a retry finds that
receipt and records nothing, and a crash between the two cannot happen. The recorders are
eventsourcing's own, extended through its public ``insert_events`` (the key comes down as the ``save``
keyword ``command_key``), but for SQLite's, which writes the key row in the library's documented
``_insert_events`` hook (see ``SQLiteKeyedRecorder``).
"""

from __future__ import annotations

import struct
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg
import psycopg.errors
from eventsourcing.persistence import IntegrityError, InterfaceError, OperationalError, ProgrammingError, StoredEvent
from eventsourcing.popo import POPOApplicationRecorder
from eventsourcing.postgres import (
    PostgresAggregateRecorder,
    PostgresApplicationRecorder,
    PostgresDatastore,
    PostgresFactory,
)
from eventsourcing.sqlite import SQLiteApplicationRecorder, SQLiteCursor
from eventsourcing.utils import retry
from psycopg.adapt import Dumper
from psycopg.pq import Format
from psycopg.sql import SQL, Identifier, Literal

KEYS_TABLE = "emissary_command_keys"
BYTEA_OID, BYTEA_ARRAY_OID = 17, 1001


@dataclass(frozen=True)
class KeyRow:
    """One command's key and what it was answered: the scope (game, caller), the key, a fingerprint
    of the request it was first used for, and the receipt (JSON)."""

    game_id: str
    principal: str
    key: str
    fingerprint: str
    receipt: str

    @property
    def params(self) -> tuple[str, str, str, str, str]:
        return self.game_id, self.principal, self.key, self.fingerprint, self.receipt


class ByteaArray(bytes):
    """A ``bytea[]`` already in PostgreSQL's binary array format (``bytea_array``), sent as it is."""


class ByteaArrayDumper(Dumper):
    format = Format.BINARY
    oid = BYTEA_ARRAY_OID

    def dump(self, obj: Any) -> bytes:
        return bytes(obj)


psycopg.adapters.register_dumper(ByteaArray, ByteaArrayDumper)  # our own type only: nothing else changes


def bytea_array(items: Sequence[bytes]) -> ByteaArray:
    """The binary array format: dimensions, flags, element type, then (length, bytes) per element."""
    head = struct.pack("!iiIii", 1, 0, BYTEA_OID, len(items), 1)
    return ByteaArray(head + b"".join(struct.pack("!i", len(item)) + item for item in items))


def text_array(items: Sequence[Any]) -> str:
    """An array literal (``{"a","b"}``), each element quoted: PostgreSQL casts it (``%s::text[]``)."""
    return "{" + ",".join('"' + str(i).replace("\\", "\\\\").replace('"', '\\"') + '"' for i in items) + "}"


def array_params(stored_events: Sequence[StoredEvent]) -> tuple[str, str, str, ByteaArray]:
    """The events as four arrays (ids, versions, topics, states), in forms psycopg sends without looking at
    each element: psycopg's list dumpers inspect every list to choose an element type, which cost a command
    about as much Python as its whole save statement."""
    return (
        text_array([e.originator_id for e in stored_events]),
        "{" + ",".join(str(int(e.originator_version)) for e in stored_events) + "}",
        text_array([e.topic for e in stored_events]),
        bytea_array([e.state for e in stored_events]),
    )


class ArrayInsertRecorder(PostgresAggregateRecorder):
    """The library's INSERT of stored events, with the rows sent as four arrays instead of one array of its
    composite type. psycopg dumps a composite in Python, in text, and escapes each field with a regular
    expression: a snapshot's state (hundreds of kilobytes of JSON in a game of fifty powers) went through it
    as hex text, about 100 ms for 350 kB. Here the states go as one binary ``bytea[]`` (copied as they are)
    and the ids, versions and topics as plain arrays; ``unnest`` zips them back into the same rows, in the
    same order, into the same table (and an application recorder still appends its RETURNING)."""

    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        self.insert_events_statement = SQL(
            "INSERT INTO {schema}.{table} AS t (originator_id, originator_version, topic, state) "
            "SELECT * FROM unnest(%s::{id_type}[], %s::bigint[], %s::text[], %b::bytea[])"
        ).format(
            schema=Identifier(self.datastore.schema),
            table=Identifier(self.events_table_name),
            id_type=SQL(self.datastore.originator_id_type),
        )

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        # The library's aggregate recorder's insert (one autocommit statement, nothing returned), with this INSERT.
        if stored_events:
            with self.datastore.get_connection() as conn, conn.cursor() as curs:
                assert conn.autocommit
                curs.execute(self.insert_events_statement, array_params(stored_events))
        return None


class PostgresKeyedRecorder(PostgresApplicationRecorder, ArrayInsertRecorder):
    """PostgreSQL: the key table lives in the store's schema; the key row is inserted before the events
    table is locked, so two holders of one key queue on its primary key, never deadlock."""

    def __init__(self, datastore: PostgresDatastore, *, events_table_name: str = "stored_events") -> None:
        super().__init__(datastore, events_table_name=events_table_name)
        table = Identifier(self.datastore.schema), Identifier(KEYS_TABLE)
        self.sql_create_statements.append(
            SQL(
                "CREATE TABLE IF NOT EXISTS {}.{} (game_id text NOT NULL, principal text NOT NULL, key text NOT NULL, "
                "fingerprint text NOT NULL, receipt text NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now(), "
                "PRIMARY KEY (game_id, principal, key))"
            ).format(*table)
        )
        self.insert_key_statement = SQL(
            "INSERT INTO {}.{} (game_id, principal, key, fingerprint, receipt) VALUES (%s, %s, %s, %s, %s)"
        ).format(*table)
        self.select_key_statement = SQL(
            "SELECT game_id, principal, key, fingerprint, receipt FROM {}.{} "
            "WHERE game_id = %s AND principal = %s AND key = %s"
        ).format(*table)
        # A save as one statement: a function that writes the key row, locks the table, notifies and inserts.
        schema, events = Identifier(self.datastore.schema), Identifier(self.events_table_name)
        function = Identifier(f"{self.events_table_name}_save")
        self.sql_create_statements.append(
            SQL(
                "CREATE OR REPLACE FUNCTION {schema}.{function}(ids {id_type}[], versions bigint[], topics text[], "
                "states bytea[], k_game text, k_principal text, k_key text, k_fingerprint text, k_receipt text) "
                "RETURNS SETOF bigint LANGUAGE plpgsql AS $body$ BEGIN "
                "IF k_key IS NOT NULL THEN "
                "INSERT INTO {schema}.{keys} (game_id, principal, key, fingerprint, receipt) "
                "VALUES (k_game, k_principal, k_key, k_fingerprint, k_receipt); "
                "END IF; "
                "SET LOCAL lock_timeout = '{lock_timeout}s'; "
                "LOCK TABLE {schema}.{events} IN EXCLUSIVE MODE; "
                "NOTIFY {channel}; "
                "RETURN QUERY INSERT INTO {schema}.{events} AS t (originator_id, originator_version, topic, state) "
                "SELECT * FROM unnest(ids, versions, topics, states) RETURNING notification_id; "
                "END $body$"
            ).format(
                schema=schema,
                function=function,
                id_type=SQL(self.datastore.originator_id_type),
                keys=Identifier(KEYS_TABLE),
                lock_timeout=self.datastore.lock_timeout,
                events=events,
                channel=Identifier(self.channel_name),
            )
        )
        self.save_statement = SQL(
            "SELECT * FROM {schema}.{function}(%s::{id_type}[], %s::bigint[], %s::text[], %b::bytea[], "
            "%s, %s, %s, %s, %s) AS t(notification_id)"
        ).format(schema=schema, function=function, id_type=SQL(self.datastore.originator_id_type))
        self.save_function_missing = False

    @retry((InterfaceError, OperationalError), max_attempts=10, wait=0.2)
    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        """The library's transaction (key row, table lock, NOTIFY, events) as one statement, one round trip.

        The library pipelines the statements but inside a nested ``conn.transaction()``, so it syncs the
        pipeline five times a save (after the insert, on COMMIT, on leaving each pipeline level...), each a
        wait for the server, most of them while the table lock is held, and psycopg spends ~0.1 ms of Python
        on each statement. Here one prepared statement calls the store's save function (created with the
        tables): the key row, the lock and its scope, the NOTIFY and the insert are the library's, in one
        transaction that commits before the statement answers (durability is unchanged), or fails whole.
        Where the function does not exist yet (code deployed before ``emissary migrate``), the same statements
        go in one pipeline with one sync (``insert_pipelined``)."""
        row: KeyRow | None = kwargs.get("command_key")
        if self.datastore.enable_db_functions:
            if row is not None:
                # The library's database function writes the events alone: the key would be silently lost.
                raise ProgrammingError("idempotency keys need POSTGRES_ENABLE_DB_FUNCTIONS off")
            return super().insert_events(stored_events, **kwargs)
        if not stored_events:
            # Nothing to lock or notify (as the library's insert): only the key row, if any, in one statement.
            if row is not None:
                with self.datastore.get_connection() as conn, conn.cursor() as curs:
                    curs.execute(self.insert_key_statement, row.params, prepare=True)
            return None
        if self.save_function_missing:
            return self.insert_pipelined(stored_events, row)
        params = (*array_params(stored_events), *(row.params if row is not None else (None,) * 5))
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            assert conn.autocommit  # one statement, one transaction
            try:
                curs.execute(self.save_statement, params, prepare=True)
            except psycopg.errors.UndefinedFunction:
                self.save_function_missing = True
            else:
                return [r["notification_id"] for r in curs.fetchall()]
        return self.insert_pipelined(stored_events, row)

    def insert_pipelined(self, stored_events: Sequence[StoredEvent], row: KeyRow | None) -> Sequence[int]:
        """BEGIN .. COMMIT in one pipeline with one sync: the key row first, then the library's statements (its
        lock and scope, its NOTIFY) and the INSERT; the save returns only once COMMIT has answered. If a statement
        fails, the server skips the rest, COMMIT included, and the block is rolled back."""
        with self.datastore.get_connection() as conn:
            assert conn.autocommit  # the pool's connections: BEGIN and COMMIT are ours to send
            begin, curs, end = conn.cursor(), conn.cursor(), conn.cursor()
            try:
                try:
                    # Leaving the pipeline sends its one Sync and waits for every result, COMMIT's included;
                    # the first error is raised there.
                    with conn.pipeline():
                        begin.execute(SQL("BEGIN"))
                        if row is not None:
                            begin.execute(self.insert_key_statement, row.params, prepare=True)
                        for statement in self.lock_table_statements:
                            begin.execute(statement, prepare=True)
                        begin.execute(SQL("NOTIFY {}").format(Identifier(self.channel_name)))
                        curs.execute(self.insert_events_statement, array_params(stored_events))
                        end.execute(SQL("COMMIT"))
                except Exception:
                    conn.rollback()  # the failed block (nothing of it was committed): the pooled connection is clean
                    raise
                return [r["notification_id"] for r in curs.fetchall()]  # the INSERT's RETURNING
            finally:
                for cursor in (begin, curs, end):
                    cursor.close()

    def select_command_key(self, game_id: str, principal: str, key: str) -> KeyRow | None:
        with self.datastore.get_connection() as conn, conn.cursor() as curs:
            curs.execute(self.select_key_statement, (game_id, principal, key), prepare=True)
            found = curs.fetchone()
        return KeyRow(**found) if found else None


class SQLiteKeyedRecorder(SQLiteApplicationRecorder):
    """SQLite: the key table beside the events table, written in the same transaction."""

    def construct_create_table_statements(self) -> list[str]:
        return [
            *super().construct_create_table_statements(),
            f"CREATE TABLE IF NOT EXISTS {KEYS_TABLE} (game_id TEXT NOT NULL, principal TEXT NOT NULL, "
            "key TEXT NOT NULL, fingerprint TEXT NOT NULL, receipt TEXT NOT NULL, "
            "recorded_at TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP, PRIMARY KEY (game_id, principal, key))",
        ]

    # Kept private: no public method runs inside the library's SQLite insert transaction; its docs extend this one.
    def _insert_events(self, c: SQLiteCursor, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Any:
        ids = super()._insert_events(c, stored_events, **kwargs)
        row: KeyRow | None = kwargs.get("command_key")
        if row is not None:
            c.execute(
                f"INSERT INTO {KEYS_TABLE} (game_id, principal, key, fingerprint, receipt) VALUES (?, ?, ?, ?, ?)",
                row.params,
            )
        return ids

    def select_command_key(self, game_id: str, principal: str, key: str) -> KeyRow | None:
        with self.datastore.transaction(commit=False) as c:
            c.execute(
                f"SELECT game_id, principal, key, fingerprint, receipt FROM {KEYS_TABLE} "
                "WHERE game_id = ? AND principal = ? AND key = ?",
                (game_id, principal, key),
            )
            found = c.fetchone()
        return KeyRow(*(found[i] for i in range(5))) if found else None


class POPOKeyedRecorder(POPOApplicationRecorder):
    """In memory (tests, the demo): the same contract under a lock of its own. A save with a key holds it from
    the key's check to its row, the library's insert between (which records every event or none); a reader
    of the key waits for it, so a retry never misses a key whose events are recorded."""

    def __init__(self) -> None:
        super().__init__()
        self.keys: dict[tuple[str, str, str], KeyRow] = {}
        self.keys_lock = threading.RLock()

    def insert_events(self, stored_events: Sequence[StoredEvent], **kwargs: Any) -> Sequence[int] | None:
        row: KeyRow | None = kwargs.get("command_key")
        if row is None:
            return super().insert_events(stored_events, **kwargs)
        with self.keys_lock:
            if row.params[:3] in self.keys:
                raise IntegrityError(f"command key already recorded: {row.key}")
            ids = super().insert_events(stored_events, **kwargs)
            self.keys[row.params[:3]] = row
            return ids

    def select_command_key(self, game_id: str, principal: str, key: str) -> KeyRow | None:
        with self.keys_lock:
            return self.keys.get((game_id, principal, key))


def snapshot_recorder(factory: Any) -> ArrayInsertRecorder | None:
    """On PostgreSQL, the snapshot store's recorder: the library's table (named as its factory names it), written
    through the array INSERT; None on other stores (the library's own)."""
    if not isinstance(factory, PostgresFactory):
        return None
    recorder = ArrayInsertRecorder(
        factory.datastore, events_table_name=f"{factory.env.name.lower() or 'stored'}_snapshots"
    )
    recorder.sql_create_statements.append(lz4_states(recorder))
    if factory.env_create_table():
        recorder.create_table()
    return recorder


def lz4_states(recorder: PostgresAggregateRecorder) -> Any:
    """``ALTER TABLE .. SET COMPRESSION lz4`` on the table's ``state`` column, where the server has lz4 (PostgreSQL
    14 and later, built with it; else nothing changes). A snapshot's state is hundreds of kilobytes of JSON that
    PostgreSQL compresses as it stores it: lz4 takes about a fifth of the CPU of the default pglz (1.3 ms against
    6 ms for 360 kB, measured here) for the same size. New rows are compressed so; older ones read as they are."""
    alter = SQL("ALTER TABLE {}.{} ALTER COLUMN state SET COMPRESSION lz4").format(
        Identifier(recorder.datastore.schema), Identifier(recorder.events_table_name)
    )
    return SQL("DO $$ BEGIN EXECUTE {}; EXCEPTION WHEN OTHERS THEN NULL; END $$").format(Literal(alter.as_string()))


RECORDER_TOPICS = {
    "eventsourcing.postgres": "projections.keys:PostgresKeyedRecorder",
    "eventsourcing.sqlite": "projections.keys:SQLiteKeyedRecorder",
}
