"""The game service: an eventsourcing Application that runs commands against one Game aggregate
each, with optimistic concurrency (a conflicting save is retried on fresh state, bounded, then
reported as 409), and answers every accepted command with a receipt.

The clock and entropy are injected, so tests can pin them; the store is chosen by the
environment it is given (SQLite, PostgreSQL or in-memory), never by reading ``os.environ``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import logging
import secrets
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, TypeVar

from eventsourcing.application import AggregateNotFoundError, Application, Repository, project_aggregate
from eventsourcing.persistence import IntegrityError, JSONTranscoder, Transcoding
from eventsourcing.utils import Environment

from domain import rulesets as _installed  # noqa: F401  (registers the installed rulesets)
from domain import visibility as vis
from domain.dice import Roller, SeededRoller
from domain.errors import Conflict, DomainError, Forbidden, NotFound, RuleViolation, Unauthorized
from domain.ids import GM
from domain.platform import commands as platform
from domain.platform import ruleset as rulesets
from domain.platform.commands import Command, Context, is_system
from domain.platform.game import PlatformGame, digest, fold
from domain.powers import commands as pc
from domain.powers.game import Game
from domain.powers.ruleset import phase_id as phase_id  # re-exported: projections.projector names phases with it
from domain.powers.state import STATE_TYPES
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
class Caller:
    """Who sends a command: the principal (``gm``, a power id, or ``system`` for workers), its role, and
    the hash of the token it presented, checked against the state the command runs on (None when the
    service itself calls: workers, the CLI, tests)."""

    principal: str
    role: str
    token_hash: str | None = None

    @classmethod
    def of(cls, principal: str, token_hash: str | None = None) -> Caller:
        """The caller a principal authenticated as: the GM, or a player."""
        return cls(principal, "gm" if principal == GM else "player", token_hash)


SYSTEM_CALLER = Caller("system", "system")


class Turn:
    """The commands of one transaction on one game (``Games.run_turn``): each runs against the game as
    the previous ones left it; nothing is saved until the turn returns."""

    def __init__(self, games: Games, caller: Caller, game: Game) -> None:
        self.game = game
        self.caller = caller
        self.games = games

    def execute(self, command: Command) -> Any:
        """Run one command's handler (its ruleset's, or the platform's); returns its result."""
        if not isinstance(command, Command):
            raise TypeError(f"not a command: {command!r}")
        if is_system(command) and self.caller.role != "system":
            raise Forbidden(f"only the service's workers send {type(command).__name__}", field="command")
        handler = self.game.ruleset.handler(command)
        return handler(self.game, command, self.games.context(self.caller, self.game))

    def receipt(self) -> Receipt:
        """The receipt of what this turn has recorded so far, as the caller sees it."""
        return self.games.receipt_for(self.game, self.caller.principal)


@dataclass(frozen=True)
class CommandKey:
    """An idempotency key (HTTP ``Idempotency-Key``, a mail's Message-ID) and a fingerprint of the
    request it came with; an empty fingerprint is not compared (a Message-ID names its mail)."""

    value: str
    fingerprint: str = ""


class GameRepository(Repository):
    """The library's repository, folding with ``domain.platform.game.fold``: a rollback's StateRestored
    re-folds the game to its target version, which this repository reads from the store (through a
    snapshot when one is at or before that version)."""

    def get(self, aggregate_id: Any, *, version: int | None = None, projector_func: Any = None, **kwargs: Any) -> Any:
        if projector_func is None or projector_func is project_aggregate:
            projector_func = self._fold
        return super().get(aggregate_id, version=version, projector_func=projector_func, **kwargs)

    def _fold(self, initial: Any, events: Any) -> Any:
        return fold(initial, events, lambda gid, v: self._reconstruct_aggregate(gid, v, self._fold).state)


class Games(Application):
    """Commands and queries over Powers games."""

    name = "Emissary"

    def __init__(
        self,
        env: dict[str, str] | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
        entropy: Callable[[int], str] = secrets.token_hex,
        snapshot_interval: int = 100,
        retries: int = 8,
        roller_factory: Callable[[Game], Roller] | None = None,
    ) -> None:
        # Every installed ruleset's games are snapshotted along the way (a ruleset registered later, such as a
        # test's fake, is not).
        self.snapshotting_intervals = {Game: snapshot_interval}
        for installed in rulesets.registered().values():
            if installed.state_types:
                self.snapshotting_intervals.setdefault(installed.aggregate, snapshot_interval)
        self.clock = clock
        self.entropy = entropy
        self.retries = retries
        self.roller_factory = roller_factory or (
            lambda game: SeededRoller(
                game.state.seed or "00", legacy=game.state.seed is not None and game.state.seed_root is None
            )
        )
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
        repository = GameRepository(
            self.events,
            snapshot_store=self.snapshots,
            fastforward=library.fastforward,
            fastforward_skipping=library.fastforward_skipping,
            deepcopy_from_cache=library.deepcopy_from_cache,
        )
        repository.cache = library.cache
        return repository

    def _take_snapshots(self, processing_event: Any) -> None:
        # Snapshot the aggregate we already hold whenever a save crosses a multiple of the interval,
        # instead of the library's re-reading it from the store at that exact version.
        if self.snapshots is None:
            return
        for aggregate in processing_event.aggregates.values():
            interval = self.snapshotting_intervals.get(type(aggregate))
            versions = [e.originator_version for e in processing_event.events if e.originator_id == aggregate.id]
            if not interval or not versions:
                continue
            if (min(versions) - 1) // interval != aggregate.version // interval:
                snapshot_class = getattr(type(aggregate), "Snapshot", type(self).snapshot_class)
                self.snapshots.put([snapshot_class.take(aggregate)])

    def save(self, *objs: Any, **kwargs: Any) -> Any:
        self._saving.games = {o.id: o for o in objs if isinstance(o, PlatformGame)}
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
        types = list(STATE_TYPES)
        for installed in rulesets.registered().values():
            types += [cls for cls in installed.state_types if cls not in types]
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
            return query(self.get_game(game_id, version, for_update=False))
        with self._lock(game_id):
            return query(self.get_game(game_id, for_update=False))

    def _run(
        self,
        game_id: str,
        principal: str,
        command: Callable[[Game], T],
        key: CommandKey | None = None,
        result: Callable[[T], dict] | None = None,
        key_scope: str | None = None,
        token_hash: str | None = None,
    ) -> Receipt:
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
                    _check_token(game, token_hash)
                    if key is not None:
                        first = self.first_receipt(scope, principal, key)
                        if first is not None:
                            return first
                    value = command(game)
                    receipt = self._receipt(game, principal, list(game.pending_events))
                    receipt.result = result(value) if result else (value if isinstance(value, dict) else {})
                    row = (
                        None
                        if key is None
                        else KeyRow(scope, principal, key.value, key.fingerprint, json.dumps(receipt.as_dict()))
                    )
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
            raise RuleViolation(
                "this Idempotency-Key was already used for a different request; use a new key for a new request",
                field="Idempotency-Key",
            )
        return Receipt(**{**json.loads(row.receipt), "replayed": True})

    def receipt_for(self, game: Game, principal: str) -> Receipt:
        """The receipt of the events a game holds unsaved, as ``principal`` sees them."""
        return self._receipt(game, principal, list(game.pending_events))

    def _receipt(self, game: Game, principal: str, events: list[Any]) -> Receipt:
        shown = [e for e in events if vis.can_see(e.audience, principal)]
        body = [{"type": type(e).__name__, "data": event_data(e)} for e in shown]
        recorded_at = (events[-1].timestamp if events else self.clock()).isoformat()
        return Receipt(
            game_id=str(game.id),
            sequence=game.state.sequence_for(principal),
            recorded_at=recorded_at,
            digest=digest(body),
            events=[b["type"] for b in body],
        )

    def authenticate(self, game_id: str, token: str | None, *, fresh: bool = False) -> str:
        """The principal (``gm`` or a power id) a bearer token stands for in this game; ``fresh`` reads the
        store's latest state instead of trusting the cache (a read checks its token so)."""
        if not token:
            raise Unauthorized("send 'Authorization: Bearer <token>'", field="authorization")
        principal = None if fresh else self.authenticate_cached(game_id, token)
        if principal is None:  # not cached, or issued by another process since: read the store
            principal = self._read(game_id, lambda game: game.credential(hash_token(token)))
        if principal is None:
            raise Unauthorized("this token is not valid for this game", field="authorization")
        return principal

    def authenticate_hash(self, game_id: str, token_hash: str) -> str:
        """The principal for the hash of a token (a browser session keeps only the hash), read from the store."""
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

    def _roller(self, game: Game) -> Roller:
        return self.roller_factory(game)

    # ------------------------------------------------------------------ the one command path

    def run(
        self,
        caller: Caller,
        game_id: str,
        command: Command,
        key: CommandKey | None = None,
        *,
        key_scope: str | None = None,
    ) -> Receipt:
        """Run one command for ``caller`` (load, authorize, decide, save, retry on conflict, receipt).

        The handler is the game's ruleset's (or the platform's) for the command's class; its result is
        the receipt's ``result``. With a key, a retry returns the first receipt and records nothing (the
        key is kept under ``key_scope``, by default the game)."""
        return self.run_turn(caller, game_id, lambda turn: turn.execute(command) or {}, key, key_scope=key_scope)

    def run_many(
        self, caller: Caller, game_id: str, commands: Sequence[Command], key: CommandKey | None = None
    ) -> Receipt:
        """Run several commands in one transaction: all are recorded, or (the first refusal is raised) none.
        The receipt's result lists each command's result."""
        return self.run_turn(caller, game_id, lambda turn: {"results": [turn.execute(c) or {} for c in commands]}, key)

    def run_turn(
        self,
        caller: Caller,
        game_id: str,
        turn: Callable[[Turn], T],
        key: CommandKey | None = None,
        result: Callable[[T], dict] | None = None,
        *,
        key_scope: str | None = None,
    ) -> Receipt:
        """Run a turn, a function that builds and executes commands one after another against the game as
        they leave it (``turn.execute(command)``), in one transaction: what it returns (through ``result``)
        is the receipt's result; if it raises, nothing of it is recorded."""
        return self._run(
            game_id,
            caller.principal,
            lambda game: turn(Turn(self, caller, game)),
            key,
            result,
            key_scope=key_scope,
            token_hash=caller.token_hash,
        )

    def context(self, caller: Caller, game: Game) -> Context:
        """What a handler gets besides the game: the caller, the time, entropy, the game's roller, and the
        game's state at an earlier version (read from the store)."""
        return Context(
            principal=caller.principal,
            now=self.clock(),
            entropy=self.entropy,
            roller=self._roller,
            new_id=lambda prefix: f"{prefix}-{uuid.uuid4().hex[:10]}",
            state_at=lambda version: self.get_game(str(game.id), version, for_update=False).state,
        )

    # ------------------------------------------------------------------ setup commands

    def create_game(
        self,
        name: str,
        gm_name: str = "GM",
        timezone_name: str = "UTC",
        months_per_season: int = 2,
        options: dict | None = None,
        *,
        ruleset: str = "powers",
        key: CommandKey | None = None,
    ) -> tuple[str, str | None, Receipt]:
        """Create a game of a registered ruleset (UnknownRuleset, 422, otherwise); returns (game_id, GM token,
        receipt). A retry with the key of a game already created returns that game's first receipt and no
        token (tokens are kept only as hashes)."""
        if key is not None and (first := self.first_receipt("", "", key)) is not None:
            return first.game_id, None, first
        chosen = rulesets.get(ruleset)
        platform.check_timezone(timezone_name)
        game = chosen.start(name, gm_name, timezone_name, months_per_season, options)
        token, token_hash = new_token()
        game.issue_credential(GM, token_hash)
        receipt = self._receipt(game, GM, list(game.pending_events))
        row = None if key is None else KeyRow("", "", key.value, key.fingerprint, json.dumps(receipt.as_dict()))
        try:
            self.save(game, command_key=row)
        except IntegrityError:
            if key is None or (first := self.first_receipt("", "", key)) is None:
                raise
            return first.game_id, None, first
        return str(game.id), token, receipt

    # The methods below are the service's convenience API (tests and the CLI use them): each builds
    # its command and sends it through ``run``, as the HTTP, web, mail and worker channels do.

    def add_power(
        self,
        game_id: str,
        principal: str,
        name: str,
        cls: str,
        subclass: str,
        options: dict | None = None,
        *,
        key: CommandKey | None = None,
    ) -> tuple[str, str | None, Receipt]:
        """GM adds a power; returns (power_id, its token, receipt); no token on a replayed key."""
        token, token_hash = new_token()
        receipt = self.run(Caller.of(principal), game_id, pc.AddPower(name, cls, subclass, token_hash, options), key)
        return receipt.result["power_id"], None if receipt.replayed else token, receipt

    def reissue_link(
        self, game_id: str, principal: str, who: str, *, key: CommandKey | None = None
    ) -> tuple[str | None, Receipt]:
        """GM: revoke the sign-in link of the GM or a power and issue a new one; returns the new token
        (None on a replayed key: tokens are kept only as hashes)."""
        token, token_hash = new_token()
        receipt = self.run(Caller.of(principal), game_id, platform.ReissueLink(who, token_hash), key)
        return None if receipt.replayed else token, receipt

    def grant_asset(
        self,
        game_id: str,
        principal: str,
        power_id: str,
        name: str,
        cls: str,
        rank: int,
        asset_id: str | None = None,
        assured: bool = False,
        critical: bool = False,
        novel: bool = False,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        return self.run(
            Caller.of(principal),
            game_id,
            pc.GrantAsset(power_id, name, cls, rank, asset_id, assured, critical, novel),
            key,
        )

    def set_months(self, game_id: str, principal: str, months: int, *, key: CommandKey | None = None) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.SetMonths(months), key)

    def advance(
        self, game_id: str, principal: str, expected_step: str | None = None, *, key: CommandKey | None = None
    ) -> Receipt:
        """GM moves the calendar on one step, if the game is still at ``expected_step`` (else 409)."""
        return self.run(Caller.of(principal), game_id, pc.Advance(expected_step), key)

    # ------------------------------------------------------------------ planning

    def submit_action(
        self, game_id: str, principal: str, power_id: str, *, key: CommandKey | None = None, **draft: Any
    ) -> Receipt:
        """Submit (and, unless ``roll`` is false, roll) an action; returns its id and dice in the receipt."""
        return self.run(Caller.of(principal), game_id, pc.SubmitAction(power_id=power_id, **draft), key)

    def roll_action(
        self, game_id: str, principal: str, action_id: str, *, key: CommandKey | None = None, **pool: Any
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.RollAction(action_id, **pool), key)

    def lock_conversions(
        self,
        game_id: str,
        principal: str,
        action_id: str,
        convert: int | None = None,
        dice: list[int] | None = None,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.LockConversions(action_id, convert, dice), key)

    def discard_action(self, game_id: str, principal: str, action_id: str, *, key: CommandKey | None = None) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.DiscardAction(action_id), key)

    def set_difficulty(
        self,
        game_id: str,
        principal: str,
        action_id: str,
        value: int,
        sealed: bool = False,
        tiers: dict | None = None,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """GM declares a difficulty openly or seals it by hash commitment (GM-2)."""
        return self.run(Caller.of(principal), game_id, pc.SetDifficulty(action_id, value, sealed, tiers), key)

    def set_ruling(
        self,
        game_id: str,
        principal: str,
        action_id: str,
        resistible: bool,
        resisters: list[str],
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.SetRuling(action_id, resistible, resisters), key)

    def propose_consequence(
        self,
        game_id: str,
        principal: str,
        action_id: str,
        text: str,
        effects: list[dict],
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.ProposeConsequence(action_id, text, effects), key)

    def accept_consequence(
        self, game_id: str, principal: str, action_id: str, consequence_id: str, *, key: CommandKey | None = None
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.AcceptConsequence(action_id, consequence_id), key)

    # ------------------------------------------------------------------ resolution and resistance

    def resolve(
        self,
        game_id: str,
        principal: str,
        announcement: str = "",
        expected_step: str | None = None,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """GM resolves the month (P.1.4) and publishes it; the resistance window opens."""
        return self.run(Caller.of(principal), game_id, pc.Resolve(expected_step, announcement), key)

    def declare_reaction(
        self,
        game_id: str,
        principal: str,
        power_id: str,
        action_id: str,
        assets: list[dict],
        convert: int | None = 0,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """A power resists a provisional action alone (P-RES-1..4)."""
        return self.run(Caller.of(principal), game_id, pc.DeclareReaction(power_id, action_id, assets, convert), key)

    def lock_reaction(
        self, game_id: str, principal: str, reaction_id: str, convert: int, *, key: CommandKey | None = None
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.LockReaction(reaction_id, convert), key)

    def waive(self, game_id: str, principal: str, power_id: str, *, key: CommandKey | None = None) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.WaiveReactions(power_id), key)

    def close_window(
        self,
        game_id: str,
        principal: str,
        window_id: str,
        expected_step: str | None = None,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """GM: close a window now, before its deadline if need be; a no-op if it is already closed.
        (Workers close windows when due with ``close_due_window``.)"""
        return self.run(Caller.of(principal), game_id, platform.CloseWindow(window_id, expected_step), key)

    # ------------------------------------------------------------------ what powers learn and share

    def share_secret(
        self, game_id: str, principal: str, power_id: str, asset_id: str, to: str, *, key: CommandKey | None = None
    ) -> Receipt:
        """Share a Secret with another power, irrevocably ([003:114])."""
        return self.run(Caller.of(principal), game_id, pc.ShareSecret(power_id, asset_id, to), key)

    def grant_visibility(
        self,
        game_id: str,
        principal: str,
        to: str,
        text: str,
        source: str = "ruling",
        about: str | None = None,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """GM: show a power what it learned (a Seeking success, a ruling)."""
        return self.run(Caller.of(principal), game_id, platform.GrantVisibility(to, text, source, about), key)

    def set_influence(
        self, game_id: str, principal: str, power_id: str, hex_id: str, amount: int, *, key: CommandKey | None = None
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, pc.SetInfluence(power_id, hex_id, amount), key)

    def set_timezone(
        self, game_id: str, principal: str, power_id: str, timezone_name: str, *, key: CommandKey | None = None
    ) -> Receipt:
        """A power chooses the time zone its feed and deadlines are shown in."""
        return self.run(Caller.of(principal), game_id, platform.SetTimezone(power_id, timezone_name), key)

    def set_contact(
        self,
        game_id: str,
        principal: str,
        power_id: str,
        email: str | None,
        mode: str,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """Where a power's notifications go (immediate, daily digest, or off)."""
        return self.run(Caller.of(principal), game_id, platform.SetContact(power_id, email, mode), key)

    # ------------------------------------------------------------------ rewind

    def phases(self, game_id: str) -> list[dict]:
        """Every phase the game has begun, with the version at which it stood fully opened."""
        out = [{"phase": "setup", "season": 0, "month": 0, "step": "setup", "version": 1}]
        game = self.get_game(game_id, for_update=False)
        if self.reads is not None:
            return out + self.reads.phases(str(game.id))
        began = game.ruleset.phase_of
        for e in self.events.get(game.id):
            if (phase := began(e)) is not None:  # the ruleset names the phase an event begins
                out.append({**phase, "version": e.originator_version})
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
            items = everything[after : after + limit]
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
        if viewer != GM and viewer not in game.state.powers:
            raise NotFound(f"{viewer!r} was not in the game at that time", field="as")
        out = self._view(game, viewer)
        out["at"] = {"version": v, "phase": phase} if principal == GM else {"phase": phase}
        return out

    def rollback(
        self,
        game_id: str,
        principal: str,
        reason: str,
        *,
        phase: str | None = None,
        version: int | None = None,
        key: CommandKey | None = None,
    ) -> Receipt:
        """GM: return the live game to the start of a phase; history stays, marked superseded."""
        self.require_gm(principal)
        v = self.phase_version(game_id, phase, version)
        game = self.get_game(game_id, for_update=False)
        began = game.ruleset.phase_of
        if v != 1 and not any(began(e) is not None for e in self.events.get(game.id, gt=v - 1, lte=v)):
            raise RuleViolation("roll back to the start of a phase (see the phase list)", field="version")
        return self.run(Caller.of(principal), game_id, platform.RollBack(v, reason, phase), key)

    def fork(
        self,
        game_id: str,
        principal: str,
        name: str,
        reason: str = "",
        *,
        phase: str | None = None,
        version: int | None = None,
        key: CommandKey | None = None,
    ) -> tuple[str, Receipt]:
        """GM: a new game from this one's history up to a phase (a sandbox); returns (new game id, receipt).
        A key is kept under the source game: a retry returns the first fork and copies nothing."""
        self.require_gm(principal)
        v = self.phase_version(game_id, phase, version)
        source = self.get_game(game_id, for_update=False)
        if key is not None and (first := self.first_receipt(str(source.id), principal, key)) is not None:
            return first.result["game_id"], first
        new_id = uuid.uuid4()
        copied = [dataclasses.replace(e, originator_id=new_id) for e in self.events.get(source.id, lte=v)]
        self.events.put(copied)
        interval = self.snapshotting_intervals.get(type(source))
        if self.snapshots is not None and interval:
            for version_ in range(interval, v + 1, interval):
                self.take_snapshot(new_id, version=version_)
        receipt = self.run(
            Caller.of(principal),
            str(new_id),
            platform.MarkForked(str(source.id), v, name, reason),
            key,
            key_scope=str(source.id),
        )
        return receipt.result["game_id"], receipt

    # ------------------------------------------------------------------ windows

    def set_deadline(
        self, game_id: str, principal: str, window_id: str, closes_at: datetime, *, key: CommandKey | None = None
    ) -> Receipt:
        """GM: move a window's deadline. A naive time is read in the game's time zone, then kept in UTC."""
        return self.run(Caller.of(principal), game_id, platform.SetDeadline(window_id, closes_at), key)

    def request_extension(
        self,
        game_id: str,
        principal: str,
        power_id: str,
        window_id: str,
        hours: float,
        reason: str = "",
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        return self.run(
            Caller.of(principal), game_id, platform.RequestExtension(power_id, hours, window_id, reason), key
        )

    def grant_extension(
        self,
        game_id: str,
        principal: str,
        request_id: str,
        hours: float | None = None,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """GM: grant an extension request; a second grant of the same request changes nothing."""
        return self.run(Caller.of(principal), game_id, platform.GrantExtension(request_id, hours), key)

    def refuse_extension(
        self, game_id: str, principal: str, request_id: str, reason: str = "", *, key: CommandKey | None = None
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, platform.RefuseExtension(request_id, reason), key)

    def declare_ready(self, game_id: str, principal: str, power_id: str, *, key: CommandKey | None = None) -> Receipt:
        return self.run(Caller.of(principal), game_id, platform.DeclareReady(power_id), key)

    def close_due_window(self, game_id: str, window_id: str) -> bool:
        """Workers: close a window if it is due; a no-op if it is closed, gone, or not due yet."""
        return self.run(SYSTEM_CALLER, game_id, platform.CloseDueWindow(window_id)).result["closed"]

    def queue_due_reminders(self, game_id: str, window_id: str) -> list[str]:
        """Workers: queue the reminders now due for a window (each offset once); returns who is reminded."""
        return self.run(SYSTEM_CALLER, game_id, platform.QueueDueReminders(window_id)).result["reminded"]

    def mail_reply(self, game_id: str, message_id: str) -> dict | None:
        """The reply a mail with this Message-ID got, as older games kept it in their state (or None)."""
        return self._read(game_id, lambda g: g.state.mail_replies.get(message_id))

    def contact_of(self, game_id: str, who: str) -> tuple[str | None, str]:
        """Where a seat's notifications go: (its address or None, its mode); ``(None, "off")`` for no seat."""
        return self._read(
            game_id,
            lambda g: (
                (g.state.powers[who].email, g.state.powers[who].mail_mode) if who in g.state.powers else (None, "off")
            ),
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
        return view(game, viewer)

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
            item = {
                "seq": seq,
                "type": type(e).__name__,
                "actor": e.actor,
                "at": e.timestamp.isoformat(),
                "data": event_data(e),
            }
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


def _check_token(game: Game, token_hash: str | None) -> None:
    """The token a caller presented must still be valid in the state its command runs on."""
    if token_hash is not None and game.credential(token_hash) is None:
        raise Unauthorized("this token is not valid for this game (it may have been replaced)", field="authorization")


def event_data(e: Any) -> dict:
    """An event's payload, without the envelope fields."""
    return {k: v for k, v in e.__dict__.items() if k not in EVENT_FIELDS_HIDDEN}


def new_token() -> tuple[str, str]:
    """A fresh bearer token and its hash (only the hash is recorded)."""
    token = secrets.token_urlsafe(24)
    return token, hash_token(token)


__all__ = [
    "Caller",
    "CommandKey",
    "Games",
    "new_token",
    "Receipt",
    "SYSTEM_CALLER",
    "Turn",
    "DomainError",
    "hash_token",
    "utcnow",
    "event_data",
]
