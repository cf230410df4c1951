"""The GM's (or a host's) ``replay`` mail line (issue 29 item 3): a mail whose one line is ``replay <version>`` (or
``replay <version> from <phase>``) replays the game's history under that installed version of its ruleset
(``application.replay``) and is answered with the difference in words. Nothing is recorded; adopting it is done on
the Rules changes page or through the API. Anyone else's ``replay`` is refused naming the roles that may."""

from __future__ import annotations

import re
from typing import Any

from api.mail_preview import GREETING
from application import replay as replays
from application.service import Caller, Games
from domain.errors import DomainError
from domain.mailturns import own_lines

REPLAY = re.compile(
    r"^\s*replay\s+(?P<version>[^\s#]{1,64})(?:\s+from\s+(?P<phase>[^\s#]{1,64}))?\s*(?:#.*)?$", re.IGNORECASE
)


def reply(games: Games, game_id: str, principal: str, text: str) -> tuple[bool, str] | None:
    """(replayed, the reply's text) for a mail with a ``replay`` line, else None (the next reader reads it)."""
    lines = [(n, line) for n, line in own_lines(text) if line.strip() and not line.strip().startswith("#")]
    if lines and GREETING.match(lines[0][1]):
        lines = lines[1:]
    found = [(n, m) for n, line in lines if (m := REPLAY.match(line))]
    if not found:
        return None
    n, m = found[0]
    others = [k for k, _ in lines if k != n]
    if others:
        named = ", ".join(str(k) for k in others)
        return False, (
            f"Nothing was replayed or recorded: line {n}: a replay stands alone in its mail; send the other lines "
            f"({named}) in a mail of their own (MAIL-1)."
        )
    try:
        out = replays.replay(games, Caller.of(principal), game_id, m.group("version"), m.group("phase"))
    except DomainError as err:
        return False, f"Nothing was replayed or recorded: line {n}: {err.message}."
    return True, summary(out)


def summary(out: dict[str, Any]) -> str:
    """A replay in words: each event that would change, with its rules, then how the game would stand."""
    lines = [
        f"The history of this game replayed under {out['version']} (it plays by {out['pinned']}), from "
        f"{out['from_phase']}, with the same dice. Nothing is recorded and nobody else is told.",
        "",
    ]
    for d in out["differences"]:
        rules = f" ({', '.join(d['rules'])})" if d.get("rules") else ""
        changed = [f"{k} {v['before']} -> {v['after']}" for k, v in d.get("result", {}).items()]
        changed += [f"{s['path']} {s['before']} -> {s['after']}" for s in d.get("state") or []]
        lines.append(f"  - event #{d['version']} {d['type']}{rules}: {'; '.join(changed)}")
    if not out["differences"]:
        lines.append("Nothing would change.")
    if out.get("final"):
        lines += ["", "How the game would stand now:"]
        lines += [f"  - {s['path']} {s['before']} -> {s['after']}" for s in out["final"]]
    lines += ["", f"Adopt it on the Rules changes page, or POST /games/{out['game_id']}/adopt."]
    return "\n".join(lines)
