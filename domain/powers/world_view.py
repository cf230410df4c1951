"""Who sees what of the world (P.4), and what the map's facts make of its towns: pure functions of the state.

Terrain, roads and towns are public, with their statuses, built features and which industries work; a
conspiracy's claim is shown only to the town's claimants and the conspiracies with influence there; hidden
features only to their controller and those who learned of them; what is inside a stronghold stays with its
owner; a conspiracy's influence to the conspiracies with influence in the same hex, and to Incorruptible.
"""

from __future__ import annotations

from collections.abc import Callable
from copy import deepcopy
from typing import TYPE_CHECKING, Any

from domain import visibility as vis
from domain.ids import GM
from domain.powers import world_rules as wr

if TYPE_CHECKING:
    from domain.powers.state import GameState, PowerState
    from domain.powers.world_state import Feature, Town

# A power's hidden runes by hex, as the Circle's magic keeps them (``Game.live_runes``), for the map's viewers.
Runes = Callable[[str], dict[str, int]]


def sees_feature(state: GameState, feature_id: str, viewer: str) -> bool:
    """A feature is seen by the GM, by all when public, by its controller and by those who learned of it."""
    f: Feature = state.world.features[feature_id]
    return viewer == GM or f["public"] or f["controller"] == viewer or viewer in f["known_to"]


def claim_watchers(state: GameState, town_id: str) -> list[str]:
    """Who learns of a conspiracy's claim on a town: its other claimants and the conspiracies with influence
    in it (the Infiltrate announcement, [003:1128])."""
    t: Town = state.world.towns[town_id]
    out = {c["power"] for c in t["claims"].values()}
    out |= {p.id for p in state.powers.values() if p.cls == "conspiracy" and p.influence.get(t["hex"], 0) > 0}
    return sorted(out)


def claim_audience(state: GameState, town_id: str, power_id: str) -> list[str]:
    """Who learns of a claim: everyone, but a conspiracy's claim only reaches the town's other claimants
    and the conspiracies with influence there (P.4, Infiltrate announcement [003:1128])."""
    if state.powers[power_id].cls != "conspiracy":
        return [vis.PUBLIC]
    return vis.powers([power_id, *claim_watchers(state, town_id)])


def influence_watchers(state: GameState, hex_id: str, power_id: str) -> list[str]:
    """Powers that see a conspiracy's influence in a hex: conspiracies with influence there, and
    Incorruptible ([003:1104], [003:761])."""
    return [
        p.id
        for p in state.powers.values()
        if p.id != power_id
        and (p.options.get("incorruptible") or (p.cls == "conspiracy" and p.influence.get(hex_id, 0) > 0))
    ]


def influence_seen(state: GameState, me: PowerState) -> list[dict[str, Any]]:
    """Other powers' influence this viewer may see: a conspiracy's where the viewer, a conspiracy too, has
    influence; everything with Incorruptible (P.4, [003:1104])."""
    seen = []
    for p in sorted(state.powers.values(), key=lambda p: p.id):
        if p.id == me.id:
            continue
        for hex_id, amount in sorted(p.influence.items()):
            mutual = me.cls == "conspiracy" and p.cls == "conspiracy" and me.influence.get(hex_id, 0) > 0
            if mutual or me.options.get("incorruptible"):
                seen.append({"power": p.id, "hex": hex_id, "amount": amount})
    return seen


def stopped_ids(state: GameState, town_id: str) -> list[str]:
    """The town's industries that cease to operate now (P-TOWN-3)."""
    w = state.world
    t: Town = w.towns[town_id]
    industries = [
        {"id": fid, "complexity": wr.complexity(f["kind"], f["upgrades"], f.get("mount"))}
        for fid, f in w.features.items()
        if f["town"] == town_id and wr.feature_type(f["kind"]).industry
    ]
    return wr.stopped_industries(wr.effective_population(t["population"], t["statuses"]), industries, t["stop_order"])


def is_stopped(state: GameState, town_id: str, feature: Feature) -> bool:
    """Whether this feature of the town has ceased to operate (P-TOWN-3)."""
    return any(state.world.features.get(fid) is feature for fid in stopped_ids(state, town_id))


def working_features(state: GameState, town_id: str) -> list[dict[str, Any]]:
    """The town's features, each marked ``stopped`` when it has ceased to operate (for its wealth, P-TOWN-3)."""
    stopped = stopped_ids(state, town_id)
    w = state.world
    return [{**f, "stopped": fid in stopped} for fid, f in w.features.items() if f["town"] == town_id]


def asset_features(state: GameState) -> dict[str, Feature]:
    """The map's features that are assets, by asset id."""
    return {aid: f for f in state.world.features.values() if (aid := f.get("asset_id"))}


def feature_view(state: GameState, feature_id: str, viewer: str) -> dict[str, Any]:
    """A feature as ``viewer`` may see it: its controller and what is inside a stronghold only to its
    controller (and the GM); a dungeon's floors up to the one the viewer reached (P.4, P-FEAT-3, P-FEAT-4)."""
    f: Feature = state.world.features[feature_id]
    mine = viewer == GM or f["controller"] == viewer
    ft = wr.feature_type(f["kind"])
    out: dict[str, Any] = {
        "id": feature_id,
        "kind": f["kind"],
        "name": f["name"],
        "hex": f["hex"],
        "town": f["town"],
        "built": ft.built,
        "upgrades": list(f["upgrades"]),
        "complexity": wr.complexity(f["kind"], f["upgrades"], f.get("mount")),
    }
    if ft.industry:
        out.update(
            {
                "mobility": wr.mobility(f["kind"], f["upgrades"]),
                "rank": wr.asset_rank(f["kind"], f["upgrades"]),
                "critical": wr.is_critical(f["kind"], f["upgrades"]),
                "fee": ft.fee,
                "wealth": wr.wealth(f["kind"], f["upgrades"], f["stored"]),
                "working": not (f["town"] and feature_id in stopped_ids(state, f["town"])),
            }
        )
    goal = wr.wall_goal(f["kind"], f["modules"]) if f["kind"] != "stronghold" or mine else None
    if goal:
        out["goal"] = goal
    if f["kind"] == "dungeon":
        reached = len(f["floors"]) if viewer == GM else min(len(f["floors"]), f["cleared"].get(viewer, 0) + 1)
        out["floors"] = [{"floor": i + 1, **fl} for i, fl in enumerate(f["floors"][:reached])]
        out["cleared"] = dict(f["cleared"]) if viewer == GM else f["cleared"].get(viewer, 0)
    if f["kind"] == "ruin":
        out.update({"threat": f["threat"], "difficulty": f["difficulty"]})
    if mine:
        out["controller"] = f["controller"]
        if f["kind"] == "stronghold":
            out.update(
                {
                    "modules": list(f["modules"]),
                    "protection": f["protection"],
                    "inoperable": f["inoperable"],
                    "maintenance": wr.maintenance(len(f["modules"])),
                    "maintenance_due": f["maintenance_due"],
                    "next_module_complexity": wr.module_complexity(len(f["modules"])),
                }
            )
        if f["kind"] == "bank":
            out["stored"] = f["stored"]
        if f["kind"] == "ruin":
            out["reward"] = f["reward"]
    return out


def _town_view(state: GameState, tid: str, viewer: str) -> dict[str, Any]:
    w = state.world
    t: Town = w.towns[tid]
    watchers = claim_watchers(state, tid)
    claims = {
        cls: c["power"] for cls, c in t["claims"].items() if cls != "conspiracy" or viewer == GM or viewer in watchers
    }
    working = [fid for fid, f in w.features.items() if f["town"] == tid]
    features = [feature_view(state, fid, viewer) for fid in sorted(working) if sees_feature(state, fid, viewer)]
    town: dict[str, Any] = {
        "id": tid,
        "name": t["name"],
        "hex": t["hex"],
        "population": t["population"],
        "effective_population": wr.effective_population(t["population"], t["statuses"]),
        "wealth": wr.town_wealth(
            t["wealth"],
            t["statuses"],
            [{**w.features[f], "stopped": f in stopped_ids(state, tid)} for f in working],
        ),
        "statuses": dict(t["statuses"]),
        "claims": claims,
        "stopped": [fid for fid in stopped_ids(state, tid) if sees_feature(state, fid, viewer)],
        "features": features,
    }
    if viewer == GM or viewer in claims.values():
        senior = wr.senior_claimant({k: v for k, v in t["claims"].items() if k in claims})
        town["senior_claimant"] = senior
    return town


def map_view(state: GameState, viewer: str, runes: Runes | None = None) -> dict[str, Any]:
    """The map as ``viewer`` may see it (P.4): ``"gm"``, a power id, or ``"public"`` (what the whole table
    sees). Terrain, roads and towns are public, with their statuses, built features and which industries
    work; a conspiracy's claim is shown only to the town's claimants and conspiracies with influence there;
    hidden features only to their controller and those who learned of them; influence as ``influence_seen``;
    a Circle's hidden runes (``runes``, by power) to their owner and the GM."""
    w = state.world
    me = state.powers.get(viewer)
    out: dict[str, Any] = {
        "hexes": [{"hex": h, **x} for h, x in sorted(w.hexes.items())],
        "towns": [_town_view(state, tid, viewer) for tid in sorted(w.towns)],
        "features": [
            feature_view(state, fid, viewer)
            for fid, f in sorted(w.features.items())
            if f["town"] is None and sees_feature(state, fid, viewer)
        ],
    }
    if viewer == GM:
        out["influence"] = [
            {"power": p.id, "hex": h, "amount": n}
            for p in sorted(state.powers.values(), key=lambda p: p.id)
            for h, n in sorted(p.influence.items())
        ]
        out["mechanisms"] = deepcopy(w.mechanisms)
    elif me is not None:
        mine = [{"power": me.id, "hex": h, "amount": n} for h, n in sorted(me.influence.items())]
        out["influence"] = mine + influence_seen(state, me)
        out["mechanisms"] = {"available": list(w.mechanisms.get(viewer, [])), "used": list(w.generated.get(viewer, []))}
    # A Circle's runes are hidden ([003:1161] "destroyed for free by other powers when detected"): its own, and
    # every power's for the GM.
    if runes is not None:
        owners = sorted(state.powers) if viewer == GM else ([viewer] if me is not None else [])
        out["runes"] = [{"power": p, "hex": h, "rank": r} for p in owners for h, r in sorted(runes(p).items())]
    return out
