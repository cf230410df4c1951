"""The covenant game's aggregate (ANALYSIS Part A): a ``PlatformGame`` with its own state and events.

The rules live in sub-domain modules (see ``domain.covenants.base``): each decides, checking a command against the
state (``domain.covenants.rules``) before it records anything, and declares its events, whose ``evolve`` only
folds one into the state. This class names every event class, so each is stored under the topic it always had
(``domain.covenants.game:CovenantGame.<Name>``), and keeps what the platform asks of a game: seats, turns and
windows, dice, and what a rollback carries over.

Every die comes from the platform's committed roller (``DieRolled`` carries the roll number, the season seed's
commitment and, for everyone, the roll's key and Merkle path), so a starting-player draw or a card generation can
be checked by any player. The season seed is revealed to everyone when the season ends.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from eventsourcing.domain import event

from domain import visibility as vis
from domain.covenants import (
    base,
    battle,
    cards,
    certamen,
    demands,
    eventcards,
    hazards,
    market,
    reckoning,
    rules,
    setup,
    spells,
    track,
)
from domain.covenants.base import BANDITS_MIGHT, ENEMIES, PUBLIC, bid_commitment, house_of
from domain.covenants.errors import RuleViolation
from domain.covenants.house import HousePackage
from domain.covenants.state import Card, CovenantSeat, CovenantState
from domain.dice import Roller, commitment
from domain.errors import Conflict, NotFound
from domain.ids import SYSTEM
from domain.platform.game import PlatformGame
from domain.platform.roles import HOST
from domain.platform.state import Window


class CovenantGame(PlatformGame):
    """One game of the covenant game."""

    state: CovenantState

    # The events, each declared and folded in its sub-domain's module; named here, each is redefined by the
    # library as CovenantGame.<Name>, the topic its stored events have always had.
    DieRolled = base.DieRolled
    # setup
    CovenantAdded = setup.CovenantAdded
    GameBegun = setup.GameBegun
    CardCreated = setup.CardCreated
    # track
    SeasonBegan = track.SeasonBegan
    PhaseBegan = track.PhaseBegan
    TurnPassed = track.TurnPassed
    MainRoundBegan = track.MainRoundBegan
    TokenMoved = track.TokenMoved
    # demands
    TaxAssessed = demands.TaxAssessed
    TribunalAttended = demands.TribunalAttended
    TaxPaid = demands.TaxPaid
    PermanentTributeImposed = demands.PermanentTributeImposed
    InvestigationRolled = demands.InvestigationRolled
    InvestigationEnded = demands.InvestigationEnded
    ServiceAnswered = demands.ServiceAnswered
    NoRivalFound = demands.NoRivalFound
    ChaosRolled = demands.ChaosRolled
    RivalChosen = demands.RivalChosen
    ChaosAnswered = demands.ChaosAnswered
    # hazards
    HedgeMageFaced = hazards.HedgeMageFaced
    BanditsFaced = hazards.BanditsFaced
    BanditsLooted = hazards.BanditsLooted
    BanditsSeasonEnded = hazards.BanditsSeasonEnded
    PlagueStruck = hazards.PlagueStruck
    PlagueCounterAdded = hazards.PlagueCounterAdded
    # battle
    BattlesQueued = battle.BattlesQueued
    BattleDeferred = battle.BattleDeferred
    CounterWaived = battle.CounterWaived
    BattleSkipped = battle.BattleSkipped
    BattleBegan = battle.BattleBegan
    TollPaid = battle.TollPaid
    DamageAllocated = battle.DamageAllocated
    BattleResolved = battle.BattleResolved
    # cards
    CardGenerated = cards.CardGenerated
    RollChangedByMouse = cards.RollChangedByMouse
    CardKept = cards.CardKept
    CardDiscarded = cards.CardDiscarded
    CardTurned = cards.CardTurned
    CardDamaged = cards.CardDamaged
    BeingHealed = cards.BeingHealed
    # spells
    SpellAssigned = spells.SpellAssigned
    SpellCast = spells.SpellCast
    BattleReopened = spells.BattleReopened
    SpellCountered = spells.SpellCountered
    DamageReversed = spells.DamageReversed
    # market
    ActionTaken = market.ActionTaken
    ActionRuled = market.ActionRuled
    Converted = market.Converted
    TradeOffered = market.TradeOffered
    TradeClosed = market.TradeClosed
    # certamen
    ChallengeIssued = certamen.ChallengeIssued
    CertamenArtChosen = certamen.CertamenArtChosen
    CertamenBidSealed = certamen.CertamenBidSealed
    CertamenBidCommitted = certamen.CertamenBidCommitted
    CertamenResolved = certamen.CertamenResolved
    CertamenForfeited = certamen.CertamenForfeited
    # reckoning
    SupportAllocated = reckoning.SupportAllocated
    CardHealed = reckoning.CardHealed
    StudyCounterRemoved = reckoning.StudyCounterRemoved
    SeasonEnded = reckoning.SeasonEnded
    YearReckoned = reckoning.YearReckoned
    # eventcards
    EventTookEffect = eventcards.EventTookEffect
    EventDrawn = eventcards.EventDrawn
    ReleasedEventDecided = eventcards.ReleasedEventDecided
    QuaesitorInvestigationCreated = eventcards.QuaesitorInvestigationCreated
    HeldEventsReleased = eventcards.HeldEventsReleased
    InvestigationApplied = eventcards.InvestigationApplied
    EventPlayed = eventcards.EventPlayed
    EventHeld = eventcards.EventHeld
    # base
    DieRolled = base.DieRolled

    @event("CovenantGameCreated")
    def __init__(
        self, name: str, ruleset: str, rules_version: str, timezone: str, options: dict[str, Any],
        house: dict[str, Any], pin: dict[str, str], actor: str, audience: list[str],
    ) -> None:  # fmt: skip
        self.state = CovenantState(
            name=name, ruleset=ruleset, rules_version=rules_version, timezone=timezone, options=options,
            house=house, pin=pin,
        )  # fmt: skip

    # ------------------------------------------------------------------ what the platform asks

    seats_field = "powers"  # where a covenant game keeps its seats: its covenants, as its state has always named them
    extension_caps = ("extension_cap_hours_per_window", "extension_cap_hours_per_season")  # a covenant's (its options)

    def seat(self, seat_id: str) -> Any:
        return self.power(seat_id)

    def power(self, power_id: str) -> CovenantSeat:
        try:
            return self.state.powers[power_id]
        except (KeyError, TypeError):
            raise NotFound(f"no covenant {power_id!r} at this table", field="seat") from None

    def waits_on(self, w: Window, seat: str) -> bool:
        """A turn's window (``phase:seat:season:cycle``, H-9) waits on the seat whose turn it is alone."""
        parts = w.kind.split(":")
        return len(parts) == 4 and parts[1] == seat and seat in self.state.turn

    def _fresh_seed(self, seed: str, s_old_seed: str | None = None, reveal: bool = True) -> None:
        if self.state.phase in ("setup", "over"):
            self._seed_cleared(actor=SYSTEM, audience=[vis.SEALED])
        else:
            self._commit_seed(seed, f"s{self.state.seasons_begun}")

    @property
    def house(self) -> HousePackage:
        """The pinned house rules, parsed once per content hash (kept outside the aggregate, so snapshots and
        copies of a game carry only its data)."""
        return house_of(self.state)

    def hosts(self) -> list[str]:
        return [s for s, seat in self.state.powers.items() if HOST in seat.roles]

    @property
    def season_name(self) -> str:
        return rules.SEASONS[self.state.season]

    def card(self, card_id: str) -> Card:
        c = self.state.cards.get(card_id)
        if c is None:
            raise NotFound(f"no card {card_id!r} in play", field="card_id")
        return c

    def covenant_cards(self, seat: str, *, pending: bool = False) -> list[Card]:
        return [c for c in self.state.cards.values() if c.owner == seat and (pending or not c.pending)]

    def mage_arts(self, mage: Card) -> list[str]:
        """A mage's Arts and its Familiar's: [000:66] "Any Arts listed on the Familiar card may be used by the Mage as
        long as the Familiar remains in play" (A-CERT-3, A-SPELL-1)."""
        familiar = [a for c in self.state.cards.values() if c.attached_to == mage.id and c.kind == "familiar"
                    for a in c.arts]  # fmt: skip
        return sorted(set(mage.arts) | set(familiar))

    def require_turn(self, seat: str, phase: str) -> None:
        if self.state.phase != phase:
            raise RuleViolation(f"it is the {self.state.phase} phase, not the {phase} phase", rule="A-ORDER-1")
        if not self.state.turn or self.state.turn[0] != seat:
            whose = self.state.turn[0] if self.state.turn else "nobody"
            raise RuleViolation(f"it is {whose}'s turn, clockwise from the starting player", rule="A-ORDER-1")

    # ------------------------------------------------------------------ dice

    def roll(self, roller: Roller, seat: str | None, purpose: str, count: int, sides: int) -> list[int]:
        """Roll ``count`` dice of ``sides`` through the committed roller, and record the roll for everyone."""
        s = self.state
        if s.seed_commitment is None:
            raise RuleViolation("no seed is committed: dice are rolled only in play", rule="A-ORDER-2")
        roll_no = s.next_roll
        proof = self._roll_proof(roll_no)
        faces = roller.faces(roll_no, count, sides)
        self.trigger_event(
            self.DieRolled, seat=seat, purpose=purpose, sides=sides, faces=list(faces), roll_no=roll_no,
            commitment=s.seed_commitment, key=proof.get("key"), path=proof.get("path"), actor=SYSTEM, audience=PUBLIC,
        )  # fmt: skip
        return list(faces)

    # ------------------------------------------------------------------ Quaesitor Investigation (A-EVT-3, A-AGG-1)

    def out_of_play(self, seat: str) -> bool:
        """[000:767] "the entire covenant is removed from the game ... Essentially the covenant and its player do
        nothing each round but this": from the Investigation's application (just before that season's Main Phase)
        to the end of the season it ends in, the covenant takes no turn, makes and pays nothing, and nothing
        reaches it."""
        inv = self.state.investigation
        return bool(inv) and inv.get("target") == seat

    def refuse_out_of_play(self, seat: str | None, field: str) -> None:
        if seat is not None and self.out_of_play(seat):
            raise RuleViolation(f"{seat} is removed from the game by a Quaesitor Investigation", rule="A-AGG-1",
                                field=field)  # fmt: skip

    # ------------------------------------------------------------------ turns: a window on every turn (H-9), run by
    # the platform from ``domain.covenants.turns.TURNS``

    def expect_step(self, expected: str | None) -> None:
        """Refuse a command sent for a phase the game has left (a burst of the same click moves it once)."""
        if expected is not None and expected != self.state.phase:
            raise Conflict(
                f"this command was sent for the {expected} phase, but the game is at {self.state.phase}",
                field="expected_step",
            )

    # ------------------------------------------------------------------ rollback

    def carried_over(self, restored: CovenantState, now: datetime) -> dict[str, Any]:
        carried = super().carried_over(restored, now)
        carried["next_roll"] = self.state.next_roll
        return carried

    def _merge_carried(self, merged: CovenantState, carried: dict[str, Any]) -> CovenantState:
        merged = super()._merge_carried(merged, carried)
        # A rollback never reuses a roll number: a roll after it is a new roll, not a silent reroll.
        merged.next_roll = max(merged.next_roll, carried.get("next_roll", 0))
        return merged


__all__ = ["BANDITS_MIGHT", "ENEMIES", "CovenantGame", "bid_commitment", "commitment"]  # what others import from here
