"""The covenant game through the JSON API only (issue 14): a game is created, three covenants seated and
every move of a whole game to 25 points sent through ``POST /games/{id}/commands``, on SQLite and
PostgreSQL; the table is read through ``GET /games/{id}/view`` and the seeded dice verify."""

from __future__ import annotations

from domain.covenants.verify import verify_covenant_events
from domain.platform.verify import parse_export

ARTS = {
    "ann": ["Cr", "In", "Co", "Im", "Vi"],
    "bob": ["Pe", "Im", "Vi", "Re", "Mu"],
    "cy": ["Re", "Mu", "An", "Aq", "Te"],
}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_a_whole_covenant_game_is_played_to_25_points_through_the_api(api):
    r = api.post(
        "/games",
        json={"ruleset": "covenants", "name": "Tribunal", "options": {"players": 3, "yearly_consumes": False}},
    )
    assert r.status_code == 201, r.text
    gid, auditor = r.json()["game_id"], r.json()["gm_token"]

    def send(token: str, command: str, **args) -> dict:
        r = api.post(f"/games/{gid}/commands", headers=bearer(token), json={"command": command, "args": args})
        assert r.status_code == 200, r.text
        return r.json()

    for seat, name, covenant in (("ann", "Ann", "Fengheld"), ("bob", "Bob", "Crintera"), ("cy", "Cy", "Valnastium")):
        send(auditor, "AddCovenant", seat_id=seat, name=name, covenant=covenant, host=seat == "ann", arts=ARTS[seat])
    send(auditor, "BeginGame")
    tokens = {
        s: api.post(f"/games/{gid}/seats/{s}/token", headers=bearer(auditor)).json()["token"]
        for s in ("ann", "bob", "cy")
    }

    def table() -> dict:
        r = api.get(f"/games/{gid}/view", headers=bearer(tokens["cy"]))
        assert r.status_code == 200, r.text
        return r.json()

    def act(command: str, **args) -> dict:
        seat = table()["game"]["whose_turn"]
        return send(tokens[seat], command, seat_id=seat, **args)

    seasons, squares = 0, (1, 2, 3)
    while table()["game"]["phase"] != "over":
        # a quiet season: each moves along the track, passes Create/Play, Events and Main; the first to move
        # next goes to End, which ends the season; then everyone supports what they hold at the Reckoning
        for square in squares:
            act("Move", square=square)
        while table()["game"]["phase"] in ("create", "events", "main"):
            act("Pass")
        assert table()["game"]["phase"] == "move"
        act("Move", square=10)
        while table()["game"]["phase"] == "reckoning":
            act("Support", starve=[])
        seasons += 1
        assert seasons <= 24
    view = table()
    assert seasons == 20 and view["game"]["winners"] == ["ann", "bob", "cy"]
    assert all(c["score"] >= 25 for c in view["covenants"].values())
    r = api.post(
        f"/games/{gid}/commands", headers=bearer(tokens["bob"]), json={"command": "Pass", "args": {"seat_id": "ann"}}
    )
    assert r.status_code == 403, r.text  # a covenant acts only for itself
    page = api.get(f"/signin/{gid}/{tokens['cy']}")  # the platform's board route: the covenant table
    assert page.status_code == 200 and "The game is over: Fengheld, Crintera, Valnastium won." in page.text, page.text[
        :300
    ]
    export = api.get(f"/games/{gid}/export", headers=bearer(tokens["ann"]))
    assert export.status_code == 200, export.text
    assert api.post("/verify", content=export.text, headers={"Content-Type": "application/x-ndjson"}).json()["ok"]
    report = verify_covenant_events(parse_export(export.text))  # the starting draw and every season's seed
    assert report.ok and report.rolls_verified == 1 and report.seeds_verified >= 19, report
