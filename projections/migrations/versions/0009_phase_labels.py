"""The platform speaks seats (issue 26): a phase is labelled by its ruleset, not by Powers' calendar.

The phase index (``rm_phases``) and the games (``rm_games``) kept a season and a month in columns of their own,
Powers' words, 0 for a game of any other ruleset. Each now keeps the labels its ruleset gives a phase
(``Ruleset.phase_labels``: what ``phase_of`` answers beside a phase's name and step) as a JSON object, ``labels``.
This revision carries the rows there are over, with the labels they had (so every phase list reads as it did),
and drops the old columns; a rebuild (``emissary projections rebuild``) fills them as each game's ruleset says.

Revision ID: 0009_phase_labels
Revises: 0008_seats
"""

import sqlalchemy as sa
from alembic import op

revision = "0009_phase_labels"
down_revision = "0008_seats"
branch_labels = None
depends_on = None

TABLES = ("rm_phases", "rm_games")


def _columns(table: str) -> set[str]:
    return {c["name"] for c in sa.inspect(op.get_bind()).get_columns(table)}


def _upcast_rows(table: str) -> None:
    """A table of the old shape: its two calendar columns become the labels the rows show, and are dropped."""
    if not {"season", "month"} <= _columns(table):
        return  # created in the new shape (an empty database), or carried over already
    # Text built the same way on both databases, as the projector writes it (compact, in the ruleset's order).
    op.execute(f"""UPDATE {table} SET labels = '{{"season":' || season || ',"month":' || month || '}}'""")
    op.execute(f"ALTER TABLE {table} DROP COLUMN season")
    op.execute(f"ALTER TABLE {table} DROP COLUMN month")


def upgrade() -> None:
    for table in TABLES:
        if "labels" not in _columns(table):
            op.execute(f"ALTER TABLE {table} ADD COLUMN labels TEXT NOT NULL DEFAULT '{{}}'")
        _upcast_rows(table)


# The old columns from the labels of their names where those are whole numbers (0 else), on each database.
RESTORED = {
    "sqlite": (
        "UPDATE {table} SET "
        "season = COALESCE(CASE WHEN json_type(labels, '$.season') = 'integer' "
        "THEN json_extract(labels, '$.season') END, 0), "
        "month = COALESCE(CASE WHEN json_type(labels, '$.month') = 'integer' "
        "THEN json_extract(labels, '$.month') END, 0)"
    ),
    "postgresql": (
        "UPDATE {table} SET "
        "season = COALESCE(CASE WHEN json_typeof(labels::json -> 'season') = 'number' "
        "THEN (labels::json ->> 'season')::numeric::integer END, 0), "
        "month = COALESCE(CASE WHEN json_typeof(labels::json -> 'month') = 'number' "
        "THEN (labels::json ->> 'month')::numeric::integer END, 0)"
    ),
}


def downgrade() -> None:
    restore = RESTORED[op.get_bind().dialect.name]
    for table in TABLES:
        if "labels" not in _columns(table):
            continue
        op.execute(f"ALTER TABLE {table} ADD COLUMN season INTEGER NOT NULL DEFAULT 0")
        op.execute(f"ALTER TABLE {table} ADD COLUMN month INTEGER NOT NULL DEFAULT 0")
        op.execute(restore.format(table=table))
        op.execute(f"ALTER TABLE {table} DROP COLUMN labels")
