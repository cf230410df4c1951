"""The preview button of the GM console (issue 29 item 2): a plain form (no script) on each open window, which shows
a page of every viewer's outcome of closing it (P-RES-2, P-RES-4: a Powers month's resistance close), records only
the GM's audit line, speaks German, and is refused to a player beside the form."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from domain.powers import commands as pc
from tests.scenarios import play_rich_month


@pytest.fixture
def month(app, games):
    m = play_rich_month(games, finish=False)
    games.send(m.game_id, "gm", pc.Advance())
    games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))  # resistance opens (P-RES-2)
    return app, games, m


def signed_in(app, gid: str, token: str) -> TestClient:
    client = TestClient(app)
    assert client.get(f"/signin/{gid}/{token}").status_code == 200
    return client


def csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found is not None
    return found.group(1)


def kinds(games, gid: str) -> list[str]:
    return [type(e).__name__ for e in games.iter_events(gid)]


def test_the_console_previews_a_window_on_a_page_of_every_viewers_outcome(month):
    app, games, m = month
    client = signed_in(app, m.game_id, m.gm_token)
    console = client.get(f"/play/{m.game_id}").text
    assert f'action="/play/{m.game_id}/preview"' in console and "Preview closing" in console
    before = kinds(games, m.game_id)
    page = client.post(f"/play/{m.game_id}/preview", data={"window_id": "s1m1-resistance", "csrf": csrf(console)}).text
    assert "Preview: closing" in page and "What Observers would see" in page and "What Wiz would see" in page
    assert "PRIVATE-WIZ-DUEL" in page and "<script" not in page.split("<main", 1)[1]
    assert kinds(games, m.game_id) == [*before, "Previewed"]


def test_the_preview_page_speaks_german(month):
    app, games, m = month
    client = signed_in(app, m.game_id, m.gm_token)
    console = client.get(f"/play/{m.game_id}", headers={"Accept-Language": "de"}).text
    page = client.post(
        f"/play/{m.game_id}/preview",
        data={"window_id": "s1m1-resistance", "csrf": csrf(console)},
        headers={"Accept-Language": "de"},
    ).text
    assert "Vorschau" in page and "Vorschau" in console


def test_a_player_is_refused_beside_the_form_and_nothing_is_recorded(month):
    app, games, m = month
    wiz = signed_in(app, m.game_id, m.tokens[m.powers["wiz"]])
    board = wiz.get(f"/play/{m.game_id}").text
    assert f'action="/play/{m.game_id}/preview"' not in board
    before = kinds(games, m.game_id)
    page = wiz.post(
        f"/play/{m.game_id}/preview", data={"window_id": "s1m1-resistance", "csrf": csrf(board)}, follow_redirects=True
    ).text
    assert "may preview the pending step" in page and "What Sov would see" not in page
    assert kinds(games, m.game_id) == before


def test_the_audit_line_reads_in_the_gms_feed_and_no_players(month):
    app, games, m = month
    client = signed_in(app, m.game_id, m.gm_token)
    client.post(f"/play/{m.game_id}/preview", data={"csrf": csrf(client.get(f"/play/{m.game_id}").text)})
    line = "was previewed; nothing was published."
    assert "(Previewed)" in client.get(f"/play/{m.game_id}/audit").text
    assert line in client.get(f"/play/{m.game_id}").text  # the console's feed
    for pid in m.powers.values():
        assert line not in signed_in(app, m.game_id, m.tokens[pid]).get(f"/play/{m.game_id}").text


def test_the_lodge_host_previews_from_the_board_and_a_mage_sees_no_button(app, games):
    """The Lodge's host (L.3: a turn's Actions with a prompt open) previews from the board; a Mage has no button."""
    from tests.contract.drivers import DRIVERS

    played = DRIVERS["lodge"].play(games)
    host = games.reissue_link(played.game_id, "gm", "gm")[0]
    ann = games.reissue_link(played.game_id, "gm", "ann")[0]
    assert host and ann
    client = signed_in(app, played.game_id, host)
    board = client.get(f"/play/{played.game_id}").text
    assert f'action="/play/{played.game_id}/preview"' in board
    page = client.post(f"/play/{played.game_id}/preview", data={"csrf": csrf(board)}).text
    assert "Preview: closing" in page and "What Observers would see" in page
    mage = signed_in(app, played.game_id, ann).get(f"/play/{played.game_id}").text
    assert f'action="/play/{played.game_id}/preview"' not in mage


def test_the_covenant_host_previews_from_the_table_and_a_covenant_sees_no_button(app, games):
    """The covenant game's host is a seat (H-14): its table has the preview form beside each open window, and the
    form answers as the host's API does (the outcome, or, while a seat has still to act, the refusal naming the
    window it waits on, beside the windows); another covenant has no button and is refused, recording nothing."""
    from tests.contract.drivers import DRIVERS

    played = DRIVERS["covenants"].play(games)
    gid = played.game_id
    host, *_ = [v for v in played.viewers[1:] if games.read(gid, lambda g, v=v: g.may(v, "windows"))]
    other = next(v for v in played.viewers[1:] if v != host)
    client = signed_in(app, gid, games.reissue_link(gid, "gm", host)[0])
    table = client.get(f"/play/{gid}").text
    assert f'action="/play/{gid}/preview"' in table and "Preview closing" in table
    before = kinds(games, gid)
    page = client.post(f"/play/{gid}/preview", data={"csrf": csrf(table)}, follow_redirects=True).text
    assert "may preview the pending step" not in page
    if "Preview: closing" in page:
        assert kinds(games, gid) == [*before, "Previewed"]
    else:
        assert "waits on" in page and kinds(games, gid) == before
    seat = signed_in(app, gid, games.reissue_link(gid, "gm", other)[0])
    board = seat.get(f"/play/{gid}").text
    assert f'action="/play/{gid}/preview"' not in board
    before = kinds(games, gid)
    refused = seat.post(f"/play/{gid}/preview", data={"csrf": csrf(board)}, follow_redirects=True).text
    assert "may preview the pending step" in refused and kinds(games, gid) == before
