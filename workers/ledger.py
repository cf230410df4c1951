"""What the mail ledger and the webhook ledger share (issues 6, 31): a row is claimed with a lease before it is sent,
so a row handed to several workers is sent once; a row handed to the broker is left to its task for a grace
period; a failed try waits with backoff; the sweep hands out the rows that are due (never handed out, retrying, or
whose worker died)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from projections.db import ReadModelDB, utc_key

MAX_ATTEMPTS = 9
LEASE = timedelta(minutes=10)  # a claimed row whose worker died is handed out again after this
GRACE = timedelta(seconds=60)  # a row handed to the broker is handed out again only if still queued after this


def backoff(attempts: int) -> timedelta:
    """How long a failed try waits before the next: 10 s, 20 s, 40 s ... at most 10 minutes."""
    return timedelta(seconds=min(600, 5 * 2**attempts))


@dataclass(frozen=True)
class Ledger:
    """One ledger table's claims and hand-outs; ``claimable`` are the statuses a worker may take a row from."""

    table: str
    claimable: Sequence[str] = ("queued",)

    def claim(self, db: ReadModelDB, row_id: str, now: datetime) -> bool:
        """Take a row for sending if nobody holds it (claimable, or claimed by a worker whose lease ran out)."""
        marks = ", ".join("?" for _ in self.claimable)
        with db.transaction() as cur:
            found = cur.execute(
                f"UPDATE {self.table} SET status = 'sending', due_at = ? WHERE id = ? AND (status IN ({marks}) "
                "OR (status = 'sending' AND (due_at IS NULL OR due_at <= ?))) RETURNING id",
                (utc_key(now + LEASE), row_id, *self.claimable, utc_key(now)),
            ).fetchone()
        return found is not None

    def handed(self, db: ReadModelDB, row_ids: list[str], now: datetime) -> None:
        """Rows handed to the broker: the sweep leaves them to their task for a while."""
        with db.transaction() as cur:
            cur.executemany(
                f"UPDATE {self.table} SET due_at = ? WHERE id = ? AND status = 'queued'",
                [(utc_key(now + GRACE), row_id) for row_id in row_ids],
            )

    def due(self, db: ReadModelDB, now: datetime, limit: int = 200) -> list[str]:
        """Rows due now: never handed to a worker (the broker was down), retrying after a failure, or claimed by a
        worker that died."""
        rows = db.query(
            f"SELECT id FROM {self.table} WHERE status IN ('queued', 'sending') AND (due_at IS NULL OR due_at <= ?) "
            "ORDER BY due_at LIMIT ?",
            (utc_key(now), limit),
        )
        return [r[0] for r in rows]
