"""The platform speaks seats (issue 26): its events name a seat ``seat`` and a seed's phase by its ruleset's label.

Events stored before are upcast as they are read (``domain.platform.game``), but the read models keep each event's
data as it was projected. This revision has the projector rebuild every read model from event 1, so a database
already at the previous head shows every event in its current shape.

Revision ID: 0008_seats
Revises: 0007_posts
"""

from alembic import op

revision = "0008_seats"
down_revision = "0007_posts"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # Every read model there is (``projections.db.TABLES``), emptied with the position, so none is refilled on top
    # of its old rows.
    from sqlalchemy import inspect

    from projections.db import TABLES

    existing = set(inspect(op.get_bind()).get_table_names())
    for table in TABLES:
        if table != "rm_tracking" and table in existing:
            op.execute(f"DELETE FROM {table}")
    op.execute("DELETE FROM rm_tracking WHERE name = 'emissary-read-models'")


def downgrade() -> None:
    pass  # the read models are rebuilt from the events either way
