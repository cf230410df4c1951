"""The game store: the eventsourcing Application that persists games (events, snapshots, the
idempotency key table beside them) and answers the reads over them (a game at a version, the phase
list, views, a viewer's events). The projector, the migrations and every read path use it; the
commands run through its subclass, the application service ``application.service.Games``.

It knows no ruleset: a stored game is loaded through the ruleset registered under the name it
recorded, and the snapshot transcodings come from each registered ruleset's state types.
The store is chosen by the environment it is given (SQLite, PostgreSQL or in-memory), never by
reading ``os.environ``.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import operator
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import fields
from typing import TYPE_CHECKING, Any, TypeVar, cast

import orjson
from eventsourcing.application import AggregateNotFoundError, Application, Repository, project_aggregate
from eventsourcing.domain import Snapshot
from eventsourcing.persistence import JSONTranscoder, Mapper, Transcoding
from eventsourcing.utils import Environment

from domain import rulesets as _installed  # noqa: F401  (registers the installed rulesets)
from domain import visibility as vis
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.ids import GM
from domain.platform import ruleset as rulesets
from domain.platform.game import RECOUNT_SEEN, PlatformGame, fold, recount_seen
from domain.platform.posts import quote_heads, requote, unsaid
from domain.platform.state import Seat, Window
from projections.keys import (
    RECORDER_TOPICS,
    POPOKeyedRecorder,
    PostgresKeyedRecorder,
    SQLiteKeyedRecorder,
    snapshot_recorder,
)
from projections.posts import hidden_quote

log = logging.getLogger("emissary.store")

T = TypeVar("T")
EVENT_FIELDS_HIDDEN = {"originator_id", "originator_version", "timestamp", "audience", "actor", "originator_topic"}
PLATFORM_STATE_TYPES = (Window, Seat)
Game = PlatformGame  # any ruleset's game aggregate


class DataclassAsDict(Transcoding):
    """Snapshot transcoding for the plain dataclasses of domain state."""

    def __init__(self, cls: type) -> None:
        self.type = cls
        self.name = f"emissary.{cls.__name__}"
        self._fields = tuple(f.name for f in fields(cls))
        # The fields' values as one tuple, read in C: a snapshot encodes thousands of these objects.
        getter = operator.attrgetter(*self._fields) if self._fields else (lambda obj: ())
        self._values = getter if len(self._fields) != 1 else (lambda obj: (getter(obj),))

    def encode(self, obj: Any) -> dict:
        return dict(zip(self._fields, self._values(obj)))

    def decode(self, data: dict) -> Any:
        return self.type(**data)


class SnapshotTranscoder(JSONTranscoder):
    """The snapshots' transcoder: the JSON the library's writes, written by orjson (a 50-power game's snapshot, 360 kB,
    in ~2 ms where the library's ``json`` took ~8 ms; one in every ~33 commands of such a game pays it). Decoding is
    the library's. orjson hands dataclasses and datetimes to the same transcodings (``default``); it would write a
    UUID as a bare string, and a snapshot holds none (the library keeps the aggregate's id beside the state, and
    domain state has no UUIDs): the contract suite checks that both encoders write the same bytes for every
    ruleset."""

    OPTIONS = orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_NON_STR_KEYS

    def encode(self, obj: Any) -> bytes:
        # The library's encoder's ``default`` (its registered transcodings), handed to orjson.
        return orjson.dumps(obj, default=self.encoder.default, option=self.OPTIONS)


class GameRepository(Repository):
    """The library's repository, folding with ``domain.platform.game.fold``: a rollback's StateRestored
    re-folds the game to its target version, which this repository reads from the store (through a
    snapshot when one is at or before that version)."""

    def get(self, aggregate_id: Any, *, version: int | None = None, projector_func: Any = None, **kwargs: Any) -> Any:
        if projector_func is None or projector_func is project_aggregate:
            projector_func = self._fold
        return super().get(aggregate_id, version=version, projector_func=projector_func, **kwargs)

    def _fold(self, initial: Any, events: Any) -> Any:
        # ``get`` at a version reads the store (a snapshot at or before it, then the events), never the cache.
        if initial is None:  # the library hands a snapshot as the first "event": taken, it is the game to fold onto
            events = iter(events)
            first = next(events, None)
            if isinstance(first, Snapshot):
                initial = first.mutate(None)
                if initial is not None and RECOUNT_SEEN in initial.__dict__:  # one taken before a recount's reason
                    recount_seen(initial, self.event_store.get(initial.id, lte=initial.version))
            elif first is not None:
                events = itertools.chain([first], events)
        return fold(
            initial,
            events,
            lambda gid, v: self.get(gid, version=v, projector_func=self._fold).state,
            self._history,
        )

    def fold_onto(self, game: Any, events: list[Any]) -> Any:
        """Fold events onto a game (None before it was created) as loading does: a rollback or a rules change
        adopted among them re-folded from the store."""
        return self._fold(game, events)

    def _history(self, gid: Any, start: int, upto: int) -> tuple[Any, list[Any]]:
        """The game at version ``start`` (None at 0) and its stored events after it up to ``upto``: what a rules
        change adopted re-folds (``domain.platform.replay``)."""
        base = self.get(gid, version=start, projector_func=self._fold) if start else None
        return base, list(self.event_store.get(gid, gt=start, lte=upto))


class GameStore(Application[uuid.UUID]):
    """Games persisted and read: load a game (now or at a version), save, snapshot, and the reads."""

    name = "Emissary"
    if TYPE_CHECKING:  # construct_recorder's: a recorder of projections.keys, with the command key table beside
        recorder: POPOKeyedRecorder | SQLiteKeyedRecorder | PostgresKeyedRecorder

    def __init_subclass__(cls, **kwargs: Any) -> None:
        # The library names a subclass's tables and environment prefix after the class; the command service
        # and the ruleset mixins over it read and write this same store, so they keep its name.
        named = "name" in cls.__dict__
        super().__init_subclass__(**kwargs)
        if not named:
            cls.name = GameStore.name

    def __init__(self, env: dict[str, str] | None = None, *, snapshot_interval: int = 100) -> None:
        # Snapshots for every ruleset whose state the transcoder can encode (it declares its state types), taken by
        # ``save`` (the library's own snapshotting, keyed by its ``snapshotting_intervals``, is left off).
        self.snapshot_intervals: dict[type, int] = {
            r.aggregate: snapshot_interval for r in rulesets.registered().values() if r.state_types
        }
        self._locks: dict[str, threading.RLock] = {}
        self._locks_guard = threading.Lock()
        # Set by the composition root to the phase index read model: phase -> version in constant time.
        self.phase_lookup: Callable[[str, str], int | None] | None = None
        # Set by the composition root to the projector: reads come from its read models, never from a replay.
        self.reads: Any = None
        # Called after every save (the embedded default brings the read models up to date here, so that a
        # read right after a write sees it without the read itself projecting).
        self.on_recorded: list[Callable[[], Any]] = []
        self._saving = threading.local()
        env = {"IS_SNAPSHOTTING_ENABLED": "y", **(env or {"PERSISTENCE_MODULE": "eventsourcing.popo"})}
        topic = RECORDER_TOPICS.get(env.get("PERSISTENCE_MODULE", ""))
        if topic:  # the store's recorder, with the idempotency key table beside the events
            env.setdefault("APPLICATION_RECORDER_TOPIC", topic)
        super().__init__(env=env)

    def construct_recorder(self) -> Any:
        if self.env.get("PERSISTENCE_MODULE") == "eventsourcing.popo":
            return POPOKeyedRecorder()
        return super().construct_recorder()

    def construct_snapshot_store(self) -> Any:
        # PostgreSQL: the library's snapshot table, written through the array INSERT (projections.keys); elsewhere
        # the library's. Either way encoded by the SnapshotTranscoder (with the store's cipher and compressor).
        transcoder = SnapshotTranscoder()
        self.register_transcodings(transcoder)
        mapper: Mapper[uuid.UUID] = self.factory.mapper(transcoder=transcoder)
        recorder = snapshot_recorder(self.factory) or self.factory.aggregate_recorder(purpose="snapshots")
        return self.factory.event_store(mapper=mapper, recorder=recorder)

    def construct_repository(self) -> GameRepository:
        library = super().construct_repository()
        repository = GameRepository(
            self.events,
            snapshot_store=self.snapshots,
            fastforward=library.fastforward,
            fastforward_skipping=library.fastforward_skipping,
            deepcopy_from_cache=library.deepcopy_from_cache,
        )
        repository.cache = library.cache
        return repository

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        """The library's save, then this store's snapshots (``take_snapshots``), then the hooks after recording
        (``on_recorded``), in the library's order; the hooks may read the games saved (``just_saved``)."""
        self._saving.games = {o.id: o for o in objs if isinstance(o, PlatformGame)}
        try:
            recordings = super().save(*objs, **kwargs)
            self.take_snapshots(objs, recordings)
            self.after_recording()
            return recordings
        finally:
            self._saving.games = {}

    def take_snapshots(self, objs: tuple[Any, ...], recordings: list[Any]) -> None:
        """Snapshot each game saved that we already hold whenever a save crosses a multiple of its interval,
        instead of the library's re-reading it from the store at that exact version."""
        if self.snapshots is None:
            return
        for aggregate in {o.id: o for o in objs if type(o) in self.snapshot_intervals}.values():
            interval = self.snapshot_intervals[type(aggregate)]
            versions = [
                r.domain_event.originator_version for r in recordings if r.domain_event.originator_id == aggregate.id
            ]
            if versions and (min(versions) - 1) // interval != aggregate.version // interval:
                self.snapshots.put([type(aggregate).Snapshot.take(aggregate)])

    def just_saved(self, game_id: uuid.UUID, version: int) -> Game | None:
        """The game this thread is saving, if it stands at ``version`` (the hooks after recording read it
        instead of the store; it is not mutated meanwhile, its command holding the game's lock)."""
        game = getattr(self._saving, "games", {}).get(game_id)
        return game if game is not None and game.version == version else None

    def after_recording(self) -> None:
        for hook in self.on_recorded:
            try:
                hook()
            except Exception:  # noqa: BLE001 - the write is recorded; the read models catch up later
                log.exception("a hook after recording failed; the read models lag until the runner catches up")

    def construct_env(self, name: str, env: Any = None) -> Environment:
        # Only what the composition root passes in: the domain never reads os.environ.
        return Environment(name, dict(env or {}))

    def register_transcodings(self, transcoder: JSONTranscoder) -> None:
        super().register_transcodings(transcoder)
        types = dict.fromkeys(PLATFORM_STATE_TYPES)
        for ruleset in rulesets.registered().values():
            types.update(dict.fromkeys(ruleset.state_types))
        for cls in types:
            transcoder.register(DataclassAsDict(cls))

    # ------------------------------------------------------------------ plumbing

    def get_game(self, game_id: str, version: int | None = None, *, for_update: bool = True) -> Game:
        """The game now (or at ``version``), or NotFound. Read-only callers pass ``for_update=False``
        to share the cached aggregate instead of deep-copying it (they must not mutate it)."""
        try:
            key = uuid.UUID(str(game_id))
        except ValueError:
            raise NotFound("no such game", field="game_id") from None
        try:
            # The cached game is brought up to date under its lock, never while a command of this process runs on it.
            with self._lock(key) if version is None else contextlib.nullcontext():
                game: Game = self.repository.get(key, version=version, deepcopy_from_cache=for_update)
        except AggregateNotFoundError:
            raise NotFound("no such game", field="game_id") from None
        rulesets.for_game(game.state.ruleset, game.state.rules_version)  # installed, else RulesetNotInstalled
        return game

    def fold_onto(self, game: Any, events: list[Any]) -> Any:
        """Fold events onto a game (None before it was created) as loading does (``GameRepository.fold_onto``)."""
        return cast(GameRepository, self.repository).fold_onto(game, events)

    def _lock(self, game_id: str | uuid.UUID) -> threading.RLock:
        """The lock a game's commands and the reads that bring its cached aggregate up to date take in turn
        (reentrant: a command reads its game too). Keyed by the canonical id, however a caller spelled it."""
        try:
            name = str(uuid.UUID(str(game_id)))
        except ValueError:
            name = str(game_id)
        with self._locks_guard:
            return self._locks.setdefault(name, threading.RLock())

    def _evict(self, game: Game) -> None:
        if self.repository.cache is not None:
            with contextlib.suppress(KeyError):
                self.repository.cache.get(game.id, evict=True)

    def _cached(self, game_id: str) -> Game | None:
        """The cached aggregate, without reading the store (None if not cached or no cache)."""
        if self.repository.cache is None:
            return None
        try:
            return cast(Game, self.repository.cache.get(uuid.UUID(str(game_id))))
        except (KeyError, ValueError):
            return None

    def read(self, game_id: str, query: Callable[[Game], T]) -> T:
        """Answer a query from the game now, under its lock: no command of this process changes it meanwhile
        (a channel that reads the shared cached game outside a command reads it so)."""
        return self._read(game_id, query)

    def _read(self, game_id: str, query: Callable[[Game], T], version: int | None = None) -> T:
        """Answer a query from the cached game (fast-forwarded to the store), under the game's lock."""
        if version is not None:
            return query(self.get_game(game_id, version, for_update=False))
        with self._lock(game_id):
            return query(self.get_game(game_id, for_update=False))

    # ------------------------------------------------------------------ rewind

    def phases(self, game_id: str) -> list[dict]:
        """Every phase the game has begun, with the version at which it stood fully opened."""
        game = self.get_game(game_id, for_update=False)
        out = [setup_phase(game)]
        if self.reads is not None:
            return out + self.reads.phases(str(game.id))
        began = game.ruleset.phase_of
        for e in self.stored_events(game.id):
            if (phase := began(e)) is not None:  # the ruleset names the phase an event begins
                out.append({**phase, "version": e.originator_version})
        return out

    def recent_phases(self, game_id: str, limit: int = 60, *, undone: bool = False) -> list[dict]:
        """The latest ``limit`` phases the game began (not setup), oldest first: a bounded list for pages. The
        last is the phase the game is in: phases a rollback undid are left out, unless ``undone`` (issue 24)."""
        if self.reads is None:
            phases = [p for p in self.phases(game_id) if p["phase"] != "setup"]
            if not undone:
                game = self.get_game(game_id, for_update=False)
                for e in self.stored_events(game.id):
                    if type(e).__name__ == "GameRolledBack":
                        phases = [p for p in phases if not e.to_version < p["version"] < e.originator_version]
            return phases[-limit:]
        key = str(self.get_game(game_id, for_update=False).id)
        return self.reads.phases(key, 0, limit, newest_first=True, undone=undone)[::-1]

    def phases_page(self, game_id: str, after: int = 0, limit: int = 100) -> tuple[list[dict], int | None]:
        """A page of the phase list: the phases after the first ``after``, and the ``after`` of the next page
        (None at the end). From the phase index (the whole list if no read models are attached)."""
        if self.reads is None:
            everything = self.phases(game_id)
            items = everything[after : after + limit]
            return items, (after + limit if after + limit < len(everything) else None)
        game = self.get_game(game_id, for_update=False)
        setup = [] if after >= 1 else [setup_phase(game)]
        want = limit - len(setup)
        rows = self.reads.phases(str(game.id), max(after - 1, 0), want + 1)
        items = setup + rows[:want]
        return items, (after + len(items) if len(rows) > want else None)

    def phase_version(self, game_id: str, phase: str | None, version: int | None) -> int:
        """The version a phase began at (the latest time it began, after rollbacks), or the version given."""
        if version is not None:
            current = self.get_game(game_id, for_update=False).version
            if not 1 <= version <= current:
                raise NotFound(f"no version {version}; this game has {current}", field="version")
            return version
        if not phase:
            raise RuleViolation("name a phase (such as s1m1-planning) or a version", field="phase")
        if phase == "setup":
            return 1
        if self.phase_lookup is not None:
            found = self.phase_lookup(str(self.get_game(game_id, for_update=False).id), phase)
            if found is not None:
                return found
        matches = [p["version"] for p in self.phases(game_id) if p["phase"] == phase]
        if not matches:
            raise NotFound(f"this game has no phase {phase!r}", field="phase")
        return matches[-1]

    def phase_span(self, game_id: str, phase: str) -> tuple[int, int]:
        """The versions a phase began at (the latest time it began) and ended at: the version before the
        next phase began, or the game's version if none has."""
        start = self.phase_version(game_id, phase, None)
        game = self.get_game(game_id, for_update=False)
        if self.reads is not None:
            following = self.reads.next_phase_start(str(game.id), start)
        else:
            following = min((p["version"] for p in self.phases(game_id) if p["version"] > start), default=None)
        return start, (following - 1 if following is not None else game.version)

    def view_at(
        self,
        game_id: str,
        principal: str,
        *,
        phase: str | None = None,
        version: int | None = None,
        as_viewer: str | None = None,
    ) -> dict:
        """The board as it stood at a past phase or version: the GM as anyone, a player as themselves."""
        viewer = as_viewer or principal
        if principal != GM and viewer != principal:
            raise Forbidden("you may look only at your own view of the past", field="as")
        v = self.phase_version(game_id, phase, version)
        game = self.get_game(game_id, v, for_update=False)
        if viewer != GM and viewer not in game.seats:
            raise NotFound(f"{viewer!r} was not in the game at that time", field="as")
        out = self._view(game, viewer)
        out["at"] = {"version": v, "phase": phase} if principal == GM else {"phase": phase}
        return out

    def mail_reply(self, game_id: str, message_id: str) -> dict | None:
        """The reply a mail with this Message-ID got, as older games kept it in their state (or None)."""
        return self._read(game_id, lambda g: g.state.mail_replies.get(message_id))

    def contact_of(self, game_id: str, who: str) -> tuple[str | None, str]:
        """Where a seat's notifications go: (its address or None, its mode); ``(None, "off")`` for no seat."""
        return self._read(
            game_id,
            lambda g: (g.seats[who].email, g.seats[who].mail_mode) if who in g.seats else (None, "off"),
        )

    # ------------------------------------------------------------------ queries

    def view(self, game_id: str, viewer: str, version: int | None = None) -> dict:
        """The board as ``viewer`` may see it (P.4), now or at a past version."""
        return self._read(game_id, lambda game: self._view(game, viewer), version)

    @staticmethod
    def _view(game: Any, viewer: str) -> dict:
        """The game as ``viewer`` may see it, by the game's ruleset."""
        view = game.ruleset.view
        if view is None:
            raise RuleViolation(f"{game.ruleset.name!r} games declare no view", field="ruleset")
        viewer = vis.OBSERVER if vis.is_observer(viewer) else viewer  # every observer sees the table alike (issue 28)
        shown = view(game, viewer)
        # The platform's part: a block on a window the view lists (issue 24); no key while nothing is blocked.
        listed = [str(w.get("window_id") or w.get("id")) for w in shown.get("windows", []) if isinstance(w, dict)]
        blocks = game.blocks_for(viewer, None if viewer == GM else listed)
        if blocks:
            shown = {**shown, "blocked": blocks}
        return shown

    def visible_events(self, game_id: str, viewer: str, after: int = 0, limit: int = 500) -> list[dict]:
        """The events ``viewer`` may see, numbered by their own gap-free sequence: a page from the viewer's
        timeline read model (read from the event store only when no read models are attached)."""
        game = self.get_game(game_id, for_update=False)
        key = game.id
        if self.reads is not None:
            return self.reads.timeline(str(key), viewer, after, limit)
        out: list[dict] = []
        seq = 0
        hidden = {p for p, v in game.talk["posts"].items() if v["hidden"]} if viewer != GM else set()
        # An edited post shows its current text only, unless the game shows earlier text (issue 16); a reply's
        # quote of a hidden or edited post shows what its page shows (issue 28, ``posts.quote_heads``).
        facts = _post_facts(self.stored_events(key), bool(game.state.options.get("show_earlier_text")))
        heads = quote_heads(facts, hidden_quote) if viewer != GM else {}
        latest: dict[str, str] = {}
        if viewer != GM and not game.state.options.get("show_earlier_text"):
            latest = {pid: f["text"] for pid, f in facts.items() if f["edited"]}
        for e in self.stored_events(key):
            if not vis.can_see(e.audience, viewer):
                continue
            seq += 1
            if seq <= after:
                continue
            item = {
                "seq": seq,
                "type": type(e).__name__,
                "actor": e.actor,
                "at": e.timestamp.isoformat(),
                "data": event_data(e),
            }
            if item["type"] in ("PostMade", "PostEdited"):
                head = heads.get(e.post_id)
                if e.post_id in hidden:  # hidden from the players (issue 16)
                    item["data"] = unsaid(item["data"], text="", hidden=True)
                elif e.post_id in latest:
                    item["data"] = unsaid(item["data"], text=requote(latest[e.post_id], head), edited=True)
                elif head is not None:
                    item["data"] = {**item["data"], "text": requote(item["data"]["text"], head)}
            if item["type"] == "DisputeRaised" and viewer not in (GM, e.actor):  # the reader's own number for it
                item["data"] = {**item["data"], "seq": self._own_seq(key, e.actor, item["data"].get("seq"), viewer)}
            if viewer == GM:
                item["version"] = e.originator_version
                item["audience"] = list(e.audience)
            out.append(item)
            if len(out) >= limit:
                break
        return out

    def _own_seq(self, key: uuid.UUID, raiser: str, seq: Any, viewer: str) -> int | None:
        """``viewer``'s own number for the event ``raiser`` numbers ``seq`` (None if it was not shown it): a dispute
        is read by the number its reader gave the event, never by the raiser's (issue 29)."""
        version = self.seen_version(key, raiser, seq) if isinstance(seq, int) else None
        if version is None:
            return None
        n = 0
        for e in self.stored_events(key):
            if vis.can_see(e.audience, viewer):
                n += 1
                if e.originator_version == version:
                    return n
            if e.originator_version >= version:
                return None
        return None

    def seen_version(self, key: uuid.UUID, viewer: str, seq: int) -> int | None:
        """The version of the event ``viewer`` numbers ``seq`` in its timeline (None if it was shown none): from the
        timeline read model, else (not attached, or not there yet) counted from the store."""
        if self.reads is not None:
            found = self.reads.seen_version(str(key), viewer, seq)
            if found is not None:
                return int(found)
        n = 0
        for e in self.stored_events(key):
            if vis.can_see(e.audience, viewer):
                n += 1
                if n == seq:
                    return int(e.originator_version)
        return None

    def timezone_for(self, game_id: str, viewer: str) -> str:
        """The IANA zone a viewer sees times in: their own choice, else the game's."""
        return self._read(game_id, lambda game: game.timezone_for(viewer))

    def iter_events(self, game_id: str) -> Iterator[Any]:
        return self.stored_events(self.get_game(game_id, for_update=False).id)

    def stored_events(self, key: uuid.UUID, *, lte: int | None = None) -> Iterator[Any]:
        """The game's events from the store (up to version ``lte``), each of its ruleset's own class (their
        fields differ by kind)."""
        return iter(self.events.get(key, lte=lte))


def _post_facts(events: Any, earlier_shown: bool) -> dict[str, dict]:
    """Each post's text now, whether it is hidden (and why) or edited, and the post it answers, from the events
    (``posts.quote_heads`` reads them; the read models keep them in ``rm_posts``)."""
    facts: dict[str, dict] = {}
    for e in events:
        kind = type(e).__name__
        if kind == "PostMade":
            facts[e.post_id] = {
                "text": e.text,
                "reply_to": getattr(e, "reply_to", None),
                "hidden": False,
                "reason": None,
                "edited": False,
                "earlier_shown": earlier_shown,
            }
        elif kind == "PostEdited" and e.post_id in facts:
            facts[e.post_id].update(text=e.text, edited=True)
        elif kind == "PostHidden" and e.post_id in facts:
            facts[e.post_id].update(hidden=True, reason=e.reason)
    return facts


def event_data(e: Any) -> dict:
    """An event's payload, without the envelope fields."""
    return {k: v for k, v in e.__dict__.items() if k not in EVENT_FIELDS_HIDDEN}


def setup_phase(game: Game) -> dict:
    """The phase every game begins in, before its ruleset's first: ``setup``, at version 1, with the labels its
    ruleset gives a phase at setup (``phase_labels``)."""
    return {"phase": "setup", **game.ruleset.phase_labels, "step": "setup", "version": 1}
