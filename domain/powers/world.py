"""The world around the month: the hex map the GM declares, towns and their claims, features, and
conspiracies' influence on the map (rules/ANALYSIS.md P-ACT-4, P.2.7, P.2.8).

``World`` is the world's part of a Powers game (a base of ``Game``): it names the world's events, each declared and
folded in its sub-domain's module (``domain.powers.world_base`` lists them), and keeps what the month asks of the
world. The GM declares the map as data (``declare_map``) and amends it (``amend_map``); each viewer sees it as
P.4 allows (``map_view``). Influence keeps the rules of ``Game.set_influence``: every change goes through the same
``InfluenceSet`` event and audience. Actions reach the world by being aimed (``aim_action``) at a dungeon floor, a
ruin, a town action, an Infiltrate or a stronghold module, and their effect is recorded when they resolve. Season
bookkeeping runs from ``advance``: Tidings, the month's end and Cleanup.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from domain.errors import NotFound
from domain.ids import GM, SYSTEM
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.powers import world_aims as aims
from domain.powers import world_base as base
from domain.powers import world_claims as claims
from domain.powers import world_influence as influence
from domain.powers import world_map as wmap
from domain.powers import world_resolution as resolution
from domain.powers import world_season as season
from domain.powers import world_view as view
from domain.powers.base import GameBase
from domain.powers.part import as_game
from domain.powers.world_map import keep_known_features as keep_known_features

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState
    from domain.powers.world_state import TownEffect


class World(GameBase):
    """The map, towns, features and influence of a Powers game (a base of ``Game``)."""

    # The events, each declared and folded in its sub-domain's module; named here, each is redefined by the
    # library as World.<Name>, the topic its stored events have always had.
    # the map
    MapDeclared = wmap.MapDeclared
    MapAmended = wmap.MapAmended
    MapPublished = wmap.MapPublished
    FeaturesShown = wmap.FeaturesShown
    FeatureLearned = wmap.FeatureLearned
    # claims
    ClaimSet = claims.ClaimSet
    ClaimLost = claims.ClaimLost
    # influence
    InfluenceSpent = influence.InfluenceSpent
    InfluenceShifted = influence.InfluenceShifted
    MechanismsSet = influence.MechanismsSet
    InfluenceGenerated = influence.InfluenceGenerated
    OutpostsReset = influence.OutpostsReset
    MercurialSwapped = influence.MercurialSwapped
    # aims
    ActionAimed = aims.ActionAimed
    InfiltrationAnnounced = aims.InfiltrationAnnounced
    SubtleRuled = aims.SubtleRuled
    AimsClosed = aims.AimsClosed
    # resolution
    TaxesCollected = resolution.TaxesCollected
    FeatureOwned = resolution.FeatureOwned
    FloorCleared = resolution.FloorCleared
    ThreatReduced = resolution.ThreatReduced
    RuinCleared = resolution.RuinCleared
    FeatureRebuilt = resolution.FeatureRebuilt
    ModuleBuilt = resolution.ModuleBuilt
    TownChanged = resolution.TownChanged
    TownHarmed = resolution.TownHarmed
    DurableHeld = resolution.DurableHeld
    # the season
    WorldSeasonBegan = season.WorldSeasonBegan
    MaintenanceDue = season.MaintenanceDue
    MaintenancePaid = season.MaintenancePaid
    StrongholdInoperable = season.StrongholdInoperable
    TownsCleanedUp = season.TownsCleanedUp
    IndustriesChanged = season.IndustriesChanged

    # ------------------------------------------------------------------ the map (P-ACT-4, P.4)

    def declare_map(self, hexes: list[Any], towns: list[Any] | None = None, features: list[Any] | None = None) -> None:
        """The GM declares the whole map as data, replacing any earlier one (P-ACT-4)."""
        wmap.declare_map(as_game(self), hexes, towns or [], features or [])

    def amend_map(
        self,
        hexes: list[Any] | None = None,
        towns: list[Any] | None = None,
        features: list[Any] | None = None,
        remove: list[Any] | None = None,
    ) -> None:
        """The GM adds or replaces hexes, towns and features, or removes them by id (P-ACT-4)."""
        wmap.amend_map(as_game(self), hexes or [], towns or [], features or [], remove or [])

    def reveal_feature(self, feature_id: str, to: str) -> None:
        """The GM shows a power a hidden feature it has found (Seeking, a ruling): it stays known (P.4)."""
        wmap.reveal_feature(as_game(self), feature_id, to)

    def known_features(self) -> dict[str, list[str]]:
        """Who learned each hidden feature: what a rollback carries over, as what was seen cannot be unseen."""
        return wmap.known_features(self.state)

    def check_location(self, power_id: str, location: str | None, assets: list[dict[str, Any]]) -> bool:
        """P-ACT-4: an action is located on a hex of the map, its assets within their mobility of it; whether the
        hex holds a dungeon the power knows (``world_map.check_location``)."""
        return wmap.check_location(self.state, power_id, location, assets)

    def is_public(self, a: ActionState) -> bool:
        """Whether an action is shown to the table (P-FEAT-3: not inside its owner's stronghold)."""
        return wmap.is_public(self.state, a)

    def check_operating(self, assets: list[dict[str, Any]]) -> None:
        """An industry that has ceased to operate lends its asset to no pool (P-TOWN-3)."""
        wmap.check_operating(self.state, assets)

    def check_reach(self, location: str | None, assets: list[dict[str, Any]]) -> None:
        """Every asset must be within its mobility of the action's location (P-ACT-4)."""
        wmap.check_reach(self.state, location, assets)

    def _map_hex(self, hex_id: object, field: str = "hex", rule: str = "P-ACT-4") -> str:
        return base.map_hex(self.state, hex_id, field, rule)

    def _has_perk(self, power_id: str, name: str) -> bool:
        return base.has_perk(as_game(self), power_id, name)

    # ------------------------------------------------------------------ claims (P-TOWN-1)

    def set_claim(self, town_id: str, power_id: str, reason: str = "ruling") -> None:
        """The GM records a claim made by Annex or Commandeer (or a ruling): one claimant of each type."""
        claims.set_claim(as_game(self), town_id, power_id, reason)

    def drop_claim(self, town_id: str, power_id: str, reason: str = "ruling") -> None:
        """The GM records that a power lost its claim on a town."""
        claims.drop_claim(as_game(self), town_id, power_id, reason)

    def _claim(self, town_id: str, power_id: str, reason: str, actor: str = GM) -> None:
        claims.claim(as_game(self), town_id, power_id, reason, actor)

    def _check_conspiracy_claims(self, power_id: str) -> None:
        claims.check_conspiracy_claims(as_game(self), power_id)

    def renounce_claims(self, power_id: str, keep: str, reason: str, actor: str = SYSTEM) -> None:
        """A power gives up its claims on every town but ``keep`` (Commandeer, [003:1276])."""
        claims.renounce_claims(as_game(self), power_id, keep, reason, actor)

    # ------------------------------------------------------------------ influence (P-INFL-2..6)

    def _put_influence(self, power_id: str, hex_id: str, amount: int, actor: str) -> None:
        influence.put_influence(as_game(self), power_id, hex_id, amount, actor)

    def spend_influence(self, power_id: str, action_id: str, amounts: object, actor: str | None = None) -> None:
        """Pay an action's influence: any amount from its hex, at most 1 from each neighbour (P-INFL-2)."""
        influence.spend_influence(as_game(self), power_id, action_id, amounts, actor)

    def shift_influence(self, power_id: str, shifts: object, actor: str | None = None) -> None:
        """During Tidings, shift influence one step at a time down a gradient of two (P-INFL-3)."""
        influence.shift_influence(as_game(self), power_id, shifts, actor)

    def set_mechanisms(self, power_id: str, mechanisms: list[str]) -> None:
        """The GM records which generation mechanisms a conspiracy picked (P-INFL-5)."""
        influence.set_mechanisms(as_game(self), power_id, mechanisms)

    def generate_influence(self, power_id: str, mechanism: str, hex_id: str, ranks: list[int]) -> None:
        """The GM applies a generation mechanism that fired: once a season each (P-INFL-5)."""
        influence.generate_influence(as_game(self), power_id, mechanism, hex_id, ranks)

    def mercurial_swap(self, power_id: str, a: str, b: str, actor: str | None = None) -> None:
        """Mercurial [003:931]: swap influence between two hexes, twice each Tidings (P-INFL-4)."""
        influence.mercurial_swap(as_game(self), power_id, a, b, actor)

    # ------------------------------------------------------------------ actions aimed at the world

    def aim_action(
        self,
        action_id: str,
        aim: str,
        *,
        feature_id: str | None = None,
        town_id: str | None = None,
        floor: int | None = None,
        kind: str | None = None,
        params: dict[str, Any] | None = None,
        actor: str | None = None,
    ) -> None:
        """Say what a Planning action is aimed at, so the rules can set its difficulty and record its effect
        (``world_aims.aim_action``)."""
        aims.aim_action(
            as_game(self),
            action_id,
            aim,
            feature_id=feature_id,
            town_id=town_id,
            floor=floor,
            kind=kind,
            params=params,
            actor=actor,
        )

    def rule_subtle(self, action_id: str, feature_id: str, *, overcome: bool = False) -> None:
        """The GM rules that an action targets something inside a stronghold by subtle means (GM-22, P-FEAT-3)."""
        aims.rule_subtle(as_game(self), action_id, feature_id, overcome=overcome)

    def _world_resolving(self, a: ActionState) -> None:
        aims.world_resolving(as_game(self), a)

    def _world_resolved(self, action_id: str) -> None:
        resolution.world_resolved(as_game(self), action_id)

    def harm_town(
        self, town_id: str, harm: dict[str, Any], reason: str, by: str | None, actor: str = SYSTEM
    ) -> dict[str, int]:
        """Lower a town's population and wealth and add statuses to it (P.2.12); returns the change made."""
        return resolution.harm_town(as_game(self), town_id, harm, reason, by, actor)

    def _town_changed(
        self, town_id: str, kind: str, effect: TownEffect, by: str | None, actor: str, audience: list[str]
    ) -> None:
        """Record a change to a town (a town action's, an army's): ``TownChanged``."""
        base.record(
            as_game(self),
            resolution.TownChanged,
            town_id=town_id,
            kind=kind,
            effect=effect,
            by=by,
            actor=actor,
            audience=audience,
        )

    # ------------------------------------------------------------------ the season (Tidings, Cleanup)

    def pay_maintenance(self, feature_id: str, power_id: str, actor: str | None = None) -> None:
        """Pay a stronghold's maintenance this Tidings (P-FEAT-3)."""
        season.pay_maintenance(as_game(self), feature_id, power_id, actor)

    def _world_tidings(self) -> None:
        season.world_tidings(as_game(self))

    def _world_end_tidings(self) -> None:
        season.world_end_tidings(as_game(self))

    def _world_month_ends(self) -> None:
        season.world_month_ends(as_game(self))

    def _world_cleanup(self) -> None:
        season.world_cleanup(as_game(self))


def map_view(game: Game, viewer: str) -> dict[str, Any]:
    """The map as ``viewer`` may see it (P.4): ``"gm"``, a power id, or ``"public"`` (``world_view.map_view``)."""
    return view.map_view(game.state, viewer, base.runes_of(game))


def declared_map(game: Game) -> dict[str, list[dict[str, Any]]]:
    """The map as the GM would declare it (``world_map.declared_map``): for the GM alone."""
    return wmap.declared_map(game.state)


# ---------------------------------------------------------------------- commands


@dataclass(frozen=True)
class DeclareMap(Command):
    """GM: declare the whole map as data (hexes "q,r", terrain, roads, towns, features), replacing it."""

    hexes: list[dict[str, Any]]
    towns: list[dict[str, Any]] = field(default_factory=list)
    features: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class AmendMap(Command):
    """GM: add or replace hexes, towns and features, or remove them by id."""

    hexes: list[dict[str, Any]] = field(default_factory=list)
    towns: list[dict[str, Any]] = field(default_factory=list)
    features: list[dict[str, Any]] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RevealFeature(Command):
    """GM: show a power a hidden feature it found."""

    feature_id: str
    to: str


@dataclass(frozen=True)
class SetClaim(Command):
    """GM: record a power's claim on a town (Annex, Commandeer, a ruling): one of each type (P-TOWN-1)."""

    town_id: str
    power_id: str
    reason: str = "ruling"


@dataclass(frozen=True)
class DropClaim(Command):
    """GM: record that a power lost its claim on a town."""

    town_id: str
    power_id: str
    reason: str = "ruling"


@dataclass(frozen=True)
class AimAction(Command):
    """Aim one's Planning action at a dungeon floor, a ruin, a town action, an Infiltrate or a module."""

    action_id: str
    aim: str
    feature_id: str | None = None
    town_id: str | None = None
    floor: int | None = None
    kind: str | None = None
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SpendInfluence(Command):
    """Spend influence on one's action: any from its hex, at most 1 from each neighbour (P-INFL-2)."""

    power_id: str
    action_id: str
    amounts: dict[str, int]


@dataclass(frozen=True)
class ShiftInfluence(Command):
    """During Tidings, shift influence down a gradient of two, one step at a time (P-INFL-3)."""

    power_id: str
    shifts: list[list[str]]


@dataclass(frozen=True)
class SetMechanisms(Command):
    """GM: the influence generation mechanisms a conspiracy picked (P-INFL-5)."""

    power_id: str
    mechanisms: list[str]


@dataclass(frozen=True)
class GenerateInfluence(Command):
    """GM: a generation mechanism fired (once a season each): influence equal to the rank (P-INFL-5)."""

    power_id: str
    mechanism: str
    hex_id: str
    ranks: list[int]


@dataclass(frozen=True)
class RuleSubtle(Command):
    """GM: an action targets something inside a stronghold by subtle means (P-FEAT-3, GM-22)."""

    action_id: str
    feature_id: str
    overcome: bool = False


@dataclass(frozen=True)
class MercurialSwap(Command):
    """Swap a conspiracy's influence between two hexes during Tidings (Mercurial, P-INFL-4)."""

    power_id: str
    a: str
    b: str


@dataclass(frozen=True)
class PayMaintenance(Command):
    """Pay a stronghold's maintenance this Tidings (P-FEAT-3)."""

    power_id: str
    feature_id: str


def _declare_map(game: Game, cmd: DeclareMap, ctx: Context) -> None:
    require_gm(ctx)
    game.declare_map(list(cmd.hexes), list(cmd.towns), list(cmd.features))


def _amend_map(game: Game, cmd: AmendMap, ctx: Context) -> None:
    require_gm(ctx)
    game.amend_map(list(cmd.hexes), list(cmd.towns), list(cmd.features), list(cmd.remove))


def _reveal_feature(game: Game, cmd: RevealFeature, ctx: Context) -> None:
    require_gm(ctx)
    game.reveal_feature(cmd.feature_id, cmd.to)


def _set_claim(game: Game, cmd: SetClaim, ctx: Context) -> None:
    require_gm(ctx)
    game.set_claim(cmd.town_id, cmd.power_id, cmd.reason)


def _drop_claim(game: Game, cmd: DropClaim, ctx: Context) -> None:
    require_gm(ctx)
    game.drop_claim(cmd.town_id, cmd.power_id, cmd.reason)


def _aim_action(game: Game, cmd: AimAction, ctx: Context) -> dict[str, Any]:
    a = game.state.actions.get(cmd.action_id)
    if a is None or (ctx.principal != GM and a.power != ctx.principal):
        raise NotFound(f"no action {cmd.action_id!r} of yours this month", field="action_id")
    if ctx.principal != GM:  # the GM completes an action with the facts only the GM gives (GM_FACTS)
        require_seat(game, ctx, a.power)
    game.aim_action(
        cmd.action_id,
        cmd.aim,
        feature_id=cmd.feature_id,
        town_id=cmd.town_id,
        floor=cmd.floor,
        kind=cmd.kind,
        params=dict(cmd.params),
        actor=ctx.principal,
    )
    return {"action_id": cmd.action_id, "difficulty": game.state.actions[cmd.action_id].difficulty}


def _spend_influence(game: Game, cmd: SpendInfluence, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.spend_influence(cmd.power_id, cmd.action_id, dict(cmd.amounts), actor=ctx.principal)


def _shift_influence(game: Game, cmd: ShiftInfluence, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.shift_influence(cmd.power_id, [list(s) for s in cmd.shifts], actor=ctx.principal)


def _set_mechanisms(game: Game, cmd: SetMechanisms, ctx: Context) -> None:
    require_gm(ctx)
    game.set_mechanisms(cmd.power_id, list(cmd.mechanisms))


def _generate_influence(game: Game, cmd: GenerateInfluence, ctx: Context) -> None:
    require_gm(ctx)
    game.generate_influence(cmd.power_id, cmd.mechanism, cmd.hex_id, list(cmd.ranks))


def _pay_maintenance(game: Game, cmd: PayMaintenance, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.pay_maintenance(cmd.feature_id, cmd.power_id, actor=ctx.principal)


def _rule_subtle(game: Game, cmd: RuleSubtle, ctx: Context) -> None:
    require_gm(ctx, "rule an action subtle")
    game.rule_subtle(cmd.action_id, cmd.feature_id, overcome=cmd.overcome)


def _mercurial_swap(game: Game, cmd: MercurialSwap, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.mercurial_swap(cmd.power_id, cmd.a, cmd.b, actor=ctx.principal)


WORLD_COMMANDS: Mapping[type, Handler] = {
    MercurialSwap: _mercurial_swap,
    RuleSubtle: _rule_subtle,
    DeclareMap: _declare_map,
    AmendMap: _amend_map,
    RevealFeature: _reveal_feature,
    SetClaim: _set_claim,
    DropClaim: _drop_claim,
    AimAction: _aim_action,
    SpendInfluence: _spend_influence,
    ShiftInfluence: _shift_influence,
    SetMechanisms: _set_mechanisms,
    GenerateInfluence: _generate_influence,
    PayMaintenance: _pay_maintenance,
}
