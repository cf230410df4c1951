"""The Lodge's typed commands (issue 15): what a Mage or the host may send, whatever the channel (JSON API, the
board's forms, a mailed turn). ``domain.lodge.offers`` builds them fully formed for a principal; the handlers
and their guards are ``domain.lodge.ruleset``'s."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.platform.commands import Command


@dataclass(frozen=True)
class AddMage(Command):
    """Host: seat a Mage of a colour (an Avatar heals from the right, L-HEAL-2)."""

    mage_id: str
    name: str
    colour: str
    avatar: bool = False


@dataclass(frozen=True)
class BeginGame(Command):
    """Host: shuffle the Evocation deck and begin the first turn."""


@dataclass(frozen=True)
class AdvancePhase(Command):
    """Host: end the phase named (the next one, or Clean-up and the next turn)."""

    expected_phase: str


@dataclass(frozen=True)
class PrepareSpells(Command):
    """Put Spell Cards face down in slots (QUICK, I, II, III)."""

    mage_id: str
    cards: dict[str, str]


@dataclass(frozen=True)
class CastSpell(Command):
    """Reveal and cast the Spell in a slot, with the choices its phrases ask for (L.3)."""

    mage_id: str
    slot: str
    target: str | None = None
    moves: list[str] = field(default_factory=list)
    heal: list[int] | None = None


@dataclass(frozen=True)
class PhysicalAction(Command):
    """Spend a Physical Action Token and resolve its effect (Clean-up C3 turns it back)."""

    mage_id: str
    action: str
    target: str | None = None
    moves: list[str] = field(default_factory=list)
    heal: list[int] | None = None


@dataclass(frozen=True)
class CommandEvocation(Command):
    """Move an Evocation up to its Speed, then attack with its Strength (L-EVO-1, L-EVO-2)."""

    mage_id: str
    evocation: str
    moves: list[str] = field(default_factory=list)
    attack: str | None = None


@dataclass(frozen=True)
class BlackRoseAct(Command):
    """Host: resolve a Black Rose card."""

    card: str
    target: str | None = None


@dataclass(frozen=True)
class ResolveFromCell(Command):
    """Resolve (or decline) a Persistent Effect offered to a Mage in her Cell (L-PERS-5, LH-5)."""

    mage_id: str
    offer_id: str
    accept: bool = True
    moves: list[str] = field(default_factory=list)
    heal: list[int] | None = None


@dataclass(frozen=True)
class AnswerChoice(Command):
    """Answer a choice an effect waits for (L.3) with one of the options it offered."""

    mage_id: str
    choice_id: str
    option: str


@dataclass(frozen=True)
class Pass(Command):
    """Done for this phase."""

    mage_id: str
