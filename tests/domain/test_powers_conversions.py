"""The conversions of a rolled pool as pure functions over it (domain.powers.actions; P-DICE-3, P-AMB-5)."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.powers.actions import choose_conversions, conversion_weights, convertible_dice
from domain.powers.state import Die, Pool, PoolAsset


def pool(*dice: tuple[int, str], critical: str = "") -> Pool:
    owners = sorted({a for _, a in dice})
    return Pool(
        roll_no=1,
        assets=[PoolAsset(a, a, "agent", 3, "critical" if a == critical else "normal") for a in owners],
        dice=[Die(face, asset) for face, asset in dice],
    )


def test_a_rank_mode_critical_assets_3s_and_4s_add_nothing_so_they_are_not_convertible():
    p = pool((3, "a"), (4, "b"), (6, "b"), critical="a")
    assert conversion_weights(p, "rolled") == {"a": 3, "b": 1}
    assert convertible_dice(p, "rolled") == [0, 1]
    assert convertible_dice(p, "rank") == [1]


def test_up_to_convert_dice_go_where_they_count_most_and_named_dice_are_checked():
    p = pool((3, "a"), (4, "b"), (6, "b"), critical="a")
    assert choose_conversions(p, 1, None, "rolled") == [0]
    assert choose_conversions(p, None, [1], "rolled") == [1]
    with pytest.raises(RuleViolation) as err:
        choose_conversions(p, None, [2], "rolled")
    assert err.value.rule == "P-DICE-3"
    with pytest.raises(RuleViolation) as err:
        choose_conversions(p, 2, None, "rank")
    assert err.value.rule == "P-AMB-5"
    with pytest.raises(RuleViolation) as err:
        choose_conversions(p, None, [0], "rank")
    assert err.value.rule == "P-AMB-5"
