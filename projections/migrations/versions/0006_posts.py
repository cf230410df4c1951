"""Posts (issue 16): each viewer's last-read post per thread, ``post_reads``.

What a viewer has read happened outside the event store (reading records no event), so it is never
rebuilt: it is kept here, beside the web sessions. The posts, threads and search index themselves are read
models (``rm_threads``, ``rm_posts``, ``rm_post_search`` in ``projections/db.py``), created with the others
and rebuilt from the events; this revision has the projector rebuild every read model from event 1, so a
database already at the previous head fills them for the games it holds.

Revision ID: 0006_posts
Revises: 0005_boards
"""

from alembic import op

revision = "0006_posts"
down_revision = "0005_boards"
branch_labels = None
depends_on = None

DDL = [
    """CREATE TABLE IF NOT EXISTS post_reads (
        game_id TEXT NOT NULL, viewer TEXT NOT NULL, thread_id TEXT NOT NULL, seq INTEGER NOT NULL,
        PRIMARY KEY (game_id, viewer, thread_id))""",
]
READ_MODELS = ["rm_audit", "rm_feed", "rm_phases", "rm_windows", "rm_reminders", "rm_games", "rm_outbox"]
READ_MODELS += ["rm_timeline", "rm_viewers", "rm_threads", "rm_posts", "rm_post_search"]


def upgrade() -> None:
    for ddl in DDL:
        op.execute(ddl)
    bind = op.get_bind()
    for table in READ_MODELS:
        if table == "rm_post_search" and bind.dialect.name != "sqlite":
            continue
        op.execute(f"DELETE FROM {table}")
    op.execute("DELETE FROM rm_tracking WHERE name = 'emissary-read-models'")


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS post_reads")
