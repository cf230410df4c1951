"""Rules changes replayed in the Lodge (issue 29 item 3): a turn played through the service, whose Clean-up scores the
Library (Ann's 3 cubes, Bob's 1 on banner 3/2/1: Ann 3, Bob 2, L-SCORE-1), replayed under ``lodge-house``, a house
rule of L-SCORE-1 installed only in tests (only the most cubes in a rebuilt Room score). The Room's score is
re-decided from the counts and banner it recorded; adopting it from Clean-up takes Bob's 2 Power Points away, and
each Mage is told the change (a public result) and how its view ends. A game that adopts it before Clean-up scores
the Library by it."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from application import replay as replays
from application.service import Caller, Games
from domain import visibility as vis
from domain.lodge.commands import AdvancePhase
from tests.domain import rules_variants as variants
from tests.domain.lodge_helpers import play_lodge_turn
from tests.domain.replay_helpers import kinds_seen, recorded, told, unseen_changes

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)
HOST = Caller.of("gm")  # the host sits in the platform's GM seat
MAGES = ("ann", "bob", "cy")


@pytest.fixture
def games():
    g = Games(clock=lambda: NOW)
    yield g
    g.close()


@pytest.fixture
def turn(games: Games) -> str:
    with variants.installed(variants.LODGE_HOUSE):
        yield play_lodge_turn(games)


def power_points(games: Games, game_id: str) -> dict[str, int]:
    return {m: s["power_points"] for m, s in games.view(game_id, "cy")["mages"].items()}


def test_l_score_1_replayed_under_the_pinned_version_scores_the_library_alike(games, turn):
    out = replays.replay(games, HOST, turn, "lodge-1")
    assert out["differences"] == [] and out["final"] == []
    assert [e.data["pp"] for e in recorded(games, turn, "RoomScored")] == [{"ann": 3, "bob": 2}]


def test_l_score_1_house_rule_replayed_scores_only_the_most_cubes(games, turn):
    (scored,) = recorded(games, turn, "RoomScored")
    out = replays.replay(games, HOST, turn, "lodge-house")
    ((d),) = out["differences"]
    assert (d["version"], d["type"], d["rules"]) == (scored.originator_version, "RoomScored", ["L-SCORE-1"])
    assert d["result"]["data"]["after"] == {**scored.data, "pp": {"ann": 3}}
    assert d["result"]["changes"] == {
        "before": [
            {"op": "pp", "who": "ann", "amount": 3, "why": "rebuilt library"},
            {"op": "pp", "who": "bob", "amount": 2, "why": "rebuilt library"},
        ],
        "after": [{"op": "pp", "who": "ann", "amount": 3, "why": "rebuilt library"}],
    }
    assert d["scores"] == [{"path": "mages.bob.power_points", "before": 2, "after": 0}] == d["state"]
    assert out["final"] == d["scores"]


def test_l_score_1_adopted_from_cleanup_takes_bobs_points_and_tells_every_mage(games, turn):
    out = replays.adopt(games, HOST, turn, "lodge-house", "t1-cleanup")["result"]
    assert (out["pinned"], out["differences"]) == ("lodge-house", 1)
    assert power_points(games, turn) == {"ann": 3, "bob": 0, "cy": 0}
    (adopted,) = recorded(games, turn, "RulesAdopted")
    assert adopted.audience == [vis.SEALED] and adopted.from_phase == "t1-cleanup"
    for mage in MAGES:
        (lines,) = told(games, turn, mage)
        (change,) = [c for c in lines if c["type"] != "view"]
        assert change["result"]["data"]["after"]["pp"] == {"ann": 3}, mage
        assert unseen_changes(games, turn, mage, lines) == [], mage
        assert "RulesAdopted" not in kinds_seen(games, turn, mage)
    (bob,) = told(games, turn, "bob")
    assert {"path": "mages.bob.power_points", "before": 2, "after": 0} in bob[-1]["state"]
    games._evict(games.get_game(turn))  # loaded again from the store: the same board
    assert power_points(games, turn) == {"ann": 3, "bob": 0, "cy": 0}


def test_l_score_1_adopted_from_the_next_turn_leaves_the_library_scored_as_it_was(games, turn):
    out = replays.adopt(games, HOST, turn, "lodge-house", "t2-prepare")["result"]
    assert (out["pinned"], out["differences"]) == ("lodge-house", 0)
    assert power_points(games, turn) == {"ann": 3, "bob": 2, "cy": 0}


def test_l_score_1_a_room_rebuilt_after_adopting_the_house_rule_is_scored_by_it(games):
    with variants.installed(variants.LODGE_HOUSE):
        game_id = play_lodge_turn(games, cleanup=False)
        out = replays.adopt(games, HOST, game_id, "lodge-house", "setup")["result"]
        assert out["differences"] == 0  # nothing scored yet
        games.run(HOST, game_id, AdvancePhase("black-rose"))  # Clean-up rebuilds the Library, decided by lodge-house
        assert [e.data["pp"] for e in recorded(games, game_id, "RoomScored")] == [{"ann": 3}]
        assert power_points(games, game_id) == {"ann": 3, "bob": 0, "cy": 0}
