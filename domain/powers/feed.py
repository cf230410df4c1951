"""Powers' feed lines in plain words (issue 17; the platform's ``Ruleset.describe`` and ``phase_title``).

A line is built only from the event's payload (the event is in its viewer's timeline) and from the powers'
names, which are public; it names only what every viewer of the event sees on their board (a title, a
result), never a description, a consequence's text or a disclosure, which the board shows to fewer seats
than the event's audience. An event not named here gets the platform's words (``domain.platform.feed``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from domain.platform.feed import who

_PHASE = re.compile(r"^s(\d+)(?:m(\d+))?-(\w+)$")


def phase_title(phase: str) -> str | None:
    """``s1m2-planning`` -> "Season 1, month 2: Planning"; ``s1-tidings`` -> "Season 1: Tidings"."""
    if phase == "setup":
        return "Setting up"
    m = _PHASE.match(phase or "")
    if m is None:
        return None
    season, month, step = m.groups()
    return f"Season {season}{f', month {month}' if month else ''}: {step.capitalize()}"


def _phase_of(data: Mapping[str, Any]) -> str:
    step, season, month = data.get("step", ""), data.get("season", 0), data.get("month", 0)
    if step in ("tidings", "cleanup"):
        return f"Season {season}: {step.capitalize()}"
    return f"Season {season}, month {month}: {str(step).capitalize()}"


def _quoted(title: Any) -> str:
    return f"“{title}”" if title else "an action"


def result_words(result: Mapping[str, Any], resisted_by: str | None = None) -> str:
    """An action's result as a sentence (issue 17): "Succeeded: 3 successes, 1 taken away by resistance, net 2
    against difficulty 2 (1 to spare)."; with no difficulty to beat, "Done (no difficulty was set): 0 successes.".
    ``resisted_by`` names the resister when the reader can tell who it was anyway (the action's one target):
    with several targets, which of them resisted stays theirs (reactions are private, P-RES-3)."""
    successes = result.get("successes", 0) or 0
    counted = f"{successes} success{'es' if successes != 1 else ''}"
    difficulty = result.get("difficulty") or 0
    resisted = result.get("resisted") or 0
    if not difficulty and not resisted:
        return f"Done (no difficulty was set): {counted}."
    parts = [counted]
    if resisted:
        by = f"{resisted_by}'s resistance" if resisted_by else "resistance"
        parts.append(f"{resisted} taken away by {by}, net {result.get('net', 0)}")
    outcome = "Succeeded" if result.get("success") else "Failed"
    spare = result.get("excess") or 0
    return f"{outcome}: {', '.join(parts)} against difficulty {difficulty}" + (
        f" ({spare} to spare)." if result.get("success") and spare else "."
    )


def _result(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    details = data.get("details") or {}
    title = _quoted(details.get("title"))
    by = who(details.get("power"), names) if details.get("power") else "someone"
    return f"{title} by {by}: {result_words(data)}"


def describe(kind: str, data: Mapping[str, Any], names: Mapping[str, str]) -> str | None:
    """A Powers event in words for a viewer who may see it, or None (the platform's words then)."""
    power = who(data.get("power_id"), names) if data.get("power_id") else ""
    if kind == "GameCreated":
        return f"The GM created the game {data.get('name', '')}."
    if kind == "PowerAdded":
        return f"{data.get('name', power)} joined the table ({data.get('subclass', '')}, {data.get('cls', '')})."
    if kind == "StepBegan":
        if data.get("step") == "tidings":
            return f"Season {data.get('season')} began with Tidings."
        return f"{_phase_of(data)} began."
    if kind == "AssetGranted":
        return f"{power} gained the asset {data.get('name')} ({data.get('cls')}, rank {data.get('rank')})."
    if kind == "InfluenceSet":
        return f"{power} now has {data.get('amount')} influence in {data.get('hex_id')}."
    if kind == "InfluenceDisclosed":
        seen = ", ".join(f"{who(p, names)} {n}" for p, n in sorted((data.get("entries") or {}).items()))
        return f"Influence seen in {data.get('hex_id')}: {seen or 'none'}."
    if kind == "ActionSubmitted":
        return f"{power} submitted {_quoted(data.get('title'))} ({data.get('slot')})."
    if kind == "DiceRolled":
        n = len((data.get("pool") or {}).get("dice") or [])
        return f"The server rolled {n} di{'ce' if n != 1 else 'e'} for an action."
    if kind == "ConversionsLocked":
        return "The conversions of an action were fixed."
    if kind == "ActionDiscarded":
        return "An action was discarded (it stays spent)."
    if kind == "DifficultyRecorded":
        return f"The GM set a difficulty of {data.get('value')}."
    if kind == "DifficultyDeclared":
        after = " after the roll" if data.get("after_roll") else ""
        return f"The GM set the difficulty of an action to {data.get('value')}{after}."
    if kind == "DifficultyCommitted":
        return "The GM set a sealed difficulty (revealed at Resolution)."
    if kind == "DifficultyRevealed":
        return f"A sealed difficulty was revealed: {data.get('value')}."
    if kind == "ConsequenceProposed":
        # Its text and effects are the actor's alone (the board shows them to the actor): a collaborator in
        # the event's audience reads only that one was offered.
        return "The GM offered a consequence for an action (see the action)."
    if kind == "ConsequenceAccepted":
        return "A consequence was accepted."
    if kind == "SecretShared":
        return f"{who(data.get('from_power'), names)} shared {data.get('name')} with {who(data.get('to'), names)}."
    if kind == "SchemesGranted":
        n = len(data.get("asset_ids") or [])
        return f"{power} gained {n} scheme{'s' if n != 1 else ''} from unused actions."
    if kind == "TiesBroken":
        tied = " and ".join(who(p, names) for p in data.get("tied") or [])
        return f"A coin flip ordered {tied}: {', '.join(who(p, names) for p in data.get('order') or [])}."
    if kind == "ResolutionQueueBuilt":
        return "The order of resolution was fixed."
    if kind == "ActionResolved":
        return _result(data, names)
    if kind == "ActionProvisional":
        details = data.get("details") or {}
        return f"{_quoted(details.get('title'))} awaits resistance ({data.get('successes', 0)} successes so far)."
    if kind == "ResistanceOffered":
        return (
            f"{data.get('power_name') or power} acts against you: {_quoted(data.get('title'))} "
            f"(pool size {data.get('pool_size')}). You may resist."
        )
    if kind == "ResolutionPublished":
        text = data.get("announcement") or ""
        return f"The GM published the resolution{': ' + text if text else ''}."
    if kind == "ReactionDeclared":
        return f"{power} resisted an action."
    if kind == "ReactionsWaived":
        return f"{power} waived their reaction."
    if kind == "ActionLost":
        return f"An action was lost: {data.get('reason') or ''}".rstrip(": ") + "."
    if kind == "QuotaChanged":
        return f"{power}'s actions a month: {data.get('public')} public, {data.get('private')} private."
    return None
