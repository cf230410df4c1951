"""The covenant game's typed commands and their handlers (A.3: every player choice is a command)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from domain.covenants import (
    battle,
    cards,
    certamen,
    demands,
    eventcards,
    hazards,
    market,
    reckoning,
    setup,
    spells,
    track,
)
from domain.covenants.game import CovenantGame
from domain.errors import Forbidden
from domain.platform.commands import Command, Context, Handler, require, require_seat
from domain.platform.roles import RULE


@dataclass(frozen=True)
class AddCovenant(Command):
    """Seat a covenant before the game begins; ``host`` gives the seat the host role; no ``arts``: rolled;
    ``score``: the points it begins with (a campaign carried on, or a handicap: the host's ruling, H-14)."""

    seat_id: str
    name: str
    covenant: str
    host: bool = False
    arts: list[str] = field(default_factory=list)
    score: int = 0


@dataclass(frozen=True)
class BeginGame(Command):
    """Draw the starting player with the committed dice and deal the starting cards (A-ORDER-2, H-1)."""


@dataclass(frozen=True)
class Move(Command):
    seat_id: str
    square: int


@dataclass(frozen=True)
class Generate(Command):
    """Roll this square's generator (A-TRACK-2); ``mouse`` is the Mouse familiar's +/-2 (A-GEN-1)."""

    seat_id: str
    mouse: int = 0


@dataclass(frozen=True)
class Keep(Command):
    """Keep a card just generated (A-GEN-2); ``art``: the Art an Art card carries; ``spell``: the spell a Grimoire
    attached to a mage teaches it (A-SPELL-1)."""

    seat_id: str
    card_id: str
    attach_to: str | None = None
    art: str | None = None
    spell: str | None = None


@dataclass(frozen=True)
class Discard(Command):
    seat_id: str
    card_id: str


@dataclass(frozen=True)
class Pass(Command):
    """Pass your turn (Create/Play, Events, Main: silence at the deadline counts as this, H-9)."""

    seat_id: str


@dataclass(frozen=True)
class Cast(Command):
    """Cast a spell; ``mother_may_i``: the covenant's player says it, as the Hedge Mage's curse 2 asks (H-12);
    ``more_targets``: the targets after ``target`` of a spell that chooses one for every N pawns (A-AMB-17)."""

    seat_id: str
    mage_id: str
    spell: str
    target: str
    vis: int
    mother_may_i: bool = False
    more_targets: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class TakeAction(Command):
    """A Main Phase action from the house rules' list; a custom one waits for the host's ruling (H-8)."""

    seat_id: str
    action: str
    text: str = ""


@dataclass(frozen=True)
class RuleOnAction(Command):
    """The host (or the auditor) rules on a custom action."""

    index: int
    approved: bool
    note: str = ""


@dataclass(frozen=True)
class Convert(Command):
    seat_id: str
    give: str
    amount: int
    get: str


@dataclass(frozen=True)
class OfferTrade(Command):
    """Offer another covenant gold, vis or provision for theirs, at a rate you agree (H-10)."""

    seat_id: str
    to: str
    give: dict[str, int]
    get: dict[str, int]


@dataclass(frozen=True)
class AnswerTrade(Command):
    """Accept (an atomic swap) or refuse a trade offered to you; the offerer may withdraw it."""

    seat_id: str
    trade_id: str
    accept: bool


@dataclass(frozen=True)
class Challenge(Command):
    seat_id: str
    mage_id: str
    target_mage: str


@dataclass(frozen=True)
class ChooseArt(Command):
    seat_id: str
    challenge_id: str
    art: str


@dataclass(frozen=True)
class SealBid(Command):
    """A sealed Certamen bid: only its hash is public until both bids are in (A-AMB-7)."""

    seat_id: str
    challenge_id: str
    vis: int


@dataclass(frozen=True)
class ResolveCertamen(Command):
    seat_id: str
    challenge_id: str


@dataclass(frozen=True)
class Forfeit(Command):
    seat_id: str
    challenge_id: str


@dataclass(frozen=True)
class Support(Command):
    """Allocate this season's resources at the Reckoning; the starved cards are discarded (A-RECK-1). In Winter,
    ``keep`` is the gold and vis the Yearly Reckoning leaves unconverted (A-AMB-9)."""

    seat_id: str
    starve: list[str] = field(default_factory=list)
    keep: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class DrawEvent(Command):
    """Draw an event on the Event square (A-EVT-1); ``mouse`` is the Mouse familiar's +/-2 (A-GEN-1)."""

    seat_id: str
    mouse: int = 0


@dataclass(frozen=True)
class DecideEvent(Command):
    seat_id: str
    choice: str
    target: str | None = None
    season: str | None = None


@dataclass(frozen=True)
class PayTax(Command):
    """Pay the Tax and Tithe assessed at this season's Main Phase (A-EVT-4); unpaid at Reckoning it becomes a
    permanent tribute (A-RECK-4)."""

    seat_id: str


@dataclass(frozen=True)
class FaceHedgeMage(Command):
    """At the end of the Main Phase, give up a Vis Source to a Hedge Mage Attack, or (None) face its curse."""

    seat_id: str
    give_up: str | None = None


@dataclass(frozen=True)
class FaceBandits(Command):
    """At the end of the Main Phase, pay a Wave of Bandits 1 gold, or fight it and allocate the damage it deals
    (card id -> damage)."""

    seat_id: str
    fight: bool
    allocation: dict[str, int] | None = None


@dataclass(frozen=True)
class UseMouse(Command):
    """Seen the generation roll, change it by up to 2 with the Mouse (A-GEN-1); ``card_id`` is the card it made."""

    seat_id: str
    card_id: str
    by: int


@dataclass(frozen=True)
class Investigate(Command):
    """Quaesitor Investigation: once per Main Phase, roll for each of your mages not yet investigated (A-EVT-3)."""

    seat_id: str


@dataclass(frozen=True)
class AttendTribunal(Command):
    """The house Gathering of the Tribunal: pay 1 vis to unmark your covenant while it is in play."""

    seat_id: str


@dataclass(frozen=True)
class ChoosePlagued(Command):
    """Plague: the active Animate Co beings of your covenant that take its damage, as many as its counters."""

    seat_id: str
    cards: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Heal(Command):
    """A Main Phase action: your healer (a Herbalist) removes damage from another being of your covenant."""

    seat_id: str
    healer: str
    target: str


@dataclass(frozen=True)
class AnswerService(Command):
    """Call to Service: the active Grogs you send the lord until Autumn; with none, ``pay`` 3 gold or (False)
    accept a permanent tribute of 2 (A-RECK-4). With Courtly Connections the dice may excuse you first."""

    seat_id: str
    grogs: str | None = None
    pay: bool = False


@dataclass(frozen=True)
class RollChaos(Command):
    """Season of Chaos: roll the d6 at the beginning of the Main Phase; on an even roll, choose a rival (A-EVT-3)."""

    seat_id: str


@dataclass(frozen=True)
class ChooseRival(Command):
    """Season of Chaos: the covenant you will fight at the end of the Main Phase (A-EX-7)."""

    seat_id: str
    rival: str


@dataclass(frozen=True)
class AvertBattle(Command):
    """Season of Chaos: the rival chosen pays 4 gold to the chooser to avert the battle, or (False) accepts it."""

    seat_id: str
    pay: bool


@dataclass(frozen=True)
class AllocateDamage(Command):
    """A battle at the end of the Main Phase: the damage your covenant takes, card id -> points, capacity first
    (A-BAT-1, H-6)."""

    seat_id: str
    allocation: dict[str, int] = field(default_factory=dict)
    pay_off: bool = False  # pay an Army of Skeletons (1 vis) or the Winter of Wolves (1 provision) instead


@dataclass(frozen=True)
class NoCounter(Command):
    """Confirm you will not counter the spells a battle waits on (H-15, A-EX-5)."""

    seat_id: str


def add_covenant(game: CovenantGame, cmd: AddCovenant, ctx: Context) -> dict[str, Any]:
    require(game, ctx, RULE, "seat a covenant")
    setup.add_covenant(
        game,
        cmd.seat_id,
        cmd.name,
        cmd.covenant,
        host=cmd.host,
        arts=list(cmd.arts),
        actor=ctx.principal,
        score=cmd.score,
    )
    return {"seat_id": cmd.seat_id}


def begin_game(game: CovenantGame, cmd: BeginGame, ctx: Context) -> dict[str, Any]:
    require(game, ctx, RULE, "begin the game")
    setup.begin(game, seed=ctx.entropy(32), roller=ctx.roller, actor=ctx.principal)
    return {"starting": game.state.starting}


def move(game: CovenantGame, cmd: Move, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    track.move(game, cmd.seat_id, cmd.square)
    return {"square": cmd.square, "phase": game.state.phase}


def generate(game: CovenantGame, cmd: Generate, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return {"card_id": cards.generate(game, cmd.seat_id, ctx.roller, mouse=cmd.mouse)}


def keep(game: CovenantGame, cmd: Keep, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    cards.keep(game, cmd.seat_id, cmd.card_id, cmd.attach_to, cmd.art, spell=cmd.spell)


def discard(game: CovenantGame, cmd: Discard, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    cards.discard(game, cmd.seat_id, cmd.card_id)


def pass_turn(game: CovenantGame, cmd: Pass, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    track.pass_turn(game, cmd.seat_id)


def cast(game: CovenantGame, cmd: Cast, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return spells.cast(game,
        cmd.seat_id, cmd.mage_id, cmd.spell, cmd.target, cmd.vis, mother_may_i=cmd.mother_may_i,
        more_targets=list(cmd.more_targets),
    )  # fmt: skip


def take_action(game: CovenantGame, cmd: TakeAction, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    market.take_action(game, cmd.seat_id, cmd.action, cmd.text)


def rule_on_action(game: CovenantGame, cmd: RuleOnAction, ctx: Context) -> None:
    require(game, ctx, RULE, "rule on a custom action")
    market.rule_on_action(game, cmd.index, cmd.approved, cmd.note, ctx.principal)


def convert(game: CovenantGame, cmd: Convert, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return {"got": market.convert(game, cmd.seat_id, cmd.give, cmd.amount, cmd.get)}


def offer_trade(game: CovenantGame, cmd: OfferTrade, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    trade_id = ctx.new_id("trade")
    market.offer_trade(game, cmd.seat_id, cmd.to, dict(cmd.give), dict(cmd.get), trade_id)
    return {"trade_id": trade_id}


def answer_trade(game: CovenantGame, cmd: AnswerTrade, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    market.answer_trade(game, cmd.seat_id, cmd.trade_id, cmd.accept)


def challenge(game: CovenantGame, cmd: Challenge, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    challenge_id = ctx.new_id("cert")
    certamen.challenge(game, cmd.seat_id, cmd.mage_id, cmd.target_mage, challenge_id)
    return {"challenge_id": challenge_id}


def choose_art(game: CovenantGame, cmd: ChooseArt, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    certamen.choose_art(game, cmd.seat_id, cmd.challenge_id, cmd.art)


def seal_bid(game: CovenantGame, cmd: SealBid, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    certamen.seal_bid(game, cmd.seat_id, cmd.challenge_id, cmd.vis, ctx.entropy(16))


def resolve_certamen(game: CovenantGame, cmd: ResolveCertamen, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    result = certamen.resolve_certamen(game, cmd.seat_id, cmd.challenge_id)
    return result


def forfeit(game: CovenantGame, cmd: Forfeit, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    certamen.forfeit(game, cmd.seat_id, cmd.challenge_id)


def support(game: CovenantGame, cmd: Support, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return reckoning.support(game, cmd.seat_id, list(cmd.starve), seed=ctx.entropy(32), keep=dict(cmd.keep))


def draw_event(game: CovenantGame, cmd: DrawEvent, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return eventcards.draw_event(game, cmd.seat_id, ctx.roller, mouse=cmd.mouse)


def decide_event(game: CovenantGame, cmd: DecideEvent, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    eventcards.decide_event(game, cmd.seat_id, cmd.choice, cmd.target, cmd.season)


def pay_tax(game: CovenantGame, cmd: PayTax, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return {"paid": demands.pay_tax(game, cmd.seat_id)}


def face_hedge_mage(game: CovenantGame, cmd: FaceHedgeMage, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return hazards.face_hedge_mage(game, cmd.seat_id, cmd.give_up, ctx.roller)


def face_bandits(game: CovenantGame, cmd: FaceBandits, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return hazards.face_bandits(game, cmd.seat_id, cmd.fight, dict(cmd.allocation) if cmd.allocation else None)


def use_mouse(game: CovenantGame, cmd: UseMouse, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return {"card_id": cards.use_mouse(game, cmd.seat_id, cmd.card_id, cmd.by)}


def investigate(game: CovenantGame, cmd: Investigate, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return demands.investigate(game, cmd.seat_id, ctx.roller)


def attend_tribunal(game: CovenantGame, cmd: AttendTribunal, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    demands.attend_tribunal(game, cmd.seat_id)


def choose_plagued(game: CovenantGame, cmd: ChoosePlagued, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return hazards.choose_plagued(game, cmd.seat_id, list(cmd.cards))


def heal(game: CovenantGame, cmd: Heal, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return cards.heal(game, cmd.seat_id, cmd.healer, cmd.target)


def answer_service(game: CovenantGame, cmd: AnswerService, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return demands.answer_service(game, cmd.seat_id, cmd.grogs, cmd.pay, ctx.roller)


def roll_chaos(game: CovenantGame, cmd: RollChaos, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return demands.roll_chaos(game, cmd.seat_id, ctx.roller)


def choose_rival(game: CovenantGame, cmd: ChooseRival, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    demands.choose_rival(game, cmd.seat_id, cmd.rival)


def avert_battle(game: CovenantGame, cmd: AvertBattle, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return demands.avert_battle(game, cmd.seat_id, cmd.pay)


def allocate_damage(game: CovenantGame, cmd: AllocateDamage, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.seat_id)
    return battle.allocate_damage(game, cmd.seat_id, dict(cmd.allocation), cmd.pay_off)


def no_counter(game: CovenantGame, cmd: NoCounter, ctx: Context) -> None:
    require_seat(game, ctx, cmd.seat_id)
    battle.confirm_no_counter(game, cmd.seat_id)


@dataclass(frozen=True)
class Silent(Command):
    """A seat's silence at its turn's deadline where no command of its own says what silence does (H-9): the
    platform sends it for the seat whose turn's window closed; no caller may."""

    seat_id: str
    system: ClassVar[bool] = True


def silent(game: CovenantGame, cmd: Silent, ctx: Context) -> None:
    if not ctx.silent:
        raise Forbidden("only the platform sends a seat's silence, when its turn's window closes", field="command")
    require_seat(game, ctx, cmd.seat_id)
    track.silence(game, cmd.seat_id, game.state.phase, ctx.entropy(32))


COVENANT_COMMANDS: dict[type[Command], Handler] = {
    AddCovenant: add_covenant,
    BeginGame: begin_game,
    Move: move,
    Generate: generate,
    Keep: keep,
    Discard: discard,
    Pass: pass_turn,
    Cast: cast,
    TakeAction: take_action,
    RuleOnAction: rule_on_action,
    Convert: convert,
    OfferTrade: offer_trade,
    AnswerTrade: answer_trade,
    Challenge: challenge,
    ChooseArt: choose_art,
    SealBid: seal_bid,
    ResolveCertamen: resolve_certamen,
    Forfeit: forfeit,
    Support: support,
    DrawEvent: draw_event,
    DecideEvent: decide_event,
    PayTax: pay_tax,
    FaceHedgeMage: face_hedge_mage,
    FaceBandits: face_bandits,
    UseMouse: use_mouse,
    Heal: heal,
    ChoosePlagued: choose_plagued,
    AttendTribunal: attend_tribunal,
    Investigate: investigate,
    AnswerService: answer_service,
    RollChaos: roll_chaos,
    ChooseRival: choose_rival,
    AvertBattle: avert_battle,
    AllocateDamage: allocate_damage,
    NoCounter: no_counter,
    Silent: silent,  # only the platform sends it (domain.covenants.turns)
}
