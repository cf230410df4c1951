"""Commands of the class catalogue and the partial rules (domain.powers.catalogue), with their handlers.

``CATALOGUE_COMMANDS`` is merged into ``POWERS_COMMANDS``; every channel builds these and sends them
through the one application service.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from domain.platform.commands import Command, Context, Handler, require_gm, require_seat

if TYPE_CHECKING:
    from domain.powers.game import Game


@dataclass(frozen=True)
class RollDice(Command):
    """GM: roll NdX outside a challenge, or a roll the rules fix (P-DICE-13)."""

    dice: str | None = None
    purpose: str | None = None
    power_id: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    public: bool = False


@dataclass(frozen=True)
class TakeFreeAction(Command):
    """Take an action the rules make free: execute an agent in your power, disband a levy (P-ACT-5)."""

    power_id: str
    kind: str
    asset_id: str
    note: str = ""


@dataclass(frozen=True)
class ChangeQuotaPerk(Command):
    """GM: a perk that changes a power's monthly quota starts or stops applying (P-ACT-1)."""

    power_id: str
    perk: str
    value: bool


@dataclass(frozen=True)
class ChooseBlightedTown(Command):
    """A power with Blighted Neighborhood chooses the claimed town it blights ([003:959], P.2.12)."""

    power_id: str
    town_id: str


@dataclass(frozen=True)
class RecordLocation(Command):
    """GM: where a power's champion or leader truly is, for duels (P-ACT-6)."""

    power_id: str
    hex_id: str


@dataclass(frozen=True)
class SetImmunity(Command):
    """GM: a power's immunity (an adversary's, a champion's) and who knows how to overcome it; empty lifts it
    (P-AMB-10, [003:54])."""

    power_id: str
    immunity: str
    bypassed_by: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class WieldItem(Command):
    """Give one's magic item to a wielder (an agent or army of one's own, a champion itself), or take it back; a
    change goes with an action involving the item or its wielder (P-ASSET-8)."""

    power_id: str
    asset_id: str
    wielder: str | None = None
    action_id: str | None = None


@dataclass(frozen=True)
class SetAssetTerms(Command):
    """GM: an agent's, industry's or army's fee, loyalty, mobility, home, profession (P-ASSET-5..7)."""

    asset_id: str
    terms: dict[str, Any]


@dataclass(frozen=True)
class GainExtraReaction(Command):
    """Pay a perk's price for one more reaction this month (P-RES-1, P-ACT-2)."""

    power_id: str
    perk: str
    scheme_id: str | None = None


@dataclass(frozen=True)
class UseReaction(Command):
    """Use a reaction that is not a resistance: Gate Guardians, teleport home, a Satellite Shrine (P-RES-7)."""

    power_id: str
    kind: str
    trigger: str | None = None
    fee: int | None = None
    assets: list[dict[str, Any]] = field(default_factory=list)
    convert: int = 0
    note: str = ""


@dataclass(frozen=True)
class SubmitClassAction(Command):
    """Submit a class action, its difficulty computed from its formula (P.2.12)."""

    power_id: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)
    title: str | None = None
    description: str = ""
    slot: str = "private"
    location: str | None = None
    targets: list[str] = field(default_factory=list)
    assets: list[dict[str, Any]] = field(default_factory=list)
    extra_actions: int = 0
    convert: int | None = None
    roll: bool = True
    collaborators: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SubmitDuel(Command):
    """Duel a character, declaring where they are (P-ACT-6)."""

    power_id: str
    target: str
    location: str
    target_is_power: bool = True
    title: str = "Duel"
    description: str = ""
    skill: str | None = None
    slot: str = "private"
    assets: list[dict[str, Any]] = field(default_factory=list)
    extra_actions: int = 0
    convert: int | None = None


@dataclass(frozen=True)
class SubmitSeeking(Command):
    """Targeted or Broad Seeking in a hex (P-ACT-7)."""

    power_id: str
    hex_id: str
    broad: bool = False
    named: str | None = None
    slot: str = "private"
    assets: list[dict[str, Any]] = field(default_factory=list)
    extra_actions: int = 0
    convert: int | None = None


@dataclass(frozen=True)
class JoinAction(Command):
    """A declared collaborator spends an action and rolls its own pool into a shared action (P-DICE-11)."""

    power_id: str
    action_id: str
    assets: list[dict[str, Any]] = field(default_factory=list)
    convert: int = 0
    slot: str = "private"


@dataclass(frozen=True)
class DreadGrowth(Command):
    """GM, at Tidings: a Dragon's army grows by 1, or 2 below its maximum (P.2.12, [003:1327])."""

    power_id: str
    units: int


@dataclass(frozen=True)
class RulePerTarget(Command):
    """GM: each target's resistance reduces only its own share of this action (P-RES-4, P-AMB-7)."""

    action_id: str


@dataclass(frozen=True)
class ProposeShareConsequence(Command):
    """GM: the form a collaborator's own consequences take (P-DICE-11, GM-3)."""

    action_id: str
    power_id: str
    text: str
    effects: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class AcceptShareConsequence(Command):
    """A collaborator accepts the consequence of its own pool (P-DICE-11)."""

    power_id: str
    action_id: str
    consequence_id: str


# ---------------------------------------------------------------------- handlers


def _submitted(game: Game, action_id: str, extra: dict[str, Any]) -> dict[str, Any]:
    from domain.powers.commands import action_result  # commands.py merges this module's mapping

    return {**action_result(game, action_id), **extra}


def roll_dice(game: Game, cmd: RollDice, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    result: dict[str, Any] = game.roll_dice(
        ctx.new_id("roll"),
        roller=ctx.roller(game),
        dice=cmd.dice,
        purpose=cmd.purpose,
        power_id=cmd.power_id,
        params=dict(cmd.params),
        public=cmd.public,
    )
    return result


def take_free_action(game: Game, cmd: TakeFreeAction, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    result: dict[str, Any] = game.take_free_action(cmd.power_id, cmd.kind, asset_id=cmd.asset_id, note=cmd.note)
    return result


def change_quota_perk(game: Game, cmd: ChangeQuotaPerk, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    result: dict[str, Any] = game.change_quota_perk(cmd.power_id, cmd.perk, cmd.value)
    return result


def choose_blighted_town(game: Game, cmd: ChooseBlightedTown, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.choose_blighted_town(cmd.power_id, cmd.town_id)


def record_location(game: Game, cmd: RecordLocation, ctx: Context) -> None:
    require_gm(ctx)
    game.record_location(cmd.power_id, cmd.hex_id)


def set_immunity(game: Game, cmd: SetImmunity, ctx: Context) -> None:
    require_gm(ctx)
    game.set_immunity(cmd.power_id, cmd.immunity, list(cmd.bypassed_by))


def wield_item(game: Game, cmd: WieldItem, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.wield_item(cmd.power_id, cmd.asset_id, cmd.wielder, action_id=cmd.action_id, actor=ctx.principal)


def set_asset_terms(game: Game, cmd: SetAssetTerms, ctx: Context) -> None:
    require_gm(ctx)
    game.set_asset_terms(cmd.asset_id, dict(cmd.terms))


def gain_extra_reaction(game: Game, cmd: GainExtraReaction, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.gain_extra_reaction(cmd.power_id, cmd.perk, now=ctx.now, scheme_id=cmd.scheme_id)


def use_reaction(game: Game, cmd: UseReaction, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    result: dict[str, Any] = game.use_reaction(
        cmd.power_id,
        ctx.new_id("rx"),
        cmd.kind,
        now=ctx.now,
        roller=ctx.roller(game),
        trigger=cmd.trigger,
        fee=cmd.fee,
        assets=list(cmd.assets),
        convert=cmd.convert,
        note=cmd.note,
    )
    return result


def _common(cmd: SubmitClassAction | SubmitDuel | SubmitSeeking, ctx: Context, game: Game) -> dict[str, Any]:
    return {
        "now": ctx.now,
        "roller": ctx.roller(game),
        "slot": cmd.slot,
        "assets": list(cmd.assets),
        "extra_actions": cmd.extra_actions,
        "convert": cmd.convert,
        "actor": ctx.principal,
        "salt": ctx.entropy(16),
    }


def submit_class_action(game: Game, cmd: SubmitClassAction, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    action_id = ctx.new_id("act")
    extra = game.submit_class_action(
        cmd.power_id,
        action_id,
        cmd.kind,
        dict(cmd.params),
        **_common(cmd, ctx, game),
        **({"title": cmd.title} if cmd.title else {}),
        description=cmd.description,
        location=cmd.location,
        targets=list(cmd.targets),
        roll=cmd.roll,
        collaborators=list(cmd.collaborators),
    )
    return _submitted(game, action_id, extra)


def submit_duel(game: Game, cmd: SubmitDuel, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    action_id = ctx.new_id("act")
    extra = game.submit_duel(
        cmd.power_id,
        action_id,
        cmd.target,
        cmd.location,
        target_is_power=cmd.target_is_power,
        skill=cmd.skill,
        title=cmd.title,
        description=cmd.description,
        **_common(cmd, ctx, game),
    )
    return _submitted(game, action_id, extra)


def submit_seeking(game: Game, cmd: SubmitSeeking, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    action_id = ctx.new_id("act")
    extra = game.submit_seeking(
        cmd.power_id, action_id, cmd.hex_id, broad=cmd.broad, named=cmd.named, **_common(cmd, ctx, game)
    )
    return _submitted(game, action_id, extra)


def join_action(game: Game, cmd: JoinAction, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    result: dict[str, Any] = game.join_action(
        cmd.power_id,
        cmd.action_id,
        now=ctx.now,
        roller=ctx.roller(game),
        assets=list(cmd.assets),
        convert=cmd.convert,
        slot=cmd.slot,
        actor=ctx.principal,
    )
    return result


def dread_growth(game: Game, cmd: DreadGrowth, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    result: dict[str, Any] = game.dread_growth(cmd.power_id, cmd.units)
    return result


def rule_per_target(game: Game, cmd: RulePerTarget, ctx: Context) -> None:
    require_gm(ctx)
    game.rule_per_target(cmd.action_id)


def propose_share_consequence(game: Game, cmd: ProposeShareConsequence, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    cid = ctx.new_id("csq")
    game.propose_share_consequence(cmd.action_id, cmd.power_id, cid, cmd.text, list(cmd.effects))
    return {"consequence_id": cid}


def accept_share_consequence(game: Game, cmd: AcceptShareConsequence, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.accept_share_consequence(cmd.power_id, cmd.action_id, cmd.consequence_id, actor=ctx.principal)


CATALOGUE_COMMANDS: Mapping[type, Handler] = {
    ProposeShareConsequence: propose_share_consequence,
    AcceptShareConsequence: accept_share_consequence,
    RulePerTarget: rule_per_target,
    DreadGrowth: dread_growth,
    RollDice: roll_dice,
    TakeFreeAction: take_free_action,
    ChangeQuotaPerk: change_quota_perk,
    RecordLocation: record_location,
    ChooseBlightedTown: choose_blighted_town,
    SetAssetTerms: set_asset_terms,
    WieldItem: wield_item,
    SetImmunity: set_immunity,
    GainExtraReaction: gain_extra_reaction,
    UseReaction: use_reaction,
    SubmitClassAction: submit_class_action,
    SubmitDuel: submit_duel,
    SubmitSeeking: submit_seeking,
    JoinAction: join_action,
}
