"""The GM's rules-change mail lines (issue 29 item 3) on a Powers month (``play_rich_month``) with ``powers-house``
installed beside it (tests/domain/rules_variants.py: P-DICE-4 made harder). ``adopt <version> from <phase>`` adopts
it as ``POST /games/{g}/adopt`` does: answered with the results re-decided, their rules and the receipt, recorded once
under the mail's Message-ID (the same mail again: the same answer, nothing more recorded), each power told what it may
see. A refusal names the field (version, from_phase) or the roles, and records nothing. The help index lists both
lines with an example, and each example is read as the line it shows."""

from __future__ import annotations

import pytest

from api import mail_replay
from api.mail_intake import MailIntake
from application.service import Games
from tests.domain import rules_variants as variants
from tests.domain.replay_helpers import recorded, told
from tests.scenarios import play_rich_month


@pytest.fixture
def month():
    games = Games()
    with variants.installed(variants.POWERS_HOUSE):
        yield games, play_rich_month(games)
    games.close()


def kinds(games: Games, game_id: str) -> list[str]:
    return [type(e).__name__ for e in games.iter_events(game_id)]


def test_p_dice_4_the_gm_adopts_by_mail_once_and_is_answered_with_the_results_and_a_receipt(month):
    games, m = month
    intake = MailIntake(games)
    gm = intake.address_for(m.game_id, m.gm_token)
    start = games.phase_version(m.game_id, "s1m1-resistance", None)
    changed = [
        e
        for e in recorded(games, m.game_id, "ActionResolved")
        if e.originator_version > start and variants.harder(e.net, e.difficulty) != (e.success, e.excess)
    ]
    body = "Hi GM,\nadopt powers-house from s1m1-resistance\n-- \nGM"
    reply = intake.receive(gm, "<a1@x>", body)
    assert reply.accepted and reply.subject.startswith("Adopted"), reply.body
    assert "now plays by powers-house (it played by powers-2026.11) from s1m1-resistance" in reply.body
    for e in changed:
        assert f"event #{e.originator_version} ActionResolved (P-DICE-4): success" in reply.body
    assert "Receipt: sequence" in reply.body
    assert games.read(m.game_id, lambda g: g.ruleset.version) == "powers-house"
    after = kinds(games, m.game_id)
    lines = 1 + len(m.powers) + 1  # the GM, each power, the observers (issue 29)
    assert after.count("RulesAdopted") == 1 and after.count("RulesChangeTold") == lines
    again = intake.receive(gm, "<a1@x>", body)
    assert again.accepted and again.body == reply.body and kinds(games, m.game_id) == after  # once per Message-ID
    assert told(games, m.game_id, "wiz") and all("version" not in c for c in told(games, m.game_id, "wiz")[0])


@pytest.mark.parametrize(
    ("line", "field"),
    [
        ("adopt powers-9 from setup", "field version"),
        ("adopt powers-house from s9m9-nothing", "field from_phase"),
        ("adopt powers-house", "field from_phase"),
        ("adopt", "field version"),
        ("adopt powers-2026.11 from setup", "field version"),  # the version it is pinned at
    ],
)
def test_an_adopt_line_refused_names_the_field_and_records_nothing(month, line, field):
    games, m = month
    intake = MailIntake(games)
    before = kinds(games, m.game_id)
    reply = intake.receive(intake.address_for(m.game_id, m.gm_token), f"<r-{line}@x>", line)
    assert not reply.accepted and reply.subject.startswith("Not adopted"), reply.body
    assert reply.body.startswith("Nothing was adopted or recorded: line 1: ") and f"({field}" in reply.body
    assert kinds(games, m.game_id) == before


def test_a_powers_adopt_line_or_one_beside_another_line_is_refused_and_records_nothing(month):
    games, m = month
    intake = MailIntake(games)
    before = kinds(games, m.game_id)
    wiz = intake.receive(intake.address_for(m.game_id, m.tokens["wiz"]), "<w@x>", "adopt powers-house from setup")
    assert not wiz.accepted and "only the GM may replay or adopt a rules change" in wiz.body, wiz.body
    assert "(field authorization)" in wiz.body
    mixed = intake.receive(intake.address_for(m.game_id, m.gm_token), "<x@x>", "adopt powers-house from setup\nready")
    assert not mixed.accepted and "an adoption stands alone in its mail" in mixed.body
    assert kinds(games, m.game_id) == before


def test_every_rules_change_mail_example_is_read_as_the_line_it_shows():
    replay, adopt = mail_replay.MAIL
    assert mail_replay.REPLAY.match(replay.example).group("version", "phase") == ("table-2", "join-bob")
    assert mail_replay.ADOPT.match(adopt.example).group("version", "phase") == ("table-2", "join-bob")


def test_the_help_index_lists_the_replay_and_adopt_lines_with_an_example(app):
    from fastapi.testclient import TestClient

    page = TestClient(app).get("/help").text
    assert 'id="mail-rules-change"' in page
    for line in mail_replay.MAIL:
        assert line.example in page and line.note in page
