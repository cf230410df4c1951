"""Read models: built incrementally or rebuilt from event 1, row for row the same, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from api.compose import build_games, build_projector
from domain.powers import commands as pc
from tests.integration.helpers import close_services
from tests.scenarios import play_rich_month


@pytest.fixture
def stack(store_settings):
    games = build_games(store_settings)
    projector = build_projector(games, store_settings)
    yield games, projector
    close_services(games, projector)


def test_rebuilt_read_models_equal_the_incrementally_built_ones_row_for_row(stack):
    games, projector = stack
    real_run = games._run

    def run_and_project(*args, **kwargs):
        out = real_run(*args, **kwargs)
        projector.catch_up()  # small batches: one command at a time
        return out

    games._run = run_and_project
    m = play_rich_month(games)
    games.rollback(m.game_id, "gm", "the GM misread an order", phase="s1m1-planning")
    games.fork(m.game_id, "gm", "what if", phase="s1-tidings")
    games._run = real_run
    projector.catch_up()
    incremental = projector.dump()
    assert (
        len(incremental["rm_audit"])
        == games.get_game(m.game_id).version
        + games.get_game([g for g, *_ in incremental["rm_games"] if g != str(games.get_game(m.game_id).id)][0]).version
    )
    assert projector.rebuild() == len(incremental["rm_audit"])
    assert projector.dump() == incremental


def test_the_feed_is_each_viewers_events_in_their_own_sequence(stack):
    games, projector = stack
    m = play_rich_month(games)
    projector.catch_up()
    gid = str(games.get_game(m.game_id).id)
    for viewer in ["gm", *m.powers.values()]:
        feed = projector.feed(gid, viewer)
        events = games.visible_events(m.game_id, viewer)
        assert [(f["seq"], f["type"], f["data"]) for f in feed] == [(e["seq"], e["type"], e["data"]) for e in events]
    later = projector.feed(gid, m.powers["sov"], after=5, limit=3)
    assert [f["seq"] for f in later] == [6, 7, 8]


def test_the_audit_shows_actor_time_phase_audience_and_who_was_shown_each_event(stack):
    games, projector = stack
    m = play_rich_month(games)
    projector.catch_up()
    gid = str(games.get_game(m.game_id).id)
    audit = projector.audit(gid)
    assert [a["version"] for a in audit] == list(range(1, games.get_game(m.game_id).version + 1))
    sealed = [a for a in audit if "sealed" in a["audience"]]
    assert sealed and all(a["data"] == {"sealed": True} and a["shown_to"] == [] for a in sealed)
    submitted = [a for a in audit if a["type"] == "ActionSubmitted" and a["data"]["title"] == "PRIVATE-CIRC-PLOT"][0]
    assert submitted["shown_to"] == ["gm", m.powers["circ"], m.powers["cult"]]  # a declared collaborator
    assert submitted["actor"] == m.powers["circ"] and submitted["phase"] == "s1m1-planning"
    assert datetime.fromisoformat(submitted["at"]).tzinfo is not None
    by_type = projector.audit(gid, event_type="ReactionDeclared")
    assert [a["actor"] for a in by_type] == [m.powers["sov"]]
    by_power = projector.audit(gid, seat=m.powers["cult"])
    assert all(
        m.powers["cult"] in a["shown_to"] or a["actor"] == m.powers["cult"] or m.powers["cult"] in str(a["data"])
        for a in by_power
    )
    assert any(a["type"] == "InfluenceSet" for a in by_power)
    by_actor = projector.audit(gid, actor="gm")
    assert by_actor and all(a["actor"] == "gm" for a in by_actor)
    assert {a["phase"] for a in projector.audit(gid, phase="s1-tidings")} == {"s1-tidings"}


def test_a_rollback_marks_the_superseded_events_and_every_feed_says_so(stack):
    games, projector = stack
    m = play_rich_month(games)
    games.rollback(m.game_id, "gm", "a ruling was wrong", phase="s1m1-planning")
    projector.catch_up()
    gid = str(games.get_game(m.game_id).id)
    start = projector.phase_start(gid, "s1m1-planning")
    audit = projector.audit(gid)
    rolled = [a for a in audit if a["type"] == "GameRolledBack"][0]
    assert all(a["superseded_by"] == rolled["version"] for a in audit if start < a["version"] < rolled["version"])
    assert all(a["superseded_by"] is None for a in audit if a["version"] <= start or a["version"] >= rolled["version"])
    for viewer in m.powers.values():
        notice = [f for f in projector.feed(gid, viewer) if f["type"] == "GameRolledBack"]
        assert notice and notice[0]["data"]["reason"] == "a ruling was wrong"


def test_the_phase_index_and_the_windows_read_model(stack):
    games, projector = stack
    now = datetime.now(timezone.utc)
    m = play_rich_month(games, finish=False)
    projector.catch_up()
    gid = str(games.get_game(m.game_id).id)
    assert [p["phase"] for p in projector.phases(gid)] == ["s1-tidings", "s1m1-planning"]
    assert projector.due_windows(now + timedelta(hours=71)) == []
    due = projector.due_windows(now + timedelta(hours=73))
    assert [(d["game_id"], d["kind"]) for d in due] == [(gid, "planning")]
    games.send(m.game_id, "gm", pc.Advance())
    projector.catch_up()
    assert projector.due_windows(now + timedelta(hours=73)) == []


def test_two_projectors_never_apply_an_event_twice(stack, store_settings):
    games, projector = stack
    other = build_projector(games, store_settings)
    m = play_rich_month(games)
    import threading

    threads = [threading.Thread(target=p.catch_up) for p in (projector, other, projector, other)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    gid = str(games.get_game(m.game_id).id)
    assert [a["version"] for a in projector.audit(gid)] == list(range(1, games.get_game(m.game_id).version + 1))
    assert projector.lag() == 0
    other.db.close()


def test_the_position_is_the_library_tracking_recorded_with_the_rows_and_never_twice(stack, monkeypatch):
    """The tracking recorder (eventsourcing's interface over rm_tracking) commits with the rows or not at all."""
    from eventsourcing.persistence import IntegrityError, Tracking

    games, projector = stack
    games.on_recorded.clear()  # the projector runs only when told to
    m = play_rich_month(games, finish=False)
    gid = str(games.get_game(m.game_id).id)
    head = games.recorder.max_notification_id()
    real_flush = projector._flush_game

    def fail(*args, **kwargs):
        raise RuntimeError("the database went away")

    monkeypatch.setattr(projector, "_flush_game", fail)
    with pytest.raises(RuntimeError):
        projector.catch_up()
    # The failed batch left neither rows nor a position: it is applied again, in full, by the next catch-up.
    assert projector.tracking.max_tracking_id(games.name) is None and projector.audit(gid) == []
    monkeypatch.setattr(projector, "_flush_game", real_flush)
    assert projector.catch_up() == head and projector.position() == head
    assert len(projector.audit(gid)) == games.get_game(m.game_id).version
    projector.tracking.wait(games.name, head, timeout=0.1)  # the library's wait: the position is reached
    with pytest.raises(IntegrityError):
        projector.tracking.insert_tracking(Tracking(games.name, head))  # an event is never applied twice
    assert projector.position() == head
    with pytest.raises(TimeoutError):
        projector.tracking.wait(games.name, head + 1, timeout=0.2)


def test_the_runner_is_woken_by_the_stores_subscription_where_it_has_one(stack, store_settings):
    """PostgreSQL: the library's subscription (LISTEN/NOTIFY) wakes the runner at once; SQLite has none, and
    the runner polls."""
    import time

    from workers.projection_runner import Follower

    games, projector = stack
    games.on_recorded.clear()  # the runner's projector, not the writer's
    poll = 30 if store_settings.is_postgres else 0.3
    follower = Follower(games.recorder, projector.position(), poll_seconds=poll)
    try:
        assert follower.subscribed is store_settings.is_postgres
        time.sleep(0.3)
        assert not follower.news.is_set()  # nothing new yet: the read models stand at the head
        started = time.monotonic()
        games.create_game("Woken")
        follower.wait()
        waited = time.monotonic() - started
        assert waited < (5 if store_settings.is_postgres else 2)
        if not store_settings.is_postgres:
            assert waited >= 0.3  # no subscription: it slept its poll interval
        assert projector.catch_up() > 0
    finally:
        follower.stop()
