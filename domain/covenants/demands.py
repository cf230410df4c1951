"""What the Order and the lords demand of a covenant (A-EVT-3, A-EVT-4, A-RECK-4, A-AGG-1): Tax and Tithe and the
Tribunal, the Quaesitor Investigation, the Call to Service and the Season of Chaos."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from domain.covenants import cards, rules, track
from domain.covenants.base import CHAOS_TOLL, PUBLIC, SERVICE_TOLL, SERVICE_TRIBUTE, CovenantEvent
from domain.covenants.errors import RuleViolation
from domain.covenants.state import Card, CovenantState
from domain.dice import Roller
from domain.ids import SYSTEM

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def assess_tax(game: CovenantGame) -> None:
    """A-EVT-4 [000:667]: "The tax is assessed at the beginning of the Main Phase of the season this card is
    played (subsequent conversions or additions and subtractions to gold do not change the tax)"."""
    s = game.state
    if s.tax_assessed == s.seasons_begun:
        return
    taxes = {}
    for seat in s.order:
        capacity = 0
        for c in game.covenant_cards(seat):
            d = game.house.cards.get(c.name)
            if d is not None and c.active:
                capacity += d.production.provision
        courtly = bool(_attributed(game, seat, "Courtly Connections"))  # [000:667] "one fifth or one gold"
        taxes[seat] = rules.tax(capacity, s.powers[seat].gold, courtly=courtly)
    game.trigger_event(game.TaxAssessed, taxes=taxes, actor=SYSTEM, audience=PUBLIC)


class TaxAssessed(CovenantEvent):
    taxes: dict[str, int]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.tax_assessed = s.seasons_begun
        for seat, amount in self.taxes.items():
            s.powers[seat].tax_owed = amount


def attend_tribunal(game: CovenantGame, seat: str) -> None:
    """The house Gathering of the Tribunal ("every covenant may pay 1 vis to unmark itself"): while it is in
    play, a marked covenant pays 1 vis, at any time, and is no longer liable (A-AGG-1)."""
    p = game.power(seat)
    if "Gathering of the Tribunal" not in game.state.events_in_play:
        raise RuleViolation("no Gathering of the Tribunal is in play", rule="A-EVT-4")
    if not p.marked:
        raise RuleViolation("your covenant is not marked", rule="A-AGG-1")
    if p.vis < 1:
        raise RuleViolation("the Tribunal asks 1 vis", rule="A-EVT-4", field="vis")
    game.trigger_event(game.TribunalAttended, seat=seat, actor=seat, audience=PUBLIC)


class TribunalAttended(CovenantEvent):
    seat: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        p = s.powers[self.seat]
        p.vis -= 1
        p.marked = False


def pay_tax(game: CovenantGame, seat: str) -> int:
    """A-EVT-4: the assessed tax is paid in gold ("Vis is not acceptable") any time before the Reckoning."""
    p = game.power(seat)
    if not p.tax_owed:
        raise RuleViolation("you owe no tax", rule="A-EVT-4")
    if game.state.phase in ("reckoning", "over") and p.supported:
        raise RuleViolation("the tax is due by your Reckoning", rule="A-EVT-4")
    if p.gold < p.tax_owed:
        raise RuleViolation(f"the tax is {p.tax_owed} gold and you hold {p.gold}", rule="A-EVT-4", field="gold")
    amount = p.tax_owed
    game.trigger_event(game.TaxPaid, seat=seat, gold=amount, actor=seat, audience=PUBLIC)
    return amount


class TaxPaid(CovenantEvent):
    seat: str
    gold: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        p = s.powers[self.seat]
        p.gold -= self.gold
        p.tax_owed = 0


class PermanentTributeImposed(CovenantEvent):
    seat: str
    points: int
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        p = s.powers[self.seat]
        p.tribute.append({"to": None, "points": self.points, "permanent": True})
        p.tax_owed = 0


def investigate(game: CovenantGame, seat: str, roller: Callable[[CovenantGame], Roller]) -> dict[str, Any]:
    """[000:767] "Once per Main Phase, the player rolls a 6-sided die for every mage in the covenant that has not
    yet been investigated; if the roll is even, mark that mage as having been investigated. As soon as all the
    mages in the covenant are marked, the Investigation is over, this card is discarded, and the player may
    rejoin the game at the start of the next season." (A-EVT-3: even is success; curse 1 rolls each twice)."""
    s = game.state
    inv = s.investigation
    if not game.out_of_play(seat) or inv.get("ends") is not None:
        raise RuleViolation("no Investigation is going on in your covenant", rule="A-EVT-3")
    if s.phase != "main":
        raise RuleViolation("the Quaesitors' dice are rolled once per Main Phase", rule="A-EVT-3")
    if inv.get("rolled") == [s.seasons_begun, s.cycle]:
        raise RuleViolation("once per Main Phase", rule="A-EVT-3")
    mages = [c.id for c in game.covenant_cards(seat) if c.kind == "mage" and c.id not in inv["investigated"]]
    cursed = any(c["curse"] == 1 for c in cards.curses(game, seat))
    faces = game.roll(roller(game), seat, "Quaesitor Investigation", len(mages) * (2 if cursed else 1), 6)
    rolls = [min(faces[i : i + 2]) for i in range(0, len(faces), 2)] if cursed else faces
    cleared = [m for m, f in zip(mages, rolls, strict=True) if rules.parity_success(f)]
    game.trigger_event(
        game.InvestigationRolled,
        seat=seat,
        rolls=dict(zip(mages, rolls, strict=True)),
        cleared=cleared,
        actor=seat,
        audience=PUBLIC,
    )
    done = len(cleared) == len(mages)
    if done:
        game.trigger_event(game.InvestigationEnded, outcome="cleared", actor=SYSTEM, audience=PUBLIC)
    return {"rolls": dict(zip(mages, rolls, strict=True)), "investigated": cleared, "over": done}


class InvestigationRolled(CovenantEvent):
    seat: str
    rolls: dict[str, int]
    cleared: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        inv = s.investigation
        inv["investigated"] = [*inv["investigated"], *self.cleared]
        inv["rolled"] = [s.seasons_begun, s.cycle]


class InvestigationEnded(CovenantEvent):
    outcome: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.investigation["ends"] = s.seasons_begun
        s.investigation["outcome"] = self.outcome


def _attributed(game: CovenantGame, seat: str, attribute: str) -> list[Card]:
    """The covenant's active cards with an attribute ("Courtly Connections", ...)."""
    out = []
    for c in game.covenant_cards(seat):
        d = game.house.cards.get(c.name)
        if c.active and d is not None and attribute in d.attributes:
            out.append(c)
    return out


def answer_service(
    game: CovenantGame, seat: str, grogs: str | None, pay: bool, roller: Callable[[CovenantGame], Roller]
) -> dict[str, Any]:
    """[000:669] "At the beginning of the Main Phase of the season this card was played, flip one active Grogs card
    over to indicate it does not interact at all in the game. Remove any existing damage. If a covenant has no
    active Grogs, it must pay 3 gold immediately or accept a permanent tribute of 2 points owed to the lord. If
    the covenant possesses one or more cards with the Courtly Connections attribute, roll a 6-sided die per card
    with that attribute; if any roll is even, no service or penalty is required." The covenant names the Grogs
    it sends (H-11); the Grogs comes back at the beginning of Autumn."""
    game.require_turn(seat, "service")
    courtly = _attributed(game, seat, "Courtly Connections")
    if courtly:  # A-EVT-3: one roll per card, any even excuses the covenant (curse 1: each die twice)
        cursed = any(c["curse"] == 1 for c in cards.curses(game, seat))
        faces = game.roll(roller(game), seat, "Call to Service", len(courtly) * (2 if cursed else 1), 6)
        rolls = [min(faces[i : i + 2]) for i in range(0, len(faces), 2)] if cursed else faces
        if any(rules.parity_success(f) for f in rolls):
            game.trigger_event(
                game.ServiceAnswered, seat=seat, outcome="excused", card=None, actor=seat, audience=PUBLIC
            )
            track.end_turn(game, seat, acted=True)
            return {"outcome": "excused", "rolls": rolls}
    return serve(game, seat, grogs, pay, actor=seat)


def serve(game: CovenantGame, seat: str, grogs: str | None, pay: bool, *, actor: str) -> dict[str, Any]:
    active = [c.id for c in game.covenant_cards(seat) if c.kind == "grogs" and c.active]
    if active:
        if grogs not in active:
            raise RuleViolation(f"send one of your active Grogs to the lord: {active}", rule="A-RECK-4", field="grogs")
        outcome, card = "grogs", grogs
    elif pay:
        if game.state.powers[seat].gold < SERVICE_TOLL:
            raise RuleViolation(
                f"with no active Grogs the lord asks {SERVICE_TOLL} gold, or a permanent tribute of {SERVICE_TRIBUTE}",
                rule="A-RECK-4",
                field="pay",
            )
        outcome, card = "paid", None
    else:
        outcome, card = "tribute", None
    game.trigger_event(game.ServiceAnswered, seat=seat, outcome=outcome, card=card, actor=actor, audience=PUBLIC)
    if card is not None:
        cards.check_holdings(game, seat)  # A-AMB-11: fewer active Grogs may leave holdings unguarded
    track.end_turn(game, seat, acted=True)
    return {"outcome": outcome, "card": card}


class ServiceAnswered(CovenantEvent):
    seat: str
    outcome: str
    card: str | None
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.service.setdefault("answers", {})[self.seat] = self.outcome
        p = s.powers[self.seat]
        if self.outcome == "grogs" and self.card is not None:
            c = s.cards[self.card]
            c.active, c.damage, c.inactive_until = False, 0, "autumn"  # unflipped at the beginning of Autumn
        elif self.outcome == "paid":
            p.gold -= SERVICE_TOLL
        elif self.outcome == "tribute":
            p.tribute.append({"to": None, "points": SERVICE_TRIBUTE, "permanent": True})


def roll_chaos(game: CovenantGame, seat: str, roller: Callable[[CovenantGame], Roller]) -> dict[str, Any]:
    """[000:691] "At the beginning of the Main Phase, starting with the starting player, each player in turn
    rolls a 6-sided die; if the result is even, that player must choose a rival covenant to engage in mundane
    battle." (A-EVT-3: even is success; the Hedge curse 1 rolls twice)."""
    game.require_turn(seat, "chaos")
    ch = game.state.chaos
    if ch.get("choosing") or ch.get("answering"):
        raise RuleViolation("a rival is being chosen or is answering: you have rolled", rule="A-EVT-3")
    cursed = any(c["curse"] == 1 for c in cards.curses(game, seat))
    face = min(game.roll(roller(game), seat, "Season of Chaos", 2 if cursed else 1, 6))
    even = rules.parity_success(face)
    game.trigger_event(game.ChaosRolled, seat=seat, face=face, even=even, actor=seat, audience=PUBLIC)
    if even and not rivals(game, seat):  # every other covenant is out of play (A-AGG-1): nobody to fight
        game.trigger_event(game.NoRivalFound, seat=seat, actor=SYSTEM, audience=PUBLIC)
        even = False
    if not even:
        track.end_turn(game, seat, acted=True)
    return {"face": face, "must_choose_rival": even}


def rivals(game: CovenantGame, seat: str) -> list[str]:
    """The covenants a player who rolled even may choose, clockwise from the player's left: any other covenant
    still in play (a covenant under a Quaesitor Investigation is out of the game, [000:767])."""
    return [p for p in rules.clockwise(game.state.order, seat)[1:] if not game.out_of_play(p)]


class NoRivalFound(CovenantEvent):
    seat: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.chaos["choosing"] = None


class ChaosRolled(CovenantEvent):
    seat: str
    face: int
    even: bool
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        if self.even:
            s.chaos["choosing"] = self.seat


def choose_rival(game: CovenantGame, seat: str, rival: str) -> None:
    """A-EX-7: the player who rolled even names the rival; the rival answers at once (pays 4 gold or not)."""
    game.require_turn(seat, "chaos")
    if game.state.chaos.get("choosing") != seat:
        raise RuleViolation("only a player who rolled even chooses a rival", rule="A-EVT-3")
    game.power(rival)
    if rival == seat:
        raise RuleViolation("choose a rival covenant, not your own", rule="A-EVT-3", field="rival")
    game.refuse_out_of_play(rival, "rival")
    game.trigger_event(game.RivalChosen, seat=seat, rival=rival, actor=seat, audience=PUBLIC)


class RivalChosen(CovenantEvent):
    seat: str
    rival: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.chaos["choosing"] = None
        s.chaos["answering"] = {"chooser": self.seat, "rival": self.rival}
        if s.turn and s.turn[0] == self.seat:
            s.turn.pop(0)
        s.turn.insert(0, self.rival)  # the rival answers "at the time of the roll"


def avert_battle(game: CovenantGame, seat: str, pay: bool) -> dict[str, Any]:
    """[000:693] "The rival covenant may pay 4 gold at the time of the roll to the player who chose it to avert
    the battle. Otherwise, at the end of the Main Phase, in original order, the covenants must resolve their
    battles."."""
    game.require_turn(seat, "chaos")
    ans = game.state.chaos.get("answering")
    if not ans or ans["rival"] != seat:
        raise RuleViolation("only the rival a player chose answers", rule="A-EVT-3")
    if pay and game.state.powers[seat].gold < CHAOS_TOLL:
        raise RuleViolation(f"averting the battle takes {CHAOS_TOLL} gold", rule="A-EVT-3", field="pay")
    battle_id = f"b{game.version + 1}"
    game.trigger_event(
        game.ChaosAnswered,
        chooser=ans["chooser"],
        rival=seat,
        paid=pay,
        battle_id=battle_id,
        actor=seat,
        audience=PUBLIC,
    )
    if not game.state.turn:
        track.advance_from(game, "chaos")
    return {"paid": CHAOS_TOLL if pay else 0, "battle_id": None if pay else battle_id}


class ChaosAnswered(CovenantEvent):
    chooser: str
    rival: str
    paid: bool
    battle_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.chaos["answering"] = None
        if s.turn and s.turn[0] == self.rival:
            s.turn.pop(0)
        if self.paid:
            s.powers[self.rival].gold -= CHAOS_TOLL
            s.powers[self.chooser].gold += CHAOS_TOLL
        else:
            s.battles.append({"id": self.battle_id, "a": self.chooser, "b": self.rival, "cause": "Season of Chaos"})
