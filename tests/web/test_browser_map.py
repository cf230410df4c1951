"""The GM declares a map on the console and a conspiracy sees it drawn on its board, in a real (headless)
Chromium: the SVG renders as SVG (its hexes have a size on screen), with the player's influence on it and a
title per hex, and every new form on the page is labelled."""

from __future__ import annotations

import json
import re

from domain.powers import commands as pc
from tests.helpers import add_power
from tests.web.test_browser_month import browser, games, pytestmark, server, shot, unlabelled  # noqa: F401

MAP = {
    "hexes": [
        {"hex": f"{q},{r}", "terrain": t, "road": r == 0}
        for q, r, t in ((0, 0, "plains"), (1, 0, "plains"), (0, 1, "forest"), (1, -1, "mountains"))
    ],
    "towns": [{"id": "bree", "name": "Bree", "hex": "0,0", "population": 2}],
}


def test_a_player_sees_the_svg_map_drawn_in_the_browser(server, browser, games):  # noqa: F811
    base, app = server
    gid, gm_token, _ = games.create_game("Eriador")
    rangers, token, _ = add_power(games, gid, "gm", "Rangers", "conspiracy", "circle")
    gm = browser.new_context(viewport={"width": 1000, "height": 900}).new_page()
    gm.goto(f"{base}/signin/{gid}/{gm_token}")
    gm.get_by_role("link", name="Map and rulings").click()  # the console opens on its phase (issue 28 item 2)
    gm.locator("#map-json > summary").click()  # the JSON path, folded under the hex-by-hex editor
    gm.locator("#dm-map").fill(json.dumps(MAP))
    gm.get_by_role("button", name="Declare", exact=True).click()
    assert "Map declared." in gm.content()
    assert unlabelled(gm) == []
    games.send(gid, "gm", pc.SetInfluence(rangers, "1,0", 2))

    page = browser.new_context(viewport={"width": 360, "height": 800}).new_page()
    page.goto(f"{base}/signin/{gid}/{token}")
    page.locator("#fold-map > summary").click()  # the map is folded away, one step off (issue 28 item 2)
    hexes = page.locator("svg.hexmap a.hex polygon")
    assert hexes.count() == 4
    box = page.locator("svg.hexmap").bounding_box()
    assert box is not None and box["width"] > 100 and box["height"] > 100
    sizes = page.evaluate("() => [...document.querySelectorAll('svg.hexmap polygon')].map(p => p.getBBox().width)")
    assert all(w > 60 for w in sizes)  # each hex drawn about 69 units wide: rendered as SVG, not text
    title = page.locator('svg.hexmap a.hex[data-hex="1,0"] > title').text_content()
    assert title == "Hex column 1, row 0: plains; road; your influence 2"
    assert page.locator("svg.hexmap text.my-influence").text_content() == "2"
    assert re.search(r"Bree", page.locator("table.map-table").inner_text())
    assert unlabelled(page) == []
    shot(page, "10-board-map-phone")
