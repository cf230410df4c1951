"""Game and power options are typed, bounded and known: anything else is refused when the game (or
the power) is created, naming the option, and nothing is recorded."""

from __future__ import annotations

import copy
import math

import pytest

from domain.errors import RuleViolation
from domain.powers.game import Game
from domain.powers.options import DEFAULT_OPTIONS, PowersOptions
from tests.domain.helpers import NOW, SEED, action_of, game_in_planning, later, seen, sheet_of, step_of


def refused_game(options: dict) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        Game.start("g", "gm", options=options)
    return info.value


@pytest.mark.parametrize(
    "options,field",
    [
        ({"resistance_hours": "soon"}, "options.resistance_hours"),  # used to break every later /resolve
        ({"planning_hours": 1e308}, "options.planning_hours"),  # used to stick the game in Tidings
        ({"planning_hours": -5}, "options.planning_hours"),  # used to open an expired window
        ({"planning_hours": 0}, "options.planning_hours"),
        ({"planning_hours": math.nan}, "options.planning_hours"),
        ({"planning_hours": math.inf}, "options.planning_hours"),
        ({"planning_hours": True}, "options.planning_hours"),
        ({"planning_hours": "72"}, "options.planning_hours"),
        ({"planning_hours": None}, "options.planning_hours"),
        ({"reminder_hours": 24}, "options.reminder_hours"),
        ({"reminder_hours": ["soon"]}, "options.reminder_hours.0"),
        ({"reminder_hours": [48, -1]}, "options.reminder_hours.1"),
        ({"reminder_hours": [1, 2, 3, 4, 5, 6]}, "options.reminder_hours"),
        ({"extension_cap_hours_per_window": -1}, "options.extension_cap_hours_per_window"),
        ({"extension_cap_hours_per_season": {"a": 1}}, "options.extension_cap_hours_per_season"),
        ({"critical_mode": "tripled"}, "options.critical_mode"),
        ({"colour": "red"}, "options.colour"),
        # P-AMB-3, P-AMB-4, P-AMB-7: only the values the rules read.
        ({"multi_resist_mode": "sum"}, "options.multi_resist_mode"),
        ({"notify_resister_at": "planning"}, "options.notify_resister_at"),
        ({"resister_sees_assets": True}, "options.resister_sees_assets"),
    ],
)
def test_ill_typed_out_of_range_or_unknown_game_options_are_refused_by_name(options, field):
    err = refused_game(options)
    assert err.field == field, err.message
    assert field in err.message


def test_game_options_must_be_an_object():
    assert refused_game(["planning_hours", 72]).field == "options"  # type: ignore[arg-type]


def test_an_unknown_option_refusal_lists_the_options_there_are():
    err = refused_game({"planing_hours": 10})
    assert "planning_hours" in err.message and "resistance_hours" in err.message


def test_valid_options_are_recorded_and_defaults_fill_in():
    g = Game.start("g", "gm", options={"planning_hours": 1 / 3600, "reminder_hours": [48, 2], "critical_mode": "rank"})
    created = g.collect_events()[0]
    assert created.options == {"planning_hours": 1 / 3600, "reminder_hours": [48.0, 2.0], "critical_mode": "rank"}
    assert seen(g)["game"]["options"] == {**DEFAULT_OPTIONS, **created.options}


def test_the_defaults_are_the_schema_defaults():
    """Every option but the months of a season, which the game keeps as its calendar (GM-28), not among its options."""
    assert PowersOptions().model_dump(exclude={"months_per_season"}) == DEFAULT_OPTIONS
    assert PowersOptions().months_per_season == 2


def test_the_months_of_a_season_are_an_option_of_the_game_kept_as_its_calendar():
    g = Game.start("g", "gm", options={"months_per_season": 3, "critical_mode": "rank"})
    created = g.collect_events()[0]
    assert created.months_per_season == 3 and created.options == {"critical_mode": "rank"}
    with pytest.raises(RuleViolation, match="months_per_season"):
        Game.start("g", "gm", options={"months_per_season": 4})


def test_p_amb_5_critical_mode_rank_is_read_by_the_tally():
    rolled = game_in_planning(
        ("c", "conspiracy", "circle"), assets=[("ag", "c", "Spy", "agent", 3, {"critical": True})]
    )
    rank = game_in_planning(
        ("c", "conspiracy", "circle"),
        assets=[("ag", "c", "Spy", "agent", 3, {"critical": True})],
        options={"critical_mode": "rank"},
    )
    from domain.dice import FixedRoller

    for g in (rolled, rank):
        g.submit_action(
            "c",
            "a1",
            "Plot",
            now=NOW,
            roller=FixedRoller([1, 1, 1]),
            assets=[{"asset_id": "ag", "mode": "critical"}],
            convert=0,
        )
    assert action_of(rolled, "a1")["successes"] == 0
    assert action_of(rank, "a1")["successes"] == 9


def test_a_game_with_a_long_window_opens_it_on_time():
    g = game_in_planning(("c", "conspiracy", "circle"), options={"planning_hours": 24 * 366})
    assert g.open_window("planning").closes_at == later(24 * 366).isoformat()


@pytest.mark.parametrize(
    "subclass,options,field",
    [
        ("adversary", {"private_actions": "lots"}, "options.private_actions"),  # used to answer 500
        ("adversary", {"private_actions": 5}, "options.private_actions"),
        ("adversary", {"public_actions": -1}, "options.public_actions"),
        ("adversary", {"public_actions": 1.5}, "options.public_actions"),
        ("adversary", {"minions": 3}, "options.minions"),
        ("wizard", {"private_actions": 1}, "options.private_actions"),  # only adversaries set their actions
        ("wizard", {"personal_touch": "yes"}, "options.personal_touch"),
        ("sovereign", {"subtle_titan": True}, "options.subtle_titan"),  # a Dragon's perk, read for Dragons only
        ("wizard", {"leading_army": True}, "options.leading_army"),
    ],
)
def test_ill_typed_or_unknown_power_options_are_refused_by_name(subclass, options, field):
    g = Game.start("g", "gm")
    g.collect_events()
    before = copy.deepcopy(g.state)
    cls = "city" if subclass == "sovereign" else "champion"
    with pytest.raises(RuleViolation) as info:
        g.add_power("p", "P", cls, subclass, options)
    assert info.value.field == field, info.value.message
    assert g.collect_events() == [] and g.state == before


def test_an_adversary_takes_at_most_four_actions_in_all():
    g = Game.start("g", "gm")
    with pytest.raises(RuleViolation) as info:
        g.add_power("p", "P", "champion", "adversary", {"public_actions": 3, "private_actions": 3})
    assert info.value.rule == "P-ACT-1"


def test_valid_power_options_are_recorded():
    g = Game.start("g", "gm")
    g.add_power("p", "P", "champion", "adversary", {"public_actions": 1, "private_actions": 1})
    g.add_power("d", "D", "champion", "dragon", {"subtle_titan": True, "personal_touch": True})
    assert sheet_of(g, "p")["options"] == {"public_actions": 1, "private_actions": 1}
    assert (sheet_of(g, "d")["quota"]["public"], sheet_of(g, "d")["quota"]["private"]) == (2, 2)


def test_a_game_created_before_options_were_typed_still_replays():
    g = Game(
        name="old",
        gm_name="gm",
        timezone="UTC",
        ruleset="powers",
        rules_version="powers-2026.11",
        options={"multi_resist_mode": "sum"},
        months_per_season=2,
        actor="gm",
        audience=["public"],
    )
    g.add_power("c", "C", "conspiracy", "circle")
    g.advance(NOW, SEED)
    g.advance(NOW, SEED)
    assert step_of(g) == "planning"
