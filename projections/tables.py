"""The event store's table names, as the eventsourcing library names them for our application: one place for the
health checks and the backup, which read the tables directly. Standard library only: ``emissary health`` imports
this without loading the store."""

from __future__ import annotations

EVENTS_TABLE = {"postgres": "emissary_events", "sqlite": "stored_events"}
