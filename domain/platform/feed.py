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
from domain.platform.i18n import N_, _, ngettext

# Why a window closed, in words (marked here, translated where a line is built).
WINDOW_CLOSE_REASONS = {
    "gm advanced": N_("the GM moved the game on"),
    "gm closed": N_("the GM closed it"),
    "deadline": N_("its deadline passed"),
    "everyone acted or waived": N_("everyone acted or waived"),
    "every power ready": N_("every power was ready"),
    "nothing to resist": N_("there was nothing to resist"),
    "turn over": N_("the turn was taken"),
}

# A dispute's events in words (domain.platform.disputes); DisputeSettled by its outcome.
DISPUTE_LINES = {
    "DisputeRaised": N_("A dispute was raised about an event: {event}."),
    "DisputeAnswered": N_("A dispute was answered."),
}
OUTCOME_LINES = {
    "upheld": N_("A dispute was upheld."),
    "rejected": N_("A dispute was rejected."),
    "withdrawn": N_("A dispute was withdrawn."),
}


def who(seat: Any, names: Mapping[str, str]) -> str:
    """A seat by its public name (the GM as "the GM"; the service itself as "the service")."""
    if seat == GM:
        return _("the GM")
    if seat in (None, "", "system"):
        return _("the service")
    return names.get(str(seat), str(seat))


def words(kind: str) -> str:
    """An event kind in words: ``ArmyMoved`` -> ``Army moved``."""
    parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|\d+", kind) or [kind]
    return " ".join([parts[0].capitalize(), *(p.lower() for p in parts[1:])])


def _hours(value: Any) -> str:
    """Hours in words: "1 hour", "2 hours", "1.5 hours" (a plural form counts whole numbers only, so a
    fraction has a phrase of its own)."""
    try:
        h = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not h.is_integer():
        # TRANSLATORS: a fraction of hours ("1.5 hours"), never one
        return _("{hours} hours").format(hours=f"{h:g}")
    return ngettext("{hours} hour", "{hours} hours", int(h)).format(hours=f"{h:g}")


def platform_line(kind: str, data: Mapping[str, Any], names: Mapping[str, str], window: str) -> str | None:
    """The platform's own events in words (``window``: the window's name in words), or None."""
    if kind == "WindowOpened":
        return _("{window} opened.").format(window=window)
    if kind == "WindowClosed":
        reason = str(data.get("reason") or "")
        why = _(WINDOW_CLOSE_REASONS[reason]) if reason in WINDOW_CLOSE_REASONS else reason or _("closed")
        return _("{window} closed: {reason}.").format(window=window, reason=why)
    if kind == "GameBlocked":
        return _("{window} is blocked: rule {rule} refuses the default for silence.").format(
            window=window, rule=data.get("rule") or "?"
        )
    if kind == "DeadlineSet":
        return _("The GM moved the deadline of {window}.").format(window=window)
    if kind == "ExtensionRequested":
        return _("{who} asked for {hours} more in {window}.").format(
            who=who(data.get("seat"), names), hours=_hours(data.get("hours")), window=window
        )
    if kind == "ExtensionGranted":
        return _("The GM granted an extension.")
    if kind == "ExtensionRefused":
        return _("The GM refused an extension.")
    if kind == "ReadyDeclared":
        return _("{who} is done for now.").format(who=who(data.get("seat"), names))
    if kind == "RemindersQueued":
        return _("Reminders were sent for {window}.").format(window=window)
    if kind == "TimezoneSet":
        return _("{who} set their time zone.").format(who=who(data.get("seat"), names))
    if kind == "LanguageSet":
        return _("{who} chose the language of their mail.").format(who=who(data.get("seat"), names))
    if kind == "ContactSet":
        return _("{who} set where their mail goes.").format(who=who(data.get("seat"), names))
    if kind == "NotificationsSet":  # issue 31: shown to the seat alone
        return _("{who} chose how their news comes.").format(who=who(data.get("seat"), names))
    if kind in SEATING:
        return _seating_line(kind, data, names)
    if kind == "MailTurnRecorded":
        sender = who(data.get("principal"), names)
        return _("A turn by mail from {who} was recorded.").format(who=sender)
    if kind == "GameRolledBack":
        return _("The GM rolled the game back: {reason}.").format(reason=data.get("reason") or _("no reason given"))
    if kind == "GameForked":
        return _("This game was forked from another as a sandbox: {reason}.").format(
            reason=data.get("reason") or data.get("name") or ""
        )
    if kind == "Previewed":  # the audit line of a preview (issue 29): the GM's and hosts' alone
        return _("Closing {window} was previewed; nothing was published.").format(window=window)
    if kind == "DisputeSettled" and data.get("outcome") in OUTCOME_LINES:
        return _(OUTCOME_LINES[str(data["outcome"])])
    if kind in DISPUTE_LINES:  # a dispute (issue 29): the raiser's and whoever answers it alone
        return _(DISPUTE_LINES[kind]).format(event=words(str(data.get("about") or "")))
    if kind in ("SeedCommitted", "SeedSealed"):
        return _("The dice for the coming rolls were fixed in advance (sealed).")
    if kind == "SeedRevealed":
        return _("The sealed dice seed was revealed to the GM.")
    if kind == "SeedCleared":
        return _("The dice seed was cleared.")
    if kind == "CredentialIssued":
        return _("A sign-in link was issued for {who}.").format(who=who(data.get("principal"), names))
    if kind == "CredentialsRevoked":
        return _("The sign-in links of {who} were replaced.").format(who=who(data.get("principal"), names))
    if kind == "VisibilityGranted":
        learned = str(data.get("text") or "").rstrip(": ")
        if not learned:
            return _("{who} learned something.").format(who=who(data.get("to"), names))
        return _("{who} learned something: {text}.").format(who=who(data.get("to"), names), text=learned)
    return None


SEATING = frozenset(
    {"SeatOpened", "SeatClosed", "SeatTaken", "InvitationSent", "InvitationAccepted", "InvitationWithdrawn"}
)


def _seating_line(kind: str, data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """Open seats and invitations in words (issue 28): to a seat, or to observe (an invitation with no seat)."""
    if kind == "SeatOpened":
        return _("{seat}'s seat is open to a new player.").format(seat=who(data.get("seat"), names))
    if kind == "SeatClosed":
        return _("{seat}'s seat is no longer open.").format(seat=who(data.get("seat"), names))
    if kind == "SeatTaken":
        return _("A new player took {seat}'s seat.").format(seat=who(data.get("seat"), names))
    if kind == "InvitationSent" and not data.get("seat"):
        return _("An address was invited to observe the game.")
    if kind == "InvitationAccepted" and not data.get("seat"):
        return _("An invited observer began to watch the game.")
    if kind == "InvitationSent":
        return _("{seat}'s seat was offered to an address by invitation.").format(seat=who(data.get("seat"), names))
    if kind == "InvitationAccepted":
        return _("The invited player took {seat}'s seat.").format(seat=who(data.get("seat"), names))
    return _("An invitation was withdrawn.")  # InvitationWithdrawn


def _rules_told(ruleset: Any, data: Mapping[str, Any]) -> str:
    """A rules change adopted, in words: the version, the phase it counts from, and the first changes it shows."""
    head = _("The rules changed: version {version} replaces {previous} from {phase}.").format(
        version=data.get("rules_version") or "?",
        previous=data.get("previous_version") or "?",
        phase=phase_title(ruleset, str(data.get("from_phase") or "")),
    )
    changes = [c for c in data.get("changes") or [] if isinstance(c, Mapping)]
    results = [c for c in changes if c.get("result")]
    if not changes:
        return head + " " + _("Nothing you can see changes.")
    parts = []
    for c in results[:5]:
        fields = ", ".join(
            f"{k} {v.get('before')} → {v.get('after')}" for k, v in dict(c["result"]).items() if isinstance(v, Mapping)
        )
        rules = ", ".join(str(r) for r in c.get("rules") or [])
        number = f"#{c['version']} " if c.get("version") is not None else ""  # the GM's lines name the version
        parts.append(f"{number}{c.get('type')}: {fields}" + (f" ({rules})" if rules else ""))
    more = len(results) - len(parts)
    tail = "; ".join(parts) + (" " + _("and {n} more").format(n=more) if more > 0 else "")
    return head + " " + _("What changes: {changes}.").format(changes=tail or _("your view"))


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
        line: str | None = describe(kind, data, names)
        if line:
            return line
    if kind == "RulesAdopted":  # sealed: the audit's line (issue 29)
        return _("The game adopted rules version {version} from {phase}.").format(
            version=data.get("rules_version") or "?", phase=phase_title(ruleset, str(data.get("from_phase") or ""))
        )
    if kind == "RulesChangeTold":  # each viewer's own line: only the changes it may see (issue 29)
        return _rules_told(ruleset, data)
    window_id = str(data.get("window_id") or "")
    window = phase_title(ruleset, window_id) if window_id else _("The window")
    return platform_line(kind, data, names, window) or f"{words(kind)}."
