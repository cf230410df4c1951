"""The Lodge's components as data (issue 15): rooms, evocation cards, spell cards, physical actions and
the Black Rose's cards, read from a catalogue file and validated by these schemas.

An effect is an ordered list of phrases (L-EFF-1, [002:R1]); each phrase is one primitive of a small
vocabulary (``OPS``) with its amount and whom it reaches, so a new card is a new entry in the file and no
code. ``describe`` says a phrase in words.
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

DATA = Path(__file__).with_name("data")
INSTALLED = DATA / "cards.json"  # the catalogue new games pin
KEPT = DATA / "catalogues"  # shipped versions kept by version, so games pinned to them still load
SLOTS = ("QUICK", "I", "II", "III")  # a Mage's spell slots, one Persistent Token each (L-PERS-2)

# Every primitive a phrase may use, and whether it needs an amount.
OPS: dict[str, str] = {
    "damage": "inflict N Damage",
    "heal": "heal up to N Damage",
    "move": "move N (each step to an adjacent Room)",
    "place": "place in a Room",
    "instability": "place N Instability",
    "gain_pp": "gain N Power Points",
    "steal_pp": "steal N Power Points",
    "steal_trophy": "take a Trophy Token",
    "summon": "summon an Evocation",
    "remove_evocation": "remove an Evocation",
    "health": "raise an Evocation's Health by N",
    "discard_spell": "discard a Spell Card",
    "defeat": "defeat the target Mage",
}
NEEDS_AMOUNT = {"damage", "heal", "move", "instability", "steal_pp", "health"}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Phrase(_Strict):
    op: Literal[
        "damage",
        "heal",
        "move",
        "place",
        "instability",
        "gain_pp",
        "steal_pp",
        "steal_trophy",
        "summon",
        "remove_evocation",
        "health",
        "discard_spell",
        "defeat",
    ]
    amount: int | None = Field(default=None, ge=0, le=20)
    # whom the phrase reaches: the chosen target, the resolver's own Mage, every Model in the resolver's Room,
    # or (for instability and summon) the Room the resolver stands in
    to: Literal["target", "self", "models_here", "here"] = "target"
    room: Literal["target", "here", "own_cell"] | None = None  # where ``place`` and ``summon`` put a Model
    per: Literal["target_strength", "target_trophies"] | None = None  # an amount read from the target's value
    slot: Literal["QUICK", "I", "II", "III"] | None = None
    hits_own: bool = False  # "unless specified by the Effect" (R39): this phrase also reaches its resolver's side

    @model_validator(mode="after")
    def _amount(self) -> Phrase:
        if self.op in NEEDS_AMOUNT and self.amount is None:
            raise ValueError(f"a {self.op!r} phrase needs an amount")
        if self.op == "gain_pp" and (self.amount is None) == (self.per is None):
            raise ValueError("a 'gain_pp' phrase has an amount or a 'per', not both")
        if self.op == "place" and self.room is None:
            raise ValueError("a 'place' phrase names its room")
        if self.op == "discard_spell" and self.slot is None:
            raise ValueError("a 'discard_spell' phrase names its slot")
        return self


class Target(_Strict):
    kind: Literal["model", "mage", "evocation", "room", "none"]
    archetype: str | None = None
    range: Literal["any", "same_room"] = "any"


class Persistent(_Strict):
    trigger: Literal["enters_room", "damaged", "effect_resolved"]
    phrases: list[Phrase]


class Card(_Strict):
    id: str
    name: str
    target: Target
    phrases: list[Phrase]
    persistent: Persistent | None = None
    forgotten: bool = False
    physical_attack: bool = False


class Room(_Strict):
    id: str
    name: str
    slots: int = Field(ge=0, le=12)
    adjacent: list[str]
    cell_of: str | None = None  # the colour of the Mage whose Cell this is


class EvocationCard(_Strict):
    id: str
    name: str
    archetype: str
    speed: int = Field(ge=0)
    strength: int = Field(ge=0)
    health: int = Field(ge=1)
    forgotten: bool = False


class Catalogue(_Strict):
    name: str = "lodge-cards"
    version: str
    rooms: list[Room]
    evocations: list[EvocationCard]
    spells: list[Card]
    physical_actions: list[Card]
    black_rose: list[Card]

    @model_validator(mode="after")
    def _consistent(self) -> Catalogue:
        rooms = {r.id for r in self.rooms}
        for r in self.rooms:
            if unknown := set(r.adjacent) - rooms:
                raise ValueError(f"room {r.id!r} is adjacent to unknown rooms {sorted(unknown)}")
        ids = [c.id for c in [*self.spells, *self.physical_actions, *self.black_rose]]
        ids += [e.id for e in self.evocations]
        if len(ids) != len(set(ids)):
            raise ValueError("card ids must be unique")
        return self

    @functools.cached_property
    def cards(self) -> dict[str, Card]:
        return {c.id: c for c in [*self.spells, *self.physical_actions, *self.black_rose]}

    @functools.cached_property
    def room_by_id(self) -> dict[str, Room]:
        return {r.id: r for r in self.rooms}

    @functools.cached_property
    def evocation_by_id(self) -> dict[str, EvocationCard]:
        return {e.id: e for e in self.evocations}

    def cell_of(self, colour: str) -> str | None:
        return next((r.id for r in self.rooms if r.cell_of == colour), None)


def load_catalogue(path: Path | str) -> Catalogue:
    """A catalogue file (JSON), validated; pydantic's ValidationError names what is wrong."""
    return Catalogue.model_validate(json.loads(Path(path).read_text()))


def content_hash(path: Path | str) -> str:
    """The catalogue's content hash: sha256 of its canonical JSON, so reformatting the file does not change it.
    Kept per file version (path, modification time, size): a game reads its catalogue at every step, and
    reading and hashing the file each time cost a Lodge command more than its rules did."""
    stat = Path(path).stat()
    return _content_hash(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=64)
def _content_hash(path: str, mtime_ns: int, size: int) -> str:
    canonical = json.dumps(json.loads(Path(path).read_text()), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def default_catalogue() -> Catalogue:
    return load_catalogue_cached(str(INSTALLED))


@functools.cache
def load_catalogue_cached(path: str) -> Catalogue:
    return load_catalogue(path)


def installed_pin() -> dict:
    """What a new game records of the installed catalogue: its name, version and content hash."""
    cat = default_catalogue()
    return {"name": cat.name, "version": cat.version, "sha256": content_hash(INSTALLED)}


def pinned_catalogue(pin: dict) -> Catalogue:
    """The catalogue a game pinned: the installed one if its content hash matches, else the shipped version kept
    under ``data/catalogues/<version>.json`` with that hash; otherwise the game cannot go on, because
    replaying it with other cards would change what its recorded effects meant (LH-7)."""
    candidates = [INSTALLED, KEPT / f"{pin['version']}.json"]
    for path in candidates:
        if path.is_file() and content_hash(path) == pin["sha256"]:
            return load_catalogue_cached(str(path))
    from domain.errors import RuleViolation

    raise RuleViolation(
        f"this game pinned the card catalogue {pin['name']} {pin['version']} (sha256 {pin['sha256'][:12]}), "
        "which is neither the installed catalogue nor a kept version (LH-7)",
        rule="LH-7",
        field="catalogue",
    )


def describe(phrase: Phrase) -> str:
    """A phrase in words, as a card would print it."""
    whom = {"target": "the target", "self": "yourself", "models_here": "every Model in your Room", "here": "your Room"}
    n = phrase.amount
    match phrase.op:
        case "damage":
            return f"Inflict {n} Damage on {whom[phrase.to]}" + (" (your side too)" if phrase.hits_own else "")
        case "heal":
            return f"Heal {n} on {whom[phrase.to]}"
        case "move":
            return f"Move {whom[phrase.to]} {n}"
        case "place":
            return f"Place {whom[phrase.to]} in " + {"target": "the target Room", "here": "your Room"}.get(
                phrase.room or "", "their Cell"
            )
        case "instability":
            return f"Place {n} Instability in {'the target Room' if phrase.to == 'target' else 'your Room'}"
        case "gain_pp":
            return f"Gain {n} Power Points" if n is not None else f"Gain Power Points equal to the {phrase.per}"
        case "steal_pp":
            return f"Steal {n} Power Points from the target"
        case "health":
            return f"Raise the target Evocation's Health by {n}"
        case "defeat":
            return "The target Mage is defeated"
        case "discard_spell":
            return f"The target discards their Spell in slot {phrase.slot}"
    return OPS[phrase.op].capitalize()
