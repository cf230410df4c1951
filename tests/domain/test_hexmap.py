"""Hex geometry the map rules stand on (P-ACT-4, P-INFL-2 "surrounding hexes")."""

import pytest

from domain.errors import RuleViolation
from domain.powers.hexmap import distance, neighbours, within


def test_p_act_4_every_surrounding_hex_is_one_step_away_and_there_are_six():
    around = neighbours("2,-1")
    assert len(set(around)) == 6
    assert all(distance("2,-1", h) == 1 for h in around)
    assert "2,-1" not in around


def test_p_act_4_distance_counts_steps_across_the_grid():
    assert distance("0,0", "0,0") == 0
    assert distance("0,0", "3,-3") == 3
    assert distance("-2,1", "2,-1") == 4
    assert within("0,0", "2,0", 2) and not within("0,0", "3,0", 2)


@pytest.mark.parametrize("bad", ["", "1", "a,b", "1,2,3", None])
def test_p_act_4_a_hex_that_is_not_axial_coordinates_is_refused_naming_the_rule(bad):
    with pytest.raises(RuleViolation, match="axial") as refused:
        distance("0,0", bad)
    assert refused.value.rule == "P-ACT-4"
