"""The forms that replaced the GM's JSON catch-all for the world's, magic's, development's and the catalogue's
commands (issue 12's channels), and a power's Mercurial swap (P-INFL-4) and Blighted Neighborhood choice
(P.2.12), over real HTTP: each builds its command and sends it through ``Games.run``, and a refusal shown
next to the form is the error the API gives for the same command, with its rule id, recording nothing."""

from __future__ import annotations

import re

import pytest

from api.app import create_app
from api.declare import build
from api.powers.declared import SPECS
from application.service import Caller
from domain.errors import DomainError
from domain.powers import commands as pc
from domain.powers import world
from projections.settings import Settings
from tests.domain.helpers import sheet_of
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.web.test_powers_feature_forms import Seat, errors

DEROP = {"id": "derop", "name": "Derop", "hex": "0,0", "population": 3, "wealth": 2}
KEEP = {"id": "keep", "kind": "stronghold", "hex": "1,0", "controller": None}
OUTPOST = {"id": "o1", "kind": "outpost", "hex": "1,1", "controller": None}

# The forms issue 12 added; every other issue-12 command already had one (tests/web/test_powers_feature_forms.py).
GM_FORMS = (
    "set-influence",
    "drop-claim",
    "rule-subtle",
    "set-mechanisms",
    "generate-influence",
    "answer-question",
    "grant-perk",
    "define-perk",
    "nerf-perk",
    "complete-task",
    "lose-task",
    "channel-mana",
    "grant-magic-perk",
    "remove-conduit",
    "declare-dispel",
    "record-location",
    "dread-growth",
    "rule-per-target",
    "propose-share-consequence",
)
PLAYER_FORMS = ("mercurial-swap", "choose-blighted-town")


@pytest.fixture
def table(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm_token, _ = games.create_game("GM forms")
    city, city_token, _ = add_power(games, gid, "gm", "City", "city", "sovereign", {"blighted_neighborhood": True})
    cult, cult_token, _ = add_power(games, gid, "gm", "Cult", "conspiracy", "cult")
    features = [{**KEEP, "controller": city}, {**OUTPOST, "controller": cult}]
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[DEROP], features=features))
    seats = {"gm": Seat(app, gid, gm_token), "city": Seat(app, gid, city_token), "cult": Seat(app, gid, cult_token)}
    yield games, gid, {"city": city, "cult": cult}, seats
    close_app(app)


def _version(games, gid: str) -> int:
    return games.get_game(gid).version


def _forms(html: str) -> set[str]:
    return set(re.findall(r'action="/play/[^/"]+/([a-z-]+)"', html))


def test_every_issue_12_command_has_a_form_of_its_own_on_the_console_or_the_board(table):
    """Channels: the console carries a form for each GM command of the map, magic, development and the catalogue,
    the board a Mercurial swap (conspiracies, at Tidings) and a Blighted Neighborhood choice."""
    games, gid, ids, seats = table
    games.send(gid, "gm", pc.Advance())  # Tidings
    assert set(GM_FORMS) <= _forms(seats["gm"].page())
    assert {"choose-blighted-town"} <= _forms(seats["city"].page())
    assert set(PLAYER_FORMS) <= _forms(seats["cult"].page())
    assert all(SPECS[name].gm for name in GM_FORMS) and not any(SPECS[name].gm for name in PLAYER_FORMS)


@pytest.mark.parametrize("name", GM_FORMS)
def test_a_player_cannot_send_a_gm_form(table, name):
    games, gid, ids, seats = table
    before = _version(games, gid)
    assert "only the GM may do this" in seats["city"].post(name, power_id=ids["city"], action_id="x")
    assert _version(games, gid) == before


# (form, posted fields, the section it answers in): each refused by the rules, to compare with the API's error.
REFUSALS = [
    ("set-influence", {"power_id": "{cult}", "hex_id": "0,0", "amount": "21"}, "gm-map"),
    ("drop-claim", {"town_id": "derop", "power_id": "{city}"}, "gm-map"),
    ("rule-subtle", {"action_id": "{act}", "feature_id": "o1"}, "gm-map"),
    ("set-mechanisms", {"power_id": "{city}", "mechanisms": "ports"}, "gm-map"),
    ("generate-influence", {"power_id": "{cult}", "mechanism": "ports", "hex_id": "0,0", "ranks": "2"}, "gm-map"),
    ("answer-question", {"question_id": "q-none", "answer": "yes"}, "gm-wallets"),
    ("define-perk", {"name": "Odd", "group": "nobody"}, "gm-wallets"),
    ("nerf-perk", {"power_id": "{city}", "name": "Mercurial"}, "gm-wallets"),
    ("complete-task", {"ambition_id": "none", "task_id": "t1"}, "gm-ambitions"),
    ("lose-task", {"ambition_id": "none", "task_id": "t1", "reason": "x"}, "gm-ambitions"),
    ("channel-mana", {"action_id": "{act}", "element": "Q", "amount": "1"}, "gm-magic"),
    ("grant-magic-perk", {"power_id": "{city}", "perk": "no_such_perk"}, "gm-magic"),
    ("remove-conduit", {"power_id": "{city}", "conduit_id": "none"}, "gm-magic"),
    ("declare-dispel", {"action_id": "{act}", "ritual": "none"}, "gm-magic"),
    ("record-location", {"power_id": "{city}", "hex_id": "north"}, "gm-catalogue"),
    ("dread-growth", {"power_id": "{city}", "units": "3"}, "gm-catalogue"),
    ("rule-per-target", {"action_id": "{act}"}, "gm-catalogue"),
    ("propose-share-consequence", {"action_id": "{act}", "power_id": "{cult}", "text": "x"}, "gm-catalogue"),
]


@pytest.mark.parametrize(("name", "fields", "section"), REFUSALS, ids=[r[0] for r in REFUSALS])
def test_a_gm_form_refused_shows_the_apis_error_and_records_nothing(table, name, fields, section):
    """Every channel gives the same error, naming the rule (or the field), and a refusal records nothing."""
    games, gid, ids, seats = table
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # month 1 Planning
    games.send(gid, ids["city"], pc.SubmitAction(ids["city"], title="Walk", slot="public", roll=False))
    (act,) = games.get_game(gid).actions_of(ids["city"])
    posted = {k: v.format(act=act.id, **ids) for k, v in fields.items()}
    spec = SPECS[name]
    with pytest.raises(DomainError) as api:
        games.run(Caller.of("gm"), gid, build(spec.command, spec.args(posted, "gm")))
    before = _version(games, gid)
    html = seats["gm"].post(name, **posted)
    shown = errors(html, section)
    assert shown == [(api.value.message, api.value.rule or "")], shown
    assert _version(games, gid) == before


def test_p_feat_3_the_gm_rules_a_subtle_action_from_the_console(table):
    """P-FEAT-3: "Anything inside is immune to subtle targeting"; the GM rules (GM-22) that an action overcame
    it, from the console's form, and the ruling is recorded for the action."""
    games, gid, ids, seats = table
    games.send(gid, "gm", pc.Advance())  # Tidings: the City pays its stronghold's upkeep, so that it keeps working
    seats["gm"].post("adjust-resources", power_id=ids["city"], changes="coin 3", reason="purse")
    assert "Maintenance paid." in seats["city"].post("pay-maintenance", feature_id="keep")
    games.send(gid, "gm", pc.Advance())
    games.send(gid, ids["cult"], pc.SubmitAction(ids["cult"], title="Creep in", slot="private", roll=False))
    (act,) = games.get_game(gid).actions_of(ids["cult"])
    html = seats["gm"].post("rule-subtle", action_id=act.id, feature_id="keep")
    assert errors(html, "gm-map")[0][1] == "P-FEAT-3"
    html = seats["gm"].post("rule-subtle", action_id=act.id, feature_id="keep", overcome="on")
    assert "Ruled: the action targets inside the stronghold" in html
    (ruled,) = [e for e in games.iter_events(gid) if type(e).__name__ == "SubtleRuled" and e.action_id == act.id]
    assert (ruled.feature_id, ruled.overcome) == ("keep", True)


def test_p_infl_4_a_mercurial_conspiracy_swaps_influence_from_its_board(table):
    """P-INFL-4, Mercurial [003:931]: "During Tidings, before resetting the influence in your outposts, swap your
    influence between any two hexes twice." The outpost (1 before the reset, so raised to 3) swaps with 2,0 (5)."""
    games, gid, ids, seats = table
    cult = ids["cult"]
    assert "Starting perk granted." in seats["gm"].post("grant-perk", power_id=cult, name="Mercurial")
    assert "Influence recorded." in seats["gm"].post("set-influence", power_id=cult, hex_id="1,1", amount="1")
    html = seats["cult"].post("mercurial-swap", a="1,1", b="2,0")
    assert errors(html, "world") == [("the Mercurial swap happens during Tidings", "P-INFL-4")]
    games.run(Caller.of("gm"), gid, pc.SetInfluence(cult, "2,0", 5))
    games.send(gid, "gm", pc.Advance())  # Tidings: the outpost is raised to 3
    assert sheet_of(games.get_game(gid), cult)["influence"] == {"1,1": 3, "2,0": 5}
    html = seats["cult"].post("mercurial-swap", a="1,1", b="2,0")
    assert "Influence swapped (Mercurial)." in html
    assert sheet_of(games.get_game(gid), cult)["influence"] == {"1,1": 5, "2,0": 1}
    html = seats["city"].post("mercurial-swap", a="1,1", b="2,0")
    assert errors(html, "world")[0][1] == "P-INFL-4"


def test_p_2_12_blighted_neighborhood_town_is_chosen_from_the_board(table):
    """[003:959] "Blighted Neighborhood: Choose a town you claim." A town not claimed is refused naming P.2.12."""
    games, gid, ids, seats = table
    city = ids["city"]
    before = _version(games, gid)
    html = seats["city"].post("choose-blighted-town", town_id="derop")
    assert errors(html, "catalogue") == [("City claims no town 'derop'", "P.2.12")]
    assert _version(games, gid) == before
    assert "Claim recorded." in seats["gm"].post("set-claim", town_id="derop", power_id=city, reason="ruling")
    html = seats["city"].post("choose-blighted-town", town_id="derop")
    assert "Town chosen for your Blighted Neighborhood." in html
    assert games.view(gid, city)["catalogue"]["blighted_town"] == "derop"
    html = seats["cult"].post("choose-blighted-town", town_id="derop")
    assert errors(html, "catalogue")[0][1] == "P.2.12"


def test_p_infl_5_the_gm_records_mechanisms_and_generates_influence_from_the_console(table):
    """P-INFL-5: a conspiracy's generation mechanisms, each firing once a season for influence equal to the rank."""
    games, gid, ids, seats = table
    cult = ids["cult"]
    games.send(gid, "gm", pc.Advance())
    mechanism = "emissaries"
    assert "Mechanisms recorded." in seats["gm"].post("set-mechanisms", power_id=cult, mechanisms=mechanism)
    html = seats["gm"].post("generate-influence", power_id=cult, mechanism=mechanism, hex_id="2,0", ranks="two")
    assert errors(html, "gm-map") == [("ranks: whole numbers separated by spaces, e.g. '2 3'", "")]
    html = seats["gm"].post("generate-influence", power_id=cult, mechanism=mechanism, hex_id="2,0", ranks="2")
    assert "Influence generated." in html
    assert sheet_of(games.get_game(gid), cult)["influence"]["2,0"] == 2
    html = seats["gm"].post("generate-influence", power_id=cult, mechanism=mechanism, hex_id="2,0", ranks="2")
    assert errors(html, "gm-map") == [("emissaries fires once a season, and it has", "P-INFL-5")]


def test_p_ambi_1_the_gm_completes_and_loses_tasks_from_the_console(table):
    """P-AMBI-1: ambition bookkeeping; the GM marks a task done (its fame) or lost, each by its own form."""
    games, gid, ids, seats = table
    city = ids["city"]
    html = seats["gm"].post(
        "offer-ambition", power_id=city, name="Crown", kind="minor", fame="5", required="1", tasks="!Win\nHold"
    )
    assert "Ambition offered." in html, errors(html, "gm-ambitions")
    (amb,) = games.view(gid, city)["development"]["mine"]["ambitions"]
    seats["city"].post("accept-ambition", ambition_id=amb["ambition_id"])
    t1, t2 = (t["task_id"] for t in amb["tasks"])
    assert "Task lost." in seats["gm"].post("lose-task", ambition_id=amb["ambition_id"], task_id=t2, reason="gone")
    assert "Task done." in seats["gm"].post("complete-task", ambition_id=amb["ambition_id"], task_id=t1)
    tasks = games.view(gid, city)["development"]["mine"]["ambitions"][0]["tasks"]
    assert [t["status"] for t in tasks] == ["done", "lost"]


@pytest.mark.parametrize("name", GM_FORMS + PLAYER_FORMS)
def test_a_new_form_posted_empty_or_garbled_is_refused_with_a_message_and_records_nothing(table, name):
    """No 500: a form sent with its fields missing, or with nonsense in every field, is answered on the page with
    the error next to the form, and nothing is recorded."""
    games, gid, ids, seats = table
    seat = seats["gm"] if SPECS[name].gm else seats["cult"]
    before = _version(games, gid)
    for fields in ({}, dict.fromkeys(("power_id", "action_id", "amount", "units", "ranks", "effects", "a"), "\x00{")):
        html = seat.post(name, **fields)
        assert errors(html, SPECS[name].section), name
    assert _version(games, gid) == before
