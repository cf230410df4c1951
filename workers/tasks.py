"""Celery tasks: thin, idempotent, named as verbs. Every one is safe to run twice."""

from __future__ import annotations

import json
import logging
from datetime import datetime

from domain.errors import DomainError
from projections.stored import Payloads
from workers import claims, push, runtime, webhooks
from workers.app import celery_app

log = logging.getLogger("emissary.workers")


@celery_app.task(name="workers.sweep", acks_late=True)
def sweep() -> dict:
    """Find due windows in the deadlines read model and hand each to a close task; schedule ETA closes
    for windows due within minutes; queue due reminders."""
    projector = runtime.projector()
    settings = runtime.settings()
    projector.catch_up(max_batches=4)  # the runner keeps up; this guards against a stalled runner
    now = runtime.now()
    due = claims.claim_due(projector.db, now, settings.claim_seconds)
    for game_id, window_id in due:
        close_window.delay(game_id, window_id)
    soon = claims.soon_due(projector.db, now, settings.eta_lookahead_seconds)
    for game_id, window_id, closes_at in soon:
        close_window.apply_async((game_id, window_id), eta=datetime.fromisoformat(closes_at.replace("Z", "+00:00")))
    reminders = claims.reminders_due(projector.db, now)
    for game_id, window_id in reminders:
        queue_reminders.delay(game_id, window_id)
    mails = dispatch_mail(now)
    hooks = webhooks.dispatch(now)  # issue 31: each game's webhooks, through their own delivery ledger
    pushes = push.dispatch(now)  # issue 31: each seat's devices, through the push ledger
    if due or soon or reminders or mails["mails"] or hooks["webhooks"]:
        log.info(
            "sweep at=%s due=%s eta=%s reminders=%s mails=%s webhooks=%s",
            now.isoformat(),
            len(due),
            len(soon),
            len(reminders),
            mails["mails"],
            hooks["webhooks"],
        )
    return {"due": len(due), "eta": len(soon), "reminders": len(reminders), **mails, **hooks, **pushes}


@celery_app.task(name="workers.close_window", acks_late=True)
def close_window(game_id: str, window_id: str) -> bool:
    """Close one window if it is due; a no-op if closed already (or not yet due, for an early ETA)."""
    try:
        closed = runtime.games().close_due_window(game_id, window_id)
    except DomainError as err:
        log.warning("window not closed game=%s window=%s: %s", game_id, window_id, err.message)
        return False
    if closed:
        log.info("window closed game=%s window=%s at=%s", game_id, window_id, runtime.now().isoformat())
    return closed


@celery_app.task(name="workers.queue_reminders", acks_late=True)
def queue_reminders(game_id: str, window_id: str) -> list[str]:
    """Record the reminders now due for a window (each offset once per window)."""
    recipients = runtime.games().queue_due_reminders(game_id, window_id)
    if recipients:
        log.info("reminders queued game=%s window=%s to=%s", game_id, window_id, ",".join(recipients))
    return recipients


@celery_app.task(name="workers.deliver_mail", acks_late=True)
def deliver_mail(ledger_id: str) -> str:
    """Send one due mail of the outbox over SMTP; a failure is queued again with backoff (the sweep
    hands it out when due); a sent mail is never sent again."""
    from application.mails import Framer
    from workers import mail

    db = runtime.projector().db
    settings = runtime.settings()
    status = mail.deliver(db, settings, ledger_id, runtime.now(), frame=Framer(runtime.games(), settings))
    if status == "sent":
        log.info("mail sent id=%s", ledger_id)
    elif status in ("queued", "failed"):
        log.warning("mail not sent id=%s status=%s", ledger_id, status)
    return status


def hand_off(db, ledger_id: str) -> bool:
    """Hand a queued row of the outbox to a worker now, if the broker answers; if it does not, the
    row stays queued and the sweep hands it out (the caller has recorded it, so it is not lost)."""
    from kombu.exceptions import OperationalError

    from workers import mail

    try:
        with celery_app.connection_for_write() as conn:  # one quick try: a down broker must not hold the caller
            conn.ensure_connection(max_retries=1, interval_start=0, interval_step=0.2, timeout=2)
            deliver_mail.apply_async((ledger_id,), retry=False, connection=conn)
    except (OperationalError, OSError) as err:
        log.warning("mail left for the sweep id=%s: broker unreachable: %s", ledger_id, err)
        return False
    mail.handed(db, [ledger_id], runtime.now())
    return True


def worded(db, games, note: dict, body: dict) -> tuple[str, str]:
    """A notification's subject and text in its reader's language (``application.mails.word_note``), from the
    event as the audit keeps it; as the projector queued it if its game cannot be loaded here."""
    from application.mails import word_note

    rows = db.query("SELECT data FROM rm_audit WHERE game_id = ? AND version = ?", (note["game_id"], note["version"]))
    # The payload is read from the event store (issue 30: the audit points at it), as the audit kept it.
    payload = Payloads(games).of(note["game_id"], rows and [(note["version"], rows[0][0])]).get(note["version"])
    try:
        return games.read(note["game_id"], lambda g: word_note(g, note["kind"], note["recipient"], body, payload))
    except DomainError:
        return body.get("subject", note["kind"]), body.get("text", "")
    except Exception:  # noqa: BLE001 - a wording that fails must not hold up the outbox: it goes as the projector kept it
        log.exception("mail worded as kept game=%s version=%s kind=%s", note["game_id"], note["version"], note["kind"])
        return body.get("subject", note["kind"]), body.get("text", "")


def policy(db, games, note: dict, body: dict, now: datetime):
    """What the seat's preferences and quiet hours make of a notification's mail (``application.notify_policy``);
    at once if its game cannot be loaded here."""
    from application import notify_policy

    rows = db.query("SELECT at FROM rm_audit WHERE game_id = ? AND version = ?", (note["game_id"], note["version"]))
    at = str(rows[0][0]) if rows else None  # when its event happened: a new step that waits on the seat is its move
    try:
        return games.read(
            note["game_id"],
            lambda g: notify_policy.for_note(g, note["recipient"], "mail", note["kind"], body, now, at=at),
        )
    except DomainError:
        return notify_policy.Decision(notify_policy.NOW)


def send_digests(db, games, now: datetime) -> int:
    """Each seat's one daily digest that is due (issue 31): what every channel gathered for it, each piece of news
    once; by mail, or, for a seat with no address, as one push to each of its devices; held while its quiet hours
    last. How many went."""
    from application import notify_policy
    from application.mails import digest_subject
    from workers import mail
    from workers import push as pushes

    digests = 0
    for game_id, recipient in mail.due_digests(db, now):
        rows = mail.digest_rows(db, game_id, recipient)
        if rows:
            address = games.contact_of(game_id, recipient)[0]
            text = "\n\n".join(f"{r['subject']}\n{r['body']}" for r in rows)
            subject = games.read(game_id, lambda g: digest_subject(g, recipient, len(rows)))
            quiet = games.read(game_id, lambda g: notify_policy.quiet_end_of(g, recipient, now))
            key = f"digest-{rows[-1]['id']}"
            digest_id = mail.record(
                db,
                game_id=game_id,
                version=None,
                recipient=recipient,
                address=address,
                kind=key,
                subject=subject,
                body=text,
                status=("queued" if quiet is None else mail.HELD) if address else "no address",
                due_at=quiet,
            )
            if digest_id and address and quiet is None:
                deliver_mail.delay(digest_id)
                digests += 1
            elif digest_id and not address:  # a seat with push alone: one push per device, its quiet hours kept
                name = games.read(game_id, lambda g: g.state.name)
                pushed = pushes.digest(db, game_id, recipient, f"{name}: {subject}", text, key, now, until=quiet)
                for row_id in pushed:
                    pushes.deliver_push.delay(row_id)
                digests += bool(pushed)
        for r in mail.ledger(db, game_id, recipient):
            if r["status"] == mail.DIGEST:
                mail.mark(db, r["id"], "in digest")
    return digests


def dispatch_mail(now: datetime) -> dict:
    """The sweep's part for mail: new notifications into the ledger, digests, and lost sends."""
    from application.mails import reader_of
    from workers import mail

    db = runtime.projector().db
    games = runtime.games()
    sent = digests = 0
    for note in mail.new_notifications(db):
        body = json.loads(note["body"])
        address = games.contact_of(note["game_id"], note["recipient"])[0]
        decision = policy(db, games, note, body, now)  # the seat's preferences and quiet hours (issue 31)
        status = mail.STATUS[decision.action] if address else "no address"
        subject, text = worded(db, games, note, body)
        reply_to = None
        if note["kind"] == "post" and body.get("thread_id"):  # issue 16: a reply lands in the thread
            from application.mail_addresses import talk_address

            game = games.get_game(note["game_id"], for_update=False)
            settings = runtime.settings()
            reply_to = talk_address(
                settings.mail_domain, settings.secret_key, game, note["recipient"], body["thread_id"]
            )
            if reply_to:
                with reader_of(game, note["recipient"]).words():
                    text += mail.reply_note(reply_to)
        reminder = note["kind"].startswith("reminder ")  # one per window, threshold and reader (issue 28)
        row_id = mail.record(
            db,
            game_id=note["game_id"],
            version=mail.REMINDERS if reminder else note["version"],
            recipient=note["recipient"],
            address=address,
            kind=note["kind"],
            subject=subject,
            body=text,
            status=status,
            reply_to=reply_to,
            due_at=decision.until,
        )
        if row_id and status == "queued":
            deliver_mail.delay(row_id)
            mail.handed(db, [row_id], now)
            sent += 1
    digests = send_digests(db, games, now)
    mail.release_held(db, now)  # the mails whose readers' quiet hours have ended (issue 31)
    again = mail.due(db, now)
    for row_id in again:
        deliver_mail.delay(row_id)
    mail.handed(db, again, now)
    return {"mails": sent, "digests": digests}
