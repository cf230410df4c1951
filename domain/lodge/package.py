"""The host's rules package (LH-7): what the Lodge excerpt leaves out, as versioned data a game pins when
it is created: the phases before Clean-up (each a window: who acts, what they may do, how long), the
defeat Power Point table (L-AMB-4), the banner values of each Room side, and the game end.

A package is a JSON file under ``data/packages``; ``house_rules`` marks one that is the host's invention
rather than the rulebook's (the default is).
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from domain.errors import RuleViolation
from domain.lodge.catalogue import Room, check_doors, problems

PACKAGES = Path(__file__).with_name("data") / "packages"
DEFAULT_PACKAGE = "lodge-house-1"
PHASE_COMMANDS = {
    "PrepareSpells",
    "CastSpell",
    "PhysicalAction",
    "CommandEvocation",
    "ResolveFromCell",
    "DeclineFromCell",
    "BlackRoseAct",
    "Pass",
}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Phase(_Strict):
    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    acts: Literal["every mage", "host"]
    may: list[str]
    hours: float = Field(gt=0, le=24 * 14)

    @model_validator(mode="after")
    def _known(self) -> Phase:
        if unknown := set(self.may) - PHASE_COMMANDS:
            raise ValueError(f"phase {self.name!r} allows unknown commands {sorted(unknown)}")
        if self.name == "cleanup":
            raise ValueError("Clean-up is the rules' own phase (L.1.1); a package declares the phases before it")
        return self


class GameEnd(_Strict):
    after_turns: int = Field(ge=1, le=100)
    trophy_pp: int = Field(ge=0)  # R37: Trophy Tokens grant Power Points at the end of the game


class RulesPackage(_Strict):
    id: str
    version: str
    house_rules: bool
    note: str = ""
    phases: list[Phase] = Field(min_length=1)
    start_room: str
    mage_health: int = Field(ge=1, le=20)
    evocation_bases: int = Field(ge=0, le=10)
    trophy_tokens: int = Field(ge=0, le=10)
    casts_per_slot_per_turn: int = Field(ge=1)
    defeat_pp: list[int] = []  # ranked by Damage dealt to the defeated Mage (L-AMB-4: empty = off)
    on_mage_defeat: str = ""
    banners: dict[str, dict[Literal["A", "B"], tuple[int, int, int]]]
    game_end: GameEnd
    choice_hours: float = Field(default=24, gt=0, le=24 * 14)  # how long a prompt waits for its chooser (L.3)
    # a package of Rooms: the Lodge's Rooms in place of the catalogue's (None: the catalogue's), checked as a
    # catalogue's are (``domain.lodge.catalogue.check_doors``), each with a slot to score given its banners
    rooms: list[Room] | None = None

    @model_validator(mode="after")
    def _unique_phases(self) -> RulesPackage:
        names = [p.name for p in self.phases]
        if len(names) != len(set(names)):
            raise ValueError("phase names must be unique")
        if self.rooms is not None:
            check_doors(self.rooms)
            if self.start_room not in {r.id for r in self.rooms}:
                raise ValueError(f"field start_room: {self.start_room!r} is not one of the package's Rooms")
            if unscored := sorted(r.id for r in self.rooms if r.slots and r.id not in self.banners):
                raise ValueError(f"field banners: the Rooms {unscored} have Instability slots but no banners")
        return self


def load_package(path: Path | str) -> RulesPackage:
    """A package file, validated; a wrong one is refused naming the package, and each Room or field that is wrong."""
    raw = json.loads(Path(path).read_text())
    try:
        package = RulesPackage.model_validate(raw)
    except ValidationError as err:
        raise RuleViolation(
            f"the rules package {Path(path).stem!r} is wrong: " + "; ".join(problems(raw, err)),
            rule="LH-7",
            field="package",
        ) from None
    return package


@functools.cache
def installed_package(name: str) -> RulesPackage:
    """An installed package by its id, or RuleViolation naming the option and the installed ones."""
    path = PACKAGES / f"{name}.json"
    if "/" in name or not path.is_file():
        known = ", ".join(sorted(p.stem for p in PACKAGES.glob("*.json")))
        raise RuleViolation(f"no rules package {name!r}; the installed ones are: {known}", field="package")
    return load_package(path)
