"""The state of the world around the month (``domain.powers.world``): the map the GM declared, towns,
features, claims and the season's counters. Plain JSON-native fields, so snapshots transcode it and a
replay reproduces it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class WorldState:
    # hex id "q,r" -> {"terrain", "road", "name"}
    hexes: dict[str, Any] = field(default_factory=dict)
    # town id -> {"name", "hex", "population", "wealth", "statuses", "claims": {type: {"power", "since"}},
    #             "feeds", "stop_order"}
    towns: dict[str, Any] = field(default_factory=dict)
    # feature id -> {"kind", "name", "hex", "town", "controller", "public", "upgrades", "modules", "stored",
    #                "floors", "threat", "difficulty", "reward", "becomes", "known_to", "cleared",
    #                "asset_id", "protection", "inoperable", "maintenance_due"}
    features: dict[str, Any] = field(default_factory=dict)
    claim_seq: int = 0  # claims are ordered by when they were made: the earliest is the senior (P-TOWN-1)
    mechanisms: dict[str, Any] = field(default_factory=dict)  # power -> the generation mechanisms it has (P-INFL-5)
    generated: dict[str, Any] = field(default_factory=dict)  # power -> mechanisms that fired this season
    # Mercurial holder -> {"raised": {hex: influence the outpost reset added}, "swaps": used this Tidings}
    mercurial: dict[str, Any] = field(default_factory=dict)
    aims: dict[str, Any] = field(default_factory=dict)
    # this month's action id -> {hex: influence it spent there}: a neighbour gives at most 1 per action (P-INFL-2)
    spent: dict[str, Any] = field(default_factory=dict)
    # this month's action id -> {"feature_id", "overcome"}: the GM ruled it targets inside that stronghold subtly
    subtle: dict[str, Any] = field(
        default_factory=dict
    )  # this month's action id -> what it is aimed at (a floor, a town)
