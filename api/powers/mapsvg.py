"""The map a board draws: pointy-top axial hexes laid out for an SVG, with the same facts as a table.

Everything here comes from the viewer's ``map`` view (``domain.powers.world.map_view``, through
``board_view``), never from the game's state, so the picture can show no more than the view does: a
hidden feature, another conspiracy's influence or a claim the viewer may not see is simply not in the data.
"""

from __future__ import annotations

import math
from typing import Any

from domain.errors import RuleViolation
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
            elsewhere.append(f"{what} ({hex_id})")
        elif key == "mine":
            cell["mine"] += value
        else:
            cell[key].append(value)

    def feature_label(f: dict[str, Any]) -> str:
        label = f"{f['name']} ({f['kind']})" if f["name"] != f["kind"] else f["kind"]
        if f.get("controller") == me:
            label += ", yours"
        return label

    for t in m.get("towns", []):
        status = ", ".join(f"{k} {v}" for k, v in sorted(t.get("statuses", {}).items()))
        put(
            t["hex"],
            "towns",
            f"{t['name']} (population {t['population']}, wealth {t['wealth']}{', ' + status if status else ''})",
            t["name"],
        )
        for cls, pid in sorted(t.get("claims", {}).items()):
            put(t["hex"], "claims", f"{t['name']}: {names.get(pid, pid)} ({cls})", t["name"])
        for f in t.get("features", []):
            put(f["hex"], "features", f"{feature_label(f)} in {t['name']}", f["name"])
            if f.get("controller") == me:
                put(f["hex"], "holdings", f["name"], f["name"])
    for f in m.get("features", []):
        put(f["hex"], "features", feature_label(f), f["name"])
        if f.get("controller") == me:
            put(f["hex"], "holdings", f["name"], f["name"])
    for i in m.get("influence", []):
        if i["power"] == me:
            put(i["hex"], "mine", i["amount"], f"your influence {i['amount']}")
        else:
            who = names.get(i["power"], i["power"])
            put(i["hex"], "seen", f"{who} {i['amount']}", f"{who}'s influence {i['amount']}")
    hexes = sorted(cells.values(), key=lambda c: (c["r"], c["q"]))
    for c in hexes:
        parts = [f"Hex {c['hex']}{' ' + c['name'] if c['name'] else ''}: {c['terrain']}"]
        if c["road"]:
            parts.append("road")
        parts += [f"town {t}" for t in c["towns"]] + [f"feature {f}" for f in c["features"]]
        if c["mine"]:
            parts.append(f"your influence {c['mine']}")
        parts += [f"influence of {s}" for s in c["seen"]] + [f"claim {k}" for k in c["claims"]]
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
