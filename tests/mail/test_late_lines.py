"""Issue 12's last commands by mail: a Mercurial conspiracy's swap (P-INFL-4), a Blighted Neighborhood's town
(P.2.12), and the GM's rulings of the map, magic, development and the catalogue (``subtle``, ``mechanisms``,
``generate``, ``perk``, ``conduit``, ``locate``, ``dread``, ``pertarget``, ``consequence``). Each line runs the
same handler as the API's; each refusal names its rule and records nothing."""

from __future__ import annotations

import pytest

from application.service import Caller, Games
from domain.errors import DomainError
from domain.powers import catalogue_commands as cc
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import magic, world
from domain.powers.mail import parse_turn
from tests.domain.helpers import features_seen, seen, sheet_of
from tests.domain.world_helpers import HEXES
from tests.helpers import add_power
from tests.mail.test_feature_lines import _mail, _refused

TOWNS = [{"id": "bree", "name": "Bree", "hex": "0,0", "population": 3, "wealth": 2}]
FEATURES = [{"id": "o1", "kind": "outpost", "name": "Weathertop", "hex": "1,1", "controller": None}]


def _table() -> tuple[Games, str, dict[str, tuple[str, str]]]:
    """Gondor (a city with Blighted Neighborhood) and the Rangers (a Circle, 4 influence at Bree's hex and
    1 at their outpost Weathertop), in Setup."""
    games = Games()
    gid, gm_token, _ = games.create_game("Late lines", "GM")
    seats = {
        "gm": ("gm", gm_token),
        "gondor": add_power(games, gid, "gm", "Gondor", "city", "sovereign", {"blighted_neighborhood": True})[:2],
        "rangers": add_power(games, gid, "gm", "Rangers", "conspiracy", "circle")[:2],
    }
    features = [{**FEATURES[0], "controller": seats["rangers"][0]}]
    games.run(Caller.of("gm"), gid, world.DeclareMap(hexes=HEXES, towns=TOWNS, features=features))
    games.send(gid, "gm", pc.SetInfluence(seats["rangers"][0], "0,0", 4))
    games.send(gid, "gm", pc.SetInfluence(seats["rangers"][0], "1,1", 1))
    return games, gid, seats


def test_the_new_lines_parse_to_their_fields():
    turn = parse_turn("swap 0,0 with 1,0\nblight Bree\n", seat="rangers")
    assert not turn.errors and [(c.verb, c.args) for c in turn.commands] == [
        ("swap", {"a": "0,0", "b": "1,0"}),
        ("blight", {"town": "Bree"}),
    ]
    turn = parse_turn("generate Rangers emissaries at 0,0 rank 2\nperk nerf Gondor Stout: F for too strong\n")
    assert not turn.errors
    assert turn.commands[0].args == {"power": "Rangers", "mechanism": "emissaries", "hex": "0,0", "ranks": [2]}
    assert turn.commands[1].args == {"how": "nerf", "power": "Gondor", "name": "Stout", "detail": "F"} | {
        "reason": "too strong"
    }
    turn = parse_turn("swap 0,0 1,0\ngenerate Rangers emissaries at 0,0 rank two\n")
    assert [e.line for e in turn.errors] == [1, 2]
    assert "usage: swap <hex> with <hex>" in turn.errors[0].message


def test_p_infl_4_a_mercurial_conspiracy_swaps_by_mail_during_tidings():
    """P-INFL-4, Mercurial [003:931]: "During Tidings, before resetting the influence in your outposts, swap your
    influence between any two hexes twice." The outpost had 1 before its reset to 3; Bree's hex had 4."""
    games, gid, seats = _table()
    pid, token = seats["rangers"]
    reply = _mail(games, gid, seats["gm"][1], "perk grant Rangers Mercurial")
    assert reply.accepted and "Granted Rangers the starting perk Mercurial." in reply.body, reply.body
    _refused(games, gid, token, "swap 0,0 with 1,1", "P-INFL-4")  # in Setup, not Tidings
    games.send(gid, "gm", pc.Advance())  # Tidings
    reply = _mail(games, gid, token, "swap 0,0 with 1,1")
    assert reply.accepted, reply.body
    assert "Swapped your influence between 0,0 and 1,1; influence now: 1 at 0,0, 4 at 1,1." in reply.body
    _refused(games, gid, token, "swap 0,0 with 9,9", "P-INFL-4")
    _refused(games, gid, seats["gondor"][1], "swap 0,0 with 1,1", "P-INFL-4")  # no Mercurial, no conspiracy
    _refused(games, gid, seats["gm"][1], "swap 0,0 with 1,1", None)  # the GM plays no seat by mail


def test_p_2_12_blighted_neighborhood_town_is_chosen_by_mail():
    """[003:959] "Blighted Neighborhood: Choose a town you claim." """
    games, gid, seats = _table()
    pid, token = seats["gondor"]
    body = _refused(games, gid, token, "blight Bree", "P.2.12")
    assert "Gondor claims no town 'bree'" in body
    assert _mail(games, gid, seats["gm"][1], "claim Bree for Gondor").accepted
    reply = _mail(games, gid, token, "blight Bree")
    assert reply.accepted and "Your Blighted Neighborhood blights bree." in reply.body, reply.body
    assert games.view(gid, pid)["catalogue"]["blighted_town"] == "bree"
    _refused(games, gid, seats["rangers"][1], "blight Bree", "P.2.12")


def test_p_feat_3_the_gm_rules_a_subtle_action_by_mail():
    """P-FEAT-3: anything inside a stronghold is immune to subtle targeting; the GM rules it overcome (GM-22)."""
    games, gid, seats = _table()
    gondor = seats["gondor"][0]
    keep = {"id": "keep", "kind": "stronghold", "name": "Minas Tirith", "hex": "2,0", "controller": gondor}
    games.run(Caller.of("gm"), gid, world.AmendMap(features=[keep]))
    games.send(gid, "gm", pc.Advance())  # Tidings: Gondor pays the keep's upkeep, so that it keeps working
    games.run(Caller.of("gm"), gid, dev.AdjustResources(gondor, {"coin": 3}, "purse"))
    assert _mail(games, gid, seats["gondor"][1], "maintain Minas Tirith").accepted
    games.send(gid, "gm", pc.Advance())  # month 1 Planning
    games.send(
        gid, seats["rangers"][0], pc.SubmitAction(seats["rangers"][0], title="Creep", slot="private", roll=False)
    )
    (act,) = games.get_game(gid).actions_of(seats["rangers"][0])
    gm = seats["gm"][1]
    _refused(games, gid, gm, f"subtle {act.id} in Weathertop", "P-FEAT-3")  # not a stronghold
    assert not features_seen(games.get_game(gid))["keep"]["inoperable"]
    _refused(games, gid, gm, f"subtle {act.id} in Minas Tirith", "P-FEAT-3")
    reply = _mail(games, gid, gm, f"subtle {act.id} in Minas Tirith overcome")
    assert reply.accepted and "by subtle means (its protection overcome)" in reply.body, reply.body
    (ruled,) = [e for e in games.iter_events(gid) if type(e).__name__ == "SubtleRuled" and e.action_id == act.id]
    assert (ruled.feature_id, ruled.overcome) == ("keep", True)


def test_the_gms_rulings_by_mail_run_the_apis_handlers():
    """P-INFL-5 (mechanisms, generation), P-DEV-4..6 (perks), P-MAG-1/5 (magic perks, conduits), P-ACT-6 (where a
    champion is), P.2.12 (Dread growth), P-RES-4 (per-target resistance), P-DICE-11 (a collaborator's
    consequence): each line does what the same command does through the API."""
    games, gid, seats = _table()
    gm, rangers, gondor = seats["gm"][1], seats["rangers"][0], seats["gondor"][0]
    _refused(games, gid, gm, "mechanisms Gondor emissaries", "P-INFL-5")  # a city generates no influence
    reply = _mail(games, gid, gm, "mechanisms Rangers emissaries, coercion\ngenerate Rangers emissaries at 2,0 rank 2")
    assert reply.accepted, reply.body
    assert "Rangers generates influence by emissaries, coercion." in reply.body
    assert sheet_of(games.get_game(gid), rangers)["influence"]["2,0"] == 2
    _refused(games, gid, gm, "generate Rangers emissaries at 2,0 rank 2", "P-INFL-5")  # once a season
    reply = _mail(
        games,
        gid,
        gm,
        "perk define Harbour Spies group influence repeatable\nperk magic Gondor vessel_heart\n"
        "perk grant Gondor Forced March",
    )
    assert reply.accepted, reply.body
    assert "Defined the perk Harbour Spies (influence)." in reply.body
    assert "Granted Gondor the magic perk vessel_heart." in reply.body
    _refused(games, gid, gm, "perk magic Gondor no_such_perk", "P-MAG-6")
    reply = _mail(games, gid, gm, "perk nerf Gondor Forced March for too strong")
    assert reply.accepted and "Nerfed Gondor's Forced March" in reply.body, reply.body
    games.run(Caller.of("gm"), gid, magic.SetConduit(rangers, "the circle", "0,0", conduit_id="circle"))
    reply = _mail(games, gid, gm, "conduit remove Rangers circle")
    assert reply.accepted and "Rangers no longer casts through circle." in reply.body, reply.body
    _refused(games, gid, gm, "conduit remove Rangers circle", "P-MAG-5")
    reply = _mail(games, gid, gm, "locate Gondor 1,0")
    assert reply.accepted and "Gondor's champion is at 1,0." in reply.body, reply.body
    _refused(games, gid, gm, "dread Gondor 3", "P.2.12")  # not a Dragon
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    games.send(gid, gondor, pc.SubmitAction(gondor, title="Decree", slot="public", roll=False, collaborators=[rangers]))
    (act,) = games.get_game(gid).actions_of(gondor)
    _refused(games, gid, gm, f"pertarget {act.id}", "P-RES-4")  # one target, not resistible: nothing to split
    _refused(games, gid, gm, f"consequence {act.id} for Rangers: a wound", "P-DICE-11")  # not joined yet
    _refused(games, gid, seats["rangers"][1], f"pertarget {act.id}", None)  # only the GM rules


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("mechanisms Gondor emissaries", lambda ids: world.SetMechanisms(ids["gondor"], ["emissaries"])),
        ("locate Nobody 1,0", None),
        ("perk magic Gondor no_such_perk", lambda ids: magic.GrantMagicPerk(ids["gondor"], "no_such_perk")),
        ("dread Gondor 3", lambda ids: cc.DreadGrowth(ids["gondor"], 3)),
    ],
)
def test_a_refused_mail_line_gives_the_apis_error(line, command):
    """Every channel gives the same error: the reply's line ends with the API's message and rule."""
    games, gid, seats = _table()
    ids = {k: v[0] for k, v in seats.items()}
    reply = _mail(games, gid, seats["gm"][1], line)
    assert not reply.accepted
    (err,) = [x for x in reply.body.splitlines() if x.startswith("line ")]
    if command is None:
        assert "no power 'Nobody'" in err
        return
    with pytest.raises(DomainError) as api:
        games.run(Caller.of("gm"), gid, command(ids))
    assert api.value.message in err and err.endswith(f"({api.value.rule})"), (err, api.value.message)


def test_p_amb_42_the_gm_defines_freeze_river_and_sets_a_conduit_by_mail():
    """P-AMB-42: Freeze River ([003:507]) has the cost the GM gives it; teaching it first is refused naming
    P-AMB-42. P-MAG-5: a conduit is where a power casts through."""
    games, gid, seats = _table()
    gm, rangers = seats["gm"][1], seats["rangers"][0]
    _refused(games, gid, gm, "teach freeze-river to Rangers", "P-AMB-42")
    _refused(games, gid, gm, "grimoire freeze-river slow 1XX range 3: Freeze River", "P-MAG-1")  # X is no element
    reply = _mail(
        games,
        gid,
        gm,
        "grimoire freeze-river slow 1WW range 3: Freeze River\nteach freeze-river to Rangers\n"
        "conduit set Rangers circle at 0,0 kind person tower: the stone circle",
    )
    assert reply.accepted, reply.body
    assert "Defined the slow spell Freeze River (freeze-river), cost 1WW." in reply.body
    assert "Rangers casts through the stone circle (circle) at 0,0." in reply.body
    state = games.get_game(gid).state
    assert state.magic["spells"]["freeze-river"]["range"] == 3
    assert state.magic["powers"][rangers]["conduits"]["circle"]["tower"] is True


def test_p_act_4_the_gm_amends_the_map_and_offers_an_ambition_by_mail():
    """P-ACT-4: the map is data the GM declares (JSON on one line); P-AMBI-1: an ambition's tasks, ``!`` central,
    ``?`` mysterious (GM-11)."""
    games, gid, seats = _table()
    gm, gondor = seats["gm"][1], seats["gondor"][0]
    _refused(games, gid, gm, 'map amend {"towns": [{"id": "x", "hex": "9,9"}]}', "P-ACT-4")  # off the map
    _refused(games, gid, gm, 'map amend {"rivers": []}', "P-ACT-4")
    _refused(games, gid, gm, "map amend {not json", "MAIL-1")
    _refused(games, gid, gm, "record influence Rangers 21 at 0,0", "P-INFL-1")
    reply = _mail(games, gid, gm, "record influence Rangers 3 at 2,0")
    assert reply.accepted and "Rangers has 3 influence at 2,0." in reply.body, reply.body
    assert sheet_of(games.get_game(gid), seats["rangers"][0])["influence"]["2,0"] == 3
    reply = _mail(games, gid, gm, 'map amend {"hexes": [{"hex": "5,0", "terrain": "coast", "road": true}]}')
    assert reply.accepted and "Amended the map: 1 hexes, 0 towns, 0 features." in reply.body, reply.body
    hexes = {h["hex"]: h for h in seen(games.get_game(gid))["map"]["hexes"]}
    assert hexes["5,0"]["terrain"] == "coast"
    _refused(games, gid, gm, "offer Gondor minor 2 fame, 1 central: Crown; !Win", "P-AMBI-1")  # minor: 5 to 10
    reply = _mail(games, gid, gm, "offer Gondor minor 5 fame, 1 central, type glory: Crown; !Win the war; ?Hidden")
    assert reply.accepted and "Offered Gondor the minor ambition Crown" in reply.body, reply.body
    (amb,) = games.view(gid, "gm")["development"]["sheets"][gondor]["ambitions"]
    assert [(t["central"], t["mysterious"]) for t in amb["tasks"]] == [(True, False), (False, True)]
