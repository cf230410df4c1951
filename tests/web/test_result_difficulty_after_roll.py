"""Issue 17, "What was seen": a result says when the GM set or changed the difficulty after the roll, on the
acting power's board and the GM's console, as the feed already did; a roll that faced its final difficulty
says nothing more, and the table, which never saw the ruling (P.4), is not told."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from domain.powers import commands as pc
from projections.settings import Settings
from tests.helpers import add_power


@pytest.fixture
def table(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm_token, _ = games.create_game("Late difficulty")
    tokens = {"gm": gm_token}
    for name, sub in (("Lord", "overlord"), ("Rival", "sovereign")):
        pid, token, _ = add_power(games, gid, "gm", name, "city", sub)
        tokens[pid] = token
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    return app, games, gid, tokens


def page(app, gid: str, token: str) -> str:
    client = TestClient(app)
    client.get(f"/signin/{gid}/{token}")
    return re.sub(r"\s+", " ", client.get(f"/play/{gid}").text)


def resolve(games, gid: str) -> None:
    games.send(gid, "gm", pc.Advance())  # Planning closes
    games.send(gid, "gm", pc.Resolve(announcement=""))


def test_a_result_says_the_gm_changed_its_difficulty_after_the_roll(table):
    app, games, gid, tokens = table
    lord = games.send(
        gid, "lord", pc.SubmitAction("lord", title="Tax the farms", slot="public", difficulty=1, convert=0)
    )
    games.send(gid, "gm", pc.SetDifficulty(lord.result["action_id"], 3))
    resolve(games, gid)
    said = "The GM changed the difficulty from 1 to 3 after the roll."
    board = page(app, gid, tokens["lord"])
    result = re.search(r'<p class="result">(.*?)</p>', board).group(1)
    assert result.startswith("Result: Failed: 0 successes against difficulty 3.") and result.endswith(said), result
    console = page(app, gid, tokens["gm"])
    assert f"Result: Failed: 0 successes against difficulty 3. {said}" in console
    rival = page(app, gid, tokens["rival"])
    assert "Tax the farms" in rival and "after the roll" not in rival.split('id="feed"')[0]
    public = games.view(gid, "rival")["public_actions"]
    assert public and all("difficulty_changed_after_roll" not in a for a in public)


def test_a_difficulty_set_after_a_roll_that_had_none_says_set(table):
    app, games, gid, tokens = table
    lord = games.send(gid, "lord", pc.SubmitAction("lord", title="Tax the farms", convert=0))
    games.send(gid, "gm", pc.SetDifficulty(lord.result["action_id"], 2))
    resolve(games, gid)
    assert "against difficulty 2. The GM set the difficulty after the roll.</p>" in page(app, gid, tokens["lord"])


def test_a_roll_that_faced_its_final_difficulty_says_nothing_more(table):
    app, games, gid, tokens = table
    before = games.send(gid, "lord", pc.SubmitAction("lord", title="Ask first", roll=False)).result["action_id"]
    games.send(gid, "gm", pc.SetDifficulty(before, 2))
    games.send(gid, "lord", pc.RollAction(before, convert=0))
    same = games.send(gid, "lord", pc.SubmitAction("lord", title="Same again", difficulty=1, convert=0)).result[
        "action_id"
    ]
    games.send(gid, "gm", pc.SetDifficulty(same, 1))  # after the roll, but to the difficulty it faced
    resolve(games, gid)
    board = page(app, gid, tokens["lord"])
    assert board.count('<p class="result">') == 2 and "after the roll" not in board.split('id="feed"')[0]
