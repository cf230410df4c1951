"""Issue 28 item 1, the Powers board to look at: the map draws the armies (and their units' wounds for their
controller), battles, claims, influence and features the viewer's view holds, and nothing else (P.4); each hex
is a link (``?hex=q,r``) that reloads the board with the forms that act there filled in, so choosing a hex works
without JavaScript: compose an action there, aim one at its town, declare a battle there, muster an army there."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest

from api.app import create_app
from domain.powers import armies
from domain.powers import commands as pc
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.integration.test_battle_api import BLOCK
from tests.web.test_battle_page import at_battle
from tests.web.test_powers_board_map import hex_titles, map_rows
from tests.web.test_powers_feature_forms import Seat


def services(app):
    """The app's application service (a test sends commands through it, never reading a game's state)."""
    return app.state.games


def svg_of(html: str) -> str:
    return html[html.index("<svg") : html.index("</svg>")]


def value(html: str, field_id: str) -> str:
    """The value an input (or a textarea's text) is filled in with."""
    m = re.search(rf'<input id="{field_id}"[^>]*value="([^"]*)"', html) or re.search(
        rf'<textarea id="{field_id}"[^>]*>([^<]*)</textarea>', html
    )
    assert m, field_id
    return unescape(m.group(1))


def selected(html: str, select_id: str) -> list[str]:
    select = re.search(rf'<select id="{select_id}"[^>]*>(.*?)</select>', html, re.S)
    assert select, select_id
    return re.findall(r'<option value="([^"]*)" selected>|<option selected>([^<]*)<', select.group(1))


@pytest.fixture
def fight(tmp_path):
    """Month 1's Battle: North, East and South with armies in 2,0 (``at_battle``), North's n3 in 3,0, and South's
    hidden host in 4,0 that only South and the GM know of."""
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, tokens = at_battle(app)
    games.send(gid, "gm", armies.PlaceArmy("ghost", "SHADOW-HOST", "4,0", 2, "south", block=BLOCK, hidden=True))
    seats = {p: Seat(app, gid, t) for p, t in tokens.items()}
    yield games, gid, seats
    close_app(app)


def test_the_map_draws_the_armies_each_viewer_knows_and_no_hidden_one(fight):
    games, gid, seats = fight
    north, gm, south = seats["north"].page(), seats["gm"].page(), seats["south"].page()
    titles = hex_titles(north)
    assert "army N1 (yours, size 4; wounds by unit: 0, 0, 0, 0)" in titles["2,0"]
    assert "army S1 (South, size 4)" in titles["2,0"] and "army E1 (East, size 4)" in titles["2,0"]
    assert "S1 (South, size 4; wounds" not in north  # South's wounds are South's (P.4)
    assert "army N3 (yours, size 2" in titles["3,0"]
    assert (
        "N1 (yours, size 4; wounds by unit: 0, 0, 0, 0); S1 (South, size 4)" in map_rows(north)["column 2, row 0"][-1]
    )
    assert svg_of(north).count('class="army own"') == 2  # 2,0 and 3,0: a square where North has an army
    # The hidden host: on South's and the GM's maps, nowhere on North's or East's page (map, table, chosen hex).
    assert "SHADOW-HOST (yours, size 2" in hex_titles(south)["4,0"]
    assert "army SHADOW-HOST (South, size 2; wounds by unit" in hex_titles(gm)["4,0"]
    assert 'class="army"' in svg_of(gm)[svg_of(gm).index('data-hex="4,0"') :]
    for seat in ("north", "east"):
        for page in (seats[seat].page(), seats[seat].client.get(f"/play/{gid}?hex=4,0").text):
            assert "SHADOW-HOST" not in page and "ghost" not in page
            assert "army" not in hex_titles(page)["4,0"]
    assert 'class="army"' not in svg_of(north)[svg_of(north).index('data-hex="4,0"') :].split("</a>")[0]


def test_choosing_a_hex_fills_in_the_battle_form_and_the_battle_is_drawn(fight):
    games, gid, seats = fight
    north = seats["north"]
    html = north.page()
    link = re.search(r'<a class="hex[^"]*" id="hex-2_0" data-hex="2,0" href="([^"]+)"', html).group(1)
    assert unescape(link) == "?hex=2%2C0#map-pick"
    html = north.client.get(f"/play/{gid}{unescape(link).split('#')[0]}").text
    assert 'aria-current="true"' in html and "Chosen hex: column 2, row 0" in html
    assert value(html, "db-hex") == "2,0" and value(html, "db-enemies") == "east south"
    assert value(html, "db-id") == "battle-column-2-row-0"
    assert 'href="#declare-battle"' in html
    data = {"battle_id": value(html, "db-id"), "hex": value(html, "db-hex"), "enemies": "south", "allies": "east"}
    assert "Battle declared" in north.post("declare-battle", **data)
    for seat in ("north", "south", "east", "gm"):
        page = seats[seat].page()
        assert "battle of North, East against South, round 0" in hex_titles(page)["2,0"]
        assert 'class="battle"' in svg_of(page)
    assert value(north.page(), "db-hex") == ""  # no hex chosen: nothing filled in
    phase = re.search(r'<select id="phase" name="phase">.*?<option value="([^"]+)"', north.page(), re.S).group(1)
    past = north.client.get(f"/play/{gid}?phase={phase}").text  # an earlier phase: its hexes keep it
    assert f'href="?phase={phase}&amp;hex=2%2C0#map-pick"' in past


@pytest.fixture
def planning(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm_token, _ = games.create_game("Muster")
    pid, token, _ = add_power(games, gid, "gm", "North", "city", "sovereign")
    other, other_token, _ = add_power(games, gid, "gm", "South", "city", "sovereign")
    from application.service import Caller
    from domain.powers import world

    hexes = [{"hex": f"{q},0", "terrain": "plains"} for q in range(5)] + [
        {"hex": "1,-1", "terrain": "forest", "name": "Greenwood"}
    ]
    towns = [{"id": "bree", "name": "Bree", "hex": "3,0", "population": 2}]
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=hexes, towns=towns, features=[]))
    games.send(gid, "gm", armies.PlaceArmy("n1", "Northmen", "0,0", 3, pid, block=BLOCK, garrison="0,0"))
    games.send(gid, "gm", armies.PlaceArmy("s1", "Southrons", "4,0", 3, other, block=BLOCK))
    for _ in range(2):
        games.send(gid, "gm", pc.Advance())
    yield app, gid, Seat(app, gid, token), pid
    close_app(app)


def test_choosing_a_hex_and_an_army_fills_in_a_muster_there_that_the_board_accepts(planning):
    app, gid, north, pid = planning
    html = north.client.get(f"/play/{gid}?hex=3,0").text
    assert value(html, "location") == "3,0"  # the compose form's location
    assert value(html, "sk-hex") == "3,0" and '<details id="seek" open>' in html
    assert "Aim an action at Bree (the form is filled in)" in html
    move = re.search(r'<a href="([^"]*army=n1[^"]*)"[^>]*>Move Northmen here', html)
    assert move and "Southrons here" not in html  # only the viewer's own armies move
    html = north.client.get(f"/play/{gid}{unescape(move.group(1)).split('#')[0]}").text
    params = json.loads(value(html, "aa-params"))
    assert params == {"moves": [{"army_id": "n1", "path": ["0,0", "1,0", "2,0", "3,0"]}]}
    assert selected(html, "aa-kind") == [("", "muster")]
    north.post("submit", title="March on Bree", slot="public", location="3,0")
    page = north.page()
    assert selected(page, "aim-town") == []  # no hex chosen
    aid = re.search(r'<select id="aa-action" name="action_id"><option value="([^"]+)"', page).group(1)
    assert selected(north.client.get(f"/play/{gid}?hex=3,0").text, "aim-town") == [("bree", "")]
    done = north.post("aim-army", action_id=aid, kind="muster", params=value(html, "aa-params"))
    assert "Action aimed at armies." in done
    # Another power's army, or a hex the map does not draw: nothing is filled in.
    other = north.client.get(f"/play/{gid}?hex=3,0&army=s1").text
    assert value(other, "aa-params") == ""
    assert "Chosen hex" not in north.client.get(f"/play/{gid}?hex=9,9").text


def test_a_muster_from_the_map_takes_the_cheapest_path_by_p_army_1_not_the_fewest_hexes(planning):
    """P-ARMY-1 ([003:657]): a hex entered costs 1, rough terrain 2, a road nothing, and the muster's Difficulty grows
    with the cost beyond the army's mobility. Between Northmen in 0,0 and 2,0 the map now has mountains in 1,0 and a
    road through 1,-1 and 2,-1: the move the map fills in goes by the road (cost 1), not over the mountains (cost
    3), and the board accepts it."""
    from application.service import Caller
    from domain.powers import world

    app, gid, north, _pid = planning
    road = [{"hex": h, "terrain": "plains", "road": True} for h in ("1,-1", "2,-1")]
    amended = world.AmendMap(hexes=[{"hex": "1,0", "terrain": "mountains"}, *road])
    services(app).run(Caller.of("gm"), gid, amended)
    html = north.client.get(f"/play/{gid}?hex=2,0&army=n1").text
    assert json.loads(value(html, "aa-params")) == {
        "moves": [{"army_id": "n1", "path": ["0,0", "1,-1", "2,-1", "2,0"]}]
    }
    north.post("submit", title="March by the road", slot="public", location="2,0")
    aid = re.search(r'<select id="aa-action" name="action_id"><option value="([^"]+)"', north.page()).group(1)
    html = north.client.get(f"/play/{gid}?hex=2,0&army=n1").text
    done = north.post("aim-army", action_id=aid, kind="muster", params=value(html, "aa-params"))
    assert "Action aimed at armies." in done


def test_the_map_offers_no_muster_of_an_army_out_in_the_field_but_with_forced_march():
    """P-ARMY-1 ([003:919]): a muster moves armies from their garrisons, so an army mustered out into the field this
    season is refused another muster unless its power holds Forced March; the map offers (and fills in) its move only
    then, read from the viewer's own view (its armies' cards, the perks every power's view shows)."""
    from api.powers.mapsvg import map_figure, picked

    field = {"army_id": "n1", "name": "Northmen", "controller": "north", "size": 3, "keywords": []}
    field |= {"hex": "1,0", "garrison": "0,0", "mustered": True}
    home = dict(field, army_id="n2", name="Home Guard", hex="0,0", mustered=False)
    hexes = [{"hex": f"{q},0", "terrain": "plains"} for q in range(3)]
    view = {"viewer": "north", "map": {"hexes": hexes}, "armies": {"armies": [field, home]}, "development": {}}
    fig = map_figure(view, {"north": "North"})
    assert [a["army_id"] for a in picked(view, fig, {"hex": "2,0"})["movers"]] == ["n2"]
    assert picked(view, fig, {"hex": "2,0", "army": "n1"})["muster"] is None
    view["development"] = {"perks": {"north": [{"name": "Forced March"}]}}
    assert [a["army_id"] for a in picked(view, fig, {"hex": "2,0"})["movers"]] == ["n1", "n2"]
    filled = json.loads(picked(view, fig, {"hex": "2,0", "army": "n1"})["muster"])
    assert filled == {"moves": [{"army_id": "n1", "path": ["1,0", "2,0"]}]}
