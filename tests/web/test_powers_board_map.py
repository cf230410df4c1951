"""The board's map (server-rendered SVG and its table) shows each power only its own knowledge (P.4): no
feature it has not learned, no conspiracy's influence where it has none, no claim it may not see."""

from __future__ import annotations

import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from application.service import Caller
from domain.powers import commands as pc
from domain.powers import world
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_app

HEXES = [{"hex": f"{q},0", "terrain": "plains", "road": q < 2} for q in range(5)] + [
    {"hex": "0,1", "terrain": "mountains"},
    {"hex": "1,-1", "terrain": "forest", "name": "Greenwood"},
]


@pytest.fixture
def table(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm_token, _ = games.create_game("Map")
    tokens = {"gm": gm_token}
    ids = {}
    for key, name, cls, sub in (
        ("city", "City", "city", "sovereign"),
        ("cult", "Cult", "conspiracy", "cult"),
        ("circ", "Circ", "conspiracy", "circle"),
    ):
        ids[key], tokens[key], _ = add_power(games, gid, "gm", name, cls, sub)
    games.send(gid, "gm", pc.SetInfluence(ids["circ"], "0,0", 3))
    games.send(gid, "gm", pc.SetInfluence(ids["circ"], "1,0", 1))
    games.send(gid, "gm", pc.SetInfluence(ids["circ"], "4,0", 7))
    games.send(gid, "gm", pc.SetInfluence(ids["cult"], "1,0", 2))
    games.run(
        Caller.of("gm"),
        gid,
        world.DeclareMap(
            hexes=HEXES,
            towns=[
                {"id": "derop", "name": "Derop", "hex": "0,0", "population": 3, "claims": {"conspiracy": ids["circ"]}}
            ],
            features=[
                {"id": "tomb", "kind": "dungeon", "name": "HIDDEN-TOMB", "hex": "2,0", "floors": [{"difficulty": 2}]},
                {"id": "ruin", "kind": "ruin", "name": "KNOWN-RUIN", "hex": "3,0", "known_to": [ids["city"]]},
                {"id": "keep", "kind": "stronghold", "name": "CITY-KEEP", "hex": "1,-1", "controller": ids["city"]},
            ],
        ),
    )
    yield app, gid, ids, tokens
    close_app(app)


def page(app, gid: str, token: str) -> str:
    client = TestClient(app)
    client.get(f"/signin/{gid}/{token}")
    response = client.get(f"/play/{gid}")
    assert response.status_code == 200
    return response.text


def hex_titles(html: str) -> dict[str, str]:
    """Each drawn hex's accessible title, by hex id."""
    return {
        h: unescape(t)
        for h, t in re.findall(
            r'<a class="hex[^"]*" id="[^"]+" data-hex="([^"]+)" href="[^"]+"[^>]*>\s*<title>([^<]*)</title>', html
        )
    }


def map_rows(html: str) -> dict[str, list[str]]:
    """The map table's rows, by hex label: terrain, towns, features, (my influence,) influence seen, claims, armies
    and battles."""
    table = html[html.index('<table class="map-table">') :]
    table = table[: table.index("</table>")]
    rows = {}
    for head, cells in re.findall(r"<tr><th scope=\"row\">([^<]*)</th>(.*?)</tr>", table, re.S):
        rows[unescape(head)] = [unescape(c).strip() for c in re.findall(r"<td>(.*?)</td>", cells, re.S)]
    return rows


def test_the_map_is_drawn_as_svg_with_a_title_per_hex_and_the_same_facts_in_a_table(table):
    app, gid, ids, tokens = table
    html = page(app, gid, tokens["cult"])
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert len(re.findall(r"<polygon points=\"([-\d., ]+)\"", svg)) == len(HEXES)
    titles = hex_titles(html)
    assert set(titles) == {h["hex"] for h in HEXES}
    assert titles["0,0"] == "Hex column 0, row 0: plains; road; town Derop (population 3, wealth 0)"  # issue 28
    assert titles["1,-1"] == "Hex Greenwood: forest; feature CITY-KEEP (stronghold)"  # built: public
    assert titles["1,0"] == "Hex column 1, row 0: plains; road; your influence 2; influence of Circ 1"
    assert svg.count('class="road"') == 1  # 0,0 and 1,0 are the only neighbouring road hexes
    rows = map_rows(html)
    assert rows["column 1, row 0"] == ["plains, road", "", "", "2", "Circ 1", "", ""]
    assert rows["column 0, row 0"] == ["plains, road", "Derop (population 3, wealth 0)", "", "", "", "", ""]


def test_a_power_sees_on_its_map_only_what_it_knows(table):
    """P.4: hidden features to their controller and those who learned of them; a conspiracy's influence to
    conspiracies with influence in the same hex; a conspiracy's claim to the town's claimants and to
    conspiracies with influence there."""
    app, gid, ids, tokens = table
    cult, city, circ = (page(app, gid, tokens[k]) for k in ("cult", "city", "circ"))
    for html in (cult, city, circ):
        assert "HIDDEN-TOMB" not in html  # nobody learned of it
    assert "KNOWN-RUIN" not in cult and "KNOWN-RUIN" not in circ
    assert "KNOWN-RUIN" in hex_titles(city)["3,0"]
    assert "yours" not in cult and "yours" not in circ and 'class="hex held' not in cult  # the keep is City's
    assert "CITY-KEEP (stronghold), yours" in hex_titles(city)["1,-1"]
    assert 'class="hex held" id="hex-1_-1"' in city
    # Circ's 7 in 4,0 and 3 in 0,0 are where Cult has none: Cult sees only Circ's 1 in 1,0, where both have some.
    assert "Circ 7" not in cult and "Circ 3" not in cult and "Circ 1" in cult
    city_titles = " ".join(hex_titles(city).values())
    assert "influence" not in city_titles  # a city holds none, and sees no conspiracy's
    assert "Cult 2" in hex_titles(circ)["1,0"] and "your influence 1" in hex_titles(circ)["1,0"]
    # The conspiracy claim on Derop: Circ holds it; Cult has no influence in 0,0, the city is no claimant.
    assert "claim Derop: Circ (conspiracy)" in hex_titles(circ)["0,0"]
    assert "Circ (conspiracy)" not in cult and "Circ (conspiracy)" not in city


def test_the_gm_console_draws_everything(table):
    app, gid, ids, tokens = table
    html = page(app, gid, tokens["gm"])
    titles = hex_titles(html)
    assert "HIDDEN-TOMB" in titles["2,0"] and "KNOWN-RUIN" in titles["3,0"] and "CITY-KEEP" in titles["1,-1"]
    assert "influence of Circ 7" in titles["4,0"]
    assert "claim Derop: Circ (conspiracy)" in titles["0,0"]


def test_a_board_before_the_map_is_declared_says_so(app, games):
    gid, gm_token, _ = games.create_game("No map")
    assert "The GM has not declared the map yet." in page(app, gid, gm_token)  # and no power yet either
    _, token, _ = add_power(games, gid, "gm", "City", "city", "sovereign")
    assert "The GM has not declared the map yet." in page(app, gid, token)
