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
