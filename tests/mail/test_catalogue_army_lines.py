"""The catalogue's and the armies' commands by mail (README, "Playing by email"): duels, seeking, joining an
action, free actions, reactions, army aims and upkeep, support; the GM's dice, asset terms and quota perks.
Each line runs the same handler as the API's; each refusal names its rule and records nothing."""

from __future__ import annotations

from application.service import Caller, Games
from domain.powers import armies, world
from domain.powers import commands as pc
from domain.powers.mail import parse_turn
from tests.domain.test_conformance_armies import block
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power
from tests.mail.test_feature_lines import _mail, _refused


def _table(steps: int) -> tuple[Games, str, dict[str, tuple[str, str]]]:
    """Gondor (a city) and the Rangers (a conspiracy) on a small map, ``steps`` calendar steps from setup."""
    games = Games()
    gid, gm_token, _ = games.create_game("The catalogue by mail", "GM")
    seats = {
        "gm": ("gm", gm_token),
        "gondor": add_power(games, gid, "gm", "Gondor", "city", "sovereign")[:2],
        "rangers": add_power(games, gid, "gm", "Rangers", "conspiracy", "circle")[:2],
    }
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[], features=[]))
    for _ in range(steps):
        games.send(gid, "gm", pc.Advance())
    return games, gid, seats


def test_the_new_lines_parse_into_their_fields():
    turn = parse_turn(
        "duel Rangers at 0,0 skill might with Sword, Spear convert 1\n"
        "seek 1,0 broad\n"
        "army choose host attack, keyword valiant class infantry\n"
        "dice 2d6 for Gondor public\n"
        "terms agent-1 fee 2, loyalty loyal\n",
        seat="gondor",
    )
    assert not turn.errors, turn.errors
    duel, seek, choose, dice, terms = (c.args for c in turn.commands)
    assert duel == {
        "target": "Rangers",
        "character": False,
        "location": "0,0",
        "skill": "might",
        "assets": [{"ref": "Sword", "mode": "normal"}, {"ref": "Spear", "mode": "normal"}],
        "convert": 1,
        "slot": "private",
        "extra_actions": 0,
    }
    assert seek["broad"] and seek["hex"] == "1,0" and seek["named"] is None
    assert choose["choices"] == ["attack", {"bonus": "keyword", "keyword": "valiant"}]
    assert choose["new_class"] == "infantry"
    assert dice == {"dice": "2d6", "purpose": None, "power": "Gondor", "public": True}
    assert terms == {"asset": "agent-1", "terms": {"fee": 2, "loyalty": "loyal"}}
    bad = parse_turn("duel Rangers\nsupport lots\nquota Gondor leading_army maybe", seat="gondor")
    assert [e.line for e in bad.errors] == [1, 2, 3]


def test_p_act_6_a_duel_is_mailed_and_a_duel_against_oneself_is_refused():
    """P-ACT-6: "Duel ... the target's location is declared"; a duel is against someone else."""
    games, gid, seats = _table(steps=2)
    pid, token = seats["gondor"]
    _refused(games, gid, token, "duel Gondor at 0,0 public", "P-ACT-6")
    reply = _mail(games, gid, token, "duel Rangers at 0,0 skill might public")
    assert reply.accepted, reply.body
    assert "Duel of Rangers: difficulty 1." in reply.body
    (action,) = games.get_game(gid).actions_of(pid)
    assert action.targets == [seats["rangers"][0]] and action.location == "0,0"
    reply = _mail(games, gid, token, "duel character Witch-king at 1,0 public")
    assert reply.accepted and "Duel of the character Witch-king: difficulty 1." in reply.body, reply.body
    _refused(games, gid, token, "duel Witch-king at 1,0 public", None)  # not a power: say "character"


def test_p_act_7_seeking_is_mailed_and_naming_a_thing_broadly_is_refused():
    """P-ACT-7: "only Targeted Seeking names one thing for an assured success"."""
    games, gid, seats = _table(steps=2)
    pid, token = seats["rangers"]
    _refused(games, gid, token, "seek 0,0 broad named influence", "P-ACT-7")
    _refused(games, gid, token, "seek 0,0 named dragons", "P-ACT-7")
    reply = _mail(games, gid, token, "seek 0,0")
    assert reply.accepted, reply.body
    assert "Seeking: difficulty" in reply.body
    assert len(games.get_game(gid).actions_of(pid)) == 1


def test_p_dice_11_a_declared_collaborator_joins_by_mail_and_another_is_refused():
    """P-DICE-11: a declared collaborator spends an action and rolls its own pool into the shared action."""
    games, gid, seats = _table(steps=2)
    pid, token = seats["gondor"]
    body = "action: Strike\n  slot: public\n  location: 0,0\n  collaborators: Rangers\n  difficulty: 1"
    assert _mail(games, gid, token, body).accepted
    (action,) = games.get_game(gid).actions_of(pid)
    _refused(games, gid, token, f"join {action.id}", "P-DICE-11")  # Gondor is not its own collaborator
    _refused(games, gid, token, f"share accept {action.id} csq-1", "P-DICE-11")  # Gondor has no share
    _refused(games, gid, seats["rangers"][1], f"join {action.id} public", "P-ACT-1")  # a Circle acts privately
    reply = _mail(games, gid, seats["rangers"][1], f"join {action.id}")
    assert reply.accepted and f"Joined {action.id}: rolled" in reply.body, reply.body


def test_p_act_5_a_free_action_names_its_kind():
    """P-ACT-5: the free actions are executing an agent and disbanding a levy."""
    games, gid, seats = _table(steps=2)
    _, token = seats["gondor"]
    _refused(games, gid, token, "free execute Nobody", "P-ACT-5")
    _refused(games, gid, token, "free execute_agent Nobody", "P-ACT-5")  # Gondor holds no such asset


def test_p_res_2_reactions_by_mail_wait_for_the_resistance_window():
    """P-RES-2: "reactions are declared while the resistance window is open"."""
    games, gid, seats = _table(steps=2)
    _, token = seats["gondor"]
    _refused(games, gid, token, "reaction extra Vigilant", "P-RES-2")
    _refused(games, gid, token, "reaction gate_guardians on act-x fee 1", "P-RES-2")


def test_p_sup_1_support_is_paid_by_mail_in_tidings_only():
    """P-SUP-1: "during Tidings, one coin, respect or fear for each unit beyond the support limit"."""
    games, gid, seats = _table(steps=2)
    pid, token = seats["gondor"]
    _refused(games, gid, token, "support 0 coin", "P-SUP-1")  # Planning
    games, gid, seats = _table(steps=1)
    pid, token = seats["gondor"]
    _refused(games, gid, token, "support 1 coin", "P-SUP-1")  # nothing is due
    reply = _mail(games, gid, token, "support 0 coin")
    assert reply.accepted and "Paid support: 0 coin." in reply.body, reply.body
    _refused(games, gid, token, "support 0 coin", "P-SUP-1")  # settled this season


def test_p_army_3_an_action_is_aimed_at_training_by_mail_and_a_forge_beyond_the_tiers_is_refused():
    """P-ARMY-3 / P-ARMY-6: an action aimed at armies names the army; a Forge names a tier of the table."""
    games, gid, seats = _table(steps=2)
    pid, token = seats["gondor"]
    games.run(Caller.of("gm"), gid, armies.PlaceArmy("guard", "Guard", "0,0", 3, pid, block=block()))
    _refused(games, gid, token, "army levelup nowhere", None)  # no army of Gondor
    _refused(games, gid, token, "army choose Guard attack", "P-ARMY-3")  # no level-up rolled
    _refused(games, gid, token, "army discard Guard", "P-ARMY-3")  # no Train
    _refused(games, gid, token, "army scars keep Guard", "P-ARMY-9")  # not an orc army
    _refused(games, gid, token, "army fee Guard coin", "P-SUP-3")  # no fee owed
    _refused(games, gid, token, "army disband Guard", "P-ARMY-5")  # not in Tidings
    head = "action: Drill\n  location: 0,0\n  slot: public\n  propose: yes\n"
    _refused(games, gid, token, head + "army forge #1 with army_id Guard, tier 99", "P-ARMY-6", line=5)
    reply = _mail(games, gid, token, head + "army train #1 with army_id Guard")
    assert reply.accepted and "to train." in reply.body, reply.body
    (action,) = games.get_game(gid).actions_of(pid)
    aimed = [e["data"] for e in games.visible_events(gid, "gm", limit=100_000) if e["type"] == "ArmyActionAimed"]
    assert [(a["action_id"], a["aim"]["kind"], a["aim"]["army_id"]) for a in aimed] == [(action.id, "train", "guard")]


def test_p_dice_13_the_gm_rolls_dice_by_mail():
    """P-DICE-13: the GM rolls NdX outside a challenge; "give either the dice (NdX) or the rule's roll"."""
    games, gid, seats = _table(steps=1)
    _, token = seats["gm"]
    _refused(games, gid, token, "dice 2d6", "P-DICE-13")  # no month is open yet: no committed seed
    games.send(gid, "gm", pc.Advance())
    reply = _mail(games, gid, token, "dice 2d6 for Gondor")
    assert reply.accepted and "Rolled 2d6 (roll " in reply.body, reply.body
    _refused(games, gid, token, "dice nonsense", "P-DICE-13")
    _refused(games, gid, seats["gondor"][1], "dice 2d6", None)  # only the GM


def test_p_asset_5_the_gm_sets_an_agents_terms_by_mail():
    """P-ASSET-5: "terms are for agents, industries and armies"."""
    games, gid, seats = _table(steps=1)
    pid, _ = seats["gondor"]
    _, token = seats["gm"]
    games.run(Caller.of("gm"), gid, pc.GrantAsset(pid, "Spymaster", "agent", 2))
    games.run(Caller.of("gm"), gid, pc.GrantAsset(pid, "lore", "skill", 1))
    _refused(games, gid, token, "terms lore fee 1", "P-ASSET-5")
    reply = _mail(games, gid, token, "terms Spymaster fee 1")
    assert reply.accepted and "Terms of" in reply.body, reply.body


def test_p_act_1_the_gm_changes_a_quota_perk_by_mail():
    """P-ACT-1: the perks that change a quota start or stop applying by the GM's word."""
    games, gid, seats = _table(steps=1)
    _, token = seats["gm"]
    add_power(games, gid, "gm", "Aragorn", "champion", "paragon")
    _refused(games, gid, token, "quota Aragorn flying on", "P-ACT-1")
    _refused(games, gid, token, "quota Gondor leading_army on", "P-ACT-1")  # a perk of a paragon
    reply = _mail(games, gid, token, "quota Aragorn leading_army on")
    assert reply.accepted and "Aragorn: leading_army on." in reply.body, reply.body
