"""Push out (issue 31, item 2): what each seat's devices are pushed, their delivery ledger, and the sender.

The sweep reads each subscribed seat's rows of the outbox read model past what its devices have seen (the rows the
seat's mail is made from: an event's note goes only to those it is shown to), says what each is for push
(``application.push.kinds_of``), words it in the seat's language as its mail is worded, and writes one ledger row
per device that wants it (``application.push.wanted``). As for mail and webhooks, the ledger is the outbox: a row is
due once written; ``deliver`` claims it, encrypts the message for the device's keys (RFC 8291, aes128gcm, by
pywebpush), signs the request with the service's VAPID key (RFC 8292) and posts it to the device's push service,
connecting only to the addresses it checked. A push service that answers 404 or 410 says the subscription is gone:
it is dropped. Any other failure is queued again with backoff (``workers.ledger``).

No log line, ledger row or error names a subscription's endpoint or keys.
"""

from __future__ import annotations

import json
import logging
import uuid
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

from application import notify_policy, push
from domain.errors import DomainError
from projections.db import ReadModelDB, utc_key
from projections.settings import Settings
from workers import mail, runtime
from workers.app import celery_app
from workers.ledger import MAX_ATTEMPTS, Ledger, backoff
from workers.webhooks import Refused, post

if TYPE_CHECKING:
    from py_vapid import Vapid

log = logging.getLogger("emissary.push")

LEDGER = Ledger("push_ledger")
claim, handed, due = LEDGER.claim, LEDGER.handed, LEDGER.due
BATCH = 500  # outbox rows read per seat and sweep
GONE = (404, 410)  # RFC 8030 8.2: the subscription expired or was removed: never push to it again
HOPELESS = (400, 413)  # a request the push service will never take as it is
HELD = "held"  # a push waiting for the end of its seat's quiet hours (its ``due_at``; ``application.notify_policy``)


# ---------------------------------------------------------------------------------------------- what is pushed


def _thread_kind(db: ReadModelDB, game_id: str, thread_id: str) -> str | None:
    rows = db.query("SELECT kind FROM rm_threads WHERE game_id = ? AND thread_id = ?", (game_id, thread_id))
    return rows[0][0] if rows else None


def _post_now(db: ReadModelDB, game_id: str, version: int) -> dict | None:
    """How the post made at ``version`` stands now (hidden, edited, its text), if it is one."""
    from workers.mail import _posts_now

    return _posts_now(db, game_id, [version]).get(version)


def classify(db: ReadModelDB, game: Any, seat: str, note: str, body: dict, at: str) -> list[str]:
    """What one of the seat's outbox rows is, for push (``application.push.kinds_of``); ``at``: when its event
    happened."""
    thread_kind, mentioned = None, False
    if note == "post":
        thread_kind = _thread_kind(db, str(game.id), str(body.get("thread_id") or ""))
        if "mentions" in body:  # the seats the post named among its thread's readers, as it recorded them (issue 28)
            mentioned = seat in body["mentions"]
        else:  # a row queued before posts recorded their mentions
            said = str(body.get("text", "")).partition("\n\n")[2]
            held = game.seats.get(seat)
            mentioned = push.mentions(said, [getattr(held, "name", "") or "", seat])
    waits = False
    if not note.startswith("reminder ") and note not in ("post", "blocked"):
        waits = notify_policy.waits_on_at(game, seat, at)
    announced = (game.ruleset.announces or {}).get(note)
    return push.kinds_of(note, announced=announced, thread_kind=thread_kind, mentioned=mentioned, waits=waits)


def collect(db: ReadModelDB, games: Any, now: datetime) -> list[str]:
    """New ledger rows for what each subscribed seat's devices have not seen yet; their ids."""
    from workers.tasks import worded

    held: dict[tuple[str, str], list[tuple[str, str, int]]] = {}
    for sub_id, game_id, seat, kinds, seen in db.query(
        "SELECT id, game_id, seat, kinds, seen_version FROM push_subscriptions ORDER BY game_id, seat"
    ):
        held.setdefault((game_id, seat), []).append((sub_id, kinds, seen))
    made: list[str] = []
    for (game_id, seat), subs in held.items():
        after = min(seen for _, _, seen in subs)
        rows = db.query(
            "SELECT version, kind, body, created_at FROM rm_outbox WHERE game_id = ? AND recipient = ? AND version > ? "
            "ORDER BY version LIMIT ?",
            (game_id, seat, after, BATCH),
        )
        if not rows:
            continue
        upto = rows[-1][0]
        if len(rows) == BATCH and rows[0][0] != upto:  # the rest next sweep, the last version whole
            upto -= 1
            rows = [r for r in rows if r[0] <= upto]
        try:
            game = games.get_game(game_id, for_update=False)
        except DomainError as err:
            log.warning("push skips game=%s: %s", game_id, err.message)
            continue
        said = []
        for version, note, raw, at in rows:
            body = json.loads(raw)
            kinds = classify(db, game, seat, note, body, at)
            if not kinds or not any(push.wanted(k.split(","), kinds) for _, k, _ in subs):
                continue
            stands = _post_now(db, game_id, version) if note == "post" else None
            if stands is not None and stands["hidden"]:
                continue
            if stands is not None and stands["requoted"]:  # its quote shows what it quotes as it stands (issue 28)
                head = str(body.get("text", "")).partition("\n\n")[0]
                body = {**body, "text": f"{head}\n\n{stands['text']}"}
            # a step that waits on the seat is its move; a post that names it, a mention (as mail reads it, issue 28)
            found = next((k for k in ("move", "mention") if k in kinds), None)
            decision = notify_policy.for_note(game, seat, "push", note, body, now, found)  # its preferences (item 3)
            if decision.action == notify_policy.DROP:
                continue
            record = {"game_id": game_id, "version": version, "recipient": seat, "kind": note}
            title, text = worded(db, games, record, body)
            if decision.action == notify_policy.DIGEST:  # into the seat's one daily digest
                kept = mail.REMINDERS if note.startswith("reminder ") else version  # as its mail is kept
                mail.gather(
                    db,
                    channel="push",
                    game_id=game_id,
                    version=kept,
                    recipient=seat,
                    kind=note,
                    subject=title,
                    body=text,
                )
                continue
            msg = push.message(game_id, game.state.name, title, text, version)
            said.append((version, note, kinds, msg, decision.until))
        made += _record(db, game_id, seat, subs, said, upto, now)
    return made


def _record(db: ReadModelDB, game_id: str, seat: str, subs: list, said: list, upto: int, now: datetime) -> list[str]:
    """Ledger rows for each device's wanted notifications past what it has seen, and its new position, in one
    transaction (a sweep run twice adds nothing: one row per device, version and note)."""
    ids = []
    with db.transaction() as cur:
        for sub_id, kinds, seen in subs:
            for version, note, what, msg, until in said:
                kind = push.wanted(kinds.split(","), what)
                if version <= seen or kind is None:
                    continue
                row_id = uuid.uuid4().hex
                found = cur.execute(
                    "INSERT INTO push_ledger (id, sub_id, game_id, seat, version, kind, note, body, status, attempts, "
                    "created_at, due_at) VALUES (?,?,?,?,?,?,?,?,?,0,?,?) ON CONFLICT DO NOTHING RETURNING id",
                    (
                        row_id,
                        sub_id,
                        game_id,
                        seat,
                        version,
                        kind,
                        note,
                        json.dumps(msg),
                        HELD if until is not None else "queued",  # held: until the seat's quiet hours end
                        now.isoformat(),
                        utc_key(until or now),
                    ),
                ).fetchone()
                if found and until is None:
                    ids.append(row_id)
        cur.executemany(
            "UPDATE push_subscriptions SET seen_version = ? WHERE id = ? AND seen_version < ?",
            [(upto, sub_id, upto) for sub_id, _, _ in subs],
        )
    return ids


# ---------------------------------------------------------------------------------------------- sending

_KEYS: dict[tuple[str, str], Vapid] = {}


def vapid_key(settings: Settings) -> Vapid:
    """The VAPID key, read once per process."""
    at = (str(settings.data_dir), settings.vapid_private_key.get_secret_value())
    if at not in _KEYS:
        _KEYS[at] = push.vapid(settings)
    return _KEYS[at]


def request_of(settings: Settings, endpoint: str, p256dh: str, auth: str, msg: dict, urgency: str, now: datetime):
    """(body, headers) of one push: the message encrypted for the subscription (aes128gcm), the VAPID signature."""
    from pywebpush import WebPusher

    data = json.dumps(msg, separators=(",", ":"), ensure_ascii=False).encode()
    sub = {"endpoint": endpoint, "keys": {"p256dh": p256dh, "auth": auth}}
    body = WebPusher(sub).encode(data, "aes128gcm")["body"]
    headers = {
        "Content-Type": "application/octet-stream",
        "Content-Encoding": "aes128gcm",
        "TTL": str(settings.push_ttl_seconds),
        "Urgency": urgency,
        "User-Agent": "Emissary-Push",
        **push.vapid_headers(vapid_key(settings), settings, endpoint, now),
    }
    return body, headers


def _set(db: ReadModelDB, row_id: str, status: str, **extra: Any) -> None:
    sets = ", ".join(["status = ?", *(f"{k} = ?" for k in extra)])
    with db.transaction() as cur:
        cur.execute(f"UPDATE push_ledger SET {sets} WHERE id = ?", (status, *extra.values(), row_id))


def deliver(db: ReadModelDB, settings: Settings, row_id: str, now: datetime | None = None) -> str:
    """Push one row of the ledger unless another worker holds it. Sent: never sent again; the push service says
    the subscription is gone (404, 410): the subscription is dropped; another failure: queued again with backoff
    (until MAX_ATTEMPTS). Its status."""
    now = now or datetime.now(timezone.utc)
    if not claim(db, row_id, now):
        found = db.query("SELECT status FROM push_ledger WHERE id = ?", (row_id,))
        return found[0][0] if found else "missing"
    rows = db.query(
        "SELECT l.game_id, l.version, l.kind, l.note, l.body, l.attempts, s.id, s.endpoint, s.p256dh, s.auth "
        "FROM push_ledger l LEFT JOIN push_subscriptions s ON s.id = l.sub_id WHERE l.id = ?",
        (row_id,),
    )
    game_id, version, kind, note, body, attempts, sub_id, endpoint, p256dh, auth = rows[0]
    if sub_id is None:  # removed since
        _set(db, row_id, "withdrawn")
        return "withdrawn"
    msg = json.loads(body)
    if note == "post" and (stands := _post_now(db, game_id, version)) is not None:
        if stands["hidden"]:  # hidden by the GM before it went out
            _set(db, row_id, "withdrawn")
            return "withdrawn"
        if stands["edited"] or stands["requoted"]:
            msg = {**msg, "body": push.message(game_id, "", "", stands["text"], version)["body"]}
    urgency = "high" if kind == "deadline" else "normal"
    try:
        data, headers = request_of(settings, endpoint, p256dh, auth, msg, urgency, now)
        code = post(
            endpoint, data, headers, allow_private=settings.push_allow_private, timeout=settings.push_timeout_seconds
        )
        error = None if 200 <= code < 300 else f"HTTP {code}"
    except Refused as err:
        code, error = 0, f"refused: {err}"
    except OSError as err:  # the socket's or TLS's words: never the endpoint's path
        code, error = 0, f"{type(err).__name__}: {err}"[:300]
    except Exception as err:  # noqa: BLE001 - any other failure is a counted attempt, never a wedged row; its
        # message may repeat the endpoint, so only its kind is kept
        code, error = 0, type(err).__name__
    attempts += 1
    if error is None:
        _set(db, row_id, "sent", attempts=attempts, last_error=None, sent_at=now.isoformat())
        return "sent"
    if code in GONE:
        _set(db, row_id, "gone", attempts=attempts, last_error=error)
        push.drop(db, sub_id)
        log.info("push subscription gone game=%s sub=%s", game_id, sub_id)
        return "gone"
    status = "failed" if attempts >= MAX_ATTEMPTS or code in HOPELESS else "queued"
    _set(db, row_id, status, attempts=attempts, last_error=error, due_at=utc_key(now + backoff(attempts)))
    with db.transaction() as cur:
        cur.execute("UPDATE push_subscriptions SET last_error = ? WHERE id = ?", (error, sub_id))
    return status


# ---------------------------------------------------------------------------------------------- the workers' part


@celery_app.task(name="workers.deliver_push", acks_late=True)
def deliver_push(ledger_id: str) -> str:
    """Push one due row of the push ledger; a failure is queued again with backoff (the sweep hands it out when
    due); a sent row is never sent again; a gone subscription is dropped."""
    status = deliver(runtime.projector().db, runtime.settings(), ledger_id, runtime.now())
    if status == "sent":
        log.info("push sent id=%s", ledger_id)
    elif status in ("queued", "failed"):
        log.warning("push not sent id=%s status=%s", ledger_id, status)
    return status


def release_held(db: ReadModelDB, now: datetime) -> None:
    """Queue the pushes held for quiet hours that have ended (``due`` then hands them out)."""
    with db.transaction() as cur:
        cur.execute("UPDATE push_ledger SET status = 'queued' WHERE status = ? AND due_at <= ?", (HELD, utc_key(now)))


def digest(
    db: ReadModelDB, game_id: str, seat: str, title: str, text: str, key: str, now: datetime, until: datetime | None
) -> list[str]:
    """One push to each of a seat's devices with its daily digest (a seat with no mail address: issue 31, item 3),
    ``key`` naming the digest (one push per device and digest), held ``until`` the seat's quiet hours end; the ids
    of the rows to hand out now."""
    msg = {**push.message(game_id, "", title, text, 0), "title": title[: push.MAX_TITLE]}
    ids = []
    with db.transaction() as cur:
        for (sub_id,) in cur.execute(
            "SELECT id FROM push_subscriptions WHERE game_id = ? AND seat = ?", (game_id, seat)
        ).fetchall():
            row_id = uuid.uuid4().hex
            found = cur.execute(
                "INSERT INTO push_ledger (id, sub_id, game_id, seat, version, kind, note, body, status, attempts, "
                "created_at, due_at) VALUES (?,?,?,?,0,'digest',?,?,?,0,?,?) ON CONFLICT DO NOTHING RETURNING id",
                (
                    row_id,
                    sub_id,
                    game_id,
                    seat,
                    key,
                    json.dumps(msg),
                    HELD if until is not None else "queued",
                    now.isoformat(),
                    utc_key(until or now),
                ),
            ).fetchone()
            if found and until is None:
                ids.append(row_id)
    return ids


def dispatch(now: datetime) -> dict:
    """The sweep's part for push: new notifications into the ledger, each handed to a task, and the rows due
    again (retries after backoff, lost sends)."""
    db = runtime.projector().db
    new = collect(db, runtime.games(), now)
    release_held(db, now)
    again = [r for r in due(db, now) if r not in new]
    handed(db, [*new, *again], now)
    for row_id in [*new, *again]:
        deliver_push.delay(row_id)
    return {"pushes": len(new), "push_retries": len(again)}
