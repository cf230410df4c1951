"""Signing in as a person (issue 17): one-time sign-in links mailed to an address, and the sessions signed in
by one; and the read model of which seat's contact is which address, filled by rebuilding.

``signin_links`` keeps only the hash of each link's token, its address, when it was asked for, when it expires
and when it was used (once). ``web_session_people`` says which session is signed in as which address. Both
record what happened outside the event store: they are never rebuilt. ``rm_seat_contacts`` is a read model
(``projections.db``), created before any revision runs; this revision clears every read model and the
projector's position, as ``emissary projections rebuild`` does, so that a database with games already
recorded has it filled at the next catch-up.

Revision ID: 0006_people
Revises: 0005_boards
"""

from alembic import op

revision = "0006_people"
down_revision = "0005_boards"
branch_labels = None
depends_on = None

DDL = [
    """CREATE TABLE IF NOT EXISTS signin_links (
        token_hash TEXT PRIMARY KEY, email TEXT NOT NULL, created_at TEXT NOT NULL, expires_at TEXT NOT NULL,
        used_at TEXT)""",
    "CREATE INDEX IF NOT EXISTS signin_links_by_email ON signin_links (email, created_at)",
    """CREATE TABLE IF NOT EXISTS web_session_people (
        sid_hash TEXT PRIMARY KEY, email TEXT NOT NULL, timezone TEXT, signed_in_at TEXT NOT NULL)""",
    "CREATE INDEX IF NOT EXISTS web_session_people_by_email ON web_session_people (email)",
]


def upgrade() -> None:
    for ddl in DDL:
        op.execute(ddl)
    # Every read model there is (``projections.db.TABLES``: a revision on another branch may add its own),
    # emptied with the position, so none is refilled on top of its old rows.
    from sqlalchemy import inspect

    from projections.db import TABLES

    existing = set(inspect(op.get_bind()).get_table_names())
    for table in TABLES:
        if table != "rm_tracking" and table in existing:
            op.execute(f"DELETE FROM {table}")
    op.execute("DELETE FROM rm_tracking WHERE name = 'emissary-read-models'")


def downgrade() -> None:
    op.execute("DROP TABLE IF EXISTS web_session_people")
    op.execute("DROP TABLE IF EXISTS signin_links")
