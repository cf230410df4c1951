"""Rules changes replayed (issue 29 item 3), on the fake table's two installed versions: ``table-1`` (TABLE-2: a
throw scores its die) and ``table-2`` (its house rule: the die plus one). The replay shows exactly the throws whose
totals change, with the rule id, and the scores they move; adopting it from a phase re-decides the throws since,
pins the game at table-2 (later throws score by it), loads alike from the store, and tells each seat only what it
may see."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest
from emissary_fake.ruleset import Join, Post
from emissary_fake.throws import Throw

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application import replay as replays
from application.service import Caller, Games
from domain import visibility as vis
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.platform import ruleset as registry
from domain.platform.feed import describe_event
from domain.platform.game import fold

NOW = datetime(2026, 12, 7, 12, 0, tzinfo=timezone.utc)


@pytest.fixture
def games():
    g = Games(clock=lambda: NOW)
    yield g
    g.close()


@pytest.fixture
def table(games: Games) -> str:
    game_id, _, _ = games.create_game("Tea", ruleset="table")
    games.run_many(Caller.of("gm"), game_id, [Join("ann", "Ann")])
    games.run(Caller.of("ann"), game_id, Throw("ann"))  # before bob joins: setup's phase
    games.run(Caller.of("gm"), game_id, Join("bob", "Bob"))  # the phase join-bob begins
    games.run(Caller.of("bob"), game_id, Post("bob", "hi"))
    games.run(Caller.of("bob"), game_id, Throw("bob", hidden=True))  # bob's and the GM's to see
    games.run(Caller.of("ann"), game_id, Throw("ann"))
    return game_id


def thrown(games: Games, game_id: str) -> list[tuple[int, str, list[int], list[str]]]:
    return [
        (e.originator_version, e.seat_id, list(e.faces), list(e.audience))
        for e in games.iter_events(game_id)
        if type(e).__name__ == "Thrown"
    ]


def folded(games: Games, game_id: str):
    """The game's state folded from its events alone, no store nor snapshot."""
    return fold(None, list(games.iter_events(game_id))).state


def numbered(games: Games, game_id: str, viewer: str) -> tuple[int, int]:
    """The number the game gives the viewer's newest event, and how many events the viewer may see."""
    return games.read(game_id, lambda g: int(g.state.sequence_for(viewer))), len(
        games.visible_events(game_id, viewer, after=0, limit=100_000)
    )


def view(games: Games, game_id: str, viewer: str) -> dict:
    return games.read(game_id, lambda g: g.ruleset.view(g, viewer))


def test_both_versions_of_the_table_are_installed_and_games_are_created_at_the_first():
    assert registry.installed_versions("table") == ["table-1", "table-2"]
    assert registry.get("table").version == "table-1"
    assert registry.for_game("table", "table-2") is registry.version("table", "table-2")
    with pytest.raises(RuleViolation) as err:
        registry.version("table", "table-9")
    assert err.value.field == "version" and "table-1, table-2" in str(err.value)


def test_table_2_replayed_shows_exactly_the_throws_it_changes_with_the_rule_and_the_scores(games, table):
    throws = thrown(games, table)
    out = replays.replay(games, Caller.of("gm"), table, "table-2")
    assert (out["pinned"], out["version"], out["from_version"]) == ("table-1", "table-2", 1)
    results = [(d["version"], d["type"], d["rules"], d["result"]) for d in out["differences"] if d["result"]]
    assert results == [
        (
            v,
            "Thrown",
            ["TABLE-2"],
            {"modifier": {"before": 0, "after": 1}, "total": {"before": f[0], "after": f[0] + 1}},
        )
        for v, _, f, _ in throws
    ]
    ann = [f[0] for _, seat, f, _ in throws if seat == "ann"]
    first = out["differences"][0]
    assert first["scores"] == [{"path": "scores.ann", "before": ann[0], "after": ann[0] + 1}]
    assert {"path": "scores.ann", "before": sum(ann), "after": sum(ann) + 2} in out["final"]
    bob = throws[1][2][0]
    assert {"path": "hidden_scores.bob", "before": bob, "after": bob + 1} in out["final"]


def test_replaying_under_the_pinned_version_shows_no_difference_and_records_nothing(games, table):
    before = len(list(games.iter_events(table)))
    out = replays.replay(games, Caller.of("gm"), table, "table-1")
    assert out["differences"] == [] and out["final"] == []
    assert len(list(games.iter_events(table))) == before


def test_only_the_gm_replays_or_adopts_and_a_refusal_records_nothing(games, table):
    before = len(list(games.iter_events(table)))
    with pytest.raises(Forbidden) as err:
        replays.replay(games, Caller.of("ann"), table, "table-2")
    assert "only the GM may replay" in str(err.value)
    with pytest.raises(Forbidden):
        replays.adopt(games, Caller.of("bob"), table, "table-2", "join-bob")
    with pytest.raises(RuleViolation) as bad:
        replays.adopt(games, Caller.of("gm"), table, "table-9", "join-bob")
    assert bad.value.field == "version"
    with pytest.raises(RuleViolation) as same:
        replays.adopt(games, Caller.of("gm"), table, "table-1", "join-bob")
    assert same.value.field == "version"
    with pytest.raises(NotFound) as phase:
        replays.adopt(games, Caller.of("gm"), table, "table-2", "join-zed")
    assert phase.value.field == "from_phase"
    assert len(list(games.iter_events(table))) == before


def test_adopting_from_a_phase_re_decides_the_throws_since_and_pins_the_new_version(games, table):
    (v1, _, f1, _), (v2, _, f2, _), (v3, _, f3, _) = thrown(games, table)
    out = replays.adopt(games, Caller.of("gm"), table, "table-2", "join-bob")
    assert out["result"]["from_version"] > v1 and out["result"]["pinned"] == "table-2"
    assert view(games, table, "gm")["scores"] == {"ann": f1[0] + f3[0] + 1}  # the first throw, before, stands
    assert view(games, table, "gm")["hidden_scores"] == {"bob": f2[0] + 1}
    games.run(Caller.of("ann"), table, Throw("ann"))  # decided by table-2 now
    last = thrown(games, table)[-1]
    assert [e for e in games.iter_events(table) if type(e).__name__ == "Thrown"][-1].modifier == 1
    expected = {"ann": f1[0] + f3[0] + 1 + last[2][0] + 1}
    assert view(games, table, "gm")["scores"] == expected
    games._evict(games.get_game(table))  # loaded again from the store: the adoption re-folds alike
    assert view(games, table, "gm")["scores"] == expected and view(games, table, "bob")["hidden_scores"]
    again = folded(games, table)  # and from the events alone
    assert (again.points["public"], again.rules_version) == (expected, "table-2")
    kinds = [type(e).__name__ for e in games.iter_events(table)]
    assert kinds.count("RulesAdopted") == 1 and kinds.count("RulesChangeTold") == 4  # the GM, ann, bob, the observers


def test_each_seat_is_told_only_the_changes_it_may_see(games, table):
    hidden = thrown(games, table)[1]
    replays.adopt(games, Caller.of("gm"), table, "table-2", "setup")
    told = {}
    for viewer in ("gm", "ann", "bob"):
        lines = [e for e in games.visible_events(table, viewer, after=0, limit=1000) if e["type"] == "RulesChangeTold"]
        # the GM sees every seat's line, its own first; everyone the observers' public line, last
        assert len(lines) == (4 if viewer == "gm" else 2) and lines[-1]["data"]["public"], viewer
        told[viewer] = lines[0]["data"]["changes"]
        assert "RulesAdopted" not in {e["type"] for e in games.visible_events(table, viewer, after=0, limit=1000)}
    for viewer in ("gm", "ann", "bob"):  # each line counted once in its viewers' numbers
        number, count = numbered(games, table, viewer)
        assert number == count, viewer
    # A seat is told no game version (it would count the events it was not shown); the GM's lines name them.
    assert all("version" not in c for v in ("ann", "bob") for c in told[v])
    versions = {c["version"] for c in told["gm"] if c["type"] == "Thrown"}
    count = {v: sum(c["type"] == "Thrown" for c in told[v]) for v in ("ann", "bob")}
    seen_by = {
        v: sum(vis.can_see(audience, v) for ver, _s, _f, audience in thrown(games, table) if ver in versions)
        for v in ("ann", "bob")
    }
    assert hidden[0] in versions and count == seen_by and count["bob"] > count["ann"] > 0  # ann: the public throws
    assert "hidden_scores" not in str(told["ann"]) and "bob" not in str([c.get("state") for c in told["ann"]])
    assert "hidden_scores.bob" in str(told["bob"]) and "hidden_scores.bob" in str(told["gm"])
    data = {"rules_version": "table-2", "previous_version": "table-1", "from_phase": "setup", "changes": told["ann"]}
    line = describe_event(registry.get("table"), "RulesChangeTold", data, {})
    assert "table-2 replaces table-1" in line and "(TABLE-2)" in line and f"#{hidden[0]} " not in line


def test_the_gm_replays_by_mail_and_a_player_is_refused(games, table):
    from api import mail_replay

    before = len(list(games.iter_events(table)))
    ok, text = mail_replay.reply(games, table, "gm", "Hi GM,\nreplay table-2 from join-bob\n")
    assert ok and "(TABLE-2): modifier 0 -> 1; total" in text and "replayed under table-2" in text
    refused, why = mail_replay.reply(games, table, "ann", "replay table-2")
    assert not refused and "only the GM may replay" in why
    assert mail_replay.reply(games, table, "gm", "post hello") is None
    assert len(list(games.iter_events(table))) == before
