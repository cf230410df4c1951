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
not see. Moderation reaches the mail too (issue 24): a post's notification is read through ``moderated``,
which gives the text the post has now, so a post hidden before its mail goes out is never sent (the row
is ``withdrawn``), a post edited before it is sent with its edited text, and a reader's ledger and digest
show a hidden post's placeholder and only an edited post's current text; the GM's ledger keeps what was
queued, as the audit keeps every event.
"""

from __future__ import annotations

import json
import logging
import smtplib
import ssl
import uuid
from collections.abc import Callable, Mapping
from contextlib import nullcontext
from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any

from application.invitations import Withdrawn
from domain.platform.i18n import _
from domain.platform.posts import requote
from projections import logs
from projections.db import ReadModelDB, utc_key
from projections.posts import notification, shown_heads
from projections.settings import Settings
from workers.ledger import MAX_ATTEMPTS, Ledger, backoff

log = logging.getLogger("emissary.mail")
LEDGER = Ledger("mail_ledger", claimable=("queued", "failed"))
claim, handed, due = LEDGER.claim, LEDGER.handed, LEDGER.due


class Mailer:
    """Sends one message over SMTP (host, port, TLS and credentials from settings)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def send(
        self,
        to: str,
        subject: str,
        body: str,
        *,
        reply_to: str | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> str:
        """Send one mail; ``headers``: more of them (a game's thread: ``In-Reply-To``, ``References``)."""
        s = self.settings
        msg = EmailMessage()
        msg["From"] = s.mail_from
        msg["To"] = to
        msg["Subject"] = subject
        msg["Message-ID"] = make_msgid(domain=s.mail_domain)
        if reply_to:
            msg["Reply-To"] = reply_to
        for name, value in (headers or {}).items():
            msg[name] = value
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
    due_at: datetime | None = None,
) -> str | None:
    """Add a row to the ledger (once per event, recipient and kind); returns its id, or None if it was there.
    ``reply_to``: where a reply goes (a post's notification: the reader's reply address for that thread);
    ``due_at``: when a ``held`` row is released (the end of its reader's quiet hours, ``release_held``)."""
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
                utc_key(due_at or datetime.now(timezone.utc)),
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
    row_id = record(db, kind=f"receipt {message_id}", **common) or record(
        db, kind=f"receipt {message_id} again {uuid.uuid4().hex[:8]}", **common
    )
    assert row_id is not None, "a kind no row has yet is always added"
    return row_id


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


def deliver(
    db: ReadModelDB,
    settings: Settings,
    row_id: str,
    now: datetime | None = None,
    frame: Callable[[dict], Any] | None = None,
) -> str:
    """Send one row of the outbox over SMTP unless another worker holds it; on failure queue it again
    with backoff, until it has failed MAX_ATTEMPTS times. A sent mail is never sent again. Returns
    the row's status. ``frame`` (``application.mails.Framer``) frames a game's mail as it is sent: its game and
    ruleset, what waits on its reader, the link to their board (never kept in the ledger), its thread."""
    now = now or datetime.now(timezone.utc)
    if not claim(db, row_id, now):
        item = row(db, row_id)
        return item["status"] if item else "missing"
    found = row(db, row_id)
    if found is None:  # claimed above, so it is there
        return "missing"
    words = getattr(frame, "words", None)  # the reader's language, for the words moderation puts in (a placeholder)
    with words(found) if words is not None else nullcontext():
        item = moderated(db, [found], sending=True)[0]
    if item.get("moderated") == "hidden":  # hidden before its mail went out: its readers are not told of it
        mark(db, row_id, "withdrawn")
        return "withdrawn"
    try:
        framed = frame(item) if frame is not None else None
    except Withdrawn:  # an invitation withdrawn (or used) since it was queued: its link would not work
        mark(db, row_id, "withdrawn")
        return "withdrawn"
    except Exception:  # noqa: BLE001 - a frame that fails must not hold up the mail: it goes as the ledger keeps it
        log.exception("mail sent unframed id=%s", row_id)
        framed = None
    subject, body = (framed.subject, framed.body) if framed is not None else (item["subject"], item["body"])
    try:
        message_id = Mailer(settings).send(
            item["address"],
            subject,
            body,
            reply_to=item["reply_to"],
            headers=framed.headers if framed is not None else None,
        )
    except (OSError, smtplib.SMTPException, ValueError) as err:  # ValueError: a header the mail cannot carry
        attempts = item["attempts"] + 1
        status = "failed" if attempts >= MAX_ATTEMPTS else "queued"
        with db.transaction() as cur:
            cur.execute(
                "UPDATE mail_ledger SET status = ?, attempts = ?, last_error = ?, due_at = ? WHERE id = ?",
                (status, attempts, str(err)[:500], utc_key(now + backoff(attempts)), row_id),
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


def status(db: ReadModelDB, row_id: str) -> str | None:
    """A ledger row's status (queued, sent, ...), or None if there is no such row."""
    found = row(db, row_id)
    return found["status"] if found else None


def ledger(db: ReadModelDB, game_id: str, recipient: str | None = None) -> list[dict]:
    """The ledger of a game: the GM sees every row as it was queued; a player their own ("was I told?"), a
    post's notification as the post stands now (a hidden post's placeholder, an edited post's current text:
    ``moderated``), sent or not. Each post's row says whether it was ``moderated`` ("hidden", "edited")."""
    sql = (
        "SELECT id, version, recipient, kind, subject, status, attempts, last_error, created_at, sent_at, body, "
        "reply_to FROM mail_ledger WHERE game_id = ?"
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
        "reply_to",
    ]
    rows = [{**dict(zip(keys, r)), "game_id": game_id} for r in db.query(sql + " ORDER BY created_at, version", params)]
    rows = moderated(db, rows, as_sent=recipient is None)
    for r in rows:
        del r["game_id"], r["reply_to"]
        if recipient is None:  # every seat's mail: a seat's thread address would let its reader post as that seat
            r["body"] = logs.redact(r["body"])
    return rows


POST = "post"  # the kind of a post's notification (projections.projector queues it)
CHUNK = 500  # ids asked for in one query


def reply_note(address: str) -> str:
    """What a post's notification adds: where a reply goes (the reader's reply address for the thread), in the
    current language (the reader's, as the worker queues it)."""
    return "\n\n" + _("Reply to this mail (or write to {address}) to post in the thread.").format(address=address)


def moderated(db: ReadModelDB, rows: list[dict], *, as_sent: bool = False, sending: bool = False) -> list[dict]:
    """``rows`` of the ledger (each with ``game_id``, ``version``, ``kind``, ``body``, ``reply_to``), each post's
    notification as its readers may see it now (issue 24, item 6; the posts read models say how the post
    stands): a hidden post's body is a placeholder that gives the reason, an edited post's body its current
    text (unless the game shows earlier text, or ``sending``: a mail sent now says what the post says now).
    ``as_sent`` (the GM's ledger) keeps every body as it was queued. Every post's row gets ``moderated``:
    "hidden", "edited" or None."""

    def is_post(kind: str) -> bool:  # a post's row, as mail keeps it or as another channel gathered it ("push post")
        return kind == POST or kind.endswith(" " + POST)

    wanted: dict[str, set[int]] = {}
    for r in rows:
        if is_post(r["kind"]) and r["version"]:
            wanted.setdefault(r["game_id"], set()).add(int(r["version"]))
    stands = {gid: _posts_now(db, gid, sorted(versions)) for gid, versions in wanted.items()}
    out = []
    for r in rows:
        post = stands.get(r["game_id"], {}).get(r["version"]) if is_post(r["kind"]) else None
        if post is None:
            out.append({**r, "moderated": None} if is_post(r["kind"]) else r)
            continue
        if post["hidden"]:
            said = "hidden"
            reason = f": {post['reason']}" if post["reason"] else ""
            body = f"A post in {post['title']} was hidden{reason}."
        elif post["edited"] or post["requoted"]:
            said = "edited"
            body = notification(post["author"], post["thread_id"], post["title"], post["text"], post["rolls"])["text"]
            body += reply_note(r["reply_to"]) if r.get("reply_to") else ""
            if post["earlier_shown"] and not sending and not post["requoted"]:  # its readers may read it anyway
                body = r["body"]
        else:
            said, body = None, r["body"]
        out.append({**r, "moderated": said, "body": r["body"] if as_sent else body})
    return out


def _posts_now(db: ReadModelDB, game_id: str, versions: list[int]) -> dict[int, dict]:
    """How the posts made at ``versions`` of a game stand now, by version: the posts read model names the
    post made at each (a key lookup: its row keeps the version of its ``PostMade``) and says whether it is hidden
    or edited and what it says; ``requoted``: whether its quote of another post shows that post as it stands now
    (hidden, or edited), not what it copied."""
    named: dict[str, int] = {}
    for i in range(0, len(versions), CHUNK):
        part = versions[i : i + CHUNK]
        for version, post_id in db.query(
            f"SELECT version, post_id FROM rm_posts WHERE game_id = ? AND version IN ({','.join('?' * len(part))})",
            (game_id, *part),
        ):
            named[post_id] = version
    found: dict[int, dict] = {}
    ids = sorted(named)
    heads = shown_heads(db.query, game_id, ids)  # a reply's quote of a post hidden or edited since (issue 28)
    for i in range(0, len(ids), CHUNK):
        some = ids[i : i + CHUNK]
        for post_id, thread_id, title, author, text, rolls, edited_at, earlier_shown, hidden, reason in db.query(
            "SELECT p.post_id, p.thread_id, t.title, p.author, p.text, p.rolls, p.edited_at, p.earlier_shown, "
            "p.hidden, p.hidden_reason FROM rm_posts p JOIN rm_threads t ON t.game_id = p.game_id "
            f"AND t.thread_id = p.thread_id WHERE p.game_id = ? AND p.post_id IN ({','.join('?' * len(some))})",
            (game_id, *some),
        ):
            found[named[post_id]] = {
                "thread_id": thread_id,
                "title": title,
                "author": author,
                "text": requote(text, heads.get(post_id)),
                "requoted": post_id in heads,
                "rolls": json.loads(rolls),
                "edited": edited_at is not None,
                "earlier_shown": bool(earlier_shown),
                "hidden": bool(hidden),
                "reason": reason,
            }
    return found


def new_notifications(db: ReadModelDB, limit: int = 500) -> list[dict]:
    """Outbox rows that have no ledger row yet (a reminder: none for its window, threshold and reader, issue 28).

    A reminder sent before reminders were keyed by window and threshold has its ledger row under its event's
    version with the kind ``reminder``: it counts as sent, so that rebuilt read models (``projections rebuild``,
    ``emissary restore``) do not mail every past reminder again."""
    rows = db.query(
        "SELECT o.game_id, o.version, o.recipient, o.kind, o.body FROM rm_outbox o WHERE NOT EXISTS ("
        "SELECT 1 FROM mail_ledger m WHERE m.game_id = o.game_id AND m.version IN (o.version, ?) "
        "AND m.recipient = o.recipient AND (m.kind = o.kind OR (m.kind = ? AND o.kind LIKE ?)) "
        "AND (m.version = o.version OR o.kind LIKE ?)) "
        "ORDER BY o.game_id, o.version LIMIT ?",
        (REMINDERS, LEGACY_REMINDER, "reminder %", "reminder %", limit),
    )
    return [{"game_id": g, "version": v, "recipient": r, "kind": k, "body": b} for g, v, r, k, b in rows]


LEGACY_REMINDER = "reminder"  # the kind of a reminder's ledger row before issue 28, kept under its event's version
REMINDERS = 0  # the version a reminder's ledger row is kept under: one row per window, threshold and reader


def due_digests(db: ReadModelDB, now: datetime) -> list[tuple[str, str]]:
    """(game, recipient) whose queued digest rows are a day old."""
    edge = (now - timedelta(days=1)).isoformat()
    rows = db.query(
        "SELECT game_id, recipient FROM mail_ledger WHERE status = 'digest' GROUP BY game_id, recipient "
        "HAVING MIN(created_at) <= ?",
        (edge,),
    )
    return [(g, r) for g, r in rows]


# ---------------------------------------------------------------------- quiet hours and the one daily digest (issue 31)

HELD = "held"  # a mail waiting for the end of its reader's quiet hours (its ``due_at``); then queued as any other
DIGEST = "digest"  # gathered for its reader's daily digest
STATUS = {"now": "queued", "hold": HELD, "digest": DIGEST, "drop": "off"}  # a policy's decision, as a row's status


def release_held(db: ReadModelDB, now: datetime) -> int:
    """Queue the held mails whose readers' quiet hours have ended (the sweep then hands them out); how many."""
    with db.transaction() as cur:
        found = cur.execute(
            "UPDATE mail_ledger SET status = 'queued' WHERE status = ? AND due_at <= ? RETURNING id",
            (HELD, utc_key(now)),
        ).fetchall()
    return len(found)


def gather(
    db: ReadModelDB, *, channel: str, game_id: str, version: int, recipient: str, kind: str, subject: str, body: str
) -> str | None:
    """Gather a piece of news another channel (push) holds for the daily digest: one ledger row, kept under the
    channel's name (``push <kind>``), that the seat's one digest reads with its mail's (``digest_rows``)."""
    return record(
        db,
        game_id=game_id,
        version=version,
        recipient=recipient,
        address=None,
        kind=f"{channel} {kind}",
        subject=subject,
        body=body,
        status=DIGEST,
    )


GATHERED = ("push ",)  # the kinds' beginnings of rows another channel gathered for the digest
UNMAILED = ("off", "no address", "withdrawn")  # a mail's statuses that told its reader nothing


def digest_rows(db: ReadModelDB, game_id: str, recipient: str) -> list[dict]:
    """What a seat's daily digest says: every row gathered for it, from every channel, each piece of news once (a
    row another channel gathered is left out where the seat's mail has the same news, gathered or sent)."""
    rows = ledger(db, game_id, recipient)
    mailed = {
        (r["version"], r["kind"]) for r in rows if not r["kind"].startswith(GATHERED) and r["status"] not in UNMAILED
    }
    out = []
    for r in rows:
        if r["status"] != DIGEST:
            continue
        if r["kind"].startswith(GATHERED) and (r["version"], r["kind"].partition(" ")[2]) in mailed:
            continue
        out.append(r)
    return out
