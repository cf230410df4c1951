"""A whole Powers month through the JSON API, on SQLite and on PostgreSQL."""

from __future__ import annotations

import hashlib
import json

from fastapi.testclient import TestClient

from api.app import create_app
from tests.integration.helpers import bearer, close_app


def setup_game(api):
    r = api.post("/games", json={"name": "Middle-earth", "gm_name": "Mira", "timezone": "Europe/Paris"})
    assert r.status_code == 201, r.text
    game, gm = r.json()["game_id"], r.json()["gm_token"]
    tokens = {}
    for name, cls, sub in (
        ("Gandalf", "champion", "wizard"),
        ("Rangers", "conspiracy", "circle"),
        ("Gondor", "city", "overlord"),
    ):
        r = api.post(f"/games/{game}/powers", json={"name": name, "cls": cls, "subclass": sub}, headers=bearer(gm))
        assert r.status_code == 201, r.text
        tokens[r.json()["power_id"]] = r.json()["token"]
    assets = {}
    for pid, name, cls, rank, extra in (
        ("gandalf", "might", "skill", 3, {}),
        ("gandalf", "Blade", "item", 2, {"assured": True}),
        ("rangers", "subtlety", "skill", 3, {}),
        ("gondor", "might", "skill", 3, {}),
        ("gondor", "vigilance", "skill", 2, {}),
    ):
        r = api.post(
            f"/games/{game}/powers/{pid}/assets",
            json={"name": name, "cls": cls, "rank": rank, **extra},
            headers=bearer(gm),
        )
        assert r.status_code == 201, r.text
        assets[(pid, name)] = r.json()["result"]["asset_id"]
    return game, gm, tokens, assets


def test_a_gm_and_three_powers_play_a_whole_month_over_http(api):
    game, gm, tok, assets = setup_game(api)
    for seen, expected in (("setup", "tidings"), ("tidings", "planning")):
        r = api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": seen})
        assert r.status_code == 200 and r.json()["result"]["step"] == expected
    # Gandalf: a private, resistible duel against Gondor.
    r = api.post(
        f"/games/{game}/actions",
        headers=bearer(tok["gandalf"]),
        json={
            "title": "Duel Gondor's champion",
            "skill": "might",
            "targets": ["gondor"],
            "resistible": True,
            "difficulty": 1,
            "assets": [
                {"asset_id": assets[("gandalf", "might")]},
                {"asset_id": assets[("gandalf", "Blade")], "mode": "assured"},
            ],
        },
    )
    assert r.status_code == 201, r.text
    duel = r.json()["result"]
    assert len(duel["faces"]) == 3 and duel["pool_size"] == 5 and not duel["locked"]
    r = api.post(
        f"/games/{game}/actions/{duel['action_id']}/conversions", headers=bearer(tok["gandalf"]), json={"convert": 0}
    )
    assert r.status_code == 200 and r.json()["result"]["locked"]
    receipt_digest = r.json()["result"]["digest"]
    # Rangers: propose, GM seals a difficulty, then roll.
    r = api.post(
        f"/games/{game}/actions",
        headers=bearer(tok["rangers"]),
        json={"title": "Infiltrate the Citadel", "skill": "subtlety", "roll": False},
    )
    spy = r.json()["result"]["action_id"]
    r = api.put(f"/games/{game}/actions/{spy}/difficulty", headers=bearer(gm), json={"value": 2, "sealed": True})
    assert r.status_code == 200, r.text
    r = api.post(
        f"/games/{game}/actions/{spy}/roll",
        headers=bearer(tok["rangers"]),
        json={"assets": [{"asset_id": assets[("rangers", "subtlety")]}], "convert": 3},
    )
    assert r.status_code == 200, r.text
    # Gondor: a public action, then discards a second one.
    r = api.post(
        f"/games/{game}/actions",
        headers=bearer(tok["gondor"]),
        json={
            "title": "Raise the beacons",
            "slot": "public",
            "convert": 0,
            "assets": [{"asset_id": assets[("gondor", "vigilance")]}],
        },
    )
    assert r.status_code == 201
    r = api.post(f"/games/{game}/actions", headers=bearer(tok["gondor"]), json={"title": "Tax", "convert": 0})
    r = api.post(f"/games/{game}/actions/{r.json()['result']['action_id']}/discard", headers=bearer(tok["gondor"]))
    assert r.status_code == 200
    # Planning closes; resolution; resistance.
    assert (
        api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": "planning"}).json()["result"][
            "step"
        ]
        == "resolution"
    )
    r = api.post(
        f"/games/{game}/resolve",
        headers=bearer(gm),
        json={"announcement": "Beacons are lit.", "expected_step": "resolution"},
    )
    assert r.status_code == 200, r.text
    queue = r.json()["result"]["queue"]
    assert queue[0] == spy and queue[-1] == duel["action_id"]  # conspiracy before city; Wizard's final last
    view = api.get(f"/games/{game}/view", headers=bearer(tok["gondor"])).json()
    assert [n["pool_size"] for n in view["may_resist"]] == [5]
    published = [
        e
        for e in api.get(f"/games/{game}/events", headers=bearer(tok["gandalf"])).json()
        if e["type"] == "ResolutionPublished"
    ][0]["data"]
    assert receipt_digest in published["submissions"]
    assert (
        published["submissions_digest"]
        == hashlib.sha256(json.dumps(sorted(published["submissions"]), separators=(",", ":")).encode()).hexdigest()
    )
    r = api.post(
        f"/games/{game}/reactions",
        headers=bearer(tok["gondor"]),
        json={"action_id": duel["action_id"], "assets": [{"asset_id": assets[("gondor", "might")]}], "convert": 0},
    )
    assert r.status_code == 201, r.text
    view = api.get(f"/games/{game}/view", headers=bearer(tok["gandalf"])).json()
    assert view["game"]["step"] == "battle"  # everyone eligible acted: the window closed early
    result = view["my_actions"][0]["result"]
    assert result["net"] == max(0, result["successes"] - result["resisted"])
    rangers = api.get(f"/games/{game}/view", headers=bearer(tok["rangers"])).json()
    assert rangers["my_actions"][0]["difficulty"] == 2 and rangers["my_actions"][0]["result"] is not None
    assert (
        api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": "battle"}).json()["result"][
            "step"
        ]
        == "planning"
    )
    gm_view = api.get(f"/games/{game}/view", headers=bearer(gm)).json()
    assert (gm_view["game"]["month"], gm_view["game"]["step"]) == (2, "planning")


def test_errors_name_the_rule_or_field_and_change_nothing(api):
    game, gm, tok, assets = setup_game(api)
    before = len(api.get(f"/games/{game}/events", headers=bearer(gm)).json())
    assert api.get(f"/games/{game}/view").status_code == 401
    assert api.get(f"/games/{game}/view", headers=bearer("nope")).json()["field"] == "authorization"
    r = api.post(f"/games/{game}/advance", headers=bearer(tok["gondor"]), json={"expected_step": "setup"})
    assert r.status_code == 403 and r.json()["error"] == "Forbidden"
    assert api.get("/games/00000000-0000-0000-0000-000000000000/view", headers=bearer(gm)).status_code == 404
    r = api.post(f"/games/{game}/actions", headers=bearer(tok["gondor"]), json={"title": "Too early"})
    assert r.status_code == 422 and r.json()["rule"] == "P.1.2"
    r = api.post(f"/games/{game}/actions", headers=bearer(tok["gondor"]), json={"title": "x", "slot": "secret"})
    assert r.status_code == 422 and r.json()["field"] == "slot"
    api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": "setup"})
    api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": "tidings"})
    for _ in range(2):
        assert (
            api.post(
                f"/games/{game}/actions", headers=bearer(tok["gondor"]), json={"title": "Plot", "slot": "private"}
            ).status_code
            == 201
        )
    r = api.post(f"/games/{game}/actions", headers=bearer(tok["gondor"]), json={"title": "Plot", "slot": "private"})
    assert r.status_code == 422
    assert r.json() == {
        "error": "RuleViolation",
        "rule": "P-ACT-1",
        "field": "slot",
        "message": "an Overlord takes 2 private actions a month; this would be the 3rd",
    }
    r = api.post(
        f"/games/{game}/actions",
        headers=bearer(tok["gondor"]),
        json={"title": "x", "slot": "public", "power_id": "rangers"},
    )
    assert r.status_code == 403
    after = api.get(f"/games/{game}/events", headers=bearer(gm)).json()
    # 2 advances (5 events: tidings; planning, seed commit, window) and 2 accepted actions (2 events each)
    assert len(after) == before + 4 + 4
    assert api.get("/docs").status_code == 200 and "/games/{game_id}/actions" in api.get("/openapi.json").text


def test_a_link_replaced_by_another_process_stops_working_here_at_once(tmp_path):
    """Two API processes share a store; one replaces a power's token; the other, whose cache still
    knows the old token, refuses it for reads and for commands."""
    from api.compose import build_games
    from projections.settings import Settings

    settings = Settings(data_dir=tmp_path)
    app = create_app(settings)
    with TestClient(app) as api:
        game, gm, tok, assets = setup_game(api)
        api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": "setup"})
        api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": "tidings"})
        assert api.get(f"/games/{game}/view", headers=bearer(tok["gondor"])).status_code == 200  # now cached
        other = build_games(settings)  # the other process
        other.reissue_link(game, "gm", "gondor")
        other.close()
        r = api.post(f"/games/{game}/actions", headers=bearer(tok["gondor"]), json={"title": "Sneak", "convert": 0})
        assert r.status_code == 401 and r.json()["field"] == "authorization"
        assert api.get(f"/games/{game}/view", headers=bearer(tok["gondor"])).status_code == 401
        assert not [e for e in app.state.games.iter_events(game) if type(e).__name__ == "ActionSubmitted"]
        assert api.get(f"/games/{game}/view", headers=bearer(tok["rangers"])).status_code == 200
    close_app(app)


class SequenceWitness:
    """Checks, after every command, the README's promise that a sequence is "the count of events you
    may see": the caller's receipt, and every caller's view, equal the length of their event list."""

    def __init__(self, api, game: str, tokens: dict[str, str]) -> None:
        self.api, self.game, self.tokens = api, game, tokens
        self.checked = 0

    def events(self, who: str) -> list[dict]:
        return self.api.get(
            f"/games/{self.game}/events", headers=bearer(self.tokens[who]), params={"limit": 5000}
        ).json()

    def post(self, who: str, path: str, method: str = "POST", **kwargs):
        headers = {**bearer(self.tokens[who]), "Idempotency-Key": f"{method} {path} {self.checked}"}
        r = self.api.request(method, f"/games/{self.game}{path}", headers=headers, **kwargs)
        assert r.status_code in (200, 201), r.text
        receipt = r.json().get("receipt", r.json())
        assert receipt["sequence"] == len(self.events(who)), (who, path)
        # Sent again with its key: the first receipt, and nothing recorded.
        again = self.api.request(method, f"/games/{self.game}{path}", headers=headers, **kwargs)
        assert again.status_code == r.status_code and again.json().get("receipt", again.json())["replayed"]
        assert {**again.json().get("receipt", again.json()), "replayed": False} == receipt, path
        assert len(self.events(who)) == receipt["sequence"]
        for viewer in self.tokens:
            seen = self.events(viewer)
            assert [e["seq"] for e in seen] == list(range(1, len(seen) + 1))
            view = self.api.get(f"/games/{self.game}/view", headers=bearer(self.tokens[viewer])).json()
            assert view["sequence"] == len(seen), (viewer, path)
        self.checked += 1
        return r.json()


def test_receipt_sequence_equals_visible_event_count(api):
    """Over a whole month, for the GM and every power: each receipt and each view's sequence is the
    number of events that caller may see at that point (not one more). Every command is also sent a
    second time with its Idempotency-Key, and answered with its first receipt, recording nothing."""
    r = api.post("/games", json={"name": "Counted", "timezone": "Europe/Paris"})
    game, gm = r.json()["game_id"], r.json()["gm_token"]
    first = r.json()["receipt"]["sequence"]
    assert first == len(api.get(f"/games/{game}/events", headers=bearer(gm)).json()) == 1
    w = SequenceWitness(api, game, {"gm": gm})
    for name, cls, sub in (
        ("Gandalf", "champion", "wizard"),
        ("Rangers", "conspiracy", "circle"),
        ("Gondor", "city", "overlord"),
    ):
        out = w.post("gm", "/powers", json={"name": name, "cls": cls, "subclass": sub})
        w.tokens[out["power_id"]] = out["token"]
    assets = {}
    for pid, name, cls, rank in (
        ("gandalf", "might", "skill", 3),
        ("rangers", "subtlety", "skill", 3),
        ("gondor", "might", "skill", 3),
    ):
        assets[pid] = w.post("gm", f"/powers/{pid}/assets", json={"name": name, "cls": cls, "rank": rank})["result"][
            "asset_id"
        ]
    w.post("gm", "/advance", json={"expected_step": "setup"})
    w.post("gm", "/advance", json={"expected_step": "tidings"})
    duel = w.post(
        "gandalf",
        "/actions",
        json={
            "title": "Duel",
            "skill": "might",
            "targets": ["gondor"],
            "resistible": True,
            "difficulty": 1,
            "assets": [{"asset_id": assets["gandalf"]}],
        },
    )["result"]["action_id"]
    w.post("gandalf", f"/actions/{duel}/conversions", json={"convert": 0})
    spy = w.post("rangers", "/actions", json={"title": "Spy", "skill": "subtlety", "roll": False})
    spy = spy["result"]["action_id"]
    w.post("gm", f"/actions/{spy}/difficulty", method="PUT", json={"value": 2, "sealed": True})
    w.post("rangers", f"/actions/{spy}/roll", json={"assets": [{"asset_id": assets["rangers"]}], "convert": 0})
    w.post("gondor", "/actions", json={"title": "Beacons", "slot": "public", "convert": 0})
    w.post("gm", "/advance", json={"expected_step": "planning"})
    w.post("gm", "/resolve", json={"announcement": "Done.", "expected_step": "resolution"})
    w.post("gondor", "/reactions", json={"action_id": duel, "assets": [{"asset_id": assets["gondor"]}], "convert": 0})
    w.post("gm", "/advance", json={"expected_step": "battle"})
    assert w.api.get(f"/games/{game}/view", headers=bearer(gm)).json()["game"]["month"] == 2
    assert w.checked == 18


def test_p_ex_8_delve_and_one_other_skill_in_a_dungeon_over_http(api):
    """P-ASSET-4 / P-EX-8: the API carries ``dungeon``; inside one, Delve joins one other skill, outside
    it the same pool is refused (P-ASSET-3), and the refusal records nothing."""
    r = api.post("/games", json={"name": "Delian Tomb"})
    game, gm = r.json()["game_id"], r.json()["gm_token"]
    r = api.post(
        f"/games/{game}/powers", json={"name": "Delver", "cls": "champion", "subclass": "paragon"}, headers=bearer(gm)
    )
    token = r.json()["token"]
    ids = {}
    for name in ("delve", "subtlety"):
        r = api.post(
            f"/games/{game}/powers/delver/assets", json={"name": name, "cls": "skill", "rank": 2}, headers=bearer(gm)
        )
        ids[name] = r.json()["result"]["asset_id"]
    for seen in ("setup", "tidings"):
        assert api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": seen}).status_code == 200
    body = {"title": "Floor 1", "skill": "delve", "assets": [{"asset_id": ids["delve"]}, {"asset_id": ids["subtlety"]}]}
    before = api.get(f"/games/{game}/view", headers=bearer(gm)).json()["sequence"]
    r = api.post(f"/games/{game}/actions", headers=bearer(token), json=body)
    assert r.status_code == 422 and r.json()["rule"] == "P-ASSET-3", r.text
    assert api.get(f"/games/{game}/view", headers=bearer(gm)).json()["sequence"] == before
    r = api.post(f"/games/{game}/actions", headers=bearer(token), json={**body, "dungeon": True})
    assert r.status_code == 201, r.text
    assert r.json()["result"]["pool_size"] == 4
