"""The read models' tracking recorder: the library's ``TrackingRecorder`` over the ``rm_tracking`` table.

The position of the read models in the event store's notification log is a ``Tracking`` (application
name, notification id) kept in the read models' own database, so that it is written in the same
transaction as the rows it accounts for (``record``): a projector that stops resumes exactly where it
was, and an event is never applied twice (recording a position at or before the one stored is refused
with the library's ``IntegrityError``, and the whole batch rolls back).

The read models follow one application, the game service; the row is kept under the projection's name
(``emissary-read-models``), as it was before this class, so that stored positions stay valid.
"""

from __future__ import annotations

from eventsourcing.persistence import IntegrityError, Tracking, TrackingRecorder

from projections.db import TRACKING, Cursor, ReadModelDB

NAME = TRACKING


class ReadModelTracking(TrackingRecorder):
    """Where the read models stand in ``application_name``'s notification log (``wait`` and
    ``has_tracking_id`` come with the library's interface)."""

    def __init__(self, db: ReadModelDB, application_name: str, name: str = NAME) -> None:
        self.db = db
        self.application_name = application_name
        self.name = name

    def insert_tracking(self, tracking: Tracking) -> None:
        """Record a position in a transaction of its own (the projector records it with its rows: ``record``)."""
        with self.db.transaction(lock_name=self.name) as cur:
            self.record(cur, tracking)

    def position(self, cur: Cursor) -> int:
        """The notification id last applied, read in the caller's transaction (0 before the first)."""
        row = cur.execute("SELECT position FROM rm_tracking WHERE name = ?", (self.name,)).fetchone()
        return row[0] if row else 0

    def record(self, cur: Cursor, tracking: Tracking, stored: int | None = None) -> None:
        """Record ``tracking`` in the caller's transaction, the one that writes the rows it accounts for
        (``stored``: the position the caller read in this transaction, under the projection's lock)."""
        if tracking.application_name != self.application_name:
            raise ValueError(f"these read models follow {self.application_name!r}, not {tracking.application_name!r}")
        stored = self.position(cur) if stored is None else stored
        if tracking.notification_id <= stored:
            raise IntegrityError(
                f"notification {tracking.notification_id} of {tracking.application_name!r} is already applied "
                f"(the read models stand at {stored})"
            )
        cur.execute(
            "INSERT INTO rm_tracking (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE "
            "SET position = excluded.position",
            (self.name, tracking.notification_id),
        )

    def max_tracking_id(self, application_name: str) -> int | None:
        """The notification id last applied, or None before the first (or for another application)."""
        if application_name != self.application_name:
            return None
        rows = self.db.query("SELECT position FROM rm_tracking WHERE name = ?", (self.name,))
        return rows[0][0] if rows and rows[0][0] else None
