"""Read models rebuilt from the event store: per-viewer timelines and feeds, the GM audit log, the
phase index, and the open windows with their deadlines.

One code path on SQLite and PostgreSQL: batches read from the application's notification log after
the tracked position. Each batch of events is applied and its position recorded through the library's
tracking recorder (``projections.tracking``) in the same transaction, so a projector that stops resumes
exactly where it was, and two projectors never apply an event twice. Whatever is a ruleset's own comes
from the game's ruleset: the phases its events begin (``phase_of``), the seats they add (``seat_of``)
and the texts its viewers are sent (``notify``); the platform adds its reminders. The runner
(``workers/projection_runner.py``) says why the library's ``ProjectionRunner`` is not used.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import logging
import threading
import time
import uuid
from datetime import datetime, timedelta
from typing import Any, NamedTuple, cast

import orjson
from eventsourcing.persistence import Tracking
from eventsourcing.sqlite import SQLiteApplicationRecorder

from domain import visibility as vis
from domain.errors import DomainError
from domain.ids import GM
from domain.platform import i18n
from domain.platform.game import PlatformGame
from domain.platform.posts import requote, unsaid
from domain.platform.ruleset import Ruleset, registered
from projections import invitations, lobby, people, posts, stored
from projections.db import Cursor, ReadModelDB, utc_key
from projections.gamestore import GameStore, event_data
from projections.tracking import NAME, ReadModelTracking

log = logging.getLogger("emissary.projector")


def to_json(data: Any, *, sort_keys: bool = True) -> str:
    """Canonical JSON for read-model rows (sorted keys, unless the order is kept as given; dataclasses, datetimes
    and UUIDs as plain values)."""

    def default(o: Any) -> Any:
        if dataclasses.is_dataclass(o) and not isinstance(o, type):
            return dataclasses.asdict(o)
        if isinstance(o, (datetime, uuid.UUID)):
            return str(o)
        raise TypeError(f"cannot encode {type(o)}")

    return json.dumps(data, sort_keys=sort_keys, separators=(",", ":"), default=default)


def labels_of(began: dict) -> str:
    """What ``phase_of`` labels a phase with beside its name and step, as the phase index keeps it (in the order
    the ruleset gave them, the order its phase lists show them in)."""
    return to_json({k: v for k, v in began.items() if k not in ("phase", "step")}, sort_keys=False)


ENVELOPE = (
    "timestamp",
    "actor",
    "audience",
    "originator_topic",
    "originator_id",
    "originator_version",
    "class_version",
)


@dataclasses.dataclass
class Tracker:
    """What the projector follows per game between batches: the game's ruleset, its phase and who is at the
    table. The phase is the one the ruleset's ``phase_of`` last named (``setup`` until it names one)."""

    version: int
    phase: str
    seats: list
    ruleset: Ruleset | None  # None: the game's ruleset is not installed here (no phases, no notifications)
    # Every viewer's last timeline number (the GM, and every seat ever taken, even if a rollback removed it).
    seqs: dict = dataclasses.field(default_factory=lambda: {GM: 0})
    show_earlier: bool = False  # the game's show_earlier_text option (posts, issue 16): fixed when it is created
    # A fork (issue 24): the version of its ``GameForked`` mark; the events up to it are copies of the source's
    # history, which tell nobody anything new (0: not a fork).
    copies_until: int = 0
    # Per audience (as events carry it): who is shown such an event and whose timelines it goes on (``Plan``),
    # worked out once while the seats and the viewers stay as they are (issue 30: a lean per-event loop).
    plans: dict = dataclasses.field(default_factory=dict)

    def follow(self, event: Record, began: dict | None, seat: str | None) -> None:
        if began is not None:
            self.phase = began["phase"]
        if seat is not None and seat not in self.seats:
            self.seats = sorted({*self.seats, seat})
            self.plans.clear()
        self.version = event.originator_version

    def plan(self, audience: list) -> Plan:
        """Who is shown an event of this audience, and whose timelines it goes on (exactly what ``vis.can_see``
        lets each viewer see)."""
        key = tuple(audience)
        found = self.plans.get(key)
        if found is None:
            if vis.SEALED in audience:
                found = Plan((), "", SCOPE_SEALED, (), ())
            elif vis.PUBLIC in audience:
                found = Plan((GM, *self.seats), "", SCOPE_PUBLIC, (), tuple(self.seqs))
            else:
                shown = (GM, *(p for p in self.seats if vis.seat(p) in audience))
                # Public events are everyone's: only restricted ones need a row per audience token.
                viewers = tuple(v for v in self.seqs if v == GM or vis.seat(v) in audience)
                found = Plan(shown, "", SCOPE_RESTRICTED, tuple(sorted(set(audience))), viewers)
            found = self.plans[key] = dataclasses.replace(found, shown_text=",".join(found.shown))
        return found


@dataclasses.dataclass(frozen=True)
class Plan:
    """Who is shown an event of one audience (and as the audit row lists them), its scope, the audience tokens the
    feed keys it by, and the viewers whose timelines it goes on."""

    shown: tuple
    shown_text: str
    scope: int
    tokens: tuple
    viewers: tuple


def ruleset_named(name: str | None) -> Ruleset | None:
    """The registered ruleset of this name, or None (a game of a ruleset not installed here is still
    projected: its audit and timelines, without phases or notifications)."""
    return registered().get(name) if name else None


@dataclasses.dataclass(slots=True)
class Record:
    """One event as the projector reads it."""

    kind: str
    originator_id: uuid.UUID
    originator_version: int
    at: str
    actor: str
    audience: list
    data: dict
    raw: bytes | None  # the stored JSON, when it is what the audit would keep (``stored.Payloads.parsed``)
    event: Any  # the decoded event, or None until a ruleset hook needs it (``Projector._decoded``)
    notification: Any = None
    gid: str = ""  # the game's id as the read models key it
    key: int = 0  # the game's id as the projector keys its trackers (a UUID's int hashes cheaply)


class Projector:
    """Keeps the read models up to date with the event store.

    Per event it needs only the decoded event and a small tracker per game (phase, powers); the
    windows are rendered once per game per batch, from the game as it stood at the batch's last event
    (a snapshot and a few events away).
    """

    def __init__(self, games: GameStore, db: ReadModelDB, batch_size: int = 1000) -> None:
        self.games = games
        self.db = db
        self.posts = posts.Posts(db)  # threads, pages, unread counts and search (issue 16)
        self.batch_size = batch_size
        self._trackers: dict[int, Tracker] = {}  # by the game's UUID as an int
        self._gids: dict[int, str] = {}  # each game's id as text, by the same key
        # The library's tracking recorder, over the read models' own database: the position is written with the rows.
        self.tracking = ReadModelTracking(db, games.name, NAME)
        self._lock = threading.Lock()
        # The stored JSON of an event can be kept as it is, unless the store compresses or encrypts it.
        # The audit's payloads, read from the store (issue 30); its JSON is kept as it is, unless the store
        # compresses or encrypts it.
        self.stored = stored.Payloads(games)
        self._raw_json = self.stored.raw_json

    # ------------------------------------------------------------------ running

    def position(self) -> int:
        """The notification id the read models last applied (0 before the first)."""
        return self.tracking.max_tracking_id(self.games.name) or 0

    def wait_for(self, game_id: str, viewer: str, sequence: int, timeout: float, poll: float = 0.05) -> bool:
        """Wait until the viewer's timeline holds their ``sequence`` (a receipt's), at most ``timeout``
        seconds; whether it does. Waiting reads one row of ``rm_viewers``: it never projects."""
        deadline = time.monotonic() + timeout
        # An observer (issue 28) has no row of its own: its timeline is the public events, counted from the audit.
        ask = "SELECT seq FROM rm_viewers WHERE game_id = ? AND viewer = ?"
        params: tuple[str, ...] = (game_id, viewer)
        if vis.is_observer(viewer):
            ask, params = f"SELECT COUNT(*) FROM rm_audit WHERE game_id = ? AND scope = {SCOPE_PUBLIC}", (game_id,)
        while True:
            rows = self.db.query(ask, params)
            if (rows[0][0] if rows else 0) >= sequence:
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(poll)

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
                    self._trackers.clear()  # the transaction rolled back: forget what we followed
                    raise
                applied += n
                batches += 1
                if n < self.batch_size:  # the log's end: no need for another transaction to find nothing
                    break
        return applied

    def rebuild(self, batch_size: int = 5000) -> int:
        """Drop every read model and rebuild it from event 1 (in larger batches than catching up)."""
        with self._lock:
            self._trackers.clear()
            self.db.drop_tables()
            self.db.create_tables(deferred=False)
        usual, self.batch_size = self.batch_size, batch_size
        # Few of the objects a rebuild makes live past its batch, and none in cycles: the collector's youngest
        # generation is examined a hundredth as often while it runs (it took a tenth of a rebuild's time).
        thresholds = gc.get_threshold()
        gc.set_threshold(max(thresholds[0], 1) * 100, *thresholds[1:])
        try:
            return self.catch_up()
        finally:
            gc.set_threshold(*thresholds)
            self.batch_size = usual
            self.db.create_deferred()

    def _one_batch(self) -> int:
        with self.db.transaction(lock_name=NAME) as cur:
            position = self.tracking.position(cur)
            notifications = self._notifications(position)
            if not notifications:
                return 0
            touched: dict[int, tuple[uuid.UUID, int]] = {}
            self._gids = {}  # kept for the batch
            rows: dict[str, list[tuple]] = {"audit": [], "feed": [], "phases": [], "outbox": [], "timeline": []}
            # A fork's copies and its mark are written together (one transaction), so the mark is in this batch
            # unless the batch is full and its last game's events go on after it.
            marks = {_key(n.originator_id): n.originator_version for n in notifications if n.topic.endswith(FORKED)}
            full = len(notifications) >= self.batch_size
            last = _key(notifications[-1].originator_id) if full else None
            # The ruleset's texts are kept in English, whoever's request recorded the events: each mail is worded
            # anew as it is sent (one language set for the batch, not per event).
            record, follow, apply = self._record, self._follow, self._rows
            with i18n.use(i18n.ENGLISH):
                for n in notifications:
                    event = record(n)
                    if event.kind == "StateRestored":  # its phase is read from the rows written so far
                        self._write_pending(cur, rows)
                    tracker, began, seat = follow(cur, event, marks, last)
                    touched[event.key] = (event.originator_id, event.originator_version)
                    apply(cur, n.id, event, tracker, began, seat, rows)
            self._write_pending(cur, rows)
            for key, (game_id, version) in touched.items():
                self._flush_game(cur, self._game_at(game_id, version), self._trackers[key])
                cur.executemany(
                    "INSERT INTO rm_viewers (game_id, viewer, seq) VALUES (?,?,?) ON CONFLICT (game_id, "
                    "viewer) DO UPDATE SET seq = excluded.seq",
                    [(str(game_id), v, n) for v, n in sorted(self._trackers[key].seqs.items())],
                )
            # In this transaction: the rows and the position they bring the read models to commit together.
            self.tracking.record(cur, Tracking(self.games.name, notifications[-1].id), stored=position)
            return len(notifications)

    def _notifications(self, position: int) -> list[Any]:
        """The next batch of the notification log after ``position``. On SQLite read as the library's recorder reads
        it, as plain rows, each game's id made a UUID once (a new UUID and notification per event were a seventh of a
        rebuild's time); elsewhere through the recorder."""
        recorder = self.games.recorder
        if not isinstance(recorder, SQLiteApplicationRecorder):
            return list(recorder.select_notifications(start=position, limit=self.batch_size, inclusive_of_start=False))
        with recorder.datastore.transaction(commit=False) as c:
            c.execute(
                f"SELECT rowid, originator_id, originator_version, topic, state FROM {recorder.events_table_name} "
                "WHERE rowid > ? ORDER BY rowid LIMIT ?",
                (position, self.batch_size),
            )
            rows = c.fetchall()
        ids: dict[str, uuid.UUID] = {}
        out = []
        for r in rows:
            oid = ids.get(r[1])
            if oid is None:
                oid = ids[r[1]] = uuid.UUID(r[1])
            out.append(Stored(r[0], oid, r[2], r[3], r[4]))
        return out

    def _game_at(self, game_id: uuid.UUID, version: int) -> PlatformGame:
        """The game at ``version``: the aggregate this thread just saved, when the projector runs right after
        a command and it stands there, else from the store (a snapshot and a few events)."""
        return self.games.just_saved(game_id, version) or self.games.repository.get(game_id, version=version)

    def _record(self, n: Any) -> Any:
        """What the read models need of a notification. The stored JSON is read directly (it is what
        the rows keep); a StateRestored (sealed) is decoded in full."""
        kind = n.topic.rsplit(".", 1)[-1]
        key = _key(n.originator_id)
        gid = self._gids.get(key)
        if gid is None:
            gid = self._gids[key] = str(n.originator_id)
        d = orjson.loads(n.state) if self._raw_json and kind != "StateRestored" else None
        if d is None or d.get("class_version", 1) < self.stored.class_version(n.topic):  # an older shape: upcast it
            event = cast(PlatformGame.Event, self.games.mapper.to_domain_event(n))
            return Record(
                kind,
                n.originator_id,
                n.originator_version,
                event.timestamp.isoformat(),
                event.actor,
                list(event.audience),
                event_data(event),
                None,
                event,
                n,
                gid,
                key,
            )
        return Record(
            kind,
            n.originator_id,
            n.originator_version,
            d["timestamp"]["_data_"],
            d["actor"],
            d["audience"],
            d,
            n.state,
            None,
            n,
            gid,
            key,
        )

    def _invited_subject(self, event: Record) -> str:
        """The ledger's subject of an invitation's mail, in English (it is worded anew as it is sent)."""
        if event.kind != "InvitationSent":
            return ""
        game = self._game_at(event.originator_id, event.originator_version)
        seat = str(event.data["seat"])
        if not seat:
            return f"You are invited to observe {game.state.name}"
        return f"You are invited to play {getattr(game.seats.get(seat), 'name', '') or seat}"

    def _decoded(self, event: Record) -> Any:
        """The domain event itself, decoded once, for the ruleset's hooks (``phase_of``)."""
        if event.event is None:
            event.event = self.games.mapper.to_domain_event(event.notification)
        return event.event

    def _follow(
        self, cur: Cursor, event: Record, marks: dict | None = None, last: int | None = None
    ) -> tuple[Tracker, dict | None, str | None]:
        """The game's tracker after ``event``; the phase the event begins and the seat it adds, by the game's
        ruleset (or None). ``marks``: the fork marks of this batch, by game; ``last``: the game of a full batch's
        last event (whose fork mark, if any, may be in the next batch)."""
        game_id, key = event.originator_id, event.key
        version = event.originator_version
        tracker = self._trackers.get(key)
        marks = marks or {}
        if version == 1:
            name = event.data.get("ruleset") or getattr(self._decoded(event), "ruleset", None)  # upcast if older
            tracker = Tracker(0, "setup", [], ruleset_named(name))
            tracker.show_earlier = bool((event.data.get("options") or {}).get("show_earlier_text"))
            tracker.copies_until = marks.get(key) or (self._fork_mark(game_id) if key == last else 0)
        elif tracker is None or tracker.version != version - 1:
            before = self._game_at(game_id, version - 1)
            s = before.state
            tracker = Tracker(
                version - 1, self._phase_at(cur, game_id, version - 1), sorted(before.seats), ruleset_named(s.ruleset)
            )
            tracker.seqs.update(
                cur.execute("SELECT viewer, seq FROM rm_viewers WHERE game_id = ?", (str(game_id),)).fetchall()
            )
            tracker.show_earlier = bool((getattr(s, "options", None) or {}).get("show_earlier_text"))
            # The mark is in this batch, or after it if this game's events run to the batch's end (a fork is
            # written in one transaction), or the state already holds it.
            forked = getattr(s, "forked_from", None)
            tracker.copies_until = marks.get(key) or (
                self._fork_mark(game_id) if key == last else int(forked["version"]) + 1 if forked else 0
            )
        began = seat = None
        ruleset = tracker.ruleset
        # The ruleset reads its own events (a decoded event, upcast), those of the kinds it marks phases and
        # seats with (decoding every event for it cost a rebuild about a seventh of its time).
        if ruleset is not None and (ruleset.marks is None or event.kind in ruleset.marks):
            began = ruleset.phase_of(self._decoded(event))
            seat = ruleset.seat_of(self._decoded(event))
        if event.kind == "StateRestored":  # a rollback: the game as it stood at its target version
            restored = self._game_at(game_id, version)
            s = restored.state
            to_version = self._decoded(event).to_version
            tracker = Tracker(
                version,
                self._phase_at(cur, game_id, to_version),
                sorted(restored.seats),
                tracker.ruleset,
                tracker.seqs,
                tracker.show_earlier,
                tracker.copies_until,
            )
        else:
            tracker.follow(event, began, seat)
        self._trackers[key] = tracker
        return tracker, began, seat

    def _fork_mark(self, game_id: uuid.UUID) -> int:
        """The version of the game's fork mark as the game stands in the store (0 if it is not a fork): the
        mark follows the copy of the source's history up to ``forked_from["version"]``."""
        # At a version, never through the shared cached game: bringing that up to date here, outside its lock, races
        # a command on it (and taking its lock here could deadlock with the hook that runs this projector).
        latest = self.games.recorder.select_events(game_id, desc=True, limit=1)
        if not latest:
            return 0
        game: PlatformGame = self.games.repository.get(game_id, version=latest[0].originator_version)
        forked = getattr(game.state, "forked_from", None)
        return int(forked["version"]) + 1 if forked else 0

    @staticmethod
    def _phase_at(cur: Cursor, game_id: uuid.UUID, version: int) -> str:
        """The phase the game stood in after ``version`` (the audit row of that version says it)."""
        row = cur.execute(
            "SELECT phase FROM rm_audit WHERE game_id = ? AND version = ?", (str(game_id), version)
        ).fetchone()
        return row[0] if row else "setup"

    def _rows(
        self,
        cur: Cursor,
        notification_id: int,
        event: Record,
        tracker: Tracker,
        began: dict | None,
        seat: str | None,
        rows: dict[str, list],
    ) -> None:
        kind = event.kind
        gid = event.gid
        version = event.originator_version
        at = event.at
        phase = tracker.phase
        audience = event.audience
        if seat is not None and seat not in tracker.seqs:
            self._write_pending(cur, rows)
            self._start_timeline(cur, gid, seat, version, tracker)
        plan = tracker.plan(audience)
        shown, scope = plan.shown, plan.scope
        sealed = scope == SCOPE_SEALED
        # The audit points at the store for the payload (issue 30), but for the few kinds SQL reads across games.
        if sealed:
            data: str | None = SEALED_DATA
        elif kind in stored.KEPT:
            data = event.raw.decode() if event.raw is not None else to_json(event.data)
        else:
            data = None
        if plan.tokens:
            rows["feed"].extend([(gid, token, version) for token in plan.tokens])
        # Each viewer's timeline: exactly the events ``vis.can_see`` lets them see, in order.
        if plan.viewers:
            seqs = tracker.seqs
            timeline = rows["timeline"]
            for viewer in plan.viewers:
                seqs[viewer] += 1
                timeline.append((gid, viewer, seqs[viewer], version))
        rows["audit"].append(
            (
                gid,
                version,
                notification_id,
                kind,
                event.actor,
                at,
                phase,
                ",".join(audience),
                plan.shown_text,
                scope,
                data,
            )
        )
        # The ruleset's texts (a ruleset without ``notify`` sends none); the platform's own follow. A fork's
        # copied events (and its mark) tell nobody: the sandbox is its GM's (issue 24).
        copied = version <= tracker.copies_until
        notify = tracker.ruleset.notify if tracker.ruleset is not None and not copied else None
        note = notify(kind, event.data) if notify is not None and not sealed else None  # in English (``_one_batch``)
        if note is not None:
            for recipient in shown[1:]:  # the powers who may see the event (not the GM)
                rows["outbox"].append((gid, version, recipient, kind, to_json(note), at))
        if kind == "RemindersQueued" and not copied:
            for recipient in event.data["recipients"]:
                rows["outbox"].append(
                    (
                        gid,
                        version,
                        recipient,
                        # At most one reminder per window and threshold (issue 28): the ledger keys it so.
                        reminder_kind(event.data["window_id"], event.data["offset_hours"]),
                        to_json(
                            {
                                "window_id": event.data["window_id"],
                                "closes_at": event.data["closes_at"],
                                "hours_before": event.data["offset_hours"],
                                "subject": f"Reminder: {event.data['window_id']} closes soon",
                                "text": (
                                    f"You have not acted yet; the window closes at {event.data['closes_at']} (UTC)."
                                ),
                            }
                        ),
                        at,
                    )
                )
        if kind == "GameBlocked" and not copied:  # issue 24: a refused default for silence is told to the GM, hosts
            d = event.data
            seats = ", ".join(d.get("seats") or []) or "no seat"
            told = {
                "window_id": d["window_id"],
                "rule": d["rule"],
                "subject": f"Game blocked: {d['window_id']} cannot close",
                "text": (
                    f"At the deadline of {d['window_id']}, rule {d['rule']} refused the default for silence "
                    f"({seats}): {d['reason']}\nThe game waits on you: rule on it, move the deadline or roll back."
                ),
            }
            for recipient in d.get("tell") or []:
                rows["outbox"].append((gid, version, recipient, "blocked", to_json(told), at))
        if kind in posts.KINDS and not sealed:  # issue 16: threads, posts and their search index
            said = posts.apply(
                cur, self.db.dialect, kind, gid, version, at, event.actor, audience, event.data, tracker.show_earlier
            )
            if said is not None and note is None and not copied:  # a post's readers are told, its author is not
                for recipient in shown[1:]:
                    if recipient != event.actor:
                        rows["outbox"].append((gid, version, recipient, "post", to_json(said), at))
        if kind in invitations.KINDS and not copied:  # issue 28: an invitation's mail, queued from its event
            invitations.project(cur, kind, gid, version, event.data, self._invited_subject(event))
        if kind == "CredentialsRevoked":  # a seat's links revoked (reissued, or the seat taken by someone new)
            forget_devices(cur, gid, str(event.data["principal"]), version)
        if began is not None:  # the phase index: the phases the game's ruleset says its events begin
            rows["phases"].append((gid, version, began["phase"], began.get("step", ""), labels_of(began)))
        if kind == "GameRolledBack":
            # Rows of this batch are not written yet: write them first, so the marking sees them.
            self._write_pending(cur, rows)
            cur.execute(
                "UPDATE rm_audit SET superseded_by = ? WHERE game_id = ? AND version > ? AND version < ? "
                "AND superseded_by IS NULL",
                (version, gid, event.data["to_version"], version),
            )

    def _write_pending(self, cur: Cursor, rows: dict[str, list]) -> None:
        cur.executemany(
            "INSERT INTO rm_audit (game_id, version, notification_id, type, actor, at, phase, "
            "audience, shown_to, scope, data, superseded_by) VALUES (?,?,?,?,?,?,?,?,?,?,?,NULL)",
            rows["audit"],
        )
        cur.executemany("INSERT INTO rm_feed (game_id, token, version) VALUES (?,?,?)", rows["feed"])
        cur.executemany("INSERT INTO rm_timeline (game_id, viewer, seq, version) VALUES (?,?,?,?)", rows["timeline"])
        cur.executemany(
            "INSERT INTO rm_phases (game_id, version, phase, step, labels) VALUES (?,?,?,?,?)", rows["phases"]
        )
        cur.executemany(
            "INSERT INTO rm_outbox (game_id, version, recipient, kind, body, created_at, status) "
            "VALUES (?,?,?,?,?,?,'queued')",
            rows["outbox"],
        )
        for key in rows:
            rows[key].clear()

    @staticmethod
    def _start_timeline(cur: Cursor, gid: str, seat: str, version: int, tracker: Tracker) -> None:
        """A seat seen for the first time may see every public event before it (and any addressed to it):
        its timeline starts with them, numbered in order (once per seat, in the projector)."""
        cur.execute(
            "INSERT INTO rm_timeline (game_id, viewer, seq, version) "
            "SELECT ?, ?, ROW_NUMBER() OVER (ORDER BY version), version FROM ("
            "SELECT version FROM rm_audit WHERE game_id = ? AND scope = ? AND version < ? UNION "
            "SELECT version FROM rm_feed WHERE game_id = ? AND token = ? AND version < ?) AS earlier",
            (gid, seat, gid, SCOPE_PUBLIC, version, gid, vis.seat(seat), version),
        )
        found = cur.execute("SELECT COUNT(*) FROM rm_timeline WHERE game_id = ? AND viewer = ?", (gid, seat)).fetchone()
        tracker.seqs[seat] = found[0] if found else 0
        tracker.plans.clear()  # a new viewer: its timeline goes on from here

    def _flush_game(self, cur: Cursor, game: PlatformGame, tracker: Tracker) -> None:
        s = game.state
        gid = str(game.id)
        cur.execute("DELETE FROM rm_windows WHERE game_id = ?", (gid,))
        cur.executemany(
            "INSERT INTO rm_windows (game_id, window_id, kind, opened_at, closes_at, closed, reason) "
            "VALUES (?,?,?,?,?,?,?)",
            [
                (gid, w.id, w.kind, w.opened_at, utc_key(w.final_closes_at), int(w.closed), w.reason)
                for w in s.windows.values()
            ],
        )
        # Each game's own reminder offsets (the reminder_hours option), as instants the sweep selects in SQL.
        cur.execute("DELETE FROM rm_reminders WHERE game_id = ?", (gid,))
        cur.executemany(
            "INSERT INTO rm_reminders (game_id, window_id, hours_before, remind_at, closes_at) VALUES (?,?,?,?,?) "
            "ON CONFLICT DO NOTHING",
            [
                (
                    gid,
                    w.id,
                    float(h),
                    utc_key(datetime.fromisoformat(w.closes_at) - timedelta(hours=float(h))),
                    utc_key(w.closes_at),
                )
                for w in s.windows.values()
                if not w.closed
                for h in s.options.get("reminder_hours", [])
            ],
        )
        # The game's phase labels now, as its ruleset names them (``phase_labels``: the state's fields of those
        # names, each its value at setup if the state has none); none for a ruleset not installed here.
        labels = tracker.ruleset.phase_labels if tracker.ruleset is not None else {}
        cur.execute(
            "INSERT INTO rm_games (game_id, name, timezone, step, version, forked_from, labels) "
            "VALUES (?,?,?,?,?,?,?) ON CONFLICT (game_id) DO UPDATE SET name = excluded.name, "
            "timezone = excluded.timezone, step = excluded.step, version = excluded.version, "
            "forked_from = excluded.forked_from, labels = excluded.labels",
            (
                gid,
                s.name,
                s.timezone,
                getattr(s, "step", ""),
                game.version,
                to_json(s.forked_from) if getattr(s, "forked_from", None) else None,
                to_json({k: getattr(s, k, v) for k, v in labels.items()}, sort_keys=False),
            ),
        )
        # Issue 17: whose contact is which address; a fork's seats only by contacts set in the fork (issue 24).
        people.flush_seats(cur, gid, game.seats, set_after=tracker.copies_until)
        # Issue 28: the open seats the GM listed in the lobby (public facts only; never a fork's).
        lobby.flush_lobby(cur, gid, game, str(s.ruleset), bool(getattr(s, "forked_from", None)))

    # ------------------------------------------------------------------ queries

    def timeline(
        self,
        game_id: str,
        viewer: str,
        after: int = 0,
        limit: int = 500,
        *,
        newest_first: bool = False,
        before: int | None = None,
        up_to_version: int | None = None,
    ) -> list[dict]:
        """The viewer's timeline: what they may see, numbered by their own gap-free sequence; a page of
        ``limit`` items after ``after`` (or the newest ``limit``, those ``before`` a number of theirs, those
        recorded ``up_to_version``), read as one range of an index. An observer's (issue 28) is the public events,
        numbered in order (it is no seat: the projector keeps no rows of its own for it)."""
        order, where = ("DESC", "") if newest_first else ("", "AND t.seq > ? ")
        observer = vis.is_observer(viewer)
        params: list[Any] = [game_id, game_id if observer else viewer, *(() if newest_first else (after,))]
        if before is not None:
            where += "AND t.seq < ? "
            params.append(before)
        if up_to_version is not None:
            where += "AND t.version <= ? "
            params.append(up_to_version)
        rows = self.db.query(
            "SELECT t.seq, a.version, a.type, a.actor, a.at, a.phase, a.audience, a.data, a.superseded_by "
            f"FROM {PUBLIC_TIMELINE if observer else 'rm_timeline t'} "
            "JOIN rm_audit a ON a.game_id = t.game_id AND a.version = t.version "
            f"WHERE t.game_id = ? {'' if observer else 'AND t.viewer = ? '}{where}ORDER BY t.seq {order} LIMIT ?",
            (*params, limit),
        )
        out = []
        found = self.stored.of(game_id, [(r[1], r[7]) for r in rows])
        for seq, version, kind, actor, at, phase, audience, _, superseded in rows:
            item = {
                "seq": seq,
                "type": kind,
                "actor": actor,
                "at": at,
                "phase": phase,
                "data": payload(found[version]),
                "superseded": superseded is not None,
            }
            if viewer == GM:
                item["version"] = version
                item["audience"] = audience.split(",")
            out.append(item)
        if viewer != GM:
            self._redact_posts(game_id, out)
            self._own_numbers(game_id, viewer, out)
        return out

    def rules_told(self, game_id: str, viewer: str) -> list[dict]:
        """Every ``RulesChangeTold`` line the viewer was shown, numbered as its timeline numbers them (issue 29): a
        derivation read from a group of phases needs the lines that told its viewer of each adoption, earlier (the
        version in force) and later (a result re-decided), wherever they fall. Read by the audit's type index (one
        query while the game adopted nothing), then each line's number for the viewer."""
        versions = self.db.query(  # the type index covers this: no walk over the game's rows
            "SELECT version FROM rm_audit WHERE game_id = ? AND type = ?", (game_id, "RulesChangeTold")
        )
        out = []
        for (line,) in sorted(versions):
            rows = self.db.query(
                "SELECT version, actor, at, phase, audience, data, superseded_by FROM rm_audit "
                "WHERE game_id = ? AND version = ?",
                (game_id, line),
            )
            version, actor, at, phase, audience, data, superseded = rows[0]
            if not vis.can_see(audience.split(","), viewer):
                continue
            data = self.stored.of(game_id, [(version, data)])[version]  # the audit's JSON, or the event's
            if vis.is_observer(viewer):  # an observer numbers the public events
                found = self.db.query(
                    "SELECT COUNT(*) FROM rm_audit WHERE game_id = ? AND scope = ? AND version <= ?",
                    (game_id, SCOPE_PUBLIC, version),
                )
                seq = int(found[0][0]) if found else None
            else:
                seq = self.seq_of(game_id, viewer, version)
            if seq is None:
                continue
            item = {
                "seq": seq,
                "type": "RulesChangeTold",
                "actor": actor,
                "at": at,
                "phase": phase,
                "data": payload(data),
                "superseded": superseded is not None,
            }
            if viewer == GM:
                item["version"] = version
                item["audience"] = audience.split(",")
            out.append(item)
        return out

    def seen_version(self, game_id: str, viewer: str, seq: int) -> int | None:
        """The version of the event a viewer numbers ``seq`` (a dispute names its event so), or None."""
        rows = self.db.query(
            "SELECT version FROM rm_timeline WHERE game_id = ? AND viewer = ? AND seq = ?", (game_id, viewer, seq)
        )
        return int(rows[0][0]) if rows else None

    def seq_of(self, game_id: str, viewer: str, version: int) -> int | None:
        """A viewer's own number for the event at ``version``, or None if it was not shown it."""
        rows = self.db.query(
            "SELECT seq FROM rm_timeline WHERE game_id = ? AND viewer = ? AND version = ?", (game_id, viewer, version)
        )
        return int(rows[0][0]) if rows else None

    def _own_numbers(self, game_id: str, viewer: str, items: list[dict]) -> None:
        """A dispute names its event by the raiser's own number for it (issue 29): every other reader (a host it
        was raised to, in a game without a GM) reads its own number for that event instead, so the raiser's count
        of what it was shown reaches no one else."""
        for i in items:
            if i["type"] == "DisputeRaised" and i["actor"] != viewer and "seq" in i["data"]:
                version = self.seen_version(game_id, i["actor"], int(i["data"]["seq"]))
                own = self.seq_of(game_id, viewer, version) if version is not None else None
                i["data"] = {**i["data"], "seq": own}

    def _redact_posts(self, game_id: str, items: list[dict]) -> None:
        """What the players' pages never show, their timeline does not either (issue 16): a post the GM hid
        loses its text (first and edited) and whom it mentioned in the events that carried it, and an edited post
        shows only its current text unless the game shows earlier text; a reply's quote of such a post shows what
        its page shows (``posts.shown_heads``). The audit keeps everything."""
        said = [i for i in items if i["type"] in ("PostMade", "PostEdited")]
        if not said:
            return
        ids = sorted({i["data"]["post_id"] for i in said})
        marks = ",".join("?" for _ in ids)
        rows = self.db.query(
            "SELECT post_id, hidden, hidden_reason, text, edited_at, earlier_shown FROM rm_posts "
            f"WHERE game_id = ? AND post_id IN ({marks}) "
            "AND (hidden = 1 OR (edited_at IS NOT NULL AND earlier_shown = 0))",
            (game_id, *ids),
        )
        found = {r[0]: r for r in rows}
        heads = posts.shown_heads(self.db.query, game_id, ids)  # a reply's quote of a hidden or edited post
        for i in said:
            pid = i["data"]["post_id"]
            row = found.get(pid)
            if row is None:
                if pid in heads:
                    i["data"] = {**i["data"], "text": requote(i["data"]["text"], heads[pid])}
                continue
            _, hidden, reason, text, _, _ = row
            if hidden:
                i["data"] = unsaid(i["data"], text="", hidden=reason or True)
            else:
                i["data"] = unsaid(i["data"], text=requote(text, heads.get(pid)), edited=True)

    def feed(self, game_id: str, viewer: str, after: int = 0, limit: int = 500) -> list[dict]:
        """The viewer's timeline (see ``timeline``)."""
        return self.timeline(game_id, viewer, after, limit)

    def latest_of_type(self, game_id: str, event_type: str, limit: int) -> list[dict]:
        """The newest events of one type, newest first (for the GM). The versions come from the type's index
        alone (a covering range), then the rows by key: asked in one query, SQLite's planner walks the whole
        game's history backwards instead, for a type that is rare or absent (issue 17: every board asks for
        the latest rollback), so the board's time grew with the game's length."""
        rows = self.db.query(
            "SELECT version, data FROM rm_audit WHERE game_id = ? AND version IN (SELECT version FROM rm_audit"
            " WHERE game_id = ? AND type = ? ORDER BY version DESC LIMIT ?) ORDER BY version DESC",
            (game_id, game_id, event_type, limit),
        )
        found = self.stored.of(game_id, rows)
        return [payload(found[version]) for version, _ in rows]

    def audit_page(
        self,
        game_id: str,
        *,
        seat: str | None = None,
        phase: str | None = None,
        event_type: str | None = None,
        actor: str | None = None,
        after: int = 0,
        limit: int = 500,
    ) -> tuple[list[dict], int | None]:
        """One page of the audit, for the GM: (rows, the version to continue after, or None at the end).

        At most ``limit`` events are read, in version order, through the index of the most selective
        filter; the other filters are applied to those, so a page costs the same at any game length
        and may hold fewer than ``limit`` rows while the returned cursor is not None."""
        filters = _audit_filters(event_type, actor, phase)
        inner = (
            "SELECT version, type, actor, at, phase, audience, shown_to, data, superseded_by FROM rm_audit "
            "WHERE game_id = ? AND version > ?"
        )
        params: list[Any] = [game_id, after]
        if filters:
            inner += f" AND {filters[0][0]} = ?"
            params.append(filters[0][1])
        inner += f" ORDER BY version LIMIT {int(limit) + 1}"
        scanned = self.db.query(inner, params)
        more = len(scanned) > limit
        scanned = scanned[:limit]
        fields = self._seat_fields(game_id) if seat else SEAT_FIELDS
        kept = [r for r in scanned if all({"type": r[1], "actor": r[2], "phase": r[4]}[c] == v for c, v in filters[1:])]
        found = self.stored.of(game_id, [(r[0], r[7]) for r in kept])
        out = []
        for version, kind, act, at, ph, audience, shown, _, superseded in kept:
            item = {
                "version": version,
                "type": kind,
                "actor": act,
                "at": at,
                "phase": ph,
                "audience": audience.split(","),
                "shown_to": shown.split(",") if shown else [],
                "data": payload(found[version]),
                "superseded_by": superseded,
            }
            if seat and not (act == seat or seat in item["shown_to"] or _mentions(item["data"], seat, fields)):
                continue
            out.append(item)
        return out, (scanned[-1][0] if more else None)

    def audit_page_before(
        self,
        game_id: str,
        *,
        phase: str | None = None,
        event_type: str | None = None,
        actor: str | None = None,
        after: int,
        limit: int,
    ) -> int | None:
        """The cursor of the audit's page before the one read ``after`` a version (None on the first page): the
        version ``limit`` events back through the same index ``audit_page`` reads, or 0, so paging back and forth
        lands on the same pages, each read by its keyset at the same cost however long the game is."""
        if after <= 0:
            return None
        filters = _audit_filters(event_type, actor, phase)
        sql = "SELECT version FROM rm_audit WHERE game_id = ? AND version <= ?"
        params: list[Any] = [game_id, after]
        if filters:
            sql += f" AND {filters[0][0]} = ?"
            params.append(filters[0][1])
        back = self.db.query(sql + f" ORDER BY version DESC LIMIT {int(limit) + 1}", params)
        return back[-1][0] if len(back) > limit else 0

    def _seat_fields(self, game_id: str) -> tuple[str, ...]:
        """The fields of a game's events that name a seat: the platform's, and those its ruleset declares
        (``seat_fields``; only the platform's for a game whose ruleset is not installed here)."""
        try:
            ruleset = self.games.get_game(game_id, for_update=False).ruleset
        except DomainError:
            return SEAT_FIELDS
        return (*SEAT_FIELDS, *sorted(ruleset.seat_fields))

    def audit(
        self,
        game_id: str,
        *,
        seat: str | None = None,
        phase: str | None = None,
        event_type: str | None = None,
        actor: str | None = None,
    ) -> list[dict]:
        """Every event of the game, for the GM: actor, time, phase, audience, who was shown it (all pages;
        for the CLI and exports: requests read one page with ``audit_page``)."""
        out: list[dict] = []
        after: int | None = 0
        while after is not None:
            rows, after = self.audit_page(
                game_id, seat=seat, phase=phase, event_type=event_type, actor=actor, after=after, limit=5000
            )
            out.extend(rows)
        return out

    def phases(
        self,
        game_id: str,
        offset: int = 0,
        limit: int | None = None,
        *,
        newest_first: bool = False,
        undone: bool = True,
    ) -> list[dict]:
        """The phases the game began, in order (``offset``/``limit``: a page; phases are few, a dozen a season).
        ``undone=False``: only those the game stands on now, not those a rollback undid (issue 24: My games and
        the boards show the phase a rollback restored)."""
        page = "" if limit is None else f" LIMIT {int(limit)} OFFSET {int(offset)}"
        live = (
            ""
            if undone
            else " AND NOT EXISTS (SELECT 1 FROM rm_audit a WHERE a.game_id = p.game_id AND a.version = p.version "
            "AND a.superseded_by IS NOT NULL)"
        )
        rows = self.db.query(
            f"SELECT version, phase, labels, step FROM rm_phases p WHERE game_id = ?{live} "
            f"ORDER BY version{' DESC' if newest_first else ''}" + page,
            (game_id,),
        )
        # Each phase with the labels its ruleset's ``phase_of`` gave it, between its name and its step.
        return [{"version": v, "phase": p, **json.loads(labels), "step": st} for v, p, labels, st in rows]

    def next_phase_start(self, game_id: str, version: int) -> int | None:
        """The first version after ``version`` at which a phase began (an indexed lookup), or None."""
        rows = self.db.query("SELECT MIN(version) FROM rm_phases WHERE game_id = ? AND version > ?", (game_id, version))
        return rows[0][0] if rows and rows[0][0] is not None else None

    def phase_start(self, game_id: str, phase: str) -> int | None:
        """The latest version at which ``phase`` began (an indexed lookup: constant time in the game's length)."""
        rows = self.db.query("SELECT MAX(version) FROM rm_phases WHERE game_id = ? AND phase = ?", (game_id, phase))
        return rows[0][0] if rows and rows[0][0] is not None else None

    def due_windows(self, now: datetime, limit: int = 500) -> list[dict]:
        """Open windows whose deadline has passed (the sweep claims them in workers/claims.py)."""
        rows = self.db.query(
            "SELECT game_id, window_id, kind, closes_at FROM rm_windows WHERE closed = 0 "
            "AND closes_at <= ? ORDER BY closes_at LIMIT ?",
            (utc_key(now), limit),
        )
        return [{"game_id": g, "window_id": w, "kind": k, "closes_at": c} for g, w, k, c in rows]

    def previous_note(self, game_id: str, recipient: str, version: int) -> int:
        """The version of the last notification of the game for ``recipient`` before ``version`` (0 if none): a
        result mail explains what was published since (``application.why``); one range of the outbox's key."""
        rows = self.db.query(
            "SELECT MAX(version) FROM rm_outbox WHERE game_id = ? AND version < ? AND recipient = ?",
            (game_id, version, recipient),
        )
        return int(rows[0][0] or 0) if rows else 0

    def outbox(self, game_id: str | None = None, recipient: str | None = None) -> list[dict]:
        """Notifications derived from events, one row per recipient who may see them (workers/mail.py sends them)."""
        sql = "SELECT game_id, version, recipient, kind, body, created_at, status FROM rm_outbox WHERE 1 = 1"
        params: list[Any] = []
        if game_id:
            sql += " AND game_id = ?"
            params.append(game_id)
        if recipient:
            sql += " AND recipient = ?"
            params.append(recipient)
        return [
            {
                "game_id": g,
                "version": v,
                "recipient": r,
                "kind": k,
                "body": json.loads(b),
                "created_at": c,
                "status": st,
            }
            for g, v, r, k, b, c, st in self.db.query(sql + " ORDER BY game_id, version", params)
        ]

    def dump(self) -> dict[str, list[tuple]]:
        """Every row of every read model, sorted (for rebuild equivalence checks)."""
        keys = {
            "rm_audit": "game_id, version",
            "rm_feed": "game_id, token, version",
            "rm_phases": "game_id, version",
            "rm_windows": "game_id, window_id",
            "rm_reminders": "game_id, window_id, hours_before",
            "rm_games": "game_id",
            "rm_seat_contacts": "email, game_id, seat",
            "rm_lobby": "game_id, seat",
            "rm_outbox": "game_id, version, recipient",
            "rm_threads": "game_id, thread_id",
            "rm_posts": "game_id, thread_id, seq",
        }
        return {t: self.db.query(f"SELECT * FROM {t} ORDER BY {k}") for t, k in keys.items()}


SEALED_DATA = to_json({"sealed": True})
FORKED = ".GameForked"  # the end of a fork mark's topic
SCOPE_PUBLIC, SCOPE_RESTRICTED, SCOPE_SEALED = 1, 0, -1
# An observer's timeline: the game's public events, numbered in order (the game id is the query's first parameter).
PUBLIC_TIMELINE = (
    f"(SELECT ROW_NUMBER() OVER (ORDER BY version) AS seq, game_id, version FROM rm_audit "
    f"WHERE game_id = ? AND scope = {SCOPE_PUBLIC}) t"
)
SEAT_FIELDS = ("seat", "to", "about")  # the fields of the platform's events that name a seat (and a ruleset's own)


class Stored(NamedTuple):
    """A notification as the projector reads it from SQLite (what the library's ``Notification`` holds)."""

    id: int
    originator_id: uuid.UUID
    originator_version: int
    topic: str
    state: bytes


def _key(originator_id: Any) -> int:
    """A game's id as the projector keys what it follows per game (an int hashes and compares in C, a UUID not)."""
    return originator_id.int if isinstance(originator_id, uuid.UUID) else uuid.UUID(str(originator_id)).int


def reminder_kind(window_id: str, hours: float) -> str:
    """The kind of a reminder's outbox row and mail: one per window and threshold (``workers.mail`` keys it so)."""
    return f"reminder {window_id} {float(hours):g}"


def payload(data: dict) -> dict:
    """An event's payload from its stored JSON (parsed: ``stored.Payloads.of``), without the envelope (time, actor,
    audience)."""
    return {k: v for k, v in data.items() if k not in ENVELOPE}


def _audit_filters(event_type: str | None, actor: str | None, phase: str | None) -> list[tuple[str, str]]:
    """The audit's column filters in the order their indexes are preferred (the first is read through its index)."""
    return [(col, value) for col, value in (("type", event_type), ("actor", actor), ("phase", phase)) if value]


def _mentions(data: dict, seat: str, fields: tuple[str, ...]) -> bool:
    return any(data.get(k) == seat for k in fields)


def forget_devices(cur: Cursor, game_id: str, seat: str, version: int) -> None:
    """The push devices a seat subscribed before its links were revoked at ``version`` belong to whoever held the
    seat then: they are dropped, and what was queued or held for them withdrawn, so a seat's next holder's news never
    reaches the last one's phone (issue 31). Keyed by the version each was subscribed at, so a rebuild that meets an
    old revocation leaves the devices subscribed after it."""
    cur.execute(
        "UPDATE push_ledger SET status = 'withdrawn' WHERE status IN ('queued', 'held') AND sub_id IN "
        "(SELECT id FROM push_subscriptions WHERE game_id = ? AND seat = ? AND seen_version < ?)",
        (game_id, seat, version),
    )
    cur.execute(
        "DELETE FROM push_subscriptions WHERE game_id = ? AND seat = ? AND seen_version < ?", (game_id, seat, version)
    )
