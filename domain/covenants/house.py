"""House rules: the tables the covenant game's source lost (A-GEN-0, A-AMB-1, H-14), as a versioned package.

The text says "The generators for each card type are:" and stops; so do the Main Phase action list,
the Certamen winnings and the forfeit penalty, the name of one PeHe spell and the events after
"Wizard's March". A package fills them: a data file validated by ``HousePackage`` (pydantic), with a
name and a version, pinned by a game when it is created (name, version and the sha256 of its
canonical content). A package that leaves a table empty is refused naming the table, so no game
ever runs on a gap. ``DEFAULT`` is the package shipped with the service, marked as house rules.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from domain.covenants.errors import RuleViolation

SQUARE_KINDS = ("property", "improvement", "personnel", "item", "magic")
TECHNIQUES = ("Cr", "In", "Mu", "Pe", "Re")
FORMS = ("An", "Aq", "Au", "Co", "He", "Ig", "Im", "Me", "Te", "Vi")
ARTS = TECHNIQUES + FORMS
SEASONS = ("spring", "summer", "autumn", "winter")
MIGHT_TYPES = ("mundane", "magical", "faerie", "demon")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Amounts(_Model):
    provision: int = 0
    gold: int = 0
    vis: int = 0


class CardDef(_Model):
    """One card the generators can produce, with the numbers the rules read (A-LIM-1, A-RECK-1, A-BAT-1)."""

    kind: Literal[
        "mage", "companion", "specialist", "villagers", "grogs", "livestock", "town", "vis_source", "mine",
        "improvement", "weapon", "shield", "armor", "enchanted_item", "familiar", "book", "art",
    ]  # fmt: skip
    text: str = ""
    animate: bool = False
    substance: str = ""  # a Form (Co, He, Te ...), or "" for none
    structure: bool = False
    untargetable: bool = False  # A-LIM-3: only effects that name it may target it
    unique: bool = False  # A-GEN-1 step 6: mages, companions
    might_type: Literal["mundane", "magical", "faerie", "demon"] | None = None
    might: int = 0
    mr: int = 0
    certamen: int = 0
    arts: list[str] = []
    cost: Amounts = Amounts()
    upkeep: Amounts = Amounts()  # per season (A-RECK-1)
    production: Amounts = Amounts()  # per season, in ``produces_in`` seasons
    produces_in: list[str] = list(SEASONS)
    upkeep_in: list[str] = list(SEASONS)
    winter_upkeep: Amounts = Amounts()  # at the start of Winter Reckoning (Bailiff, enchanted items)
    qualifying_seasons: list[str] = []  # improvements: active only once one of these begins (A-GEN-3)
    weapon_bonus: int = 0
    capacity_bonus: int = 0  # shields and armour (A-AMB-22)
    attributes: list[str] = []  # "Courtly Connections", "Divine Grace", "Friend of the Fae" (A-EVT-3)
    might_seasons: list[str] = []  # seasons its Might is 1 more (Issandra: "In Spring and Summer")
    heals: int = 0  # points of damage it removes from another being of its covenant, once a season
    teaches: Literal["spell"] | None = None  # a Book whose study attaches a spell to its mage (A-SPELL-1, [000:437])

    @field_validator("arts")
    @classmethod
    def _arts(cls, v: list[str]) -> list[str]:
        bad = [a for a in v if a not in ARTS]
        if bad:
            raise ValueError(f"unknown Arts {bad}")
        return v


class SpellDef(_Model):
    """A spell's numbers (A-SPELL-1..8)."""

    arts: list[str] = Field(min_length=1)
    ritual: bool = False
    min_vis: int = 1
    max_vis: int = 99
    target: Literal["being", "structure", "item", "covenant", "mage", "spell", "player"]
    forms: list[str] = []  # the substances it may target; empty for any
    names: list[str] = []  # an untargetable structure it names explicitly (A-LIM-3)
    harmful: bool = False
    damage_per_pawn: int = 0
    pawns_per_target: int = Field(0, ge=0)  # "For every N pawns of vis expended, choose a target" ([000:503],
    # [000:558]): N; each target takes the damage of its N pawns. 0: the spell has one target (A-AMB-17)
    might_per_pawn: int = 0  # raises the target being's Mundane Might until the season ends (A-EX-5)
    raises_own: bool = False  # raises the target's Certamen or MR (A-SPELL-6)
    self_allowed: bool = False  # its text says it may target its caster
    counters: bool = False  # a counterspell: castable in any phase (A-SPELL-8)
    phases: list[str] = ["main"]  # A-AMB-20: the Main Phase unless the text names another
    seasons: list[str] = list(SEASONS)
    duration_seasons: int = 0  # 0: until the end of the season; 4: one year (A-SPELL-3)
    sets_substance: str | None = None
    aegis: bool = False
    certamen: Literal["halve", "add_rating"] | None = None  # on a mage engaged in Certamen (A-CERT-3): halves its
    # final score (Distractions of Invisible Horrors), or adds the caster's rating to it (The Subtle Accomplice)
    artisan_rate: int = Field(0, ge=0)  # each pawn enhances a piece of the target covenant's gold, which converts to
    # this much provision at a Town or Market Fair (Touch of the Artisan [000:590]: 7)
    house: bool = False  # named by these house rules (the source lost its name)


class Generator(_Model):
    """A square's generator: a die and what each face creates (None: no card)."""

    die: Literal[6, 20]
    faces: dict[int, str | None]

    @model_validator(mode="after")
    def _covers_every_face(self) -> Generator:
        missing = [f for f in range(1, self.die + 1) if f not in self.faces]
        if missing:
            raise ValueError(f"faces {missing} of the d{self.die} create nothing: map them (None for no card)")
        return self


class EventDef(_Model):
    kind: Literal["global", "directed"]
    seasons: list[str] = list(SEASONS)
    text: str = ""
    might_type: Literal["mundane", "magical", "faerie", "demon"] | None = None
    might: int = 0
    house: bool = False  # after "Wizard's March" the source is lost
    lasts_seasons: int | None = 1  # seasons in play, the one played in counted; None: until its own rule ends it
    until_season: str | None = None  # in play to the end of the first such season (Famine: "the next Summer's")


class MainAction(_Model):
    text: str
    host_approves: bool = False  # a custom action the host rules on (H-8)


class Certamen(_Model):
    winnings: list[Literal["tribute", "vis", "gold"]] = Field(min_length=1)  # in order of preference
    forfeit_penalty: Amounts

    @field_validator("forfeit_penalty")
    @classmethod
    def _something(cls, v: Amounts) -> Amounts:
        if not (v.provision or v.gold or v.vis):
            raise ValueError("a forfeit costs something")
        return v


class HousePackage(_Model):
    name: str = Field(min_length=1)
    version: str = Field(min_length=1)
    house_rules: Literal[True]  # the package says, in the data, that it is not the source's text
    description: str = ""
    cards: dict[str, CardDef]
    generators: dict[str, Generator]
    events: dict[str, EventDef]
    event_generator: Generator
    main_actions: dict[str, MainAction]
    certamen: Certamen
    spells: dict[str, SpellDef]
    requisites: list[str]

    @model_validator(mode="after")
    def _tables_are_whole(self) -> HousePackage:
        missing = [k for k in SQUARE_KINDS if k not in self.generators]
        if missing:
            raise ValueError(f"generators: no table for {missing}")
        for kind, g in self.generators.items():
            for face, card in g.faces.items():
                if card is not None and card not in self.cards:
                    raise ValueError(f"generators.{kind}: face {face} names {card!r}, which is not in cards")
        for face, ev in self.event_generator.faces.items():
            if ev is not None and ev not in self.events:
                raise ValueError(f"event_generator: face {face} names {ev!r}, which is not in events")
        return self

    def pin(self) -> dict[str, str]:
        """What a game records: name, version and the hash of the content."""
        return {"name": self.name, "version": self.version, "sha256": content_hash(self.model_dump(mode="json"))}


# The cards every covenant is dealt at the start ([000:4]), and the kind each must be.
STARTING_MAGE = "Starting Mage"  # A-SPELL-1: assigned its first two spells without study ([000:34])
STARTING_CARDS = ("Villagers", "Villagers", "Grogs")  # beside its mage
STARTING_KINDS = {STARTING_MAGE: "mage", "Villagers": "villagers", "Grogs": "grogs"}

# The tables a package must fill, in the order a refusal names them.
TABLES = ("cards", "generators", "events", "event_generator", "main_actions", "certamen", "spells", "requisites")


def content_hash(data: Any) -> str:
    return hashlib.sha256(json.dumps(data, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def load(data: dict[str, Any]) -> HousePackage:
    """A package from its data, or RuleViolation (A-GEN-0) naming the empty or broken table."""
    if not isinstance(data, dict):
        raise RuleViolation("a house rules package is a mapping of its tables", rule="A-GEN-0", field="house")
    for table in TABLES:
        value = data.get(table)
        empty = value is None or (isinstance(value, (dict, list)) and not value)
        if not empty and table in ("generators",) and isinstance(value, dict):
            empty = any(not (g or {}).get("faces") for g in value.values())
        if not empty and table == "event_generator" and isinstance(value, dict):
            empty = not value.get("faces")
        if empty:
            raise RuleViolation(
                f"the house rules package leaves the table {table!r} empty; the source lost it and a game "
                "cannot run without it",
                rule="A-GEN-0",
                field=table,
            )
    cards = data["cards"] if isinstance(data["cards"], dict) else {}
    for name, kind in STARTING_KINDS.items():  # [000:4]: the cards each covenant is dealt at the start
        card = cards.get(name)
        if not isinstance(card, dict) or card.get("kind") != kind:
            raise RuleViolation(
                f"the house rules package must define the starting card {name!r} of kind {kind!r} ([000:4])",
                rule="A-GEN-0",
                field=f"cards.{name}",
            )
    try:
        return HousePackage.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "house"
        raise RuleViolation(f"house rules package: {where}: {first.get('msg')}", rule="A-GEN-0", field=where) from None


DEFAULT_PATH = Path(__file__).with_name("house") / "default.json"


def default_data() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DEFAULT_PATH.read_text())
    return data


DEFAULT = load(default_data())
