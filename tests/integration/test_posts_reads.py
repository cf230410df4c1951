"""Posts as read models (issue 16), on SQLite (FTS5) and PostgreSQL (full-text search) alike: threads and
pages rebuilt from the events, keyset pages, unread counts per thread and seat, search over what the viewer
may read."""

from __future__ import annotations

import pytest

from api.compose import build_games, build_projector
from application.service import Caller
from domain.platform.commands import EditPost, HidePost, MakePost, OpenThread
from tests.integration.helpers import close_services
from tests.scenarios import play_rich_month

pytestmark = pytest.mark.integration


@pytest.fixture
def table(store_settings):
    games = build_games(store_settings)
    projector = build_projector(games, store_settings)
    m = play_rich_month(games)
    yield games, projector, m.game_id, tuple(m.powers.values())[:4]
    close_services(games, projector)


def post(games, game_id, who, thread, text):
    return games.run(Caller.of(who), game_id, MakePost(thread, text)).result


def test_threads_pages_unread_and_search_follow_the_events_and_the_audience(table):
    games, projector, game_id, (wiz, circ, cult, sov) = table
    gid = str(games.get_game(game_id).id)
    reads = projector.posts
    thread = games.run(Caller.of(wiz), game_id, OpenThread([circ], "The pact")).result["thread_id"]
    post(games, game_id, wiz, "table", "Greetings from the tower of HEXAGRAMS")
    first = post(games, game_id, wiz, thread, "Shall we betray the SOVEREIGNTY at dawn?")
    post(games, game_id, circ, thread, "Agreed: at dawn.")
    post(games, game_id, sov, f"desk-{sov}", "GM, a private question about MARSHES")
    projector.catch_up()

    assert [t["id"] for t in reads.threads(gid, cult)] == ["table", "narration", f"desk-{cult}"]
    circ_threads = {t["id"]: t for t in reads.threads(gid, circ)}
    assert circ_threads[thread]["unread"] == 1 and circ_threads[thread]["members"] == sorted([wiz, circ])
    assert circ_threads["table"]["unread"] == 1
    gm_threads = {t["id"] for t in reads.threads(gid, "gm")}
    assert {thread, f"desk-{sov}", "table"} <= gm_threads

    # a page, for a member; nothing for an outsider (the route answers 404 as for a missing thread)
    posts, cursor = reads.page(gid, circ, thread)
    assert [p["text"] for p in posts] == ["Shall we betray the SOVEREIGNTY at dawn?", "Agreed: at dawn."]
    assert cursor is None and "<p>" in posts[0]["html"]
    assert reads.page(gid, cult, thread) is None
    assert reads.mark_read(gid, cult, thread) is None

    # read marks: per seat and thread, never moving back
    assert reads.mark_read(gid, circ, thread) == 2
    assert reads.mark_read(gid, circ, thread, 1) == 1  # asked for 1: the mark stays at 2
    assert {t["id"]: t["unread"] for t in reads.threads(gid, circ)}[thread] == 0
    assert {t["id"]: t["unread"] for t in reads.threads(gid, wiz)}[thread] == 1  # wiz has not read circ's reply

    # search: only the threads the viewer may read
    assert [r["post_id"] for r in reads.search(gid, circ, "sovereignty dawn")] == [first["post_id"]]
    assert reads.search(gid, cult, "sovereignty") == []
    assert reads.search(gid, sov, "SOVEREIGNTY") == []
    assert len(reads.search(gid, sov, "marshes")) == 1 and reads.search(gid, wiz, "marshes") == []
    assert len(reads.search(gid, "gm", "marshes sovereignty")) == 0 and len(reads.search(gid, "gm", "dawn")) == 2
    assert len(reads.search(gid, cult, "hexagrams")) == 1
    assert reads.search(gid, cult, '" OR * NEAR(') == []  # search syntax is never passed through

    # an edit replaces the searched text, keeps the earlier one for the GM (and readers, by option)
    games.run(Caller.of(wiz), game_id, EditPost(first["post_id"], "Shall we talk at noon?"))
    games.run(Caller.of("gm"), game_id, HidePost(first["post_id"], "a threat out of character"))
    projector.catch_up()
    assert reads.search(gid, circ, "sovereignty") == [] and reads.search(gid, circ, "noon") == []  # hidden
    gm_page, _ = reads.page(gid, "gm", thread)
    assert gm_page[0]["edited"] and gm_page[0]["hidden"] and gm_page[0]["hidden_reason"] == "a threat out of character"
    assert gm_page[0]["earlier"][0]["text"] == "Shall we betray the SOVEREIGNTY at dawn?"
    circ_page, _ = reads.page(gid, circ, thread)
    assert [p["text"] for p in circ_page] == ["", "Agreed: at dawn."]  # issue 28: a placeholder keeps its place
    assert circ_page[0]["hidden_reason"] == "a threat out of character" and circ_page[0]["html"] == ""
    assert "earlier" not in circ_page[0] and "SOVEREIGNTY" not in str(circ_page)
    assert len(reads.search(gid, "gm", "noon")) == 1


def test_keyset_pages_walk_a_long_thread_both_ways_and_a_rebuild_gives_the_same_rows(table):
    games, projector, game_id, (wiz, circ, cult, sov) = table
    gid = str(games.get_game(game_id).id)
    for i in range(1, 24):
        post(games, game_id, wiz if i % 2 else circ, "table", f"post number {i}")
    projector.catch_up()
    reads = projector.posts
    seen, before = [], None
    while True:
        page, before = reads.page(gid, cult, "table", before=before, limit=5)
        seen = [p["seq"] for p in page] + seen
        if before is None:
            break
    assert seen == list(range(1, 24))
    page, after = reads.page(gid, cult, "table", after=20, limit=2)
    assert [p["seq"] for p in page] == [21, 22] and after == 22
    page, after = reads.page(gid, cult, "table", after=after, limit=2)
    assert [p["seq"] for p in page] == [23] and after is None
    dumped = projector.dump()
    projector.rebuild()
    assert projector.dump() == dumped and len(dumped["rm_posts"]) == 23
    assert len(reads.search(gid, cult, "number")) == 23
