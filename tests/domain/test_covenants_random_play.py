"""Seeded random legal play of covenant games with silence (issue 24, "no game can get stuck"; DESIGN "Promises
are platform properties"): 3 and 4 covenants with the default options (cards, events and yearly consumption on),
each seat choosing among the commands the ruleset offers it, half the table never answering and the others now
and then silent (or, in every other game, everyone playing and now and then silent), so deadlines pass and the
workers' close applies each window's default (H-9).

Each game is bounded (``EMISSARY_RANDOM_PLAY_STEPS`` steps, a step being a command or a closed deadline; set it
higher for a longer soak). Nothing may raise, no offered command may be refused, no seat at turn may be offered
nothing; at least 19 games in 20 reach the target score or the cap with their awaited deadline still closing."""

from __future__ import annotations

import os

import pytest

from tests.covenants.random_play import play

SEEDS = range(20)
# Even seeds: half the table never answers, the others now and then; odd seeds: everyone plays, silent at times.
POLICIES = ({"silent": None, "hush": 0.15}, {"silent": 0, "hush": 0.1})
STEPS = int(os.environ.get("EMISSARY_RANDOM_PLAY_STEPS", "400"))


@pytest.mark.parametrize("players", [3, 4])
def test_random_legal_play_with_silent_seats_ends_or_keeps_moving(players):
    outcomes = [play(seed, players, max_steps=STEPS, **POLICIES[seed % 2]) for seed in SEEDS]
    broken = [(o.seed, o.broken) for o in outcomes if o.broken]
    assert broken == [], broken
    fine = [o for o in outcomes if o.ended or o.moving]
    blocked = [(o.seed, o.blocked) for o in outcomes if o.blocked]
    assert len(fine) >= 19, blocked
    # the seasons turn: a game at the cap got there by moving through the calendar, not by spinning in one phase
    assert all(o.ended or o.seasons >= STEPS // 100 for o in fine), [(o.seed, o.seasons) for o in fine]
