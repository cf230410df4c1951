"""The GM's side of magic (P.2.9): the spells of this game (GM-15, P-AMB-42), the spells each power knows, its magic
perks (P-MAG-1, P-MAG-6) and the conduits it casts through (P-MAG-5). Perks are public (P.4); which spells a
Perfected Spell perfects, what a power knows and its conduits are its own."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain import limits
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM
from domain.powers import hexmap
from domain.powers import magic_rules as mr
from domain.powers.magic_state import (
    MagicEvent,
    check_names,
    fold_power,
    magic_of,
    perks_of,
    power_magic,
    record,
    spell_def,
)
from domain.powers.spells import NAMED_WITHOUT_COST, Spell

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState

MAX_RANGE = 30


def define_spell(
    game: Game,
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
    limits.check_text(spell_id, "spell_id", limits.IDENTIFIER)
    limits.check_text(name, "name", limits.ASSET_NAME, required=True, what="a spell's name")
    if spell_def(game.state, spell_id) is not None:
        raise RuleViolation(f"this game already has a spell {spell_id!r}", rule="P-MAG-2", field="spell_id")
    mr.rank(speed, mr.parse_cost(cost))  # the speed and the cost parse (P-MAG-2, P-MAG-3)
    if not isinstance(range, int) or not 0 <= range <= MAX_RANGE:
        raise RuleViolation(f"a range is 0 to {MAX_RANGE} hexes", rule="P-MAG-5", field="range")
    if speed != "ritual" and (difficulty is not None or power_specific or permanent):
        raise RuleViolation(
            "only a ritual has a difficulty, a power-specific cost or a permanent effect",
            rule="P-MAG-3",
            field="speed",
        )
    if difficulty is not None and not 0 <= difficulty <= 50:
        raise RuleViolation("a difficulty is a whole number from 0 to 50", rule="P-DICE-1", field="difficulty")
    if for_power is not None:
        game.power(for_power)
    spell = Spell(
        id=spell_id,
        name=name.strip(),
        speed=speed,
        cost=mr.parse_cost(cost).text,
        range=range,
        difficulty=difficulty,
        power_specific=power_specific,
        # [003:501] "rituals are permanent, unless otherwise stated"
        permanent=(speed == "ritual") if permanent is None else permanent,
        for_power=for_power,
        source="defined by the GM",
    )
    audience = [vis.PUBLIC] if for_power is None else vis.powers([for_power])
    record(game, SpellDefined, **spell.as_dict(), actor=GM, audience=audience)


def teach_spell(game: Game, power_id: str, spell_id: str) -> None:
    """GM: a power learns a spell or ritual (from its class, a perk, a scroll, a design...)."""
    game.power(power_id)
    check_names(spell_id=spell_id)
    spell = spell_def(game.state, spell_id)
    if spell is None and spell_id in NAMED_WITHOUT_COST:
        raise RuleViolation(
            f"{NAMED_WITHOUT_COST[spell_id]} is named by the rules without a cost: the GM defines it first "
            "(DefineSpell, with its speed and cost)",
            rule="P-AMB-42",
            field="spell_id",
        )
    if spell is None:
        raise NotFound(f"no spell {spell_id!r} in this game", rule="GM-15", field="spell_id")
    if spell.for_power is not None and spell.for_power != power_id:
        raise RuleViolation(
            "a power's design is its own: the magic of each power is too unique to teach ([003:511])",
            rule="GM-15",
            field="spell_id",
        )
    if spell_id in power_magic(game.state, power_id).get("known", []):
        raise RuleViolation(f"the power already knows {spell.name!r}", rule="P-ASSET-8", field="spell_id")
    record(
        game,
        SpellLearned,
        power_id=power_id,
        spell_id=spell_id,
        name=spell.name,
        actor=GM,
        audience=vis.powers([power_id]),
    )


def grant_magic_perk(
    game: Game, power_id: str, perk: str, element: str | None = None, spells: list[str] | None = None
) -> None:
    """GM: record a perk that changes storage or casting (P-MAG-1, P-MAG-6). Perks are public (P.4);
    which spells a Perfected Spell perfects is told to the power alone."""
    game.power(power_id)
    check_names(perk=perk, element=element)
    if spells is not None and not all(isinstance(x, str) for x in spells):
        raise RuleViolation("name the perfected spells by their ids", rule="P-MAG-6", field="spells")
    if perk not in mr.MAGIC_PERKS:
        raise RuleViolation(
            f"a magic perk is one of {', '.join(mr.MAGIC_PERKS)}; {perk!r} is not", rule="P-MAG-6", field="perk"
        )
    held = perks_of(game.state, power_id)
    if perk in mr.ELEMENT_PERKS:
        _check_element_perk(held, perk, element)
    elif element is not None:
        raise RuleViolation(f"{perk} names no element", rule="P-MAG-6", field="element")
    if perk == "witchcraft" and game.power(power_id).cls != "conspiracy":
        raise RuleViolation(
            "Witchcraft is an influence generation mechanism of a conspiracy", rule="P-INFL-5", field="perk"
        )
    spells = list(spells or [])
    if perk == "perfected_spell":
        known = power_magic(game.state, power_id).get("known", [])
        before = held.get(perk, {}).get("spells", [])
        for s in spells:
            if s not in known:
                raise RuleViolation("a Perfected Spell is one the power knows", rule="P-MAG-6", field="spells")
        if not spells or len(set(before) | set(spells)) > mr.PERFECTED_MAX or set(spells) & set(before):
            raise RuleViolation(
                f"perfect one new spell, up to {mr.PERFECTED_MAX} with the upgrade", rule="P-MAG-6", field="spells"
            )
    elif spells:
        raise RuleViolation(f"{perk} names no spells", rule="P-MAG-6", field="spells")
    elif perk in held and perk not in mr.REPEATABLE_PERKS:
        raise RuleViolation(f"the power already has {perk}", rule="P-MAG-6", field="perk")
    if perk not in held or perk in mr.REPEATABLE_PERKS:
        record(game, MagicPerkGranted, power_id=power_id, perk=perk, element=element, actor=GM, audience=[vis.PUBLIC])
    if spells:
        record(game, SpellsPerfected, power_id=power_id, spells=spells, actor=GM, audience=vis.powers([power_id]))


def _check_element_perk(held: dict[str, dict[str, list[str]]], perk: str, element: str | None) -> None:
    """A perk of an element names one it allows, a different one each time (P-MAG-1, P-MAG-6)."""
    if element is None:
        raise RuleViolation(f"{perk} names an element", rule="P-MAG-1", field="element")
    mr.check_element(element)
    allowed = mr.PERK_ELEMENTS.get(perk, mr.ELEMENTS)
    if element not in allowed:
        raise RuleViolation(f"{perk}'s element is one of {', '.join(allowed)}", rule="P-MAG-6", field="element")
    if element in held.get(perk, {}).get("elements", []):
        raise RuleViolation(f"{perk} needs a different element each time", rule="P-MAG-6", field="element")
    if perk in held and perk not in mr.REPEATABLE_PERKS:
        raise RuleViolation(f"the power already has {perk}", rule="P-MAG-6", field="perk")


def set_conduit(
    game: Game,
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
    game.power(power_id)
    limits.check_text(conduit_id, "conduit_id", limits.IDENTIFIER)
    limits.check_text(name, "name", limits.ASSET_NAME, required=True, what="a conduit's name")
    hexmap.parse_hex(hex_id)
    if kind not in mr.CONDUIT_KINDS:
        raise RuleViolation(
            f"a conduit is one of {', '.join(mr.CONDUIT_KINDS)}; {kind!r} is not", rule="P-MAG-5", field="kind"
        )
    record(
        game,
        ConduitSet,
        power_id=power_id,
        conduit_id=conduit_id,
        name=name.strip(),
        hex_id=hex_id,
        kind=kind,
        tower=bool(tower),
        capitol=bool(capitol),
        actor=GM,
        audience=vis.powers([power_id]),
    )


def remove_conduit(game: Game, power_id: str, conduit_id: str) -> None:
    """GM: the power can no longer cast through this (an heir died, a shrine was removed)."""
    game.power(power_id)
    check_names(conduit_id=conduit_id)
    if conduit_id not in power_magic(game.state, power_id).get("conduits", {}):
        raise NotFound(f"the power casts through no {conduit_id!r}", rule="P-MAG-5", field="conduit_id")
    record(game, ConduitRemoved, power_id=power_id, conduit_id=conduit_id, actor=GM, audience=vis.powers([power_id]))


# ---------------------------------------------------------------------- events


class SpellDefined(MagicEvent):
    id: str
    name: str
    speed: str
    cost: str
    range: int
    difficulty: int | None
    power_specific: bool
    permanent: bool
    for_power: str | None
    source: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        magic_of(s).setdefault("spells", {})[self.id] = Spell(
            self.id,
            self.name,
            self.speed,
            self.cost,
            self.range,
            self.difficulty,
            self.power_specific,
            self.permanent,
            self.for_power,
            self.source,
        ).as_dict()


class SpellLearned(MagicEvent):
    power_id: str
    spell_id: str
    name: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        fold_power(s, self.power_id)["known"].append(self.spell_id)


class MagicPerkGranted(MagicEvent):
    power_id: str
    perk: str
    element: str | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        perks = fold_power(s, self.power_id)["perks"]
        params = perks.setdefault(self.perk, {"elements": [], "spells": []})
        if self.element is not None:
            params["elements"].append(self.element)


class SpellsPerfected(MagicEvent):
    power_id: str
    spells: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        perks = fold_power(s, self.power_id)["perks"]
        perks.setdefault("perfected_spell", {"elements": [], "spells": []})["spells"].extend(self.spells)


class ConduitSet(MagicEvent):
    power_id: str
    conduit_id: str
    name: str
    hex_id: str
    kind: str
    tower: bool
    capitol: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        fold_power(s, self.power_id)["conduits"][self.conduit_id] = {
            "id": self.conduit_id,
            "name": self.name,
            "hex": self.hex_id,
            "kind": self.kind,
            "tower": self.tower,
            "capitol": self.capitol,
        }


class ConduitRemoved(MagicEvent):
    power_id: str
    conduit_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        del fold_power(s, self.power_id)["conduits"][self.conduit_id]
