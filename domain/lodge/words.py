"""The Lodge in words, not ids (issue 28 item 3): what a Mage may do by its label, not its command's class
name; seats, Rooms and Spells by their names in the feed. Rendering only: the events keep their ids, and the
mail keeps its own texts (``ruleset.notify``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from domain.platform.i18n import N_, _, word_of

# What each command a phase lets a Mage (or the host) send is called on the board: its label, marked here for
# translation and read in the reader's language by ``may_words``. A package's own command is shown in words.
COMMAND_WORDS = {
    "PrepareSpells": N_("prepare Spells"),
    "CastSpell": N_("cast a Spell"),
    "PhysicalAction": N_("take a Physical Action"),
    "CommandEvocation": N_("command an Evocation"),
    "ResolveFromCell": N_("resolve a Cell's offer"),
    "DeclineFromCell": N_("decline a Cell's offer"),
    "Pass": N_("pass"),
    "BlackRoseAct": N_("act for the Black Rose"),
    "AdvancePhase": N_("end the phase"),
    "AnswerChoice": N_("answer a choice"),
}


def command_word(name: str) -> str:
    """A command by its label in the reader's language ("cast a Spell"); another in words ("Do thing")."""
    if name in COMMAND_WORDS:
        return word_of(COMMAND_WORDS, name)
    parts = re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name) or [name]
    return " ".join(p.lower() for p in parts)


def may_words(names: Iterable[str]) -> str:
    """What may be done, by labels, joined: "prepare Spells, pass"."""
    return ", ".join(command_word(n) for n in names)


def feed_names(game: Any) -> dict[str, str]:
    """The public names a feed line may use beside the seats': each Room and each card of the game's catalogue
    (its printed name: the catalogue is public, L.4), by its id."""
    catalogue = game.catalogue
    cards = [*catalogue.spells, *catalogue.black_rose, *catalogue.physical_actions]
    return {**{c.id: c.name for c in cards}, **{r.id: r.name for r in catalogue.rooms}}


def named(text: Any, names: Mapping[str, str]) -> str:
    """``text`` with each whole-word id it names (a seat, a Room, a card) in words."""
    if not names:
        return str(text)
    pattern = re.compile(
        r"(?<![\w-])(" + "|".join(re.escape(k) for k in sorted(names, key=len, reverse=True)) + r")(?![\w-])"
    )
    return pattern.sub(lambda m: names[m.group(1)], str(text))


def describe_lines(
    kind: str, d: Mapping[str, Any], names: Mapping[str, str], phase_words: Mapping[str, str]
) -> str | None:
    """A Lodge event's feed line in words (the reader's language), or None: the phase that began and what may be
    done in it, a choice offered, a Room scored, the game's end."""
    if kind == "PhaseBegan":
        who = _("every Mage") if d["acts"] == "every mage" else _("the host")
        step = word_of(phase_words, d["phase"])
        return _("The {phase} phase has begun: {who} may {may}.").format(phase=step, who=who, may=may_words(d["may"]))
    if kind == "ChoiceOffered":
        options = ", ".join(names.get(o, o) for o in d["options"])
        return _("A choice for {who}: {question}; one of {options}; at the deadline: {default} ({rule}).").format(
            who=names.get(d.get("mage", ""), _("a Mage")),
            question=named(d["question"], names),
            options=options,
            default=names.get(d["default"], d["default"]),
            rule=d["rule"],
        )
    if kind == "RoomScored":
        gains = ", ".join(f"{names.get(who, who)} {pp}" for who, pp in sorted(d["pp"].items()))
        return _("Power Points for the rebuilt {room}: {gains}.").format(
            room=names.get(d["room"], d["room"]), gains=gains
        )
    if kind == "DeckCommitted":  # L.4
        return _("The Evocation deck was shuffled ({cards} cards); its order is sealed and fixed in advance.").format(
            cards=len(d["cards"])
        )
    if kind == "DeckRevealed":
        return _("The Evocation deck's sealed seed was revealed: every draw from it can now be checked.")
    if kind == "GameEnded":
        scores = ", ".join(
            f"{names.get(who, who)} {pp}" for who, pp in sorted(d["scores"].items(), key=lambda x: -x[1])
        )
        return _("Final Power Points: {scores}.").format(scores=scores)
    return None
