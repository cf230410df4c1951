"""Play by email, the platform's part: what is not the sender's turn is left out, and the contract a
ruleset's mail grammar keeps (README, "Playing by email").

Left out of a mail: quoted replies (``>`` lines, and everything from an "On ... wrote:" line, an Outlook
"-----Original Message-----" line or "From: ... Sent: ..." header block, Gmail's quote), signatures (from
a ``-- `` line or a closing such as "Thanks,"), and the markup and style sheets of HTML mail.

A ruleset's grammar (``Ruleset.mail_grammar(text, html, seat)``) reads the sender's lines into a ``Turn``:
its command lines and, for every line it cannot read, an error with the line number. Reading never
raises. The intake then runs the turn in one transaction, asking the turn for each line's typed command
against the game as the lines before it left it, and for the reply texts; it knows nothing of the rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import lxml.html
from inscriptis import Inscriptis
from inscriptis.css_profiles import CSS_PROFILES
from inscriptis.model.config import ParserConfig
from lxml.etree import ParserError

from domain.errors import RuleViolation
from domain.platform.i18n import _

GRAMMAR = "MAIL-1"


@dataclass
class Command:
    """One command line (or block of lines) of a mail, as a grammar read it."""

    line: int
    verb: str
    args: dict[str, Any] = field(default_factory=dict)
    broken: bool = False  # a line of its block was refused: the command is not run, nor those that need it


@dataclass
class LineError:
    line: int
    message: str
    rule: str | None = GRAMMAR

    def __str__(self) -> str:
        said = _("line {line}: {message}").format(line=self.line, message=self.message)  # in the reader's language
        return said + (f" ({self.rule})" if self.rule else "")


@dataclass
class Turn:
    """What a grammar read from a mail for one seat. The intake runs ``commands`` in order in one transaction
    and asks the turn (a ruleset's grammar subclasses it) what each line means; these defaults run nothing."""

    commands: list[Command]
    errors: list[LineError]

    def start(self, game: Any) -> None:
        """The transaction begins (again, if a concurrent save made it retry) on this game."""

    def needs(self, cmd: Command) -> int | None:
        """The line of a refused command this one refers to: it is then listed as not checked, not run."""
        return None

    def command(self, game: Any, cmd: Command) -> Any:
        """The typed command the line means, built against the game as the lines before it left it; a
        DomainError refuses the line."""
        raise RuleViolation(_("unknown command {verb!r}").format(verb=cmd.verb), rule=GRAMMAR)

    def recorded(self, game: Any, cmd: Command, command: Any, result: dict[str, Any]) -> list[str]:
        """What the reply says of a line whose command was recorded (``result`` is its handler's)."""
        return []

    def refused(self, cmd: Command) -> None:
        """The line was refused (or not checked): later lines that refer to it must not mean another."""

    def footer(self, game: Any) -> list[str]:
        """The lines the reply ends with, under those of the commands (the step, the deadlines...)."""
        return []


# Quoted mail that HTML marks as such: Gmail's quote (and its "On ... wrote:" line), any
# blockquote (Apple Mail, Thunderbird), Outlook on the web's reply header and signatures.
QUOTED_HTML = (
    "//*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_quote ')]"
    " | //*[contains(concat(' ', normalize-space(@class), ' '), ' gmail_signature ')]"
    " | //blockquote | //*[@id='divRplyFwdMsg'] | //*[@id='Signature']"
)
_HTML_CONFIG = ParserConfig(css=CSS_PROFILES["relaxed"])


def html_text(html: str) -> str:
    """An HTML mail as the lines a reader sees (inscriptis), without style sheets or quoted mail."""
    try:
        tree = lxml.html.document_fromstring(html)
    except (ParserError, ValueError):
        return ""
    for node in tree.xpath(QUOTED_HTML):
        if node.getparent() is not None:
            node.drop_tree()
    text: str = Inscriptis(tree, _HTML_CONFIG).get_text()
    return text


def body_text(text: str | None, html: str | None) -> str:
    """The text of a mail: its plain part, or its HTML part turned into lines."""
    if text and text.strip():
        return text
    if html and html.strip():
        return html_text(html)
    return ""


SALUTATION = re.compile(r"^(hi|hello|dear|hey|greetings)\b[^:]{0,40},?$", re.IGNORECASE)
WROTE = re.compile(r"^on\s.{3,300}\swrote:$", re.IGNORECASE | re.DOTALL)
ORIGINAL = re.compile(r"^-{2,}\s*(original message|forwarded message)\s*-{2,}$", re.IGNORECASE)
RULE = re.compile(r"^_{10,}$")
CLOSING = re.compile(
    r"^(thanks|many thanks|thank you|cheers|regards|best|best regards|best wishes|kind regards|"
    r"all the best|yours|yours truly|yours sincerely|sincerely|love|ciao)[,.!]?$",
    re.IGNORECASE,
)
# Outlook's header block above a quoted mail, in the languages Outlook writes it in most.
HEADER_FROM = re.compile(r"^(from|de|von|da|van|fra|från)\s?:\s*\S", re.IGNORECASE)
HEADER_NEXT = re.compile(
    r"^(sent|date|envoy[ée]|gesendet|datum|inviato|data|verzonden|enviado|sendt|skickat)\s?:", re.IGNORECASE
)


def _quote_starts(lines: list[str], i: int) -> bool:
    """Whether line ``i`` opens the quoted mail (or the signature) below the sender's own text."""
    line = lines[i].strip()
    if line == "--" or ORIGINAL.match(line) or CLOSING.match(line):
        return True  # a signature, an Outlook quote, or "Thanks, <name>" below the turn
    if WROTE.match(line) or (
        line.lower().startswith("on ") and i + 1 < len(lines) and WROTE.match(f"{line} {lines[i + 1].strip()}")
    ):
        return True  # "On <date>, <x> wrote:", which mail programs wrap onto two lines
    following = [x.strip() for x in lines[i + 1 : i + 5]]
    if HEADER_FROM.match(line) and any(HEADER_NEXT.match(x) for x in following):
        return True  # From: ... / Sent: ... (Outlook)
    if RULE.match(line) and following and HEADER_FROM.match(following[0]):
        return True  # the rule Outlook draws above that header block
    return False


def own_lines(text: str) -> list[tuple[int, str]]:
    """The lines the sender wrote: without the quoted reply below and the signature."""
    lines = [raw.rstrip() for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    out = []
    for i, line in enumerate(lines):
        if _quote_starts(lines, i):
            break
        if line.lstrip().startswith(">"):
            continue
        out.append((i + 1, line))
    return out


def whole(value: str, line: int, errors: list[LineError], what: str) -> int | None:
    """A whole number, or None with the error listed."""
    try:
        return int(value.strip())
    except ValueError:
        errors.append(
            LineError(line, _("{what} must be a whole number, not {value!r}").format(what=what, value=value.strip()))
        )
        return None


def yes(value: str) -> bool:
    """A yes/no field."""
    return value.strip().lower() in ("yes", "y", "true", "1", "on")


def items(value: str) -> list[str]:
    """A comma-separated list."""
    return [v.strip() for v in value.split(",") if v.strip()]
