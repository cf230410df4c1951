"""A result re-decided after the fact explains what the board shows (issue 29, items 1 and 3): a game that adopts a
house version of its ruleset (``tests/domain/rules_variants.py``) from an EARLIER phase re-decides the results recorded
since, and the "why" of each result the adoption amended is derived by the adopted version, says so (the version, the
phase, the rule id) and recomputes the amended result from its own terms (P-DICE-4's house margin; A-RECK-3's point
per 3 provision). Observers are told of the adoption as the seats are (a rules change is public): their derivations
follow it. For every viewer: nothing shown that its own events do not carry (the contract's ``leaks``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import Any

import pytest

from application import replay as replays
from application.service import Caller, Games
from domain import visibility as vis
from domain.lodge.commands import AdvancePhase
from domain.platform import explain
from domain.powers import commands as pc
from tests.covenants.play import Dice, skip_season
from tests.domain import rules_variants as variants
from tests.domain.lodge_helpers import play_lodge_turn
from tests.domain.replay_helpers import recorded
from tests.domain.test_covenants_worked_examples import package, seated, villagers_make
from tests.domain.test_explain_adopted import derived, holds_for_every_viewer
from tests.scenarios import play_rich_month

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
GM = Caller.of("gm")


@pytest.fixture
def games() -> Iterator[Games]:
    g = Games(clock=lambda: NOW)
    yield g
    g.close()


def told_lines(games: Games, game_id: str, viewer: str) -> list[dict[str, Any]]:
    return [e for e in games.visible_events(game_id, viewer, limit=100_000) if e["type"] == "RulesChangeTold"]


def steps_of(d: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {s["id"]: s for s in d["steps"]}


def test_p_dice_4_an_action_amended_by_an_adoption_from_an_earlier_phase_explains_the_amended_result(games):
    """The month resolves by the printed rule; then the GM adopts ``powers-house`` from setup: every action of 0 net
    successes against difficulty 0 now fails (the board shows it). Its "why" is the house rule's, needs one success
    more, says it was re-decided under powers-house from setup (P-DICE-4), and publishes the amended success and
    excess, for the GM, each power that was shown it and the observers; the old code explained the printed result."""
    with variants.installed(variants.POWERS_HOUSE):
        m = play_rich_month(games)
        resolved = recorded(games, m.game_id, "ActionResolved")
        amended = {e.action_id: variants.harder(e.net, e.difficulty) for e in resolved}
        changed = {a for a, e in zip(amended, resolved, strict=True) if amended[a] != (e.success, e.excess)}
        assert changed, "the month must have an action the house rule decides otherwise"
        assert replays.adopt(games, GM, m.game_id, "powers-house", "setup")["result"]["differences"] > 0
        seen = holds_for_every_viewer(games, m.game_id, ["gm", *m.powers.values(), vis.OBSERVER])
        explained = 0
        for viewer, found in seen.items():
            for action_id in changed:
                d = found.get(f"action:{action_id}")
                if d is None:
                    continue
                explained += 1
                steps = steps_of(d)
                assert d["redecided"] == {"version": "powers-house", "from_phase": "setup", "rules": ["P-DICE-4"]}
                assert steps["redecided"]["rule"] == "P-DICE-4"
                assert (
                    steps["redecided"]["text"] == "re-decided under powers-house from setup, when the game adopted it"
                )
                assert steps["needed"]["params"]["version"] == "powers-house", viewer
                published = d["result"]["published"]
                assert (published["success"], published["excess"]) == amended[action_id], (viewer, action_id)
                assert (steps["success"]["value"], steps["excess"]["value"]) == amended[action_id]
        assert explained >= len(changed) + 1  # the GM's, and at least one other viewer's
        # an action the adoption left as it was is explained as decided (the printed rule)
        for e in resolved:
            if e.action_id not in changed:
                assert "redecided" not in seen["gm"][f"action:{e.action_id}"]


def test_p_dice_4_a_seat_is_numbered_only_the_results_it_was_shown(games):
    """No leak: each seat's line names, by its own numbers, only re-decided results among the events it was shown (the
    event it numbers so is that result's), never the game's versions; the GM's line numbers the GM's events."""
    with variants.installed(variants.POWERS_HOUSE):
        m = play_rich_month(games)
        replays.adopt(games, GM, m.game_id, "powers-house", "setup")
        for viewer in ["gm", *m.powers.values(), vis.OBSERVER]:
            events = games.visible_events(m.game_id, viewer, limit=100_000)
            by_seq = {e["seq"]: e for e in events}
            lines = [e for e in events if e["type"] == "RulesChangeTold"]
            own = lines[0]["data"]
            for a in own["amended"]:
                assert by_seq[a["seq"]]["type"] == a["type"] == "ActionResolved", viewer
                assert set(a) == {"seq", "type", "rules", "result"}
            if viewer != "gm":
                assert all("version" not in c for line in lines for c in line["data"]["changes"]), viewer


def test_an_observer_is_told_of_an_adoption_and_its_derivations_follow_it(games):
    """Observers get the public line (``public``), every seat sees it after its own; adopted before Resolution, the
    observer's derivation of a public action needs the house rule's success more (the old code told observers nothing,
    so their derivations used the printed rule)."""
    with variants.installed(variants.POWERS_HOUSE):
        m = play_rich_month(games, finish=False)
        replays.adopt(games, GM, m.game_id, "powers-house", "setup")
        (line,) = told_lines(games, m.game_id, vis.OBSERVER)
        assert line["data"]["public"] is True and line["data"]["rules_version"] == "powers-house"
        for power in m.powers.values():
            lines = told_lines(games, m.game_id, power)
            assert [x["data"]["public"] for x in lines] == [False, True], power
        games.send(m.game_id, "gm", pc.Advance())
        games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))
        sov = m.powers["sov"]
        games.send(m.game_id, sov, pc.DeclareReaction(sov, m.actions["duel"], [{"asset_id": m.assets["sov-might"]}], 1))
        seen = holds_for_every_viewer(games, m.game_id, [vis.OBSERVER])[vis.OBSERVER]
        actions = [d for d in seen.values() if d["kind"] == "action" and not d["provisional"]]
        assert actions, "the observer must be shown a resolved action"
        for d in actions:
            assert steps_of(d)["needed"]["params"]["version"] == "powers-house"


@contextmanager
def a_year_reckoned_then_a_house_rule_adopted() -> Iterator[tuple[Any, Any]]:
    """A year reckoned by the printed A-RECK-3 (8 points for 9 provision), then ``covenants-house`` (a point per 3)
    adopted by the host from setup: the table and the year's ``YearReckoned``, its services closed after."""
    with variants.installed(variants.COVENANTS_HOUSE):
        t = seated(Dice(), {"ann": 12}, options={**package(villagers_make(6)), "yearly_consumes": False})
        try:
            for _ in range(4):
                skip_season(t)
            (reckoning,) = recorded(t.games, t.game_id, "YearReckoned")
            assert reckoning.points == {"ann": 8, "bob": 8, "cy": 8}
            replays.adopt(t.games, Caller.of("ann"), t.game_id, "covenants-house", "setup")
            yield t, reckoning
        finally:
            t.games.close()


def test_a_reck_3_a_reckoning_amended_by_an_adoption_from_an_earlier_phase_explains_the_amended_points():
    """A year reckoned by the printed A-RECK-3 (8 points for 9 provision), then ``covenants-house`` adopted from setup:
    the board shows 9; the Reckoning's "why" divides by 3 and publishes 9, saying it was re-decided, for the host,
    every covenant and the observers."""
    with a_year_reckoned_then_a_house_rule_adopted() as (t, reckoning):
        seen = holds_for_every_viewer(t.games, t.game_id, ["gm", *t.seats, vis.OBSERVER])
        for viewer, found in seen.items():
            d = found[f"reckoning:{reckoning.terms['year']}"]
            steps = steps_of(d)
            assert d["redecided"]["version"] == "covenants-house", viewer
            assert steps["redecided"]["rule"] == "A-RECK-3", viewer
            assert steps["ann-provision-points"]["args"][1] == 3, viewer
            assert d["result"]["published"]["points:ann"] == 9, viewer


def test_l_score_1_an_adoption_from_an_earlier_phase_keeps_every_lodge_derivation_whole(games):
    """The Lodge derives its effects, which L-SCORE-1 (the house rule) does not enter: adopted from setup after a
    turn, every viewer's derivations still recompute and leak nothing, and observers are told."""
    with variants.installed(variants.LODGE_HOUSE):
        game_id = play_lodge_turn(games, cleanup=False)
        games.run(GM, game_id, AdvancePhase("black-rose"))
        replays.adopt(games, GM, game_id, "lodge-house", "setup")
        seen = holds_for_every_viewer(games, game_id, ["gm", "ann", "bob", "cy", vis.OBSERVER])
        assert any(d["kind"] == "effect" for d in seen["gm"].values())
        assert [x["data"]["public"] for x in told_lines(games, game_id, vis.OBSERVER)] == [True]
        assert derived(games, game_id, "gm")[0] == seen["gm"]


def test_a_rules_change_told_stored_at_version_1_upcasts_to_a_seats_line_that_amends_nothing():
    """A line recorded before version 2 numbered no amended result and was a seat's own (observers were told none):
    its upcast says so, and a derivation reading it still switches the version in force, amending nothing."""
    from domain.platform.game import PlatformGame

    stored = {"rules_version": "powers-house", "previous_version": "powers-1", "from_phase": "setup", "changes": []}
    PlatformGame.RulesChangeTold.upcast_v1_v2(stored)
    assert stored["amended"] == [] and stored["public"] is False
    line = {"seq": 2, "type": "RulesChangeTold", "data": stored}
    result = {"seq": 1, "type": "ActionResolved", "data": {"success": True}}
    shown, applied = explain.redecided([result, line])
    assert shown == [result, line] and applied == {}
