"""What Powers offers each principal (``domain.powers.offers``, issue 24): the commands random play picks among, each
one its handler accepts, through every step of the calendar (P.1.1, P.1.2) and a battle's (P.1.3)."""

from __future__ import annotations

import random

import pytest

from domain.errors import DomainError
from domain.ids import GM
from domain.platform.commands import CloseWindow, DeclareReady
from domain.powers import commands as pc
from domain.powers.offers import _context, offers
from tests.domain.battle_helpers import battle_game
from tests.domain.helpers import seen, step_of
from tests.domain.test_battle_flow import declare


def _send(game, principal: str, command) -> None:
    game.ruleset.handler(command)(game, command, _context(game, principal))


def test_p_1_3_a_battle_is_fought_to_its_end_by_random_choice_among_the_offers():
    """Each battle step offers the seats it waits on what passes it (a setup, a hold, a retreat...), and the GM the
    window's close (its default for silence): chosen at random, every offer is accepted and the battle ends."""
    g = battle_game()
    declare(g)
    rng = random.Random(7)
    steps = set()
    for _ in range(400):
        b = g.battle("b1")
        if b["step"] == "ended":
            break
        steps.add(b["step"])
        offered = {p: offers(g, p) for p in [GM, *(p["power_id"] for p in seen(g)["powers"])]}
        assert offered[GM] == [CloseWindow(b["window"], expected_step="battle")]
        waiting = g.battle_pending(b)
        assert waiting and all(offered[p] for p in waiting), (b["step"], waiting)
        who = GM if rng.random() < 0.1 else rng.choice(waiting)
        _send(g, who, rng.choice(offered[who]))
    assert g.battle("b1")["step"] == "ended"
    assert {"setup", "commands", "cleanup"} <= steps


def test_p_1_2_planning_offers_an_action_per_slot_left_and_ready_once():
    g = battle_game()  # a game at month 1's battle step: the GM may advance once no battle is fighting
    assert offers(g, GM) == [pc.Advance(expected_step="battle")]
    _send(g, GM, pc.Advance(expected_step="battle"))  # month 2's Planning
    north = offers(g, "north")
    assert DeclareReady("north") in north and all(isinstance(c, pc.SubmitAction | DeclareReady) for c in north), north
    assert {c.slot for c in north if isinstance(c, pc.SubmitAction)} <= {"public", "private"}
    _send(g, "north", DeclareReady("north"))
    after = offers(g, "north")
    assert DeclareReady("north") not in after and after  # ready once (P-AMB-39); a ready power may still submit
    _send(g, "north", after[0])


def test_a_seat_offered_nothing_is_refused_an_action():
    g = battle_game()
    _send(g, GM, pc.Advance(expected_step="battle"))
    while step_of(g) == "planning":
        _send(g, GM, pc.Advance(expected_step="planning"))  # Planning closes: Resolution, the GM's to publish
    assert step_of(g) == "resolution" and offers(g, "north") == []
    assert offers(g, GM) == [pc.Resolve(expected_step="resolution")]
    with pytest.raises(DomainError):
        _send(g, "north", pc.SubmitAction("north", "too late"))
