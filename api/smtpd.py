"""``emissary smtpd``: an SMTP server (aiosmtpd) that takes turns by email. Each accepted or refused
mail is answered by mail, recorded in the delivery ledger."""

from __future__ import annotations

import asyncio
import email
import hashlib
import logging
from email import policy

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope, Session

from projections.mail import ADDRESS, MailIntake
from projections.projector import Projector
from projections.settings import Settings
from workers import mail

log = logging.getLogger("emissary.smtpd")


def parts(message: email.message.EmailMessage) -> tuple[str | None, str | None]:
    """The plain and HTML bodies of a mail."""
    text = html = None
    for part in message.walk() if message.is_multipart() else [message]:
        if part.get_content_maintype() == "multipart" or part.get_filename():
            continue
        kind = part.get_content_type()
        if kind == "text/plain" and text is None:
            text = part.get_content()
        elif kind == "text/html" and html is None:
            html = part.get_content()
    return text, html


class TurnHandler:
    """aiosmtpd handler: accept mail for secret reply addresses; apply the turn; reply."""

    def __init__(self, intake: MailIntake, projector: Projector, settings: Settings) -> None:
        self.intake = intake
        self.projector = projector
        self.settings = settings
        mail.ensure_tables(projector.db)

    async def handle_RCPT(self, server, session: Session, envelope: Envelope, address: str, rcpt_options):
        if not ADDRESS.match(address):
            return "550 No such mailbox"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session: Session, envelope: Envelope) -> str:
        message = email.message_from_bytes(envelope.content, policy=policy.default)
        message_id = message["Message-ID"] or f"<{hashlib.sha256(envelope.content).hexdigest()}@unidentified>"
        reply_to = str(message["Reply-To"] or message["From"] or envelope.mail_from)
        text, html = parts(message)
        loop = asyncio.get_running_loop()
        for rcpt in envelope.rcpt_tos:
            await loop.run_in_executor(None, self.answer, rcpt, message_id, text, html,
                                       str(message["Subject"] or ""), reply_to)
        return "250 Message accepted"

    def answer(self, rcpt: str, message_id: str, text: str | None, html: str | None, subject: str,
               reply_to: str) -> None:
        reply = self.intake.receive(rcpt, message_id, text, html, subject)
        row_id = mail.record_reply(self.projector.db, reply, message_id, reply_to)
        try:
            sent_id = mail.Mailer(self.settings).send(reply_to, reply.subject, reply.body)
            mail.mark(self.projector.db, row_id, "sent", message_id=sent_id, attempt=True)
        except OSError as err:  # the sweep sends it again later
            mail.mark(self.projector.db, row_id, "queued", error=str(err)[:500], attempt=True)
        log.info("mail answered message=%s accepted=%s", message_id, reply.accepted)


def start(settings: Settings, host: str | None = None, port: int | None = None) -> Controller:
    """Start the SMTP server in a background thread; returns its controller (``.stop()`` to stop)."""
    from projections.store import build_games, build_projector

    games = build_games(settings)
    projector = build_projector(games, settings)
    handler = TurnHandler(MailIntake(games, settings.mail_domain), projector, settings)
    controller = Controller(handler, hostname=host or settings.smtpd_host, port=port or settings.smtpd_port)
    controller.start()
    return controller
