"""Disputes over HTTP (issue 29 item 4), on both stores: a power disputes its private duel's roll by its own number
for it, the GM sees it (with the version), answers pointing at the duel's derivation and rejects it; another power
learns nothing of it (not in its disputes, threads or feed, and an answer to it is refused as for a dispute that does
not exist), and numbers it was not shown are refused as missing ones, recording nothing."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from tests.integration.helpers import bearer, close_app
from tests.scenarios import play_rich_month


@pytest.fixture
def month(store_settings):
    app = create_app(store_settings)
    games = app.state.games
    m = play_rich_month(games)
    with TestClient(app) as client:
        yield client, m, games
    close_app(app)


def stored(games, game_id: str) -> int:
    return len(list(games.iter_events(game_id)))


def feed(client, m, token) -> list[dict]:
    return client.get(f"/games/{m.game_id}/feed?limit=1000", headers=bearer(token)).json()


def test_a_power_disputes_its_private_roll_and_the_gm_answers_and_rejects_it(month):
    client, m, games = month
    wiz, circ = m.tokens[m.powers["wiz"]], m.tokens[m.powers["circ"]]
    mine = feed(client, m, wiz)
    duel_id = m.actions["duel"]
    rolled = next(e for e in mine if e["type"] == "DiceRolled" and e["data"]["action_id"] == duel_id)
    body = {"seq": rolled["seq"], "text": "WIZ-DISPUTE the old rule"}
    r = client.post(f"/games/{m.game_id}/disputes", json=body, headers=bearer(wiz))
    assert r.status_code == 201, r.text
    dispute_id, thread_id = r.json()["result"]["dispute_id"], r.json()["result"]["thread_id"]

    listed = client.get(f"/games/{m.game_id}/disputes", headers=bearer(wiz)).json()
    assert [(d["dispute_id"], d["event"]["seq"], d["event"]["kind"]) for d in listed] == [
        (dispute_id, rolled["seq"], "DiceRolled")
    ]
    assert "version" not in listed[0]["event"] and listed[0]["may_withdraw"] and not listed[0]["may_answer"]

    gm = client.get(f"/games/{m.game_id}/disputes", headers=bearer(m.gm_token)).json()
    assert gm[0]["may_answer"] and gm[0]["event"]["version"] is not None
    gm_feed = feed(client, m, m.gm_token)
    assert next(e for e in gm_feed if e["seq"] == gm[0]["event"]["seq"])["data"] == rolled["data"]

    # circ: nothing of it anywhere, and an answer to it is refused as one to a dispute that does not exist
    assert client.get(f"/games/{m.game_id}/disputes", headers=bearer(circ)).json() == []
    threads = client.get(f"/games/{m.game_id}/threads", headers=bearer(circ)).json()
    assert thread_id not in {t["thread_id"] if "thread_id" in t else t.get("id") for t in threads}
    assert "WIZ-DISPUTE" not in str(feed(client, m, circ))
    before = stored(games, m.game_id)
    unseen = client.post(f"/games/{m.game_id}/disputes/{dispute_id}/answer", json={"text": "x"}, headers=bearer(circ))
    missing = client.post(f"/games/{m.game_id}/disputes/dsp-nope/answer", json={"text": "x"}, headers=bearer(circ))
    assert unseen.status_code == missing.status_code == 404
    assert unseen.json()["message"].replace(dispute_id, "X") == missing.json()["message"].replace("dsp-nope", "X")
    assert stored(games, m.game_id) == before

    duel = f"derivation:action:{duel_id}"
    r = client.post(
        f"/games/{m.game_id}/disputes/{dispute_id}/answer",
        json={"text": "GM-ANSWER the dice are right", "points_at": duel},
        headers=bearer(m.gm_token),
    )
    assert r.status_code == 200, r.text
    posts = client.get(f"/games/{m.game_id}/threads/{thread_id}/posts", headers=bearer(wiz)).json()
    assert [p["text"] for p in posts][-2:] == ["WIZ-DISPUTE the old rule", "GM-ANSWER the dice are right"]
    r = client.post(
        f"/games/{m.game_id}/disputes/{dispute_id}/settle",
        json={"outcome": "rejected", "note": "the dice stand"},
        headers=bearer(m.gm_token),
    )
    assert r.status_code == 200, r.text
    listed = client.get(f"/games/{m.game_id}/disputes", headers=bearer(wiz)).json()
    assert (listed[0]["outcome"], listed[0]["note"], listed[0]["answers"][0]["points_at"]) == (
        "rejected",
        "the dice stand",
        duel,
    )
    assert "GM-ANSWER" not in str(feed(client, m, circ))


def test_a_number_the_power_was_not_shown_is_refused_as_a_missing_one_and_records_nothing(month):
    client, m, games = month
    circ = m.tokens[m.powers["circ"]]
    count = len(feed(client, m, circ))
    total = len(feed(client, m, m.gm_token))
    before = stored(games, m.game_id)
    past = client.post(f"/games/{m.game_id}/disputes", json={"seq": count + 1, "text": "t"}, headers=bearer(circ))
    far = client.post(f"/games/{m.game_id}/disputes", json={"seq": total + 9, "text": "t"}, headers=bearer(circ))
    assert past.status_code == far.status_code == 404
    assert past.json()["field"] == far.json()["field"] == "seq"
    assert past.json()["message"].replace(str(count + 1), "N") == far.json()["message"].replace(str(total + 9), "N")
    gm = client.post(f"/games/{m.game_id}/disputes", json={"seq": 1, "text": "t"}, headers=bearer(m.gm_token))
    assert gm.status_code == 403 and gm.json()["field"] == "authorization"
    assert stored(games, m.game_id) == before
