"""The plain-text turn grammar for play by email (README, "Playing by email").

A turn is a list of commands, one per line, in any case; an ``action:`` line opens a block of
``key: value`` lines. What is not the sender's turn is left out: quoted replies (``>`` lines, and
everything from an "On ... wrote:" line, an Outlook "-----Original Message-----" line or
"From: ... Sent: ..." header block, Gmail's quote), signatures (from a ``-- `` line or a closing
such as "Thanks,"), and the markup and style sheets of HTML mail. Every field obeys the same
length limit as the API. Parsing never raises: it returns the commands and, for every line it
cannot read, an error with the line number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import lxml.html
from inscriptis import Inscriptis
from inscriptis.css_profiles import CSS_PROFILES
from inscriptis.model.config import ParserConfig
from lxml.etree import ParserError

from domain import limits

GRAMMAR = "MAIL-1"
ACTION_KEYS = {
    "slot",
    "skill",
    "targets",
    "target",
    "resistible",
    "difficulty",
    "assets",
    "extra action",
    "convert",
    "propose",
    "description",
    "collaborators",
    "location",
}
VERBS = {
    "action",
    "roll",
    "convert",
    "discard",
    "accept",
    "resist",
    "waive",
    "extension",
    "ready",
    "timezone",
    "advance",
    "resolve",
    "difficulty",
    "grant",
    "refuse",
    "close",
}
# The limits of domain/limits.py, as the API and the commands apply them: a mailed field obeys the
# same limit as the same field sent any other way.
MAX_TITLE = limits.TITLE
MAX_DESCRIPTION = limits.DESCRIPTION
MAX_ANNOUNCEMENT = limits.ANNOUNCEMENT
MAX_REASON = limits.REASON
MAX_NAME = limits.LOCATION  # skill, location, an asset, power or action reference
LIMITS = {
    "title": MAX_TITLE,
    "description": MAX_DESCRIPTION,
    "announcement": MAX_ANNOUNCEMENT,
    "reason": MAX_REASON,
    "skill": MAX_NAME,
    "location": MAX_NAME,
}


@dataclass
class Command:
    line: int
    verb: str
    args: dict = field(default_factory=dict)
    broken: bool = False  # a line of its block was refused: the command is not run, nor those that need it


@dataclass
class LineError:
    line: int
    message: str
    rule: str | None = GRAMMAR

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" + (f" ({self.rule})" if self.rule else "")


@dataclass
class Turn:
    commands: list[Command]
    errors: list[LineError]


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
    return Inscriptis(tree, _HTML_CONFIG).get_text()


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


def _int(value: str, line: int, errors: list[LineError], what: str) -> int | None:
    try:
        return int(value.strip())
    except ValueError:
        errors.append(LineError(line, f"{what} must be a whole number, not {value.strip()!r}"))
        return None


def _yes(value: str) -> bool:
    return value.strip().lower() in ("yes", "y", "true", "1", "on")


def _list(value: str) -> list[str]:
    return [v.strip() for v in value.split(",") if v.strip()]


def parse_turn(text: str | None, html: str | None = None) -> Turn:
    """Read a turn; never raises."""
    commands: list[Command] = []
    errors: list[LineError] = []
    block: Command | None = None
    first = True
    for number, line in own_lines(body_text(text, html)):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if first and SALUTATION.match(stripped):
            first = False
            continue  # "Hi GM," on the first line
        first = False
        head, sep, rest = stripped.partition(":")
        key = head.strip().lower()
        if block is not None and sep and key in ACTION_KEYS and (line[:1].isspace() or key != "difficulty"):
            before = len(errors)
            _action_key(block, key, rest.strip(), number, errors)
            block.broken = block.broken or len(errors) > before
            continue
        block = None
        words = stripped.split()
        verb = words[0].lower().rstrip(":")
        args = words[1:]
        if verb == "action":
            title = rest.strip() if sep and key == "action" else " ".join(args)
            if not title:
                errors.append(LineError(number, "an action needs a title: 'action: Duel the Balrog'"))
                continue
            block = Command(number, "action", {"title": title})
            block.broken = not _fits("title", title, number, errors)
            commands.append(block)
        elif verb not in VERBS:
            errors.append(
                LineError(number, f"I do not understand {words[0]!r}; commands are: {', '.join(sorted(VERBS))}")
            )
        else:
            cmd = _simple(verb, args, stripped, number, errors)
            if cmd is not None:
                commands.append(cmd)
    return Turn(commands, errors)


def _fits(name: str, value: str, number: int, errors: list[LineError]) -> bool:
    """Whether a field is within the API's length limit for it; if not, say so."""
    limit = LIMITS.get(name, MAX_NAME)
    if len(value) <= limit:
        return True
    errors.append(LineError(number, f"{name} is at most {limit} characters, not {len(value)}", None))
    return False


def _action_key(block: Command, key: str, value: str, number: int, errors: list[LineError]) -> None:
    a = block.args
    if key in LIMITS and not _fits(key, value, number, errors):
        return
    if key in ("targets", "target", "collaborators", "assets") and not all(
        _fits(key, item, number, errors) for item in _list(value)
    ):
        return
    if key == "slot":
        if value.lower() not in ("public", "private"):
            errors.append(LineError(number, "slot is public or private", "P-ACT-1"))
        a["slot"] = value.lower()
    elif key in ("targets", "target"):
        a["targets"] = _list(value)
    elif key == "collaborators":
        a["collaborators"] = _list(value)
    elif key in ("resistible", "propose", "extra action"):
        a[key.replace(" ", "_")] = _yes(value)
    elif key in ("difficulty", "convert"):
        n = _int(value, number, errors, key)
        if n is not None:
            a[key] = n
    elif key == "assets":
        picks = []
        for item in _list(value):
            parts = item.split()
            mode = parts[-1].lower() if len(parts) > 1 and parts[-1].lower() in ("assured", "critical") else "normal"
            name = " ".join(parts[:-1]) if mode != "normal" else item
            picks.append({"ref": name, "mode": mode})
        a["assets"] = picks
    else:
        a[key] = value


def _simple(verb: str, args: list[str], line_text: str, number: int, errors: list[LineError]) -> Command | None:
    def need(n: int, usage: str) -> bool:
        if len(args) < n:
            errors.append(LineError(number, f"usage: {usage}"))
            return False
        return True

    text = line_text.split(None, 1)[1] if args else ""
    if verb == "resolve" and not _fits("announcement", text, number, errors):
        return None
    if verb in ("extension", "refuse") and not _fits("reason", " ".join(args[1:]), number, errors):
        return None
    if verb != "resolve" and not all(_fits("reference", arg, number, errors) for arg in args[:1]):
        return None

    if verb in ("waive", "ready", "advance"):
        return Command(number, verb)
    if verb == "convert" and need(2, "convert <action> <how many>"):
        n = _int(args[1], number, errors, "the number of conversions")
        return Command(number, verb, {"action": args[0], "convert": n}) if n is not None else None
    if verb == "discard" and need(1, "discard <action>"):
        return Command(number, verb, {"action": args[0]})
    if verb == "accept" and need(2, "accept <action> <consequence>"):
        return Command(number, verb, {"action": args[0], "consequence": args[1]})
    if verb in ("resist", "roll") and need(1, f"{verb} <action> [with <asset>, <asset>] [convert <n>]"):
        rest = " ".join(args[1:])
        convert = 0
        m = re.search(r"\bconvert\s+(\S+)\s*$", rest, re.IGNORECASE)
        if m:
            n = _int(m.group(1), number, errors, "convert")
            convert = n or 0
            rest = rest[: m.start()]
        rest = re.sub(r"^\s*with\s+", "", rest, flags=re.IGNORECASE)
        return Command(
            number,
            verb,
            {"action": args[0], "assets": [{"ref": r, "mode": "normal"} for r in _list(rest)], "convert": convert},
        )
    if verb == "extension" and need(1, "extension <hours> [reason]"):
        try:
            hours = float(args[0])
        except ValueError:
            errors.append(LineError(number, f"hours must be a number, not {args[0]!r}", "GM-8"))
            return None
        return Command(number, verb, {"hours": hours, "reason": " ".join(args[1:])})
    if verb == "timezone" and need(1, "timezone <Area/City>"):
        return Command(number, verb, {"timezone": args[0]})
    if verb == "resolve":
        return Command(number, verb, {"announcement": line_text.split(None, 1)[1] if len(args) else ""})
    if verb == "difficulty" and need(2, "difficulty <action> <n> [sealed]"):
        n = _int(args[1], number, errors, "the difficulty")
        sealed = "sealed" in [x.lower() for x in args[2:]]
        return Command(number, verb, {"action": args[0], "value": n, "sealed": sealed}) if n is not None else None
    if verb in ("grant", "refuse") and need(1, f"{verb} <request>"):
        return Command(number, verb, {"request": args[0], "reason": " ".join(args[1:])})
    if verb == "close" and need(1, "close <window>"):
        return Command(number, verb, {"window": args[0]})
    return None
