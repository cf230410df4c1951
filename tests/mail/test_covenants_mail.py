"""Issue 14: a season of the covenant game played by mail through the real intake (api/mail_intake.py),
each covenant's lines read by the covenant grammar (domain/covenants/mail.py); a refused line names its rule
and the whole mail records nothing."""

from __future__ import annotations

import itertools

import pytest

from api.mail_intake import MailIntake, MailReply
from api.service import Caller, new_token
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
