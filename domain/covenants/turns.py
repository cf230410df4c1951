"""The covenant game's turns on the platform's flow (H-9, ``domain.platform.flow``): every turn has a window.

A turn's window (kind ``phase:seat:season:cycle``) is open while that seat is at turn in that phase: the platform
opens it after a command that gives a seat its turn, with a deadline of the game's ``turn_hours``, and closes it
("turn over") once the turn has passed. At its deadline (or the host's close) the turn's seat is taken to send its
default on silence: the first legal move (moving is mandatory), a pass, the drawn event discarded, the bandits paid
off if it can, the first beings in card order for the Plague, an enemy paid off or the damage allocated, the rival
chaos gave it answered, support that starves what it cannot pay for. Where no command of the seat's says what its
silence does (a Quaesitor Investigation's event, the Call to Service, the Hedge Mage, a deferred battle, a
Certamen, a chaos turn with no rival), its default is ``Silent``: what H-9 has silence do there
(``track.silence``), which only the platform sends.
"""

from __future__ import annotations

from domain.covenants import battle, demands, hazards, reckoning, track
from domain.covenants.base import BANDITS_MIGHT, ENEMIES, TURN_PHASES
from domain.covenants.commands import (
    AllocateDamage,
    AvertBattle,
    ChoosePlagued,
    ChooseRival,
    DecideEvent,
    FaceBandits,
    Move,
    Pass,
    Silent,
    Support,
)
from domain.covenants.game import CovenantGame
from domain.covenants.options import option
from domain.platform.commands import Command
from domain.platform.flow import WindowRule
from domain.platform.state import Window


def _turn(game: CovenantGame) -> tuple[str, str, float] | None:
    """The window of the turn the state is at, if a seat is at turn (H-9)."""
    s = game.state
    whose = s.turn[0] if s.turn and s.phase in TURN_PHASES else None
    if whose is None:
        return None
    kind = f"{s.phase}:{whose}:{s.seasons_begun}:{s.cycle}"
    return f"w{game.version + 1}", kind, float(option(s.options, "turn_hours"))


def _over(game: CovenantGame, w: Window) -> bool:
    """A turn's window is over once the state is at another turn (or none)."""
    now = _turn(game)
    return now is None or now[1] != w.kind


def _waits(game: CovenantGame, w: Window) -> list[str]:
    """Who is reminded: the seats still to take their turn in the phase."""
    return list(game.state.turn)


def on_silence(game: CovenantGame, w: Window, seat: str) -> Command | None:
    """The command the seat at turn is taken to send when its turn's window closes (H-9); None for anyone else,
    or once the turn has passed."""
    phase, whose, _, _ = w.kind.split(":")
    s = game.state
    if seat != whose or s.phase != phase or not s.turn or s.turn[0] != seat:
        return None
    pe = s.pending_event
    mine = pe is not None and pe["seat"] == seat
    if phase == "move":
        return Move(seat, track.legal_moves(game, seat)[0])
    if phase == "events" and mine and pe is not None and not pe.get("quaesitor"):
        return DecideEvent(seat, "discard")
    if phase in ("create", "events", "main"):
        return Silent(seat) if mine else Pass(seat)
    if phase == "bandits":  # paid off if it can, else fought, capacity first
        if s.powers[seat].gold >= 1:
            return FaceBandits(seat, False)
        allocation = battle.default_allocation(game, seat, BANDITS_MIGHT)
        return FaceBandits(seat, True, allocation) if allocation else Silent(seat)
    if phase == "plague":  # the first beings in card order
        victims = [c.id for c in hazards.plague_victims(game, seat)]
        return ChoosePlagued(seat, victims[: min(s.plague.get("counters", 0), len(victims))])
    if phase == "chaos":
        ch = s.chaos
        answering = ch.get("answering")
        if answering and answering["rival"] == seat:
            return AvertBattle(seat, False)
        if ch.get("choosing") == seat:
            return ChooseRival(seat, demands.rivals(game, seat)[0])
    if phase == "battle" and s.deferred is None:  # an enemy paid off if it can (as the bandits), else fought
        bt = s.battle
        toll = ENEMIES.get(bt["b"]) if bt is not None and bt["a"] == seat else None
        if toll is not None and getattr(s.powers[seat], toll[0]) >= toll[1]:
            return AllocateDamage(seat, {}, pay_off=True)
        return AllocateDamage(seat, battle.default_allocation(game, seat, battle.damage_to_allocate(game, seat)))
    if phase == "reckoning":
        return Support(seat, reckoning.default_starved(game, seat))
    return Silent(seat)


# Every turn phase's window (TURN_PHASES): the platform opens it, closes it when the turn passes, and at its deadline
# records the close before the seat's default (the turn is over, then its silence counts).
TURNS = WindowRule(
    "turn",
    _waits,
    closes_early=_over,
    early="turn over",
    on_silence=on_silence,
    opens=_turn,
    close_first=True,
    matches=lambda kind: kind.count(":") == 3,
)
