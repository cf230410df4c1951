"""The map's and the catalogue's commands by mail: a power aims its action at a town or feature, spends and
shifts influence, pays a stronghold's upkeep and takes a class action; the GM records claims and shows hidden
features. Each line runs the same handler as the API's; each refusal names its rule and records nothing."""

from __future__ import annotations

import re
from pathlib import Path

from application.service import Caller, Games
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import world
from domain.powers.mail import parse_turn
from tests.domain.helpers import step_of
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power
from tests.mail.test_feature_lines import _mail, _refused

TOWNS = [
    {"id": "bree", "name": "Bree", "hex": "0,0", "population": 3},
    {"id": "tharbad", "hex": "2,0", "population": 2},
]


def _table(steps: int) -> tuple[Games, str, dict[str, tuple[str, str]]]:
    """Gondor (a city), the Rangers (a conspiracy with 4 influence at Bree's hex) and Saruman (a wizard with the
    stronghold Orthanc and a hidden dungeon nearby), ``steps`` calendar steps on from setup."""
    games = Games()
    gid, gm_token, _ = games.create_game("The map by mail", "GM")
    seats = {
        "gm": ("gm", gm_token),
        "gondor": add_power(games, gid, "gm", "Gondor", "city", "sovereign")[:2],
        "rangers": add_power(games, gid, "gm", "Rangers", "conspiracy", "circle")[:2],
        "saruman": add_power(games, gid, "gm", "Saruman", "champion", "wizard")[:2],
    }
    features = [
        {"id": "orthanc", "kind": "stronghold", "name": "Orthanc", "hex": "3,0", "controller": seats["saruman"][0]},
        {"id": "barrow", "kind": "dungeon", "name": "Barrow-downs", "hex": "1,1", "floors": [{"difficulty": 2}]},
    ]
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=TOWNS, features=features))
    games.send(gid, "gm", pc.SetInfluence(seats["rangers"][0], "0,0", 4))
    for _ in range(steps):
        games.send(gid, "gm", pc.Advance())
    return games, gid, seats


def _influence(games: Games, gid: str, pid: str) -> dict[str, int]:
    return {h: n for h, n in games.view(gid, pid)["me"]["influence"].items() if n}


def aimed(games: Games, gid: str, action_id: str) -> dict:
    """The aim the last ActionAimed event recorded for the action."""
    return [e.aim for e in games.iter_events(gid) if type(e).__name__ == "ActionAimed" and e.action_id == action_id][-1]


def test_influence_is_shifted_by_mail_during_tidings():
    games, gid, seats = _table(steps=1)
    pid, token = seats["rangers"]
    assert step_of(games.get_game(gid)) == "tidings"
    _refused(games, gid, token, "influence shift 0,0 to 2,0", "P-INFL-3")  # not a neighbour
    reply = _mail(games, gid, token, "influence shift 0,0 to 1,0, 0,0 to -1,0")
    assert reply.accepted, reply.body
    assert "Shifted influence 0,0 to 1,0, 0,0 to -1,0; influence now: 1 at -1,0, 2 at 0,0, 1 at 1,0." in reply.body
    assert _influence(games, gid, pid) == {"0,0": 2, "1,0": 1, "-1,0": 1}
    _refused(games, gid, token, "influence shift 1,0 to 2,0", "P-INFL-3")  # 1 to 0 is no gradient of two
    _refused(games, gid, token, "influence shift 0,0 to Bree", "MAIL-1")


def test_a_strongholds_maintenance_is_paid_by_mail():
    games, gid, seats = _table(steps=1)
    pid, token = seats["saruman"]
    _refused(games, gid, token, "maintain Orthanc", "P-FEAT-3")  # an empty wallet cannot pay
    games.run(Caller.of("gm"), gid, dev.AdjustResources(pid, {"coin": 5}, "tribute"))
    reply = _mail(games, gid, token, "maintain Orthanc")
    assert reply.accepted and "Paid the maintenance of orthanc." in reply.body, reply.body
    assert games.view(gid, pid)["development"]["mine"]["wallet"]["coin"] == 3  # 2 coin, no modules
    _refused(games, gid, seats["gondor"][1], "maintain Orthanc", None)  # not Gondor's: no such stronghold


def test_an_action_is_aimed_at_a_town_and_influence_spent_on_it_by_mail():
    games, gid, seats = _table(steps=2)
    pid, token = seats["rangers"]
    body = (
        "action: Whispers in the Prancing Pony\n  location: 0,0\n"
        "aim #1 infiltrate at Bree\ninfluence spend 2 at 0,0 on #1"
    )
    reply = _mail(games, gid, token, body)
    assert reply.accepted, reply.body
    assert "to infiltrate at bree: difficulty 0." in reply.body
    assert "influence now: 2 at 0,0." in reply.body
    assert _influence(games, gid, pid) == {"0,0": 2}
    action = games.get_game(gid).actions_of(pid)[0]
    assert aimed(games, gid, action.id)["town_id"] == "bree"
    _refused(games, gid, token, f"influence spend 3 at 0,0 on {action.id}", "P-INFL-2")  # 2 left
    gondor, gondor_token = seats["gondor"]
    body = "action: Walk in\n  slot: public\n  location: 0,0\naim #1 infiltrate at Bree"
    _refused(games, gid, gondor_token, body, "P-INFL-6", line=4)  # only conspiracies infiltrate


def test_a_class_action_is_taken_by_mail_with_its_inputs():
    games, gid, seats = _table(steps=2)
    pid, token = seats["gondor"]
    games.run(Caller.of("gm"), gid, world.SetClaim("bree", pid, "annex"))
    body = "class: annex\n  slot: public\n  location: 2,0\n  with: towns_claimed 1, town tharbad\n  targets: Rangers"
    reply = _mail(games, gid, token, body)
    assert reply.accepted, reply.body
    assert "Class action annex: difficulty 1." in reply.body
    (action,) = games.get_game(gid).actions_of(pid)
    assert action.targets == [seats["rangers"][0]] and action.slot == "public"
    _refused(games, gid, seats["rangers"][1], "class: annex\n  with: towns_claimed 0", "P.2.12")  # a city's
    assert parse_turn("class: recruit mercenaries\n  with: size 2, mercenary_armies 1").commands[0].args == {
        "kind": "recruit_mercenaries",
        "params": {"size": 2, "mercenary_armies": 1},
    }


def test_the_gm_records_claims_and_shows_a_hidden_feature_by_mail():
    games, gid, seats = _table(steps=0)
    gm = seats["gm"][1]
    gondor, rangers = seats["gondor"][0], seats["rangers"][0]
    reply = _mail(games, gid, gm, "claim Bree for Gondor by annex\nreveal Barrow-downs to Rangers")
    assert reply.accepted, reply.body
    assert "Gondor claims bree (annex)." in reply.body and "Showed barrow to Rangers." in reply.body
    bree = next(t for t in games.view(gid, gondor)["map"]["towns"] if t["id"] == "bree")
    assert bree["claims"] == {"city": gondor}
    assert "barrow" in {f["id"] for f in games.view(gid, rangers)["map"]["features"]}
    assert "barrow" not in {f["id"] for f in games.view(gid, gondor)["map"]["features"]}
    _refused(games, gid, gm, "claim Bree for Gondor by commandeer", "P-TOWN-1")  # already its city claimant
    reply = _mail(games, gid, gm, "unclaim Bree from Gondor by conquest")
    assert reply.accepted and "Gondor no longer claims bree (conquest)." in reply.body, reply.body
    _refused(games, gid, seats["gondor"][1], "claim Tharbad for Gondor", None)  # the GM's line


def test_an_action_is_aimed_at_a_feature_by_mail_once_the_power_may_see_it():
    games, gid, seats = _table(steps=2)
    pid, token = seats["saruman"]
    body = "action: Into the barrow\n  location: 1,1\naim #1 delve at Barrow-downs floor 1"
    refused = _refused(games, gid, token, body, None, line=3)  # hidden from Saruman (P.4): not even named
    assert "no feature 'barrow' on the map" in refused
    games.run(Caller.of("gm"), gid, world.RevealFeature("barrow", pid))
    reply = _mail(games, gid, token, body)
    assert reply.accepted and "to delve at barrow: difficulty 2." in reply.body, reply.body
    (action,) = games.get_game(gid).actions_of(pid)
    assert aimed(games, gid, action.id)["feature_id"] == "barrow"
    _refused(games, gid, token, "aim #1 clear at Barrow-downs", "P-ACT-4")  # aimed once


def test_every_example_line_of_the_readmes_playing_by_email_section_is_read():
    """The README's example is mail as written (its ``#`` comments aside): no line the grammar refuses. Every other
    line has its example on the help pages, which the help tests read through the grammar (tests/help)."""
    text = (Path(__file__).parents[2] / "README.md").read_text()
    section = text.split("## Playing by email", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```\n(.*?)```", section, re.DOTALL)
    assert blocks
    verbs = set()
    for block in blocks:  # one mail each: the first ends in a signature, which ends what is read
        turn = parse_turn("\n".join(re.sub(r"\s{2,}#.*$", "", line) for line in block.splitlines()))
        assert turn.errors == [], block
        verbs |= {c.verb for c in turn.commands}
    assert {"action", "roll", "convert", "discard", "accept", "resist", "waive", "extension", "ready"} <= verbs
    assert "/help/powers#mail" in section
