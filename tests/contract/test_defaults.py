"""Every default on silence is a command the ruleset accepts (issue 26 item 2, DESIGN "Promises are platform
properties"): the platform runs each ruleset's windows from its steps (``domain.platform.flow``), and at a window's
close each seat it still waits on is taken to send its declared default through the ruleset's own handler.

For every registered ruleset, seeded random play (``tests/contract/test_liveness.py``) reaches windows; at each one
open after each turn, each pending seat's declared default is sent as the platform sends it at the close (as that
seat, ``Context.silent``), on a copy of the game in that state: it must be accepted. A window's kind no step of its
ruleset declares is named, so no ruleset can open a window with no legal default.
"""

from __future__ import annotations

from copy import deepcopy

import pytest

from application.service import Caller
from domain.errors import DomainError
from domain.platform import flow
from domain.platform.commands import Command
from domain.powers import commands as pc
from tests.contract.test_liveness import Play, plan_for
from tests.helpers import add_power


def test_every_pending_seats_default_on_silence_is_accepted_at_every_window_random_play_reaches(ruleset):
    assert any(step.windows for step in ruleset.steps), f"{ruleset.name}: its steps declare no window"
    assert any(rule.on_silence for step in ruleset.steps for rule in step.windows), (
        f"{ruleset.name}: no window of its declares a default on silence"
    )
    plan = plan_for(ruleset)
    checked: set[tuple[str, str]] = set()
    silent_kinds: set[str] = set()  # the kinds of window reached whose rule declares a default on silence
    defaults = 0
    for seed in range(plan.games):
        defaults += _play(Play(ruleset, plan, seed), checked, silent_kinds)
    assert checked, f"{ruleset.name}: random play reached no window"
    # Powers' random play reaches Planning and Resistance, where silence sends no command (the close itself turns
    # unused actions into schemes, and takes silence as a waiver); its battles' defaults are checked below
    assert defaults or not silent_kinds, (
        f"{ruleset.name}: no window random play reached ({', '.join(sorted(silent_kinds))}) had a default on silence "
        "to send"
    )


def _play(game: Play, checked: set[tuple[str, str]], silent_kinds: set[str]) -> int:
    """One seeded game, the open windows' defaults checked after each turn; how many defaults were sent."""
    sent = 0
    try:
        for _ in range(game.plan.turns):
            if game.read(lambda g: game.plan.ended(g.state)) or game.out.broken:
                break
            sent += _check_open_windows(game, checked, silent_kinds)
            game.turn()
        assert game.out.broken is None, game.out.broken
    finally:
        game.games.close()
    return sent


def _check_open_windows(game: Play, checked: set[tuple[str, str]], silent_kinds: set[str]) -> int:
    """Send each pending seat's default at each open window (once per window and seat); how many were sent."""
    checked.update((w, "") for w in game.read(lambda g: [w.id for w in g.state.windows.values() if not w.closed]))
    silent_kinds.update(game.read(_silent_kinds))
    found: list[tuple[str, str, str, Command]] = game.read(lambda g: list(_pending_defaults(g)))
    sent = 0
    for window_id, kind, seat, command in found:
        if (window_id, seat) in checked:
            continue
        checked.add((window_id, seat))
        # on a copy of the game in this state (random play's own closes save what the defaults record)
        trial = deepcopy(game.games.get_game(game.table.game_id, for_update=False))
        ctx = game.games.context(Caller.of(seat), trial)
        try:
            flow.send_default(trial, seat, command, ctx)
        except DomainError as err:
            pytest.fail(
                f"{game.ruleset.name}: at window {window_id} ({kind}) {seat}'s default on silence {command!r} was "
                f"refused: {err.as_dict()}"
            )
        sent += 1
    return sent


def _silent_kinds(game: object) -> list[str]:
    rules = [(w, flow.rule_for(game, w)) for w in getattr(game, "state").windows.values() if not w.closed]
    return [w.kind for w, rule in rules if rule is not None and rule.on_silence is not None]


def _pending_defaults(game: object):
    for w in list(getattr(game, "state").windows.values()):
        if w.closed:
            continue
        assert flow.rule_for(game, w) is not None, (
            f"window {w.id} of kind {w.kind!r}: no step of its ruleset declares it"
        )
        for seat, command in flow.defaults(game, w).items():
            assert isinstance(command, Command), f"{seat}'s default at {w.id} is not a command: {command!r}"
            yield w.id, w.kind, seat, command


def test_the_contract_names_a_default_the_ruleset_refuses():
    import dataclasses

    from emissary_fake.ruleset import FAKE, ROUND, Post

    from tests.contract.conftest import swapped

    # a round whose silent seats are taken to post for a seat that never joined (TABLE-1 refuses it)
    wrong = dataclasses.replace(ROUND, on_silence=lambda game, w, seat: Post("zed", "(silent)"))
    planted = dataclasses.replace(FAKE, steps=(dataclasses.replace(FAKE.steps[0], windows=(wrong,)),))
    with swapped(planted), pytest.raises(pytest.fail.Exception, match=r"default on silence .*zed.* refused.*TABLE-1"):
        test_every_pending_seats_default_on_silence_is_accepted_at_every_window_random_play_reaches(planted)


def test_each_silent_powers_default_is_accepted_at_every_step_of_a_battle_closed_at_its_deadlines():
    """Powers' battles, which random play does not reach (its table places no armies): at each step's window, each
    power it waits on is taken to send ``BattleSilence``, accepted on a copy of the game; then the step closes at its
    deadline (CloseDueWindow, with the service's dice), so the battle runs on by defaults alone to its end."""
    from datetime import datetime, timedelta, timezone

    from application.service import Games
    from domain.powers import armies, battle, world
    from domain.powers.windows import BattleSilence
    from tests.domain.test_conformance_armies import block

    clock = [datetime(2026, 1, 1, tzinfo=timezone.utc)]
    games = Games(clock=lambda: clock[0])
    gid, _, _ = games.create_game("Silent battle", "GM")
    for name in ("North", "South"):
        add_power(games, gid, "gm", name, "city", "sovereign")
    gm = Caller.of("gm")
    games.run(gm, gid, world.DeclareMap(hexes=[{"hex": "2,0"}], towns=[], features=[]))
    for aid, power in (("n1", "north"), ("s1", "south")):
        games.run(gm, gid, armies.PlaceArmy(aid, aid, "2,0", 3, power, block=block(defense=6, armor=4)))
    for _ in range(3):
        games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement=""))
    games.run(Caller.of("north"), gid, battle.DeclareBattle("b1", "2,0", "north", ["south"]))
    sent: list[str] = []
    for _ in range(200):
        game = games.get_game(gid, for_update=False)
        w = game.open_window("battle")
        if w is None:
            break
        for seat, command in flow.defaults(game, w).items():
            assert command == BattleSilence(w.id, seat)
            trial = deepcopy(game)
            try:
                flow.send_default(trial, seat, command, games.context(Caller.of(seat), trial))
            except DomainError as err:
                pytest.fail(f"at {w.id} {seat}'s default on silence was refused: {err.as_dict()}")
            sent.append(f"{w.id}:{seat}")
            with pytest.raises(DomainError, match="BattleSilence"):  # no caller may send a silence
                games.run(Caller.of(seat), gid, command)
        clock[0] = datetime.fromisoformat(w.final_closes_at) + timedelta(minutes=1)
        assert games.close_due_window(gid, w.id)
    assert not games.get_game(gid, for_update=False).active_battles(), "the battle did not end by defaults"
    assert "battle-b1-setup:north" in sent and "battle-b1-setup:south" in sent
    assert any(":r1-" in s or "-r1-" in s for s in sent), sent
