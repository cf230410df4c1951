"""The map (P-ACT-4, P.4): the GM declares it as data (``declare_map``) and amends it (``amend_map``); the table
hears what it may see of each change, each power the hidden features it may see; a power learns of a hidden
feature (``reveal_feature``) and keeps knowing it. An action is located on the map, its assets within reach.
"""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from typing import TYPE_CHECKING, Any, TypedDict, TypeVar

from domain import limits
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM
from domain.powers import hexmap
from domain.powers import world_rules as wr
from domain.powers import world_view as view
from domain.powers.world_base import WorldEvent, feature, hex_of, record, runes_of, whole
from domain.powers.world_state import Claim, Feature, Floor, Hex, Town

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, GameState
    from domain.powers.world_state import WorldState

T = TypeVar("T")
MAP_ITEMS = 5000  # hexes, towns or features in one declaration: a campaign map, not an unbounded list
# The rules name no element per terrain ("a mana of the terrain element", [003:1129]): the GM declares it per hex.
ELEMENTS = ("A", "F", "E", "W")


class MapChange(TypedDict):
    """The hexes, towns and features a declaration or an amendment gives, checked, each by id."""

    hexes: dict[str, Hex]
    towns: dict[str, Town]
    features: dict[str, Feature]


def declare_map(game: Game, hexes: list[Any], towns: list[Any], features: list[Any]) -> None:
    """The GM declares the whole map as data, replacing any earlier one (P-ACT-4)."""
    data = check_map(game, hexes, towns, features, base=None)
    record(game, MapDeclared, **data, actor=GM, audience=[vis.GM_ONLY])
    publish_map(game, data, removed=[], whole=True)


def amend_map(game: Game, hexes: list[Any], towns: list[Any], features: list[Any], remove: list[Any]) -> None:
    """The GM adds or replaces hexes, towns and features, or removes them by id (P-ACT-4)."""
    w = game.state.world
    removed = [str(x) for x in remove]
    if len(removed) > MAP_ITEMS:
        raise RuleViolation(f"remove at most {MAP_ITEMS} items at once", field="remove")
    for x in removed:
        if x not in w.features and x not in w.towns and x not in w.hexes:
            raise NotFound(f"no hex, town or feature {x!r} on the map", field="remove")
    data = check_map(game, hexes, towns, features, base=w, removed=removed)
    # The table hears of removed hexes, towns and public features only: a hidden feature's id is its own.
    seen = [x for x in removed if x in w.hexes or x in w.towns or (x in w.features and w.features[x]["public"])]
    record(game, MapAmended, **data, removed=removed, actor=GM, audience=[vis.GM_ONLY])
    publish_map(game, data, removed=seen, whole=False)


def check_map(
    game: Game,
    hexes: list[Any],
    towns: list[Any],
    features: list[Any],
    base: WorldState | None,
    removed: list[str] | None = None,
) -> MapChange:
    """The map's hexes, towns and features as given, checked (P-ACT-4), each by id."""
    for name, items in (("hexes", hexes), ("towns", towns), ("features", features)):
        if not isinstance(items, list) or len(items) > MAP_ITEMS:
            raise RuleViolation(f"{name} is a list of at most {MAP_ITEMS} items", rule="P-ACT-4", field=name)
    gone = set(removed or [])
    out_hexes = dict(_check_hex(h) for h in hexes)
    known_hexes = {h for h in (base.hexes if base else {}) if h not in gone} | set(out_hexes)
    out_towns: dict[str, Town] = {}
    for t in towns:
        out_towns.update(_check_town(game, t, known_hexes, base))
    known_towns = {t for t in (base.towns if base else {}) if t not in gone} | set(out_towns)
    out_features: dict[str, Feature] = {}
    for f in features:
        out_features.update(_check_feature(game, f, known_hexes, known_towns, out_towns, base))
    if base is not None:
        _check_nothing_stranded(base, gone, known_hexes, known_towns, out_towns, out_features)
    return {"hexes": out_hexes, "towns": out_towns, "features": out_features}


def _check_nothing_stranded(
    base: WorldState,
    gone: set[str],
    known_hexes: set[str],
    known_towns: set[str],
    out_towns: dict[str, Town],
    out_features: dict[str, Feature],
) -> None:
    """A town or feature may not sit on a hex this change removes."""
    for tid, t in base.towns.items():
        if tid not in gone and tid not in out_towns and t["hex"] not in known_hexes:
            raise RuleViolation(f"town {tid!r} stands on {t['hex']}, which is removed", rule="P-ACT-4")
    for fid, f in base.features.items():
        if fid in gone or fid in out_features:
            continue
        if f["hex"] not in known_hexes or (f["town"] is not None and f["town"] not in known_towns):
            raise RuleViolation(
                f"feature {fid!r} stands on {f['town'] or f['hex']}, which is removed: remove it too",
                rule="P-ACT-4",
                field="remove",
            )


def _check_hex(h: Any) -> tuple[str, Hex]:
    if not isinstance(h, dict):
        raise RuleViolation("each hex is an object with a hex id 'q,r'", rule="P-ACT-4", field="hexes")
    hid = hex_of(h.get("hex"))
    at = f"hexes[{hid}]"  # a refusal names the hex's own field (issue 28: the map editor shows it there)
    terrain = limits.check_text(h.get("terrain", "plains"), f"{at}.terrain", limits.IDENTIFIER, what="a terrain")
    name = limits.check_text(h.get("name", ""), f"{at}.name", limits.POWER_NAME, what="a hex's name")
    element = h.get("element")
    if element is not None and element not in ELEMENTS:
        raise RuleViolation(
            f"a hex's mana element is one of {', '.join(ELEMENTS)}", rule="P-INFL-6", field=f"{at}.element"
        )
    return hid, {
        "terrain": terrain.strip().lower(),
        "road": bool(h.get("road", False)),
        "name": name,
        "element": element,
    }


def _check_town(game: Game, t: Any, known_hexes: set[str], base: WorldState | None) -> dict[str, Town]:
    if not isinstance(t, dict):
        raise RuleViolation("each town is an object with an id and a hex", rule="P-ACT-4", field="towns")
    tid = limits.check_text(t.get("id"), "towns", limits.IDENTIFIER, required=True, what="a town's id")
    at = f"towns[{tid}]"
    hid = hex_of(t.get("hex"))
    if hid not in known_hexes:
        raise RuleViolation(f"town {tid!r} is on {hid}, which is not on the map", rule="P-ACT-4", field=f"{at}.hex")
    statuses = t.get("statuses") or {}
    if not isinstance(statuses, dict):
        raise RuleViolation("a town's statuses are {name: stacks}", rule="P-TOWN-4", field=f"{at}.statuses")
    for k, v in statuses.items():
        if k not in wr.TOWN_STATUSES:
            raise RuleViolation(
                f"a town's status is one of {', '.join(wr.TOWN_STATUSES)}; {k!r} is not",
                rule="P-TOWN-4",
                field=f"{at}.statuses",
            )
        whole(v, f"{at}.statuses.{k}", 0, 100)  # the status's own field (the map editor shows it there)
    old: Town | None = base.towns.get(tid) if base else None
    claims = deepcopy(old["claims"]) if old else {}
    given = t.get("claims")
    if given is not None:
        if not isinstance(given, dict):
            raise RuleViolation("a town's claims are {power type: power id}", rule="P-TOWN-1", field="claims")
        seq = game.state.world.claim_seq
        kept: dict[str, Claim] = {}
        for cls, pid in given.items():
            if game.power(pid).cls != cls:
                raise RuleViolation(f"{pid} is not a {cls}: it cannot hold the {cls} claim", rule="P-TOWN-1")
            wr.check_claim(kept, cls, pid)
            prior = claims.get(cls)
            if prior and prior["power"] == pid:
                kept[cls] = prior
            else:
                seq += 1
                kept[cls] = {"power": pid, "since": seq}
        claims = kept
    return {
        tid: {
            "name": limits.check_text(t.get("name", tid), f"{at}.name", limits.POWER_NAME, what="a town's name"),
            "hex": hid,
            "population": whole(t.get("population", 1), f"{at}.population", 0, 1000),
            "wealth": whole(t.get("wealth", 0), f"{at}.wealth", 0, 1000),
            "statuses": {k: v for k, v in statuses.items() if v},
            "claims": claims,
            "feeds": old["feeds"] if old else 0,
            "stop_order": [str(x) for x in t.get("stop_order", old["stop_order"] if old else [])],
        }
    }


def _check_feature_lists(f: dict[str, Any], kind: str) -> None:
    for key in ("upgrades", "modules", "floors", "known_to"):
        if not isinstance(f.get(key, []), list) or len(f.get(key, [])) > limits.ITEMS:
            raise RuleViolation(f"a feature's {key} is a list", rule="P-FEAT-1", field=key)
    if any(not isinstance(fl, dict) for fl in f.get("floors", [])):
        raise RuleViolation("each floor is an object with a difficulty", rule="P-FEAT-4", field="floors")
    if f.get("becomes") is not None and not isinstance(f["becomes"], dict):
        raise RuleViolation("what a ruin becomes is a feature: {kind, modules}", rule="P-FEAT-4")
    if kind == "herd" and f.get("mount") not in (None, *wr.HERD_MOUNTS):
        raise RuleViolation(f"a herd's mounts are one of {', '.join(wr.HERD_MOUNTS)}", rule="P-FEAT-1")
    if f.get("asset_id") is not None:
        limits.check_text(f["asset_id"], "asset_id", limits.IDENTIFIER, what="an asset id")


def _named(at: str, key: str, check: Callable[[], T]) -> T:
    """What ``check`` gives, or its refusal naming the item's own field (``features[tomb].kind``)."""
    try:
        return check()
    except (RuleViolation, NotFound) as err:
        raise type(err)(err.message, rule=err.rule, field=f"{at}.{key}") from None


def _check_floors(at: str, given: list[Any]) -> list[Floor]:
    """A dungeon's floors (P-FEAT-4), each refusal naming the floor's own field, numbered from 1 as the map editor
    shows them (``features[tomb].floors[2].difficulty``)."""
    floors: list[Floor] = []
    for n, fl in enumerate(given, start=1):
        on = f"{at}.floors[{n}]"
        floors.append(
            {
                "difficulty": whole(fl.get("difficulty"), f"{on}.difficulty", 0, 50),
                "reward": limits.check_text(fl.get("reward", ""), f"{on}.reward", limits.GRANT_TEXT, what="a reward"),
            }
        )
    return floors


def _check_feature(
    game: Game,
    f: Any,
    known_hexes: set[str],
    known_towns: set[str],
    new_towns: dict[str, Town],
    base: WorldState | None,
) -> dict[str, Feature]:
    if not isinstance(f, dict):
        raise RuleViolation("each feature is an object with an id, a kind and a hex", rule="P-FEAT-1")
    fid = limits.check_text(f.get("id"), "features", limits.IDENTIFIER, required=True, what="a feature's id")
    at = f"features[{fid}]"
    kind = str(f.get("kind"))
    ft = _named(at, "kind", lambda: wr.feature_type(kind))
    town = f.get("town")
    if town is not None:
        if town not in known_towns:
            raise RuleViolation(f"feature {fid!r} names no town {town!r}", rule="P-ACT-4", field=f"{at}.town")
        found: Town | None = new_towns.get(town) or (base.towns.get(town) if base else None)
        hid = found["hex"] if found else ""
    else:
        hid = hex_of(f.get("hex"))
    if hid not in known_hexes:
        raise RuleViolation(f"feature {fid!r} is on {hid}, which is not on the map", rule="P-ACT-4", field=f"{at}.hex")
    _check_feature_lists(f, kind)
    upgrades = [str(u) for u in f.get("upgrades", [])]
    wr.check_upgrades(kind, upgrades)
    modules = [str(m) for m in f.get("modules", [])]
    for m in modules:
        if kind != "stronghold" or m not in wr.MODULES:
            raise RuleViolation(
                f"modules belong to strongholds, and are one of {', '.join(wr.MODULES)}",
                rule="P-FEAT-3",
                field=f"{at}.modules",
            )
    controller = f.get("controller")
    if controller is not None:
        _named(at, "controller", lambda: game.power(controller))
    floors = _check_floors(at, f.get("floors", []) if kind == "dungeon" else [])
    known_to = sorted({str(p) for p in f.get("known_to", [])})
    for p in known_to:
        game.power(p)
    old: Feature | None = base.features.get(fid) if base else None
    becomes = f.get("becomes")
    if becomes is not None:
        wr.feature_type(str(becomes.get("kind")))
    return {
        fid: {
            "kind": kind,
            "name": limits.check_text(f.get("name", kind), f"{at}.name", limits.ASSET_NAME, what="a feature's name"),
            "hex": hid,
            "town": town,
            "controller": controller,
            # Built features of towns are public; the GM decides for the others (P.4, [003:328]).
            "public": bool(f.get("public", ft.built)),
            "upgrades": upgrades,
            "modules": modules,
            "mount": f.get("mount") if kind == "herd" else None,
            "stored": whole(f.get("stored", 0), "stored"),
            "floors": floors,
            "threat": whole(f.get("threat", 0), "threat", 0, 1000),
            "difficulty": whole(f.get("difficulty", 0), "difficulty", 0, 50),
            "reward": limits.check_text(f.get("reward", ""), "reward", limits.GRANT_TEXT, what="a reward"),
            "becomes": deepcopy(becomes),
            "known_to": known_to,
            "cleared": deepcopy(old["cleared"]) if old else {},
            "asset_id": f.get("asset_id"),
            "protection": limits.check_text(
                f.get("protection", ""), "protection", limits.GRANT_TEXT, what="a protection"
            ),
            "inoperable": bool(f.get("inoperable", False)),
            "maintenance_due": old["maintenance_due"] if old else None,
        }
    }


# What a feature's declaration gives (``_check_feature``); the rest (a dungeon's clearings, a stronghold's
# maintenance due) is the game's and an amendment keeps it.
DECLARED_FEATURE = (
    "kind", "name", "hex", "town", "controller", "public", "upgrades", "modules", "mount", "stored", "floors",
    "threat", "difficulty", "reward", "becomes", "known_to", "asset_id", "protection", "inoperable",
)  # fmt: skip


def declared_map(state: GameState) -> dict[str, list[dict[str, Any]]]:
    """The map as the GM would declare it (``DeclareMap``'s fields), which declared again gives the same map: what
    the GM's map editor starts from and amends (issue 28). A town's claims and stop order are left out: an
    amendment that names no claims keeps them."""
    w = state.world
    return {
        "hexes": [{"hex": h, **deepcopy(x)} for h, x in sorted(w.hexes.items())],
        "towns": [
            {
                k: deepcopy(v)
                for k, v in {"id": tid, **t}.items()
                if k in ("id", "name", "hex", "population", "wealth", "statuses")
            }
            for tid, t in sorted(w.towns.items())
        ],
        "features": [
            {"id": fid, **{k: deepcopy(f.get(k)) for k in DECLARED_FEATURE}} for fid, f in sorted(w.features.items())
        ],
    }


def publish_map(game: Game, data: MapChange, removed: list[str], whole: bool) -> None:
    """Tell the table what it may see of what changed on the map (all of it when it is declared), and each
    power the hidden features it may see."""
    s = game.state
    public = view.map_view(s, vis.PUBLIC, runes_of(game))
    changed = {key: set(data[key]) for key in ("hexes", "towns", "features")}
    changed["towns"] |= {f["town"] for f in data["features"].values() if f["town"]}
    if not whole:
        public["hexes"] = [h for h in public["hexes"] if h["hex"] in changed["hexes"]]
        public["towns"] = [t for t in public["towns"] if t["id"] in changed["towns"]]
        public["features"] = [f for f in public["features"] if f["id"] in changed["features"]]
    record(game, MapPublished, map=public, removed=removed, whole=whole, actor=GM, audience=[vis.PUBLIC])
    w = s.world
    for pid in sorted(s.powers):
        mine = {
            fid: view.feature_view(s, fid, pid)
            for fid in sorted(changed["features"])
            if fid in w.features and not w.features[fid]["public"] and view.sees_feature(s, fid, pid)
        }
        if mine:
            record(game, FeaturesShown, power_id=pid, features=mine, actor=GM, audience=vis.powers([pid]))


def reveal_feature(game: Game, feature_id: str, to: str) -> None:
    """The GM shows a power a hidden feature it has found (Seeking, a ruling): it stays known (P.4)."""
    s = game.state
    f = feature(s, feature_id)
    game.power(to)
    if to in f["known_to"] or f["controller"] == to or f["public"]:
        raise RuleViolation(f"{s.powers[to].name} already knows {f['name']!r}", rule="P-FEAT-4")
    record(
        game,
        FeatureLearned,
        power_id=to,
        feature_id=feature_id,
        feature=view.feature_view(s, feature_id, to),
        actor=GM,
        audience=vis.powers([to]),
    )


def known_features(state: GameState) -> dict[str, list[str]]:
    """Who learned each hidden feature: what a rollback carries over, as what was seen cannot be unseen."""
    return {fid: list(f["known_to"]) for fid, f in sorted(state.world.features.items()) if f["known_to"]}


def keep_known_features(state: GameState, known: dict[str, list[str]]) -> None:
    """Fold what a rollback carried over (``known_features``) into the restored world: state only."""
    for fid, powers in known.items():
        f = state.world.features.get(fid)
        if f is not None:
            f["known_to"] = sorted({*f["known_to"], *(p for p in powers if p in state.powers)})


# ---------------------------------------------------------------------- where actions are (P-ACT-4)


def check_location(state: GameState, power_id: str, location: str | None, assets: list[dict[str, Any]]) -> bool:
    """P-ACT-4: an action is located on a hex of the map, and each of its assets with a place on the map
    (a feature's industry) is within its mobility of that hex. Returns whether the hex holds a dungeon the
    power knows, where Delve joins another skill (P-ASSET-4). Without a declared map, nothing to check."""
    w = state.world
    if not w.hexes or location is None:
        return False
    try:
        hid = hexmap.hex_id(*hexmap.parse_hex(location))
    except RuleViolation as err:
        raise RuleViolation(err.message, rule="P-ACT-4", field="location") from None
    if hid not in w.hexes:
        raise RuleViolation(
            f"an action is located on a hex of the map; {location!r} is not on it", rule="P-ACT-4", field="location"
        )
    check_reach(state, hid, assets)
    return any(
        f["kind"] == "dungeon" and f["hex"] == hid and view.sees_feature(state, fid, power_id)
        for fid, f in w.features.items()
    )


def is_public(state: GameState, a: ActionState) -> bool:
    """Whether an action is shown to the table: a public action, unless it is taken inside its owner's
    stronghold, where "any actions taken here become Private" (P-FEAT-3, P-AMB-32: whichever slot it used)."""
    if a.slot != "public":
        return False
    if a.location is None or not state.world.hexes:
        return True
    try:
        here = hex_of(a.location)
    except RuleViolation:
        return True
    return not any(
        f["kind"] == "stronghold" and f["hex"] == here and f["controller"] == a.power and not f["inoperable"]
        for f in state.world.features.values()
    )


def check_operating(state: GameState, assets: list[dict[str, Any]]) -> None:
    """An industry that has ceased to operate lends its asset to no pool: an action's, a collaborator's, a
    reaction's (P-TOWN-3; ``Game._pick_pool`` asks it of every pool)."""
    placed = view.asset_features(state)
    for pick in assets:
        f = placed.get(str(pick["asset_id"])) if pick.get("asset_id") else None
        if f is not None and f["town"] and view.is_stopped(state, f["town"], f):
            raise RuleViolation(
                f"{f['name']!r} has ceased to operate: its town is too small for it",
                rule="P-TOWN-3",
                field="assets",
            )


def check_reach(state: GameState, location: str | None, assets: list[dict[str, Any]]) -> None:
    """Every asset must be within its mobility of the action's location (P-ACT-4)."""
    w = state.world
    if not w.hexes or location is None:
        return
    placed = view.asset_features(state)
    for pick in assets:
        f = placed.get(str(pick["asset_id"])) if pick.get("asset_id") else None
        if f is None:
            continue
        reach = wr.mobility(f["kind"], f["upgrades"])
        if not hexmap.within(f["hex"], location, reach):
            raise RuleViolation(
                f"{f['name']!r} has mobility {reach} and is {hexmap.distance(f['hex'], location)} hexes from "
                f"{location}",
                rule="P-ACT-4",
                field="assets",
            )


# ---------------------------------------------------------------------- events


class MapDeclared(WorldEvent):
    hexes: dict[str, Hex]
    towns: dict[str, Town]
    features: dict[str, Feature]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        w = s.world
        w.hexes, w.towns, w.features = deepcopy(self.hexes), deepcopy(self.towns), deepcopy(self.features)
        w.claim_seq = max([c["since"] for t in self.towns.values() for c in t["claims"].values()] + [w.claim_seq])


class MapAmended(WorldEvent):
    hexes: dict[str, Hex]
    towns: dict[str, Town]
    features: dict[str, Feature]
    removed: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        w = s.world
        for x in self.removed:
            w.hexes.pop(x, None)
            w.towns.pop(x, None)
            w.features.pop(x, None)
        w.hexes.update(deepcopy(self.hexes))
        w.towns.update(deepcopy(self.towns))
        w.features.update(deepcopy(self.features))
        w.claim_seq = max([c["since"] for t in w.towns.values() for c in t["claims"].values()] + [w.claim_seq])


class MapPublished(WorldEvent):
    """The public part of the map, for the table's feed; the state changed in MapDeclared/MapAmended."""

    map: dict[str, Any]
    removed: list[str]
    whole: bool
    actor: str
    audience: list[str]


class FeaturesShown(WorldEvent):
    power_id: str
    features: dict[str, dict[str, Any]]
    actor: str
    audience: list[str]


class FeatureLearned(WorldEvent):
    power_id: str
    feature_id: str
    feature: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        f = s.world.features[self.feature_id]
        f["known_to"] = sorted({*f["known_to"], self.power_id})
