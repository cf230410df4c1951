"""No game gets stuck, for every registered ruleset and the fake one (issue 24, item 4; DESIGN "Promises are
platform properties").

Seeded random legal play through the application service (``Games.run``), with each ruleset's default options:
at each turn every principal (the GM or auditor, each seat) asks ``ruleset.offers(game, principal)``; one seat of
each game never answers and the others now and then stay silent, so deadlines pass: the service's injected clock
is moved past the earliest open window's deadline and the due windows are closed as the workers' sweep closes them
(``Games.close_due_window``). Turns are bounded; many small games rather than a few long ones. It holds: nothing
raises, no offered command is refused (the test names it), no default for silence is refused (a close the rules
refuse records ``GameBlocked``: the test names the rule), no due window fails to close, and every game either ends as
its rules say or is still moving at the turn cap (events still recorded by commands or closes, not blocked).

Offered equals accepted: in sampled states of each ruleset every offered command is accepted when sent (run on the
service, then checked), and a principal offered nothing is refused a representative command of the ruleset.

A ruleset's table is set up here, by name (``SETUPS``): a registered ruleset without one, or without ``offers``,
fails with a message saying what to add.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import SYSTEM_CALLER, Caller, Games
from domain.errors import DomainError
from domain.ids import GM
from domain.platform import ruleset as registry
from domain.platform.commands import CloseDueWindow, Command
from domain.powers import commands as pc
from tests.contract.conftest import RULESETS
from tests.contract.drivers import contract_modules
from tests.helpers import add_power

# In memory, with the aggregate cache a deployment runs with (projections.settings): a read is not a replay.
ENV = {"PERSISTENCE_MODULE": "eventsourcing.popo", "AGGREGATE_CACHE_MAXSIZE": "4", "AGGREGATE_CACHE_FASTFORWARD": "y"}


@dataclass(frozen=True)
class Table:
    game_id: str
    seats: list[str]


@dataclass(frozen=True)
class Plan:
    """How the contract plays one ruleset: its table, when its game has ended, and how long and how many games."""

    setup: Callable[[Games], Table]
    ended: Callable[[Any], bool]  # the game's state -> whether its rules ended it
    refused: Callable[[str], Command]  # a representative command of the ruleset, for a seat to send
    games: int  # seeds played in CI
    turns: int  # the turn cap of each
    passes_deadlines: bool = True  # its random play passes a deadline or ends a game (the fake's opens no window)


def _powers(games: Games) -> Table:
    gid, _, _ = games.create_game("Random Powers", "GM")
    seats = []
    for name, cls, sub in (
        ("Wiz", "champion", "wizard"),
        ("Circ", "conspiracy", "circle"),
        ("Sov", "city", "sovereign"),
    ):
        pid = add_power(games, gid, GM, name, cls, sub)[0]  # type: ignore[attr-defined]
        games.send(gid, GM, pc.GrantAsset(pid, "might", "skill", 2))  # type: ignore[attr-defined]
        seats.append(pid)
    return Table(gid, seats)


def _covenants(games: Games) -> Table:
    from domain.covenants.commands import AddCovenant, BeginGame

    gid, _, _ = games.create_game("Random covenants", ruleset="covenants", options={"players": 3})
    seats = ["ann", "bob", "cy"]
    games.run_many(
        Caller.of(GM), gid, [AddCovenant(s, s.title(), f"Covenant {s}", host=i == 0) for i, s in enumerate(seats)]
    )
    games.run(Caller.of(GM), gid, BeginGame())
    return Table(gid, seats)


def _lodge(games: Games) -> Table:
    from domain.lodge.ruleset import AddMage, BeginGame

    gid, _, _ = games.create_game("Random Lodge", ruleset="lodge")
    seats = ["ann", "bob", "cy"]
    colours = ("red", "blue", "green")
    games.run_many(
        Caller.of(GM), gid, [*(AddMage(s, s.title(), c) for s, c in zip(seats, colours, strict=True)), BeginGame()]
    )
    return Table(gid, seats)


def _representative(module: str, name: str) -> Callable[[str], Command]:
    def build(seat: str) -> Command:
        import importlib

        return _build(getattr(importlib.import_module(module), name), seat)

    return build


def _build(cls: type, seat: str) -> Command:
    if cls.__name__ == "SubmitAction":
        return cls(seat, "not offered")
    if cls.__name__ == "Pass":
        return cls(seat)
    if cls.__name__ == "PhysicalAction":
        return cls(seat, "walk", moves=["library"])
    return cls(seat)


PLANS: dict[str, Plan] = {
    "powers": Plan(_powers, lambda s: False, _representative("domain.powers.commands", "SubmitAction"), 6, 60),
    "covenants": Plan(
        _covenants, lambda s: bool(s.winners), _representative("domain.covenants.commands", "Pass"), 6, 200
    ),
    "lodge": Plan(
        _lodge, lambda s: s.ended is not None, _representative("domain.lodge.ruleset", "PhysicalAction"), 8, 90
    ),
}


def plugin_plan(m: Any) -> Plan:
    """A plugin's plan from its contract module (``drivers.contract_modules``): ``setup(games, as_)`` -> (game id,
    seats), ``ended(state)``, ``representative(seat)``, ``GAMES``, ``TURNS`` and optionally ``PASSES_DEADLINES``."""
    return Plan(
        lambda games: Table(*m.setup(games, Caller.of)),
        m.ended,
        m.representative,
        m.GAMES,
        m.TURNS,
        getattr(m, "PASSES_DEADLINES", True),
    )


PLANS.update({name: plugin_plan(m) for name, m in contract_modules().items()})


def plan_for(ruleset: registry.Ruleset) -> Plan:
    """The ruleset's plan; a ruleset without offers, or without a table here, fails saying what to add."""
    if ruleset.offers is None:
        pytest.fail(
            f"ruleset {ruleset.name!r} declares no offers: Ruleset.offers(game, principal) must list the commands each "
            "principal may send now (issue 24), or random play cannot move its games"
        )
    if ruleset.name not in PLANS:
        pytest.fail(f"ruleset {ruleset.name!r} has no table in tests/contract/test_liveness.py PLANS")
    return PLANS[ruleset.name]


@dataclass
class Outcome:
    """What one seeded game did: how far it got, and the first thing that broke the promise, if any."""

    ruleset: str
    seed: int
    turns: int = 0
    commands: int = 0
    closes: int = 0
    ended: bool = False
    broken: str | None = None
    versions: list[int] = field(default_factory=list)  # the game's version after each turn

    def moving(self, tail: int = 15) -> bool:
        """Events were recorded over the last ``tail`` turns (by commands or closes)."""
        return len(self.versions) > tail and self.versions[-1] > self.versions[-1 - tail]


class Play:
    """One seeded game: the service with a clock and entropy of its own, the table, and the silent seat."""

    def __init__(self, ruleset: registry.Ruleset, plan: Plan, seed: int) -> None:
        self.ruleset = ruleset
        self.plan = plan
        self.rng = random.Random(f"{ruleset.name}-{seed}")
        draws = random.Random(f"entropy-{ruleset.name}-{seed}")
        # The clock starts at the wall clock's minute: a ruleset's trial runs may read the time events were stamped.
        self.now = [datetime.now(timezone.utc).replace(second=0, microsecond=0)]
        self.games = Games(
            ENV, clock=lambda: self.now[0], entropy=lambda n: draws.getrandbits(8 * n).to_bytes(n, "big").hex()
        )
        self.table = plan.setup(self.games)
        self.principals = [GM, *self.table.seats]
        self.quiet = self.rng.choice(self.table.seats)  # never answers: its deadlines pass
        self.out = Outcome(ruleset.name, seed)

    def read(self, query: Callable[[Any], Any]) -> Any:
        return self.games.read(self.table.game_id, query)

    def offers(self) -> dict[str, list[Command]]:
        offers = self.ruleset.offers
        assert offers is not None
        return {p: self.read(lambda g, p=p: list(offers(g, p))) for p in self.principals}

    def run(self) -> Outcome:
        out = self.out
        try:
            while out.turns < self.plan.turns and out.broken is None:
                if self.read(lambda g: self.plan.ended(g.state)):
                    out.ended = True
                    break
                self.turn()
                out.turns += 1
                out.versions.append(self.read(lambda g: g.version))
        except Exception as err:  # noqa: BLE001 - a crash is what the contract reports, with the game it broke
            out.broken = f"raised {type(err).__name__}: {err}"
        return out

    def turn(self) -> None:
        offered = self.offers()
        movers = [p for p in self.principals if offered[p] and p != self.quiet]
        windows = self.read(
            lambda g: sorted((w.final_closes_at, w.id) for w in g.state.windows.values() if not w.closed)
        )
        if windows and (not movers or self.rng.random() < 0.2):
            self.deadline(windows)
            return
        if not movers:
            self.out.broken = f"nobody is offered anything and no window is open (the silent seat is {self.quiet})"
            return
        who = self.rng.choice(movers)
        command = self.rng.choice(offered[who])
        try:
            self.games.run(Caller.of(who), self.table.game_id, command)
        except DomainError as err:
            self.out.broken = f"{who} was offered {command!r} and it was refused: {type(err).__name__} {err.as_dict()}"
            return
        self.out.commands += 1
        self.now[0] += timedelta(minutes=self.rng.choice((1, 5, 30)))

    def deadline(self, windows: list[tuple[str, str]]) -> None:
        """Silence: the clock passes the earliest deadline, and the sweep closes every window then due."""
        self.now[0] = max(self.now[0], datetime.fromisoformat(windows[0][0])) + timedelta(minutes=1)
        due = [wid for closes, wid in windows if datetime.fromisoformat(closes) <= self.now[0]]
        for window_id in due:
            receipt = self.games.run(SYSTEM_CALLER, self.table.game_id, CloseDueWindow(window_id))
            if "blocked" in receipt.result:
                b = receipt.result["blocked"]
                self.out.broken = f"the default for silence at {window_id} was refused by {b['rule']}: {b['reason']}"
                return
            still = self.read(lambda g, w=window_id: w in g.state.windows and not g.state.windows[w].closed)
            if not receipt.result.get("closed") and still:
                self.out.broken = f"the due window {window_id} did not close: {receipt.result}"
                return
            self.out.closes += 1


def play(ruleset: registry.Ruleset, plan: Plan, seed: int) -> Outcome:
    game = Play(ruleset, plan, seed)
    try:
        return game.run()
    finally:
        game.games.close()


def test_every_registered_ruleset_is_played_here():
    assert sorted(set(RULESETS) - set(PLANS)) == [], "add the ruleset's table to PLANS"


def test_seeded_random_legal_play_with_silence_ends_or_keeps_moving(ruleset):
    """No crash, no refused offer, no refused default, no failed close; each game ends by its rules or is still
    moving at the turn cap."""
    plan = plan_for(ruleset)
    outcomes = [play(ruleset, plan, seed) for seed in range(plan.games)]
    broken = [f"seed {o.seed} turn {o.turns}: {o.broken}" for o in outcomes if o.broken]
    assert broken == [], f"{ruleset.name}: " + "\n".join(broken)
    stalled = [o.seed for o in outcomes if not o.ended and not o.moving()]
    assert stalled == [], f"{ruleset.name}: seeds {stalled} neither ended nor kept moving"
    assert sum(o.commands for o in outcomes) > 0 and sum(o.closes for o in outcomes) + sum(
        o.ended for o in outcomes
    ) >= (1 if plan.passes_deadlines else 0), "the games were played, and deadlines passed"


def test_offered_commands_are_accepted_and_a_principal_offered_nothing_is_refused(ruleset):
    """Offered equals accepted: in sampled states (every few turns of a seeded game), each offered command, sent in
    that state, is accepted; a seat offered nothing is refused a representative command of the ruleset."""
    plan = plan_for(ruleset)
    game = Play(ruleset, plan, seed=101)
    refused_checked = 0
    try:
        for step in range(plan.turns // 2):
            if game.read(lambda g: plan.ended(g.state)):
                break
            version = game.read(lambda g: g.version)
            for who, commands in game.offers().items():
                if step % 8 == 0:  # every offer of a sampled state
                    for command in commands:
                        _accepted_in(game, version, who, command)
                if not commands and who != GM:
                    _refused_in(game, version, who, plan.refused(who))
                    refused_checked += 1
            game.turn()
            assert game.out.broken is None, game.out.broken
    finally:
        game.games.close()
    assert refused_checked > 0, "some sampled state offered a seat nothing"
    outsider = "nobody-seated"  # a principal with no seat: offered nothing, refused
    assert ruleset.offers is not None and game.read(lambda g: ruleset.offers(g, outsider)) == []


def _fork_at(game: Play, version: int) -> str:
    """A copy of the game at ``version``, in the same service, to send a command to without touching the game."""
    import dataclasses
    import uuid

    source = game.games.get_game(game.table.game_id, for_update=False)
    new_id = uuid.uuid4()
    game.games.events.put(
        [dataclasses.replace(e, originator_id=new_id) for e in game.games.events.get(source.id, lte=version)]
    )
    return str(new_id)


def _accepted_in(game: Play, version: int, who: str, command: Command) -> None:
    copy = _fork_at(game, version)
    try:
        game.games.run(Caller.of(who), copy, command)
    except DomainError as err:
        pytest.fail(f"{game.ruleset.name}: {who} was offered {command!r} and it was refused: {err.as_dict()}")


def _refused_in(game: Play, version: int, who: str, command: Command) -> None:
    copy = _fork_at(game, version)
    before = game.games.get_game(copy, for_update=False).version
    with pytest.raises(DomainError):
        game.games.run(Caller.of(who), copy, command)
    assert game.games.get_game(copy, for_update=False).version == before


# ---------------------------------------------------------------------- the contract catches what it names


def _gate_plan(offers: Callable[[Any, str], list[Command]]) -> tuple[registry.Ruleset, Plan]:
    """The gate of tests/contract/test_blocked.py (its window's default is refused while nobody holds the key),
    with the offers given."""
    import dataclasses

    from tests.contract.test_blocked import GATE, Join, OpenGate

    def setup(games: Games) -> Table:
        gid, _, _ = games.create_game("Gate", ruleset="gate")
        games.run_many(Caller.of(GM), gid, [Join("ann", host=True), Join("bob"), OpenGate()])
        return Table(gid, ["ann", "bob"])

    return dataclasses.replace(GATE, offers=offers), Plan(setup, lambda s: s.through, lambda seat: Join(seat), 1, 10)


def test_the_contract_names_a_default_the_rules_refuse():
    gate, plan = _gate_plan(lambda game, who: [])  # nobody may do anything: the deadline passes, its default is refused
    registry.register(gate)
    try:
        out = play(gate, plan, seed=1)
    finally:
        registry.unregister(gate.name)
    assert out.broken is not None and "refused by GATE-1" in out.broken


def _planted(gate: registry.Ruleset, plan: Plan) -> list[str]:
    """What the contract reports of ten seeded games of a planted fault (any game it lets pass is reported as None)."""
    registry.register(gate)
    try:
        return [str(play(gate, plan, seed).broken) for seed in range(10)]
    finally:
        registry.unregister(gate.name)


def test_the_contract_names_an_offered_command_that_is_refused():
    from tests.contract.test_blocked import TakeKey

    # ann is offered the key for a seat the gate does not have: refused when she sends it (unless silence first
    # blocks the game, which the contract names too).
    gate, plan = _gate_plan(lambda game, who: [TakeKey("zed")] if who == "ann" else [])
    reports = _planted(gate, plan)
    assert "None" not in reports
    assert any("ann was offered TakeKey(seat_id='zed')" in r and "refused" in r for r in reports), reports


def test_the_contract_names_a_table_where_nobody_may_do_anything_and_nothing_is_due():
    from tests.contract.test_blocked import TakeKey

    # A seat takes the key while the gate is open; once through, nothing is offered and no window is open.
    gate, plan = _gate_plan(lambda game, who: [TakeKey(who)] if who != GM and not game.state.key_holder else [])
    plan = Plan(plan.setup, lambda s: False, plan.refused, 1, 40)  # the gate never says the game ended
    reports = _planted(gate, plan)
    assert "None" not in reports
    assert any("nobody is offered anything and no window is open" in r for r in reports), reports
