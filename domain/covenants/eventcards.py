"""Event cards (A-EVT-1..4, A-AGG-1, A-AMB-19): drawing one, playing, holding or discarding it, the held events
released, and the events that act at the beginning of the Main Phase."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from domain.covenants import battle, cards, rules, track
from domain.covenants.base import MAIN_EFFECTS, PUBLIC, CovenantEvent, house_of
from domain.covenants.errors import RuleViolation
from domain.covenants.state import CovenantState, HeldEvent, PendingEvent
from domain.dice import Roller
from domain.ids import SYSTEM

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def main_effects(game: CovenantGame) -> None:
    """The events that act "at the beginning of the Main Phase" of the season they were played (A.1.4: the
    first Main Phase after the event): Clique of Thieves takes half the target's gold, rounded down
    ([000:784]; the house package has no Treasury to keep gold in); the house events Redcap's Tidings (every
    covenant +1 gold), Lost Apprentice (the target -1 vis) and Wizard's March (the target's mage with the
    most Arts inactive until the next season)."""
    s = game.state
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
                mages = [c for c in game.covenant_cards(seat) if c.kind == "mage" and c.active]
                if mages:
                    mage = max(mages, key=lambda c: (len(c.arts), c.id))
                    inactive[mage.id] = rules.SEASONS[(s.season + 1) % 4]
        game.trigger_event(
            game.EventTookEffect, event_name=name, resources=resources, inactive=inactive, actor=SYSTEM, audience=PUBLIC
        )


class EventTookEffect(CovenantEvent):
    event_name: str
    resources: dict[str, dict[str, int]]  # seat -> store -> its change
    inactive: dict[str, str]  # card id -> the season it is active again
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.effects_applied.append(self.event_name)
        for seat, changes in self.resources.items():
            for what, delta in changes.items():
                setattr(s.powers[seat], what, getattr(s.powers[seat], what) + delta)
        for card_id, until in self.inactive.items():
            s.cards[card_id].active, s.cards[card_id].inactive_until = False, until


def draw_event(
    game: CovenantGame, seat: str, roller: Callable[[CovenantGame], Roller], *, mouse: int = 0
) -> dict[str, Any]:
    """A-EVT-1: the player on the Event square draws; an event it holds undecided (a released one, or the
    Quaesitor Investigation the marks created, H-13) is decided first, as before a pass. ``mouse``: the Mouse
    changes the event die by up to 2 (A-GEN-1 step 4, after the curse's lesser die)."""
    game.require_turn(seat, "events")
    pe = game.state.pending_event
    if pe is not None and pe["seat"] == seat:
        raise RuleViolation("play, hold or discard the event you drew first", rule="A-EVT-1")
    if game.state.held_events:  # [000:15] "If there is no Event currently on hold and if there is a player token
        # on the Events square, that player gains an Events card."
        raise RuleViolation("an event is on hold: nobody gains an Events card", rule="A-EVT-1")
    gen = game.house.event_generator
    mouse_card = cards.the_mouse(game, seat, mouse) if mouse else None
    cursed = any(c["curse"] == 1 for c in cards.curses(game, seat))  # A-GEN-1 step 1: every die the player rolls
    faces = game.roll(roller(game), seat, "event generation", 2 if cursed else 1, gen.die)
    face, _ = rules.modified_roll(faces, gen.die, cursed=cursed, mouse=mouse)
    name = gen.faces.get(face)
    result: dict[str, Any] = {"face": face, "event": name}
    if name is None or name in game.state.events_in_play or any(h["event"] == name for h in game.state.held_events):
        result["event"] = None  # A-AMB-21: an event in play is not drawn again
        game.trigger_event(
            game.EventDrawn, seat=seat, event_name="", kind="", actor=seat, audience=PUBLIC, mouse_card=mouse_card
        )
        track.end_turn(game, seat, acted=True)
        return result
    e = game.house.events[name]
    game.trigger_event(
        game.EventDrawn, seat=seat, event_name=name, kind=e.kind, actor=seat, audience=PUBLIC, mouse_card=mouse_card
    )
    if e.kind == "global":  # A-EVT-1: played if the season fits, else discarded (created first)
        if game.season_name in e.seasons:
            game.trigger_event(game.EventPlayed, event_name=name, seat=seat, target=None, actor=seat, audience=PUBLIC)
            result["played"] = True
        else:
            result["played"] = False
        track.end_turn(game, seat, acted=True)
    return result


class EventDrawn(CovenantEvent):
    seat: str
    event_name: str
    kind: str
    actor: str
    audience: list[str]
    mouse_card: str | None = None

    def evolve(self, s: CovenantState) -> None:
        s.pending_event = {"seat": self.seat, "event": self.event_name} if self.kind == "directed" else None
        if self.event_name:  # A-AMB-21: an event in the discard pile "may be fetched" ([000:174]): it is not in it now
            s.discard = [x for x in s.discard if x["name"] != self.event_name]
        if self.mouse_card is not None:
            s.cards[self.mouse_card].cast_this_season.append("mouse")


def decide_event(
    game: CovenantGame, seat: str, choice: str, target: str | None = None, season: str | None = None
) -> None:
    """H-5: play a directed event on a target, hold it for another season, or discard it (A-EVT-1/-2)."""
    pe = game.state.pending_event
    if pe is None or pe["seat"] != seat:
        raise RuleViolation("you hold no directed event to decide", rule="A-EVT-1")
    name = pe["event"]
    if pe.get("quaesitor"):
        marked = investigation_targets(game, seat)
        if not marked and choice == "discard":  # nobody is marked any more (the Tribunal unmarked them)
            game.trigger_event(game.EventHeld, event_name=name, seat=seat, season="", actor=seat, audience=PUBLIC)
            return
        if choice != "play" or target is None or target not in marked:
            raise RuleViolation(
                f"apply the Investigation to a marked covenant: {marked}", rule="A-AGG-1", field="target"
            )
        game.trigger_event(game.InvestigationApplied, seat=seat, target=target, actor=seat, audience=PUBLIC)
        if target == seat and game.state.phase == "events" and game.state.turn and game.state.turn[0] == seat:
            track.end_turn(game, seat, acted=True)  # out of play from now ([000:767]): no draw, its turn is over
        return
    if choice == "play":
        if name == "Quaesitor Investigation" and name in game.state.events_in_play:
            raise RuleViolation(
                "a Quaesitor Investigation is in progress: discard this one", rule="A-AMB-19", field="choice"
            )
        if target is None:
            raise RuleViolation("a directed event needs a target", rule="A-EVT-2", field="target")
        game.power(target)
        if name == "Riots" and battle.town_of(game, target) is None:  # [000:776]
            raise RuleViolation("Riots target a covenant with a Town", rule="A-EVT-2", field="target")
        if name == "Clique of Thieves" and not game.state.powers[target].gold:  # [000:783]
            raise RuleViolation("a Clique of Thieves targets a covenant with gold", rule="A-EVT-2", field="target")
        if name == "Hedge Mage Attack" and not any(c.kind == "vis_source" for c in game.covenant_cards(target)):
            raise RuleViolation(
                "a Hedge Mage Attack targets a covenant with a Vis Source in play", rule="A-EVT-2", field="target"
            )
        if name == "Quaesitor Investigation" and not game.state.powers[target].damaged_another:
            raise RuleViolation(
                "a drawn Quaesitor Investigation goes to a covenant that has perpetrated an act of aggression and "
                "damaged another ([000:767])",
                rule="A-AMB-19",
                field="target",
            )
        active = sum(1 for e in game.state.effects if e.get("event") and e.get("target") == target)
        rules.check_directed(name, target, [(x[0], x[1]) for x in game.state.directed_history], active)
        if name == "Quaesitor Investigation":  # its Investigation begins, as a created one's does ([000:767])
            game.trigger_event(game.InvestigationApplied, seat=seat, target=target, actor=seat, audience=PUBLIC)
        else:
            game.trigger_event(game.EventPlayed, event_name=name, seat=seat, target=target, actor=seat, audience=PUBLIC)
    elif choice == "hold":
        if pe.get("season"):
            raise RuleViolation("a held event fires now: play it or discard it", rule="A-EVT-1", field="choice")
        if season not in rules.SEASONS or season == game.season_name:
            raise RuleViolation("hold a directed event for a different season", rule="A-EVT-1", field="season")
        game.trigger_event(game.EventHeld, event_name=name, seat=seat, season=season, actor=seat, audience=PUBLIC)
    elif choice == "discard":
        game.trigger_event(game.EventHeld, event_name=name, seat=seat, season="", actor=seat, audience=PUBLIC)
    else:
        raise RuleViolation("play, hold or discard", rule="A-EVT-1", field="choice")
    if game.state.released:
        game.trigger_event(game.ReleasedEventDecided, actor=seat, audience=PUBLIC)
        nxt = game.state.pending_event
        if nxt is not None and nxt["seat"] == seat:
            return
    track.end_turn(game, seat, acted=True)


def investigation_targets(game: CovenantGame, seat: str) -> list[str]:
    """H-13, A-AMB-19: the covenants an auto-created Quaesitor Investigation may go to, the marked ones, clockwise
    from the deciding player's left, the player's own last. [000:100] creates the card only "while there are
    marked covenants"; if the Gathering of the Tribunal unmarked every one before the player decided, the
    list is empty and the card can only be discarded: nothing is left to investigate."""
    s = game.state
    after = rules.clockwise(s.order, seat)[1:] + [seat]
    return [p for p in after if s.powers[p].marked]


def _pending(h: HeldEvent) -> PendingEvent:
    """A released event, now its holder's to decide."""
    return {"event": h["event"], "seat": h["seat"], "season": h["season"]}


class ReleasedEventDecided(CovenantEvent):
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.released = s.released[1:]
        s.pending_event = _pending(s.released[0]) if s.released else None


class QuaesitorInvestigationCreated(CovenantEvent):
    seat: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.pending_event = {"seat": self.seat, "event": "Quaesitor Investigation", "quaesitor": True}


class HeldEventsReleased(CovenantEvent):
    events: list[HeldEvent]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.held_events = [h for h in s.held_events if h not in self.events]
        s.released = [h.copy() for h in self.events]
        s.pending_event = _pending(s.released[0])


class InvestigationApplied(CovenantEvent):
    seat: str
    target: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.powers[self.target].marked = False  # [000:100] "the target covenant is unmarked"
        s.events_in_play.append("Quaesitor Investigation")
        s.event_until["Quaesitor Investigation"] = None  # until the investigation ends
        s.investigation = {"target": self.target, "since": s.seasons_begun, "investigated": [], "ends": None}
        s.directed_history.append(["Quaesitor Investigation", self.target])
        s.pending_event = None


class EventPlayed(CovenantEvent):
    event_name: str
    seat: str
    target: str | None
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.events_in_play.append(self.event_name)
        s.pending_event = None
        if self.event_name == "Wave of Bandits":
            s.bandits = {"damage": 0, "answered": [], "fought": []}
        if self.event_name == "Armed Invasion":
            s.invasion = {"damage": 0}
        if self.event_name == "Plague":
            s.plague = {"counters": 0}
        ev = house_of(s).events.get(self.event_name)
        last: int | None = s.seasons_begun
        if ev is not None and ev.until_season:  # the end of the first such season, this one included
            last = s.seasons_begun + (rules.SEASONS.index(ev.until_season) - s.season) % 4
        elif ev is not None:
            last = None if ev.lasts_seasons is None else s.seasons_begun + ev.lasts_seasons - 1
        s.event_until[self.event_name] = last
        if self.target is not None:
            s.directed_history.append([self.event_name, self.target])
            until = s.seasons_begun + 1 if last is None or last < s.seasons_begun + 1 else last
            s.effects.append({"spell": self.event_name, "event": True, "target": self.target, "until": until})


class EventHeld(CovenantEvent):
    event_name: str
    seat: str
    season: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.pending_event = None
        if self.season:
            s.held_events.append({"event": self.event_name, "seat": self.seat, "season": self.season})
        else:
            s.discard.append({"id": f"event:{self.event_name}", "name": self.event_name})
