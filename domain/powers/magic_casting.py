"""Casting (P-MAG-2..6, P-ACT-3): a power casts a spell or ritual it knows through one of its conduits, at a hex
within the spell's reach, paying its mana; in an action during Planning, in Battle's spellcasting step or with its
reaction. A ritual sets its action's difficulty (P-MAG-3); perks change what a cast costs and does (P-MAG-6). A
spell held as an asset joins a pool once it has been cast for it (P-ASSET-8)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.platform.game import _at
from domain.powers import hexmap
from domain.powers import magic_rules as mr
from domain.powers.magic_state import (
    Conduit,
    MagicEvent,
    PowerMagic,
    add_mana,
    caps_of,
    casts_on,
    check_names,
    current_cost,
    draw,
    fold_power,
    has_perk,
    inflation_key,
    magic_of,
    month_casts,
    perks_of,
    pool_of,
    power_magic,
    record,
    spell_def,
    take,
)
from domain.powers.spells import Spell

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import Asset, GameState


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
    pooled, from_wallet = draw(payment.spent, usable)
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


def check_spell_assets(
    state: GameState, power_id: str, chosen: list[tuple[Asset, str]], where: dict[str, Any] | None
) -> None:
    """P-ASSET-8: [003:132] a spell "can only be used by the caster ... They can be used repeatedly, but the
    mana cost must be paid each time." A spell asset joins an action's pool once the power cast that spell in
    the action (each cast pays for that action's one use); a reaction's, once it cast it with its reactions
    this Resistance step, one cast for each reaction that uses it."""
    s = state
    action_id = (where or {}).get("action_id")
    for asset, _mode in chosen:
        if asset.cls != "spell":
            continue
        named = asset.name.strip().lower()
        casts = [c for c in month_casts(s, power_id) if c["spell_id"] == asset.id or c["name"].strip().lower() == named]
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


def cast_spell(
    game: Game,
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

    In an action (``action_id``, during Planning): any Fast spells, at most one Slow, or one Ritual alone (P-ACT-3);
    a ritual sets its action's difficulty (P-MAG-3). Outside an action, only a Fast spell: in the Battle step (one
    per power, [003:576]) or with the power's reaction (P-RES-3): while it may still resist, or once it has.
    ``pay`` lists the mana spent (``["F", "F", "W", "E"]``); without it the cost is paid in kind and the generic
    part from the most plentiful mana. Returns what the cast event records."""
    s = game.state
    ps = game.power(power_id)
    check_names(spell_id=spell_id, through=through, action_id=action_id, target=target)
    _check_pay(pay)
    mine = power_magic(s, power_id)
    spell = _known_spell(s, mine, spell_id)
    _check_cast_context(game, power_id, spell, action_id, now)
    conduit = _conduit(mine, through)
    target = target if target is not None else conduit["hex"]
    _check_reach(spell, conduit, target, capitol_doubles=ps.subclass in mr.CAPITOL_DOUBLES)
    cost = current_cost(s, spell, power_id)
    earlier = month_casts(s, power_id)
    perks = perks_of(s, power_id)
    reduction = _perfected_reduction(spell, earlier, perks)
    payable = mr.reduced(cost, reduction)
    garden = _mana_garden(s, power_id, conduit["hex"]) if spell.speed == "ritual" else None
    gardens = _garden_seasons(s.season, mine, garden)
    if garden is not None:
        payable = mr.gardens_reduced(payable, gardens, s.world.hexes[conduit["hex"]]["element"])
    payment, pooled, from_wallet = _pay(s, power_id, ps.mana, spell, payable, action_id, pay)
    base_rank = mr.rank(spell.speed, cost)
    cast: dict[str, Any] = {
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
        record(
            game,
            ManaGardensUsed,
            power_id=power_id,
            feature_id=garden,
            cast_id=cast_id,
            reduction=gardens,
            season=s.season,
            actor=actor or power_id,
            audience=vis.powers([power_id]),
        )
    record(game, SpellCast, **cast, actor=actor or power_id, audience=vis.powers([power_id]))
    return cast


def _mana_garden(state: GameState, power_id: str, hex_id: str) -> str | None:
    """The working stronghold of this power with Mana Gardens at ``hex_id``, where a ritual is conducted
    "here" ([003:453]); an inoperable one (unpaid maintenance, P-FEAT-3) collects nothing."""
    features: dict[str, dict[str, Any]] = state.world.features
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


def _check_cast_context(game: Game, power_id: str, spell: Spell, action_id: str | None, now: datetime) -> None:
    """Where this cast may be made (P-ACT-3): in the power's open action during Planning; a fast spell outside an
    action in Battle's spellcasting step or with the power's reaction."""
    s = game.state
    if action_id is not None:
        _check_cast_in_action(game, power_id, spell, action_id, now)
        return
    if spell.speed != "fast":
        raise RuleViolation(
            f"a {spell.speed} {'ritual' if spell.speed == 'ritual' else 'spell'} is cast as part of an action: "
            "name the action",
            rule="P-ACT-3",
            field="action_id",
        )
    if s.step == "battle":
        if any(c["context"] == "battle" for c in month_casts(s, power_id)):
            raise RuleViolation(
                "in Battle's spellcasting step each power casts up to one fast spell ([003:576])",
                rule="P-ACT-3",
                field="spell_id",
            )
        return
    if s.step == "resistance":
        reacting = any(r.power == power_id for r in s.reactions.values())
        if not reacting and power_id not in game.pending_resisters():
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


def _check_cast_in_action(game: Game, power_id: str, spell: Spell, action_id: str, now: datetime) -> None:
    """A cast in an action: the power's own, open during Planning, its casts as P-ACT-3 allows; a ritual sets the
    action's difficulty, so not one whose difficulty is sealed (P-MAG-3)."""
    s = game.state
    a = s.actions.get(action_id)
    if a is None or a.power != power_id:
        raise NotFound(f"no action {action_id!r} of this power this month", rule="P-ACT-3", field="action_id")
    if s.step != "planning":
        raise RuleViolation(f"spells are cast in an action during Planning; this is {s.step.title()}", rule="P-ACT-3")
    w = game.open_window("planning")
    if w is not None and now >= _at(w.deadline_for(power_id)):
        raise RuleViolation(
            f"the Planning deadline passed at {w.deadline_for(power_id)}", rule="P.1.2", field="deadline"
        )
    if a.discarded:
        raise RuleViolation("this action was discarded", rule="P-DICE-10", field="action_id")
    mr.check_submission([c["speed"] for c in casts_on(s, action_id)], spell.speed)
    if spell.speed == "ritual" and a.sealed is not None:
        raise RuleViolation(
            "a ritual's difficulty is twice its generic cost (P-MAG-3); this action has a sealed one",
            rule="P-MAG-3",
            field="action_id",
        )


# ---------------------------------------------------------------------- events


class ManaGardensUsed(MagicEvent):
    power_id: str
    feature_id: str
    cast_id: str
    reduction: int
    season: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        fold_power(s, self.power_id).setdefault("gardens", {})[self.feature_id] = self.season


class SpellCast(MagicEvent):
    cast_id: str
    power_id: str
    spell_id: str
    name: str
    speed: str
    action_id: str | None
    context: str
    through: str
    from_hex: str
    target: str
    cost: str
    reduction: int
    paid: dict[str, int]
    pooled: dict[str, dict[str, int]]
    from_wallet: dict[str, int]
    substitution: str | None
    elements: list[str]
    rank: int
    effective_rank: int
    refund: dict[str, int]
    season: int
    month: int
    difficulty: int | None
    inflation_key: str | None
    uprising: dict[str, Any] | None
    influence: dict[str, Any] | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        cast: dict[str, Any] = {
            "cast_id": self.cast_id,
            "power_id": self.power_id,
            "spell_id": self.spell_id,
            "name": self.name,
            "speed": self.speed,
            "action_id": self.action_id,
            "context": self.context,
            "through": self.through,
            "from_hex": self.from_hex,
            "target": self.target,
            "cost": self.cost,
            "reduction": self.reduction,
            "paid": dict(self.paid),
            "pooled": {k: dict(v) for k, v in self.pooled.items()},
            "from_wallet": dict(self.from_wallet),
            "substitution": self.substitution,
            "elements": list(self.elements),
            "rank": self.rank,
            "effective_rank": self.effective_rank,
            "refund": dict(self.refund),
            "season": self.season,
            "month": self.month,
            "difficulty": self.difficulty,
            "inflation_key": self.inflation_key,
            "uprising": self.uprising,
            "influence": self.influence,
        }
        casts = magic_of(s).setdefault("casts", {})
        for old in [k for k, c in casts.items() if (c["season"], c["month"]) != (cast["season"], cast["month"])]:
            del casts[old]
        casts[self.cast_id] = cast
        ps = s.powers[self.power_id]
        take(s, self.power_id, self.action_id, self.pooled, self.from_wallet)
        add_mana(ps.mana, self.refund)
        if cast["speed"] == "ritual":
            s.actions[cast["action_id"]].difficulty = cast["difficulty"]
        if self.influence is not None:
            hex_id, amount = self.influence["hex"], self.influence["amount"]
            ps.influence[hex_id] = ps.influence.get(hex_id, 0) + amount
            fold_power(s, self.power_id)["witchcraft_season"] = self.season
