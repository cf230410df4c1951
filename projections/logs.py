"""No secret reaches a log (issue 24, item 8): every process (the API, the SMTP server, the workers, beat, the
projection runner) configures its logging here, at start-up.

A seat's token, the token part of its reply address (``turns+<game>.<token>@``), a thread address's proof
(``talk+<game>.<thread>.<seat>.<mac>@``), a sign-in link's token, a bearer token, a session id or a ``token=``
value is redacted where each log record is made (the record factory), so it holds for every logger and every
handler, ours or a library's (aiosmtpd logs every recipient, uvicorn every path), whoever configures the handlers
later (uvicorn and Celery install their own). The SMTP server's own protocol log is kept to warnings: at DEBUG it
writes every line of every mail, the players' private turns included.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import traceback
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

REDACTED = "[redacted]"
_json = False  # whether this process's logs are JSON lines (``configure``)
FORMAT = "%(asctime)s %(levelname)s %(name)s %(message)s"
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

# Loggers that write what players send (addresses, mail lines, form fields) below WARNING.
QUIET = ("mail.log", "multipart", "python_multipart")

_SECRET_KEYS = r"(?:gm_token|token|access_token|issued_token|session|session_id|sid|emissary_session|csrf|csrf_token)"
_PATTERNS: list[tuple[re.Pattern[str], str]] = [
    # A reply address: turns+<game>.<token>@ (also URL-encoded, %2B for the plus).
    (re.compile(r"(turns(?:\+|%2B)[0-9a-f-]{36}\.)[A-Za-z0-9_-]+", re.IGNORECASE), rf"\1{REDACTED}"),
    # A thread's reply address: talk+<game>.<thread>.<seat>.<mac>@.
    (
        re.compile(r"(talk(?:\+|%2B)[0-9a-f-]{36}\.[^.@\s<>\"']{1,64}\.[^.@\s<>\"']{1,64}\.)[0-9a-f]+", re.IGNORECASE),
        rf"\1{REDACTED}",
    ),
    # Sign-in links: /signin/<game>/<token> and /signin/email/<token>.
    (re.compile(r"(/signin/[^/\s?#\"'<>]+/)[^/\s?#\"'<>]+"), rf"\1{REDACTED}"),
    # A contact confirmation's link (/contact/confirm/<token>): following it signs its reader in too.
    (re.compile(r"(/contact/confirm/)[^/\s?#\"'<>]+"), rf"\1{REDACTED}"),
    # Authorization: Bearer <token>.
    (re.compile(r"(\bBearer\s+)(?!\[redacted\])[^\s\"',;)\]}]+", re.IGNORECASE), rf"\1{REDACTED}"),
    # token=..., emissary_session=... in a query string, a cookie or a form.
    (re.compile(rf"(\b{_SECRET_KEYS}=)(?!\[redacted\])[^&\s;,\"'<>)\]}}]+", re.IGNORECASE), rf"\1{REDACTED}"),
    # A URL's password: scheme://user:password@host (a database's or a broker's URL in a library's message).
    (
        re.compile(r"(\b[a-z][a-z0-9+.-]*://[^:/?#@\s\"'<>]*:)(?!\[redacted\])[^@/\s\"'<>]+(?=@)", re.IGNORECASE),
        rf"\1{REDACTED}",
    ),
    # A chat's incoming-webhook URL (issue 31): its path is its token (Discord's /api/webhooks/<id>/<token>, Slack's
    # hooks.slack.com/services/...). Our own code never logs one; this holds for a library's log line too.
    (re.compile(r"(/api/webhooks/\d+/)[^/\s?#\"'<>]+"), rf"\1{REDACTED}"),
    (re.compile(r"(hooks\.slack\.com/services/)[^\s?#\"'<>]+", re.IGNORECASE), rf"\1{REDACTED}"),
    # "token": "...", 'token': '...' in JSON or a repr.
    (re.compile(rf"([\"']{_SECRET_KEYS}[\"']\s*:\s*[\"'])[^\"']+", re.IGNORECASE), rf"\1{REDACTED}"),
]


def redact(text: str) -> str:
    """``text`` with every token, reply address token part, sign-in link token and session id replaced (what is
    redacted already is left as it is, so that a record's message is checked again after its arguments)."""
    for pattern, replacement in _PATTERNS:
        text = pattern.sub(replacement, text)
    return text


def _clean(value: Any) -> Any:
    """A log argument redacted, its type kept (formatters such as uvicorn's unpack the arguments)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, bytes):  # aiosmtpd logs protocol lines as bytes
        cleaned = redact(value.decode("latin-1"))
        return cleaned.encode("latin-1", errors="replace")
    return value


def scrub(record: logging.LogRecord) -> logging.LogRecord:
    """Redact a log record in place: its message, its arguments, and any traceback or stack it carries."""
    if isinstance(record.msg, str):
        record.msg = redact(record.msg)
    if isinstance(record.args, tuple):
        record.args = tuple(_clean(a) for a in record.args)
    elif isinstance(record.args, Mapping):
        record.args = {k: _clean(v) for k, v in record.args.items()}
    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 - a malformed call: logging would print its raw arguments, so print ours
        record.msg, record.args = redact(f"{record.msg!s} {record.args!r}"), ()
    else:
        clean = redact(message)
        if clean != message:  # a secret made of several arguments, or of an object's text: log the redacted line
            record.msg, record.args = clean, ()
    if record.exc_info and not record.exc_text:
        record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
    if record.stack_info:
        record.stack_info = redact(record.stack_info)
    return record


class RedactingFilter(logging.Filter):
    """The same redaction as a handler's filter, for records made elsewhere (``logging.makeLogRecord``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        scrub(record)
        return True


def install() -> None:
    """Redact every log record of this process where it is made (idempotent), and keep the loggers that write
    what players send at warnings. Call before anything logs; child processes forked later inherit it."""
    current = logging.getLogRecordFactory()
    if not getattr(current, "redacts", False):

        def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
            return scrub(current(*args, **kwargs))

        factory.redacts = True  # type: ignore[attr-defined]
        logging.setLogRecordFactory(factory)
    for name in QUIET:
        logging.getLogger(name).setLevel(logging.WARNING)
    if _json:  # a process configured here: a server's handlers, added since, write JSON lines too
        json_lines()


# The request a record was made for, and its game (issue 27): set by the API's request log (api.routes.metrics).
REQUEST_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("emissary_request_id", default=None)
GAME_ID: contextvars.ContextVar[str | None] = contextvars.ContextVar("emissary_game_id", default=None)
# Handlers of the loggers a server configures after us (uvicorn's): ``install`` gives them the JSON lines too.
SERVER_LOGGERS = ("uvicorn", "uvicorn.error", "uvicorn.access")


class JsonLines(logging.Formatter):
    """One JSON object a line: time, level, logger, message, and the request id and game id when there are any (a
    record's text is redacted already, where it was made; the traceback too)."""

    def format(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "at": datetime.fromtimestamp(record.created, timezone.utc).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": redact(_message(record)),
        }
        request_id, game_id = REQUEST_ID.get(), GAME_ID.get()
        if request_id:
            line["request_id"] = request_id
        if game_id:
            line["game_id"] = game_id
        if record.exc_info and not record.exc_text:
            record.exc_text = redact("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        if record.exc_text:
            line["exc"] = record.exc_text
        if record.stack_info:
            line["stack"] = record.stack_info
        return json.dumps(line, ensure_ascii=False, default=str)


def _message(record: logging.LogRecord) -> str:
    if record.name == "uvicorn.access" and isinstance(record.args, tuple) and len(record.args) == 5:
        client, method, path, version, status = record.args  # uvicorn's access line, as its own formatter writes it
        return f'{client} - "{method} {path} HTTP/{version}" {status}'
    return record.getMessage()


def json_line(line: str, logger: str, level: int = logging.INFO) -> str:
    """A line another process wrote (a child's output, relayed), as a JSON line: a JSON object as it is, any other
    text as the message of a record of ``logger`` at ``level``; redacted either way (issue 27)."""
    if line.startswith("{"):
        try:
            if isinstance(json.loads(line), dict):
                return redact(line)
        except ValueError:
            pass
    record = logging.makeLogRecord(
        {"name": logger, "levelno": level, "levelname": logging.getLevelName(level), "msg": line}
    )
    return JsonLines().format(record)


def json_lines() -> None:
    """Every handler of the root logger and of the server's loggers writes JSON lines (idempotent)."""
    handlers = list(logging.getLogger().handlers)
    for name in SERVER_LOGGERS:
        handlers += logging.getLogger(name).handlers
    for handler in handlers:
        if not isinstance(handler.formatter, JsonLines):
            handler.setFormatter(JsonLines())


def configure(level: str = "INFO") -> None:
    """A process's logging at start-up: redaction installed, then the root logger at ``level`` on stderr, as JSON
    lines (issue 27); the server's own loggers get JSON lines when redaction is installed again after it starts."""
    global _json
    install()
    logging.basicConfig(level=level.upper(), format=FORMAT)
    _json = True
    json_lines()
