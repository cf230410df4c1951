"""Length limits of every text a person can type, in one place.

The domain commands enforce them (so every channel is covered: JSON API, web forms, email,
CLI); the API schemas and the web forms use the same constants, so a request is refused at
the edge with the field's name before it reaches a command.
"""

from __future__ import annotations

from typing import Any

from domain.errors import RuleViolation

GAME_NAME = 120
GM_NAME = 120
POWER_NAME = 80
ASSET_NAME = 80
TITLE = 200
DESCRIPTION = 5000
LOCATION = 200
ANNOUNCEMENT = 20000
CONSEQUENCE_TEXT = 2000
GRANT_TEXT = 5000
REASON = 2000
TIER_TEXT = 200
IDENTIFIER = 64  # power, action, asset, window, request and consequence ids; hexes
EMAIL = 254  # RFC 5321: the longest forward path
TIMEZONE = 64  # the longest IANA names are about 30 characters
MESSAGE_ID = 998  # RFC 5322: the longest header line
HEADER = 998  # any mail header (From, Subject)
ITEMS = 50  # targets, collaborators, resisters, pool assets, dice, effects, tiers
NUMBER = 1_000_000  # the API's sanity bound on any whole number; the rules set the real ranges


def check_text(value: Any, field: str, limit: int, *, required: bool = False, what: str | None = None) -> str:
    """Refuse text that is not a string, too long, or (if ``required``) blank; returns it unchanged."""
    what = what or field
    if not isinstance(value, str):
        raise RuleViolation(f"{what} must be text", field=field)
    if len(value) > limit:
        raise RuleViolation(f"{what} is at most {limit} characters; this one has {len(value)}", field=field)
    if required and not value.strip():
        raise RuleViolation(f"{what} cannot be empty", field=field)
    return value


def check_optional_text(value: Any, field: str, limit: int, *, what: str | None = None) -> str | None:
    """As ``check_text``, for text that may be absent (None)."""
    return None if value is None else check_text(value, field, limit, what=what)


def field_name(path: Any) -> str:
    """A field's dotted name from a validation error's path, each part cut to ``IDENTIFIER`` characters
    (a key of a megabyte is not echoed back)."""
    parts = [str(p) for p in path]
    return ".".join(p if len(p) <= IDENTIFIER else p[: IDENTIFIER - 1] + "…" for p in parts)


def check_email(value: Any, field: str = "email") -> str:
    """A syntactically valid email address of at most ``EMAIL`` characters, normalized (no DNS look-up)."""
    from email_validator import EmailNotValidError, validate_email

    check_text(value, field, EMAIL, required=True, what="an email address")
    try:
        return validate_email(value, check_deliverability=False).normalized
    except EmailNotValidError as err:
        raise RuleViolation(f"{value!r} is not an email address: {err}", field=field) from None


def whole_number(value: Any, field: str, low: int, high: int, rule: str) -> int:
    """``value`` if it is a whole number (not a bool) from ``low`` to ``high``; else refused naming ``rule``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RuleViolation(f"{field} is a whole number from {low} to {high}", rule=rule, field=field)
    return value
