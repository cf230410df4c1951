"""Mail out: a delivery ledger (queued, sent, failed, bounced; each row linked to the event that
caused it), an SMTP sender, and the sweep's part (enqueue deliveries, build daily digests).

The ledger lives beside the read models but is never rebuilt: it is the record of what was sent.
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

from projections.db import ReadModelDB
from projections.settings import Settings

DDL = """CREATE TABLE IF NOT EXISTS mail_ledger (
    id TEXT PRIMARY KEY, game_id TEXT NOT NULL, version INTEGER, recipient TEXT NOT NULL, address TEXT,
    kind TEXT NOT NULL, subject TEXT NOT NULL, body TEXT NOT NULL, message_id TEXT, status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT, created_at TEXT NOT NULL, sent_at TEXT)"""
INDEX = "CREATE UNIQUE INDEX IF NOT EXISTS mail_ledger_event ON mail_ledger (game_id, version, recipient, kind)"


def ensure_tables(db: ReadModelDB) -> None:
    if not db.auto_migrate:  # production: `emissary migrate` created them (projections/migrations)
        return
    with db.transaction() as cur:
        cur.execute(DDL)
        cur.execute(INDEX)


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
            smtp: smtplib.SMTP = smtplib.SMTP_SSL(s.smtp_host, s.smtp_port, context=ssl.create_default_context(),
                                                  timeout=30)
        else:
            smtp = smtplib.SMTP(s.smtp_host, s.smtp_port, timeout=30)
        with smtp:
            if s.smtp_tls == "starttls":
                smtp.starttls(context=ssl.create_default_context())
            if s.smtp_user:
                smtp.login(s.smtp_user, s.smtp_password)
            smtp.send_message(msg)
        return msg["Message-ID"]


def record(db: ReadModelDB, *, game_id: str, version: int | None, recipient: str, address: str | None, kind: str,
           subject: str, body: str, status: str = "queued") -> str | None:
    """Add a row to the ledger (once per event, recipient and kind); returns its id, or None if it was there."""
    row_id = uuid.uuid4().hex
    now = datetime.now(timezone.utc).isoformat()
    with db.transaction() as cur:
        cur.execute("INSERT INTO mail_ledger (id, game_id, version, recipient, address, kind, subject, body, status, "
                    "created_at) VALUES (?,?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING",
                    (row_id, game_id, version if version is not None else 0, recipient, address, kind, subject,
                     body, status, now))
        found = cur.execute("SELECT id FROM mail_ledger WHERE id = ?", (row_id,)).fetchone()
    return row_id if found else None


def record_reply(db: ReadModelDB, reply, message_id: str, address: str) -> str:
    """Put the answer to a mail in the ledger; a mail delivered again is answered again, identically."""
    common = dict(game_id=reply.game_id or "-", version=None, recipient=reply.principal or "unknown",
                  address=address, subject=reply.subject, body=reply.body)
    return (record(db, kind=f"receipt {message_id}", **common)
            or record(db, kind=f"receipt {message_id} again {uuid.uuid4().hex[:8]}", **common))


def mark(db: ReadModelDB, row_id: str, status: str, *, message_id: str | None = None, error: str | None = None,
         attempt: bool = False) -> None:
    with db.transaction() as cur:
        cur.execute("UPDATE mail_ledger SET status = ?, message_id = COALESCE(?, message_id), last_error = ?, "
                    "attempts = attempts + ?, sent_at = CASE WHEN ? = 'sent' THEN ? ELSE sent_at END WHERE id = ?",
                    (status, message_id, error, 1 if attempt else 0, status,
                     datetime.now(timezone.utc).isoformat(), row_id))


def row(db: ReadModelDB, row_id: str) -> dict | None:
    rows = db.query("SELECT id, game_id, version, recipient, address, kind, subject, body, status, attempts "
                    "FROM mail_ledger WHERE id = ?", (row_id,))
    if not rows:
        return None
    keys = ["id", "game_id", "version", "recipient", "address", "kind", "subject", "body", "status", "attempts"]
    return dict(zip(keys, rows[0]))


def ledger(db: ReadModelDB, game_id: str, recipient: str | None = None) -> list[dict]:
    """The ledger of a game: the GM sees every row; a player their own ("was I told?")."""
    sql = ("SELECT id, version, recipient, kind, subject, status, attempts, last_error, created_at, sent_at, body "
           "FROM mail_ledger WHERE game_id = ?")
    params: list = [game_id]
    if recipient:
        sql += " AND recipient = ?"
        params.append(recipient)
    keys = ["id", "version", "recipient", "kind", "subject", "status", "attempts", "last_error", "created_at",
            "sent_at", "body"]
    return [dict(zip(keys, r)) for r in db.query(sql + " ORDER BY created_at, version", params)]


def new_notifications(db: ReadModelDB, limit: int = 500) -> list[dict]:
    """Outbox rows that have no ledger row yet."""
    rows = db.query(
        "SELECT o.game_id, o.version, o.recipient, o.kind, o.body FROM rm_outbox o WHERE NOT EXISTS ("
        "SELECT 1 FROM mail_ledger m WHERE m.game_id = o.game_id AND m.version = o.version "
        "AND m.recipient = o.recipient AND m.kind = o.kind) ORDER BY o.game_id, o.version LIMIT ?", (limit,))
    return [{"game_id": g, "version": v, "recipient": r, "kind": k, "body": b} for g, v, r, k, b in rows]


def due_digests(db: ReadModelDB, now: datetime) -> list[tuple[str, str]]:
    """(game, recipient) whose queued digest rows are a day old."""
    edge = (now - timedelta(days=1)).isoformat()
    rows = db.query("SELECT game_id, recipient FROM mail_ledger WHERE status = 'digest' GROUP BY game_id, recipient "
                    "HAVING MIN(created_at) <= ?", (edge,))
    return [(g, r) for g, r in rows]


def retryable(db: ReadModelDB, limit: int = 200) -> list[str]:
    """Rows still queued (their task was lost with a broker restart, say)."""
    edge = (datetime.now(timezone.utc) - timedelta(minutes=10)).isoformat()
    rows = db.query("SELECT id FROM mail_ledger WHERE status = 'queued' AND created_at <= ? LIMIT ?", (edge, limit))
    return [r[0] for r in rows]
