"""Posts through the JSON API (issue 16), on SQLite and PostgreSQL: threads, pages, posting, editing,
hiding, read marks and search, each answering only what the caller may read; bad input refused (4xx naming
the field) with nothing recorded."""

from __future__ import annotations

import pytest

from tests.integration.helpers import bearer

pytestmark = pytest.mark.integration


def setup(api):
    r = api.post("/games", json={"name": "Talk", "gm_name": "Mira"})
    assert r.status_code == 201, r.text
    game, gm = r.json()["game_id"], r.json()["gm_token"]
    tokens = {"gm": gm}
    for name, cls, sub in (("Ann", "champion", "wizard"), ("Bob", "conspiracy", "circle"), ("Cy", "city", "overlord")):
        r = api.post(f"/games/{game}/powers", json={"name": name, "cls": cls, "subclass": sub}, headers=bearer(gm))
        assert r.status_code == 201, r.text
        tokens[r.json()["power_id"]] = r.json()["token"]
    return game, tokens


def events(api, game, token) -> int:
    return len(api.get(f"/games/{game}/events", headers=bearer(token), params={"limit": 5000}).json())


def test_a_private_negotiation_and_a_public_conversation_over_http(api, games, projector):
    game, t = setup(api)
    ann, bob, cy, gm = (bearer(t[k]) for k in ("ann", "bob", "cy", "gm"))
    r = api.post(f"/games/{game}/threads", json={"seats": ["bob"], "title": "Border"}, headers=ann)
    assert r.status_code == 201, r.text
    thread = r.json()["result"]["thread_id"]
    r = api.post(f"/games/{game}/threads/{thread}/posts", json={"text": "Cede the **ford**?"}, headers=ann)
    assert r.status_code == 201, r.text
    offer = r.json()["result"]["post_id"]
    assert api.post(f"/games/{game}/threads/{thread}/posts", json={"text": "Never."}, headers=bob).status_code == 201
    assert api.post(f"/games/{game}/threads/table/posts", json={"text": "Fine weather."}, headers=cy).status_code == 201

    assert [x["id"] for x in api.get(f"/games/{game}/threads", headers=cy).json()] == ["table", "narration", "desk-cy"]
    bob_threads = {x["id"]: x for x in api.get(f"/games/{game}/threads", headers=bob).json()}
    assert bob_threads[thread]["unread"] == 1 and bob_threads["table"]["unread"] == 1
    assert thread in {x["id"] for x in api.get(f"/games/{game}/threads", headers=gm).json()}

    page = api.get(f"/games/{game}/threads/{thread}/posts", headers=bob)
    assert page.status_code == 200 and [p["text"] for p in page.json()] == ["Cede the **ford**?", "Never."]
    assert "<strong>ford</strong>" in page.json()[0]["html"]
    # an outsider: 404, in the very words of a thread that does not exist
    hidden = api.get(f"/games/{game}/threads/{thread}/posts", headers=cy)
    missing = api.get(f"/games/{game}/threads/thr-0000000000/posts", headers=cy)
    assert hidden.status_code == missing.status_code == 404
    assert hidden.json()["message"].replace(thread, "X") == missing.json()["message"].replace("thr-0000000000", "X")
    for path, body in ((f"/threads/{thread}/posts", {"text": "let me in"}), (f"/threads/{thread}/read", {})):
        assert api.post(f"/games/{game}{path}", json=body, headers=cy).status_code == 404
    assert api.put(f"/games/{game}/posts/{offer}", json={"text": "x"}, headers=cy).status_code == 404
    # issue 28: a reply to a post cy cannot see (bob and ann's) is refused naming reply_to, recording nothing
    r = api.post(f"/games/{game}/threads/table/posts", json={"text": "Me too.", "reply_to": offer}, headers=cy)
    assert r.status_code == 404 and r.json()["field"] == "reply_to" and "ford" not in r.text
    assert [p["text"] for p in api.get(f"/games/{game}/threads/table/posts", headers=cy).json()] == ["Fine weather."]

    # posts tied to an action show with it, for those who may read them
    tie = {"text": "About your duel", "tied_to": "action:a-77"}
    assert api.post(f"/games/{game}/threads/{thread}/posts", json=tie, headers=bob).status_code == 201
    assert api.post(f"/games/{game}/threads/table/posts", json={**tie, "text": "Duel!"}, headers=cy).status_code == 201
    tied = api.get(f"/games/{game}/posts", params={"tied_to": "action:a-77"}, headers=ann).json()
    assert [p["text"] for p in tied] == ["About your duel", "Duel!"]
    tied = api.get(f"/games/{game}/posts", params={"tied_to": "action:a-77"}, headers=cy).json()
    assert [p["text"] for p in tied] == ["Duel!"]
    # the boards read every tie of a page at once (projections.posts.tied_to_many), with the same visibility
    key, read = str(games.get_game(game).id), projector.posts
    ties = ["action:a-77", "battle:none", "phase:s1-tidings"]
    assert {k: [p["text"] for p in v] for k, v in read.tied_to_many(key, "ann", ties).items()} == {
        "action:a-77": ["About your duel", "Duel!"]
    }
    assert [p["text"] for p in read.tied_to_many(key, "cy", ties)["action:a-77"]] == ["Duel!"]
    assert [p["text"] for p in read.tied_to_many(key, "bob", ties, per=1)["action:a-77"]] == ["Duel!"]

    # read marks and the board's count
    assert api.post(f"/games/{game}/threads/{thread}/read", json={}, headers=bob).json() == {
        "thread_id": thread,
        "read_up_to": 3,
    }
    assert {x["id"]: x["unread"] for x in api.get(f"/games/{game}/threads", headers=bob).json()}[thread] == 0

    # edit, hide, search
    assert api.put(f"/games/{game}/posts/{offer}", json={"text": "Cede the mill?"}, headers=bob).status_code == 403
    assert api.put(f"/games/{game}/posts/{offer}", json={"text": "Cede the mill?"}, headers=ann).status_code == 200
    page = api.get(f"/games/{game}/threads/{thread}/posts", headers=bob).json()
    assert page[0]["edited"] and "earlier" not in page[0]  # the game does not show earlier text
    assert "ford" not in str(api.get(f"/games/{game}/events", headers=bob, params={"limit": 5000}).json())
    assert [r["post_id"] for r in api.get(f"/games/{game}/search", params={"q": "mill"}, headers=bob).json()] == [offer]
    assert api.get(f"/games/{game}/search", params={"q": "mill"}, headers=cy).json() == []
    assert api.post(f"/games/{game}/posts/{offer}/hide", json={"reason": "x"}, headers=ann).status_code == 403
    assert api.post(f"/games/{game}/posts/{offer}/hide", json={"reason": "off-topic"}, headers=gm).status_code == 200
    bob_page = api.get(f"/games/{game}/threads/{thread}/posts", headers=bob).json()
    assert [p["text"] for p in bob_page] == ["", "Never.", "About your duel"]  # issue 28: a placeholder
    assert bob_page[0]["hidden"] and bob_page[0]["hidden_reason"] == "off-topic" and "mill" not in str(bob_page)
    bob_events = str(api.get(f"/games/{game}/events", headers=bob, params={"limit": 5000}).json())
    assert "mill" not in bob_events and "ford" not in bob_events and "off-topic" in bob_events  # the reason is said
    assert "Cede the mill?" in str(api.get(f"/games/{game}/events", headers=gm, params={"limit": 5000}).json())
    assert api.get(f"/games/{game}/search", params={"q": "mill"}, headers=bob).json() == []
    gm_page = api.get(f"/games/{game}/threads/{thread}/posts", headers=gm).json()
    assert gm_page[0]["hidden_reason"] == "off-topic" and gm_page[0]["earlier"][0]["text"] == "Cede the **ford**?"


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"text": ""}, 422, "text"),
        ({"text": "   "}, 422, "text"),
        ({"text": "x" * 20_001}, 422, "text"),
        ({"text": "<script>alert(1)</script>"}, 422, "text"),
        ({"text": "ok", "tied_to": "spell:9"}, 422, "tied_to"),
        ({"text": "ok", "extra": 1}, 422, "extra"),
        ({"text": "y" * 1_000_000}, 413, "body"),  # a megabyte is refused before it is read
    ],
)
def test_bad_posts_are_refused_naming_the_field_and_record_nothing(api, body, status, field):
    game, t = setup(api)
    before = events(api, game, t["gm"])
    r = api.post(f"/games/{game}/threads/table/posts", json=body, headers=bearer(t["ann"]))
    assert r.status_code == status, r.text
    assert r.json()["field"] == field
    assert events(api, game, t["gm"]) == before


def test_unknown_threads_and_seats_are_refused_and_record_nothing(api):
    game, t = setup(api)
    before = events(api, game, t["gm"])
    r = api.post(f"/games/{game}/threads/nowhere/posts", json={"text": "hi"}, headers=bearer(t["ann"]))
    assert r.status_code == 404 and r.json()["field"] == "thread_id"
    r = api.post(f"/games/{game}/threads", json={"seats": ["zed"]}, headers=bearer(t["ann"]))
    assert r.status_code == 404 and r.json()["field"] == "seats"
    r = api.post(f"/games/{game}/threads/table/posts", json={"text": "hi"})
    assert r.status_code == 401
    assert events(api, game, t["gm"]) == before


def test_a_game_that_shows_earlier_text_shows_it_on_the_page_and_in_the_feed(api):
    r = api.post("/games", json={"name": "Open", "options": {"show_earlier_text": True}})
    assert r.status_code == 201, r.text
    game, gm = r.json()["game_id"], r.json()["gm_token"]
    r = api.post(
        f"/games/{game}/powers", json={"name": "Ann", "cls": "city", "subclass": "overlord"}, headers=bearer(gm)
    )
    ann = bearer(r.json()["token"])
    r = api.post(
        f"/games/{game}/powers", json={"name": "Bob", "cls": "city", "subclass": "overlord"}, headers=bearer(gm)
    )
    bob = bearer(r.json()["token"])
    post_id = api.post(f"/games/{game}/threads/table/posts", json={"text": "FIRST-WORDS"}, headers=ann).json()
    post_id = post_id["result"]["post_id"]
    assert api.put(f"/games/{game}/posts/{post_id}", json={"text": "SECOND-WORDS"}, headers=ann).status_code == 200
    (post,) = api.get(f"/games/{game}/threads/table/posts", headers=bob).json()
    assert post["text"] == "SECOND-WORDS" and post["earlier"][0]["text"] == "FIRST-WORDS"
    assert "FIRST-WORDS" in str(api.get(f"/games/{game}/events", headers=bob, params={"limit": 5000}).json())


def test_the_gm_tells_the_tidings_as_a_season_begins_and_every_seat_reads_them(api):
    game, t = setup(api)
    body = {"expected_step": "setup", "tidings": "WINTER-COMES to the *valley*"}
    assert api.post(f"/games/{game}/advance", json=body, headers=bearer(t["gm"])).status_code == 200
    (post,) = api.get(f"/games/{game}/threads/narration/posts", headers=bearer(t["cy"])).json()
    assert post["author"] == "gm" and post["tied_to"] == "phase:s1-tidings" and "<em>valley</em>" in post["html"]
    body = {"expected_step": "tidings", "tidings": "too late"}
    r = api.post(f"/games/{game}/advance", json=body, headers=bearer(t["gm"]))
    assert r.status_code == 422 and r.json()["field"] == "tidings"
