"""Web security: server-side sessions, CSRF and origin checks, request body caps, and token-free logs."""

from __future__ import annotations

import hmac
import logging
import re
from typing import Any
from urllib.parse import urlparse

from fastapi import HTTPException, Request
from starlette.datastructures import MutableHeaders
from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from projections import logs
from projections.sessions import Grant, Person, SessionRow, SessionStore
from projections.settings import Settings

COOKIE = "emissary_session"

# ---------------------------------------------------------------------------------------------- logs

# a sign-in link's token (/signin/<game>/<token>, /signin/email/<token>) and a contact confirmation's, which signs
# its reader in as well (/contact/confirm/<token>)
SIGNIN_TOKEN = re.compile(r"(/(?:signin/[^/\s?#\"]+|contact/confirm)/)[^/\s?#\"]+")


def redact(text: str) -> str:
    """A path or log line with the token of any sign-in link replaced."""
    return SIGNIN_TOKEN.sub(r"\1[redacted]", text)


class RedactTokens(logging.Filter):
    """Rewrites log records so that a sign-in link's token never reaches a log (uvicorn's access log
    passes the path as an argument; anything else may carry it in its message)."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(redact(a) if isinstance(a, str) else a for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: redact(v) if isinstance(v, str) else v for k, v in record.args.items()}
        return True


def install_log_redaction() -> None:
    """Filter uvicorn's access and error logs, and every handler of the root logger, which all other
    loggers reach (idempotent); and every record of the process redacted where it is made (projections.logs)."""
    logs.install()
    targets: list[logging.Filterer] = [logging.getLogger("uvicorn.access"), logging.getLogger("uvicorn.error")]
    targets += logging.getLogger().handlers
    for target in targets:
        if not any(isinstance(f, RedactTokens) for f in target.filters):
            target.addFilter(RedactTokens())


# -------------------------------------------------------------------------------------- body limits


class BodyTooLarge(HTTPException):
    def __init__(self, limit: int, path: str) -> None:
        super().__init__(status_code=413, detail=f"the request body is larger than {limit} bytes, the limit for {path}")
        self.limit = limit

    def response(self) -> JSONResponse:
        return JSONResponse(
            status_code=413,
            content={
                "error": "PayloadTooLarge",
                "rule": None,
                "field": "body",
                "message": self.detail,
                "limit_bytes": self.limit,
            },
        )


UPLOAD_PATHS = re.compile(r"^/(inbound/|verify$)")


class BodyLimit:
    """Caps the request body per route: mail intake and ``/verify`` get the larger upload cap. A declared
    Content-Length over the cap is refused before reading; otherwise bytes are counted as they stream."""

    def __init__(self, app: ASGIApp, settings: Settings) -> None:
        self.app = app
        self.default = settings.body_limit_bytes
        self.upload = settings.upload_body_limit_bytes

    def limit_for(self, path: str) -> int:
        return self.upload if UPLOAD_PATHS.match(path) else self.default

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        path = scope["path"]
        limit = self.limit_for(path)
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            return await BodyTooLarge(limit, path).response()(scope, receive, send)
        received = 0
        started = False

        async def counted() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit, path)
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except BodyTooLarge as exc:
            if started:
                raise
            await exc.response()(scope, receive, send)


# ---------------------------------------------------------------------------------------- sessions


class WebSession:
    """This request's browser session: loaded on first use, created on first write."""

    def __init__(self, store: SessionStore, sid: str | None) -> None:
        self.store = store
        self._sid = sid
        self._row: SessionRow | None = None
        self._loaded = False
        self.set_cookie: str | None = None  # a new session id to send; "" clears the cookie

    @property
    def row(self) -> SessionRow | None:
        if not self._loaded:
            self._row = self.store.load(self._sid)
            self._loaded = True
        return self._row

    def _ensure(self) -> SessionRow:
        row = self.row
        if row is None:
            self._sid, self._row = self.store.create()
            self.set_cookie = self._sid
            row = self._row
        return row

    def csrf(self) -> str:
        return self._ensure().csrf

    def csrf_matches(self, presented: Any) -> bool:
        row = self.row
        return (
            row is not None
            and isinstance(presented, str)
            and bool(presented)
            and hmac.compare_digest(presented.encode(), row.csrf.encode())
        )

    def get(self, key: str, default: Any = None) -> Any:
        return self.row.data.get(key, default) if self.row is not None else default

    def set(self, key: str, value: Any) -> None:
        row = self._ensure()
        row.data[key] = value
        self.store.save_data(row.sid_hash, row.data)

    def pop(self, key: str, default: Any = None) -> Any:
        row = self.row
        if row is None or key not in row.data:
            return default
        value = row.data.pop(key)
        self.store.save_data(row.sid_hash, row.data)
        return value

    def grants(self) -> dict[str, Grant]:
        return dict(self.row.grants) if self.row is not None else {}

    def grant(self, game_id: str, principal: str, token_hash: str) -> None:
        row = self._ensure()
        self.store.grant(row.sid_hash, game_id, principal, token_hash)
        row.grants[game_id] = Grant(principal, token_hash)

    def revoke(self, game_id: str) -> None:
        if self.row is not None:
            self.store.revoke(self.row.sid_hash, game_id)
            self.row.grants.pop(game_id, None)

    def person(self) -> Person | None:
        """The person this session is signed in as (by a link mailed to them), if any."""
        return self.row.person if self.row is not None else None

    def sign_in_person(self, email: str) -> None:
        """Become the person who reads mail at ``email``, in a fresh session (id and CSRF token)."""
        self.rotate()
        row = self._ensure()
        self.store.sign_in_person(row.sid_hash, email)
        row.person = Person(email)

    def set_person_timezone(self, zone: str | None) -> None:
        row = self.row
        if row is not None and row.person is not None:
            self.store.set_person_timezone(row.sid_hash, zone)
            row.person.timezone = zone

    def sign_out_person(self) -> None:
        if self.row is not None:
            self.store.sign_out_person(self.row.sid_hash)
            self.row.person = None
            self.row.data.pop("seats", None)
            self.store.save_data(self.row.sid_hash, self.row.data)

    def rotate(self) -> None:
        """A fresh session id and CSRF token (on sign-in), so that a planted session id is worthless."""
        row = self._ensure()
        self._sid, row.csrf = self.store.rotate(row.sid_hash)
        row.sid_hash = self.store.sid_hash(self._sid)
        self.set_cookie = self._sid

    def end(self) -> None:
        if self.row is not None:
            self.store.end(self.row.sid_hash)
        self._row, self._loaded, self.set_cookie = None, True, ""


class ServerSessions:
    """Puts a :class:`WebSession` in ``scope["emissary.session"]`` and sends its cookie: only a random id,
    HttpOnly, SameSite=Lax, and Secure whenever served over https or the public URL is https."""

    def __init__(self, app: ASGIApp, store: SessionStore, settings: Settings) -> None:
        self.app = app
        self.store = store
        self.max_age = int(settings.session_ttl_hours * 3600)
        self.always_secure = settings.public_url.startswith("https://")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        session = WebSession(self.store, HTTPConnection(scope).cookies.get(COOKIE))
        scope["emissary.session"] = session
        secure = self.always_secure or scope.get("scheme") == "https"

        async def with_cookie(message: Message) -> None:
            if message["type"] == "http.response.start" and session.set_cookie is not None:
                value, age = (session.set_cookie, self.max_age) if session.set_cookie else ("", 0)
                MutableHeaders(scope=message).append(
                    "set-cookie",
                    f"{COOKIE}={value}; Path=/; Max-Age={age}; HttpOnly; SameSite=Lax" + ("; Secure" if secure else ""),
                )
            await send(message)

        await self.app(scope, receive, with_cookie)


def web_session(request: Request) -> WebSession:
    return request.scope["emissary.session"]


# ------------------------------------------------------------------------------------ CSRF, origin


class CsrfRefused(HTTPException):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(status_code=403, detail=message)
        self.field = field


def site_origin(request: Request, settings: Settings) -> str:
    """The origin pages are served from: the public URL's, or (embedded default) the request's own."""
    if settings.public_url:
        url = urlparse(settings.public_url)
        return f"{url.scheme}://{url.netloc}".lower()
    return f"{request.url.scheme}://{request.headers.get('host', request.url.netloc)}".lower()


def site_base(request: Request, settings: Settings) -> str:
    """The base address put in sign-in links."""
    return settings.public_url or site_origin(request, settings)


def check_origin(request: Request, settings: Settings) -> None:
    """Refuse a form posted from another site. Browsers send ``Origin`` on every POST (else ``Referer``);
    a client that sends neither still needs the session's CSRF token."""
    origin = request.headers.get("origin")
    if origin is None and request.headers.get("referer"):
        ref = urlparse(request.headers["referer"])
        origin = f"{ref.scheme}://{ref.netloc}"
    if origin is None:
        return
    expected = site_origin(request, settings)
    if origin.lower() != expected:
        raise CsrfRefused(
            "origin", f"origin: a form posted from {origin} is refused; forms are accepted only from {expected}"
        )


def check_csrf(request: Request, form: dict[str, Any]) -> None:
    if not web_session(request).csrf_matches(form.get("csrf")):
        raise CsrfRefused(
            "csrf", "csrf: this form's security token is missing or out of date; reload the page and try again"
        )
