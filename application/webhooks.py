"""Per-game webhooks (issue 31, item 1): the GM (or a host who runs the windows) adds URLs to a game, each in the
format of its receiver and with the kinds of news it wants; ``workers.webhooks`` announces and delivers.

A webhook speaks to a chat room, so it carries only what an observer of the game may see: each message is built
from the game's public feed (the audit rows every seat is shown), in the feed's words, never from an event a seat
or the GM alone may see. Its URL and signing secret are credentials (a Discord or Slack URL carries its token):
they live in the ``webhooks`` table, never in an event, a log line or an answer after the first (the secret is
shown once; the URL is shown cut to its host).

A URL is checked when it is added and again at every delivery: its host is resolved and every address it
resolves to must be a public one (no private, loopback, link-local, multicast or reserved address) unless the
operator allows them (``EMISSARY_WEBHOOKS_ALLOW_PRIVATE``); a delivery connects to the address it checked and
never follows a redirect.

The generic ``json`` format is signed: ``X-Emissary-Signature: sha256=<hex>``, the HMAC-SHA256 with the webhook's
secret of ``<X-Emissary-Timestamp>.<body>`` (the timestamp in Unix seconds, a dot, the body's bytes as sent).
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import secrets
import socket
import uuid
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

from domain.errors import Forbidden, NotFound, RuleViolation
from domain.ids import GM
from domain.platform.i18n import _
from domain.platform.notifications import PUBLIC_KINDS
from domain.platform.roles import WINDOWS
from projections.db import ReadModelDB

FORMATS = ("discord", "slack", "matrix", "json")
KINDS = PUBLIC_KINDS  # the public part of the one vocabulary of news (domain.platform.notifications)
MAX_URL = 2000
MAX_HOOKS = 10  # per game
NAT64 = ipaddress.ip_network("64:ff9b::/96")  # RFC 6052's well-known prefix
PUBLIC_SCOPE = 1  # rm_audit.scope of an event every seat is shown (projections.projector.SCOPE_PUBLIC)


# ---------------------------------------------------------------------------------------------- who may, and what


def check_manager(game: Any, principal: str) -> None:
    """Only the GM, or a seat that may run the game's windows (a host), manages its webhooks."""
    if principal != GM and not game.may(principal, WINDOWS):
        raise Forbidden(_("only the GM or a host may manage this game's webhooks"), field="webhooks")


def check_format(value: Any) -> str:
    if value not in FORMATS:
        raise RuleViolation(_("format must be one of: {formats}").format(formats=", ".join(FORMATS)), field="format")
    return str(value)


def check_kinds(values: Any, known: Mapping[str, Any] | Sequence[str] = KINDS) -> list[str]:
    """The kinds of news asked for, each one of ``known`` (a webhook's by default; a push device's pass theirs), in
    ``known``'s order; RuleViolation naming ``kinds`` for none or an unknown one."""
    if not isinstance(values, list | tuple) or not values:
        raise RuleViolation(_("kinds must list at least one of: {kinds}").format(kinds=", ".join(known)), field="kinds")
    unknown = [v for v in values if v not in known]
    if unknown:
        raise RuleViolation(
            _("kinds: unknown kind {kind}; the kinds are: {kinds}").format(kind=unknown[0], kinds=", ".join(known)),
            field="kinds",
        )
    return [k for k in known if k in values]


def refused_address(address: str) -> bool:
    """Whether a webhook may not be sent to this address: anything but a public unicast address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip in NAT64:  # a public-looking IPv6 address that a NAT64 gateway turns into any IPv4 one, a private one too
        return True
    return not ip.is_global or ip.is_multicast or ip.is_private or ip.is_loopback or ip.is_link_local


def resolve(host: str, port: int) -> list[str]:
    """Every address ``host`` resolves to (an empty list if it does not resolve)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return []
    return list(dict.fromkeys(str(info[4][0]) for info in found))


def target(url: str, allow_private: bool, field: str = "url") -> tuple[str, int, list[str]]:
    """(host, port, the addresses to connect to) of a webhook URL, or a refusal naming ``field``: the URL must be
    http(s) with a host and no credentials, and every address its host resolves to must be public unless the
    operator allows private ones. The refusal never repeats the URL (it may carry a token)."""
    if not isinstance(url, str) or not url or len(url) > MAX_URL or not all("!" <= c <= "~" for c in url):
        # printable ASCII only: a space, a control character or a non-ASCII one would fail at delivery with an
        # error that repeats the path (a chat's token), or wedge the delivery (a path http.client cannot encode)
        raise RuleViolation(
            _("url must be an http or https address of at most 2000 printable ASCII characters"), field=field
        )
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        raise RuleViolation(_("url is not a valid address"), field=field) from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise RuleViolation(_("url must be an http or https address with a host"), field=field)
    if parts.username is not None or parts.password is not None:
        raise RuleViolation(_("url must not carry a user name or password"), field=field)
    addresses = resolve(parts.hostname, port)
    if not addresses:
        raise RuleViolation(_("url: its host does not resolve"), field=field)
    if not allow_private and any(refused_address(a) for a in addresses):
        raise RuleViolation(
            _("url: its host resolves to a private, loopback or link-local address, which webhooks may not reach"),
            field=field,
        )
    return parts.hostname, port, addresses


def url_hint(url: str) -> str:
    """What may be shown of a webhook URL after it was added: its scheme and host (its path may hold a token)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.hostname}/…"


# ---------------------------------------------------------------------------------------------- the table


def add(
    db: ReadModelDB,
    game_id: str,
    principal: str,
    url: Any,
    format: Any,
    kinds: Any,
    *,
    allow_private: bool,
    after: int | None = None,
) -> dict:
    """Add a webhook to a game (the caller checked ``check_manager``); it announces what happens after version
    ``after`` (the game's version now, which the callers pass: the read models may lag behind it). Returns it as
    its GM sees it, with its signing secret (a ``json`` webhook's), shown this once. A refused one records nothing."""
    fmt = check_format(format)
    wanted = check_kinds(kinds)
    target(url, allow_private)
    if len(listing(db, game_id)) >= MAX_HOOKS:
        raise RuleViolation(_("a game has at most {n} webhooks").format(n=MAX_HOOKS), field="url")
    hook_id = uuid.uuid4().hex[:16]
    secret = secrets.token_urlsafe(32) if fmt == "json" else None
    if after is None:
        found = db.query("SELECT MAX(version) FROM rm_audit WHERE game_id = ?", (game_id,))
        after = int(found[0][0] or 0) if found else 0
    with db.transaction() as cur:
        cur.execute(
            "INSERT INTO webhooks (id, game_id, format, url, secret, kinds, status, failures, seen_version, "
            "created_at, created_by) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (hook_id, game_id, fmt, url, secret, ",".join(wanted), "active", 0, after, _now(), principal),
        )
    return {**one(db, game_id, hook_id), "secret": secret}


COLUMNS = "id, format, url, kinds, status, failures, created_at, created_by, last_error, paused_at"


def _public(row: tuple) -> dict:
    hook_id, fmt, url, kinds, status, failures, created_at, created_by, last_error, paused_at = row
    return {
        "id": hook_id,
        "format": fmt,
        "url": url_hint(url),
        "kinds": kinds.split(","),
        "status": status,
        "failures": failures,
        "created_at": created_at,
        "created_by": created_by,
        "last_error": last_error,
        "paused_at": paused_at,
    }


def listing(db: ReadModelDB, game_id: str) -> list[dict]:
    """A game's webhooks as its GM sees them: never a URL's path or a secret."""
    rows = db.query(f"SELECT {COLUMNS} FROM webhooks WHERE game_id = ? ORDER BY created_at, id", (game_id,))
    return [_public(r) for r in rows]


def one(db: ReadModelDB, game_id: str, hook_id: str) -> dict:
    rows = db.query(f"SELECT {COLUMNS} FROM webhooks WHERE game_id = ? AND id = ?", (game_id, hook_id))
    if not rows:
        raise NotFound(_("no webhook {id} in this game").format(id=hook_id), field="hook_id")
    return _public(rows[0])


def remove(db: ReadModelDB, game_id: str, hook_id: str) -> None:
    """Remove a webhook; what it has not delivered yet is withdrawn (the ledger keeps what it sent)."""
    one(db, game_id, hook_id)
    with db.transaction() as cur:
        cur.execute("DELETE FROM webhooks WHERE game_id = ? AND id = ?", (game_id, hook_id))
        cur.execute(
            "UPDATE webhook_ledger SET status = 'withdrawn' WHERE hook_id = ? AND status IN ('queued', 'sending')",
            (hook_id,),
        )


def resume(db: ReadModelDB, game_id: str, hook_id: str, after: int | None = None) -> dict:
    """Resume a paused webhook: it announces what happens from now on (after version ``after``, the game's version
    now; not what it missed while paused)."""
    one(db, game_id, hook_id)
    if after is None:
        found = db.query("SELECT MAX(version) FROM rm_audit WHERE game_id = ?", (game_id,))
        after = int(found[0][0] or 0) if found else 0
    now_at = after
    with db.transaction() as cur:
        cur.execute(
            "UPDATE webhooks SET status = 'active', failures = 0, paused_at = NULL, "
            "seen_version = CASE WHEN status = 'paused' THEN ? ELSE seen_version END WHERE game_id = ? AND id = ?",
            (now_at, game_id, hook_id),
        )
    return one(db, game_id, hook_id)


def deliveries(db: ReadModelDB, game_id: str, limit: int = 200) -> list[dict]:
    """The webhook ledger of a game, newest first: what each webhook was sent, how often it was tried, how it went."""
    keys = ["id", "hook_id", "version", "kind", "status", "attempts", "last_error", "created_at", "sent_at", "body"]
    rows = db.query(
        f"SELECT {', '.join(keys)} FROM webhook_ledger WHERE game_id = ? ORDER BY created_at DESC, version DESC "
        "LIMIT ?",
        (game_id, limit),
    )
    return [{**dict(zip(keys, r)), "body": json.loads(r[-1])} for r in rows]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


# ---------------------------------------------------------------------------------------------- the messages


def message(kind: str, game_id: str, game_name: str, base_url: str, title: str, text: str, at: str) -> dict:
    """What one webhook says, whatever its format: what happened, in words, the game's name and a link to it."""
    return {
        "event": kind,
        "game": {"id": game_id, "name": game_name, "url": f"{base_url.rstrip('/')}/play/{game_id}"},
        "title": title[:1].upper() + title[1:],  # "The GM wrote ...": a title begins with a capital
        "text": text,
        "at": at,
    }


def _slack_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _html_escape(text: str) -> str:
    return _slack_escape(text).replace('"', "&quot;")


def body_of(fmt: str, msg: Mapping[str, Any]) -> dict:
    """The JSON body a receiver of this format takes: a Discord or Slack incoming webhook, a Matrix (hookshot)
    generic webhook, or Emissary's own message (``json``)."""
    game = msg["game"]
    line = f"{game['name']}: {msg['title']}"
    if fmt == "discord":
        return {
            "content": f"**{line}**\n{msg['text']}\n{game['url']}",
            "embeds": [
                {
                    "title": msg["title"][:256],
                    "description": msg["text"][:4000],
                    "url": game["url"],
                    "timestamp": msg["at"],
                    "footer": {"text": game["name"][:2048]},
                }
            ],
            "allowed_mentions": {"parse": []},  # a post's "@everyone" pings nobody
        }
    if fmt == "slack":
        link = f"<{game['url']}|{_slack_escape(game['name'])}>"
        return {
            "text": f"{_slack_escape(line)}: {_slack_escape(msg['text'])} {link}",
            "blocks": [
                {"type": "header", "text": {"type": "plain_text", "text": line[:150]}},
                {"type": "section", "text": {"type": "mrkdwn", "text": _slack_escape(msg["text"])[:3000]}},
                {"type": "context", "elements": [{"type": "mrkdwn", "text": link}]},
            ],
        }
    if fmt == "matrix":
        return {
            "text": f"{line}\n{msg['text']}\n{game['url']}",
            "html": f"<p><strong>{_html_escape(line)}</strong></p><p>{_html_escape(msg['text'])}</p>"
            f'<p><a href="{_html_escape(game["url"])}">{_html_escape(game["name"])}</a></p>',
            "username": "Emissary",
        }
    return dict(msg)


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The ``X-Emissary-Signature`` of a ``json`` webhook's body: ``sha256=`` and the hex HMAC-SHA256, keyed by its
    secret, of ``<timestamp>.<body>``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256)
    return f"sha256={mac.hexdigest()}"


def request_of(fmt: str, secret: str | None, msg: Mapping[str, Any], delivery_id: str, timestamp: int) -> tuple:
    """(body bytes, headers) of one delivery."""
    body = json.dumps(body_of(fmt, msg), separators=(",", ":"), ensure_ascii=False).encode()
    headers = {"Content-Type": "application/json", "User-Agent": "Emissary-Webhooks"}
    if fmt == "json":
        headers.update(
            {
                "X-Emissary-Event": str(msg["event"]),
                "X-Emissary-Delivery": delivery_id,
                "X-Emissary-Timestamp": str(timestamp),
                "X-Emissary-Signature": sign(secret or "", timestamp, body),
            }
        )
    return body, headers
