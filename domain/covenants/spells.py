"""Spells in the Main Phase (A-SPELL, A-AGG, A-CERT-3): casting, reach, a spell's lasting effect, and counters
(A-SPELL-5), which may undo a battle fought on a boost (A-EX-5)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain.covenants import battle, cards, rules, track
from domain.covenants.base import END_OF_MAIN, PUBLIC, CovenantEvent, _expire, house_of
from domain.covenants.errors import RuleViolation
from domain.covenants.house import STARTING_MAGE
from domain.covenants.options import option
from domain.covenants.state import BattleDue, Card, CovenantState, Effect
from domain.ids import SYSTEM

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def cast(
    game: CovenantGame,
    seat: str,
    mage_id: str,
    spell: str,
    target: str,
    vis_amount: int,
    *,
    named: bool = False,
    mother_may_i: bool = False,
    more_targets: list[str] | None = None,
) -> dict[str, Any]:
    """A-SPELL-1..8 with the Hedge Mage's curses on the caster's covenant (A-EVT-4 [000:753]-[000:760]): 2, a
    spell cast without "Mother may I" is countered (H-12: the phrase is a field of the command); 3 and 4, a
    Te or Cr spell needs one more pawn (the extra pawn is spent and adds no strength); 5, the Magical
    Resistance of the cursed covenant's beings is 1 less (at least 0). A spell that chooses a target for every
    N pawns takes its further targets in ``more_targets`` (A-AMB-17)."""
    s = game.state
    more_targets = more_targets or []
    sp = game.house.spells.get(spell)
    if sp is None:
        raise RuleViolation(f"no spell {spell!r} in this game's house rules", field="spell")
    mage = _caster(game, seat, mage_id)
    rules.check_phase(sp.phases, "main" if s.phase in END_OF_MAIN else s.phase, sp.seasons, game.season_name)
    curses = {c["curse"] for c in cards.curses(game, seat)}
    if sp.counters:
        return _counter(game, seat, mage, spell, target, vis_amount, mother_may_i=mother_may_i)
    if s.phase == "main":
        game.require_turn(seat, "main")
    if s.phase == "reckoning" and any(p.supported for p in s.powers.values()):  # A.1.4 Reckoning.begin, A-AMB-10
        raise RuleViolation(
            "this spell is cast at the beginning of the Reckoning, before any covenant allocates its support",
            rule="A-SPELL-8",
        )
    rules.check_cast_arts(sp.arts, game.mage_arts(mage))
    assign = _assigned_now(game, mage, spell)
    if not sp.ritual and spell in mage.cast_this_season:
        raise RuleViolation("a regular spell is cast once per season by a mage", rule="A-SPELL-2")
    extra = _surcharge(game, seat, sp.arts, curses, vis_amount)
    power = vis_amount - extra  # the pawns that give the spell its strength
    outcome: dict[str, Any] = {"spell": spell, "target": target, "vis": vis_amount}
    if extra:
        outcome["curse_surcharge"] = extra
    targets = [target, *more_targets]
    reach, hits, strength, magnitude, recast = _aim(game, seat, mage, spell, targets, power, named=named)
    certamen = reach[0][3]
    ppt = sp.pawns_per_target
    if recast:  # A-SPELL-2 / A-AMB-12: the vis is spent, nothing happens
        magnitude = None
    if 2 in curses and not mother_may_i:  # curse 2 [000:753]: "else that spell is automatically countered"
        magnitude = None
        outcome["countered"] = 'curse 2: the covenant\'s player did not say "Mother may I"'
    marked = any(
        rules.marks_aggression(target_covenant=cov or None, caster_covenant=seat, harmful=sp.harmful)
        for cov, *_ in reach
    )
    outcome.update(strength=strength, magnitude=magnitude, marked=marked, recast=recast)
    if magnitude is None:
        hits = []
    if ppt:
        outcome.update(targets=targets, reached=hits)
    until = rules.expires_at(s.seasons_begun, sp.duration_seasons) if sp.duration_seasons else None
    damage = (ppt or magnitude or 0) * sp.damage_per_pawn if magnitude is not None else 0  # on each target
    if assign:
        game.trigger_event(game.SpellAssigned, card_id=mage.id, spell=spell, actor=seat, audience=PUBLIC)
    outcome["spell_id"] = spell_id = f"sp{game.version + 1}"  # the version of its SpellCast: unique
    game.trigger_event(
        game.SpellCast, seat=seat, mage_id=mage_id, spell=spell, target=target, vis=vis_amount, strength=strength,
        magnitude=magnitude, marked=marked, until=until, phase=s.phase, ritual=sp.ritual, actor=seat, audience=PUBLIC,
        spell_id=spell_id, damage=damage, certamen=certamen, reached=hits if ppt else None,
    )  # fmt: skip
    for t in hits if damage else []:
        cards.damage(game, t, damage, seat)
    if s.phase == "main":
        track.end_turn(game, seat, acted=True)
    return outcome


def _caster(game: CovenantGame, seat: str, mage_id: str) -> Card:
    """The mage casting: one of the covenant's own, and active (A-SPELL-1, A-LIM-2)."""
    mage = game.card(mage_id)
    if mage.owner != seat or mage.kind != "mage":
        raise RuleViolation("cast with one of your mages", rule="A-SPELL-1", field="mage_id")
    if not mage.active:
        raise RuleViolation("an inactive mage cannot cast", rule="A-LIM-2", field="mage_id")
    return mage


def _surcharge(game: CovenantGame, seat: str, arts: list[str], curses: set[int], vis_amount: int) -> int:
    """The pawns of vis the Hedge Mage's curses 3 and 4 add to a spell (A-EVT-4), of the vis the covenant holds and
    spends (A-SPELL-1): at least one pawn is left to give the spell its strength."""
    if vis_amount < 1 or vis_amount > game.state.powers[seat].vis:
        raise RuleViolation(f"you hold {game.state.powers[seat].vis} vis", rule="A-SPELL-1", field="vis")
    extra = rules.curse_surcharge(curses, arts)
    if vis_amount - extra < 1:
        raise RuleViolation(
            f"the Hedge Mage's curse asks {extra} more pawn(s) of vis for this spell", rule="A-EVT-4", field="vis"
        )
    return extra


def _aim(
    game: CovenantGame, seat: str, mage: Card, spell: str, targets: list[str], power: int, *, named: bool
) -> tuple[list[tuple[str, int, bool, Any]], list[str], int, int | None, bool]:
    """Where a spell cast with ``power`` pawns lands: each target's reach (``_reach``), the targets it affects, its
    strength and magnitude, and whether it is a recast (A-SPELL-2). A spell that chooses a target for every N pawns
    reaches a target only with the pawns of all the targets chosen, past its resistance (A-AMB-17)."""
    sp = game.house.spells[spell]
    ppt = sp.pawns_per_target
    if len(targets) > 1 and not ppt:
        raise RuleViolation(f"{spell} has one target", rule="A-AMB-17", field="more_targets")
    if len(set(targets)) < len(targets):
        raise RuleViolation("a spell's targets are different cards", rule="A-AMB-17", field="more_targets")
    if ppt and len(targets) * ppt > min(power, sp.max_vis):
        raise RuleViolation(
            f"{spell} chooses one target for every {ppt} pawn(s) of vis expended, up to {sp.max_vis} pawns",
            rule="A-AMB-17",
            field="more_targets",
        )
    reach = [_reach(game, seat, mage, spell, t, named=named) for t in targets]
    per_target = option(game.state.options, "multi_target_resistance") == "per_target"
    strengths = rules.target_strengths(power, [r[1] for r in reach], per_target=per_target)
    if ppt:  # A-AMB-17: each target reached needs the pawns of all the targets chosen, past its resistance
        need = max(sp.min_vis, len(targets) * ppt)
        hits = [t for t, st, r in zip(targets, strengths, reach) if st >= need and not r[2]]
        strength = max([st for t, st in zip(targets, strengths) if t in hits] or strengths)
        magnitude = len(hits) * ppt if hits else None
        return reach, hits, strength, magnitude, all(r[2] for r in reach)
    strength = strengths[0]
    return reach, [targets[0]], strength, rules.effective_magnitude(strength, sp.min_vis, sp.max_vis), reach[0][2]


def _reach(
    game: CovenantGame, seat: str, mage: Card, spell: str, target: str, *, named: bool
) -> tuple[str, int, bool, Any]:
    """One target of a spell: its covenant, the resistance the spell must pass to reach it (A-SPELL-4: a rival
    covenant's Aegis and the target's MR, 1 less under the Hedge Mage's curse 5 [000:759]), whether a ritual
    already holds it (A-SPELL-2), and the Certamen a spell at a mage engaged in one changes (A-CERT-3)."""
    s, sp = game.state, game.house.spells[spell]
    game.refuse_out_of_play(
        target if target in s.powers else (s.cards[target].owner if target in s.cards else None), "target"
    )
    if sp.target == "covenant":
        recast = any(e.get("spell") == spell and e.get("target") == target for e in s.effects)
        return game.power(target).id, 0, recast, None
    t = game.card(target)
    d = game.house.cards.get(t.name)
    if d is not None and d.untargetable and t.name not in sp.names and not named:
        raise RuleViolation(f"{t.name} is an untargetable structure", rule="A-LIM-3", field="target")
    if t.id == mage.id:
        meets = not sp.forms or t.substance in sp.forms
        rules.check_self_target(sp.raises_own, sp.self_allowed, meets)
    rules.check_target_kind(
        sp.target, animate=bool(d and d.animate), structure=bool(d and d.structure), mage=t.kind == "mage"
    )
    if sp.forms and t.substance not in sp.forms:  # A-SPELL-7: its substance now decides
        raise RuleViolation(f"{spell} targets {sp.forms}; {t.name} is {t.substance}", rule="A-SPELL-7", field="target")
    certamen = _certamen_spell(game, sp.certamen, mage, t) if sp.certamen else None
    rival = t.owner is not None and t.owner != seat
    aegis = max((e.get("aegis", 0) for e in s.effects if e.get("target") == t.owner), default=0)
    mr = d.mr if d else 0
    if t.owner is not None and any(c["curse"] == 5 for c in cards.curses(game, t.owner)):
        mr = max(0, mr - 1)  # curse 5 [000:759]
    recast = sp.ritual and any(e.get("spell") == spell and e.get("target") == target for e in s.effects)
    return t.owner or "", rules.resistance(rival=rival, aegis=aegis, mr=mr), bool(recast), certamen


def _assigned_now(game: CovenantGame, mage: Card, spell: str) -> bool:
    """A-SPELL-1: a mage casts only the spells attached to it ([000:69] "new spells are acquired via Book Study
    (Grimoire) or Lab Study"); a starting mage is assigned its first two as it makes them ([000:34] "no Book or
    Lab Study required ... if at least one of each spell's Arts match theirs": the caster has all of them,
    ``rules.check_cast_arts``): True if this cast assigns it. A game pinned to a package with no Book that
    teaches (house 1.0.0, before spell learning was modelled) keeps its rule: a mage casts what its Arts allow,
    since nothing in that package could ever teach it a spell."""
    if spell in mage.spells or not any(d.teaches == "spell" for d in game.house.cards.values()):
        return False
    if mage.name == STARTING_MAGE and len(mage.spells) < 2:
        return True
    raise RuleViolation(
        f"this mage has not learnt {spell}: a spell comes by Book Study (Grimoire) or Lab Study, "
        "or is one of a starting mage's first two",
        rule="A-SPELL-1",
        field="spell",
    )


class SpellAssigned(CovenantEvent):
    card_id: str
    spell: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.cards[self.card_id].spells.append(self.spell)


class SpellCast(CovenantEvent):
    """``reached``: the targets a spell of several reached (A-AMB-17); None, its one ``target``."""

    seat: str
    mage_id: str
    spell: str
    target: str
    vis: int
    strength: int
    magnitude: int | None
    marked: bool
    until: int | None
    phase: str
    ritual: bool
    actor: str
    audience: list[str]
    spell_id: str = ""
    damage: int = 0
    certamen: Effect | None = None
    reached: list[str] | None = None

    def evolve(self, s: CovenantState) -> None:
        s.powers[self.seat].vis -= self.vis
        s.cards[self.mage_id].cast_this_season.append(self.spell)
        if self.marked:
            s.powers[self.seat].marked = True
        hits = [self.target] if self.reached is None else list(self.reached)
        if self.damage and any(t in s.cards and s.cards[t].owner not in (None, self.seat) for t in hits):
            s.powers[self.seat].damaged_another = True  # A-AMB-19
        if self.magnitude is None:
            return
        s.spells_cast.append(
            {
                "id": self.spell_id,
                "seat": self.seat,
                "spell": self.spell,
                "target": self.target,
                "strength": self.strength,
                "damage": self.damage,
                "targets": hits,
            }
        )
        each = house_of(s).spells[self.spell].pawns_per_target or self.magnitude  # the pawns each target takes
        for t in hits:
            _spell_took_effect(
                s, self.spell, t, self.until, self.phase, self.seat, self.spell_id, self.vis, each, self.certamen
            )


def _spell_took_effect(
    s: CovenantState,
    spell: str,
    target: str,
    until: int | None,
    phase: str,
    seat: str,
    spell_id: str,
    vis: int,
    magnitude: int,
    certamen: Effect | None,
) -> None:
    """A SpellCast's lasting effect on one of its targets (folded, not an event of its own)."""
    sp = house_of(s).spells[spell]
    effect: Effect = {
        "spell": spell,
        "target": target,
        "until": until,
        "phase": phase,
        "by": seat,
        "spell_id": spell_id,
    }
    if sp.aegis:
        effect["aegis"] = rules.aegis_value(vis)
    if sp.might_per_pawn:  # a regular spell: it lasts until the season ends (A-SPELL-3)
        effect["might"], effect["until"], effect["phase"] = magnitude * sp.might_per_pawn, s.seasons_begun, None
    if sp.sets_substance and target in s.cards:
        effect["was"] = s.cards[target].substance
        s.cards[target].substance = sp.sets_substance
    if certamen:  # read when the challenge is resolved; a counter undoes it (A-SPELL-5)
        effect.update(certamen)
        effect["until"], effect["phase"] = s.seasons_begun, None
    if sp.artisan_rate:  # the pieces of gold it enhanced, until they are converted
        effect["artisan"] = magnitude
    if until is not None or sp.aegis or sp.sets_substance or sp.might_per_pawn or certamen or sp.artisan_rate:
        s.effects.append(effect)


def _certamen_spell(game: CovenantGame, kind: str, caster: Card, target: Card) -> Effect:
    """A-CERT-3: [000:554] Distractions of Invisible Horrors targets "one of the mages engaged in a challenge to
    halve (rounded up) his final Certamen score"; [000:610] The Subtle Accomplice adds "the caster's Certamen
    rating to that of another mage in the same covenant engaged in Certamen" (its caster takes no part in one)."""
    s = game.state
    ch = next((c for c in s.challenges.values() if target.id in (c["mage"], c["target_mage"])), None)
    if ch is None:
        raise RuleViolation(f"{target.name} is not engaged in Certamen", rule="A-CERT-3", field="target")
    side = ch["challenger"] if target.id == ch["mage"] else ch["target"]
    if kind == "halve":
        return {"challenge": ch["id"], "side": side, "halve": True}
    engaged = {m for c in s.challenges.values() for m in (c["mage"], c["target_mage"])}
    if target.owner != caster.owner or caster.id in engaged:
        raise RuleViolation(
            "The Subtle Accomplice helps another mage of its caster's covenant, and its caster is in no challenge",
            rule="A-CERT-3",
            field="target",
        )
    return {"challenge": ch["id"], "side": side, "bonus": game.house.cards[caster.name].certamen}


def _counter(
    game: CovenantGame, seat: str, mage: Card, spell: str, target: str, vis_amount: int, *, mother_may_i: bool = False
) -> dict[str, Any]:
    """A-SPELL-5: a counter cast in the phase of the spell it targets, out of turn; if its pawns exceed that
    spell's strength, compensating events undo what the spell did (its damage, its effect)."""
    s = game.state
    sp = game.house.spells[spell]
    if not mage.active:
        raise RuleViolation("an inactive mage cannot cast", rule="A-LIM-2", field="mage_id")
    hit = next((x for x in s.spells_cast if x["id"] == target), None)
    if hit is None:
        raise RuleViolation("a counter targets a spell cast in this phase", rule="A-SPELL-5", field="target")
    if target in s.closed_spells:
        raise RuleViolation(
            "every player confirmed not to counter this spell before the battle", rule="H-15", field="target"
        )
    if any(target in e["spells"] and seat in e["agreed"] for e in s.boosted_battles):
        raise RuleViolation("you agreed not to counter this spell before the battle", rule="H-15", field="target")
    form = game.house.spells[hit["spell"]].arts[-1]
    rules.check_cast_arts([*sp.arts, form], game.mage_arts(mage))
    assign = _assigned_now(game, mage, spell)
    if spell in mage.cast_this_season:
        raise RuleViolation("a regular spell is cast once per season by a mage", rule="A-SPELL-2")
    if vis_amount < 1 or vis_amount > s.powers[seat].vis:
        raise RuleViolation(f"you hold {s.powers[seat].vis} vis", rule="A-SPELL-1", field="vis")
    extra = rules.curse_surcharge({c["curse"] for c in cards.curses(game, seat)}, [*sp.arts, form])
    said = mother_may_i or not any(c["curse"] == 2 for c in cards.curses(game, seat))
    success = said and vis_amount - extra >= 1 and rules.counters(vis_amount - extra, hit["strength"])
    if assign:
        game.trigger_event(game.SpellAssigned, card_id=mage.id, spell=spell, actor=seat, audience=PUBLIC)
    game.trigger_event(
        game.SpellCountered,
        seat=seat,
        mage_id=mage.id,
        spell=spell,
        target=target,
        vis=vis_amount,
        success=success,
        actor=seat,
        audience=PUBLIC,
    )
    undone = [t for t in hit.get("targets", [hit["target"]]) if t in s.cards] if success and hit["damage"] else []
    for c in [s.cards[t] for t in undone]:  # on every target it reached (A-AMB-17)
        d = game.house.cards.get(c.name)
        left = max(0, c.damage - hit["damage"])
        active = (
            rules.is_active_after_damage(
                animate=bool(d and d.animate),
                might_type=d.might_type if d else None,
                might=cards.own_might(game, c),
                structure=bool(d and d.structure),
                damage=left,
            )
            and not c.inactive_until
        )
        game.trigger_event(game.DamageReversed, card_id=c.id, damage=left, active=active, actor=SYSTEM, audience=PUBLIC)
    if success:
        _undo_boosted_battles(game, target)
    return {"spell": spell, "target": target, "vis": vis_amount, "countered": success}


def _undo_boosted_battles(game: CovenantGame, spell_id: str) -> None:
    """A-EX-5 [000:111] "the damage from such a battle may have to be redistributed if the spell is countered":
    compensating events undo the damage of each battle fought with the countered boost, and the battle is fought
    again (its covenants allocate anew, H-6) with the un-boosted Might (A-AMB-15)."""
    s = game.state
    for e in [e for e in s.boosted_battles if spell_id in e["spells"]]:
        if "before" in e:
            for card_id, (damage, active) in e["before"].items():
                if card_id in s.cards:
                    game.trigger_event(
                        game.DamageReversed,
                        card_id=card_id,
                        damage=damage,
                        active=active,
                        actor=SYSTEM,
                        audience=PUBLIC,
                    )
            game.trigger_event(game.BattleReopened, battle=e["record"], actor=SYSTEM, audience=PUBLIC)
        elif s.battle is not None and s.battle["id"] == e["battle"]:  # still being allocated: begun again
            game.trigger_event(
                game.BattleReopened,
                battle={k: s.battle[k] for k in ("id", "a", "b", "cause")},
                actor=SYSTEM,
                audience=PUBLIC,
            )
            battle.next_battle(game)


class BattleReopened(CovenantEvent):
    battle: BattleDue
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        e = next(x for x in s.boosted_battles if x["battle"] == self.battle["id"])
        s.boosted_battles = [x for x in s.boosted_battles if x is not e]
        s.defeated = [x for x in s.defeated if x not in e.get("defeated", [])]
        if e.get("event_damage"):
            s.invasion = {**s.invasion, "damage": s.invasion.get("damage", 0) - e["event_damage"], "retreated": False}
        if e.get("town") and e["town"][0] in s.cards:  # A-EX-5: the Riots' Town as before the battle (A-EVT-4)
            town = s.cards[e["town"][0]]
            town.damage, town.active, town.inactive_until = e["town"][1:]
        if s.battle is not None and s.battle["id"] == self.battle["id"]:
            s.battle, s.turn = None, []
        s.battles = [self.battle.copy(), *s.battles]


class SpellCountered(CovenantEvent):
    seat: str
    mage_id: str
    spell: str
    target: str
    vis: int
    success: bool
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.powers[self.seat].vis -= self.vis
        s.cards[self.mage_id].cast_this_season.append(self.spell)
        if self.success:
            s.spells_cast = [x for x in s.spells_cast if x["id"] != self.target]
            _expire(s, lambda e: e.get("spell_id") == self.target)


class DamageReversed(CovenantEvent):
    card_id: str
    damage: int
    active: bool
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        c = s.cards[self.card_id]
        c.damage, c.active = self.damage, self.active
