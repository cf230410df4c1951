"""The home page ("My games"): where each game stands, in its ruleset's words."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from domain.powers import commands as pc
from tests.helpers import add_power


def test_my_games_name_each_games_phase_by_its_rulesets_title(app, games):
    """The list says where a game stands by its ruleset's phase title (Powers: "Season 1, month 1: Planning"),
    read by the platform without naming a season or a month itself."""
    gid, _, _ = games.create_game("Powers")
    pid, token, _ = add_power(games, gid, "gm", "Gondor", "city", "sovereign")
    add_power(games, gid, "gm", "Mordor", "city", "overlord")
    client = TestClient(app)
    client.get(f"/signin/{gid}/{token}")
    assert "Setting up" in client.get("/").text
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    home = client.get("/").text
    assert re.findall(r'<li><a href="/play/([^"]+)">', home) == [gid], home
    assert "Gondor · Season 1, month 1: Planning" in home, home
    assert re.search(r"planning closes <time datetime=\"[^\"]+\" data-countdown>[^<]+</time> \(UTC\)", home), home


def test_my_games_lists_a_game_of_every_listed_ruleset_from_what_the_platform_answers(app, games):
    """The list reads a game's name, the seat's name, its phase and the status strip's next deadline, which every
    ruleset's game answers, not keys of one ruleset's view: a Lodge game, whose view has no "windows", is listed
    too (it once made the whole page fail)."""
    from application.service import Caller, new_token
    from domain.lodge.ruleset import AddMage, BeginGame
    from domain.platform.commands import ReissueLink

    powers, _, _ = games.create_game("Powers game")
    _, powers_token, _ = add_power(games, powers, "gm", "Gondor", "city", "sovereign")
    lodge, _, _ = games.create_game("Lodge game", ruleset="lodge")
    games.run_many(Caller.of("gm"), lodge, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    lodge_token, token_hash = new_token()
    games.run(Caller.of("gm"), lodge, ReissueLink("ann", token_hash))
    client = TestClient(app)
    client.get(f"/signin/{powers}/{powers_token}")
    client.get(f"/signin/{lodge}/{lodge_token}")
    response = client.get("/")
    assert response.status_code == 200, response.text
    listed = dict(re.findall(r'<li><a href="/play/([^"]+)">([^<]+)</a>', response.text))
    assert listed == {powers: "Powers game", lodge: "Lodge game"}, response.text
    assert "— Gondor · Setting up" in response.text and "— Ann · " in response.text, response.text
