"""Asking why by mail (issue 29 item 1): every ruleset takes a ``why`` line, read before its own grammar (no ruleset's
grammar has the verb), so a reader who was mailed no result (its notifications off for it, or a result no mail
reported) still gets each result explained by mail. ``why <result id>`` (``action:a-1``, ``reckoning:1``...: the id
the board's and the mails' links name), ``why <N>`` (the result event N of your feed published), or ``why`` alone
(the newest results of your feed, at most ``NEWEST``). ``explain`` is the same word.

The answer is built as the board's "Why?" and the endpoint's are (``domain.platform.explain``): from the reader's own
events alone, so it shows nothing their own events do not; a result it was not shown answers in the words of one that
does not exist. It is in the reader's language, with each rule's text and the whole derivation linked
(``application.why``); nothing is recorded."""

from __future__ import annotations

import re
from typing import Any

from api.help.mail import MailLine
from api.routes.results import PAGE_BACK, scoped, viewer_events
from application import why
from application.service import Games
from domain.errors import DomainError, NotFound
from domain.mailturns import own_lines
from domain.platform import explain
from domain.platform.i18n import _

GREETING = re.compile(r"^[^:#]{0,60},\s*$")
VERB = re.compile(r"^\s*(?:why|explain)\b", re.IGNORECASE)
WHY = re.compile(r"^\s*(?:why|explain)(?:\s+#?(?P<what>[^\s#]{1,128}?))?\s*[?.!]?\s*(?:#.*)?$", re.IGNORECASE)
SEQ = re.compile(r"[0-9]{1,12}")  # an event's number: ASCII digits ("²".isdigit() is true), within SQLite's integers
NEWEST = 5  # the results ``why`` alone explains: the newest of the reader's feed
LINES = 10  # the ``why`` lines one mail may hold

MAIL = (
    MailLine("why", f"each of the newest results of your feed (at most {NEWEST}) explained, step by step"),
    MailLine("why 12", "the result event #12 of your feed published, explained"),
    MailLine("why action:a-1", "the result of that id (as the board's and the mails' links name it) explained"),
)


def asked(text: str) -> list[tuple[int, str]] | None:
    """The sender's own lines, if the first is a ``why`` line; else None (the ruleset's grammar reads the mail)."""
    lines = [(n, line) for n, line in own_lines(text) if line.strip() and not line.strip().startswith("#")]
    if lines and GREETING.match(lines[0][1]):
        lines = lines[1:]  # "Hi GM," is no command (as the grammars read it)
    if not lines or not VERB.match(lines[0][1]):
        return None
    return lines


def reply(games: Games, game_id: str, principal: str, text: str, base: str = "") -> tuple[bool, str] | None:
    """(answered, the reply's text, in the reader's language) for a mail of ``why`` lines, else None."""
    lines = asked(text)
    if lines is None:
        return None
    others = [str(n) for n, line in lines if not WHY.match(line)]
    if others:
        return False, _(
            "Nothing explained: 'why' lines stand alone in their mail (write 'why', 'why <event number>' or "
            "'why <result id>'); line {lines} is not one."
        ).format(lines=", ".join(others))
    if len(lines) > LINES:
        return False, _("Nothing explained: ask at most {n} results in one mail.").format(n=LINES)
    game = games.get_game(game_id, for_update=False)
    key = str(game.id)
    found: list[dict[str, Any]] = []
    refused: list[str] = []
    for n, line in lines:
        what = (m.group("what") or "") if (m := WHY.match(line)) else ""
        try:
            found += _asked(games, game, key, principal, what)
        except DomainError as err:
            refused.append(_("line {n}: {error}").format(n=n, error=err.message))
    unique = list({d["result_id"]: d for d in found}.values())
    out = why.lines(unique, base.rstrip("/"), key, game.ruleset.name)
    if not unique and not refused:
        out = [_("No result of your feed to explain yet.")]
    return bool(unique), "\n".join([*refused, *([""] if refused and out else []), *out])


def _asked(games: Games, game: Any, key: str, viewer: str, what: str) -> list[dict[str, Any]]:
    """The derivations one ``why`` line asks for, as ``viewer`` may see them; NotFound for one it was not shown."""
    ruleset, reads = game.ruleset, getattr(games, "reads", None)
    if not what:
        newest = _derivations(games, game, key, viewer, None)
        return sorted(newest.values(), key=lambda d: d["source"]["seq"])[-NEWEST:]
    if what.isdigit() and not SEQ.fullmatch(what):  # "²", "١٢" or a number past any feed's: none of the feed's events
        raise NotFound(_("no result published by event {seq} of your feed").format(seq=what), field="seq")
    if SEQ.fullmatch(what):
        seq = int(what)
        near = [d for d in _derivations(games, game, key, viewer, seq).values() if d["source"]["seq"] == seq]
        if not near and reads is not None:  # its earlier events lie further back: the viewer's whole timeline
            everything = explain.derivations(ruleset, viewer_events(games, str(game.id), viewer))
            near = [d for d in everything.values() if d["source"]["seq"] == seq]
        if not near:
            raise NotFound(_("no result published by event {seq} of your feed").format(seq=seq), field="seq")
        return near
    try:
        if reads is not None:
            d = scoped(reads, ruleset, key, viewer, what)
            return [d] if d is not None else [explain.explain(ruleset, [], what)]  # NotFound, in the endpoint's words
        return [explain.explain(ruleset, viewer_events(games, str(game.id), viewer), what)]
    except NotFound as err:  # the endpoint's refusal, in the reader's language
        raise NotFound(_("no result {what} that you may see").format(what=repr(what)), field=err.field) from None


def _derivations(games: Games, game: Any, key: str, viewer: str, upto: int | None) -> dict[str, dict[str, Any]]:
    """The derivations that recompute among the viewer's newest events (up to its event ``upto``), as a feed's."""
    reads = getattr(games, "reads", None)
    if reads is not None:
        first = reads.timeline(key, viewer, after=0, limit=1)
        before = upto + 1 if upto is not None else None
        page = reads.timeline(key, viewer, newest_first=True, before=before, limit=PAGE_BACK)
        events = explain.with_first(first, page)
    else:
        events = [e for e in viewer_events(games, str(game.id), viewer) if upto is None or e["seq"] <= upto]
    found = explain.derivations(game.ruleset, events)
    return {k: d for k, d in found.items() if not explain.recomputes(d)}
