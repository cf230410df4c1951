"""The GM's (or a host's) ``preview`` mail line (issue 29 item 2): a mail whose one line is ``preview`` (or ``preview
<window>``) previews the pending step (``application.preview``) and is answered with each viewer's outcome in
words. Every ruleset takes it, before its own grammar reads anything; nothing is recorded but the audit line, and a
player's ``preview`` is refused naming the roles that may (nothing recorded)."""

from __future__ import annotations

import re
from typing import Any

from application import preview as previews
from application.service import Caller, Games
from domain.errors import DomainError
from domain.mailturns import own_lines
from domain.platform.i18n import _

GREETING = re.compile(r"^[^:#]{0,60},\s*$")
PREVIEW = re.compile(r"^\s*preview(?:\s+(?P<window>[^\s#]{1,64}))?\s*(?:#.*)?$", re.IGNORECASE)


def asked(text: str) -> tuple[int, str | None, list[int]] | None:
    """The line of a ``preview`` in the sender's own lines, its window (or None), and the other lines that carry a
    command beside it; None if the mail has no ``preview`` line."""
    lines = [(n, line) for n, line in own_lines(text) if line.strip() and not line.strip().startswith("#")]
    if lines and GREETING.match(lines[0][1]):
        lines = lines[1:]  # "Hi GM," is no command (as the grammars read it)
    found = [(n, m) for n, line in lines if (m := PREVIEW.match(line))]
    if not found:
        return None
    n, m = found[0]
    return n, m.group("window"), [k for k, _n in lines if k != n]


def reply(games: Games, game_id: str, principal: str, text: str) -> tuple[bool, str] | None:
    """(previewed, the reply's text) for a mail with a ``preview`` line, else None (the ruleset's grammar reads it)."""
    found = asked(text)
    if found is None:
        return None
    line, window, others = found
    if others:
        named = ", ".join(str(k) for k in others)
        return False, _(
            "Nothing was previewed or recorded: line {line}: a preview stands alone in its mail; send the other "
            "lines ({lines}) in a mail of their own (MAIL-1)."
        ).format(line=line, lines=named)
    try:
        pv = previews.preview(games, Caller.of(principal), game_id, window)
    except DomainError as err:
        return False, _("Nothing was previewed or recorded: line {line}: {error}.").format(line=line, error=err.message)
    return True, summary(pv.as_dict())


def summary(pv: dict[str, Any]) -> str:
    """A preview in words: the step, then each viewer's events of it and the results it explains."""
    out = [
        _(
            "Preview of closing {window} ({step}), as it would be published now with the game's own committed dice. "
            "Nothing is recorded but a line in the audit saying you previewed it."
        ).format(window=pv["window_id"], step=pv["step"]),
    ]
    if pv["blocked"]:
        out += ["", _("The close would not happen: {reason}").format(reason=pv["blocked"])]
    for viewer, outcome in pv["viewers"].items():
        if viewer == "gm":
            sees = _("The GM would see:")
        elif viewer == "observer":
            sees = _("Observers would see:")
        else:
            sees = _("{viewer} would see:").format(viewer=viewer)
        out += ["", sees]
        out += [f"  - {e['text']}" for e in outcome["events"]] or [_("  nothing new")]
        for result_id, d in outcome["derivations"].items():
            out.append(
                _("  result {result}: {published}").format(result=result_id, published=d["result"].get("published"))
            )
    out += ["", _("Publish it by closing the window (close on the console, or the API); it gives exactly this.")]
    return "\n".join(out)
