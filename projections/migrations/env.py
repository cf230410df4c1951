"""Alembic's entry point: migrations always run on the connection ``projections.migrations.upgrade``
hands over, inside its transaction (so there is no offline mode and no alembic.ini)."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, transactional_ddl=True)
with context.begin_transaction():
    context.run_migrations()
