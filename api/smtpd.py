"""``emissary smtpd``: an SMTP server (aiosmtpd) that takes turns by email. Each accepted or refused
mail is answered by mail, recorded in the delivery ledger.

Only secret reply addresses of the configured mail domain whose token is valid are accepted at
RCPT (anything else: 550, before any data is sent), a mail is at most ``MAX_MAIL_BYTES`` (552),
and the answer goes only to the contact address the token's holder set, never to ``From:`` or
``Reply-To:`` (which anyone can forge). Headers and bodies in any charset, raw 8-bit headers
included, are decoded; an unknown charset is decoded with replacement characters.
"""

from __future__ import annotations

import asyncio
import email
import hashlib
import logging
from email import policy
from email.message import EmailMessage

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import Envelope, Session

from api.mail_intake import MAX_MAIL_BYTES, MailIntake
from application.mails import Framer
from domain.errors import DomainError
from projections.projector import Projector
from projections.settings import Settings
from workers import mail

log = logging.getLogger("emissary.smtpd")
# A rule's refusal is answered by mail (the whole turn refused, line by line); anything else that keeps a mail
# from being recorded (a game still busy after every retry, a failing store) is temporary: a 5xx would make the
# sending server bounce a valid turn as permanently refused (issue 24), a 4xx makes it try again later.
TRY_LATER = "451 4.3.0 Try again later"


def _text(data: bytes, charset: str | None) -> str:
    """Bytes in their declared charset; an unknown one as UTF-8, and undeclared bytes as UTF-8 if they
    are, else Windows-1252 (which reads Latin-1 too); what cannot be read becomes a replacement character."""
    try:
        return data.decode(charset or "utf-8")
    except LookupError:
        return data.decode("utf-8", errors="replace")
    except UnicodeDecodeError:
        return data.decode(charset or "cp1252", errors="replace")


def header(message: EmailMessage, name: str) -> str:
    """A header as text: RFC 2047 encoded-words decoded (policy.default), and raw 8-bit bytes read as
    UTF-8 or, failing that, Latin-1/Windows-1252 rather than replaced."""
    for key, raw in message.raw_items():
        if key.lower() != name.lower():
            continue
        if any("\udc80" <= ch <= "\udcff" for ch in raw):  # raw 8-bit bytes (surrogateescape)
            raw = _text(raw.encode("ascii", "surrogateescape"), None)
            return str(policy.default.header_factory(name, raw.strip()))
        return str(message[name])
    return ""


def part_text(part: EmailMessage) -> str:
    """The text of a body part, in whatever charset it declares."""
    try:
        return part.get_content()
    except (LookupError, UnicodeError):  # an unknown charset
        payload = part.get_payload(decode=True)  # a leaf part's: its bytes
        return _text(payload if isinstance(payload, bytes) else b"", part.get_content_charset())


def parts(message: EmailMessage) -> tuple[str | None, str | None]:
    """The plain and HTML bodies of a mail."""
    text = html = None
    for part in message.walk() if message.is_multipart() else [message]:
        if part.get_content_maintype() == "multipart" or part.get_filename():
            continue
        kind = part.get_content_type()
        if kind == "text/plain" and text is None:
            text = part_text(part)
        elif kind == "text/html" and html is None:
            html = part_text(part)
    return text, html


class TurnHandler:
    """aiosmtpd handler: accept mail for secret reply addresses; apply the turn; reply."""

    def __init__(self, intake: MailIntake, projector: Projector, settings: Settings) -> None:
        self.intake = intake
        self.projector = projector
        self.settings = settings

    async def handle_RCPT(self, server, session: Session, envelope: Envelope, address: str, rcpt_options):
        if address.rpartition("@")[2].lower() != self.intake.domain.lower():
            return "550 5.7.1 Relaying denied: this server takes mail for its own domain only"
        try:
            holder = await asyncio.get_running_loop().run_in_executor(None, self.intake.holder, address)
        except Exception:  # noqa: BLE001 - the store failed us, not the sender: a 5xx would bounce the mail
            log.exception("recipient not checked: the store failed; answered 451")
            return TRY_LATER
        if holder is None:
            return "550 5.1.1 No such mailbox"
        if address.lower() not in (r.lower() for r in envelope.rcpt_tos):
            envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""  # the mail as received (``content`` too, with decode_data off)
        message = email.message_from_bytes(content, policy=policy.default)
        message_id = header(message, "Message-ID") or f"<{hashlib.sha256(content).hexdigest()}@unidentified>"
        text, html = parts(message)
        subject = header(message, "Subject")
        loop = asyncio.get_running_loop()
        try:
            for rcpt in envelope.rcpt_tos:
                await loop.run_in_executor(None, self.answer, rcpt, message_id, text, html, subject)
        except DomainError as err:  # the game was busy (409) after every retry: the sending server tries again later
            log.warning("mail deferred message=%s: %s", message_id, err.message)
            return TRY_LATER
        except Exception:  # noqa: BLE001 - not the sender's fault: a 5xx would bounce a valid turn for good
            log.exception("mail deferred message=%s: an unexpected failure", message_id)
            return TRY_LATER
        return "250 Message accepted"

    def answer(self, rcpt: str, message_id: str, text: str | None, html: str | None, subject: str) -> None:
        reply = self.intake.receive(rcpt, message_id, text, html, subject)
        if reply.principal is None:  # the address was replaced since RCPT: nobody to answer
            log.info("mail dropped message=%s: the address is no longer valid", message_id)
            return
        db = self.projector.db
        row_id = mail.record_reply(db, reply, message_id, self.intake.contact(reply))
        status = (
            mail.deliver(db, self.settings, row_id, frame=Framer(self.intake.games, self.settings))
            if mail.status(db, row_id) == "queued"
            else "no address"
        )  # the holder set no contact: recorded only
        log.info("mail answered message=%s accepted=%s reply=%s", message_id, reply.accepted, status)


def start(settings: Settings, host: str | None = None, port: int | None = None) -> Controller:
    """Start the SMTP server in a background thread; returns its controller (``.stop()`` to stop)."""
    from api.compose import build_games, build_projector

    games = build_games(settings)
    projector = build_projector(games, settings)
    handler = TurnHandler(
        MailIntake(games, settings.mail_domain, settings.secret_key, settings.public_url), projector, settings
    )
    controller = Controller(
        handler, hostname=host or settings.smtpd_host, port=port or settings.smtpd_port, data_size_limit=MAX_MAIL_BYTES
    )
    controller.start()
    return controller
