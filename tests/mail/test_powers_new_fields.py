"""Fields and commands that only the JSON API could send, now by mail: ``wield`` a magic item (P-ASSET-8), the
GM's ``immunity`` of a power (P-AMB-10), ``favor mana <element> in <action>`` (P-ASSET-11, P-AMB-37), and a
``setup`` line's goals with a threshold and a reward per side (P-BAT-8, P-EX-12). Each line runs the API's
handler; a refusal names its rule or field and records nothing; the lines are in the grammar's reference."""

from __future__ import annotations

from application.service import Caller, Games
from domain.powers import catalogue_commands as cc
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import world
from domain.powers.mail import USAGE, parse_turn
from tests.domain.helpers import army_of, asset_of, seen, sheet_of
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power
from tests.mail.test_battle_mail import _table as _battle_table
from tests.mail.test_feature_lines import _mail, _refused


def _table() -> tuple[Games, str, dict[str, tuple[str, str]]]:
    """Gandalf (a champion) holds the Staff of Orthanc and an agent, Radagast; the Balrog (a cult) an agent, the
    Shadow, and one favor; in Setup."""
    games = Games()
    gid, gm_token, _ = games.create_game("New fields by mail", "GM")
    seats = {
        "gm": ("gm", gm_token),
        "gandalf": add_power(games, gid, "gm", "Gandalf", "champion", "wizard")[:2],
        "balrog": add_power(games, gid, "gm", "Balrog", "conspiracy", "cult")[:2],
    }
    games.send(gid, "gm", pc.GrantAsset("gandalf", "Staff of Orthanc", "item", 2, asset_id="staff"))
    games.send(gid, "gm", pc.GrantAsset("gandalf", "Radagast", "agent", 2, asset_id="radagast"))
    games.send(gid, "gm", pc.GrantAsset("balrog", "Shadow", "agent", 1, asset_id="shadow"))
    games.send(gid, "gm", pc.GrantAsset("gandalf", "The Balrog's true name", "secret", 1, asset_id="true-name"))
    games.run(Caller.of("gm"), gid, dev.AdjustResources("balrog", {"favor": 1}, "a patron's boon"))
    return games, gid, seats


def test_the_new_lines_parse_to_their_fields_and_are_in_the_reference():
    turn = parse_turn(
        "wield Staff of Orthanc by Radagast in #1\n"
        "wield Staff of Orthanc back\n"
        "favor mana Dark in #2\n"
        "immunity Balrog: physical force; overcome by Gandalf, Rohan\n"
        "immunity Balrog lift\n",
        seat="gandalf",
    )
    assert not turn.errors
    assert [c.args for c in turn.commands] == [
        {"item": "Staff of Orthanc", "wielder": "Radagast", "action": "#1"},
        {"item": "Staff of Orthanc", "wielder": None, "action": ""},
        {"use": "mana", "element": "Dark", "request": "", "action": "#2"},
        {"power": "Balrog", "immunity": "physical force", "by": ["Gandalf", "Rohan"]},
        {"power": "Balrog", "immunity": "", "by": []},
    ]
    turn = parse_turn("wield Staff of Orthanc\nimmunity Balrog\nfavor mana Dark at #2\n")
    assert [e.line for e in turn.errors] == [1, 2, 3]
    assert "usage: wield <item> by <agent>|<army>|me [in <action>]" in turn.errors[0].message
    assert "[in <action>]" in USAGE["favor"] and "immunity <power> lift" in USAGE["immunity"]
    assert "attacker reward <reward>" in USAGE["setup"]


def test_p_asset_8_an_items_wielder_is_chosen_and_changed_with_an_action_by_mail():
    """P-ASSET-8 [003:539] "The Wielder of an item can be selected when the item is obtained or created, and it can
    be changed as part of any Action involving the item or its wielder". Another power's agent is refused naming
    the rule; a change with no action is refused; a change in an action whose pool holds the staff is recorded."""
    games, gid, seats = _table()
    token = seats["gandalf"][1]
    _refused(games, gid, token, "wield Staff of Orthanc by Shadow", "P-ASSET-8")
    reply = _mail(games, gid, token, "wield Staff of Orthanc by Radagast")
    assert reply.accepted and "Staff of Orthanc is wielded by Radagast." in reply.body, reply.body
    assert games.get_game(gid).wielders("gandalf") == {"staff": "radagast"}
    _refused(games, gid, token, "wield Staff of Orthanc by me", "P-ASSET-8")
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning
    reply = _mail(
        games, gid, token, "action: Read the staff\n  assets: Staff of Orthanc\nwield Staff of Orthanc by me in #1"
    )
    assert reply.accepted and "Staff of Orthanc is wielded by Gandalf." in reply.body, reply.body
    assert games.get_game(gid).wielders("gandalf") == {"staff": "gandalf"}
    reply = _mail(games, gid, token, "wield Staff of Orthanc back in #1")
    assert reply.accepted and "You took Staff of Orthanc back" in reply.body, reply.body
    assert games.get_game(gid).wielders("gandalf") == {}


def test_p_amb_10_the_gm_records_and_lifts_an_immunity_by_mail():
    """P-AMB-10: an adversary has the immunity the GM records, and who knows how to overcome it ([003:54]); a
    power never overcomes its own, and only the GM records it."""
    games, gid, seats = _table()
    gm = seats["gm"][1]
    _refused(games, gid, gm, "immunity Balrog: fire; overcome by Balrog", "P-AMB-10")
    _refused(games, gid, gm, "immunity Balrog: fire; overcome by Saruman", None)  # no such power
    _refused(games, gid, seats["balrog"][1], "immunity Balrog: fire", None)  # only the GM
    reply = _mail(games, gid, gm, "immunity Balrog: physical force; overcome by Gandalf")
    assert reply.accepted, reply.body
    assert "Balrog is immune: physical force; who knows how to overcome it: Gandalf." in reply.body
    assert seen(games.get_game(gid))["catalogue"]["immunities"]["balrog"] == {
        "immunity": "physical force",
        "bypassed_by": ["gandalf"],
    }
    reply = _mail(games, gid, gm, "immunity Balrog lift")
    assert reply.accepted and "Balrog has no immunity now." in reply.body, reply.body
    assert "balrog" not in seen(games.get_game(gid))["catalogue"]["immunities"]


def test_p_amb_37_a_favors_mana_is_spent_during_an_action_by_mail():
    """P-ASSET-11 "Favor may be exchanged for 3 Light or Dark mana"; P-AMB-37: spent during one of the power's
    actions the mana is that action's, whatever its storage (a Cult stores 2 of each, P-MAG-1: into its store the
    3 Dark are refused). An action the sender does not have is refused naming the field."""
    games, gid, seats = _table()
    token = seats["balrog"][1]
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning
    _refused(games, gid, token, "favor mana Dark", "P-MAG-1")
    body = _refused(games, gid, token, "favor mana Dark in #1", None)
    assert "you have no action '#1' this month" in body
    reply = _mail(games, gid, token, "action: Call the dark\n  propose: yes\nfavor mana Dark in #1")
    assert reply.accepted, reply.body
    assert "Spent a favor on Dark mana, held by 'Call the dark'." in reply.body
    game = games.get_game(gid)
    (action,) = game.actions_of("balrog")
    held = seen(game)["magic"]["powers"]["balrog"]["action_mana"][action.id]  # the action's own mana (P-AMB-37)
    assert held["channelled"] == {"D": 3} and sheet_of(game, "balrog")["mana"] == {}


def test_p_ex_12_a_setup_line_proposes_goals_with_a_threshold_and_a_reward_a_side():
    """P-BAT-8 [003:637] "different thresholds for different sides"; P-EX-12 "Assassinate Count Caliphrase:
    Attacker: Threshold 4, reward: Kill Count Caliphrase; Defender: Threshold 2, reward: remove this goal for next
    round". A goal written otherwise is refused naming P-BAT-8, and nothing is recorded."""
    games, gid, tok = _battle_table()
    reply = _mail(games, gid, tok["north"], "declare battle at 2,0 against South")
    assert reply.accepted, reply.body
    body = _refused(games, gid, tok["north"], "setup n1 goals Ford; threshold four", "P-BAT-8")
    assert "goals: a threshold is a whole number, not 'four'" in body
    body = _refused(games, gid, tok["north"], "setup n1 goals Ford; bridge 3", "P-BAT-8")
    assert "not 'bridge 3'" in body
    _refused(games, gid, tok["north"], "setup n1 goals Ford; attacker 0", "P-BAT-8")  # the battle's own check
    reply = _mail(
        games,
        gid,
        tok["north"],
        "setup n1 goals Assassinate Count Caliphrase; attacker 4; defender 2; attacker reward Kill Count "
        "Caliphrase; defender reward remove next round, Hold the ford; threshold 3; attacker reward remove",
    )
    assert reply.accepted, reply.body
    goals = games.view(gid, "gm")["battles"][0]["goals"]
    caliphrase = goals["assassinate_count_caliphrase"]
    assert (caliphrase["A"], caliphrase["B"]) == (4, 2)
    assert caliphrase["rewards"] == {"A": "Kill Count Caliphrase", "B": "remove_next_round"}
    assert (goals["hold_the_ford"]["A"], goals["hold_the_ford"]["B"]) == (3, 3)
    assert goals["hold_the_ford"]["rewards"] == {"A": "remove"}


def test_p_bat_3_a_setup_line_gives_standing_orders():
    """P-BAT-3 / P.1.3: an army's standing order is what it does at a deadline when the GM's default is
    "standing" (``setup ... orders <army> <command> [target] [goal], ...``). An order the battle refuses, or one
    with words left over, is refused naming P-BAT-3 and nothing is recorded."""
    games, gid, tok = _battle_table()
    assert _mail(games, gid, tok["north"], "declare battle at 2,0 against South").accepted
    _refused(games, gid, tok["north"], "setup n1 orders n1 fly", "P-BAT-3")
    _refused(games, gid, tok["north"], "setup n1 orders n1 hold advance at once", "P-BAT-3")
    _refused(games, gid, tok["north"], "setup n1 orders n1", "P-BAT-3")
    reply = _mail(games, gid, tok["north"], "setup n1 reinforcements n3 orders n1 hold advance, n3 slay S1")
    assert reply.accepted, reply.body
    armies = games.get_game(gid).battle(games.view(gid, "gm")["battles"][0]["battle_id"])["armies"]
    assert armies["n1"]["order"] == {"command": "hold", "target": None, "goal": "advance"}
    assert armies["n3"]["order"] == {"command": "slay", "target": "s1", "goal": None}


def test_p_asset_8_a_secret_is_shared_by_mail():
    """[003:114] "Secrets can be shared with other powers, but can never be retracted" (ShareSecret); only a
    Secret is shared, refused otherwise naming the rule."""
    games, gid, seats = _table()
    token = seats["gandalf"][1]
    _refused(games, gid, token, "share secret Staff of Orthanc with Balrog", "P-ASSET-8")
    reply = _mail(games, gid, token, "share secret The Balrog's true name with Balrog")
    assert reply.accepted, reply.body
    assert "Shared the secret The Balrog's true name with Balrog" in reply.body
    assert "balrog" in asset_of(games.get_game(gid), "true-name")["holders"]
    _refused(games, gid, token, "share secret The Balrog's true name with Balrog", "P-ASSET-8")  # known already


def test_p_res_1_prepared_reaction_spends_a_scheme_named_by_mail():
    """[003:883] "Prepared Reaction: You can use up to one additional reaction each month by spending a scheme"
    (P-RES-1): the scheme is named on the line (by name or id); without one the line is refused naming the rule."""
    games = Games()
    gid, _, _ = games.create_game("Prepared by mail", "GM")
    _, token, _ = add_power(games, gid, "gm", "Gondor", "city", "sovereign", {"prepared_reaction": True})
    add_power(games, gid, "gm", "Mordor", "city", "sovereign")
    games.send(gid, "gm", pc.GrantAsset("gondor", "Beacons of warning", "scheme", 1, asset_id="beacons"))
    games.send(gid, "gm", pc.GrantAsset("mordor", "might", "skill", 3, asset_id="might"))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning
    games.run(
        Caller.of("mordor"),
        gid,
        pc.SubmitAction(
            "mordor", "Beacons", slot="public", targets=["gondor"], resistible=True, assets=[{"asset_id": "might"}]
        ),
    )
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement=""))
    assert games.view(gid, "gm")["game"]["step"] == "resistance"
    _refused(games, gid, token, "reaction extra prepared_reaction", "P-RES-1")
    reply = _mail(games, gid, token, "reaction extra prepared_reaction scheme Beacons of warning")
    assert reply.accepted and "One more reaction this month, through prepared_reaction." in reply.body, reply.body
    assert asset_of(games.get_game(gid), "beacons")["used_up"]


def test_p_res_7_a_reaction_line_carries_its_pool_and_a_spell_may_be_temporary():
    """P-RES-7: a reaction that is not a resistance rolls the assets named (``with``), converting as told; the
    GM's ``grimoire`` line says a ritual is temporary ([003:501] "rituals are permanent, unless otherwise
    stated")."""
    games, gid, seats = _table()
    turn = parse_turn("reaction satellite_shrine on #1 with Radagast convert 1 note for the temple", seat="gandalf")
    assert not turn.errors, turn.errors
    command = turn.command(games.get_game(gid), turn.commands[0])
    assert command == cc.UseReaction(
        "gandalf", "satellite_shrine", "#1", None, [{"asset_id": "radagast", "mode": "normal"}], 1, "for the temple"
    )
    reply = _mail(games, gid, seats["gm"][1], "grimoire rain ritual 2W temporary: Rain")
    assert reply.accepted, reply.body
    spells = {sp["spell_id"]: sp for sp in games.view(gid, "gm")["magic"]["catalogue"]}
    assert spells["rain"]["permanent"] is False


def test_p_bat_12_the_gm_sets_a_battle_status_by_mail():
    """P-BAT-12: the GM puts a status on an army in a battle (``status <battle> <army> <status> <stacks>``), 0
    stacks removing it; too many stacks are refused naming the rule; only the GM may."""
    games, gid, tok = _battle_table()
    assert _mail(games, gid, tok["north"], "declare battle at 2,0 against South").accepted
    assert _mail(games, gid, tok["north"], "setup n1").accepted
    battle_id = games.view(gid, "gm")["battles"][0]["battle_id"]
    gm = games.reissue_link(gid, "gm", "gm")[0]
    _refused(games, gid, gm, f"status {battle_id} N1 vulnerable 99", "P-BAT-12")
    _refused(games, gid, tok["north"], f"status {battle_id} N1 vulnerable 2", None)  # only the GM
    reply = _mail(games, gid, gm, f"status {battle_id} N1 vulnerable 2 for the Hex of Frailty")
    assert reply.accepted, reply.body
    assert army_of(games.get_game(gid), "n1")["statuses"] == {"vulnerable": 2}
    assert _mail(games, gid, gm, f"status {battle_id} n1 vulnerable 0").accepted
    assert army_of(games.get_game(gid), "n1")["statuses"] == {}


def test_gm_11_an_offer_line_carries_the_ambitions_reward_and_compensation():
    """GM-11 [003:190]: an ambition comes with a fame score, reward resources or words, and compensation resources
    paid when the power takes it (``; reward <amounts>; reward text <words>; compensation <amounts>``)."""
    games, gid, seats = _table()
    gm = seats["gm"][1]
    _refused(games, gid, gm, "offer Balrog minor 5 fame, 1 central: Crown; !Win; reward two coin", None)
    reply = _mail(
        games,
        gid,
        gm,
        "offer Balrog minor 5 fame, 1 central: Crown; !Win; reward 3 coin, 1 favor; reward text The iron crown; "
        "compensation 2 coin",
    )
    assert reply.accepted, reply.body
    (amb,) = games.view(gid, "balrog")["development"]["mine"]["ambitions"]
    assert (amb["reward"], amb["reward_text"], amb["compensation"]) == (
        {"coin": 3, "favor": 1},
        "The iron crown",
        {"coin": 2},
    )
    assert [t["text"] for t in amb["tasks"]] == ["Win"]


def test_p_asset_4_and_p_act_2_an_action_block_says_dungeon_and_a_roll_line_spends_an_extra_action():
    """P-ASSET-4 "In a dungeon challenge, Delve may be used together with one other skill" (``dungeon: yes``;
    outside one a pool holds one skill, P-ASSET-3); P-ACT-2: a proposal rolled later may spend one more action as a
    rank-1 assured asset (``roll <action> ... extra action``), as the action block's ``extra action: yes`` does."""
    games, gid, seats = _table()
    token = seats["gandalf"][1]
    games.send(gid, "gm", pc.GrantAsset("gandalf", "delve", "skill", 2, asset_id="delve"))
    games.send(gid, "gm", pc.GrantAsset("gandalf", "might", "skill", 2, asset_id="might"))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning
    _refused(games, gid, token, "action: Into the tomb\n  assets: delve, might", "P-ASSET-3")
    reply = _mail(games, gid, token, "action: Into the tomb\n  assets: delve, might\n  dungeon: yes")
    assert reply.accepted, reply.body
    (tomb,) = games.get_game(gid).actions_of("gandalf")
    assert tomb.dungeon
    reply = _mail(games, gid, token, "action: Lift the gate\n  propose: yes")
    assert reply.accepted, reply.body
    gate = games.get_game(gid).actions_of("gandalf")[1]
    games.run(Caller.of("gm"), gid, pc.SetDifficulty(gate.id, 2))
    reply = _mail(games, gid, token, f"roll {gate.id} with staff extra action convert 0")
    assert reply.accepted, reply.body
    pool = games.get_game(gid).action(gate.id).pool
    assert sorted(a.asset_id for a in pool.assets) == ["action", "staff"]


def test_gm_3_and_gm_6_the_gm_rules_an_action_and_offers_its_consequence_by_mail():
    """GM-6: the GM rules whether an action can be resisted and by whom (``ruling``); GM-3: the GM offers the form
    an action's consequences take once its conversions are locked (``consequence <action>: <text>``), which the
    player accepts by mail. A power not in the game is refused naming the field; only the GM may rule."""
    games, gid, seats = _table()
    gm, token = seats["gm"][1], seats["gandalf"][1]
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning
    assert _mail(games, gid, token, "action: Duel the Balrog\n  assets: Staff of Orthanc\n  convert: 0").accepted
    (duel,) = games.get_game(gid).actions_of("gandalf")
    body = _refused(games, gid, gm, f"ruling {duel.id} resistible by Saruman", None)
    assert "no power 'Saruman'" in body
    _refused(games, gid, token, f"ruling {duel.id} not resistible", None)  # only the GM
    reply = _mail(games, gid, gm, f"ruling {duel.id} resistible by Balrog")
    assert reply.accepted and f"{duel.id} may be resisted (also by Balrog)." in reply.body, reply.body
    assert "balrog" in games.get_game(gid).eligible_resisters(games.get_game(gid).action(duel.id))
    reply = _mail(games, gid, gm, f"consequence {duel.id}: You fall into a vast pit")
    assert reply.accepted, reply.body
    (offer,) = games.get_game(gid).action(duel.id).consequences
    assert (offer.text, offer.status) == ("You fall into a vast pit", "proposed")
    reply = _mail(games, gid, token, f"accept #1 {offer.id}")
    assert reply.accepted, reply.body
    assert games.get_game(gid).action(duel.id).consequences[0].status == "accepted"


def test_p_act_2_a_duel_line_spends_an_extra_action():
    """P-ACT-2: a duel or a seeking may spend one more action as a rank-1 assured asset (``extra action``), as an
    action block may; a share in another's action may not, so there the words are read as an asset and refused."""
    games, gid, seats = _table()
    token = seats["gandalf"][1]
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[], features=[]))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning
    reply = _mail(games, gid, token, "duel Balrog at 0,0 with Staff of Orthanc extra action convert 0")
    assert reply.accepted, reply.body
    (duel,) = games.get_game(gid).actions_of("gandalf")
    assert sorted(a.asset_id for a in duel.pool.assets) == ["action", "staff"]
    _refused(games, gid, seats["balrog"][1], f"join {duel.id} with Shadow extra action", "P-ASSET-1")


def test_p_1_3_the_gm_sets_a_battles_terrain_and_default_by_mail():
    """P.1.3: the GM sets a battle's terrain, its effects and the default for commands not given by a deadline
    (hold, or the army's standing order); another default is refused naming the rule."""
    games, gid, tok = _battle_table()
    assert _mail(games, gid, tok["north"], "declare battle at 2,0 against South").accepted
    battle_id = games.view(gid, "gm")["battles"][0]["battle_id"]
    gm = games.reissue_link(gid, "gm", "gm")[0]
    _refused(games, gid, gm, f"terrain {battle_id} charge: a ford", "P.1.3")
    reply = _mail(games, gid, gm, f"terrain {battle_id} standing: a shallow ford; mud slows the charge")
    assert reply.accepted, reply.body
    b = games.view(gid, "gm")["battles"][0]
    assert (b["terrain"], b["effects"], b["default"]) == ("a shallow ford", "mud slows the charge", "standing")
