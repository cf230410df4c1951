"""A feed line in plain words (issue 17): what a viewer reads for one event of their timeline.

The platform words its own events (windows, extensions, rollbacks, forks); a ruleset words its own through
``Ruleset.describe``; any other event is named by its kind in words ("Army moved"), never by its class name.
Every line is built only from the event's payload, which the viewer may see (the event is in their
timeline), and from the seats' names, which are public: a line never says more than the event shows them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from domain.ids import GM

WINDOW_CLOSE_REASONS = {
    "gm advanced": "the GM moved the game on",
    "gm closed": "the GM closed it",
    "deadline": "its deadline passed",
    "everyone acted or waived": "everyone acted or waived",
    "every power ready": "every power was ready",
    "nothing to resist": "there was nothing to resist",
}


def who(seat: Any, names: Mapping[str, str]) -> str:
    """A seat by its public name (the GM as "the GM"; the service itself as "the service")."""
    if seat == GM:
        return "the GM"
    if seat in (None, "", "system"):
        return "the service"
    return names.get(str(seat), str(seat))


def words(kind: str) -> str:
    """An event kind in words: ``ArmyMoved`` -> ``Army moved``."""
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", kind) or [kind]
    return " ".join([parts[0].capitalize(), *(p.lower() for p in parts[1:])])


def _hours(value: Any) -> str:
    try:
        h = float(value)
    except (TypeError, ValueError):
        return str(value)
    return f"{h:g} hour{'s' if h != 1 else ''}"


def platform_line(kind: str, data: Mapping[str, Any], names: Mapping[str, str], window: str) -> str | None:
    """The platform's own events in words (``window``: the window's name in words), or None."""
    if kind == "WindowOpened":
        return f"{window} opened."
    if kind == "WindowClosed":
        reason = str(data.get("reason") or "")
        return f"{window} closed: {WINDOW_CLOSE_REASONS.get(reason, reason or 'closed')}."
    if kind == "DeadlineSet":
        return f"The GM moved the deadline of {window}."
    if kind == "ExtensionRequested":
        return f"{who(data.get('power_id'), names)} asked for {_hours(data.get('hours'))} more in {window}."
    if kind == "ExtensionGranted":
        return "The GM granted an extension."
    if kind == "ExtensionRefused":
        return "The GM refused an extension."
    if kind == "ReadyDeclared":
        return f"{who(data.get('power_id'), names)} is done for now."
    if kind == "RemindersQueued":
        return f"Reminders were sent for {window}."
    if kind == "TimezoneSet":
        return f"{who(data.get('power_id'), names)} set their time zone."
    if kind == "ContactSet":
        return f"{who(data.get('power_id'), names)} set where their mail goes."
    if kind == "MailTurnRecorded":
        return f"A turn by mail from {who(data.get('principal') or data.get('power_id'), names)} was recorded."
    if kind == "GameRolledBack":
        return f"The GM rolled the game back: {data.get('reason') or 'no reason given'}."
    if kind == "GameForked":
        return f"This game was forked from another as a sandbox: {data.get('reason') or data.get('name') or ''}."
    if kind in ("SeedCommitted", "SeedSealed"):
        return "The dice for the coming rolls were fixed in advance (sealed)."
    if kind == "SeedRevealed":
        return "The sealed dice seed was revealed to the GM."
    if kind == "SeedCleared":
        return "The dice seed was cleared."
    if kind == "CredentialIssued":
        return f"A sign-in link was issued for {who(data.get('principal'), names)}."
    if kind == "CredentialsRevoked":
        return f"The sign-in links of {who(data.get('principal'), names)} were replaced."
    if kind == "VisibilityGranted":
        return f"{who(data.get('to'), names)} learned something: {data.get('text') or ''}".rstrip(": ") + "."
    return None


def phase_title(ruleset: Any, phase: str) -> str:
    """A phase (or a window named after it) in words, by the ruleset's ``phase_title``, else as it is named."""
    title = getattr(ruleset, "phase_title", None) if ruleset is not None else None
    return (title(phase) if title is not None and phase else None) or phase


def describe_event(
    ruleset: Any,
    kind: str,
    data: Mapping[str, Any],
    names: Mapping[str, str],
) -> str:
    """One event in words: the ruleset's own words first, then the platform's, else its kind in words."""
    describe = getattr(ruleset, "describe", None) if ruleset is not None else None
    if describe is not None:
        line = describe(kind, data, names)
        if line:
            return line
    window_id = str(data.get("window_id") or "")
    window = phase_title(ruleset, window_id) if window_id else "The window"
    return platform_line(kind, data, names, window) or f"{words(kind)}."
