"""Claims on due windows, so that concurrent sweeps (or a sweep repeated after a crash) hand each due
window to a close task, and hand it again only if the claim expired without the window closing.

On PostgreSQL the claim rows are taken with ``FOR UPDATE SKIP LOCKED``; on SQLite the sweep's
``BEGIN IMMEDIATE`` transaction serializes sweeps. Claims live in their own table, which the
projector never rebuilds (the migrations', ``projections/migrations``).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from projections.db import ReadModelDB
from projections.db import utc_key as key  # deadlines as text that sorts, as rm_windows keeps them


def claim_due(db: ReadModelDB, now: datetime, claim_seconds: float, limit: int = 500) -> list[tuple[str, str]]:
    """Claim open windows whose deadline has passed and that nobody holds a live claim on."""
    now_key = key(now)
    until = key(now + timedelta(seconds=claim_seconds))
    skip_locked = " FOR UPDATE SKIP LOCKED" if db.dialect == "postgres" else ""
    with db.transaction() as cur:
        cur.execute(
            "INSERT INTO wk_claims (game_id, window_id, closes_at) "
            "SELECT game_id, window_id, closes_at FROM rm_windows WHERE closed = 0 AND closes_at <= ? "
            "ON CONFLICT (game_id, window_id) DO UPDATE SET closes_at = excluded.closes_at",
            (now_key,),
        )
        rows = cur.execute(
            "SELECT c.game_id, c.window_id FROM wk_claims c JOIN rm_windows w "
            "ON w.game_id = c.game_id AND w.window_id = c.window_id "
            "WHERE w.closed = 0 AND w.closes_at <= ? AND (c.claimed_until IS NULL OR c.claimed_until < ?) "
            f"ORDER BY c.closes_at LIMIT ?{' FOR UPDATE OF c SKIP LOCKED' if skip_locked else ''}",
            (now_key, now_key, limit),
        ).fetchall()
        cur.executemany(
            "UPDATE wk_claims SET claimed_until = ?, claims = claims + 1 WHERE game_id = ? AND window_id = ?",
            [(until, g, w) for g, w in rows],
        )
    return [(g, w) for g, w in rows]


def soon_due(db: ReadModelDB, now: datetime, lookahead_seconds: float, limit: int = 500) -> list[tuple]:
    """Open windows due within the lookahead that have no ETA task for their current deadline yet."""
    horizon = key(now + timedelta(seconds=lookahead_seconds))
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT w.game_id, w.window_id, w.closes_at FROM rm_windows w LEFT JOIN wk_claims c "
            "ON c.game_id = w.game_id AND c.window_id = w.window_id "
            "WHERE w.closed = 0 AND w.closes_at > ? AND w.closes_at <= ? "
            "AND (c.eta_for IS NULL OR c.eta_for <> w.closes_at) ORDER BY w.closes_at LIMIT ?",
            (key(now), horizon, limit),
        ).fetchall()
        cur.executemany(
            "INSERT INTO wk_claims (game_id, window_id, closes_at, eta_for) VALUES (?,?,?,?) "
            "ON CONFLICT (game_id, window_id) DO UPDATE SET eta_for = excluded.eta_for, "
            "closes_at = excluded.closes_at",
            [(g, w, c, c) for g, w, c in rows],
        )
    return [(g, w, c) for g, w, c in rows]


def reminders_due(db: ReadModelDB, now: datetime, limit: int = 500) -> list[tuple[str, str]]:
    """Open windows entering one of their game's reminder periods (each window, deadline and offset once)."""
    with db.transaction() as cur:
        rows = cur.execute(
            "SELECT r.game_id, r.window_id, r.closes_at, r.hours_before FROM rm_reminders r JOIN rm_windows w "
            "ON w.game_id = r.game_id AND w.window_id = r.window_id WHERE w.closed = 0 AND r.remind_at <= ? "
            "AND r.closes_at > ? AND NOT EXISTS (SELECT 1 FROM wk_reminders k WHERE k.game_id = r.game_id "
            "AND k.window_id = r.window_id AND k.closes_at = r.closes_at AND k.hours_before = r.hours_before) "
            "ORDER BY r.remind_at LIMIT ?",
            (key(now), key(now), limit),
        ).fetchall()
        cur.executemany(
            "INSERT INTO wk_reminders (game_id, window_id, closes_at, hours_before) VALUES (?,?,?,?) "
            "ON CONFLICT DO NOTHING",
            [(g, w, c, h) for g, w, c, h in rows],
        )
    return sorted({(g, w) for g, w, _, _ in rows})
