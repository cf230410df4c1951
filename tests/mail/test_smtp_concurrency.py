"""Many turns mailed at once to one game, over several real SMTP connections to the SMTP server: a concurrent
write is retried, never answered as a refusal; SMTP answers 451 (try later), never 5xx, for what is not a
rule's refusal (issue 24, item 8)."""

from __future__ import annotations

import smtplib
from concurrent.futures import ThreadPoolExecutor
from email.message import EmailMessage

import pytest

from api import smtpd
from api.mail_intake import MailIntake
from application.service import CommandKey
from domain.errors import Conflict
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_services
from tests.integration.topology import free_port

CONNECTIONS = 8
PER_CONNECTION = 20


@pytest.fixture
def server(store_settings, sink):
    settings = store_settings.model_copy(update={"smtp_port": sink.port, "smtpd_port": free_port()})
    controller = smtpd.start(settings)
    try:
        yield settings, controller
    finally:
        controller.stop()
        close_services(controller.handler.intake.games, controller.handler.projector)


def mail(to: str, body: str, message_id: str) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "someone@example.org"
    msg["To"] = to
    msg["Subject"] = "Table talk"
    msg["Message-ID"] = message_id
    msg.set_content(body)
    return msg


def send_all(settings: Settings, messages: list[EmailMessage]) -> list[tuple[str, int | str]]:
    """Send the mails one after another over one SMTP connection: (Message-ID, the code DATA was answered with)."""
    codes: list[tuple[str, int | str]] = []
    with smtplib.SMTP(settings.smtpd_host, settings.smtpd_port, timeout=60) as smtp:
        for msg in messages:
            try:
                smtp.send_message(msg)
                codes.append((msg["Message-ID"], 250))
            except smtplib.SMTPResponseException as err:
                codes.append((msg["Message-ID"], err.smtp_code))
            except smtplib.SMTPRecipientsRefused as err:
                codes.append((msg["Message-ID"], f"rcpt {err.recipients}"))
    return codes


def test_mail_1_turns_mailed_at_once_over_several_connections_are_all_recorded_none_refused(server):
    """Every seat mails its table talk at once, over 8 connections: each mail is recorded once and answered 250
    (a conflict between two connections' writes is retried, never a 5xx that bounces a valid turn)."""
    settings, controller = server
    games = controller.handler.intake.games
    gid, _, _ = games.create_game("Busy table")
    seats = []
    for i in range(4):
        pid, token, _ = add_power(games, gid, "gm", f"Seat{i}", "champion", "wizard")
        seats.append((pid, MailIntake(games, settings.mail_domain).address_for(gid, token)))
    batches = [
        [
            mail(seats[(c + n) % len(seats)][1], f"say: word {c}.{n} from the table", f"<busy-{c}-{n}@example.org>")
            for n in range(PER_CONNECTION)
        ]
        for c in range(CONNECTIONS)
    ]
    with ThreadPoolExecutor(CONNECTIONS) as pool:
        answers = [code for codes in pool.map(lambda b: send_all(settings, b), batches) for code in codes]
    refused = [(mid, code) for mid, code in answers if code != 250]
    assert refused == []
    for c, batch in enumerate(batches):
        for n, msg in enumerate(batch):
            pid = seats[(c + n) % len(seats)][0]
            assert games.first_receipt(gid, pid, CommandKey(f"mail:{msg['Message-ID']}")) is not None, msg["Message-ID"]
    posts = [e for e in games.iter_events(gid) if type(e).__name__ == "PostMade"]
    assert len(posts) == CONNECTIONS * PER_CONNECTION


def test_mail_1_a_busy_game_is_answered_451_try_later_never_5xx(server, monkeypatch):
    """A game still busy after every retry, or an unexpected failure, is a temporary failure (451): the sending
    server tries again later instead of bouncing the turn as permanently refused."""
    settings, controller = server
    games = controller.handler.intake.games
    gid, _, _ = games.create_game("Busy table")
    pid, token, _ = add_power(games, gid, "gm", "Seat", "champion", "wizard")
    address = MailIntake(games, settings.mail_domain).address_for(gid, token)

    def busy(*args, **kwargs):
        raise Conflict("the game was busy; nothing was recorded after 8 attempts, try again")

    monkeypatch.setattr(games, "run_turn", busy)
    assert send_all(settings, [mail(address, "say: hello", "<busy-a@example.org>")]) == [("<busy-a@example.org>", 451)]

    def broken(*args, **kwargs):
        raise RuntimeError("the store went away")

    monkeypatch.setattr(games, "run_turn", broken)
    assert send_all(settings, [mail(address, "say: hello", "<busy-b@example.org>")]) == [("<busy-b@example.org>", 451)]

    monkeypatch.setattr(controller.handler.intake, "holder", broken)  # the address cannot be checked now
    with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
        with smtplib.SMTP(settings.smtpd_host, settings.smtpd_port, timeout=60) as smtp:
            smtp.send_message(mail(address, "say: hello", "<busy-c@example.org>"))
    assert [code for code, _ in refused.value.recipients.values()] == [451]
