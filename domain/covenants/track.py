"""The track and the calendar (A-TRACK-1, A-ORDER-1, A-AMB-5): seasons, cycles and phases, whose turn it is, the
Move Phase, passing, and what a seat's silence at its deadline does (H-9)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from domain.covenants import battle, certamen, demands, eventcards, hazards, reckoning, rules
from domain.covenants.base import (
    AFTER_MAIN,
    BANDITS_MIGHT,
    END_OF_MAIN,
    ENEMIES,
    PUBLIC,
    SERVICE_TOLL,
    CovenantEvent,
    _expire,
)
from domain.covenants.errors import RuleViolation
from domain.covenants.options import option
from domain.covenants.state import CovenantState, HeldEvent
from domain.ids import SYSTEM

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def begin_season(game: CovenantGame) -> None:
    s = game.state
    game.trigger_event(game.SeasonBegan, year=s.year, season=s.season, actor=SYSTEM, audience=PUBLIC)
    for c in list(s.cards.values()):  # A-GEN-3: construction ends at the first qualifying Move Phase
        if c.inactive_until and game.season_name in c.inactive_until.split(","):
            why = {"grogs": "back from the lord's service", "town": "the Riots' season is over"}.get(
                c.kind, "construction done"
            )
            game.trigger_event(game.CardTurned, card_id=c.id, active=True, reason=why, actor=SYSTEM, audience=PUBLIC)
    _next_cycle(game)


class SeasonBegan(CovenantEvent):
    year: int
    season: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.seasons_begun += 1
        s.cycle = 0
        for seat in s.powers.values():  # A-AMB-3: tokens go back to Begin each season
            seat.square, seat.moved_this_season, seat.supported = 0, False, False
        for c in s.cards.values():
            c.cast_this_season = []
            c.new_damage = False
            c.inactive_all_season = not c.active


def _next_cycle(game: CovenantGame) -> None:
    _phase(game, game.state.cycle + 1, "move")


def _phase(game: CovenantGame, cycle: int, phase: str) -> None:
    s = game.state
    order = rules.clockwise(s.order, s.starting) if s.starting else list(s.order)
    if phase == "create":
        order = [p for p in order if s.powers[p].square != rules.EVENT_SQUARE]
    due: list[HeldEvent] = []
    quaesitor = None  # the seat on the Event square a Quaesitor Investigation is created for (A-AGG-1)
    if phase == "events":
        if s.seasons_begun > 4 and s.events_phase_season != s.seasons_begun:  # the season's first
            # [000:767] an investigated covenant's player "may not create nor play cards" and "the state of the
            # covenant does not change": its held events stay held until it rejoins (else they would fire for a
            # player who may not answer, and the phase would wait on nobody)
            due = [h for h in s.held_events if h["season"] == game.season_name and not game.out_of_play(h["seat"])]
        waiting = [h for h in s.held_events if h not in due]
        order = [p for p in order if s.powers[p].square == rules.EVENT_SQUARE and not waiting]
        holders = list(dict.fromkeys(h["seat"] for h in due))
        order = holders + [p for p in order if p not in holders]
        on_event = [p for p in s.order if s.powers[p].square == rules.EVENT_SQUARE]
        investigation = "Quaesitor Investigation" in s.events_in_play
        marked = any(p.marked for p in s.powers.values())
        if s.seasons_begun > 4 and not due and on_event and marked and not investigation:
            quaesitor = on_event[0]  # the seat on the Event square decides the Investigation created for it,
            order += [p for p in on_event if p not in order]  # whatever is on hold (A-AMB-19)
    if phase == "certamen":
        order = [p for p in order if any(certamen.resolver(game, ch) == p for ch in s.challenges.values())]
    if phase == "hedge":
        order = [p for p in order if p in hazards.hedge_claims(game)]
    if phase == "bandits":  # [000:679] "beginning with the covenant belonging to the starting player"
        order = [p for p in order if p in hazards.bandits_due(game)]
    if phase == "battle":
        order = []  # each battle sets whose allocation it awaits
    if phase == "plague":
        order = [p for p in order if p in hazards.plague_due(game)]
    order = [p for p in order if not game.out_of_play(p)]  # a covenant under investigation does nothing
    game.trigger_event(
        game.PhaseBegan,
        year=s.year,
        season=s.season,
        cycle=cycle,
        phase=phase,
        turn=order,
        actor=SYSTEM,
        audience=PUBLIC,
    )
    if due:  # A-EVT-1 [000:16]: held events are unrotated in the order they were generated
        game.trigger_event(game.HeldEventsReleased, events=due, actor=SYSTEM, audience=PUBLIC)
    elif quaesitor is not None:  # A-AGG-1 [000:100], A-AMB-19: created whatever is on hold
        game.trigger_event(game.QuaesitorInvestigationCreated, seat=quaesitor, actor=SYSTEM, audience=PUBLIC)
    elif phase == "events" and (s.seasons_begun <= 4 or not order):
        advance_from(game, "events")  # A-AMB-2: only after the first four seasons
    elif phase in ("hedge", "bandits", "plague") and not order:
        advance_from(game, phase)
    elif phase == "battle":
        battle.queue_event_battles(game)
        battle.next_battle(game)
    elif phase == "certamen" and not s.challenges:
        advance_from(game, "certamen")
    elif phase in ("create", "reckoning") and not order:
        advance_from(game, phase)
    if phase == "main" and "Tax and Tithe" in s.events_in_play:
        demands.assess_tax(game)
    if phase == "main":
        eventcards.main_effects(game)


class PhaseBegan(CovenantEvent):
    year: int
    season: int
    cycle: int
    phase: str
    turn: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.cycle, s.phase, s.turn = self.cycle, self.phase, list(self.turn)
        if self.phase not in END_OF_MAIN:  # the steps at the end of the Main Phase are still within it
            s.spells_cast = []  # A-SPELL-5: a spell may be countered only within its own phase
            s.closed_spells = []
            s.boosted_battles = []
            s.extra_round = False  # A-AMB-5: one extra round a Main Phase, whatever its end brings after it
        if self.phase == "events":
            s.events_phase_season = s.seasons_begun
        if self.phase == "chaos":
            s.chaos = {"season": s.seasons_begun, "choosing": None, "answering": None}
        if self.phase == "service":
            s.service = {"season": s.seasons_begun, "answers": {}}
        if self.phase == "plague":
            s.plague = {**s.plague, "season": s.seasons_begun}
        # A-SPELL-3: a spell of N seasons ends at the beginning of the phase it was cast in, N seasons on.
        _expire(s, lambda e: e.get("until") == s.seasons_begun and e.get("phase") == self.phase)
        s.passed, s.acted, s.turn_done = [], False, False


def advance_from(game: CovenantGame, phase: str) -> None:
    s = game.state
    if phase == "move":
        _phase(game, s.cycle, "create")
    elif phase == "create":
        for c in list(s.cards.values()):  # A-GEN-2: what was not kept is created, then discarded
            if c.pending:
                game.trigger_event(
                    game.CardDiscarded,
                    card_id=c.id,
                    reason="not kept by the end of the phase",
                    actor=SYSTEM,
                    audience=PUBLIC,
                )
        _phase(game, s.cycle, "events")
    elif phase in ("events", "service", "chaos"):  # the beginning of the Main Phase, then the Main Phase
        begins = {
            "service": "Call to Service" in s.events_in_play and s.service.get("season") != s.seasons_begun,
            "chaos": "Season of Chaos" in s.events_in_play and s.chaos.get("season") != s.seasons_begun,
            "main": True,
        }
        steps = ("service", "chaos", "main")
        later = steps[steps.index(phase) + 1 :] if phase in steps else steps
        _phase(game, s.cycle, next(p for p in later if begins[p]))
    elif phase in ("main", *AFTER_MAIN[:-1]):
        ends: dict[str, Callable[[], bool]] = {
            "hedge": lambda: bool(hazards.hedge_claims(game)),
            "bandits": lambda: bool(hazards.bandits_due(game)),
            "battle": lambda: bool(s.battles) or bool(battle.event_battles(game)),
            "plague": lambda: bool(hazards.plague_due(game)),
            "certamen": lambda: True,
        }
        later = AFTER_MAIN[AFTER_MAIN.index(phase) + 1 :] if phase in AFTER_MAIN else AFTER_MAIN
        nxt = next(p for p in later if ends[p]())
        extra = option(s.options, "main_phase_mode") == "passes_then_extra_round"
        if nxt == "certamen" and extra and not s.extra_round:  # A-AMB-5 [000:115]: one more round once the
            _main_round(game, extra=True)  # end of the Main Phase's events have completed
            return
        _phase(game, s.cycle, nxt)
    elif phase == "certamen":
        _next_cycle(game)


class TurnPassed(CovenantEvent):
    seat: str
    phase: str
    acted: bool
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        if s.turn and s.turn[0] == self.seat:
            s.turn.pop(0)
        s.turn_done = False
        if self.phase == "main":
            if self.acted:
                s.acted = True
            else:
                s.passed.append(self.seat)


def end_turn(game: CovenantGame, seat: str, *, acted: bool) -> None:
    s = game.state
    phase = s.phase
    game.trigger_event(game.TurnPassed, seat=seat, phase=phase, acted=acted, actor=seat, audience=PUBLIC)
    if s.turn:
        return
    if phase != "main":
        advance_from(game, phase)
        return
    # A-AMB-5: rounds of one action each until a round where everyone passes, then the end of the Main Phase
    # and one extra round (``advance_from``); or, as the game's main_phase_mode says, exactly one round.
    everyone_passed = not s.acted and len(s.passed) >= len([p for p in s.order if not game.out_of_play(p)])
    if s.extra_round or everyone_passed or option(s.options, "main_phase_mode") == "one_round":
        advance_from(game, "main")
    else:
        _main_round(game, extra=False)


def _main_round(game: CovenantGame, extra: bool) -> None:
    s = game.state
    order = rules.clockwise(s.order, s.starting) if s.starting else list(s.order)
    order = [p for p in order if not game.out_of_play(p)]
    game.trigger_event(game.MainRoundBegan, turn=order, extra=extra, actor=SYSTEM, audience=PUBLIC)


class MainRoundBegan(CovenantEvent):
    turn: list[str]
    extra: bool
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.turn, s.passed, s.acted, s.extra_round = list(self.turn), [], False, self.extra
        s.phase = "main"  # the extra round follows the end of the Main Phase's events, still in it (A-AMB-5)


def legal_moves(game: CovenantGame, seat: str) -> list[int]:
    s = game.state
    p = game.power(seat)
    occupied = any(o.square == rules.EVENT_SQUARE for k, o in s.powers.items() if k != seat)
    return rules.legal_moves(p.square, not p.moved_this_season, occupied)


def move(game: CovenantGame, seat: str, square: int) -> None:
    game.require_turn(seat, "move")
    s = game.state
    p = game.power(seat)
    occupied = any(o.square == rules.EVENT_SQUARE for k, o in s.powers.items() if k != seat)
    rules.check_move(p.square, square, not p.moved_this_season, occupied)
    game.trigger_event(game.TokenMoved, seat=seat, square=square, actor=seat, audience=PUBLIC)
    if square == rules.END_SQUARE:  # A-AMB-4: everyone joins it and the Reckoning begins at once
        _phase(game, s.cycle, "reckoning")
        return
    end_turn(game, seat, acted=True)


class TokenMoved(CovenantEvent):
    seat: str
    square: int
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.powers[self.seat].square = self.square
        s.powers[self.seat].moved_this_season = True
        if self.square == rules.END_SQUARE:
            for p in s.powers.values():
                p.square = rules.END_SQUARE


def pass_turn(game: CovenantGame, seat: str) -> None:
    phase = game.state.phase
    if phase not in ("create", "main", "events"):
        raise RuleViolation(f"nobody passes in the {phase} phase", rule="A-ORDER-1")
    game.require_turn(seat, phase)
    pe = game.state.pending_event
    if pe is not None and pe["seat"] == seat:
        raise RuleViolation("play, hold or discard the event you drew first", rule="A-EVT-1")
    end_turn(game, seat, acted=False)


def silence(game: CovenantGame, seat: str, phase: str, seed: str) -> None:
    """What a seat's silence at its deadline does: the first legal move (moving is mandatory), a pass, the
    drawn event discarded, or support that starves what the covenant cannot pay for."""
    s = game.state
    if phase == "move":
        move(game, seat, legal_moves(game, seat)[0])
    elif (
        phase == "events"
        and s.pending_event is not None
        and s.pending_event.get("quaesitor")
        and s.pending_event["seat"] == seat
    ):
        # H-13 has no "discard" while a covenant is marked ([000:100] "decides where to apply"): silence
        # applies the Investigation to the first marked covenant clockwise from the player's left (its own
        # last, so silence never turns the Quaesitors on the silent), or discards it if none is marked; then
        # the silent seat passes its Events turn (H-9).
        targets = eventcards.investigation_targets(game, seat)
        eventcards.decide_event(game, seat, "play" if targets else "discard", targets[0] if targets else None)
        if s.phase == "events" and s.turn and s.turn[0] == seat and s.pending_event is None:
            end_turn(game, seat, acted=False)
    elif phase == "events" and s.pending_event is not None and s.pending_event["seat"] == seat:
        eventcards.decide_event(game, seat, "discard")
    elif phase in ("create", "events", "main"):
        end_turn(game, seat, acted=False)
    elif phase == "bandits":  # silence pays the bandits off if it can, else fights, capacity first
        if s.powers[seat].gold >= 1:
            hazards.face_bandits(game, seat, False, None)
        else:
            hazards.face_bandits(game, seat, True, battle.default_allocation(game, seat, BANDITS_MIGHT))
    elif phase == "plague":  # silence: the first beings in card order
        want = min(s.plague.get("counters", 0), len(hazards.plague_victims(game, seat)))
        hazards.choose_plagued(game, seat, [c.id for c in hazards.plague_victims(game, seat)][:want])
    elif phase == "service":  # silence: no Courtly roll; the first active Grogs, else 3 gold if it has them
        active = [c.id for c in game.covenant_cards(seat) if c.kind == "grogs" and c.active]
        demands.serve(game, seat, active[0] if active else None, s.powers[seat].gold >= SERVICE_TOLL, actor=SYSTEM)
    elif phase == "chaos":  # silence: no roll (a pass, H-9); a rival, the first clockwise; no gold paid
        ch = s.chaos
        answering = ch.get("answering")
        if answering and answering["rival"] == seat:
            demands.avert_battle(game, seat, False)
        elif ch.get("choosing") == seat:
            demands.choose_rival(game, seat, demands.rivals(game, seat)[0])
        else:
            end_turn(game, seat, acted=False)
    elif phase == "battle" and s.deferred is not None:  # silence: the battle is fought, no agreement (A-EX-5)
        battle.confirm_no_counter(game, seat, silent=True)
    elif phase == "battle":  # silence pays an enemy off if it can (as with the bandits), else fights
        bt = s.battle
        toll = ENEMIES.get(bt["b"]) if bt is not None and bt["a"] == seat else None
        if toll is not None and getattr(s.powers[seat], toll[0]) >= toll[1]:
            battle.allocate_damage(game, seat, {}, pay_off=True)
        else:
            battle.allocate_damage(
                game, seat, battle.default_allocation(game, seat, battle.damage_to_allocate(game, seat))
            )
    elif phase == "hedge":  # silence gives up a Vis Source: the curse would need the seat's own roll
        source = next((c.id for c in game.covenant_cards(seat) if c.kind == "vis_source"), None)
        game.trigger_event(game.HedgeMageFaced, seat=seat, curse=0, actor=SYSTEM, audience=PUBLIC)
        if source is not None:  # none left: nothing is claimed (``hazards.hedge_claims``)
            game.trigger_event(
                game.CardDiscarded, card_id=source, reason="given up to the Hedge Mage", actor=SYSTEM, audience=PUBLIC
            )
        end_turn(game, seat, acted=False)
    elif phase == "certamen":
        for challenge in [c for c in s.challenges.values() if certamen.resolver(game, c) == seat]:
            game.trigger_event(
                game.CertamenResolved,
                challenge_id=challenge["id"],
                result={"winner": None, "cancelled": True},
                bids={},
                actor=SYSTEM,
                audience=PUBLIC,
            )
        end_turn(game, seat, acted=False)
    elif phase == "reckoning":
        if not seed:  # the season may end here: its next seed must be fresh and secret
            raise RuntimeError("closing a Reckoning turn needs fresh entropy for the next seed")
        reckoning.support(game, seat, reckoning.default_starved(game, seat), seed=seed)
