"""Errors a command can raise; each names the rule or field, and a refused command records nothing."""

from __future__ import annotations


class DomainError(Exception):
    """Base class: a command was refused."""

    status = 422

    def __init__(self, message: str, *, rule: str | None = None, field: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.rule = rule
        self.field = field

    def as_dict(self) -> dict[str, str | None]:
        """The JSON body an API or email reply shows: rule id, field and a plain sentence."""
        return {"error": type(self).__name__, "rule": self.rule, "field": self.field, "message": self.message}


class RuleViolation(DomainError):
    """The command breaks a rule of the game (422)."""


class NotFound(DomainError):
    """The game, power, action or window does not exist, or the caller may not know it does (404)."""

    status = 404


class Forbidden(DomainError):
    """The caller is who they say, but may not do this (403)."""

    status = 403


class Unauthorized(DomainError):
    """No valid credential was presented (401)."""

    status = 401


class Conflict(DomainError):
    """The command raced with others and could not be applied; nothing was recorded (409)."""

    status = 409


class Busy(Conflict):
    """The game stayed busy through every retry: nothing was recorded, and the same command may well succeed later
    (a temporary failure: mail answers it 451 or 503, never as a refusal)."""
