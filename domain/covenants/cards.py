"""Cards (A-TRACK-2, A-TURN-1, A-GEN, A-DMG): generating and keeping them in the Create/Play Phase, the Mouse,
discarding, damage and healing."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from domain.covenants import rules, setup, track
from domain.covenants.base import PUBLIC, CovenantEvent
from domain.covenants.errors import RuleViolation
from domain.covenants.house import FORMS, TECHNIQUES
from domain.covenants.state import Card, CovenantState, Effect
from domain.dice import Roller
from domain.ids import SYSTEM

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def generate(game: CovenantGame, seat: str, roller: Callable[[CovenantGame], Roller], *, mouse: int = 0) -> str | None:
    game.require_turn(seat, "create")
    s = game.state
    if s.turn_done:
        raise RuleViolation("one card per Create/Play turn", rule="A-TURN-1")
    kind = rules.square_kind(s.powers[seat].square)
    if kind not in game.house.generators:
        raise RuleViolation(f"the {kind} square generates no resource card", rule="A-TRACK-2")
    gen = game.house.generators[kind]
    mouse_card = the_mouse(game, seat, mouse) if mouse else None
    cursed = any(c["curse"] == 1 for c in curses(game, seat))
    faces = game.roll(roller(game), seat, f"{kind} generation", 2 if cursed else 1, gen.die)
    value, _ = rules.modified_roll(faces, gen.die, cursed=cursed, mouse=mouse)
    name = gen.faces.get(value)
    game.trigger_event(
        game.CardGenerated,
        seat=seat,
        kind=kind,
        value=value,
        card=name,
        actor=seat,
        audience=PUBLIC,
        mouse_card=mouse_card,
    )
    card_id = None
    if name is not None:
        d = game.house.cards[name]
        in_play = {c.name for c in s.cards.values()}
        if d.unique and name in in_play:  # A-GEN-1 step 6 / A-EX-1: no card, the turn is used
            name = None
        else:
            card_id = setup.new_card(game, seat, name, source=kind, pending=True)
    if card_id is None:
        track.end_turn(game, seat, acted=True)
    return card_id


def the_mouse(game: CovenantGame, seat: str, by: int, field: str = "mouse") -> str:
    """A-GEN-1 step 4 [000:405]: the active Mouse, not used this season (A-AMB-6), that changes a Resource or
    Event generation roll by ``by`` (1 or 2 either way)."""
    if not by or abs(by) > 2:
        raise RuleViolation("the Mouse adds or subtracts 1 or 2", rule="A-GEN-1", field=field)
    free = [
        c
        for c in game.covenant_cards(seat)
        if c.name == "Familiar: Mouse" and c.active and "mouse" not in c.cast_this_season
    ]
    if not free:
        raise RuleViolation(
            "only an active Mouse not used this season may change a roll by up to 2", rule="A-GEN-1", field=field
        )
    return free[0].id


class CardGenerated(CovenantEvent):
    seat: str
    kind: str
    value: int
    card: str | None
    actor: str
    audience: list[str]
    mouse_card: str | None = None

    def evolve(self, s: CovenantState) -> None:
        s.turn_done = True
        s.last_generation = {"seat": self.seat, "kind": self.kind, "value": self.value}
        if self.mouse_card is not None:
            s.cards[self.mouse_card].cast_this_season.append("mouse")


def use_mouse(game: CovenantGame, seat: str, card_id: str, by: int) -> str | None:
    """A-GEN-1 step 4 [000:405] "you may add or subtract up to 2 to any single Resource or Event card generation
    dice roll once per season": seen the roll, the player changes it while the card it made is still pending;
    that card goes back and the changed value makes the card instead (A-AMB-6: once a season per Mouse)."""
    game.require_turn(seat, "create")
    s = game.state
    c = s.cards.get(card_id)
    lg = s.last_generation
    if c is None or c.owner != seat or not c.pending or lg.get("seat") != seat or not s.turn_done:
        raise RuleViolation(
            "the Mouse changes the roll of the card you just generated", rule="A-GEN-1", field="card_id"
        )
    mouse_card = the_mouse(game, seat, by, "by")
    gen = game.house.generators[lg["kind"]]
    value = min(gen.die, max(1, lg["value"] + by))
    name = gen.faces.get(value)
    game.trigger_event(
        game.RollChangedByMouse, seat=seat, value=value, card=name, mouse_card=mouse_card, actor=seat, audience=PUBLIC
    )
    game.trigger_event(
        game.CardDiscarded, card_id=card_id, reason="the Mouse changed its roll", actor=SYSTEM, audience=PUBLIC
    )
    new_id = None
    if name is not None:
        d = game.house.cards[name]
        if not (d.unique and name in {x.name for x in s.cards.values()}):
            new_id = setup.new_card(game, seat, name, source=lg["kind"], pending=True)
    if new_id is None:
        _end_generated_turn(game, seat)
    return new_id


class RollChangedByMouse(CovenantEvent):
    seat: str
    value: int
    card: str | None
    mouse_card: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.last_generation = {**s.last_generation, "value": self.value}
        s.cards[self.mouse_card].cast_this_season.append("mouse")


def curses(game: CovenantGame, seat: str) -> list[Effect]:
    return [e for e in game.state.effects if e.get("curse") and e.get("covenant") == seat]


def keep(
    game: CovenantGame,
    seat: str,
    card_id: str,
    attach_to: str | None = None,
    art: str | None = None,
    *,
    spell: str | None = None,
) -> None:
    """H-3: keep a card created this phase, paying for it (A-GEN-2, A-GEN-3, A-LIM-1)."""
    s = game.state
    c = game.card(card_id)
    if c.owner != seat or not c.pending:
        raise RuleViolation("keep a card you created this phase", rule="A-GEN-2", field="card_id")
    if s.phase != "create":
        raise RuleViolation("a card is kept in the Create/Play phase it was created in", rule="A-GEN-2")
    d = game.house.cards[c.name]
    covenant: list[rules.HeldCard] = [
        {"kind": x.kind, "name": x.name, "active": x.active} for x in game.covenant_cards(seat)
    ]
    in_play = {x.name for x in s.cards.values() if not x.pending}
    rules.check_caps(d.kind, c.name, covenant, unique=d.unique, in_play_names=in_play)
    p = s.powers[seat]
    if p.gold < d.cost.gold or p.vis < d.cost.vis:
        raise RuleViolation(f"{c.name} costs {d.cost.gold} gold and {d.cost.vis} vis", rule="A-GEN-2")
    until = None
    if d.qualifying_seasons and game.season_name not in d.qualifying_seasons:
        until = ",".join(d.qualifying_seasons)  # A-GEN-3: paid for, under construction until then
    if art is not None and (d.kind != "art" or art not in TECHNIQUES + FORMS):
        raise RuleViolation("an Art card carries one of the fifteen Arts", rule="A-SPELL-9", field="art")
    if attach_to is not None:
        game.card(attach_to)
    if spell is not None:
        _check_spell_study(game, seat, d.teaches, attach_to, spell)
    game.trigger_event(
        game.CardKept,
        card_id=card_id,
        seat=seat,
        gold=d.cost.gold,
        vis=d.cost.vis,
        inactive_until=until,
        attach_to=attach_to,
        art=art,
        actor=seat,
        audience=PUBLIC,
        spell=spell,
    )
    if d.kind == "town":  # A-LIM-1: a Town discards four Villagers
        for v in [x for x in game.covenant_cards(seat) if x.kind == "villagers"][:4]:
            game.trigger_event(
                game.CardDiscarded, card_id=v.id, reason="a Town was founded", actor=seat, audience=PUBLIC
            )
    _end_generated_turn(game, seat)


def _check_spell_study(game: CovenantGame, seat: str, teaches: str | None, attach_to: str | None, spell: str) -> None:
    """A-SPELL-1 [000:437] Book (Grimoire): "Play a single Spell on this Book ... When a Mage, Book and Spell are
    grouped for the first time, place three counters on this Book" with [000:74] "In order to "learn" a spell,
    a Mage must have learned at least one of the Arts listed in the spell ... No Mage may have the same spell
    attached to him twice", and A-SPELL-9: a mage studies one thing at a time."""
    sp = game.house.spells.get(spell)
    if teaches != "spell" or sp is None:
        raise RuleViolation("a Grimoire carries one spell of the house rules", rule="A-SPELL-1", field="spell")
    mage = game.state.cards.get(attach_to or "")
    if mage is None or mage.kind != "mage" or mage.owner != seat:
        raise RuleViolation("a spell is studied by a mage of your covenant", rule="A-SPELL-1", field="attach_to")
    attached = [x for x in game.state.cards.values() if x.attached_to == mage.id]
    if spell in mage.spells or any(spell in x.spells for x in attached):
        raise RuleViolation("no mage may have the same spell attached twice", rule="A-SPELL-1", field="spell")
    if any(x.counters for x in attached):
        raise RuleViolation("the mage is studying already", rule="A-SPELL-9", field="attach_to")
    rules.check_learn(sp.arts, game.mage_arts(mage))


def _end_generated_turn(game: CovenantGame, seat: str) -> None:
    """The Create/Play turn of a seat that generated its card ends once it keeps or discards it."""
    s = game.state
    if s.phase == "create" and s.turn and s.turn[0] == seat and s.turn_done:
        track.end_turn(game, seat, acted=True)


class CardKept(CovenantEvent):
    card_id: str
    seat: str
    gold: int
    vis: int
    inactive_until: str | None
    attach_to: str | None
    art: str | None
    actor: str
    audience: list[str]
    spell: str | None = None

    def evolve(self, s: CovenantState) -> None:
        c = s.cards[self.card_id]
        c.pending = False
        c.attached_to = self.attach_to
        if self.spell:  # A-SPELL-1: a Grimoire studied by its mage, three counters ([000:437])
            c.spells, c.counters = [self.spell], 3
        if self.inactive_until:
            c.active, c.inactive_until = False, self.inactive_until
        if self.art:
            c.arts = [self.art]
            if self.attach_to is not None:
                c.counters = 3  # A-SPELL-9: three study counters
        s.powers[self.seat].gold -= self.gold
        s.powers[self.seat].vis -= self.vis


def discard(game: CovenantGame, seat: str, card_id: str) -> None:
    """H-3: create a card and discard it (A-GEN-2 [000:175] "If a player generates a resource he does not
    want, he may create the card and discard it"): the card just generated, on the seat's Create/Play turn; a
    card in play leaves only as a rule says (starved at the Reckoning, A-RECK-1)."""
    c = game.card(card_id)
    if c.owner != seat or not c.pending:
        raise RuleViolation("discard only a card you just generated and have not kept", rule="A-GEN-2", field="card_id")
    if game.state.phase != "create" or game.state.turn[:1] != [seat]:
        raise RuleViolation("a card just generated is discarded on your Create/Play turn", rule="A-GEN-2")
    game.trigger_event(
        game.CardDiscarded, card_id=card_id, reason="discarded by its owner", actor=seat, audience=PUBLIC
    )
    _end_generated_turn(game, seat)


class CardDiscarded(CovenantEvent):
    card_id: str
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        c = s.cards.pop(self.card_id)
        s.discard.append({"id": c.id, "name": c.name})
        for other in s.cards.values():
            if other.attached_to == self.card_id:
                other.attached_to = None


class CardTurned(CovenantEvent):
    card_id: str
    active: bool
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        c = s.cards[self.card_id]
        c.active = self.active
        if self.active:
            c.inactive_until = None


class CardDamaged(CovenantEvent):
    card_id: str
    damage: int
    active: bool
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        c = s.cards[self.card_id]
        c.damage += self.damage
        c.active = self.active
        c.new_damage = True


def damage(game: CovenantGame, card_id: str, amount: int, actor: str) -> None:
    """A-DMG-1..3: the card's damage grows; it turns inactive as its kind says; a destroyed structure goes."""
    c = game.state.cards[card_id]
    d = game.house.cards.get(c.name)
    total = c.damage + amount
    active = c.active and rules.is_active_after_damage(
        animate=bool(d and d.animate),
        might_type=d.might_type if d else None,
        might=own_might(game, c),
        structure=bool(d and d.structure),
        damage=total,
    )
    game.trigger_event(game.CardDamaged, card_id=card_id, damage=amount, active=active, actor=actor, audience=PUBLIC)
    if rules.destroyed(structure=bool(d and d.structure), damage=total):
        game.trigger_event(game.CardDiscarded, card_id=card_id, reason="destroyed", actor=SYSTEM, audience=PUBLIC)
    if c.owner is not None and c.kind == "grogs":
        check_holdings(game, c.owner)


def own_might(game: CovenantGame, c: Card) -> int:
    """A card's Might this season, of whatever type (A-DMG-3): Issandra's is 1 more in Spring and Summer."""
    d = game.house.cards.get(c.name)
    if d is None:
        return 0
    return d.might + (1 if game.season_name in d.might_seasons else 0)


def heal(game: CovenantGame, seat: str, healer_id: str, target_id: str) -> dict[str, Any]:
    """A Main Phase action (the house list's "heal"; A-AMB-20): a healer of the covenant removes its points of
    damage from any other being of the same covenant, once a season ([000:249] Herbalist). A mundane being
    healed fully is active again (A-DMG-1); a being of other Might, once its damage is below its Might
    (A-DMG-3)."""
    game.require_turn(seat, "main")
    healer, target = game.card(healer_id), game.card(target_id)
    dh = game.house.cards.get(healer.name)
    if healer.owner != seat or dh is None or not dh.heals or not healer.active:
        raise RuleViolation("heal with an active healer of your covenant", rule="A-DMG-1", field="healer")
    if "heal" in healer.cast_this_season:
        raise RuleViolation("a healer heals once a season", rule="A-DMG-1", field="healer")
    dt = game.house.cards.get(target.name)
    if target.owner != seat or target.id == healer.id or dt is None or not dt.animate:
        raise RuleViolation("heal another being of your own covenant", rule="A-DMG-1", field="target")
    if not target.damage:
        raise RuleViolation(f"{target.name} has no damage to heal", rule="A-DMG-1", field="target")
    left = max(0, target.damage - dh.heals)
    active = target.active or (
        not target.inactive_until
        and rules.is_active_after_damage(
            animate=True,
            might_type=dt.might_type,
            might=own_might(game, target),
            structure=dt.structure,
            damage=left,
        )
    )
    game.trigger_event(
        game.BeingHealed, healer=healer.id, card_id=target.id, damage=left, active=active, actor=seat, audience=PUBLIC
    )
    track.end_turn(game, seat, acted=True)
    return {"card_id": target.id, "damage": left, "active": active}


class BeingHealed(CovenantEvent):
    healer: str
    card_id: str
    damage: int
    active: bool
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.cards[self.healer].cast_this_season.append("heal")
        s.cards[self.card_id].damage, s.cards[self.card_id].active = self.damage, self.active


def check_holdings(game: CovenantGame, seat: str) -> None:
    """A-LIM-1 with A-AMB-11: Vis Sources and Mines beyond 2 per active Grogs go at once."""
    cards = game.covenant_cards(seat)
    excess = rules.unsupported_holdings([{"kind": c.kind, "active": c.active} for c in cards])
    for c in [c for c in cards if c.kind in ("vis_source", "mine")][:excess]:
        game.trigger_event(
            game.CardDiscarded, card_id=c.id, reason="unguarded: too few active Grogs", actor=SYSTEM, audience=PUBLIC
        )
