"""The console's forms for the GM's army commands that went only by the API or the JSON catch-all (issue 12):
PlaceArmy, DetectArmy, SetSupportBonus, GrantExperience, RecordDispersal, DesertArmy. Over real HTTP each builds
its command and sends it through ``Games.run``; a refusal shown next to the form is the API's error for the same
command, with its rule id, and records nothing."""

from __future__ import annotations

import json

import pytest

from api.app import create_app
from api.declare import build
from api.powers.army_forms import ARMY_GM_SPECS
from application.service import Caller
from domain.errors import DomainError
from domain.powers import armies, world
from domain.powers import commands as pc
from projections.settings import Settings
from tests.domain.helpers import army_of, asset_of
from tests.domain.test_conformance_catalogue_world import FINGER_BLOCK
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.web.test_powers_feature_forms import Seat, errors
from tests.web.test_powers_gm_forms import _forms, _version

ARMY_FORMS = tuple(ARMY_GM_SPECS)


@pytest.fixture
def table(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm_token, _ = games.create_game("Army forms")
    city, city_token, _ = add_power(games, gid, "gm", "City", "city", "sovereign")
    cult, cult_token, _ = add_power(games, gid, "gm", "Cult", "conspiracy", "cult")
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[], features=[]))
    games.run(Caller.of("gm"), gid, armies.DefineArmyType("fingers", FINGER_BLOCK))
    seats = {"gm": Seat(app, gid, gm_token), "city": Seat(app, gid, city_token), "cult": Seat(app, gid, cult_token)}
    yield games, gid, {"city": city, "cult": cult}, seats
    close_app(app)


def test_every_gm_army_command_has_a_form_of_its_own_on_the_console(table):
    """Channels: PlaceArmy, DetectArmy, SetSupportBonus, GrantExperience, RecordDispersal and DesertArmy each have a
    GM form on the console; a player's board carries none of them."""
    games, gid, ids, seats = table
    assert set(ARMY_FORMS) == {
        "place-army",
        "detect-army",
        "set-support-bonus",
        "grant-experience",
        "record-dispersal",
        "desert-army",
    }
    assert set(ARMY_FORMS) <= _forms(seats["gm"].page())
    assert not set(ARMY_FORMS) & _forms(seats["city"].page())
    assert all(spec.gm and spec.section == "gm-armies" for spec in ARMY_GM_SPECS.values())


@pytest.mark.parametrize("name", ARMY_FORMS)
def test_a_player_cannot_send_a_gm_army_form(table, name):
    games, gid, ids, seats = table
    before = _version(games, gid)
    html = seats["city"].post(name, army_id="a", power_id=ids["city"], name="A", hex="0,0", units="2", bonus="1")
    assert "only the GM may do this" in html
    assert _version(games, gid) == before


# (form, posted fields): each refused by the rules, to compare with the API's error for the same command.
REFUSALS = [
    ("place-army", {"army_id": "a1", "name": "Host", "hex": "9,9", "units": "3", "type_id": "fingers"}),
    ("place-army", {"army_id": "a1", "name": "Host", "hex": "0,0", "units": "3", "type_id": "nope"}),
    ("place-army", {"army_id": "a1", "name": "Host", "hex": "0,0", "units": "3", "block": '{{"rank": 2}}'}),
    ("detect-army", {"army_id": "host", "power_id": "{city}"}),  # visible already (P.4)
    ("set-support-bonus", {"power_id": "{city}", "bonus": "-1"}),
    ("grant-experience", {"army_id": "host", "rank": "11"}),
    ("record-dispersal", {"army_id": "host"}),  # not routed (P-ARMY-7)
    ("desert-army", {"army_id": "host", "reason": "unpaid"}),  # owed no fee (P-SUP-3)
]


@pytest.mark.parametrize(("name", "fields"), REFUSALS, ids=[f"{r[0]}-{i}" for i, r in enumerate(REFUSALS)])
def test_a_gm_army_form_refused_shows_the_apis_error_and_records_nothing(table, name, fields):
    """Every channel gives the same error, naming the rule (or the field), and a refusal records nothing."""
    games, gid, ids, seats = table
    games.run(
        Caller.of("gm"), gid, armies.PlaceArmy("host", "Host", "1,0", 3, controller=ids["cult"], type_id="fingers")
    )
    posted = {k: v.format(**ids) for k, v in fields.items()}
    spec = ARMY_GM_SPECS[name]
    with pytest.raises(DomainError) as api:
        games.run(Caller.of("gm"), gid, build(spec.command, spec.args(posted, "gm")))
    assert api.value.rule or api.value.field
    before = _version(games, gid)
    html = seats["gm"].post(name, **posted)
    shown = errors(html, "gm-armies")
    assert shown == [(api.value.message, api.value.rule or "")], shown
    assert _version(games, gid) == before


@pytest.mark.parametrize("name", ARMY_FORMS)
def test_a_gm_army_form_posted_empty_or_garbled_is_refused_with_a_message_and_records_nothing(table, name):
    """No 500: missing fields or nonsense in every field are answered next to the form; nothing is recorded."""
    games, gid, ids, seats = table
    before = _version(games, gid)
    garbled = ("army_id", "power_id", "name", "hex", "units", "bonus", "rank", "block", "reason", "to", "controller")
    for fields in ({}, dict.fromkeys(garbled, "\x00{")):
        html = seats["gm"].post(name, **fields)
        assert errors(html, "gm-armies"), name
    assert _version(games, gid) == before


def test_p_4_the_gm_places_a_hidden_army_and_shows_it_to_a_power_from_the_console(table):
    """P.4: a hidden army is on its controller's board and the GM's only, until the GM records that another power
    detected it (DetectArmy); then that power sees its card."""
    games, gid, ids, seats = table
    html = seats["gm"].post(
        "place-army",
        army_id="lurkers",
        name="Lurkers",
        hex="2,0",
        units="2",
        controller=ids["cult"],
        type_id="fingers",
        hidden="on",
    )
    assert "Army placed." in html, errors(html, "gm-armies")
    army = army_of(games.get_game(gid), "lurkers")
    assert (army["hex"], len(army["units"]), army["controller"]) == ("2,0", 2, ids["cult"])
    assert "Lurkers" not in json.dumps(games.view(gid, ids["city"]))
    html = seats["gm"].post("detect-army", army_id="lurkers", power_id=ids["city"])
    assert "The power sees the army now." in html
    assert "Lurkers" in json.dumps(games.view(gid, ids["city"]))
    html = seats["gm"].post("detect-army", army_id="lurkers", power_id=ids["city"])
    assert errors(html, "gm-armies")[0][1] == "P.4"


def test_p_army_8_an_army_placed_with_its_own_stat_block_as_json(table):
    """P-ARMY-8: an army's stat block is data; the form takes it as JSON when the army has no type."""
    games, gid, ids, seats = table
    html = seats["gm"].post(
        "place-army", army_id="wild", name="Wild", hex="3,0", units="4", block=json.dumps(FINGER_BLOCK)
    )
    assert "Army placed." in html, errors(html, "gm-armies")
    army = army_of(games.get_game(gid), "wild")
    assert (army["controller"], len(army["units"])) == (None, 4)


def test_p_sup_2_and_p_asset_14_support_bonus_and_experience_from_the_console(table):
    """P-SUP-2: what a power's effects add to its support limit; P-ASSET-14: an army's one-use Experience asset,
    which a rogue army does not get (the GM keeps its experience)."""
    games, gid, ids, seats = table
    cult = ids["cult"]
    limit = games.view(gid, "gm")["armies"]["support"][cult]["limit"]
    assert "Support bonus recorded." in seats["gm"].post("set-support-bonus", power_id=cult, bonus="3")
    assert games.view(gid, "gm")["armies"]["support"][cult]["limit"] == limit + 3  # the bonus adds to the limit
    placed = {"name": "Host", "hex": "1,0", "units": "3", "controller": cult, "type_id": "fingers"}
    seats["gm"].post("place-army", army_id="host", **placed)
    html = seats["gm"].post("grant-experience", army_id="host", rank="2")
    assert "Experience granted." in html, errors(html, "gm-armies")
    xp = asset_of(games.get_game(gid), "host.xp1")
    assert (xp["rank"], xp["holders"]) == (2, [cult])
    seats["gm"].post("place-army", army_id="rogue", name="Rogue", hex="2,0", units="2", type_id="fingers")
    html = seats["gm"].post("grant-experience", army_id="rogue", rank="2")
    assert errors(html, "gm-armies")[0][1] == "P-ASSET-14"


def test_p_sup_3_an_unsupported_army_deserts_from_the_console(table):
    """P-SUP-1/P-SUP-3: units beyond the support limit left unpaid at the end of Tidings; the GM rules that the
    army deserts to another power. Before anything is owed the desertion is refused naming P-SUP-3."""
    games, gid, ids, seats = table
    placed = {"name": "Host", "hex": "1,0", "units": "6", "controller": ids["city"], "type_id": "fingers"}
    assert "Army placed." in seats["gm"].post("place-army", army_id="host", **placed)
    html = seats["gm"].post("desert-army", army_id="host", to=ids["cult"], reason="unsupported")
    assert errors(html, "gm-armies")[0][1] == "P-SUP-3"
    games.send(gid, "gm", pc.Advance())  # Tidings
    games.send(gid, "gm", pc.Advance())  # its end: the support beyond the limit is unpaid
    html = seats["gm"].post("desert-army", army_id="host", to=ids["cult"], reason="unsupported")
    assert "The army deserted." in html, errors(html, "gm-armies")
    assert army_of(games.get_game(gid), "host")["controller"] == ids["cult"]
