"""Push to phones (issue 31, item 2): each seat's push subscriptions, one per device, and their delivery ledger.

Neither is rebuilt from the events: a subscription's endpoint and keys are credentials (whoever holds them may push
to that device), which no event may hold (events are exported, audited and shown). The ledger, as the mail ledger,
is the outbox of pushes and the record of what was sent.

Revision ID: 0011_push
Revises: 0010_webhooks
"""

from alembic import op

revision = "0011_push"
down_revision = "0010_webhooks"
branch_labels = None
depends_on = None

DDL = [
    """CREATE TABLE IF NOT EXISTS push_subscriptions (
        id TEXT PRIMARY KEY, game_id TEXT NOT NULL, seat TEXT NOT NULL, endpoint TEXT NOT NULL,
        p256dh TEXT NOT NULL, auth TEXT NOT NULL, label TEXT NOT NULL, kinds TEXT NOT NULL,
        seen_version INTEGER NOT NULL, created_at TEXT NOT NULL, last_error TEXT,
        UNIQUE (game_id, seat, endpoint))""",
    "CREATE INDEX IF NOT EXISTS push_subscriptions_by_seat ON push_subscriptions (game_id, seat)",
    """CREATE TABLE IF NOT EXISTS push_ledger (
        id TEXT PRIMARY KEY, sub_id TEXT NOT NULL, game_id TEXT NOT NULL, seat TEXT NOT NULL,
        version INTEGER NOT NULL, kind TEXT NOT NULL, note TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL,
        attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, created_at TEXT NOT NULL, due_at TEXT, sent_at TEXT,
        UNIQUE (sub_id, version, note))""",
    "CREATE INDEX IF NOT EXISTS push_ledger_due ON push_ledger (status, due_at)",
    "CREATE INDEX IF NOT EXISTS push_ledger_by_seat ON push_ledger (game_id, seat, created_at)",
]


def upgrade() -> None:
    for ddl in DDL:
        op.execute(ddl)


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS push_ledger")
    op.execute("DROP TABLE IF EXISTS push_subscriptions")
