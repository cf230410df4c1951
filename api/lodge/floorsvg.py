"""The Lodge drawn as a floor plan (issue 28 item 1; ``templates/floor_svg.html`` renders what ``plan`` lays out):
each Room with its Instability slots and their cubes, the Models in it (the Mages and the Evocations, each with
its Damage Cubes), the Persistent Tokens laid on it, and the doors between Rooms.

The plan is laid out from the viewer's own view (``board_view``, L.4) and the catalogue's public Room list (names
and doors); everything it draws is on the physical board, which L.4 shows to everyone, so a Mage's plan is the
host's plan but for the ring around her own Model. Nothing face down (a Spell in a slot, the Evocation deck's
order) is in it.

The catalogue gives no coordinates, so the Rooms are laid out from the doors: the Room with the most doors in the
middle row, the Cells (a Room that is a Mage's Cell) in a row above it, every other Room in the row of its distance
from the middle one, ordered under the Rooms it opens from. It is sized for a phone (``WIDTH`` units, at most
four Rooms a row)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.lodge.state import BLACK_ROSE
from domain.platform.i18n import _

WIDTH = 340
PAD = 2
GAP_X, GAP_Y = 8, 22
LINE = 14  # one Model's line in a Room
CUBE = 12


def _colour(view: dict[str, Any], who: Any) -> str:
    """The colour of a cube or a token its owner left: a Mage's colour, the Black Rose's black."""
    if who == BLACK_ROSE:
        return "black"
    mage = view["mages"].get(who)
    return str(mage["colour"]) if mage else "none"


def _rows(rooms: list[Any], present: set[str]) -> list[list[Any]]:
    """The Rooms in rows: the Cells above, the Room with most doors, then each Room by its distance from it."""
    rooms = [r for r in rooms if r.id in present]
    if not rooms:
        return []
    doors: dict[str, set[str]] = {r.id: set() for r in rooms}
    for r in rooms:
        for other in r.adjacent:
            if other in doors:
                doors[r.id].add(other)
                doors[other].add(r.id)
    hub = max(rooms, key=lambda r: (r.cell_of is None, len(doors[r.id])))
    depth = {hub.id: 0}
    frontier = [hub.id]
    while frontier:
        nxt = []
        for rid in frontier:
            for other in sorted(doors[rid]):
                if other not in depth:
                    depth[other] = depth[rid] + 1
                    nxt.append(other)
        frontier = nxt
    cells = [r for r in rooms if r.cell_of is not None and r.id != hub.id]
    rest = [r for r in rooms if r.cell_of is None or r.id == hub.id]
    deepest = max([depth.get(r.id, 0) for r in rest], default=0)
    by_depth: list[list[Any]] = [[] for _ in range(deepest + 2)]
    for r in rest:
        by_depth[depth[r.id] if r.id in depth else deepest + 1].append(r)
    rows = ([cells] if cells else []) + [row for row in by_depth if row]
    for i in range(1, len(rows)):  # each Room under the Rooms it opens from, as far as the row allows
        above = {r.id: k for k, r in enumerate(rows[i - 1])}

        def under(r: Any, above: dict[str, int] = above) -> float:
            ks = [above[o] for o in doors[r.id] if o in above]
            return sum(ks) / len(ks) if ks else float(len(above))

        rows[i] = sorted(rows[i], key=under)
    out: list[list[Any]] = []
    for row in rows:  # at most four a row
        out += [row[k : k + 4] for k in range(0, len(row), 4)]
    return out


def _initial(name: str) -> str:
    """A cube's mark: its owner's initial ("the Black Rose": B)."""
    words = [w for w in name.split() if w[:1].isupper()] or name.split() or ["?"]
    return words[0][:1].upper()


def _fit(text: str, width: float, size: float = 10.0) -> str:
    """``text`` cut to what ``width`` units hold at ``size`` (an ellipsis where cut)."""
    most = max(3, int(width / (size * 0.56)))
    return text if len(text) <= most else text[: most - 1].rstrip() + "…"


def plan(
    view: dict[str, Any], catalogue: Any, me: str, name_of: Callable[[Any], str], word: Callable[[Any], str]
) -> dict[str, Any]:
    """The floor plan: the Rooms laid out with what is in them, the doors, and the plan in words (``desc``)."""
    models: dict[str, list[dict[str, Any]]] = {}
    for m, s in view["mages"].items():
        if s["room"]:
            models.setdefault(s["room"], []).append(
                {
                    "kind": "mage",
                    "cls": f"col-{s['colour']}",
                    "name": s["name"],
                    "mine": m == me,
                    "damage": [f"col-{_colour(view, by)}" for by in s["damage"]],
                    "words": _("{mage} ({colour}), damage {damage}").format(
                        mage=s["name"], colour=word(s["colour"]), damage=len(s["damage"])
                    ),
                }
            )
    evocation_cards = catalogue.evocation_by_id
    for e in view["evocations"].values():
        if e["room"]:
            card = evocation_cards.get(e["card"])
            name = card.name if card else name_of(e["card"])
            health = (card.health if card else 0) + e["health_mod"]
            models.setdefault(e["room"], []).append(
                {
                    "kind": "evocation",
                    "cls": f"col-{_colour(view, e['controller'])}",
                    "name": name,
                    "mine": e["controller"] == me,
                    "rotated": e["rotated"],
                    "damage": [f"col-{_colour(view, by)}" for by in e["damage"]],
                    "words": _("{evocation} of {controller}, damage {damage} of health {health}").format(
                        evocation=name, controller=name_of(e["controller"]), damage=len(e["damage"]), health=health
                    )
                    + (" " + _("(rotated)") if e["rotated"] else ""),
                }
            )
    tokens: dict[str, list[str]] = {}
    for t in view["persistent_tokens"]:
        if t.get("target") in view["rooms"]:
            tokens.setdefault(t["target"], []).append(name_of(t["card"]) if t.get("card") else _("a Persistent Token"))

    rooms_out, placed = [], {}
    y = PAD
    catalogue_rooms = {r.id: r for r in catalogue.rooms}
    for row in _rows(list(catalogue.rooms), set(view["rooms"])):
        w = min(160.0, (WIDTH - 2 * PAD - (len(row) - 1) * GAP_X) / len(row))
        x0 = (WIDTH - (len(row) * w + (len(row) - 1) * GAP_X)) / 2
        drawn = []
        for k, r in enumerate(row):
            room = view["rooms"][r.id]
            here = models.get(r.id, [])
            laid = tokens.get(r.id, [])
            h = 20 + (CUBE + 6 if room["slots"] else 0) + (12 if room["must_rebuild"] else 0)
            h += LINE * (len(here) + len(laid)) + 4
            slots = [
                {
                    "cls": f"col-{_colour(view, by)}" if by else "empty",
                    "label": _initial(name_of(by)) if by else "",
                }
                for by in room["slots"]
            ]
            per_row = max(1, int((w - 8) // (CUBE + 3)))
            drawn.append(
                {
                    "id": r.id,
                    "x": x0 + k * (w + GAP_X),
                    "y": y,
                    "w": w,
                    "h": max(h, 34),
                    "name": _fit(r.name, w - (22 if room["slots"] else 10), 11),
                    "side": room["side"],
                    "slots": slots[:per_row],
                    "must_rebuild": room["must_rebuild"],
                    "models": [dict(m, short=_fit(m["name"], w - 22 - 7 * min(4, len(m["damage"])))) for m in here],
                    "tokens": [_fit("◆ " + t, w - 10) for t in laid],
                }
            )
        height = max(d["h"] for d in drawn)
        for d in drawn:
            d["h"] = height
            placed[d["id"]] = d
        rooms_out += drawn
        y += height + GAP_Y
    doors: list[dict[str, Any]] = []
    for rid, d in placed.items():
        for other in catalogue_rooms[rid].adjacent:
            if other not in placed:
                continue
            one_way = other in catalogue_rooms[rid].one_way
            if not one_way and (other, rid) in {(a["from"], a["to"]) for a in doors}:
                continue
            o = placed[other]
            doors.append(
                {
                    "from": rid,
                    "to": other,
                    "x1": d["x"] + d["w"] / 2,
                    "y1": d["y"] + d["h"] / 2,
                    "x2": o["x"] + o["w"] / 2,
                    "y2": o["y"] + o["h"] / 2,
                    "one_way": one_way,
                }
            )
    return {
        "width": WIDTH,
        "height": max(y - GAP_Y + PAD, 40),
        "rooms": rooms_out,
        "doors": doors,
        "desc": _describe(view, catalogue_rooms, models, tokens, name_of),
    }


def _describe(view: dict[str, Any], rooms: dict[str, Any], models: dict, tokens: dict, name_of: Callable) -> str:
    """The plan in words: each Room, its cubes, what stands in it and what is laid on it."""
    parts = []
    for rid, room in view["rooms"].items():
        name = rooms[rid].name if rid in rooms else name_of(rid)
        bits = [_("side {side}").format(side=room["side"])]
        if room["slots"]:
            cubes = [name_of(by) for by in room["slots"] if by]
            bits.append(
                _("instability {filled} of {slots}: {cubes}").format(
                    filled=len(cubes), slots=len(room["slots"]), cubes=", ".join(cubes) or _("none")
                )
            )
        if room["must_rebuild"]:
            bits.append(_("must be rebuilt"))
        bits += [m["words"] for m in models.get(rid, [])]
        bits += [_("{token} laid here").format(token=t) for t in tokens.get(rid, [])]
        parts.append(f"{name}: {'; '.join(bits)}.")
    return " ".join(parts)
