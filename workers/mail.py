"""Mail out: a delivery ledger (queued, sent, failed, bounced; each row linked to the event that
caused it), an SMTP sender, and the sweep's part (enqueue deliveries, build daily digests).

The ledger lives beside the read models but is never rebuilt: it is the record of what was sent (its
table is the migrations', ``projections/migrations``).
It is also the outbox: a mail is due once its 'queued' row is written, whatever happens to the
broker; a Celery task is only the fast path. ``deliver`` claims a row before sending it (a lease
in ``due_at``), so a row handed to several workers is sent once, and the sweep hands out every
queued row that is due (new, or retrying after a failure with backoff, or whose lease ran out).
Notifications come from the outbox read model, which holds for each event only the recipients who
may see it, with a text built from that event alone; so a mail never carries what its reader may
not see.
"""

from __future__ import annotations

import smtplib
import ssl
import uuid
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import make_msgid

from projections.db import ReadModelDB, utc_key
from projections.settings import Settings

MAX_ATTEMPTS = 9
LEASE = timedelta(minutes=10)  # a claimed row whose worker died is handed out again after this
GRACE = timedelta(seconds=60)  # a row handed to the broker is handed out again only if still queued after this


class Mailer:
    """Sends one message over SMTP (host, port, TLS and credentials from settings)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def send(self, to: str, subject: str, body: str, *, reply_to: str | None = None) -> str:
        s = self.settings
        msg = EmailMessage()
        msg["From"] = s.mail_from
        msg["To"] = to
        msg["Subject"] = subject
        msg["Message-ID"] = make_msgid(domain=s.mail_domain)
        if reply_to:
            msg["Reply-To"] = reply_to
        msg.set_content(body)
        if s.smtp_tls == "ssl":
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(
                s.smtp_host, s.smtp_port, context=ssl.create_default_context(), timeout=30
            )
        else:
            smtp = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=30)
        with smtp:
            if s.smtp_tls == "starttls":
                smtp.starttls(context=ssl.create_default_context())
            if s.smtp_user:
                smtp.login(s.smtp_user, s.smtp_password)
            smtp.send_message(msg)
        return msg["Message-ID"]


def record(
    db: ReadModelDB,
    *,
    game_id: str,
    version: int | None,
    recipient: str,
    address: str | None,
    kind: str,
    subject: str,
    body: str,
    status: str = "queued",
    reply_to: str | None = None,
) -> str | None:
    """Add a row to the ledger (once per event, recipient and kind); returns its id, or None if it was there.
    ``reply_to``: where a reply goes (a post's notification: the reader's reply address for that thread)."""
    row_id = uuid.uuid4().hex
    now = datetime.now(timezone.utc).isoformat()
    with db.transaction() as cur:
        cur.execute(
            "INSERT INTO mail_ledger (id, game_id, version, recipient, address, kind, subject, body, status, "
            "created_at, due_at, reply_to) VALUES (?,?,?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
            (
                row_id,
                game_id,
                version if version is not None else 0,
                recipient,
                address,
                kind,
                subject,
                body,
                status,
                now,
                utc_key(datetime.now(timezone.utc)),
                reply_to,
            ),
        )
        found = cur.execute("SELECT id FROM mail_ledger WHERE id = ?", (row_id,)).fetchone()
    return row_id if found else None


def record_reply(db: ReadModelDB, reply, message_id: str, address: str | None) -> str:
    """Queue the answer to a mail for the holder's contact address (no address: recorded, not sent);
    a mail delivered again is answered again, identically."""
    common = dict(
        game_id=reply.game_id or "-",
        version=None,
        recipient=reply.principal or "unknown",
        address=address,
        subject=" ".join(reply.subject.split()),  # a header is one line
        body=reply.body,
        status="queued" if address else "no address",
    )
    return record(db, kind=f"receipt {message_id}", **common) or record(
        db, kind=f"receipt {message_id} again {uuid.uuid4().hex[:8]}", **common
    )


def mark(
    db: ReadModelDB,
    row_id: str,
    status: str,
    *,
    message_id: str | None = None,
    error: str | None = None,
    attempt: bool = False,
) -> None:
    with db.transaction() as cur:
        cur.execute(
            "UPDATE mail_ledger SET status = ?, message_id = COALESCE(?, message_id), last_error = ?, "
            "attempts = attempts + ?, sent_at = CASE WHEN ? = 'sent' THEN ? ELSE sent_at END WHERE id = ?",
            (status, message_id, error, 1 if attempt else 0, status, datetime.now(timezone.utc).isoformat(), row_id),
        )


def _backoff(attempts: int) -> timedelta:
    return timedelta(seconds=min(600, 5 * 2**attempts))


def claim(db: ReadModelDB, row_id: str, now: datetime) -> bool:
    """Take a row for sending if nobody holds it (queued, failed, or claimed by a worker whose lease ran out)."""
    with db.transaction() as cur:
        found = cur.execute(
            "UPDATE mail_ledger SET status = 'sending', due_at = ? WHERE id = ? AND (status IN ('queued', 'failed') "
            "OR (status = 'sending' AND (due_at IS NULL OR due_at <= ?))) RETURNING id",
            (utc_key(now + LEASE), row_id, utc_key(now)),
        ).fetchone()
    return found is not None


def handed(db: ReadModelDB, row_ids: list[str], now: datetime) -> None:
    """Rows handed to the broker: the sweep leaves them to their task for a while."""
    with db.transaction() as cur:
        cur.executemany(
            "UPDATE mail_ledger SET due_at = ? WHERE id = ? AND status = 'queued'",
            [(utc_key(now + GRACE), row_id) for row_id in row_ids],
        )


def deliver(db: ReadModelDB, settings: Settings, row_id: str, now: datetime | None = None) -> str:
    """Send one row of the outbox over SMTP unless another worker holds it; on failure queue it again
    with backoff, until it has failed MAX_ATTEMPTS times. A sent mail is never sent again. Returns
    the row's status."""
    now = now or datetime.now(timezone.utc)
    if not claim(db, row_id, now):
        item = row(db, row_id)
        return item["status"] if item else "missing"
    item = row(db, row_id)
    try:
        message_id = Mailer(settings).send(item["address"], item["subject"], item["body"], reply_to=item["reply_to"])
    except (OSError, smtplib.SMTPException, ValueError) as err:  # ValueError: a header the mail cannot carry
        attempts = item["attempts"] + 1
        status = "failed" if attempts >= MAX_ATTEMPTS else "queued"
        with db.transaction() as cur:
            cur.execute(
                "UPDATE mail_ledger SET status = ?, attempts = ?, last_error = ?, due_at = ? WHERE id = ?",
                (status, attempts, str(err)[:500], utc_key(now + _backoff(attempts)), row_id),
            )
        return status
    mark(db, row_id, "sent", message_id=message_id, attempt=True)
    return "sent"


def row(db: ReadModelDB, row_id: str) -> dict | None:
    rows = db.query(
        "SELECT id, game_id, version, recipient, address, kind, subject, body, status, attempts, reply_to "
        "FROM mail_ledger WHERE id = ?",
        (row_id,),
    )
    if not rows:
        return None
    keys = ["id", "game_id", "version", "recipient", "address", "kind", "subject", "body", "status", "attempts"]
    keys.append("reply_to")
    return dict(zip(keys, rows[0]))


def ledger(db: ReadModelDB, game_id: str, recipient: str | None = None) -> list[dict]:
    """The ledger of a game: the GM sees every row; a player their own ("was I told?")."""
    sql = (
        "SELECT id, version, recipient, kind, subject, status, attempts, last_error, created_at, sent_at, body "
        "FROM mail_ledger WHERE game_id = ?"
    )
    params: list = [game_id]
    if recipient:
        sql += " AND recipient = ?"
        params.append(recipient)
    keys = [
        "id",
        "version",
        "recipient",
        "kind",
        "subject",
        "status",
        "attempts",
        "last_error",
        "created_at",
        "sent_at",
        "body",
    ]
    return [dict(zip(keys, r)) for r in db.query(sql + " ORDER BY created_at, version", params)]


def new_notifications(db: ReadModelDB, limit: int = 500) -> list[dict]:
    """Outbox rows that have no ledger row yet."""
    rows = db.query(
        "SELECT o.game_id, o.version, o.recipient, o.kind, o.body FROM rm_outbox o WHERE NOT EXISTS ("
        "SELECT 1 FROM mail_ledger m WHERE m.game_id = o.game_id AND m.version = o.version "
        "AND m.recipient = o.recipient AND m.kind = o.kind) ORDER BY o.game_id, o.version LIMIT ?",
        (limit,),
    )
    return [{"game_id": g, "version": v, "recipient": r, "kind": k, "body": b} for g, v, r, k, b in rows]


def due_digests(db: ReadModelDB, now: datetime) -> list[tuple[str, str]]:
    """(game, recipient) whose queued digest rows are a day old."""
    edge = (now - timedelta(days=1)).isoformat()
    rows = db.query(
        "SELECT game_id, recipient FROM mail_ledger WHERE status = 'digest' GROUP BY game_id, recipient "
        "HAVING MIN(created_at) <= ?",
        (edge,),
    )
    return [(g, r) for g, r in rows]


def due(db: ReadModelDB, now: datetime, limit: int = 200) -> list[str]:
    """Rows of the outbox due now: never handed to a worker (the broker was down), retrying after a
    failure, or claimed by a worker that died."""
    rows = db.query(
        "SELECT id FROM mail_ledger WHERE status IN ('queued', 'sending') AND "
        "(due_at IS NULL OR due_at <= ?) ORDER BY due_at LIMIT ?",
        (utc_key(now), limit),
    )
    return [r[0] for r in rows]
