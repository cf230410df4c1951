"""Rules changes replayed in the covenant game (issue 29 item 3): a first year played quietly (A-EX-11's table: each
covenant's Villagers make 6 provision, a Winter surplus of 9; Ann seated with 12 points) replayed under
``covenants-house``, a house rule of A-RECK-3 installed only in tests (a point per 3 provision, not 4). The Yearly
Reckoning is re-decided from the terms it recorded (surplus, tribute, scores before, the target), nothing rolled;
adopting it re-decides the Reckoning, and each covenant is told the change (a public result) and how its view ends;
a game that adopts it before Winter reckons its year by it."""

from __future__ import annotations

import pytest

from application import replay as replays
from application.service import Caller
from domain import visibility as vis
from domain.covenants.redecide import reckoned
from tests.covenants.play import Dice, Table, skip_season
from tests.domain import rules_variants as variants
from tests.domain.replay_helpers import kinds_seen, recorded, told, unseen_changes
from tests.domain.test_covenants_worked_examples import package, seated, villagers_make

HOST = Caller.of("ann")  # the host seat (H-14): it closes the steps, so it replays and adopts


@pytest.fixture
def year() -> Table:
    """A-EX-11's first year: 8 points each (⌊9/4⌋ + ⌊4/2⌋ + 4), Ann to 20."""
    with variants.installed(variants.COVENANTS_HOUSE):
        t = seated(Dice(), {"ann": 12}, options={**package(villagers_make(6)), "yearly_consumes": False})
        for _ in range(4):
            skip_season(t)
        yield t
        t.games.close()


def scores(t: Table) -> dict[str, int]:
    return {seat: c["score"] for seat, c in t.view("cy")["covenants"].items()}


def test_a_reck_3_replayed_under_the_pinned_version_re_decides_the_reckoning_alike(year):
    (reckoning,) = recorded(year.games, year.game_id, "YearReckoned")
    assert reckoned(reckoning.terms) == {
        k: getattr(reckoning, k) for k in ("points", "scores", "spent", "winners", "starting")
    }
    out = replays.replay(year.games, HOST, year.game_id, "covenants-1")
    assert out["differences"] == [] and out["final"] == []


def test_a_reck_3_house_rule_replayed_gives_a_point_more_for_9_provision_and_moves_the_scores(year):
    before = len(list(year.games.iter_events(year.game_id)))
    out = replays.replay(year.games, Caller.of("gm"), year.game_id, "covenants-house")
    (reckoning,) = recorded(year.games, year.game_id, "YearReckoned")
    ((version, kind, rules, result, moved),) = [
        (d["version"], d["type"], d["rules"], d["result"], d["scores"]) for d in out["differences"]
    ]
    assert (version, kind, rules) == (reckoning.originator_version, "YearReckoned", ["A-RECK-3"])
    assert result == {
        "points": {"before": {"ann": 8, "bob": 8, "cy": 8}, "after": {"ann": 9, "bob": 9, "cy": 9}},
        "scores": {"before": {"ann": 20, "bob": 8, "cy": 8}, "after": {"ann": 21, "bob": 9, "cy": 9}},
    }  # ⌊9/3⌋ + ⌊4/2⌋ + 4 = 9; nobody reaches 25, and Bob still starts the next year (A-ORDER-2)
    assert moved == [
        {"path": f"covenants.{s}.score", "before": b, "after": a}
        for s, b, a in (("ann", 20, 21), ("bob", 8, 9), ("cy", 8, 9))
    ]
    assert len(list(year.games.iter_events(year.game_id))) == before  # a replay records nothing


def test_a_reck_3_adopted_by_the_host_from_setup_re_decides_the_reckoning_and_tells_every_covenant(year):
    out = replays.adopt(year.games, HOST, year.game_id, "covenants-house", "setup")["result"]
    assert (out["pinned"], out["differences"]) == ("covenants-house", 1)
    assert scores(year) == {"ann": 21, "bob": 9, "cy": 9}
    (adopted,) = recorded(year.games, year.game_id, "RulesAdopted")
    assert adopted.audience == [vis.SEALED] and adopted.actor == "ann"
    for seat in year.seats:
        (lines,) = told(year.games, year.game_id, seat)
        (change,) = [c for c in lines if c["type"] != "view"]
        assert change["type"] == "YearReckoned" and change["result"]["scores"]["after"] == scores(year), seat
        assert unseen_changes(year.games, year.game_id, seat, lines) == [], seat
        assert "RulesAdopted" not in kinds_seen(year.games, year.game_id, seat)
    year.games._evict(year.games.get_game(year.game_id))  # loaded again from the store: the same year
    assert scores(year) == {"ann": 21, "bob": 9, "cy": 9}


def test_a_reck_3_adopted_from_the_next_year_leaves_the_reckoning_played_as_it_was(year):
    out = replays.adopt(year.games, HOST, year.game_id, "covenants-house", "y2-spring-c1-move")["result"]
    assert (out["pinned"], out["differences"]) == ("covenants-house", 0)
    assert scores(year) == {"ann": 20, "bob": 8, "cy": 8}
    for seat in year.seats:
        assert told(year.games, year.game_id, seat) == [[]], seat


def test_a_reck_3_a_year_reckoned_after_adopting_the_house_rule_is_reckoned_by_it():
    with variants.installed(variants.COVENANTS_HOUSE):
        t = seated(Dice(), {"ann": 12}, options={**package(villagers_make(6)), "yearly_consumes": False})
        for _ in range(3):
            skip_season(t)
        out = replays.adopt(t.games, HOST, t.game_id, "covenants-house", "setup")["result"]
        assert out["differences"] == 0  # no year reckoned yet
        skip_season(t)  # Winter: the Yearly Reckoning, decided by covenants-house
        (reckoning,) = recorded(t.games, t.game_id, "YearReckoned")
        assert reckoning.points == {"ann": 9, "bob": 9, "cy": 9} and scores(t) == {"ann": 21, "bob": 9, "cy": 9}
        t.games.close()
