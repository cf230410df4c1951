"""GET /games/{id}/results/{result_id}/explain (issue 29): a result's derivation over HTTP, for the GM and each
power, filtered by what each was shown (P.4), on both stores."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from domain.platform import explain as derivations
from domain.platform import ruleset as registry
from tests.contract.test_explain_contract import leaks
from tests.integration.helpers import bearer, close_app
from tests.scenarios import play_rich_month


@pytest.fixture
def month(store_settings):
    app = create_app(store_settings)
    m = play_rich_month(app.state.games)
    with TestClient(app) as client:
        yield client, m
    close_app(app)


def explain(client, m, who: str, result_id: str):
    token = m.gm_token if who == "gm" else m.tokens[who]
    return client.get(f"/games/{m.game_id}/results/{result_id}/explain", headers=bearer(token))


def export(client, m, who: str) -> list[dict]:
    token = m.gm_token if who == "gm" else m.tokens[who]
    text = client.get(f"/games/{m.game_id}/export", headers=bearer(token)).text
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_p_dice_4_the_gm_sees_a_resisted_actions_whole_derivation(month):
    client, m = month
    duel = f"action:{m.actions['duel']}"
    r = explain(client, m, "gm", duel)
    assert r.status_code == 200, r.text
    d = r.json()
    assert d["recomputes"] is True and d["result_id"] == duel and d["title"] == "PRIVATE-WIZ-DUEL"
    assert [x["label"] for x in d["dice"]] == ["the action's dice", f"resistance by {m.powers['sov']}"]
    assert all(isinstance(x["roll_no"], int) and x["faces"] for x in d["dice"])
    rules = {s["rule"] for s in d["steps"]}
    assert {"P-DICE-3", "P-RES-4", "P-DICE-4"} <= rules
    urls = {s["rule"]: s["rule_url"] for s in d["steps"]}
    assert urls["P-DICE-4"] == "/help/powers/rules#P-DICE-4"  # each rule linked to its text
    assert client.get(urls["P-DICE-4"]).status_code == 200
    published = d["result"]["published"]
    assert published["success"] == (published["net"] >= published["difficulty"])


def test_p4_the_resister_sees_the_result_and_its_own_dice_not_the_actors(month):
    client, m = month
    duel = f"action:{m.actions['duel']}"
    d = explain(client, m, m.powers["sov"], duel).json()
    assert [x["label"] for x in d["dice"]] == [f"resistance by {m.powers['sov']}"]
    assert any("dice" in w for w in d["withheld"]) and d["recomputes"] is True
    owner = explain(client, m, m.powers["wiz"], duel).json()
    assert owner["dice"][0]["label"] == "the action's dice" and owner["recomputes"] is True


def test_a_result_not_shown_is_not_found_as_an_unknown_one_is(month):
    client, m = month
    duel = f"action:{m.actions['duel']}"
    hidden = explain(client, m, m.powers["circ"], duel)  # circ is neither party to the duel (P.4)
    unknown = explain(client, m, "gm", "action:no-such-action")
    assert hidden.status_code == unknown.status_code == 404
    assert hidden.json()["field"] == unknown.json()["field"] == "result_id"
    assert "PRIVATE-WIZ-DUEL" not in hidden.text


def test_an_unauthenticated_caller_gets_no_derivation(month):
    client, m = month
    r = client.get(f"/games/{m.game_id}/results/action:{m.actions['duel']}/explain")
    assert r.status_code == 401 and "PRIVATE" not in r.text
    r = client.get(f"/games/{m.game_id}/results/action:{m.actions['duel']}/explain", headers=bearer("forged"))
    assert r.status_code in (401, 403) and "PRIVATE" not in r.text


def test_no_derivation_over_http_shows_a_viewer_more_than_their_export(month):
    client, m = month
    gm_ids = [f"action:{a}" for a in m.actions.values()]
    for who in ["gm", *m.powers.values()]:
        events = export(client, m, who)
        for result_id in gm_ids:
            r = explain(client, m, who, result_id)
            if r.status_code == 404:
                continue
            assert r.status_code == 200 and leaks(r.json(), events) == [], (who, result_id)
            # read a month at a time (Ruleset.result_scope), it is the derivation of the whole export
            whole = derivations.derivations(registry.get("powers"), events)[result_id]
            served = {k: v for k, v in r.json().items() if k != "recomputes"}
            steps = [{k: v for k, v in x.items() if k != "rule_url"} for x in served["steps"]]
            assert {**served, "steps": steps} == whole


def test_p_bat_8_each_battle_round_explains_its_goals_from_its_commands(api):
    """P-BAT-8: a round's goals go to the side with strictly more presence (a tie to nobody); each command's dice
    carry their roll numbers, each attack its threshold and successes (P-BAT-1, P-BAT-2); a power of the battle sees
    it, and nothing its export does not hold (P.4)."""
    from tests.integration.test_battle_api import play_battle, setup_game

    game, gm, tok, spy = setup_game(api)
    play_battle(api, game, gm, tok, spy)
    rounds = 0
    for n in range(1, 8):
        url = f"/games/{game}/results/battle:b1:round:{n}/explain"
        r = api.get(url, headers=bearer(gm))
        if r.status_code == 404:
            continue  # a round the battle did not score (it ended first)
        d = r.json()
        assert r.status_code == 200 and d["recomputes"] is True and d["kind"] == "battle-round", d
        assert d["dice"] and all(isinstance(x["roll_no"], int) for x in d["dice"])
        assert {"P-BAT-8", "P-BAT-3"} <= {s["rule"] for s in d["steps"]}
        south = api.get(url, headers=bearer(tok["south"]))
        assert south.status_code == 200 and south.json()["recomputes"] is True
        events = [
            json.loads(x) for x in api.get(f"/games/{game}/export", headers=bearer(tok["south"])).text.split("\n") if x
        ]
        assert leaks(south.json(), events) == []
        rounds += 1
    assert rounds >= 5


def test_a_result_of_an_earlier_month_explains_as_the_whole_history_does(month):
    """The endpoint reads a month at a time, newest first (Ruleset.result_scope): a result of month 1, explained in
    month 2, is the same derivation as the viewer's whole export gives, and month 2's own too."""
    from domain.powers import commands as pc

    client, m = month
    m.games.send(m.game_id, "gm", pc.Advance())  # month 1's battle step ends: month 2's Planning
    wiz = m.powers["wiz"]
    later = m.games.send(
        m.game_id, wiz, pc.SubmitAction(wiz, title="MONTH-2", assets=[{"asset_id": m.assets["wiz-might"]}], convert=0)
    ).result["action_id"]
    m.games.send(m.game_id, "gm", pc.Advance())
    m.games.send(m.game_id, "gm", pc.Resolve())
    for who in ("gm", wiz):
        events = export(client, m, who)
        whole = derivations.derivations(registry.get("powers"), events)
        for result_id in (f"action:{m.actions['duel']}", f"action:{later}"):
            served = explain(client, m, who, result_id).json()
            steps = [{k: v for k, v in x.items() if k != "rule_url"} for x in served.pop("steps")]
            served.pop("recomputes")
            assert {**served, "steps": steps} == whole[result_id], (who, result_id)
