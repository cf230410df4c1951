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
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from eventsourcing.domain import event

from domain import limits
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.platform.game import PlatformGame, _at
from domain.powers import hexmap
from domain.powers import magic_rules as mr
from domain.powers.spells import CATALOGUE, NAMED_WITHOUT_COST, Spell

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, Asset, GameState

MAX_RANGE = 30


class MagicPerk(TypedDict):
    """A magic perk's choices: its elements and, for Perfected Spell, its spells."""

    elements: list[str]
    spells: list[str]


class Conduit(TypedDict):
    """What a power casts through (P-MAG-5): an heir, a mage, a shrine, an army..., where it stands."""

    id: str
    name: str
    hex: str
    kind: str
    tower: bool
    capitol: bool


class PowerMagic(TypedDict, total=False):
    """A power's magic record (empty until something is recorded; its first record has perks, known and conduits):
    its magic perks the GM recorded, spells known, conduits, the season Witchcraft last gave influence and when each
    Mana Gardens last reduced a ritual ([003:453])."""

    perks: dict[str, MagicPerk]
    known: list[str]
    conduits: dict[str, Conduit]
    witchcraft_season: int
    gardens: dict[str, int]


class ActionMana(TypedDict):
    """Mana held by one of this month's actions (P-AMB-37, [003:523]), element -> amount; what ``pool_of`` gives for
    an action that holds none has no season and month."""

    season: NotRequired[int]
    month: NotRequired[int]
    channelled: dict[str, int]
    contributed: dict[str, int]


class MagicState(TypedDict, total=False):
    """``GameState.magic``: see the module's docstring."""

    spells: dict[str, dict[str, Any]]
    powers: dict[str, PowerMagic]
    inflation: dict[str, int]
    casts: dict[str, dict[str, Any]]
    pools: dict[str, ActionMana]
    completed: dict[str, dict[str, Any]]


def _magic(state: GameState) -> MagicState:
    return state.magic


def _of(state: GameState, power_id: str) -> PowerMagic:
    return _magic(state).get("powers", {}).get(power_id, {})


def _fold_power(state: GameState, power_id: str) -> PowerMagic:
    """A power's magic record, created on first use (only event bodies call this)."""
    powers = _magic(state).setdefault("powers", {})
    return powers.setdefault(power_id, {"perks": {}, "known": [], "conduits": {}})


def perks_of(state: Any, power_id: str) -> dict[str, dict[str, list[str]]]:
    """The power's magic perks (perk -> ``{"elements", "spells"}``): those it holds through development
    (``domain.powers.development``: bought with fame or granted at the start, named as the rules name them,
    their choice an element) and those the GM recorded here (class features' choices, Witchcraft)."""
    out = {
        k: {"elements": list(v["elements"]), "spells": list(v["spells"])}
        for k, v in _of(state, power_id).get("perks", {}).items()
    }
    development = getattr(state, "development", None)
    holdings = development.holdings.get(power_id) if development is not None else None
    for held in holdings.perks if holdings is not None else []:
        key = mr.perk_key(held["name"])
        if key not in mr.MAGIC_PERKS:
            continue
        params = out.setdefault(key, {"elements": [], "spells": []})
        element = mr.element_named(held.get("detail", ""))
        if key in mr.ELEMENT_PERKS and element is not None and element not in params["elements"]:
            params["elements"].append(element)
    return out


def caps_of(state: Any, power_id: str) -> dict[str, int]:
    """P-MAG-1: the power's storage cap per element, from its class and magic perks."""
    return mr.storage_caps(state.powers[power_id].subclass, perks_of(state, power_id))


def kept_gain(state: Any, power_id: str, element: str, amount: int) -> int:
    """How much of ``amount`` mana an action's outcome leaves a power: up to its storage cap (P-MAG-1); the rest
    is lost with the action that made it (P-AMB-37: a power whose cap is 0 spends such mana within that action
    or loses it). Both Channel (P.2.12) and Channel Influence (P-INFL-6) follow this one rule."""
    have = int(state.powers[power_id].mana.get(element, 0))
    return max(0, min(int(amount), caps_of(state, power_id).get(element, 0) - have))


def has_perk(state: Any, power_id: str, perk: str) -> bool:
    return perk in perks_of(state, power_id)


def spell_def(state: Any, spell_id: str) -> Spell | None:
    """A spell of this game: shipped, or defined by the GM."""
    if spell_id in CATALOGUE:
        return CATALOGUE[spell_id]
    data = _magic(state).get("spells", {}).get(spell_id)
    return Spell(**data) if data is not None else None


def inflation_key(spell: Spell, power_id: str) -> str:
    """P-MAG-4: a ritual granted by a power's own rules inflates for that power only; others for everyone."""
    return f"{power_id}/{spell.id}" if spell.power_specific else spell.id


def current_cost(state: Any, spell: Spell, power_id: str) -> mr.Cost:
    """The cost now: a ritual's grows by 2 generic for every earlier success (P-MAG-4)."""
    base = mr.parse_cost(spell.cost)
    if spell.speed != "ritual":
        return base
    return mr.inflated(base, _magic(state).get("inflation", {}).get(inflation_key(spell, power_id), 0))


def spell_summary(state: Any, spell: Spell, power_id: str | None) -> dict[str, Any]:
    """A spell as a viewer reads it: its cost (inflated for rituals), rank and difficulty (P-MAG-3)."""
    cost = current_cost(state, spell, power_id) if power_id else mr.parse_cost(spell.cost)
    out = {
        "spell_id": spell.id,
        "name": spell.name,
        "speed": spell.speed,
        "cost": cost.text,
        "base_cost": spell.cost,
        "elements": cost.elements,
        "rank": mr.rank(spell.speed, cost),
        "range": spell.range,
        "source": spell.source,
    }
    if spell.speed == "ritual":
        out["difficulty"] = mr.ritual_difficulty(cost, spell.difficulty)
        out["permanent"] = spell.permanent
    return out


def _month_casts(state: Any, power_id: str) -> list[dict[str, Any]]:
    return [
        c
        for c in _magic(state).get("casts", {}).values()
        if c["power_id"] == power_id and (c["season"], c["month"]) == (state.season, state.month)
    ]


def _casts_on(state: Any, action_id: str) -> list[dict[str, Any]]:
    return [
        c
        for c in _magic(state).get("casts", {}).values()
        if c.get("action_id") == action_id and (c["season"], c["month"]) == (state.season, state.month)
    ]


def pool_of(state: GameState, action_id: str) -> ActionMana:
    """This month's mana pool of an action: ``channelled`` (the owner's, P-AMB-37) and ``contributed``."""
    pool = _magic(state).get("pools", {}).get(action_id)
    if pool is None or (pool.get("season"), pool.get("month")) != (state.season, state.month):
        return {"channelled": {}, "contributed": {}}
    return pool


def _fold_pool(state: GameState, action_id: str) -> ActionMana:
    pools = _magic(state).setdefault("pools", {})
    for old in [k for k, p in pools.items() if (p.get("season"), p.get("month")) != (state.season, state.month)]:
        del pools[old]
    return pools.setdefault(
        action_id, {"season": state.season, "month": state.month, "channelled": {}, "contributed": {}}
    )


def _add(wallet: dict[str, int], mana: Mapping[str, int], sign: int = 1) -> None:
    for e, n in mana.items():
        wallet[e] = wallet.get(e, 0) + sign * n
    for e in [e for e, n in wallet.items() if n <= 0]:
        del wallet[e]


def _check_reach(spell: Spell, conduit: Conduit, target: str, *, capitol_doubles: bool) -> None:
    """P-MAG-5: a spell reaches its range from the conduit it is cast through (further from a tower, or from a
    capitol for the subclasses it doubles)."""
    reach = mr.reach(
        spell.range, tower=conduit["tower"], capitol=conduit["capitol"] and capitol_doubles, speed=spell.speed
    )
    if hexmap.distance(conduit["hex"], target) > reach:
        raise RuleViolation(
            f"{spell.name} reaches {reach} hex(es) from {conduit['name']} at {conduit['hex']}; "
            f"{target} is {hexmap.distance(conduit['hex'], target)} away",
            rule="P-MAG-5",
            field="target",
        )


def _check_pay(pay: list[str] | None) -> None:
    """P-MAG-2: a payment lists mana by element letter."""
    if pay is not None and not all(isinstance(e, str) for e in pay):
        raise RuleViolation("a payment lists mana by element letter", rule="P-MAG-2", field="pay")


def _known_spell(state: Any, mine: PowerMagic, spell_id: str) -> Spell:
    """A spell the power knows (P-ASSET-8)."""
    spell = spell_def(state, spell_id)
    if spell is None or spell_id not in mine.get("known", []):
        raise NotFound(f"the power knows no spell {spell_id!r}", rule="P-ASSET-8", field="spell_id")
    return spell


def _garden_seasons(season: int, mine: PowerMagic, garden: str | None) -> int:
    """The seasons since the power last used the Mana Gardens ``garden`` (none without one); P-AMB-28: the count
    starts at the start of the epic (season 0) when the gardens were never used."""
    if garden is None:
        return 0
    last: int = mine.get("gardens", {}).get(garden, 0)
    return max(0, season - last)


def _conduit(mine: PowerMagic, through: str) -> Conduit:
    """P-MAG-5: the conduit a power casts through is one of its own."""
    conduit = mine.get("conduits", {}).get(through)
    if conduit is None:
        raise RuleViolation(
            f"the power casts through no {through!r}: name one of its conduits", rule="P-MAG-5", field="through"
        )
    return conduit


def _effective_rank(
    state: Any, power_id: str, spell: Spell, base_rank: int, earlier: list[dict[str, Any]], conduit: Conduit
) -> int:
    """A cast's effective rank: Steady Sorcery raises a Slow spell's by the unique Slow spells cast before it
    this month, Borrowed Magic changes one cast through an army."""
    unique_slow = len({c["spell_id"] for c in earlier if c["speed"] == "slow"})
    return mr.effective_rank(
        base_rank,
        unique_slow_before=unique_slow if spell.speed == "slow" and has_perk(state, power_id, "steady_sorcery") else 0,
        through_army=conduit["kind"] == "army" and has_perk(state, power_id, "borrowed_magic"),
    )


def _cast_effects(
    state: Any,
    mine: PowerMagic,
    power_id: str,
    spell: Spell,
    cost: mr.Cost,
    conduit: Conduit,
    target: str,
    base_rank: int,
) -> dict[str, Any]:
    """What a cast sets going besides its spell: a ritual's difficulty and inflation key (P-MAG-3), an
    Indentured Mage's Uprising, Witchcraft's influence."""
    return {
        "difficulty": mr.ritual_difficulty(cost, spell.difficulty) if spell.speed == "ritual" else None,
        "inflation_key": inflation_key(spell, power_id) if spell.speed == "ritual" else None,
        # Indentured Mages [003:1070]: the town where they cast gains Uprising equal to the generic cost.
        "uprising": {"hex": conduit["hex"], "amount": cost.generic} if conduit["kind"] == "mage" else None,
        # P-INFL-5 Witchcraft: once a season, influence equal to the spell's rank in the targeted hex.
        "influence": {"hex": target, "amount": base_rank}
        if has_perk(state, power_id, "witchcraft") and mine.get("witchcraft_season") != state.season
        else None,
    }


def _perfected_reduction(spell: Spell, earlier: list[dict[str, Any]], perks: Mapping[str, dict[str, list[str]]]) -> int:
    """Perfected Spell: the cost a perfected spell (not a ritual) loses for its casts earlier this month."""
    if spell.id not in perks.get("perfected_spell", {}).get("spells", []) or spell.speed == "ritual":
        return 0
    return mr.perfected_reduction(sum(1 for c in earlier if c["spell_id"] == spell.id))


def _pay(
    state: Any,
    power_id: str,
    wallet: Mapping[str, int],
    spell: Spell,
    payable: mr.Cost,
    action_id: str | None,
    pay: list[str] | None,
) -> tuple[mr.Payment, dict[str, dict[str, int]], dict[str, int]]:
    """P-MAG-2: the mana a cast spends, from the power's wallet and its action's channelled mana (and the
    contributed mana, for a ritual); without ``pay``, paid in kind and the generic part from the most
    plentiful. Returns the payment, what it drew from each pool and what from the wallet."""
    pool = pool_of(state, action_id) if action_id else {"channelled": {}, "contributed": {}}
    usable = [pool["channelled"], *([pool["contributed"]] if spell.speed == "ritual" else [])]
    held = Counter(wallet)
    for source in usable:
        held.update(source)
    if pay is None:
        pay = mr.auto_payment(payable, held)
    if len(pay) > 60:
        raise RuleViolation("a payment lists at most 60 mana", rule="P-MAG-2", field="pay")
    payment = mr.check_payment(
        payable,
        pay,
        improvised=spell.speed == "fast" and has_perk(state, power_id, "improvised_instants"),
        flexible=has_perk(state, power_id, "elemental_flexibility"),
    )
    mr.check_held(payment.spent, held)
    pooled, from_wallet = _draw(payment.spent, usable)
    return payment, pooled, from_wallet


def _efficiency_refund(
    state: Any,
    power_id: str,
    wallet: Mapping[str, int],
    from_wallet: Mapping[str, int],
    cost: mr.Cost,
    perks: Mapping[str, dict[str, list[str]]],
) -> dict[str, int]:
    """Elemental Efficiency: one mana back of each chosen element the cost names, within the power's caps."""
    after = Counter(wallet)
    after.subtract(Counter(from_wallet))
    caps = caps_of(state, power_id)
    return {
        e: 1
        for e in perks.get("elemental_efficiency", {}).get("elements", [])
        if e in cost.elements and after[e] + 1 <= caps[e]
    }


def _draw(spent: Mapping[str, int], usable: list[dict[str, int]]) -> tuple[dict[str, dict[str, int]], dict[str, int]]:
    """Where a payment comes from: the action's own mana first (what it does not spend is lost with it,
    P-AMB-37, [003:523]), then the power's wallet. Returns ``(pooled, from_wallet)``."""
    need = Counter(spent)
    pooled: dict[str, dict[str, int]] = {}
    for name, source in zip(("channelled", "contributed"), usable, strict=False):
        taken = {e: min(n, need[e]) for e, n in sorted(source.items()) if min(n, need[e]) > 0}
        need.subtract(taken)
        if taken:
            pooled[name] = taken
    return pooled, {e: n for e, n in sorted(need.items()) if n > 0}


def _take(
    state: Any,
    power_id: str,
    action_id: str | None,
    pooled: Mapping[str, Mapping[str, int]],
    from_wallet: Mapping[str, int],
) -> None:
    """Fold a payment: out of the action's pool and the power's wallet."""
    _add(state.powers[power_id].mana, from_wallet, -1)
    for source, taken in pooled.items():
        pool = _fold_pool(state, str(action_id))
        _add(pool["channelled"] if source == "channelled" else pool["contributed"], taken, -1)


def ritual_of(state: Any, action_id: str) -> dict[str, Any] | None:
    """The ritual cast as this month's action ``action_id``, if it is one."""
    return next((c for c in _casts_on(state, action_id) if c["speed"] == "ritual"), None)


def _check_names(**names: Any) -> None:
    """Ids, letters and hexes are strings (or absent): anything else is refused naming the field."""
    for name, value in names.items():
        if value is not None and not isinstance(value, str):
            raise RuleViolation(f"{name} is a name, not {type(value).__name__}", rule="P-MAG-2", field=name)


class Magic(PlatformGame):
    """The magic commands and events of a Powers game (a base of ``domain.powers.game.Game``)."""

    if TYPE_CHECKING:
        power: Any  # the Game's (domain.powers.base): the platform reads a seat as ``seat``
        state: GameState

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
        limits.check_text(spell_id, "spell_id", limits.IDENTIFIER)
        limits.check_text(name, "name", limits.ASSET_NAME, required=True, what="a spell's name")
        if spell_def(self.state, spell_id) is not None:
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
            self.power(for_power)
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
        self._spell_defined(**spell.as_dict(), actor=GM, audience=audience)

    @event("SpellDefined")
    def _spell_defined(
        self,
        id: str,
        name: str,
        speed: str,
        cost: str,
        range: int,
        difficulty: int | None,
        power_specific: bool,
        permanent: bool,
        for_power: str | None,
        source: str,
        actor: str,
        audience: list[str],
    ) -> None:
        _magic(self.state).setdefault("spells", {})[id] = Spell(
            id, name, speed, cost, range, difficulty, power_specific, permanent, for_power, source
        ).as_dict()

    def teach_spell(self, power_id: str, spell_id: str) -> None:
        """GM: a power learns a spell or ritual (from its class, a perk, a scroll, a design...)."""
        self.power(power_id)
        _check_names(spell_id=spell_id)
        spell = spell_def(self.state, spell_id)
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
        if spell_id in _of(self.state, power_id).get("known", []):
            raise RuleViolation(f"the power already knows {spell.name!r}", rule="P-ASSET-8", field="spell_id")
        self._spell_learned(
            power_id=power_id, spell_id=spell_id, name=spell.name, actor=GM, audience=vis.powers([power_id])
        )

    @event("SpellLearned")
    def _spell_learned(self, power_id: str, spell_id: str, name: str, actor: str, audience: list[str]) -> None:
        _fold_power(self.state, power_id)["known"].append(spell_id)

    def grant_magic_perk(
        self, power_id: str, perk: str, element: str | None = None, spells: list[str] | None = None
    ) -> None:
        """GM: record a perk that changes storage or casting (P-MAG-1, P-MAG-6). Perks are public (P.4);
        which spells a Perfected Spell perfects is told to the power alone."""
        self.power(power_id)
        _check_names(perk=perk, element=element)
        if spells is not None and not all(isinstance(x, str) for x in spells):
            raise RuleViolation("name the perfected spells by their ids", rule="P-MAG-6", field="spells")
        if perk not in mr.MAGIC_PERKS:
            raise RuleViolation(
                f"a magic perk is one of {', '.join(mr.MAGIC_PERKS)}; {perk!r} is not", rule="P-MAG-6", field="perk"
            )
        held = perks_of(self.state, power_id)
        if perk in mr.ELEMENT_PERKS:
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
        elif element is not None:
            raise RuleViolation(f"{perk} names no element", rule="P-MAG-6", field="element")
        if perk == "witchcraft" and self.power(power_id).cls != "conspiracy":
            raise RuleViolation(
                "Witchcraft is an influence generation mechanism of a conspiracy", rule="P-INFL-5", field="perk"
            )
        spells = list(spells or [])
        if perk == "perfected_spell":
            known = _of(self.state, power_id).get("known", [])
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
            self._magic_perk_granted(
                power_id=power_id,
                perk=perk,
                element=element,
                actor=GM,
                audience=[vis.PUBLIC],
            )
        if spells:
            self._spells_perfected(power_id=power_id, spells=spells, actor=GM, audience=vis.powers([power_id]))

    @event("MagicPerkGranted")
    def _magic_perk_granted(
        self, power_id: str, perk: str, element: str | None, actor: str, audience: list[str]
    ) -> None:
        perks = _fold_power(self.state, power_id)["perks"]
        params = perks.setdefault(perk, {"elements": [], "spells": []})
        if element is not None:
            params["elements"].append(element)

    @event("SpellsPerfected")
    def _spells_perfected(self, power_id: str, spells: list[str], actor: str, audience: list[str]) -> None:
        perks = _fold_power(self.state, power_id)["perks"]
        perks.setdefault("perfected_spell", {"elements": [], "spells": []})["spells"].extend(spells)

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
        self.power(power_id)
        limits.check_text(conduit_id, "conduit_id", limits.IDENTIFIER)
        limits.check_text(name, "name", limits.ASSET_NAME, required=True, what="a conduit's name")
        hexmap.parse_hex(hex_id)
        if kind not in mr.CONDUIT_KINDS:
            raise RuleViolation(
                f"a conduit is one of {', '.join(mr.CONDUIT_KINDS)}; {kind!r} is not", rule="P-MAG-5", field="kind"
            )
        self._conduit_set(
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

    @event("ConduitSet")
    def _conduit_set(
        self,
        power_id: str,
        conduit_id: str,
        name: str,
        hex_id: str,
        kind: str,
        tower: bool,
        capitol: bool,
        actor: str,
        audience: list[str],
    ) -> None:
        _fold_power(self.state, power_id)["conduits"][conduit_id] = {
            "id": conduit_id,
            "name": name,
            "hex": hex_id,
            "kind": kind,
            "tower": tower,
            "capitol": capitol,
        }

    def remove_conduit(self, power_id: str, conduit_id: str) -> None:
        """GM: the power can no longer cast through this (an heir died, a shrine was removed)."""
        self.power(power_id)
        _check_names(conduit_id=conduit_id)
        if conduit_id not in _of(self.state, power_id).get("conduits", {}):
            raise NotFound(f"the power casts through no {conduit_id!r}", rule="P-MAG-5", field="conduit_id")
        self._conduit_removed(power_id=power_id, conduit_id=conduit_id, actor=GM, audience=vis.powers([power_id]))

    @event("ConduitRemoved")
    def _conduit_removed(self, power_id: str, conduit_id: str, actor: str, audience: list[str]) -> None:
        del _fold_power(self.state, power_id)["conduits"][conduit_id]

    # ------------------------------------------------------------------ mana held by an action

    def _open_action(self, action_id: str, power_id: str | None, now: datetime) -> ActionState:
        s = self.state
        a = s.actions.get(action_id)
        if a is None or (power_id is not None and a.power != power_id):
            raise NotFound(f"no action {action_id!r} this month", rule="P-MAG-1", field="action_id")
        if s.step != "planning":
            raise RuleViolation(f"this is done during Planning; this is {s.step.title()}", rule="P.1.2")
        w = self.open_window("planning")
        if w is not None and now >= _at(w.deadline_for(a.power)):
            raise RuleViolation(
                f"the Planning deadline passed at {w.deadline_for(a.power)}", rule="P.1.2", field="deadline"
            )
        if a.discarded:
            raise RuleViolation("this action was discarded", rule="P-DICE-10", field="action_id")
        return a

    def channel_mana(self, action_id: str, element: str, amount: int, *, now: datetime) -> None:
        """GM: the action's power gains mana during that action (P-AMB-37): held by the action whatever the
        power's storage cap, spent by its casts, and lost with the action if left over."""
        _check_names(action_id=action_id, element=element)
        a = self._open_action(action_id, None, now)
        mr.check_element(element)
        if not isinstance(amount, int) or not 1 <= amount <= 20:
            raise RuleViolation("mana is gained 1 to 20 at a time", rule="P-MAG-1", field="amount")
        self._mana_channelled(
            action_id=action_id,
            power_id=a.power,
            element=element,
            amount=amount,
            actor=GM,
            audience=vis.powers([a.power]),
        )

    @event("ManaChannelled")
    def _mana_channelled(
        self, action_id: str, power_id: str, element: str, amount: int, actor: str, audience: list[str]
    ) -> None:
        _add(_fold_pool(self.state, action_id)["channelled"], {element: amount})

    def contribute_mana(
        self, power_id: str, action_id: str, mana: list[str], *, now: datetime, actor: str | None = None
    ) -> None:
        """A declared collaborator puts mana from its wallet into an action, for the ritual cast in it:
        "powers can combine their efforts and mana pools to complete a ritual" ([003:523], P-MAG-3); spells
        cannot use it. Mana the ritual does not spend is lost with the action."""
        _check_names(action_id=action_id)
        a = self._open_action(action_id, None, now)
        if power_id not in a.collaborators:
            raise RuleViolation(
                "only a declared collaborator of the action puts mana into it", rule="P-DICE-11", field="action_id"
            )
        if not mana or len(mana) > 40:
            raise RuleViolation("contribute 1 to 40 mana", rule="P-MAG-1", field="mana")
        given = Counter(mr.check_element(e, "mana") for e in mana)
        mr.check_held(given, self.power(power_id).mana)
        self._mana_contributed(
            action_id=action_id,
            power_id=power_id,
            owner=a.power,
            mana=dict(sorted(given.items())),
            actor=actor or power_id,
            audience=vis.powers([a.power, power_id]),
        )

    @event("ManaContributed")
    def _mana_contributed(
        self, action_id: str, power_id: str, owner: str, mana: dict[str, int], actor: str, audience: list[str]
    ) -> None:
        _add(_fold_pool(self.state, action_id)["contributed"], mana)
        _add(self.state.powers[power_id].mana, mana, -1)

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
        """Pay an action's own mana cost (Uplift Master's ``AW``, Sacrificial Summoning's ``FW``...) by the
        rules of spell costs (P-MAG-2), from mana the action holds first, then the wallet. The perks that
        change costs are for spells (P-MAG-6), so none applies here."""
        _check_names(action_id=action_id, cost=cost)
        if pay is not None and not all(isinstance(e, str) for e in pay):
            raise RuleViolation("a payment lists mana by element letter", rule="P-MAG-2", field="pay")
        self._open_action(action_id, power_id, now)
        price = mr.parse_cost(cost)
        usable = [pool_of(self.state, action_id)["channelled"]]
        held = Counter(self.power(power_id).mana)
        held.update(usable[0])
        payment = mr.check_payment(price, pay if pay is not None else mr.auto_payment(price, held))
        mr.check_held(payment.spent, held)
        pooled, from_wallet = _draw(payment.spent, usable)
        record: dict[str, Any] = {
            "power_id": power_id,
            "action_id": action_id,
            "cost": price.text,
            "paid": dict(sorted(payment.spent.items())),
            "pooled": pooled,
            "from_wallet": from_wallet,
        }
        self._mana_spent(**record, actor=actor or power_id, audience=vis.powers([power_id]))
        return record

    @event("ManaSpent")
    def _mana_spent(
        self,
        power_id: str,
        action_id: str,
        cost: str,
        paid: dict[str, int],
        pooled: dict[str, dict[str, int]],
        from_wallet: dict[str, int],
        actor: str,
        audience: list[str],
    ) -> None:
        _take(self.state, power_id, action_id, pooled, from_wallet)

    # ------------------------------------------------------------------ a spell held as an asset (P-ASSET-8)

    def _check_spell_assets(self, power_id: str, chosen: list[tuple[Asset, str]], where: dict[str, Any] | None) -> None:
        """P-ASSET-8: [003:132] a spell "can only be used by the caster ... They can be used repeatedly, but the
        mana cost must be paid each time." A spell asset joins an action's pool once the power cast that spell in
        the action (each cast pays for that action's one use); a reaction's, once it cast it with its reactions
        this Resistance step, one cast for each reaction that uses it."""
        s = self.state
        action_id = (where or {}).get("action_id")
        for asset, _mode in chosen:
            if asset.cls != "spell":
                continue
            named = asset.name.strip().lower()
            casts = [
                c for c in _month_casts(s, power_id) if c["spell_id"] == asset.id or c["name"].strip().lower() == named
            ]
            if where is None:  # a reaction: fast casts made with the power's reactions (P-RES-3)
                paid = sum(1 for c in casts if c["context"] == "resistance")
                used = sum(
                    1
                    for r in s.reactions.values()
                    if r.power == power_id and any(pa.asset_id == asset.id for pa in r.pool.assets)
                )
                ok = paid > used
            else:
                ok = action_id is not None and any(c["action_id"] == action_id for c in casts)
            if not ok:
                raise RuleViolation(
                    f"{asset.name!r} is a spell: its mana is paid each time it is used [003:132]. Cast it in this "
                    "action first (submit the action unrolled, cast, then roll), or with your reaction",
                    rule="P-ASSET-8",
                    field="assets",
                )

    # ------------------------------------------------------------------ casting

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
        """Cast a spell or ritual the power knows, through one of its conduits, paying its mana.

        In an action (``action_id``, during Planning): any Fast spells, at most one Slow, or one Ritual
        alone (P-ACT-3); a ritual sets its action's difficulty (P-MAG-3). Outside an action, only a Fast
        spell: in the Battle step (one per power, [003:576]) or with the power's reaction (P-RES-3): while it may
        still resist, or once it has.
        ``pay`` lists the mana spent (``["F", "F", "W", "E"]``); without it the cost is paid in kind and
        the generic part from the most plentiful mana. Returns what the cast event records.
        """
        s = self.state
        ps = self.power(power_id)
        _check_names(spell_id=spell_id, through=through, action_id=action_id, target=target)
        _check_pay(pay)
        mine = _of(s, power_id)
        spell = _known_spell(s, mine, spell_id)
        self._check_cast_context(power_id, spell, action_id, now)
        conduit = _conduit(mine, through)
        target = target if target is not None else conduit["hex"]
        _check_reach(spell, conduit, target, capitol_doubles=ps.subclass in mr.CAPITOL_DOUBLES)
        cost = current_cost(s, spell, power_id)
        earlier = _month_casts(s, power_id)
        perks = perks_of(s, power_id)
        reduction = _perfected_reduction(spell, earlier, perks)
        payable = mr.reduced(cost, reduction)
        garden = self._mana_garden(power_id, conduit["hex"]) if spell.speed == "ritual" else None
        gardens = _garden_seasons(s.season, mine, garden)
        if garden is not None:
            payable = mr.gardens_reduced(payable, gardens, s.world.hexes[conduit["hex"]]["element"])
        payment, pooled, from_wallet = _pay(s, power_id, ps.mana, spell, payable, action_id, pay)
        base_rank = mr.rank(spell.speed, cost)
        record: dict[str, Any] = {
            "cast_id": cast_id,
            "power_id": power_id,
            "spell_id": spell.id,
            "name": spell.name,
            "speed": spell.speed,
            "action_id": action_id,
            "context": "action" if action_id else s.step,
            "through": through,
            "from_hex": conduit["hex"],
            "target": target,
            "cost": cost.text,
            "reduction": reduction,
            "paid": dict(sorted(payment.spent.items())),
            "pooled": pooled,
            "from_wallet": dict(sorted(from_wallet.items())),
            "substitution": payment.substitution,
            "elements": cost.elements,
            "rank": base_rank,
            "effective_rank": _effective_rank(s, power_id, spell, base_rank, earlier, conduit),
            "refund": _efficiency_refund(s, power_id, ps.mana, from_wallet, cost, perks),
            "season": s.season,
            "month": s.month,
            **_cast_effects(s, mine, power_id, spell, cost, conduit, target, base_rank),
        }
        if garden is not None and gardens:
            self._mana_gardens_used(
                power_id=power_id,
                feature_id=garden,
                cast_id=cast_id,
                reduction=gardens,
                season=s.season,
                actor=actor or power_id,
                audience=vis.powers([power_id]),
            )
        self._spell_cast(**record, actor=actor or power_id, audience=vis.powers([power_id]))
        return record

    def _mana_garden(self, power_id: str, hex_id: str) -> str | None:
        """The working stronghold of this power with Mana Gardens at ``hex_id``, where a ritual is conducted
        "here" ([003:453]); an inoperable one (unpaid maintenance, P-FEAT-3) collects nothing."""
        features: dict[str, dict[str, Any]] = self.state.world.features
        for fid, f in sorted(features.items()):
            if (
                f["kind"] == "stronghold"
                and f["hex"] == hex_id
                and f["controller"] == power_id
                and not f["inoperable"]
                and "mana_gardens" in f["modules"]
            ):
                return fid
        return None

    @event("ManaGardensUsed")
    def _mana_gardens_used(
        self, power_id: str, feature_id: str, cast_id: str, reduction: int, season: int, actor: str, audience: list[str]
    ) -> None:
        _fold_power(self.state, power_id).setdefault("gardens", {})[feature_id] = season

    def _check_cast_context(self, power_id: str, spell: Spell, action_id: str | None, now: datetime) -> None:
        s = self.state
        if action_id is not None:
            a = s.actions.get(action_id)
            if a is None or a.power != power_id:
                raise NotFound(f"no action {action_id!r} of this power this month", rule="P-ACT-3", field="action_id")
            if s.step != "planning":
                raise RuleViolation(
                    f"spells are cast in an action during Planning; this is {s.step.title()}", rule="P-ACT-3"
                )
            w = self.open_window("planning")
            if w is not None and now >= _at(w.deadline_for(power_id)):
                raise RuleViolation(
                    f"the Planning deadline passed at {w.deadline_for(power_id)}", rule="P.1.2", field="deadline"
                )
            if a.discarded:
                raise RuleViolation("this action was discarded", rule="P-DICE-10", field="action_id")
            mr.check_submission([c["speed"] for c in _casts_on(s, action_id)], spell.speed)
            if spell.speed == "ritual" and a.sealed is not None:
                raise RuleViolation(
                    "a ritual's difficulty is twice its generic cost (P-MAG-3); this action has a sealed one",
                    rule="P-MAG-3",
                    field="action_id",
                )
            return
        if spell.speed != "fast":
            raise RuleViolation(
                f"a {spell.speed} {'ritual' if spell.speed == 'ritual' else 'spell'} is cast as part of an action: "
                "name the action",
                rule="P-ACT-3",
                field="action_id",
            )
        if s.step == "battle":
            if any(c["context"] == "battle" for c in _month_casts(s, power_id)):
                raise RuleViolation(
                    "in Battle's spellcasting step each power casts up to one fast spell ([003:576])",
                    rule="P-ACT-3",
                    field="spell_id",
                )
            return
        if s.step == "resistance":
            reacting = any(r.power == power_id for r in s.reactions.values())
            if not reacting and power_id not in self.pending_resisters():  # type: ignore[attr-defined]
                raise RuleViolation(
                    "a fast spell outside an action goes with the power's own reaction, and it has none to make",
                    rule="P-RES-3",
                    field="spell_id",
                )
            return
        raise RuleViolation(
            "a fast spell is cast in an action, in Battle's spellcasting step or with a reaction ([003:503])",
            rule="P-ACT-3",
            field="action_id",
        )

    @event("SpellCast")
    def _spell_cast(
        self,
        cast_id: str,
        power_id: str,
        spell_id: str,
        name: str,
        speed: str,
        action_id: str | None,
        context: str,
        through: str,
        from_hex: str,
        target: str,
        cost: str,
        reduction: int,
        paid: dict[str, int],
        pooled: dict[str, dict[str, int]],
        from_wallet: dict[str, int],
        substitution: str | None,
        elements: list[str],
        rank: int,
        effective_rank: int,
        refund: dict[str, int],
        season: int,
        month: int,
        difficulty: int | None,
        inflation_key: str | None,
        uprising: dict[str, Any] | None,
        influence: dict[str, Any] | None,
        actor: str,
        audience: list[str],
    ) -> None:
        cast: dict[str, Any] = {
            "cast_id": cast_id,
            "power_id": power_id,
            "spell_id": spell_id,
            "name": name,
            "speed": speed,
            "action_id": action_id,
            "context": context,
            "through": through,
            "from_hex": from_hex,
            "target": target,
            "cost": cost,
            "reduction": reduction,
            "paid": dict(paid),
            "pooled": {k: dict(v) for k, v in pooled.items()},
            "from_wallet": dict(from_wallet),
            "substitution": substitution,
            "elements": list(elements),
            "rank": rank,
            "effective_rank": effective_rank,
            "refund": dict(refund),
            "season": season,
            "month": month,
            "difficulty": difficulty,
            "inflation_key": inflation_key,
            "uprising": uprising,
            "influence": influence,
        }
        s = self.state
        m = _magic(s)
        casts = m.setdefault("casts", {})
        for old in [k for k, c in casts.items() if (c["season"], c["month"]) != (cast["season"], cast["month"])]:
            del casts[old]
        casts[cast_id] = cast
        ps = s.powers[power_id]
        _take(s, power_id, action_id, pooled, from_wallet)
        _add(ps.mana, refund)
        if cast["speed"] == "ritual":
            s.actions[cast["action_id"]].difficulty = cast["difficulty"]
        if influence is not None:
            hex_id, amount = influence["hex"], influence["amount"]
            ps.influence[hex_id] = ps.influence.get(hex_id, 0) + amount
            _fold_power(s, cast["power_id"])["witchcraft_season"] = cast["season"]

    def _season_mana(self) -> None:
        """At Tidings, perks generate their mana (P-MAG-1), recorded as the GM's grants are."""
        s = self.state
        for pid in sorted(s.powers):
            gained = mr.seasonal_mana(perks_of(s, pid), s.powers[pid].mana, caps_of(s, pid))
            for element, amount in gained.items():
                self._mana_granted(  # type: ignore[attr-defined]
                    power_id=pid, element=element, amount=amount, actor=SYSTEM, audience=vis.powers([pid])
                )

    # ------------------------------------------------------------------ rituals at Resolution

    def _ritual_resisted(self, action: Any, resist: Mapping[str, int]) -> tuple[int, int] | None:
        """P-RES-6 (P-AMB-8): a ritual is not reduced by resistance; each resister with at least half its
        difficulty (rounded up) in successes is protected from its effect. Returns ``(net, resisted)``
        for a ritual (None for any other action), and tells each resister whether it is protected."""
        ritual = ritual_of(self.state, action.id)
        if ritual is None:
            return None
        difficulty = action.difficulty or 0
        for power_id, successes in sorted(resist.items()):
            self._ritual_warded(
                action_id=action.id,
                power_id=power_id,
                successes=successes,
                protected=mr.ritual_protected(successes, difficulty),
                actor=SYSTEM,
                audience=vis.powers([action.power, power_id]),
            )
        return action.successes, 0

    @event("RitualWarded")
    def _ritual_warded(
        self, action_id: str, power_id: str, successes: int, protected: bool, actor: str, audience: list[str]
    ) -> None:
        pass

    def _conclude_ritual(self, action_id: str) -> None:
        """After a ritual's action resolves: a success inflates its cost (P-MAG-4); a failure loses the mana,
        which Vessel Heart refunds (P-MAG-6, [003:909])."""
        s = self.state
        ritual = ritual_of(s, action_id)
        a = s.actions[action_id]
        if ritual is None or a.status != "resolved":
            return
        # Vessel Heart gives back what the power spent of its own: mana an action held was the action's.
        refund = {} if a.success or not has_perk(s, a.power, "vessel_heart") else dict(ritual["from_wallet"])
        self._ritual_concluded(
            action_id=action_id,
            cast_id=ritual["cast_id"],
            power_id=a.power,
            spell_id=ritual["spell_id"],
            success=bool(a.success),
            inflation_key=ritual["inflation_key"],
            difficulty=ritual["difficulty"],
            refund=refund,
            actor=SYSTEM,
            audience=vis.powers([a.power]),
        )

    @event("RitualConcluded")
    def _ritual_concluded(
        self,
        action_id: str,
        cast_id: str,
        power_id: str,
        spell_id: str,
        success: bool,
        inflation_key: str,
        difficulty: int,
        refund: dict[str, int],
        actor: str,
        audience: list[str],
    ) -> None:
        m = _magic(self.state)
        if success:
            inflation = m.setdefault("inflation", {})
            inflation[inflation_key] = inflation.get(inflation_key, 0) + 1
            m.setdefault("completed", {})[cast_id] = {
                "power_id": power_id,
                "spell_id": spell_id,
                "difficulty": difficulty,
            }
        ps = self.state.powers[power_id]
        for e, n in refund.items():
            ps.mana[e] = ps.mana.get(e, 0) + n

    def declare_dispel(self, action_id: str, ritual_cast_id: str) -> None:
        """GM: this action tries to dispel a permanent ritual; its difficulty is the ritual's original
        difficulty, whatever the ritual costs now (P-RES-6)."""
        s = self.state
        _check_names(ritual=ritual_cast_id)
        done = _magic(s).get("completed", {}).get(ritual_cast_id)
        if done is None:
            raise NotFound(f"no ritual {ritual_cast_id!r} was completed in this game", rule="P-RES-6", field="ritual")
        spell = spell_def(s, done["spell_id"])
        if spell is None or not spell.permanent:
            raise RuleViolation(
                "only a ritual with a permanent effect can be dispelled", rule="P-RES-6", field="ritual"
            )
        self.set_difficulty(action_id, done["difficulty"])  # type: ignore[attr-defined]


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
    mine = _of(state, power_id)
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
            "casts_this_month": [dict(c) for c in _month_casts(state, power_id)],
            "action_mana": {
                a.id: {"channelled": dict(pool["channelled"]), "contributed": dict(pool["contributed"])}
                for a in state.actions.values()
                if a.power == power_id and a.status not in ("resolved", "discarded")
                for pool in [pool_of(state, a.id)]
                if pool["channelled"] or pool["contributed"]
            },
            "rituals_completed": {
                k: dict(v) for k, v in sorted(_magic(state).get("completed", {}).items()) if v["power_id"] == power_id
            },
        }
    )
    return out


def magic_view(game: Game, viewer: str) -> dict[str, Any]:
    """Magic as ``viewer`` may see it (P.4): the public catalogue and everyone's perks; its own mana, caps,
    spells, conduits and casts; the GM sees every power's, every design and every ritual's inflation."""
    s = game.state
    is_gm = viewer == GM
    spells = [*CATALOGUE.values(), *(Spell(**d) for _, d in sorted(_magic(s).get("spells", {}).items()))]
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
        out["inflation"] = dict(sorted(_magic(s).get("inflation", {}).items()))
    return out
