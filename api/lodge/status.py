"""The Lodge's line of the status strip (``api.web.status``): which Mages have passed this phase. Passing is
public (``Passed`` is shown to everyone, L.4: the board is physical), so every viewer sees every Mage's."""

from __future__ import annotations

from typing import Any


def seats(view: dict[str, Any], me: str) -> list[dict[str, str]]:
    if view["game"]["phase"] in ("setup", "ended", "cleanup"):
        return []
    return [
        {"name": ("You" if m == me else sheet["name"]), "word": "passed" if sheet["ready"] else "still acting"}
        for m, sheet in view["mages"].items()
    ]
