"""Read models rebuilt from the event store: per-viewer boards and feeds, the GM audit log, the
phase index, and the open windows with their deadlines.

One code path on SQLite and PostgreSQL: a poller over the application's notification log. Each
batch of events is applied and the tracking position written in the same transaction, so a
projector that stops resumes exactly where it was, and two projectors never apply an event twice.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
import uuid
from datetime import datetime
from typing import Any

from domain import visibility as vis
from domain.ids import GM
from domain.powers.game import Game
from domain.powers.views import board_view
from projections.db import Cursor, ReadModelDB
from projections.service import Games, event_data, phase_id

log = logging.getLogger("emissary.projector")
NAME = "emissary-read-models"


def to_json(data: Any) -> str:
    """Canonical JSON for read-model rows (sorted keys; dataclasses, datetimes and UUIDs as plain values)."""
    def default(o: Any) -> Any:
        if dataclasses.is_dataclass(o):
            return dataclasses.asdict(o)
        if isinstance(o, (datetime, uuid.UUID)):
            return str(o)
        raise TypeError(f"cannot encode {type(o)}")

    return json.dumps(data, sort_keys=True, separators=(",", ":"), default=default)


class Projector:
    """Keeps the read models up to date with the event store."""

    def __init__(self, games: Games, db: ReadModelDB, batch_size: int = 500) -> None:
        self.games = games
        self.db = db
        self.batch_size = batch_size
        self._folded: dict[uuid.UUID, Game] = {}
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ running

    def position(self) -> int:
        rows = self.db.query("SELECT position FROM rm_tracking WHERE name = ?", (NAME,))
        return rows[0][0] if rows else 0

    def lag(self) -> int:
        """How many notifications the read models are behind the event store."""
        return max(0, (self.games.recorder.max_notification_id() or 0) - self.position())

    def catch_up(self, max_batches: int | None = None) -> int:
        """Apply every event not yet applied; returns how many were applied."""
        applied = batches = 0
        with self._lock:
            while max_batches is None or batches < max_batches:
                try:
                    n = self._one_batch()
                except BaseException:
                    self._folded.clear()  # the transaction rolled back: forget what we folded
                    raise
                if not n:
                    break
                applied += n
                batches += 1
        return applied

    def rebuild(self) -> int:
        """Drop every read model and rebuild it from event 1."""
        with self._lock:
            self._folded.clear()
            self.db.drop_tables()
            self.db.create_tables()
        return self.catch_up()

    def _one_batch(self) -> int:
        with self.db.transaction(lock_name=NAME) as cur:
            position = cur.execute("SELECT position FROM rm_tracking WHERE name = ?", (NAME,)).fetchone()
            position = position[0] if position else 0
            notifications = self.games.recorder.select_notifications(
                start=position, limit=self.batch_size, inclusive_of_start=False)
            if not notifications:
                return 0
            touched: dict[uuid.UUID, Game] = {}
            rows: dict[str, list[tuple]] = {"audit": [], "feed": [], "phases": []}
            for n in notifications:
                event = self.games.mapper.to_domain_event(n)
                game = self._fold(event)
                touched[game.id] = game
                self._rows(cur, n.id, event, game, rows)
            cur.executemany("INSERT INTO rm_audit (game_id, version, notification_id, type, actor, at, phase, "
                            "audience, shown_to, data, superseded_by) VALUES (?,?,?,?,?,?,?,?,?,?,NULL)", rows["audit"])
            cur.executemany("INSERT INTO rm_feed (game_id, token, version, type, actor, at, phase, data, "
                            "superseded_by) VALUES (?,?,?,?,?,?,?,?,NULL)", rows["feed"])
            cur.executemany("INSERT INTO rm_phases (game_id, version, phase, season, month, step) "
                            "VALUES (?,?,?,?,?,?)", rows["phases"])
            for game in touched.values():
                self._flush_game(cur, game)
            cur.execute("INSERT INTO rm_tracking (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE "
                        "SET position = excluded.position", (NAME, notifications[-1].id))
            return len(notifications)

    def _fold(self, event: Any) -> Game:
        game_id = event.originator_id
        game = self._folded.get(game_id)
        if event.originator_version == 1:
            game = event.mutate(None)
        else:
            if game is None or game.version != event.originator_version - 1:
                game = self.games.repository.get(game_id, version=event.originator_version - 1)
            game = event.mutate(game)
        self._folded[game_id] = game
        return game

    def _rows(self, cur: Cursor, notification_id: int, event: Any, game: Game, rows: dict[str, list]) -> None:
        s = game.state
        kind = type(event).__name__
        gid = str(game.id)
        version = event.originator_version
        at = event.timestamp.isoformat()
        phase = phase_id(s.season, s.month, s.step)
        sealed = vis.SEALED in event.audience
        data = to_json({"sealed": True} if sealed else event_data(event))
        shown = [] if sealed else [v for v in [GM, *sorted(s.powers)] if vis.can_see(event.audience, v)]
        rows["audit"].append((gid, version, notification_id, kind, event.actor, at, phase, to_json(event.audience),
                              to_json(shown), data))
        if not sealed:
            for token in sorted(set(event.audience)):
                rows["feed"].append((gid, token, version, kind, event.actor, at, phase, data))
        if kind == "StepBegan":
            rows["phases"].append((gid, version, phase, event.season, event.month, event.step))
        if kind == "GameRolledBack":
            # Rows of this batch are not written yet: write them first, so the marking sees them.
            self._write_pending(cur, rows)
            for table in ("rm_audit", "rm_feed"):
                cur.execute(f"UPDATE {table} SET superseded_by = ? WHERE game_id = ? AND version > ? AND version < ? "
                            "AND superseded_by IS NULL", (version, gid, event.to_version, version))

    def _write_pending(self, cur: Cursor, rows: dict[str, list]) -> None:
        cur.executemany("INSERT INTO rm_audit (game_id, version, notification_id, type, actor, at, phase, "
                        "audience, shown_to, data, superseded_by) VALUES (?,?,?,?,?,?,?,?,?,?,NULL)", rows["audit"])
        cur.executemany("INSERT INTO rm_feed (game_id, token, version, type, actor, at, phase, data, superseded_by) "
                        "VALUES (?,?,?,?,?,?,?,?,NULL)", rows["feed"])
        cur.executemany("INSERT INTO rm_phases (game_id, version, phase, season, month, step) VALUES (?,?,?,?,?,?)",
                        rows["phases"])
        for key in rows:
            rows[key].clear()

    def _flush_game(self, cur: Cursor, game: Game) -> None:
        s = game.state
        gid = str(game.id)
        cur.execute("DELETE FROM rm_windows WHERE game_id = ?", (gid,))
        cur.executemany(
            "INSERT INTO rm_windows (game_id, window_id, kind, opened_at, closes_at, closed, reason) "
            "VALUES (?,?,?,?,?,?,?)",
            [(gid, w.id, w.kind, w.opened_at, w.closes_at, int(w.closed), w.reason) for w in s.windows.values()])
        viewers = [GM, *sorted(s.powers)]
        cur.execute("DELETE FROM rm_boards WHERE game_id = ?", (gid,))
        cur.executemany("INSERT INTO rm_boards (game_id, viewer, version, body) VALUES (?,?,?,?)",
                        [(gid, v, game.version, to_json(board_view(game, v))) for v in viewers])
        cur.execute("INSERT INTO rm_games (game_id, name, timezone, season, month, step, version, forked_from) "
                    "VALUES (?,?,?,?,?,?,?,?) ON CONFLICT (game_id) DO UPDATE SET name = excluded.name, "
                    "timezone = excluded.timezone, season = excluded.season, month = excluded.month, "
                    "step = excluded.step, version = excluded.version, forked_from = excluded.forked_from",
                    (gid, s.name, s.timezone, s.season, s.month, s.step, game.version,
                     to_json(s.forked_from) if s.forked_from else None))

    # ------------------------------------------------------------------ queries

    def feed(self, game_id: str, viewer: str, after: int = 0, limit: int = 500) -> list[dict]:
        """The viewer's timeline: what they may see, numbered by their own gap-free sequence."""
        tokens = [vis.PUBLIC, vis.power(viewer)] if viewer != GM else None
        where = "game_id = ?" + ("" if tokens is None else " AND token IN (?, ?)")
        params: list[Any] = [game_id, *(tokens or [])]
        rows = self.db.query(
            f"SELECT seq, version, type, actor, at, phase, data, superseded_by FROM ("
            f"SELECT ROW_NUMBER() OVER (ORDER BY version) AS seq, version, type, actor, at, phase, data, "
            f"superseded_by FROM (SELECT DISTINCT version, type, actor, at, phase, data, superseded_by FROM rm_feed "
            f"WHERE {where}) AS mine) AS numbered WHERE seq > ? ORDER BY seq LIMIT ?",
            (*params, after, limit))
        out = []
        for seq, version, kind, actor, at, phase, data, superseded in rows:
            item = {"seq": seq, "type": kind, "actor": actor, "at": at, "phase": phase, "data": json.loads(data),
                    "superseded": superseded is not None}
            if viewer == GM:
                item["version"] = version
            out.append(item)
        return out

    def audit(self, game_id: str, *, power: str | None = None, phase: str | None = None,
              event_type: str | None = None, actor: str | None = None) -> list[dict]:
        """Every event of the game, for the GM: actor, time, phase, audience, who was shown it."""
        sql = ("SELECT version, type, actor, at, phase, audience, shown_to, data, superseded_by FROM rm_audit "
               "WHERE game_id = ?")
        params: list[Any] = [game_id]
        if phase:
            sql += " AND phase = ?"
            params.append(phase)
        if event_type:
            sql += " AND type = ?"
            params.append(event_type)
        if actor:
            sql += " AND actor = ?"
            params.append(actor)
        out = []
        for version, kind, act, at, ph, audience, shown, data, superseded in self.db.query(
                sql + " ORDER BY version", params):
            item = {"version": version, "type": kind, "actor": act, "at": at, "phase": ph,
                    "audience": json.loads(audience), "shown_to": json.loads(shown), "data": json.loads(data),
                    "superseded_by": superseded}
            if power and not (act == power or power in item["shown_to"] or _mentions(item["data"], power)):
                continue
            out.append(item)
        return out

    def phases(self, game_id: str) -> list[dict]:
        rows = self.db.query("SELECT version, phase, season, month, step FROM rm_phases WHERE game_id = ? "
                             "ORDER BY version", (game_id,))
        return [{"version": v, "phase": p, "season": se, "month": m, "step": st} for v, p, se, m, st in rows]

    def phase_start(self, game_id: str, phase: str) -> int | None:
        """The latest version at which ``phase`` began (an indexed lookup: constant time in the game's length)."""
        rows = self.db.query("SELECT MAX(version) FROM rm_phases WHERE game_id = ? AND phase = ?", (game_id, phase))
        return rows[0][0] if rows and rows[0][0] is not None else None

    def board(self, game_id: str, viewer: str) -> dict | None:
        rows = self.db.query("SELECT body FROM rm_boards WHERE game_id = ? AND viewer = ?", (game_id, viewer))
        return json.loads(rows[0][0]) if rows else None

    def due_windows(self, now: datetime, limit: int = 500) -> list[dict]:
        """Open windows whose deadline has passed (for the workers' sweep)."""
        rows = self.db.query("SELECT game_id, window_id, kind, closes_at FROM rm_windows WHERE closed = 0 "
                             "ORDER BY closes_at LIMIT ?", (limit * 4,))
        due = [r for r in rows if datetime.fromisoformat(r[3]) <= now][:limit]
        return [{"game_id": g, "window_id": w, "kind": k, "closes_at": c} for g, w, k, c in due]

    def dump(self) -> dict[str, list[tuple]]:
        """Every row of every read model, sorted (for rebuild equivalence checks)."""
        keys = {"rm_audit": "game_id, version", "rm_feed": "game_id, token, version", "rm_phases": "game_id, version",
                "rm_windows": "game_id, window_id", "rm_boards": "game_id, viewer", "rm_games": "game_id"}
        return {t: self.db.query(f"SELECT * FROM {t} ORDER BY {k}") for t, k in keys.items()}


def _mentions(data: dict, power: str) -> bool:
    return any(data.get(k) == power for k in ("power_id", "power", "to", "from_power", "about"))
