"""Fields and commands that only the JSON API could send, now by mail: ``wield`` a magic item (P-ASSET-8), the
GM's ``immunity`` of a power (P-AMB-10), ``favor mana <element> in <action>`` (P-ASSET-11, P-AMB-37), and a
``setup`` line's goals with a threshold and a reward per side (P-BAT-8, P-EX-12). Each line runs the API's
handler; a refusal names its rule or field and records nothing; the lines are in the grammar's reference."""

from __future__ import annotations

from api.powers.service import PowersGames
from api.service import Caller
from domain.powers import development as dev
from domain.powers import magic
from domain.powers.mail import USAGE, parse_turn
from tests.mail.test_battle_mail import _table as _battle_table
from tests.mail.test_feature_lines import _mail, _refused


def _table() -> tuple[PowersGames, str, dict[str, tuple[str, str]]]:
    """Gandalf (a champion) holds the Staff of Orthanc and an agent, Radagast; the Balrog (a cult) an agent, the
    Shadow, and one favor; in Setup."""
    games = PowersGames()
    gid, gm_token, _ = games.create_game("New fields by mail", "GM")
    seats = {
        "gm": ("gm", gm_token),
        "gandalf": games.add_power(gid, "gm", "Gandalf", "champion", "wizard")[:2],
        "balrog": games.add_power(gid, "gm", "Balrog", "conspiracy", "cult")[:2],
    }
    games.grant_asset(gid, "gm", "gandalf", "Staff of Orthanc", "item", 2, asset_id="staff")
    games.grant_asset(gid, "gm", "gandalf", "Radagast", "agent", 2, asset_id="radagast")
    games.grant_asset(gid, "gm", "balrog", "Shadow", "agent", 1, asset_id="shadow")
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
    games.advance(gid, "gm")
    games.advance(gid, "gm")  # Planning
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
    assert games.get_game(gid).state.catalogue["immunities"]["balrog"] == {
        "immunity": "physical force",
        "bypassed_by": ["gandalf"],
    }
    reply = _mail(games, gid, gm, "immunity Balrog lift")
    assert reply.accepted and "Balrog has no immunity now." in reply.body, reply.body
    assert "balrog" not in games.get_game(gid).state.catalogue["immunities"]


def test_p_amb_37_a_favors_mana_is_spent_during_an_action_by_mail():
    """P-ASSET-11 "Favor may be exchanged for 3 Light or Dark mana"; P-AMB-37: spent during one of the power's
    actions the mana is that action's, whatever its storage (a Cult stores 2 of each, P-MAG-1: into its store the
    3 Dark are refused). An action the sender does not have is refused naming the field."""
    games, gid, seats = _table()
    token = seats["balrog"][1]
    games.advance(gid, "gm")
    games.advance(gid, "gm")  # Planning
    _refused(games, gid, token, "favor mana Dark", "P-MAG-1")
    body = _refused(games, gid, token, "favor mana Dark in #1", None)
    assert "you have no action '#1' this month" in body
    reply = _mail(games, gid, token, "action: Call the dark\n  propose: yes\nfavor mana Dark in #1")
    assert reply.accepted, reply.body
    assert "Spent a favor on Dark mana, held by 'Call the dark'." in reply.body
    game = games.get_game(gid)
    (action,) = game.actions_of("balrog")
    assert magic.pool_of(game.state, action.id)["channelled"] == {"D": 3} and game.state.powers["balrog"].mana == {}


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
