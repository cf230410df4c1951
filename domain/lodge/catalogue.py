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
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, ValidationInfo, field_validator, model_validator

from domain.errors import RuleViolation

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
# The fields each primitive reads besides ``op`` and ``to``: any other is refused, not ignored.
TAKES: dict[str, set[str]] = {
    "damage": {"amount", "hits_own"},
    "heal": {"amount"},
    "move": {"amount"},
    "place": {"room"},
    "instability": {"amount"},
    "gain_pp": {"amount", "per"},
    "steal_pp": {"amount"},
    "steal_trophy": set(),
    "summon": set(),
    "remove_evocation": set(),
    "health": {"amount"},
    "discard_spell": {"slot"},
    "defeat": set(),
}
# The condition of a Persistent Effect each primitive can meet (L-PERS-1): Damage, and a Model entering a Room.
MEETS = {"damage": "damaged", "move": "enters_room", "place": "enters_room", "summon": "enters_room"}


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
    room: Literal["target", "here", "own_cell"] | None = None  # where ``place`` puts a Model (``summon``: its ``to``)
    per: Literal["target_strength", "target_trophies"] | None = None  # an amount read from the target's value
    slot: Literal["QUICK", "I", "II", "III"] | None = None
    hits_own: bool = False  # "unless specified by the Effect" (R39): this phrase also reaches its resolver's side

    @model_validator(mode="after")
    def _amount(self) -> Phrase:
        if unread := sorted(self.model_fields_set - {"op", "to"} - TAKES[self.op]):
            raise ValueError(f"a {self.op!r} phrase takes no {', '.join(repr(f) for f in unread)}")
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
    # the adjacent Rooms whose door leads only one way, from this Room; every other door leads both ways, so the
    # Room it leads to lists this one among its ``adjacent`` too (L-MOVE-1)
    one_way: list[str] = []
    cell_of: str | None = None  # the colour of the Mage whose Cell this is

    @field_validator("adjacent")
    @classmethod
    def _not_itself(cls, adjacent: list[str], info: ValidationInfo) -> list[str]:
        if info.data.get("id") in adjacent:
            raise ValueError(f"room {info.data['id']!r} is adjacent to itself (a Move 1 step goes to another Room)")
        if len(adjacent) != len(set(adjacent)):
            raise ValueError("an adjacent Room is listed twice")
        return adjacent

    @field_validator("one_way")
    @classmethod
    def _declared_doors(cls, one_way: list[str], info: ValidationInfo) -> list[str]:
        if stray := sorted(set(one_way) - set(info.data.get("adjacent", []))):
            raise ValueError(f"one-way doors lead to adjacent Rooms only; {stray} are not in 'adjacent'")
        return one_way


def check_doors(rooms: list[Room]) -> None:
    """The Rooms' ids are unique, every door leads to a known Room, and back again unless it is declared one-way
    (``Room.one_way``): a ValueError names the Room and the field."""
    by_id = {r.id: r for r in rooms}
    if len(by_id) != len(rooms):
        raise ValueError("room ids must be unique")
    for r in rooms:
        if unknown := set(r.adjacent) - set(by_id):
            raise ValueError(f"room {r.id!r}, field adjacent: unknown rooms {sorted(unknown)}")
        for other in r.adjacent:
            if r.id not in by_id[other].adjacent and other not in r.one_way:
                raise ValueError(
                    f"room {r.id!r}, field adjacent: the door to {other!r} leads only one way ({other!r} does "
                    f"not list {r.id!r} among its adjacent Rooms); list it there, or declare it in one_way"
                )


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
    def _consistent(self, info: ValidationInfo) -> Catalogue:
        check_doors(self.rooms)
        ids = [c.id for c in [*self.spells, *self.physical_actions, *self.black_rose]]
        ids += [e.id for e in self.evocations]
        if len(ids) != len(set(ids)):
            raise ValueError("card ids must be unique")
        if (info.context or {}).get("kept"):  # a shipped version a game pinned plays on as it was (LH-7)
            return self
        if cycle := trigger_cycle([*self.spells, *self.physical_actions, *self.black_rose]):
            path = " -> ".join(cycle)
            what = "triggers itself" if len(cycle) == 2 else f"is in a cycle of persistent triggers ({path})"
            raise ValueError(
                f"card {cycle[0]!r}, field persistent.trigger: its Persistent Effect {what}: each resolution "
                "meets the condition of the next (L-AMB-9 would cut the loop; a card set should not rely on it)"
            )
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


_WITH_ROOMS: dict[tuple[int, str], Catalogue] = {}


def with_rooms(catalogue: Catalogue, rooms: list[dict[str, Any]] | None) -> Catalogue:
    """The catalogue with a rules package's Rooms in place of its own (a package of rooms, LH-7), validated as a
    catalogue is; ``None`` keeps the catalogue's. Its cards were checked when it was loaded (a kept version as it was
    shipped), so they are not held here to the checks a kept version is spared. Kept per catalogue and Rooms: a
    game reads it at every step."""
    if not rooms:
        return catalogue
    key = (id(catalogue), json.dumps(rooms, sort_keys=True))
    if key not in _WITH_ROOMS:
        raw = catalogue.model_dump(mode="json", exclude_unset=True) | {"rooms": rooms}
        _WITH_ROOMS[key] = Catalogue.model_validate(raw, context={"kept": True})
    return _WITH_ROOMS[key]


def problems(raw: object, err: ValidationError) -> list[str]:
    """Each problem of a validation error in words: where (the card or Room by its id, and the field) and what."""
    return [f"{_where(raw, e['loc'])}: {e['msg']}" for e in err.errors()]


def _where(raw: object, loc: tuple[int | str, ...]) -> str:
    """A validation error's place in words: the card (by its id) and the field, e.g.
    ``spells[3] 'quake', field phrases[0].amount``."""
    if not loc:
        return "the catalogue"
    if len(loc) >= 2 and isinstance(loc[1], int) and isinstance(raw, dict):
        entries = raw.get(str(loc[0]))
        entry = entries[loc[1]] if isinstance(entries, list) and loc[1] < len(entries) else None
        name = f" {entry['id']!r}" if isinstance(entry, dict) and isinstance(entry.get("id"), str) else ""
        field = "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in loc[2:]).lstrip(".")
        return f"{loc[0]}[{loc[1]}]{name}" + (f", field {field}" if field else "")
    return "field " + "".join(f"[{x}]" if isinstance(x, int) else f".{x}" for x in loc).lstrip(".")


def trigger_cycle(cards: list[Card]) -> list[str]:
    """A cycle among the cards' Persistent Effects, as the card ids around it (the first again at the end), or [].
    A triggers B when a phrase of A's Persistent Effect meets B's condition (``MEETS``), or when B's condition is
    that an Effect resolves and B is another card (its own resolution never triggers it: L-AMB-9)."""
    persistent = {c.id: c.persistent for c in cards if c.persistent is not None}
    meets = {cid: {MEETS[p.op] for p in eff.phrases if p.op in MEETS} for cid, eff in persistent.items()}
    edges = {
        a: [
            b
            for b, eff in persistent.items()
            if eff.trigger in meets[a] or (eff.trigger == "effect_resolved" and b != a)
        ]
        for a in persistent
    }
    done: set[str] = set()

    def walk(node: str, path: list[str]) -> list[str]:
        for nxt in edges[node]:
            if nxt in path:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in done and (found := walk(nxt, [*path, nxt])):
                return found
        done.add(node)
        return []

    for start in persistent:
        if start not in done and (found := walk(start, [start])):
            return found
    return []


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
def load_catalogue_cached(path: str, kept: bool = False) -> Catalogue:
    """A catalogue file, validated once. A kept version (``kept``) was checked when it was shipped and games
    pinned it: it loads as it was, without the checks added since (a trigger cycle), so those games play on."""
    raw = json.loads(Path(path).read_text())
    try:
        return Catalogue.model_validate(raw, context={"kept": kept})
    except ValidationError as err:
        raise RuleViolation(
            f"the card catalogue {Path(path).name} is wrong: " + "; ".join(problems(raw, err)),
            rule="LH-7",
            field="catalogue",
        ) from None


def installed_pin() -> dict[str, str]:
    """What a new game records of the installed catalogue: its name, version and content hash."""
    cat = default_catalogue()
    return {"name": cat.name, "version": cat.version, "sha256": content_hash(INSTALLED)}


def pinned_catalogue(pin: Mapping[str, str]) -> Catalogue:
    """The catalogue a game pinned: the installed one if its content hash matches, else the shipped version kept
    under ``data/catalogues/<version>.json`` with that hash; otherwise the game cannot go on, because
    replaying it with other cards would change what its recorded effects meant (LH-7)."""
    candidates = [INSTALLED, KEPT / f"{pin['version']}.json"]
    for path in candidates:
        if path.is_file() and content_hash(path) == pin["sha256"]:
            return load_catalogue_cached(str(path), path != INSTALLED)
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
            per = {"target_strength": "target's Strength", "target_trophies": "target's trophies"}.get(
                str(phrase.per), ""
            )
            return f"Gain {n} Power Points" if n is not None else f"Gain Power Points equal to the {per}"
        case "steal_pp":
            return f"Steal {n} Power Points from the target"
        case "health":
            return f"Raise the target Evocation's Health by {n}"
        case "defeat":
            return "The target Mage is defeated"
        case "discard_spell":
            return f"The target discards their Spell in slot {phrase.slot}"
    return OPS[phrase.op].capitalize()
