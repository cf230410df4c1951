"""POST /games/{id}/replay and /adopt (issue 29 item 3) over HTTP, on both stores, with the fake table's two
installed versions (TABLE-2; table-2 adds one to a throw): the GM sees the difference and adopts it from a phase;
players are refused and record nothing; a version not installed or a phase unknown is refused naming the field; a
seat's export holds only the changes it may see."""

from __future__ import annotations

import pytest
from emissary_fake.ruleset import Join
from emissary_fake.throws import Throw
from fastapi.testclient import TestClient

from api.app import create_app
from application.service import Caller
from tests.integration.helpers import bearer, close_app


@pytest.fixture
def table(store_settings):
    app = create_app(store_settings)
    games = app.state.games
    game_id, gm, _ = games.create_game("Tea", ruleset="table")
    games.run_many(Caller.of("gm"), game_id, [Join("ann", "Ann"), Join("bob", "Bob")])
    games.run(Caller.of("ann"), game_id, Throw("ann"))
    games.run(Caller.of("bob"), game_id, Throw("bob", hidden=True))
    tokens = {s: games.reissue_link(game_id, "gm", s)[0] for s in ("ann", "bob")}
    with TestClient(app) as client:
        yield client, games, game_id, gm, tokens
    close_app(app)


def stored(games, game_id: str) -> list[str]:
    return [type(e).__name__ for e in games.iter_events(game_id)]


def test_the_gm_replays_under_table_2_and_adopts_it(table):
    client, games, game_id, gm, tokens = table
    before = stored(games, game_id)
    r = client.post(f"/games/{game_id}/replay", headers=bearer(gm), json={"version": "table-2"})
    assert r.status_code == 200, r.text
    out = r.json()
    assert [(d["type"], d["rules"], d["result"]["total"]["after"] - d["result"]["total"]["before"])
            for d in out["differences"] if d["result"]] == [("Thrown", ["TABLE-2"], 1)] * 2  # fmt: skip
    assert stored(games, game_id) == before
    r = client.post(f"/games/{game_id}/adopt", headers=bearer(gm), json={"version": "table-2", "from_phase": "setup"})
    assert r.status_code == 200, r.text
    assert r.json()["result"]["pinned"] == "table-2"
    told = ["RulesChangeTold"] * 4  # the GM, the 2 seats, the observers (issue 29)
    assert stored(games, game_id)[len(before) :] == ["RulesAdopted", *told]
    ann = client.get(f"/games/{game_id}/export", headers=bearer(tokens["ann"])).text
    bob = client.get(f"/games/{game_id}/export", headers=bearer(tokens["bob"])).text
    assert "RulesChangeTold" in ann and "hidden_scores" not in ann and "RulesAdopted" not in ann
    assert "hidden_scores" in bob


def test_players_may_not_replay_or_adopt(table):
    client, games, game_id, gm, tokens = table
    before = stored(games, game_id)
    for path, body in (("replay", {"version": "table-2"}), ("adopt", {"version": "table-2", "from_phase": "setup"})):
        r = client.post(f"/games/{game_id}/{path}", headers=bearer(tokens["ann"]), json=body)
        assert r.status_code == 403 and r.json()["field"] == "authorization", r.text
        assert "Thrown" not in r.text
    assert stored(games, game_id) == before


def test_a_version_not_installed_or_an_unknown_phase_is_refused_naming_the_field(table):
    client, games, game_id, gm, tokens = table
    before = stored(games, game_id)
    r = client.post(f"/games/{game_id}/replay", headers=bearer(gm), json={"version": "table-9"})
    assert r.status_code == 422 and r.json()["field"] == "version" and "table-1, table-2" in r.text
    r = client.post(f"/games/{game_id}/adopt", headers=bearer(gm), json={"version": "table-2", "from_phase": "nope"})
    assert r.status_code == 404 and r.json()["field"] == "from_phase"
    assert stored(games, game_id) == before
