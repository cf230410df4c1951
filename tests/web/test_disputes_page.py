"""Disputes in the browser without a script (issue 29 item 4): a power follows the "Dispute" link of a feed line to the
disputes page, raises a dispute on its private duel's roll with a plain form; its feed line then says "disputed"; the
GM's console marks the same event (in the GM's own numbering), answers pointing at the derivation and rejects it; the
power reads the outcome in words (no ids), in German too. Another power sees none of it, and a refused form records
nothing and says why beside the form."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from tests.scenarios import play_rich_month
from tests.web.id_scan import Names, scan_page


@pytest.fixture
def month(app, games):
    return app, games, play_rich_month(games)


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


def duel_roll(games, m) -> int:
    mine = games.visible_events(m.game_id, "wiz", limit=1000)
    return next(e["seq"] for e in mine if e["type"] == "DiceRolled" and e["data"]["action_id"] == m.actions["duel"])


def raise_dispute(app, games, m) -> tuple[TestClient, int]:
    wiz = signed_in(app, m.game_id, m.tokens["wiz"])
    seq = duel_roll(games, m)
    board = wiz.get(f"/play/{m.game_id}?before={seq + 1}").text
    assert f'href="/play/{m.game_id}/disputes?seq={seq}#raise"' in board  # the feed line's own link
    page = wiz.get(f"/play/{m.game_id}/disputes?seq={seq}").text
    assert f'name="seq" type="number" min="1" required value="{seq}"' in page
    done = wiz.post(
        f"/play/{m.game_id}/disputes/raise",
        data={"seq": str(seq), "text": "WIZ-DISPUTE: the old rule", "csrf": csrf(page)},
        follow_redirects=True,
    ).text
    assert "Dispute raised." in done and "Outcome: open" in done
    return wiz, seq


def test_a_power_raises_a_dispute_from_its_feed_and_the_gm_answers_and_rejects_it(month):
    app, games, m = month
    wiz, seq = raise_dispute(app, games, m)
    board = wiz.get(f"/play/{m.game_id}?before={seq + 1}").text
    line = re.search(rf'<li id="event-{seq}">.*?</li>', board, re.S)
    assert line is not None and "disputed: open" in line.group(0)

    gm = signed_in(app, m.game_id, m.gm_token)
    page = gm.get(f"/play/{m.game_id}/disputes").text
    assert "Wiz disputes event #" in page and "Dice rolled" in page
    gm_seq = int(re.search(r'href="/play/[^"]+\?before=\d+#event-(\d+)"', page).group(1))
    console = gm.get(f"/play/{m.game_id}?before={gm_seq + 1}").text
    assert "disputed: open" in re.search(rf'<li id="event-{gm_seq}">.*?</li>', console, re.S).group(0)
    audit = gm.get(f"/play/{m.game_id}/audit?type=DiceRolled").text
    assert audit.count("disputed: open") == 1  # the GM's audit marks the disputed row
    action = re.search(r'action="(/play/[^"]+/answer)"', page).group(1)
    gm.post(
        action,
        data={
            "text": "GM-ANSWER: see Why?",
            "points": "derivation",
            "reference": f"action:{m.actions['duel']}",
            "csrf": csrf(page),
        },
    )
    settle = re.search(r'action="(/play/[^"]+/settle)"', page).group(1)
    gm.post(settle, data={"outcome": "rejected", "note": "the dice stand", "csrf": csrf(page)})

    mine = wiz.get(f"/play/{m.game_id}/disputes").text
    assert "Outcome: rejected" in mine and "the dice stand" in mine
    assert "The GM answered, pointing at the derivation of the result" in mine
    assert scan_page(mine, "disputes", Names(seats={p: p.capitalize() for p in m.powers})) == []
    assert "disputed: rejected" in wiz.get(f"/play/{m.game_id}?before={seq + 1}").text
    thread = re.search(r'href="(/play/[^"]+/talk/thr-[^"]+)"', mine).group(1)
    assert "GM-ANSWER" in wiz.get(thread).text
    german = wiz.get(f"/play/{m.game_id}/disputes", headers={"Accept-Language": "de"}).text
    assert "Streitfälle" in german and "Ausgang: abgelehnt" in german


def test_another_power_sees_nothing_of_it_and_a_refused_form_records_nothing(month):
    app, games, m = month
    raise_dispute(app, games, m)
    circ = signed_in(app, m.game_id, m.tokens["circ"])
    page = circ.get(f"/play/{m.game_id}/disputes").text
    assert "WIZ-DISPUTE" not in page and "Wiz disputes" not in page and "No dispute yet." in page
    assert "disputed:" not in circ.get(f"/play/{m.game_id}").text
    before = kinds(games, m.game_id)
    count = len(games.visible_events(m.game_id, "circ", limit=1000))
    refused = circ.post(
        f"/play/{m.game_id}/disputes/raise",
        data={"seq": str(count + 1), "text": "peek", "csrf": csrf(page)},
        follow_redirects=True,
    ).text
    assert f"no event {count + 1} in your timeline" in refused and 'role="alert"' in refused
    assert kinds(games, m.game_id) == before


@pytest.mark.parametrize("name", ["covenants", "lodge", "table"])
def test_every_rulesets_board_links_each_feed_line_to_a_dispute_and_marks_a_disputed_one(app, games, name):
    from tests.contract.drivers import DRIVERS

    played = DRIVERS[name].play(games)
    gid = played.game_id
    hosts = games.get_game(gid, for_update=False).hosts()
    seat = next(v for v in played.viewers if v != "gm" and v not in hosts)  # a host's dispute goes to other hosts
    token, _receipt = games.reissue_link(gid, "gm", seat)
    client = signed_in(app, gid, token)
    board = client.get(f"/play/{gid}").text
    if 'id="feed' not in board:  # a ruleset with no board of its own (the fake table): the page still serves it
        assert client.get(f"/play/{gid}/disputes").status_code == 200
        return
    assert "Disputes (0 open)" in board
    seq = int(re.search(rf'href="/play/{gid}/disputes\?seq=(\d+)#raise"', board).group(1))
    page = client.get(f"/play/{gid}/disputes?seq={seq}").text
    client.post(f"/play/{gid}/disputes/raise", data={"seq": str(seq), "text": "why?", "csrf": csrf(page)})
    board = client.get(f"/play/{gid}").text
    assert "Disputes (1 open)" in board and "disputed: open" in board
