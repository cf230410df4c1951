"""The tables that are never rebuilt: the mail ledger, claims on due windows, reminders sent.

``IF NOT EXISTS``: databases that the services created before migrations existed are adopted as they
are. The DDL is copied here, not imported, so that this revision never changes.

Revision ID: 0001
Revises:
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TABLES = {
    "mail_ledger": """CREATE TABLE IF NOT EXISTS mail_ledger (
        id TEXT PRIMARY KEY, game_id TEXT NOT NULL, version INTEGER, recipient TEXT NOT NULL, address TEXT,
        kind TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL, message_id TEXT, status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, created_at TEXT NOT NULL, sent_at TEXT)""",
    "wk_claims": """CREATE TABLE IF NOT EXISTS wk_claims (
        game_id TEXT NOT NULL, window_id TEXT NOT NULL, closes_at TEXT NOT NULL, claimed_until TEXT,
        eta_for TEXT, claims INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (game_id, window_id))""",
    "wk_reminders": """CREATE TABLE IF NOT EXISTS wk_reminders (
        game_id TEXT NOT NULL, window_id TEXT NOT NULL, closes_at TEXT NOT NULL, hours_before REAL NOT NULL,
        PRIMARY KEY (game_id, window_id, closes_at, hours_before))""",
}
INDEXES = [
    "CREATE UNIQUE INDEX IF NOT EXISTS mail_ledger_event ON mail_ledger (game_id, version, recipient, kind)",
]


def upgrade() -> None:
    for ddl in [*TABLES.values(), *INDEXES]:
        op.execute(ddl)


def downgrade() -> None:
    for table in TABLES:
        op.execute(f"DROP TABLE IF EXISTS {table}")
