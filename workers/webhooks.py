"""Webhooks out (issue 31, item 1): what each game's webhooks announce, their delivery ledger, and the sender.

The sweep reads each game's public feed past what its webhooks have seen (``announce``: the audit rows every seat
is shown, in the feed's words; a deadline's reminder says only the window and its deadline, which the window's
public opening showed), writes one ledger row per webhook and announcement, and hands each to a task. As for mail,
the ledger is the outbox: a row is due once written, whatever happens to the broker; ``deliver`` claims it (a
lease in ``due_at``) so a row handed to several workers is sent once, a failure is queued again with backoff, and
the sweep hands out every row that is due. A webhook that fails ``webhook_pause_after`` deliveries in a row is
paused, what it has queued is held, and the GM (and any host) is told by mail.

No log line, ledger row or error names a webhook's URL or secret (the URL may carry the receiver's token): they
are read from the ``webhooks`` table at the moment of sending and go nowhere else.
"""

from __future__ import annotations

import http.client
import json
import logging
import socket
import ssl
import uuid
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from application import webhooks as hooks
from application.mails import names_of
from domain.errors import DomainError
from domain.ids import GM
from domain.platform import feed as words_of
from domain.platform.i18n import _
from domain.platform.posts import requote
from domain.platform.roles import WINDOWS
from projections.db import ReadModelDB, utc_key
from projections.posts import shown_heads
from projections.projector import payload
from projections.settings import Settings
from projections.stored import Payloads
from workers import runtime
from workers.app import celery_app
from workers.ledger import MAX_ATTEMPTS, Ledger, backoff

log = logging.getLogger("emissary.webhooks")

LEDGER = Ledger("webhook_ledger")
claim, handed, due = LEDGER.claim, LEDGER.handed, LEDGER.due
BATCH = 500  # feed rows read per game and sweep


# ---------------------------------------------------------------------------------------------- what is announced


def observer_feed(db: ReadModelDB, games: Any, game_id: str, after: int, upto: int) -> list[dict]:
    """What an observer of the game may read of it past ``after`` (up to ``upto``, at most a batch): the events
    every seat is shown, and the reminders of a deadline (whose words ``announce`` limits to the window's public
    deadline). The payloads are read from the event store (issue 30: the audit points at it)."""
    rows = db.query(
        "SELECT version, type, actor, at, scope, data FROM rm_audit WHERE game_id = ? AND version > ? "
        "AND version <= ? AND (scope = ? OR type = 'RemindersQueued') ORDER BY version LIMIT ?",
        (game_id, after, upto, hooks.PUBLIC_SCOPE, BATCH),
    )
    found = Payloads(games).of(game_id, [(r[0], r[5]) for r in rows])
    return [
        {"version": v, "type": t, "actor": a, "at": at, "public": s == hooks.PUBLIC_SCOPE, "data": payload(found[v])}
        for v, t, a, at, s, _ in rows
    ]


def _public_window(db: ReadModelDB, game_id: str, window_id: str, version: int) -> bool:
    """Whether the window's opening (before ``version``) was shown to every seat."""
    rows = db.query(
        "SELECT data FROM rm_audit WHERE game_id = ? AND type = 'WindowOpened' AND scope = ? AND version < ? "
        "ORDER BY version DESC LIMIT 200",
        (game_id, hooks.PUBLIC_SCOPE, version),
    )
    return any(json.loads(d).get("window_id") == window_id for (d,) in rows)


def _post_now(db: ReadModelDB, game_id: str, post_id: str) -> tuple[str, bool] | None:
    """A post's text as it stands now and whether it is hidden (posts read model), or None."""
    rows = db.query("SELECT text, hidden FROM rm_posts WHERE game_id = ? AND post_id = ?", (game_id, post_id))
    if not rows:
        return None
    # a reply's quote of a post hidden or edited since shows that post as it stands (issue 28)
    return requote(rows[0][0], shown_heads(db.query, game_id, [post_id]).get(post_id)), bool(rows[0][1])


def _excerpt(text: str, limit: int = 600) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _utc(moment: Any) -> str:
    """An instant as the messages write it: ``2026-12-07 13:55``, in UTC."""
    try:
        return datetime.fromisoformat(str(moment)).astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M")
    except ValueError:
        return str(moment)


def announce(db: ReadModelDB, game: Any, item: Mapping[str, Any], began: str | None) -> tuple[str, str, str] | None:
    """(webhook kind, title, text) of one item of the observer's feed, or None if webhooks say nothing of it.
    ``began``: the phase the item begins (the phase index), if any."""
    ruleset, kind, data = game.ruleset, item["type"], item["data"]
    names = names_of(game, gm=_("the GM"))
    if kind == "RemindersQueued":  # GM-only: only its window and public deadline are said, and only if public
        window_id = str(data.get("window_id") or "")
        if not _public_window(db, str(game.id), window_id, item["version"]):
            return None
        window = words_of.phase_title(ruleset, window_id)
        return (
            "deadline",
            _("{window} closes soon").format(window=window),
            _("{window} closes in {hours}, at {at} (UTC).").format(
                window=window, hours=words_of._hours(data.get("offset_hours")), at=_utc(data.get("closes_at"))
            ),
        )
    if not item["public"]:
        return None
    line = words_of.describe_event(ruleset, kind, data, names)
    if began is not None:
        return "phase", _("{phase} began").format(phase=words_of.phase_title(ruleset, began)), line
    announced = (ruleset.announces or {}).get(kind)
    if announced == "results":
        return "results", _("Results are published"), line
    if announced == "end":
        return "end", _("The game has ended"), line
    if kind == "PostMade":
        post = _post_now(db, str(game.id), str(data.get("post_id")))
        if post is None or post[1]:
            return None
        who = words_of.who(item["actor"], names)
        if data.get("thread_id") == "narration":
            return "post", _("{who} wrote in the narration").format(who=who), _excerpt(post[0])
        return "post", _("{who} posted at the table").format(who=who), _excerpt(post[0])
    return None


def collect(db: ReadModelDB, games: Any, settings: Settings, now: datetime) -> list[str]:
    """New ledger rows for what each game's active webhooks have not seen yet; their ids."""
    active: dict[str, list[tuple[str, str, int]]] = {}
    for hook_id, game_id, kinds, seen in db.query(
        "SELECT id, game_id, kinds, seen_version FROM webhooks WHERE status = 'active' ORDER BY game_id"
    ):
        active.setdefault(game_id, []).append((hook_id, kinds, seen))
    base = settings.base_url
    made: list[str] = []
    for game_id, held in active.items():
        after = min(seen for _, _, seen in held)
        top = db.query("SELECT MAX(version) FROM rm_audit WHERE game_id = ?", (game_id,))
        upto = int(top[0][0] or 0) if top else 0
        if upto <= after:
            continue
        items = observer_feed(db, games, game_id, after, upto)
        if len(items) == BATCH:  # the rest next sweep
            upto = items[-1]["version"]
        try:
            game = games.get_game(game_id, for_update=False)
        except DomainError as err:
            log.warning("webhooks skip game=%s: %s", game_id, err.message)
            continue
        phases = dict(
            db.query(
                "SELECT version, phase FROM rm_phases WHERE game_id = ? AND version > ? AND version <= ?",
                (game_id, after, upto),
            )
        )
        said = []
        for item in items:
            found = announce(db, game, item, phases.get(item["version"]))
            if found is not None:
                kind, title, text = found
                msg = hooks.message(kind, game_id, game.state.name, base, title, text, item["at"])
                said.append((item["version"], kind, msg))
        made += _record(db, held, said, upto, now)
    return made


def _record(db: ReadModelDB, held: list, said: list, upto: int, now: datetime) -> list[str]:
    """Ledger rows for each webhook's wanted announcements past what it has seen, and its new position, in one
    transaction (a sweep run twice adds nothing: one row per webhook, version and kind)."""
    rows = []
    for hook_id, kinds, seen in held:
        for version, kind, msg in said:
            if version > seen and kind in kinds.split(","):
                rows.append((uuid.uuid4().hex, hook_id, msg["game"]["id"], version, kind, json.dumps(msg)))
    ids = []
    with db.transaction() as cur:
        for row_id, hook_id, game_id, version, kind, body in rows:
            found = cur.execute(
                "INSERT INTO webhook_ledger (id, hook_id, game_id, version, kind, body, status, attempts, created_at, "
                "due_at) VALUES (?,?,?,?,?,?,'queued',0,?,?) ON CONFLICT DO NOTHING RETURNING id",
                (row_id, hook_id, game_id, version, kind, body, now.isoformat(), utc_key(now)),
            ).fetchone()
            if found:
                ids.append(row_id)
        cur.executemany(
            "UPDATE webhooks SET seen_version = ? WHERE id = ? AND seen_version < ? AND status = 'active'",
            [(upto, hook_id, upto) for hook_id, _, _ in held],
        )
    return ids


# ---------------------------------------------------------------------------------------------- sending


class Refused(Exception):
    """A delivery not attempted: the URL's host now resolves to an address webhooks may not reach."""


def _connect(addresses: list[str], port: int, timeout: float | None) -> socket.socket:
    """A connection to the first of the checked addresses that answers (never to one not checked)."""
    error: OSError = OSError("no address")
    for address in addresses:
        try:
            return socket.create_connection((address, port), timeout)
        except OSError as err:
            error = err
    raise error


class _Pinned(http.client.HTTPConnection):
    """A connection to the addresses that were checked, whatever the host resolves to a moment later."""

    def __init__(self, host: str, port: int, addresses: list[str], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self.addresses = addresses

    def connect(self) -> None:
        self.sock = _connect(self.addresses, self.port, self.timeout)


class _PinnedTLS(http.client.HTTPSConnection):
    """The same over TLS: the certificate is checked against the URL's host name (SNI too)."""

    def __init__(self, host: str, port: int, addresses: list[str], timeout: float) -> None:
        self.tls = tls_context()
        super().__init__(host, port, timeout=timeout, context=self.tls)
        self.addresses = addresses

    def connect(self) -> None:
        self.sock = self.tls.wrap_socket(_connect(self.addresses, self.port, self.timeout), server_hostname=self.host)


def tls_context() -> ssl.SSLContext:
    """How a receiver's certificate is checked: the system's trusted authorities, host names checked."""
    return ssl.create_default_context()


def post(url: str, body: bytes, headers: Mapping[str, str], *, allow_private: bool, timeout: float) -> int:
    """POST ``body`` to ``url`` (its host checked again now, the connection made to the address checked; a redirect
    is not followed); the answer's status."""
    try:
        host, port, addresses = hooks.target(url, allow_private)
    except DomainError as err:
        raise Refused(err.message) from None
    parts = urlsplit(url)
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kind = _PinnedTLS if parts.scheme == "https" else _Pinned
    conn = kind(host, port, addresses, timeout)
    try:
        conn.request("POST", path, body=body, headers=dict(headers))
        answer = conn.getresponse()
        answer.read(65536)
        return answer.status
    finally:
        conn.close()


def _set(db: ReadModelDB, row_id: str, status: str, **extra: Any) -> None:
    sets = ", ".join(["status = ?", *(f"{k} = ?" for k in extra)])
    with db.transaction() as cur:
        cur.execute(f"UPDATE webhook_ledger SET {sets} WHERE id = ?", (status, *extra.values(), row_id))


def deliver(db: ReadModelDB, settings: Settings, row_id: str, now: datetime | None = None) -> str:
    """Send one row of the webhook ledger unless another worker holds it; a failure is queued again with backoff
    (until MAX_ATTEMPTS), and counts toward pausing its webhook. A sent row is never sent again. Its status."""
    now = now or datetime.now(timezone.utc)
    if not claim(db, row_id, now):
        found = db.query("SELECT status FROM webhook_ledger WHERE id = ?", (row_id,))
        return found[0][0] if found else "missing"
    rows = db.query(
        "SELECT l.game_id, l.version, l.kind, l.body, l.attempts, h.id, h.format, h.url, h.secret, h.status "
        "FROM webhook_ledger l LEFT JOIN webhooks h ON h.id = l.hook_id WHERE l.id = ?",
        (row_id,),
    )
    game_id, version, kind, body, attempts, hook_id, fmt, url, secret, hook_status = rows[0]
    if hook_id is None:  # removed since
        _set(db, row_id, "withdrawn")
        return "withdrawn"
    if hook_status != "active":
        _set(db, row_id, "held")
        return "held"
    msg = json.loads(body)
    if kind == "post" and (msg := _post_as_it_stands(db, game_id, version, msg)) is None:
        _set(db, row_id, "withdrawn")  # hidden by the GM before it went out
        return "withdrawn"
    timestamp = int(now.timestamp())
    data, headers = hooks.request_of(fmt, secret, msg, row_id, timestamp)
    try:
        code = post(
            url, data, headers, allow_private=settings.webhooks_allow_private, timeout=settings.webhook_timeout_seconds
        )
        error = (
            None if 200 <= code < 300 else (f"redirect refused (HTTP {code})" if 300 <= code < 400 else f"HTTP {code}")
        )
    except Refused as err:
        error = f"refused: {err}"
    except OSError as err:  # the socket's or TLS's words (refused, timed out, certificate...): never the URL's path
        error = f"{type(err).__name__}: {err}"[:300]
    except Exception as err:  # noqa: BLE001 - any other failure is a counted failed attempt, never a wedged row;
        # its message may repeat the URL (http.client's InvalidURL does), so only its kind is kept
        error = type(err).__name__
    attempts += 1
    if error is None:
        _set(db, row_id, "sent", attempts=attempts, last_error=None, sent_at=now.isoformat())
        with db.transaction() as cur:
            cur.execute("UPDATE webhooks SET failures = 0, last_error = NULL WHERE id = ?", (hook_id,))
        return "sent"
    status = "failed" if attempts >= MAX_ATTEMPTS else "queued"
    _set(db, row_id, status, attempts=attempts, last_error=error, due_at=utc_key(now + backoff(attempts)))
    _failed(db, settings, hook_id, game_id, error, now)
    return status


def _post_as_it_stands(db: ReadModelDB, game_id: str, version: int, msg: dict) -> dict | None:
    """A post's announcement with the post's text as it stands now (an edit is sent edited), None if hidden."""
    # The posts read model keeps the version of the PostMade each post was made by.
    rows = db.query("SELECT post_id FROM rm_posts WHERE game_id = ? AND version = ?", (game_id, version))
    post_id = rows[0][0] if rows else None
    found = _post_now(db, game_id, str(post_id)) if post_id else None
    if found is None:
        return msg
    text, hidden = found
    return None if hidden else {**msg, "text": _excerpt(text)}


def _failed(db: ReadModelDB, settings: Settings, hook_id: str, game_id: str, error: str, now: datetime) -> None:
    """Count a failure against the webhook; at ``webhook_pause_after`` in a row, pause it, hold what it has queued
    and tell the GM and any host."""
    with db.transaction() as cur:
        found = cur.execute(
            "UPDATE webhooks SET failures = failures + 1, last_error = ? WHERE id = ? RETURNING failures, status",
            (error, hook_id),
        ).fetchone()
        if found is None or found[1] != "active" or found[0] < settings.webhook_pause_after:
            return
        cur.execute(
            "UPDATE webhooks SET status = 'paused', paused_at = ? WHERE id = ? AND status = 'active'",
            (now.isoformat(), hook_id),
        )
        cur.execute(
            "UPDATE webhook_ledger SET status = 'held' WHERE hook_id = ? AND status = 'queued'",
            (hook_id,),
        )
    log.warning("webhook paused game=%s hook=%s failures=%s", game_id, hook_id, found[0])
    _tell_paused(db, hook_id, game_id, found[0], error, now)


def _tell_paused(db: ReadModelDB, hook_id: str, game_id: str, failures: int, error: str, now: datetime) -> None:
    """Mail the GM and every host that a webhook is paused (the GM's row is kept in the mail ledger even without
    an address, where the GM reads it)."""
    from workers import mail
    from workers.tasks import hand_off

    games = runtime.games()
    game = games.get_game(game_id, for_update=False)
    (url,) = db.query("SELECT url FROM webhooks WHERE id = ?", (hook_id,))[0]
    subject = _("A webhook of {game} is paused").format(game=game.state.name)
    body = _(
        "The webhook to {url} failed {n} times in a row (the last time: {error}). It is paused and sends nothing "
        "until the GM resumes it."
    ).format(url=hooks.url_hint(url), n=failures, error=error)
    for who in [GM, *sorted(p for p in game.seats if game.may(p, WINDOWS))]:
        address, _mode = games.contact_of(game_id, who)
        row_id = mail.record(
            db,
            game_id=game_id,
            version=None,
            recipient=who,
            address=address,
            kind=f"webhook-paused {hook_id} {now.isoformat()}",
            subject=subject,
            body=body,
            status="queued" if address else "no address",
        )
        if row_id and address:
            hand_off(db, row_id)


# ---------------------------------------------------------------------------------------------- the workers' part


@celery_app.task(name="workers.deliver_webhook", acks_late=True)
def deliver_webhook(ledger_id: str) -> str:
    """Send one due row of the webhook ledger; a failure is queued again with backoff (the sweep hands it out when
    due); a sent row is never sent again."""
    status = deliver(runtime.projector().db, runtime.settings(), ledger_id, runtime.now())
    if status == "sent":
        log.info("webhook sent id=%s", ledger_id)
    elif status in ("queued", "failed"):
        log.warning("webhook not sent id=%s status=%s", ledger_id, status)
    return status


def dispatch(now: datetime) -> dict:
    """The sweep's part for webhooks: new announcements into the ledger, each handed to a task, and the rows due
    again (retries after backoff, lost sends)."""
    db = runtime.projector().db
    new = collect(db, runtime.games(), runtime.settings(), now)
    again = [r for r in due(db, now) if r not in new]
    handed(db, [*new, *again], now)  # before the tasks run: a task's own backoff is never overwritten
    for row_id in [*new, *again]:
        deliver_webhook.delay(row_id)
    return {"webhooks": len(new), "webhook_retries": len(again)}
