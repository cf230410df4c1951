"""The Lodge's line of the status strip (``api.web.status``): which Mages have passed this phase. Passing is
public (``Passed`` is shown to everyone, L.4: the board is physical), so every viewer sees every Mage's."""

from __future__ import annotations

from typing import Any

from domain.platform.i18n import _


def seats(view: dict[str, Any], me: str) -> list[dict[str, str]]:
    """Each Mage's progress in a phase the Mages act in; none in the host's (the Black Rose's), where no Mage
    is offered a move of the phase and so none is "still acting"."""
    if view["game"]["phase"] in ("setup", "ended", "cleanup") or view["game"].get("acts") == "host":
        return []
    return [
        {"name": (_("You") if m == me else sheet["name"]), "word": _("passed") if sheet["ready"] else _("still acting")}
        for m, sheet in view["mages"].items()
    ]
