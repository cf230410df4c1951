"""The audit points at the event store (issue 30): ``rm_audit.data`` no longer copies every event's JSON.

An event's payload is read from the store by its game and version (``projections.stored``); the audit keeps its
JSON only for the kinds SQL reads across games (``projections.stored.KEPT``, copied here so that this revision
never changes) and a sealed event's ``{"sealed": true}``, NULL for the rest. This revision lets ``data`` be NULL and
empties it where it is no longer kept, so an audit of the old shape reads as a rebuilt one does (a row whose data
is NULL is read from the store); on SQLite the table is copied into the new shape (SQLite cannot drop a NOT NULL),
which also gives its pages back. The downgrade puts ``'{}'`` where data is NULL and NOT NULL back: the older
release then needs ``emissary projections rebuild`` to show the payloads again.

Revision ID: 0012_audit_store
Revises: 0011_push
"""

import sqlalchemy as sa
from alembic import op

revision = "0012_audit_store"
down_revision = "0011_push"
branch_labels = None
depends_on = None

KEPT = ("WindowOpened", "DeadlineSet", "ExtensionGranted", "WindowClosed", "ContactSet", "PostMade")
SEALED_SCOPE = -1
KEEP = f"scope = {SEALED_SCOPE} OR type IN ({', '.join(repr(k) for k in KEPT)})"
COLUMNS = "game_id, version, notification_id, type, actor, at, phase, audience, shown_to, scope, {data}, superseded_by"
TABLE = """CREATE TABLE {name} (
        game_id TEXT NOT NULL, version INTEGER NOT NULL, notification_id BIGINT NOT NULL, type TEXT NOT NULL,
        actor TEXT NOT NULL, at TEXT NOT NULL, phase TEXT NOT NULL, audience TEXT NOT NULL, shown_to TEXT NOT NULL,
        scope INTEGER NOT NULL, data TEXT{null}, superseded_by INTEGER,
        PRIMARY KEY (game_id, version)) WITHOUT ROWID"""
INDEXES = [
    "CREATE INDEX IF NOT EXISTS rm_audit_by_type ON rm_audit (game_id, type, version)",
    "CREATE INDEX IF NOT EXISTS rm_audit_by_actor ON rm_audit (game_id, actor, version)",
    "CREATE INDEX IF NOT EXISTS rm_audit_by_phase ON rm_audit (game_id, phase, version)",
]


def _data_nullable() -> bool:
    return next(c["nullable"] for c in sa.inspect(op.get_bind()).get_columns("rm_audit") if c["name"] == "data")


def _copy_sqlite(null: str, data: str) -> None:
    """SQLite: the table copied into a new one with ``data`` as given, renamed into place, its indexes again."""
    op.execute("DROP TABLE IF EXISTS rm_audit_0012")
    op.execute(TABLE.format(name="rm_audit_0012", null=null))
    op.execute(
        f"INSERT INTO rm_audit_0012 ({COLUMNS.format(data='data')}) SELECT {COLUMNS.format(data=data)} FROM rm_audit"
    )
    op.execute("DROP TABLE rm_audit")
    op.execute("ALTER TABLE rm_audit_0012 RENAME TO rm_audit")
    for ddl in INDEXES:
        op.execute(ddl)


def upgrade() -> None:
    if _data_nullable():
        return  # created in the new shape (an empty database), or carried over already
    if op.get_bind().dialect.name == "sqlite":
        _copy_sqlite("", f"CASE WHEN {KEEP} THEN data END")
    else:
        op.execute("ALTER TABLE rm_audit ALTER COLUMN data DROP NOT NULL")
        op.execute(f"UPDATE rm_audit SET data = NULL WHERE NOT ({KEEP})")


def downgrade() -> None:
    if not _data_nullable():
        return
    if op.get_bind().dialect.name == "sqlite":
        _copy_sqlite(" NOT NULL", "COALESCE(data, '{}')")
    else:
        op.execute("UPDATE rm_audit SET data = '{}' WHERE data IS NULL")
        op.execute("ALTER TABLE rm_audit ALTER COLUMN data SET NOT NULL")
