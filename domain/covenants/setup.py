"""Setting the table (A-ORDER-2, A-GEN-4, H-1): covenants join, the starting player is drawn with the committed
dice, and the starting cards are dealt."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from domain.covenants import rules, track
from domain.covenants.base import PUBLIC, CovenantEvent, house_of
from domain.covenants.errors import RuleViolation
from domain.covenants.house import FORMS, STARTING_CARDS, STARTING_MAGE, TECHNIQUES
from domain.covenants.options import option
from domain.covenants.state import Card, CovenantSeat, CovenantState
from domain.dice import Roller
from domain.ids import SYSTEM
from domain.platform.roles import HOST
from domain.platform.seating import reserved

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def add_covenant(
    game: CovenantGame,
    seat_id: str,
    name: str,
    covenant: str,
    *,
    host: bool,
    arts: list[str],
    actor: str,
    score: int = 0,
) -> None:
    s = game.state
    if s.phase != "setup":
        raise RuleViolation("covenants join before the game begins", rule="A-ORDER-2", field="seat_id")
    if seat_id in s.powers or reserved(seat_id):
        raise RuleViolation(f"the seat {seat_id!r} is taken", field="seat_id")
    if len(s.powers) >= 4:
        raise RuleViolation("the game is for two to four players", rule="A-ORDER-2", field="seat_id")
    if host and game.hosts():
        raise RuleViolation("this table already has a host", field="host")
    bad = [a for a in arts if a not in TECHNIQUES + FORMS]
    if arts and (bad or len(set(arts)) != 5):
        raise RuleViolation("a starting mage has five different Arts ([000:4])", rule="A-GEN-4", field="arts")
    target = int(option(s.options, "target_score"))
    if not 0 <= score < target:  # the host's ruling (H-14); a score that has won already ends nothing (A-RECK-5)
        raise RuleViolation(f"a covenant begins with 0 to {target - 1} points", rule="A-RECK-5", field="score")
    game.trigger_event(
        game.CovenantAdded,
        seat_id=seat_id,
        name=name,
        covenant=covenant,
        roles=[HOST] if host else [],
        arts=list(arts),
        actor=actor,
        audience=PUBLIC,
        score=score,
    )


class CovenantAdded(CovenantEvent):
    seat_id: str
    name: str
    covenant: str
    roles: list[str]
    arts: list[str]
    actor: str
    audience: list[str]
    score: int = 0

    def evolve(self, s: CovenantState) -> None:
        s.powers[self.seat_id] = CovenantSeat(
            id=self.seat_id,
            name=self.name,
            covenant=self.covenant,
            roles=list(self.roles),
            arts=list(self.arts),
            score=self.score,
        )
        s.order.append(self.seat_id)


def begin(game: CovenantGame, *, seed: str, roller: Callable[[CovenantGame], Roller], actor: str) -> None:
    """A-ORDER-2 / H-1: draw the starting player with the committed dice; deal the starting cards ([000:4])."""
    s = game.state
    if s.phase != "setup":
        raise RuleViolation("the game has begun", rule="A-ORDER-2")
    players = int(s.options.get("players", 0)) or len(s.powers)
    if not 2 <= len(s.powers) <= 4 or len(s.powers) != players:
        raise RuleViolation(
            f"the game begins with its {players} covenants ({len(s.powers)} have joined)", rule="A-ORDER-2"
        )
    game._commit_seed(seed, "s1")
    dice = roller(game)
    face = game.roll(dice, None, "starting player", 1, len(s.order))[0]
    starting = s.order[face - 1]
    game.trigger_event(game.GameBegun, starting=starting, actor=actor, audience=PUBLIC)
    for seat in rules.clockwise(s.order, starting):
        arts = list(s.powers[seat].arts)
        if not arts:
            arts = _random_arts(game, dice, seat)
        new_card(game, seat, STARTING_MAGE, arts=arts, source="setup")
        for name in STARTING_CARDS:
            new_card(game, seat, name, source="setup")
    track.begin_season(game)


def _random_arts(game: CovenantGame, dice: Roller, seat: str) -> list[str]:
    """A-GEN-4: roll d6 for two Techniques and d20 for three Forms, rerolling as the text says."""
    tech: list[str] = []
    while len(tech) < 2:
        face = game.roll(dice, seat, "starting mage Technique", 1, 6)[0]
        t, _, _, _ = rules.random_arts([face], [], TECHNIQUES, FORMS)
        if t and t[0] not in tech:
            tech.append(t[0])
    form: list[str] = []
    while len(form) < 3:
        face = game.roll(dice, seat, "starting mage Form", 1, 20)[0]
        _, f, _, _ = rules.random_arts([], [face], TECHNIQUES, FORMS)
        if f[0] not in form:
            form.append(f[0])
    return tech + form


class GameBegun(CovenantEvent):
    starting: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.starting = self.starting


def new_card(
    game: CovenantGame,
    seat: str | None,
    name: str,
    *,
    arts: list[str] | None = None,
    source: str,
    pending: bool = False,
) -> str:
    card_id = f"c{game.state.next_card}"
    game.trigger_event(
        game.CardCreated,
        card_id=card_id,
        name=name,
        owner=seat,
        arts=list(arts or []),
        pending=pending,
        source=source,
        actor=SYSTEM,
        audience=PUBLIC,
    )
    return card_id


class CardCreated(CovenantEvent):
    card_id: str
    name: str
    owner: str | None
    arts: list[str]
    pending: bool
    source: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        d = house_of(s).cards[self.name] if self.name in house_of(s).cards else None
        if d is not None and d.unique:  # A-EX-1 [000:174] a unique card discarded "may be fetched from the discard
            s.discard = [x for x in s.discard if x["name"] != self.name]  # pile": it is not in it now
        s.cards[self.card_id] = Card(
            id=self.card_id,
            name=self.name,
            owner=self.owner,
            kind=d.kind if d else "event",
            pending=self.pending,
            substance=d.substance if d else "",
            arts=list(self.arts or (d.arts if d else [])),
        )
        s.next_card += 1
