"""The board's and the console's forms for duels, seeking, shared actions, free actions, reactions and armies,
and the GM's dice, asset terms, quota perks and army types, over real HTTP: each builds its command and sends it
through ``Games.run``; a refusal is shown next to its form with its rule id, and records nothing."""

from __future__ import annotations

import json

import pytest

from api.app import create_app
from application.service import Caller
from domain.powers import armies, world
from domain.powers import commands as pc
from projections.settings import Settings
from tests.domain.helpers import seen
from tests.domain.test_conformance_armies import block
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.web.test_powers_feature_forms import Seat, errors


@pytest.fixture
def table(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm_token, _ = games.create_game("Catalogue forms")
    city, city_token, _ = add_power(games, gid, "gm", "City", "city", "sovereign")
    cult, cult_token, _ = add_power(games, gid, "gm", "Cult", "conspiracy", "cult")
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[], features=[]))
    seats = {"gm": Seat(app, gid, gm_token), "city": Seat(app, gid, city_token), "cult": Seat(app, gid, cult_token)}
    yield games, gid, {"city": city, "cult": cult}, seats
    close_app(app)


def _version(games, gid: str) -> int:
    return games.get_game(gid).version


def test_p_act_6_a_duel_is_sent_from_the_board_and_one_against_oneself_is_refused(table):
    """P-ACT-6: a duel declares where the target is; "a duel is against someone else"."""
    games, gid, ids, seats = table
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    before = _version(games, gid)
    html = seats["city"].post("duel", target=ids["city"], location="0,0", slot="public")
    assert errors(html, "catalogue") == [("a duel is against someone else", "P-ACT-6")]
    assert _version(games, gid) == before
    html = seats["city"].post("duel", target=ids["cult"], location="0,0", slot="public", skill="might")
    assert "Duel submitted and rolled." in html
    (action,) = games.get_game(gid).actions_of(ids["city"])
    assert action.targets == [ids["cult"]] and action.location == "0,0"


def test_p_act_7_seeking_from_the_board_and_naming_a_thing_broadly_is_refused(table):
    """P-ACT-7: "only Targeted Seeking names one thing for an assured success"."""
    games, gid, ids, seats = table
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    before = _version(games, gid)
    html = seats["cult"].post("seek", hex_id="0,0", broad="on", named="influence")
    assert errors(html, "catalogue") == [("only Targeted Seeking names one thing for an assured success", "P-ACT-7")]
    assert _version(games, gid) == before
    html = seats["cult"].post("seek", hex_id="0,0", named="influence")
    assert "Seeking submitted and rolled." in html
    assert len(games.get_game(gid).actions_of(ids["cult"])) == 1


def test_p_sup_1_support_is_paid_from_the_board_in_tidings_only(table):
    """P-SUP-1: "during Tidings, one coin, respect or fear for each unit beyond the support limit"."""
    games, gid, ids, seats = table
    before = _version(games, gid)
    html = seats["city"].post("pay-support", changes="coin 0")
    assert errors(html, "armies") == [("support is paid during Tidings", "P-SUP-1")]
    assert _version(games, gid) == before
    games.send(gid, "gm", pc.Advance())
    html = seats["city"].post("pay-support", changes="coin 0")
    assert "Support paid." in html
    assert seen(games.get_game(gid))["armies"]["support"][ids["city"]]["settled"]["season"] == 1


def test_p_army_3_an_action_is_aimed_at_training_from_the_board(table):
    """P-ARMY-3 / P-ARMY-6: the aim names the army; a Forge names a tier of the table."""
    games, gid, ids, seats = table
    games.run(Caller.of("gm"), gid, armies.PlaceArmy("guard", "Guard", "0,0", 3, ids["city"], block=block()))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    games.run(
        Caller.of(ids["city"]),
        gid,
        pc.SubmitAction(ids["city"], "Drill", slot="public", location="0,0", roll=False),
    )
    (action,) = games.get_game(gid).actions_of(ids["city"])
    assert "Guard" in seats["city"].page()
    before = _version(games, gid)
    html = seats["city"].post(
        "aim-army", action_id=action.id, kind="forge", params=json.dumps({"army_id": "guard", "tier": 99})
    )
    assert errors(html, "armies")[0][1] == "P-ARMY-6"
    assert _version(games, gid) == before
    html = seats["city"].post("aim-army", action_id=action.id, kind="train", params=json.dumps({"army_id": "guard"}))
    assert "Action aimed at armies." in html
    aimed = [e["data"] for e in games.visible_events(gid, "gm", limit=100_000) if e["type"] == "ArmyActionAimed"]
    assert [(a["action_id"], a["aim"]["kind"], a["aim"]["army_id"]) for a in aimed] == [(action.id, "train", "guard")]


def test_p_dice_13_the_gm_rolls_dice_on_the_console(table):
    """P-DICE-13: "give either the dice (NdX) or the rule's roll (purpose)"."""
    games, gid, ids, seats = table
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    before = _version(games, gid)
    html = seats["gm"].post("roll-dice")
    assert errors(html, "gm-catalogue") == [("give either the dice (NdX) or the rule's roll (purpose)", "P-DICE-13")]
    assert _version(games, gid) == before
    html = seats["gm"].post("roll-dice", dice="2d6", power_id=ids["city"])
    assert "Rolled." in html
    assert _version(games, gid) > before
    html = seats["city"].post("roll-dice", dice="2d6")
    assert "only the GM may do this" in html


def test_p_asset_5_the_gm_sets_an_agents_terms_on_the_console(table):
    """P-ASSET-5: "terms are for agents, industries and armies"."""
    games, gid, ids, seats = table
    agent = games.run(Caller.of("gm"), gid, pc.GrantAsset(ids["city"], "Spymaster", "agent", 2)).result
    skill = games.run(Caller.of("gm"), gid, pc.GrantAsset(ids["city"], "lore", "skill", 1)).result
    before = _version(games, gid)
    html = seats["gm"].post("set-asset-terms", asset_id=skill["asset_id"], terms=json.dumps({"fee": 1}))
    assert errors(html, "gm-catalogue")[0][1] == "P-ASSET-5"
    assert _version(games, gid) == before
    html = seats["gm"].post("set-asset-terms", asset_id=agent["asset_id"], terms=json.dumps({"fee": 1}))
    assert "Terms set." in html
    assert _version(games, gid) > before


def test_the_gm_defines_an_army_type_on_the_console(table):
    games, gid, ids, seats = table
    before = _version(games, gid)
    html = seats["gm"].post("define-army-type", type_id="", block=json.dumps(block()))
    assert errors(html, "gm-catalogue")
    assert _version(games, gid) == before
    html = seats["gm"].post("define-army-type", type_id="ents", block=json.dumps(block()))
    assert "Army type defined." in html
    assert "ents" in seen(games.get_game(gid))["armies"]["types"]


@pytest.mark.parametrize(
    ("form", "fields", "rule"),
    [
        ("roll-level-up", {}, "P-ARMY-3"),
        ("choose-level-up", {"choices": "attack"}, "P-ARMY-3"),
        ("discard-train", {}, "P-ARMY-3"),
        ("keep-scars", {"keep": "keep"}, "P-ARMY-9"),
        ("pay-army-fee", {"resource": "coin"}, "P-SUP-3"),
        ("disband-army", {}, "P-ARMY-5"),
    ],
)
def test_the_army_forms_refuse_by_their_rules_and_record_nothing(table, form, fields, rule):
    games, gid, ids, seats = table
    games.run(Caller.of("gm"), gid, armies.PlaceArmy("guard", "Guard", "0,0", 3, ids["city"], block=block()))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    before = _version(games, gid)
    html = seats["city"].post(form, army_id="guard", **fields)
    assert [r for _, r in errors(html, "armies")] == [rule]
    assert _version(games, gid) == before


def test_p_dice_11_a_declared_collaborator_joins_from_the_board(table):
    """P-DICE-11: a declared collaborator spends an action and rolls its own pool into the shared action."""
    games, gid, ids, seats = table
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    submit = pc.SubmitAction(
        ids["city"], "Strike", slot="public", location="0,0", difficulty=1, collaborators=[ids["cult"]]
    )
    action_id = games.run(Caller.of(ids["city"]), gid, submit).result["action_id"]
    before = _version(games, gid)
    html = seats["city"].post("join-action", action_id=action_id)
    assert errors(html, "catalogue") == [("City is not a declared collaborator of this action", "P-DICE-11")]
    assert _version(games, gid) == before
    html = seats["cult"].post("join-action", action_id=action_id)
    assert "Joined the action: your pool is rolled." in html
    assert _version(games, gid) > before


def test_p_act_1_the_gm_changes_a_quota_perk_on_the_console(table):
    """P-ACT-1: a perk that changes a power's monthly quota starts or stops applying by the GM's word."""
    games, gid, ids, seats = table
    hero = add_power(games, gid, "gm", "Aragorn", "champion", "paragon")[0]
    before = _version(games, gid)
    html = seats["gm"].post("change-quota-perk", power_id=ids["city"], perk="leading_army", value="on")
    assert [r for _, r in errors(html, "gm-catalogue")] == ["P-ACT-1"]
    assert _version(games, gid) == before
    html = seats["gm"].post("change-quota-perk", power_id=hero, perk="leading_army", value="on")
    assert "Quota perk changed." in html


def test_a_power_sees_only_its_own_armies_in_its_armies_section(table):
    games, gid, ids, seats = table
    games.run(Caller.of("gm"), gid, armies.PlaceArmy("guard", "Guard", "0,0", 3, ids["city"], block=block()))
    mine = seats["city"].page().split('id="armies-h"', 1)[1].split("</section>", 1)[0]
    theirs = seats["cult"].page().split('id="armies-h"', 1)[1].split("</section>", 1)[0]
    assert "Guard (guard)" in mine
    assert "guard" not in theirs and "No armies." in theirs


def test_p_2_12_a_class_action_is_sent_from_the_board_with_its_inputs(table):
    """P.2.12: a class action's difficulty comes from its formula and inputs; another class's is refused."""
    games, gid, ids, seats = table
    towns = [{"id": "bree", "name": "Bree", "hex": "0,0", "population": 3}]
    games.run(Caller.of("gm"), gid, world.AmendMap(towns=towns))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    games.run(Caller.of("gm"), gid, world.SetClaim("bree", ids["city"], "annex"))
    before = _version(games, gid)
    html = seats["cult"].post("class-action", kind="annex", params=json.dumps({"towns_claimed": 0}))
    assert [r for _, r in errors(html, "catalogue")] == ["P.2.12"]
    assert _version(games, gid) == before
    params = json.dumps({"towns_claimed": 1, "town": "bree"})
    html = seats["city"].post("class-action", kind="annex", params=params, slot="public", location="0,0")
    assert "Class action submitted and rolled." in html
    (action,) = games.get_game(gid).actions_of(ids["city"])
    assert action.slot == "public" and action.location == "0,0"
