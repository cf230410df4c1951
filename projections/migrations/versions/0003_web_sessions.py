"""Server-side browser sessions and the games each one is signed in to.

Revision ID: 0003
Revises: 0002
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

DDL = [
    """CREATE TABLE IF NOT EXISTS web_sessions (
        sid_hash TEXT PRIMARY KEY, csrf TEXT NOT NULL, data TEXT NOT NULL, created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS web_session_grants (
        sid_hash TEXT NOT NULL, game_id TEXT NOT NULL, principal TEXT NOT NULL, token_hash TEXT NOT NULL,
        PRIMARY KEY (sid_hash, game_id))""",
    "CREATE INDEX IF NOT EXISTS web_session_grants_by_principal ON web_session_grants (game_id, principal)",
    "CREATE INDEX IF NOT EXISTS web_sessions_by_expiry ON web_sessions (expires_at)",
]


def upgrade() -> None:
    for ddl in DDL:
        op.execute(ddl)


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS web_session_grants")
    op.execute("DROP TABLE IF EXISTS web_sessions")
