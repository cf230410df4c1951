"""The GM's (or a host's) rules-change mail lines (issue 29 item 3). A mail whose one line is ``replay <version>`` (or
``replay <version> from <phase>``) replays the game's history under that installed version of its ruleset
(``application.replay``) and is answered with the difference in words; nothing is recorded. A mail whose one line is
``adopt <version> from <phase>`` adopts it from the start of that phase, as ``POST /games/{g}/adopt`` does: recorded
once under the mail's Message-ID (the same mail again gets the same answer), answered with the differences and the
receipt; each seat is told the changes it may see. A refusal names the field (version, from_phase) and records
nothing; anyone else's line is refused naming the roles that may. The help index lists both (``MAIL``)."""

from __future__ import annotations

import re
from typing import Any

from api.help.mail import MailLine
from api.mail_disputes import receipt_line
from api.mail_preview import GREETING
from application import replay as replays
from application.service import Caller, CommandKey, Games, Receipt
from domain.errors import DomainError
from domain.mailturns import own_lines
from domain.platform.i18n import _

REPLAY = re.compile(
    r"^\s*replay\s+(?P<version>[^\s#]{1,64})(?:\s+from\s+(?P<phase>[^\s#]{1,64}))?\s*(?:#.*)?$", re.IGNORECASE
)
ADOPT_VERB = re.compile(r"^\s*adopt\b", re.IGNORECASE)
ADOPT = re.compile(
    r"^\s*adopt\s+(?P<version>[^\s#]{1,64})(?:\s+from\s+(?P<phase>[^\s#]{1,64}))?\s*(?:#.*)?$", re.IGNORECASE
)

MAIL = (
    MailLine(
        "replay table-2 from join-bob",
        "the GM (or a host) sees the history of the game replayed under another installed version of its ruleset, from "
        "a phase (or from setup), with the same dice: every result it changes, with its rules; nothing is recorded",
    ),
    MailLine(
        "adopt table-2 from join-bob",
        "the GM (or a host) adopts that version from the start of the phase: the results since are re-decided, "
        "later commands follow it, each seat is told the changes it may see; answered with a receipt",
        ("RulesAdopted",),
    ),
)


def _lines(text: str) -> list[tuple[int, str]]:
    lines = [(n, line) for n, line in own_lines(text) if line.strip() and not line.strip().startswith("#")]
    return lines[1:] if lines and GREETING.match(lines[0][1]) else lines


def heading(text: str, ok: bool) -> str:
    """The reply's subject word for a mail ``reply`` answered."""
    if any(ADOPT_VERB.match(line) for _n, line in _lines(text)):
        return _("Adopted") if ok else _("Not adopted")
    return _("Replay") if ok else _("Not replayed")


def refusal(err: DomainError) -> str:
    """A refusal in words, naming the field (and the rule, if one) it concerns."""
    named = ", ".join(x for x in (_("field {field}").format(field=err.field) if err.field else "", err.rule or "") if x)
    return f"{err.message}{f' ({named})' if named else ''}"


def reply(games: Games, game_id: str, principal: str, text: str, message_id: str = "") -> tuple[bool, str] | None:
    """(replayed or adopted, the reply's text) for a mail with a ``replay`` or ``adopt`` line, else None (the next
    reader reads it)."""
    lines = _lines(text)
    adopting = [(n, line) for n, line in lines if ADOPT_VERB.match(line)]
    if adopting:
        return _adopt(games, game_id, principal, lines, adopting[0], message_id)
    found = [(n, m) for n, line in lines if (m := REPLAY.match(line))]
    if not found:
        return None
    n, m = found[0]
    others = [k for k, _n in lines if k != n]
    if others:
        named = ", ".join(str(k) for k in others)
        return False, _(
            "Nothing was replayed or recorded: line {line}: a replay stands alone in its mail; send the other lines "
            "({lines}) in a mail of their own (MAIL-1)."
        ).format(line=n, lines=named)
    try:
        out = replays.replay(games, Caller.of(principal), game_id, m.group("version"), m.group("phase"))
    except DomainError as err:
        return False, _("Nothing was replayed or recorded: line {line}: {error}.").format(line=n, error=refusal(err))
    return True, summary(out)


def _adopt(
    games: Games, game_id: str, principal: str, lines: list[tuple[int, str]], line: tuple[int, str], message_id: str
) -> tuple[bool, str]:
    refused = _("Nothing was adopted or recorded: line {line}: {error}.")
    n, text = line
    others = [k for k, _n in lines if k != n]
    if others:
        named = ", ".join(str(k) for k in others)
        return False, _(
            "Nothing was adopted or recorded: line {line}: an adoption stands alone in its mail; send the other lines "
            "({lines}) in a mail of their own (MAIL-1)."
        ).format(line=n, lines=named)
    m = ADOPT.match(text)
    if m is None:
        return False, refused.format(line=n, error=_("write 'adopt <version> from <phase>' (field version)"))
    if not message_id:
        return False, _("Nothing was adopted or recorded: a mail needs a Message-ID.")
    try:
        done = replays.adopt(
            games,
            Caller.of(principal),
            game_id,
            m.group("version"),
            m.group("phase") or "",
            CommandKey(f"mail:{message_id}"),
            adopted,
        )
    except DomainError as err:
        return False, refused.format(line=n, error=refusal(err))
    return True, str(done["result"]["reply"])


def adopted(out: dict[str, Any], differences: list[dict[str, Any]], receipt: Receipt) -> str:
    """An adoption in words: the version, the phase it counts from, each result re-decided, and the receipt."""
    lines = [
        _(
            "This game now plays by {version} (it played by {previous}) from {phase}: the results since are "
            "re-decided with the same dice, and every later command follows it. Each seat is told the changes it may "
            "see."
        ).format(version=out["version"], previous=out["previous"], phase=out["from_phase"]),
        "",
    ]
    lines += _differences(differences) or [_("No recorded result changes.")]
    lines += ["", receipt_line(receipt)]
    return "\n".join(lines)


def _differences(differences: list[dict[str, Any]]) -> list[str]:
    out = []
    for d in differences:
        rules = f" ({', '.join(d['rules'])})" if d.get("rules") else ""
        changed = [f"{k} {v['before']} -> {v['after']}" for k, v in d.get("result", {}).items()]
        changed += [f"{s['path']} {s['before']} -> {s['after']}" for s in d.get("state") or []]
        number = f"#{d['version']} " if "version" in d else ""
        event = _("  - event {number}{type}{rules}: {changes}")
        out.append(event.format(number=number, type=d["type"], rules=rules, changes="; ".join(changed)))
    return out


def summary(out: dict[str, Any]) -> str:
    """A replay in words: each event that would change, with its rules, then how the game would stand."""
    lines = [
        _(
            "The history of this game replayed under {version} (it plays by {pinned}), from {phase}, with the same "
            "dice. Nothing is recorded and nobody else is told."
        ).format(version=out["version"], pinned=out["pinned"], phase=out["from_phase"]),
        "",
    ]
    lines += _differences(out["differences"]) or [_("Nothing would change.")]
    if out.get("final"):
        lines += ["", _("How the game would stand now:")]
        lines += [f"  - {s['path']} {s['before']} -> {s['after']}" for s in out["final"]]
    lines += [
        "",
        _(
            "Adopt it with a mail of one line, 'adopt {version} from {phase}', on the Rules changes page, or "
            "POST /games/{game}/adopt."
        ).format(version=out["version"], phase=out["from_phase"], game=out["game_id"]),
    ]
    return "\n".join(lines)
