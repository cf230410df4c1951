"""Rules changes replayed (issue 29 item 3) on the GM's page, in a real (headless) Chromium at 1280 and 360 px, with
and without JavaScript: the fake table's GM replays its history under table-2 (TABLE-2: a throw scores one more),
sees each throw's total move with the rule id, and adopts it from setup; axe finds no violation. Without a browser:
the page speaks German, and a player is refused and records nothing."""

from __future__ import annotations

import re

import pytest
from emissary_fake.ruleset import Join
from emissary_fake.throws import Throw
from fastapi.testclient import TestClient

from application.service import Caller
from tests.web.axe import violations
from tests.web.test_browser_signin import browser, games, pytestmark, server, shot, unlabelled  # noqa: F401


def _table(service) -> tuple[str, str, str]:
    gid, gm_token, _ = service.create_game("Tea", ruleset="table")
    service.run_many(Caller.of("gm"), gid, [Join("ann", "Ann"), Join("bob", "Bob")])
    service.run(Caller.of("ann"), gid, Throw("ann"))
    service.run(Caller.of("bob"), gid, Throw("bob", hidden=True))
    return gid, gm_token, service.reissue_link(gid, "gm", "ann")[0]


def _checked(page, width: int, js: bool) -> None:
    if js:
        assert unlabelled(page) == [] and violations(page) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= width


@pytest.mark.parametrize("js", [True, False], ids=["js", "nojs"])
@pytest.mark.parametrize("width", [1280, 360])
def test_the_gm_replays_under_table_2_and_adopts_it(server, browser, games, width, js):  # noqa: F811
    base, _app = server
    gid, gm_token, _ = _table(games)
    gm = browser.new_context(java_script_enabled=js, viewport={"width": width, "height": 900}).new_page()
    gm.goto(f"{base}/signin/{gid}/{gm_token}")
    gm.goto(f"{base}/play/{gid}/rules")
    assert "This game plays by version table-1" in gm.content()
    _checked(gm, width, js)
    gm.get_by_label("Under version").select_option("table-2")
    gm.get_by_label("From the start of").select_option("setup")
    gm.get_by_role("button", name="Replay").click()
    gm.wait_for_load_state()
    rows = gm.locator("tbody tr")
    assert rows.count() == 2 and "TABLE-2" in rows.nth(0).inner_text() and "total" in rows.nth(1).inner_text()
    assert "scores.Ann" in rows.nth(0).inner_text() and "scores.ann" not in gm.content()  # seats by name
    _checked(gm, width, js)
    shot(gm, f"rules-replay-{width}{'' if js else '-nojs'}")
    gm.get_by_role("button", name="Adopt table-2").click()
    gm.wait_for_load_state()
    assert "Version table-2 adopted from setup" in gm.content()
    assert "This game plays by version table-2" in gm.content()
    _checked(gm, width, js)


def csrf(page: str) -> str:
    found = re.search(r'name="csrf" value="([^"]+)"', page)
    assert found is not None
    return found.group(1)


def test_the_page_speaks_german_and_a_player_is_refused(server, games):  # noqa: F811
    _base, app = server
    gid, gm_token, ann_token = _table(games)
    gm = TestClient(app)
    gm.get(f"/signin/{gid}/{gm_token}")
    page = gm.get(f"/play/{gid}/rules", headers={"Accept-Language": "de"}).text
    assert "Dieses Spiel folgt Version table-1" in page
    ann = TestClient(app)
    ann.get(f"/signin/{gid}/{ann_token}")
    refused = ann.get(f"/play/{gid}/rules")
    assert refused.status_code == 403 and "only the GM may replay" in refused.text
    before = [type(e).__name__ for e in games.iter_events(gid)]
    token = csrf(gm.get(f"/play/{gid}/rules").text)  # a form of the GM's, sent by ann: refused all the same
    r = ann.post(f"/play/{gid}/rules/adopt", data={"version": "table-2", "from_phase": "setup", "csrf": token})
    assert r.status_code in (303, 403) and "hidden" not in r.text
    assert [type(e).__name__ for e in games.iter_events(gid)] == before
