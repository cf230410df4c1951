"""The map a board draws: pointy-top axial hexes laid out for an SVG, with the same facts as a table.

Everything here comes from the viewer's ``map`` view (``domain.powers.world.map_view``, through
``board_view``), never from the game's state, so the picture can show no more than the view does: a
hidden feature, another conspiracy's influence or a claim the viewer may not see is simply not in the data.

The labels people read (a hex's title, a town's row) are in the viewer's language (issue 17); a town's wealth
is written as their language writes numbers.
"""

from __future__ import annotations

import heapq
import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from api.web.i18n import number
from domain.errors import RuleViolation
from domain.ids import GM
from domain.platform.i18n import _
from domain.powers import army_rules as ar
from domain.powers import hexmap

SIZE = 40  # a hex's circumradius, in SVG units
PAD = 4
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
LABEL_CHARS = 7  # a name drawn in a hex: about as many characters as its width holds at the label's size


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
            "armies": [],
            "battles": [],
            "own_armies": 0,
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
    for a in (view.get("armies") or {}).get("armies", []):
        if a.get("hex"):
            put(a["hex"], "armies", army_words(a, me, names), a["name"])
            if a["controller"] == me and a["hex"] in cells:
                cells[a["hex"]]["own_armies"] += 1
    for b in view.get("battles") or []:
        put(b["hex"], "battles", battle_words(b, names), _("a battle"))
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
        parts += [_("army {army}").format(army=a) for a in c["armies"]]
        parts += c["battles"]
        c["title"] = "; ".join(parts)
        c["town_short"] = _short(c["towns"][0].split(" (")[0]) if c["towns"] else _short(c["name"])
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
    return {"hexes": hexes, "roads": roads, "view_box": box, "elsewhere": elsewhere, "size": SIZE, "cells": cells}


def _short(name: str) -> str:
    """A name as the drawn hex has room for it (the title and the table give it whole)."""
    return name if len(name) <= LABEL_CHARS else name[: LABEL_CHARS - 1] + "…"


def army_words(a: dict[str, Any], me: str | None, names: dict[str, str]) -> str:
    """An army as the viewer knows it: its name, its power, its size; its units' wounds where the viewer sees
    them (its controller and the GM: the full card carries ``units``)."""
    power = names.get(a["controller"], a["controller"]) if a["controller"] else _("no power")
    if a["controller"] == me:
        power = _("yours")
    if "units" in a:
        wounds = ", ".join(
            _("{wounds} (routed)").format(wounds=u["wounds"]) if u.get("routed") else str(u["wounds"])
            for u in a["units"]
        )
        return _("{army} ({power}, size {size}; wounds by unit: {wounds})").format(
            army=a["name"], power=power, size=a["size"], wounds=wounds or _("none")
        )
    return _("{army} ({power}, size {size})").format(army=a["name"], power=power, size=a["size"])


def battle_words(b: dict[str, Any], names: dict[str, str]) -> str:
    """A battle as the table sees it: its sides by power name, its round or its end."""

    def side(key: str) -> str:
        return ", ".join(names.get(p, p) for p in b["sides"].get(key, {}).get("powers", [])) or _("nobody")

    if b["step"] == "ended":
        state = _("ended")
    else:
        state = _("round {round}").format(round=b["round"])
    return _("battle of {side_a} against {side_b}, {state}").format(side_a=side("A"), side_b=side("B"), state=state)


def picked(view: dict[str, Any], fig: dict[str, Any], query: Mapping[str, str]) -> dict[str, Any] | None:
    """The hex the viewer clicked (``?hex=q,r``, a link of the drawn map) and what its forms are filled in
    with: the compose form's location, the aim form's town and feature there, a battle declared there against
    the other powers whose armies the viewer sees there (the GM's: for the first of them, against the others), a seek
    in it, and with ``army=`` one of the viewer's
    armies mustered there along the map's cheapest path (``path``). All from the viewer's own view."""
    cell = fig["cells"].get(str(query.get("hex", "")))
    if cell is None:
        return None
    me = view.get("viewer")
    hex_id = cell["hex"]
    m = view.get("map") or {}
    towns = [t for t in m.get("towns", []) if t["hex"] == hex_id]
    features = [f for t in m.get("towns", []) for f in t.get("features", []) if f["hex"] == hex_id]
    features += [f for f in m.get("features", []) if f["hex"] == hex_id]
    armies = (view.get("armies") or {}).get("armies", [])
    enemies = sorted({a["controller"] for a in armies if a["hex"] == hex_id and a["controller"] not in (me, None)})
    # A muster moves armies from their garrisons: one out in the field moves again only with Forced March (P-ARMY-1,
    # [003:919]), read from the perks every power's view shows.
    perks = {p["name"] for p in ((view.get("development") or {}).get("perks") or {}).get(me, [])}
    mine = [
        a
        for a in armies
        if a["controller"] == me and me is not None and (not a.get("mustered") or "Forced March" in perks)
    ]
    out: dict[str, Any] = {
        "hex": hex_id,
        "cell": cell,
        "town": towns[0] if towns else None,
        "feature": features[0] if features else None,
        "enemies": " ".join(enemies),
        "battle_id": "battle-" + re.sub(r"[^a-z0-9]+", "-", cell["label"].lower()).strip("-"),
        "movers": [a for a in mine if a["hex"] != hex_id and path(fig["cells"], a["hex"], hex_id, a["keywords"])],
        "muster": None,
        "army": None,
    }
    if me == GM:  # the GM declares for a power (P-AMB-1): the first with an army there, against the others
        out.update(declarer=enemies[0] if enemies else None, enemies=" ".join(enemies[1:]))
    army = next((a for a in out["movers"] if a["army_id"] == query.get("army")), None)
    if army is not None:
        moves = [{"army_id": army["army_id"], "path": path(fig["cells"], army["hex"], hex_id, army["keywords"])}]
        out.update(army=army, muster=json.dumps({"moves": moves}))
    return out


def path(cells: Mapping[str, Any], start: str, goal: str, keywords: Sequence[str] = ()) -> list[str] | None:
    """The cheapest path of neighbouring hexes the map draws, from ``start`` to ``goal`` (both included), by what
    a muster pays for it (P-ARMY-1, ``army_rules.path_cost``: each hex entered 1, rough terrain 2, a road nothing,
    an army's terrain keyword easing its terrain), the fewest hexes among paths that cost the same: the muster's
    Difficulty grows with the cost beyond the army's mobility, so the map fills in the path that costs least."""
    if start not in cells or goal not in cells:
        return None
    hexes = {h: {"terrain": c["terrain"], "road": c["road"]} for h, c in cells.items()}
    best: dict[str, tuple[int, int]] = {start: (0, 0)}
    back: dict[str, str | None] = {start: None}
    queue: list[tuple[int, int, str]] = [(0, 0, start)]
    while queue:
        cost, steps, here = heapq.heappop(queue)
        if here == goal:
            out = [here]
            while (prev := back[out[-1]]) is not None:
                out.append(prev)
            return out[::-1]
        if (cost, steps) > best[here]:
            continue
        for n in hexmap.neighbours(here):
            if n not in cells:
                continue
            reached = (cost + ar.path_cost([here, n], hexes, list(keywords)), steps + 1)
            if n not in best or reached < best[n]:
                best[n], back[n] = reached, here
                heapq.heappush(queue, (*reached, n))
    return None
