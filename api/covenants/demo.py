"""A scripted year of the covenant game, for newcomers: ``emissary demo --ruleset covenants``.

Three covenants play Spring to Winter on a throwaway in-memory game. The dice come from the seed the game
commits to at each season, so the cards differ from run to run while the script stays the same: move to the
first free square, generate, keep the card (or discard it if the rules refuse it), pass the other phases,
then the first to move again goes to End and everyone supports what they hold, starving what they cannot
pay for. The narration ends with the export checked against the committed seeds."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from application.service import Caller, Games
from domain.covenants import commands as cc
from domain.covenants import rules
from domain.covenants.verify import verify_covenant_events
from domain.errors import RuleViolation

SEATS = (
    ("ann", "Ann", "Fengheld", ["Cr", "In", "Co", "Im", "Vi"]),
    ("bob", "Bob", "Crintera", ["Pe", "Im", "Vi", "Re", "Mu"]),
    ("cy", "Cy", "Valnastium", ["Re", "Mu", "An", "Aq", "Te"]),
)


class _Table:
    def __init__(self, games: Games, game_id: str, say: Callable[[str], None]) -> None:
        self.games, self.game_id, self.say = games, game_id, say
        self.names = {seat: covenant for seat, _, covenant, _ in SEATS}

    def view(self) -> dict[str, Any]:
        return self.games.view(self.game_id, "gm")

    def at_turn(self) -> str:
        return self.view()["game"]["turn"][0]

    def phase(self) -> str:
        return self.view()["game"]["phase"]

    def run(self, seat: str, command: Any) -> dict:
        return self.games.run(Caller.of(seat), self.game_id, command).result or {}


def _season(t: _Table) -> None:
    v = t.view()["game"]
    t.say(f"\n== Year {v['year']}, {v['season']}: each covenant moves along the track ==")
    while t.phase() == "move":
        seat = t.at_turn()
        square = t.games.view(t.game_id, seat)["me"]["legal_moves"][0]
        t.run(seat, cc.Move(seat, square))
        t.say(f"{t.names[seat]} moves to square {square} ({rules.TRACK[square]}).")
    while t.phase() == "create":
        seat = t.at_turn()
        card = t.run(seat, cc.Generate(seat)).get("card_id")
        if card is None:
            t.say(f"{t.names[seat]} rolls its generator and gets no card.")
            continue
        name = next(c["name"] for c in t.view()["covenants"][seat]["cards"] if c["id"] == card)
        try:
            t.run(seat, cc.Keep(seat, card))
            t.say(f"{t.names[seat]} generates {name} and keeps it.")
        except RuleViolation as err:
            t.run(seat, cc.Discard(seat, card))
            t.say(f"{t.names[seat]} generates {name} but may not keep it ({err.rule}: {err.message}); discarded.")
    while t.phase() in ("events", "main"):
        seat = t.at_turn()
        t.run(seat, cc.Pass(seat))
    t.say("Events and Main Phase: everyone passes.")
    seat = t.at_turn()
    t.run(seat, cc.Move(seat, rules.END_SQUARE))
    t.say(f"{t.names[seat]} moves to End: the season ends; the Reckoning follows.")
    while t.phase() == "reckoning":
        seat = t.at_turn()
        starve: list[str] = []
        while True:
            try:
                t.run(seat, cc.Support(seat, starve))
                break
            except RuleViolation:
                held = [c["id"] for c in t.view()["covenants"][seat]["cards"] if c["id"] not in starve]
                if not held:
                    raise
                # cannot pay for everything: starve the newest card not yet starved, as a player short of
                # provision would (A-RECK-1)
                starve.append(held[-1])
        c = t.view()["covenants"][seat]
        note = f", starving {len(starve)} card(s)" if starve else ""
        t.say(
            f"{t.names[seat]} supports its cards{note}: {c['gold']} gold, {c['vis']} vis, "
            f"{c['provision']} provision; score {c['score']}."
        )


def play_demo(say: Callable[[str], None], games: Games | None = None) -> Games:
    """Seat three covenants and play one year (four seasons); narrate it."""
    games = games or Games()  # in memory unless a test passes its own: nothing is written anywhere
    game_id, _, _ = games.create_game("The Tribunal of the Rhine", ruleset="covenants", options={"players": 3})
    say(f"Created covenant game {game_id}: three covenants, no GM; the organising token is the auditor's.")
    for seat, name, covenant, arts in SEATS:
        games.run(Caller.of("gm"), game_id, cc.AddCovenant(seat, name, covenant, host=seat == "ann", arts=arts))
        say(f"{name} founds {covenant} (Arts {' '.join(arts)}){', and hosts the table' if seat == 'ann' else ''}.")
    starting = games.run(Caller.of("gm"), game_id, cc.BeginGame()).result["starting"]
    t = _Table(games, game_id, say)
    say(
        f"The starting player is drawn with committed dice: {t.names[starting]}. "
        f"Season seed commitment sha256 {t.view()['game']['seed_commitment'][:16]}..."
    )
    for _ in range(4):
        _season(t)
    v = t.view()
    say(f"\nA year is over: now year {v['game']['year']}, {v['game']['season']}.")
    for seat, c in v["covenants"].items():
        say(f"  {t.names[seat]}: score {c['score']}, {len(c['cards'])} cards, {c['gold']} gold, {c['vis']} vis.")
    report = verify_covenant_events(games.visible_events(game_id, "gm", limit=100_000))
    say(
        f"The auditor's export verifies: {report.ok} ({report.rolls_verified} rolls, "
        f"{report.seeds_verified} season seeds checked)."
    )
    return games
