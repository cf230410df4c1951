"""The application service (DESIGN "Commands"): ``run(caller, game_id, command, key)`` loads the game,
authorizes the caller, decides through the game's ruleset's handler (or the platform's), saves with
optimistic concurrency (a conflicting save is retried on fresh state, bounded, then reported as 409),
keeps the idempotency key with the events, and answers every accepted command with a receipt. HTTP
routes, web forms, the mail intake and workers all call it; persistence and reads are the store's
(``projections.gamestore.GameStore``), which it extends.

The clock and entropy are injected, so tests can pin them.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import logging
import secrets
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import Any, TypeVar, cast

from eventsourcing.domain import OriginatorVersionError
from eventsourcing.persistence import IntegrityError
from pydantic import ValidationError

from application import metrics
from domain import limits
from domain import rulesets as installed
from domain import visibility as vis
from domain.dice import Roller, SeededRoller
from domain.errors import Busy, Conflict, DomainError, Forbidden, RuleViolation, Unauthorized
from domain.ids import GM
from domain.platform import commands as platform
from domain.platform import ruleset as rulesets
from domain.platform.commands import Command, Context, is_system
from domain.platform.game import PlatformGame, check_timezone, digest
from domain.platform.roles import WINDOWS
from domain.platform.seating import refuse_reserved_seats
from projections.gamestore import GameStore, event_data
from projections.keys import KeyRow

log = logging.getLogger("emissary.service")

T = TypeVar("T")
Game = PlatformGame  # any ruleset's game aggregate


def utcnow() -> datetime:
    """The production clock."""
    return datetime.now(timezone.utc)


def hash_token(token: str) -> str:
    """Tokens are stored only as hashes."""
    return hashlib.sha256(token.encode()).hexdigest()


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
        # Shallow: the result is already plain JSON data, and asdict's deep copy of it cost every command.
        return {name: getattr(self, name) for name in _RECEIPT_FIELDS}


_RECEIPT_FIELDS = tuple(f.name for f in fields(Receipt))


@dataclass(frozen=True)
class Caller:
    """Who sends a command: the principal (``gm``, a power id, or ``system`` for workers), its role, and
    the hash of the token it presented, checked against the state the command runs on (None when the
    service itself calls: workers, the CLI, tests)."""

    principal: str
    role: str
    token_hash: str | None = None
    # A person signed in by email (issue 17) acts for a seat with no token: the seat's contact must still be
    # this address in the state the command runs on.
    contact: str | None = None

    @classmethod
    def of(cls, principal: str, token_hash: str | None = None) -> Caller:
        """The caller a principal authenticated as: the GM, or a player."""
        return cls(principal, "gm" if principal == GM else "player", token_hash)

    @classmethod
    def of_person(cls, seat: str, email: str) -> Caller:
        """A person signed in by email, acting for one of their seats (whose contact is ``email``)."""
        return cls(seat, "player", None, email)


SYSTEM_CALLER = Caller("system", "system")


class Turn:
    """The commands of one transaction on one game (``Games.run_turn``): each runs against the game as
    the previous ones left it; nothing is saved until the turn returns."""

    def __init__(self, games: Games, caller: Caller, game: Game, kept: list | None = None) -> None:
        self.game = game
        self.caller = caller
        self.games = games
        self.kept = [] if kept is None else kept  # what a handler saves with the turn besides the game (a fork)

    def execute(self, command: Command) -> Any:
        """Run one command's handler (its ruleset's, or the platform's); returns its result."""
        if not isinstance(command, Command):
            raise TypeError(f"not a command: {command!r}")
        if is_system(command) and self.caller.role != "system":
            raise Forbidden(f"only the service's workers send {type(command).__name__}", field="command")
        ctx = self.games.context(self.caller, self.game, self.kept)
        return self.game.ruleset.run(self.game, command, ctx)

    def receipt(self) -> Receipt:
        """The receipt of what this turn has recorded so far, as the caller sees it."""
        return self.games.receipt_for(self.game, self.caller.principal)


@dataclass(frozen=True)
class CommandKey:
    """An idempotency key (HTTP ``Idempotency-Key``, a mail's Message-ID) and a fingerprint of the
    request it came with; an empty fingerprint is not compared (a Message-ID names its mail)."""

    value: str
    fingerprint: str = ""


class Games(GameStore):
    """The application service: runs commands of any registered ruleset (and the platform's) against one
    game aggregate each, and answers every accepted command with a receipt."""

    def __init__(
        self,
        env: dict[str, str] | None = None,
        *,
        clock: Callable[[], datetime] = utcnow,
        entropy: Callable[[int], str] = secrets.token_hex,
        snapshot_interval: int = 100,
        retries: int = 8,
        roller_factory: Callable[[Game], Roller] | None = None,
        command_threads: int = 32,
    ) -> None:
        self.clock = clock
        self.entropy = entropy
        self.retries = retries
        # At most this many commands of one process run at once from an event loop (the store's pool queues them).
        self.command_threads = command_threads
        self.roller_factory = roller_factory or (
            lambda game: SeededRoller(
                game.state.seed or "00", legacy=game.state.seed is not None and game.state.seed_root is None
            )
        )
        self.conflicts = 0  # saves that lost a race with another process (each is retried or reported as 409)
        super().__init__(env, snapshot_interval=snapshot_interval)

    @functools.cached_property
    def threads(self) -> ThreadPoolExecutor:
        """The threads a caller on an event loop runs commands in (``api.deps.Sender``), one hop a command: a plain
        executor costs the loop less than anyio's thread pool (no limiter, no cancel scope). Shut with the service."""
        return ThreadPoolExecutor(max_workers=self.command_threads, thread_name_prefix="emissary-command")

    def close(self) -> None:
        if "threads" in self.__dict__:
            self.threads.shutdown(wait=False, cancel_futures=True)
        super().close()

    @metrics.counted  # its outcome and latency, by ruleset (issue 27)
    def _run(
        self,
        game_id: str,
        principal: str,
        command: Callable[[Game], T],
        key: CommandKey | None = None,
        result: Callable[[T], dict] | None = None,
        key_scope: str | None = None,
        token_hash: str | None = None,
        contact: str | None = None,
        kept: list | None = None,
    ) -> Receipt:
        """Run a command on current state and save; retry on a concurrent save, else 409.

        ``kept`` is what the command asked to save with the game in the same transaction (a fork's copied
        events and its new game, ``Context.keep``); the receipt is then the new game's, as its caller sees it.

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
                metrics.seen(game)
                scope = key_scope or str(game.id)
                authorized = False
                try:
                    # A token revoked by another process: the revocation is an event, so a stale cache
                    # makes this save conflict, and the retry checks the token against fresh state.
                    _check_token(game, token_hash)
                    _check_contact(game, principal, contact)
                    authorized = True
                    # A key already recorded is not looked up first (a round trip every keyed command would
                    # pay): its row is written first in the save's transaction, so a repeat fails on it and
                    # records nothing, and the first receipt is read then (below).
                    seated = list(game.seats)
                    value = command(game)
                    extra = list(kept or ())
                    if extra and not fresh:
                        # What saves only new aggregates (a fork) records nothing on this game, so a stale cache
                        # would never conflict: a token revoked by another process is checked on fresh state.
                        self._evict(game)
                        fresh = True
                        continue
                    made = next((o for o in reversed(extra) if isinstance(o, PlatformGame)), game)
                    refuse_reserved_seats(made, seated)  # a fork has its source's seats
                    receipt = self._receipt(made, principal, list(made.pending_events))
                    receipt.result = result(value) if result else (value if isinstance(value, dict) else {})
                    row = (
                        None
                        if key is None
                        else KeyRow(scope, principal, key.value, key.fingerprint, json.dumps(receipt.as_dict()))
                    )
                    self.save(game, *extra, command_key=row)
                except (IntegrityError, OriginatorVersionError):  # a concurrent save, or a read that met it
                    self._evict(game)
                    if key is not None and authorized and fresh:
                        first = self.first_receipt(scope, principal, key)
                        if first is not None:
                            return first
                    fresh = True
                    self.conflicts += 1
                    metrics.retried("conflict")
                    log.info("concurrent save, retrying game=%s attempt=%s", game_id, attempt)
                    continue
                except DomainError:
                    self._evict(game)
                    if not fresh:
                        fresh = True  # refused on cached state: check once more against the store
                        metrics.retried("stale")
                        continue
                    # Refused on fresh state: a repeat of a command already recorded under its key (which
                    # may refuse itself, an action already submitted say) returns the first receipt.
                    if key is not None and authorized:
                        first = self.first_receipt(scope, principal, key)
                        if first is not None:
                            return first
                    raise
                except BaseException:
                    self._evict(game)
                    raise
                return receipt
        raise Busy(f"the game was busy; nothing was recorded after {self.retries} attempts, try again")

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
        body: list[dict[str, Any]] = [{"type": type(e).__name__, "data": event_data(e)} for e in shown]
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
        if not token:
            return None
        cached = self._cached(game_id)
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
        if isinstance(command, CLOSES):  # a close whose default a rule refuses records the block instead
            return self._close(caller, game_id, command, key, key_scope=key_scope)
        return self.run_turn(caller, game_id, lambda turn: turn.execute(command) or {}, key, key_scope=key_scope)

    def send(self, game_id: str, principal: str, command: Command, key: CommandKey | None = None) -> Receipt:
        """Run one command as ``principal`` (``run`` for a caller known by name: tests, the CLI, the demos). A
        sign-in token's hash left blank is filled (``issued``: a caller who shows the token issues it there)."""
        if issues_token(command) and not getattr(command, ISSUED):
            command, _token = issued(command)
        return self.run(Caller.of(principal), game_id, command, key)

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
        kept: list = []

        def attempt(game: Game) -> T:
            kept.clear()  # a retry starts again from fresh state
            return turn(Turn(self, caller, game, kept))

        return self._run(
            game_id,
            caller.principal,
            attempt,
            key,
            result,
            key_scope=key_scope,
            token_hash=caller.token_hash,
            contact=caller.contact,
            kept=kept,
        )

    def context(self, caller: Caller, game: Game, kept: list | None = None) -> Context:
        """What a handler gets besides the game: the caller, the time, entropy, the game's roller, the game's
        stored history (its state and event at an earlier version, where a phase began, a copy under a new id),
        and ``keep``, which saves more in the command's transaction."""
        game_id = str(game.id)
        return Context(
            principal=caller.principal,
            now=self.clock(),
            entropy=self.entropy,
            roller=self._roller,
            new_id=lambda prefix: f"{prefix}-{uuid.uuid4().hex[:10]}",
            state_at=lambda version: self.get_game(game_id, version, for_update=False).state,
            event_at=lambda version: next(iter(self.events.get(game.id, gt=version - 1, lte=version)), None),
            seen_version=lambda viewer, seq: self.seen_version(game.id, viewer, seq),
            phase_version=lambda phase: self.phase_version(game_id, phase, None),
            copy_at=lambda version: self._copy_at(game, version),
            keep=None if kept is None else lambda *objs: kept.extend(objs),
        )

    def _copy_at(self, game: Game, version: int) -> tuple[list, Game]:
        """The game's events up to ``version`` under a new id, and the game folded from them (nothing saved)."""
        new_id = uuid.uuid4()
        copied = [dataclasses.replace(e, originator_id=new_id) for e in self.stored_events(game.id, lte=version)]
        at = self.get_game(str(game.id), version, for_update=True)
        # The library's own copy of an aggregate: its snapshot (under the new id) turned back into the aggregate.
        snapshot = type(at).Snapshot.take(at)
        copy = dataclasses.replace(snapshot, originator_id=new_id).mutate(None)
        return copied, cast(Game, copy)  # a game's snapshot makes a game of its class

    # ------------------------------------------------------------------ setup commands

    @metrics.counted  # a game created is a command accepted too (issue 27)
    def create_game(
        self,
        name: str,
        gm_name: str = "GM",
        timezone_name: str = "UTC",
        options: dict | None = None,
        *,
        ruleset: str | None = None,
        key: CommandKey | None = None,
    ) -> tuple[str, str | None, Receipt]:
        """Create a game of a registered ruleset (UnknownRuleset, 422, otherwise; by default the first installed,
        ``domain.rulesets.DEFAULT``), with options its schema accepts; returns (game_id, GM token,
        receipt). A retry with the key of a game already created returns that game's first receipt and no
        token (tokens are kept only as hashes)."""
        if key is not None and (first := self.first_receipt("", "", key)) is not None:
            return first.game_id, None, first
        chosen = rulesets.get(installed.DEFAULT if ruleset is None else ruleset)
        checked_options(chosen, options)
        check_timezone(timezone_name)  # every ruleset's game, whether or not its start checks the zone (issue 28)
        game = chosen.start(name, gm_name, timezone_name, options)
        refuse_reserved_seats(game)
        metrics.seen(game)
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

    # The methods below are the platform's convenience API (tests and the CLI use them): each builds its command
    # and sends it through ``run``, as the HTTP, web, mail and worker channels do. A ruleset's commands have no
    # methods: each is declared once (its ``declared.py``) and sent through ``send``.

    def reissue_link(
        self, game_id: str, principal: str, who: str, *, key: CommandKey | None = None
    ) -> tuple[str | None, Receipt]:
        """GM: revoke the sign-in link of the GM or a power and issue a new one; returns the new token
        (None on a replayed key: tokens are kept only as hashes)."""
        command, token = issued(platform.ReissueLink(who, ""))
        receipt = self.run(Caller.of(principal), game_id, command, key)
        return None if receipt.replayed else token, receipt

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

    def set_timezone(
        self, game_id: str, principal: str, seat: str, timezone_name: str, *, key: CommandKey | None = None
    ) -> Receipt:
        """A power chooses the time zone its feed and deadlines are shown in."""
        return self.run(Caller.of(principal), game_id, platform.SetTimezone(seat, timezone_name), key)

    def set_contact(
        self,
        game_id: str,
        principal: str,
        seat: str,
        email: str | None,
        mode: str,
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        """Where a power's notifications go (immediate, daily digest, or off)."""
        return self.run(Caller.of(principal), game_id, platform.SetContact(seat, email, mode), key)

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
        """Return the live game to the start of a phase; history stays, marked superseded (``RollBack``)."""
        return self.run(Caller.of(principal), game_id, platform.RollBack(reason, phase, version), key)

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
        """A sandbox game from this one's history up to a phase (``Fork``, one transaction); returns (new game id,
        receipt). A key is kept under the source game: a retry returns the first fork and copies nothing."""
        receipt = self.run(Caller.of(principal), game_id, platform.Fork(name, reason, phase, version), key)
        new_id = receipt.result["game_id"]
        if not receipt.replayed:
            self._snapshot_copy(new_id)
        return new_id, receipt

    def _snapshot_copy(self, game_id: str) -> None:
        """Snapshots of a fork at every interval of its copied history, so its past phases load as fast as the
        source's (a cache: the fork is whole without them)."""
        game = self.get_game(game_id, for_update=False)
        interval = self.snapshot_intervals.get(type(game))
        if self.snapshots is None or not interval:
            return
        for at in range(interval, game.version, interval):
            self.take_snapshot(game.id, version=at)

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
        seat: str,
        window_id: str,
        hours: float,
        reason: str = "",
        *,
        key: CommandKey | None = None,
    ) -> Receipt:
        return self.run(Caller.of(principal), game_id, platform.RequestExtension(seat, hours, window_id, reason), key)

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

    def declare_ready(self, game_id: str, principal: str, seat: str, *, key: CommandKey | None = None) -> Receipt:
        return self.run(Caller.of(principal), game_id, platform.DeclareReady(seat), key)

    def close_due_window(self, game_id: str, window_id: str) -> bool:
        """Workers: close a window if it is due; a no-op if it is closed, gone, or not due yet, and while a block
        recorded on it still holds (its default was refused and nothing has been recorded since)."""
        return self.run(SYSTEM_CALLER, game_id, platform.CloseDueWindow(window_id)).result["closed"]

    def _close(
        self,
        caller: Caller,
        game_id: str,
        command: platform.CloseWindow | platform.CloseDueWindow,
        key: CommandKey | None,
        *,
        key_scope: str | None = None,
    ) -> Receipt:
        """Close a window (the GM's or host's ``CloseWindow``, the workers' ``CloseDueWindow``). Where the
        window's default for silence is refused by a rule, nothing of the close is kept: a fresh transaction
        records ``GameBlocked`` (the rule, the seats, the refusal) and the receipt says so (``blocked``). A
        block holds while nothing else is recorded: closing that window again is then a no-op that records
        nothing, so the sweep does not meet the same refusal every pass; any later event (a seat acting, a
        ruling, a new deadline, a post) lets the next close try again (issue 24)."""
        window_id = command.window_id
        tried_at: list[int] = []

        def close(turn: Turn) -> dict:
            blocked = turn.game.blocked_at(window_id)
            if blocked is not None and _may_close(turn.game, caller, command):
                return {"closed": False, "blocked": blocked}
            tried_at[:] = [turn.game.version]
            return turn.execute(command) or {}

        def block(err: DomainError) -> Callable[[Turn], dict]:
            def record(turn: Turn) -> dict:
                game = turn.game
                if game.version != tried_at[0]:
                    raise _Moved()  # the game changed since the close failed: try the close again
                w = game.state.windows.get(window_id)
                if w is None or w.closed:
                    raise err
                if isinstance(command, platform.CloseDueWindow):
                    if self.clock() < datetime.fromisoformat(w.final_closes_at):
                        raise err
                else:
                    try:
                        allowed = _may_close(game, caller, command)
                    except DomainError:
                        allowed = False
                    if not allowed:
                        raise err
                rule = err.rule or (f"field {err.field}" if err.field else type(err).__name__)
                found = game.record_blocked(window_id, rule=rule, reason=err.message, at=self.clock())
                log.warning("game blocked game=%s window=%s rule=%s seats=%s", game_id, window_id, rule, found["seats"])
                return {"closed": False, "blocked": found}

            return record

        for _ in range(self.retries):
            tried_at.clear()
            try:
                return self.run_turn(caller, game_id, close, key, key_scope=key_scope)
            except (Conflict, Unauthorized, Forbidden):
                raise
            except DomainError as err:
                if not tried_at:  # refused before the window's default ran (a replayed key's answer)
                    raise
                try:
                    return self.run_turn(caller, game_id, block(err), key, key_scope=key_scope)
                except _Moved:
                    continue
        raise Busy(f"the game was busy; nothing was recorded after {self.retries} attempts, try again")

    def queue_due_reminders(self, game_id: str, window_id: str) -> list[str]:
        """Workers: queue the reminders now due for a window (each offset once); returns who is reminded."""
        return self.run(SYSTEM_CALLER, game_id, platform.QueueDueReminders(window_id)).result["reminded"]


# The commands that close a window and so run its default for silence (``Games._close``).
CLOSES = (platform.CloseWindow, platform.CloseDueWindow)


def _may_close(game: Game, caller: Caller, command: Command) -> bool:
    """Whether this caller's close would reach the window's default: a worker's ``CloseDueWindow``, or a
    ``CloseWindow`` from a role that runs windows at the step it names (else its own refusal answers)."""
    if isinstance(command, platform.CloseDueWindow):
        return caller.role == "system"
    if not game.may(caller.principal, WINDOWS):
        return False
    game.expect_step(getattr(command, "expected_step", None))
    return True


class _Moved(Exception):
    """The game changed between a close the rules refused and recording the block: the close is tried again."""


def _check_token(game: Game, token_hash: str | None) -> None:
    """The token a caller presented must still be valid in the state its command runs on."""
    if token_hash is not None and game.credential(token_hash) is None:
        raise Unauthorized("this token is not valid for this game (it may have been replaced)", field="authorization")


def _check_contact(game: Game, principal: str, contact: str | None) -> None:
    """A person signed in by email acts for a seat only while that seat's contact is their address."""
    if contact is None:
        return
    seat = game.seats.get(principal) if principal != GM else None
    email = getattr(seat, "email", None)
    if not email or email.strip().casefold() != contact.strip().casefold():
        raise Unauthorized("this seat's contact address is no longer yours", field="session")


def checked_options(ruleset: rulesets.Ruleset, options: Any) -> None:
    """A new game's options, checked against its ruleset's option schema: an unknown or ill-typed option is
    refused (422) naming the option and the ruleset, before anything is recorded."""
    if options is None:
        return
    if not isinstance(options, dict):
        raise RuleViolation(f"options: an object of named options of ruleset {ruleset.name!r}", field="options")
    try:
        ruleset.options.model_validate(options)
    except ValidationError as err:
        first = err.errors()[0]
        name = limits.field_name(first["loc"])
        field = f"options.{name}" if name else "options"
        if first["type"] == "extra_forbidden":
            known = ", ".join(ruleset.options.model_fields) or "none"
            raise RuleViolation(
                f"{field} is not an option of ruleset {ruleset.name!r}; its options are {known}", field=field
            ) from None
        raise RuleViolation(f"{field}: {first['msg']} (ruleset {ruleset.name!r})", field=field) from None


def new_token() -> tuple[str, str]:
    """A fresh bearer token and its hash (only the hash is recorded)."""
    token = secrets.token_urlsafe(24)
    return token, hash_token(token)


ISSUED = "token_hash"  # a command field the server fills with a fresh sign-in token's hash, never the client
C = TypeVar("C", bound=Command)


def issues_token(command: type[Command] | Command) -> bool:
    """Whether the command carries a sign-in token's hash (``ISSUED``), which the server fills, never the client."""
    cls = command if isinstance(command, type) else type(command)
    found = _ISSUES.get(cls)
    if found is None:  # once per class: every command a route builds asks twice
        found = _ISSUES[cls] = any(x.name == ISSUED for x in dataclasses.fields(cls))
    return found


_ISSUES: dict[type, bool] = {}


def issued(command: C) -> tuple[C, str | None]:
    """The command with a fresh sign-in token's hash, if it carries one (``ISSUED``), and that token (else None):
    the one place a sign-in token is issued for a command, whatever the channel. Only the hash is recorded; the
    token is shown once."""
    if not issues_token(command):
        return command, None
    token, token_hash = new_token()
    return dataclasses.replace(command, **{ISSUED: token_hash}), token


__all__ = [
    "Caller",
    "CommandKey",
    "Games",
    "ISSUED",
    "issued",
    "issues_token",
    "new_token",
    "Receipt",
    "SYSTEM_CALLER",
    "Turn",
    "DomainError",
    "hash_token",
    "utcnow",
    "event_data",
]
