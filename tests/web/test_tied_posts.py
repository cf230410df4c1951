"""Posts tied to an action, a battle or a phase show there (issue 16): on the Powers board and console, under
each action card, each battle and the phase shown, the posts tied to it that the viewer may read (as the thread
page shows them, with a link into the thread), and a "Discuss" link to the table's post form already tied to it.
A post in a private thread shows only to those who may read the thread: its text, thread, title and existence
stay hidden from everyone else. The board reads them in one query, whatever their number."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from application.service import Caller
from domain.platform.commands import HidePost, MakePost, OpenThread
from domain.powers import commands as pc
from tests.helpers import add_power
from tests.integration.test_battle_api import HEX
from tests.web.test_battle_page import fight  # noqa: F401  (the battle fixture)


@pytest.fixture
def table(app, games):
    """Ann, Bob and Cy in month 1's Planning; Ann has submitted an action."""
    gid, gm_token, _ = games.create_game("Tied")
    tokens = {"gm": gm_token}
    for name, cls, sub in (("Ann", "champion", "wizard"), ("Bob", "conspiracy", "circle"), ("Cy", "city", "overlord")):
        pid, token, _ = add_power(games, gid, "gm", name, cls, sub)
        tokens[pid] = token
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    assert games.view(gid, "gm")["game"]["step"] == "planning"
    action = act(games, gid, "Raid the ford")
    return app, games, gid, tokens, action


def act(games, gid: str, title: str) -> str:
    before = {a["action_id"] for a in games.view(gid, "ann")["my_actions"]}
    games.send(gid, "ann", pc.SubmitAction("ann", title=title, slot="private", roll=False))
    (new,) = {a["action_id"] for a in games.view(gid, "ann")["my_actions"]} - before
    return new


def signed_in(app, gid: str, token: str) -> TestClient:
    client = TestClient(app)
    assert client.get(f"/signin/{gid}/{token}").status_code == 200
    return client


def post(games, gid: str, who: str, thread: str, text: str, tied_to: str | None) -> str:
    return str(games.run(Caller.of(who), gid, MakePost(thread, text, tied_to)).result["post_id"])


def card(page: str, start: str, end: str = "</article>") -> str:
    """The part of a page from the element whose id is ``start`` to the next ``end``."""
    at = page.index(f'id="{start}"')
    return page[at : page.index(end, at)]


def section(page: str, label: str) -> str:
    """The section of a page that the element whose id is ``label`` names."""
    at = page.index(f'<section aria-labelledby="{label}"')
    return page[at : page.index("</section>", at)]


def test_a_post_tied_to_an_action_shows_on_its_card_and_a_private_one_only_to_its_readers(table):
    """Ann's action card shows the table's post tied to it (sanitised HTML, author, time in Ann's zone, a link
    to the post in its thread) and a "Discuss" link; Bob and Cy's private post tied to the same action shows
    on the GM's console but leaves no trace on Ann's board: not its text, its thread, its title nor a count; a
    post the GM hid shows on the console, marked, and on Ann's card as a placeholder with its reason (issue 28)."""
    app, games, gid, tokens, action = table
    games.set_timezone(gid, "ann", "ann", "Asia/Tokyo")
    post(games, gid, "bob", "table", "Mind the **FORD-TOLL** <b>now</b>", f"action:{action}")
    thread = games.run(Caller.of("bob"), gid, OpenThread(["cy"], "SECRET-PACT-TITLE")).result["thread_id"]
    post(games, gid, "cy", thread, "We ambush ANN-AT-DAWN", f"action:{action}")
    post(games, gid, "cy", "table", "UNTIED-CHATTER", None)
    rude = post(games, gid, "cy", "table", "RUDE-REMARK", f"action:{action}")
    games.run(Caller.of("gm"), gid, HidePost(rude, "manners"))

    ann = signed_in(app, gid, tokens["ann"])
    page = ann.get(f"/play/{gid}").text
    mine = card(page, f"action-{action}")
    assert "<strong>FORD-TOLL</strong>" in mine and "&lt;b&gt;now&lt;/b&gt;" in mine and "<b>now</b>" not in mine
    assert "<strong>Bob</strong>" in mine and " JST</time>" in mine
    assert re.search(rf'href="/play/{gid}/talk/table\?before=\d+#post-\d+">in The table</a>', mine)
    assert f'href="/play/{gid}/talk/table?tied_to=action%3A{action}#text"' in mine
    for secret in ("ANN-AT-DAWN", "SECRET-PACT-TITLE", thread):
        assert secret not in page
    assert "UNTIED-CHATTER" not in page and "RUDE-REMARK" not in page  # hidden: as on the thread page
    assert "Hidden by the GM: manners" in mine  # issue 28: a placeholder with its reason, not its words
    assert mine.count('<li class="post"') == 1

    # the link opens the table's post form already tied to the action; posting there ties the post
    form = ann.get(f"/play/{gid}/talk/table", params={"tied_to": f"action:{action}"}).text
    assert f'name="tied_to" maxlength="128" value="action:{action}"' in form

    gm = signed_in(app, gid, tokens["gm"])
    console = card(gm.get(f"/play/{gid}").text, f"gm-action-{action}")
    assert "FORD-TOLL" in console and "ANN-AT-DAWN" in console and "in SECRET-PACT-TITLE" in console
    assert "RUDE-REMARK" in console and "Hidden by the GM: manners" in console


def test_the_phase_shown_lists_the_posts_tied_to_it(table):
    """The phase on the board (now, or an earlier one chosen) shows the posts tied to it."""
    app, games, gid, tokens, _ = table
    post(games, gid, "cy", "table", "PLANNING-THOUGHTS", "phase:s1m1-planning")
    post(games, gid, "cy", "table", "TIDINGS-THOUGHTS", "phase:s1-tidings")
    bob = signed_in(app, gid, tokens["bob"])
    # the section the headline labels (the headline itself heads the open decision, issue 28 item 6)
    now = section(bob.get(f"/play/{gid}").text, "where")
    assert "PLANNING-THOUGHTS" in now and "TIDINGS-THOUGHTS" not in now
    assert "tied_to=phase%3As1m1-planning" in now
    then = section(bob.get(f"/play/{gid}", params={"phase": "s1-tidings"}).text, "where")
    assert "TIDINGS-THOUGHTS" in then and "PLANNING-THOUGHTS" not in then


def test_a_post_tied_to_a_battle_shows_in_the_battle_section(fight):  # noqa: F811
    games, gid, seats = fight
    seats["north"].post("declare-battle", battle_id="b1", hex=HEX, enemies="south", allies="east")
    post(games, gid, "east", "table", "Hold the *LEFT-FLANK*", "battle:b1")
    post(games, gid, "east", "table", "ELSEWHERE-TALK", "battle:b2")
    for who in ("north", "south", "gm"):
        battles = card(seats[who].page(), "battles", "</section>")
        assert "<em>LEFT-FLANK</em>" in battles and "ELSEWHERE-TALK" not in battles, who
        assert "tied_to=battle%3Ab1" in card(battles, "battle-b1"), who


def test_the_board_reads_tied_posts_in_one_query_whatever_their_number(table, projector):
    """One action and one tied post, then three actions and nine tied posts: the board and the console make
    the same number of read-model queries (a query per card would grow), and show every post."""
    app, games, gid, tokens, action = table
    db = projector.db
    ann, gm = signed_in(app, gid, tokens["ann"]), signed_in(app, gid, tokens["gm"])

    def queries(client: TestClient) -> tuple[int, str]:
        client.get(f"/play/{gid}")  # warm
        counted, query = [0], db.query

        def counting(sql, params=()):
            counted[0] += 1
            return query(sql, params)

        db.query = counting
        try:
            page = client.get(f"/play/{gid}").text
        finally:
            db.query = query
        return counted[0], page

    post(games, gid, "bob", "table", "POST-0", f"action:{action}")
    small = {who: queries(c)[0] for who, c in (("ann", ann), ("gm", gm))}
    more = [action, act(games, gid, "Second"), act(games, gid, "Third")]
    for n in range(1, 9):
        post(games, gid, "bob", "table", f"POST-{n}", f"action:{more[n % 3]}")
    for who, client in (("ann", ann), ("gm", gm)):
        count, page = queries(client)
        assert count == small[who], (who, small[who], count)
        assert all(f"POST-{n}" in page for n in range(9)), who
