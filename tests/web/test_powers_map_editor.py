"""Issue 28 item 7: the GM edits the map in a form, hex by hex (terrain, name, road, element, towns, features), not
as JSON; the form sends the JSON path's command (``AmendMap``, P-ACT-4), so a map built hex by hex is the map the
JSON declares. A refusal names its field (``hexes[2,0].terrain``), records nothing, and the form comes back with
what was typed. Item 1's leftover: a hex chosen on the console's map (``?hex=``) fills the GM's own forms that act
at a hex, as the board's "Chosen hex" panel fills a player's."""

from __future__ import annotations

import re
from html import unescape

import pytest

from api.app import create_app
from application.service import Caller
from domain.powers import world
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.web.test_battle_page import at_battle
from tests.web.test_powers_feature_forms import Seat

MAP = {
    "hexes": [
        {"hex": "0,0", "terrain": "plains", "road": True, "name": "", "element": None},
        {"hex": "1,0", "terrain": "forest", "road": False, "name": "Darkwood", "element": "E"},
        {"hex": "2,0", "terrain": "marshland", "road": False, "name": "", "element": None},
    ],
    "towns": [{"id": "derop", "name": "Derop", "hex": "0,0", "population": 3, "wealth": 2}],
    "features": [
        {"id": "mill", "kind": "farm", "name": "The Mill", "hex": "0,0", "town": "derop", "public": True},
        {"id": "tomb", "kind": "dungeon", "name": "Old Tomb", "hex": "1,0", "public": False},
    ],
}


def _game(tmp_path, name: str):
    app = create_app(Settings(data_dir=tmp_path / name))
    games = app.state.games
    gid, gm_token, _ = games.create_game(name)
    city, _, _ = add_power(games, gid, "gm", "City", "city", "sovereign")
    return app, games, gid, Seat(app, gid, gm_token), city


@pytest.fixture
def console(tmp_path):
    app, games, gid, gm, city = _game(tmp_path, "Editor")
    yield games, gid, gm, city
    close_app(app)


def error_of(html: str, field: str) -> str | None:
    """The refusal shown by the editor's input named ``field`` (``hexes[2,0].terrain``), if any."""
    found = re.search(rf'<p class="error" role="alert" id="err-map-editor-{re.escape(field)}">([^<]*)', html)
    return unescape(found.group(1)).strip() if found else None


def value_of(html: str, element_id: str) -> str:
    tag = re.search(rf'<(?:input|textarea)[^>]* id="{re.escape(element_id)}"[^>]*>', html).group(0)
    found = re.search(r'value="([^"]*)"', tag)
    return unescape(found.group(1)) if found else ""


def selected(html: str, element_id: str) -> str | None:
    select = re.search(rf'<select id="{re.escape(element_id)}".*?</select>', html, re.S).group(0)
    found = re.search(r'<option value="([^"]*)" selected>', select)
    return found.group(1) if found else None


def gm_map(games, gid: str) -> dict:
    return games.view(gid, "gm")["map"]


def build_by_form(gm: Seat) -> None:
    """MAP, hex by hex, through the editor's forms only."""
    for q, terrain, other, name, road in (
        (0, "plains", "", "", "on"),
        (1, "forest", "", "", ""),
        (2, "plains", "marshland", "", ""),
    ):
        data = {"editor": "add", "q": str(q), "r": "0", "terrain": terrain, "terrain_other": other, "name": name}
        assert "Map amended." in gm.post("add-hex", **data, **({"road": road} if road else {}))
    edit = {"editor": "edit", "hex": "0,0", "terrain": "plains", "road": "on", "element": ""}
    town = {
        "town-0-was": "",
        "town-0-id": "derop",
        "town-0-name": "Derop",
        "town-0-population": "3",
        "town-0-wealth": "2",
    }
    assert "Map amended." in gm.post("edit-hex", **edit, **town, **{"feature-0-was": ""})
    mill = {"feature-0-was": "", "feature-0-id": "mill", "feature-0-kind": "farm", "feature-0-name": "The Mill"}
    mill |= {"feature-0-town": "derop", "feature-0-public": "on", "town-0-was": "derop", "town-0-name": "Derop"}
    mill |= {"town-0-population": "3", "town-0-wealth": "2"}
    assert "Map amended." in gm.post("edit-hex", **edit, **mill)
    tomb = {"feature-0-was": "", "feature-0-id": "tomb", "feature-0-kind": "dungeon", "feature-0-name": "Old Tomb"}
    forest = {"editor": "edit", "hex": "1,0", "terrain": "forest", "name": "Darkwood", "element": "E"}
    assert "Map amended." in gm.post("edit-hex", **forest, **tomb)


def gm_battles(app, gid: str) -> list[dict]:
    """The battles of the game as the GM's view lists them."""
    return list(app.state.games.view(gid, "gm")["battles"])


def test_p_act_4_a_map_built_hex_by_hex_in_the_editor_is_the_map_the_json_declares(tmp_path, console):
    games, gid, gm, city = console
    build_by_form(gm)
    app, other, ogid, _, _ = _game(tmp_path, "Json")
    try:
        other.run(Caller.of("gm"), ogid, world.DeclareMap(**MAP))
        assert gm_map(games, gid) == gm_map(other, ogid)
        assert gm_map(games, gid)["hexes"][2]["terrain"] == "marshland"
    finally:
        close_app(app)


def test_p_act_4_the_editor_is_filled_from_the_chosen_hex_and_keeps_what_it_does_not_show(console):
    games, gid, gm, city = console
    games.run(Caller.of("gm"), gid, world.DeclareMap(**MAP))
    html = gm.client.get(f"/play/{gid}?hex=1,0").text
    assert value_of(html, "me-name") == "Darkwood" and selected(html, "me-terrain") == "forest"
    assert selected(html, "me-element") == "E"
    assert selected(html, "me-feature-0-kind") == "dungeon" and value_of(html, "me-feature-0-name") == "Old Tomb"
    html = gm.client.get(f"/play/{gid}?hex=2,0").text  # a terrain the select does not offer: in the text input
    assert value_of(html, "me-terrain-other") == "marshland"
    # A form posted without the floors' inputs (as before they were shown) keeps them.
    games.run(Caller.of("gm"), gid, world.AmendMap(features=[{**MAP["features"][1], "floors": [{"difficulty": 2}]}]))
    form = {"editor": "edit", "hex": "1,0", "terrain": "hills", "name": "Darkwood", "element": "E"}
    form |= {"feature-0-was": "tomb", "feature-0-kind": "dungeon", "feature-0-name": "The Old Tomb"}
    assert "Map amended." in gm.post("edit-hex", **form)
    m = gm_map(games, gid)
    assert m["hexes"][1]["terrain"] == "hills"
    tomb = next(f for f in m["features"] if f["id"] == "tomb")
    assert tomb["name"] == "The Old Tomb" and [f["difficulty"] for f in tomb["floors"]] == [2]


def test_p_act_4_a_bad_field_is_refused_naming_it_records_nothing_and_keeps_what_was_typed(console):
    games, gid, gm, city = console
    games.run(Caller.of("gm"), gid, world.DeclareMap(**MAP))
    before = gm_map(games, gid)
    version = games.get_game(gid, for_update=False).version
    form = {"editor": "edit", "hex": "2,0", "terrain": "plains", "terrain_other": "x" * 65, "name": "Fenmoor"}
    html = gm.post("edit-hex", **form)
    assert error_of(html, "hexes[2,0].terrain") == "a terrain is at most 64 characters; this one has 65"
    assert value_of(html, "me-terrain-other") == "x" * 65 and value_of(html, "me-name") == "Fenmoor"
    form = {"editor": "edit", "hex": "0,0", "terrain": "plains", "road": "on", "town-0-was": "derop"}
    form |= {"town-0-name": "Derop the Great", "town-0-population": "many", "town-0-wealth": "2"}
    html = gm.post("edit-hex", **form)
    assert error_of(html, "towns[derop].population") == "give a whole number"
    assert value_of(html, "me-town-0-population") == "many" and value_of(html, "me-town-0-name") == "Derop the Great"
    html = gm.post("add-hex", editor="add", q="0", r="0", terrain="plains")
    assert error_of(html, "q") == "0,0 is on the map already: choose it on the map to edit it"
    html = gm.post("add-hex", editor="add", q="5", r="x", terrain="plains", name="Farland")
    assert error_of(html, "r") == "give a whole number" and value_of(html, "ah-name") == "Farland"
    assert gm_map(games, gid) == before and games.get_game(gid, for_update=False).version == version


def test_p_act_4_a_hex_is_removed_with_its_towns_and_features_and_only_by_the_gm(console):
    games, gid, gm, city = console
    games.run(Caller.of("gm"), gid, world.DeclareMap(**MAP))
    assert "Map amended." in gm.post("remove-hex", hex="0,0")
    m = gm_map(games, gid)
    assert [h["hex"] for h in m["hexes"]] == ["1,0", "2,0"] and m["towns"] == []
    assert [f["id"] for f in m["features"]] == ["tomb"]


def test_issue_28_a_chosen_hex_fills_the_gms_own_forms_that_act_there(console):
    games, gid, gm, city = console
    games.run(Caller.of("gm"), gid, world.DeclareMap(**MAP))
    html = gm.client.get(f"/play/{gid}?hex=0,0").text
    for field in ("gapa-hex", "sin-hex", "gi-hex", "cd-hex", "rl-hex"):
        assert value_of(html, field) == "0,0", field
    assert selected(html, "sc-town") == "derop" and selected(html, "dc-town") == "derop"
    assert 'href="#gapa-hex"' in html and 'href="#map-editor"' in html
    html = gm.client.get(f"/play/{gid}").text
    assert value_of(html, "gapa-hex") == "" and selected(html, "sc-town") is None


def test_p_amb_1_a_chosen_hex_fills_the_gms_battle_declaration_for_a_power_which_the_console_accepts(tmp_path):
    app = create_app(Settings(data_dir=tmp_path / "battle"))
    try:
        gid, tokens = at_battle(app)
        gm = Seat(app, gid, tokens["gm"])
        html = gm.client.get(f"/play/{gid}?hex=2,0").text
        assert 'href="#declare-battle"' in html
        assert value_of(html, "db-hex") == "2,0" and selected(html, "db-power") == "east"
        assert value_of(html, "db-enemies") == "north south"
        form = {"battle_id": value_of(html, "db-id"), "hex": "2,0", "power_id": "east", "enemies": "south"}
        assert "Battle declared" in gm.post("declare-battle", **form, allies="north")
        (b,) = gm_battles(app, gid)
        assert b["hex"] == "2,0" and b["sides"]["A"]["powers"] == ["east", "north"]
        # A power declares for itself: its page offers no power to declare for.
        north = Seat(app, gid, tokens["north"])
        assert 'id="db-power"' not in north.page()
    finally:
        close_app(app)


def _hex_form(html: str, hid: str) -> dict[str, str]:
    """What the editor's form for ``hid`` posts as the page shows it (its inputs, ticked boxes, chosen options)."""
    form = re.search(r'<form method="post" action="/play/[^"]+/edit-hex">.*?</form>', html, re.S).group(0)
    data: dict[str, str] = {}
    for tag in re.findall(r"<input[^>]*>", form):
        name = re.search(r'name="([^"]*)"', tag)
        if not name or name.group(1) == "csrf":
            continue
        if 'type="checkbox"' in tag:
            if " checked" in tag:
                data[name.group(1)] = "on"
            continue
        found = re.search(r'value="([^"]*)"', tag)
        data[name.group(1)] = unescape(found.group(1)) if found else ""
    for select in re.findall(r'<select id="[^"]*" name="([^"]*)">(.*?)</select>', form, re.S):
        chosen = re.search(r'<option value="([^"]*)" selected>', select[1])
        data[select[0]] = chosen.group(1) if chosen else ""
    assert data["hex"] == hid
    return data


KEEP = {"id": "keep", "kind": "stronghold", "name": "The Keep", "hex": "2,0", "modules": ["barracks"]}


def test_p_town_4_p_feat_3_p_feat_4_statuses_modules_and_floors_are_set_in_the_editor_not_json(console):
    """A town's statuses (P-TOWN-4), a stronghold's modules (P-FEAT-3) and a dungeon's floors (P-FEAT-4) are inputs
    of the hex's form, filled from the map as declared, and saving them amends the map as the JSON would."""
    games, gid, gm, city = console
    games.run(Caller.of("gm"), gid, world.DeclareMap(**{**MAP, "features": [*MAP["features"], KEEP]}))
    games.run(Caller.of("gm"), gid, world.AmendMap(towns=[{**MAP["towns"][0], "statuses": {"taxed": 2}}]))
    html = gm.client.get(f"/play/{gid}?hex=0,0").text
    assert value_of(html, "me-town-0-status-taxed") == "2" and value_of(html, "me-town-0-status-uprising") == ""
    form = _hex_form(html, "0,0") | {"town-0-status-taxed": "", "town-0-status-uprising": "3"}
    assert "Map amended." in gm.post("edit-hex", **form)
    derop = next(t for t in gm_map(games, gid)["towns"] if t["id"] == "derop")
    assert derop["statuses"] == {"uprising": 3} and derop["population"] == 3
    # A stronghold's modules: a checkbox each, those built kept in their order.
    html = gm.client.get(f"/play/{gid}?hex=2,0").text
    form = _hex_form(html, "2,0")
    assert form["feature-0-module-barracks"] == "on" and "feature-0-module-tower" not in form
    form |= {"feature-0-module-tower": "on", "feature-0-module-apartments": "on"}
    assert "Map amended." in gm.post("edit-hex", **form)
    keep = next(f for f in gm_map(games, gid)["features"] if f["id"] == "keep")
    assert keep["modules"] == ["barracks", "apartments", "tower"]
    # A dungeon's floors: rows of difficulty and reward, one empty row to add a floor, a box to remove one.
    html = gm.client.get(f"/play/{gid}?hex=1,0").text
    form = _hex_form(html, "1,0") | {"feature-0-floor-0-difficulty": "3", "feature-0-floor-0-reward": "a map"}
    assert "Map amended." in gm.post("edit-hex", **form)
    html = gm.client.get(f"/play/{gid}?hex=1,0").text
    assert value_of(html, "me-feature-0-floor-0-difficulty") == "3"
    form = _hex_form(html, "1,0") | {"feature-0-floor-1-difficulty": "5", "feature-0-floor-1-reward": ""}
    assert "Map amended." in gm.post("edit-hex", **form)
    tomb = next(f for f in gm_map(games, gid)["features"] if f["id"] == "tomb")
    assert [(x["difficulty"], x["reward"]) for x in tomb["floors"]] == [(3, "a map"), (5, "")]
    html = gm.client.get(f"/play/{gid}?hex=1,0").text
    assert "Map amended." in gm.post("edit-hex", **_hex_form(html, "1,0") | {"feature-0-floor-0-remove": "on"})
    tomb = next(f for f in gm_map(games, gid)["features"] if f["id"] == "tomb")
    assert [(x["difficulty"], x["reward"]) for x in tomb["floors"]] == [(5, "")]


@pytest.mark.parametrize(
    ("hid", "typed", "field", "said"),
    [
        ("0,0", {"town-0-status-taxed": "lots"}, "towns[derop].statuses.taxed", "give a whole number"),
        (
            "0,0",
            {"town-0-status-uprising": "101"},
            "towns[derop].statuses.uprising",
            "give a whole number from 0 to 100",
        ),
        ("1,0", {"feature-0-floor-0-difficulty": "hard"}, "features[tomb].floors[1].difficulty", "give a whole number"),
        (
            "1,0",
            {"feature-0-floor-0-reward": "gold", "feature-0-floor-0-difficulty": ""},
            "features[tomb].floors[1].difficulty",
            "a floor needs a difficulty",
        ),
        (
            "1,0",
            {"feature-0-floor-0-difficulty": "51"},
            "features[tomb].floors[1].difficulty",
            "give a whole number from 0 to 50",
        ),
        (
            "1,0",
            {"feature-0-modules": "on", "feature-0-module-tower": "on"},
            "features[tomb].modules",
            "only a stronghold has modules",
        ),
        (
            "2,0",
            {"feature-0-floors": "on", "feature-0-floor-0-difficulty": "2"},
            "features[keep].floors[1].difficulty",
            "only a dungeon has floors",
        ),
    ],
    ids=[
        "status-word",
        "status-range",
        "floor-word",
        "floor-no-difficulty",
        "floor-range",
        "modules-dungeon",
        "floors-keep",
    ],
)
def test_p_town_4_p_feat_3_p_feat_4_bad_statuses_floors_or_modules_are_refused_naming_the_field_recording_nothing(
    console, hid, typed, field, said
):
    games, gid, gm, city = console
    games.run(Caller.of("gm"), gid, world.DeclareMap(**{**MAP, "features": [*MAP["features"], KEEP]}))
    before = gm_map(games, gid)
    version = games.get_game(gid, for_update=False).version
    html = gm.post("edit-hex", **_hex_form(gm.client.get(f"/play/{gid}?hex={hid}").text, hid) | typed)
    assert error_of(html, field) == said
    assert gm_map(games, gid) == before and games.get_game(gid, for_update=False).version == version
    typed_in = {k: v for k, v in typed.items() if v and not v == "on"}
    for name, value in typed_in.items():  # the form comes back as it was typed
        assert value_of(html, f"me-{name}") == value
