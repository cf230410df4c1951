"""Drop ``rm_boards``: no code writes or reads it (the board is rendered from the game when asked).

The read models are never migrated, only rebuilt; this one is gone, so the revision drops it from the
databases that have it. The downgrade recreates it empty (its DDL is copied here, so that this revision
never changes); a rebuild would not fill it, since nothing ever did.

Revision ID: 0005_boards
Revises: 0004_reads
"""

from alembic import op

revision = "0005_boards"
down_revision = "0004_reads"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute("DROP TABLE IF EXISTS rm_boards")


def downgrade() -> None:
    op.execute(
        """CREATE TABLE IF NOT EXISTS rm_boards (
        game_id TEXT NOT NULL, viewer TEXT NOT NULL, version INTEGER NOT NULL, body TEXT NOT NULL,
        PRIMARY KEY (game_id, viewer))"""
    )
