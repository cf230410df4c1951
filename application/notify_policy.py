"""What a channel does with one piece of news for one seat (issue 31, item 3): the one policy every channel asks.

``decide(prefs, channel, kind, now, zone, deadline)`` answers ``now`` (send it), ``hold`` (send it when the seat's
quiet hours end, ``until``), ``digest`` (gather it into the seat's one daily digest) or ``drop``. The seat's own
choices (``domain.platform.notifications``, ``SetNotifications``) come first: a kind it turned off is dropped, one
it wants in the digest is gathered. What would go now waits while the seat's quiet hours last, in its zone (they
may cross midnight; a clock change is read as the seat's clock reads it: they end at the first instant the
seat's clock is past their end), except a deadline warning whose deadline falls before they end: that goes now.
Mail also follows the seat's contact mode (``SetContact``: off drops every mail, digest gathers what would go now).

``kind_of`` reads a notification of the outbox as one of the kinds (``KINDS``), the same vocabulary a game's
webhooks use for the public ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo

from domain.errors import DomainError
from domain.platform.notifications import CHANNELS, KINDS, PUBLIC_KINDS

__all__ = ["CHANNELS", "KINDS", "PUBLIC_KINDS", "Decision", "Preferences", "decide", "kind_of", "preferences_of"]

NOW, HOLD, DIGEST, DROP = "now", "hold", "digest", "drop"
PUBLIC_THREADS = ("table", "narration")  # a post anywhere else is in a desk or a private thread


@dataclass(frozen=True)
class Preferences:
    """A seat's choices: per channel, a kind -> now, digest or off; quiet hours ("22:00", "07:00") or none; and
    its mail mode (immediate, digest or off)."""

    mail: Mapping[str, str] = field(default_factory=dict)
    push: Mapping[str, str] = field(default_factory=dict)
    quiet_from: str | None = None
    quiet_until: str | None = None
    mail_mode: str = "immediate"

    def choice(self, channel: str, kind: str) -> str:
        chosen = self.mail if channel == "mail" else self.push
        return str(chosen.get(kind, "now"))


@dataclass(frozen=True)
class Decision:
    """What to do with the news: ``action`` is now, hold, digest or drop; ``until`` (UTC) when a hold ends."""

    action: str
    until: datetime | None = None


def preferences_of(game: Any, seat: str) -> Preferences:
    """A seat's preferences as its game records them (everything at once for a seat that chose nothing)."""
    held = game.seats.get(seat)
    kept = game.preferences_of(seat) if held is not None else {}
    return Preferences(
        mail=kept.get("mail") or {},
        push=kept.get("push") or {},
        quiet_from=kept.get("quiet_from"),
        quiet_until=kept.get("quiet_until"),
        mail_mode=str(getattr(held, "mail_mode", None) or "immediate"),
    )


def _clock(text: str) -> time:
    hours, minutes = text.split(":")
    return time(int(hours), int(minutes))


def is_quiet(prefs: Preferences, local: time) -> bool:
    """Whether a time of day on the seat's clock is within its quiet hours ([from, until), across midnight too)."""
    if prefs.quiet_from is None or prefs.quiet_until is None:
        return False
    start, end = _clock(prefs.quiet_from), _clock(prefs.quiet_until)
    wall = local.replace(tzinfo=None)
    return start <= wall < end if start < end else wall >= start or wall < end


def _first_at(day: date, wall: time, zone: ZoneInfo, after: datetime) -> datetime:
    """The first instant (UTC) after ``after`` at which the seat's clock reads ``wall`` on ``day``: the wall time
    itself (its later reading, where the clock is set back and ``after`` falls between the two), or, where a clock
    change skips it, the instant of the change."""
    naive = datetime.combine(day, wall)
    readings = [naive.replace(tzinfo=zone, fold=fold).astimezone(timezone.utc) for fold in (0, 1)]
    real = [m for m in readings if m.astimezone(zone).replace(tzinfo=None) == naive]
    if real:
        later = [m for m in real if m > after]
        return min(later) if later else _first_at(day + timedelta(days=1), wall, zone, after)
    # skipped by a clock change: the change happens between the fold=1 reading and the fold=0 one, on a minute
    moment = min(readings).replace(second=0, microsecond=0)
    while moment.astimezone(zone).replace(tzinfo=None) < naive:
        moment += timedelta(minutes=1)
    return moment


def _changes(tz: ZoneInfo, start: datetime, stop: datetime) -> list[datetime]:
    """The instants (UTC, whole minutes) between ``start`` and ``stop`` at which the zone's clock is set forward or
    back: found a half hour at a time, then to the minute."""
    out = []
    step = timedelta(minutes=30)
    t = start.replace(second=0, microsecond=0)
    while t < stop:
        if t.astimezone(tz).utcoffset() != (t + step).astimezone(tz).utcoffset():
            lo, hi = t, t + step  # the offset is lo's at lo and hi's at hi: the minute it changes
            while hi - lo > timedelta(minutes=1):
                mid = lo + (hi - lo) / 2
                mid = mid.replace(second=0, microsecond=0)
                if mid.astimezone(tz).utcoffset() == lo.astimezone(tz).utcoffset():
                    lo = mid
                else:
                    hi = mid
            out.append(hi)
        t += step
    return out


def quiet_end(prefs: Preferences, now: datetime, zone: str) -> datetime | None:
    """When the seat's quiet hours that hold ``now`` end (UTC), or None if ``now`` is not within them: the first
    instant the seat's clock reads a time out of them. That is where its clock reaches their end (or skips past it,
    set forward), or where it is set forward or back to a time out of them; where the clock skips past their end and
    their next start at once, they go on until the next end."""
    tz = ZoneInfo(zone)
    local = now.astimezone(tz)
    if not is_quiet(prefs, local.time()):
        return None
    assert prefs.quiet_until is not None
    end = _clock(prefs.quiet_until)
    days = [local.date() + timedelta(days=k) for k in range(3)]
    candidates = {_first_at(day, end, tz, now) for day in days}
    candidates.update(_changes(tz, now, now + timedelta(days=2)))
    for moment in sorted(m for m in candidates if m > now):
        if not is_quiet(prefs, moment.astimezone(tz).time()):
            return moment
    return None  # pragma: no cover - quiet hours end within a day and a half of any instant


def decide(
    prefs: Preferences, channel: str, kind: str, now: datetime, zone: str, deadline: datetime | None = None
) -> Decision:
    """Send now, hold until the seat's quiet hours end, gather into the daily digest, or drop (see the module)."""
    if channel not in CHANNELS:
        raise ValueError(f"no channel {channel!r}; the channels are {', '.join(CHANNELS)}")
    choice = prefs.choice(channel, kind if kind in KINDS else "other")
    if channel == "mail" and prefs.mail_mode == "off":
        return Decision(DROP)
    if choice == "off":
        return Decision(DROP)
    if choice == "digest" or (channel == "mail" and prefs.mail_mode == "digest"):
        return Decision(DIGEST)
    end = quiet_end(prefs, now, zone)
    if end is None or (kind == "deadline" and deadline is not None and deadline < end):
        return Decision(NOW)
    return Decision(HOLD, end)


def kind_of(ruleset: Any, note_kind: str, body: Mapping[str, Any] | None = None, seat: str | None = None) -> str:
    """The kind of news an outbox notification is (``KINDS``): a reminder is a deadline warning; a post is
    ``mention`` for a seat it names (``mentions``, which the post recorded among its thread's readers, issue 28),
    else ``post`` at the table or in the narration, ``private`` elsewhere; what the ruleset announces as results or
    the end is that; an event its phases begin with is a phase; a choice, a resistance or a battle's step or turn
    offered to the seat, or a blocked game (the GM must rule), waits on the seat; anything else is ``other``."""
    body = body or {}
    if note_kind.startswith("reminder"):
        return "deadline"
    if note_kind == "post":
        if seat is not None and seat in (body.get("mentions") or ()):
            return "mention"
        return "post" if body.get("thread_id") in PUBLIC_THREADS else "private"
    announced = (getattr(ruleset, "announces", None) or {}).get(note_kind)
    if announced in KINDS:
        return str(announced)
    if note_kind in (getattr(ruleset, "marks", None) or ()):
        return "phase"
    if note_kind == "blocked" or note_kind.endswith(("Offered", "TurnBegan", "StepBegan")):
        return "move"
    return "other"


def deadline_of(body: Mapping[str, Any]) -> datetime | None:
    """The deadline a reminder warns of (its ``closes_at``), if it names one."""
    closes = body.get("closes_at")
    if not isinstance(closes, str):
        return None
    try:
        moment = datetime.fromisoformat(closes.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=timezone.utc)


def waits_on_at(game: Any, seat: str, at: str | None) -> bool:
    """Whether a window that waits on the seat now was open when a note's event happened, at ``at`` (ISO): then the
    note is the seat's move (the step that opened it, or what happened in it; not what came before it). Every
    channel asks this one check: a new step that waits on the seat is ``move`` for mail as for push."""
    try:
        when = datetime.fromisoformat(str(at))
    except (TypeError, ValueError):
        return False
    for w in game.state.windows.values():
        if w.closed or datetime.fromisoformat(w.opened_at) > when:
            continue
        try:
            if game.waits_on(w, seat):
                return True
        except (NotImplementedError, DomainError, KeyError):
            continue
    return False


def for_note(
    game: Any,
    seat: str,
    channel: str,
    note_kind: str,
    body: Mapping[str, Any],
    now: datetime,
    kind: str | None = None,
    *,
    at: str | None = None,
) -> Decision:
    """The decision for one outbox notification to one seat of a game, on one channel; ``kind``: what the channel
    found it is, else ``kind_of`` says, and a new step (``phase``) whose window waits on the seat (``at``: when its
    event happened, ``waits_on_at``) is the seat's ``move`` on every channel."""
    kind = kind if kind in KINDS else kind_of(game.ruleset, note_kind, body, seat)
    if kind == "phase" and at is not None and waits_on_at(game, seat, at):
        kind = "move"
    deadline = deadline_of(body) if kind == "deadline" else None
    return decide(preferences_of(game, seat), channel, kind, now, game.timezone_for(seat), deadline)


def quiet_end_of(game: Any, seat: str, now: datetime) -> datetime | None:
    """When the seat's quiet hours that hold ``now`` end (UTC), or None: its daily digest waits for that too."""
    return quiet_end(preferences_of(game, seat), now, game.timezone_for(seat))
