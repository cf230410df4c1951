"""Push to phones (issue 31, item 2): a seat subscribes a device (the browser's push subscription: its endpoint and
keys) to the kinds of news it wants; ``workers.push`` words each of the seat's notifications, keeps those a
subscription wants (``wanted``: the one dispatch decision) and sends them with the Web Push protocol (RFC 8030,
encrypted for the subscription, RFC 8291, aes128gcm; signed with the service's VAPID key, RFC 8292).

A push says what the seat's mail says and no more: it is built from the seat's own rows of the outbox read model,
which holds a row only for those an event is shown to. A subscription's endpoint and keys are credentials (whoever
holds them may push to that device): they live in the ``push_subscriptions`` table, never in an event, a log line
or an answer. An endpoint is checked as a webhook's URL is (``application.webhooks.target``): an https address whose
host resolves to public addresses only, unless the operator allows private ones (tests, for their stand-in).

The VAPID key is ``EMISSARY_VAPID_PRIVATE_KEY`` (a PEM, or the raw key in base64url); without it, in production it is
derived from ``EMISSARY_SECRET_KEY`` (the API, which hands out the public key, and the workers, which sign with it,
share no data directory but share that), and elsewhere the service makes one on first use and keeps it in the data
directory (``vapid_private.pem``), so ``make run`` needs nothing set.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import uuid
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from application import webhooks
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.platform.i18n import N_, _
from domain.platform.posts import names_seat
from projections.db import ReadModelDB
from projections.settings import Settings

if TYPE_CHECKING:  # imported where used: a process that never pushes loads no Web Push library
    from py_vapid import Vapid

# The kinds of news a device may ask for, and their words on the page.
KINDS = {
    "move": N_("my move: something waits on me"),
    "deadline": N_("a deadline warning"),
    "results": N_("results are published"),
    "mention": N_("a post that mentions me"),
    "private": N_("a post in a private thread"),
}
MAX_DEVICES = 10  # per seat and game
MAX_LABEL = 60
MAX_TITLE = 120
MAX_BODY = 600  # a push is a glance; the board has the rest (and the encrypted record must stay under 4 kB)
VAPID_FILE = "vapid_private.pem"


# ---------------------------------------------------------------------------------------------- the dispatch decision


def wanted(subscribed: Iterable[str], kinds: Iterable[str]) -> str | None:
    """Whether a subscription that asked for ``subscribed`` is sent a notification of ``kinds`` (what it is, most
    telling first): the kind it is sent as, or None. The one place that decides what a device is pushed."""
    chosen = set(subscribed)
    return next((k for k in kinds if k in chosen), None)


def mentions(text: str, names: Iterable[str]) -> bool:
    """Whether a post's text names the seat as ``@name`` (any of its names: its public name, its id): what a post
    queued before posts recorded their mentions is read by (``domain.platform.posts.names_seat``)."""
    return names_seat(text, list(names))


def kinds_of(
    note: str, *, announced: str | None = None, thread_kind: str | None = None, mentioned: bool = False, waits: bool
) -> list[str]:
    """What a notification of the outbox is, for push, most telling first: ``note`` is its outbox kind (an event's
    type, ``post``, ``reminder ...``); ``announced`` what the ruleset says the event announces (results, end);
    ``thread_kind`` a post's thread's kind; ``mentioned`` whether a post names the seat; ``waits`` whether something
    waits on the seat now (a new step's note is then the seat's move)."""
    if note.startswith("reminder "):
        return ["deadline"]
    if note == "post":
        return [k for k, yes in (("mention", mentioned), ("private", thread_kind in ("private", "desk"))) if yes]
    if note == "blocked":
        return []
    if announced in ("results", "end"):
        return ["results"]
    return ["move"] if waits else []


# ---------------------------------------------------------------------------------------------- checks


def check_seat(game: Any, principal: str) -> str:
    """Only a seat of the game subscribes its devices (the GM's notes go by mail)."""
    if principal not in game.seats:
        raise Forbidden(_("only a seat of this game may have push notifications"), field="seat")
    return principal


def check_kinds(values: Any) -> list[str]:
    """The kinds a device asks for (``KINDS``), as a webhook's are checked."""
    return webhooks.check_kinds(values, KINDS)


def check_label(value: Any) -> str:
    label = " ".join(str(value or "").split())
    if not label:
        return _("this device")
    if len(label) > MAX_LABEL:
        raise RuleViolation(_("label: at most {n} characters").format(n=MAX_LABEL), field="label")
    return label


def _b64(value: Any, field: str) -> bytes:
    if not isinstance(value, str) or not value or len(value) > 200:
        raise RuleViolation(_("{field} must be a base64url text").format(field=field), field=field)
    try:
        return base64.urlsafe_b64decode(value + "=" * (-len(value) % 4))
    except (binascii.Error, ValueError):
        raise RuleViolation(_("{field} must be a base64url text").format(field=field), field=field) from None


def check_keys(p256dh: Any, auth: Any) -> tuple[str, str]:
    """The subscription's keys (RFC 8291): ``p256dh`` a P-256 public key (65 bytes, uncompressed), ``auth`` a
    16-byte secret, each in base64url."""
    from cryptography.hazmat.primitives.asymmetric import ec

    raw = _b64(p256dh, "keys.p256dh")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
        if len(raw) != 65:
            raise ValueError
    except ValueError:
        raise RuleViolation(_("keys.p256dh is not a P-256 public key"), field="keys.p256dh") from None
    if len(_b64(auth, "keys.auth")) != 16:
        raise RuleViolation(_("keys.auth must be 16 bytes"), field="keys.auth")
    return str(p256dh).rstrip("="), str(auth).rstrip("=")


def check_endpoint(endpoint: Any, allow_private: bool) -> str:
    """A push service's endpoint: https (http only where private addresses are allowed, for a stand-in), its host
    public; the refusal never repeats it."""
    webhooks.target(endpoint, allow_private, field="endpoint")
    if not allow_private and not str(endpoint).startswith("https://"):
        raise RuleViolation(_("endpoint must be an https address"), field="endpoint")
    return str(endpoint)


# ---------------------------------------------------------------------------------------------- the table

COLUMNS = "id, label, kinds, created_at, last_error"


def _public(row: tuple) -> dict:
    sub_id, label, kinds, created_at, last_error = row
    return {"id": sub_id, "label": label, "kinds": kinds.split(","), "created_at": created_at, "last_error": last_error}


def subscribe(
    db: ReadModelDB,
    game_id: str,
    seat: str,
    endpoint: Any,
    p256dh: Any,
    auth: Any,
    label: Any,
    kinds: Any,
    *,
    allow_private: bool,
    after: int,
) -> dict:
    """Subscribe a device of ``seat`` (the caller checked ``check_seat``) to ``kinds``; it is pushed what happens
    after version ``after`` (the game's version now). The same device subscribing again changes its keys, label
    and kinds. Returns it as its seat sees it (never its endpoint or keys). A refused one records nothing."""
    wanted_kinds = check_kinds(kinds)
    name = check_label(label)
    keys = check_keys(p256dh, auth)
    url = check_endpoint(endpoint, allow_private)
    found = db.query(
        "SELECT id FROM push_subscriptions WHERE game_id = ? AND seat = ? AND endpoint = ?", (game_id, seat, url)
    )
    if found:
        sub_id = found[0][0]
        with db.transaction() as cur:
            cur.execute(
                "UPDATE push_subscriptions SET p256dh = ?, auth = ?, label = ?, kinds = ?, last_error = NULL "
                "WHERE id = ?",
                (*keys, name, ",".join(wanted_kinds), sub_id),
            )
        return one(db, game_id, seat, sub_id)
    if len(listing(db, game_id, seat)) >= MAX_DEVICES:
        raise RuleViolation(_("a seat has at most {n} devices for push").format(n=MAX_DEVICES), field="endpoint")
    sub_id = uuid.uuid4().hex[:16]
    with db.transaction() as cur:
        cur.execute(
            "INSERT INTO push_subscriptions (id, game_id, seat, endpoint, p256dh, auth, label, kinds, seen_version, "
            "created_at) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (sub_id, game_id, seat, url, *keys, name, ",".join(wanted_kinds), after, _now()),
        )
    return one(db, game_id, seat, sub_id)


def listing(db: ReadModelDB, game_id: str, seat: str) -> list[dict]:
    """A seat's devices, as the seat sees them."""
    rows = db.query(
        f"SELECT {COLUMNS} FROM push_subscriptions WHERE game_id = ? AND seat = ? ORDER BY created_at, id",
        (game_id, seat),
    )
    return [_public(r) for r in rows]


def one(db: ReadModelDB, game_id: str, seat: str, sub_id: str) -> dict:
    rows = db.query(
        f"SELECT {COLUMNS} FROM push_subscriptions WHERE game_id = ? AND seat = ? AND id = ?", (game_id, seat, sub_id)
    )
    if not rows:
        raise NotFound(_("no device {id} of this seat").format(id=sub_id), field="sub_id")
    return _public(rows[0])


def unsubscribe(db: ReadModelDB, game_id: str, seat: str, sub_id: str) -> None:
    """Remove a device; what it has not been sent yet is withdrawn (the ledger keeps what was sent)."""
    one(db, game_id, seat, sub_id)
    drop(db, sub_id)


def drop(db: ReadModelDB, sub_id: str) -> None:
    """Forget a subscription (its seat removed it, or its push service says it is gone)."""
    with db.transaction() as cur:
        cur.execute("DELETE FROM push_subscriptions WHERE id = ?", (sub_id,))
        cur.execute(
            "UPDATE push_ledger SET status = 'withdrawn' WHERE sub_id = ? AND status IN ('queued', 'sending')",
            (sub_id,),
        )


def deliveries(db: ReadModelDB, game_id: str, seat: str, limit: int = 200) -> list[dict]:
    """The seat's push ledger, newest first: what each device was sent, how often it was tried, how it went."""
    keys = ["id", "sub_id", "version", "kind", "status", "attempts", "last_error", "created_at", "sent_at", "body"]
    rows = db.query(
        f"SELECT {', '.join(keys)} FROM push_ledger WHERE game_id = ? AND seat = ? "
        "ORDER BY created_at DESC, version DESC LIMIT ?",
        (game_id, seat, limit),
    )
    return [{**dict(zip(keys, r)), "body": json.loads(r[-1])} for r in rows]


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


# ---------------------------------------------------------------------------------------------- what a push says


def message(game_id: str, game_name: str, title: str, text: str, version: int) -> dict:
    """The JSON a device's service worker shows: a title naming the game, the text, the seat's board to open."""
    text = " ".join(text.split())
    return {
        "title": f"{game_name}: {title}"[:MAX_TITLE],
        "body": text if len(text) <= MAX_BODY else text[: MAX_BODY - 1] + "…",
        "url": f"/play/{game_id}",
        "tag": f"{game_id}-{version}",
    }


# ---------------------------------------------------------------------------------------------- the VAPID key


def vapid(settings: Settings) -> Vapid:
    """The service's VAPID key: the setting's, else the data directory's (made on first use)."""
    from py_vapid import Vapid

    given = settings.vapid_private_key.get_secret_value().strip()
    if given:
        if given.startswith("-----BEGIN"):
            return Vapid.from_pem(given.encode())
        return Vapid.from_string(given)
    if settings.env == "production":  # processes share no data directory, but every one has the secret key
        return Vapid(derived_key(settings.secret_key))
    path = Path(settings.data_dir) / VAPID_FILE
    if not path.exists():
        made = Vapid()
        made.generate_keys()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:  # O_EXCL: processes starting together keep the first one's key
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            pass
        else:
            with os.fdopen(fd, "wb") as out:
                out.write(made.private_pem())
    return Vapid.from_file(str(path))


P256_ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551


def derived_key(secret: str) -> Any:
    """A P-256 private key derived from the service's secret key (HMAC-SHA256 under it of a label of its own, so
    the secret itself is never the key): the same in every process that shares the secret."""
    import hashlib
    import hmac

    from cryptography.hazmat.primitives.asymmetric import ec

    digest = hmac.new(secret.encode(), b"emissary push: the VAPID key", hashlib.sha256).digest()
    return ec.derive_private_key(int.from_bytes(digest, "big") % (P256_ORDER - 1) + 1, ec.SECP256R1())


def new_private_key() -> str:
    """A new VAPID private key, as EMISSARY_VAPID_PRIVATE_KEY takes it: the raw 32-byte key in base64url."""
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    return base64.urlsafe_b64encode(key.private_numbers().private_value.to_bytes(32, "big")).decode().rstrip("=")


def public_key(key: Vapid) -> str:
    """The key a page passes to ``pushManager.subscribe`` (``applicationServerKey``): the uncompressed point,
    base64url."""
    from cryptography.hazmat.primitives import serialization

    raw = key.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def subject(settings: Settings) -> str:
    """Whom a push service may write to about our pushes (the JWT's ``sub``): the setting, else the mail domain's
    postmaster."""
    return settings.vapid_subject or f"mailto:postmaster@{settings.mail_domain}"


def vapid_headers(key: Vapid, settings: Settings, endpoint: str, now: datetime) -> Mapping[str, str]:
    """The ``Authorization: vapid t=<JWT>,k=<key>`` header for a push to ``endpoint`` (``aud``: its origin)."""
    from urllib.parse import urlsplit

    parts = urlsplit(endpoint)
    claims = {"aud": f"{parts.scheme}://{parts.netloc}", "sub": subject(settings), "exp": int(now.timestamp()) + 43200}
    return dict(key.sign(claims))
