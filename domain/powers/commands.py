"""Powers' commands (DESIGN "Commands"): typed, imperative dataclasses, each with a handler.

A handler ``(game, command, ctx) -> result`` checks who may do it, calls the aggregate and returns
what the receipt reports. ``POWERS_COMMANDS`` maps each command class to its handler; the ruleset
registers it, and the platform adds its own commands (``domain.platform.commands``) to every ruleset.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from domain.errors import NotFound
from domain.ids import GM, RESERVED_VIEWERS
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.platform.commands import RollBack as RollBack  # noqa: F401  (a platform command now; kept importable here)
from domain.powers.armies import ARMY_COMMANDS
from domain.powers.battle import BATTLE_COMMANDS
from domain.powers.catalogue_commands import CATALOGUE_COMMANDS
from domain.powers.development import DEVELOPMENT_COMMANDS
from domain.powers.magic import MAGIC_COMMANDS
from domain.powers.windows import BattleSilence, battle_silence
from domain.powers.world import WORLD_COMMANDS

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, Reaction


@dataclass(frozen=True)
class AddPower(Command):
    """GM: seat a power, with the hash of its sign-in token (P-ACT-1)."""

    name: str
    cls: str
    subclass: str
    token_hash: str
    options: dict[str, Any] | None = None


@dataclass(frozen=True)
class GrantAsset(Command):
    """GM: give a power an asset; an existing asset id shares it (P-ASSET-5, P-ASSET-6)."""

    power_id: str
    name: str
    cls: str
    rank: int
    asset_id: str | None = None
    assured: bool = False
    critical: bool = False
    novel: bool = False


@dataclass(frozen=True)
class SetMonths(Command):
    """GM: the months of each season (GM-28)."""

    months: int


@dataclass(frozen=True)
class Advance(Command):
    """GM: move the calendar on one step, if the game is still at ``expected_step``; ``tidings``, when a season
    begins, is the GM's narration of it (a post in the narration thread)."""

    expected_step: str | None = None
    tidings: str = ""


@dataclass(frozen=True)
class SubmitAction(Command):
    """Submit (and, unless ``roll`` is false, roll) one action this Planning step (P-ACT-1, P-DICE-1)."""

    power_id: str
    title: str
    description: str = ""
    skill: str | None = None
    slot: str = "private"
    location: str | None = None
    targets: list[str] = field(default_factory=list)
    resistible: bool = False
    difficulty: int | None = None
    assets: list[dict[str, Any]] = field(default_factory=list)
    extra_actions: int = 0
    convert: int | None = None
    roll: bool = True
    collaborators: list[str] = field(default_factory=list)
    dungeon: bool = False


@dataclass(frozen=True)
class RollAction(Command):
    """Roll a proposed action's pool (P-DICE-2)."""

    action_id: str
    assets: list[dict[str, Any]] = field(default_factory=list)
    extra_actions: int = 0
    convert: int | None = None


@dataclass(frozen=True)
class LockConversions(Command):
    """Fix how many 3s and 4s become successes, each a consequence (P-DICE-3, P-DICE-5)."""

    action_id: str
    convert: int | None = None
    dice: list[int] | None = None


@dataclass(frozen=True)
class DiscardAction(Command):
    """Discard an action after its roll; it stays spent (P-AMB-29)."""

    action_id: str


@dataclass(frozen=True)
class SetDifficulty(Command):
    """GM: declare a difficulty, or seal it by hash before the roll (GM-2)."""

    action_id: str
    value: int
    sealed: bool = False
    tiers: dict[str, Any] | None = None


@dataclass(frozen=True)
class SetRuling(Command):
    """GM: rule whether an action can be resisted, and by whom (GM-6)."""

    action_id: str
    resistible: bool
    resisters: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ProposeConsequence(Command):
    """GM: offer the form an action's consequences take (GM-3)."""

    action_id: str
    text: str
    effects: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class AcceptConsequence(Command):
    """Accept the GM's consequence on one's action."""

    action_id: str
    consequence_id: str


@dataclass(frozen=True)
class Resolve(Command):
    """GM: resolve the month (P.1.4) and publish it, if the game is still at ``expected_step``."""

    expected_step: str | None = None
    announcement: str = ""


@dataclass(frozen=True)
class DeclareReaction(Command):
    """Resist a provisional action alone, with one's own assets (P-RES-1..4)."""

    power_id: str
    action_id: str
    assets: list[dict[str, Any]] = field(default_factory=list)
    convert: int | None = 0


@dataclass(frozen=True)
class LockReaction(Command):
    """Fix a reaction's conversions if they were left open."""

    reaction_id: str
    convert: int = 0


@dataclass(frozen=True)
class WaiveReactions(Command):
    """Waive one's reaction this month (P-AMB-39)."""

    power_id: str


@dataclass(frozen=True)
class ProposeReactionConsequence(Command):
    """GM: offer the form a resister's consequences take, as for an actor's (P-AMB-6, GM-3)."""

    reaction_id: str
    text: str
    effects: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class AcceptReactionConsequence(Command):
    """Accept the GM's consequence on one's reaction; it falls on the resister (P-AMB-6)."""

    reaction_id: str
    consequence_id: str


@dataclass(frozen=True)
class HideFromResisters(Command):
    """GM: the assets of an action's pool its resisters are not shown, the others revealed (GM-19, P-AMB-3)."""

    action_id: str
    asset_ids: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class ShareSecret(Command):
    """Share a Secret with another power, irrevocably ([003:114])."""

    power_id: str
    asset_id: str
    to: str


@dataclass(frozen=True)
class SetInfluence(Command):
    """GM: record a power's influence in a hex."""

    power_id: str
    hex_id: str
    amount: int


# ---------------------------------------------------------------------- handlers


def _slug(name: str) -> str:
    out = "".join(c if c.isalnum() else "-" for c in name.lower()).strip("-")
    while "--" in out:
        out = out.replace("--", "-")
    return out[:32] or "power"


def action_result(game: Game, action_id: str) -> dict[str, Any]:
    """What a receipt reports of an action: its status, digest and, once rolled, its dice and tally."""
    a = game.action(action_id)
    t = game.tally(a)
    out: dict[str, Any] = {"action_id": action_id, "status": a.status, "digest": a.digest, "salt": a.salt}
    if a.pool is not None:
        out.update(
            {
                "roll_no": a.pool.roll_no,
                "faces": [d.face for d in a.pool.dice],
                "dice": [{"face": d.face, "asset": d.asset, "converted": d.converted} for d in a.pool.dice],
                "locked": a.pool.locked,
                "successes": t.successes,
                "consequences": t.consequences,
                "pool_size": t.pool_size,
            }
        )
    return out


def _own_action(game: Game, ctx: Context, action_id: str) -> ActionState:
    a = game.state.actions.get(action_id)
    if a is None or (ctx.principal != GM and a.power != ctx.principal):
        raise NotFound(f"no action {action_id!r} of yours this month", field="action_id")
    require_seat(game, ctx, a.power)
    return a


def add_power(game: Game, cmd: AddPower, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    base = _slug(cmd.name)
    pid, n = base, 2
    while pid in game.state.powers or pid in RESERVED_VIEWERS:  # 'Observer' is seated as observer-2
        pid, n = f"{base}-{n}", n + 1
    game.add_power(pid, cmd.name, cmd.cls, cmd.subclass, cmd.options)
    game.issue_credential(pid, cmd.token_hash)
    return {"power_id": pid}


def grant_asset(game: Game, cmd: GrantAsset, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    aid = cmd.asset_id or ctx.new_id(f"{cmd.cls}-{_slug(cmd.name)}")
    game.grant_asset(
        aid, cmd.power_id, cmd.name, cmd.cls, cmd.rank, assured=cmd.assured, critical=cmd.critical, novel=cmd.novel
    )
    return {"asset_id": aid}


def set_months(game: Game, cmd: SetMonths, ctx: Context) -> None:
    require_gm(ctx)
    game.set_months(cmd.months)


def advance(game: Game, cmd: Advance, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    return {
        "step": game.advance(
            ctx.now, ctx.entropy(32), cmd.expected_step, tidings=cmd.tidings, post_id=ctx.new_id("post")
        )
    }


def submit_action(game: Game, cmd: SubmitAction, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    action_id = ctx.new_id("act")
    game.submit_action(
        cmd.power_id,
        action_id,
        cmd.title,
        now=ctx.now,
        roller=ctx.roller(game),
        description=cmd.description,
        skill=cmd.skill,
        slot=cmd.slot,
        location=cmd.location,
        targets=list(cmd.targets),
        resistible=cmd.resistible,
        difficulty=cmd.difficulty,
        assets=list(cmd.assets),
        extra_actions=cmd.extra_actions,
        convert=cmd.convert,
        roll=cmd.roll,
        collaborators=list(cmd.collaborators),
        dungeon=cmd.dungeon,
        actor=ctx.principal,
        salt=ctx.entropy(16),
    )
    return action_result(game, action_id)


def roll_action(game: Game, cmd: RollAction, ctx: Context) -> dict[str, Any]:
    _own_action(game, ctx, cmd.action_id)
    game.roll_action(
        cmd.action_id,
        now=ctx.now,
        roller=ctx.roller(game),
        assets=list(cmd.assets),
        extra_actions=cmd.extra_actions,
        convert=cmd.convert,
        actor=ctx.principal,
        salt=ctx.entropy(16),
    )
    return action_result(game, cmd.action_id)


def lock_conversions(game: Game, cmd: LockConversions, ctx: Context) -> dict[str, Any]:
    _own_action(game, ctx, cmd.action_id)
    game.lock_conversions(cmd.action_id, now=ctx.now, convert=cmd.convert, dice=cmd.dice, actor=ctx.principal)
    return action_result(game, cmd.action_id)


def discard_action(game: Game, cmd: DiscardAction, ctx: Context) -> None:
    _own_action(game, ctx, cmd.action_id)
    game.discard_action(cmd.action_id, now=ctx.now, actor=ctx.principal)


def set_difficulty(game: Game, cmd: SetDifficulty, ctx: Context) -> None:
    require_gm(ctx)
    game.set_difficulty(cmd.action_id, cmd.value, sealed=cmd.sealed, nonce=ctx.entropy(16), tiers=cmd.tiers)


def set_ruling(game: Game, cmd: SetRuling, ctx: Context) -> None:
    require_gm(ctx)
    game.set_ruling(cmd.action_id, resistible=cmd.resistible, resisters=list(cmd.resisters))


def propose_consequence(game: Game, cmd: ProposeConsequence, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    cid = ctx.new_id("csq")
    game.propose_consequence(cmd.action_id, cid, cmd.text, list(cmd.effects))
    return {"consequence_id": cid}


def accept_consequence(game: Game, cmd: AcceptConsequence, ctx: Context) -> None:
    _own_action(game, ctx, cmd.action_id)
    game.accept_consequence(cmd.action_id, cmd.consequence_id, actor=ctx.principal)


def resolve(game: Game, cmd: Resolve, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    return {
        "queue": game.resolve(
            now=ctx.now, roller=ctx.roller(game), announcement=cmd.announcement, expected_step=cmd.expected_step
        )
    }


def declare_reaction(game: Game, cmd: DeclareReaction, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    reaction_id = ctx.new_id("rx")
    game.declare_reaction(
        cmd.power_id,
        reaction_id,
        cmd.action_id,
        now=ctx.now,
        roller=ctx.roller(game),
        assets=list(cmd.assets),
        convert=cmd.convert,
        actor=ctx.principal,
    )
    r = game.state.reactions[reaction_id]
    t = game.tally(game.state.actions[cmd.action_id], r.pool)
    return {
        "reaction_id": reaction_id,
        "faces": [d.face for d in r.pool.dice],
        "roll_no": r.pool.roll_no,
        "locked": r.pool.locked,
        "successes": t.successes,
        "consequences": t.consequences,
    }


def lock_reaction(game: Game, cmd: LockReaction, ctx: Context) -> None:
    r = game.state.reactions.get(cmd.reaction_id)
    if r is None or (ctx.principal != GM and r.power != ctx.principal):
        raise NotFound(f"no reaction {cmd.reaction_id!r} of yours", field="reaction_id")
    game.lock_reaction(cmd.reaction_id, now=ctx.now, convert=cmd.convert, actor=ctx.principal)


def waive_reactions(game: Game, cmd: WaiveReactions, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.waive_reactions(cmd.power_id, now=ctx.now, actor=ctx.principal)


def _own_reaction(game: Game, ctx: Context, reaction_id: str) -> Reaction:
    r = game.state.reactions.get(reaction_id)
    if r is None or (ctx.principal != GM and r.power != ctx.principal):
        raise NotFound(f"no reaction {reaction_id!r} of yours", field="reaction_id")
    require_seat(game, ctx, r.power)
    return r


def propose_reaction_consequence(game: Game, cmd: ProposeReactionConsequence, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    cid = ctx.new_id("csq")
    game.propose_reaction_consequence(cmd.reaction_id, cid, cmd.text, list(cmd.effects))
    return {"consequence_id": cid}


def accept_reaction_consequence(game: Game, cmd: AcceptReactionConsequence, ctx: Context) -> None:
    _own_reaction(game, ctx, cmd.reaction_id)
    game.accept_reaction_consequence(cmd.reaction_id, cmd.consequence_id, actor=ctx.principal)


def hide_from_resisters(game: Game, cmd: HideFromResisters, ctx: Context) -> None:
    require_gm(ctx)
    game.hide_from_resisters(cmd.action_id, list(cmd.asset_ids))


def share_secret(game: Game, cmd: ShareSecret, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.share_secret(cmd.power_id, cmd.asset_id, cmd.to)


def set_influence(game: Game, cmd: SetInfluence, ctx: Context) -> None:
    require_gm(ctx)
    game.set_influence(cmd.power_id, cmd.hex_id, cmd.amount)


POWERS_COMMANDS: Mapping[type, Handler] = {
    AddPower: add_power,
    GrantAsset: grant_asset,
    SetMonths: set_months,
    Advance: advance,
    SubmitAction: submit_action,
    RollAction: roll_action,
    LockConversions: lock_conversions,
    DiscardAction: discard_action,
    SetDifficulty: set_difficulty,
    SetRuling: set_ruling,
    ProposeConsequence: propose_consequence,
    AcceptConsequence: accept_consequence,
    Resolve: resolve,
    DeclareReaction: declare_reaction,
    LockReaction: lock_reaction,
    WaiveReactions: waive_reactions,
    ProposeReactionConsequence: propose_reaction_consequence,
    AcceptReactionConsequence: accept_reaction_consequence,
    HideFromResisters: hide_from_resisters,
    ShareSecret: share_secret,
    SetInfluence: set_influence,
    **CATALOGUE_COMMANDS,
    **MAGIC_COMMANDS,
    **WORLD_COMMANDS,
    **DEVELOPMENT_COMMANDS,
    **ARMY_COMMANDS,
    **BATTLE_COMMANDS,
    BattleSilence: battle_silence,  # sent only by the platform, for a silent power at a battle step's close
}
