"""The game service: an eventsourcing Application that runs commands against one Game aggregate
each, with optimistic concurrency (a conflicting save is retried on fresh state, bounded, then
reported as 409), and answers every accepted command with a receipt.

The clock and entropy are injected, so tests can pin them; the store is chosen by the
environment it is given (SQLite, PostgreSQL or in-memory), never by reading ``os.environ``.
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
import hashlib
import json
import logging
import secrets
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from eventsourcing.application import AggregateNotFoundError, Application, Repository, project_aggregate
from eventsourcing.persistence import IntegrityError, JSONTranscoder, Transcoding
from eventsourcing.utils import Environment

from domain import limits
from domain import rulesets as _installed  # noqa: F401  (registers the installed rulesets)
from domain import visibility as vis
from domain.dice import Roller, SeededRoller
from domain.errors import Conflict, DomainError, Forbidden, NotFound, RuleViolation, Unauthorized
from domain.ids import GM
from domain.platform import ruleset as rulesets
from domain.powers import rules
from domain.powers.game import Game, canonical, fold
from domain.powers.state import STATE_TYPES
from domain.powers.views import board_view
from projections.keys import RECORDER_TOPICS, KeyRow, POPOKeyedRecorder

log = logging.getLogger("emissary.service")

T = TypeVar("T")
EVENT_FIELDS_HIDDEN = {"originator_id", "originator_version", "timestamp", "audience", "actor", "originator_topic"}


def utcnow() -> datetime:
    """The production clock."""
    return datetime.now(timezone.utc)


def hash_token(token: str) -> str:
    """Tokens are stored only as hashes."""
    return hashlib.sha256(token.encode()).hexdigest()


class DataclassAsDict(Transcoding):
    """Snapshot transcoding for the plain dataclasses of domain state."""

    def __init__(self, cls: type) -> None:
        self.type = cls
        self.name = f"emissary.{cls.__name__}"
        self._fields = [f.name for f in fields(cls)]

    def encode(self, obj: Any) -> dict:
        return {name: getattr(obj, name) for name in self._fields}

    def decode(self, data: dict) -> Any:
        return self.type(**data)


@dataclass
class Receipt:
    """What every accepted command returns: sequence number, server time, digest of what was recorded."""

    game_id: str
    sequence: int
    recorded_at: str
    digest: str
    events: list[str]
    result: dict = field(default_factory=dict)
    replayed: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class CommandKey:
    """An idempotency key (HTTP ``Idempotency-Key``, a mail's Message-ID) and a fingerprint of the
    request it came with; an empty fingerprint is not compared (a Message-ID names its mail)."""

    value: str
    fingerprint: str = ""


class GameRepository(Repository):
    """The library's repository, folding with ``domain.powers.game.fold``: a rollback's StateRestored
    re-folds the game to its target version, which this repository reads from the store (through a
    snapshot when one is at or before that version)."""

    def get(self, aggregate_id: Any, *, version: int | None = None, projector_func: Any = None,
            **kwargs: Any) -> Any:
        if projector_func is None or projector_func is project_aggregate:
            projector_func = self._fold
        return super().get(aggregate_id, version=version, projector_func=projector_func, **kwargs)

    def _fold(self, initial: Any, events: Any) -> Any:
        return fold(initial, events, lambda gid, v: self._reconstruct_aggregate(gid, v, self._fold).state)


class Games(Application):
    """Commands and queries over Powers games."""

    name = "Emissary"

    def __init__(self, env: dict[str, str] | None = None, *, clock: Callable[[], datetime] = utcnow,
                 entropy: Callable[[int], str] = secrets.token_hex, snapshot_interval: int = 100,
                 retries: int = 8, roller_factory: Callable[[Game], Roller] | None = None) -> None:
        self.snapshotting_intervals = {Game: snapshot_interval}
        self.clock = clock
        self.entropy = entropy
        self.retries = retries
        self.roller_factory = roller_factory or (lambda game: SeededRoller(
            game.state.seed or "00", legacy=game.state.seed is not None and game.state.seed_root is None))
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self.conflicts = 0  # saves that lost a race with another process (each is retried or reported as 409)
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

    def construct_repository(self) -> GameRepository:
        library = super().construct_repository()
        repository = GameRepository(self.events, snapshot_store=self.snapshots, fastforward=library.fastforward,
                                    fastforward_skipping=library.fastforward_skipping,
                                    deepcopy_from_cache=library.deepcopy_from_cache)
        repository.cache = library.cache
        return repository

    def _take_snapshots(self, processing_event: Any) -> None:
        # Snapshot the aggregate we already hold whenever a save crosses a multiple of the interval,
        # instead of the library's re-reading it from the store at that exact version.
        if self.snapshots is None:
            return
        for aggregate in processing_event.aggregates.values():
            interval = self.snapshotting_intervals.get(type(aggregate))
            versions = [e.originator_version for e in processing_event.events
                        if e.originator_id == aggregate.id]
            if not interval or not versions:
                continue
            if (min(versions) - 1) // interval != aggregate.version // interval:
                snapshot_class = getattr(type(aggregate), "Snapshot", type(self).snapshot_class)
                self.snapshots.put([snapshot_class.take(aggregate)])

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        self._saving.games = {o.id: o for o in objs if isinstance(o, Game)}
        try:
            return super().save(*objs, **kwargs)
        finally:
            self._saving.games = {}

    def just_saved(self, game_id: uuid.UUID, version: int) -> Game | None:
        """The game this thread is saving, if it stands at ``version`` (the hooks after recording read it
        instead of the store; it is not mutated meanwhile, its command holding the game's lock)."""
        game = getattr(self._saving, "games", {}).get(game_id)
        return game if game is not None and game.version == version else None

    def _notify(self, recordings: list[Any]) -> None:
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
        for cls in STATE_TYPES:
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
            game = self.repository.get(key, version=version, deepcopy_from_cache=for_update)
        except AggregateNotFoundError:
            raise NotFound("no such game", field="game_id") from None
        rulesets.for_game(game.state.ruleset, game.state.rules_version)  # installed, else RulesetNotInstalled
        return game

    def _lock(self, game_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(str(game_id), threading.Lock())

    def _evict(self, game: Game) -> None:
        if self.repository.cache is not None:
            with contextlib.suppress(KeyError):
                self.repository.cache.get(game.id, evict=True)

    def _cached(self, game_id: str) -> Game | None:
        """The cached aggregate, without reading the store (None if not cached or no cache)."""
        if self.repository.cache is None:
            return None
        try:
            return self.repository.cache.get(uuid.UUID(str(game_id)))
        except (KeyError, ValueError):
            return None

    def _read(self, game_id: str, query: Callable[[Game], T], version: int | None = None) -> T:
        """Answer a query from the cached game (fast-forwarded to the store), under the game's lock."""
        if version is not None:
            _check_presented_token(self.get_game(game_id, for_update=False))
            return query(self.get_game(game_id, version, for_update=False))
        with self._lock(game_id):
            game = self.get_game(game_id, for_update=False)
            _check_presented_token(game)
            return query(game)

    def _run(self, game_id: str, principal: str, command: Callable[[Game], T], key: CommandKey | None = None,
             result: Callable[[T], dict] | None = None, key_scope: str | None = None) -> Receipt:
        """Run a command on current state and save; retry on a concurrent save, else 409.

        The receipt's ``result`` is ``result(value)`` of what the command returned (or that value, if
        a dict). With a key, the receipt is saved under it in the same transaction as the events, and
        a command whose key is already recorded returns that first receipt and records nothing.

        Within one process, commands on one game take turns on the cached aggregate (no deep
        copy); across processes, the store's optimistic concurrency decides. Any failure evicts
        the cached aggregate, so a refused or conflicting command leaves no trace in memory either.
        """
        fresh = False
        for attempt in range(1, self.retries + 1):
            with self._lock(game_id):
                # The cached aggregate is used as it is (no read of the store): if another process
                # recorded events meanwhile, our save conflicts and the retry reads them.
                game = self._cached(game_id) if not fresh else None
                fresh = game is None
                game = game or self.get_game(game_id, for_update=False)
                scope = key_scope or str(game.id)
                try:
                    # A token revoked by another process: the revocation is an event, so a stale cache
                    # makes this save conflict, and the retry checks the token against fresh state.
                    _check_presented_token(game)
                    if key is not None:
                        first = self.first_receipt(scope, principal, key)
                        if first is not None:
                            return first
                    value = command(game)
                    receipt = self._receipt(game, principal, list(game.pending_events))
                    receipt.result = result(value) if result else (value if isinstance(value, dict) else {})
                    row = None if key is None else KeyRow(scope, principal, key.value, key.fingerprint,
                                                          json.dumps(receipt.as_dict()))
                    self.save(game, command_key=row)
                except IntegrityError:
                    self._evict(game)
                    fresh = True
                    self.conflicts += 1
                    log.info("concurrent save, retrying game=%s attempt=%s", game_id, attempt)
                    continue
                except DomainError:
                    self._evict(game)
                    if fresh:
                        raise
                    fresh = True  # refused on cached state: check once more against the store
                    continue
                except BaseException:
                    self._evict(game)
                    raise
                return receipt
        raise Conflict(f"the game was busy; nothing was recorded after {self.retries} attempts, try again")

    def first_receipt(self, game_id: str, principal: str, key: CommandKey) -> Receipt | None:
        """The receipt a command sent with this key first got (marked replayed), or None if the key is
        new; the same key sent with a different request is refused, naming ``Idempotency-Key``."""
        row = self.recorder.select_command_key(game_id, principal, key.value)
        if row is None:
            return None
        if key.fingerprint and row.fingerprint and row.fingerprint != key.fingerprint:
            raise RuleViolation("this Idempotency-Key was already used for a different request; "
                                "use a new key for a new request", field="Idempotency-Key")
        return Receipt(**{**json.loads(row.receipt), "replayed": True})

    def _receipt(self, game: Game, principal: str, events: list[Any]) -> Receipt:
        shown = [e for e in events if vis.can_see(e.audience, principal)]
        body = [{"type": type(e).__name__, "data": event_data(e)} for e in shown]
        recorded_at = (events[-1].timestamp if events else self.clock()).isoformat()
        return Receipt(game_id=str(game.id), sequence=game.state.sequence_for(principal), recorded_at=recorded_at,
                       digest=hashlib.sha256(canonical(body).encode()).hexdigest(),
                       events=[b["type"] for b in body])

    def authenticate(self, game_id: str, token: str | None) -> str:
        """The principal (``gm`` or a power id) a bearer token stands for in this game."""
        if not token:
            raise Unauthorized("send 'Authorization: Bearer <token>'", field="authorization")
        presented_token.set(None)  # the check below reads the store itself
        principal = self.authenticate_cached(game_id, token)
        if principal is None:  # not cached, or issued by another process since: read the store
            principal = self._read(game_id, lambda game: game.credential(hash_token(token)))
        if principal is None:
            raise Unauthorized("this token is not valid for this game", field="authorization")
        return principal

    def authenticate_hash(self, game_id: str, token_hash: str) -> str:
        """The principal for the hash of a token (a browser session keeps only the hash), read from the store."""
        presented_token.set(None)
        principal = self._read(game_id, lambda game: game.credential(token_hash))
        if principal is None:
            raise Unauthorized("this sign-in is no longer valid (the link was replaced)", field="session")
        return principal

    def authenticate_cached(self, game_id: str, token: str | None) -> str | None:
        """The principal for a token from the cached game only (no I/O), or None if that cannot tell."""
        cached = self._cached(game_id) if token else None
        return cached.credential(hash_token(token)) if cached is not None else None

    @staticmethod
    def require_gm(principal: str) -> None:
        if principal != GM:
            raise Forbidden("only the GM may do this", field="authorization")

    @staticmethod
    def require_power(game: Game, principal: str, power_id: str) -> None:
        """A power acts for itself; the GM acts for adversaries (GM-10)."""
        ps = game.power(power_id)
        if principal == power_id:
            return
        if principal == GM and ps.subclass == rules.ADVERSARY:
            return
        raise Forbidden("you may act only for your own power", field="power_id")

    def _roller(self, game: Game) -> Roller:
        return self.roller_factory(game)

    # ------------------------------------------------------------------ setup commands

    def create_game(self, name: str, gm_name: str = "GM", timezone_name: str = "UTC", months_per_season: int = 2,
                    options: dict | None = None, *, ruleset: str = "powers",
                    key: CommandKey | None = None) -> tuple[str, str | None, Receipt]:
        """Create a game of a registered ruleset (UnknownRuleset, 422, otherwise); returns (game_id, GM token,
        receipt). A retry with the key of a game already created returns that game's first receipt and no
        token (tokens are kept only as hashes)."""
        if key is not None and (first := self.first_receipt("", "", key)) is not None:
            return first.game_id, None, first
        chosen = rulesets.get(ruleset)
        _check_timezone(timezone_name)
        game = chosen.start(name, gm_name, timezone_name, months_per_season, options)
        token = secrets.token_urlsafe(24)
        game.issue_credential(GM, hash_token(token))
        receipt = self._receipt(game, GM, list(game.pending_events))
        row = None if key is None else KeyRow("", "", key.value, key.fingerprint, json.dumps(receipt.as_dict()))
        try:
            self.save(game, command_key=row)
        except IntegrityError:
            if key is None or (first := self.first_receipt("", "", key)) is None:
                raise
            return first.game_id, None, first
        return str(game.id), token, receipt

    def add_power(self, game_id: str, principal: str, name: str, cls: str, subclass: str,
                  options: dict | None = None, *, key: CommandKey | None = None) -> tuple[str, str | None, Receipt]:
        """GM adds a power; returns (power_id, its token, receipt); no token on a replayed key."""
        self.require_gm(principal)
        token = secrets.token_urlsafe(24)
        power_id = _slug(name)

        def command(game: Game) -> str:
            pid = power_id
            n = 2
            while pid in game.state.powers or pid == GM:
                pid, n = f"{power_id}-{n}", n + 1
            game.add_power(pid, name, cls, subclass, options)
            game.issue_credential(pid, hash_token(token))
            return pid

        receipt = self._run(game_id, principal, command, key, lambda pid: {"power_id": pid})
        return receipt.result["power_id"], None if receipt.replayed else token, receipt

    def reissue_link(self, game_id: str, principal: str, who: str, *,
                     key: CommandKey | None = None) -> tuple[str | None, Receipt]:
        """GM: revoke the sign-in link of the GM or a power and issue a new one; returns the new token
        (None on a replayed key: tokens are kept only as hashes)."""
        self.require_gm(principal)
        token = secrets.token_urlsafe(24)
        receipt = self._run(game_id, principal, lambda g: g.reissue_credential(who, hash_token(token)), key,
                            lambda _: {"principal": who})
        return None if receipt.replayed else token, receipt

    def grant_asset(self, game_id: str, principal: str, power_id: str, name: str, cls: str, rank: int,
                    asset_id: str | None = None, assured: bool = False, critical: bool = False,
                    novel: bool = False, *, key: CommandKey | None = None) -> Receipt:
        self.require_gm(principal)
        aid = asset_id or f"{cls}-{_slug(name)}-{uuid.uuid4().hex[:6]}"
        return self._run(game_id, principal, lambda g: g.grant_asset(
            aid, power_id, name, cls, rank, assured=assured, critical=critical, novel=novel), key,
            lambda _: {"asset_id": aid})

    def set_months(self, game_id: str, principal: str, months: int, *, key: CommandKey | None = None) -> Receipt:
        self.require_gm(principal)
        return self._run(game_id, principal, lambda g: g.set_months(months), key)

    def advance(self, game_id: str, principal: str, expected_step: str | None = None, *,
                key: CommandKey | None = None) -> Receipt:
        """GM moves the calendar on one step, if the game is still at ``expected_step`` (else 409)."""
        self.require_gm(principal)
        seed = self.entropy(32)
        return self._run(game_id, principal, lambda g: g.advance(self.clock(), seed, expected_step), key,
                         lambda step: {"step": step})

    # ------------------------------------------------------------------ planning

    def submit_action(self, game_id: str, principal: str, power_id: str, *, key: CommandKey | None = None,
                      **draft: Any) -> Receipt:
        """Submit (and, unless ``roll`` is false, roll) an action; returns its id and dice in the receipt."""
        action_id = f"act-{uuid.uuid4().hex[:10]}"

        def command(game: Game) -> dict:
            self.require_power(game, principal, power_id)
            game.submit_action(power_id, action_id, now=self.clock(), roller=self._roller(game),
                               actor=principal, salt=self.entropy(16), **draft)
            return self._action_result(game, action_id)

        return self._run(game_id, principal, command, key)

    def _action_result(self, game: Game, action_id: str) -> dict:
        a = game.action(action_id)
        t = game.tally(a)
        out: dict[str, Any] = {"action_id": action_id, "status": a.status, "digest": a.digest, "salt": a.salt}
        if a.pool is not None:
            out.update({"roll_no": a.pool.roll_no, "faces": [d.face for d in a.pool.dice],
                        "dice": [{"face": d.face, "asset": d.asset, "converted": d.converted} for d in a.pool.dice],
                        "locked": a.pool.locked, "successes": t.successes, "consequences": t.consequences,
                        "pool_size": t.pool_size})
        return out

    def _own_action(self, game: Game, principal: str, action_id: str):
        a = game.state.actions.get(action_id)
        if a is None or (principal != GM and a.power != principal):
            raise NotFound(f"no action {action_id!r} of yours this month", field="action_id")
        self.require_power(game, principal, a.power)
        return a

    def roll_action(self, game_id: str, principal: str, action_id: str, *, key: CommandKey | None = None,
                    **pool: Any) -> Receipt:
        def command(game: Game) -> dict:
            self._own_action(game, principal, action_id)
            game.roll_action(action_id, now=self.clock(), roller=self._roller(game), actor=principal,
                             salt=self.entropy(16), **pool)
            return self._action_result(game, action_id)

        return self._run(game_id, principal, command, key)

    def lock_conversions(self, game_id: str, principal: str, action_id: str, convert: int | None = None,
                         dice: list[int] | None = None, *, key: CommandKey | None = None) -> Receipt:
        def command(game: Game) -> dict:
            self._own_action(game, principal, action_id)
            game.lock_conversions(action_id, now=self.clock(), convert=convert, dice=dice, actor=principal)
            return self._action_result(game, action_id)

        return self._run(game_id, principal, command, key)

    def discard_action(self, game_id: str, principal: str, action_id: str, *, key: CommandKey | None = None) -> Receipt:
        def command(game: Game) -> None:
            self._own_action(game, principal, action_id)
            game.discard_action(action_id, now=self.clock(), actor=principal)

        return self._run(game_id, principal, command, key)

    def set_difficulty(self, game_id: str, principal: str, action_id: str, value: int, sealed: bool = False,
                       tiers: dict | None = None, *, key: CommandKey | None = None) -> Receipt:
        """GM declares a difficulty openly or seals it by hash commitment (GM-2)."""
        self.require_gm(principal)
        nonce = self.entropy(16)
        return self._run(game_id, principal, lambda g: g.set_difficulty(
            action_id, value, sealed=sealed, nonce=nonce, tiers=tiers), key)

    def set_ruling(self, game_id: str, principal: str, action_id: str, resistible: bool,
                   resisters: list[str], *, key: CommandKey | None = None) -> Receipt:
        self.require_gm(principal)
        return self._run(game_id, principal, lambda g: g.set_ruling(
            action_id, resistible=resistible, resisters=resisters), key)

    def propose_consequence(self, game_id: str, principal: str, action_id: str, text: str,
                            effects: list[dict], *, key: CommandKey | None = None) -> Receipt:
        self.require_gm(principal)
        cid = f"csq-{uuid.uuid4().hex[:8]}"
        return self._run(game_id, principal, lambda g: g.propose_consequence(action_id, cid, text, effects), key,
                         lambda _: {"consequence_id": cid})

    def accept_consequence(self, game_id: str, principal: str, action_id: str, consequence_id: str, *,
                           key: CommandKey | None = None) -> Receipt:
        def command(game: Game) -> None:
            self._own_action(game, principal, action_id)
            game.accept_consequence(action_id, consequence_id, actor=principal)

        return self._run(game_id, principal, command, key)

    # ------------------------------------------------------------------ resolution and resistance

    def resolve(self, game_id: str, principal: str, announcement: str = "", expected_step: str | None = None, *,
                key: CommandKey | None = None) -> Receipt:
        """GM resolves the month (P.1.4) and publishes it; the resistance window opens."""
        self.require_gm(principal)
        return self._run(game_id, principal, lambda g: g.resolve(
            now=self.clock(), roller=self._roller(g), announcement=announcement, expected_step=expected_step),
            key, lambda queue: {"queue": queue})

    def declare_reaction(self, game_id: str, principal: str, power_id: str, action_id: str,
                         assets: list[dict], convert: int | None = 0, *, key: CommandKey | None = None) -> Receipt:
        """A power resists a provisional action alone (P-RES-1..4)."""
        reaction_id = f"rx-{uuid.uuid4().hex[:10]}"

        def command(game: Game) -> dict:
            self.require_power(game, principal, power_id)
            game.declare_reaction(power_id, reaction_id, action_id, now=self.clock(), roller=self._roller(game),
                                  assets=assets, convert=convert, actor=principal)
            r = game.state.reactions[reaction_id]
            t = game.tally(game.state.actions[action_id], r.pool)
            return {"reaction_id": reaction_id, "faces": [d.face for d in r.pool.dice], "roll_no": r.pool.roll_no,
                    "locked": r.pool.locked, "successes": t.successes, "consequences": t.consequences}

        return self._run(game_id, principal, command, key)

    def lock_reaction(self, game_id: str, principal: str, reaction_id: str, convert: int, *,
                      key: CommandKey | None = None) -> Receipt:
        def command(game: Game) -> None:
            r = game.state.reactions.get(reaction_id)
            if r is None or (principal != GM and r.power != principal):
                raise NotFound(f"no reaction {reaction_id!r} of yours", field="reaction_id")
            game.lock_reaction(reaction_id, now=self.clock(), convert=convert, actor=principal)

        return self._run(game_id, principal, command, key)

    def waive(self, game_id: str, principal: str, power_id: str, *, key: CommandKey | None = None) -> Receipt:
        def command(game: Game) -> None:
            self.require_power(game, principal, power_id)
            game.waive_reactions(power_id, now=self.clock(), actor=principal)

        return self._run(game_id, principal, command, key)

    def close_window(self, game_id: str, principal: str, window_id: str, expected_step: str | None = None, *,
                     key: CommandKey | None = None) -> Receipt:
        """GM: close a window now, before its deadline if need be; a no-op if it is already closed.
        (Workers close windows when due with ``close_due_window``.)"""
        if principal != GM:
            raise Forbidden("only the GM may close a window", field="authorization")

        def command(game: Game) -> bool:
            game.expect_step(expected_step)
            if window_id not in game.state.windows:
                raise NotFound(f"no open window {window_id!r}", field="window_id")
            return game.close_window(window_id, now=self.clock(), reason="closed by the GM", force=True)

        return self._run(game_id, principal, command, key, lambda closed: {"closed": closed})

    # ------------------------------------------------------------------ what powers learn and share

    def share_secret(self, game_id: str, principal: str, power_id: str, asset_id: str, to: str, *,
                     key: CommandKey | None = None) -> Receipt:
        """Share a Secret with another power, irrevocably ([003:114])."""
        def command(game: Game) -> None:
            self.require_power(game, principal, power_id)
            game.share_secret(power_id, asset_id, to)

        return self._run(game_id, principal, command, key)

    def grant_visibility(self, game_id: str, principal: str, to: str, text: str, source: str = "ruling",
                         about: str | None = None, *, key: CommandKey | None = None) -> Receipt:
        """GM: show a power what it learned (a Seeking success, a ruling)."""
        self.require_gm(principal)
        return self._run(game_id, principal, lambda g: g.grant_visibility(to, text, source=source, about=about), key)

    def set_influence(self, game_id: str, principal: str, power_id: str, hex_id: str, amount: int, *,
                      key: CommandKey | None = None) -> Receipt:
        self.require_gm(principal)
        return self._run(game_id, principal, lambda g: g.set_influence(power_id, hex_id, amount), key)

    def set_timezone(self, game_id: str, principal: str, power_id: str, timezone_name: str, *,
                     key: CommandKey | None = None) -> Receipt:
        """A power chooses the time zone its feed and deadlines are shown in."""
        _check_timezone(timezone_name)

        def command(game: Game) -> None:
            self.require_power(game, principal, power_id)
            game.set_timezone(power_id, timezone_name)

        return self._run(game_id, principal, command, key)

    def set_contact(self, game_id: str, principal: str, power_id: str, email: str | None, mode: str, *,
                    key: CommandKey | None = None) -> Receipt:
        """Where a power's notifications go (immediate, daily digest, or off)."""
        def command(game: Game) -> None:
            self.require_power(game, principal, power_id)
            game.set_contact(power_id, email, mode)

        return self._run(game_id, principal, command, key)

    # ------------------------------------------------------------------ rewind

    def phases(self, game_id: str) -> list[dict]:
        """Every phase the game has begun, with the version at which it stood fully opened."""
        out = [{"phase": "setup", "season": 0, "month": 0, "step": "setup", "version": 1}]
        if self.reads is not None:
            return out + self.reads.phases(str(self.get_game(game_id, for_update=False).id))
        for e in self.iter_events(game_id):
            if type(e).__name__ == "StepBegan":
                out.append({"phase": phase_id(e.season, e.month, e.step), "season": e.season, "month": e.month,
                            "step": e.step, "version": e.originator_version})
        return out

    def recent_phases(self, game_id: str, limit: int = 60) -> list[dict]:
        """The latest ``limit`` phases the game began (not setup), oldest first: a bounded list for pages."""
        if self.reads is None:
            return [p for p in self.phases(game_id) if p["phase"] != "setup"][-limit:]
        key = str(self.get_game(game_id, for_update=False).id)
        return self.reads.phases(key, 0, limit, newest_first=True)[::-1]

    def phases_page(self, game_id: str, after: int = 0, limit: int = 100) -> tuple[list[dict], int | None]:
        """A page of the phase list: the phases after the first ``after``, and the ``after`` of the next page
        (None at the end). From the phase index (the whole list if no read models are attached)."""
        if self.reads is None:
            everything = self.phases(game_id)
            items = everything[after:after + limit]
            return items, (after + limit if after + limit < len(everything) else None)
        setup = [] if after >= 1 else [{"phase": "setup", "season": 0, "month": 0, "step": "setup", "version": 1}]
        want = limit - len(setup)
        rows = self.reads.phases(str(self.get_game(game_id, for_update=False).id), max(after - 1, 0), want + 1)
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

    def view_at(self, game_id: str, principal: str, *, phase: str | None = None, version: int | None = None,
                as_viewer: str | None = None) -> dict:
        """The board as it stood at a past phase or version: the GM as anyone, a player as themselves."""
        viewer = as_viewer or principal
        if principal != GM and viewer != principal:
            raise Forbidden("you may look only at your own view of the past", field="as")
        v = self.phase_version(game_id, phase, version)
        game = self.get_game(game_id, v, for_update=False)
        if viewer != GM and viewer not in game.state.powers:
            raise NotFound(f"{viewer!r} was not in the game at that time", field="as")
        out = board_view(game, viewer)
        out["at"] = {"version": v, "phase": phase} if principal == GM else {"phase": phase}
        return out

    def rollback(self, game_id: str, principal: str, reason: str, *, phase: str | None = None,
                 version: int | None = None, key: CommandKey | None = None) -> Receipt:
        """GM: return the live game to the start of a phase; history stays, marked superseded."""
        self.require_gm(principal)
        v = self.phase_version(game_id, phase, version)
        gid = self.get_game(game_id, for_update=False).id
        if v != 1 and not any(type(e).__name__ == "StepBegan" for e in self.events.get(gid, gt=v - 1, lte=v)):
            raise RuleViolation("roll back to the start of a phase (see the phase list)", field="version")
        restored = self.get_game(game_id, v, for_update=False).state
        seed = self.entropy(32)
        return self._run(game_id, principal, lambda g: g.rollback(v, restored, reason=reason, now=self.clock(),
                                                                   seed=seed), key,
                         lambda _: {"to_version": v, "phase": phase})

    def fork(self, game_id: str, principal: str, name: str, reason: str = "", *, phase: str | None = None,
             version: int | None = None, key: CommandKey | None = None) -> tuple[str, Receipt]:
        """GM: a new game from this one's history up to a phase (a sandbox); returns (new game id, receipt).
        A key is kept under the source game: a retry returns the first fork and copies nothing."""
        self.require_gm(principal)
        v = self.phase_version(game_id, phase, version)
        source = self.get_game(game_id, for_update=False)
        if key is not None and (first := self.first_receipt(str(source.id), principal, key)) is not None:
            return first.result["game_id"], first
        new_id = uuid.uuid4()
        copied = [dataclasses.replace(e, originator_id=new_id)
                  for e in self.events.get(source.id, lte=v)]
        self.events.put(copied)
        interval = self.snapshotting_intervals.get(Game)
        if self.snapshots is not None and interval:
            for version_ in range(interval, v + 1, interval):
                self.take_snapshot(new_id, version=version_)
        seed = self.entropy(32)
        receipt = self._run(str(new_id), principal, lambda g: g.mark_forked(
            str(source.id), v, name=name, reason=reason, seed=seed), key,
            lambda _: {"game_id": str(new_id), "source_game": str(source.id), "source_version": v},
            key_scope=str(source.id))
        return receipt.result["game_id"], receipt

    # ------------------------------------------------------------------ windows

    def set_deadline(self, game_id: str, principal: str, window_id: str, closes_at: datetime, *,
                     key: CommandKey | None = None) -> Receipt:
        """GM: move a window's deadline. A naive time is read in the game's time zone, then kept in UTC."""
        self.require_gm(principal)

        def command(game: Game) -> None:
            moment = closes_at
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=ZoneInfo(game.state.timezone))
            game.set_deadline(window_id, moment.astimezone(timezone.utc), now=self.clock())

        return self._run(game_id, principal, command, key)

    def request_extension(self, game_id: str, principal: str, power_id: str, window_id: str, hours: float,
                          reason: str = "", *, key: CommandKey | None = None) -> Receipt:
        request_id = f"ext-{uuid.uuid4().hex[:10]}"

        def command(game: Game) -> None:
            self.require_power(game, principal, power_id)
            game.request_extension(power_id, window_id, hours, request_id, now=self.clock(), reason=reason)

        return self._run(game_id, principal, command, key, lambda _: {"request_id": request_id})

    def grant_extension(self, game_id: str, principal: str, request_id: str, hours: float | None = None, *,
                        key: CommandKey | None = None) -> Receipt:
        """GM: grant an extension request; a second grant of the same request changes nothing."""
        self.require_gm(principal)
        return self._run(game_id, principal, lambda g: g.grant_extension(request_id, now=self.clock(), hours=hours),
                         key, lambda granted: {"granted": granted})

    def refuse_extension(self, game_id: str, principal: str, request_id: str, reason: str = "", *,
                         key: CommandKey | None = None) -> Receipt:
        self.require_gm(principal)
        return self._run(game_id, principal, lambda g: g.refuse_extension(request_id, reason), key)

    def declare_ready(self, game_id: str, principal: str, power_id: str, *, key: CommandKey | None = None) -> Receipt:
        def command(game: Game) -> None:
            self.require_power(game, principal, power_id)
            game.declare_ready(power_id, now=self.clock())

        return self._run(game_id, principal, command, key)

    def close_due_window(self, game_id: str, window_id: str) -> bool:
        """Workers: close a window if it is due; a no-op if it is closed, gone, or not due yet."""
        def command(game: Game) -> bool:
            w = game.state.windows.get(window_id)
            if w is None or w.closed or self.clock() < datetime.fromisoformat(w.final_closes_at):
                return False
            return game.close_window(window_id, now=self.clock(), reason="deadline")

        return self._run(game_id, "system", command, result=lambda closed: {"closed": closed}).result["closed"]

    def queue_due_reminders(self, game_id: str, window_id: str) -> list[str]:
        """Workers: queue the reminders now due for a window (each offset once); returns who is reminded."""
        def command(game: Game) -> list[str]:
            w = game.state.windows.get(window_id)
            if w is None or w.closed:
                return []
            return game.queue_reminders(window_id, game.state.options.get("reminder_hours", []), now=self.clock())

        return self._run(game_id, "system", command, result=lambda who: {"reminded": who}).result["reminded"]

    # ------------------------------------------------------------------ queries

    def view(self, game_id: str, viewer: str, version: int | None = None) -> dict:
        """The board as ``viewer`` may see it (P.4), now or at a past version."""
        return self._read(game_id, lambda game: board_view(game, viewer), version)

    def visible_events(self, game_id: str, viewer: str, after: int = 0, limit: int = 500) -> list[dict]:
        """The events ``viewer`` may see, numbered by their own gap-free sequence: a page from the viewer's
        timeline read model (read from the event store only when no read models are attached)."""
        key = self.get_game(game_id, for_update=False).id
        if self.reads is not None:
            return self.reads.timeline(str(key), viewer, after, limit)
        out: list[dict] = []
        seq = 0
        for e in self.events.get(key):
            if not vis.can_see(e.audience, viewer):
                continue
            seq += 1
            if seq <= after:
                continue
            item = {"seq": seq, "type": type(e).__name__, "actor": e.actor, "at": e.timestamp.isoformat(),
                    "data": event_data(e)}
            if viewer == GM:
                item["version"] = e.originator_version
                item["audience"] = list(e.audience)
            out.append(item)
            if len(out) >= limit:
                break
        return out

    def timezone_for(self, game_id: str, viewer: str) -> str:
        """The IANA zone a viewer sees times in: their own choice, else the game's."""
        return self._read(game_id, lambda game: game.timezone_for(viewer))

    def iter_events(self, game_id: str) -> Iterator[Any]:
        return iter(self.events.get(self.get_game(game_id, for_update=False).id))


# The hash of the bearer token this request presented (set by the API for the request's duration).
presented_token: contextvars.ContextVar[str | None] = contextvars.ContextVar("presented_token", default=None)


def _check_presented_token(game: Game) -> None:
    token_hash = presented_token.get()
    if token_hash is not None and game.credential(token_hash) is None:
        raise Unauthorized("this token is not valid for this game (it may have been replaced)",
                           field="authorization")


def phase_id(season: int, month: int, step: str) -> str:
    """A phase's name: ``s1-tidings``, ``s1m2-planning``, ``s1-cleanup``."""
    if step in ("tidings", "cleanup", "setup"):
        return f"s{season}-{step}" if step != "setup" else "setup"
    return f"s{season}m{month}-{step}"


def event_data(e: Any) -> dict:
    """An event's payload, without the envelope fields."""
    return {k: v for k, v in e.__dict__.items() if k not in EVENT_FIELDS_HIDDEN}


def _slug(name: str) -> str:
    out = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
    while "--" in out:
        out = out.replace("--", "-")
    return out[:32] or "power"


def _check_timezone(name: str) -> None:
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    limits.check_text(name, "timezone", limits.TIMEZONE, what="a time zone")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise RuleViolation(f"{name!r} is not an IANA time zone (such as Europe/Paris)", field="timezone") from None


__all__ = ["Games", "Receipt", "DomainError", "hash_token", "utcnow", "event_data"]
