"""The catalogue's state and the reads its pieces share (ANALYSIS.md P.2.12): pure functions of a game's state.

The catalogue keeps its records in ``GameState.catalogue``, plain JSON data (so snapshots and replays reproduce
it); each sub-domain piece (``catalogue``, ``catalogue_shares``, ``catalogue_reactions``, ``catalogue_assets``)
reads and folds its own part of it. The towns are the map's (``domain.powers.world``), read here as the catalogue
needs them.
"""

from __future__ import annotations

from typing import Any


def cat(state: Any) -> dict[str, Any]:
    """The catalogue's records of a game's state."""
    out: dict[str, Any] = state.catalogue
    return out


def rune_hexes(state: Any, holders: list[str]) -> dict[str, str]:
    """hex -> the Rune asset placed there, for these holders."""
    out: dict[str, str] = {}
    for power_id in holders:
        out.update(cat(state).get("counters", {}).get(power_id, {}).get("rune_assets", {}))
    return out


def world_towns(state: Any) -> dict[str, dict[str, Any]]:
    """The towns on the map, if the GM declared any (P-TOWN-1)."""
    world = getattr(state, "world", None)
    return dict(getattr(world, "towns", {}) or {})


def claimed_towns(state: Any, power_id: str) -> list[dict[str, Any]]:
    """The towns a power claims on the map (P-TOWN-1), if the GM declared towns."""
    return [t for t in world_towns(state).values() if any(c["power"] == power_id for c in t["claims"].values())]


def claims_of(state: Any, power_id: str) -> list[tuple[str, dict[str, Any]]]:
    """(town id, town) for each town a power claims on the map, by id."""
    return [
        (tid, t)
        for tid, t in sorted(world_towns(state).items())
        if any(c["power"] == power_id for c in t["claims"].values())
    ]


def map_town(state: Any, ref: object) -> str | None:
    """The town a class action names, by its id or its hex, if the GM put it on the map."""
    towns = world_towns(state)
    if not isinstance(ref, str):
        return None
    if ref in towns:
        return ref
    return next((tid for tid, t in sorted(towns.items()) if t["hex"] == ref), None)


def read_pool(data: dict[str, Any]) -> Any:
    """A pool recorded in an event, read as the aggregate reads it."""
    from domain.powers.game import _pool_from  # the aggregate's own reading of a pool

    return _pool_from(data)
