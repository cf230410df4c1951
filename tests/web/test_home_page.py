"""The home page ("My games"): where each game stands, in its ruleset's words."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient


def test_my_games_name_each_games_phase_by_its_rulesets_title(app, games):
    """The list says where a game stands by its ruleset's phase title (Powers: "Season 1, month 1: Planning"),
    read by the platform without naming a season or a month itself."""
    gid, _, _ = games.create_game("Powers")
    pid, token, _ = games.add_power(gid, "gm", "Gondor", "city", "sovereign")
    games.add_power(gid, "gm", "Mordor", "city", "overlord")
    client = TestClient(app)
    client.get(f"/signin/{gid}/{token}")
    assert "Setting up" in client.get("/").text
    games.advance(gid, "gm")
    games.advance(gid, "gm")
    home = client.get("/").text
    assert re.findall(r'<li><a href="/play/([^"]+)">', home) == [gid], home
    assert "Gondor · Season 1, month 1: Planning" in home, home
