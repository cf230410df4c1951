"""Powers' feed lines in plain words (issue 17; the platform's ``Ruleset.describe`` and ``phase_title``).

A line is built only from the event's payload (the event is in its viewer's timeline) and from the powers'
names, which are public; it names only what every viewer of the event sees on their board (a title, a
result), never a description, a consequence's text or a disclosure, which the board shows to fewer seats
than the event's audience. An event not named here gets the platform's words (``domain.platform.feed``).

Every phrase is marked for translation (``_``, issue 17) and takes its values by name after translation, so
a translator can move them; English is the phrase itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from domain.platform.feed import who
from domain.platform.i18n import N_, _, ngettext, word_of

_PHASE = re.compile(r"^s(\d+)(?:m(\d+))?-(\w+)$")

# The steps of a month in words (the calendar's ids are identifiers, not words).
STEP_WORDS = {
    "setup": N_("Setup"),
    "tidings": N_("Tidings"),
    "planning": N_("Planning"),
    "resolution": N_("Resolution"),
    "resistance": N_("Resistance"),
    "battle": N_("Battle"),
    "cleanup": N_("Cleanup"),
}


# An action's slot and the states of an action, a consequence offered and an extension asked for, as the
# boards print them ("(private, rolled)"); the records keep the identifiers.
STATE_WORDS = {
    "private": N_("private"),
    "public": N_("public"),
    "proposed": N_("proposed"),
    "submitted": N_("submitted"),
    "rolled": N_("rolled"),
    "provisional": N_("provisional"),
    "resolved": N_("resolved"),
    "discarded": N_("discarded"),
    "accepted": N_("accepted"),
    "undone": N_("undone"),
    "withdrawn": N_("withdrawn"),
    "pending": N_("pending"),
    "granted": N_("granted"),
    "refused": N_("refused"),
}


def state_word(value: Any) -> str:
    """A slot or a state in the reader's language ("private" -> "private"); anything else as it is."""
    return word_of(STATE_WORDS, value)


def step_word(step: Any) -> str:
    """A step's name in the reader's language ("planning" -> "Planning"); an unknown one capitalised."""
    step = str(step or "")
    return _(STEP_WORDS[step]) if step in STEP_WORDS else step.capitalize()


def phase_title(phase: str) -> str | None:
    """``s1m2-planning`` -> "Season 1, month 2: Planning"; ``s1-tidings`` -> "Season 1: Tidings"."""
    if phase == "setup":
        return _("Setting up")
    m = _PHASE.match(phase or "")
    if m is None:
        return None
    season, month, step = m.groups()
    if month:
        return _("Season {season}, month {month}: {step}").format(season=season, month=month, step=step_word(step))
    return _("Season {season}: {step}").format(season=season, step=step_word(step))


def _phase_of(data: Mapping[str, Any]) -> str:
    step, season, month = data.get("step", ""), data.get("season", 0), data.get("month", 0)
    if step in ("tidings", "cleanup"):
        return _("Season {season}: {step}").format(season=season, step=step_word(step))
    return _("Season {season}, month {month}: {step}").format(season=season, month=month, step=step_word(step))


def _quoted(title: Any) -> str:
    return _("“{title}”").format(title=title) if title else _("an action")


def changed_words(change: Mapping[str, Any] | None) -> str:
    """What the GM did to an action's difficulty after its roll (issue 17, "What was seen"), or "": a result
    read without it would look as if the roll had faced that difficulty from the start."""
    if not change:
        return ""
    if change.get("from") is None:
        return _("The GM set the difficulty after the roll.")
    return _("The GM changed the difficulty from {old} to {new} after the roll.").format(
        old=change.get("from"), new=change.get("to")
    )


def result_words(
    result: Mapping[str, Any], resisted_by: str | None = None, changed: Mapping[str, Any] | None = None
) -> str:
    """An action's result as a sentence (issue 17): "Succeeded: 3 successes, 1 taken away by resistance, net 2
    against difficulty 2 (1 to spare)."; with no difficulty to beat, "Done (no difficulty was set): 0 successes.".
    ``resisted_by`` names the resister when the reader can tell who it was anyway (the action's one target):
    with several targets, which of them resisted stays theirs (reactions are private, P-RES-3). ``changed``
    (the action view's ``difficulty_changed_after_roll``, for those who saw the ruling) adds that the GM set
    or changed the difficulty after the roll."""
    line = _result_sentence(result, resisted_by)
    after = changed_words(changed)
    return f"{line} {after}" if after else line


def _result_sentence(result: Mapping[str, Any], resisted_by: str | None) -> str:
    successes = result.get("successes", 0) or 0
    counted = ngettext("{n} success", "{n} successes", successes).format(n=successes)
    difficulty = result.get("difficulty") or 0
    resisted = result.get("resisted") or 0
    if not difficulty and not resisted:
        return _("Done (no difficulty was set): {counted}.").format(counted=counted)
    parts = [counted]
    if resisted:
        if resisted_by:
            taken = _("{n} taken away by {who}'s resistance, net {net}")
        else:
            taken = _("{n} taken away by resistance, net {net}")
        parts.append(taken.format(n=resisted, who=resisted_by, net=result.get("net", 0)))
    spare = result.get("excess") or 0
    values = {"parts": ", ".join(parts), "difficulty": difficulty, "spare": spare}
    if result.get("success"):
        if spare:
            return _("Succeeded: {parts} against difficulty {difficulty} ({spare} to spare).").format(**values)
        return _("Succeeded: {parts} against difficulty {difficulty}.").format(**values)
    return _("Failed: {parts} against difficulty {difficulty}.").format(**values)


def _result(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    details = data.get("details") or {}
    title = _quoted(details.get("title"))
    by = who(details.get("power"), names) if details.get("power") else _("someone")
    return _("{title} by {who}: {result}").format(title=title, who=by, result=result_words(data))


def _power(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return who(data.get("power_id"), names) if data.get("power_id") else ""


# Events whose line takes no value from the event.
_FIXED = {
    "ConversionsLocked": N_("The conversions of an action were fixed."),
    "ActionDiscarded": N_("An action was discarded (it stays spent)."),
    "DifficultyCommitted": N_("The GM set a sealed difficulty (revealed at Resolution)."),
    # Its text and effects are the actor's alone (the board shows them to the actor): a collaborator in the
    # event's audience reads only that one was offered.
    "ConsequenceProposed": N_("The GM offered a consequence for an action (see the action)."),
    "ConsequenceAccepted": N_("A consequence was accepted."),
    "ResolutionQueueBuilt": N_("The order of resolution was fixed."),
    "ReactionConsequenceProposed": N_("The GM offered a consequence for a reaction (see the reaction)."),
    "ReactionConsequenceAccepted": N_("A consequence of a reaction was accepted."),
}

_Line = Callable[[Mapping[str, Any], Mapping[str, str]], str]


def _game_created(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("The GM created the game {name}.").format(name=data.get("name", ""))


def _power_added(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{name} joined the table ({subclass}, {cls}).").format(
        name=data.get("name", _power(data, names)), subclass=data.get("subclass", ""), cls=data.get("cls", "")
    )


def _step_began(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    if data.get("step") == "tidings":
        return _("Season {season} began with Tidings.").format(season=data.get("season"))
    return _("{phase} began.").format(phase=_phase_of(data))


def _asset_granted(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{power} gained the asset {name} ({cls}, rank {rank}).").format(
        power=_power(data, names), name=data.get("name"), cls=data.get("cls"), rank=data.get("rank")
    )


def _influence_set(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{power} now has {amount} influence in {hex}.").format(
        power=_power(data, names), amount=data.get("amount"), hex=data.get("hex_id")
    )


def _influence_disclosed(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    seen = ", ".join(f"{who(p, names)} {n}" for p, n in sorted((data.get("entries") or {}).items()))
    return _("Influence seen in {hex}: {seen}.").format(hex=data.get("hex_id"), seen=seen or _("none"))


def _action_submitted(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{power} submitted {title} ({slot}).").format(
        power=_power(data, names), title=_quoted(data.get("title")), slot=state_word(data.get("slot"))
    )


def _dice_rolled(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    n = len((data.get("pool") or {}).get("dice") or [])
    return ngettext("The server rolled {n} die for an action.", "The server rolled {n} dice for an action.", n).format(
        n=n
    )


def _difficulty_recorded(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("The GM set a difficulty of {value}.").format(value=data.get("value"))


def _difficulty_declared(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    if data.get("after_roll"):
        return _("The GM set the difficulty of an action to {value} after the roll.").format(value=data.get("value"))
    return _("The GM set the difficulty of an action to {value}.").format(value=data.get("value"))


def _difficulty_revealed(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("A sealed difficulty was revealed: {value}.").format(value=data.get("value"))


def _secret_shared(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{giver} shared {name} with {taker}.").format(
        giver=who(data.get("from_power"), names), name=data.get("name"), taker=who(data.get("to"), names)
    )


def _schemes_granted(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    n = len(data.get("asset_ids") or [])
    return ngettext(
        "{power} gained {n} scheme from unused actions.", "{power} gained {n} schemes from unused actions.", n
    ).format(power=_power(data, names), n=n)


def _ties_broken(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    tied = _(" and ").join(who(p, names) for p in data.get("tied") or [])
    order = ", ".join(who(p, names) for p in data.get("order") or [])
    return _("A coin flip ordered {tied}: {order}.").format(tied=tied, order=order)


def _action_provisional(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    details = data.get("details") or {}
    return _("{title} awaits resistance ({n} successes so far).").format(
        title=_quoted(details.get("title")), n=data.get("successes", 0)
    )


def _acts_against(data: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """The values of the lines that tell of an action resistance may meet."""
    return {
        "power": data.get("power_name") or _power(data, names),
        "title": _quoted(data.get("title")),
        "size": data.get("pool_size"),
    }


def _resistance_offered(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{power} acts against you: {title} (pool size {size}). You may resist.").format(
        **_acts_against(data, names)
    )


def _resistance_announced(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{power} acts: {title} (pool size {size}); its targets may resist before it resolves.").format(
        **_acts_against(data, names)
    )


def _resistance_forewarned(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{power} acts against you: {title} (pool size {size}). You may resist once the month is resolved.").format(
        **_acts_against(data, names)
    )


def _pool_assets_shown(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    listed = ", ".join(
        _("{name} ({cls}, rank {rank})").format(name=x.get("name"), cls=x.get("cls"), rank=x.get("rank"))
        for x in data.get("assets") or []
    )
    return _("The pool against you holds: {assets}.").format(assets=listed or _("nothing you may see"))


def _assets_hidden(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    n = len(data.get("asset_ids") or [])
    return ngettext(
        "The GM hides {n} asset of an action from its resisters.",
        "The GM hides {n} assets of an action from its resisters.",
        n,
    ).format(n=n)


def _resolution_published(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    text = data.get("announcement") or ""
    if text:
        return _("The GM published the resolution: {text}.").format(text=text)
    return _("The GM published the resolution.")


def _reaction_declared(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{power} resisted an action.").format(power=_power(data, names))


def _reactions_waived(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{power} waived their reaction.").format(power=_power(data, names))


def _action_lost(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    reason = str(data.get("reason") or "").rstrip(": ")
    if reason:
        return _("An action was lost: {reason}.").format(reason=reason)
    return _("An action was lost.")


def _quota_changed(data: Mapping[str, Any], names: Mapping[str, str]) -> str:
    return _("{power}'s actions a month: {public} public, {private} private.").format(
        power=_power(data, names), public=data.get("public"), private=data.get("private")
    )


# The line of each event that takes values from its payload.
_LINES: dict[str, _Line] = {
    "GameCreated": _game_created,
    "PowerAdded": _power_added,
    "StepBegan": _step_began,
    "AssetGranted": _asset_granted,
    "InfluenceSet": _influence_set,
    "InfluenceDisclosed": _influence_disclosed,
    "ActionSubmitted": _action_submitted,
    "DiceRolled": _dice_rolled,
    "DifficultyRecorded": _difficulty_recorded,
    "DifficultyDeclared": _difficulty_declared,
    "DifficultyRevealed": _difficulty_revealed,
    "SecretShared": _secret_shared,
    "SchemesGranted": _schemes_granted,
    "TiesBroken": _ties_broken,
    "ActionResolved": _result,
    "ActionProvisional": _action_provisional,
    "ResistanceOffered": _resistance_offered,
    "ResistanceAnnounced": _resistance_announced,
    "ResistanceForewarned": _resistance_forewarned,
    "PoolAssetsShown": _pool_assets_shown,
    "AssetsHiddenFromResisters": _assets_hidden,
    "ResolutionPublished": _resolution_published,
    "ReactionDeclared": _reaction_declared,
    "ReactionsWaived": _reactions_waived,
    "ActionLost": _action_lost,
    "QuotaChanged": _quota_changed,
}


def describe(kind: str, data: Mapping[str, Any], names: Mapping[str, str]) -> str | None:
    """A Powers event in words for a viewer who may see it, or None (the platform's words then)."""
    if kind in _FIXED:
        return _(_FIXED[kind])
    line = _LINES.get(kind)
    return line(data, names) if line is not None else None
