"""The mail ledger became the outbox: ``due_at`` (when a row may be sent next) and its index.

Ledgers that the services altered by themselves before migrations existed already have the column.

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    columns = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("mail_ledger")}
    if "due_at" not in columns:
        op.add_column("mail_ledger", sa.Column("due_at", sa.Text()))
    op.execute("CREATE INDEX IF NOT EXISTS mail_ledger_due ON mail_ledger (status, due_at)")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS mail_ledger_due")
    op.drop_column("mail_ledger", "due_at")
