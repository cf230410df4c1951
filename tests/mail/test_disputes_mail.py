"""Disputes by mail (issue 29 item 4), in every ruleset's mail: a power mails ``dispute <N>: <text>`` about its private
duel's roll and is answered with the dispute's name and a receipt (the same mail again: the same reply, recorded
once); the GM answers by mail pointing at the derivation and rejects it; another power's line about the dispute is
refused in the words of one that does not exist; a dispute line beside a turn line is refused whole. Every example the
help index shows is read as the command it says it sends."""

from __future__ import annotations

import pytest

from api import mail_disputes
from api.mail_intake import MailIntake
from application.service import Games
from tests.scenarios import play_rich_month


@pytest.fixture
def month():
    games = Games()
    m = play_rich_month(games)
    yield games, m
    games.close()


def kinds(games: Games, game_id: str) -> list[str]:
    return [type(e).__name__ for e in games.iter_events(game_id)]


def duel_roll(games, m) -> int:
    mine = games.visible_events(m.game_id, "wiz", limit=1000)
    return next(e["seq"] for e in mine if e["type"] == "DiceRolled" and e["data"]["action_id"] == m.actions["duel"])


def test_a_power_disputes_by_mail_and_the_gm_answers_and_rejects_by_mail(month):
    games, m = month
    intake = MailIntake(games)
    seq = duel_roll(games, m)
    wiz = intake.address_for(m.game_id, m.tokens["wiz"])
    body = f"Hi GM,\ndispute {seq}: WIZ-MAIL the old rule was applied\n-- \nWiz"
    reply = intake.receive(wiz, "<d1@x>", body)
    assert reply.accepted and reply.subject.startswith("Recorded"), reply.body
    assert f"you dispute event {seq}" in reply.body and "Receipt: sequence" in reply.body
    game = games.get_game(m.game_id, for_update=False)
    (dispute_id,) = [k for k in game.disputes]
    assert dispute_id in reply.body
    before = kinds(games, m.game_id)
    again = intake.receive(wiz, "<d1@x>", body)
    assert again.body == reply.body and kinds(games, m.game_id) == before  # once per Message-ID

    gm = intake.address_for(m.game_id, m.gm_token)
    pointer = f"derivation:action:{m.actions['duel']}"
    answer = intake.receive(gm, "<d2@x>", f"dispute {dispute_id} answer see {pointer}: GM-MAIL the dice stand")
    assert answer.accepted, answer.body
    rejected = intake.receive(gm, "<d3@x>", f"dispute {dispute_id} reject: the dice stand")
    assert rejected.accepted and f"the dispute {dispute_id} is rejected" in rejected.body
    d = games.get_game(m.game_id, for_update=False).disputes[dispute_id]
    assert (d["outcome"], d["note"], d["answers"][0]["points_at"]) == ("rejected", "the dice stand", pointer)

    circ = intake.address_for(m.game_id, m.tokens["circ"])
    before = kinds(games, m.game_id)
    unseen = intake.receive(circ, "<d4@x>", f"dispute {dispute_id} withdraw")
    missing = intake.receive(circ, "<d5@x>", "dispute dsp-nope withdraw")
    assert not unseen.accepted and not missing.accepted
    assert unseen.body.replace(dispute_id, "X") == missing.body.replace("dsp-nope", "X")
    assert "WIZ-MAIL" not in unseen.body and kinds(games, m.game_id) == before


def test_a_dispute_line_beside_a_turn_line_or_unread_is_refused_whole(month):
    games, m = month
    intake = MailIntake(games)
    wiz = intake.address_for(m.game_id, m.tokens["wiz"])
    before = kinds(games, m.game_id)
    mixed = intake.receive(wiz, "<d6@x>", "dispute 3: why?\nready")
    assert not mixed.accepted and "dispute lines stand alone in their mail" in mixed.body
    unread = intake.receive(wiz, "<d7@x>", "dispute soon")
    assert not unread.accepted and "line 1: write 'dispute <event number>: <text>'" in unread.body
    far = intake.receive(wiz, "<d8@x>", "dispute 99999: why?")
    assert not far.accepted and "no event 99999 in your timeline" in far.body
    assert kinds(games, m.game_id) == before


def test_every_help_example_is_read_as_the_command_it_names_and_every_form_has_one():
    forms = set()
    for line in mail_disputes.MAIL:
        command = mail_disputes.command_of(line.example)
        assert not isinstance(command, str), line.example
        assert type(command).__name__ in line.sends
        act = mail_disputes.ACT.match(line.example)
        forms.add(act.group("act") if act else "raise")
    assert forms == {"raise", "answer", "uphold", "reject", "withdraw"}


def test_the_help_index_shows_the_dispute_lines(app):
    from fastapi.testclient import TestClient

    page = TestClient(app).get("/help").text
    assert 'id="mail-dispute"' in page
    for line in mail_disputes.MAIL:
        assert line.example in page
