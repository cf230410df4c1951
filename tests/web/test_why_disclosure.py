"""A result's "Why?" on the Powers board and console (issue 29): a disclosure next to the result, no script, with
the derivation the viewer's own events give (the GM everything; a resister its own dice and the result, P.4), in the
viewer's language."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from tests.scenarios import play_rich_month


@pytest.fixture
def month(app, games):
    m = play_rich_month(games)
    return app, m


def signed_in(app, gid: str, token: str | None) -> TestClient:
    client = TestClient(app)
    assert client.get(f"/signin/{gid}/{token}").status_code == 200
    return client


def whys(page: str) -> list[str]:
    return re.findall(r'<details class="why">.*?</details>', page, flags=re.S)


def test_the_gm_sees_why_each_result_came_about(month):
    app, m = month
    page = signed_in(app, m.game_id, m.gm_token).get(f"/play/{m.game_id}").text
    found = whys(page)
    assert found and any("PRIVATE-WIZ-DUEL" not in w and "(P-RES-4)" in w for w in found)
    duel = next(w for w in found if f"action%3A{m.actions['duel']}" in w or f"action:{m.actions['duel']}" in w)
    assert "<summary>Why?</summary>" in duel and "roll number" in duel and "(P-DICE-4)" in duel
    assert "<script" not in duel and "style=" not in duel


def test_p4_the_resister_sees_its_own_dice_and_the_result_not_the_actors_dice(month):
    app, m = month
    sov = m.powers["sov"]
    page = signed_in(app, m.game_id, m.tokens[sov]).get(f"/play/{m.game_id}").text
    duel = [w for w in whys(page) if m.actions["duel"] in w]
    assert len(duel) == 1
    assert f"resistance by {sov}" in duel[0] and "the action&#39;s dice:" not in duel[0]
    assert "Not shown to you" in duel[0]
    assert '<a href="/help/powers/rules#P-DICE-4">P-DICE-4</a>' in duel[0]  # each rule linked to its text
    wiz_dice = signed_in(app, m.game_id, m.tokens[m.powers["wiz"]]).get(f"/play/{m.game_id}").text
    assert "the action&#39;s dice:" in "".join(w for w in whys(wiz_dice) if m.actions["duel"] in w)
    circ = signed_in(app, m.game_id, m.tokens[m.powers["circ"]]).get(f"/play/{m.game_id}").text
    assert m.actions["duel"] not in "".join(whys(circ))


def test_why_speaks_german(month):
    app, m = month
    client = signed_in(app, m.game_id, m.gm_token)
    page = client.get(f"/play/{m.game_id}", headers={"Accept-Language": "de"}).text
    found = whys(page)
    assert found and all("<summary>Warum?</summary>" in w for w in found)
    assert any("Wurfnummer" in w for w in found)


def test_p_bat_8_a_battle_rounds_why_is_under_its_last_round(app):
    """The battle section shows its last round's goals with a Why? (P-BAT-8), to a power of the battle."""
    from tests.integration.test_battle_api import play_battle, setup_game

    with TestClient(app) as api:
        game, gm, tok, spy = setup_game(api)
        view, _ = play_battle(api, game, gm, tok, spy)
    last = view["scores"][-1]["round"] if view.get("scores") else None
    page = signed_in(app, game, tok["south"]).get(f"/play/{game}").text
    found = [w for w in whys(page) if f"battle%3Ab1%3Around%3A{last}" in w]
    assert last is not None and len(found) == 1, last
    assert '<a href="/help/powers/rules#P-BAT-8">P-BAT-8</a>' in found[0] and "roll number" in found[0]


def projector_of(app):
    return app.state.projector


def _seat_client(app, gid: str, seat: str) -> TestClient:
    from application.service import Caller, new_token
    from domain.platform.commands import ReissueLink

    token, digest = new_token()
    app.state.games.run(Caller.of("gm"), gid, ReissueLink(seat, digest))
    return signed_in(app, gid, token)


def test_l_eff_2_the_lodge_feed_has_a_why_beside_each_effect(app, games):
    """L-EFF-2: an effect's Why? beside it in the Lodge's feed: each phrase applied or skipped, with the rule."""
    from tests.contract.drivers import DRIVERS

    played = DRIVERS["lodge"].play(games)
    page = _seat_client(app, played.game_id, "ann").get(f"/play/{played.game_id}").text
    found = [w for w in whys(page) if "effect%3A" in w]
    assert found and any('rules#L-INST-1">L-INST-1</a>' in w and "no vacant slot" in w for w in found)
    assert all("L-EFF-3" in w for w in found)


def test_a_cert_3_the_covenant_feed_has_a_why_beside_each_die_and_certamen(app, games):
    """Each die rolled (its roll number) and each Certamen (A-CERT-3) has its Why? in the table's feed."""
    from domain.covenants.commands import Challenge, ChooseArt, ResolveCertamen, SealBid
    from tests.covenants.play import Dice, fixed_three, move_all, pass_create, pass_main

    t = fixed_three(Dice(), games=games)
    move_all(t, [1, 2, 3])
    pass_create(t)
    cid = t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))["challenge_id"]
    pass_main(t)
    t.run("ann", ChooseArt("ann", cid, "Cr"))
    t.run("bob", ChooseArt("bob", cid, "Im"))
    t.run("ann", SealBid("ann", cid, 3))
    t.run("bob", SealBid("bob", cid, 1))
    t.run("ann", ResolveCertamen("ann", cid))
    page = _seat_client(app, t.game_id, "cy").get(f"/play/{t.game_id}").text
    found = whys(page)
    assert any(
        f"certamen%3A{cid}" in w and 'rules#A-CERT-3">A-CERT-3</a>' in w and "matches its commitment" in w
        for w in found
    )


def test_a_reck_3_a_reckoning_amended_by_an_adoption_explains_the_amended_points_over_http_and_on_the_board(app, games):
    """A year reckoned by the printed A-RECK-3 (8 points for 9 provision), then ``covenants-house`` (a point per 3)
    adopted by the host from setup: each covenant's GET /games/{g}/results/reckoning:<year>/explain and the Why? in
    its feed explain the 9 points the board shows, re-decided under the house version (A-RECK-3), and recompute."""
    from application import replay as replays
    from application.service import Caller, new_token
    from domain.platform.commands import ReissueLink
    from tests.covenants.play import Dice, fixed_three, skip_season
    from tests.domain import rules_variants as variants
    from tests.domain.replay_helpers import recorded
    from tests.domain.test_covenants_worked_examples import package, villagers_make
    from tests.integration.helpers import bearer

    with variants.installed(variants.COVENANTS_HOUSE):
        t = fixed_three(Dice(), options={**package(villagers_make(6)), "yearly_consumes": False}, games=games)
        for _ in range(4):
            skip_season(t)
        (reckoning,) = recorded(games, t.game_id, "YearReckoned")
        assert reckoning.points["ann"] == 8
        replays.adopt(games, Caller.of("ann"), t.game_id, "covenants-house", "setup")
        result_id = f"reckoning:{reckoning.terms['year']}"
        key = str(games.get_game(t.game_id).id)
        for viewer in ["gm", *t.seats, "observer"]:  # each line read by its viewer's own number (the observers' too)
            numbered = {i["seq"]: i["type"] for i in projector_of(app).timeline(key, viewer, limit=100_000)}
            lines = projector_of(app).rules_told(key, viewer)
            assert lines and all(numbered[x["seq"]] == "RulesChangeTold" for x in lines), viewer
        for seat in t.seats:
            token, digest = new_token()
            games.run(Caller.of("gm"), t.game_id, ReissueLink(seat, digest))
            client = signed_in(app, t.game_id, token)
            r = client.get(f"/games/{t.game_id}/results/{result_id}/explain", headers=bearer(token))
            assert r.status_code == 200, r.text
            d = r.json()
            assert d["recomputes"] is True and d["result"]["published"]["points:ann"] == 9, seat
            assert d["redecided"]["version"] == "covenants-house" and d["steps"][0]["rule"] == "A-RECK-3"
            page = client.get(f"/play/{t.game_id}").text
            found = [w for w in whys(page) if "reckoning%3A" in w]
            assert found and "re-decided under covenants-house from setup" in found[0], seat
