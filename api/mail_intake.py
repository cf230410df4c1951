"""Play by email: the intake (SMTP server and HTTP endpoint share it) and the turn it applies.

Each power (and the GM) has a secret reply address ``turns+<game>.<token>@<domain>``: the token,
not the ``From:`` header, says who is writing; replacing a sign-in link replaces the address. A
reply goes only to the contact address the token's holder set, never to the ``From:`` of the mail.
A mail is all or nothing: every command of the turn runs in one transaction, and if any line is
wrong nothing is recorded and the reply lists each error with its line number and rule id (every
error but those of lines that need a refused line). The same Message-ID delivered twice is
recorded once and answered with the same reply. A reply is worded in its reader's language (the seat's, else the
game's: ``application.mails.reader_of``), through the catalogs the pages use. The intake knows no ruleset: the
game's ruleset's grammar (``Ruleset.mail_grammar``) reads the mail for the sender's seat, builds each line's typed
command and writes the reply's lines (domain/mailturns.py holds the contract).
"""

from __future__ import annotations

import hmac
import logging
import re
import secrets
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import Any

from api import mail_disputes, mail_preview, mail_replay, mail_why
from api.help.model import line_help
from application.mail_addresses import ADDRESS, TALK, reply_address, thread_mac
from application.mails import reader_of
from application.service import Caller, CommandKey, Games
from application.service import Turn as ServiceTurn
from domain.errors import Busy, DomainError, RuleViolation
from domain.ids import GM
from domain.mailturns import LineError, Turn, body_text, own_lines
from domain.platform.commands import MakePost, OpenThread
from domain.platform.i18n import _

log = logging.getLogger("emissary.mail")
MAX_MAIL_BYTES = 2 * 1024 * 1024  # a whole mail, as SMTP DATA or as the JSON a provider posts


# Table talk in a turn mail: ``say: ...`` to the table, ``to <seat>: ...`` privately (``to gm:``, the seat's desk).
SAY = re.compile(r"^\s*say\s*:\s*(?P<text>.*)$", re.IGNORECASE)
TO = re.compile(r"^\s*to\s+(?P<seat>[^\s:]{1,64})\s*:\s*(?P<text>.*)$", re.IGNORECASE)


@dataclass
class MailReply:
    """The answer to a mail: who it goes to and what it says."""

    accepted: bool
    subject: str
    body: str
    game_id: str | None = None
    principal: str | None = None


class TurnRefused(RuleViolation):
    """Some lines of a turn were refused, so none of it is recorded."""

    def __init__(self, errors: list[LineError], unchecked: list[tuple[int, int]] | None = None) -> None:
        super().__init__("; ".join(map(str, errors)), rule="MAIL-1")
        self.errors = errors
        self.unchecked = unchecked or []  # (line, the refused line it needs)


class MailIntake:
    """Reads a mail addressed to a secret reply address and applies its turn."""

    def __init__(self, games: Games, domain: str = "emissary.local", secret: str = "", public_url: str = "") -> None:
        self.games = games
        self.domain = domain
        self.secret = secret  # the service's secret key: thread reply addresses are HMACs under it
        self.public_url = public_url  # where the help pages are: a refused line's reply links to its help (issue 28)

    def address_for(self, game_id: str, token: str) -> str:
        return reply_address(self.domain, game_id, token)

    def _match(self, recipient: str) -> re.Match | None:
        """The game and token of a reply address of this service's mail domain."""
        address = recipient.strip().strip("<>")
        m = ADDRESS.match(address)
        return m if m and address.rpartition("@")[2].lower() == self.domain.lower() else None

    def _talk(self, recipient: str) -> tuple[str, str, str] | None:
        """(game, thread, seat) of a thread's reply address made for the seat's current link, else None."""
        address = recipient.strip().strip("<>")
        m = TALK.match(address)
        if m is None or not self.secret or address.rpartition("@")[2].lower() != self.domain.lower():
            return None
        game_id, thread_id, seat = m.group("game"), m.group("thread"), m.group("seat")
        try:  # read under the game's lock: a command of another connection may be changing the cached game
            canonical, hashes = self.games.read(
                game_id, lambda g: (str(g.id), [h for h, p in g.state.credentials.items() if p == seat])
            )
        except DomainError:
            return None
        for token_hash in hashes:
            expected = thread_mac(self.secret, canonical, thread_id, seat, token_hash)
            if hmac.compare_digest(expected, m.group("mac").lower()):
                return game_id, thread_id, seat
        return None

    def holder(self, recipient: str) -> tuple[str, str] | None:
        """(game, principal) whose secret reply address this is, or None (unknown, replaced, other domain)."""
        talk = self._talk(recipient)
        if talk is not None:
            return talk[0], talk[2]
        m = self._match(recipient)
        if m is None:
            return None
        try:
            return m.group("game"), self.games.authenticate(m.group("game"), m.group("token"))
        except DomainError:
            return None

    def contact(self, reply: MailReply) -> str | None:
        """The one address a reply may go to: the contact the token's holder set (the GM has none)."""
        if reply.game_id is None or reply.principal is None:
            return None
        who = reply.principal
        return self.games.contact_of(reply.game_id, who)[0]

    def _words(self, game_id: str, principal: str) -> AbstractContextManager[None]:
        """The reply's phrases in its reader's language (their seat's, else the game's; issue 28)."""
        try:
            return self.games.read(game_id, lambda g: reader_of(g, principal)).words()
        except DomainError:
            return nullcontext()

    def receive(
        self, recipient: str, message_id: str, text: str | None, html: str | None = None, subject: str = ""
    ) -> MailReply:
        talk = self._talk(recipient)
        if talk is not None:
            with self._words(talk[0], talk[2]):
                return self._post_reply(*talk, message_id, text, html, subject)
        m = self._match(recipient)
        refusal = MailReply(
            False,
            "Not recorded: unknown address",
            "This address is not valid (your GM may have replaced it). Nothing was recorded.",
        )
        if m is None:
            return refusal
        game_id, token = m.group("game"), m.group("token")
        try:
            principal = self.games.authenticate(game_id, token)
        except DomainError:
            log.info("mail refused: bad token game=%s message=%s", game_id, message_id)
            return refusal
        earlier = self._first_reply(game_id, principal, message_id)
        if earlier is not None:
            return MailReply(True, f"Re: {subject}".strip(), earlier, game_id, principal)
        with self._words(game_id, principal):
            return self._turn(game_id, principal, message_id, text, html, subject)

    def _turn(  # noqa: PLR0913 (the mail as it came)
        self, game_id: str, principal: str, message_id: str, text: str | None, html: str | None, subject: str
    ) -> MailReply:
        """The holder's mail read and applied (a preview, a replay, why, disputes, or the ruleset's turn): its reply."""
        previewed = mail_preview.reply(self.games, game_id, principal, body_text(text, html))
        if previewed is not None:  # the GM's or a host's ``preview`` (issue 29): before any ruleset's grammar
            ok, answer = previewed
            head = (_("Preview: {subject}") if ok else _("Not previewed: {subject}")).format(subject=subject).strip()
            return MailReply(ok, head, answer, game_id, principal)
        replayed = mail_replay.reply(self.games, game_id, principal, body_text(text, html), message_id)
        if replayed is not None:  # the GM's or a host's ``replay <version>`` (nothing recorded) or ``adopt`` (issue 29)
            ok, answer = replayed
            head = mail_replay.heading(body_text(text, html), ok)
            return MailReply(ok, f"{head}: {subject}".strip(), answer, game_id, principal)
        explained = mail_why.reply(self.games, game_id, principal, body_text(text, html), self.public_url)
        if explained is not None:  # ``why`` lines (issue 29): a result explained, every ruleset's, nothing recorded
            ok, answer = explained
            head = (_("Explained: {subject}") if ok else _("Not explained: {subject}")).format(subject=subject)
            return MailReply(ok, head.strip(), answer, game_id, principal)
        disputed = mail_disputes.reply(self.games, game_id, principal, body_text(text, html), message_id)
        if disputed is not None:  # ``dispute`` lines (issue 29): every ruleset's, before its own grammar
            ok, answer = disputed
            return MailReply(ok, _recorded(ok, subject), answer, game_id, principal)
        ruleset = self.games.read(game_id, lambda g: g.ruleset)  # the game's own grammar reads the mail
        if ruleset.mail_grammar is None:
            return self._no_grammar(game_id, principal, subject, ruleset.name)
        text, said = table_talk(body_text(text, html))
        turn = ruleset.mail_grammar(text, None, principal)
        turn.said = said  # the table talk of the turn, posted with it (MailIntake._say)
        if not turn.commands and not turn.errors and not said:
            turn.errors.append(LineError(1, _("this mail holds no command"), "MAIL-1"))
        try:
            reply = self.apply(game_id, principal, turn, message_id)
        except TurnRefused as refused:
            return self._refused(game_id, principal, subject, refused, self._help(ruleset.name, text, turn))
        return MailReply(True, _recorded(True, subject), reply, game_id, principal)

    def _help(self, ruleset: str, text: str, turn: Turn) -> dict[int, str]:
        """Each line's help (an absolute address with its command's anchor), if the service's address is known."""
        if not self.public_url:
            return {}
        read = {cmd.line: cmd.verb for cmd in turn.commands}
        out, block = {}, None  # an indented line (an action's key, a cast's move) is its block's
        for n, line in own_lines(text):
            block = read.get(n, block) if line[:1].isspace() or n in read else None
            out[n] = line_help(self.public_url, ruleset, (line.split() or [""])[0].lower().rstrip(":"), block)
        return out

    def _post_reply(
        self, game_id: str, thread_id: str, seat: str, message_id: str, text: str | None, html: str | None, subject: str
    ) -> MailReply:
        """A reply to a thread's notification: the sender's own lines (no quoted mail, no signature) land in the
        thread as their post, once per Message-ID; the answer goes to the seat's contact only."""
        not_posted = _("Not posted: {subject}").format(subject=subject).strip()
        if not message_id:
            return MailReply(False, not_posted, _("A mail needs a Message-ID."), game_id, seat)
        own = "\n".join(line for _, line in own_lines(body_text(text, html))).strip()
        try:
            receipt = self.games.run(
                Caller.of(seat), game_id, MakePost(thread_id, own), CommandKey(f"mail:{message_id}")
            )
        except Busy:
            raise  # not the sender's refusal: the mail is deferred (451 or 503) and sent again
        except DomainError as err:
            where = f" ({err.rule})" if err.rule else ""
            body = _("Nothing was posted: {error}{rule}.").format(error=err.message, rule=where)
            return MailReply(False, not_posted, body, game_id, seat)
        body = "\n\n".join((_("Posted in {thread}.").format(thread=thread_id), _receipt(receipt)))
        return MailReply(True, _("Posted: {subject}").format(subject=subject).strip(), body, game_id, seat)

    def _first_reply(self, game_id: str, principal: str, message_id: str) -> str | None:
        """The reply a mail with this Message-ID got, kept under it as its idempotency key (and, for mails
        taken before keys were kept beside the events, from the game's older MailTurnRecorded events)."""
        if not message_id:
            return None
        first = self.games.first_receipt(game_id, principal, CommandKey(f"mail:{message_id}"))
        if first is not None:
            return first.result["reply"]
        legacy = self.games.mail_reply(game_id, message_id)
        return legacy["reply"] if legacy is not None and legacy["principal"] == principal else None

    @staticmethod
    def _no_grammar(game_id: str, principal: str, subject: str, name: str) -> MailReply:
        """The reply to a mail for a game whose ruleset declares no mail grammar: nothing is read or recorded."""
        return MailReply(
            False,
            _recorded(False, subject),
            _(
                "This game is played under the ruleset {name}, which takes no turns by mail. Nothing was "
                "recorded: play on the web or through the API."
            ).format(name=repr(name)),
            game_id,
            principal,
        )

    def _refused(
        self, game_id: str, principal: str, subject: str, refused: TurnRefused, helps: dict[int, str] | None = None
    ) -> MailReply:
        lines = [_("Nothing was recorded: the whole mail is refused if any line is wrong."), ""]
        for e in refused.errors:
            help_line = _("  Help: {address}").format(address=helps[e.line]) if helps and e.line in helps else None
            lines += [str(e), *([help_line] if help_line else [])]
        if refused.unchecked:
            lines += ["", _("Not checked, because they need a refused line:")]
            lines += [
                _("line {line}: needs line {needed}").format(line=line, needed=n) for line, n in refused.unchecked
            ]
        lines += ["", _("Fix these lines and send the whole turn again.")]
        return MailReply(False, _recorded(False, subject), "\n".join(lines), game_id, principal)

    @staticmethod
    def _say(unit: ServiceTurn, principal: str, said: list, errors: list[LineError]) -> list[str]:
        """Post a turn mail's ``say:`` and ``to <seat>:`` lines in the turn's transaction; the reply's lines."""
        out = []
        for line, seat, text in said:
            try:
                if seat is None:
                    thread = "table"
                elif seat == GM:
                    thread = f"desk-{principal}"
                else:
                    thread = _private_thread(unit, principal, seat)
                unit.execute(MakePost(thread, text))
                where = _("the table") if seat is None else seat
                out.append(_("line {line}: posted to {where}").format(line=line, where=where))
            except DomainError as err:
                errors.append(LineError(line, err.message, err.rule))
        return out

    def apply(self, game_id: str, principal: str, turn: Turn, message_id: str) -> str:
        """Run every command of the turn in one transaction through the game service; return the reply text.

        The ruleset's turn builds each line's typed command against the game as the lines before it left
        it, and it runs through the same handlers as the API's. A refused command records nothing, so the
        commands after it are still checked, and the refusal lists every error but those of lines that
        need a refused line."""
        if not message_id:
            raise TurnRefused([LineError(1, _("a mail needs a Message-ID"), "MAIL-1")])

        def play(unit: ServiceTurn) -> str:
            out: list[str] = []
            errors = list(turn.errors)
            unchecked: list[tuple[int, int]] = []
            turn.start(unit.game)
            for cmd in turn.commands:
                needed = turn.needs(cmd)
                if needed is not None:
                    unchecked.append((cmd.line, needed))
                elif cmd.broken:
                    pass  # its error is listed already
                else:
                    try:
                        command = turn.command(unit.game, cmd)
                        out += turn.recorded(unit.game, cmd, command, unit.execute(command) or {})
                        continue
                    except DomainError as err:
                        errors.append(LineError(cmd.line, err.message, err.rule))
                turn.refused(cmd)
            out += self._say(unit, principal, getattr(turn, "said", []), errors)
            if errors:
                raise TurnRefused(sorted(errors, key=lambda e: e.line), unchecked)
            out += turn.footer(unit.game)
            # The receipt covers what the turn recorded; it is stored with the reply, so that the
            # same mail delivered again is answered with the very same receipt.
            out += ["", _receipt(unit.receipt())]
            return "\n".join(out)

        key = CommandKey(f"mail:{message_id}")
        return self.games.run_turn(Caller.of(principal), game_id, play, key, lambda reply: {"reply": reply}).result[
            "reply"
        ]


def _recorded(ok: bool, subject: str) -> str:
    """A reply's subject: the mail's own, said recorded or not, in the reader's language."""
    return (_("Recorded: {subject}") if ok else _("Not recorded: {subject}")).format(subject=subject).strip()


def _receipt(receipt: Any) -> str:
    """A reply's receipt line: what was recorded, when, and its digest."""
    return _("Receipt: sequence {sequence}, recorded {at}, digest {digest}").format(
        sequence=receipt.sequence, at=receipt.recorded_at, digest=receipt.digest
    )


def _private_thread(unit: ServiceTurn, principal: str, seat: str) -> str:
    """The private thread of exactly these two seats (the latest), opened now if there is none."""
    pair = sorted({principal, seat})
    found = [t for t, v in unit.game.talk["threads"].items() if v["members"] == pair]
    if found:
        return found[-1]
    return str(unit.execute(OpenThread([seat], ""))["thread_id"])


def table_talk(text: str) -> tuple[str, list[tuple[int, str | None, str]]]:
    """The ``say:`` and ``to <seat>:`` lines of a turn mail (line, seat or None for the table, text), and the
    mail's text without them (each left as an empty line, so every other line keeps its number)."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    own = {n for n, _ in own_lines(text)}
    said: list[tuple[int, str | None, str]] = []
    for n in sorted(own):
        line = lines[n - 1]
        say, to = SAY.match(line), TO.match(line)
        if say:
            said.append((n, None, say.group("text")))
        elif to:
            said.append((n, to.group("seat").lower(), to.group("text")))
        else:
            continue
        lines[n - 1] = ""
    return "\n".join(lines), said


def new_message_id(domain: str) -> str:
    return f"<{secrets.token_hex(12)}@{domain}>"
