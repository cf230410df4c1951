"""The covenant game's line of the status strip (``api.web.status``): whose turn it is and who comes next, as
the table shows it (the turn order is public, A.1.2)."""

from __future__ import annotations

from typing import Any

from domain.platform.i18n import _


def seats(view: dict[str, Any], me: str) -> list[dict[str, str]]:
    g = view["game"]
    if g["phase"] in ("setup", "over"):
        return []
    turn = list(g.get("turn") or [])
    out = []
    for seat, c in view["covenants"].items():
        word = _("at turn") if turn and seat == turn[0] else (_("to come") if seat in turn else _("done this phase"))
        out.append({"name": _("You") if seat == me else c["covenant"], "word": word})
    return out
