"""Rules changes replayed in Powers (issue 29 item 3): a month of four powers (``play_rich_month``: private, public,
collaborative, sealed and resisted actions) replayed under ``powers-house``, a house rule of P-DICE-4 installed only
in tests (an action needs one success more than its difficulty; its excess counts from there). Each resolved action
is re-decided from the net successes and difficulty it recorded, never new dice; adopting it from a phase re-decides
only the actions resolved since, and each power is told only the changes to the actions it may see; a month resolved
after adopting it is decided by it."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from application import replay as replays
from application.service import Caller, Games
from domain import visibility as vis
from domain.powers import commands as pc
from domain.powers import rules
from tests.domain import rules_variants as variants
from tests.domain.replay_helpers import kinds_seen, recorded, told, unseen_changes
from tests.scenarios import play_rich_month

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
GM = Caller.of("gm")


@pytest.fixture
def games():
    g = Games(clock=lambda: NOW)
    yield g
    g.close()


@pytest.fixture
def month(games: Games):
    with variants.installed(variants.POWERS_HOUSE):
        yield play_rich_month(games)


def house_results(games: Games, game_id: str, since: int = 0) -> list[tuple[int, str, list[str], dict]]:
    """What P-DICE-4's house rule changes of each action resolved after version ``since``, from its own record."""
    out = []
    for e in recorded(games, game_id, "ActionResolved"):
        success, excess = variants.harder(e.net, e.difficulty)
        result = {
            k: {"before": before, "after": after}
            for k, before, after in (("success", e.success, success), ("excess", e.excess, excess))
            if before != after
        }
        if result and e.originator_version > since:
            out.append((e.originator_version, "ActionResolved", ["P-DICE-4"], result))
    return out


def test_p_dice_4_replayed_under_the_pinned_version_re_decides_every_action_alike(games, month):
    out = replays.replay(games, GM, month.game_id, games.read(month.game_id, lambda g: g.ruleset.version))
    assert out["differences"] == [] and out["final"] == []
    assert len(recorded(games, month.game_id, "ActionResolved")) == 4  # every action re-decided, none changed


def test_p_dice_4_house_rule_replayed_shows_exactly_the_actions_whose_success_or_excess_it_changes(games, month):
    before = len(list(games.iter_events(month.game_id)))
    out = replays.replay(games, GM, month.game_id, "powers-house")
    assert (out["version"], out["changes"]) == ("powers-house", variants.POWERS_HOUSE.changes)
    results = [(d["version"], d["type"], d["rules"], d["result"]) for d in out["differences"] if d["result"]]
    expected = house_results(games, month.game_id)
    assert results == expected
    # The actions of difficulty 0 (cult's private rite, the public one) change whatever the dice: 0 net now fails,
    # any more loses one excess.
    zero = [e for e in recorded(games, month.game_id, "ActionResolved") if e.difficulty == 0]
    assert len(zero) >= 2 and {e.originator_version for e in zero} <= {v for v, *_ in expected}
    for d in out["differences"]:  # the GM's view moves where the results do: the action's result in the board
        if d["result"].get("success"):
            assert any(s["path"].endswith("result.success") for s in d["state"]), d
    assert len(list(games.iter_events(month.game_id))) == before  # a replay records nothing


def resolved_results(g) -> dict:
    """Each resolved action's success and excess, as the game's state holds them (loaded from the store)."""
    return {a: (x.success, x.excess) for a, x in g.state.actions.items() if x.status == "resolved"}


def test_p_dice_4_adopted_from_resistance_re_decides_only_the_actions_resolved_since(games, month):
    gid = month.game_id
    start = games.phase_version(gid, "s1m1-resistance", None)
    stood = {e.action_id: (e.success, e.excess) for e in recorded(games, gid, "ActionResolved")}
    expected = house_results(games, gid, since=start)
    out = replays.adopt(games, GM, gid, "powers-house", "s1m1-resistance")["result"]
    assert (out["pinned"], out["from_version"], out["differences"]) == ("powers-house", start, len(expected))
    (adopted,) = recorded(games, gid, "RulesAdopted")
    assert adopted.audience == [vis.SEALED] and adopted.from_phase == "s1m1-resistance"
    assert adopted.amended == {str(v): {k: c["after"] for k, c in r.items()} for v, _, _, r in expected}

    now = games.read(gid, resolved_results)
    for e in recorded(games, gid, "ActionResolved"):
        want = variants.harder(e.net, e.difficulty) if e.originator_version > start else stood[e.action_id]
        assert now[e.action_id] == want, e.action_id
    games._evict(games.get_game(gid))  # loaded again from the store: the adoption re-folds alike
    assert games.read(gid, resolved_results) == now and games.read(gid, lambda g: g.ruleset.version) == "powers-house"


def test_p_dice_4_each_power_is_told_only_the_changes_to_the_actions_it_may_see(games, month):
    gid = month.game_id
    replays.adopt(games, GM, gid, "powers-house", "setup")
    expected = house_results(games, gid)
    (mine,) = [t for t in told(games, gid, "gm") if any("version" in c for c in t)]
    assert [(c["version"], c["rules"], c["result"]) for c in mine] == [(v, r, x) for v, _, r, x in expected]
    audiences = {e.originator_version: e.audience for e in recorded(games, gid, "ActionResolved")}
    for seat in month.powers.values():
        (lines,) = told(games, gid, seat)
        results = [c for c in lines if c["type"] != "view"]
        may = [x for v, _, _, x in expected if vis.can_see(audiences[v], seat)]
        assert [c["result"] for c in results] == may, seat
        assert all("version" not in c for c in lines), seat  # no game version: it counts what a seat was not shown
        assert unseen_changes(games, gid, seat, lines) == [], seat
        assert "RulesAdopted" not in kinds_seen(games, gid, seat)
    cult_only = [v for v, _, _, _ in expected if audiences[v] == vis.powers(["cult"])]
    assert cult_only, "cult's private rite changes (difficulty 0)"


def test_p_dice_4_the_no_leak_check_catches_a_change_planted_in_another_powers_line(games, month):
    gid = month.game_id
    replays.adopt(games, GM, gid, "powers-house", "setup")
    audiences = {e.originator_version: e.audience for e in recorded(games, gid, "ActionResolved")}
    (v, _, rules, result), *_ = [x for x in house_results(games, gid) if audiences[x[0]] == vis.powers(["cult"])]
    planted = {"type": "ActionResolved", "rules": rules, "result": result}  # cult's private rite, told to wiz
    (wiz,) = told(games, gid, "wiz")
    assert unseen_changes(games, gid, "wiz", [*wiz, planted]) == [planted]
    (cult,) = told(games, gid, "cult")
    assert unseen_changes(games, gid, "cult", cult) == []


def test_p_dice_4_a_month_resolved_after_adopting_the_house_rule_is_decided_by_it(games):
    with variants.installed(variants.POWERS_HOUSE):
        m = play_rich_month(games, finish=False)  # Planning: nothing resolved yet
        assert replays.adopt(games, GM, m.game_id, "powers-house", "setup")["result"]["differences"] == 0
        games.send(m.game_id, "gm", pc.Advance())
        games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))
        sov = m.powers["sov"]
        games.send(m.game_id, sov, pc.DeclareReaction(sov, m.actions["duel"], [{"asset_id": m.assets["sov-might"]}], 1))
        resolved = recorded(games, m.game_id, "ActionResolved")
        assert len(resolved) == 4
        assert all((e.success, e.excess) == variants.harder(e.net, e.difficulty) for e in resolved)
        assert any((e.success, e.excess) != rules.outcome(e.net, e.difficulty) for e in resolved)  # difficulty 0
