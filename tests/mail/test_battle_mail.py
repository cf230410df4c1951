"""Issue 13 by mail: the scripted battle of the API test (two sides, three powers, six armies, all 7 rounds, a
window per step) played with mail lines (README "Playing by email": ``declare``, ``setup``, ``deploy``, ``spell``,
``command <army> <command> [target]``, ``surrender``, ``retreat``). Each line runs the API's handler; a refusal
names its rule and records nothing."""

from __future__ import annotations

from application.service import Caller, Games
from domain.powers import armies, magic, world
from domain.powers import commands as pc
from domain.powers.mail import parse_turn
from tests.helpers import add_power
from tests.integration.test_battle_api import ARMIES, BLOCK, HEXES, STEPS
from tests.mail.test_feature_lines import _mail, _refused


def _table():
    games = Games()
    gid, gm_token, _ = games.create_game("Ford of Derop by mail", "GM")
    tok = {}
    for name in ("North", "East", "South"):
        pid, token, _ = add_power(games, gid, "gm", name, "city", "sovereign")
        tok[pid] = token
    gm = Caller.of("gm")
    games.run(gm, gid, world.DeclareMap(hexes=HEXES, towns=[], features=[]))
    for aid, power, where, units in ARMIES:
        games.run(gm, gid, armies.PlaceArmy(aid, aid.upper(), where, units, power, block=BLOCK))
    games.run(gm, gid, magic.TeachSpell("north", "fireball"))
    # the mana for the battle's Fireball (2FF, P-MAG-2): storage to hold it (P-MAG-1), then the mana
    games.run(gm, gid, magic.GrantMagicPerk("north", "excellent_personal_magic"))
    games.run(gm, gid, magic.GrantMana("north", "F", 3))
    games.run(gm, gid, magic.GrantMana("north", "A", 1))
    games.send(gid, "gm", pc.GrantAsset("north", "Spy in the ford", "agent", 2, asset_id="spy"))
    for _ in range(3):
        games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement=""))
    assert games.view(gid, "gm")["game"]["step"] == "battle"
    return games, gid, tok


def _line(view: dict, power: str) -> str:
    """The scripted line of the pending power, from the battle as the GM sees it."""
    step, r = view["step"], view["round"]
    if step == "deployment":
        return "deploy s3" if power == "south" and r == 4 else "deploy none"
    if step == "spellcasting":
        return "spell fireball on S1" if r == 2 else "spell none"
    if step == "goals":
        return "surrender pass"
    if step == "surrender":
        return "surrender decline"
    if step == "cleanup":
        return "retreat none"
    side = view["turn"]["side"]
    lines = {a["army_id"]: a for a in view["armies"]}
    mine = [
        a["army_id"]
        for a in view["armies"]
        if a["power"] == power and a["where"] == "deployed" and a["size"] > 0 and a["army_id"] not in view["exhausted"]
    ]
    enemies = [
        a
        for a in view["sides"]["B" if side == "A" else "A"]["order"]
        if lines[a]["where"] == "deployed" and lines[a]["size"] > 0
    ]
    if r in (1, 3) and enemies:  # slain armies are few: all 7 rounds are fought
        return f"command {mine[0]} slay {lines[enemies[0]]['name']}"  # the target by name, as the map shows it
    return f"command {mine[0]} hold {'advance' if len(mine) % 2 else 'initiative'}"


def test_the_battle_lines_parse_into_their_fields():
    turn = parse_turn(
        "declare battle at 2,0 against South with East\n"
        "setup n1, n2 goals Hold the ford reinforcements n3 reveal Spy in the ford champion\n"
        "command n1 slay s1\n"
        "command n2 charge s2 advance\n"
        "surrender offer leave the ford\n"
        "retreat rout n1 0, 2\n",
        seat="north",
    )
    assert not turn.errors, turn.errors
    declare, setup, slay, charge, offer, rout = (c.args for c in turn.commands)
    assert declare == {"hex": "2,0", "enemies": ["South"], "allies": ["East"]}
    assert setup == {
        "armies": ["n1", "n2"],
        "goals": [{"name": "Hold the ford"}],
        "orders": [],
        "reinforcements": ["n3"],
        "assets": ["Spy in the ford"],
        "champion": True,
    }
    assert slay == {"army": "n1", "command": "slay", "more": ["s1"]}
    assert charge["more"] == ["s2", "advance"]
    assert offer == {"how": "offer", "terms": "leave the ford"}
    assert rout == {"retreat": [], "routs": {"n1": [0, 2]}}
    bad = parse_turn("command n1\nsurrender maybe\nretreat rout n1 x", seat="north")
    assert [e.line for e in bad.errors] == [1, 2, 3]


def test_p_bat_2_a_command_line_carries_the_players_attack_choices():
    """P-BAT-2 options, P-BAT-5 damage, P-BAT-6 Bloodlust's allocation, P-BAT-3 Shieldbearers' restore, P-BAT-7
    Supports' pass: clauses after the command; a clause without its value is the line's error."""
    turn = parse_turn(
        "command n1 slay s1 with axes, hammers damage Burn allocate 3, 3\n"
        "command n2 hold advance restore 1 pass e1\n"
        "command n1 slay s1 with\n"
        "spell fireball on s1 pay F, F A E\n",
        seat="north",
    )
    assert [e.line for e in turn.errors] == [3]
    slay, hold, spell = (c.args for c in turn.commands)
    assert spell == {"spell": "fireball", "target": "s1", "pay": ["F", "F", "A", "E"]}
    assert slay == {
        "army": "n1",
        "command": "slay",
        "more": ["s1"],
        "options": ["axes", "hammers"],
        "damage": "burn",
        "allocation": [3, 3],
    }
    assert hold == {"army": "n2", "command": "hold", "more": ["advance"], "restore": 1, "pass": "e1"}


def test_the_scripted_battle_plays_seven_rounds_by_mail():
    games, gid, tok = _table()
    reply = _mail(games, gid, tok["north"], "declare battle at 2,0 against South with East")
    assert reply.accepted, reply.body
    assert "Declared battle s1m1-2_0 at 2,0." in reply.body
    bid = "s1m1-2_0"
    # Out of turn, a line is refused naming the rule, and nothing is recorded.
    _refused(games, gid, tok["south"], "deploy none", "P.1.3")
    for power, line in (
        ("north", "setup n1 goals Hold the ford reinforcements n3 reveal Spy in the ford"),
        ("east", "setup e1"),
        ("south", "setup s1, s2"),
    ):
        reply = _mail(games, gid, tok[power], line)
        assert reply.accepted, reply.body
    seen_turn = False
    for _ in range(400):
        view = [b for b in games.view(gid, "gm")["battles"] if b["battle_id"] == bid][0]
        if view["step"] == "ended":
            break
        p = view["pending"][0]
        reply = _mail(games, gid, tok[p], _line(view, p))
        assert reply.accepted, reply.body
        seen_turn = seen_turn or "'s turn)" in reply.body
    else:
        raise AssertionError("the battle did not end")
    assert view["round"] == 7 and view["result"]["reason"] in ("7 rounds fought", "only one side has active armies")
    assert seen_turn
    events = games.visible_events(gid, "gm", limit=100_000)
    opened = [e["data"]["window_id"] for e in events if e["type"] == "WindowOpened" and e["data"]["kind"] == "battle"]
    for r in range(1, 8):
        for step in STEPS:
            assert any(w.startswith(f"battle-{bid}-r{r}-{step}") for w in opened), (r, step)
    given = [e["data"] for e in events if e["type"] == "BattleCommandGiven"]
    assert any(c["command"] == "slay" and c["target"] == "s1" for c in given)
    assert any(e["type"] == "BattleSpellCast" for e in events)
    assert any(e["type"] == "BattleDeployed" and e["data"]["armies"] == ["s3"] for e in events)
    # South never sees the spy north revealed to the GM (P.4).
    assert "spy" not in str(games.visible_events(gid, "south", limit=100_000)).lower()
