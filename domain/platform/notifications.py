"""A seat's notification preferences (issue 31, item 3; mixed into PlatformGame): per channel (mail, push) and per
kind of news, whether it comes at once, in the daily digest, or not at all; and quiet hours in the seat's zone.

The kinds are one vocabulary for every channel: a game's webhooks announce the public ones (``PUBLIC_KINDS``,
``application.webhooks``), a seat chooses among them all. A seat that chose nothing gets everything at once, as
before. Recorded by ``domain.platform.commands.set_notifications`` (``SetNotifications``), shown to the seat alone;
``application.notify_policy`` decides, from these, what each channel does with a piece of news.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from eventsourcing.domain import Aggregate

from domain.errors import RuleViolation

# phase: a phase or step begins; move: something waits on you (a choice, a resistance, a battle's turn); deadline: a
# deadline approaches; results: results are published; mention: a post that names you (@name, issue 28), wherever it
# is; post: a post at the table or in the narration; private: a post in your desk or a private thread; end: the game
# ends; other: anything else the game tells you. Push calls its kinds by these names too (application.push.KINDS).
KINDS = ("phase", "move", "deadline", "results", "mention", "post", "private", "end", "other")
PUBLIC_KINDS = ("phase", "deadline", "results", "post", "end")  # what an observer may be told: a webhook's kinds
CHANNELS = ("mail", "push")
CHOICES = ("now", "digest", "off")  # at once (quiet hours permitting), in the daily digest, not at all
CLOCK = re.compile(r"([01]\d|2[0-3]):[0-5]\d")  # a time of day, "22:00"


def check_choices(channel: str, chosen: Any) -> dict[str, str]:
    """A channel's choices by kind (kinds not named: ``now``), or RuleViolation naming the field and the kind."""
    if not isinstance(chosen, Mapping):
        raise RuleViolation(f"{channel} maps kinds of news to now, digest or off", field=channel)
    out = {}
    for kind, choice in chosen.items():
        if kind not in KINDS:
            shown = kind if isinstance(kind, str) and len(kind) <= 20 else "?"
            raise RuleViolation(
                f"{channel}: unknown kind {shown!r}; the kinds are: {', '.join(KINDS)}", field=f"{channel}.{shown}"
            )
        if choice not in CHOICES:
            raise RuleViolation(f"{channel}.{kind} is now, digest or off", field=f"{channel}.{kind}")
        out[kind] = choice
    return {k: out[k] for k in KINDS if k in out and out[k] != "now"}


def check_quiet(quiet_from: Any, quiet_until: Any) -> tuple[str | None, str | None]:
    """Quiet hours: both times of day ("22:00", "07:00": may cross midnight), or neither; not the same time."""
    for name, value in (("quiet_from", quiet_from), ("quiet_until", quiet_until)):
        if value is not None and not (isinstance(value, str) and CLOCK.fullmatch(value)):
            raise RuleViolation(f"{name} is a time of day such as 22:00", field=name)
    if (quiet_from is None) != (quiet_until is None):
        missing = "quiet_until" if quiet_until is None else "quiet_from"
        raise RuleViolation("quiet hours need both a start (quiet_from) and an end (quiet_until)", field=missing)
    if quiet_from is not None and quiet_from == quiet_until:
        raise RuleViolation("quiet hours end at another time than they start", field="quiet_until")
    return quiet_from, quiet_until


STRICTER = ("now", "digest", "off")  # the order of the choices, the most the seat is told first


def _upcast_mention(state: dict[str, Any]) -> None:
    """Upcast preferences recorded before ``mention`` was a kind of news (version 1): a mention came then as the post
    it is in, a public one as ``post`` and any other as ``private``; so a channel's mention choice is the stricter of
    those two, and nothing a seat turned off before starts reaching it now."""
    for channel in CHANNELS:
        chosen = dict(state.get(channel) or {})
        was = [chosen.get(k, "now") for k in ("post", "private")]
        strictest = max(was, key=lambda c: STRICTER.index(c) if c in STRICTER else 0)
        if strictest != "now":
            chosen["mention"] = strictest
        state[channel] = chosen


class Notifications:
    """Each seat's notification preferences, and the event that records them."""

    @property
    def notification_preferences(self) -> dict[str, dict[str, Any]]:
        """seat -> {"mail": {kind: choice}, "push": {kind: choice}, "quiet_from", "quiet_until"}, for the seats
        that chose (only choices other than ``now`` are kept)."""
        found: dict[str, dict[str, Any]] = self.__dict__.get("notify_prefs") or {}
        return found

    def preferences_of(self, seat: str) -> dict[str, Any]:
        """A seat's preferences, with every kind of every channel named (``now`` where it chose nothing)."""
        kept = self.notification_preferences.get(seat) or {}
        out: dict[str, Any] = {c: {k: (kept.get(c) or {}).get(k, "now") for k in KINDS} for c in CHANNELS}
        out["quiet_from"], out["quiet_until"] = kept.get("quiet_from"), kept.get("quiet_until")
        return out

    class NotificationsSet(Aggregate.Event):
        """A seat chose how its news comes (issue 31, item 3)."""

        class_version = 2  # 2: ``mention`` is a kind of news (issue 28); version 1's choices upcast
        upcast_v1_v2 = staticmethod(_upcast_mention)

        seat: str
        mail: dict[str, str]
        push: dict[str, str]
        quiet_from: str | None
        quiet_until: str | None
        actor: str
        audience: list[str]

        def apply(self, game: Any) -> None:
            game.__dict__.setdefault("notify_prefs", {})[self.seat] = {
                "mail": dict(self.mail),
                "push": dict(self.push),
                "quiet_from": self.quiet_from,
                "quiet_until": self.quiet_until,
            }
