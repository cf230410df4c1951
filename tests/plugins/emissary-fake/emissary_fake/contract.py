"""How the contract suite plays the table (its entry point in the group ``emissary.contract``; the suite reads it in
``tests/contract/drivers.py`` and ``tests/contract/test_liveness.py``). ``as_`` is the service's caller of a
principal (``Caller.of``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.platform.commands import MakePost
from emissary_fake.ruleset import Join, Post

# ---------------------------------------------------------------------- a short game (test_contract, verify)

ROLLBACK_PHASE = "join-bob"
FORK_PHASE = "join-bob"
EARLIER_PHASES = ("join-bob",)  # phases up to and including FORK_PHASE


def play(games: Any, as_: Callable[[str], Any]) -> tuple[str, list[str]]:
    """Two seats join and post, one rolls the platform's dice; returns the game and its viewers."""
    game_id, _, _ = games.create_game("Tea", ruleset="table")
    games.run_many(as_("gm"), game_id, [Join("ann", "Ann"), Join("bob", "Bob")])
    for seat, text in (("ann", "hello"), ("bob", "hi"), ("ann", "bye")):
        games.run(as_(seat), game_id, Post(seat, text))
    games.run(as_("bob"), game_id, MakePost("desk-bob", "dice [roll 2d6] [roll 1d20]"))  # the platform's dice
    return game_id, ["gm", "ann", "bob"]


def refused(games: Any, game_id: str, as_: Callable[[str], Any]) -> None:
    games.run(as_("gm"), game_id, Post("cy", "may I?"))  # cy has not joined (TABLE-1)


def comparable(view: dict, viewer: str) -> dict:
    return {k: v for k, v in view.items() if k != "at"}  # a rollback changes nothing else the table shows


def hidden(viewers: list[str]) -> dict[str, list[str]]:
    return {v: [] for v in viewers}  # the table hides nothing but credentials


# ---------------------------------------------------------------------- seeded random play (test_liveness)

GAMES, TURNS = 3, 30  # seeds played, and the turn cap of each (its rounds' deadlines pass: the silent seat)


def setup(games: Any, as_: Callable[[str], Any]) -> tuple[str, list[str]]:
    game_id, _, _ = games.create_game("Random table", ruleset="table")
    return game_id, ["ann", "bob", "cy"]  # the GM seats them as the offers say


def ended(state: Any) -> bool:
    return False


def representative(seat: str) -> Post:
    return Post(seat, "not offered")
