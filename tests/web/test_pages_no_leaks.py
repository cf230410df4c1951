"""A page for one power never contains another power's private data (the API leak test, on HTML)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from domain.powers import commands as pc
from tests.helpers import add_power
from tests.scenarios import play_rich_month

ALLOWED = {  # marker -> the powers that may see it (P.4); the GM sees all
    "PRIVATE-WIZ-DUEL": {"wiz", "sov"},  # Sov may resist it: who acts and what the action is
    "DESC-WIZ": {"wiz"},
    "PRIVATE-CIRC-PLOT": {"circ", "cult"},
    "DESC-CIRC": {"circ"},
    "PRIVATE-CULT-RITE": {"cult"},
    "SECRET-ASSET-CIRC": {"circ", "wiz"},
    "CONSEQUENCE-CIRC": {"circ"},
    "DISCLOSED-CIRC-TO-SOV": {"circ", "sov"},
    "SEEKING-FOUND-CULT-SHRINE": {"wiz"},
}


@pytest.fixture
def site(app, games):
    month = play_rich_month(games)
    return app, month, month.tokens


def csrf(client: TestClient, page: str) -> str:
    """The CSRF token in the forms of a page (every form posts it)."""
    return re.search(r'name="csrf" value="([^"]+)"', client.get(page).text).group(1)


def pages_of(app, game_id: str, token: str) -> str:
    client = TestClient(app)
    client.get(f"/signin/{game_id}/{token}")
    html = client.get(f"/play/{game_id}").text + client.get("/").text
    for phase in ("s1-tidings", "s1m1-planning", "s1m1-resolution", "s1m1-resistance"):
        html += client.get(f"/play/{game_id}?phase={phase}").text
    html += client.get(f"/play/{game_id}/live?feed=1").text  # the live fragment (issue 17)
    html += client.get(f"/play/{game_id}/audit").text  # refused for players
    return html


def test_no_power_page_shows_what_the_rules_hide(site):
    app, m, tokens = site
    for key, pid in m.powers.items():
        html = pages_of(app, m.game_id, tokens[pid])
        for marker, who in ALLOWED.items():
            if key not in who:
                assert marker not in html, f"{key} sees {marker}"


def test_the_gm_console_shows_everything_and_players_cannot_open_it(site):
    app, m, tokens = site
    sov = TestClient(app)
    sov.get(f"/signin/{m.game_id}/{tokens[m.powers['sov']]}")
    assert "GM console" not in sov.get(f"/play/{m.game_id}").text
    assert sov.get(f"/play/{m.game_id}/audit").status_code == 403
    r = sov.post(f"/play/{m.game_id}/advance", data={"csrf": csrf(sov, f"/play/{m.game_id}")}, follow_redirects=True)
    assert "only the GM may do this" in r.text


def test_a_bad_or_reissued_link_signs_nobody_in(site, games):
    app, m, tokens = site
    client = TestClient(app)
    assert client.get(f"/signin/{m.game_id}/not-a-token").status_code == 401
    new_token, _ = games.reissue_link(m.game_id, "gm", m.powers["sov"])
    assert client.get(f"/signin/{m.game_id}/{tokens[m.powers['sov']]}").status_code == 401  # the old one
    assert client.get(f"/signin/{m.game_id}/{new_token}").status_code == 200


def test_errors_are_shown_next_to_their_field_with_the_rule(site, games):
    app, m, tokens = site
    gid, gm, _ = games.create_game("Errors")
    pid, token, _ = add_power(games, gid, "gm", "Lord", "city", "overlord")
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    client = TestClient(app)
    client.get(f"/signin/{gid}/{token}")
    form = {"title": "Plot", "slot": "private", "csrf": csrf(client, f"/play/{gid}")}
    for _ in range(2):
        client.post(f"/play/{gid}/submit", data=form)
    html = client.post(f"/play/{gid}/submit", data=form).text
    errors = re.findall(
        r'<p class="error" role="alert" id="err-compose-(\w+)">([^<]*)<span class="rule">\(([^)]*)\)', html
    )
    assert errors == [("slot", "an Overlord takes 2 private actions a month; this would be the 3rd ", "P-ACT-1")]


def feed_pages(client: TestClient, game_id: str) -> list[str]:
    """Every page of a viewer's feed, newest first, following its "Older events" links."""
    out, url = [], f"/play/{game_id}"
    while url:
        html = client.get(url).text
        feed = html[html.index('id="feed"') :]
        out.append(feed)
        older = re.search(r'<a href="\?([^"]+)#feed" rel="next">Older events</a>', feed)
        url = f"/play/{game_id}?{older.group(1).replace('&amp;', '&')}" if older else None
    return out


def test_the_feed_is_in_words_numbered_by_the_viewer_and_paginated_without_leaks(site, games):
    """Issue 17: the feed names no event class, numbers each line with the viewer's own event number
    (their timeline's sequence), shows every event a page at a time, and no hidden text reaches another
    viewer's feed lines on any page."""
    app, m, tokens = site
    for n in range(45):  # Sov alone sees these: its feed runs to a second page
        games.send(m.game_id, "gm", pc.GrantAsset(m.powers["sov"], f"ally{n}", "agent", 1))
    internal = re.compile(r"\b(StepBegan|SeedCommitted|WindowClosed|ActionSubmitted|AssetGranted)\b")
    for key, pid in m.powers.items():
        client = TestClient(app)
        client.get(f"/signin/{m.game_id}/{tokens[pid]}")
        pages = feed_pages(client, m.game_id)
        text = "".join(pages)
        numbers = [int(n) for n in re.findall(r'<span class="seq">#(\d+)</span>', text)]
        own = games.visible_events(m.game_id, pid, limit=10_000)
        assert numbers == [e["seq"] for e in reversed(own)], key  # every event once, by the viewer's number
        assert not internal.search(text), key
        for marker, who in ALLOWED.items():
            if key not in who:
                assert marker not in text, f"{key} reads {marker} in the feed"
        if key == "sov":
            assert len(pages) == 2 and "Sov gained the asset ally44 (agent, rank 1)." in pages[0]
            assert "Season 1, month 1: Planning began." in text
            assert "Season 1, month 1: Planning closed: the GM moved the game on." in text


def _strip_and_feed(html: str) -> tuple[str, list[str]]:
    strip = re.search(r'<section class="strip.*?</section>', html, re.S).group(0)
    return strip, re.findall(r'<li id="event-\d+">.*?</li>', html)


def test_the_live_fragment_carries_nothing_the_viewers_board_does_not(site):
    """Issue 17: what a board polls (``/play/{game}/live``) is that viewer's own strip and feed page, the same as
    their board's, for every seat; a power's strip names no other power's readiness (P.4); and a
    browser signed in to no seat gets nothing."""
    app, m, tokens = site
    for key, pid in m.powers.items():
        client = TestClient(app)
        client.get(f"/signin/{m.game_id}/{tokens[pid]}")
        board = _strip_and_feed(client.get(f"/play/{m.game_id}").text)
        live = client.get(f"/play/{m.game_id}/live?feed=1")
        assert live.status_code == 200 and _strip_and_feed(live.text) == board, key
        names = re.findall(r'<span class="seat-name">([^<]*)</span>', board[0])
        assert all(n.startswith("You (") for n in names), (key, names)
    assert TestClient(app).get(f"/play/{m.game_id}/live?feed=1").status_code == 401
