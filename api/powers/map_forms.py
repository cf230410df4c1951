"""The GM's map editor (issue 28): the GM chooses a hex on the console's map (``?hex=q,r``) and sets its terrain,
name, road and mana element, its towns and its features with selects and text inputs, adds a hex by its column
and row, or removes one with what stands on it. Each form builds the command the JSON path sends, ``AmendMap``
(P-ACT-4), from the map as declared (``domain.powers.world.declared_map``), so what the editor does not show of a
town or a feature (a ruin's reward, a feature's upgrades) is kept. A town's statuses (P-TOWN-4) are a number
input each, a stronghold's modules (P-FEAT-3) a checkbox each, a dungeon's floors (P-FEAT-4) rows of a difficulty
and a reward (with one empty row to add a floor). A refusal names its field as the domain does
(``hexes[2,0].terrain``, ``towns[derop].population``, ``towns[derop].statuses.taxed``,
``features[tomb].floors[2].difficulty``), records nothing, and the form comes back with what was typed. The JSON
forms stay, folded away, for those who prefer them."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from api.powers.forms import flag, text
from api.powers.mapsvg import TERRAIN_FILL
from api.web.forms import Form
from api.web.kit import flash
from application.service import Caller, Games, Receipt
from domain import limits
from domain.errors import NotFound, RuleViolation
from domain.platform.i18n import N_, _
from domain.powers import hexmap, world
from domain.powers import world_rules as wr
from domain.powers.game import Game
from domain.powers.world_map import ELEMENTS

Posted = dict[str, Any]
SECTION = "map-editor"
TERRAINS = tuple(dict.fromkeys(TERRAIN_FILL))  # the terrains the map draws in colour, offered first
FEATURE_KINDS = tuple(sorted(wr.CATALOGUE))
ROWS = 100  # rows of towns or features one hex's form may post: more than a hex holds
ROW = re.compile(r"^(town|feature)-(\d+)-was$")
FLOOR = re.compile(r"^feature-(\d+)-floor-(\d+)-(?:difficulty|reward)$")
STATUSES = wr.TOWN_STATUSES
MODULES = tuple(wr.MODULES)
STATUS_MAX = 100  # stacks of one status (as the domain checks them)
FLOOR_MAX = 50  # a floor's difficulty (as the domain checks it)
STATUS_WORDS = {
    "depopulated": N_("Depopulated"),
    "booming": N_("Booming"),
    "sickened": N_("Sickened"),
    "growing": N_("Growing"),
    "taxed": N_("Taxed"),
    "uprising": N_("Uprising"),
}
MODULE_WORDS = {
    "barracks": N_("Barracks"),
    "apartments": N_("Apartments"),
    "mana_gardens": N_("Mana gardens"),
    "tower": N_("Tower"),
    "spell_laboratory": N_("Spell laboratory"),
    "alchemical_laboratory": N_("Alchemical laboratory"),
    "labyrinth": N_("Labyrinth"),
}


def declared(games: Games, game_id: str) -> dict[str, list[dict[str, Any]]]:
    """The map as the GM declared it (for the GM's pages and forms alone)."""
    game = games.get_game(game_id, for_update=False)
    if not isinstance(game, Game):  # the forms of Powers' pages, posted to another ruleset's game
        raise NotFound("this game has no map of Powers", field="hex")
    return world.declared_map(game)


def _number(f: Posted, key: str, field: str, default: int) -> int:
    raw = text(f, key).strip()
    if not raw:
        return default
    try:
        return int(raw)
    except ValueError:
        raise RuleViolation(_("give a whole number"), field=field) from None


def _terrain(f: Posted) -> str:
    return text(f, "terrain_other").strip() or text(f, "terrain").strip() or "plains"


def _hex(f: Posted, hid: str) -> dict[str, Any]:
    return {
        "hex": hid,
        "terrain": _terrain(f),
        "road": flag(f, "road"),
        "name": text(f, "name").strip(),
        "element": text(f, "element") or None,
    }


def _rows(f: Posted, kind: str) -> list[str]:
    """The row numbers of the towns or features a posted form holds, in order."""
    found = sorted(int(m.group(2)) for k in f if (m := ROW.match(k)) and m.group(1) == kind)
    return [str(i) for i in found[:ROWS]]


def _towns(f: Posted, hid: str, old: dict[str, dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    out, removed = [], []
    for i in _rows(f, "town"):
        was = text(f, f"town-{i}-was")
        typed = {k: text(f, f"town-{i}-{k}").strip() for k in ("id", "name", "population", "wealth")}
        tid = was or typed["id"]
        if was and flag(f, f"town-{i}-remove"):
            removed.append(was)
            continue
        if not tid:
            if any(typed.values()):
                raise RuleViolation(_("a new town needs an id"), rule="P-ACT-4", field="towns[new].id")
            continue
        limits.check_text(tid, f"towns[{'new' if not was else tid}].id", limits.IDENTIFIER, what="a town's id")
        at = f"towns[{tid}]"
        before = old.get(tid, {})
        town = {
            **before,
            "id": tid,
            "hex": hid,
            "name": typed["name"] or tid,
            "population": _number(f, f"town-{i}-population", f"{at}.population", before.get("population", 1)),
            "wealth": _number(f, f"town-{i}-wealth", f"{at}.wealth", before.get("wealth", 0)),
            "statuses": _statuses(f, f"town-{i}", at, before.get("statuses") or {}),
        }
        if town != before:
            out.append(town)
    return out, removed


def _bounded(f: Posted, key: str, field: str, high: int) -> int | None:
    """A whole number from 0 to ``high`` typed at ``key`` (None if left empty), or a refusal naming ``field``."""
    raw = text(f, key).strip()
    if not raw:
        return None
    try:
        value = int(raw)
    except ValueError:
        raise RuleViolation(_("give a whole number"), field=field) from None
    if not 0 <= value <= high:
        raise RuleViolation(_("give a whole number from 0 to {high}").format(high=high), field=field)
    return value


def _statuses(f: Posted, row: str, at: str, before: dict[str, int]) -> dict[str, int]:
    """A town's statuses as its row's inputs set them (P-TOWN-4): an empty input is none; a form that shows no
    statuses (no ``<row>-statuses`` mark) keeps the town's."""
    if not text(f, f"{row}-statuses"):
        return dict(before)
    out = {}
    for name in STATUSES:
        stacks = _bounded(f, f"{row}-status-{name}", f"{at}.statuses.{name}", STATUS_MAX)
        if stacks:
            out[name] = stacks
    return out


def _modules(f: Posted, row: str, at: str, kind: str, before: list[str]) -> list[str]:
    """A stronghold's modules as its row's checkboxes set them (P-FEAT-3): those it had and kept, in the order they
    were built, then those added; a form that shows no modules (no ``<row>-modules`` mark) keeps the feature's."""
    if not text(f, f"{row}-modules"):
        return list(before)
    ticked = [m for m in MODULES if flag(f, f"{row}-module-{m}")]
    if ticked and kind != "stronghold":
        raise RuleViolation(_("only a stronghold has modules"), rule="P-FEAT-3", field=f"{at}.modules")
    return [m for m in before if m in ticked] + [m for m in ticked if m not in before]


def _floors(f: Posted, row: str, at: str, kind: str, before: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A dungeon's floors as its row's inputs set them (P-FEAT-4), in order: a floor whose difficulty and reward
    are both empty, or marked to remove, is dropped; a reward without a difficulty is refused naming it. A form
    that shows no floors (no ``<row>-floors`` mark) keeps the feature's."""
    if not text(f, f"{row}-floors"):
        return [dict(x) for x in before]
    index = row.split("-")[1]
    found = sorted({int(m.group(2)) for k in f if (m := FLOOR.match(k)) and m.group(1) == index})[:ROWS]
    out: list[dict[str, Any]] = []
    for j in found:
        key = f"{row}-floor-{j}"
        field = f"{at}.floors[{j + 1}]"
        reward = text(f, f"{key}-reward").strip()
        difficulty = _bounded(f, f"{key}-difficulty", f"{field}.difficulty", FLOOR_MAX)
        if flag(f, f"{key}-remove") or (difficulty is None and not reward):
            continue
        if difficulty is None:
            raise RuleViolation(_("a floor needs a difficulty"), rule="P-FEAT-4", field=f"{field}.difficulty")
        limits.check_text(reward, f"{field}.reward", limits.GRANT_TEXT, what="a reward")
        out.append({"difficulty": difficulty, "reward": reward})
    if out and kind != "dungeon":
        raise RuleViolation(_("only a dungeon has floors"), rule="P-FEAT-4", field=f"{at}.floors[1].difficulty")
    return out


def _features(f: Posted, hid: str, old: dict[str, dict[str, Any]]) -> tuple[list[dict[str, Any]], list[str]]:
    out, removed = [], []
    for i in _rows(f, "feature"):
        was = text(f, f"feature-{i}-was")
        fid = was or text(f, f"feature-{i}-id").strip()
        if was and flag(f, f"feature-{i}-remove"):
            removed.append(was)
            continue
        if not fid:
            if text(f, f"feature-{i}-name").strip():
                raise RuleViolation(_("a new feature needs an id"), rule="P-FEAT-1", field="features[new].id")
            continue
        limits.check_text(fid, f"features[{'new' if not was else fid}].id", limits.IDENTIFIER, what="a feature's id")
        before = old.get(fid, {})
        kind = text(f, f"feature-{i}-kind") or before.get("kind", "")
        at = f"features[{fid}]"
        feature = {
            **before,
            "id": fid,
            "kind": kind,
            "name": text(f, f"feature-{i}-name").strip() or kind,
            "hex": hid,
            "town": text(f, f"feature-{i}-town") or None,
            "controller": text(f, f"feature-{i}-controller") or None,
            "public": flag(f, f"feature-{i}-public"),
            "modules": _modules(f, f"feature-{i}", at, kind, before.get("modules") or []),
            "floors": _floors(f, f"feature-{i}", at, kind, before.get("floors") or []),
        }
        if feature != before:
            out.append(feature)
    return out, removed


def _on_map(games: Games, game_id: str, f: Posted) -> tuple[str, dict[str, list[dict[str, Any]]]]:
    """The chosen hex, which must be on the map, and the map as declared."""
    hid = hexmap.normal_hex(text(f, "hex"))
    now = declared(games, game_id)
    if hid not in {h["hex"] for h in now["hexes"]}:
        raise RuleViolation(_("{hex} is not a hex of the map").format(hex=hid), rule="P-ACT-4", field="hex")
    return hid, now


def edit_hex(games: Games, game_id: str, caller: Caller, f: Posted) -> Receipt:
    """A hex's terrain, name, road and element, its towns and its features as the form sets them: one amendment."""
    hid, now = _on_map(games, game_id, f)
    towns, gone_towns = _towns(f, hid, {t["id"]: t for t in now["towns"]})
    features, gone_features = _features(f, hid, {x["id"]: x for x in now["features"]})
    command = world.AmendMap(hexes=[_hex(f, hid)], towns=towns, features=features, remove=gone_towns + gone_features)
    return games.run(caller, game_id, command)


def add_hex(games: Games, game_id: str, caller: Caller, f: Posted) -> Receipt:
    """A new hex at the column and row given (one already on the map is edited, not added)."""
    q = _number(f, "q", "q", 0) if text(f, "q").strip() else None
    r = _number(f, "r", "r", 0) if text(f, "r").strip() else None
    if q is None or r is None:
        raise RuleViolation(_("give the new hex's column and row"), rule="P-ACT-4", field="q" if q is None else "r")
    hid = f"{q},{r}"
    if hid in {h["hex"] for h in declared(games, game_id)["hexes"]}:
        raise RuleViolation(
            _("{hex} is on the map already: choose it on the map to edit it").format(hex=hid), rule="P-ACT-4", field="q"
        )
    return games.run(caller, game_id, world.AmendMap(hexes=[_hex(f, hid)]))


def remove_hex(games: Games, game_id: str, caller: Caller, f: Posted) -> Receipt:
    """A hex taken off the map with the towns and features on it."""
    hid, now = _on_map(games, game_id, f)
    towns = [t["id"] for t in now["towns"] if t["hex"] == hid]
    features = [x["id"] for x in now["features"] if x["hex"] == hid or x["town"] in towns]
    return games.run(caller, game_id, world.AmendMap(remove=[hid, *towns, *features]))


def _back_to(hex_of: Any) -> Any:
    """Once the form worked: the console again, with the hex it changed chosen (so its editor shows it)."""

    def after(request: Request, game_id: str, f: Posted, result: Any) -> Response:
        flash(request, kind="ok", form=SECTION, text=_("Map amended."))
        hid = hex_of(f)
        where = f"?hex={quote(hid)}" if hid else ""
        return RedirectResponse(f"/play/{game_id}{where}#{SECTION}", status_code=303)

    return after


def _added(f: Posted) -> str:
    return f"{text(f, 'q').strip()},{text(f, 'r').strip()}"


MAP_FORMS = (
    Form(
        "edit-hex",
        SECTION,
        N_("Map amended."),
        run=edit_hex,
        gm=True,
        keep=True,
        after=_back_to(lambda f: text(f, "hex")),
    ),
    Form("add-hex", SECTION, N_("Map amended."), run=add_hex, gm=True, keep=True, after=_back_to(_added)),
    Form("remove-hex", SECTION, N_("Map amended."), run=remove_hex, gm=True, after=_back_to(lambda f: "")),
)


# ---------------------------------------------------------------------- what the editor shows


def _kept(message: dict | None, form: str) -> dict[str, Any] | None:
    """What was typed into the editor's ``form`` when it was refused, else nothing."""
    if message and message.get("kind") == "error" and message.get("form") == SECTION:
        values = message.get("values") or {}
        if values.get("editor") == form:
            return {k: v for k, v in values.items() if isinstance(v, str)}
    return None


def editor(games: Games, game_id: str, pick: dict[str, Any] | None, message: dict | None) -> dict[str, Any]:
    """What the editor's forms show: the chosen hex (or the one a refused form was about) with its towns and
    features as rows of inputs, from what was typed if it was refused, else from the map as declared; and the
    add form's values."""
    kept = _kept(message, "edit")
    hid = (kept or {}).get("hex") or (pick["hex"] if pick else None)
    out: dict[str, Any] = {
        "hex": None,
        "add": _kept(message, "add") or {},
        "terrains": TERRAINS,
        "kinds": FEATURE_KINDS,
    }
    out["elements"] = ELEMENTS
    if not hid:
        return out
    now = declared(games, game_id)
    here = next((h for h in now["hexes"] if h["hex"] == hid), None)
    if here is None:
        return out
    towns = [t for t in now["towns"] if t["hex"] == hid]
    town_ids = [t["id"] for t in towns]
    features = [x for x in now["features"] if x["hex"] == hid or x["town"] in town_ids]
    if kept is not None:
        values = kept
        town_rows = [_kept_town(kept, i) for i in _rows(kept, "town")]
        feature_rows = [_kept_feature(kept, i) for i in _rows(kept, "feature")]
    else:
        terrain = here["terrain"]
        values = {
            "terrain": terrain if terrain in TERRAINS else "",
            "terrain_other": "" if terrain in TERRAINS else terrain,
            "name": here["name"],
            "road": "on" if here["road"] else "",
            "element": here["element"] or "",
        }
        town_rows = [
            {
                "was": t["id"],
                "id": "",
                "name": t["name"],
                "population": str(t["population"]),
                "wealth": str(t["wealth"]),
                "statuses": {k: str(v) for k, v in (t.get("statuses") or {}).items() if v},
            }
            for t in towns
        ] + [{"was": "", "id": "", "name": "", "population": "", "wealth": "", "statuses": {}}]
        feature_rows = [
            {
                "was": x["id"],
                "id": "",
                "kind": x["kind"],
                "name": x["name"],
                "town": x["town"] or "",
                "controller": x["controller"] or "",
                "public": "on" if x["public"] else "",
                "modules": list(x.get("modules") or []) if x["kind"] == "stronghold" else None,
                "floors": (
                    [{"difficulty": str(fl["difficulty"]), "reward": fl.get("reward") or ""} for fl in x["floors"]]
                    + [{"difficulty": "", "reward": ""}]
                    if x["kind"] == "dungeon"
                    else None
                ),
            }
            for x in features
        ] + [{"was": "", "id": "", "kind": "", "name": "", "town": "", "controller": "", "public": ""}]
        feature_rows[-1].update(modules=None, floors=None)  # a new feature's modules or floors: once it is there
    for row in town_rows:
        row["key"] = f"towns[{row['was'] or row['id'] or 'new'}]"
    for row in feature_rows:
        row["key"] = f"features[{row['was'] or row['id'] or 'new'}]"
    placed = [f"hexes[{hid}].{k}" for k in ("terrain", "name", "element")]
    placed += [f"{r['key']}.{k}" for r in town_rows for k in ("id", "name", "population", "wealth")]
    placed += [f"{r['key']}.statuses.{k}" for r in town_rows for k in STATUSES]
    placed += [f"{r['key']}.{k}" for r in feature_rows for k in ("id", "kind", "name", "town", "controller")]
    placed += [f"{r['key']}.modules" for r in feature_rows if r.get("modules") is not None]
    placed += [
        f"{r['key']}.floors[{j}].{k}"
        for r in feature_rows
        for j in range(1, len(r.get("floors") or []) + 1)
        for k in ("difficulty", "reward")
    ]
    out.update(hex=hid, fields=values, towns=town_rows, features=feature_rows, town_ids=town_ids, placed=placed)
    out.update(statuses=STATUSES, modules=MODULES, status_words=STATUS_WORDS, module_words=MODULE_WORDS)
    return out


def _kept_town(kept: dict[str, str], i: str) -> dict[str, Any]:
    """A town's row as a refused form typed it."""
    row: dict[str, Any] = {k: kept.get(f"town-{i}-{k}", "") for k in ("was", "id", "name", "population", "wealth")}
    row["remove"] = kept.get(f"town-{i}-remove", "")
    row["statuses"] = {k: kept.get(f"town-{i}-status-{k}", "") for k in STATUSES}
    return row


def _kept_feature(kept: dict[str, str], i: str) -> dict[str, Any]:
    """A feature's row as a refused form typed it: its modules and floors if the form showed them."""
    keys = ("was", "id", "kind", "name", "town", "controller", "public", "remove")
    row: dict[str, Any] = {k: kept.get(f"feature-{i}-{k}", "") for k in keys}
    row["modules"] = (
        [m for m in MODULES if kept.get(f"feature-{i}-module-{m}") == "on"]
        if kept.get(f"feature-{i}-modules")
        else None
    )
    if kept.get(f"feature-{i}-floors"):
        found = sorted({int(m.group(2)) for k in kept if (m := FLOOR.match(k)) and m.group(1) == i})[:ROWS]
        row["floors"] = [
            {k: kept.get(f"feature-{i}-floor-{j}-{k}", "") for k in ("difficulty", "reward", "remove")} for j in found
        ]
    else:
        row["floors"] = None
    return row
