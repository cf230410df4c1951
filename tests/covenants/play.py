"""Scripted covenant games for tests: seat three covenants, begin, and play through the service."""

from __future__ import annotations

from dataclasses import dataclass, field

from application.service import Caller, Games
from domain.covenants.commands import (
    AddCovenant,
    BeginGame,
    Challenge,
    ChooseArt,
    Discard,
    Generate,
    Keep,
    Move,
    Pass,
    SealBid,
    Support,
)
from domain.dice import FixedRoller
from domain.errors import RuleViolation

ARTS = {
    "ann": ["Cr", "In", "Co", "Im", "Vi"],
    "bob": ["Pe", "Im", "Vi", "Re", "Mu"],
    "cy": ["Re", "Mu", "An", "Aq", "Te"],
}


@dataclass
class Table:
    games: Games
    game_id: str
    seats: list[str]
    notes: dict = field(default_factory=dict)

    def view(self, viewer: str) -> dict:
        return self.games.view(self.game_id, viewer)

    def run(self, seat: str, command: object) -> dict:
        return self.games.run(Caller.of(seat), self.game_id, command).result  # type: ignore[arg-type]

    def turn(self) -> list[str]:
        return self.view("gm")["game"]["turn"]

    def phase(self) -> str:
        return self.view("gm")["game"]["phase"]

    def mage(self, seat: str) -> str:
        """The seat's starting mage, by name: whatever else the dice gave it (a Sempiris, a Lamaria)."""
        cards = self.view("gm")["covenants"][seat]["cards"]
        return next(c["id"] for c in cards if c["kind"] == "mage" and c["name"] == "Starting Mage")


def seat_three(games: Games, arts: dict | None = None, options: dict | None = None) -> Table:
    arts = {**ARTS, **(arts or {})}
    game_id, _, _ = games.create_game("Tribunal", ruleset="covenants", options={"players": 3, **(options or {})})
    games.run_many(
        Caller.of("gm"),
        game_id,
        [
            AddCovenant("ann", "Ann", "Fengheld", host=True, arts=arts["ann"]),
            AddCovenant("bob", "Bob", "Crintera", arts=arts["bob"]),
            AddCovenant("cy", "Cy", "Valnastium", arts=arts["cy"]),
        ],
    )
    games.run(Caller.of("gm"), game_id, BeginGame())
    return Table(games, game_id, ["ann", "bob", "cy"])


def move_all(t: Table, squares: list[int]) -> None:
    for seat, square in zip(list(t.turn()), squares):
        t.run(seat, Move(seat, square))


def create_all(t: Table) -> None:
    """Each seat at turn generates its card and keeps it if it can, else discards it."""
    while t.phase() == "create":
        seat = t.turn()[0]
        card = t.run(seat, Generate(seat))["card_id"]
        if card is None:
            continue
        try:
            t.run(seat, Keep(seat, card))
        except RuleViolation:
            t.run(seat, Discard(seat, card))


def pass_main(t: Table) -> None:
    while t.phase() == "main":
        seat = t.turn()[0]
        t.run(seat, Pass(seat))


def create_and_discard(t: Table) -> None:
    """Each seat at turn generates its card and discards it: whatever the dice make, the table stays the same
    (the cards go face down, a secret the contract's no-leak test checks) and nothing depends on their kinds."""
    while t.phase() == "create":
        seat = t.turn()[0]
        card = t.run(seat, Generate(seat))["card_id"]
        if card is not None:
            t.run(seat, Discard(seat, card))


def play_to_a_sealed_bid(games: Games) -> Table:
    """A first cycle, then Ann challenges Bob; in the Resolve Certamen phase only Ann's bid is sealed. The dice
    are the service's own (the contract verifies every export), so nothing here depends on what they show:
    generated cards are discarded and each mage is named."""
    t = seat_three(games)
    move_all(t, [1, 3, 5])
    create_and_discard(t)
    assert t.phase() == "main"
    while t.turn()[0] != "ann":
        t.run(t.turn()[0], Pass(t.turn()[0]))
    challenge = t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))["challenge_id"]
    pass_main(t)
    assert t.phase() == "certamen"
    t.run("ann", ChooseArt("ann", challenge, "Cr"))
    t.run("bob", ChooseArt("bob", challenge, "Vi"))
    t.run("ann", SealBid("ann", challenge, 2))
    mine = next(c for c in t.view("ann")["challenges"] if c["id"] == challenge)
    t.notes.update(challenge=challenge, ann_nonce=mine["my_bid"]["nonce"])
    return t


class Dice(FixedRoller):
    """Explicit dice for worked examples: tests push each roll's faces before the command that rolls them."""

    def push(self, *rolls: list[int]) -> Dice:
        self.rolls.extend(list(r) for r in rolls)
        return self


def fixed_three(
    dice: Dice, starting_face: int = 1, arts: dict | None = None, options: dict | None = None,
    games: Games | None = None,
) -> Table:  # fmt: skip
    """Three covenants whose dice come from ``dice``; the starting-player draw shows ``starting_face`` (of d3).
    ``games``: a service of the test's own (a web app's), whose dice then come from ``dice`` too."""
    if games is None:
        games = Games(roller_factory=lambda game: dice)
    else:
        games.roller_factory = lambda game: dice
    dice.rolls.insert(0, [starting_face])  # the draw comes first, whatever the test pushed for later
    return seat_three(games, arts, options)


def generate_and_keep(t: Table, dice: Dice, faces: dict[str, int | None]) -> dict[str, str]:
    """Create/Play: each seat in turn rolls the face given (None: passes) and keeps the card."""
    kept = {}
    while t.phase() == "create":
        seat = t.turn()[0]
        face = faces.get(seat)
        if face is None:
            t.run(seat, Pass(seat))
            continue
        dice.push([face])
        card = t.run(seat, Generate(seat))["card_id"]
        t.run(seat, Keep(seat, card))
        kept[seat] = card
    return kept


def pass_until(t: Table, seat: str) -> None:
    """Main: the others pass until it is ``seat``'s turn."""
    while t.turn()[0] != seat:
        t.run(t.turn()[0], Pass(t.turn()[0]))


def events_of(t: Table) -> int:
    return t.games.recorder.max_notification_id() or 0


def pass_create(t: Table) -> None:
    while t.phase() == "create":
        seat = t.turn()[0]
        t.run(seat, Pass(seat))


def reckon(t: Table, starve: dict | None = None) -> None:
    while t.phase() == "reckoning":
        seat = t.turn()[0]
        t.run(seat, Support(seat, list((starve or {}).get(seat, []))))


def skip_season(t: Table, squares: tuple[int, int, int] = (1, 2, 3)) -> None:
    """A quiet season: everyone moves, passes Create/Play and Main; the first to move next goes to End."""
    move_all(t, list(squares))
    pass_create(t)
    pass_main(t)
    while t.phase() == "events":
        seat = t.turn()[0]
        t.run(seat, Pass(seat))
    assert t.phase() == "move", t.phase()
    seat = t.turn()[0]
    t.run(seat, Move(seat, 10))
    reckon(t)
