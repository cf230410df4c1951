"""Browser sessions, kept server-side in the read-model database (SQLite or PostgreSQL).

The browser holds only a random session id (in an HttpOnly cookie). The store keys a session by a
keyed hash of that id and keeps, per game, the principal it is signed in as and the *hash* of the
token it presented: a bearer token never reaches the cookie, and a replaced token ends every session
that used it (the hash no longer matches the game's credential). A session may also be signed in as a
*person* (issue 17, ``projections.people``): the address a one-time link was mailed to and followed from,
kept in ``web_session_people``. The tables are the migrations' (``projections/migrations``), there once
the read-model database is open.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from projections.db import ReadModelDB, utc_key

ANONYMOUS_TTL = timedelta(hours=1)


def _utcnow() -> datetime:
    return datetime.now(timezone.utc)


@dataclass
class Grant:
    """This session is signed in to a game as ``principal`` with the token whose hash is ``token_hash``."""

    principal: str
    token_hash: str


@dataclass
class SessionRow:
    sid_hash: str
    csrf: str
    data: dict[str, Any]
    expires_at: str
    grants: dict[str, Grant] = field(default_factory=dict)
    person: Person | None = None


@dataclass
class Person:
    """This session is signed in as the holder of ``email`` (a sign-in link mailed there was followed), who
    sees times in ``timezone`` if they chose one."""

    email: str
    timezone: str | None = None


class SessionStore:
    """Create, read, rotate and end browser sessions."""

    def __init__(self, db: ReadModelDB, secret: str, ttl: timedelta, clock: Callable[[], datetime] = _utcnow) -> None:
        self.db = db
        self._secret = secret.encode()
        self.ttl = ttl
        self.clock = clock

    def sid_hash(self, sid: str) -> str:
        return hmac.new(self._secret, sid.encode(), hashlib.sha256).hexdigest()

    def create(self, data: dict[str, Any] | None = None) -> tuple[str, SessionRow]:
        """A new session: returns its id (for the cookie only) and its row. Expired sessions are purged."""
        sid = secrets.token_urlsafe(32)
        now = self.clock()
        # Until it signs in (``rotate``), a session lives an hour at most: anonymous visits cannot pile up.
        row = SessionRow(
            self.sid_hash(sid), secrets.token_urlsafe(32), dict(data or {}), utc_key(now + min(self.ttl, ANONYMOUS_TTL))
        )
        with self.db.transaction() as cur:
            self._purge(cur, now)
            cur.execute(
                "INSERT INTO web_sessions (sid_hash, csrf, data, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                (row.sid_hash, row.csrf, json.dumps(row.data), utc_key(now), row.expires_at),
            )
        return sid, row

    def load(self, sid: str | None) -> SessionRow | None:
        """The live session with this id, or None (unknown or expired)."""
        if not sid:
            return None
        h = self.sid_hash(sid)
        rows = self.db.query(
            "SELECT csrf, data, expires_at FROM web_sessions WHERE sid_hash = ? AND expires_at > ?",
            (h, utc_key(self.clock())),
        )
        if not rows:
            return None
        csrf, data, expires_at = rows[0]
        grants = {
            g: Grant(p, t)
            for g, p, t in self.db.query(
                "SELECT game_id, principal, token_hash FROM web_session_grants WHERE sid_hash = ?", (h,)
            )
        }
        people = self.db.query("SELECT email, timezone FROM web_session_people WHERE sid_hash = ?", (h,))
        person = Person(*people[0]) if people else None
        return SessionRow(h, csrf, json.loads(data), expires_at, grants, person)

    def save_data(self, sid_hash: str, data: dict[str, Any]) -> None:
        with self.db.transaction() as cur:
            cur.execute("UPDATE web_sessions SET data = ? WHERE sid_hash = ?", (json.dumps(data), sid_hash))

    def rotate(self, old_hash: str) -> tuple[str, str]:
        """Give a session a new id, a new CSRF token and its full lifetime (on sign-in); returns
        (new id, new CSRF token)."""
        sid, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        new_hash = self.sid_hash(sid)
        with self.db.transaction() as cur:
            cur.execute(
                "UPDATE web_sessions SET sid_hash = ?, csrf = ?, expires_at = ? WHERE sid_hash = ?",
                (new_hash, csrf, utc_key(self.clock() + self.ttl), old_hash),
            )
            cur.execute("UPDATE web_session_grants SET sid_hash = ? WHERE sid_hash = ?", (new_hash, old_hash))
            cur.execute("UPDATE web_session_people SET sid_hash = ? WHERE sid_hash = ?", (new_hash, old_hash))
        return sid, csrf

    def sign_in_person(self, sid_hash: str, email: str) -> None:
        """This session is now the person who reads mail at ``email`` (rotate the session first), with the
        time zone they chose on another device, if any."""
        with self.db.transaction() as cur:
            cur.execute("DELETE FROM web_session_people WHERE sid_hash = ?", (sid_hash,))
            chosen = cur.execute(
                "SELECT timezone FROM web_session_people WHERE email = ? AND timezone IS NOT NULL "
                "ORDER BY signed_in_at DESC LIMIT 1",
                (email,),
            ).fetchone()
            cur.execute(
                "INSERT INTO web_session_people (sid_hash, email, timezone, signed_in_at) VALUES (?, ?, ?, ?)",
                (sid_hash, email, chosen[0] if chosen else None, utc_key(self.clock())),
            )

    def set_person_timezone(self, sid_hash: str, zone: str | None) -> None:
        """The zone this person sees times in, on every device they are signed in on."""
        with self.db.transaction() as cur:
            cur.execute(
                "UPDATE web_session_people SET timezone = ? WHERE email = "
                "(SELECT email FROM web_session_people WHERE sid_hash = ?)",
                (zone, sid_hash),
            )

    def sign_out_person(self, sid_hash: str) -> None:
        """This session is no longer signed in as a person (its games signed in by link stay)."""
        with self.db.transaction() as cur:
            cur.execute("DELETE FROM web_session_people WHERE sid_hash = ?", (sid_hash,))

    def end_person(self, email: str) -> int:
        """Sign every session signed in as this person out of it; returns how many."""
        with self.db.transaction() as cur:
            n = len(cur.execute("SELECT sid_hash FROM web_session_people WHERE email = ?", (email,)).fetchall())
            cur.execute("DELETE FROM web_session_people WHERE email = ?", (email,))
        return n

    def grant(self, sid_hash: str, game_id: str, principal: str, token_hash: str) -> None:
        with self.db.transaction() as cur:
            cur.execute("DELETE FROM web_session_grants WHERE sid_hash = ? AND game_id = ?", (sid_hash, game_id))
            cur.execute(
                "INSERT INTO web_session_grants (sid_hash, game_id, principal, token_hash) VALUES (?, ?, ?, ?)",
                (sid_hash, game_id, principal, token_hash),
            )

    def revoke(self, sid_hash: str, game_id: str) -> None:
        """Sign this session out of one game."""
        with self.db.transaction() as cur:
            cur.execute("DELETE FROM web_session_grants WHERE sid_hash = ? AND game_id = ?", (sid_hash, game_id))

    def end_principal(self, game_id: str, principal: str) -> int:
        """Sign every session of this principal out of this game; returns how many were signed out."""
        with self.db.transaction() as cur:
            n = len(
                cur.execute(
                    "SELECT sid_hash FROM web_session_grants WHERE game_id = ? AND principal = ?", (game_id, principal)
                ).fetchall()
            )
            cur.execute("DELETE FROM web_session_grants WHERE game_id = ? AND principal = ?", (game_id, principal))
        return n

    def end(self, sid_hash: str) -> None:
        with self.db.transaction() as cur:
            cur.execute("DELETE FROM web_session_grants WHERE sid_hash = ?", (sid_hash,))
            cur.execute("DELETE FROM web_session_people WHERE sid_hash = ?", (sid_hash,))
            cur.execute("DELETE FROM web_sessions WHERE sid_hash = ?", (sid_hash,))

    def _purge(self, cur: Any, now: datetime) -> None:
        cur.execute(
            "DELETE FROM web_session_grants WHERE sid_hash IN "
            "(SELECT sid_hash FROM web_sessions WHERE expires_at <= ?)",
            (utc_key(now),),
        )
        cur.execute(
            "DELETE FROM web_session_people WHERE sid_hash IN "
            "(SELECT sid_hash FROM web_sessions WHERE expires_at <= ?)",
            (utc_key(now),),
        )
        cur.execute("DELETE FROM web_sessions WHERE expires_at <= ?", (utc_key(now),))
