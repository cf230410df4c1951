"""A person, not a link (issue 17): one-time sign-in links mailed to an address, and the seats whose contact
is that address, in every game.

A seat's contact (``ContactSet``, seen by that seat alone) is an address its holder gave; a person who proves
they read mail at that address (by following a link mailed there) sees those seats and may open their boards.
The read model ``rm_seat_contacts`` says which seats have which address, as each game stands after the
projector's last batch (a rollback that restores an older contact restores its row); whoever opens a seat
checks it again against the game itself, so a read model that lags never lets anyone in.

Decisions: addresses are compared case-insensitively (``Ann@Example.org`` is ``ann@example.org``), as nearly
every mail provider delivers them. A link's token is kept only as a hash, works once, and expires
(``signin_link_minutes``); an address gets at most ``signin_links_per_address`` links per
``signin_window_minutes``, counted whatever became of them.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable
from datetime import datetime, timedelta, timezone
from typing import Any

from projections.db import Cursor, ReadModelDB, utc_key


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


def address_key(email: str) -> str:
    """How an address is compared: trimmed and case-folded."""
    return email.strip().casefold()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def flush_seats(cur: Cursor, game_id: str, seats: dict[str, Any], set_after: int = 0) -> None:
    """The projector's part: this game's seats with a contact address, as the game now stands. ``set_after``:
    a fork's mark (issue 24): a fork is its keeper's sandbox (whoever forked it), so another seat is listed only
    by an address given in the fork itself (a ``ContactSet`` after the mark, not undone), never by one copied
    from the source game."""
    cur.execute("DELETE FROM rm_seat_contacts WHERE game_id = ?", (game_id,))
    mine: set[str] = set()
    given: set[tuple[str, str]] | None = None
    if set_after:
        rows = cur.execute(
            "SELECT data FROM rm_audit WHERE game_id = ? AND type = 'ContactSet' AND version > ? "
            "AND superseded_by IS NULL",
            (game_id, set_after),
        ).fetchall()
        given = {
            (d.get("seat"), address_key(d["email"])) for d in map(json.loads, (r[0] for r in rows)) if d.get("email")
        }
        keeper = cur.execute(
            "SELECT actor FROM rm_audit WHERE game_id = ? AND version = ? AND type = 'GameForked'", (game_id, set_after)
        ).fetchone()
        mine = {keeper[0]} if keeper else set()
    cur.executemany(
        "INSERT INTO rm_seat_contacts (email, game_id, seat) VALUES (?,?,?) ON CONFLICT DO NOTHING",
        [
            (address_key(seat.email), game_id, seat_id)
            for seat_id, seat in sorted(seats.items())
            if getattr(seat, "email", None)
            and (given is None or seat_id in mine or (seat_id, address_key(seat.email)) in given)
        ],
    )


def seats_of(db: ReadModelDB, email: str) -> list[tuple[str, str]]:
    """(game id, seat id) of every seat whose contact is this address, by the read model."""
    rows = db.query(
        "SELECT game_id, seat FROM rm_seat_contacts WHERE email = ? ORDER BY game_id, seat", (address_key(email),)
    )
    return [(g, s) for g, s in rows]


class SignInLinks:
    """One-time sign-in links: issued to an address (rate-limited), used once, before they expire."""

    def __init__(
        self,
        db: ReadModelDB,
        ttl: timedelta,
        per_address: int,
        window: timedelta,
        clock: Callable[[], datetime] = _utcnow,
    ) -> None:
        self.db = db
        self.ttl = ttl
        self.per_address = per_address
        self.window = window
        self.clock = clock

    def issue(self, email: str) -> str | None:
        """A new link's token for this address, or None if the address had its share of links lately."""
        now = self.clock()
        key = address_key(email)
        token = secrets.token_urlsafe(32)
        with self.db.transaction() as cur:
            # Links long expired are forgotten; those still counted by the window are kept.
            cur.execute(
                "DELETE FROM signin_links WHERE expires_at <= ? AND created_at <= ?",
                (utc_key(now), utc_key(now - self.window)),
            )
            (recent,) = cur.execute(
                "SELECT COUNT(*) FROM signin_links WHERE email = ? AND created_at > ?",
                (key, utc_key(now - self.window)),
            ).fetchone() or (0,)
            if recent >= self.per_address:
                return None
            cur.execute(
                "INSERT INTO signin_links (token_hash, email, created_at, expires_at, used_at) VALUES (?,?,?,?,NULL)",
                (token_hash(token), key, utc_key(now), utc_key(now + self.ttl)),
            )
        return token

    def is_live(self, token: str) -> bool:
        """Whether this token would sign someone in now (unused, not expired)."""
        rows = self.db.query(
            "SELECT 1 FROM signin_links WHERE token_hash = ? AND used_at IS NULL AND expires_at > ?",
            (token_hash(token), utc_key(self.clock())),
        )
        return bool(rows)

    def use(self, token: str) -> str | None:
        """The address this token was mailed to, marking it used; None if unknown, used or expired."""
        now = utc_key(self.clock())
        with self.db.transaction() as cur:
            found = cur.execute(
                "UPDATE signin_links SET used_at = ? WHERE token_hash = ? AND used_at IS NULL AND expires_at > ? "
                "RETURNING email",
                (now, token_hash(token), now),
            ).fetchone()
        return found[0] if found else None
