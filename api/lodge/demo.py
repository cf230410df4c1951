"""A scripted turn of the Lodge, for newcomers: ``emissary demo --ruleset lodge``.

Three Mages play turn 1 on a throwaway in-memory game: spells prepared face down, the Library filled with
Instability, a Ward laid on it, a Firebolt whose target is a prompt answered from the options the server
computed, a Walk whose Room is a prompt, then the Black Rose and Clean-up, where the Library is rebuilt and
scored (C4-C6 of L.1.1). Each effect's phrases are narrated as the audit records them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from application.service import Caller, Games
from domain.lodge import commands as lc

SEATS = (("ann", "Ann", "red", False), ("bob", "Bob", "blue", True), ("cy", "Cy", "green", False))


class _Table:
    def __init__(self, games: Games, game_id: str, say: Callable[[str], None]) -> None:
        self.games, self.game_id, self.say = games, game_id, say
        self.seen = len(games.visible_events(game_id, "gm", limit=100_000))

    def run(self, seat: str, command: Any, what: str) -> None:
        self.games.run(Caller.of(seat), self.game_id, command)
        self.say(what)
        self.narrate()

    def narrate(self) -> None:
        """What the audit recorded since the last command, in words."""
        events = self.games.visible_events(self.game_id, "gm", limit=100_000)
        for e in events[self.seen :]:
            d = e["data"].get("data", {})
            match e["type"]:
                case "PhraseResolved":
                    why = "; ".join(f"{s['part']} skipped: {s['reason']} ({s['rule']})" for s in d["skipped"])
                    self.say(f"  {d['card']}: {d['words']}: {d['status']}" + (f" ({why})" if why else ""))
                case "PersistentPlaced":
                    self.say(f"  {d['mage']}'s Persistent Token of slot {d['slot']} goes {d['on']} (L-PERS-3).")
                case "ChoiceOffered":
                    self.say(
                        f"  The effect waits for {d['mage']}: {d['question']}; one of {', '.join(d['options'])}"
                        f" (at the deadline: {d['default']}, {d['rule']})."
                    )
                case "RoomsToRebuild":
                    self.say(f"  Rooms to rebuild (C4): {', '.join(d['rooms']) or 'none'}.")
                case "RoomScored":
                    pp = ", ".join(f"{who} {n}" for who, n in sorted(d["pp"].items()))
                    self.say(f"  {d['room']} scored with banner {d['banner']} on cubes {d['counts']}: {pp} (C5).")
                case "RoomFlipped":
                    self.say(f"  {d['room']} is rebuilt: flipped to its other side, its cubes back (C6).")
        self.seen = len(events)

    def prompt(self, seat: str) -> dict:
        (p,) = self.games.view(self.game_id, seat)["prompts"]
        return p


def play_demo(say: Callable[[str], None], games: Games | None = None) -> Games:
    """Seat three Mages and play turn 1 with its Clean-up; narrate it."""
    games = games or Games()  # in memory unless a test passes its own: nothing is written anywhere
    game_id, _, _ = games.create_game("A Lodge of the Black Rose", ruleset="lodge")
    package = games.view(game_id, "gm")["game"]["package"]
    say(f"Created Lodge game {game_id}, pinning the rules package {package['id']} {package['version']} (house rules).")
    gm = Caller.of("gm")
    for seat, name, colour, avatar in SEATS:
        games.run(gm, game_id, lc.AddMage(seat, name, colour, avatar))
        say(f"{name} takes the {colour} Mage{' (an Avatar)' if avatar else ''}.")
    games.run(gm, game_id, lc.BeginGame())
    t = _Table(games, game_id, say)
    say("\n== Turn 1, prepare: Spell Cards go face down (each seen by its owner and the host, L.4) ==")
    for seat, cards in (
        ("ann", {"QUICK": "unravel", "I": "firebolt", "II": "ward"}),
        ("bob", {"QUICK": "tremor", "I": "mend"}),
        ("cy", {"I": "insight"}),
    ):
        t.run(seat, lc.PrepareSpells(seat, cards), f"{seat.title()} prepares {len(cards)} Spells.")
    t.run("gm", lc.AdvancePhase("prepare"), "\n== Turn 1, actions ==")
    t.run("ann", lc.CastSpell("ann", "QUICK", "library"), "Ann casts Unravel on the Library.")
    t.run("bob", lc.CastSpell("bob", "QUICK", "library"), "Bob casts Tremor on the Library: it fills (L-INST-2).")
    t.run("ann", lc.CastSpell("ann", "II", "library"), "Ann lays a Ward on the Library.")
    t.run("ann", lc.CastSpell("ann", "I"), "Ann casts Firebolt and leaves its target to a prompt.")
    t.run("ann", lc.AnswerChoice("ann", t.prompt("ann")["choice"], "bob"), "Ann answers: Bob.")
    t.run("bob", lc.PhysicalAction("bob", "walk"), "Bob walks, leaving the Room to a prompt.")
    t.run("bob", lc.AnswerChoice("bob", t.prompt("bob")["choice"], "library"), "Bob answers: the Library.")
    t.run("cy", lc.CastSpell("cy", "I"), "Cy casts Insight.")
    t.run("gm", lc.AdvancePhase("actions"), "\n== Turn 1, the Black Rose ==")
    t.run("gm", lc.BlackRoseAct("bloom", "crypt"), "The host plays the Black Rose's Bloom on the Crypt.")
    t.run("gm", lc.AdvancePhase("black-rose"), "\n== Turn 1, Clean-up (C1-C6) ==")
    v = games.view(game_id, "gm")
    say(f"\nTurn {v['game']['turn']} opens: {v['game']['phase']}.")
    for mage, sheet in v["mages"].items():
        say(f"  {sheet['name']}: {sheet['power_points']} Power Points, damage {sheet['damage'] or 'none'}.")
    return games
