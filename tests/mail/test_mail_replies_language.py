"""The replies to mail turns are worded in their reader's language (issue 28): a seat whose language is German gets
the intake's words in German through the pages' catalogs (a refused turn's explanation and line numbers, a recorded
turn's subject and receipt), over real SMTP into ``emissary smtpd`` and out to a local sink; an English seat's stay
English."""

from __future__ import annotations

from api.mail_intake import MailIntake
from application.service import Caller
from domain.platform.commands import SetLanguage
from tests.mail.sink import Sink
from tests.mail.test_smtp import TURN, send, server, setup_game  # noqa: F401 (the smtpd and its sink)


def test_a_german_seats_mail_replies_are_in_german(server, sink):  # noqa: F811
    settings, games, _controller = server
    gid, pid, token = setup_game(games)
    games.run(Caller.of(pid), gid, SetLanguage(pid, "de"))
    address = MailIntake(games, settings.mail_domain).address_for(gid, token)
    send(settings, address, "", "<de-refused@example.org>", html="<p>action: Scout</p><p>&nbsp; slot: public</p>")
    refused = sink.wait_for(1)[0]
    text = Sink.text(refused)
    assert "Nicht erfasst" in refused["Subject"]
    assert "Nichts wurde erfasst" in text and "Zeile 1:" in text and "P-ACT-1" in text
    assert "Nothing was recorded" not in text and "line 1:" not in text
    assert "Korrigiere diese Zeilen" in text
    send(settings, address, TURN, "<de-recorded@example.org>")
    recorded = sink.wait_for(2)[1]
    text = Sink.text(recorded)
    assert "Erfasst" in recorded["Subject"] and "Quittung: Nummer" in text
    assert "Receipt: sequence" not in text


def test_an_english_seats_mail_replies_stay_english(server, sink):  # noqa: F811
    settings, games, _controller = server
    gid, _pid, token = setup_game(games)
    address = MailIntake(games, settings.mail_domain).address_for(gid, token)
    send(settings, address, "", "<en-refused@example.org>", html="<p>action: Scout</p><p>&nbsp; slot: public</p>")
    text = Sink.text(sink.wait_for(1)[0])
    assert "Nothing was recorded" in text and "line 1:" in text and "Nichts" not in text
