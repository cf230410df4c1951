"""The plain-text turn grammar for play by email (README, "Playing by email").

A turn is a list of commands, one per line, in any case; an ``action:`` line opens a block of
``key: value`` lines. Quoted replies (``>`` lines, and everything from an "On ... wrote:" line),
signatures (from a ``-- `` line) and HTML-only mail are handled. Parsing never raises: it returns
the commands and, for every line it cannot read, an error with the line number.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

GRAMMAR = "MAIL-1"
ACTION_KEYS = {"slot", "skill", "targets", "target", "resistible", "difficulty", "assets", "extra action", "convert",
               "propose", "description", "collaborators", "location"}
VERBS = {"action", "roll", "convert", "discard", "accept", "resist", "waive", "extension", "ready", "timezone", "advance",
         "resolve", "difficulty", "grant", "refuse", "close"}


@dataclass
class Command:
    line: int
    verb: str
    args: dict = field(default_factory=dict)


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


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag in ("br", "p", "div", "li", "tr"):
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def body_text(text: str | None, html: str | None) -> str:
    """The text of a mail: its plain part, or its HTML part turned into lines."""
    if text and text.strip():
        return text
    if html:
        parser = _Text()
        parser.feed(html)
        return "".join(parser.parts)
    return ""


SALUTATION = re.compile(r"^(hi|hello|dear|hey|greetings)\b[^:]{0,40},?$", re.IGNORECASE)
WROTE = re.compile(r"^on .{3,200} wrote:\s*$", re.IGNORECASE)


def own_lines(text: str) -> list[tuple[int, str]]:
    """The lines the sender wrote: without the quoted reply below and the signature."""
    out = []
    for number, raw in enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1):
        line = raw.rstrip()
        if line == "--" or WROTE.match(line.strip()):  # a signature ("-- "), or the quoted reply below
            break
        if line.lstrip().startswith(">"):
            continue
        out.append((number, line))
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
            _action_key(block, key, rest.strip(), number, errors)
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
            commands.append(block)
        elif verb not in VERBS:
            errors.append(LineError(number, f"I do not understand {words[0]!r}; commands are: "
                                            f"{', '.join(sorted(VERBS))}"))
        else:
            cmd = _simple(verb, args, stripped, number, errors)
            if cmd is not None:
                commands.append(cmd)
    return Turn(commands, errors)


def _action_key(block: Command, key: str, value: str, number: int, errors: list[LineError]) -> None:
    a = block.args
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
            rest = rest[:m.start()]
        rest = re.sub(r"^\s*with\s+", "", rest, flags=re.IGNORECASE)
        return Command(number, verb, {"action": args[0], "assets": [{"ref": r, "mode": "normal"}
                                                                     for r in _list(rest)], "convert": convert})
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
        return Command(number, verb, {"action": args[0], "value": n, "sealed": "sealed" in [x.lower() for x in args[2:]]}) \
            if n is not None else None
    if verb in ("grant", "refuse") and need(1, f"{verb} <request>"):
        return Command(number, verb, {"request": args[0], "reason": " ".join(args[1:])})
    if verb == "close" and need(1, "close <window>"):
        return Command(number, verb, {"window": args[0]})
    return None
