"""The map a board draws: pointy-top axial hexes laid out for an SVG, with the same facts as a table.

Everything here comes from the viewer's ``map`` view (``domain.powers.world.map_view``, through
``board_view``), never from the game's state, so the picture can show no more than the view does: a
hidden feature, another conspiracy's influence or a claim the viewer may not see is simply not in the data.

The labels people read (a hex's title, a town's row) are in the viewer's language (issue 17); a town's wealth
is written as their language writes numbers.
"""

from __future__ import annotations

import math
from typing import Any

from api.web.i18n import number
from domain.errors import RuleViolation
from domain.platform.i18n import _
from domain.powers import hexmap

SIZE = 40  # a hex's circumradius, in SVG units
PAD = 8
SQRT3 = math.sqrt(3)
# Fills by terrain; a terrain the GM names that is not here is drawn in the neutral colour.
TERRAIN_FILL = {
    "plains": "#e9efc0",
    "grassland": "#dcecb0",
    "forest": "#9cc58a",
    "woods": "#a9cf95",
    "hills": "#d9c58f",
    "mountains": "#b7aea3",
    "mountain": "#b7aea3",
    "desert": "#f1dea0",
    "swamp": "#a7b98f",
    "marsh": "#a7b98f",
    "water": "#9cc7e6",
    "lake": "#9cc7e6",
    "sea": "#86b6de",
    "coast": "#c4dfe9",
    "tundra": "#e3e8ea",
    "jungle": "#7fb27a",
}
NEUTRAL = "#e6e2d8"


def _centre(q: int, r: int) -> tuple[float, float]:
    return SIZE * SQRT3 * (q + r / 2), SIZE * 1.5 * r


def _corners(x: float, y: float) -> str:
    points = []
    for i in range(6):
        angle = math.radians(60 * i - 30)
        points.append(f"{x + SIZE * math.cos(angle):.1f},{y + SIZE * math.sin(angle):.1f}")
    return " ".join(points)


def _axial(hex_id: str) -> tuple[int, int] | None:
    try:
        return hexmap.parse_hex(hex_id)
    except RuleViolation:
        return None  # influence recorded before the map named its hexes ("hex-7"): listed, not drawn


def map_figure(view: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """The viewer's map (``view["map"]`` of a board view) as hexes to draw and rows to read.

    Each hex carries its polygon, its terrain and road, the towns and features on it as the viewer sees
    them, the influence the viewer may see there (its own apart), and the claims on its towns. Facts on
    hexes the map does not draw (influence set on a hex id that is not axial) are kept in ``elsewhere``."""
    m = view.get("map") or {}
    me = view.get("viewer")
    cells: dict[str, dict[str, Any]] = {}
    for h in m.get("hexes", []):
        at = _axial(h["hex"])
        if at is None:
            continue
        x, y = _centre(*at)
        cells[h["hex"]] = {
            "hex": h["hex"],
            "q": at[0],
            "r": at[1],
            "x": round(x, 1),
            "y": round(y, 1),
            "points": _corners(x, y),
            "terrain": h.get("terrain", ""),
            "fill": TERRAIN_FILL.get(h.get("terrain", ""), NEUTRAL),
            "road": bool(h.get("road")),
            "name": h.get("name") or "",
            "label": h.get("name") or _("column {q}, row {r}").format(q=at[0], r=at[1]),  # in words (issue 28)
            "short": h.get("name") or f"{at[0]}/{at[1]}",  # the drawn hex's own label: its column/row
            "element": h.get("element"),
            "towns": [],
            "features": [],
            "mine": 0,
            "seen": [],
            "claims": [],
            "holdings": [],
        }
    elsewhere: list[str] = []

    def put(hex_id: str, key: str, value: Any, what: str) -> None:
        cell = cells.get(hex_id)
        if cell is None:
            elsewhere.append(_("{what} ({hex})").format(what=what, hex=hex_id))
        elif key == "mine":
            cell["mine"] += value
        else:
            cell[key].append(value)

    def feature_label(f: dict[str, Any]) -> str:
        label = _("{name} ({kind})").format(name=f["name"], kind=f["kind"]) if f["name"] != f["kind"] else f["kind"]
        if f.get("controller") == me:
            label = _("{feature}, yours").format(feature=label)
        return label

    for t in m.get("towns", []):
        status = ", ".join(f"{k} {v}" for k, v in sorted(t.get("statuses", {}).items()))
        if status:
            town = _("{name} (population {population}, wealth {wealth}, {statuses})")
        else:
            town = _("{name} (population {population}, wealth {wealth})")
        values = {"population": t["population"], "wealth": number(t["wealth"]), "statuses": status}
        put(t["hex"], "towns", town.format(name=t["name"], **values), t["name"])
        for cls, pid in sorted(t.get("claims", {}).items()):
            claim = _("{town}: {power} ({cls})").format(town=t["name"], power=names.get(pid, pid), cls=cls)
            put(t["hex"], "claims", claim, t["name"])
        for f in t.get("features", []):
            where = _("{feature} in {town}").format(feature=feature_label(f), town=t["name"])
            put(f["hex"], "features", where, f["name"])
            if f.get("controller") == me:
                put(f["hex"], "holdings", f["name"], f["name"])
    for f in m.get("features", []):
        put(f["hex"], "features", feature_label(f), f["name"])
        if f.get("controller") == me:
            put(f["hex"], "holdings", f["name"], f["name"])
    for i in m.get("influence", []):
        if i["power"] == me:
            put(i["hex"], "mine", i["amount"], _("your influence {amount}").format(amount=i["amount"]))
        else:
            who = names.get(i["power"], i["power"])
            seen = _("{power}'s influence {amount}").format(power=who, amount=i["amount"])
            put(i["hex"], "seen", f"{who} {i['amount']}", seen)
    hexes = sorted(cells.values(), key=lambda c: (c["r"], c["q"]))
    for c in hexes:
        head = _("Hex {hex}: {terrain}").format(hex=c["label"], terrain=c["terrain"])
        parts = [head]
        if c["road"]:
            parts.append(_("road"))
        parts += [_("town {town}").format(town=t) for t in c["towns"]]
        parts += [_("feature {feature}").format(feature=f) for f in c["features"]]
        if c["mine"]:
            parts.append(_("your influence {amount}").format(amount=c["mine"]))
        parts += [_("influence of {power}").format(power=s) for s in c["seen"]]
        parts += [_("claim {claim}").format(claim=k) for k in c["claims"]]
        c["title"] = "; ".join(parts)
    roads = []
    for c in hexes:
        if not c["road"]:
            continue
        for n in hexmap.neighbours(c["hex"]):
            other = cells.get(n)
            if other is not None and other["road"] and (other["r"], other["q"]) > (c["r"], c["q"]):
                roads.append({"x1": c["x"], "y1": c["y"], "x2": other["x"], "y2": other["y"]})
    if hexes:
        xs, ys = [c["x"] for c in hexes], [c["y"] for c in hexes]
        half = SIZE * SQRT3 / 2
        left, top = min(xs) - half - PAD, min(ys) - SIZE - PAD
        width, height = max(xs) - min(xs) + 2 * (half + PAD), max(ys) - min(ys) + 2 * (SIZE + PAD)
        box = f"{left:.1f} {top:.1f} {width:.1f} {height:.1f}"
    else:
        box = "0 0 0 0"
    return {"hexes": hexes, "roads": roads, "view_box": box, "elsewhere": elsewhere, "size": SIZE}
