"""Posts (issue 16): each viewer's last-read post per thread, ``post_reads``; the ledger's ``reply_to``.

What a viewer has read happened outside the event store (reading records no event), so it is never
rebuilt: it is kept here, beside the web sessions. The posts, threads and search index themselves are read
models (``rm_threads``, ``rm_posts``, ``rm_post_search`` in ``projections/db.py``), created with the others
and rebuilt from the events. A post's notification goes out with a ``Reply-To``: the reader's own reply address
for that thread, kept in the mail ledger's new ``reply_to`` column. This revision has the projector rebuild
every read model from event 1, so a database already at the previous head fills them for the games it holds.

Revision ID: 0007_posts
Revises: 0006_people
"""

import sqlalchemy as sa
from alembic import op

revision = "0007_posts"
down_revision = "0006_people"
branch_labels = None
depends_on = None

DDL = [
    """CREATE TABLE IF NOT EXISTS post_reads (
        game_id TEXT NOT NULL, viewer TEXT NOT NULL, thread_id TEXT NOT NULL, seq INTEGER NOT NULL,
        PRIMARY KEY (game_id, viewer, thread_id))""",
]
READ_MODELS = ["rm_audit", "rm_feed", "rm_phases", "rm_windows", "rm_reminders", "rm_games", "rm_outbox"]
READ_MODELS += ["rm_timeline", "rm_viewers", "rm_seat_contacts", "rm_threads", "rm_posts", "rm_post_search"]


def upgrade() -> None:
    for ddl in DDL:
        op.execute(ddl)
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("mail_ledger")}
    if "reply_to" not in columns:
        op.add_column("mail_ledger", sa.Column("reply_to", sa.Text()))
    bind = op.get_bind()
    for table in READ_MODELS:
        if table == "rm_post_search" and bind.dialect.name != "sqlite":
            continue
        op.execute(f"DELETE FROM {table}")
    op.execute("DELETE FROM rm_tracking WHERE name = 'emissary-read-models'")


def downgrade() -> None:
    op.execute("ALTER TABLE mail_ledger DROP COLUMN reply_to")
    op.execute("DROP TABLE IF EXISTS post_reads")
