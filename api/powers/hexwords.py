"""A hex in words, not its coordinates (issue 28 item 3): its name where the map names it, else its column and
row ("column 2, row 0"). The hex id (``2,0``) stays what forms post; only what a page shows is worded."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.errors import RuleViolation
from domain.platform.i18n import _
from domain.powers import hexmap


def hex_names(view: Mapping[str, Any] | None) -> dict[str, str]:
    """The names the viewer's map gives its hexes, by hex id."""
    hexes = ((view or {}).get("map") or {}).get("hexes") or []
    return {h["hex"]: h["name"] for h in hexes if h.get("name")}


def hex_words(hex_id: Any, view: Mapping[str, Any] | None = None) -> str:
    """``2,0`` -> its name on the viewer's map, else "column 2, row 0"; a hex id that is not a map's (an early
    ``hex-7``) as it is."""
    name = hex_names(view).get(str(hex_id))
    if name:
        return name
    try:
        q, r = hexmap.parse_hex(str(hex_id))
    except RuleViolation:
        return str(hex_id)
    return _("column {q}, row {r}").format(q=q, r=r)
