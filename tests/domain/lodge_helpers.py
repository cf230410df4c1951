"""Setting up Lodge games for the conformance tests and the contract driver.

``lodge`` seats Mages and stops at the first Actions phase; ``arrange`` folds board changes for a
scenario's starting position (the cards in a slot, a Model's Room, cubes already placed), as a worked
example states its position; ``kinds`` and ``data`` read what a command recorded."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from application.service import Caller, Games
from domain.lodge.game import LodgeGame
from domain.lodge.ruleset import (
    AddMage,
    AdvancePhase,
    BeginGame,
    BlackRoseAct,
    CastSpell,
    PhysicalAction,
    PrepareSpells,
    board_view,
)
from domain.lodge.state import BLACK_ROSE, apply_change

NOW = datetime(2026, 11, 1, tzinfo=UTC)


def lodge(
    mages: tuple[str, ...] = ("ann", "bob", "cy"),
    avatar: tuple[str, ...] = (),
    deck: list | None = None,
    **options: Any,
) -> LodgeGame:
    colours = dict(zip(("ann", "bob", "cy", "dee"), ("red", "blue", "green", "yellow"), strict=True))
    g = LodgeGame.start("Lodge", options=options or None)
    for m in mages:
        g.add_mage(m, m.title(), colours[m], m in avatar)
    g.begin(now=NOW, seed="seed")
    if deck is not None:
        apply_change(g.state, {"op": "deck", "order": list(deck)})
    g.advance(now=NOW)  # prepare -> actions
    g.collect_events()
    return g


def arrange(g: LodgeGame, *changes: dict) -> None:
    for ch in changes:
        apply_change(g.state, ch)


def at(g: LodgeGame, **rooms: str) -> None:
    arrange(g, *({"op": "move", "model": m, "room": r} for m, r in rooms.items()))


def slot(g: LodgeGame, mage: str, card: str, where: str = "I") -> None:
    arrange(g, {"op": "slots", "mage": mage, "cards": {where: card}})


def summoned(g: LodgeGame, mage: str, card: str, room: str) -> str:
    eid = f"ev{g.state.next_id}"
    g.state.deck = [card, *[c for c in g.state.deck if c != card]]
    arrange(g, {"op": "summon", "evocation": eid, "card": card, "controller": mage, "room": room})
    return eid


def reserve(g: LodgeGame, model: str) -> None:
    """Take a Model off the board into the reserve."""
    g.state.positions.pop(model)


def board(g: LodgeGame, viewer: str = "gm") -> dict[str, Any]:
    """What ``viewer`` sees of the Lodge now (the ruleset's view; the host sees every card)."""
    return board_view(g, viewer)


def sheet(g: LodgeGame, mage: str) -> dict[str, Any]:
    """A Mage's sheet as the host sees it: damage, power points, trophies, bases, slots, room."""
    return board(g)["mages"][mage]


def room_of(g: LodgeGame, model: str) -> str | None:
    """The Room a Mage or an Evocation stands in, as the board shows it (None: not on the board)."""
    seen = board(g)
    if model in seen["mages"]:
        return seen["mages"][model]["room"]
    return seen["evocations"].get(model, {}).get("room")


def tokens(g: LodgeGame) -> dict[str, dict]:
    """The Persistent Tokens on the board, by ``mage:slot``."""
    return {f"{t['mage']}:{t['slot']}": t for t in board(g)["persistent_tokens"]}


def open_windows(g: LodgeGame, viewer: str = "gm") -> list[str]:
    """The ids of the windows open now, as ``viewer`` sees them."""
    return [w["id"] for w in board(g, viewer)["windows"]]


def cubes(g: LodgeGame, model: str, *owners: str) -> None:
    arrange(g, *({"op": "cube", "model": model, "by": o} for o in owners))


def recorded(g: LodgeGame) -> list[tuple[str, dict]]:
    return [(type(e).__name__, getattr(e, "data", {})) for e in g.collect_events()]


def kinds(events: list[tuple[str, dict]]) -> list[str]:
    return [k for k, _ in events]


def phrases(events: list[tuple[str, dict]]) -> list[dict]:
    return [d for k, d in events if k == "PhraseResolved"]


def play_lodge_turn(games: Games, cleanup: bool = True) -> str:
    """Three Mages play turn 1 through the service, Clean-up scores the Library, and turn 2 begins; each
    Mage's slot III card stays face down throughout. ``cleanup=False``: it stops as the Black Rose has acted."""
    game_id, _, _ = games.create_game("Lodge", ruleset="lodge")
    gm, ann, bob, cy = (Caller.of(p) for p in ("gm", "ann", "bob", "cy"))
    games.run_many(
        gm,
        game_id,
        [
            AddMage("ann", "Ann", "red"),
            AddMage("bob", "Bob", "blue", avatar=True),
            AddMage("cy", "Cy", "green"),
            BeginGame(),
        ],
    )
    ann_cards = {"QUICK": "unravel", "I": "firebolt", "II": "ward", "III": "oblivion"}
    games.run(ann, game_id, PrepareSpells("ann", ann_cards))
    games.run(bob, game_id, PrepareSpells("bob", {"QUICK": "tremor", "I": "mend", "III": "restoration"}))
    games.run(cy, game_id, PrepareSpells("cy", {"I": "call-beast", "III": "plunder"}))
    games.run(gm, game_id, AdvancePhase("prepare"))
    games.run(ann, game_id, CastSpell("ann", "QUICK", "library"))
    games.run(bob, game_id, CastSpell("bob", "QUICK", "library"))
    games.run(ann, game_id, CastSpell("ann", "II", "library"))
    games.run(ann, game_id, CastSpell("ann", "I", "bob"))
    games.run(bob, game_id, PhysicalAction("bob", "walk", moves=["library"]))  # the Ward strikes as bob enters
    games.run(bob, game_id, CastSpell("bob", "I", "bob", heal=[1, 2]))
    games.run(cy, game_id, CastSpell("cy", "I"))
    games.run(gm, game_id, AdvancePhase("actions"))
    games.run(gm, game_id, BlackRoseAct("bloom", "crypt"))
    if cleanup:
        games.run(gm, game_id, AdvancePhase("black-rose"))
    return game_id


# ---------------------------------------------------------------------- a game played through the service

COLOUR = {"ann": "red", "bob": "blue", "cy": "green", "dee": "yellow"}
MAGE = {"Red": "ann", "Blue": "bob", "Green": "cy", "Yellow": "dee", "BlackRose": BLACK_ROSE}
# the seed each game is begun with decides the Evocation deck's order (DeckShuffled): these draw, first to last,
# hound, ghoul (103); shade, ghoul (0); wraith, shade (1)
HOUND_GHOUL, SHADE, WRAITH = 103, 0, 1


class Table:
    """A Lodge played through the service: the host seats the Mages and begins; each Mage prepares her cards."""

    def __init__(
        self,
        mages: tuple[str, ...] = ("ann", "bob", "cy"),
        seed: int = 0,
        avatars: tuple[str, ...] = (),
        **options: Any,
    ) -> None:
        self.games: Games = Games(entropy=lambda n: f"{seed:02x}" * n)
        self.id, _, _ = self.games.create_game("Lodge", ruleset="lodge", options=options or None)
        self.run("gm", *(AddMage(m, m.title(), COLOUR[m], avatar=m in avatars) for m in mages), BeginGame())
        self.seen = len(self.events())

    def close(self) -> None:
        self.games.close()

    def run(self, who: str, *commands: Any) -> None:
        for command in commands:
            self.games.run(Caller.of(who), self.id, command)

    def prepare(self, **cards: dict[str, str]) -> None:
        """Each Mage's cards face down, then the Actions phase."""
        for mage, slots in cards.items():
            self.run(mage, PrepareSpells(mage, slots))
        self.run("gm", AdvancePhase("prepare"))

    def view(self, who: str = "gm") -> dict:
        return self.games.view(self.id, who)

    def events(self) -> list[tuple[str, dict]]:
        return [(e["type"], e["data"].get("data", {})) for e in self.games.visible_events(self.id, "gm")]

    def new(self) -> list[tuple[str, dict]]:
        """The events recorded since the last call."""
        events = self.events()
        out, self.seen = events[self.seen :], len(events)
        return out

    def to_cleanup(self) -> list[tuple[str, dict]]:
        """End the Actions and the Black Rose's phases: Clean-up (C1-C6) runs."""
        if self.view()["game"]["phase"] == "actions":
            self.run("gm", AdvancePhase("actions"))
        self.run("gm", AdvancePhase("black-rose"))
        return self.new()

    def evocation(self, card: str) -> str:
        (eid,) = [e for e, ev in self.view()["evocations"].items() if ev["card"] == card]
        return eid
