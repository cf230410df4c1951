"""Magic in Powers (P.2.9): spells known, conduits, magic perks, casting, rituals and their resistance.

The mana wallet is ``PowerState.mana`` (gained through ``Game.grant_mana`` and its ``ManaGranted``
event); everything else of magic lives in ``GameState.magic``, a dict of JSON-native values so
snapshots transcode it and a replay reproduces it:

- ``spells``: spells the GM defined for this game (the shipped ones are ``domain.powers.spells.CATALOGUE``);
- ``powers[power_id]``: ``perks`` (perk -> ``{"elements": [...], "spells": [...]}``), ``known`` spell ids,
  ``conduits`` (id -> ``{"name", "kind", "hex", "tower", "capitol"}``), ``witchcraft_season`` and ``gardens``
  (stronghold id -> the season its Mana Gardens last reduced a ritual, [003:453]);
- ``inflation``: successful casts per ritual (per power for power-specific rituals, P-MAG-4);
- ``casts``: this month's casts (older months are dropped when a later one is cast);
- ``pools``: mana held by one of this month's actions, not by a power: mana the power gained during that
  action (P-AMB-37, whatever its cap) and mana collaborators put into a cooperative ritual ([003:523]);
  what the action's casts do not spend is lost with the action;
- ``completed``: rituals cast successfully, with their original difficulty (for dispels, P-RES-6).

Hidden information (P.4): mana, spells known and cast, and conduits are the owner's (and the GM's); perks
are public, but which spells a Perfected Spell perfects is the owner's.

``Magic`` is magic's part of a Powers game (a base of ``Game``): it names magic's events, each declared and folded
in its sub-domain's module (``magic_state`` lists them, with the state and the reads they share), and delegates
each command to the module that decides it. The commands and the view are here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain.ids import GM
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.platform.game import PlatformGame
from domain.powers import magic_casting as casting
from domain.powers import magic_catalogue as catalogue
from domain.powers import magic_mana as mm
from domain.powers import magic_rituals as rituals
from domain.powers import magic_rules as mr
from domain.powers.magic_state import (
    caps_of,
    magic_of,
    month_casts,
    perks_of,
    pool_of,
    power_magic,
    record,
    spell_def,
    spell_summary,
)
from domain.powers.magic_state import has_perk as has_perk  # the calendar reads it here
from domain.powers.part import as_game
from domain.powers.spells import CATALOGUE, Spell

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, Asset, GameState


class Magic(PlatformGame):
    """The magic commands and events of a Powers game (a base of ``domain.powers.game.Game``)."""

    if TYPE_CHECKING:
        state: GameState

    # The events, each declared and folded in its sub-domain's module; named here, each is redefined by the
    # library as Magic.<Name>, the topic its stored events have always had.
    # the GM's catalogue, perks and conduits
    SpellDefined = catalogue.SpellDefined
    SpellLearned = catalogue.SpellLearned
    MagicPerkGranted = catalogue.MagicPerkGranted
    SpellsPerfected = catalogue.SpellsPerfected
    ConduitSet = catalogue.ConduitSet
    ConduitRemoved = catalogue.ConduitRemoved
    # mana held by an action, an action's own cost
    ManaChannelled = mm.ManaChannelled
    ManaContributed = mm.ManaContributed
    ManaSpent = mm.ManaSpent
    # casting
    ManaGardensUsed = casting.ManaGardensUsed
    SpellCast = casting.SpellCast
    # rituals at Resolution
    RitualWarded = rituals.RitualWarded
    RitualConcluded = rituals.RitualConcluded

    # ------------------------------------------------------------------ GM: the catalogue, perks, conduits

    def define_spell(
        self,
        spell_id: str,
        name: str,
        speed: str,
        cost: str,
        *,
        range: int = 0,
        difficulty: int | None = None,
        power_specific: bool = False,
        permanent: bool | None = None,
        for_power: str | None = None,
    ) -> None:
        """GM: add a spell or ritual to this game's catalogue, or approve a power's design (GM-15, P-AMB-42)."""
        catalogue.define_spell(
            as_game(self),
            spell_id,
            name,
            speed,
            cost,
            range=range,
            difficulty=difficulty,
            power_specific=power_specific,
            permanent=permanent,
            for_power=for_power,
        )

    def teach_spell(self, power_id: str, spell_id: str) -> None:
        """GM: a power learns a spell or ritual (from its class, a perk, a scroll, a design...)."""
        catalogue.teach_spell(as_game(self), power_id, spell_id)

    def grant_magic_perk(
        self, power_id: str, perk: str, element: str | None = None, spells: list[str] | None = None
    ) -> None:
        """GM: record a perk that changes storage or casting (P-MAG-1, P-MAG-6)."""
        catalogue.grant_magic_perk(as_game(self), power_id, perk, element, spells)

    def set_conduit(
        self,
        power_id: str,
        conduit_id: str,
        name: str,
        hex_id: str,
        kind: str = "person",
        *,
        tower: bool = False,
        capitol: bool = False,
    ) -> None:
        """GM: something a power casts through, and where it is now (P-MAG-5); setting it again moves it."""
        catalogue.set_conduit(as_game(self), power_id, conduit_id, name, hex_id, kind, tower=tower, capitol=capitol)

    def remove_conduit(self, power_id: str, conduit_id: str) -> None:
        """GM: the power can no longer cast through this (an heir died, a shrine was removed)."""
        catalogue.remove_conduit(as_game(self), power_id, conduit_id)

    # ------------------------------------------------------------------ mana held by an action

    def _open_action(self, action_id: str, power_id: str | None, now: datetime) -> ActionState:
        return mm.open_action(as_game(self), action_id, power_id, now)

    def channel_mana(self, action_id: str, element: str, amount: int, *, now: datetime) -> None:
        """GM: the action's power gains mana during that action, held by the action (P-AMB-37)."""
        mm.channel_mana(as_game(self), action_id, element, amount, now=now)

    def contribute_mana(
        self, power_id: str, action_id: str, mana: list[str], *, now: datetime, actor: str | None = None
    ) -> None:
        """A declared collaborator puts mana from its wallet into an action, for its ritual ([003:523])."""
        mm.contribute_mana(as_game(self), power_id, action_id, mana, now=now, actor=actor)

    def pay_mana(
        self,
        power_id: str,
        action_id: str,
        cost: str,
        *,
        now: datetime,
        pay: list[str] | None = None,
        actor: str | None = None,
    ) -> dict[str, Any]:
        """Pay an action's own mana cost by the rules of spell costs (P-MAG-2)."""
        return mm.pay_mana(as_game(self), power_id, action_id, cost, now=now, pay=pay, actor=actor)

    def _mana_channelled(
        self, *, action_id: str, power_id: str, element: str, amount: int, actor: str, audience: list[str]
    ) -> None:
        """Record ManaChannelled (development records a Channel Influence's mana through this)."""
        record(
            self,
            mm.ManaChannelled,
            action_id=action_id,
            power_id=power_id,
            element=element,
            amount=amount,
            actor=actor,
            audience=audience,
        )

    def _season_mana(self) -> None:
        mm.season_mana(as_game(self))

    # ------------------------------------------------------------------ casting

    def _check_spell_assets(self, power_id: str, chosen: list[tuple[Asset, str]], where: dict[str, Any] | None) -> None:
        """A spell held as an asset joins a pool once it has been cast for it (P-ASSET-8)."""
        casting.check_spell_assets(self.state, power_id, chosen, where)

    def cast_spell(
        self,
        power_id: str,
        cast_id: str,
        spell_id: str,
        *,
        now: datetime,
        through: str,
        target: str | None = None,
        action_id: str | None = None,
        pay: list[str] | None = None,
        actor: str | None = None,
    ) -> dict[str, Any]:
        """Cast a spell or ritual the power knows, through one of its conduits, paying its mana
        (``magic_casting.cast_spell``); returns what the cast event records."""
        return casting.cast_spell(
            as_game(self),
            power_id,
            cast_id,
            spell_id,
            now=now,
            through=through,
            target=target,
            action_id=action_id,
            pay=pay,
            actor=actor,
        )

    # ------------------------------------------------------------------ rituals at Resolution

    def _ritual_resisted(self, action: ActionState, resist: Mapping[str, int]) -> tuple[int, int] | None:
        return rituals.ritual_resisted(as_game(self), action, resist)

    def _conclude_ritual(self, action_id: str) -> None:
        rituals.conclude_ritual(as_game(self), action_id)

    def declare_dispel(self, action_id: str, ritual_cast_id: str) -> None:
        """GM: this action tries to dispel a permanent ritual, at its original difficulty (P-RES-6)."""
        rituals.declare_dispel(as_game(self), action_id, ritual_cast_id)


# ---------------------------------------------------------------------- commands


@dataclass(frozen=True)
class GrantMana(Command):
    """GM: a power gains mana of one element, up to its storage cap (P-MAG-1)."""

    power_id: str
    element: str
    amount: int


@dataclass(frozen=True)
class ChannelMana(Command):
    """GM: mana a power gains during one of its actions, spent in it or lost with it (P-AMB-37)."""

    action_id: str
    element: str
    amount: int


@dataclass(frozen=True)
class ContributeMana(Command):
    """A declared collaborator puts mana into an action for its ritual ([003:523])."""

    power_id: str
    action_id: str
    mana: list[str]


@dataclass(frozen=True)
class PayMana(Command):
    """Pay one's action's mana cost (``AW``), by the rules of spell costs (P-MAG-2)."""

    power_id: str
    action_id: str
    cost: str
    pay: list[str] | None = None


@dataclass(frozen=True)
class DefineSpell(Command):
    """GM: add a spell or ritual to this game, or approve a power's own design (GM-15, P-AMB-42)."""

    spell_id: str
    name: str
    speed: str
    cost: str
    range: int = 0
    difficulty: int | None = None
    power_specific: bool = False
    permanent: bool | None = None
    for_power: str | None = None


@dataclass(frozen=True)
class TeachSpell(Command):
    """GM: a power learns a spell or ritual."""

    power_id: str
    spell_id: str


@dataclass(frozen=True)
class GrantMagicPerk(Command):
    """GM: a perk that changes a power's mana storage or casting (P-MAG-1, P-MAG-6)."""

    power_id: str
    perk: str
    element: str | None = None
    spells: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class SetConduit(Command):
    """GM: something a power casts through, and the hex it is in (P-MAG-5)."""

    power_id: str
    name: str
    hex_id: str
    kind: str = "person"
    conduit_id: str | None = None
    tower: bool = False
    capitol: bool = False


@dataclass(frozen=True)
class RemoveConduit(Command):
    """GM: a power no longer casts through this."""

    power_id: str
    conduit_id: str


@dataclass(frozen=True)
class CastSpell(Command):
    """Cast a known spell or ritual through a conduit, at a target hex, paying its mana (P-MAG-2..6)."""

    power_id: str
    spell_id: str
    through: str
    target: str | None = None
    action_id: str | None = None
    pay: list[str] | None = None


@dataclass(frozen=True)
class DeclareDispel(Command):
    """GM: an action dispels a permanent ritual, at that ritual's original difficulty (P-RES-6)."""

    action_id: str
    ritual: str


def grant_mana(game: Game, cmd: GrantMana, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    game.grant_mana(cmd.power_id, cmd.element, cmd.amount)
    return {"mana": dict(game.state.powers[cmd.power_id].mana)}


def channel_mana(game: Game, cmd: ChannelMana, ctx: Context) -> None:
    require_gm(ctx)
    game.channel_mana(cmd.action_id, cmd.element, cmd.amount, now=ctx.now)


def contribute_mana(game: Game, cmd: ContributeMana, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    game.contribute_mana(cmd.power_id, cmd.action_id, list(cmd.mana), now=ctx.now, actor=ctx.principal)
    return {"mana": dict(game.state.powers[cmd.power_id].mana)}


def pay_mana(game: Game, cmd: PayMana, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    out = game.pay_mana(
        cmd.power_id,
        cmd.action_id,
        cmd.cost,
        now=ctx.now,
        pay=None if cmd.pay is None else list(cmd.pay),
        actor=ctx.principal,
    )
    return {**out, "mana": dict(game.state.powers[cmd.power_id].mana)}


def define_spell(game: Game, cmd: DefineSpell, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    game.define_spell(
        cmd.spell_id,
        cmd.name,
        cmd.speed,
        cmd.cost,
        range=cmd.range,
        difficulty=cmd.difficulty,
        power_specific=cmd.power_specific,
        permanent=cmd.permanent,
        for_power=cmd.for_power,
    )
    return {"spell_id": cmd.spell_id}


def teach_spell(game: Game, cmd: TeachSpell, ctx: Context) -> None:
    require_gm(ctx)
    game.teach_spell(cmd.power_id, cmd.spell_id)


def grant_magic_perk(game: Game, cmd: GrantMagicPerk, ctx: Context) -> None:
    require_gm(ctx)
    game.grant_magic_perk(cmd.power_id, cmd.perk, cmd.element, list(cmd.spells))


def set_conduit(game: Game, cmd: SetConduit, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    conduit_id = cmd.conduit_id or ctx.new_id("conduit")
    game.set_conduit(cmd.power_id, conduit_id, cmd.name, cmd.hex_id, cmd.kind, tower=cmd.tower, capitol=cmd.capitol)
    return {"conduit_id": conduit_id}


def remove_conduit(game: Game, cmd: RemoveConduit, ctx: Context) -> None:
    require_gm(ctx)
    game.remove_conduit(cmd.power_id, cmd.conduit_id)


def cast_spell(game: Game, cmd: CastSpell, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    cast = game.cast_spell(
        cmd.power_id,
        ctx.new_id("cast"),
        cmd.spell_id,
        now=ctx.now,
        through=cmd.through,
        target=cmd.target,
        action_id=cmd.action_id,
        pay=None if cmd.pay is None else list(cmd.pay),
        actor=ctx.principal,
    )
    return {**cast, "mana": dict(game.state.powers[cmd.power_id].mana)}


def declare_dispel(game: Game, cmd: DeclareDispel, ctx: Context) -> None:
    require_gm(ctx)
    game.declare_dispel(cmd.action_id, cmd.ritual)


MAGIC_COMMANDS: Mapping[type, Handler] = {
    GrantMana: grant_mana,
    ChannelMana: channel_mana,
    ContributeMana: contribute_mana,
    PayMana: pay_mana,
    DefineSpell: define_spell,
    TeachSpell: teach_spell,
    GrantMagicPerk: grant_magic_perk,
    SetConduit: set_conduit,
    RemoveConduit: remove_conduit,
    CastSpell: cast_spell,
    DeclareDispel: declare_dispel,
}


# ---------------------------------------------------------------------- views


def _power_magic(state: Any, power_id: str, *, owner: bool) -> dict[str, Any]:
    mine = power_magic(state, power_id)
    out: dict[str, Any] = {
        "perks": {k: {"elements": list(v["elements"])} for k, v in sorted(perks_of(state, power_id).items())}
    }
    if not owner:
        return out  # P.4: perks are public; mana, spells and conduits are not
    ps = state.powers[power_id]
    perfected = perks_of(state, power_id).get("perfected_spell", {}).get("spells", [])
    known = [spell_def(state, sid) for sid in mine.get("known", [])]
    out.update(
        {
            "mana": dict(ps.mana),
            "caps": caps_of(state, power_id),
            "vessel_heart": has_perk(state, power_id, "vessel_heart"),
            "known": [spell_summary(state, sp, power_id) | {"perfected": sp.id in perfected} for sp in known if sp],
            "conduits": [dict(c) for _, c in sorted(mine.get("conduits", {}).items())],
            "casts_this_month": [dict(c) for c in month_casts(state, power_id)],
            "action_mana": {
                a.id: {"channelled": dict(pool["channelled"]), "contributed": dict(pool["contributed"])}
                for a in state.actions.values()
                if a.power == power_id and a.status not in ("resolved", "discarded")
                for pool in [pool_of(state, a.id)]
                if pool["channelled"] or pool["contributed"]
            },
            "rituals_completed": {
                k: dict(v) for k, v in sorted(magic_of(state).get("completed", {}).items()) if v["power_id"] == power_id
            },
        }
    )
    return out


def magic_view(game: Game, viewer: str) -> dict[str, Any]:
    """Magic as ``viewer`` may see it (P.4): the public catalogue and everyone's perks; its own mana, caps,
    spells, conduits and casts; the GM sees every power's, every design and every ritual's inflation."""
    s = game.state
    is_gm = viewer == GM
    spells = [*CATALOGUE.values(), *(Spell(**d) for _, d in sorted(magic_of(s).get("spells", {}).items()))]
    out: dict[str, Any] = {
        "elements": dict(mr.ELEMENT_NAMES),
        "catalogue": [
            spell_summary(s, sp, None) | ({"for_power": sp.for_power} if sp.for_power else {})
            for sp in spells
            if sp.for_power is None or is_gm or sp.for_power == viewer
        ],
        "powers": {pid: _power_magic(s, pid, owner=is_gm or pid == viewer) for pid in sorted(s.powers)},
    }
    if is_gm:
        out["inflation"] = dict(sorted(magic_of(s).get("inflation", {}).items()))
    return out
