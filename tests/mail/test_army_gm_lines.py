"""The GM's army commands by mail (issue 12's channels): ``armytype`` (DefineArmyType), ``place`` (PlaceArmy),
``detect`` (DetectArmy, P.4), ``supportbonus`` (SetSupportBonus, P-SUP-2), ``experience`` (GrantExperience,
P-ASSET-14), ``disperse`` (RecordDispersal, P-ARMY-7) and ``desert`` (DesertArmy, P-SUP-3). Each line runs the same
handler as the API's; each refusal names its rule and records nothing."""

from __future__ import annotations

import json

import pytest

from application.service import Caller, Games
from domain.errors import DomainError
from domain.powers import armies, world
from domain.powers import commands as pc
from domain.powers.mail import parse_turn
from tests.domain.helpers import army_of, asset_of, seen
from tests.domain.test_conformance_catalogue_world import FINGER_BLOCK
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power
from tests.mail.test_feature_lines import _mail, _refused


def _table() -> tuple[Games, str, dict[str, tuple[str, str]]]:
    """Gondor (a city) and the Rangers (a Circle) on a declared map, in Setup."""
    games = Games()
    gid, gm_token, _ = games.create_game("Army lines", "GM")
    seats = {
        "gm": ("gm", gm_token),
        "gondor": add_power(games, gid, "gm", "Gondor", "city", "sovereign")[:2],
        "rangers": add_power(games, gid, "gm", "Rangers", "conspiracy", "circle")[:2],
    }
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=[], features=[]))
    return games, gid, seats


def test_the_army_lines_parse_to_their_fields():
    turn = parse_turn(
        "place host at 2,0 units 3 for Gondor type fingers loyal hidden named The Host\n"
        "detect The Host by Rangers\nsupportbonus Gondor 2\nexperience host rank 2\ndisperse host\n"
        "desert host to Rangers for unpaid since spring\n"
        f"armytype fingers {json.dumps(FINGER_BLOCK)}\n"
    )
    assert not turn.errors, turn.errors
    args = [c.args for c in turn.commands]
    assert args[0] == {
        "army": "host",
        "hex": "2,0",
        "units": 3,
        "name": "The Host",
        "for": "Gondor",
        "type": "fingers",
        "garrison": None,
        "loyal": True,
        "personal": False,
        "hidden": True,
        "block": None,
    }
    assert args[1:6] == [
        {"army": "The Host", "power": "Rangers"},
        {"power": "Gondor", "bonus": 2},
        {"army": "host", "rank": 2},
        {"army": "host"},
        {"army": "host", "to": "Rangers", "reason": "unpaid since spring"},
    ]
    assert args[6] == {"type_id": "fingers", "block": FINGER_BLOCK}
    turn = parse_turn(f"place wild at 3,0 units 4 block {json.dumps(FINGER_BLOCK)}\n")
    assert not turn.errors and turn.commands[0].args["block"] == FINGER_BLOCK
    assert turn.commands[0].args["name"] == "wild"
    turn = parse_turn("place host at 2,0 units three\narmytype fingers {rank\nexperience host rank two\ndesert host\n")
    assert [e.line for e in turn.errors] == [1, 2, 3, 4]
    assert "usage: desert <army> [to <power>] for <reason>" in turn.errors[3].message


def test_p_4_the_gm_defines_a_type_places_a_hidden_army_and_shows_it_by_mail():
    """DefineArmyType and PlaceArmy by mail; P.4: a hidden army is seen by its controller and the GM only, until
    the GM records that another power detected it."""
    games, gid, seats = _table()
    gm, gondor, rangers = seats["gm"][1], seats["gondor"][0], seats["rangers"][0]
    reply = _mail(games, gid, gm, f"armytype fingers {json.dumps(FINGER_BLOCK)}")
    assert reply.accepted and "Defined the army type fingers." in reply.body, reply.body
    assert "fingers" in seen(games.get_game(gid))["armies"]["types"]
    reply = _mail(games, gid, gm, "place lurkers at 2,0 units 2 for Rangers type fingers hidden named Lurkers")
    assert reply.accepted, reply.body
    assert "Placed Lurkers (lurkers) at 2,0: 2 units, of Rangers, hidden." in reply.body
    army = army_of(games.get_game(gid), "lurkers")
    assert (army["controller"], len(army["units"]), army["hex"]) == (rangers, 2, "2,0")
    assert "Lurkers" not in json.dumps(games.view(gid, gondor))
    reply = _mail(games, gid, gm, "detect Lurkers by Gondor")
    assert reply.accepted and "Gondor sees Lurkers (lurkers) from now on." in reply.body, reply.body
    assert "Lurkers" in json.dumps(games.view(gid, gondor))
    _refused(games, gid, gm, "detect Lurkers by Gondor", "P.4")  # already seen
    _refused(games, gid, gm, "place lurkers2 at 9,9 units 2 type fingers", "P-ACT-4")  # off the map
    _refused(games, gid, seats["rangers"][1], "detect Lurkers by Gondor", None)  # only the GM


def test_p_sup_2_p_asset_14_p_army_7_p_sup_3_the_gms_army_rulings_by_mail():
    """P-SUP-2 (support bonus), P-ASSET-14 (an army's Experience; a rogue army's is the GM's), P-ARMY-7 (only a
    routed army disperses), P-SUP-3 (only an army owed a fee deserts): each line does what the API does."""
    games, gid, seats = _table()
    gm, gondor = seats["gm"][1], seats["gondor"][0]
    games.run(Caller.of("gm"), gid, armies.DefineArmyType("fingers", FINGER_BLOCK))
    games.run(Caller.of("gm"), gid, armies.PlaceArmy("host", "Host", "1,0", 3, controller=gondor, type_id="fingers"))
    games.run(Caller.of("gm"), gid, armies.PlaceArmy("rogue", "Rogue", "2,0", 2, type_id="fingers"))
    limit = games.view(gid, "gm")["armies"]["support"][gondor]["limit"]
    reply = _mail(games, gid, gm, "supportbonus Gondor 3\nexperience Host rank 2")
    assert reply.accepted, reply.body
    assert "Gondor's support limit bonus is 3." in reply.body
    assert "Host (host) gains an Experience of rank 2." in reply.body
    g = games.get_game(gid)
    assert games.view(gid, "gm")["armies"]["support"][gondor]["limit"] == limit + 3  # the bonus adds to the limit
    assert asset_of(g, "host.xp1")["rank"] == 2
    _refused(games, gid, gm, "experience Rogue rank 2", "P-ASSET-14")
    _refused(games, gid, gm, "disperse Host", "P-ARMY-7")
    _refused(games, gid, gm, "desert Host to Rangers for unpaid", "P-SUP-3")
    _refused(games, gid, gm, "supportbonus Gondor -1", "P-SUP-2")


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("supportbonus Gondor -1", lambda ids: armies.SetSupportBonus(ids["gondor"], -1)),
        ("experience host rank 11", lambda ids: armies.GrantExperience("host", 11)),
        ("disperse host", lambda ids: armies.RecordDispersal("host")),
        ("desert host for unpaid", lambda ids: armies.DesertArmy("host", "unpaid")),
        ("place a1 at 0,0 units 3 type nope", lambda ids: armies.PlaceArmy("a1", "a1", "0,0", 3, type_id="nope")),
        ('armytype odd {"rank": 2}', lambda ids: armies.DefineArmyType("odd", {"rank": 2})),
        ("detect host by Gondor", lambda ids: armies.DetectArmy("host", ids["gondor"])),
    ],
)
def test_a_refused_army_line_gives_the_apis_error(line, command):
    """Every channel gives the same error: the reply's line ends with the API's message and rule; nothing is
    recorded."""
    games, gid, seats = _table()
    ids = {k: v[0] for k, v in seats.items()}
    games.run(Caller.of("gm"), gid, armies.DefineArmyType("fingers", FINGER_BLOCK))
    games.run(
        Caller.of("gm"), gid, armies.PlaceArmy("host", "Host", "1,0", 3, controller=ids["gondor"], type_id="fingers")
    )
    before = games.get_game(gid).version
    reply = _mail(games, gid, seats["gm"][1], line)
    assert not reply.accepted and games.get_game(gid).version == before
    (err,) = [x for x in reply.body.splitlines() if x.startswith("line ")]
    with pytest.raises(DomainError) as api:
        games.run(Caller.of("gm"), gid, command(ids))
    assert api.value.message in err, (err, api.value.message)
    assert err.endswith(f"({api.value.rule})") if api.value.rule else err.endswith(api.value.message), err


def test_p_sup_3_an_unsupported_army_deserts_to_another_power_by_mail():
    """P-SUP-1/P-SUP-3: a power that left its units beyond the support limit unpaid at the end of Tidings may see
    an army desert, perhaps to another power (the GM's ruling, here by mail)."""
    games, gid, seats = _table()
    gm, gondor, rangers = seats["gm"][1], seats["gondor"][0], seats["rangers"][0]
    games.run(Caller.of("gm"), gid, armies.DefineArmyType("fingers", FINGER_BLOCK))
    games.run(Caller.of("gm"), gid, armies.PlaceArmy("host", "Host", "1,0", 6, controller=gondor, type_id="fingers"))
    _refused(games, gid, gm, "desert Host to Rangers for unsupported", "P-SUP-3")  # nothing owed yet
    games.send(gid, "gm", pc.Advance())  # Tidings
    games.send(gid, "gm", pc.Advance())  # its end: the support beyond the limit is unpaid
    reply = _mail(games, gid, gm, "desert Host to Rangers for unsupported")
    assert reply.accepted and "Host (host) deserted to Rangers: unsupported." in reply.body, reply.body
    assert army_of(games.get_game(gid), "host")["controller"] == rangers
