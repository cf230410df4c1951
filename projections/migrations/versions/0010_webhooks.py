"""Per-game webhooks (issue 31, item 1): the URLs a game's GM or host added, and their delivery ledger.

Neither is rebuilt from the events: a webhook's URL and signing secret are credentials (a Discord or Slack URL
carries its token), which no event may hold (events are exported, audited and shown). The ledger, as the mail
ledger, is the outbox of webhook deliveries and the record of what was sent.

Revision ID: 0010_webhooks
Revises: 0009_phase_labels
"""

from alembic import op

revision = "0010_webhooks"
down_revision = "0009_phase_labels"
branch_labels = None
depends_on = None

DDL = [
    """CREATE TABLE IF NOT EXISTS webhooks (
        id TEXT PRIMARY KEY, game_id TEXT NOT NULL, format TEXT NOT NULL, url TEXT NOT NULL, secret TEXT,
        kinds TEXT NOT NULL, status TEXT NOT NULL, failures INTEGER NOT NULL DEFAULT 0,
        seen_version INTEGER NOT NULL, created_at TEXT NOT NULL, created_by TEXT NOT NULL, last_error TEXT,
        paused_at TEXT)""",
    "CREATE INDEX IF NOT EXISTS webhooks_by_game ON webhooks (game_id)",
    """CREATE TABLE IF NOT EXISTS webhook_ledger (
        id TEXT PRIMARY KEY, hook_id TEXT NOT NULL, game_id TEXT NOT NULL, version INTEGER NOT NULL,
        kind TEXT NOT NULL, body TEXT NOT NULL, status TEXT NOT NULL, attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT, created_at TEXT NOT NULL, due_at TEXT, sent_at TEXT, UNIQUE (hook_id, version, kind))""",
    "CREATE INDEX IF NOT EXISTS webhook_ledger_due ON webhook_ledger (status, due_at)",
    "CREATE INDEX IF NOT EXISTS webhook_ledger_by_game ON webhook_ledger (game_id, created_at)",
]


def upgrade() -> None:
    for ddl in DDL:
        op.execute(ddl)


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS webhook_ledger")
    op.execute("DROP TABLE IF EXISTS webhooks")
