"""Class actions of the catalogue (ANALYSIS.md P.2.12, P-ACT-6, P-ACT-7, P-RES-4): what a class action, a duel, a
seeking or a ruling per target declares, what it yields once resolved, and the runes it places.

Its events evolve ``GameState.catalogue``; ``Catalogue`` names each, so it is stored under the topic it has always
had, ``domain.powers.catalogue:Catalogue.<Name>``.
"""

from __future__ import annotations

from copy import deepcopy
from typing import TYPE_CHECKING, Any, cast

from domain.powers.base import GameBase
from domain.powers.catalogue_state import CatalogueEvent, cat
from domain.powers.state import Asset

if TYPE_CHECKING:
    from domain.powers.state import GameState


# ---------------------------------------------------------------------- events


class ClassActionDeclared(CatalogueEvent):
    action_id: str
    power_id: str
    kind: str
    params: dict[str, Any]
    difficulty: int
    formula: str
    cost: str
    price: dict[str, Any]
    declared: list[str]
    kinds: list[str]
    per_target: bool
    season: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        c = cat(s)
        c.setdefault("kinds", {})[self.action_id] = {
            "kind": self.kind,
            "params": deepcopy(self.params),
            "difficulty": self.difficulty,
            "formula": self.formula,
            "cost": self.cost,
            "price": deepcopy(self.price),
            "declared": list(self.declared),
            "kinds": list(self.kinds),
            "per_target": self.per_target,
        }
        k = c.setdefault("counters", {}).setdefault(self.power_id, {})
        if self.kind == "saboteurs":  # P-AMB-38: each use raises the next this season, succeeded or not
            uses = k.setdefault("saboteurs", {})
            uses[str(self.season)] = uses.get(str(self.season), 0) + 1
        if self.kind == "health_drive":
            k.setdefault("health_drives", {}).setdefault(str(self.season), []).append(
                cast(str, self.params.get("town"))
            )  # named: prepare checked it


class ActionLost(CatalogueEvent):
    """An action lost at its turn in the queue; the once-a-season assets of its pools are used all the same, as
    the resolution's season ledger keeps them (``fold``: the resolution's own ``_mark_used``)."""

    action_id: str
    reason: str
    actor: str
    audience: list[str]

    def fold(self, game: GameBase) -> None:
        a = game.state.actions[self.action_id]
        a.status, a.success, a.net, a.excess, a.successes = "resolved", False, 0, 0, 0
        game._mark_used(self.action_id)


class ClassActionOutcome(CatalogueEvent):
    action_id: str
    power_id: str
    kind: str
    success: bool
    outputs: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        k = cat(s).setdefault("counters", {}).setdefault(self.power_id, {})
        kinds = cat(s).get("kinds", {})
        if self.action_id in kinds:
            kinds[self.action_id]["outcome"] = {"success": self.success, **deepcopy(self.outputs)}
        if self.kind == "coming_of_age":
            k["last_coming_of_age"] = s.season  # the counter restarts at each use, success or not
        if self.kind == "channel":
            k.setdefault("last_channel", {})[kinds[self.action_id]["params"]["town"]] = s.season
        if not self.success:
            return
        if self.kind == "coming_of_age":
            k["heirs"] = k.get("heirs", 0) + 1
        elif self.kind == "uplift_master":
            k["masters"] = k.get("masters", 0) + 1
        elif self.kind == "hidden_runes":
            k.setdefault("runes", {})[self.outputs["rune"]["hex"]] = self.outputs["rune"]["rank"]
        elif self.kind == "grand_knighting":
            k["royal_guard_rank"] = int(self.outputs.get("rank") or 0)


class TargetResult(CatalogueEvent):
    action_id: str
    target: str
    result: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        kinds = cat(s).get("kinds", {})
        if self.action_id in kinds:
            kinds[self.action_id].setdefault("per_target_results", {})[self.target] = dict(self.result)


class RunePlaced(CatalogueEvent):
    power_id: str
    hex: str
    rank: int
    asset_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.assets[self.asset_id] = Asset(
            id=self.asset_id, name=f"Rune at {self.hex}", cls="rune", rank=self.rank, holders=[self.power_id]
        )
        k = cat(s).setdefault("counters", {}).setdefault(self.power_id, {})
        k.setdefault("runes", {})[self.hex] = self.rank
        k.setdefault("rune_assets", {})[self.hex] = self.asset_id
