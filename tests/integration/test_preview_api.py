"""POST /games/{id}/preview (issue 29 item 2) over HTTP, on both stores: the GM previews a Powers month's resistance
close (P-RES-2, P-RES-4), sees every viewer's outcome and the derivations, and publishing gives what it showed;
players are refused naming the role, and record nothing."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from domain.powers import commands as pc
from tests.integration.helpers import bearer, close_app
from tests.scenarios import play_rich_month


@pytest.fixture
def month(store_settings):
    app = create_app(store_settings)
    games = app.state.games
    m = play_rich_month(games, finish=False)
    games.send(m.game_id, "gm", pc.Advance())
    games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))  # resistance is open (P-RES-2)
    with TestClient(app) as client:
        yield client, m, games
    close_app(app)


def stored(games, game_id: str) -> list[str]:
    return [type(e).__name__ for e in games.iter_events(game_id)]


def test_p_res_4_the_gm_previews_the_resistance_close_and_publishing_gives_it(month):
    client, m, games = month
    before = stored(games, m.game_id)
    r = client.post(f"/games/{m.game_id}/preview", headers=bearer(m.gm_token))
    assert r.status_code == 200, r.text
    pv = r.json()
    assert pv["window_id"] == "s1m1-resistance" and pv["previewed_by"] == "gm" and pv["blocked"] is None
    assert set(pv["viewers"]) == {"gm", "observer", *m.powers.values()}
    duel = f"action:{m.actions['duel']}"
    assert duel in pv["viewers"]["gm"]["derivations"]
    assert duel not in pv["viewers"][m.powers["circ"]]["derivations"]  # P.4: circ is no party to the duel
    assert "PRIVATE-WIZ-DUEL" not in str(pv["viewers"]["observer"])
    assert stored(games, m.game_id) == [*before, "Previewed"]
    games.close_window(m.game_id, "gm", pv["window_id"])
    now = client.get(f"/games/{m.game_id}/results/{duel}/explain", headers=bearer(m.gm_token)).json()
    shown = pv["viewers"]["gm"]["derivations"][duel]
    assert [(d["roll_no"], d["faces"]) for d in shown["dice"]] == [(d["roll_no"], d["faces"]) for d in now["dice"]]
    assert shown["result"] == now["result"]


def test_a_player_may_not_preview_and_records_nothing(month):
    client, m, games = month
    before = stored(games, m.game_id)
    r = client.post(f"/games/{m.game_id}/preview", headers=bearer(m.tokens[m.powers["wiz"]]))
    assert r.status_code == 403 and r.json()["field"] == "authorization"
    assert "only the GM may preview the pending step; you are player" in r.text
    assert "PRIVATE" not in r.text and stored(games, m.game_id) == before


def test_the_audit_line_is_the_gms_alone(month):
    client, m, games = month
    client.post(f"/games/{m.game_id}/preview", headers=bearer(m.gm_token))
    gm = client.get(f"/games/{m.game_id}/export", headers=bearer(m.gm_token)).text
    wiz = client.get(f"/games/{m.game_id}/export", headers=bearer(m.tokens[m.powers["wiz"]])).text
    assert '"Previewed"' in gm and "Previewed" not in wiz


def test_a_window_not_open_is_refused_naming_the_field(month):
    client, m, games = month
    before = stored(games, m.game_id)
    r = client.post(f"/games/{m.game_id}/preview", headers=bearer(m.gm_token), json={"window_id": "no-such"})
    assert r.status_code == 404 and r.json()["field"] == "window_id"
    assert stored(games, m.game_id) == before
