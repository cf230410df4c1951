"""The board's and the console's forms for the map, wallets and trades, development, ambitions and magic,
over real HTTP: each builds its command and sends it through ``Games.run``; a refusal is shown next to its
form with its rule id, and records nothing."""

from __future__ import annotations

import json
import re
from html import unescape

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from domain.powers import commands as pc
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_app

MAP = {
    "hexes": [{"hex": f"{q},0", "terrain": "plains", "road": True} for q in range(3)],
    "towns": [{"id": "derop", "name": "Derop", "hex": "0,0", "population": 3}],
}


class Seat:
    """A browser signed in to one game as one principal."""

    def __init__(self, app, gid: str, token: str) -> None:
        self.client, self.gid = TestClient(app), gid
        self.client.get(f"/signin/{gid}/{token}")
        self.csrf = re.search(r'name="csrf" value="([^"]+)"', self.page()).group(1)

    def page(self) -> str:
        return self.client.get(f"/play/{self.gid}").text

    def post(self, form: str, **data: str) -> str:
        r = self.client.post(f"/play/{self.gid}/{form}", data={**data, "csrf": self.csrf}, follow_redirects=True)
        assert r.status_code == 200
        return r.text


def errors(html: str, section: str) -> list[tuple[str, str]]:
    """The errors shown in a section: (text, rule)."""
    found = re.findall(
        rf'<p class="error" role="alert" id="err-{section}-form">([^<]*)(?:<span class="rule">\(([^)]*)\)</span>)?',
        html,
    )
    return [(unescape(t).strip(), r) for t, r in found]


@pytest.fixture
def table(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm_token, _ = games.create_game("Forms")
    city, city_token, _ = add_power(games, gid, "gm", "City", "city", "sovereign")
    cult, cult_token, _ = add_power(games, gid, "gm", "Cult", "conspiracy", "cult")
    seats = {"gm": Seat(app, gid, gm_token), "city": Seat(app, gid, city_token), "cult": Seat(app, gid, cult_token)}
    yield games, gid, {"city": city, "cult": cult}, seats
    close_app(app)


def test_the_gm_declares_the_map_as_json_and_players_see_it_drawn(table):
    games, gid, ids, seats = table
    html = seats["gm"].post("declare-map", map=json.dumps(MAP))
    assert "Map declared." in html
    assert 'data-hex="2,0"' in seats["city"].page()
    bad = {"hexes": [{"hex": "nowhere"}]}
    html = seats["gm"].post("declare-map", map=json.dumps(bad))
    assert errors(html, "gm-map") == [("hex 'nowhere' is not axial coordinates 'q,r' (for example '0,0')", "P-ACT-4")]
    html = seats["gm"].post("declare-map", map="{not json")
    assert errors(html, "gm-map")[0][0].startswith("map: not JSON")
    assert [h["hex"] for h in games.view(gid, "gm")["map"]["hexes"]] == ["0,0", "1,0", "2,0"]  # unchanged


def test_a_player_cannot_send_the_gms_forms(table):
    games, gid, ids, seats = table
    html = seats["city"].post("declare-map", map=json.dumps(MAP))
    assert "only the GM may do this" in html
    assert games.view(gid, "gm")["map"]["hexes"] == []


def test_wallets_and_a_trade_accepted_through_the_forms(table):
    games, gid, ids, seats = table
    assert "Wallet adjusted." in seats["gm"].post(
        "adjust-resources", power_id=ids["city"], changes="coin 5, respect 2", reason="starting purse"
    )
    assert "Wallet adjusted." in seats["gm"].post(
        "adjust-resources", power_id=ids["cult"], changes="favor=1", reason="x"
    )
    # Respect is spent, never traded (P-ASSET-10): refused, naming the rule, and nothing recorded.
    before = games.view(gid, "gm")["development"]["sheets"]
    html = seats["city"].post("propose-trade", to=ids["cult"], give="respect 1", want="favor 1")
    assert errors(html, "trades")[0][1] == "P-ASSET-10"
    assert games.view(gid, "gm")["development"]["sheets"] == before
    html = seats["city"].post("propose-trade", to=ids["cult"], give="coin 3", want="favor 1", note="for the rite")
    assert "Trade offered" in html
    trade = games.view(gid, ids["cult"])["development"]["mine"]["trades"][0]
    assert (trade["give"], trade["want"], trade["status"]) == ({"coin": 3}, {"favor": 1}, "open")
    page = seats["cult"].page()
    assert f'action="/play/{gid}/accept-trade"' in page and trade["trade_id"] in page
    assert "Trade accepted" in seats["cult"].post("accept-trade", trade_id=trade["trade_id"])
    wallets = {k: games.view(gid, v)["development"]["mine"]["wallet"] for k, v in ids.items()}
    assert (wallets["city"]["coin"], wallets["city"]["favor"]) == (2, 1)
    assert (wallets["cult"]["coin"], wallets["cult"]["favor"]) == (3, 0)


def test_a_trade_is_withdrawn_or_declined_through_the_forms(table):
    games, gid, ids, seats = table
    seats["gm"].post("adjust-resources", power_id=ids["city"], changes="coin 5", reason="purse")
    seats["city"].post("propose-trade", to=ids["cult"], give="coin 1")
    seats["city"].post("propose-trade", to=ids["cult"], give="coin 2")
    first, second = (t["trade_id"] for t in games.view(gid, ids["city"])["development"]["mine"]["trades"])
    assert "Trade withdrawn." in seats["city"].post("withdraw-trade", trade_id=first)
    html = seats["city"].post("decline-trade", trade_id=second)  # only its addressee declines it
    assert errors(html, "trades")
    assert "Trade declined." in seats["cult"].post("decline-trade", trade_id=second)
    statuses = [t["status"] for t in games.view(gid, ids["city"])["development"]["mine"]["trades"]]
    assert statuses == ["withdrawn", "declined"]


def test_fame_is_spent_in_tidings_through_the_development_form(table):
    games, gid, ids, seats = table
    assert "Fame awarded." in seats["gm"].post("award-fame", power_id=ids["city"], amount="12", reason="a tip")
    html = seats["city"].post("buy", kind="skill", name="lore")  # still in Setup
    assert errors(html, "development")[0][1] == "P-DEV-1"
    assert f'action="/play/{gid}/buy"' not in html  # the form is offered in Tidings only
    games.send(gid, "gm", pc.Advance())
    assert games.view(gid, "gm")["game"]["step"] == "tidings"
    assert f'action="/play/{gid}/buy"' in seats["city"].page()
    html = seats["city"].post("buy", kind="skill", name="lore")
    assert "Bought." in html
    mine = games.view(gid, ids["city"])["development"]["mine"]
    assert "lore" in mine["development"]["skills"]
    assert mine["wallet"]["fame"] < 12


def test_ambitions_are_offered_on_the_console_and_taken_or_declined_on_the_board(table):
    games, gid, ids, seats = table
    offer = {
        "power_id": ids["city"],
        "kind": "minor",
        "fame": "5",
        "required": "1",
        "tasks": "! Hold Derop\n? a secret",
    }
    assert "Ambition offered." in seats["gm"].post("offer-ambition", name="Rule the river", **offer)
    assert "Ambition offered." in seats["gm"].post("offer-ambition", name="Second", **offer)
    html = seats["gm"].post("offer-ambition", name="Too famous", **{**offer, "fame": "40"})
    assert errors(html, "gm-ambitions")[0][1] == "P-AMBI-1"
    page = seats["city"].page()
    assert "Hold Derop" in page and "a secret" not in page  # a mysterious task stays hidden until revealed
    first, second = (a["ambition_id"] for a in games.view(gid, ids["city"])["development"]["mine"]["ambitions"])
    assert "Ambition taken." in seats["city"].post("accept-ambition", ambition_id=first)
    assert "Ambition declined." in seats["city"].post("decline-ambition", ambition_id=second)
    assert "Ambition abandoned." in seats["city"].post("abandon-ambition", ambition_id=first)
    statuses = [a["status"] for a in games.view(gid, ids["city"])["development"]["mine"]["ambitions"]]
    assert statuses == ["abandoned", "declined"]


def test_spells_are_defined_and_taught_on_the_console_and_a_refused_cast_names_its_rule(table):
    games, gid, ids, seats = table
    wiz, token, _ = add_power(games, gid, "gm", "Wiz", "champion", "wizard")
    seats["wiz"] = Seat(seats["gm"].client.app, gid, token)
    seats["gm"].post("declare-map", map=json.dumps(MAP))
    html = seats["gm"].post("define-spell", spell_id="spark", name="Spark", speed="fast", cost="F", range="1")
    assert "Spell defined." in html
    assert "Spell taught." in seats["gm"].post("teach-spell", power_id=wiz, spell_id="spark")
    assert "Mana granted." in seats["gm"].post("grant-mana", power_id=wiz, element="F", amount="2")
    assert "Conduit set." in seats["gm"].post("set-conduit", power_id=wiz, name="Apprentice", hex_id="0,0")
    html = seats["gm"].post("grant-mana", power_id=ids["city"], element="F", amount="2")
    assert errors(html, "gm-magic")[0][1] == "P-MAG-1"  # a sovereign stores no mana
    page = seats["wiz"].page()
    assert '<option value="spark">Spark (F)</option>' in page and "Apprentice (column 0, row 0)" in page
    magic = games.view(gid, wiz)["magic"]["powers"][wiz]
    conduit = magic["conduits"][0]["id"]
    html = seats["wiz"].post("cast", spell_id="nothing", through=conduit, target="1,0")
    assert errors(html, "magic")[0][1] == "P-ASSET-8"
    # Outside an action a fast spell is cast in the Battle step or with a reaction: in Setup, refused.
    html = seats["wiz"].post("cast", spell_id="spark", through=conduit, target="1,0")
    assert errors(html, "magic") and errors(html, "magic")[0][1]
    assert games.view(gid, wiz)["magic"]["powers"][wiz]["mana"] == magic["mana"]


def test_a_conspiracy_aims_an_action_and_spends_influence_through_the_forms(table):
    games, gid, ids, seats = table
    seats["gm"].post("declare-map", map=json.dumps(MAP))
    games.send(gid, "gm", pc.SetInfluence(ids["cult"], "0,0", 3))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    aid = games.send(
        gid, ids["cult"], pc.SubmitAction(ids["cult"], title="Whispers", location="0,0", roll=False)
    ).result["action_id"]
    page = seats["cult"].page()
    assert f'action="/play/{gid}/aim"' in page and f'action="/play/{gid}/spend-influence"' in page
    html = seats["cult"].post("aim", action_id=aid, aim="infiltrate", town_id="derop")
    assert "Action aimed." in html
    html = seats["cult"].post("spend-influence", action_id=aid, amounts="0,0=5")
    assert errors(html, "world")[0][1].startswith("P-INFL")
    assert games.view(gid, ids["cult"])["me"]["influence"] == {"0,0": 3}
    assert "Influence spent" in seats["cult"].post("spend-influence", action_id=aid, amounts="0,0=1")
    assert games.view(gid, ids["cult"])["me"]["influence"] == {"0,0": 2}


def test_the_gm_runs_any_other_command_by_name_with_json_fields(table):
    games, gid, ids, seats = table
    seats["gm"].post("declare-map", map=json.dumps(MAP))
    html = seats["gm"].post(
        "gm-command", command="SetClaim", args=json.dumps({"town_id": "derop", "power_id": ids["city"]})
    )
    assert "SetClaim recorded." in html
    assert games.view(gid, ids["city"])["map"]["towns"][0]["claims"] == {"city": ids["city"]}
    html = seats["gm"].post("gm-command", command="NoSuchThing", args="{}")
    assert "take no command" in errors(html, "gm-command")[0][0]
    html = seats["gm"].post("gm-command", command="AddPower", args="{}")
    assert "issues a sign-in link" in errors(html, "gm-command")[0][0]


def test_a_trade_and_a_wallet_are_shown_only_to_their_powers(table):
    """P.4: a wallet and a trade are their powers' own; a third power's board shows neither."""
    games, gid, ids, seats = table
    circ, token, _ = add_power(games, gid, "gm", "Circ", "conspiracy", "circle")
    seats["circ"] = Seat(seats["gm"].client.app, gid, token)
    seats["gm"].post("adjust-resources", power_id=ids["city"], changes="coin=17; insight=2", reason="SECRET-PURSE")
    seats["city"].post("propose-trade", to=ids["cult"], give="coin 13", want="insight 1", note="SECRET-DEAL")
    city, cult, third = (seats[k].page() for k in ("city", "cult", "circ"))
    assert "SECRET-DEAL" in city and "SECRET-DEAL" in cult
    assert "SECRET-DEAL" not in third and "coin 13" not in third and "<td>17</td>" not in third
    assert "<td>17</td>" in city  # the offer moves nothing until it is accepted


def test_influence_is_shifted_in_tidings_through_the_form(table):
    games, gid, ids, seats = table
    seats["gm"].post("declare-map", map=json.dumps(MAP))
    games.send(gid, "gm", pc.SetInfluence(ids["cult"], "0,0", 3))
    html = seats["cult"].post("shift-influence", shifts="0,0 > 1,0")  # in Setup: refused
    assert errors(html, "world")[0][1] == "P-INFL-3"
    games.send(gid, "gm", pc.Advance())
    assert f'action="/play/{gid}/shift-influence"' in seats["cult"].page()
    assert f'action="/play/{gid}/shift-influence"' not in seats["city"].page()  # influence is a conspiracy's
    html = seats["cult"].post("shift-influence", shifts="0,0 -> 1,0\n")
    assert "Influence shifted." in html
    assert games.view(gid, ids["cult"])["me"]["influence"] == {"0,0": 2, "1,0": 1}
    assert "your influence 1" in html  # the map redrawn with it
