"""Fields and commands that only the JSON API could send, now on the board, the console and the Battle page
(issue 12's channels): a magic item's wielder (P-ASSET-8), the GM's record of an immunity (P-AMB-10), a favor's
mana held by an action (P-ASSET-11, P-AMB-37), battle goals proposed with a threshold and a reward per side
(P-BAT-8, P-EX-12), and a goal closed this round not offered to Hold or Charge. Each form goes through
``Games.run``; a refusal is shown next to its form naming the rule, and records nothing."""

from __future__ import annotations

import re

import pytest

from api.app import create_app
from api.powers.declared import SPECS
from application.service import Caller
from domain.errors import RuleViolation
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import world
from projections.settings import Settings
from tests.domain.battle_helpers import HEX, Field, sturdy
from tests.domain.helpers import army_of, asset_of, seen, sheet_of
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.web.test_battle_page import at_battle
from tests.web.test_powers_feature_forms import Seat, errors


@pytest.fixture
def table(tmp_path):
    """Gandalf (a champion) holds a staff, an agent and an army; the Balrog is a conspiracy."""
    app = create_app(Settings(data_dir=tmp_path))
    games = app.state.games
    gid, gm_token, _ = games.create_game("New fields")
    wizard, wizard_token, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
    balrog, balrog_token, _ = add_power(games, gid, "gm", "Balrog", "conspiracy", "cult")
    games.send(gid, "gm", pc.GrantAsset(wizard, "Staff of Orthanc", "item", 2, asset_id="staff"))
    games.send(gid, "gm", pc.GrantAsset(wizard, "Radagast", "agent", 2, asset_id="radagast"))
    games.send(gid, "gm", pc.GrantAsset(balrog, "Shadow", "agent", 1, asset_id="shadow"))
    seats = {"gm": Seat(app, gid, gm_token), wizard: Seat(app, gid, wizard_token), balrog: Seat(app, gid, balrog_token)}
    yield games, gid, {"wizard": wizard, "balrog": balrog}, seats
    close_app(app)


def _version(games, gid: str) -> int:
    return games.get_game(gid).version


def test_p_asset_8_an_items_wielder_is_recorded_from_the_board(table):
    """P-ASSET-8 [003:539] "The Wielder of an item can be selected when the item is obtained or created, and it can
    be changed as part of any Action involving the item or its wielder": the board offers the item, the wielders
    (the champion itself, its agents and armies) and its actions. Another power's agent is refused naming the rule
    and the field; a change with no action is refused; nothing is recorded by either."""
    games, gid, ids, seats = table
    me = ids["wizard"]
    page = seats[me].page()
    assert 'action="/play/' + gid + '/wield-item"' in page and '<option value="radagast">Radagast</option>' in page
    before = _version(games, gid)
    html = seats[me].post("wield-item", asset_id="staff", wielder="shadow")
    assert errors(html, "catalogue") == [
        ("an item's wielder is an agent or army of yours, or a champion itself", "P-ASSET-8")
    ]
    assert _version(games, gid) == before
    html = seats[me].post("wield-item", asset_id="staff", wielder="radagast")
    assert "Wielder recorded." in html and "wielded by Radagast" in html
    assert games.get_game(gid).wielders(me) == {"staff": "radagast"}
    before = _version(games, gid)
    html = seats[me].post("wield-item", asset_id="staff", wielder=me)
    assert errors(html, "catalogue")[0][1] == "P-ASSET-8"  # a change goes with an action involving them
    assert _version(games, gid) == before


def test_p_amb_10_the_gm_records_an_immunity_from_the_console(table):
    """P-AMB-10: an adversary has the immunity the GM records, and the GM records who knows how to overcome it
    ([003:54]); a power never overcomes its own. Only the GM may record it."""
    games, gid, ids, seats = table
    before = _version(games, gid)
    html = seats["gm"].post("set-immunity", power_id=ids["balrog"], immunity="fire", bypassed_by=ids["balrog"])
    assert errors(html, "gm-catalogue") == [("a power does not overcome its own immunity", "P-AMB-10")]
    assert _version(games, gid) == before
    html = seats[ids["balrog"]].post("set-immunity", power_id=ids["balrog"], immunity="fire")
    assert "only the GM may do this" in html and _version(games, gid) == before
    html = seats["gm"].post(
        "set-immunity", power_id=ids["balrog"], immunity="physical force", bypassed_by=ids["wizard"]
    )
    assert "Immunity recorded." in html
    immunity = seen(games.get_game(gid))["catalogue"]["immunities"][ids["balrog"]]
    assert immunity == {"immunity": "physical force", "bypassed_by": [ids["wizard"]]}


def test_p_amb_37_a_favors_mana_is_spent_during_an_action_from_the_board(table):
    """P-ASSET-11 "Favor may be exchanged for 3 Light or Dark mana"; P-AMB-37: spent during one of the power's
    actions, the mana is that action's whatever the storage cap (P-MAG-1). The board offers the power's actions;
    one that is not the power's is refused naming the field, and nothing is recorded."""
    games, gid, ids, seats = table
    me = ids["balrog"]
    games.run(Caller.of("gm"), gid, dev.AdjustResources(me, {"favor": 1}, "a patron's boon"))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning
    html = seats[me].post("submit", title="Call the dark", slot="private", propose="on")
    (action,) = games.get_game(gid).actions_of(me)
    offered = seats[me].page().split('id="sf-action"')[1].split("</select>")[0]
    assert f'<option value="{action.id}">Call the dark</option>' in offered
    before = _version(games, gid)
    html = seats[me].post("spend-favor", use="mana", element="D", action_id="act-nobodys")
    assert errors(html, "wallet") == [("no action 'act-nobodys' this month", "P-MAG-1")]
    assert _version(games, gid) == before
    html = seats[me].post("spend-favor", use="mana", element="D", action_id=action.id)
    assert "Favor spent." in html
    game = games.get_game(gid)
    assert seen(game)["magic"]["powers"][me]["action_mana"][action.id]["channelled"] == {"D": 3}  # P-AMB-37
    assert sheet_of(game, me)["mana"] == {}


@pytest.fixture
def fight(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))
    gid, tokens = at_battle(app)
    seats = {p: Seat(app, gid, t) for p, t in tokens.items()}
    yield app.state.games, gid, seats
    close_app(app)


def test_p_ex_12_a_goal_is_proposed_from_the_setup_form_with_a_threshold_and_a_reward_a_side(fight):
    """P-BAT-8 [003:637] "different thresholds for different sides"; P-EX-12 "Assassinate Count Caliphrase:
    Attacker: Threshold 4, reward: Kill Count Caliphrase; Defender: Threshold 2, reward: remove this goal for next
    round". A goal written otherwise is refused naming P-BAT-8 and the field, and nothing is recorded."""
    games, gid, seats = fight
    seats["north"].post("declare-battle", battle_id="b1", hex="2,0", enemies="south")
    before = _version(games, gid)
    html = seats["north"].post("battle-setup", battle_id="b1", armies="n1", goals="Ford; threshold four")
    assert errors(html, "battles") == [("goals: a threshold is a whole number, not 'four'", "P-BAT-8")]
    assert _version(games, gid) == before
    caliphrase = (
        "Assassinate Count Caliphrase; attacker 4; defender 2; attacker reward Kill Count Caliphrase; "
        "defender reward remove next round\nHold the ford; threshold 3; attacker reward remove"
    )
    html = seats["north"].post("battle-setup", battle_id="b1", armies="n1", goals=caliphrase)
    assert "Setup recorded." in html
    goals = games.view(gid, "gm")["battles"][0]["goals"]
    assert goals["assassinate_count_caliphrase"] | {"open": True} == {
        "name": "Assassinate Count Caliphrase",
        "A": 4,
        "B": 2,
        "side": "A",
        "rewards": {"A": "Kill Count Caliphrase", "B": "remove_next_round"},
        "open": True,
    }
    assert (goals["hold_the_ford"]["A"], goals["hold_the_ford"]["B"]) == (3, 3)
    assert goals["hold_the_ford"]["rewards"] == {"A": "remove"}


def test_p_bat_8_the_battle_page_offers_no_goal_closed_this_round(tmp_path):
    """P-BAT-8 [003:639]-[003:642] Walls: "Attacker: Threshold 2, reward: Remove this goal". Once the attackers
    take the walls, the defenders' command form offers no Hold or Charge on them; the goals table says closed."""
    walls = [{"id": "w", "kind": "wooden_walls", "hex": HEX, "controller": "south"}]
    stats = sturdy(presence={"die": 6, "bonus": 0})
    f = Field({"att": ("north", HEX, 3, stats), "dfn": ("south", HEX, 3, stats)}, features=walls)
    f.declare()
    f.setup("north", ["att"])
    f.setup("south", ["dfn"])
    app = create_app(Settings(data_dir=tmp_path), games_service=f.games)
    try:
        token, _ = f.games.reissue_link(f.gid, "gm", "south")
        south = Seat(app, f.gid, token)
        f.pass_to("commands", 1)
        goals = south.page().split('id="bc-goal-b1"')[1].split("</select>")[0]
        assert '<option value="walls">' in goals
        f.command("south", "dfn", "rest")
        f.command("north", "att", "hold", [3, 3, 1], goal="walls")
        b = f.pass_to("commands", 2)
        assert not b["goals"]["walls"]["open"] and b["turn"]["power"] == "south"
        page = south.page()
        goals = page.split('id="bc-goal-b1"')[1].split("</select>")[0]
        assert '<option value="walls">' not in goals and '<option value="advance">' in goals
        assert "closed" in page.split("Threshold B")[1].split("</table>")[0]
    finally:
        close_app(app)


def test_p_bat_3_standing_orders_are_given_in_the_setup_form(fight):
    """P-BAT-3 / P.1.3: an army's standing order is what it does at a deadline when the GM's default is
    "standing"; the setup form takes one army a line. A line that is not "army command [target] [goal]" is refused
    naming the field, an order the battle refuses names its rule; nothing is recorded."""
    games, gid, seats = fight
    html = seats["north"].post("declare-battle", battle_id="b1", hex="2,0", enemies="south")
    assert 'name="standing"' in html
    before = _version(games, gid)
    html = seats["north"].post("battle-setup", battle_id="b1", armies="n1", standing="n1 hold advance extra")
    assert errors(html, "battles") == [
        ("standing: one army a line, 'army command [target] [goal]' (e.g. 'n1 hold advance')", "")
    ]
    html = seats["north"].post("battle-setup", battle_id="b1", armies="n1", standing="n1 fly")
    assert errors(html, "battles")[0][1] == "P-BAT-3"
    assert _version(games, gid) == before
    html = seats["north"].post("battle-setup", battle_id="b1", armies="n1", standing="n1 hold advance")
    assert "Setup recorded." in html
    order = games.get_game(gid).battle("b1")["armies"]["n1"]["order"]
    assert order == {"command": "hold", "target": None, "goal": "advance"}


def test_p_bat_3_the_command_and_cleanup_forms_carry_a_special_command_and_routed_units():
    """A class's special command (P-BAT-3 [003:590], once a battle) and the units a power routs at Cleanup
    (P.1.3 [003:581]) reach GiveCommand and RetreatArmies; a rout written otherwise is refused naming the field."""
    args = SPECS["battle-command"].args(
        {"battle_id": "b1", "army_id": "x", "command": "special", "special": "Rally"}, "n"
    )
    assert (args["command"], args["special"]) == ("special", "Rally")
    args = SPECS["battle-retreat"].args({"battle_id": "b1", "retreat": "n2", "routs": "n1: 0, 2\n\ne1: 1"}, "n")
    assert (args["retreat"], args["routs"]) == (["n2"], {"n1": [0, 2], "e1": [1]})
    with pytest.raises(RuleViolation) as err:
        SPECS["battle-retreat"].args({"battle_id": "b1", "routs": "n1 0"}, "n")
    assert err.value.field == "routs"


def test_p_amb_42_the_gm_defines_a_ritual_that_is_not_permanent_from_the_console(table):
    """[003:501] "rituals are permanent, unless otherwise stated": the console's spell form says so for a ritual,
    by the rules (permanent), permanent, or not."""
    games, gid, ids, seats = table
    html = seats["gm"].post("define-spell", spell_id="rain", name="Rain", speed="ritual", cost="2W", permanent="no")
    assert "Spell defined." in html
    html = seats["gm"].post("define-spell", spell_id="ward", name="Ward", speed="ritual", cost="2E")
    spells = {sp["spell_id"]: sp for sp in games.view(gid, "gm")["magic"]["catalogue"]}
    assert (spells["rain"]["permanent"], spells["ward"]["permanent"]) == (False, True)


def test_p_bat_12_the_gm_sets_a_battle_status_from_the_battle_page(fight):
    """P-BAT-12: the GM puts a status on an army (a spell's effect, the terrain), 0 stacks removing it; stacks
    that are not a whole number are refused naming the field, too many naming the rule; only the GM may."""
    games, gid, seats = fight
    seats["north"].post("declare-battle", battle_id="b1", hex="2,0", enemies="south")
    seats["north"].post("battle-setup", battle_id="b1", armies="n1")
    assert 'action="/play/' + gid + '/battle-status"' in seats["gm"].page()
    before = _version(games, gid)
    html = seats["gm"].post("battle-status", battle_id="b1", army_id="n1", status="vulnerable", stacks="two")
    assert errors(html, "battles") == [("stacks: give a whole number", "")]
    html = seats["gm"].post("battle-status", battle_id="b1", army_id="n1", status="vulnerable", stacks="99")
    assert errors(html, "battles")[0][1] == "P-BAT-12"
    html = seats["north"].post("battle-status", battle_id="b1", army_id="n1", status="vulnerable", stacks="2")
    assert "only the GM may do this" in html and _version(games, gid) == before
    html = seats["gm"].post(
        "battle-status", battle_id="b1", army_id="n1", status="Vulnerable", stacks="2", reason="Hex"
    )
    assert "Status set." in html
    assert army_of(games.get_game(gid), "n1")["statuses"] == {"vulnerable": 2}


def test_gm_11_an_ambition_offered_from_the_console_compensates_its_taking(table):
    """GM-11 [003:190]: an ambition may come with compensation resources, paid when the power takes it."""
    games, gid, ids, seats = table
    me = ids["balrog"]
    html = seats["gm"].post(
        "offer-ambition", power_id=me, name="Crown", kind="minor", fame="5", required="1", tasks="!Win",
        compensation="coin two",
    )  # fmt: skip
    assert errors(html, "gm-ambitions") == [("compensation: write each as 'name amount', e.g. 'coin 3, favor 1'", "")]
    html = seats["gm"].post(
        "offer-ambition", power_id=me, name="Crown", kind="minor", fame="5", required="1", tasks="!Win",
        compensation="coin 2",
    )  # fmt: skip
    assert "Ambition offered." in html
    (amb,) = games.view(gid, me)["development"]["mine"]["ambitions"]
    assert amb["compensation"] == {"coin": 2}
    seats[me].post("accept-ambition", ambition_id=amb["ambition_id"])
    assert games.view(gid, me)["development"]["mine"]["wallet"]["coin"] == 2


def test_p_dice_11_and_p_asset_4_the_compose_form_names_collaborators_and_a_dungeon(table):
    """P-DICE-11: an action's owner names its collaborators, who join it with their own pools (the board's "Join
    an action" form); P-ASSET-4 "In a dungeon challenge, Delve may be used together with one other skill"; outside one,
    a pool holds one skill (P-ASSET-3). The compose form sends both; nothing is recorded by a refusal."""
    games, gid, ids, seats = table
    me, other = ids["wizard"], ids["balrog"]
    games.send(gid, "gm", pc.GrantAsset(me, "delve", "skill", 2, asset_id="delve"))
    games.send(gid, "gm", pc.GrantAsset(me, "might", "skill", 2, asset_id="might"))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning
    page = seats[me].page()
    assert f'name="collaborator[]" value="{other}"' in page and 'name="dungeon"' in page
    before = _version(games, gid)
    two = {"asset[]": ["delve", "might"]}
    html = seats[me].post("submit", title="Into the tomb", slot="private", **two)
    refused = re.findall(r'id="err-compose-(\w+)">([^<]*)<span class="rule">\(([^)]*)\)', html)
    assert [(field, rule) for field, _, rule in refused] == [("assets", "P-ASSET-3")]  # one skill, outside
    assert _version(games, gid) == before
    html = seats[me].post(
        "submit", title="Into the tomb", slot="private", dungeon="on", **{"collaborator[]": other}, **two
    )
    assert "Action recorded." in html, errors(html, "compose")
    (action,) = games.get_game(gid).actions_of(me)
    assert action.collaborators == [other] and action.dungeon


def test_p_act_1_the_duel_seeking_and_join_forms_offer_a_slot_and_a_reaction_its_conversions(table):
    """P-ACT-1: a power takes public or private actions by its quota (a Sovereign only public ones), so a duel,
    a seeking and a share in an action need the slot the form sends (it was always "private"); a reaction that is
    not a resistance rolls its pool converting as told (P-RES-7)."""
    games, gid, ids, seats = table
    page = seats[ids["balrog"]].page()
    for form in ("duel", "seek", "join-action"):
        html = page.split(f'action="/play/{gid}/{form}"')[1].split("</form>")[0]
        assert 'name="slot"' in html and '<option value="public">' in html, form
    assert 'name="convert"' in page.split(f'action="/play/{gid}/use-reaction"')[1].split("</form>")[0]


def test_p_act_2_the_duel_form_spends_an_extra_action(table):
    """P-ACT-2: a duel may spend one more action as a rank-1 assured asset, as the compose form's action may."""
    games, gid, ids, seats = table
    me = ids["wizard"]
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[], features=[]))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning
    page = seats[me].page()
    assert 'name="extra_action"' in page.split(f'action="/play/{gid}/duel"')[1].split("</form>")[0]
    html = seats[me].post(
        "duel", target=ids["balrog"], location="0,0", assets="staff", extra_action="on", convert="0", slot="private"
    )
    assert "Duel submitted and rolled." in html, errors(html, "catalogue")
    (duel,) = games.get_game(gid).actions_of(me)
    assert sorted(a.asset_id for a in duel.pool.assets) == ["action", "staff"]


def test_p_asset_8_a_secret_is_shared_from_the_board(table):
    """[003:114] "Secrets can be shared with other powers, but can never be retracted": only the JSON API could
    send ShareSecret; the board offers the power's Secrets. Sharing one the other already knows is refused naming
    the rule, and nothing is recorded."""
    games, gid, ids, seats = table
    me, other = ids["wizard"], ids["balrog"]
    games.send(gid, "gm", pc.GrantAsset(me, "The Balrog's true name", "secret", 1, asset_id="true-name"))
    assert f'action="/play/{gid}/share-secret"' in seats[me].page()
    html = seats[me].post("share-secret", asset_id="true-name", to=other)
    assert "Secret shared: they know it for good." in html
    assert other in asset_of(games.get_game(gid), "true-name")["holders"]
    before = _version(games, gid)
    html = seats[me].post("share-secret", asset_id="true-name", to=other)
    assert errors(html, "catalogue")[0][1] == "P-ASSET-8" and _version(games, gid) == before


def test_gm_6_the_gm_rules_who_may_resist_from_the_console(table):
    """GM-6: the GM rules whether an action can be resisted and by whom (SetRuling had no form); a resister not in
    the game is refused naming the field, and nothing is recorded."""
    games, gid, ids, seats = table
    me, other = ids["wizard"], ids["balrog"]
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning
    games.run(Caller.of(me), gid, pc.SubmitAction(me, "Seal the gate", roll=False))
    (action,) = games.get_game(gid).actions_of(me)
    before = _version(games, gid)
    html = seats["gm"].post("set-ruling", action_id=action.id, resistible="on", resisters="saruman")
    assert errors(html, "gm-catalogue") == [("no power 'saruman' in this game", "")]
    assert _version(games, gid) == before
    html = seats["gm"].post("set-ruling", action_id=action.id, resistible="on", resisters=other)
    assert "Ruling recorded." in html
    game = games.get_game(gid)
    assert other in game.eligible_resisters(game.action(action.id))
