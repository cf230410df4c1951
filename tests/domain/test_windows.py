"""Timed windows: deadlines, per-power extensions (GM-8), early close (P-AMB-39), reminders, DST."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from domain.dice import FixedRoller
from domain.errors import RuleViolation
from domain.powers.views import board_view
from tests.domain.helpers import (
    NOW,
    SEED,
    action_of,
    game_in_planning,
    later,
    sheet_of,
    step_of,
    submit,
    window_of,
)


def resistance_game(options: dict | None = None):
    g = game_in_planning(
        ("a", "champion", "dragon"),
        ("b", "city", "sovereign"),
        ("c", "city", "overlord"),
        assets=[
            ("a-s", "a", "might", "skill", 2),
            ("b-s", "b", "might", "skill", 1),
            ("c-s", "c", "might", "skill", 1),
        ],
        options=options,
    )
    submit(
        g,
        "a",
        "A1",
        [5, 5],
        slot="public",
        targets=["b", "c"],
        resistible=True,
        skill="might",
        assets=[{"asset_id": "a-s"}],
        convert=0,
    )
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    return g


def test_p_ex_16_an_extension_keeps_the_window_open_for_that_power_only():
    """t0+20h C asks; the GM grants until t0+36h; at t0+24h only C may still act; the window closes at t0+36h."""
    g = resistance_game()
    g.request_extension("c", "s1m1-resistance", 12, "req-1", now=later(20))
    assert g.grant_extension("req-1", now=later(20.5)) is True
    w = window_of(g, "s1m1-resistance", "c")
    assert w["my_deadline"] == (NOW + timedelta(hours=36)).isoformat()
    assert window_of(g, "s1m1-resistance")["my_deadline"] == w["my_deadline"]  # the GM's: when it finally closes
    with pytest.raises(RuleViolation) as late:
        g.declare_reaction("b", "rb", "A1", now=later(25), roller=FixedRoller([6]), assets=[{"asset_id": "b-s"}])
    assert late.value.rule == "P-RES-2"
    with pytest.raises(RuleViolation) as early:  # a worker at t0+24h must not close it: C still has time
        g.close_window("s1m1-resistance", now=later(24))
    assert early.value.rule == "P-RES-2" and early.value.field == "window_id"
    assert early.value.message == f"this window closes at {(NOW + timedelta(hours=36)).isoformat()}"
    g.declare_reaction("c", "rc", "A1", now=later(30), roller=FixedRoller([6]), assets=[{"asset_id": "c-s"}])
    assert not window_of(g, "s1m1-resistance")["closed"]  # B has not acted or waived
    assert g.close_window("s1m1-resistance", now=later(36)) is True
    assert action_of(g, "A1")["result"]["net"] == 1 and step_of(g) == "battle"


def test_granting_the_same_request_twice_changes_nothing():
    g = resistance_game()
    g.request_extension("c", "s1m1-resistance", 6, "req-1", now=later(1))
    assert g.grant_extension("req-1", now=later(2)) is True
    g.collect_events()
    assert g.grant_extension("req-1", now=later(2)) is False
    assert g.collect_events() == []
    assert sheet_of(g, "c")["extension_hours_used"] == 6


def test_the_extension_policy_caps_hours_per_window_and_per_season():
    """Per window (24 h by default) and per season, counted across the season's windows by the grants
    themselves; a new season starts afresh."""
    g = resistance_game(options={"extension_cap_hours_per_season": 30})
    g.request_extension("c", "s1m1-resistance", 20, "r1", now=later(1))
    g.grant_extension("r1", now=later(1))
    g.request_extension("c", "s1m1-resistance", 8, "r2", now=later(2))
    with pytest.raises(RuleViolation) as capped:
        g.grant_extension("r2", now=later(2))
    assert capped.value.rule == "GM-8" and capped.value.field == "hours"
    assert "24 h of extension per seat per window; C has 20 h already" in capped.value.message
    g.grant_extension("r2", now=later(2), hours=4)  # the GM may grant less
    g.waive_reactions("b", now=later(3))
    g.waive_reactions("c", now=later(3))
    g.advance(later(3), SEED)  # month 2, same season: C has used 24 h of its 30
    g.request_extension("c", "s1m2-planning", 7, "r3", now=later(4))
    with pytest.raises(RuleViolation) as season:
        g.grant_extension("r3", now=later(4))
    assert season.value.rule == "GM-8" and season.value.field == "hours"
    said = "at most 30 h of extensions per seat (its option extension_cap_hours_per_season); C has used 24 h"
    assert said in season.value.message
    assert g.grant_extension("r3", now=later(4), hours=6) is True  # exactly up to the cap
    g.request_extension("b", "s1m2-planning", 7, "r4", now=later(5))
    assert g.grant_extension("r4", now=later(5)) is True  # B has its own 30 h
    assert (sheet_of(g, "b")["extension_hours_used"], sheet_of(g, "c")["extension_hours_used"]) == (7, 30)


def test_an_extension_request_is_refused_without_anything_left_to_do_or_twice_pending():
    g = resistance_game()
    g.waive_reactions("b", now=later(1))
    with pytest.raises(RuleViolation) as nothing_left:
        g.request_extension("b", "s1m1-resistance", 2, "r1", now=later(2))
    assert nothing_left.value.rule == "GM-8"
    assert nothing_left.value.message == "you have nothing left to do in this window"
    g.request_extension("c", "s1m1-resistance", 2, "r2", now=later(2))
    with pytest.raises(RuleViolation) as twice:
        g.request_extension("c", "s1m1-resistance", 2, "r3", now=later(2))
    assert twice.value.rule == "GM-8" and twice.value.message == "you already have a request waiting for the GM"
    g.refuse_extension("r2", "no")
    assert window_of(g, "s1m1-resistance")["requests"]["r2"]["status"] == "refused"


def test_p_amb_39_planning_closes_early_when_every_power_is_ready():
    g = game_in_planning(("a", "conspiracy", "circle"), ("b", "city", "sovereign"))
    for i in range(4):
        submit(g, "b", f"b{i}", [], slot="public", convert=0)
    submit(g, "a", "a1", [], convert=0)
    g.declare_ready("a", now=later(1))  # b has used all its actions: nobody is pending
    assert step_of(g) == "resolution"
    assert window_of(g, "s1m1-planning")["reason"] == "everyone is ready"
    schemes = [a for a in sheet_of(g, "a")["assets"] if a["cls"] == "scheme" and not a["shared"]]
    assert len(schemes) == 3  # closing Planning still converts a's unused actions


def test_planning_stays_open_while_someone_may_still_act():
    g = game_in_planning(("a", "conspiracy", "circle"), ("b", "city", "sovereign"))
    g.declare_ready("a", now=later(1))
    assert step_of(g) == "planning" and g.planning_pending() == ["b"]


def test_reminders_go_once_per_offset_to_those_who_have_not_acted():
    g = game_in_planning(("a", "conspiracy", "circle"), ("b", "city", "sovereign"))
    assert g.queue_reminders("s1m1-planning", 24, now=later(47)) == []  # not yet 24 h before
    g.declare_ready("a", now=later(40))
    assert g.queue_reminders("s1m1-planning", 24, now=later(48)) == ["b"]
    assert g.queue_reminders("s1m1-planning", 24, now=later(49)) == []
    assert g.queue_reminders("s1m1-planning", [24, 1], now=later(50)) == []  # 24 h sent, 1 h not due yet
    assert g.queue_reminders("s1m1-planning", 1, now=later(71.5)) == ["b"]
    queued = [e for e in g.collect_events() if type(e).__name__ == "RemindersQueued"]
    assert [(e.offset_hours, e.recipients, e.audience) for e in queued] == [(24, ["b"], ["gm"]), (1, ["b"], ["gm"])]


def test_when_several_reminders_fall_due_together_only_the_nearest_is_sent():
    g = game_in_planning(("a", "conspiracy", "circle"))
    assert g.queue_reminders("s1m1-planning", [24, 1], now=later(71.5)) == ["a"]
    queued = [e for e in g.collect_events() if type(e).__name__ == "RemindersQueued"]
    assert [(e.offset_hours, e.covers) for e in queued] == [(1.0, [1.0, 24.0])]
    assert g.queue_reminders("s1m1-planning", [24, 1], now=later(71.6)) == []


def test_deadlines_are_utc_instants_that_daylight_saving_never_moves():
    """Europe/Paris leaves summer time on 2026-10-25: a 72 h window opened the day before ends 72 real
    hours later, which is an hour earlier on the local clock."""
    from domain.powers.game import Game

    opened = datetime(2026, 10, 24, 10, 0, tzinfo=timezone.utc)  # 12:00 in Paris (UTC+2)
    g = Game.start("DST", "GM", timezone="Europe/Paris")
    g.add_power("a", "A", "conspiracy", "circle")
    g.advance(opened, SEED)
    g.advance(opened, SEED)
    w = window_of(g, "s1m1-planning")
    assert datetime.fromisoformat(w["closes_at"]) - opened == timedelta(hours=72)
    local = board_view(g, "a")["windows"][0]["my_deadline_local"]
    assert local == "2026-10-27T11:00:00+01:00"  # 10:00 UTC; the clocks went back, the instant did not move
    g.set_deadline("s1m1-planning", datetime(2026, 10, 28, 18, 0, tzinfo=ZoneInfo("Europe/Paris")), now=opened)
    assert window_of(g, "s1m1-planning")["closes_at"] == "2026-10-28T17:00:00+00:00"


def test_a_deadline_cannot_be_set_in_the_past():
    g = game_in_planning(("a", "conspiracy", "circle"))
    with pytest.raises(RuleViolation) as past:
        g.set_deadline("s1m1-planning", NOW - timedelta(minutes=1), now=NOW)
    assert (past.value.rule, past.value.field) == ("P.1.2", "closes_at")


def test_closing_is_idempotent_and_a_late_command_is_refused_before_any_worker_runs():
    g = game_in_planning(("a", "conspiracy", "circle"))
    with pytest.raises(RuleViolation) as late:
        submit(g, "a", "late", [], now=later(72))
    assert (late.value.rule, late.value.field) == ("P.1.2", "deadline")
    assert g.close_window("s1m1-planning", now=later(72)) is True
    assert g.close_window("s1m1-planning", now=later(72)) is False
    closes = [e for e in g.collect_events() if type(e).__name__ == "WindowClosed"]
    assert len(closes) == 1


def _planning_left_open_past_its_step(g):
    """Arrange a Planning window still open after its step is over (as a rollback's restored state can hold)."""
    g.state.step = "resolution"


def test_the_command_path_does_not_close_a_planning_window_whose_step_is_over_p_1_2():
    """P.1.2: closing Planning turns the unused actions into schemes, so a Planning window left open past its step
    is not closed by anyone: the GM's CloseWindow (the platform's flow, ``WindowRule.stale``) is a no-op, as
    ``Game.close_window`` is, and records nothing."""
    from domain.platform.commands import PLATFORM_COMMANDS, CloseWindow, trial_context

    g = game_in_planning(("a", "city", "sovereign"), ("b", "conspiracy", "circle"))
    w = g.open_window("planning")
    assert w is not None
    _planning_left_open_past_its_step(g)
    g.collect_events()
    now = datetime.fromisoformat(w.final_closes_at) + timedelta(hours=1)
    result = PLATFORM_COMMANDS[CloseWindow](g, CloseWindow(w.id), trial_context(g, "gm", now))
    assert result == {"closed": False} and g.collect_events() == []
    assert g.close_window(w.id, now=now) is False and g.collect_events() == []
    assert g.open_window("planning") is not None
