"""The partial rules of the catalogue (ANALYSIS.md P-DICE-13, P-ACT-1, P-ACT-6, P.2.12): dice outside challenges,
quotas that change in play, Blighted Neighborhood, Dread Growth and true locations.

Its events evolve ``GameState``; ``Catalogue`` names each, so it is stored under the topic it has always had,
``domain.powers.catalogue:Catalogue.<Name>``.
"""

from __future__ import annotations

from copy import deepcopy
from typing import TYPE_CHECKING, Any

from domain.powers.catalogue_state import CatalogueEvent, cat

if TYPE_CHECKING:
    from domain.powers.state import GameState


# ---------------------------------------------------------------------- events


class ExtraDiceRolled(CatalogueEvent):
    roll_id: str
    power_id: str | None
    purpose: str
    dice: str
    count: int
    sides: int
    modifier: int
    params: dict[str, Any]
    roll_no: int
    commitment: str
    faces: list[int]
    result: dict[str, Any]
    actor: str
    audience: list[str]
    key: str | None = None
    path: list[str] | None = None

    def evolve(self, s: GameState) -> None:
        s.next_roll = self.roll_no + 1


class QuotaChanged(CatalogueEvent):
    power_id: str
    options: dict[str, Any]
    public: int
    private: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        p = s.powers[self.power_id]
        p.options, p.public, p.private = deepcopy(self.options), self.public, self.private


class BlightedTownChosen(CatalogueEvent):
    power_id: str
    town_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        cat(s).setdefault("blighted", {})[self.power_id] = self.town_id


class DreadGrown(CatalogueEvent):
    power_id: str
    units: int
    gain: int
    maximum: int
    season: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        k = cat(s).setdefault("counters", {}).setdefault(self.power_id, {})
        k["dread_maximum"], k["dread_growth_season"] = self.maximum, self.season


class TrueLocationRecorded(CatalogueEvent):
    power_id: str
    hex_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        cat(s).setdefault("locations", {})[self.power_id] = self.hex_id
