"""Seeded random play of a covenant game through the application service (issue 24, "no game can get stuck").

Each seat picks at random among the commands the ruleset offers it (``Ruleset.offers``); some seats never
answer, and the others now and then stay silent, so their deadlines pass: the injected clock is moved past the
window's deadline and the window is closed as the workers close it (``Games.close_due_window``). A game ends
at the target score, or stops at the step cap; either way the outcome says how far it got and whether anything
raised, an offered command was refused, or the table had nobody to wait for.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from application.service import Caller, Games
from domain.covenants.commands import AddCovenant, BeginGame, Pass
from domain.covenants.ruleset import COVENANTS
from domain.errors import DomainError
from domain.platform.commands import CloseWindow

NAMES = ("ann", "bob", "cy", "dee")
# In memory, with the aggregate cache a deployment runs with (projections.settings): a read is not a replay.
ENV = {"PERSISTENCE_MODULE": "eventsourcing.popo", "AGGREGATE_CACHE_MAXSIZE": "4", "AGGREGATE_CACHE_FASTFORWARD": "y"}


@dataclass
class Outcome:
    seed: int
    players: int
    steps: int = 0
    seasons: int = 0
    closes: int = 0
    commands: int = 0
    winners: list = field(default_factory=list)
    blocked: str | None = None  # the game recorded that a rule blocks it (GameBlocked), and which
    broken: str | None = None  # a bug: a raised error, an offered command refused, a seat at turn offered nothing
    phase: str = ""

    @property
    def ended(self) -> bool:
        return bool(self.winners)

    @property
    def moving(self) -> bool:
        """At the step cap, not over, and its awaited window still closes at its deadline."""
        return self.blocked is None and self.broken is None and not self.ended


def _table(games: Games, game_id: str) -> dict[str, Any]:
    """Where the game is, for the harness that drives it (it checks no rule). It reads the state: the table view
    shows the year and season, not how many seasons have begun, and a window's deadline, not its final one (its
    latest extension), which the clock is moved past to close it as the workers do."""
    s = games.read(game_id, lambda g: g.state)
    return {
        "phase": s.phase,
        "turn": list(s.turn),
        "seasons": s.seasons_begun,
        "winners": list(s.winners),
        "windows": [(w.id, w.kind, w.final_closes_at) for w in s.windows.values() if not w.closed],
    }


def play(
    seed: int,
    players: int = 3,
    *,
    max_steps: int = 1500,
    silent: int | None = None,
    hush: float = 0.15,
    options: dict | None = None,
) -> Outcome:
    """Play one game of ``players`` covenants by seeded random choice among the offers; the last ``silent`` seats
    (by default half the table, rounded down) never answer, the others stay silent at a turn with probability
    ``hush``."""
    choose = random.Random(seed)
    draws = random.Random(f"entropy-{seed}")
    now = [datetime(2026, 1, 1, 12, tzinfo=timezone.utc)]
    games = Games(ENV, clock=lambda: now[0], entropy=lambda n: draws.getrandbits(8 * n).to_bytes(n, "big").hex())
    game_id, _, _ = games.create_game(
        f"Random {seed}", ruleset="covenants", options={"players": players, **(options or {})}
    )
    seats = list(NAMES[:players])
    auditor = Caller.of("gm")
    games.run_many(
        auditor, game_id, [AddCovenant(s, s.title(), f"Covenant {s}", host=i == 0) for i, s in enumerate(seats)]
    )
    games.run(auditor, game_id, BeginGame())
    silent = players // 2 if silent is None else silent
    quiet = set(seats[players - silent :]) if silent else set()
    out = Outcome(seed, players)
    while True:
        t = _table(games, game_id)
        out.seasons, out.phase, out.winners = t["seasons"], t["phase"], t["winners"]
        if t["winners"]:
            return out
        awaited = t["turn"][0] if t["turn"] else None
        window = next((w for w in t["windows"] if w[1].split(":")[1] == awaited), None)
        if awaited is None or window is None:
            out.broken = f"nobody is awaited in the {t['phase']} phase (turn {t['turn']}, windows {t['windows']})"
            return out
        if out.steps >= max_steps:  # the cap: still moving if the awaited turn's deadline closes it
            _close(games, game_id, window, now, out)
            return out
        out.steps += 1
        actor = awaited
        others = [s for s in seats if s != awaited and s not in quiet]
        if others and choose.random() < 0.1:  # a covenant not at turn acts too: a tax, a trade, a confirmation
            actor = choose.choice(others)
        if actor == awaited and (awaited in quiet or choose.random() < hush):
            if not _close(games, game_id, window, now, out):
                return out
            continue
        offered = games.read(game_id, lambda g, who=actor: COVENANTS.offers(g, who))  # type: ignore[misc]
        if not offered:
            if actor == awaited and t["phase"] != "certamen":  # Certamen: the challenger may wait on its rival
                out.broken = f"{actor} is at turn in the {t['phase']} phase and offered nothing"
                return out
            continue
        command = _pick(choose, offered, t["phase"])
        try:
            games.run(Caller.of(actor), game_id, command)
        except DomainError as err:
            out.broken = f"{actor}'s offered {command!r} was refused: {err}"
            return out
        out.commands += 1
        now[0] += timedelta(minutes=5)


def _close(games: Games, game_id: str, window: tuple, now: list, out: Outcome) -> bool:
    """The awaited seat is silent: its deadline passes and the window is closed as the workers close it."""
    now[0] = max(now[0], datetime.fromisoformat(window[2])) + timedelta(minutes=1)
    try:
        closed = games.close_due_window(game_id, window[0])
    except Exception as err:  # noqa: BLE001 - what the workers' sweep would meet
        out.broken = f"closing {window[1]} at its deadline raised {type(err).__name__}: {err}"
        return False
    if not closed:
        # why the window stayed open (GameBlocked: the rule, the seats) is kept on the window; the table view shows
        # its id, kind and deadline only
        held = games.read(game_id, lambda g: getattr(g.state.windows[window[0]], "blocked", None))
        out.blocked = f"the due window {window[1]} did not close: {held}"
        return False
    out.closes += 1
    return True


def _pick(choose: random.Random, offered: list, phase: str) -> Any:
    """A random offer; in the Main Phase mostly a pass (it ends after a round where everyone passed, A-AMB-5: a
    table that keeps acting keeps it going), and the host's closing of a window rarely (another seat's silence)."""
    closes = [c for c in offered if isinstance(c, CloseWindow)]
    rest = [c for c in offered if not isinstance(c, CloseWindow)] or closes
    if closes and choose.random() < 0.05:
        return choose.choice(closes)
    passes = [c for c in rest if isinstance(c, Pass)]
    if phase == "main" and passes and choose.random() < 0.7:
        return passes[0]
    return choose.choice(rest)
