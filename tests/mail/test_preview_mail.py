"""The GM's ``preview`` mail line (issue 29 item 2): it previews the pending step (a Powers month's resistance close,
P-RES-2, P-RES-4) and is answered with each viewer's outcome; a player's is refused naming the role; nothing but the
GM-only audit line is recorded."""

from __future__ import annotations

import pytest

from api.mail_intake import MailIntake
from application.service import Games
from domain.powers import commands as pc
from tests.scenarios import play_rich_month


@pytest.fixture
def month():
    games = Games()
    m = play_rich_month(games, finish=False)
    games.send(m.game_id, "gm", pc.Advance())
    games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))  # resistance opens (P-RES-2)
    yield games, m
    games.close()


def kinds(games: Games, game_id: str) -> list[str]:
    return [type(e).__name__ for e in games.iter_events(game_id)]


def test_the_gm_mails_preview_and_is_answered_with_every_viewers_outcome(month):
    games, m = month
    intake = MailIntake(games)
    before = kinds(games, m.game_id)
    reply = intake.receive(intake.address_for(m.game_id, m.gm_token), "<p1@x>", "Hi,\npreview\n--\nGM")
    assert reply.accepted and reply.subject.startswith("Preview"), reply.body
    assert "Preview of closing s1m1-resistance" in reply.body and "Observers would see:" in reply.body
    assert f"result action:{m.actions['duel']}" in reply.body
    assert kinds(games, m.game_id) == [*before, "Previewed"]


def test_a_players_preview_line_is_refused_naming_the_role_and_records_nothing(month):
    games, m = month
    intake = MailIntake(games)
    before = kinds(games, m.game_id)
    wiz = m.powers["wiz"]
    reply = intake.receive(intake.address_for(m.game_id, m.tokens[wiz]), "<p2@x>", "preview")
    assert not reply.accepted and "only the GM may preview the pending step; you are player" in reply.body
    assert "PRIVATE" not in reply.body and kinds(games, m.game_id) == before


def test_a_preview_with_other_lines_is_refused_whole(month):
    games, m = month
    intake = MailIntake(games)
    before = kinds(games, m.game_id)
    reply = intake.receive(intake.address_for(m.game_id, m.gm_token), "<p3@x>", "preview\nadvance")
    assert not reply.accepted and "a preview stands alone in its mail" in reply.body
    assert kinds(games, m.game_id) == before
