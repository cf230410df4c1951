"""Issue 14: a season of the covenant game played by mail through the real intake (api/mail_intake.py),
each covenant's lines read by the covenant grammar (domain/covenants/mail.py); a refused line names its rule
and the whole mail records nothing."""

from __future__ import annotations

import itertools

import pytest

from api.mail_intake import MailIntake, MailReply
from application.service import Caller, new_token
from domain.covenants.mail import parse_turn
from domain.platform.commands import ReissueLink
from tests.covenants.play import Dice, Table, fixed_three, generate_and_keep, move_all, pass_main

_ids = itertools.count()
STONE = "Incantation of the Stone Warrior"


def _tokens(t: Table) -> dict[str, str]:
    out = {}
    for seat in t.seats:
        token, digest = new_token()
        t.games.run(Caller.of("gm"), t.game_id, ReissueLink(seat, digest))
        out[seat] = token
    return out


def _mail(t: Table, token: str, body: str) -> MailReply:
    intake = MailIntake(t.games)
    return intake.receive(intake.address_for(t.game_id, token), f"<cov-{next(_ids)}@x>", body, subject="turn")


def _turn_by_mail(t: Table, tokens: dict[str, str], body: str) -> str:
    seat = t.turn()[0]
    reply = _mail(t, tokens[seat], body)
    assert reply.accepted, reply.body
    return seat


def _grogs(t: Table, seat: str) -> str:
    return next(c["id"] for c in t.view("gm")["covenants"][seat]["cards"] if c["kind"] == "grogs")


def test_a_season_is_played_by_mail_and_a_refused_line_names_its_rule_and_records_nothing():
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Mu", "Co", "Vi", "Re", "Au"]})
    tokens = _tokens(t)
    assert t.view("gm")["game"]["season"] == "spring"
    for square in (2, 1, 3):  # bob on a square whose generator rolls 2d6: Livestock on a 7
        _turn_by_mail(t, tokens, f"Hi all,\nmove {square}\n\nThanks,\nA covenant")
    assert t.phase() == "create"
    bob_before = len(t.view("bob")["covenants"]["bob"]["cards"])
    while t.phase() == "create":
        if t.turn()[0] == "bob":
            d.push([7])
            _turn_by_mail(t, tokens, "generate\nkeep")
        else:
            _turn_by_mail(t, tokens, "pass")
    assert len(t.view("bob")["covenants"]["bob"]["cards"]) == bob_before + 1  # kept the card it generated
    assert t.phase() == "main"
    while t.turn()[0] != "ann":
        _turn_by_mail(t, tokens, "pass")
    grogs = _grogs(t, "bob")

    before = t.games.get_game(t.game_id).version
    vis = t.view("ann")["covenants"]["ann"]["vis"]
    refused = _mail(t, tokens["ann"], f"Hello,\ncast {STONE} on {grogs} vis {vis + 1}")
    assert not refused.accepted and f"line 2: you hold {vis} vis (A-SPELL-1)" in refused.body, refused.body
    assert t.games.get_game(t.game_id).version == before  # nothing is recorded
    assert t.view("cy")["effects"] == [] and t.turn()[0] == "ann"

    reply = _mail(t, tokens["ann"], f"cast {STONE} on {grogs} with {t.mage('ann')} vis 3")
    assert reply.accepted, reply.body
    assert t.view("cy")["effects"][0]["spell"] == STONE
    while t.phase() in ("main", "events"):
        _turn_by_mail(t, tokens, "pass")
    _turn_by_mail(t, tokens, "move 10")
    assert t.phase() == "reckoning"
    while t.phase() == "reckoning":
        _turn_by_mail(t, tokens, "support")
    assert t.view("gm")["game"]["season"] == "summer" and t.phase() == "move"


def test_a_mail_from_the_wrong_seat_or_out_of_turn_is_refused_naming_the_rule():
    t = fixed_three(Dice())
    tokens = _tokens(t)
    first = t.turn()[0]
    other = next(s for s in t.seats if s != first)
    before = t.games.get_game(t.game_id).version
    reply = _mail(t, tokens[other], "move 1")
    assert not reply.accepted and "line 1:" in reply.body
    assert t.games.get_game(t.game_id).version == before


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("fly 3", "unknown command"),
        ("move", "move <square>"),
        ("move three", "whole number"),
        ("cast Aegis", "a spell needs a target"),
        ("cast Aegis on bob vis x", "whole number"),
        ("bid lots", "whole number"),
        ("convert 2 gold vis", "convert <amount>"),
        ("support feed x", "support [starve"),
    ],
)
def test_a_line_that_does_not_fit_the_grammar_says_how_it_is_written(line, message):
    turn = parse_turn(line, None, "ann")
    assert not turn.commands and len(turn.errors) == 1
    assert message in turn.errors[0].message and turn.errors[0].rule == "MAIL-1"


def test_the_grammar_reads_each_lines_fields():
    turn = parse_turn(
        "keep c1 on c2 art Cr\ncast Aegis of the Hearth on bob with m1 vis 2\nbid 3 in cert-1\nsupport starve c4, c5\n"
        "convert 2 gold to vis\naction Build a tower: west wing\ngenerate mouse -2",
        None,
        "ann",
    )
    assert not turn.errors
    got = [(c.verb, c.args) for c in turn.commands]
    assert got == [
        ("keep", {"words": ["c1"], "on": "c2", "art": "Cr"}),
        ("cast", {"words": ["Aegis of the Hearth"], "on": "bob", "with": "m1", "vis": 2}),
        ("bid", {"words": ["3"], "in": "cert-1", "n": 3}),
        ("support", {"starve": ["c4", "c5"]}),
        ("convert", {"amount": 2, "give": "gold", "get": "vis"}),
        ("action", {"action": "Build a tower", "text": "west wing"}),
        ("generate", {"words": [], "mouse": -2}),
    ]


def test_a_certamen_is_fought_by_mail_and_a_sealed_bid_is_hidden_from_the_other_side():
    d = Dice()
    t = fixed_three(d)  # explicit dice: Ann starts, and her Personnel roll makes a second mage, Sempiris
    tokens = _tokens(t)
    move_all(t, [3, 1, 5])
    generate_and_keep(t, d, {"ann": 15})
    mages = [c["id"] for c in t.view("gm")["covenants"]["ann"]["cards"] if c["kind"] == "mage"]
    assert len(mages) == 2 and t.turn()[0] == "ann"
    refused = _mail(t, tokens["ann"], f"challenge {t.mage('bob')}")  # two mages: the line must name hers
    assert not refused.accepted and "(MAIL-1)" in refused.body, refused.body
    reply = _mail(t, tokens["ann"], f"challenge {t.mage('bob')} with {t.mage('ann')}")
    assert reply.accepted and "issued" in reply.body, reply.body
    pass_main(t)
    assert t.phase() == "certamen"
    assert _mail(t, tokens["ann"], "art Cr\nbid 2").accepted  # the one challenge ann is in
    before = t.games.get_game(t.game_id).version
    refused = _mail(t, tokens["cy"], "bid 1")  # cy is in no challenge: the line cannot mean one
    assert not refused.accepted and "(MAIL-1)" in refused.body and t.games.get_game(t.game_id).version == before
    challenge = t.view("gm")["challenges"][0]
    assert challenge["bids"]["ann"]["vis"] == 2
    theirs = t.view("bob")["challenges"][0]
    assert theirs["sealed"] == ["ann"] and "bids" not in theirs and "my_bid" not in theirs
    assert _mail(t, tokens["bob"], "art Vi\nbid 1").accepted
    reply = _mail(t, tokens["ann"], "resolve")  # the challenger resolves, in the one challenge it is in
    assert reply.accepted, reply.body
    assert t.view("gm")["challenges"] == []


@pytest.mark.parametrize(
    ("line", "verb", "args"),
    [
        ("pay tax", "pay", {}),
        ("hedge give c9", "hedge", {"give_up": "c9"}),
        ("hedge curse", "hedge", {"give_up": None}),
        ("bandits pay", "bandits", {"fight": False}),
        ("bandits fight c3 2, c4 2", "bandits", {"fight": True, "allocation": {"c3": 2, "c4": 2}}),
        ("mouse +2", "mouse", {"by": 2, "words": []}),
        ("mouse -1 c7", "mouse", {"by": -1, "words": ["c7"]}),
        ("service c4", "service", {"grogs": "c4"}),
        ("service pay", "service", {"pay": True}),
        ("service tribute", "service", {"pay": False}),
        ("chaos roll", "chaos", {"do": "roll"}),
        ("chaos rival bob", "chaos", {"do": "rival", "rival": "bob"}),
        ("chaos pay", "chaos", {"do": "avert", "pay": True}),
        ("chaos fight", "chaos", {"do": "avert"}),
        ("allocate c3 2, c4 1", "allocate", {"allocation": {"c3": 2, "c4": 1}}),
        ("allocate pay", "allocate", {"allocation": {}, "pay_off": True}),
        ("No counter", "no", {}),
        ("heal c4", "heal", {"words": ["c4"]}),
        ("plague c4, c5", "plague", {"cards": ["c4", "c5"]}),
        ("tribunal", "tribunal", {"words": []}),
        ("investigate", "investigate", {"words": []}),
        ("heal c4 with c9", "heal", {"words": ["c4"], "with": "c9"}),
        ("rule 0 approve: for 1 gold", "rule", {"index": 0, "approved": True, "note": "for 1 gold"}),
        ("offer bob give 3 gold, 1 vis get 2 vis", "offer", {"to": "bob", "give": {"gold": 3, "vis": 1},
                                                            "get": {"vis": 2}}),
        ("cast Sphere of Flame on c5 vis 2 Mother may I", "cast",
         {"words": ["Sphere of Flame"], "on": "c5", "vis": 2, "mother_may_i": True}),
    ],
)  # fmt: skip
def test_the_grammar_reads_the_lines_of_every_covenant_command(line, verb, args):
    turn = parse_turn(line, None, "ann")
    assert not turn.errors, turn.errors
    assert [(c.verb, c.args) for c in turn.commands] == [(verb, args)]


@pytest.mark.parametrize(
    "line",
    ["pay gold", "hedge give", "bandits run", "bandits fight c3", "mouse lots", "service c4 c5", "chaos dance",
     "allocate c3", "no way", "plague", "rule x approve", "rule 0 maybe", "offer bob give 3 coins get 1 vis",
     "offer bob 3 gold"],
)  # fmt: skip
def test_a_new_line_that_does_not_fit_says_how_it_is_written(line):
    turn = parse_turn(line, None, "ann")
    assert not turn.commands and len(turn.errors) == 1 and turn.errors[0].rule == "MAIL-1", turn.errors


def _by_mail(t, tokens, seat: str, body: str) -> None:
    reply = _mail(t, tokens[seat], body)
    assert reply.accepted, reply.body


def test_the_season_of_chaos_its_battle_and_no_counter_are_played_by_mail():
    """A-EX-7 and A-EX-5 by mail: the roll and the rival in one mail, the answer, the damage allocated; then a battle
    deferred after a Might boost waits for each seat's "no counter" (H-15)."""
    from tests.domain.test_covenants_battles_played import boosted_battle, drawn, grogs

    d = Dice()
    t = drawn(d, 6)
    tokens = _tokens(t)
    d.push([4])
    _by_mail(t, tokens, "bob", "chaos roll\nchaos rival ann")
    _by_mail(t, tokens, "ann", "chaos fight")
    d.push([1], [1])
    _by_mail(t, tokens, "cy", "chaos roll")
    _by_mail(t, tokens, "ann", "chaos roll")
    pass_main(t)
    _by_mail(t, tokens, "bob", f"allocate {grogs(t, 'bob')['id']} 2")
    _by_mail(t, tokens, "ann", f"allocate {grogs(t, 'ann')['id']} 2")
    v = t.view("cy")["covenants"]
    assert v["ann"]["marked"] and v["bob"]["marked"]

    d = Dice()
    t, _ = boosted_battle(d)
    tokens = _tokens(t)
    for seat in ("cy", "ann", "bob"):
        _by_mail(t, tokens, seat, "no counter")
    assert t.view("cy")["battle"]["dealt"] == {"bob": 2, "ann": 3}


def test_the_call_to_service_the_tax_the_hedge_mage_and_the_bandits_are_answered_by_mail():
    """A-RECK-4 (Call to Service), A-EVT-4 (Tax and Tithe, Hedge Mage Attack, Wave of Bandits) by mail."""
    from tests.domain.test_conformance_covenants_played import (
        bandits_at_the_end_of_main,
        vis_source_under_a_hedge_mage,
        winter_of_year_two_with_tax,
    )
    from tests.domain.test_covenants_battles_played import grogs
    from tests.domain.test_covenants_service_played import called_to_service

    d = Dice()
    t = called_to_service(d)
    tokens = _tokens(t)
    _by_mail(t, tokens, "bob", f"service {grogs(t, 'bob')['id']}")
    _by_mail(t, tokens, "cy", "service tribute")
    d.push([2])
    _by_mail(t, tokens, "ann", "service")
    assert t.view("bob")["service"]["answers"] == {"bob": "grogs", "cy": "tribute", "ann": "excused"}

    d = Dice()
    t = winter_of_year_two_with_tax(d, {"yearly_consumes": False})
    tokens = _tokens(t)
    _by_mail(t, tokens, "ann", "pay tax")
    assert t.view("ann")["covenants"]["ann"]["tax_owed"] == 0

    d = Dice()
    t, source = vis_source_under_a_hedge_mage(d)
    tokens = _tokens(t)
    _by_mail(t, tokens, "ann", f"hedge give {source}")
    assert source not in {c["id"] for c in t.view("ann")["covenants"]["ann"]["cards"]}

    d = Dice()
    t, grogs_a, grogs_b, _ = bandits_at_the_end_of_main(d)
    tokens = _tokens(t)
    _by_mail(t, tokens, "bob", "bandits pay")
    _by_mail(t, tokens, "cy", "bandits pay")
    _by_mail(t, tokens, "ann", f"bandits fight {grogs_a} 2, {grogs_b} 2")
    cards = {c["id"]: c for c in t.view("gm")["covenants"]["ann"]["cards"]}
    assert cards[grogs_a]["damage"] == 2 and cards[grogs_b]["damage"] == 2


def test_mother_may_i_a_custom_action_its_ruling_and_a_trade_are_sent_by_mail():
    """H-12 (the Hedge curse 2's phrase on the cast line), H-8 (a custom action and the host's ruling), H-10 (an
    offer and its acceptance), by mail."""
    from tests.domain.test_covenants_curses_played import card, main_of_summer

    d = Dice()
    t = main_of_summer(d, 2)
    tokens = _tokens(t)
    grogs = card(t, "bob", "Grogs")["id"]
    while t.turn()[0] != "ann":
        _turn_by_mail(t, tokens, "pass")
    _by_mail(t, tokens, "ann", f"cast Arc of Lightning on {grogs} with {t.mage('ann')} vis 1 mother may I")
    assert card(t, "bob", "Grogs")["damage"] == 1

    t = fixed_three(Dice())
    tokens = _tokens(t)
    move_all(t, [1, 2, 3])
    while t.phase() == "create":
        _turn_by_mail(t, tokens, "pass")
    _by_mail(t, tokens, "ann", "action custom: we hire a cartographer")
    _by_mail(t, tokens, "ann", "rule 0 approve: for 1 gold")
    assert t.view("cy")["actions"][0]["ruling"] == {"approved": True, "note": "for 1 gold"}
    while t.turn()[0] != "ann":
        _turn_by_mail(t, tokens, "pass")
    _by_mail(t, tokens, "ann", "offer bob give 3 gold get 2 vis")
    (trade,) = t.view("bob")["trades"]
    _by_mail(t, tokens, "bob", f"accept {trade['id']}")
    v = t.view("cy")["covenants"]
    assert (v["ann"]["gold"], v["ann"]["vis"], v["bob"]["gold"], v["bob"]["vis"]) == (1, 6, 7, 2)


def test_the_mouse_is_used_by_mail():
    """A-GEN-1 step 4 by mail: the covenant sees its roll, then ``mouse +2`` changes the card it just made."""
    from domain.covenants.commands import Generate, Keep, Move, Pass
    from tests.covenants.play import pass_create, reckon

    d = Dice()
    t = fixed_three(d)
    move_all(t, [5, 1, 2])
    d.push([5])  # Familiar: Mouse
    t.run("ann", Keep("ann", t.run("ann", Generate("ann"))["card_id"]))
    pass_create(t)
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    move_all(t, [4, 1, 2])
    while t.turn()[0] != "ann":
        t.run(t.turn()[0], Pass(t.turn()[0]))
    tokens = _tokens(t)
    d.push([3])  # the Leather Shield, then +2: the Girdle
    _by_mail(t, tokens, "ann", "generate\nmouse +2\nkeep")
    names = [c["name"] for c in t.view("ann")["covenants"]["ann"]["cards"]]
    assert "Enchanted Item: Girdle of Magical Finesse" in names and "Mundane Item (Shield): Leather Shield" not in names


def test_a_herbalist_heals_by_mail():
    """A-DMG-1 by mail: ``heal <being>`` with the covenant's one healer."""
    from domain.covenants.commands import Cast, Generate, Keep
    from tests.covenants.play import pass_create, pass_until

    d = Dice()
    t = fixed_three(d, arts={"bob": ["Cr", "Ig", "Au", "Pe", "Vi"]})
    move_all(t, [3, 1, 2])
    d.push([14])  # Specialist: Herbalist
    t.run("ann", Keep("ann", t.run("ann", Generate("ann"))["card_id"]))
    pass_create(t)
    tokens = _tokens(t)
    _turn_by_mail(t, tokens, "pass")
    grogs = _grogs(t, "ann")
    t.run("bob", Cast("bob", t.mage("bob"), "Sphere of Flame", grogs, 1))
    pass_until(t, "ann")
    _by_mail(t, tokens, "ann", f"heal {grogs}")
    healed = next(c for c in t.view("ann")["covenants"]["ann"]["cards"] if c["id"] == grogs)
    assert healed["damage"] == 0 and healed["active"]
