"""Length limits of every text a person can type, in one place.

The domain commands enforce them (so every channel is covered: JSON API, web forms, email,
CLI); the API schemas and the web forms use the same constants, so a request is refused at
the edge with the field's name before it reaches a command.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
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
# What both stores hold in a whole-number column (PostgreSQL's BIGINT, SQLite's INTEGER): a signed 64-bit
# number. Every version, sequence and cursor a request names is within it, and so is every whole number a
# command carries (a larger one cannot be stored, compared in SQL, or written by the snapshots' JSON library).
BIGINT = 2**63 - 1
SMALLEST_BIGINT = -(2**63)
PAGE = 5000  # the most events, feed items, phases or audit rows one page of the API holds


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


def check_whole_numbers(value: Any, field: str) -> None:
    """Refuse any whole number in ``value`` (nested lists, dicts and dataclasses included) that a signed 64-bit
    column cannot hold, naming ``field`` and the path to it."""
    if not _fits(value):  # every command's every field passes here: the path is worked out only for a refusal
        raise RuleViolation(
            f"{_where(value, field)} is a whole number from {SMALLEST_BIGINT} to {BIGINT} (what the game's records "
            "hold)",
            field=_where(value, field),
        )


def all_fit(value: Any) -> bool:
    """Whether every whole number in ``value`` fits a signed 64-bit column (``check_whole_numbers`` without the
    refusal: a caller checks many fields at once, then names the one at fault only if one is)."""
    return _fits(value)


_TEXT = frozenset({str, float, bool, type(None), bytes})
_SEQUENCES = (list, tuple, set, frozenset)
_SEQUENCE_TYPES = frozenset(_SEQUENCES)


def _fits(value: Any) -> bool:
    # Every field of every command passes here, so the common cases (text, small numbers) cost no call.
    kind = type(value)
    if kind is int:
        small: bool = SMALLEST_BIGINT <= value <= BIGINT
        return small
    if kind in _TEXT:
        return True
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str and not _fits(key):
                return False
            if type(item) is int:
                if not SMALLEST_BIGINT <= item <= BIGINT:
                    return False
            elif type(item) not in _TEXT and not _fits(item):
                return False
        return True
    if kind in _SEQUENCE_TYPES:
        for item in value:
            if type(item) is int:
                if not SMALLEST_BIGINT <= item <= BIGINT:
                    return False
            elif type(item) not in _TEXT and not _fits(item):
                return False
        return True
    if isinstance(value, Mapping):
        return all(_fits(k) and _fits(v) for k, v in value.items())
    if isinstance(value, _SEQUENCES):
        return all(_fits(item) for item in value)
    if isinstance(value, int) and not isinstance(value, bool):  # an IntEnum, an int subclass
        return SMALLEST_BIGINT <= value <= BIGINT
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return all(_fits(getattr(value, f.name)) for f in dataclasses.fields(value))
    return True


def _where(value: Any, field: str) -> str:
    """The dotted path to the first whole number in ``value`` that does not fit (``field`` if it is one)."""
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not _fits(key):
                return field
            if not _fits(item):
                return _where(item, f"{field}.{field_name([key])}")
    elif isinstance(value, _SEQUENCES):
        for i, item in enumerate(value):
            if not _fits(item):
                return _where(item, f"{field}.{i}")
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            if not _fits(getattr(value, f.name)):
                return _where(getattr(value, f.name), f"{field}.{f.name}")
    return field


def whole_number(value: Any, field: str, low: int, high: int, rule: str) -> int:
    """``value`` if it is a whole number (not a bool) from ``low`` to ``high``; else refused naming ``rule``."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise RuleViolation(f"{field} is a whole number from {low} to {high}", rule=rule, field=field)
    return value
