"""The talk pages (issue 16): every ruleset's board links to its threads with what is new; a thread page
shows its posts as sanitised HTML with a post form; a seat outside a private thread sees neither its text,
its title, its members nor its existence, on any page."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from application.service import Caller
from domain.platform.commands import HidePost, MakePost, OpenThread
from projections.settings import Settings
from tests.covenants.play import seat_three
from tests.helpers import add_power


@pytest.fixture
def app(tmp_path):
    a = create_app(Settings(data_dir=tmp_path))
    yield a


def signed_in(app, game_id: str, token: str) -> TestClient:
    client = TestClient(app)
    assert client.get(f"/signin/{game_id}/{token}").status_code == 200
    return client


def csrf(client: TestClient, page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get(page).text).group(1)


def powers_table(app):
    games = app.state.games
    gid, gm_token, _ = games.create_game("Talk")
    tokens = {"gm": gm_token}
    for name, cls, sub in (("Ann", "champion", "wizard"), ("Bob", "conspiracy", "circle"), ("Cy", "city", "overlord")):
        pid, token, _ = add_power(games, gid, "gm", name, cls, sub)
        tokens[pid] = token
    return gid, tokens


def test_two_seats_negotiate_privately_and_the_table_talks_in_public_in_the_browser(app):
    gid, tokens = powers_table(app)
    ann, bob, cy = (signed_in(app, gid, tokens[k]) for k in ("ann", "bob", "cy"))
    r = ann.post(
        f"/play/{gid}/talk/open",
        data={"seats[]": ["bob"], "title": "SECRET-BORDER-TALKS", "csrf": csrf(ann, f"/play/{gid}/talk")},
    )
    thread = r.url.path.rsplit("/", 1)[-1]
    assert r.status_code == 200 and thread.startswith("thr-"), r.url
    r = ann.post(
        f"/play/{gid}/talk/{thread}/post",
        data={"text": "We cede the **FORD-OF-WILLOWS** <b>x</b>", "csrf": csrf(ann, f"/play/{gid}/talk/{thread}")},
    )
    assert "<strong>FORD-OF-WILLOWS</strong>" in r.text and "<b>x</b>" not in r.text and "&lt;b&gt;" in r.text
    cy.post(f"/play/{gid}/talk/table/post", data={"text": "Lovely day.", "csrf": csrf(cy, f"/play/{gid}/talk/table")})

    # bob's board says what is new; reading the thread clears it
    board = bob.get(f"/play/{gid}").text
    assert re.search(r"Talk <span class=\"unread\">\(2 new\)</span>", board), board[:600]
    page = bob.get(f"/play/{gid}/talk/{thread}").text
    assert "FORD-OF-WILLOWS" in page and "SECRET-BORDER-TALKS" in page
    assert "(1 new)" in bob.get(f"/play/{gid}").text  # the table's post is still new to bob

    # cy: no trace of the thread anywhere
    seen_by_cy = "".join(
        cy.get(p).text
        for p in (f"/play/{gid}", f"/play/{gid}/talk", f"/play/{gid}/talk?q=FORD", f"/play/{gid}/talk/{thread}")
    )
    for secret in ("FORD-OF-WILLOWS", "SECRET-BORDER-TALKS", thread):
        assert secret not in seen_by_cy
    assert (
        cy.get(f"/play/{gid}/talk/{thread}").status_code == cy.get(f"/play/{gid}/talk/thr-nothing").status_code == 404
    )

    # the GM reads every thread and hides a post with a reason
    gm = signed_in(app, gid, tokens["gm"])
    page = gm.get(f"/play/{gid}/talk/{thread}").text
    post_id = re.search(r"/hide/(post-[0-9a-f]+)", page).group(1)
    gm.post(
        f"/play/{gid}/talk/{thread}/hide/{post_id}",
        data={"reason": "too rude", "csrf": csrf(gm, f"/play/{gid}/talk/{thread}")},
    )
    # issue 28: the post keeps its place as a placeholder naming who hid it and why; its words never show
    seen_by_bob = bob.get(f"/play/{gid}/talk/{thread}").text
    assert "Hidden by the GM: too rude" in seen_by_bob and "FORD-OF-WILLOWS" not in seen_by_bob
    seen_by_bob += "".join(bob.get(p).text for p in (f"/play/{gid}", f"/play/{gid}/talk?q=FORD", f"/play/{gid}/live"))
    assert "FORD-OF-WILLOWS" not in seen_by_bob and "We cede" not in seen_by_bob
    seen_by_gm = gm.get(f"/play/{gid}/talk/{thread}").text
    assert "Hidden by the GM: too rude" in seen_by_gm and "FORD-OF-WILLOWS" in seen_by_gm


def test_an_empty_post_is_refused_next_to_the_form_and_records_nothing(app, games):
    gid, tokens = powers_table(app)
    ann = signed_in(app, gid, tokens["ann"])
    before = len(games.visible_events(gid, "gm"))
    r = ann.post(f"/play/{gid}/talk/table/post", data={"text": "  ", "csrf": csrf(ann, f"/play/{gid}/talk/table")})
    assert re.search(r'<p class="error" role="alert" id="err-post-form">a post cannot be empty', r.text)
    assert len(games.visible_events(gid, "gm")) == before


def test_the_covenant_board_has_the_talk_and_the_host_reads_no_private_thread_it_is_not_in(app, games):
    t = seat_three(games)
    tokens = {seat: games.reissue_link(t.game_id, "gm", seat)[0] for seat in ("ann", "bob", "cy")}
    thread = games.run(Caller.of("bob"), t.game_id, OpenThread(["cy"], "")).result["thread_id"]
    games.run(Caller.of("cy"), t.game_id, MakePost(thread, "BOB-CY-SECRET"))
    host = signed_in(app, t.game_id, tokens["ann"])
    assert "/talk" in host.get(f"/play/{t.game_id}").text
    html = host.get(f"/play/{t.game_id}/talk").text + host.get(f"/play/{t.game_id}/talk?q=secret").text
    assert "BOB-CY-SECRET" not in html and thread not in html
    assert "BOB-CY-SECRET" in signed_in(app, t.game_id, tokens["bob"]).get(f"/play/{t.game_id}/talk/{thread}").text


def test_a_post_a_host_hid_shows_as_a_placeholder_naming_the_host_and_the_reason(app, games):
    """Issue 28: where there is no GM, the host hides; every reader of the thread sees who hid the post and why,
    in its place, and never its words (not on the thread, the board, search or the feed)."""
    t = seat_three(games)
    tokens = {seat: games.reissue_link(t.game_id, "gm", seat)[0] for seat in ("ann", "bob", "cy")}
    post_id = games.run(Caller.of("bob"), t.game_id, MakePost("table", "BOB-RUDE-WORDS")).result["post_id"]
    games.run(Caller.of("ann"), t.game_id, HidePost(post_id, "keep it civil"))
    for seat in ("ann", "bob", "cy"):
        client = signed_in(app, t.game_id, tokens[seat])
        page = client.get(f"/play/{t.game_id}/talk/table").text
        assert "Hidden by Ann (host): keep it civil" in page, seat
        for path in ("/talk/table", "", "/talk?q=rude", "/live", "/audit"):
            assert "BOB-RUDE-WORDS" not in client.get(f"/play/{t.game_id}{path}").text, (seat, path)


def version_of(app, gid: str) -> int:
    """The game's version: what a page that records nothing leaves as it was."""
    return int(games_of(app).get_game(gid, for_update=False).version)


def games_of(app):
    return app.state.games


def test_preview_shows_the_post_as_it_would_show_keeps_the_text_and_records_nothing(app):
    """Issue 28: "Preview" renders the draft (sanitised Markdown) above the form with the text kept; nothing is
    recorded (no post, no event); a draft that breaks a rule says so, naming nothing recorded either."""
    gid, tokens = powers_table(app)
    ann = signed_in(app, gid, tokens["ann"])
    before = version_of(app, gid)
    r = ann.post(
        f"/play/{gid}/talk/table/post",
        data={
            "text": "Cede the **FORD** <b>x</b>",
            "preview": "1",
            "csrf": csrf(ann, f"/play/{gid}/talk/table"),
        },
    )
    assert r.status_code == 200 and "Preview (not sent)" in r.text
    assert "<strong>FORD</strong>" in r.text and "<b>x</b>" not in r.text
    assert ">Cede the **FORD** &lt;b&gt;x&lt;/b&gt;</textarea>" in r.text  # the draft is kept
    page = signed_in(app, gid, tokens["bob"]).get(f"/play/{gid}/talk/table").text
    assert "FORD" not in page and "Nothing posted yet." in page
    assert version_of(app, gid) == before  # no event recorded
    bad = ann.post(
        f"/play/{gid}/talk/table/post",
        data={"text": "<script>x</script>", "preview": "1", "csrf": csrf(ann, f"/play/{gid}/talk/table")},
    )
    assert bad.status_code == 200 and "script" in bad.text and 'role="alert"' in bad.text
    assert "Nothing posted yet." in signed_in(app, gid, tokens["bob"]).get(f"/play/{gid}/talk/table").text
    assert version_of(app, gid) == before


def test_reply_quotes_the_post_records_what_it_answers_and_refuses_a_post_the_replier_cannot_see(app):
    """Issue 28: a post's "Reply" link opens the form with the post quoted (no JavaScript); the reply records the
    post it answers and shows "in reply to" its author, linking to it. A reply to a post of a thread the replier
    cannot read, or to a hidden post, is refused naming ``reply_to``, and records nothing."""
    games = games_of(app)
    gid, tokens = powers_table(app)
    ann, bob = signed_in(app, gid, tokens["ann"]), signed_in(app, gid, tokens["bob"])
    offer = games.run(Caller.of("ann"), gid, MakePost("table", "Cede the FORD?\nOr the mill.")).result["post_id"]
    page = bob.get(f"/play/{gid}/talk/table").text
    assert f'href="/play/{gid}/talk/table?reply_to={offer}#text"' in page
    form = bob.get(f"/play/{gid}/talk/table", params={"reply_to": offer}).text
    assert ">&gt; Cede the FORD?\n&gt; Or the mill.\n\n</textarea>" in form
    assert f'name="reply_to" value="{offer}"' in form
    r = bob.post(
        f"/play/{gid}/talk/table/post",
        data={"text": "> Cede the FORD?\n\nNever.", "reply_to": offer, "csrf": csrf(bob, f"/play/{gid}/talk/table")},
    )
    assert r.status_code == 200 and "Never." in r.text
    link = f'href="/play/{gid}/talk/table/posts/{offer}">in reply to Ann</a>'
    assert link in r.text and link in ann.get(f"/play/{gid}/talk/table").text
    went = ann.get(f"/play/{gid}/talk/table/posts/{offer}", follow_redirects=False)
    assert went.status_code == 303 and went.headers["location"].endswith("#post-1")

    # refused: a post in a thread bob cannot read, a hidden post, an unknown one; nothing recorded
    thread = games.run(Caller.of("ann"), gid, OpenThread(["cy"], "")).result["thread_id"]
    secret = games.run(Caller.of("cy"), gid, MakePost(thread, "CY-SECRET")).result["post_id"]
    games.run(Caller.of("gm"), gid, HidePost(offer, "manners"))
    before = games.get_game(gid, for_update=False).version
    for target in (secret, offer, "post-nothing"):
        assert "CY-SECRET" not in bob.get(f"/play/{gid}/talk/table", params={"reply_to": target}).text
        r = bob.post(
            f"/play/{gid}/talk/table/post",
            data={"text": "Me too.", "reply_to": target, "csrf": csrf(bob, f"/play/{gid}/talk/table")},
        )
        assert "to reply to" in r.text and 'role="alert"' in r.text and "CY-SECRET" not in r.text, target
    assert games.get_game(gid, for_update=False).version == before
    assert bob.get(f"/play/{gid}/talk/table/posts/{secret}").status_code == 404


def test_preview_of_dice_before_the_game_commits_them_names_the_rule_sending_would_break(app):
    """Issue 28: a preview says what sending would say. Before play no dice are committed, so ``[roll 2d6]`` is
    refused in the preview as it would be when posted, the text kept and nothing recorded."""
    games = games_of(app)
    gid, _, _ = games.create_game("Before play")
    seat, token, _ = add_power(games, gid, "gm", "Ann", "champion", "wizard")
    ann = signed_in(app, gid, token)
    before = version_of(app, gid)
    r = ann.post(
        f"/play/{gid}/talk/table/post",
        data={"text": "Shall we [roll 2d6]?", "preview": "1", "csrf": csrf(ann, f"/play/{gid}/talk/table")},
    )
    assert r.status_code == 200 and 'role="alert"' in r.text and "no dice are committed in this game now" in r.text
    assert ">Shall we [roll 2d6]?</textarea>" in r.text and version_of(app, gid) == before
