"""Real SMTP exchanges on loopback: turns into `emissary smtpd`, replies and notifications out to a
local SMTP sink; idempotent by Message-ID; a bad or revoked address records nothing."""

from __future__ import annotations

import smtplib
import time
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage

import pytest

from api import smtpd
from api.compose import build_games, build_projector
from api.mail_intake import MailIntake
from domain.powers import commands as pc
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_services
from tests.integration.topology import free_port
from tests.mail.sink import Sink
from tests.scenarios import play_rich_month
from workers import runtime


@pytest.fixture
def server(tmp_path, sink):
    settings = Settings(data_dir=tmp_path, smtp_port=sink.port, smtpd_port=free_port())
    controller = smtpd.start(settings)
    games = controller.handler.intake.games
    yield settings, games, controller
    controller.stop()


def send(
    settings: Settings,
    to: str,
    body: str,
    message_id: str,
    *,
    html: str | None = None,
    sender: str = "gandalf@example.org",
) -> None:
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = to
    msg["Subject"] = "My turn"
    msg["Message-ID"] = message_id
    if html is not None:
        msg.set_content(html, subtype="html")
    else:
        msg.set_content(body)
    with smtplib.SMTP(settings.smtpd_host, settings.smtpd_port, timeout=10) as smtp:
        smtp.send_message(msg)


def setup_game(games):
    gid, _, _ = games.create_game("By mail", timezone_name="Europe/Paris")
    pid, token, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
    add_power(games, gid, "gm", "Balrog", "champion", "adversary", {"private_actions": 2})
    games.send(gid, "gm", pc.GrantAsset(pid, "might", "skill", 3))
    games.set_contact(gid, pid, pid, "gandalf@example.org", "immediate")
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    return gid, pid, token


TURN = """Hi GM,
action: Duel the Balrog
  skill: might
  targets: Balrog
  resistible: yes
  difficulty: 1
  assets: might
  convert: 1

-- 
Gandalf
"""  # noqa: W291 - "-- " with its space is the signature delimiter (RFC 3676) the parser cuts at


def test_a_turn_by_smtp_is_recorded_once_and_answered_with_a_receipt(server, sink):
    settings, games, controller = server
    gid, pid, token = setup_game(games)
    address = MailIntake(games, settings.mail_domain).address_for(gid, token)
    send(settings, address, TURN, "<turn-1@example.org>")
    reply = sink.wait_for(1)[0]
    body = Sink.text(reply)
    assert reply["To"] == "gandalf@example.org" and reply["Subject"].startswith("[By mail · Powers] Recorded")
    assert "Action 1" in body and "Roll 1:" in body and "Receipt: sequence" in body
    assert "Planning closes" in body and "(Europe/Paris)" in body
    send(settings, address, TURN, "<turn-1@example.org>")  # delivered twice
    again = sink.wait_for(2)
    assert len(games.view(gid, pid)["my_actions"]) == 1  # recorded once
    assert len(again) == 2 and Sink.text(again[1]) == body  # answered again with the very same receipt


def test_html_only_mail_and_errors_listed_by_line(server, sink):
    settings, games, controller = server
    gid, pid, token = setup_game(games)
    address = MailIntake(games, settings.mail_domain).address_for(gid, token)
    send(settings, address, "", "<turn-2@example.org>", html="<p>action: Scout</p><p>&nbsp; slot: public</p>")
    reply = Sink.text(sink.wait_for(1)[0])
    assert "Nothing was recorded" in reply and "line 1" in reply and "P-ACT-1" in reply
    assert games.view(gid, pid)["my_actions"] == []


def test_a_valid_from_with_a_wrong_or_revoked_token_records_nothing(server, sink):
    settings, games, controller = server
    gid, pid, token = setup_game(games)
    intake = MailIntake(games, settings.mail_domain)
    before = games.get_game(gid).version
    with pytest.raises(smtplib.SMTPRecipientsRefused) as wrong:
        send(settings, f"turns+{gid}.{'x' * 32}@{settings.mail_domain}", "ready", "<bad-1@example.org>")
    games.reissue_link(gid, "gm", pid)
    after_reissue = games.get_game(gid).version
    with pytest.raises(smtplib.SMTPRecipientsRefused) as revoked:
        send(settings, intake.address_for(gid, token), "ready", "<bad-2@example.org>")  # the old address
    for refused in (wrong.value, revoked.value):
        assert [code for code, _ in refused.recipients.values()] == [550]
    assert before < after_reissue == games.get_game(gid).version  # only the reissue was recorded
    assert not [e for e in games.iter_events(gid) if type(e).__name__ in ("ReadyDeclared", "MailTurnRecorded")]
    time.sleep(0.3)
    assert sink.messages == []  # and nobody was answered


def test_notifications_go_only_to_those_who_may_see_them_and_the_ledger_tells(tmp_path, sink):
    """Every outgoing mail, checked against the rules of P.4 like the views are."""
    from workers.app import celery_app
    from workers.tasks import dispatch_mail

    settings = Settings(data_dir=tmp_path, smtp_port=sink.port)
    games = build_games(settings)
    projector = build_projector(games, settings)
    runtime.use(games, projector, settings)
    celery_app.conf.task_always_eager = True
    try:
        m = play_rich_month(games, finish=False)
        for key, pid in m.powers.items():
            games.set_contact(m.game_id, pid, pid, f"{key}@example.org", "digest" if key == "cult" else "immediate")
        games.send(m.game_id, "gm", pc.Advance())
        games.send(m.game_id, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))
        games.send(
            m.game_id,
            m.powers["sov"],
            pc.DeclareReaction(m.powers["sov"], m.actions["duel"], [{"asset_id": m.assets["sov-might"]}], 1),
        )
        projector.catch_up()
        from datetime import datetime, timezone

        dispatch_mail(datetime.now(timezone.utc))
        sink.wait_for(3)
        time.sleep(0.5)
        allowed = {
            "PRIVATE-WIZ-DUEL": {"wiz", "sov"},
            "PRIVATE-CIRC-PLOT": {"circ", "cult"},
            "PRIVATE-CULT-RITE": {"cult"},
            "DISCLOSED-CIRC-TO-SOV": {"circ", "sov"},
            "SEEKING-FOUND-CULT-SHRINE": {"wiz"},
            "DESC-WIZ": {"wiz"},
            "DESC-CIRC": {"circ"},
        }
        for key in m.powers:
            mails = " ".join(Sink.text(x) + x["Subject"] for x in sink.to(f"{key}@example.org"))
            for marker, who in allowed.items():
                if key not in who:
                    assert marker not in mails, f"{key} was mailed {marker}"
        sov_mail = " ".join(x["Subject"] for x in sink.to("sov@example.org"))
        assert "You may resist: Wiz" in sov_mail and "The resolution is published" in sov_mail
        assert sink.to("cult@example.org") == []  # a daily digest, not yet due
        key = str(games.get_game(m.game_id).id)
        from workers import mail

        sov_ledger = mail.ledger(projector.db, key, m.powers["sov"])
        assert sov_ledger and {r["recipient"] for r in sov_ledger} == {m.powers["sov"]}
        assert {r["status"] for r in sov_ledger} == {"sent"}
        assert {r["status"] for r in mail.ledger(projector.db, key, m.powers["cult"])} == {"digest"}
        everyone = mail.ledger(projector.db, key)
        assert {r["recipient"] for r in everyone} == set(m.powers.values())
        before = len(sink.messages)
        dispatch_mail(datetime.now(timezone.utc))  # nothing is sent twice
        time.sleep(0.3)
        assert len(sink.messages) == before
    finally:
        celery_app.conf.task_always_eager = False
        close_services(games, projector)


def test_a_failed_send_is_retried_and_recorded(tmp_path):
    from workers import mail
    from workers.app import celery_app
    from workers.tasks import deliver_mail

    dead_port = free_port()
    settings = Settings(data_dir=tmp_path, smtp_port=dead_port)
    games = build_games(settings)
    projector = build_projector(games, settings)
    runtime.use(games, projector, settings)
    row_id = mail.record(
        projector.db, game_id="g", version=1, recipient="p", address="p@example.org", kind="note", subject="s", body="b"
    )
    celery_app.conf.task_always_eager = True
    try:
        assert deliver_mail.apply(args=(row_id,)).result == "queued"
        item = mail.row(projector.db, row_id)
        assert item["status"] == "queued" and item["attempts"] == 1  # it will be tried again
        assert row_id not in mail.due(projector.db, datetime.now(timezone.utc))  # after a backoff
        assert row_id in mail.due(projector.db, datetime.now(timezone.utc) + timedelta(seconds=11))
        sink = Sink()
        sink.port = dead_port
        from aiosmtpd.controller import Controller

        sink.controller = Controller(sink, hostname="127.0.0.1", port=dead_port)
        sink.start()
        try:
            assert deliver_mail.apply(args=(row_id,)).result == "sent"
            assert mail.row(projector.db, row_id)["status"] == "sent" and len(sink.wait_for(1)) == 1
        finally:
            sink.stop()
    finally:
        celery_app.conf.task_always_eager = False
        close_services(games, projector)


def test_the_http_inbound_endpoint_and_the_players_own_ledger(tmp_path):
    from fastapi.testclient import TestClient

    from api.app import create_app

    app = create_app(Settings(data_dir=tmp_path, inbound_key="k" * 16))
    client = TestClient(app)
    games = app.state.games
    gid, pid, token = setup_game(games)
    address = MailIntake(games, "emissary.local").address_for(gid, token)
    payload = {"to": address, "from": "gandalf@example.org", "subject": "turn", "text": TURN, "message_id": "<h1@x>"}
    assert client.post("/inbound/email", json=payload).status_code == 403  # no key
    r = client.post("/inbound/email", json=payload, headers={"x-emissary-inbound-key": "k" * 16})
    assert r.status_code == 200 and r.json()["accepted"] is True
    r2 = client.post("/inbound/email", json=payload, headers={"x-emissary-inbound-key": "k" * 16})
    assert r2.json()["body"] == r.json()["body"] and len(games.view(gid, pid)["my_actions"]) == 1
    own = client.get(f"/games/{gid}/mail", headers={"Authorization": f"Bearer {token}"}).json()
    assert [row["kind"].split(" again ")[0] for row in own] == ["receipt <h1@x>", "receipt <h1@x>"]
    assert own[0]["body"] == own[1]["body"]  # the same receipt, twice
    other_gid, _, _ = games.create_game("Other")
    assert client.get(f"/games/{gid}/mail", headers={"Authorization": "Bearer nope"}).status_code == 401


def ledger_rows(controller) -> list[tuple]:

    db = controller.handler.projector.db
    return db.query("SELECT recipient, address, status, subject FROM mail_ledger ORDER BY created_at")


def test_one_mail_to_50_made_up_addresses_is_refused_at_rcpt_and_queues_no_reply(server, sink):
    """A forged From:/Reply-To: never receives a reply: unknown tokens are refused before DATA."""
    settings, games, controller = server
    gid, pid, token = setup_game(games)
    made_up = [f"turns+{gid}.{n:032d}@{settings.mail_domain}" for n in range(50)]
    msg = EmailMessage()
    msg["From"] = msg["Reply-To"] = "victim@example.com"
    msg["To"] = ", ".join(made_up)
    msg["Subject"] = "ready"
    msg["Message-ID"] = "<flood@example.org>"
    msg.set_content("ready")
    with smtplib.SMTP(settings.smtpd_host, settings.smtpd_port, timeout=10) as smtp:
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            smtp.send_message(msg)
    assert len(refused.value.recipients) == 50
    assert {code for code, _ in refused.value.recipients.values()} == {550}
    time.sleep(0.3)
    assert ledger_rows(controller) == [] and sink.messages == []


def test_only_the_configured_mail_domain_is_accepted_at_rcpt(server, sink):
    settings, games, controller = server
    gid, pid, token = setup_game(games)
    for domain in ("elsewhere.example", "emissary.local.evil.example"):
        with pytest.raises(smtplib.SMTPRecipientsRefused) as refused:
            send(settings, f"turns+{gid}.{token}@{domain}", "ready", f"<relay-{domain}@example.org>")
        [(code, text)] = refused.value.recipients.values()
        assert code == 550 and b"Relaying denied" in text
    assert ledger_rows(controller) == [] and games.view(gid, pid)["my_actions"] == []


def test_a_forged_from_and_reply_to_get_nothing_the_holders_contact_gets_the_reply(server, sink):
    settings, games, controller = server
    gid, pid, token = setup_game(games)
    msg = EmailMessage()
    msg["From"] = "victim@example.com"
    msg["Reply-To"] = "other-victim@example.com"
    msg["To"] = MailIntake(games, settings.mail_domain).address_for(gid, token)
    msg["Subject"] = "My turn"
    msg["Message-ID"] = "<forged@example.org>"
    msg.set_content(TURN)
    with smtplib.SMTP(settings.smtpd_host, settings.smtpd_port, timeout=10) as smtp:
        smtp.send_message(msg)
    [reply] = sink.wait_for(1)
    time.sleep(0.3)
    assert len(sink.messages) == 1 and reply["X-Rcpt"] == "gandalf@example.org"
    assert [(r[0], r[1], r[2]) for r in ledger_rows(controller)] == [(pid, "gandalf@example.org", "sent")]


def test_a_valid_token_whose_holder_has_no_contact_is_recorded_not_answered(server, sink):
    settings, games, controller = server
    gid, pid, token = setup_game(games)
    other, other_token, _ = add_power(games, gid, "gm", "Radagast", "champion", "wizard")
    send(
        settings,
        MailIntake(games, settings.mail_domain).address_for(gid, other_token),
        "ready",
        "<nocontact@example.org>",
        sender="victim@example.com",
    )
    time.sleep(0.5)
    assert sink.messages == []
    assert [(r[0], r[1], r[2]) for r in ledger_rows(controller)] == [(other, None, "no address")]


def test_mail_1_an_oversized_mail_is_refused_at_smtp_with_552(server, sink):
    from api.mail_intake import MAX_MAIL_BYTES

    settings, games, controller = server
    gid, pid, token = setup_game(games)
    address = MailIntake(games, settings.mail_domain).address_for(gid, token)
    huge = "action: Plot\n  description: " + "d" * (5 * 1024 * 1024) + "\n"
    with smtplib.SMTP(settings.smtpd_host, settings.smtpd_port, timeout=30) as smtp:
        smtp.ehlo()
        assert int(smtp.esmtp_features["size"]) == MAX_MAIL_BYTES  # announced, so senders know before
        with pytest.raises((smtplib.SMTPSenderRefused, smtplib.SMTPDataError)) as refused:
            smtp.sendmail("gandalf@example.org", [address], f"Subject: big\r\n\r\n{huge}".encode())
    assert refused.value.smtp_code == 552
    time.sleep(0.3)
    assert games.view(gid, pid)["my_actions"] == [] and ledger_rows(controller) == []


def raw_send(settings: Settings, to: str, raw: bytes) -> None:
    with smtplib.SMTP(settings.smtpd_host, settings.smtpd_port, timeout=10) as smtp:
        smtp.sendmail("gandalf@example.org", [to], raw)


def test_latin_1_subjects_are_decoded_encoded_word_and_raw_8_bit(server, sink):
    settings, games, controller = server
    gid, pid, token = setup_game(games)
    address = MailIntake(games, settings.mail_domain).address_for(gid, token)
    head = f"From: gandalf@example.org\r\nTo: {address}\r\n"
    raw_send(
        settings,
        address,
        head.encode() + b"Subject: =?iso-8859-1?q?Tour_de_R=E9mi?=\r\nMessage-ID: <latin-1@x>\r\n\r\nready\r\n",
    )
    raw_send(
        settings,
        address,
        head.encode() + b"Subject: Tour de R\xe9mi \xe0 Orl\xe9ans\r\n"
        b"Message-ID: <latin-2@x>\r\nContent-Type: text/plain; charset=iso-8859-1\r\n"
        b"Content-Transfer-Encoding: 8bit\r\n\r\ntimezone Europe/Paris\r\n# \xe0 bient\xf4t\r\n",
    )
    replies = sink.wait_for(2)
    subjects = ["Recorded: Tour de Rémi", "Recorded: Tour de Rémi à Orléans"]
    assert sorted(m["Subject"] for m in replies) == [f"[By mail · Powers] {s}" for s in subjects]
    assert sorted(r[3] for r in ledger_rows(controller)) == subjects  # the ledger keeps the subject as queued


def test_an_unknown_charset_is_decoded_with_replacement_and_answered(server, sink):
    settings, games, controller = server
    gid, pid, token = setup_game(games)
    address = MailIntake(games, settings.mail_domain).address_for(gid, token)
    raw_send(
        settings,
        address,
        f"From: gandalf@example.org\r\nTo: {address}\r\n".encode()
        + b"Subject: =?x-klingon?q?Qapla=E9?=\r\nMessage-ID: <klingon@x>\r\n"
        b"Content-Type: text/plain; charset=x-klingon\r\nContent-Transfer-Encoding: 8bit\r\n\r\n"
        b"ready\r\n# sign\xe9\r\n",
    )
    [reply] = sink.wait_for(1)
    assert reply["Subject"] == "[By mail · Powers] Recorded: Qapla\ufffd" and "Marked ready" in Sink.text(reply)


def test_a_row_claimed_by_one_worker_is_not_sent_by_another_until_its_lease_lapses(tmp_path):
    """The outbox hands a row to several workers (broker task, sweep): only the claimant sends it."""
    from workers import ledger, mail

    settings = Settings(data_dir=tmp_path)
    games = build_games(settings)
    projector = build_projector(games, settings)
    try:
        db = projector.db
        row_id = mail.record(
            db, game_id="g", version=1, recipient="p", address="p@example.org", kind="note", subject="s", body="b"
        )
        now = datetime.now(timezone.utc)
        assert mail.due(db, now) == [row_id]
        assert mail.claim(db, row_id, now) is True
        assert mail.claim(db, row_id, now + timedelta(minutes=1)) is False  # another worker: not yours
        assert mail.deliver(db, settings, row_id, now + timedelta(minutes=1)) == "sending"  # nothing sent
        assert mail.due(db, now + timedelta(minutes=1)) == []
        later = now + ledger.LEASE + timedelta(seconds=1)  # the claimant died: handed out again
        assert mail.due(db, later) == [row_id] and mail.claim(db, row_id, later) is True
    finally:
        close_services(games, projector)


def test_mail_1_an_outlook_mail_with_a_style_sheet_and_a_quoted_notice_is_recorded(server, sink):
    from tests.mail import samples

    settings, games, controller = server
    gid, pid, token = setup_game(games)
    msg = EmailMessage()
    msg["From"] = "gandalf@example.org"
    msg["To"] = MailIntake(games, settings.mail_domain).address_for(gid, token)
    msg["Subject"] = "RE: Planning is open"
    msg["Message-ID"] = "<outlook-1@example.org>"
    msg.set_content(samples.OUTLOOK_HTML, subtype="html")
    with smtplib.SMTP(settings.smtpd_host, settings.smtpd_port, timeout=10) as smtp:
        smtp.send_message(msg)
    body = Sink.text(sink.wait_for(1)[0])
    assert "Action 1" in body and "'Scout the pass', private" in body and "Marked ready" in body, body
    [action] = games.view(gid, pid)["my_actions"]
    assert action["title"] == "Scout the pass"
