"""The battle on the web board (issue 13): the battlefield, armies and wounds, goals and whose turn it is, and the
form of the step that waits for the viewer; a command from the form goes through ``Games.run``; a refusal is
shown with its rule id; secret assets are on the GM's console only (P.4)."""

from __future__ import annotations

import pytest

from api.app import create_app
from application.service import Caller
from domain.powers import armies, battle, world
from domain.powers import commands as pc
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.integration.test_battle_api import ARMIES, BLOCK, HEX, HEXES
from tests.web.test_powers_feature_forms import Seat, errors


def at_battle(app, timezone: str = "UTC") -> tuple[str, dict[str, str]]:
    """North, East and South with armies in one hex, in month 1's Battle step (North holds a secret agent);
    returns the game and every seat's token (the GM's under "gm")."""
    games = app.state.games
    gid, gm_token, _ = games.create_game("Battle page", "GM", timezone)
    tokens = {"gm": gm_token}
    for name in ("North", "East", "South"):
        pid, token, _ = add_power(games, gid, "gm", name, "city", "sovereign")
        tokens[pid] = token
    gm = Caller.of("gm")
    games.run(gm, gid, world.DeclareMap(hexes=HEXES, towns=[], features=[]))
    for aid, power, where, units in ARMIES:
        games.run(gm, gid, armies.PlaceArmy(aid, aid.upper(), where, units, power, block=BLOCK))
    games.send(gid, "gm", pc.GrantAsset("north", "Spy in the ford", "agent", 2, asset_id="spyford"))
    for _ in range(3):
        games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement=""))
    return gid, tokens


@pytest.fixture
def fight(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, tokens = at_battle(app)
    seats = {p: Seat(app, gid, t) for p, t in tokens.items()}
    yield games, gid, seats
    close_app(app)


def test_a_battle_is_declared_set_up_and_commanded_from_the_board(fight):
    games, gid, seats = fight
    html = seats["north"].post("declare-battle", battle_id="b1", hex=HEX, enemies="south", allies="east")
    assert "Battle declared" in html and "Battle b1 at column 2, row 0" in html
    html = seats["north"].post("battle-setup", battle_id="b1", armies="n1", goals="Hold the ford", assets="spyford")
    assert "Setup recorded." in html
    seats["east"].post("battle-setup", battle_id="b1", armies="e1")
    seats["south"].post("battle-setup", battle_id="b1", armies="s1, s2")
    page = seats["south"].page()
    assert "Deploy armies" in page  # south has s3 in the hex, outside the battle: Deployment waits for it
    assert "Deployment recorded." in seats["south"].post("battle-deploy", battle_id="b1", armies="")
    view = games.view(gid, "gm")["battles"][0]
    assert view["step"] == "commands"
    turn = view["turn"]["power"]
    page = seats[turn].page()
    assert "The battlefield" in page and "Wounds per unit" in page and "Hold the ford" in page
    assert "&#39;s turn" in page or "'s turn" in page
    assert 'action="/play/' in page and "battle-command" in page
    # Out of turn: refused with its rule, nothing recorded.
    other = "south" if turn != "south" else "north"
    before = games.get_game(gid).version
    html = seats[other].post(
        "battle-command", battle_id="b1", army_id="s1" if other == "south" else "n1", command="rest"
    )
    assert errors(html, "battles") and errors(html, "battles")[0][1] == "P.1.3"
    assert games.get_game(gid).version == before
    mine = [a["army_id"] for a in view["armies"] if a["power"] == turn and a["where"] == "deployed"]
    html = seats[turn].post("battle-command", battle_id="b1", army_id=mine[0], command="hold", goal="advance")
    assert "Command given" in html
    assert games.view(gid, "gm")["battles"][0]["exhausted"] == [mine[0]]
    # P.4: the spy revealed to the GM is on the GM's console, not on south's board.
    assert "spyford" in seats["gm"].page()
    assert "spyford" not in seats["south"].page()


def test_the_gm_sets_the_terrain_and_default_from_the_console(fight):
    games, gid, seats = fight
    games.run(Caller.of("north"), gid, battle.DeclareBattle("b1", HEX, "north", ["south"]))
    html = seats["gm"].post(
        "battle-terrain", battle_id="b1", terrain="a shallow ford", effects="mud", default="standing"
    )
    assert "Terrain and default set." in html and "a shallow ford" in html
    assert games.view(gid, "gm")["battles"][0]["default"] == "standing"
