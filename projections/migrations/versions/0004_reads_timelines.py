"""Read models: per-viewer timelines (``rm_timeline``, ``rm_viewers``) and the audit's filter indexes.

The read models themselves are created by ``projections.db.SCHEMA`` before any revision runs; this
revision makes a database already at the previous head run that again, and has the projector rebuild
every read model from event 1 (the timelines of games already recorded are filled in that way).

Revision ID: 0004_reads
Revises: 0003
"""

from alembic import op

revision = "0004_reads"
down_revision = "0003"
branch_labels = None
depends_on = None

READ_MODELS = [
    "rm_audit",
    "rm_feed",
    "rm_phases",
    "rm_windows",
    "rm_reminders",
    # rm_boards too, once: 0005 drops it, and a database migrated from empty has never had it.
    "rm_games",
    "rm_outbox",
    "rm_timeline",
    "rm_viewers",
]


def upgrade() -> None:
    # Rebuilt from the events, exactly as `emissary projections rebuild` does, at the next catch-up.
    for table in READ_MODELS:
        op.execute(f"DELETE FROM {table}")
    op.execute("DELETE FROM rm_tracking WHERE name = 'emissary-read-models'")


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS rm_viewers")
    op.execute("DROP TABLE IF EXISTS rm_timeline")
