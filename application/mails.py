"""Mails people act on (issue 28): every mail of a game names the game and its ruleset, says what happened in
words, links to its reader's board, gives times in the reader's zone and language, and threads per game.

Two halves. ``word_note`` words a notification as it is queued, in its reader's language: from the event's payload
(which the reader may see: the outbox holds a row only for those the event is shown to) and the seats' public
names; phases and windows by their titles (``Ruleset.phase_title``), not their ids. ``Framer`` frames any mail of
a game as it is sent: the subject's prefix (the game and its ruleset, the same for every mail of the game), a first
line naming them, what waits on the reader with its deadline in the reader's zone, the link to the reader's own
board, and the thread headers (``References`` to one root per game). The board link is written only as the mail
is sent, so the ledger never keeps it (``application.mail_addresses.board_link``).

The reader's language is their seat's (``SetLanguage``), else the game's (if its ruleset keeps one), else English;
their zone is their seat's, else the game's.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote
from zoneinfo import ZoneInfo

from babel import Locale

from application import invitations, why
from application.i18n import DEFAULT, catalog_of, local_time, parse, translations_for
from application.mail_addresses import board_link
from domain.errors import DomainError
from domain.ids import GM
from domain.platform import feed, i18n
from domain.platform.i18n import _, ngettext
from projections.people import address_key

REMINDER = "reminder "  # the kind of a reminder's row begins so (``projections.projector.reminder_kind``)
RECEIPT = "receipt "  # the kind of the answer to a mail: "receipt <Message-ID>"
MESSAGE_ID = re.compile(r"^<[^<>\s]{1,250}>$")


@dataclass(frozen=True)
class Reader:
    """Who reads a mail of a game: their seat, its public name, their zone and language."""

    seat: str
    name: str
    zone: str
    locale: Locale

    @contextmanager
    def words(self) -> Iterator[None]:
        """Phrases inside the block are in the reader's language."""
        with i18n.use(translations_for(catalog_of(self.locale)), clock=self._clock):
            yield

    def _clock(self, moment: datetime) -> str:
        """An instant a ruleset's reply line gives (``i18n.moment``), as the reader reads the mail's other times."""
        zone = moment.tzinfo if isinstance(moment.tzinfo, ZoneInfo) else self.zone
        return local_time(moment, zone, self.locale)

    def time(self, iso: str | datetime | None) -> str:
        """An instant in the reader's zone and language, with the zone ("Mo., 7. Dez. 2026, 15:00 MEZ")."""
        return local_time(iso, self.zone, self.locale)


def language_of(game: Any, seat: str) -> str:
    """The language a seat's mail is written in: the seat's own, else the game's, else English."""
    held = game.seats.get(seat)
    options = getattr(game.state, "options", None) or {}
    return (
        getattr(held, "language", None)
        or getattr(game.state, "language", None)
        or (options.get("language") if isinstance(options, Mapping) else None)
        or DEFAULT
    )


def reader_of(game: Any, seat: str) -> Reader:
    held = game.seats.get(seat)
    locale = parse(language_of(game, seat)) or Locale.parse(DEFAULT)
    return Reader(seat, getattr(held, "name", None) or seat, game.timezone_for(seat), locale)


def ruleset_title(game: Any) -> str:
    name = str(game.state.ruleset)
    return name[:1].upper() + name[1:]


def subject_prefix(game: Any) -> str:
    """The same for every mail of a game, so a reader's mail program files them together."""
    return f"[{game.state.name} · {ruleset_title(game)}]"


def thread_root(game_id: str, domain: str) -> str:
    """The id every mail of a game refers to (``References``), whatever it is about."""
    return f"<game.{str(game_id).lower()}@{domain}>"


def thread_headers(game_id: str, domain: str, replying_to: str | None = None) -> dict[str, str]:
    root = thread_root(game_id, domain)
    refs = [root, *([replying_to] if replying_to and MESSAGE_ID.match(replying_to) else [])]
    return {"In-Reply-To": refs[-1], "References": " ".join(refs)}


def names_of(game: Any, gm: str | None = None) -> dict[str, str]:
    """Every seat's public name, and the GM's as ``gm`` words it (when given)."""
    names = {str(sid): getattr(seat, "name", str(sid)) for sid, seat in game.seats.items()}
    return {GM: gm, **names} if gm is not None else names


def window_words(game: Any, window_id: str) -> str:
    """A window by its title ("Season 1, month 1: Planning"), else by its kind in words ("the move window")."""
    title = feed.phase_title(game.ruleset, window_id)
    if title and title != window_id:
        return title
    w = game.state.windows.get(window_id)
    kind = str(w.kind if w is not None else window_id).split(":")[0].replace("_", " ").replace("-", " ")
    return _("the {kind} window").format(kind=kind)


# ---------------------------------------------------------------------- notifications, as they are queued


def word_note(game: Any, kind: str, seat: str, body: Mapping[str, Any], payload: Mapping | None) -> tuple[str, str]:
    """(subject, text) of an outbox row for ``seat`` in its reader's language: a reminder, a blocked game, or the
    ruleset's own text for the event (``payload``: the event as recorded); a post's as it was queued."""
    reader = reader_of(game, seat)
    with reader.words():
        if kind.startswith(REMINDER):
            return _reminder(game, reader, body)
        if kind == "blocked" and payload is not None:
            return _blocked(game, payload)
        if kind == "post" and body.get("author"):
            return _post(game, body, seat)
        notify = game.ruleset.notify
        if kind != "post" and payload is not None and notify is not None:
            note = notify(kind, dict(payload), names_of(game)) if _takes_names(notify) else notify(kind, dict(payload))
            if note is not None:
                return str(note["subject"]), str(note["text"])
    return str(body.get("subject", kind)), str(body.get("text", ""))


def _takes_names(notify: Any) -> bool:
    """Whether a ruleset's ``notify`` takes the seats' names (a third argument, ``Ruleset.notify``)."""
    try:
        return len(inspect.signature(notify).parameters) >= 3
    except (TypeError, ValueError):
        return False


def _reminder(game: Any, reader: Reader, body: Mapping[str, Any]) -> tuple[str, str]:
    window = window_words(game, str(body["window_id"]))
    w = game.state.windows.get(body["window_id"])
    closes = w.deadline_for(reader.seat) if w is not None and not w.closed else body["closes_at"]
    when = reader.time(closes)
    return (
        _("Reminder: {window} closes {when}").format(window=window, when=when),
        _("{window} waits on you: you have not acted yet. It closes {when}.").format(window=window, when=when),
    )


def _blocked(game: Any, d: Mapping[str, Any]) -> tuple[str, str]:
    window = window_words(game, str(d["window_id"]))
    names = names_of(game)
    seats = ", ".join(names.get(s, s) for s in d.get("seats") or []) or _("no seat")
    return (
        _("{window} cannot close").format(window=window),
        _(
            "At the deadline of {window}, rule {rule} refused the default for silence ({seats}): {reason}\n"
            "The game waits on you: rule on it, move the deadline or roll back."
        ).format(window=window, rule=d["rule"], seats=seats, reason=d["reason"]),
    )


def _post(game: Any, body: Mapping[str, Any], seat: str) -> tuple[str, str]:
    """A post's notification: its author by name; the post itself as written (its first line is the projector's). To
    a seat the post mentions, it says so (issue 28): the one mail that seat gets for the post."""
    author = str(body["author"])
    who = _("The GM") if author == GM else names_of(game).get(author, author)
    title = str(body.get("title") or body.get("thread_id") or "")
    said = str(body.get("text", "")).partition("\n\n")[2]
    if seat in (body.get("mentions") or ()):
        return (
            _("{who} mentioned you in {title}").format(who=who, title=title),
            _("{who} mentioned you in {title}:").format(who=who, title=title) + "\n\n" + said,
        )
    return (
        _("New post: {title}").format(title=title),
        _("{who} wrote in {title}:").format(who=who, title=title) + "\n\n" + said,
    )


def digest_subject(game: Any, seat: str, count: int) -> str:
    with reader_of(game, seat).words():
        return ngettext("Your daily digest ({n} note)", "Your daily digest ({n} notes)", count).format(n=count)


# ---------------------------------------------------------------------- every mail of a game, as it is sent


@dataclass(frozen=True)
class Framed:
    subject: str
    body: str
    headers: dict[str, str]


class Framer:
    """Frames a ledger row of a game as it is sent (``workers.mail.deliver``): see the module's docstring."""

    def __init__(self, games: Any, settings: Any) -> None:
        self.games = games
        self.settings = settings

    def base(self) -> str:
        return str(self.settings.base_url)

    def __call__(self, item: Mapping[str, Any]) -> Framed | None:
        """The mail as sent, or None for a mail of no game (a sign-in link) or of a game not loadable here."""
        game_id = str(item.get("game_id") or "")
        if game_id in ("", "-"):
            return None
        try:
            return self.games.read(game_id, lambda game: self.frame(game, item))
        except DomainError:
            return None

    @contextmanager
    def words(self, item: Mapping[str, Any]) -> Iterator[None]:
        """Within: the language and zone of the row's reader, for what ``workers.mail.deliver`` words before framing
        (a post's quote of a post hidden since, ``workers.mail.moderated``); plain words for a row of no game."""
        game_id, seat = str(item.get("game_id") or ""), str(item.get("recipient") or "")
        try:
            reader = None if game_id in ("", "-") else self.games.read(game_id, lambda game: reader_of(game, seat))
        except DomainError:
            reader = None
        if reader is None:
            yield
            return
        with reader.words():
            yield

    def frame(self, game: Any, item: Mapping[str, Any]) -> Framed:
        if str(item.get("kind") or "").startswith(invitations.KIND):  # issue 28: an invitation, to an address
            subject, body = invitations.frame(game, item, self.base(), self.settings.secret_key)
            return Framed(subject, body, thread_headers(str(game.id), self.settings.mail_domain))
        seat = str(item["recipient"])
        reader = reader_of(game, seat)
        kind = str(item.get("kind") or "")
        replying = kind[len(RECEIPT) :].split(" again ")[0] if kind.startswith(RECEIPT) else None
        with reader.words():
            lines = [
                _("{game}, a game of {ruleset}, for {seat}.").format(
                    game=game.state.name, ruleset=ruleset_title(game), seat=reader.name
                ),
                "",
                str(item["body"]),
            ]
            why = self.why(game, item, reader)
            if why:
                lines += ["", *why]
            waiting = self.waiting(game, reader)
            if waiting:
                lines += ["", *waiting]
            if seat in game.seats:
                # The link that signs in as the seat goes only to the seat's address of now: a mail queued for an
                # address the seat has since left (a new contact, a seat taken over) gets the link that asks its
                # reader to sign in, as does a seat with no sign-in link yet.
                current = game.seats[seat].email
                still = bool(current) and address_key(current) == address_key(str(item.get("address") or ""))
                link = (board_link(self.base(), self.settings.secret_key, game, seat) if still else None) or (
                    f"{self.base()}/me/play/{game.id}?seat={quote(seat, safe='')}"
                )
                lines += ["", _("Your board: {link}").format(link=link)]
        subject = " ".join(f"{subject_prefix(game)} {item['subject']}".split())  # a header is one line
        return Framed(subject, "\n".join(lines), thread_headers(str(game.id), self.settings.mail_domain, replying))

    def why(self, game: Any, item: Mapping[str, Any], reader: Reader) -> list[str]:
        """The results published since the reader's previous notification, each explained as the reader sees it
        (``application.why``: the reader's own timeline, as the board's "Why?"); none without read models."""
        reads, version = getattr(self.games, "reads", None), item.get("version")
        if reads is None or not isinstance(version, int) or version <= 0 or reader.seat not in game.seats:
            return []
        found = why.results_since(reads, game.ruleset, str(game.id), reader.seat, version)
        return why.lines(found, self.base(), str(game.id), game.ruleset.name)

    @staticmethod
    def waiting(game: Any, reader: Reader) -> list[str]:
        """What waits on the reader now, each with its deadline for them (only windows that wait on them)."""
        out = []
        for w in sorted(game.state.windows.values(), key=lambda w: w.closes_at):
            if w.closed:
                continue
            try:
                if not game.waits_on(w, reader.seat):
                    continue
            except (NotImplementedError, DomainError, KeyError):
                continue
            out.append(
                _("Waiting on you: {window}, until {when}.").format(
                    window=window_words(game, w.id), when=reader.time(w.deadline_for(reader.seat))
                )
            )
        return out
