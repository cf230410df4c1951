"""The troubles at the end of the Main Phase (A-EVT-4): the Hedge Mage Attack, the Wave of Bandits and the
Plague."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from domain.covenants import battle, cards, track
from domain.covenants.base import BANDITS_MIGHT, PUBLIC, CovenantEvent, check_taken
from domain.covenants.errors import RuleViolation
from domain.covenants.state import Card, CovenantState
from domain.dice import Roller
from domain.ids import SYSTEM

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def hedge_claims(game: CovenantGame) -> list[str]:
    """Covenants a Hedge Mage Attack claims a Vis Source from at the end of this Main Phase ([000:744]); a
    covenant whose every Vis Source is already gone has nothing left to be claimed."""
    s = game.state
    return [
        e["target"]
        for e in s.effects
        if e.get("spell") == "Hedge Mage Attack"
        and e.get("event")
        and not e.get("answered")
        and any(c.kind == "vis_source" for c in game.covenant_cards(e["target"]))
    ]


def face_hedge_mage(
    game: CovenantGame, seat: str, give_up: str | None, roller: Callable[[CovenantGame], Roller]
) -> dict[str, Any]:
    """A-EVT-4 [000:748] "At the end of the Main Phase, the covenant must either give up (discard) a Vis Source
    of its choice or face the Hedge Mage's curse. The curse is determined by rolling a 6-sided die"."""
    game.require_turn(seat, "hedge")
    if give_up is not None:
        mine = [c.id for c in game.covenant_cards(seat) if c.kind == "vis_source"]
        if give_up not in mine:
            raise RuleViolation(f"give up one of your Vis Sources: {mine}", rule="A-EVT-4", field="give_up")
        game.trigger_event(game.HedgeMageFaced, seat=seat, curse=0, actor=seat, audience=PUBLIC)
        game.trigger_event(
            game.CardDiscarded, card_id=give_up, reason="given up to the Hedge Mage", actor=SYSTEM, audience=PUBLIC
        )
        track.end_turn(game, seat, acted=True)
        return {"given_up": give_up}
    cursed = any(c["curse"] == 1 for c in cards.curses(game, seat))  # A-GEN-1: curse 1 rolls every die twice
    faces = game.roll(roller(game), seat, "hedge mage curse", 2 if cursed else 1, 6)
    curse = min(faces)
    game.trigger_event(game.HedgeMageFaced, seat=seat, curse=curse, actor=seat, audience=PUBLIC)
    track.end_turn(game, seat, acted=True)
    return {"curse": curse}


class HedgeMageFaced(CovenantEvent):
    seat: str
    curse: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        for e in s.effects:
            if e.get("spell") == "Hedge Mage Attack" and e.get("target") == self.seat:
                e["answered"] = True
        if self.curse:  # the curse outlasts the event: the card names no end to it
            s.effects.append({"curse": self.curse, "covenant": self.seat, "source": "Hedge Mage Attack"})


def bandits_due(game: CovenantGame) -> list[str]:
    """Covenants yet to pay off or fight this season's Wave of Bandits."""
    s = game.state
    if "Wave of Bandits" not in s.events_in_play or s.bandits.get("discarded"):
        return []
    return [p for p in s.order if p not in s.bandits.get("answered", [])]


def face_bandits(game: CovenantGame, seat: str, fight: bool, allocation: dict[str, int] | None) -> dict[str, Any]:
    """A-EVT-4 [000:679] "At the end of the Main Phase, beginning with the covenant belonging to the starting
    player, each covenant must decide whether to engage the bandits in mundane battle or to pay them off with 1
    gold"; in battle, the covenant allocates the Bandits' Might 4 as damage to its beings (A-BAT-1, H-6)."""
    game.require_turn(seat, "bandits")
    p = game.power(seat)
    if not fight:
        if p.gold < 1:
            raise RuleViolation("paying the bandits off takes 1 gold", rule="A-EVT-4", field="fight")
        game.trigger_event(game.BanditsFaced, seat=seat, fought=False, dealt=0, actor=seat, audience=PUBLIC)
        track.end_turn(game, seat, acted=True)
        return {"paid": 1}
    beings = battle.battle_line(game, seat)
    taken = dict(allocation or {})
    check_taken(BANDITS_MIGHT, {c.id: battle.capacity(game, c) for c in beings}, taken)
    dealt = battle.attack(game, beings)
    game.trigger_event(game.BanditsFaced, seat=seat, fought=True, dealt=dealt, actor=seat, audience=PUBLIC)
    for card_id, amount in taken.items():
        if amount:
            cards.damage(game, card_id, amount, seat)
    track.end_turn(game, seat, acted=True)
    return {"dealt": dealt, "taken": taken}


class BanditsFaced(CovenantEvent):
    seat: str
    fought: bool
    dealt: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        b = s.bandits or {"damage": 0, "answered": [], "fought": []}
        b["answered"] = [*b.get("answered", []), self.seat]
        if self.fought:
            b["fought"] = [*b.get("fought", []), self.seat]
            b["damage"] = b.get("damage", 0) + self.dealt
        else:
            s.powers[self.seat].gold -= 1
        s.bandits = b


class BanditsLooted(CovenantEvent):
    seat: str
    gold: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.powers[self.seat].gold -= self.gold


class BanditsSeasonEnded(CovenantEvent):
    discarded: bool
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.bandits = {"discarded": True} if self.discarded else {"damage": 0, "answered": [], "fought": []}


def plague_victims(game: CovenantGame, seat: str) -> list[Card]:
    """The covenant's active beings of substance Animate Co (their substance now: A-SPELL-7)."""
    out = []
    for c in game.covenant_cards(seat):
        d = game.house.cards.get(c.name)
        if c.active and d is not None and d.animate and c.substance == "Co":
            out.append(c)
    return out


def plague_due(game: CovenantGame) -> list[str]:
    """[000:671] "At the end of each Main Phase when this card is in play, each covenant must choose a number of
    active beings of substance Animate Co equal to the number of counters on this card" (A.1.4: the first Main
    Phase of each season); in the season it was played it has no counter yet."""
    s = game.state
    n = s.plague.get("counters", 0)
    if "Plague" not in s.events_in_play or not n or s.plague.get("season") == s.seasons_begun:
        return []
    return [p for p in s.order if plague_victims(game, p)]


def choose_plagued(game: CovenantGame, seat: str, chosen: list[str]) -> dict[str, Any]:
    """H-6: the covenant chooses which of its Animate Co beings take the Plague's damage, one point each."""
    game.require_turn(seat, "plague")
    victims = [c.id for c in plague_victims(game, seat)]
    want = min(game.state.plague.get("counters", 0), len(victims))
    if len(set(chosen)) != len(chosen) or len(chosen) != want or set(chosen) - set(victims):
        raise RuleViolation(f"choose {want} of your active Animate Co beings: {victims}", rule="A-EVT-4", field="cards")
    game.trigger_event(game.PlagueStruck, seat=seat, cards=list(chosen), actor=seat, audience=PUBLIC)
    for card_id in chosen:
        cards.damage(game, card_id, 1, seat)
    track.end_turn(game, seat, acted=True)
    return {"damaged": list(chosen)}


class PlagueStruck(CovenantEvent):
    seat: str
    cards: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        pass  # the damage follows as CardDamaged events


class PlagueCounterAdded(CovenantEvent):
    counters: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.plague = {**s.plague, "counters": self.counters}
