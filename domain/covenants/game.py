"""The covenant game's aggregate (ANALYSIS Part A): a ``PlatformGame`` with its own state and events.

Commands check everything first (``domain.covenants.rules``) and then record past-tense events whose
bodies only fold. Every die comes from the platform's committed roller (``DieRolled`` carries the
roll number, the season seed's commitment and, for everyone, the roll's key and Merkle path), so a
starting-player draw or a card generation can be checked by any player. The season seed is revealed
to everyone when the season ends.
"""

from __future__ import annotations

import hashlib
from datetime import datetime, timedelta
from typing import Any

from eventsourcing.domain import event

from domain import visibility as vis
from domain.covenants import rules
from domain.covenants.errors import RuleViolation
from domain.covenants.house import FORMS, STARTING_CARDS, STARTING_MAGE, TECHNIQUES, HousePackage
from domain.covenants.options import option
from domain.covenants.state import Card, CovenantSeat, CovenantState
from domain.dice import Roller, commitment
from domain.errors import Conflict, NotFound
from domain.ids import GM, SYSTEM
from domain.platform.game import PlatformGame
from domain.platform.roles import HOST
from domain.platform.state import Window

PUBLIC = [vis.PUBLIC]
_HOUSES: dict[str, HousePackage] = {}
TURN_PHASES = (
    "move", "create", "events", "service", "chaos", "main", "hedge", "bandits", "battle", "plague", "certamen",
    "reckoning",
)  # fmt: skip
AFTER_MAIN = ("hedge", "bandits", "battle", "plague", "certamen")  # the end of the Main Phase, in this order
END_OF_MAIN = ("hedge", "bandits", "battle", "plague")  # the Main Phase's end: its spells may still be countered
PLAGUE_COUNTERS = 5  # [000:671] "When this card has gained five counters, discard this card."
SERVICE_TOLL, SERVICE_TRIBUTE = 3, 2  # [000:669] "pay 3 gold immediately or accept a permanent tribute of 2"
CHAOS_TOLL = 4  # [000:693] "The rival covenant may pay 4 gold at the time of the roll"
INVASION_MIGHT = 10  # [000:697] Armed Invasion: "Mundane Might: 10"
# Events that fight covenants in mundane battle at the end of the Main Phase, and what paying them off costs
# ([000:727] Army of Skeletons: "The covenant may avoid a battle each season by paying 1 pawn vis"; the house
# Winter of Wolves: "pay 1 provision per covenant or fight"); their Might is the house package's.
ENEMIES: dict[str, tuple[str, int] | None] = {
    "Armed Invasion": None, "Army of Skeletons": ("vis", 1), "Winter of Wolves": ("provision", 1), "Riots": None,
}  # fmt: skip
MAIN_EFFECTS = ("Redcap's Tidings", "Lost Apprentice", "Clique of Thieves", "Wizard's March")
BANDITS_MIGHT = 4  # [000:676] the Wave of Bandits: "Mundane Might: 4"


def bid_commitment(challenge_id: str, seat: str, vis_amount: int, nonce: str) -> str:
    """The public hash of a sealed Certamen bid (A-AMB-7)."""
    return hashlib.sha256(f"certamen-bid:{challenge_id}:{seat}:{vis_amount}:{nonce}".encode()).hexdigest()


class CovenantGame(PlatformGame):
    """One game of the covenant game."""

    state: CovenantState

    @event("CovenantGameCreated")
    def __init__(
        self, name: str, ruleset: str, rules_version: str, timezone: str, options: dict, house: dict, pin: dict,
        actor: str, audience: list,
    ) -> None:  # fmt: skip
        self.state = CovenantState(
            name=name, ruleset=ruleset, rules_version=rules_version, timezone=timezone, options=options,
            house=house, pin=pin,
        )  # fmt: skip

    # ------------------------------------------------------------------ what the platform asks

    def power(self, power_id: str) -> CovenantSeat:
        try:
            return self.state.powers[power_id]
        except (KeyError, TypeError):
            raise NotFound(f"no covenant {power_id!r} at this table", field="seat") from None

    def pending_in(self, w: Window) -> list[str]:
        return list(self.state.turn)

    def _may_act_in(self, w: Window, power_id: str) -> bool:
        return power_id in self.state.turn

    def waits_on(self, w: Window, seat: str) -> bool:
        """A turn's window (``phase:seat:season:cycle``, H-9) waits on the seat whose turn it is alone."""
        parts = w.kind.split(":")
        return len(parts) == 4 and parts[1] == seat and seat in self.state.turn

    def _fresh_seed(self, seed: str, s_old_seed: str | None = None, reveal: bool = True) -> None:
        if self.state.phase in ("setup", "over"):
            self._seed_cleared(actor=SYSTEM, audience=[vis.SEALED])
        else:
            self._commit_seed(seed, self.state.seasons_begun, 0)

    @property
    def house(self) -> HousePackage:
        """The pinned house rules, parsed once per content hash (kept outside the aggregate, so snapshots and
        copies of a game carry only its data)."""
        key = self.state.pin["sha256"]
        found = _HOUSES.get(key)
        if found is None:
            found = _HOUSES[key] = HousePackage.model_validate(self.state.house)
        return found

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

    def _require_turn(self, seat: str, phase: str) -> None:
        if self.state.phase != phase:
            raise RuleViolation(f"it is the {self.state.phase} phase, not the {phase} phase", rule="A-ORDER-1")
        if not self.state.turn or self.state.turn[0] != seat:
            whose = self.state.turn[0] if self.state.turn else "nobody"
            raise RuleViolation(f"it is {whose}'s turn, clockwise from the starting player", rule="A-ORDER-1")

    # ------------------------------------------------------------------ dice

    def _roll(self, roller: Roller, seat: str | None, purpose: str, count: int, sides: int) -> list[int]:
        """Roll ``count`` dice of ``sides`` through the committed roller, and record the roll for everyone."""
        s = self.state
        if s.seed_commitment is None:
            raise RuleViolation("no seed is committed: dice are rolled only in play", rule="A-ORDER-2")
        roll_no = s.next_roll
        proof = self._roll_proof(roll_no)
        faces = roller.faces(roll_no, count, sides)
        self._die_rolled(
            seat=seat, purpose=purpose, sides=sides, faces=list(faces), roll_no=roll_no,
            commitment=s.seed_commitment, key=proof.get("key"), path=proof.get("path"), actor=SYSTEM, audience=PUBLIC,
        )  # fmt: skip
        return list(faces)

    @event("DieRolled")
    def _die_rolled(
        self, seat: str | None, purpose: str, sides: int, faces: list, roll_no: int, commitment: str,
        key: str | None, path: list | None, actor: str, audience: list,
    ) -> None:  # fmt: skip
        self.state.next_roll = roll_no + 1

    # ------------------------------------------------------------------ setup

    def add_covenant(
        self, seat_id: str, name: str, covenant: str, *, host: bool, arts: list[str], actor: str, score: int = 0
    ) -> None:
        s = self.state
        if s.phase != "setup":
            raise RuleViolation("covenants join before the game begins", rule="A-ORDER-2", field="seat_id")
        if seat_id in s.powers or seat_id in (GM, SYSTEM):
            raise RuleViolation(f"the seat {seat_id!r} is taken", field="seat_id")
        if len(s.powers) >= 4:
            raise RuleViolation("the game is for two to four players", rule="A-ORDER-2", field="seat_id")
        if host and self.hosts():
            raise RuleViolation("this table already has a host", field="host")
        bad = [a for a in arts if a not in TECHNIQUES + FORMS]
        if arts and (bad or len(set(arts)) != 5):
            raise RuleViolation("a starting mage has five different Arts ([000:4])", rule="A-GEN-4", field="arts")
        target = int(option(s.options, "target_score"))
        if not 0 <= score < target:  # the host's ruling (H-14); a score that has won already ends nothing (A-RECK-5)
            raise RuleViolation(f"a covenant begins with 0 to {target - 1} points", rule="A-RECK-5", field="score")
        self._covenant_added(
            seat_id=seat_id, name=name, covenant=covenant, roles=[HOST] if host else [], arts=list(arts),
            actor=actor, audience=PUBLIC, score=score,
        )  # fmt: skip

    @event("CovenantAdded")
    def _covenant_added(
        self, seat_id: str, name: str, covenant: str, roles: list, arts: list, actor: str, audience: list,
        score: int = 0,
    ) -> None:  # fmt: skip
        self.state.powers[seat_id] = CovenantSeat(
            id=seat_id, name=name, covenant=covenant, roles=list(roles), arts=list(arts), score=score
        )
        self.state.order.append(seat_id)

    def begin(self, *, seed: str, roller: Any, actor: str) -> None:
        """A-ORDER-2 / H-1: draw the starting player with the committed dice; deal the starting cards ([000:4])."""
        s = self.state
        if s.phase != "setup":
            raise RuleViolation("the game has begun", rule="A-ORDER-2")
        players = int(s.options.get("players", 0)) or len(s.powers)
        if not 2 <= len(s.powers) <= 4 or len(s.powers) != players:
            raise RuleViolation(
                f"the game begins with its {players} covenants ({len(s.powers)} have joined)", rule="A-ORDER-2"
            )
        self._commit_seed(seed, 1, 0)
        dice = roller(self)
        face = self._roll(dice, None, "starting player", 1, len(s.order))[0]
        starting = s.order[face - 1]
        self._game_begun(starting=starting, actor=actor, audience=PUBLIC)
        for seat in rules.clockwise(s.order, starting):
            arts = list(s.powers[seat].arts)
            if not arts:
                arts = self._random_arts(dice, seat)
            self._new_card(seat, STARTING_MAGE, arts=arts, source="setup")
            for name in STARTING_CARDS:
                self._new_card(seat, name, source="setup")
        self._begin_season()

    def _random_arts(self, dice: Roller, seat: str) -> list[str]:
        """A-GEN-4: roll d6 for two Techniques and d20 for three Forms, rerolling as the text says."""
        tech: list[str] = []
        while len(tech) < 2:
            face = self._roll(dice, seat, "starting mage Technique", 1, 6)[0]
            t, _, _, _ = rules.random_arts([face], [], TECHNIQUES, FORMS)
            if t and t[0] not in tech:
                tech.append(t[0])
        form: list[str] = []
        while len(form) < 3:
            face = self._roll(dice, seat, "starting mage Form", 1, 20)[0]
            _, f, _, _ = rules.random_arts([], [face], TECHNIQUES, FORMS)
            if f[0] not in form:
                form.append(f[0])
        return tech + form

    @event("GameBegun")
    def _game_begun(self, starting: str, actor: str, audience: list) -> None:
        self.state.starting = starting

    def _new_card(
        self, seat: str | None, name: str, *, arts: list | None = None, source: str, pending: bool = False
    ) -> str:
        card_id = f"c{self.state.next_card}"
        self._card_created(card_id=card_id, name=name, owner=seat, arts=list(arts or []), pending=pending,
                           source=source, actor=SYSTEM, audience=PUBLIC)  # fmt: skip
        return card_id

    @event("CardCreated")
    def _card_created(
        self, card_id: str, name: str, owner: str | None, arts: list, pending: bool, source: str, actor: str,
        audience: list,
    ) -> None:  # fmt: skip
        d = self.house.cards[name] if name in self.house.cards else None
        if d is not None and d.unique:  # A-EX-1 [000:174] a unique card discarded "may be fetched from the discard
            self.state.discard = [x for x in self.state.discard if x["name"] != name]  # pile": it is not in it now
        self.state.cards[card_id] = Card(
            id=card_id, name=name, owner=owner, kind=d.kind if d else "event", pending=pending,
            substance=d.substance if d else "", arts=list(arts or (d.arts if d else [])),
        )  # fmt: skip
        self.state.next_card += 1

    # ------------------------------------------------------------------ the calendar

    def _begin_season(self) -> None:
        s = self.state
        self._season_began(year=s.year, season=s.season, actor=SYSTEM, audience=PUBLIC)
        for c in list(s.cards.values()):  # A-GEN-3: construction ends at the first qualifying Move Phase
            if c.inactive_until and self.season_name in c.inactive_until.split(","):
                why = {"grogs": "back from the lord's service", "town": "the Riots' season is over"}.get(
                    c.kind, "construction done"
                )
                self._card_turned(card_id=c.id, active=True, reason=why, actor=SYSTEM, audience=PUBLIC)
        self._next_cycle()

    @event("SeasonBegan")
    def _season_began(self, year: int, season: int, actor: str, audience: list) -> None:
        s = self.state
        s.seasons_begun += 1
        s.cycle = 0
        for seat in s.powers.values():  # A-AMB-3: tokens go back to Begin each season
            seat.square, seat.moved_this_season, seat.supported = 0, False, False
        for c in s.cards.values():
            c.cast_this_season = []
            c.new_damage = False
            c.inactive_all_season = not c.active

    def _next_cycle(self) -> None:
        self._phase(self.state.cycle + 1, "move")

    def _phase(self, cycle: int, phase: str) -> None:
        s = self.state
        order = rules.clockwise(s.order, s.starting) if s.starting else list(s.order)
        if phase == "create":
            order = [p for p in order if s.powers[p].square != rules.EVENT_SQUARE]
        due: list[dict] = []
        quaesitor = None  # the seat on the Event square a Quaesitor Investigation is created for (A-AGG-1)
        if phase == "events":
            if s.seasons_begun > 4 and s.events_phase_season != s.seasons_begun:  # the season's first
                # [000:767] an investigated covenant's player "may not create nor play cards" and "the state of the
                # covenant does not change": its held events stay held until it rejoins (else they would fire for a
                # player who may not answer, and the phase would wait on nobody)
                due = [h for h in s.held_events if h["season"] == self.season_name and not self.out_of_play(h["seat"])]
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
            order = [p for p in order if any(self.resolver(ch) == p for ch in s.challenges.values())]
        if phase == "hedge":
            order = [p for p in order if p in self._hedge_claims()]
        if phase == "bandits":  # [000:679] "beginning with the covenant belonging to the starting player"
            order = [p for p in order if p in self._bandits_due()]
        if phase == "battle":
            order = []  # each battle sets whose allocation it awaits
        if phase == "plague":
            order = [p for p in order if p in self._plague_due()]
        order = [p for p in order if not self.out_of_play(p)]  # a covenant under investigation does nothing
        self._phase_began(
            year=s.year, season=s.season, cycle=cycle, phase=phase, turn=order, actor=SYSTEM, audience=PUBLIC
        )
        if due:  # A-EVT-1 [000:16]: held events are unrotated in the order they were generated
            self._held_released(events=due, actor=SYSTEM, audience=PUBLIC)
        elif quaesitor is not None:  # A-AGG-1 [000:100], A-AMB-19: created whatever is on hold
            self._quaesitor_created(seat=quaesitor, actor=SYSTEM, audience=PUBLIC)
        elif phase == "events" and (s.seasons_begun <= 4 or not order):
            self._advance_from("events")  # A-AMB-2: only after the first four seasons
        elif phase in ("hedge", "bandits", "plague") and not order:
            self._advance_from(phase)
        elif phase == "battle":
            self._queue_event_battles()
            self._next_battle()
        elif phase == "certamen" and not s.challenges:
            self._advance_from("certamen")
        elif phase in ("create", "reckoning") and not order:
            self._advance_from(phase)
        if phase == "main" and "Tax and Tithe" in s.events_in_play:
            self._assess_tax()
        if phase == "main":
            self._main_effects()

    def _main_effects(self) -> None:
        """The events that act "at the beginning of the Main Phase" of the season they were played (A.1.4: the
        first Main Phase after the event): Clique of Thieves takes half the target's gold, rounded down
        ([000:784]; the house package has no Treasury to keep gold in); the house events Redcap's Tidings (every
        covenant +1 gold), Lost Apprentice (the target -1 vis) and Wizard's March (the target's mage with the
        most Arts inactive until the next season)."""
        s = self.state
        for name in [n for n in s.events_in_play if n in MAIN_EFFECTS and n not in s.effects_applied]:
            targets = [e["target"] for e in s.effects if e.get("event") and e.get("spell") == name]
            resources: dict[str, dict[str, int]] = {}
            inactive: dict[str, str] = {}
            if name == "Redcap's Tidings":
                resources = {seat: {"gold": 1} for seat in s.order}
            for seat in targets:
                p = s.powers[seat]
                if name == "Lost Apprentice" and p.vis:
                    resources[seat] = {"vis": -1}
                elif name == "Clique of Thieves" and p.gold // 2:
                    resources[seat] = {"gold": -(p.gold // 2)}
                elif name == "Wizard's March":
                    mages = [c for c in self.covenant_cards(seat) if c.kind == "mage" and c.active]
                    if mages:
                        mage = max(mages, key=lambda c: (len(c.arts), c.id))
                        inactive[mage.id] = rules.SEASONS[(s.season + 1) % 4]
            self._event_took_effect(event_name=name, resources=resources, inactive=inactive, actor=SYSTEM,
                                    audience=PUBLIC)  # fmt: skip

    @event("EventTookEffect")
    def _event_took_effect(self, event_name: str, resources: dict, inactive: dict, actor: str, audience: list) -> None:
        s = self.state
        s.effects_applied.append(event_name)
        for seat, changes in resources.items():
            for what, delta in changes.items():
                setattr(s.powers[seat], what, getattr(s.powers[seat], what) + delta)
        for card_id, until in inactive.items():
            s.cards[card_id].active, s.cards[card_id].inactive_until = False, until

    def _assess_tax(self) -> None:
        """A-EVT-4 [000:667]: "The tax is assessed at the beginning of the Main Phase of the season this card is
        played (subsequent conversions or additions and subtractions to gold do not change the tax)"."""
        s = self.state
        if s.tax_assessed == s.seasons_begun:
            return
        taxes = {}
        for seat in s.order:
            capacity = 0
            for c in self.covenant_cards(seat):
                d = self.house.cards.get(c.name)
                if d is not None and c.active:
                    capacity += d.production.provision
            courtly = bool(self._attributed(seat, "Courtly Connections"))  # [000:667] "one fifth or one gold"
            taxes[seat] = rules.tax(capacity, s.powers[seat].gold, courtly=courtly)
        self._tax_assessed(taxes=taxes, actor=SYSTEM, audience=PUBLIC)

    @event("TaxAssessed")
    def _tax_assessed(self, taxes: dict, actor: str, audience: list) -> None:
        s = self.state
        s.tax_assessed = s.seasons_begun
        for seat, amount in taxes.items():
            s.powers[seat].tax_owed = amount

    def attend_tribunal(self, seat: str) -> None:
        """The house Gathering of the Tribunal ("every covenant may pay 1 vis to unmark itself"): while it is in
        play, a marked covenant pays 1 vis, at any time, and is no longer liable (A-AGG-1)."""
        p = self.power(seat)
        if "Gathering of the Tribunal" not in self.state.events_in_play:
            raise RuleViolation("no Gathering of the Tribunal is in play", rule="A-EVT-4")
        if not p.marked:
            raise RuleViolation("your covenant is not marked", rule="A-AGG-1")
        if p.vis < 1:
            raise RuleViolation("the Tribunal asks 1 vis", rule="A-EVT-4", field="vis")
        self._tribunal_attended(seat=seat, actor=seat, audience=PUBLIC)

    @event("TribunalAttended")
    def _tribunal_attended(self, seat: str, actor: str, audience: list) -> None:
        p = self.state.powers[seat]
        p.vis -= 1
        p.marked = False

    def pay_tax(self, seat: str) -> int:
        """A-EVT-4: the assessed tax is paid in gold ("Vis is not acceptable") any time before the Reckoning."""
        p = self.power(seat)
        if not p.tax_owed:
            raise RuleViolation("you owe no tax", rule="A-EVT-4")
        if self.state.phase in ("reckoning", "over") and p.supported:
            raise RuleViolation("the tax is due by your Reckoning", rule="A-EVT-4")
        if p.gold < p.tax_owed:
            raise RuleViolation(f"the tax is {p.tax_owed} gold and you hold {p.gold}", rule="A-EVT-4", field="gold")
        amount = p.tax_owed
        self._tax_paid(seat=seat, gold=amount, actor=seat, audience=PUBLIC)
        return amount

    @event("TaxPaid")
    def _tax_paid(self, seat: str, gold: int, actor: str, audience: list) -> None:
        p = self.state.powers[seat]
        p.gold -= gold
        p.tax_owed = 0

    @event("PermanentTributeImposed")
    def _permanent_tribute(self, seat: str, points: int, reason: str, actor: str, audience: list) -> None:
        p = self.state.powers[seat]
        p.tribute.append({"to": None, "points": points, "permanent": True})
        p.tax_owed = 0

    def _hedge_claims(self) -> list[str]:
        """Covenants a Hedge Mage Attack claims a Vis Source from at the end of this Main Phase ([000:744]); a
        covenant whose every Vis Source is already gone has nothing left to be claimed."""
        s = self.state
        return [
            e["target"]
            for e in s.effects
            if e.get("spell") == "Hedge Mage Attack" and e.get("event") and not e.get("answered")
            and any(c.kind == "vis_source" for c in self.covenant_cards(e["target"]))
        ]  # fmt: skip

    def face_hedge_mage(self, seat: str, give_up: str | None, roller: Any) -> dict:
        """A-EVT-4 [000:748] "At the end of the Main Phase, the covenant must either give up (discard) a Vis Source
        of its choice or face the Hedge Mage's curse. The curse is determined by rolling a 6-sided die"."""
        self._require_turn(seat, "hedge")
        if give_up is not None:
            mine = [c.id for c in self.covenant_cards(seat) if c.kind == "vis_source"]
            if give_up not in mine:
                raise RuleViolation(f"give up one of your Vis Sources: {mine}", rule="A-EVT-4", field="give_up")
            self._hedge_faced(seat=seat, curse=0, actor=seat, audience=PUBLIC)
            self._card_discarded(card_id=give_up, reason="given up to the Hedge Mage", actor=SYSTEM, audience=PUBLIC)
            self._end_turn(seat, acted=True)
            return {"given_up": give_up}
        cursed = any(c["curse"] == 1 for c in self._curses(seat))  # A-GEN-1: curse 1 rolls every die twice
        faces = self._roll(roller(self), seat, "hedge mage curse", 2 if cursed else 1, 6)
        curse = min(faces)
        self._hedge_faced(seat=seat, curse=curse, actor=seat, audience=PUBLIC)
        self._end_turn(seat, acted=True)
        return {"curse": curse}

    @event("HedgeMageFaced")
    def _hedge_faced(self, seat: str, curse: int, actor: str, audience: list) -> None:
        s = self.state
        for e in s.effects:
            if e.get("spell") == "Hedge Mage Attack" and e.get("target") == seat:
                e["answered"] = True
        if curse:  # the curse outlasts the event: the card names no end to it
            s.effects.append({"curse": curse, "covenant": seat, "source": "Hedge Mage Attack"})

    def _bandits_due(self) -> list[str]:
        """Covenants yet to pay off or fight this season's Wave of Bandits."""
        s = self.state
        if "Wave of Bandits" not in s.events_in_play or s.bandits.get("discarded"):
            return []
        return [p for p in s.order if p not in s.bandits.get("answered", [])]

    def _battle_line(self, seat: str) -> list[Card]:
        """A-BAT-1: the covenant's beings of Mundane Might (the inactive ones receive damage but deal none)."""
        out = []
        for c in self.covenant_cards(seat):
            d = self.house.cards.get(c.name)
            if d is not None and d.animate and d.might_type == "mundane" and d.might > 0:
                out.append(c)
        return out

    def _capacity(self, c: Card) -> int:
        """A-BAT-1: a being's Might plus the shields and armour attached to it (A-AMB-22)."""
        bonus = 0
        for x in self.state.cards.values():
            dx = self.house.cards.get(x.name)
            if x.attached_to == c.id and dx is not None and dx.capacity_bonus:
                bonus += max(0, dx.capacity_bonus - x.damage)  # A-DMG-2: -1 per point of damage it took
        return max(0, self._might(c) + bonus - c.damage)  # A-AMB-22: less the damage taken

    def _might(self, c: Card) -> int:
        """A being's Mundane Might, with what spells in effect add to it (A-EX-5)."""
        boost = sum(e.get("might", 0) for e in self.state.effects if e.get("target") == c.id)
        return self.house.cards[c.name].might + boost

    def _attack(self, beings: list[Card]) -> int:
        weapons: dict[str, int] = {}
        for x in self.state.cards.values():
            dx = self.house.cards.get(x.name)
            if x.attached_to is not None and dx is not None and dx.weapon_bonus:  # A-DMG-2: less its damage
                weapons[x.attached_to] = weapons.get(x.attached_to, 0) + max(0, dx.weapon_bonus - x.damage)
        return rules.attack_total(
            [{"might": self._might(c), "active": c.active, "weapon": weapons.get(c.id, 0)} for c in beings]
        )  # fmt: skip

    def face_bandits(self, seat: str, fight: bool, allocation: dict[str, int] | None) -> dict:
        """A-EVT-4 [000:679] "At the end of the Main Phase, beginning with the covenant belonging to the starting
        player, each covenant must decide whether to engage the bandits in mundane battle or to pay them off with 1
        gold"; in battle, the covenant allocates the Bandits' Might 4 as damage to its beings (A-BAT-1, H-6)."""
        self._require_turn(seat, "bandits")
        p = self.power(seat)
        if not fight:
            if p.gold < 1:
                raise RuleViolation("paying the bandits off takes 1 gold", rule="A-EVT-4", field="fight")
            self._bandits_faced(seat=seat, fought=False, dealt=0, actor=seat, audience=PUBLIC)
            self._end_turn(seat, acted=True)
            return {"paid": 1}
        beings = self._battle_line(seat)
        taken = dict(allocation or {})
        check_taken(BANDITS_MIGHT, {c.id: self._capacity(c) for c in beings}, taken)
        dealt = self._attack(beings)
        self._bandits_faced(seat=seat, fought=True, dealt=dealt, actor=seat, audience=PUBLIC)
        for card_id, amount in taken.items():
            if amount:
                self._damage(card_id, amount, seat)
        self._end_turn(seat, acted=True)
        return {"dealt": dealt, "taken": taken}

    @event("BanditsFaced")
    def _bandits_faced(self, seat: str, fought: bool, dealt: int, actor: str, audience: list) -> None:
        s = self.state
        b = s.bandits or {"damage": 0, "answered": [], "fought": []}
        b["answered"] = [*b.get("answered", []), seat]
        if fought:
            b["fought"] = [*b.get("fought", []), seat]
            b["damage"] = b.get("damage", 0) + dealt
        else:
            s.powers[seat].gold -= 1
        s.bandits = b

    @event("BanditsLooted")
    def _bandits_looted(self, seat: str, gold: int, actor: str, audience: list) -> None:
        self.state.powers[seat].gold -= gold

    @event("BanditsSeasonEnded")
    def _bandits_season_ended(self, discarded: bool, actor: str, audience: list) -> None:
        s = self.state
        s.bandits = {"discarded": True} if discarded else {"damage": 0, "answered": [], "fought": []}

    # ------------------------------------------------------------------ Quaesitor Investigation (A-EVT-3, A-AGG-1)

    def out_of_play(self, seat: str) -> bool:
        """[000:767] "the entire covenant is removed from the game ... Essentially the covenant and its player do
        nothing each round but this": from the Investigation's application (just before that season's Main Phase)
        to the end of the season it ends in, the covenant takes no turn, makes and pays nothing, and nothing
        reaches it."""
        inv = self.state.investigation
        return bool(inv) and inv.get("target") == seat

    def _refuse_out_of_play(self, seat: str | None, field: str) -> None:
        if seat is not None and self.out_of_play(seat):
            raise RuleViolation(f"{seat} is removed from the game by a Quaesitor Investigation", rule="A-AGG-1",
                                field=field)  # fmt: skip

    def investigate(self, seat: str, roller: Any) -> dict:
        """[000:767] "Once per Main Phase, the player rolls a 6-sided die for every mage in the covenant that has not
        yet been investigated; if the roll is even, mark that mage as having been investigated. As soon as all the
        mages in the covenant are marked, the Investigation is over, this card is discarded, and the player may
        rejoin the game at the start of the next season." (A-EVT-3: even is success; curse 1 rolls each twice)."""
        s = self.state
        inv = s.investigation
        if not self.out_of_play(seat) or inv.get("ends") is not None:
            raise RuleViolation("no Investigation is going on in your covenant", rule="A-EVT-3")
        if s.phase != "main":
            raise RuleViolation("the Quaesitors' dice are rolled once per Main Phase", rule="A-EVT-3")
        if inv.get("rolled") == [s.seasons_begun, s.cycle]:
            raise RuleViolation("once per Main Phase", rule="A-EVT-3")
        mages = [c.id for c in self.covenant_cards(seat) if c.kind == "mage" and c.id not in inv["investigated"]]
        cursed = any(c["curse"] == 1 for c in self._curses(seat))
        faces = self._roll(roller(self), seat, "Quaesitor Investigation", len(mages) * (2 if cursed else 1), 6)
        rolls = [min(faces[i : i + 2]) for i in range(0, len(faces), 2)] if cursed else faces
        cleared = [m for m, f in zip(mages, rolls, strict=True) if rules.parity_success(f)]
        self._investigation_rolled(seat=seat, rolls=dict(zip(mages, rolls, strict=True)), cleared=cleared,
                                   actor=seat, audience=PUBLIC)  # fmt: skip
        done = len(cleared) == len(mages)
        if done:
            self._investigation_ended(outcome="cleared", actor=SYSTEM, audience=PUBLIC)
        return {"rolls": dict(zip(mages, rolls, strict=True)), "investigated": cleared, "over": done}

    @event("InvestigationRolled")
    def _investigation_rolled(self, seat: str, rolls: dict, cleared: list, actor: str, audience: list) -> None:
        inv = self.state.investigation
        inv["investigated"] = [*inv["investigated"], *cleared]
        inv["rolled"] = [self.state.seasons_begun, self.state.cycle]

    @event("InvestigationEnded")
    def _investigation_ended(self, outcome: str, actor: str, audience: list) -> None:
        self.state.investigation["ends"] = self.state.seasons_begun
        self.state.investigation["outcome"] = outcome

    # ------------------------------------------------------------------ Plague (A-EVT-4)

    def _plague_victims(self, seat: str) -> list[Card]:
        """The covenant's active beings of substance Animate Co (their substance now: A-SPELL-7)."""
        out = []
        for c in self.covenant_cards(seat):
            d = self.house.cards.get(c.name)
            if c.active and d is not None and d.animate and c.substance == "Co":
                out.append(c)
        return out

    def _plague_due(self) -> list[str]:
        """[000:671] "At the end of each Main Phase when this card is in play, each covenant must choose a number of
        active beings of substance Animate Co equal to the number of counters on this card" (A.1.4: the first Main
        Phase of each season); in the season it was played it has no counter yet."""
        s = self.state
        n = s.plague.get("counters", 0)
        if "Plague" not in s.events_in_play or not n or s.plague.get("season") == s.seasons_begun:
            return []
        return [p for p in s.order if self._plague_victims(p)]

    def choose_plagued(self, seat: str, cards: list[str]) -> dict:
        """H-6: the covenant chooses which of its Animate Co beings take the Plague's damage, one point each."""
        self._require_turn(seat, "plague")
        victims = [c.id for c in self._plague_victims(seat)]
        want = min(self.state.plague.get("counters", 0), len(victims))
        if len(set(cards)) != len(cards) or len(cards) != want or set(cards) - set(victims):
            raise RuleViolation(f"choose {want} of your active Animate Co beings: {victims}", rule="A-EVT-4",
                                field="cards")  # fmt: skip
        self._plague_struck(seat=seat, cards=list(cards), actor=seat, audience=PUBLIC)
        for card_id in cards:
            self._damage(card_id, 1, seat)
        self._end_turn(seat, acted=True)
        return {"damaged": list(cards)}

    @event("PlagueStruck")
    def _plague_struck(self, seat: str, cards: list, actor: str, audience: list) -> None:
        pass  # the damage follows as CardDamaged events

    @event("PlagueCounterAdded")
    def _plague_counter(self, counters: int, actor: str, audience: list) -> None:
        self.state.plague = {**self.state.plague, "counters": counters}

    # ------------------------------------------------------------------ Call to Service (A-RECK-4, A-EVT-3)

    def _attributed(self, seat: str, attribute: str) -> list[Card]:
        """The covenant's active cards with an attribute ("Courtly Connections", ...)."""
        out = []
        for c in self.covenant_cards(seat):
            d = self.house.cards.get(c.name)
            if c.active and d is not None and attribute in d.attributes:
                out.append(c)
        return out

    def answer_service(self, seat: str, grogs: str | None, pay: bool, roller: Any) -> dict:
        """[000:669] "At the beginning of the Main Phase of the season this card was played, flip one active Grogs card
        over to indicate it does not interact at all in the game. Remove any existing damage. If a covenant has no
        active Grogs, it must pay 3 gold immediately or accept a permanent tribute of 2 points owed to the lord. If
        the covenant possesses one or more cards with the Courtly Connections attribute, roll a 6-sided die per card
        with that attribute; if any roll is even, no service or penalty is required." The covenant names the Grogs
        it sends (H-11); the Grogs comes back at the beginning of Autumn."""
        self._require_turn(seat, "service")
        courtly = self._attributed(seat, "Courtly Connections")
        if courtly:  # A-EVT-3: one roll per card, any even excuses the covenant (curse 1: each die twice)
            cursed = any(c["curse"] == 1 for c in self._curses(seat))
            faces = self._roll(roller(self), seat, "Call to Service", len(courtly) * (2 if cursed else 1), 6)
            rolls = [min(faces[i : i + 2]) for i in range(0, len(faces), 2)] if cursed else faces
            if any(rules.parity_success(f) for f in rolls):
                self._service_answered(seat=seat, outcome="excused", card=None, actor=seat, audience=PUBLIC)
                self._end_turn(seat, acted=True)
                return {"outcome": "excused", "rolls": rolls}
        return self._serve(seat, grogs, pay, actor=seat)

    def _serve(self, seat: str, grogs: str | None, pay: bool, *, actor: str) -> dict:
        active = [c.id for c in self.covenant_cards(seat) if c.kind == "grogs" and c.active]
        if active:
            if grogs not in active:
                raise RuleViolation(f"send one of your active Grogs to the lord: {active}", rule="A-RECK-4",
                                    field="grogs")  # fmt: skip
            outcome, card = "grogs", grogs
        elif pay:
            if self.state.powers[seat].gold < SERVICE_TOLL:
                raise RuleViolation(f"with no active Grogs the lord asks {SERVICE_TOLL} gold, or a permanent tribute "
                                    f"of {SERVICE_TRIBUTE}", rule="A-RECK-4", field="pay")  # fmt: skip
            outcome, card = "paid", None
        else:
            outcome, card = "tribute", None
        self._service_answered(seat=seat, outcome=outcome, card=card, actor=actor, audience=PUBLIC)
        if card is not None:
            self._check_holdings(seat)  # A-AMB-11: fewer active Grogs may leave holdings unguarded
        self._end_turn(seat, acted=True)
        return {"outcome": outcome, "card": card}

    @event("ServiceAnswered")
    def _service_answered(self, seat: str, outcome: str, card: str | None, actor: str, audience: list) -> None:
        s = self.state
        s.service.setdefault("answers", {})[seat] = outcome
        p = s.powers[seat]
        if outcome == "grogs" and card is not None:
            c = s.cards[card]
            c.active, c.damage, c.inactive_until = False, 0, "autumn"  # unflipped at the beginning of Autumn
        elif outcome == "paid":
            p.gold -= SERVICE_TOLL
        elif outcome == "tribute":
            p.tribute.append({"to": None, "points": SERVICE_TRIBUTE, "permanent": True})

    # ------------------------------------------------------------------ Season of Chaos (A-EVT-3, A-EX-7)

    def roll_chaos(self, seat: str, roller: Any) -> dict:
        """[000:691] "At the beginning of the Main Phase, starting with the starting player, each player in turn
        rolls a 6-sided die; if the result is even, that player must choose a rival covenant to engage in mundane
        battle." (A-EVT-3: even is success; the Hedge curse 1 rolls twice)."""
        self._require_turn(seat, "chaos")
        ch = self.state.chaos
        if ch.get("choosing") or ch.get("answering"):
            raise RuleViolation("a rival is being chosen or is answering: you have rolled", rule="A-EVT-3")
        cursed = any(c["curse"] == 1 for c in self._curses(seat))
        face = min(self._roll(roller(self), seat, "Season of Chaos", 2 if cursed else 1, 6))
        even = rules.parity_success(face)
        self._chaos_rolled(seat=seat, face=face, even=even, actor=seat, audience=PUBLIC)
        if even and not self._rivals(seat):  # every other covenant is out of play (A-AGG-1): nobody to fight
            self._no_rival(seat=seat, actor=SYSTEM, audience=PUBLIC)
            even = False
        if not even:
            self._end_turn(seat, acted=True)
        return {"face": face, "must_choose_rival": even}

    def _rivals(self, seat: str) -> list[str]:
        """The covenants a player who rolled even may choose, clockwise from the player's left: any other covenant
        still in play (a covenant under a Quaesitor Investigation is out of the game, [000:767])."""
        return [p for p in rules.clockwise(self.state.order, seat)[1:] if not self.out_of_play(p)]

    @event("NoRivalFound")
    def _no_rival(self, seat: str, actor: str, audience: list) -> None:
        self.state.chaos["choosing"] = None

    @event("ChaosRolled")
    def _chaos_rolled(self, seat: str, face: int, even: bool, actor: str, audience: list) -> None:
        if even:
            self.state.chaos["choosing"] = seat

    def choose_rival(self, seat: str, rival: str) -> None:
        """A-EX-7: the player who rolled even names the rival; the rival answers at once (pays 4 gold or not)."""
        self._require_turn(seat, "chaos")
        if self.state.chaos.get("choosing") != seat:
            raise RuleViolation("only a player who rolled even chooses a rival", rule="A-EVT-3")
        self.power(rival)
        if rival == seat:
            raise RuleViolation("choose a rival covenant, not your own", rule="A-EVT-3", field="rival")
        self._refuse_out_of_play(rival, "rival")
        self._rival_chosen(seat=seat, rival=rival, actor=seat, audience=PUBLIC)

    @event("RivalChosen")
    def _rival_chosen(self, seat: str, rival: str, actor: str, audience: list) -> None:
        s = self.state
        s.chaos["choosing"] = None
        s.chaos["answering"] = {"chooser": seat, "rival": rival}
        if s.turn and s.turn[0] == seat:
            s.turn.pop(0)
        s.turn.insert(0, rival)  # the rival answers "at the time of the roll"

    def avert_battle(self, seat: str, pay: bool) -> dict:
        """[000:693] "The rival covenant may pay 4 gold at the time of the roll to the player who chose it to avert
        the battle. Otherwise, at the end of the Main Phase, in original order, the covenants must resolve their
        battles."."""
        self._require_turn(seat, "chaos")
        ans = self.state.chaos.get("answering")
        if not ans or ans["rival"] != seat:
            raise RuleViolation("only the rival a player chose answers", rule="A-EVT-3")
        if pay and self.state.powers[seat].gold < CHAOS_TOLL:
            raise RuleViolation(f"averting the battle takes {CHAOS_TOLL} gold", rule="A-EVT-3", field="pay")
        battle_id = f"b{self.version + 1}"
        self._chaos_answered(chooser=ans["chooser"], rival=seat, paid=pay, battle_id=battle_id, actor=seat,
                             audience=PUBLIC)  # fmt: skip
        if not self.state.turn:
            self._advance_from("chaos")
        return {"paid": CHAOS_TOLL if pay else 0, "battle_id": None if pay else battle_id}

    @event("ChaosAnswered")
    def _chaos_answered(self, chooser: str, rival: str, paid: bool, battle_id: str, actor: str, audience: list) -> None:
        s = self.state
        s.chaos["answering"] = None
        if s.turn and s.turn[0] == rival:
            s.turn.pop(0)
        if paid:
            s.powers[rival].gold -= CHAOS_TOLL
            s.powers[chooser].gold += CHAOS_TOLL
        else:
            s.battles.append({"id": battle_id, "a": chooser, "b": rival, "cause": "Season of Chaos"})

    # ------------------------------------------------------------------ battles at the end of Main (A-BAT-1)

    def _event_battles(self) -> list[dict]:
        """Battles the events in play cause this Main Phase: an Armed Invasion fights every covenant, from the
        starting player ([000:699]), until it retreats; an Army of Skeletons its target ([000:727]); the house
        Winter of Wolves every covenant. A.1.4: only the first Main Phase after the event was played."""
        s = self.state
        order = rules.clockwise(s.order, s.starting) if s.starting else list(s.order)
        out = []
        for name in s.events_in_play:
            ev = self.house.events.get(name)
            if name not in ENEMIES or ev is None or ev.might_type != "mundane" or s.fought.get(name) == s.seasons_begun:
                continue
            if (name == "Armed Invasion" and s.invasion.get("retreated")) or name in s.defeated:
                continue
            targets = order
            if ev.kind == "directed":
                targets = [e["target"] for e in s.effects if e.get("event") and e.get("spell") == name]
            targets = [p for p in targets if not self.out_of_play(p)]
            if name == "Riots":  # [000:779] the Town "unrotates at the beginning of the next season and engages in
                # battle again"
                targets = [p for p in targets if self._town(p) is not None]
            slug = name.lower().replace(" ", "-")
            out += [{"id": f"{slug}-{s.seasons_begun}-{p}", "a": p, "b": name, "cause": name} for p in targets]
        return out

    def _queue_event_battles(self) -> None:
        battles = self._event_battles()
        if battles:
            self._battles_queued(battles=battles, actor=SYSTEM, audience=PUBLIC)

    @event("BattlesQueued")
    def _battles_queued(self, battles: list, actor: str, audience: list) -> None:
        s = self.state
        s.battles = [*s.battles, *[dict(b) for b in battles]]
        for b in battles:
            s.fought[b["cause"]] = s.seasons_begun

    def _town(self, seat: str) -> Card | None:
        return next((c for c in self.covenant_cards(seat) if c.kind == "town"), None)

    def _side(self, side: str) -> dict:
        """What a side of a battle deals and who allocates what it takes (A-BAT-1: the sum of the Might of its
        active beings and their weapons; an event's Might, less what it lost)."""
        if side in self.state.powers:
            line = self._battle_line(side)
            return {"deals": self._attack(line), "beings": [c.id for c in line]}
        ev = self.house.events.get(side)
        might = ev.might if ev is not None else 0
        if side == "Armed Invasion":  # [000:701] "The Might of this card is reduced by any damage it receives."
            might = INVASION_MIGHT - self.state.invasion.get("damage", 0)
        return {"deals": max(0, might), "beings": []}

    def _next_battle(self) -> None:
        """Begin the next battle due (both sides' damage fixed as they clash), or leave the battle phase."""
        s = self.state
        while s.battles:
            b = s.battles[0]
            if b["b"] == "Armed Invasion" and s.invasion.get("retreated"):
                self._battle_skipped(battle_id=b["id"], actor=SYSTEM, audience=PUBLIC)
                continue
            boosts = self._open_boosts()
            if boosts:  # A-EX-5, H-15: the battle waits until every player confirms "no counter"
                order = rules.clockwise(s.order, s.starting) if s.starting else list(s.order)
                self._battle_deferred(battle_id=b["id"], spells=boosts, awaiting=order, actor=SYSTEM,
                                      audience=PUBLIC)  # fmt: skip
                return
            a, o = self._side(b["a"]), self._side(b["b"])
            dealt = {b["a"]: a["deals"], b["b"]: o["deals"]}
            # who must allocate: a covenant that takes damage and has beings to take it
            takes = {b["b"]: a["deals"], b["a"]: o["deals"]}
            toll = ENEMIES.get(b["b"]) is not None  # a covenant facing an enemy it may pay off answers it
            allocating = [
                x for x in (b["a"], b["b"]) if x in s.powers and ((takes[x] and self._battle_line(x)) or toll)
            ]  # fmt: skip
            self._battle_began(battle_id=b["id"], a=b["a"], b=b["b"], cause=b["cause"], dealt=dealt,
                               allocating=allocating, actor=SYSTEM, audience=PUBLIC)  # fmt: skip
            if allocating:
                return
            self._resolve_battle()
        self._advance_from("battle")

    def _open_boosts(self) -> list[str]:
        """Spells of this Main Phase that raise a being's Might and may still be countered (A-EX-5)."""
        s = self.state
        fought = {x for e in s.boosted_battles for x in e["spells"]}
        return [
            x["id"] for x in s.spells_cast
            if self.house.spells[x["spell"]].might_per_pawn and x["id"] not in s.closed_spells and x["id"] not in fought
        ]  # fmt: skip

    @event("BattleDeferred")
    def _battle_deferred(self, battle_id: str, spells: list, awaiting: list, actor: str, audience: list) -> None:
        s = self.state
        s.deferred = {"battle": battle_id, "spells": list(spells)}
        s.turn = list(awaiting)

    def confirm_no_counter(self, seat: str, *, silent: bool = False) -> None:
        """H-15 [000:111] "all players agree that the spell can fully take effect": a player confirms he will not
        counter the spells the deferred battle waits on; when all have, the battle is fought (A-AMB-15). Silence
        (``silent``: the deadline, or the host, closed the turn) is no agreement: the battle is fought all the same,
        and a counter later in the phase undoes it (A-EX-5)."""
        s = self.state
        if s.phase != "battle" or s.deferred is None:
            raise RuleViolation("no battle waits for a counter", rule="H-15")
        if seat not in s.turn:
            raise RuleViolation("you have confirmed already", rule="H-15")
        self._counter_waived(seat=seat, actor=SYSTEM if silent else seat, audience=PUBLIC, silent=silent)
        if not s.turn:
            self._next_battle()

    @event("CounterWaived")
    def _counter_waived(self, seat: str, actor: str, audience: list, silent: bool = False) -> None:
        s = self.state
        s.turn = [p for p in s.turn if p != seat]
        if s.deferred is not None:
            key = "silent" if silent else "agreed"
            s.deferred[key] = [*s.deferred.get(key, []), seat]
        if not s.turn and s.deferred is not None:
            if s.deferred.get("silent"):  # A-EX-5: fought before everyone agreed; still counterable this phase
                d = s.deferred
                s.boosted_battles = [
                    *s.boosted_battles,
                    {"battle": d["battle"], "spells": list(d["spells"]), "agreed": d.get("agreed", [])},
                ]
            else:
                s.closed_spells = [*s.closed_spells, *s.deferred["spells"]]
            s.deferred = None

    @event("BattleSkipped")
    def _battle_skipped(self, battle_id: str, actor: str, audience: list) -> None:
        self.state.battles = [b for b in self.state.battles if b["id"] != battle_id]

    @event("BattleBegan")
    def _battle_began(
        self, battle_id: str, a: str, b: str, cause: str, dealt: dict, allocating: list, actor: str, audience: list
    ) -> None:
        s = self.state
        s.battles = [x for x in s.battles if x["id"] != battle_id]
        s.battle = {"id": battle_id, "a": a, "b": b, "cause": cause, "dealt": dict(dealt), "allocated": {}}
        s.turn = list(allocating)

    def damage_to_allocate(self, seat: str) -> int:
        """The damage the seat's covenant takes in the battle being fought."""
        bt = self.state.battle
        if bt is None or seat not in (bt["a"], bt["b"]):
            return 0
        other = bt["b"] if seat == bt["a"] else bt["a"]
        return int(bt["dealt"][other])

    def allocate_damage(self, seat: str, allocation: dict[str, int], pay_off: bool = False) -> dict:
        """H-6 "Each player decides which beings receive damage": the damage the other side deals, capacity first
        (A-BAT-1; A-AMB-22: the receiving side assigns the surplus). ``pay_off``: pay an enemy that takes a toll
        instead of fighting it (H-11)."""
        self._require_turn(seat, "battle")
        bt = self.state.battle
        if bt is None or self.state.deferred is not None:
            raise RuleViolation("the battle waits until every player confirms no counter", rule="H-15")
        if pay_off:
            toll = ENEMIES.get(bt["b"] if bt["a"] == seat else bt["a"])
            if toll is None:
                raise RuleViolation("this battle cannot be paid off", rule="A-EVT-4", field="pay_off")
            what, amount = toll
            if self.owned(seat, what) < amount:  # what it owns this season, as a conversion or trade (A-ECON-1)
                raise RuleViolation(f"paying it off takes {amount} {what}", rule="A-EVT-4", field="pay_off")
            self._toll_paid(battle_id=bt["id"], seat=seat, what=what, amount=amount, actor=seat, audience=PUBLIC)
            self._next_battle()
            return {"battle_id": bt["id"], "paid": {what: amount}}
        damage = self.damage_to_allocate(seat)
        capacities = {c.id: self._capacity(c) for c in self._battle_line(seat)}
        alloc = {k: int(v) for k, v in allocation.items() if v}
        if any(v < 0 for v in alloc.values()):
            raise RuleViolation("damage is a whole number of points", rule="A-BAT-1", field="allocation")
        check_taken(damage, capacities, alloc)
        self._damage_allocated(battle_id=bt["id"], seat=seat, allocation=alloc, actor=seat, audience=PUBLIC)
        if not self.state.turn:
            self._resolve_battle()
            self._next_battle()
        return {"battle_id": bt["id"], "taken": alloc}

    @event("TollPaid")
    def _toll_paid(self, battle_id: str, seat: str, what: str, amount: int, actor: str, audience: list) -> None:
        s = self.state
        p = s.powers[seat]
        setattr(p, what, getattr(p, what) - amount)
        s.battle, s.turn = None, []

    @event("DamageAllocated")
    def _damage_allocated(self, battle_id: str, seat: str, allocation: dict, actor: str, audience: list) -> None:
        s = self.state
        assert s.battle is not None
        s.battle["allocated"][seat] = dict(allocation)
        if s.turn and s.turn[0] == seat:
            s.turn.pop(0)

    def _default_allocation(self, seat: str, damage: int) -> dict[str, int]:
        """Silence at a battle (H-9): the damage fills each being to capacity in card order; the surplus goes to
        the first."""
        left, alloc = damage, {}
        beings = self._battle_line(seat)
        for c in beings:
            alloc[c.id] = min(left, self._capacity(c))
            left -= alloc[c.id]
        if beings and left:
            alloc[beings[0].id] += left
        return alloc

    def _resolve_battle(self) -> None:
        """Both sides' damage lands at once; a covenant that damaged another is marked (A-AGG-1 [000:98], A-EX-7:
        "Any covenant that does damage to another becomes liable for a Quaesitor Investigation")."""
        s = self.state
        bt = s.battle
        assert bt is not None
        marked = []
        for seat, other in ((bt["a"], bt["b"]), (bt["b"], bt["a"])):
            if seat in s.powers and other in s.powers and bt["allocated"].get(other):
                marked.append(seat)
        event_damage = bt["dealt"][bt["a"]] if bt["b"] == "Armed Invasion" else 0
        retreated = bool(event_damage) and s.invasion.get("damage", 0) + event_damage >= INVASION_MIGHT
        enemy = self.house.events.get(bt["b"]) if bt["b"] in ENEMIES and bt["b"] != "Armed Invasion" else None
        # [000:729] the Skeletons "receive damage equal to or exceeding their mundane might, they disappear"
        defeated = [bt["b"]] if enemy is not None and bt["dealt"][bt["a"]] >= enemy.might else []
        riot: dict[str, Any] = {}
        town = self._town(bt["a"]) if bt["b"] == "Riots" else None
        if town is not None:  # A-EVT-4 [000:781] with A-AMB-13: the Town's damage, kept from battle to battle
            total = town.damage + bt["dealt"][bt["a"]]
            riot = {"town": town.id, "damage": total, "outcome": rules.riots_outcome(total)}
            defeated = ["Riots"] if riot["outcome"] != "town_inactive" else []
        self._battle_resolved(battle_id=bt["id"], marked=marked, event_damage=event_damage, retreated=retreated,
                              actor=SYSTEM, audience=PUBLIC, defeated=defeated, riot=riot)  # fmt: skip
        if riot.get("outcome") == "town_discarded":
            self._card_discarded(card_id=riot["town"], reason="burnt in the Riots", actor=SYSTEM, audience=PUBLIC)
        for seat, alloc in bt["allocated"].items():
            for card_id, amount in alloc.items():
                if amount and card_id in s.cards:
                    self._damage(card_id, amount, seat)

    @event("BattleResolved")
    def _battle_resolved(
        self, battle_id: str, marked: list, event_damage: int, retreated: bool, actor: str, audience: list,
        defeated: list | None = None, riot: dict | None = None,
    ) -> None:  # fmt: skip
        s = self.state
        bt = s.battle or {}
        for e in s.boosted_battles:  # what a counter later in the phase undoes (A-EX-5)
            if e["battle"] == battle_id:
                cards = [c for alloc in bt["allocated"].values() for c in alloc if c in s.cards]
                e.update(before={c: [s.cards[c].damage, s.cards[c].active] for c in cards}, defeated=defeated or [],
                         event_damage=event_damage, record={k: bt[k] for k in ("id", "a", "b", "cause")})  # fmt: skip
                if riot and riot["town"] in s.cards:  # the Riots' Town as it was before this battle
                    town = s.cards[riot["town"]]
                    e["town"] = [town.id, town.damage, town.active, town.inactive_until]
        s.defeated = [*s.defeated, *(defeated or [])]
        if riot:  # "If the Town received less than 4 points damage, it is made inactive (rotated) and does not
            # produce provision points this season"; 4 to 8: "the Town reverts back to normal"
            town = s.cards[riot["town"]]
            if riot["outcome"] == "town_inactive":
                town.damage, town.active, town.inactive_until = riot["damage"], False, rules.SEASONS[(s.season + 1) % 4]
            elif riot["outcome"] == "event_ends":
                town.damage, town.active, town.inactive_until = 0, True, None
        for seat in marked:
            s.powers[seat].marked = True
            s.powers[seat].damaged_another = True  # A-AMB-19
        if event_damage:  # [000:701] "The Might of this card is reduced by any damage it receives."
            s.invasion = {**s.invasion, "damage": s.invasion.get("damage", 0) + event_damage}
        if retreated:
            s.invasion["retreated"] = True
        s.battle = None

    @event("PhaseBegan")
    def _phase_began(
        self, year: int, season: int, cycle: int, phase: str, turn: list, actor: str, audience: list
    ) -> None:
        s = self.state
        s.cycle, s.phase, s.turn = cycle, phase, list(turn)
        if phase not in END_OF_MAIN:  # the steps at the end of the Main Phase are still within it
            s.spells_cast = []  # A-SPELL-5: a spell may be countered only within its own phase
            s.closed_spells = []
            s.boosted_battles = []
            s.extra_round = False  # A-AMB-5: one extra round a Main Phase, whatever its end brings after it
        if phase == "events":
            s.events_phase_season = s.seasons_begun
        if phase == "chaos":
            s.chaos = {"season": s.seasons_begun, "choosing": None, "answering": None}
        if phase == "service":
            s.service = {"season": s.seasons_begun, "answers": {}}
        if phase == "plague":
            s.plague = {**s.plague, "season": s.seasons_begun}
        # A-SPELL-3: a spell of N seasons ends at the beginning of the phase it was cast in, N seasons on.
        _expire(s, lambda e: e.get("until") == s.seasons_begun and e.get("phase") == phase)
        s.passed, s.acted, s.turn_done = [], False, False

    def _advance_from(self, phase: str) -> None:
        s = self.state
        if phase == "move":
            self._phase(s.cycle, "create")
        elif phase == "create":
            for c in list(s.cards.values()):  # A-GEN-2: what was not kept is created, then discarded
                if c.pending:
                    self._card_discarded(card_id=c.id, reason="not kept by the end of the phase", actor=SYSTEM,
                                         audience=PUBLIC)  # fmt: skip
            self._phase(s.cycle, "events")
        elif phase in ("events", "service", "chaos"):  # the beginning of the Main Phase, then the Main Phase
            begins = {
                "service": "Call to Service" in s.events_in_play and s.service.get("season") != s.seasons_begun,
                "chaos": "Season of Chaos" in s.events_in_play and s.chaos.get("season") != s.seasons_begun,
                "main": True,
            }
            steps = ("service", "chaos", "main")
            later = steps[steps.index(phase) + 1 :] if phase in steps else steps
            self._phase(s.cycle, next(p for p in later if begins[p]))
        elif phase in ("main", *AFTER_MAIN[:-1]):
            ends = {
                "hedge": lambda: bool(self._hedge_claims()),
                "bandits": lambda: bool(self._bandits_due()),
                "battle": lambda: bool(s.battles) or bool(self._event_battles()),
                "plague": lambda: bool(self._plague_due()),
                "certamen": lambda: True,
            }
            later = AFTER_MAIN[AFTER_MAIN.index(phase) + 1 :] if phase in AFTER_MAIN else AFTER_MAIN
            nxt = next(p for p in later if ends[p]())
            extra = option(s.options, "main_phase_mode") == "passes_then_extra_round"
            if nxt == "certamen" and extra and not s.extra_round:  # A-AMB-5 [000:115]: one more round once the
                self._main_round(extra=True)  # end of the Main Phase's events have completed
                return
            self._phase(s.cycle, nxt)
        elif phase == "certamen":
            self._next_cycle()

    @event("TurnPassed")
    def _turn_passed(self, seat: str, phase: str, acted: bool, actor: str, audience: list) -> None:
        s = self.state
        if s.turn and s.turn[0] == seat:
            s.turn.pop(0)
        s.turn_done = False
        if phase == "main":
            if acted:
                s.acted = True
            else:
                s.passed.append(seat)

    def _end_turn(self, seat: str, *, acted: bool) -> None:
        s = self.state
        phase = s.phase
        self._turn_passed(seat=seat, phase=phase, acted=acted, actor=seat, audience=PUBLIC)
        if s.turn:
            return
        if phase != "main":
            self._advance_from(phase)
            return
        # A-AMB-5: rounds of one action each until a round where everyone passes, then the end of the Main Phase
        # and one extra round (``_advance_from``); or, as the game's main_phase_mode says, exactly one round.
        everyone_passed = not s.acted and len(s.passed) >= len([p for p in s.order if not self.out_of_play(p)])
        if s.extra_round or everyone_passed or option(s.options, "main_phase_mode") == "one_round":
            self._advance_from("main")
        else:
            self._main_round(extra=False)

    def _main_round(self, extra: bool) -> None:
        s = self.state
        order = rules.clockwise(s.order, s.starting) if s.starting else list(s.order)
        order = [p for p in order if not self.out_of_play(p)]
        self._main_round_began(turn=order, extra=extra, actor=SYSTEM, audience=PUBLIC)

    @event("MainRoundBegan")
    def _main_round_began(self, turn: list, extra: bool, actor: str, audience: list) -> None:
        s = self.state
        s.turn, s.passed, s.acted, s.extra_round = list(turn), [], False, extra
        s.phase = "main"  # the extra round follows the end of the Main Phase's events, still in it (A-AMB-5)

    # ------------------------------------------------------------------ Move (A-TRACK-1)

    def legal_moves(self, seat: str) -> list[int]:
        s = self.state
        p = self.power(seat)
        occupied = any(o.square == rules.EVENT_SQUARE for k, o in s.powers.items() if k != seat)
        return rules.legal_moves(p.square, not p.moved_this_season, occupied)

    def move(self, seat: str, square: int) -> None:
        self._require_turn(seat, "move")
        s = self.state
        p = self.power(seat)
        occupied = any(o.square == rules.EVENT_SQUARE for k, o in s.powers.items() if k != seat)
        rules.check_move(p.square, square, not p.moved_this_season, occupied)
        self._token_moved(seat=seat, square=square, actor=seat, audience=PUBLIC)
        if square == rules.END_SQUARE:  # A-AMB-4: everyone joins it and the Reckoning begins at once
            self._phase(s.cycle, "reckoning")
            return
        self._end_turn(seat, acted=True)

    @event("TokenMoved")
    def _token_moved(self, seat: str, square: int, actor: str, audience: list) -> None:
        s = self.state
        s.powers[seat].square = square
        s.powers[seat].moved_this_season = True
        if square == rules.END_SQUARE:
            for p in s.powers.values():
                p.square = rules.END_SQUARE

    # ------------------------------------------------------------------ Create/Play (A-TRACK-2, A-TURN-1, A-GEN)

    def generate(self, seat: str, roller: Any, *, mouse: int = 0) -> str | None:
        self._require_turn(seat, "create")
        s = self.state
        if s.turn_done:
            raise RuleViolation("one card per Create/Play turn", rule="A-TURN-1")
        kind = rules.square_kind(s.powers[seat].square)
        if kind not in self.house.generators:
            raise RuleViolation(f"the {kind} square generates no resource card", rule="A-TRACK-2")
        gen = self.house.generators[kind]
        mouse_card = self._mouse(seat, mouse) if mouse else None
        cursed = any(c["curse"] == 1 for c in self._curses(seat))
        faces = self._roll(roller(self), seat, f"{kind} generation", 2 if cursed else 1, gen.die)
        value, _ = rules.modified_roll(faces, gen.die, cursed=cursed, mouse=mouse)
        name = gen.faces.get(value)
        self._generated(seat=seat, kind=kind, value=value, card=name, actor=seat, audience=PUBLIC,
                        mouse_card=mouse_card)  # fmt: skip
        card_id = None
        if name is not None:
            d = self.house.cards[name]
            in_play = {c.name for c in s.cards.values()}
            if d.unique and name in in_play:  # A-GEN-1 step 6 / A-EX-1: no card, the turn is used
                name = None
            else:
                card_id = self._new_card(seat, name, source=kind, pending=True)
        if card_id is None:
            self._end_turn(seat, acted=True)
        return card_id

    def _mouse(self, seat: str, by: int, field: str = "mouse") -> str:
        """A-GEN-1 step 4 [000:405]: the active Mouse, not used this season (A-AMB-6), that changes a Resource or
        Event generation roll by ``by`` (1 or 2 either way)."""
        if not by or abs(by) > 2:
            raise RuleViolation("the Mouse adds or subtracts 1 or 2", rule="A-GEN-1", field=field)
        free = [c for c in self.covenant_cards(seat) if c.name == "Familiar: Mouse" and c.active
                and "mouse" not in c.cast_this_season]  # fmt: skip
        if not free:
            raise RuleViolation(
                "only an active Mouse not used this season may change a roll by up to 2", rule="A-GEN-1", field=field
            )
        return free[0].id

    @event("CardGenerated")
    def _generated(
        self, seat: str, kind: str, value: int, card: str | None, actor: str, audience: list,
        mouse_card: str | None = None,
    ) -> None:  # fmt: skip
        self.state.turn_done = True
        self.state.last_generation = {"seat": seat, "kind": kind, "value": value}
        if mouse_card is not None:
            self.state.cards[mouse_card].cast_this_season.append("mouse")

    def use_mouse(self, seat: str, card_id: str, by: int) -> str | None:
        """A-GEN-1 step 4 [000:405] "you may add or subtract up to 2 to any single Resource or Event card generation
        dice roll once per season": seen the roll, the player changes it while the card it made is still pending;
        that card goes back and the changed value makes the card instead (A-AMB-6: once a season per Mouse)."""
        self._require_turn(seat, "create")
        s = self.state
        c = s.cards.get(card_id)
        lg = s.last_generation
        if c is None or c.owner != seat or not c.pending or lg.get("seat") != seat or not s.turn_done:
            raise RuleViolation("the Mouse changes the roll of the card you just generated", rule="A-GEN-1",
                                field="card_id")  # fmt: skip
        mouse_card = self._mouse(seat, by, "by")
        gen = self.house.generators[lg["kind"]]
        value = min(gen.die, max(1, lg["value"] + by))
        name = gen.faces.get(value)
        self._roll_changed(seat=seat, value=value, card=name, mouse_card=mouse_card, actor=seat, audience=PUBLIC)
        self._card_discarded(card_id=card_id, reason="the Mouse changed its roll", actor=SYSTEM, audience=PUBLIC)
        new_id = None
        if name is not None:
            d = self.house.cards[name]
            if not (d.unique and name in {x.name for x in s.cards.values()}):
                new_id = self._new_card(seat, name, source=lg["kind"], pending=True)
        if new_id is None:
            self._end_generated_turn(seat)
        return new_id

    @event("RollChangedByMouse")
    def _roll_changed(
        self, seat: str, value: int, card: str | None, mouse_card: str, actor: str, audience: list
    ) -> None:
        s = self.state
        s.last_generation = {**s.last_generation, "value": value}
        s.cards[mouse_card].cast_this_season.append("mouse")

    def _curses(self, seat: str) -> list[dict]:
        return [e for e in self.state.effects if e.get("curse") and e.get("covenant") == seat]

    def pass_turn(self, seat: str) -> None:
        phase = self.state.phase
        if phase not in ("create", "main", "events"):
            raise RuleViolation(f"nobody passes in the {phase} phase", rule="A-ORDER-1")
        self._require_turn(seat, phase)
        pe = self.state.pending_event
        if pe is not None and pe["seat"] == seat:
            raise RuleViolation("play, hold or discard the event you drew first", rule="A-EVT-1")
        self._end_turn(seat, acted=False)

    def keep(
        self, seat: str, card_id: str, attach_to: str | None = None, art: str | None = None, *, spell: str | None = None
    ) -> None:
        """H-3: keep a card created this phase, paying for it (A-GEN-2, A-GEN-3, A-LIM-1)."""
        s = self.state
        c = self.card(card_id)
        if c.owner != seat or not c.pending:
            raise RuleViolation("keep a card you created this phase", rule="A-GEN-2", field="card_id")
        if s.phase != "create":
            raise RuleViolation("a card is kept in the Create/Play phase it was created in", rule="A-GEN-2")
        d = self.house.cards[c.name]
        covenant = [{"kind": x.kind, "name": x.name, "active": x.active} for x in self.covenant_cards(seat)]
        in_play = {x.name for x in s.cards.values() if not x.pending}
        rules.check_caps(d.kind, c.name, covenant, unique=d.unique, in_play_names=in_play)
        p = s.powers[seat]
        if p.gold < d.cost.gold or p.vis < d.cost.vis:
            raise RuleViolation(f"{c.name} costs {d.cost.gold} gold and {d.cost.vis} vis", rule="A-GEN-2")
        until = None
        if d.qualifying_seasons and self.season_name not in d.qualifying_seasons:
            until = ",".join(d.qualifying_seasons)  # A-GEN-3: paid for, under construction until then
        if art is not None and (d.kind != "art" or art not in TECHNIQUES + FORMS):
            raise RuleViolation("an Art card carries one of the fifteen Arts", rule="A-SPELL-9", field="art")
        if attach_to is not None:
            self.card(attach_to)
        if spell is not None:
            self._check_spell_study(seat, d.teaches, attach_to, spell)
        self._card_kept(card_id=card_id, seat=seat, gold=d.cost.gold, vis=d.cost.vis, inactive_until=until,
                        attach_to=attach_to, art=art, actor=seat, audience=PUBLIC, spell=spell)  # fmt: skip
        if d.kind == "town":  # A-LIM-1: a Town discards four Villagers
            for v in [x for x in self.covenant_cards(seat) if x.kind == "villagers"][:4]:
                self._card_discarded(card_id=v.id, reason="a Town was founded", actor=seat, audience=PUBLIC)
        self._end_generated_turn(seat)

    def _check_spell_study(self, seat: str, teaches: str | None, attach_to: str | None, spell: str) -> None:
        """A-SPELL-1 [000:437] Book (Grimoire): "Play a single Spell on this Book ... When a Mage, Book and Spell are
        grouped for the first time, place three counters on this Book" with [000:74] "In order to "learn" a spell,
        a Mage must have learned at least one of the Arts listed in the spell ... No Mage may have the same spell
        attached to him twice", and A-SPELL-9: a mage studies one thing at a time."""
        sp = self.house.spells.get(spell)
        if teaches != "spell" or sp is None:
            raise RuleViolation("a Grimoire carries one spell of the house rules", rule="A-SPELL-1", field="spell")
        mage = self.state.cards.get(attach_to or "")
        if mage is None or mage.kind != "mage" or mage.owner != seat:
            raise RuleViolation("a spell is studied by a mage of your covenant", rule="A-SPELL-1", field="attach_to")
        attached = [x for x in self.state.cards.values() if x.attached_to == mage.id]
        if spell in mage.spells or any(spell in x.spells for x in attached):
            raise RuleViolation("no mage may have the same spell attached twice", rule="A-SPELL-1", field="spell")
        if any(x.counters for x in attached):
            raise RuleViolation("the mage is studying already", rule="A-SPELL-9", field="attach_to")
        rules.check_learn(sp.arts, self.mage_arts(mage))

    def _end_generated_turn(self, seat: str) -> None:
        """The Create/Play turn of a seat that generated its card ends once it keeps or discards it."""
        s = self.state
        if s.phase == "create" and s.turn and s.turn[0] == seat and s.turn_done:
            self._end_turn(seat, acted=True)

    @event("CardKept")
    def _card_kept(
        self, card_id: str, seat: str, gold: int, vis: int, inactive_until: str | None, attach_to: str | None,
        art: str | None, actor: str, audience: list, spell: str | None = None,
    ) -> None:  # fmt: skip
        s = self.state
        c = s.cards[card_id]
        c.pending = False
        c.attached_to = attach_to
        if spell:  # A-SPELL-1: a Grimoire studied by its mage, three counters ([000:437])
            c.spells, c.counters = [spell], 3
        if inactive_until:
            c.active, c.inactive_until = False, inactive_until
        if art:
            c.arts = [art]
            if attach_to is not None:
                c.counters = 3  # A-SPELL-9: three study counters
        s.powers[seat].gold -= gold
        s.powers[seat].vis -= vis

    def discard(self, seat: str, card_id: str) -> None:
        """H-3: create a card and discard it (A-GEN-2 [000:175] "If a player generates a resource he does not
        want, he may create the card and discard it"): the card just generated, on the seat's Create/Play turn; a
        card in play leaves only as a rule says (starved at the Reckoning, A-RECK-1)."""
        c = self.card(card_id)
        if c.owner != seat or not c.pending:
            raise RuleViolation("discard only a card you just generated and have not kept", rule="A-GEN-2",
                                field="card_id")  # fmt: skip
        if self.state.phase != "create" or self.state.turn[:1] != [seat]:
            raise RuleViolation("a card just generated is discarded on your Create/Play turn", rule="A-GEN-2")
        self._card_discarded(card_id=card_id, reason="discarded by its owner", actor=seat, audience=PUBLIC)
        self._end_generated_turn(seat)

    @event("CardDiscarded")
    def _card_discarded(self, card_id: str, reason: str, actor: str, audience: list) -> None:
        s = self.state
        c = s.cards.pop(card_id)
        s.discard.append({"id": c.id, "name": c.name})
        for other in s.cards.values():
            if other.attached_to == card_id:
                other.attached_to = None

    @event("CardTurned")
    def _card_turned(self, card_id: str, active: bool, reason: str, actor: str, audience: list) -> None:
        c = self.state.cards[card_id]
        c.active = active
        if active:
            c.inactive_until = None

    @event("CardDamaged")
    def _card_damaged(self, card_id: str, damage: int, active: bool, actor: str, audience: list) -> None:
        c = self.state.cards[card_id]
        c.damage += damage
        c.active = active
        c.new_damage = True

    def _damage(self, card_id: str, amount: int, actor: str) -> None:
        """A-DMG-1..3: the card's damage grows; it turns inactive as its kind says; a destroyed structure goes."""
        c = self.state.cards[card_id]
        d = self.house.cards.get(c.name)
        total = c.damage + amount
        active = c.active and rules.is_active_after_damage(
            animate=bool(d and d.animate), might_type=d.might_type if d else None, might=self._own_might(c),
            structure=bool(d and d.structure), damage=total,
        )  # fmt: skip
        self._card_damaged(card_id=card_id, damage=amount, active=active, actor=actor, audience=PUBLIC)
        if rules.destroyed(structure=bool(d and d.structure), damage=total):
            self._card_discarded(card_id=card_id, reason="destroyed", actor=SYSTEM, audience=PUBLIC)
        if c.owner is not None and c.kind == "grogs":
            self._check_holdings(c.owner)

    def _own_might(self, c: Card) -> int:
        """A card's Might this season, of whatever type (A-DMG-3): Issandra's is 1 more in Spring and Summer."""
        d = self.house.cards.get(c.name)
        if d is None:
            return 0
        return d.might + (1 if self.season_name in d.might_seasons else 0)

    # ------------------------------------------------------------------ Main: healing (A-DMG-1, A-DMG-3, H-8)

    def heal(self, seat: str, healer_id: str, target_id: str) -> dict:
        """A Main Phase action (the house list's "heal"; A-AMB-20): a healer of the covenant removes its points of
        damage from any other being of the same covenant, once a season ([000:249] Herbalist). A mundane being
        healed fully is active again (A-DMG-1); a being of other Might, once its damage is below its Might
        (A-DMG-3)."""
        self._require_turn(seat, "main")
        healer, target = self.card(healer_id), self.card(target_id)
        dh = self.house.cards.get(healer.name)
        if healer.owner != seat or dh is None or not dh.heals or not healer.active:
            raise RuleViolation("heal with an active healer of your covenant", rule="A-DMG-1", field="healer")
        if "heal" in healer.cast_this_season:
            raise RuleViolation("a healer heals once a season", rule="A-DMG-1", field="healer")
        dt = self.house.cards.get(target.name)
        if target.owner != seat or target.id == healer.id or dt is None or not dt.animate:
            raise RuleViolation("heal another being of your own covenant", rule="A-DMG-1", field="target")
        if not target.damage:
            raise RuleViolation(f"{target.name} has no damage to heal", rule="A-DMG-1", field="target")
        left = max(0, target.damage - dh.heals)
        active = target.active or (
            not target.inactive_until
            and rules.is_active_after_damage(
                animate=True, might_type=dt.might_type, might=self._own_might(target), structure=dt.structure,
                damage=left,
            )
        )  # fmt: skip
        self._being_healed(healer=healer.id, card_id=target.id, damage=left, active=active, actor=seat,
                           audience=PUBLIC)  # fmt: skip
        self._end_turn(seat, acted=True)
        return {"card_id": target.id, "damage": left, "active": active}

    @event("BeingHealed")
    def _being_healed(self, healer: str, card_id: str, damage: int, active: bool, actor: str, audience: list) -> None:
        s = self.state
        s.cards[healer].cast_this_season.append("heal")
        s.cards[card_id].damage, s.cards[card_id].active = damage, active

    def _check_holdings(self, seat: str) -> None:
        """A-LIM-1 with A-AMB-11: Vis Sources and Mines beyond 2 per active Grogs go at once."""
        cards = self.covenant_cards(seat)
        excess = rules.unsupported_holdings([{"kind": c.kind, "active": c.active} for c in cards])
        for c in [c for c in cards if c.kind in ("vis_source", "mine")][:excess]:
            self._card_discarded(card_id=c.id, reason="unguarded: too few active Grogs", actor=SYSTEM, audience=PUBLIC)

    # ------------------------------------------------------------------ Main: spells (A-SPELL, A-AGG)

    def cast(
        self, seat: str, mage_id: str, spell: str, target: str, vis_amount: int, *, named: bool = False,
        mother_may_i: bool = False, more_targets: list[str] | None = None,
    ) -> dict:  # fmt: skip
        """A-SPELL-1..8 with the Hedge Mage's curses on the caster's covenant (A-EVT-4 [000:753]-[000:760]): 2, a
        spell cast without "Mother may I" is countered (H-12: the phrase is a field of the command); 3 and 4, a
        Te or Cr spell needs one more pawn (the extra pawn is spent and adds no strength); 5, the Magical
        Resistance of the cursed covenant's beings is 1 less (at least 0). A spell that chooses a target for every
        N pawns takes its further targets in ``more_targets`` (A-AMB-17)."""
        s = self.state
        more_targets = more_targets or []
        sp = self.house.spells.get(spell)
        if sp is None:
            raise RuleViolation(f"no spell {spell!r} in this game's house rules", field="spell")
        mage = self.card(mage_id)
        if mage.owner != seat or mage.kind != "mage":
            raise RuleViolation("cast with one of your mages", rule="A-SPELL-1", field="mage_id")
        if not mage.active:
            raise RuleViolation("an inactive mage cannot cast", rule="A-LIM-2", field="mage_id")
        rules.check_phase(sp.phases, "main" if s.phase in END_OF_MAIN else s.phase, sp.seasons, self.season_name)
        curses = {c["curse"] for c in self._curses(seat)}
        if sp.counters:
            return self._counter(seat, mage, spell, target, vis_amount, mother_may_i=mother_may_i)
        if s.phase == "main":
            self._require_turn(seat, "main")
        if s.phase == "reckoning" and any(p.supported for p in s.powers.values()):  # A.1.4 Reckoning.begin, A-AMB-10
            raise RuleViolation("this spell is cast at the beginning of the Reckoning, before any covenant allocates "
                                "its support", rule="A-SPELL-8")  # fmt: skip
        rules.check_cast_arts(sp.arts, self.mage_arts(mage))
        assign = self._assigned_now(mage, spell)
        if not sp.ritual and spell in mage.cast_this_season:
            raise RuleViolation("a regular spell is cast once per season by a mage", rule="A-SPELL-2")
        if vis_amount < 1 or vis_amount > s.powers[seat].vis:
            raise RuleViolation(f"you hold {s.powers[seat].vis} vis", rule="A-SPELL-1", field="vis")
        extra = rules.curse_surcharge(curses, sp.arts)
        if vis_amount - extra < 1:
            raise RuleViolation(
                f"the Hedge Mage's curse asks {extra} more pawn(s) of vis for this spell", rule="A-EVT-4", field="vis"
            )
        power = vis_amount - extra  # the pawns that give the spell its strength
        outcome: dict[str, Any] = {"spell": spell, "target": target, "vis": vis_amount}
        if extra:
            outcome["curse_surcharge"] = extra
        targets = [target, *more_targets]
        ppt = sp.pawns_per_target
        if more_targets and not ppt:
            raise RuleViolation(f"{spell} has one target", rule="A-AMB-17", field="more_targets")
        if len(set(targets)) < len(targets):
            raise RuleViolation("a spell's targets are different cards", rule="A-AMB-17", field="more_targets")
        if ppt and len(targets) * ppt > min(power, sp.max_vis):
            raise RuleViolation(f"{spell} chooses one target for every {ppt} pawn(s) of vis expended, up to "
                                f"{sp.max_vis} pawns", rule="A-AMB-17", field="more_targets")  # fmt: skip
        reach = [self._reach(seat, mage, spell, t, named=named) for t in targets]
        per_target = option(s.options, "multi_target_resistance") == "per_target"
        strengths = rules.target_strengths(power, [r[1] for r in reach], per_target=per_target)
        certamen = reach[0][3]
        if ppt:  # A-AMB-17: each target reached needs the pawns of all the targets chosen, past its resistance
            need = max(sp.min_vis, len(targets) * ppt)
            hits = [t for t, st, r in zip(targets, strengths, reach) if st >= need and not r[2]]
            strength = max([st for t, st in zip(targets, strengths) if t in hits] or strengths)
            magnitude = len(hits) * ppt if hits else None
            recast = all(r[2] for r in reach)
        else:
            strength, recast, hits = strengths[0], reach[0][2], [target]
            magnitude = rules.effective_magnitude(strength, sp.min_vis, sp.max_vis)
        if recast:  # A-SPELL-2 / A-AMB-12: the vis is spent, nothing happens
            magnitude = None
        if 2 in curses and not mother_may_i:  # curse 2 [000:753]: "else that spell is automatically countered"
            magnitude = None
            outcome["countered"] = 'curse 2: the covenant\'s player did not say "Mother may I"'
        marked = any(rules.marks_aggression(target_covenant=cov or None, caster_covenant=seat, harmful=sp.harmful)
                     for cov, *_ in reach)  # fmt: skip
        outcome.update(strength=strength, magnitude=magnitude, marked=marked, recast=recast)
        if magnitude is None:
            hits = []
        if ppt:
            outcome.update(targets=targets, reached=hits)
        until = rules.expires_at(s.seasons_begun, sp.duration_seasons) if sp.duration_seasons else None
        damage = (ppt or magnitude or 0) * sp.damage_per_pawn if magnitude is not None else 0  # on each target
        if assign:
            self._spell_assigned(card_id=mage.id, spell=spell, actor=seat, audience=PUBLIC)
        outcome["spell_id"] = spell_id = f"sp{self.version + 1}"  # the version of its SpellCast: unique
        self._spell_cast(
            seat=seat, mage_id=mage_id, spell=spell, target=target, vis=vis_amount, strength=strength,
            magnitude=magnitude, marked=marked, until=until, phase=s.phase, ritual=sp.ritual, actor=seat,
            audience=PUBLIC, spell_id=spell_id, damage=damage, certamen=certamen, reached=hits if ppt else None,
        )  # fmt: skip
        for t in hits if damage else []:
            self._damage(t, damage, seat)
        if s.phase == "main":
            self._end_turn(seat, acted=True)
        return outcome

    def _reach(self, seat: str, mage: Card, spell: str, target: str, *, named: bool) -> tuple[str, int, bool, Any]:
        """One target of a spell: its covenant, the resistance the spell must pass to reach it (A-SPELL-4: a rival
        covenant's Aegis and the target's MR, 1 less under the Hedge Mage's curse 5 [000:759]), whether a ritual
        already holds it (A-SPELL-2), and the Certamen a spell at a mage engaged in one changes (A-CERT-3)."""
        s, sp = self.state, self.house.spells[spell]
        self._refuse_out_of_play(target if target in s.powers else (s.cards[target].owner if target in s.cards
                                 else None), "target")  # fmt: skip
        if sp.target == "covenant":
            recast = any(e.get("spell") == spell and e.get("target") == target for e in s.effects)
            return self.power(target).id, 0, recast, None
        t = self.card(target)
        d = self.house.cards.get(t.name)
        if d is not None and d.untargetable and t.name not in sp.names and not named:
            raise RuleViolation(f"{t.name} is an untargetable structure", rule="A-LIM-3", field="target")
        if t.id == mage.id:
            meets = not sp.forms or t.substance in sp.forms
            rules.check_self_target(sp.raises_own, sp.self_allowed, meets)
        rules.check_target_kind(sp.target, animate=bool(d and d.animate), structure=bool(d and d.structure),
                                mage=t.kind == "mage")  # fmt: skip
        if sp.forms and t.substance not in sp.forms:  # A-SPELL-7: its substance now decides
            raise RuleViolation(f"{spell} targets {sp.forms}; {t.name} is {t.substance}", rule="A-SPELL-7",
                                field="target")  # fmt: skip
        certamen = self._certamen_spell(sp.certamen, mage, t) if sp.certamen else None
        rival = t.owner is not None and t.owner != seat
        aegis = max((e.get("aegis", 0) for e in s.effects if e.get("target") == t.owner), default=0)
        mr = d.mr if d else 0
        if t.owner is not None and any(c["curse"] == 5 for c in self._curses(t.owner)):
            mr = max(0, mr - 1)  # curse 5 [000:759]
        recast = sp.ritual and any(e.get("spell") == spell and e.get("target") == target for e in s.effects)
        return t.owner or "", rules.resistance(rival=rival, aegis=aegis, mr=mr), bool(recast), certamen

    def _assigned_now(self, mage: Card, spell: str) -> bool:
        """A-SPELL-1: a mage casts only the spells attached to it ([000:69] "new spells are acquired via Book Study
        (Grimoire) or Lab Study"); a starting mage is assigned its first two as it makes them ([000:34] "no Book or
        Lab Study required ... if at least one of each spell's Arts match theirs": the caster has all of them,
        ``rules.check_cast_arts``): True if this cast assigns it. A game pinned to a package with no Book that
        teaches (house 1.0.0, before spell learning was modelled) keeps its rule: a mage casts what its Arts allow,
        since nothing in that package could ever teach it a spell."""
        if spell in mage.spells or not any(d.teaches == "spell" for d in self.house.cards.values()):
            return False
        if mage.name == STARTING_MAGE and len(mage.spells) < 2:
            return True
        raise RuleViolation(f"this mage has not learnt {spell}: a spell comes by Book Study (Grimoire) or Lab Study, "
                            "or is one of a starting mage's first two", rule="A-SPELL-1", field="spell")  # fmt: skip

    @event("SpellAssigned")
    def _spell_assigned(self, card_id: str, spell: str, actor: str, audience: list) -> None:
        self.state.cards[card_id].spells.append(spell)

    @event("SpellCast")
    def _spell_cast(
        self, seat: str, mage_id: str, spell: str, target: str, vis: int, strength: int, magnitude: int | None,
        marked: bool, until: int | None, phase: str, ritual: bool, actor: str, audience: list,
        spell_id: str = "", damage: int = 0, certamen: dict | None = None, reached: list | None = None,
    ) -> None:  # fmt: skip
        """``reached``: the targets a spell of several reached (A-AMB-17); None, its one ``target``."""
        s = self.state
        s.powers[seat].vis -= vis
        s.cards[mage_id].cast_this_season.append(spell)
        if marked:
            s.powers[seat].marked = True
        hits = [target] if reached is None else list(reached)
        if damage and any(t in s.cards and s.cards[t].owner not in (None, seat) for t in hits):
            s.powers[seat].damaged_another = True  # A-AMB-19
        if magnitude is None:
            return
        s.spells_cast.append({
            "id": spell_id, "seat": seat, "spell": spell, "target": target, "strength": strength, "damage": damage,
            "targets": hits,
        })  # fmt: skip
        each = self.house.spells[spell].pawns_per_target or magnitude  # the pawns each target takes
        for t in hits:
            self._spell_took_effect(spell, t, until, phase, seat, spell_id, vis, each, certamen)

    def _spell_took_effect(
        self, spell: str, target: str, until: int | None, phase: str, seat: str, spell_id: str, vis: int,
        magnitude: int, certamen: dict | None,
    ) -> None:  # fmt: skip
        """A SpellCast's lasting effect on one of its targets (folded, not an event of its own)."""
        s = self.state
        sp = self.house.spells[spell]
        effect: dict[str, Any] = {
            "spell": spell, "target": target, "until": until, "phase": phase, "by": seat, "spell_id": spell_id,
        }  # fmt: skip
        if sp.aegis:
            effect["aegis"] = rules.aegis_value(vis)
        if sp.might_per_pawn:  # a regular spell: it lasts until the season ends (A-SPELL-3)
            effect.update(might=magnitude * sp.might_per_pawn, until=s.seasons_begun, phase=None)
        if sp.sets_substance and target in s.cards:
            effect["was"] = s.cards[target].substance
            s.cards[target].substance = sp.sets_substance
        if certamen:  # read when the challenge is resolved; a counter undoes it (A-SPELL-5)
            effect.update(certamen, until=s.seasons_begun, phase=None)
        if sp.artisan_rate:  # the pieces of gold it enhanced, until they are converted
            effect["artisan"] = magnitude
        if until is not None or sp.aegis or sp.sets_substance or sp.might_per_pawn or certamen or sp.artisan_rate:
            s.effects.append(effect)

    def _certamen_spell(self, kind: str, caster: Card, target: Card) -> dict:
        """A-CERT-3: [000:554] Distractions of Invisible Horrors targets "one of the mages engaged in a challenge to
        halve (rounded up) his final Certamen score"; [000:610] The Subtle Accomplice adds "the caster's Certamen
        rating to that of another mage in the same covenant engaged in Certamen" (its caster takes no part in one)."""
        s = self.state
        ch = next((c for c in s.challenges.values() if target.id in (c["mage"], c["target_mage"])), None)
        if ch is None:
            raise RuleViolation(f"{target.name} is not engaged in Certamen", rule="A-CERT-3", field="target")
        side = ch["challenger"] if target.id == ch["mage"] else ch["target"]
        if kind == "halve":
            return {"challenge": ch["id"], "side": side, "halve": True}
        engaged = {m for c in s.challenges.values() for m in (c["mage"], c["target_mage"])}
        if target.owner != caster.owner or caster.id in engaged:
            raise RuleViolation("The Subtle Accomplice helps another mage of its caster's covenant, and its caster "
                                "is in no challenge", rule="A-CERT-3", field="target")  # fmt: skip
        return {"challenge": ch["id"], "side": side, "bonus": self.house.cards[caster.name].certamen}

    def _counter(
        self, seat: str, mage: Card, spell: str, target: str, vis_amount: int, *, mother_may_i: bool = False
    ) -> dict:
        """A-SPELL-5: a counter cast in the phase of the spell it targets, out of turn; if its pawns exceed that
        spell's strength, compensating events undo what the spell did (its damage, its effect)."""
        s = self.state
        sp = self.house.spells[spell]
        if not mage.active:
            raise RuleViolation("an inactive mage cannot cast", rule="A-LIM-2", field="mage_id")
        hit = next((x for x in s.spells_cast if x["id"] == target), None)
        if hit is None:
            raise RuleViolation("a counter targets a spell cast in this phase", rule="A-SPELL-5", field="target")
        if target in s.closed_spells:
            raise RuleViolation("every player confirmed not to counter this spell before the battle", rule="H-15",
                                field="target")  # fmt: skip
        if any(target in e["spells"] and seat in e["agreed"] for e in s.boosted_battles):
            raise RuleViolation("you agreed not to counter this spell before the battle", rule="H-15", field="target")
        form = self.house.spells[hit["spell"]].arts[-1]
        rules.check_cast_arts([*sp.arts, form], self.mage_arts(mage))
        assign = self._assigned_now(mage, spell)
        if spell in mage.cast_this_season:
            raise RuleViolation("a regular spell is cast once per season by a mage", rule="A-SPELL-2")
        if vis_amount < 1 or vis_amount > s.powers[seat].vis:
            raise RuleViolation(f"you hold {s.powers[seat].vis} vis", rule="A-SPELL-1", field="vis")
        extra = rules.curse_surcharge({c["curse"] for c in self._curses(seat)}, [*sp.arts, form])
        said = mother_may_i or not any(c["curse"] == 2 for c in self._curses(seat))
        success = said and vis_amount - extra >= 1 and rules.counters(vis_amount - extra, hit["strength"])
        if assign:
            self._spell_assigned(card_id=mage.id, spell=spell, actor=seat, audience=PUBLIC)
        self._spell_countered(seat=seat, mage_id=mage.id, spell=spell, target=target, vis=vis_amount,
                              success=success, actor=seat, audience=PUBLIC)  # fmt: skip
        undone = [t for t in hit.get("targets", [hit["target"]]) if t in s.cards] if success and hit["damage"] else []
        for c in [s.cards[t] for t in undone]:  # on every target it reached (A-AMB-17)
            d = self.house.cards.get(c.name)
            left = max(0, c.damage - hit["damage"])
            active = rules.is_active_after_damage(
                animate=bool(d and d.animate), might_type=d.might_type if d else None, might=self._own_might(c),
                structure=bool(d and d.structure), damage=left,
            ) and not c.inactive_until  # fmt: skip
            self._damage_reversed(card_id=c.id, damage=left, active=active, actor=SYSTEM, audience=PUBLIC)
        if success:
            self._undo_boosted_battles(target)
        return {"spell": spell, "target": target, "vis": vis_amount, "countered": success}

    def _undo_boosted_battles(self, spell_id: str) -> None:
        """A-EX-5 [000:111] "the damage from such a battle may have to be redistributed if the spell is countered":
        compensating events undo the damage of each battle fought with the countered boost, and the battle is fought
        again (its covenants allocate anew, H-6) with the un-boosted Might (A-AMB-15)."""
        s = self.state
        for e in [e for e in s.boosted_battles if spell_id in e["spells"]]:
            if "before" in e:
                for card_id, (damage, active) in e["before"].items():
                    if card_id in s.cards:
                        self._damage_reversed(card_id=card_id, damage=damage, active=active, actor=SYSTEM,
                                              audience=PUBLIC)  # fmt: skip
                self._battle_reopened(battle=e["record"], actor=SYSTEM, audience=PUBLIC)
            elif s.battle is not None and s.battle["id"] == e["battle"]:  # still being allocated: begun again
                self._battle_reopened(battle={k: s.battle[k] for k in ("id", "a", "b", "cause")}, actor=SYSTEM,
                                      audience=PUBLIC)  # fmt: skip
                self._next_battle()

    @event("BattleReopened")
    def _battle_reopened(self, battle: dict, actor: str, audience: list) -> None:
        s = self.state
        e = next(x for x in s.boosted_battles if x["battle"] == battle["id"])
        s.boosted_battles = [x for x in s.boosted_battles if x is not e]
        s.defeated = [x for x in s.defeated if x not in e.get("defeated", [])]
        if e.get("event_damage"):
            s.invasion = {**s.invasion, "damage": s.invasion.get("damage", 0) - e["event_damage"], "retreated": False}
        if e.get("town") and e["town"][0] in s.cards:  # A-EX-5: the Riots' Town as before the battle (A-EVT-4)
            town = s.cards[e["town"][0]]
            town.damage, town.active, town.inactive_until = e["town"][1:]
        if s.battle is not None and s.battle["id"] == battle["id"]:
            s.battle, s.turn = None, []
        s.battles = [dict(battle), *s.battles]

    @event("SpellCountered")
    def _spell_countered(
        self, seat: str, mage_id: str, spell: str, target: str, vis: int, success: bool, actor: str, audience: list
    ) -> None:
        s = self.state
        s.powers[seat].vis -= vis
        s.cards[mage_id].cast_this_season.append(spell)
        if success:
            s.spells_cast = [x for x in s.spells_cast if x["id"] != target]
            _expire(s, lambda e: e.get("spell_id") == target)

    @event("DamageReversed")
    def _damage_reversed(self, card_id: str, damage: int, active: bool, actor: str, audience: list) -> None:
        c = self.state.cards[card_id]
        c.damage, c.active = damage, active

    # ------------------------------------------------------------------ Main: custom actions (H-8)

    def take_action(self, seat: str, action: str, text: str) -> None:
        self._require_turn(seat, "main")
        a = self.house.main_actions.get(action)
        if a is None:
            raise RuleViolation(f"the Main Phase actions are {sorted(self.house.main_actions)}", field="action")
        self._action_taken(seat=seat, action=action, text=text, needs_ruling=a.host_approves, actor=seat,
                           audience=PUBLIC)  # fmt: skip
        self._end_turn(seat, acted=True)

    @event("ActionTaken")
    def _action_taken(self, seat: str, action: str, text: str, needs_ruling: bool, actor: str, audience: list) -> None:
        self.state.actions.append(
            {"seat": seat, "action": action, "text": text, "ruling": None if needs_ruling else "none needed"}
        )

    def rule_on_action(self, index: int, approved: bool, note: str, actor: str) -> None:
        if not 0 <= index < len(self.state.actions) or self.state.actions[index]["ruling"] is not None:
            raise RuleViolation("no custom action awaits a ruling there", field="index")
        self._action_ruled(index=index, approved=approved, note=note, actor=actor, audience=PUBLIC)

    @event("ActionRuled")
    def _action_ruled(self, index: int, approved: bool, note: str, actor: str, audience: list) -> None:
        self.state.actions[index]["ruling"] = {"approved": approved, "note": note}

    # ------------------------------------------------------------------ Main: conversions (A-ECON-1)

    def convert(self, seat: str, give: str, amount: int, get: str) -> int:
        """A-ECON-1 [000:632] "all covenants may convert resources they own": the provision a covenant owns in the
        Main Phase is what it holds and what its cards make this season ([000:49] "any provisions generated during
        a season"; counted at the Reckoning, A-RECK-1, which takes back what was converted ahead). Gold a Touch of
        the Artisan enhanced converts at its rate ([000:590]), the rest at the Market Fair's."""
        s = self.state
        if s.phase != "main":
            raise RuleViolation("conversions happen in the Main Phase", rule="A-ECON-1")
        market = "Market Fair" in s.events_in_play or any(c.kind == "town" for c in self.covenant_cards(seat))
        famine = "Famine" in s.events_in_play
        p = s.powers[seat]
        held = self.owned(seat, give)
        artisan = [e for e in s.effects if e.get("artisan") and e["target"] == seat] if get == "provision" else []
        enhanced = min(amount, p.gold, sum(e["artisan"] for e in artisan)) if give == "gold" else 0
        got = rules.convert(give, amount - enhanced, get, market=market, famine=famine) if amount > enhanced else 0
        if enhanced:
            rate = self.house.spells[artisan[0]["spell"]].artisan_rate
            got += rules.convert(give, enhanced, get, market=market, famine=famine, artisan_rate=rate)
        if held < amount:
            raise RuleViolation(f"you hold {held} {give}", rule="A-ECON-1", field="amount")
        self._converted(seat=seat, give=give, amount=amount, get=get, got=got, actor=seat, audience=PUBLIC,
                        artisan=enhanced)  # fmt: skip
        return got

    @event("Converted")
    def _converted(
        self, seat: str, give: str, amount: int, get: str, got: int, actor: str, audience: list, artisan: int = 0
    ) -> None:
        s = self.state
        p = s.powers[seat]
        setattr(p, give, getattr(p, give) - amount)  # provision below 0: drawn on this season's, made at the Reckoning
        setattr(p, get, getattr(p, get) + got)
        for e in [e for e in s.effects if e.get("artisan") and e["target"] == seat]:  # enhanced gold is spent
            used = min(artisan, e["artisan"])
            e["artisan"], artisan = e["artisan"] - used, artisan - used
        s.effects = [e for e in s.effects if e.get("artisan", 1)]

    # ------------------------------------------------------------------ Main: trades (H-10, A-ECON-1)

    def offer_trade(self, seat: str, to: str, give: dict, get: dict, trade_id: str) -> None:
        """A Main Phase action: offer another covenant an exchange at a rate the two agree ([000:636])."""
        self._require_turn(seat, "main")
        self.power(to)
        self._refuse_out_of_play(to, "to")
        if to == seat:
            raise RuleViolation("trade with another covenant", rule="A-ECON-1", field="to")
        for side, amounts in (("give", give), ("get", get)):
            if set(amounts) - {"gold", "vis", "provision"} or any(
                not isinstance(v, int) or v < 0 for v in amounts.values()
            ):
                raise RuleViolation("a trade moves whole gold, vis and provision", rule="A-ECON-1", field=side)
        if not any(give.values()) and not any(get.values()):
            raise RuleViolation("a trade moves something", rule="A-ECON-1", field="give")
        self._check_holds(seat, give, "give")
        self._trade_offered(trade_id=trade_id, seat=seat, to=to, give=dict(give), get=dict(get), actor=seat,
                            audience=PUBLIC)  # fmt: skip
        self._end_turn(seat, acted=True)

    def owned(self, seat: str, what: str) -> int:
        """The gold, vis or provision a covenant owns in a season, to convert, trade or pay (A-ECON-1 [000:632] "all
        covenants may convert resources they own", [000:636] "Covenants may trade among themselves"): its provision
        is what it holds and what its cards make this season ([000:49] "any provisions generated during a season";
        the Reckoning counts it, A-RECK-1, and takes back what went ahead; once the covenant has allocated its support,
        what the Reckoning left it); its gold and vis, what it holds."""
        if what == "provision" and not self.state.powers[seat].supported:
            return int(self._tally(seat, [])[2]["provision"])
        return int(getattr(self.state.powers[seat], what))

    def _check_holds(self, seat: str, amounts: dict, where: str) -> None:
        short = [k for k, v in amounts.items() if self.owned(seat, k) < v]
        if short:
            raise RuleViolation(f"{seat} does not hold the {', '.join(short)} of this trade", rule="A-ECON-1",
                                field=where)  # fmt: skip

    @event("TradeOffered")
    def _trade_offered(
        self, trade_id: str, seat: str, to: str, give: dict, get: dict, actor: str, audience: list
    ) -> None:
        self.state.trades[trade_id] = {"id": trade_id, "from": seat, "to": to, "give": give, "get": get}

    def answer_trade(self, seat: str, trade_id: str, accept: bool) -> None:
        """The other covenant accepts (both sides move at once, or nothing does) or refuses; the offerer may
        withdraw."""
        tr = self.state.trades.get(trade_id)
        if tr is None:
            raise NotFound(f"no open trade {trade_id!r}", field="trade_id")
        if accept:
            if seat != tr["to"]:
                raise RuleViolation("only the covenant offered a trade accepts it", rule="A-ECON-1")
            if "Famine" in self.state.events_in_play and (tr["give"].get("provision") or tr["get"].get("provision")):
                raise RuleViolation("no conversion to or from provision during a Famine", rule="A-ECON-1")
            self._check_holds(tr["from"], tr["give"], "give")
            self._check_holds(tr["to"], tr["get"], "get")
        elif seat not in (tr["to"], tr["from"]):
            raise RuleViolation("only the two covenants of a trade close it", rule="A-ECON-1")
        self._trade_closed(trade_id=trade_id, accepted=accept, actor=seat, audience=PUBLIC)

    @event("TradeClosed")
    def _trade_closed(self, trade_id: str, accepted: bool, actor: str, audience: list) -> None:
        s = self.state
        tr = s.trades.pop(trade_id)
        if accepted:
            a, b = s.powers[tr["from"]], s.powers[tr["to"]]
            for k, v in tr["give"].items():
                setattr(a, k, getattr(a, k) - v)
                setattr(b, k, getattr(b, k) + v)
            for k, v in tr["get"].items():
                setattr(b, k, getattr(b, k) - v)
                setattr(a, k, getattr(a, k) + v)

    # ------------------------------------------------------------------ Certamen (A-CERT-1..3)

    def challenge(self, seat: str, mage_id: str, target_mage: str, challenge_id: str) -> None:
        self._require_turn(seat, "main")
        s = self.state
        mine, theirs = self.card(mage_id), self.card(target_mage)
        if mine.owner != seat or mine.kind != "mage" or theirs.kind != "mage" or theirs.owner in (None, seat):
            raise RuleViolation("a challenge is from your mage to an opponent's mage", rule="A-CERT-1")
        if not (mine.active and theirs.active):
            raise RuleViolation("both mages must be active", rule="A-CERT-1")
        engaged = {m for ch in s.challenges.values() for m in (ch["mage"], ch["target_mage"])}
        if mage_id in engaged or target_mage in engaged:
            raise RuleViolation("a mage may be in one challenge at a time", rule="A-CERT-1")
        if any(ch["challenger"] == seat and ch["cycle"] == s.cycle for ch in s.challenges.values()):
            raise RuleViolation("one challenge per player per Main Phase", rule="A-CERT-1")
        accomplices = {n for n, sp in self.house.spells.items() if sp.certamen == "add_rating"}
        if accomplices & {*mine.cast_this_season, *theirs.cast_this_season}:  # [000:610]
            raise RuleViolation("a mage that cast The Subtle Accomplice takes no part in Certamen this season",
                                rule="A-CERT-1")  # fmt: skip
        rival = theirs.owner or ""
        self._refuse_out_of_play(rival, "target_mage")
        if any(ch["target"] == rival for ch in s.challenges.values()) or rival in self._challenged_this_season():
            raise RuleViolation("a player's mages are challenged once a season", rule="A-CERT-1")
        last = s.powers[seat].last_challenged.get(rival)
        gap = option(s.options, "certamen_rechallenge_gap")  # A-AMB-7: 2, a whole season in between
        if last is not None and s.seasons_begun - last < gap:
            raise RuleViolation(
                f"challenge the same player again {gap} seasons after the last challenge (A-AMB-7)", rule="A-CERT-1"
            )
        self._challenge_issued(
            challenge_id=challenge_id, challenger=seat, mage=mage_id, target=rival, target_mage=target_mage,
            cycle=s.cycle, season=s.seasons_begun, actor=seat, audience=PUBLIC,
        )  # fmt: skip
        self._end_turn(seat, acted=True)

    def _challenged_this_season(self) -> set[str]:
        """The players one of whose mages was challenged this season (A-CERT-1)."""
        now = self.state.seasons_begun
        return {r for p in self.state.powers.values() for r, season in p.last_challenged.items() if season == now}

    @event("ChallengeIssued")
    def _challenge_issued(
        self, challenge_id: str, challenger: str, mage: str, target: str, target_mage: str, cycle: int, season: int,
        actor: str, audience: list,
    ) -> None:  # fmt: skip
        s = self.state
        s.challenges[challenge_id] = {
            "id": challenge_id, "challenger": challenger, "mage": mage, "target": target, "target_mage": target_mage,
            "cycle": cycle, "technique": None, "form": None, "bids": {}, "sealed": {},
        }  # fmt: skip
        s.powers[challenger].last_challenged[target] = season

    def _challenge(self, challenge_id: str) -> dict:
        ch = self.state.challenges.get(challenge_id)
        if ch is None:
            raise NotFound(f"no challenge {challenge_id!r}", field="challenge_id")
        return ch

    def resolver(self, ch: dict) -> str:
        """A-AMB-7: "A challenge is resolved on the turn of the first of its two players in clockwise order from the
        starting player"."""
        s = self.state
        order = rules.clockwise(s.order, s.starting) if s.starting else list(s.order)
        return min((ch["challenger"], ch["target"]), key=order.index)

    def choose_art(self, seat: str, challenge_id: str, art: str) -> None:
        """A-CERT-2: the challenger picks the Technique, the challenged player the Form."""
        ch = self._challenge(challenge_id)
        allowed: tuple[str, ...]
        if seat == ch["challenger"]:
            which, allowed = "technique", TECHNIQUES
        elif seat == ch["target"]:
            which, allowed = "form", FORMS
        else:
            raise RuleViolation("only the two players of a challenge choose its Arts", rule="A-CERT-2")
        if art not in allowed or ch[which] is not None:
            raise RuleViolation(f"choose a {which} once, one of {list(allowed)}", rule="A-CERT-2", field="art")
        self._art_chosen(challenge_id=challenge_id, which=which, art=art, actor=seat, audience=PUBLIC)

    @event("CertamenArtChosen")
    def _art_chosen(self, challenge_id: str, which: str, art: str, actor: str, audience: list) -> None:
        self.state.challenges[challenge_id][which] = art

    def seal_bid(self, seat: str, challenge_id: str, vis_amount: int, nonce: str) -> None:
        """A-AMB-7: a sealed bid; only its hash is public until both are in."""
        ch = self._challenge(challenge_id)
        if seat not in (ch["challenger"], ch["target"]):
            raise RuleViolation("only the two players of a challenge bid", rule="A-CERT-3")
        if seat in ch["sealed"]:
            raise RuleViolation("your bid is sealed already", rule="A-CERT-3")
        if not 0 <= vis_amount <= self.state.powers[seat].vis:
            raise RuleViolation(f"you hold {self.state.powers[seat].vis} vis", rule="A-CERT-3", field="vis")
        digest_ = bid_commitment(challenge_id, seat, vis_amount, nonce)
        self._bid_sealed(challenge_id=challenge_id, seat=seat, vis=vis_amount, nonce=nonce, actor=seat,
                         audience=vis.powers([seat]))  # fmt: skip
        self._bid_committed(challenge_id=challenge_id, seat=seat, commitment=digest_, actor=seat, audience=PUBLIC)

    @event("CertamenBidSealed")
    def _bid_sealed(self, challenge_id: str, seat: str, vis: int, nonce: str, actor: str, audience: list) -> None:
        self.state.challenges[challenge_id]["bids"][seat] = {"vis": vis, "nonce": nonce}

    @event("CertamenBidCommitted")
    def _bid_committed(self, challenge_id: str, seat: str, commitment: str, actor: str, audience: list) -> None:
        self.state.challenges[challenge_id]["sealed"][seat] = commitment

    def resolve_certamen(self, seat: str, challenge_id: str) -> dict:
        """A-CERT-2/-3: resolve a challenge in the Resolve Certamen phase, on the turn of the first of its two
        players clockwise (A-AMB-7)."""
        self._require_turn(seat, "certamen")
        ch = self._challenge(challenge_id)
        if self.resolver(ch) != seat:
            raise RuleViolation(
                "a challenge is resolved on the turn of the first of its two players clockwise", rule="A-AMB-7"
            )
        a, b = self.state.cards.get(ch["mage"]), self.state.cards.get(ch["target_mage"])
        a_on, b_on = bool(a and a.active), bool(b and b.active)
        result: dict[str, Any]
        if not a_on and not b_on:
            result = {"winner": None, "cancelled": True}
        elif a_on != b_on:
            result = {"winner": ch["challenger"] if a_on else ch["target"], "by_default": True}
        else:
            if ch["technique"] is None or ch["form"] is None:
                raise RuleViolation("the challenger picks the Technique and the challenged the Form", rule="A-CERT-2")
            if len(ch["sealed"]) < 2:
                raise RuleViolation("both bids must be sealed before they are opened", rule="A-CERT-3")
            assert a is not None and b is not None
            paid = self._bids_paid(ch)
            scores = {}
            for side, card in ((ch["challenger"], a), (ch["target"], b)):
                d = self.house.cards[card.name]
                girdle = "Enchanted Item: Girdle of Magical Finesse"
                bonus = sum(1 for x in self.state.cards.values() if x.attached_to == card.id and x.name == girdle)
                spells = [e for e in self.state.effects if e.get("challenge") == challenge_id and e["side"] == side]
                bonus += sum(e.get("bonus", 0) for e in spells)  # The Subtle Accomplice
                scores[side] = rules.certamen_score(
                    d.certamen, self.mage_arts(card), ch["technique"], ch["form"], paid[side],
                    bonus=bonus, distracted=any(e.get("halve") for e in spells),
                )  # fmt: skip
            top = max(scores.values())
            leaders = [k for k, v in scores.items() if v == top]
            result = {"winner": leaders[0] if len(leaders) == 1 else None, "scores": scores}
            if any(paid[side] != ch["bids"][side]["vis"] for side in paid):
                result["paid"] = paid
        result["winnings"] = self._winnings(ch, result.get("winner"))
        bids = {k: v for k, v in ch["bids"].items()} if "scores" in result else {}
        self._certamen_resolved(challenge_id=challenge_id, result=result, bids=bids, actor=seat, audience=PUBLIC)
        if not any(self.resolver(c) == seat for c in self.state.challenges.values()):
            self._end_turn(seat, acted=True)
        return result

    def _bids_paid(self, ch: dict) -> dict[str, int]:
        """A-AMB-7 "the vis is spent whatever the result", and a covenant spends only the vis it holds: a bid sealed
        for more than the covenant holds when the bids are opened (it spent vis since, in a trade or a spell) counts
        and costs what it holds. The rules say nothing of it; this keeps every store of vis whole (a covenant in
        debt could support nothing at its Reckoning, and its silence there would be refused)."""
        return {side: min(bid["vis"], max(0, self.state.powers[side].vis)) for side, bid in ch["bids"].items()}

    def _winnings(self, ch: dict, winner: str | None) -> dict:
        if winner is None:
            return {}
        loser = ch["target"] if winner == ch["challenger"] else ch["challenger"]
        for kind in self.house.certamen.winnings:  # in the package's order of preference
            if kind == "tribute":
                return {"tribute": 1, "from": loser, "to": winner}
            if getattr(self.state.powers[loser], kind) > 0:
                return {kind: 1, "from": loser, "to": winner}
        return {}

    @event("CertamenResolved")
    def _certamen_resolved(self, challenge_id: str, result: dict, bids: dict, actor: str, audience: list) -> None:
        s = self.state
        ch = s.challenges.pop(challenge_id)
        paid = result.get("paid") or {}  # what a bid beyond the covenant's vis cost (``_bids_paid``)
        for side, bid in bids.items():
            s.powers[side].vis -= paid.get(side, bid["vis"])  # A-AMB-7: spent whatever the result
        w = result.get("winnings") or {}
        if "tribute" in w:
            s.powers[w["from"]].tribute.append({"to": w["to"], "points": w["tribute"], "permanent": False})
        for kind in ("vis", "gold"):
            if kind in w:
                setattr(s.powers[w["from"]], kind, getattr(s.powers[w["from"]], kind) - w[kind])
                setattr(s.powers[w["to"]], kind, getattr(s.powers[w["to"]], kind) + w[kind])
        del ch

    def forfeit(self, seat: str, challenge_id: str) -> None:
        """A-CERT-2: the challenged covenant forfeits and pays the house rules' penalty."""
        ch = self._challenge(challenge_id)
        if seat != ch["target"]:
            raise RuleViolation("only the challenged covenant may forfeit", rule="A-CERT-2")
        pen = self.house.certamen.forfeit_penalty
        p = self.state.powers[seat]
        if p.gold < pen.gold or p.vis < pen.vis:
            raise RuleViolation("you cannot pay the forfeit penalty", rule="A-CERT-2")
        resolver = self.resolver(ch)
        self._forfeited(challenge_id=challenge_id, seat=seat, gold=pen.gold, vis=pen.vis, actor=seat, audience=PUBLIC)
        if self.state.phase == "certamen" and not any(
            self.resolver(c) == resolver for c in self.state.challenges.values()
        ) and self.state.turn and self.state.turn[0] == resolver:  # fmt: skip
            self._end_turn(resolver, acted=True)

    @event("CertamenForfeited")
    def _forfeited(self, challenge_id: str, seat: str, gold: int, vis: int, actor: str, audience: list) -> None:
        s = self.state
        ch = s.challenges.pop(challenge_id)
        s.powers[seat].gold -= gold
        s.powers[seat].vis -= vis
        s.powers[ch["challenger"]].gold += gold
        s.powers[ch["challenger"]].vis += vis

    # ------------------------------------------------------------------ Reckoning (A-RECK-1..6)

    def support(self, seat: str, starve: list[str], *, seed: str, keep: dict[str, int] | None = None) -> dict:
        """A-RECK-1: tally this season's production and pay the upkeep of every card not starved; in Winter, keep
        some gold and vis out of the Yearly Reckoning's conversion (A-AMB-9)."""
        self._require_turn(seat, "reckoning")
        s = self.state
        ids = {c.id for c in self.covenant_cards(seat)}
        bad = [c for c in starve if c not in ids]
        if bad:
            raise RuleViolation(f"{bad} are not your cards", rule="A-RECK-1", field="starve")
        made, need, have = self._tally(seat, starve)
        p = s.powers[seat]
        short = [k for k in need if need[k] > have[k]]
        if short:
            raise RuleViolation(
                f"you cannot support every card: short of {', '.join(short)}; starve some (they are discarded)",
                rule="A-RECK-1",
                field="starve",
            )
        after = {k: have[k] - need[k] for k in have}
        keep = dict(keep or {})
        if keep:  # A-AMB-9 "The player may choose to keep some unconverted; leftover provision is lost anyway."
            if self.season_name != "winter":
                raise RuleViolation("gold and vis are kept unconverted at the Winter Reckoning", rule="A-AMB-9",
                                    field="keep")  # fmt: skip
            held = {"gold": after["gold"], "vis": after["vis"]}
            if set(keep) - set(held) or any(type(n) is not int or not 0 <= n <= held[k] for k, n in keep.items()):
                raise RuleViolation(f"keep up to the {after['gold']} gold and {after['vis']} vis you will hold",
                                    rule="A-AMB-9", field="keep")  # fmt: skip
        self._supported(seat=seat, starved=list(starve), made=made, paid=need, after=after, actor=seat, audience=PUBLIC,
                        keep=keep)  # fmt: skip
        if p.tax_owed:  # A-RECK-4 [000:667] "If the tax cannot be paid by the time of Reckoning, the covenant must
            # accept a permanent tribute of 1 point owed to the lord."
            self._permanent_tribute(seat=seat, points=1, reason="Tax and Tithe unpaid", actor=SYSTEM, audience=PUBLIC)
        for card_id in starve:
            self._card_discarded(card_id=card_id, reason="unsupported at the Reckoning", actor=SYSTEM, audience=PUBLIC)
        self._turn_passed(seat=seat, phase="reckoning", acted=True, actor=seat, audience=PUBLIC)
        if not s.turn:
            self._end_season(seed)
        return {"made": made, "paid": need, "after": after}

    def default_starved(self, seat: str) -> list[str]:
        """A-RECK-1 at a silent Reckoning (H-9): the fewest cards, costliest upkeep first, whose starving lets the
        covenant support the rest (none if it can support everything)."""
        costly = sorted(self.covenant_cards(seat), key=lambda c: -self._upkeep(c))
        for n in range(len(costly) + 1):
            starve = [c.id for c in costly[:n]]
            _, need, have = self._tally(seat, starve)
            if all(need[k] <= have[k] for k in need):
                return starve
        return [c.id for c in costly]

    def _tally(self, seat: str, starve: list[str]) -> tuple[dict, dict, dict]:
        """A-RECK-1: this season's production, the upkeep of the cards not starved, and what the covenant has."""
        s = self.state
        cards = self.covenant_cards(seat)
        season = self.season_name
        made = {"provision": 0, "gold": 0, "vis": 0}
        need = {"provision": 0, "gold": 0, "vis": 0}
        mines = 2 if any(c.name == "Companion: Numismator, Alchemist" for c in cards) else 1
        for c in cards:
            d = self.house.cards.get(c.name)
            if d is None:
                continue
            if c.active and season in d.produces_in:
                made["provision"] += d.production.provision
                made["gold"] += d.production.gold * (mines if c.kind == "mine" else 1)
                made["vis"] += d.production.vis
            if c.id in starve:
                continue
            if season in d.upkeep_in:
                need["provision"] += d.upkeep.provision
                need["gold"] += d.upkeep.gold
                need["vis"] += d.upkeep.vis
            if season == "winter":
                need["gold"] += d.winter_upkeep.gold
                need["vis"] += d.winter_upkeep.vis
        if "Famine" in s.events_in_play:
            made["provision"] -= rules.famine_loss(made["provision"])
        p = s.powers[seat]
        provision = max(0, p.provision + made["provision"])  # what was converted ahead of a production lost since
        have = {"provision": provision, "gold": p.gold + made["gold"], "vis": p.vis + made["vis"]}
        return made, need, have

    @event("SupportAllocated")
    def _supported(
        self, seat: str, starved: list, made: dict, paid: dict, after: dict, actor: str, audience: list,
        keep: dict | None = None,
    ) -> None:  # fmt: skip
        p = self.state.powers[seat]
        p.provision, p.gold, p.vis = after["provision"], after["gold"], after["vis"]
        p.supported = True
        p.keep_unconverted = dict(keep or {})

    def _end_season(self, seed: str) -> None:
        s = self.state
        if "Wave of Bandits" in s.events_in_play and s.bandits:
            for seat in s.bandits.get("fought", []):  # [000:681] "if at the end of the season the battle was waged
                # the covenant has no active Grogs in play, the covenant loses all the gold it owns" (no Treasury
                # card is in the house package, so all of it)
                if not any(c.kind == "grogs" and c.active for c in self.covenant_cards(seat)) and s.powers[seat].gold:
                    self._bandits_looted(seat=seat, gold=s.powers[seat].gold, actor=SYSTEM, audience=PUBLIC)
            self._bandits_season_ended(discarded=s.bandits.get("damage", 0) >= BANDITS_MIGHT, actor=SYSTEM,
                                       audience=PUBLIC)  # fmt: skip
        inv = s.investigation
        if inv and inv.get("ends") is None and s.seasons_begun - inv["since"] >= 3:  # [000:767] "If, however, the
            # Investigation lasts a full year without all the mages being marked, the unmarked mages are discarded
            # (found guilty) along with this card."
            for c in [c for c in self.covenant_cards(inv["target"]) if c.kind == "mage"]:
                if c.id not in inv["investigated"]:
                    self._card_discarded(card_id=c.id, reason="found guilty by the Quaesitors", actor=SYSTEM,
                                         audience=PUBLIC)  # fmt: skip
            self._investigation_ended(outcome="guilty", actor=SYSTEM, audience=PUBLIC)
        if "Plague" in s.events_in_play:  # [000:671] "At the end of each season ... add a counter to it."
            self._plague_counter(counters=s.plague.get("counters", 0) + 1, actor=SYSTEM, audience=PUBLIC)
        for c in list(s.cards.values()):  # A-DMG-2 [000:125] "Items are discarded at the end of any season when
            # they sustained damage" (no repair is in the house package)
            d = self.house.cards.get(c.name)
            if d is not None and not d.animate and not d.structure and c.new_damage and c.damage:
                self._card_discarded(card_id=c.id, reason="an item damaged this season", actor=SYSTEM, audience=PUBLIC)
        for c in list(s.cards.values()):  # A-DMG-4 then A-DMG-1: heal, then winter discards inactive beings
            d = self.house.cards.get(c.name)
            if d is None or not d.animate or d.might_type not in (None, "mundane"):
                continue
            healed = rules.passive_heal(c.damage, c.inactive_all_season and not c.active, c.new_damage)
            if healed != c.damage:
                self._card_healed(card_id=c.id, damage=healed, actor=SYSTEM, audience=PUBLIC)
        if self.season_name == "winter":
            for c in list(s.cards.values()):
                d = self.house.cards.get(c.name)
                if d is not None and d.animate and d.might_type in (None, "mundane") and not c.active and c.owner:
                    self._card_discarded(card_id=c.id, reason="inactive at the end of Winter", actor=SYSTEM,
                                         audience=PUBLIC)  # fmt: skip
        for c in list(s.cards.values()):  # A-SPELL-9: study counters
            if c.counters:
                self._counter_removed(card_id=c.id, actor=SYSTEM, audience=PUBLIC)
                if not c.counters and (c.spells or c.arts):  # [000:437] "discard this Book and attach the Spell to
                    # the Mage"; [000:433] an Art: "When the last counter is removed, this card is discarded"
                    reason = "its spell is learnt" if c.spells else "its Art is learnt"
                    self._card_discarded(card_id=c.id, reason=reason, actor=SYSTEM, audience=PUBLIC)
        self._seed_revealed(seed=s.seed or "", commitment=s.seed_commitment or "", season=s.seasons_begun, month=0,
                            actor=SYSTEM, audience=PUBLIC)  # fmt: skip
        if self.season_name == "winter":
            self._yearly_reckoning()
            if s.winners:
                return
        self._season_ended(actor=SYSTEM, audience=PUBLIC)
        self._commit_seed(seed, s.seasons_begun + 1, 0)
        self._begin_season()

    @event("CardHealed")
    def _card_healed(self, card_id: str, damage: int, actor: str, audience: list) -> None:
        c = self.state.cards[card_id]
        c.damage = damage
        if damage == 0:
            c.active = True  # A-DMG-1: healed fully, active again

    @event("StudyCounterRemoved")
    def _counter_removed(self, card_id: str, actor: str, audience: list) -> None:
        s = self.state
        c = s.cards[card_id]
        c.counters -= 1
        if c.counters == 0 and c.attached_to in s.cards and c.arts:
            mage = s.cards[c.attached_to]
            mage.arts = sorted(set(mage.arts) | set(c.arts))
        if c.counters == 0 and c.attached_to in s.cards and c.spells:  # [000:437] "attach the Spell to the Mage"
            mage = s.cards[c.attached_to]
            mage.spells = [*mage.spells, *(x for x in c.spells if x not in mage.spells)]

    @event("SeasonEnded")
    def _season_ended(self, actor: str, audience: list) -> None:
        s = self.state
        if s.season != 3:
            for p in s.powers.values():  # A-RECK-2: provisions do not carry over
                p.provision = 0
        s.season = (s.season + 1) % 4
        if s.season == 0:
            s.year += 1
        _expire(s, lambda e: e.get("until") is not None and e["until"] <= s.seasons_begun)
        kept = []
        for name in s.events_in_play:  # an event stays for the seasons its text gives it (A-EVT-4)
            last = s.event_until.get(name, s.seasons_begun)
            ended = last is not None and last <= s.seasons_begun
            ended = ended or name in s.defeated or (name == "Wave of Bandits" and bool(s.bandits.get("discarded")))
            ended = ended or (name == "Armed Invasion" and bool(s.invasion.get("retreated")))
            ended = ended or (name == "Plague" and s.plague.get("counters", 0) >= PLAGUE_COUNTERS)
            if name == "Quaesitor Investigation" and s.investigation:
                ended = s.investigation.get("ends") is not None
            if ended:
                s.event_until.pop(name, None)
                if name == "Plague":
                    s.plague = {}
                if name == "Quaesitor Investigation":
                    s.investigation = {}  # the covenant rejoins the game as the next season begins
            else:
                kept.append(name)
        s.events_in_play = kept
        s.effects_applied = []
        s.defeated = []

    def _yearly_reckoning(self) -> None:
        """A-RECK-3..6 with A-AMB-9: the Winter surplus becomes points (converted gold and vis are spent);
        tribute comes off this year's points, then the score; 25 or more wins; else the lowest score starts."""
        s = self.state
        points, scores, spent = {}, {}, {}
        for seat in rules.clockwise(s.order, s.starting or s.order[0]):
            p = s.powers[seat]
            cursed = any(c["curse"] == 6 for c in self._curses(seat))
            gold, vis_ = p.gold - p.keep_unconverted.get("gold", 0), p.vis - p.keep_unconverted.get("vis", 0)
            points[seat] = rules.yearly_points(p.provision, gold, vis_, curse6=cursed)
            consumes = option(s.options, "yearly_conversion_consumes")  # A-AMB-9, a campaign flag
            spent[seat] = {"gold": gold // 2 * 2, "vis": vis_} if consumes else {"gold": 0, "vis": 0}
            if self.out_of_play(seat):  # [000:767] "the state of the covenant (and the player's score) does not
                points[seat], spent[seat] = 0, {"gold": 0, "vis": 0}  # change"
        scores = {seat: s.powers[seat].score for seat in s.order}
        gained: dict[str, int] = {seat: 0 for seat in s.order}
        for seat in s.order:
            owed = [] if self.out_of_play(seat) else s.powers[seat].tribute
            total = sum(t["points"] for t in owed)
            new, from_year, from_score = rules.apply_tribute(points[seat], scores[seat], total)
            scores[seat] = new
            paid = from_year + from_score
            for t in owed:
                take = min(t["points"], paid)
                paid -= take
                if t["to"] is not None:
                    gained[t["to"]] += take
        for seat, g in gained.items():
            scores[seat] += g
        surplus = None  # A-AMB-8's optional tiebreak: the surplus left unconverted, a pawn of vis worth 2 gold
        if option(s.options, "winner_tiebreak") == "unconverted_surplus":
            surplus = {
                k: s.powers[k].gold - spent[k]["gold"] + 2 * (s.powers[k].vis - spent[k]["vis"]) for k in s.order
            }
        won = rules.winners(scores, int(option(s.options, "target_score")), surplus=surplus)
        starting = s.starting or s.order[0]
        nxt = None if won else rules.next_starting_player(s.order, scores, starting)
        self._year_reckoned(points=points, scores=scores, spent=spent, winners=won, starting=nxt, actor=SYSTEM,
                            audience=PUBLIC)  # fmt: skip

    @event("YearReckoned")
    def _year_reckoned(
        self, points: dict, scores: dict, spent: dict, winners: list, starting: str | None, actor: str, audience: list
    ) -> None:
        s = self.state
        for seat, p in s.powers.items():
            p.score = scores[seat]
            p.provision = 0
            p.gold -= spent[seat]["gold"]
            p.vis -= spent[seat]["vis"]
            p.tribute = [t for t in p.tribute if t["permanent"]]
            p.keep_unconverted = {}
        s.winners = list(winners)
        if winners:
            s.phase, s.turn = "over", []
        elif starting is not None:
            s.starting = starting

    # ------------------------------------------------------------------ Events (A-EVT-1..4)

    def draw_event(self, seat: str, roller: Any, *, mouse: int = 0) -> dict:
        """A-EVT-1: the player on the Event square draws; an event it holds undecided (a released one, or the
        Quaesitor Investigation the marks created, H-13) is decided first, as before a pass. ``mouse``: the Mouse
        changes the event die by up to 2 (A-GEN-1 step 4, after the curse's lesser die)."""
        self._require_turn(seat, "events")
        pe = self.state.pending_event
        if pe is not None and pe["seat"] == seat:
            raise RuleViolation("play, hold or discard the event you drew first", rule="A-EVT-1")
        if self.state.held_events:  # [000:15] "If there is no Event currently on hold and if there is a player token
            # on the Events square, that player gains an Events card."
            raise RuleViolation("an event is on hold: nobody gains an Events card", rule="A-EVT-1")
        gen = self.house.event_generator
        mouse_card = self._mouse(seat, mouse) if mouse else None
        cursed = any(c["curse"] == 1 for c in self._curses(seat))  # A-GEN-1 step 1: every die the player rolls
        faces = self._roll(roller(self), seat, "event generation", 2 if cursed else 1, gen.die)
        face, _ = rules.modified_roll(faces, gen.die, cursed=cursed, mouse=mouse)
        name = gen.faces.get(face)
        result: dict[str, Any] = {"face": face, "event": name}
        if name is None or name in self.state.events_in_play or any(h["event"] == name for h in self.state.held_events):
            result["event"] = None  # A-AMB-21: an event in play is not drawn again
            self._event_drawn(seat=seat, event_name="", kind="", actor=seat, audience=PUBLIC, mouse_card=mouse_card)
            self._end_turn(seat, acted=True)
            return result
        e = self.house.events[name]
        self._event_drawn(seat=seat, event_name=name, kind=e.kind, actor=seat, audience=PUBLIC, mouse_card=mouse_card)
        if e.kind == "global":  # A-EVT-1: played if the season fits, else discarded (created first)
            if self.season_name in e.seasons:
                self._event_played(event_name=name, seat=seat, target=None, actor=seat, audience=PUBLIC)
                result["played"] = True
            else:
                result["played"] = False
            self._end_turn(seat, acted=True)
        return result

    @event("EventDrawn")
    def _event_drawn(
        self, seat: str, event_name: str, kind: str, actor: str, audience: list, mouse_card: str | None = None
    ) -> None:
        self.state.pending_event = {"seat": seat, "event": event_name} if kind == "directed" else None
        if event_name:  # A-AMB-21: an event in the discard pile "may be fetched" ([000:174]): it is not in it now
            self.state.discard = [x for x in self.state.discard if x["name"] != event_name]
        if mouse_card is not None:
            self.state.cards[mouse_card].cast_this_season.append("mouse")

    def decide_event(self, seat: str, choice: str, target: str | None = None, season: str | None = None) -> None:
        """H-5: play a directed event on a target, hold it for another season, or discard it (A-EVT-1/-2)."""
        pe = self.state.pending_event
        if pe is None or pe["seat"] != seat:
            raise RuleViolation("you hold no directed event to decide", rule="A-EVT-1")
        name = pe["event"]
        if pe.get("quaesitor"):
            marked = self.investigation_targets(seat)
            if not marked and choice == "discard":  # nobody is marked any more (the Tribunal unmarked them)
                self._event_held(event_name=name, seat=seat, season="", actor=seat, audience=PUBLIC)
                return
            if choice != "play" or target is None or target not in marked:
                raise RuleViolation(f"apply the Investigation to a marked covenant: {marked}", rule="A-AGG-1",
                                    field="target")  # fmt: skip
            self._investigated(seat=seat, target=target, actor=seat, audience=PUBLIC)
            if target == seat and self.state.phase == "events" and self.state.turn and self.state.turn[0] == seat:
                self._end_turn(seat, acted=True)  # out of play from now ([000:767]): no draw, its turn is over
            return
        if choice == "play":
            if name == "Quaesitor Investigation" and name in self.state.events_in_play:
                raise RuleViolation("a Quaesitor Investigation is in progress: discard this one", rule="A-AMB-19",
                                    field="choice")  # fmt: skip
            if target is None:
                raise RuleViolation("a directed event needs a target", rule="A-EVT-2", field="target")
            self.power(target)
            if name == "Riots" and self._town(target) is None:  # [000:776]
                raise RuleViolation("Riots target a covenant with a Town", rule="A-EVT-2", field="target")
            if name == "Clique of Thieves" and not self.state.powers[target].gold:  # [000:783]
                raise RuleViolation("a Clique of Thieves targets a covenant with gold", rule="A-EVT-2", field="target")
            if name == "Hedge Mage Attack" and not any(c.kind == "vis_source" for c in self.covenant_cards(target)):
                raise RuleViolation("a Hedge Mage Attack targets a covenant with a Vis Source in play",
                                    rule="A-EVT-2", field="target")  # fmt: skip
            if name == "Quaesitor Investigation" and not self.state.powers[target].damaged_another:
                raise RuleViolation(
                    "a drawn Quaesitor Investigation goes to a covenant that has perpetrated an act of aggression and "
                    "damaged another ([000:767])", rule="A-AMB-19", field="target",
                )  # fmt: skip
            active = sum(1 for e in self.state.effects if e.get("event") and e.get("target") == target)
            rules.check_directed(name, target, [tuple(x) for x in self.state.directed_history], active)
            if name == "Quaesitor Investigation":  # its Investigation begins, as a created one's does ([000:767])
                self._investigated(seat=seat, target=target, actor=seat, audience=PUBLIC)
            else:
                self._event_played(event_name=name, seat=seat, target=target, actor=seat, audience=PUBLIC)
        elif choice == "hold":
            if pe.get("season"):
                raise RuleViolation("a held event fires now: play it or discard it", rule="A-EVT-1", field="choice")
            if season not in rules.SEASONS or season == self.season_name:
                raise RuleViolation("hold a directed event for a different season", rule="A-EVT-1", field="season")
            self._event_held(event_name=name, seat=seat, season=season, actor=seat, audience=PUBLIC)
        elif choice == "discard":
            self._event_held(event_name=name, seat=seat, season="", actor=seat, audience=PUBLIC)
        else:
            raise RuleViolation("play, hold or discard", rule="A-EVT-1", field="choice")
        if self.state.released:
            self._release_next(actor=seat, audience=PUBLIC)
            nxt = self.state.pending_event
            if nxt is not None and nxt["seat"] == seat:
                return
        self._end_turn(seat, acted=True)

    def investigation_targets(self, seat: str) -> list[str]:
        """H-13, A-AMB-19: the covenants an auto-created Quaesitor Investigation may go to, the marked ones, clockwise
        from the deciding player's left, the player's own last. [000:100] creates the card only "while there are
        marked covenants"; if the Gathering of the Tribunal unmarked every one before the player decided, the
        list is empty and the card can only be discarded: nothing is left to investigate."""
        s = self.state
        after = rules.clockwise(s.order, seat)[1:] + [seat]
        return [p for p in after if s.powers[p].marked]

    @event("ReleasedEventDecided")
    def _release_next(self, actor: str, audience: list) -> None:
        s = self.state
        s.released = s.released[1:]
        s.pending_event = dict(s.released[0]) if s.released else None

    @event("QuaesitorInvestigationCreated")
    def _quaesitor_created(self, seat: str, actor: str, audience: list) -> None:
        self.state.pending_event = {"seat": seat, "event": "Quaesitor Investigation", "quaesitor": True}

    @event("HeldEventsReleased")
    def _held_released(self, events: list, actor: str, audience: list) -> None:
        s = self.state
        s.held_events = [h for h in s.held_events if h not in events]
        s.released = [dict(h) for h in events]
        s.pending_event = dict(s.released[0])

    @event("InvestigationApplied")
    def _investigated(self, seat: str, target: str, actor: str, audience: list) -> None:
        s = self.state
        s.powers[target].marked = False  # [000:100] "the target covenant is unmarked"
        s.events_in_play.append("Quaesitor Investigation")
        s.event_until["Quaesitor Investigation"] = None  # until the investigation ends
        s.investigation = {"target": target, "since": s.seasons_begun, "investigated": [], "ends": None}
        s.directed_history.append(["Quaesitor Investigation", target])
        s.pending_event = None

    @event("EventPlayed")
    def _event_played(self, event_name: str, seat: str, target: str | None, actor: str, audience: list) -> None:
        s = self.state
        s.events_in_play.append(event_name)
        s.pending_event = None
        if event_name == "Wave of Bandits":
            s.bandits = {"damage": 0, "answered": [], "fought": []}
        if event_name == "Armed Invasion":
            s.invasion = {"damage": 0}
        if event_name == "Plague":
            s.plague = {"counters": 0}
        ev = self.house.events.get(event_name)
        last: int | None = s.seasons_begun
        if ev is not None and ev.until_season:  # the end of the first such season, this one included
            last = s.seasons_begun + (rules.SEASONS.index(ev.until_season) - s.season) % 4
        elif ev is not None:
            last = None if ev.lasts_seasons is None else s.seasons_begun + ev.lasts_seasons - 1
        s.event_until[event_name] = last
        if target is not None:
            s.directed_history.append([event_name, target])
            until = s.seasons_begun + 1 if last is None or last < s.seasons_begun + 1 else last
            s.effects.append({"spell": event_name, "event": True, "target": target, "until": until})

    @event("EventHeld")
    def _event_held(self, event_name: str, seat: str, season: str, actor: str, audience: list) -> None:
        s = self.state
        s.pending_event = None
        if season:
            s.held_events.append({"event": event_name, "seat": seat, "season": season})
        else:
            s.discard.append({"id": f"event:{event_name}", "name": event_name})

    # ------------------------------------------------------------------ windows: a deadline on every turn (H-9)

    def sync_window(self, *, now: datetime) -> None:
        """After a command: the seat whose turn it is has an open window with a deadline; a window whose turn
        is over closes. A game played by post always says who is awaited, and until when."""
        s = self.state
        whose = s.turn[0] if s.turn and s.phase in TURN_PHASES else None
        kind = f"{s.phase}:{whose}:{s.seasons_begun}:{s.cycle}" if whose else None
        for w in list(s.windows.values()):
            if not w.closed and w.kind != kind:
                self._window_closed(window_id=w.id, reason="turn over", closed_at=now.isoformat(), actor=SYSTEM,
                                    audience=PUBLIC)  # fmt: skip
        if kind is not None and self.open_window(kind) is None:
            hours = float(option(s.options, "turn_hours"))
            self._window_opened(
                window_id=f"w{self.version + 1}", kind=kind, opened_at=now.isoformat(),
                closes_at=(now + timedelta(hours=hours)).isoformat(), actor=SYSTEM, audience=PUBLIC,
            )  # fmt: skip

    def close_window(
        self, window_id: str, *, now: datetime, reason: str = "deadline", force: bool = False, seed: str = ""
    ) -> bool:
        """The deadline of a turn passed (or the host closed it): silence counts as the default choice (H-9)."""
        w = self.state.windows.get(window_id)
        if w is None or w.closed:
            return False
        if not force and now < datetime.fromisoformat(w.final_closes_at):
            raise RuleViolation(f"this window closes at {w.final_closes_at}", rule="H-9", field="window_id")
        phase, seat, _, _ = w.kind.split(":")
        s = self.state
        self._window_closed(window_id=window_id, reason=reason, closed_at=now.isoformat(), actor=SYSTEM,
                            audience=PUBLIC)  # fmt: skip
        if s.phase == phase and s.turn and s.turn[0] == seat:
            self._silence(seat, phase, seed)
        self.sync_window(now=now)
        return True

    def _silence(self, seat: str, phase: str, seed: str) -> None:
        """What a seat's silence at its deadline does: the first legal move (moving is mandatory), a pass, the
        drawn event discarded, or support that starves what the covenant cannot pay for."""
        s = self.state
        if phase == "move":
            self.move(seat, self.legal_moves(seat)[0])
        elif phase == "events" and s.pending_event is not None and s.pending_event.get("quaesitor") \
                and s.pending_event["seat"] == seat:  # fmt: skip
            # H-13 has no "discard" while a covenant is marked ([000:100] "decides where to apply"): silence
            # applies the Investigation to the first marked covenant clockwise from the player's left (its own
            # last, so silence never turns the Quaesitors on the silent), or discards it if none is marked; then
            # the silent seat passes its Events turn (H-9).
            targets = self.investigation_targets(seat)
            self.decide_event(seat, "play" if targets else "discard", targets[0] if targets else None)
            if s.phase == "events" and s.turn and s.turn[0] == seat and s.pending_event is None:
                self._end_turn(seat, acted=False)
        elif phase == "events" and s.pending_event is not None and s.pending_event["seat"] == seat:
            self.decide_event(seat, "discard")
        elif phase in ("create", "events", "main"):
            self._end_turn(seat, acted=False)
        elif phase == "bandits":  # silence pays the bandits off if it can, else fights, capacity first
            if s.powers[seat].gold >= 1:
                self.face_bandits(seat, False, None)
            else:
                self.face_bandits(seat, True, self._default_allocation(seat, BANDITS_MIGHT))
        elif phase == "plague":  # silence: the first beings in card order
            want = min(s.plague.get("counters", 0), len(self._plague_victims(seat)))
            self.choose_plagued(seat, [c.id for c in self._plague_victims(seat)][:want])
        elif phase == "service":  # silence: no Courtly roll; the first active Grogs, else 3 gold if it has them
            active = [c.id for c in self.covenant_cards(seat) if c.kind == "grogs" and c.active]
            self._serve(seat, active[0] if active else None, s.powers[seat].gold >= SERVICE_TOLL, actor=SYSTEM)
        elif phase == "chaos":  # silence: no roll (a pass, H-9); a rival, the first clockwise; no gold paid
            ch = s.chaos
            if ch.get("answering") and ch["answering"]["rival"] == seat:
                self.avert_battle(seat, False)
            elif ch.get("choosing") == seat:
                self.choose_rival(seat, self._rivals(seat)[0])
            else:
                self._end_turn(seat, acted=False)
        elif phase == "battle" and s.deferred is not None:  # silence: the battle is fought, no agreement (A-EX-5)
            self.confirm_no_counter(seat, silent=True)
        elif phase == "battle":  # silence pays an enemy off if it can (as with the bandits), else fights
            bt = s.battle or {}
            toll = ENEMIES.get(bt.get("b", "")) if bt.get("a") == seat else None
            if toll is not None and getattr(s.powers[seat], toll[0]) >= toll[1]:
                self.allocate_damage(seat, {}, pay_off=True)
            else:
                self.allocate_damage(seat, self._default_allocation(seat, self.damage_to_allocate(seat)))
        elif phase == "hedge":  # silence gives up a Vis Source: the curse would need the seat's own roll
            source = next((c.id for c in self.covenant_cards(seat) if c.kind == "vis_source"), None)
            self._hedge_faced(seat=seat, curse=0, actor=SYSTEM, audience=PUBLIC)
            if source is not None:  # none left: nothing is claimed (``_hedge_claims``)
                self._card_discarded(card_id=source, reason="given up to the Hedge Mage", actor=SYSTEM,
                                     audience=PUBLIC)  # fmt: skip
            self._end_turn(seat, acted=False)
        elif phase == "certamen":
            for ch in [c for c in s.challenges.values() if self.resolver(c) == seat]:
                self._certamen_resolved(challenge_id=ch["id"], result={"winner": None, "cancelled": True},
                                        bids={}, actor=SYSTEM, audience=PUBLIC)  # fmt: skip
            self._end_turn(seat, acted=False)
        elif phase == "reckoning":
            if not seed:  # the season may end here: its next seed must be fresh and secret
                raise RuntimeError("closing a Reckoning turn needs fresh entropy for the next seed")
            self.support(seat, self.default_starved(seat), seed=seed)

    def _upkeep(self, c: Card) -> int:
        d = self.house.cards.get(c.name)
        return (d.upkeep.provision + d.upkeep.gold + d.upkeep.vis) if d else 0

    def declare_ready(self, power_id: str, *, now: datetime) -> None:
        """A seat says it has done all it will for now (the platform's readiness)."""
        self.power(power_id)
        self._ready_declared(power_id=power_id, actor=power_id, audience=PUBLIC)

    def expect_step(self, expected: str | None) -> None:
        """Refuse a command sent for a phase the game has left (a burst of the same click moves it once)."""
        if expected is not None and expected != self.state.phase:
            raise Conflict(
                f"this command was sent for the {expected} phase, but the game is at {self.state.phase}",
                field="expected_step",
            )

    # ------------------------------------------------------------------ rollback

    def carried_over(self, restored: Any, now: datetime) -> dict:
        carried = super().carried_over(restored, now)
        carried["next_roll"] = self.state.next_roll
        return carried

    def _merge_carried(self, merged: Any, carried: dict) -> Any:
        merged = super()._merge_carried(merged, carried)
        # A rollback never reuses a roll number: a roll after it is a new roll, not a silent reroll.
        merged.next_roll = max(merged.next_roll, carried.get("next_roll", 0))
        return merged


def check_taken(damage: int, capacities: dict[str, int], allocation: dict[str, int]) -> None:
    """A-BAT-1 [000:139] "all cards with the Mundane Might attribute are subject to damage": a covenant with such
    beings assigns all the damage among them, capacity first; a covenant with none has nothing the damage can land
    on, and takes none (its allocation is empty). The rules name no other target, and a covenant that may not pay
    an enemy off (no vis for the Army of Skeletons [000:733]) must still be able to answer its battle."""
    if capacities:
        rules.check_allocation(damage, capacities, allocation)
    elif any(allocation.values()):
        raise RuleViolation("you have no beings of Mundane Might to take damage", rule="A-BAT-1", field="allocation")


def _expire(s: CovenantState, ended: Any) -> None:
    """Drop the effects that ended; a changed substance returns to what it was (A-SPELL-3)."""
    for e in [e for e in s.effects if ended(e)]:
        if "was" in e and e["target"] in s.cards:
            s.cards[e["target"]].substance = e["was"]
    s.effects = [e for e in s.effects if not ended(e)]


__all__ = ["CovenantGame", "bid_commitment", "commitment"]
