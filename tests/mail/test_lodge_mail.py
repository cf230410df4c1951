"""Issue 15: Lodge turns by mail, read by the Lodge's grammar (domain/lodge/mail.py) and run through the real
intake (api/mail_intake.py) and the same handlers as the API's; a refused line names its rule and nothing at
all is recorded."""

from __future__ import annotations

import itertools

from api.mail_intake import MailIntake, MailReply
from application.service import Caller, Games, new_token
from domain.lodge.ruleset import AddMage, AdvancePhase, BeginGame
from domain.platform.commands import ReissueLink

_ids = itertools.count()


def _table() -> tuple[Games, str, dict[str, str]]:
    """Ann (red), Bob (blue) and Cy (green) seated, in the Prepare phase of turn 1, with a mail token each."""
    games = Games()
    gid, _, _ = games.create_game("Lodge by mail", ruleset="lodge")
    gm = Caller.of("gm")
    games.run_many(
        gm,
        gid,
        [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), AddMage("cy", "Cy", "green"), BeginGame()],
    )
    tokens = {}
    for mage in ("ann", "bob", "cy"):
        token, token_hash = new_token()
        games.run(gm, gid, ReissueLink(mage, token_hash))
        tokens[mage] = token
    return games, gid, tokens


def _mail(games: Games, gid: str, token: str, body: str) -> MailReply:
    intake = MailIntake(games)
    return intake.receive(intake.address_for(gid, token), f"<lodge-{next(_ids)}@x>", body, subject="turn")


def _refused(games: Games, gid: str, token: str, body: str, rule: str, line: int) -> str:
    before = games.get_game(gid).version
    reply = _mail(games, gid, token, body)
    assert not reply.accepted, reply.body
    assert games.get_game(gid).version == before  # nothing at all is recorded
    errors = [x for x in reply.body.splitlines() if x.startswith("line ")]
    assert len(errors) == 1 and errors[0].startswith(f"line {line}:") and errors[0].endswith(f"({rule})"), reply.body
    return reply.body


def _to_actions(games: Games, gid: str) -> None:
    games.run(Caller.of("gm"), gid, AdvancePhase("prepare"))


def test_a_mage_prepares_casts_and_walks_by_mail():
    games, gid, tokens = _table()
    reply = _mail(
        games, gid, tokens["ann"], "Hi,\nprepare unravel in quick\nprepare firebolt in I\npass\n\nThanks,\nAnn"
    )
    assert reply.accepted, reply.body
    assert "unravel lies face down in slot QUICK." in reply.body
    seen = games.view(gid, "ann")
    assert seen["mages"]["ann"]["slots"]["QUICK"]["card"] == "unravel"
    assert seen["mages"]["ann"]["ready"]
    _to_actions(games, gid)
    reply = _mail(
        games, gid, tokens["ann"], "cast unravel in QUICK on library\ncast firebolt in I on bob\nmove library"
    )
    assert reply.accepted, reply.body
    mages = games.view(gid, "gm")["mages"]
    assert mages["bob"]["damage"] == ["ann", "ann"]  # Firebolt: 2 Damage
    assert mages["ann"]["room"] == "library"  # the lone move line is a Walk
    assert mages["ann"]["physical_actions"]["walk"] != "available"
    assert "You cast firebolt from slot I on bob." in reply.body and "You walk to library." in reply.body
    assert "Receipt: sequence" in reply.body


def test_heal_lines_below_a_cast_choose_the_cubes_by_colour():
    games, gid, tokens = _table()
    for mage, card in (("ann", "firebolt"), ("bob", "mend"), ("cy", "firebolt")):
        assert _mail(games, gid, tokens[mage], f"prepare {card} in I").accepted
    _to_actions(games, gid)
    for mage in ("ann", "cy"):
        assert _mail(games, gid, tokens[mage], "cast firebolt in I on bob").accepted
    assert games.view(gid, "gm")["mages"]["bob"]["damage"] == ["ann", "ann", "cy", "cy"]
    reply = _mail(games, gid, tokens["bob"], "cast mend in I on bob\n  move hall\nheal 2 red green")
    assert not reply.accepted and "L-MOVE-1" in reply.body  # Mend moves nobody: an indented move is its step
    reply = _mail(games, gid, tokens["bob"], "cast mend in I on bob\nheal 2 red green")
    assert reply.accepted, reply.body
    # one red and one green (the rightmost of each), where healing from the right would take both green
    assert games.view(gid, "gm")["mages"]["bob"]["damage"] == ["ann", "cy"]


def test_a_refused_line_names_its_rule_and_records_nothing():
    games, gid, tokens = _table()
    assert _mail(games, gid, tokens["ann"], "prepare firebolt in I").accepted
    _to_actions(games, gid)
    # the second line is refused (the slot holds firebolt): the first, which was fine, is not recorded either
    body = _refused(games, gid, tokens["ann"], "move library\ncast unravel in I on library", "MAIL-1", 2)
    assert "your slot I holds 'firebolt'" in body
    assert games.view(gid, "gm")["mages"]["ann"]["room"] == "hall"
    _refused(games, gid, tokens["ann"], "cast firebolt in I on bob\ncast firebolt in I on bob", "LH-7", 2)


def test_a_line_the_grammar_cannot_read_is_listed_with_its_number():
    games, gid, tokens = _table()
    body = _refused(games, gid, tokens["ann"], "prepare firebolt in I\nfireball bob", "MAIL-1", 2)
    assert "I do not understand 'fireball'" in body
    _refused(games, gid, tokens["ann"], "heal 2 red", "MAIL-1", 1)  # a heal line belongs below a cast


def test_indented_move_lines_are_the_steps_of_the_cast_above_them():
    games, gid, tokens = _table()
    assert _mail(games, gid, tokens["ann"], "prepare gust in II").accepted
    _to_actions(games, gid)
    reply = _mail(games, gid, tokens["ann"], "cast gust in II on bob\n  move library\n  move observatory")
    assert reply.accepted, reply.body
    mages = games.view(gid, "gm")["mages"]
    assert mages["bob"]["room"] == "observatory" and mages["ann"]["room"] == "hall"  # Gust moved Bob
    assert mages["ann"]["physical_actions"]["walk"] == "available"  # and the move lines spent no Walk


def test_choose_names_an_offer_of_the_sender_or_is_refused_by_l_pers_5():
    games, gid, tokens = _table()
    _to_actions(games, gid)
    _refused(games, gid, tokens["ann"], "choose offer-99", "L-PERS-5", 1)


def test_a_move_step_left_open_by_mail_is_offered_in_the_reply_and_answered_with_choose():
    """L.3: a cast whose Move steps the mail does not give waits for them; the reply names the choice, its
    options and its default, and ``choose <choice> <option>`` answers it (an illegal option names its rule)."""
    games, gid, tokens = _table()
    assert _mail(games, gid, tokens["ann"], "prepare gust in I").accepted
    _to_actions(games, gid)
    reply = _mail(games, gid, tokens["ann"], "cast gust in I on bob")
    assert reply.accepted, reply.body
    (choice,) = [p["choice"] for p in games.view(gid, "ann")["prompts"]]
    assert f"{choice} waits for you: Move step 1 of bob; one of library" in reply.body
    _refused(games, gid, tokens["ann"], f"choose {choice} sanctum", "L-MOVE-1", 1)
    reply = _mail(games, gid, tokens["ann"], f"choose {choice} library")
    assert reply.accepted and f"You answer {choice}: library." in reply.body, reply.body
    assert games.view(gid, "gm")["mages"]["bob"]["room"] == "hall"  # one step answered, the second is asked for
    (second,) = [p["choice"] for p in games.view(gid, "ann")["prompts"]]
    assert _mail(games, gid, tokens["ann"], f"choose {second} observatory").accepted
    assert games.view(gid, "gm")["mages"]["bob"]["room"] == "observatory"


def test_a_target_left_open_by_mail_is_answered_with_choose_and_the_option_alone():
    """LH-1 / L-DUMMY-1: a cast that names no target waits for one; the reply lists the legal targets (the Dummy
    among them), ``choose <option>`` answers the one choice that waits, and an option outside them is refused
    naming its rule with nothing recorded."""
    games, gid, tokens = _table()
    assert _mail(games, gid, tokens["ann"], "prepare firebolt in I").accepted
    _to_actions(games, gid)
    reply = _mail(games, gid, tokens["ann"], "cast firebolt in I")
    assert reply.accepted, reply.body
    (choice,) = [p["choice"] for p in games.view(gid, "ann")["prompts"]]
    assert f"{choice} waits for you: the target of Firebolt; one of ann, bob, cy, dummy (default dummy)" in reply.body
    _refused(games, gid, tokens["ann"], "choose library", "LH-1", 1)
    reply = _mail(games, gid, tokens["ann"], "choose Bob")
    assert reply.accepted and f"You answer {choice}: bob." in reply.body, reply.body
    seen = games.view(gid, "gm")
    assert seen["prompts"] == [] and seen["mages"]["bob"]["damage"] == ["ann", "ann"]
