"""Commands every ruleset gets (DESIGN "Commands"): contacts, time zones, windows, extensions, ready.

A command is a frozen dataclass named as an imperative (``DeclareReady``); its fields are checked
against their annotations when it is built, so a bad field is refused naming the field before
anything runs. A handler is a plain function ``(game, command, ctx) -> result``: it checks who may
do it, calls the aggregate, and returns what the receipt reports (a dict, or None). Every channel
(JSON API, web forms, mail, workers) builds these and sends them through the one application
service, which looks the handler up in ``handlers_for(ruleset)``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, ClassVar, get_type_hints
from zoneinfo import ZoneInfo

from pydantic import TypeAdapter, ValidationError
from typing_extensions import TypedDict

from domain import limits
from domain import visibility as vis
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform import notifications
from domain.platform.roles import HISTORY, LINKS, RULE, WINDOWS

if TYPE_CHECKING:
    from domain.platform.game import PlatformGame

_ADAPTERS: dict[type, tuple[tuple[str, TypeAdapter[Any]], ...]] = {}


def _adapters(cls: type) -> tuple[tuple[str, TypeAdapter[Any]], ...]:
    """A validator for each field of a command class, from its annotations (built once per class)."""
    found = _ADAPTERS.get(cls)
    if found is None:
        hints = get_type_hints(cls)
        found = _ADAPTERS[cls] = tuple((f.name, TypeAdapter(hints[f.name])) for f in fields(cls))
    return found


_WHOLE: dict[type, Any] = {}


def _whole(cls: type) -> Any:
    """One validator for all of a command class's fields at once (a ``TypedDict`` of its annotations, strict): a
    command's fields checked in one call instead of one call a field (issue 30: ~30 us a command where a route's
    command has 15 fields, now ~5). Built once per class."""
    found = _WHOLE.get(cls)
    if found is None:
        hints = get_type_hints(cls)
        shape = TypedDict(cls.__name__, {f.name: hints[f.name] for f in fields(cls)})  # type: ignore[misc]
        found = _WHOLE[cls] = TypeAdapter(shape).validator
    return found


@dataclass(frozen=True)
class Command:
    """Base of every command: building one with an ill-typed field is refused, naming the field."""

    def __post_init__(self) -> None:
        values = self.__dict__  # its fields (a frozen dataclass without slots); anything else is ignored
        try:
            _whole(type(self)).validate_python(values, strict=True)
        except ValidationError:
            pass  # refused: the field-by-field checks below name the first field at fault, as they always have
        else:
            if limits.all_fit(values):
                return
        for name, adapter in _adapters(type(self)):
            try:
                adapter.validate_python(getattr(self, name), strict=True)
            except ValidationError as err:
                problem = err.errors()[0].get("msg", "invalid") if err.errors() else "invalid"
                raise RuleViolation(f"{type(self).__name__}.{name}: {problem}", field=name) from None
            limits.check_whole_numbers(getattr(self, name), name)  # what the stores hold, from every channel


@dataclass(frozen=True)
class Context:
    """What a handler may use besides the game: who is asking, the time, and fresh randomness.

    The application service supplies these (clock, entropy, the game's seeded roller), so handlers
    read no clock and draw no randomness of their own."""

    principal: str
    now: datetime
    entropy: Callable[[int], str]
    roller: Callable[[Any], Any]
    new_id: Callable[[str], str]
    state_at: Callable[[int], Any] | None = None  # the game's state at an earlier version (a rollback's target)
    # The game's stored history, for the handlers that read or copy it (rollback, fork): the event recorded at a
    # version (None if none), the version a phase began at (NotFound naming ``phase``), and a copy of the game
    # up to a version under a new id: the copied events and the game folded from them, neither saved yet.
    event_at: Callable[[int], Any] | None = None
    phase_version: Callable[[str], int] | None = None
    copy_at: Callable[[int], tuple[list[Any], Any]] | None = None
    # The version of the event a viewer numbers ``seq`` in its own timeline (None if it was shown no such event): a
    # dispute names its event so (domain.platform.disputes), never by a version a seat is not shown.
    seen_version: Callable[[str, int], int | None] | None = None
    # Saves these (events, then aggregates) in the command's own transaction: all of it is recorded, or nothing.
    keep: Callable[..., None] | None = None
    # The command is a seat's default on silence, sent by the platform as a window closes (domain.platform.flow): a
    # handler may record it as a default rather than the seat's own choice.
    silent: bool = False


Handler = Callable[[Any, Any, Context], Any]


def trial_context(game: PlatformGame, principal: str, now: datetime) -> Context:
    """A handler's context for a trial run on a copy of the game (a ruleset's ``offers`` keeps what its handlers
    accept): the game's own time, fixed entropy and ids, the game's own dice, its state for any earlier version."""
    from domain.dice import SeededRoller  # a command module needs no dice but here

    return Context(
        principal=principal,
        now=now,
        entropy=lambda n: "0" * (2 * n),
        roller=lambda g: SeededRoller(
            g.state.seed or "00", legacy=g.state.seed is not None and g.state.seed_root is None
        ),
        new_id=lambda prefix: f"{prefix}-offered",
        state_at=lambda version: game.state,
    )


def require_gm(ctx: Context, what: str = "do this") -> None:
    if ctx.principal != GM:
        raise Forbidden(f"only the GM may {what}", field="authorization")


def require(game: PlatformGame, ctx: Context, privilege: str, what: str = "do this") -> None:
    """The caller's roles at this table must hold the privilege (a GM, or a host where the ruleset says so)."""
    if game.may(ctx.principal, privilege):
        return
    names = [role_name(r) for r in game.ruleset.roles.holders(privilege)] or ["nobody"]
    raise Forbidden(f"only the {' or the '.join(names)} may {what}", field="authorization")


def role_name(role: str) -> str:
    """A role as a refusal names it."""
    return "GM" if role == GM else role


def require_seat(game: PlatformGame, ctx: Context, seat: str) -> None:
    """A seat acts for itself; a ruleset may let the GM act for some seats (``game.acts_for``)."""
    game.seat(seat)
    if ctx.principal == seat or game.acts_for(ctx.principal, seat):
        return
    raise Forbidden("you may act only for your own seat", field="seat")


# ---------------------------------------------------------------------- commands


@dataclass(frozen=True)
class SetTimezone(Command):
    """Choose the time zone a seat's feed and deadlines are shown in."""

    seat: str
    timezone: str


@dataclass(frozen=True)
class SetContact(Command):
    """Where a seat's notifications go (immediate, daily digest, or off)."""

    seat: str
    email: str | None
    mode: str = "immediate"


@dataclass(frozen=True)
class SetLanguage(Command):
    """The language a seat's mail is written in ("de", "en"; None: the game's)."""

    seat: str
    language: str | None


@dataclass(frozen=True)
class SetNotifications(Command):
    """How a seat's news comes (issue 31): per channel ("mail", "push") a kind of news -> "now", "digest" or "off"
    (kinds not named: now), and quiet hours in the seat's zone ("22:00" to "07:00"; both or neither)."""

    seat: str
    mail: dict[str, str] = field(default_factory=dict)
    push: dict[str, str] = field(default_factory=dict)
    quiet_from: str | None = None
    quiet_until: str | None = None


@dataclass(frozen=True)
class SetDeadline(Command):
    """GM: move a window's deadline; a naive time is read in the game's time zone."""

    window_id: str
    closes_at: datetime


@dataclass(frozen=True)
class RequestExtension(Command):
    """Ask the GM for more time in a window (GM-8); no window names the first open one."""

    seat: str
    hours: float
    window_id: str | None = None
    reason: str = ""


@dataclass(frozen=True)
class GrantExtension(Command):
    """GM: grant an extension request; granting it again changes nothing."""

    request_id: str
    hours: float | None = None


@dataclass(frozen=True)
class RefuseExtension(Command):
    """GM: refuse an extension request."""

    request_id: str
    reason: str = ""


@dataclass(frozen=True)
class DeclareReady(Command):
    """Say a seat has done all it will in this window."""

    seat: str


@dataclass(frozen=True)
class CloseWindow(Command):
    """GM: close a window now, before its deadline if need be (a no-op if it is closed)."""

    window_id: str
    expected_step: str | None = None
    reason: str = "closed by the GM"


@dataclass(frozen=True)
class CloseDueWindow(Command):
    """Workers: close a window if it is due (a no-op if closed, gone or not due)."""

    window_id: str
    system: ClassVar[bool] = True


@dataclass(frozen=True)
class QueueDueReminders(Command):
    """Workers: queue the reminders now due for a window, each offset once."""

    window_id: str
    system: ClassVar[bool] = True


@dataclass(frozen=True)
class GrantVisibility(Command):
    """GM: show a seat what it learned (a ruling, a seeking success)."""

    to: str
    text: str
    source: str = "ruling"
    about: str | None = None


@dataclass(frozen=True)
class ReissueLink(Command):
    """GM: revoke the sign-in link of the GM or a seat and record the hash of a new one."""

    who: str
    token_hash: str


@dataclass(frozen=True)
class OpenSeat(Command):
    """GM: offer a seat to newcomers (the lobby lists it with a public note), or with ``open=False`` no more."""

    seat: str
    note: str = ""
    open: bool = True
    listed: bool = False  # the lobby (``/lobby``) lists it; else only those the GM tells of the game find it
    pace: str = ""  # brisk, steady or leisurely: the lobby says so
    language: str = ""  # the table's language, a tag such as de: the lobby says so


@dataclass(frozen=True)
class TakeSeat(Command):
    """A newcomer takes an open seat: the hash of their new sign-in link, and their address as its contact (None:
    none yet; the lobby's form sets none until the address is confirmed, so no stranger's address gets its mail)."""

    seat: str
    token_hash: str
    email: str | None


@dataclass(frozen=True)
class InviteToSeat(Command):
    """GM: invite an address to a seat; the link mailed to it takes the seat (``api/web/lobby.py`` sends it)."""

    invitation: str
    seat: str
    email: str
    language: str = ""  # the invitee's language, if known: the mail is written in it


@dataclass(frozen=True)
class InviteObserver(Command):
    """GM: invite an address to observe; the link mailed to it signs its follower in as an observer, who sees what
    the table sees (the public audience) and nothing of any seat's (issue 28)."""

    invitation: str
    email: str
    language: str = ""  # the invitee's language, if known: the mail is written in it


@dataclass(frozen=True)
class AcceptInvitation(Command):
    """The service, for whoever followed an invitation's link (checked there): take the seat with the hash of a new
    sign-in link, the invited address its contact; or, invited to observe, become an observer with that link."""

    invitation: str
    token_hash: str
    system: ClassVar[bool] = True


@dataclass(frozen=True)
class WithdrawInvitation(Command):
    """GM: withdraw an invitation not yet accepted, or revoke an observer's (its link stops working)."""

    invitation: str


@dataclass(frozen=True)
class RollBack(Command):
    """Return the live game to the start of a phase (named, or the version it began at); history stays, marked
    superseded. Only a role holding ``history`` may (the GM; the covenant game's auditor)."""

    reason: str
    phase: str | None = None
    version: int | None = None


@dataclass(frozen=True)
class Fork(Command):
    """A new game, a sandbox of whoever forks it (a role holding ``history``), copied from this game's history up
    to the start of a phase (or a version): written with its mark in one transaction, or not at all."""

    name: str
    reason: str = ""
    phase: str | None = None
    version: int | None = None


@dataclass(frozen=True)
class OpenThread(Command):
    """Open a private thread with the seats named (the GM sees it; a seat opens it with itself in it)."""

    seats: list[str]
    title: str = ""


@dataclass(frozen=True)
class MakePost(Command):
    """Post to a thread you may read (``table``, ``narration``, ``desk-<seat>`` or a private one); ``[roll
    3d6]`` rolls the game's committed dice; ``tied_to`` is ``phase:<id>``, ``action:<id>`` or ``battle:<id>``."""

    thread_id: str
    text: str
    tied_to: str | None = None
    reply_to: str | None = None  # the post this one answers, in the same thread (issue 28)


@dataclass(frozen=True)
class EditPost(Command):
    """Rewrite your own post (readers see it was edited)."""

    post_id: str
    text: str


@dataclass(frozen=True)
class HidePost(Command):
    """GM (a host, where there is no GM): hide a post from the players, with a reason the audit keeps."""

    post_id: str
    reason: str


@dataclass(frozen=True)
class RaiseDispute(Command):
    """Dispute an event you were shown, named by its number in your feed (``seq``): a thread with the GM (or the
    hosts who saw it, where there is no GM) opens with your text (issue 29)."""

    seq: int
    text: str


@dataclass(frozen=True)
class AnswerDispute(Command):
    """GM (the hosts it was raised to, where there is no GM): answer a dispute in its thread, pointing at what settles
    it: ``derivation:<result id>``, ``preview[:<window>]``, ``rollback:<phase>`` or ``replay[:<version>]``."""

    dispute_id: str
    text: str
    points_at: str | None = None


@dataclass(frozen=True)
class SettleDispute(Command):
    """Record a dispute's outcome: ``upheld`` or ``rejected`` (whoever answers it), ``withdrawn`` (its raiser)."""

    dispute_id: str
    outcome: str
    note: str = ""


# ---------------------------------------------------------------------- handlers


def set_timezone(game: PlatformGame, cmd: SetTimezone, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat)
    game.set_timezone(cmd.seat, cmd.timezone)


def set_contact(game: PlatformGame, cmd: SetContact, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat)
    game.set_contact(cmd.seat, cmd.email, cmd.mode)


LANGUAGE = re.compile(r"[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?")  # a language tag: "de", "en-GB"


def set_language(game: PlatformGame, cmd: SetLanguage, ctx: Context) -> None:
    """The language a seat's mail is written in: a language tag such as "de" (None: the game's)."""
    require_seat(game, ctx, cmd.seat)
    game.seat(cmd.seat)
    language = cmd.language.strip().replace("_", "-") if cmd.language is not None else None
    if language is not None and not LANGUAGE.fullmatch(language):
        raise RuleViolation(f"{language[:20]!r} is not a language tag (such as de or en-GB)", field="language")
    game.trigger_event(
        type(game).LanguageSet, seat=cmd.seat, language=language, actor=cmd.seat, audience=vis.seats([cmd.seat])
    )


def set_notifications(game: PlatformGame, cmd: SetNotifications, ctx: Context) -> None:
    """Record a seat's notification preferences, every field checked first (``domain.platform.notifications``)."""
    require_seat(game, ctx, cmd.seat)
    mail, push = notifications.check_choices("mail", cmd.mail), notifications.check_choices("push", cmd.push)
    quiet_from, quiet_until = notifications.check_quiet(cmd.quiet_from, cmd.quiet_until)
    game.trigger_event(
        type(game).NotificationsSet,
        seat=cmd.seat,
        mail=mail,
        push=push,
        quiet_from=quiet_from,
        quiet_until=quiet_until,
        actor=cmd.seat,
        audience=vis.seats([cmd.seat]),
    )


def set_deadline(game: PlatformGame, cmd: SetDeadline, ctx: Context) -> None:
    require(game, ctx, WINDOWS)
    moment = cmd.closes_at
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=ZoneInfo(game.state.timezone))
    game.set_deadline(cmd.window_id, moment.astimezone(timezone.utc), now=ctx.now, actor=ctx.principal)


def request_extension(game: PlatformGame, cmd: RequestExtension, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat)
    window_id = cmd.window_id
    if window_id is None:
        open_windows = [w for w in game.state.windows.values() if not w.closed]
        if not open_windows:
            raise RuleViolation("no window is open", rule="GM-8")
        window_id = open_windows[0].id
    request_id = ctx.new_id("ext")
    game.request_extension(cmd.seat, window_id, cmd.hours, request_id, now=ctx.now, reason=cmd.reason)
    return {"request_id": request_id}


def grant_extension(game: PlatformGame, cmd: GrantExtension, ctx: Context) -> dict[str, Any]:
    require(game, ctx, WINDOWS)
    return {"granted": game.grant_extension(cmd.request_id, now=ctx.now, hours=cmd.hours, actor=ctx.principal)}


def refuse_extension(game: PlatformGame, cmd: RefuseExtension, ctx: Context) -> None:
    require(game, ctx, WINDOWS)
    game.refuse_extension(cmd.request_id, cmd.reason, actor=ctx.principal)


def declare_ready(game: PlatformGame, cmd: DeclareReady, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat)
    game.declare_ready(cmd.seat, now=ctx.now)


def close_window(game: PlatformGame, cmd: CloseWindow, ctx: Context) -> dict[str, Any]:
    require(game, ctx, WINDOWS, "close a window")
    game.expect_step(cmd.expected_step)
    if cmd.window_id not in game.state.windows:
        raise NotFound(f"no open window {cmd.window_id!r}", field="window_id")
    return {"closed": _close(game, cmd.window_id, ctx, reason=cmd.reason, force=True)}


def close_due_window(game: PlatformGame, cmd: CloseDueWindow, ctx: Context) -> dict[str, Any]:
    w = game.state.windows.get(cmd.window_id)
    if w is None or w.closed or ctx.now < datetime.fromisoformat(w.final_closes_at):
        return {"closed": False}
    return {"closed": _close(game, cmd.window_id, ctx, reason="deadline", force=False)}


def _close(game: PlatformGame, window_id: str, ctx: Context, *, reason: str, force: bool) -> bool:
    """The platform closes a window its ruleset declares (domain.platform.flow); any other, the ruleset closes."""
    from domain.platform import flow  # flow builds on these commands

    w = game.state.windows.get(window_id)
    if w is not None and flow.rule_for(game, w) is not None:
        return flow.close(game, window_id, ctx, reason=reason)
    closed: bool = game.close_window(window_id, now=ctx.now, reason=reason, force=force)
    return closed


def queue_due_reminders(game: PlatformGame, cmd: QueueDueReminders, ctx: Context) -> dict[str, Any]:
    w = game.state.windows.get(cmd.window_id)
    if w is None or w.closed:
        return {"reminded": []}
    return {"reminded": game.queue_reminders(cmd.window_id, game.state.options.get("reminder_hours", []), now=ctx.now)}


def grant_visibility(game: PlatformGame, cmd: GrantVisibility, ctx: Context) -> None:
    require(game, ctx, RULE)
    game.grant_visibility(cmd.to, cmd.text, source=cmd.source, about=cmd.about, actor=ctx.principal)


def reissue_link(game: PlatformGame, cmd: ReissueLink, ctx: Context) -> dict[str, Any]:
    require(game, ctx, LINKS)
    game.reissue_credential(cmd.who, cmd.token_hash)
    return {"principal": cmd.who}


def open_seat(game: PlatformGame, cmd: OpenSeat, ctx: Context) -> dict[str, Any]:
    require(game, ctx, LINKS, "open or close a seat")
    if cmd.open:
        game.open_seat(ctx.principal, cmd.seat, cmd.note, cmd.listed, cmd.pace, cmd.language)
    else:
        game.close_seat(ctx.principal, cmd.seat)
    return {"seat": cmd.seat, "open": cmd.open}


def take_seat(game: PlatformGame, cmd: TakeSeat, ctx: Context) -> dict[str, Any]:
    """Anyone may take a seat the GM opened (the seat's being open is the guard); nobody may take another."""
    game.take_seat(cmd.seat, cmd.token_hash, cmd.email)
    return {"seat": cmd.seat}


def invite_to_seat(game: PlatformGame, cmd: InviteToSeat, ctx: Context) -> dict[str, Any]:
    require(game, ctx, LINKS, "invite to a seat")
    game.invite(ctx.principal, cmd.invitation, cmd.seat, cmd.email, cmd.language)
    return {"invitation": cmd.invitation, "seat": cmd.seat}


def invite_observer(game: PlatformGame, cmd: InviteObserver, ctx: Context) -> dict[str, Any]:
    require(game, ctx, LINKS, "invite an observer")
    game.invite_observer(ctx.principal, cmd.invitation, cmd.email, cmd.language)
    return {"invitation": cmd.invitation}


def accept_invitation(game: PlatformGame, cmd: AcceptInvitation, ctx: Context) -> dict[str, Any]:
    """Sent by the service only (the link's proof is checked where it is followed); used once. ``principal``: whom
    the new link signs in (the seat, or the observer)."""
    principal = game.accept_invitation(cmd.invitation, cmd.token_hash)
    return {"principal": principal, "seat": "" if vis.is_observer(principal) else principal}


def withdraw_invitation(game: PlatformGame, cmd: WithdrawInvitation, ctx: Context) -> dict[str, Any]:
    require(game, ctx, LINKS, "withdraw an invitation")
    game.withdraw_invitation(ctx.principal, cmd.invitation)
    return {"invitation": cmd.invitation}


def _target(game: PlatformGame, ctx: Context, phase: str | None, version: int | None, *, latest: int) -> int:
    """The version a rollback or a fork goes back to: ``version`` (1 to ``latest``), else the latest start of
    ``phase``; RuleViolation or NotFound naming the field otherwise."""
    if version is not None:
        if not 1 <= version <= latest:
            raise RuleViolation(
                f"version: from 1 to {latest} (this game is at version {game.version})", field="version"
            )
        return version
    if not phase:
        raise RuleViolation("name a phase (such as s1m1-planning) or a version", field="phase")
    if ctx.phase_version is None:
        raise RuntimeError("this command needs the service's phase_version")
    return ctx.phase_version(phase)


def roll_back(game: PlatformGame, cmd: RollBack, ctx: Context) -> dict[str, Any]:
    require(game, ctx, HISTORY, "roll back the game")
    limits.check_text(cmd.reason, "reason", limits.REASON, what="a reason")
    if not cmd.reason.strip():
        raise RuleViolation("a rollback needs a reason the players will read", field="reason")
    target = _target(game, ctx, cmd.phase, cmd.version, latest=game.version - 1)
    if target >= game.version:
        raise RuleViolation(f"roll back to an earlier version (1 to {game.version - 1})", field="version")
    if ctx.state_at is None or ctx.event_at is None:
        raise RuntimeError("a rollback needs the service's state_at and event_at")
    if target != 1 and game.ruleset.phase_of(ctx.event_at(target)) is None:
        raise RuleViolation("roll back to the start of a phase (see the phase list)", field="version")
    forked = getattr(game.state, "forked_from", None)
    if forked and target <= int(forked["version"]) + 1:
        # Before its mark, a fork's history is the source's copy: restored there, the sandbox would lose its mark and
        # its privacy (the players' links and contacts the fork revoked and cleared).
        raise RuleViolation(
            f"a fork rolls back no further than its own start (after version {int(forked['version']) + 1}); fork the "
            "original game again to go back further",
            field="version",
        )
    game.rollback(target, ctx.state_at(target), reason=cmd.reason, now=ctx.now, seed=ctx.entropy(32))
    return {"to_version": target, "phase": cmd.phase}


def fork(game: PlatformGame, cmd: Fork, ctx: Context) -> dict[str, Any]:
    require(game, ctx, HISTORY, "fork the game")
    limits.check_text(cmd.name, "name", limits.GAME_NAME, required=True, what="a fork's name")
    limits.check_text(cmd.reason, "reason", limits.REASON, what="a reason")
    target = _target(game, ctx, cmd.phase, cmd.version, latest=game.version)
    if ctx.copy_at is None or ctx.keep is None:
        raise RuntimeError("a fork needs the service's copy_at and keep")
    copied, sandbox = ctx.copy_at(target)
    mine = tuple(sorted(h for h, p in game.state.credentials.items() if p == ctx.principal))
    sandbox.mark_forked(
        str(game.id),
        target,
        name=cmd.name,
        reason=cmd.reason,
        seed=ctx.entropy(32),
        keeper=ctx.principal,
        keeper_credentials=mine,
    )
    ctx.keep(*copied, sandbox)
    return {"game_id": str(sandbox.id), "source_game": str(game.id), "source_version": target}


def open_thread(game: PlatformGame, cmd: OpenThread, ctx: Context) -> dict[str, Any]:
    thread = game.open_thread(ctx.principal, list(cmd.seats), cmd.title, ctx.new_id("thr"))
    return {"thread_id": thread["id"], "title": thread["title"], "members": thread["members"]}


def make_post(game: PlatformGame, cmd: MakePost, ctx: Context) -> dict[str, Any]:
    return dict(
        game.make_post(
            ctx.principal,
            cmd.thread_id,
            cmd.text,
            post_id=ctx.new_id("post"),
            roller=_lazy(ctx, game),
            tied_to=cmd.tied_to,
            reply_to=cmd.reply_to,
        )
    )


def _lazy(ctx: Context, game: PlatformGame) -> Any:
    """The game's roller, built only if a post rolls (a game that has committed no seed has none)."""

    class Lazy:
        def faces(self, roll_no: int, count: int, sides: int = 6) -> list[int]:
            return list(ctx.roller(game).faces(roll_no, count, sides))

    return Lazy()


def edit_post(game: PlatformGame, cmd: EditPost, ctx: Context) -> dict[str, Any]:
    game.edit_post(ctx.principal, cmd.post_id, cmd.text)
    return {"post_id": cmd.post_id}


def hide_post(game: PlatformGame, cmd: HidePost, ctx: Context) -> dict[str, Any]:
    game.hide_post(ctx.principal, cmd.post_id, cmd.reason)
    return {"post_id": cmd.post_id}


def raise_dispute(game: PlatformGame, cmd: RaiseDispute, ctx: Context) -> dict[str, Any]:
    version = ctx.seen_version(ctx.principal, cmd.seq) if ctx.seen_version is not None and cmd.seq > 0 else None
    event = ctx.event_at(version) if version is not None and ctx.event_at is not None else None
    return dict(
        game.raise_dispute(
            ctx.principal,
            cmd.seq,
            event,
            cmd.text,
            dispute_id=ctx.new_id("dsp"),
            thread_id=ctx.new_id("thr"),
            post_id=ctx.new_id("post"),
        )
    )


def answer_dispute(game: PlatformGame, cmd: AnswerDispute, ctx: Context) -> dict[str, Any]:
    return dict(game.answer_dispute(ctx.principal, cmd.dispute_id, cmd.text, cmd.points_at, post_id=ctx.new_id("post")))


def settle_dispute(game: PlatformGame, cmd: SettleDispute, ctx: Context) -> dict[str, Any]:
    return dict(game.settle_dispute(ctx.principal, cmd.dispute_id, cmd.outcome, cmd.note))


PLATFORM_COMMANDS: Mapping[type, Handler] = {
    RaiseDispute: raise_dispute,
    AnswerDispute: answer_dispute,
    SettleDispute: settle_dispute,
    OpenThread: open_thread,
    MakePost: make_post,
    EditPost: edit_post,
    HidePost: hide_post,
    SetTimezone: set_timezone,
    SetContact: set_contact,
    OpenSeat: open_seat,
    TakeSeat: take_seat,
    InviteToSeat: invite_to_seat,
    InviteObserver: invite_observer,
    AcceptInvitation: accept_invitation,
    WithdrawInvitation: withdraw_invitation,
    SetLanguage: set_language,
    SetNotifications: set_notifications,
    SetDeadline: set_deadline,
    RequestExtension: request_extension,
    GrantExtension: grant_extension,
    RefuseExtension: refuse_extension,
    DeclareReady: declare_ready,
    CloseWindow: close_window,
    CloseDueWindow: close_due_window,
    QueueDueReminders: queue_due_reminders,
    GrantVisibility: grant_visibility,
    ReissueLink: reissue_link,
    Fork: fork,
    RollBack: roll_back,
}


def is_system(command: Command) -> bool:
    """Whether only the service's own workers send this command (the actor is ``system``)."""
    return bool(getattr(command, "system", False))


__all__ = ["Command", "Context", "Handler", "PLATFORM_COMMANDS", "SYSTEM", "is_system"]
