"""Every line a reader gets back by mail is in their language (issue 28 item 4): not only the intake's frame (the
subject, "Nothing was recorded", the receipt) but each ruleset's own lines (Powers' receipts, refusals and footer,
with a deadline's time as the reader's language writes it; the covenants' and the Lodge's), and the answers to
``dispute``, ``preview``, ``replay`` and ``adopt`` lines. The words a reader must type (verbs, ids, usages) stay as
they are typed; a refused line still names its rule or field and records nothing; an English reader's lines stay
English.

The GM has no language of their own (a seat chooses one with ``SetLanguage``), so the GM's German replies are read
through ``application.mails.language_of`` answering "de" for the GM: the same lookup the intake makes for any reader.
"""

from __future__ import annotations

import itertools
import re

import pytest

from api.mail_intake import MailIntake, MailReply
from application import mails
from application.service import Caller, Games
from domain.ids import GM
from domain.platform.commands import SetLanguage
from tests.covenants.play import Dice, fixed_three
from tests.domain import rules_variants as variants
from tests.mail.test_covenants_mail import _tokens
from tests.mail.test_lodge_mail import _table
from tests.mail.test_smtp import TURN, setup_game
from tests.scenarios import play_rich_month

_ids = itertools.count()


def _mail(games: Games, gid: str, token: str, body: str) -> MailReply:
    intake = MailIntake(games)
    return intake.receive(intake.address_for(gid, token), f"<lang-{next(_ids)}@x>", body, subject="turn")


def _version(games: Games, gid: str) -> int:
    return int(games.get_game(gid, for_update=False).version)


def _german(games: Games, gid: str, seat: str) -> None:
    games.run(Caller.of(seat), gid, SetLanguage(seat, "de"))


@pytest.fixture
def gm_reads_german(monkeypatch):
    """The GM's replies read in German (see the module's docstring); every seat's as it chose."""
    chosen = mails.language_of
    monkeypatch.setattr(mails, "language_of", lambda game, seat: "de" if seat == GM else chosen(game, seat))


def test_mail_1_a_german_powers_seat_gets_its_receipts_and_footer_in_german():
    games = Games()
    gid, pid, token = setup_game(games)
    _german(games, gid, pid)
    reply = _mail(games, gid, token, TURN)
    assert reply.accepted, reply.body
    body = reply.body
    assert "Aktion 1 (" in body and "'Duel the Balrog', geheim." in body  # the title as the reader wrote it
    assert "  Wurf 1:" in body and "Poolgröße" in body
    assert re.search(r"Poolgröße \d+; (1 Erfolg|\d+ Erfolge), (1 Folge|\d+ Folgen)\.", body), body  # counted in German
    assert "Saison 1, Monat 1: Planung." in body and "(Europe/Paris)" in body
    assert re.search(r"Planung schließt \w\w\., \d{1,2}\. \w+\.? 2\d{3}, \d\d:\d\d ", body), (
        body
    )  # "Fr., 11. Dez. 2026, 00:32"
    assert "Quittung: Nummer" in body
    for english in ("Action 1 (", "Roll 1:", "pool size", "successes", "Season 1", " closes ", "Planning"):
        assert english not in body, (english, body)
    reply = _mail(games, gid, token, "extension 12 the roads are flooded")
    assert reply.accepted and "Die Spielleitung um 12 Stunden mehr gebeten." in reply.body, reply.body


def test_mail_1_a_german_powers_seats_refused_lines_are_german_name_their_rule_and_record_nothing():
    games = Games()
    gid, pid, token = setup_game(games)
    _german(games, gid, pid)
    before = _version(games, gid)
    reply = _mail(games, gid, token, "frobnicate now\nconvert\nroll #9\nextension soon")
    assert not reply.accepted and reply.subject.startswith("Nicht erfasst"), reply.body
    body = reply.body
    assert "Zeile 1: Ich verstehe 'frobnicate' nicht; die Befehle sind: " in body and "(MAIL-1)" in body
    assert "Zeile 2: Schreibweise: convert <action> <how many> (MAIL-1)" in body  # the usage as it is typed
    assert "Zeile 4: die Stunden müssen eine Zahl sein, nicht 'soon' (GM-8)" in body
    assert "Zeile 3: du hast in diesem Monat keine Aktion '#9'" in body
    assert "I do not understand" not in body and "usage:" not in body and "hours must be" not in body
    assert _version(games, gid) == before


def test_mail_1_an_english_powers_seats_lines_stay_english():
    games = Games()
    gid, _pid, token = setup_game(games)
    reply = _mail(games, gid, token, TURN)
    assert (
        reply.accepted
        and "Action 1 (" in reply.body
        and "pool size" in reply.body
        and "Season 1, month 1" in reply.body
    )
    assert "Aktion" not in reply.body and "Quittung" not in reply.body and "Planning closes " in reply.body
    refused = _mail(games, gid, token, "frobnicate now")
    assert "line 1: I do not understand 'frobnicate'; commands are: " in refused.body


def test_mail_1_a_german_lodge_mage_gets_the_lodges_lines_in_german_and_a_refusal_records_nothing():
    games, gid, tokens = _table()
    _german(games, gid, "ann")
    reply = _mail(games, gid, tokens["ann"], "prepare unravel in quick\nprepare firebolt in I\npass")
    assert reply.accepted, reply.body
    assert "unravel liegt verdeckt in Platz QUICK." in reply.body and "Du passt." in reply.body
    assert re.search(r"Zug 1, Phase Vorbereitung; du bist in [A-Z][\w ]+ \([a-z-]+\)\.", reply.body), (
        reply.body
    )  # by name
    assert "lies face down" not in reply.body
    before = _version(games, gid)
    refused = _mail(games, gid, tokens["ann"], "prepare unravel in nowhere")
    assert not refused.accepted and "Zeile 1: die Plätze sind " in refused.body and "(MAIL-1)" in refused.body
    assert _version(games, gid) == before
    english = _mail(games, gid, tokens["bob"], "prepare mend in I\npass")
    assert english.accepted and "mend lies face down in slot I." in english.body and "You pass." in english.body


def test_mail_1_a_german_covenant_gets_the_covenants_lines_in_german_and_a_refusal_records_nothing():
    t = fixed_three(Dice())
    tokens = _tokens(t)
    for seat in t.seats:
        _german(t.games, t.game_id, seat)
    seat = t.turn()[0]
    before = _version(t.games, t.game_id)
    refused = _mail(t.games, t.game_id, tokens[seat], "move here")
    assert not refused.accepted and "Zeile 1: das Feld muss eine ganze Zahl sein, nicht 'here' (MAIL-1)" in refused.body
    assert _version(t.games, t.game_id) == before
    reply = _mail(t.games, t.game_id, tokens[seat], "move 2")
    assert reply.accepted, reply.body
    assert "Zeile 1: move erfasst (Phase jetzt Bewegung)" in reply.body, (
        reply.body
    )  # the verb as typed, the phase in words
    assert "Jahr 1, Frühling, Zyklus 1: Bewegung." in reply.body
    assert "Du hast " in reply.body and " Gold, " in reply.body and "Es wird auf " in reply.body
    assert "recorded" not in reply.body and "You hold" not in reply.body


@pytest.fixture
def month():
    games = Games()
    with variants.installed(variants.POWERS_HOUSE):
        yield games, play_rich_month(games)
    games.close()


def test_mail_1_a_german_powers_dispute_is_answered_in_german_and_a_refused_one_records_nothing(month):
    games, m = month
    wiz = m.powers["wiz"]
    _german(games, m.game_id, wiz)
    seq = next(e["seq"] for e in games.visible_events(m.game_id, wiz, limit=1000) if e["type"] == "DiceRolled")
    reply = _mail(games, m.game_id, m.tokens[wiz], f"dispute {seq}: the old rule was applied")
    assert reply.accepted and reply.subject.startswith("Erfasst"), reply.body
    assert f"Zeile 1: du bestreitest Ereignis {seq}; der Einspruch ist " in reply.body
    assert "withdraw')" in reply.body and "Quittung: Nummer" in reply.body and "you dispute" not in reply.body
    before = _version(games, m.game_id)
    refused = _mail(games, m.game_id, m.tokens[wiz], "dispute soon")
    assert not refused.accepted
    assert refused.body.startswith("Nichts wurde erfasst: Zeile 1: schreibe 'dispute <event number>: <text>'")
    mixed = _mail(games, m.game_id, m.tokens[wiz], f"dispute {seq}: why?\nready")
    assert "Nichts wurde erfasst: dispute-Zeilen stehen allein in ihrer Mail" in mixed.body
    assert _version(games, m.game_id) == before


def test_mail_1_a_german_seats_preview_and_replay_lines_are_refused_in_german_recording_nothing(month):
    games, m = month
    wiz = m.powers["wiz"]
    _german(games, m.game_id, wiz)
    before = _version(games, m.game_id)
    preview = _mail(games, m.game_id, m.tokens[wiz], "preview")
    assert not preview.accepted and "Not previewed" not in preview.subject, preview.subject
    assert preview.body.startswith("Nichts wurde vorab gezeigt oder erfasst: Zeile 1: "), preview.body
    replay = _mail(games, m.game_id, m.tokens[wiz], "replay powers-house")
    assert not replay.accepted and replay.subject.startswith("Nicht nachgespielt"), replay.subject
    assert replay.body.startswith("Nichts wurde nachgespielt oder erfasst: Zeile 1: "), replay.body
    assert _version(games, m.game_id) == before


def test_mail_1_the_gms_replay_and_adopt_answers_are_in_the_gms_language(month, gm_reads_german):
    games, m = month
    before = _version(games, m.game_id)
    replay = _mail(games, m.game_id, m.gm_token, "replay powers-house from s1m1-resistance")
    assert replay.accepted and replay.subject.startswith("Nachspielen"), replay.subject
    assert replay.body.startswith("Die Geschichte dieses Spiels, nachgespielt unter powers-house"), replay.body
    assert "'adopt powers-house from s1m1-resistance'" in replay.body  # the line to type stays as it is typed
    refused = _mail(games, m.game_id, m.gm_token, "adopt powers-9 from setup")
    assert not refused.accepted and refused.subject.startswith("Nicht übernommen"), refused.subject
    assert (
        refused.body.startswith("Nichts wurde übernommen oder erfasst: Zeile 1: ") and "(Feld version" in refused.body
    )
    assert _version(games, m.game_id) == before


def test_mail_1_the_gms_preview_answer_is_in_the_gms_language(gm_reads_german):
    from domain.powers import commands as pc

    games = Games()
    m = play_rich_month(games, finish=False)
    games.send(m.game_id, "gm", pc.Advance())
    games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))
    reply = _mail(games, m.game_id, m.gm_token, "preview")
    assert reply.accepted and reply.subject.startswith("Vorschau"), reply.body
    assert "Vorschau auf das Schließen von s1m1-resistance" in reply.body and "Beobachter würden sehen:" in reply.body
    assert "Die Spielleitung würde sehen:" in reply.body and "close in der Konsole" in reply.body
    assert "Preview of closing" not in reply.body
    games.close()
