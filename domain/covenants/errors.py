"""The covenant game's refusals: a RuleViolation whose sentence ends with the rule id it enforces."""

from __future__ import annotations

from domain import errors


class RuleViolation(errors.RuleViolation):
    """A refused covenant command; the message names its A-* rule, so a player reads which rule it breaks."""

    def __init__(self, message: str, *, rule: str | None = None, field: str | None = None) -> None:
        super().__init__(f"{message} ({rule})" if rule else message, rule=rule, field=field)
