"""The platform's game aggregate: what every ruleset's game has (DESIGN "Rulesets on one platform").

``PlatformGame`` holds the seats' credentials, contacts and time zones, the windows with their
deadlines, extensions, reminders and readiness, the month seed's commit-reveal and per-roll keys,
visibility grants, the mail memory, rollback and fork marks, and every viewer's sequence (each
event, once folded, counts in the sequences of those who may see it). A ruleset's aggregate
subclasses it (``domain.powers.game.Game``) and adds its rules, its state and its events.

The state is the ruleset's: the platform reads a game's seats through one name, ``seats`` (``seats_of`` its
state: each seat's ``timezone``, ``email``, ``mail_mode``, ``grants``, ``ready``, ``extension_hours_used``), and
``state.windows``, ``state.credentials``, ``state.seen``, the seed fields, ``state.next_roll``,
``state.options`` (extension caps) and ``state.mail_replies``.

Stored events are found by topic. The platform's events are explicit classes with an ``apply`` that
folds, triggered through ``self.<Name>``, not ``@event`` methods: the library redefines every event
class a subclass inherits on that subclass (``Game.CredentialIssued``), so a game of Powers records
and loads them as ``domain.powers.game:Game.<Name>``, the topics they had before this class existed
(tests/domain/test_platform_game.py). An inherited ``@event`` method would record the base's class
instead, and the subclass's redefined class could not fold.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from copy import deepcopy
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, ClassVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from eventsourcing.domain import Aggregate

from domain import limits
from domain import visibility as vis
from domain.dice import ROLLS_PER_COMMITMENT, RollLimit, commitment, roll_tree
from domain.errors import Conflict, NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform import flow
from domain.platform import ruleset as rulesets
from domain.platform.disputes import Disputes
from domain.platform.notifications import Notifications
from domain.platform.posts import Posts
from domain.platform.preview import Previews
from domain.platform.replay import RulesChanges
from domain.platform.roles import OBSERVER, WINDOWS
from domain.platform.seating import Seating
from domain.platform.state import SEATING_FIELDS, Window


def canonical(data: Any) -> str:
    """Canonical JSON, for digests that anyone can recompute."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)


def digest(data: Any) -> str:
    """sha256 of canonical JSON."""
    return hashlib.sha256(canonical(data).encode()).hexdigest()


def _iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError("times must be timezone-aware (UTC)")
    return moment.isoformat()


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text)


def check_timezone(name: str) -> None:
    """An IANA zone name, or RuleViolation naming the field (a game's zone, or a seat's)."""
    limits.check_text(name, "timezone", limits.TIMEZONE, what="a time zone")
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise RuleViolation(f"{name!r} is not an IANA time zone (such as Europe/Paris)", field="timezone") from None


def _upcast_seat(state: dict[str, Any]) -> None:
    """Upcast a stored event of version 1, which named its seat by Powers' word for one: it is ``seat`` now."""
    state["seat"] = state.pop("power_id")


def _upcast_phase(state: dict[str, Any]) -> None:
    """Upcast a seed event of version 1, which placed its seed by Powers' calendar (two numbers): the label the
    ruleset gives its phase now. Powers labelled them ``s<n>m<m>`` and so do the old events."""
    state["phase"] = "s{}m{}".format(state.pop("season"), state.pop("month"))


RECOUNT_SEEN = "_recount_seen"  # a loaded snapshot's mark: its viewers' sequences are counted again from the events


def mark_recount(aggregate_state: dict[str, Any]) -> None:
    """Mark a snapshot's state (an upcast's) so that its viewers' sequences are counted again when it is loaded."""
    aggregate_state[RECOUNT_SEEN] = True


def seating_into_state(aggregate_state: dict[str, Any]) -> None:
    """Upcast a snapshot taken when the open seats and invitations were kept beside the state, on the aggregate
    (``lobby``, ``lobby_terms``, ``invited``): into its state (``SeatingState``), as folding its events puts them."""
    state = aggregate_state["state"]
    for name in SEATING_FIELDS:
        setattr(state, name, aggregate_state.pop(name, None) or {})


class PlatformGame(Posts, Disputes, Previews, RulesChanges, Seating, Notifications, Aggregate):
    """The platform's part of one game; a ruleset's aggregate subclasses it."""

    if TYPE_CHECKING:  # the ruleset's aggregate sets it when the game is created
        state: Any

    class Event(Aggregate.Event):
        """Base of every game event: after the body folds, count it in its viewers' sequences."""

        if TYPE_CHECKING:  # every event's class gets its version (_version_events), every event an actor and audience
            class_version: ClassVar[int]
            actor: str
            audience: list[str]

        def apply(self, aggregate: Any) -> None:
            super().apply(aggregate)
            aggregate.state.count_seen(self.audience)

    # Version 2 of every game's snapshot: taken when the viewers' sequences count each event once. A snapshot of
    # version 1 may hold sequences that counted a platform mixin's event twice (open seats, invitations, previews:
    # mended in d962c0c), so its sequences are counted again from the stored events when it is loaded
    # (``RECOUNT_SEEN``, ``recount_seen``). A ruleset whose aggregate has versions of its own continues from its
    # last one with ``mark_recount`` (Powers: version 3).
    # Version 3: the open seats and invitations are in the state (``SeatingState``), not beside it on the aggregate.
    class_version = 3
    upcast_v1_v2 = staticmethod(mark_recount)  # a snapshot of version 1: its sequences counted again when loaded
    upcast_v2_v3 = staticmethod(seating_into_state)  # one of version 2 kept the open seats beside the state

    # ------------------------------------------------------------------ what the ruleset supplies

    # the field of the state that holds the seats: ``seats``, or the name a ruleset's state gave them before
    # (snapshots keep a field's name)
    seats_field: ClassVar[str] = "seats"

    # the names of the game's options that cap a seat's extensions (GM-8): in one window, and in all until the ruleset
    # renews the seat's allowance (``extension_hours_used``); a ruleset names its own options
    extension_caps: ClassVar[tuple[str, str]] = ("extension_cap_hours_per_window", "extension_cap_hours")

    def seats_of(self, state: Any) -> dict[str, Any]:
        """Every seat of a state of this game, by id: the one name the platform reads a game's seats through
        (``seats_field`` of the state)."""
        seats: dict[str, Any] = getattr(state, self.seats_field)
        return seats

    @property
    def seats(self) -> dict[str, Any]:
        """Every seat at this table now, by id (``seats_of`` the game's state)."""
        return self.seats_of(self.state)

    def seat(self, seat_id: str) -> Any:
        """The seat of this id, or NotFound (a ruleset may name its seats in the refusal)."""
        found = self.seats.get(seat_id) if isinstance(seat_id, str) else None
        if found is None:
            raise NotFound(f"no seat {seat_id!r} at this table", field="seat")
        return found

    def pending_in(self, w: Window) -> list[str]:
        """Who may still act in this window (reminders go to them): whom its rule says it waits on
        (domain.platform.flow); NotImplementedError if its ruleset declares no rule for it."""
        return flow.waiting(self, w)

    def waits_on(self, w: Window, seat: str) -> bool:
        """Whether this open window waits on this seat now ("your move" on My games): by default, whether the
        seat may still act in it; a ruleset whose seats act in turn says whose turn it is."""
        return seat in self.pending_in(w)

    def acts_for(self, principal: str, seat: str) -> bool:
        """Whether ``principal`` may act for ``seat`` besides the seat itself (a ruleset may let its GM)."""
        return False

    def _may_act_in(self, w: Window, seat: str) -> bool:
        """Whether this seat still has something to do in this window (it may then ask for more time): by default,
        whether the window waits on it."""
        return seat in self.pending_in(w)

    def expect_step(self, expected: str | None) -> None:
        """Refuse (409, recording nothing) a command sent for a step the game has left: a burst of the same click
        moves the game once. A ruleset names its steps ``state.step`` (or ``state.phase``)."""
        current = getattr(self.state, "step", None) or getattr(self.state, "phase", None)
        if expected is not None and expected != current:
            raise Conflict(
                f"this command was sent for the {expected} step, but the game is at {current}", field="expected_step"
            )

    def declare_ready(self, seat: str, *, now: datetime) -> None:
        """Say a seat has done all it will in the open window whose rule allows readiness (``WindowRule.ready``);
        refused, recording nothing, where no open window's rule does, past the seat's deadline in it (an extension
        counts) and once the seat is ready. Once every seat that window waits on is ready, the platform
        closes it (``domain.platform.flow``; called directly, the game settles here as after the command)."""
        from domain.platform.commands import DeclareReady, trial_context  # the commands build on the game

        w = flow.ready_window(self)
        if now >= _at(w.deadline_for(seat)):
            raise RuleViolation(
                f"the {w.kind} deadline passed at {w.deadline_for(seat)}", rule="P.1.2", field="deadline"
            )
        if self.seat(seat).ready:
            raise RuleViolation("you have already said you are ready", field="seat")
        self._ready_declared(seat=seat, actor=seat, audience=vis.seats([seat]))
        flow.settle(self, trial_context(self, SYSTEM, now), command=DeclareReady(seat))

    def _fresh_seed(self, seed: str, s_old_seed: str | None = None, reveal: bool = True) -> None:
        """Commit a fresh seed (or clear it) as the ruleset's step needs; a ruleset that rolls no dice needs none."""

    # ------------------------------------------------------------------ the ruleset

    @property
    def ruleset(self) -> rulesets.Ruleset:
        """The registered ruleset this game was created with (GameCreated records its name and version),
        or RulesetNotInstalled."""
        return rulesets.for_game(self.state.ruleset, self.state.rules_version)

    # ------------------------------------------------------------------ roles

    def roles_of(self, principal: str) -> frozenset[str]:
        """The roles a principal holds at this table: the organiser's for ``gm``, a seat's own (its ruleset's
        seated role, plus any it was given), none for anyone else."""
        declared = self.ruleset.roles
        if principal == GM:
            return frozenset({declared.organiser})
        if vis.is_observer(principal):  # an invited observer (issue 28): no privilege, no seat
            return frozenset({OBSERVER}) if OBSERVER in declared.declared else frozenset()
        seat = self.seats.get(principal)
        if seat is None:
            return frozenset()
        return frozenset({declared.seated, *getattr(seat, "roles", ())})

    def may(self, principal: str, privilege: str) -> bool:
        """Whether a principal's roles hold this privilege (domain.platform.roles)."""
        return self.ruleset.roles.may(self.roles_of(principal), privilege)

    # ------------------------------------------------------------------ seats: credentials, time zones, contacts

    def timezone_for(self, viewer: str) -> str:
        """The IANA zone a viewer sees times in: their own choice, else the game's."""
        p = self.seats.get(viewer)
        zone: str = (p.timezone if p is not None and p.timezone else None) or self.state.timezone
        return zone

    def credential(self, token_hash: str) -> str | None:
        """The principal (``gm`` or a power id) a token hash authenticates, if any."""
        principal: str | None = self.state.credentials.get(token_hash)
        return principal

    def issue_credential(self, principal: str, token_hash: str) -> None:
        """Record the hash of a bearer token for the GM or a power (the token itself is never stored)."""
        if principal != GM:
            self.seat(principal)
        self._credential_issued(principal=principal, token_hash=token_hash, actor=SYSTEM, audience=[vis.SEALED])

    class CredentialIssued(Event):
        principal: str
        token_hash: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.credentials[self.token_hash] = self.principal
            super().apply(game)

    def _credential_issued(self, principal: str, token_hash: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(
            self.CredentialIssued, principal=principal, token_hash=token_hash, actor=actor, audience=audience
        )

    def reissue_credential(self, principal: str, token_hash: str) -> None:
        """Revoke every token of the GM or a power and issue a new one (a leaked or lost sign-in link)."""
        if principal != GM:
            self.seat(principal)
        self._credentials_revoked(principal=principal, actor=GM, audience=[vis.SEALED])
        self._credential_issued(principal=principal, token_hash=token_hash, actor=GM, audience=[vis.SEALED])

    class CredentialsRevoked(Event):
        principal: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.credentials = {h: p for h, p in game.state.credentials.items() if p != self.principal}
            super().apply(game)

    def _credentials_revoked(self, principal: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(self.CredentialsRevoked, principal=principal, actor=actor, audience=audience)

    # ------------------------------------------------------------------ month seed: commit-reveal, roll keys

    def _commit_seed(self, seed: str, phase: str) -> None:
        """Seal a fresh seed for the phase the ruleset labels ``phase`` and publish, before any roll it governs,
        its hash and the Merkle root of the keys of the phase's next ``ROLLS_PER_COMMITMENT`` rolls (domain.dice)."""
        first_roll = self.state.next_roll
        root = roll_tree(seed, first_roll).root
        self._seed_sealed(seed=seed, actor=SYSTEM, audience=[vis.SEALED])
        self._seed_committed(
            commitment=commitment(seed),
            phase=phase,
            root=root,
            first_roll=first_roll,
            rolls=ROLLS_PER_COMMITMENT,
            actor=SYSTEM,
            audience=[vis.PUBLIC],
        )

    def _roll_proof(self, roll_no: int) -> dict[str, Any]:
        """Roll ``roll_no``'s key and Merkle path under the phase's root, for the roll's own audience;
        nothing for a phase committed before per-roll keys."""
        s = self.state
        if s.seed is None or s.seed_root is None:
            return {}
        try:
            key, path = roll_tree(s.seed, s.seed_first_roll).proof(roll_no)
        except RollLimit as err:
            raise RuleViolation(
                f"a phase allows at most {ROLLS_PER_COMMITMENT} rolls: {err}", rule="P-DICE-2", field="roll_no"
            ) from None
        return {"key": key, "path": path}

    class SeedSealed(Event):
        seed: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.seed = self.seed
            super().apply(game)

    def _seed_sealed(self, seed: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(self.SeedSealed, seed=seed, actor=actor, audience=audience)

    class SeedCommitted(Event):
        class_version = 2  # 2: the phase the seed governs, as its ruleset labels it
        upcast_v1_v2 = staticmethod(_upcast_phase)

        commitment: str
        phase: str
        actor: str
        audience: list[str]
        root: str | None = None
        first_roll: int | None = None
        rolls: int | None = None

        def apply(self, game: Any) -> None:
            # Events recorded before per-roll keys have no root: that month's dice come from the seed itself.
            game.state.seed_commitment = self.commitment
            game.state.seed_root = self.root
            game.state.seed_first_roll = self.first_roll if self.first_roll is not None else game.state.next_roll
            super().apply(game)

    def _seed_committed(
        self,
        commitment: str,
        phase: str,
        actor: str,
        audience: list[str],
        root: str | None = None,
        first_roll: int | None = None,
        rolls: int | None = None,
    ) -> None:
        self.trigger_event(
            self.SeedCommitted,
            commitment=commitment,
            phase=phase,
            actor=actor,
            audience=audience,
            root=root,
            first_roll=first_roll,
            rolls=rolls,
        )

    class SeedRevealed(Event):
        class_version = 2  # 2: the phase the seed governed, as its ruleset labels it
        upcast_v1_v2 = staticmethod(_upcast_phase)

        seed: str
        commitment: str
        phase: str
        actor: str
        audience: list[str]

    def _seed_revealed(self, seed: str, commitment: str, phase: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(
            self.SeedRevealed,
            seed=seed,
            commitment=commitment,
            phase=phase,
            actor=actor,
            audience=audience,
        )

    class SeedCleared(Event):
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.seed = None
            game.state.seed_commitment = None
            game.state.seed_root = None
            super().apply(game)

    def _seed_cleared(self, actor: str, audience: list[str]) -> None:
        self.trigger_event(self.SeedCleared, actor=actor, audience=audience)

    # ------------------------------------------------------------------ windows: deadlines, extensions, reminders

    class WindowOpened(Event):
        window_id: str
        kind: str
        opened_at: str
        closes_at: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.windows = {k: w for k, w in game.state.windows.items() if not w.closed}
            game.state.windows[self.window_id] = Window(
                id=self.window_id, kind=self.kind, opened_at=self.opened_at, closes_at=self.closes_at
            )
            if flow.takes_readiness(game, self.kind):  # a window that takes readiness opens with nobody ready
                for seat in game.seats.values():
                    seat.ready = False
            super().apply(game)

    def _window_opened(
        self, window_id: str, kind: str, opened_at: str, closes_at: str, actor: str, audience: list[str]
    ) -> None:
        self.trigger_event(
            self.WindowOpened,
            window_id=window_id,
            kind=kind,
            opened_at=opened_at,
            closes_at=closes_at,
            actor=actor,
            audience=audience,
        )

    class WindowClosed(Event):
        window_id: str
        reason: str
        closed_at: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            w = game.state.windows[self.window_id]
            w.closed, w.reason, w.closed_at = True, self.reason, self.closed_at
            super().apply(game)

    def _window_closed(self, window_id: str, reason: str, closed_at: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(
            self.WindowClosed, window_id=window_id, reason=reason, closed_at=closed_at, actor=actor, audience=audience
        )

    def record_blocked(self, window_id: str, *, rule: str, reason: str, at: datetime) -> dict[str, Any]:
        """The default for silence at this window's close was refused by ``rule``: record that the game is blocked
        there (issue 24 "No game can get stuck"), for the seats the window waits on, telling the GM and every seat
        that runs windows (a host). Returns the block as the window now holds it."""
        w = self.window(window_id)
        try:
            seats = list(self.pending_in(w))
        except NotImplementedError:
            seats = []
        tell = [GM, *sorted(p for p in self.seats if p != GM and self.may(p, WINDOWS))]
        self.trigger_event(
            self.GameBlocked,
            window_id=window_id,
            kind=w.kind,
            rule=rule,
            seats=seats,
            reason=reason[: limits.REASON],
            at=_iso(at),
            tell=tell,
            actor=SYSTEM,
            # The refusal's words may name one seat's holdings ("no vis"): the GM and those who run the windows read
            # them, and the seat itself where the window waits on it alone; the window's state tells every viewer of
            # the window that it is blocked, by which rule, on whom.
            audience=vis.seats([*(seats if len(seats) == 1 else []), *tell[1:]]),
        )
        return dict(self.state.windows[window_id].blocked)

    class GameBlocked(Event):
        """A window's default for silence was refused by a rule: the game waits on the GM or host there. Closing
        it is not tried again until something else is recorded (``blocked_at``)."""

        window_id: str
        kind: str
        rule: str
        seats: list[str]
        reason: str
        at: str
        tell: list[str]
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            w = game.state.windows.get(self.window_id)
            if w is not None:
                w.blocked = {
                    "rule": self.rule,
                    "seats": list(self.seats),
                    "reason": self.reason,
                    "at": self.at,
                    "version": self.originator_version,
                }
            super().apply(game)

    def blocked_at(self, window_id: str) -> dict[str, Any] | None:
        """The block on this open window if nothing was recorded after it: closing it again would meet the same
        refusal, so the sweep (and the GM's close) leave it be until the game changes."""
        w = self.state.windows.get(window_id)
        found = w.blocked if w is not None and not w.closed else None
        return found if found is not None and found["version"] == self.version else None

    def blocks_for(self, viewer: str, shown: Iterable[str] | None = None) -> list[dict[str, Any]]:
        """The blocks on the open windows ``viewer`` sees (``shown``: the window ids their view lists; None: all):
        the window, the rule, the seats it waits on and when, for every viewer of the window; the refusal's words
        only for those the block was recorded for (the GM, whoever runs the windows, and the seat it waits on when it
        waits on one alone: a refusal may name that seat's holdings)."""
        ids = None if shown is None else set(shown)
        out = []
        for w in self.state.windows.values():
            b = getattr(w, "blocked", None)
            if not b or w.closed or (ids is not None and w.id not in ids):
                continue
            told = viewer == GM or b["seats"] == [viewer] or self.may(viewer, WINDOWS)
            out.append(
                {
                    "window_id": w.id,
                    "kind": w.kind,
                    "rule": b["rule"],
                    "seats": list(b["seats"]),
                    "at": b["at"],
                    "reason": b["reason"] if told else None,
                }
            )
        return out

    def open_window(self, kind: str) -> Window | None:
        """The open window of this kind, if any."""
        windows: dict[str, Window] = self.state.windows
        for w in windows.values():
            if w.kind == kind and not w.closed:
                return w
        return None

    def close_window(self, window_id: str, *, now: datetime, reason: str = "", force: bool = False) -> bool:
        """Close a window no step of the ruleset declares (the platform closes every declared one,
        ``domain.platform.flow``): a ruleset that opens such windows closes them here; by default none may be."""
        raise RuleViolation(
            f"no step of {self.state.ruleset!r} declares how window {window_id!r} closes", field="window_id"
        )

    def window(self, window_id: str) -> Window:
        w: Window | None = self.state.windows.get(window_id)
        if w is None or w.closed:
            raise NotFound(f"no open window {window_id!r}", field="window_id")
        return w

    def set_deadline(self, window_id: str, closes_at: datetime, *, now: datetime, actor: str = GM) -> None:
        """The GM moves a window's deadline (stored in UTC, so daylight saving never moves it)."""
        self.window(window_id)  # the window must be open
        if closes_at <= now:
            raise RuleViolation("a new deadline must be in the future", rule="P.1.2", field="closes_at")
        self._deadline_set(
            window_id=window_id, closes_at=_iso(closes_at.astimezone(timezone.utc)), actor=actor, audience=[vis.PUBLIC]
        )

    class DeadlineSet(Event):
        window_id: str
        closes_at: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            w = game.state.windows[self.window_id]
            w.closes_at = self.closes_at
            w.blocked = None  # a new deadline: its close is tried afresh when it falls due
            super().apply(game)

    def _deadline_set(self, window_id: str, closes_at: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(self.DeadlineSet, window_id=window_id, closes_at=closes_at, actor=actor, audience=audience)

    def request_extension(
        self, seat: str, window_id: str, hours: float, request_id: str, *, now: datetime, reason: str = ""
    ) -> None:
        """A power asks the GM for more time in a window (P-RES-1 "you can request an extension", GM-8)."""
        self.seat(seat)
        w = self.window(window_id)
        limits.check_text(reason, "reason", limits.REASON, what="a reason")
        limits.check_text(request_id, "request_id", limits.IDENTIFIER)
        if not 0 < hours <= 72:
            raise RuleViolation("ask for between a few minutes and 72 hours", rule="GM-8", field="hours")
        if now >= _at(w.deadline_for(seat)):
            raise RuleViolation(
                f"your deadline in this window passed at {w.deadline_for(seat)}", rule="GM-8", field="deadline"
            )
        if not self._may_act_in(w, seat):
            raise RuleViolation("you have nothing left to do in this window", rule="GM-8", field="window_id")
        if any(r["seat"] == seat and r["status"] == "pending" for r in w.requests.values()):
            raise RuleViolation("you already have a request waiting for the GM", rule="GM-8", field="window_id")
        self._extension_requested(
            request_id=request_id,
            window_id=window_id,
            seat=seat,
            hours=hours,
            reason=reason,
            actor=seat,
            audience=vis.seats([seat]),
        )

    class ExtensionRequested(Event):
        class_version = 2  # 2: the seat it is about is ``seat`` (version 1 called it by Powers' word)
        upcast_v1_v2 = staticmethod(_upcast_seat)

        request_id: str
        window_id: str
        seat: str
        hours: float
        reason: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.windows[self.window_id].requests[self.request_id] = {
                "seat": self.seat,
                "hours": self.hours,
                "status": "pending",
            }
            super().apply(game)

    def _extension_requested(
        self, request_id: str, window_id: str, seat: str, hours: float, reason: str, actor: str, audience: list[str]
    ) -> None:
        self.trigger_event(
            self.ExtensionRequested,
            request_id=request_id,
            window_id=window_id,
            seat=seat,
            hours=hours,
            reason=reason,
            actor=actor,
            audience=audience,
        )

    def _find_request(self, request_id: str) -> tuple[Window, dict[str, Any]]:
        for w in self.state.windows.values():
            if request_id in w.requests:
                return w, w.requests[request_id]
        raise NotFound(f"no extension request {request_id!r}", field="request_id")

    def grant_extension(self, request_id: str, *, now: datetime, hours: float | None = None, actor: str = GM) -> bool:
        """The GM grants a request, within the game's caps; granting twice is a no-op (returns False)."""
        w, req = self._find_request(request_id)
        if req["status"] == "granted":
            return False
        if req["status"] != "pending" or w.closed:
            raise RuleViolation("this request is no longer open", rule="GM-8", field="request_id")
        hours = float(hours if hours is not None else req["hours"])
        ps = self.seats[req["seat"]]
        # A ruleset whose options name no cap leaves that cap to the GM's judgement (no limit).
        per_window, in_all = (self.state.options.get(name, float("inf")) for name in self.extension_caps)
        base = _at(w.deadline_for(ps.id))
        already = (base - _at(w.closes_at)).total_seconds() / 3600
        if already + hours > float(per_window) + 1e-9:
            raise RuleViolation(
                f"this game allows at most {per_window} h of extension per seat per window; {ps.name} has "
                f"{already:g} h already",
                rule="GM-8",
                field="hours",
            )
        if ps.extension_hours_used + hours > float(in_all) + 1e-9:
            raise RuleViolation(
                f"this game allows at most {in_all} h of extensions per seat (its option {self.extension_caps[1]}); "
                f"{ps.name} has used {ps.extension_hours_used:g} h",
                rule="GM-8",
                field="hours",
            )
        until = _iso(max(base, now) + timedelta(hours=hours))
        self._extension_granted(
            request_id=request_id,
            window_id=w.id,
            seat=ps.id,
            hours=hours,
            until=until,
            actor=actor,
            audience=vis.seats([ps.id]),
        )
        return True

    class ExtensionGranted(Event):
        class_version = 2  # 2: the seat it is about is ``seat`` (version 1 called it by Powers' word)
        upcast_v1_v2 = staticmethod(_upcast_seat)

        request_id: str
        window_id: str
        seat: str
        hours: float
        until: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            w = game.state.windows[self.window_id]
            w.requests[self.request_id]["status"] = "granted"
            w.extensions[self.seat] = self.until
            game.seats[self.seat].extension_hours_used += self.hours
            super().apply(game)

    def _extension_granted(
        self, request_id: str, window_id: str, seat: str, hours: float, until: str, actor: str, audience: list[str]
    ) -> None:
        self.trigger_event(
            self.ExtensionGranted,
            request_id=request_id,
            window_id=window_id,
            seat=seat,
            hours=hours,
            until=until,
            actor=actor,
            audience=audience,
        )

    def refuse_extension(self, request_id: str, reason: str = "", *, actor: str = GM) -> None:
        w, req = self._find_request(request_id)
        limits.check_text(reason, "reason", limits.REASON, what="a reason")
        if req["status"] != "pending":
            raise RuleViolation("this request is no longer open", rule="GM-8", field="request_id")
        self._extension_refused(
            request_id=request_id,
            window_id=w.id,
            seat=req["seat"],
            reason=reason,
            actor=actor,
            audience=vis.seats([req["seat"]]),
        )

    class ExtensionRefused(Event):
        class_version = 2  # 2: the seat it is about is ``seat`` (version 1 called it by Powers' word)
        upcast_v1_v2 = staticmethod(_upcast_seat)

        request_id: str
        window_id: str
        seat: str
        reason: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.windows[self.window_id].requests[self.request_id]["status"] = "refused"
            super().apply(game)

    def _extension_refused(
        self, request_id: str, window_id: str, seat: str, reason: str, actor: str, audience: list[str]
    ) -> None:
        self.trigger_event(
            self.ExtensionRefused,
            request_id=request_id,
            window_id=window_id,
            seat=seat,
            reason=reason,
            actor=actor,
            audience=audience,
        )

    class ReadyDeclared(Event):
        class_version = 2  # 2: the seat it is about is ``seat`` (version 1 called it by Powers' word)
        upcast_v1_v2 = staticmethod(_upcast_seat)

        seat: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.seats[self.seat].ready = True
            super().apply(game)

    def _ready_declared(self, seat: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(self.ReadyDeclared, seat=seat, actor=actor, audience=audience)

    def queue_reminders(self, window_id: str, offsets: list[float] | float, *, now: datetime) -> list[str]:
        """Remind those who have not acted, the given hours before the deadline; once per window and offset.
        When several offsets fall due together (a short window), only the nearest is sent."""
        offsets = [offsets] if isinstance(offsets, (int, float)) else list(offsets)
        w = self.state.windows.get(window_id)
        if w is None or w.closed:
            return []
        closes = _at(w.closes_at)
        due = sorted(
            float(o)
            for o in offsets
            if float(o) not in w.reminded and closes - timedelta(hours=float(o)) <= now < closes
        )
        if not due:
            return []
        recipients = [p for p in self.pending_in(w) if now < _at(w.deadline_for(p))]
        self._reminders_queued(
            window_id=window_id,
            offset_hours=due[0],
            covers=due,
            recipients=recipients,
            closes_at=w.closes_at,
            actor=SYSTEM,
            audience=[vis.GM_ONLY],
        )
        return recipients

    class RemindersQueued(Event):
        window_id: str
        offset_hours: float
        covers: list[float]
        recipients: list[str]
        closes_at: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.windows[self.window_id].reminded.extend(self.covers)
            super().apply(game)

    def _reminders_queued(
        self,
        window_id: str,
        offset_hours: float,
        covers: list[float],
        recipients: list[str],
        closes_at: str,
        actor: str,
        audience: list[str],
    ) -> None:
        self.trigger_event(
            self.RemindersQueued,
            window_id=window_id,
            offset_hours=offset_hours,
            covers=covers,
            recipients=recipients,
            closes_at=closes_at,
            actor=actor,
            audience=audience,
        )

    # ------------------------------------------------------------------ visibility grants

    class VisibilityGranted(Event):
        to: str
        about: str | None
        text: str
        action_id: str | None
        source: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.seats[self.to].grants.append(
                {"source": self.source, "about": self.about, "text": self.text, "action_id": self.action_id}
            )
            super().apply(game)

    def _visibility_granted(
        self, to: str, about: str | None, text: str, action_id: str | None, source: str, actor: str, audience: list[str]
    ) -> None:
        self.trigger_event(
            self.VisibilityGranted,
            to=to,
            about=about,
            text=text,
            action_id=action_id,
            source=source,
            actor=actor,
            audience=audience,
        )

    def grant_visibility(
        self, to: str, text: str, *, source: str = "ruling", about: str | None = None, actor: str = GM
    ) -> None:
        """The GM shows a power something it has learned: a Seeking success, a ruling (P.4, P-ACT-7)."""
        self.seat(to)
        if about is not None:
            self.seat(about)
        if source not in ("seeking", "ruling", "consequence"):
            raise RuleViolation("a grant's source is seeking, ruling or consequence", field="source")
        limits.check_text(text, "text", limits.GRANT_TEXT, what="what the power learns")
        if not text.strip():
            raise RuleViolation("say what the power learns", field="text")
        self._visibility_granted(
            to=to, about=about, text=text.strip(), action_id=None, source=source, actor=actor, audience=vis.seats([to])
        )

    def set_timezone(self, seat: str, timezone: str) -> None:
        """A power chooses the IANA time zone it sees times in."""
        self.seat(seat)
        check_timezone(timezone)
        self._timezone_set(seat=seat, timezone=timezone, actor=seat, audience=vis.seats([seat]))

    class TimezoneSet(Event):
        class_version = 2  # 2: the seat it is about is ``seat`` (version 1 called it by Powers' word)
        upcast_v1_v2 = staticmethod(_upcast_seat)

        seat: str
        timezone: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.seats[self.seat].timezone = self.timezone
            super().apply(game)

    def _timezone_set(self, seat: str, timezone: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(self.TimezoneSet, seat=seat, timezone=timezone, actor=actor, audience=audience)

    # ------------------------------------------------------------------ mail memory

    class MailTurnRecorded(Event):
        message_id: str
        principal: str
        reply: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            # No longer recorded: a mail's Message-ID is its idempotency key, kept beside the events.
            # Stored events of this type still fold, so the mails they remember are still answered once.
            game.state.mail_replies[self.message_id] = {"principal": self.principal, "reply": self.reply}
            super().apply(game)

    def _mail_turn_recorded(self, message_id: str, principal: str, reply: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(
            self.MailTurnRecorded,
            message_id=message_id,
            principal=principal,
            reply=reply,
            actor=actor,
            audience=audience,
        )

    def set_contact(self, seat: str, email: str | None, mode: str = "immediate") -> None:
        """Where a power's notifications go, and whether at once or as a daily digest."""
        self.seat(seat)
        if email is not None:
            email = limits.check_email(email)
        if mode not in ("immediate", "digest", "off"):
            raise RuleViolation("notifications are immediate, digest or off", field="mode")
        self._contact_set(seat=seat, email=email, mode=mode, actor=seat, audience=vis.seats([seat]))

    class ContactSet(Event):
        class_version = 2  # 2: the seat it is about is ``seat`` (version 1 called it by Powers' word)
        upcast_v1_v2 = staticmethod(_upcast_seat)

        seat: str
        email: str | None
        mode: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            p = game.seats[self.seat]
            p.email, p.mail_mode = self.email, self.mode
            super().apply(game)

    def _contact_set(self, seat: str, email: str | None, mode: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(self.ContactSet, seat=seat, email=email, mode=mode, actor=actor, audience=audience)

    class LanguageSet(Event):
        """A seat chose the language of its mail (issue 28; recorded by ``domain.platform.commands.set_language``)."""

        seat: str
        language: str | None
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.seats[self.seat].language = self.language
            super().apply(game)

    # ------------------------------------------------------------------ rollback and fork

    class GameRolledBack(Event):
        to_version: int
        from_version: int
        reason: str
        actor: str
        audience: list[str]

    def _rolled_back(self, to_version: int, from_version: int, reason: str, actor: str, audience: list[str]) -> None:
        self.trigger_event(
            self.GameRolledBack,
            to_version=to_version,
            from_version=from_version,
            reason=reason,
            actor=actor,
            audience=audience,
        )

    def rollback(self, to_version: int, restored: Any, *, reason: str, now: datetime, seed: str) -> None:
        """Return the live game to its state at ``to_version`` (a phase start), without deleting history.

        ``restored`` is the game's state at ``to_version`` (the service folds it from the history). A
        public ``GameRolledBack`` tells the table; a sealed ``StateRestored`` records only the target
        version and what carries over (``carried_over``); whoever folds it re-folds the game to that
        version first (``fold``). A ruleset with more to carry over overrides ``carried_over`` and
        ``_merge_carried``; one that rolls dice draws a fresh seed after it (``_fresh_seed``).
        """
        reason = self._check_rollback(to_version, reason)
        self._rolled_back(
            to_version=to_version, from_version=self.version, reason=reason, actor=GM, audience=[vis.PUBLIC]
        )
        self._restore(to_version, restored, self.carried_over(restored, now))

    def _check_rollback(self, to_version: int, reason: str) -> str:
        """The reason, stripped, if a rollback to ``to_version`` may happen; else RuleViolation."""
        limits.check_text(reason, "reason", limits.REASON, what="a reason")
        if not reason.strip():
            raise RuleViolation("a rollback needs a reason the players will read", field="reason")
        if not 1 <= to_version < self.version:
            raise RuleViolation(f"roll back to an earlier version (1 to {self.version - 1})", field="to_version")
        return reason.strip()

    def _restore(self, to_version: int, restored: Any, carried: dict[str, Any]) -> None:
        """Record the sealed ``StateRestored``, folding it onto ``restored`` (the state at ``to_version``)."""
        self.__dict__["_refolded"] = {to_version: restored}  # the state at to_version, for the fold
        try:
            self.trigger_event(
                self.StateRestored, to_version=to_version, carried=carried, actor=SYSTEM, audience=[vis.SEALED]
            )
        finally:
            self.__dict__.pop("_refolded", None)

    # The key ``carried`` keeps each seat's grants and time zone under; a ruleset whose stored events
    # use another name for it keeps that name.
    CARRIED_SEATS: ClassVar[str] = "seats"

    def carried_over(self, restored: Any, now: datetime) -> dict[str, Any]:
        """What nobody can unsee survives a rollback: every viewer's sequence and the credentials; each seat
        that existed at the target keeps its time zone and visibility grants."""
        s, now_seated = self.state, self.seats
        return {
            "seen": deepcopy(s.seen),
            "credentials": deepcopy(s.credentials),
            self.CARRIED_SEATS: {
                pid: {"grants": deepcopy(now_seated[pid].grants), "timezone": now_seated[pid].timezone}
                for pid in self.seats_of(restored)
                if pid in now_seated
            },
        }

    def _merge_carried(self, merged: Any, carried: dict[str, Any]) -> Any:
        """``merged`` (a copy of the state at the target) with what ``carried_over`` kept."""
        merged.seen = deepcopy(carried["seen"])
        merged.credentials = deepcopy(carried["credentials"])
        for pid, kept in carried[self.CARRIED_SEATS].items():
            self.seats_of(merged)[pid].grants = deepcopy(kept["grants"])
            self.seats_of(merged)[pid].timezone = kept["timezone"]
        return merged

    class StateRestored(Event):
        """A rollback's new state: the state at ``to_version`` (re-folded by ``fold``) with ``carried``.

        ``to_version`` None is an older shape a ruleset's upcaster gives, that embedded the whole
        state in ``carried["state"]``: the fold takes it as it is.
        """

        to_version: int | None
        carried: dict[str, Any]
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            if self.to_version is None:
                # Every viewer's sequence carries over a rollback: the older shape embedded the sequences the
                # game had just before it (after its GameRolledBack), as the code of its time counted them; a
                # release before the count was fixed counted GameCreated twice (issue 27). They are the game's
                # own as folded now.
                seen, before = game.state.seen, game.state
                game.state = deepcopy(self.carried["state"])
                game.state.seen = deepcopy(seen)
                _keep_seating(game.state, before, game.seats_of(game.state))
            else:
                base = game.__dict__.get("_refolded", {}).get(self.to_version)
                if base is None:
                    raise RuntimeError(
                        f"StateRestored at version {self.originator_version} needs the game's state at "
                        f"version {self.to_version}: fold the events with domain.platform.game.fold"
                    )
                before = game.state
                game.state = game._merge_carried(deepcopy(base), self.carried)
                _keep_seating(game.state, before, game.seats_of(game.state))
            super().apply(game)

    def mark_forked(
        self,
        source_game: str,
        source_version: int,
        *,
        name: str,
        reason: str,
        seed: str,
        keeper: str = GM,
        keeper_credentials: tuple[str, ...] = (),
    ) -> None:
        """This game was copied from another game's history up to ``source_version``: ``keeper``'s sandbox.

        The copy is private to whoever forked it: every other seat's sign-in is revoked and its contact cleared,
        so nobody else is mailed, lists it or opens it until the keeper invites them (a new link for the seat).
        The keeper's sign-ins in the source now (``keeper_credentials``, hashes) open the fork too, though the
        copied history may predate them."""
        limits.check_text(name, "name", limits.GAME_NAME, required=True, what="a fork's name")
        limits.check_text(reason, "reason", limits.REASON, what="a reason")
        self._forked(
            source_game=source_game,
            source_version=source_version,
            name=name.strip(),
            reason=reason.strip(),
            actor=keeper,
            audience=[vis.PUBLIC],
        )
        # The copied month seed may still govern the original game's month: draw a new one, and reveal
        # the copied one nowhere (the original reveals it to its GM when its month closes).
        self._fresh_seed(seed, reveal=False)
        for principal in sorted(set(self.state.credentials.values()) - {GM, keeper}):
            self._credentials_revoked(principal=principal, actor=SYSTEM, audience=[vis.SEALED])
        if keeper == GM or keeper in self.seats:
            for token_hash in keeper_credentials:
                if self.state.credentials.get(token_hash) != keeper:
                    self._credential_issued(
                        principal=keeper, token_hash=token_hash, actor=SYSTEM, audience=[vis.SEALED]
                    )
        for seat_id, seat in sorted(self.seats.items()):
            if seat_id != keeper and getattr(seat, "email", None):
                self._contact_set(
                    seat=seat_id,
                    email=None,
                    mode=seat.mail_mode,
                    actor=SYSTEM,
                    audience=vis.seats([seat_id]),
                )

    class GameForked(Event):
        source_game: str
        source_version: int
        name: str
        reason: str
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.state.forked_from = {
                "game_id": self.source_game,
                "version": self.source_version,
                "reason": self.reason,
            }
            game.state.name = self.name
            super().apply(game)

    def _forked(
        self, source_game: str, source_version: int, name: str, reason: str, actor: str, audience: list[str]
    ) -> None:
        self.trigger_event(
            self.GameForked,
            source_game=source_game,
            source_version=source_version,
            name=name,
            reason=reason,
            actor=actor,
            audience=audience,
        )


def _keep_seating(restored: Any, before: Any, seats: dict[str, Any]) -> None:
    """A rollback carries the open seats and the invitations over, as it does the credentials (not in the
    ``StateRestored`` it records, which kept its shape: from the state the rollback leaves, which its events fold
    alike): a link mailed or withdrawn, or a seat a newcomer took, is not undone by returning the play to an
    earlier phase (a withdrawn invitation's link would work again; a taken seat would be offered again). A seat
    open before that the earlier phase has not (``seats``: its seats) is open no more."""
    for name in SEATING_FIELDS:
        setattr(restored, name, deepcopy(getattr(before, name)))
    for name in ("lobby", "lobby_terms"):
        setattr(restored, name, {k: v for k, v in getattr(restored, name).items() if k in seats})


def recount_seen(game: Any, stored: Iterable[Any]) -> None:
    """If ``game`` came from a snapshot marked by ``mark_recount``: count every viewer's sequence again from the
    stored events up to its version (``stored``: them, oldest first), each event once, as folding them does (a
    rollback carries the sequences over, so every stored event counts, superseded or not)."""
    if game is None or not game.__dict__.pop(RECOUNT_SEEN, False):
        return
    game.state.seen = {}
    for e in stored:
        if e.originator_version > game.version:
            break
        audience = getattr(e, "audience", None)
        if audience is not None:
            game.state.count_seen(list(audience))


def fold(
    game: Any,
    events: Iterable[Any],
    state_at: Callable[[Any, int], Any] | None = None,
    history: Callable[[Any, int, int], tuple[Any, list[Any]]] | None = None,
) -> Any:
    """Fold events (and a snapshot first, if any) onto ``game`` (None before it was created), for any ruleset.

    Like the library's projector, except that a ``StateRestored`` with a target version re-folds the
    game to that version first: ``state_at(game_id, version)`` gives that state (the repository reads
    it from the store, through a snapshot when it has one). Without ``state_at``, the events given are
    folded again up to that version, which needs them to start at version 1. A ``RulesAdopted`` (issue 29)
    re-folds the events since the version it counts from with its amendments: ``history(game_id, a, b)`` gives
    the game at version ``a`` and the stored events after it up to ``b`` (without it, the events given, from 1).
    """
    folded: list[Any] = []
    for e in events:
        if type(e).__name__ == "RulesAdopted":
            game = _adopt(game, e, folded, state_at, history)
            if state_at is None:
                folded.append(e)
            continue
        to_version = getattr(e, "to_version", None) if type(e).__name__ == "StateRestored" else None
        if to_version is None:
            game = e.mutate(game)
        else:
            if state_at is not None:
                base = state_at(e.originator_id, to_version)
            else:
                if not folded or folded[0].originator_version != 1 or len(folded) < to_version:
                    raise ValueError(
                        f"StateRestored at version {e.originator_version} needs the state at "
                        f"version {to_version}: give state_at, or every event from version 1"
                    )
                refolded = fold(None, folded[:to_version])
                if refolded is None:
                    raise ValueError(f"the events up to version {to_version} do not create the game")
                base = refolded.state
            if game is None:
                raise ValueError(f"StateRestored at version {e.originator_version} before the game was created")
            game.__dict__["_refolded"] = {to_version: base}
            try:
                game = e.mutate(game)
            finally:
                game.__dict__.pop("_refolded", None)
        if state_at is None:
            folded.append(e)
    return game


def _adopt(
    game: Any,
    e: Any,
    folded: list[Any],
    state_at: Callable[[Any, int], Any] | None,
    history: Callable[[Any, int, int], tuple[Any, list[Any]]] | None,
) -> Any:
    """Fold a ``RulesAdopted``: the game re-folded from its ``from_version`` with the amendments it records."""
    from domain.platform.replay import refold

    start, upto = e.from_version - 1, e.originator_version - 1
    if history is not None:
        base, between = history(e.originator_id, start, upto)
    else:
        if not folded or folded[0].originator_version != 1 or len(folded) < upto:
            raise ValueError(f"RulesAdopted at version {e.originator_version} needs every event from version 1")
        base, between = (fold(None, folded[:start]) if start else None), folded[start:upto]
    if game is None:
        raise ValueError(f"RulesAdopted at version {e.originator_version} before the game was created")
    again = refold(base, between, e.amended, lambda g, es: fold(g, es, state_at, history))
    game.__dict__["_refolded"] = {"adopted": again.state}
    try:
        return e.mutate(game)
    finally:
        game.__dict__.pop("_refolded", None)
