"""The state a covenant game folds from its events: plain dataclasses of JSON-native fields."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

from domain.platform.state import ViewerSequences, Window

# The state's recurring pieces are plain dicts, so stored events, snapshots and fixtures keep their shape: typed
# here by their keys (``total=False``: a piece that begins empty, or whose keys vary with what made it).


class Tribute(TypedDict):
    """Points a covenant owes at the Yearly Reckoning: to a seat (a lost Certamen) or to nobody (A-RECK-4)."""

    to: str | None
    points: int
    permanent: bool


class Effect(TypedDict, total=False):
    """Something in effect: a spell on its target (until a season ends, A-SPELL-3), an event on its target, a
    Hedge Mage's curse on a covenant, a Certamen spell on a side of a challenge (A-CERT-3)."""

    spell: str
    target: str
    until: int | None
    phase: str | None
    by: str
    spell_id: str
    aegis: int
    might: int
    was: str  # the substance a changed card had
    artisan: int  # the pieces of gold it enhanced
    event: bool
    answered: bool  # a Hedge Mage Attack its target answered
    curse: int
    covenant: str
    source: str
    challenge: str
    side: str
    halve: bool
    bonus: int


class CastSpell(TypedDict):
    """A spell cast this phase, which a counter may still undo (A-SPELL-5)."""

    id: str
    seat: str
    spell: str
    target: str
    strength: int
    damage: int
    targets: list[str]


class BattleDue(TypedDict):
    """A battle due at the end of the Main Phase (A-BAT-1): side ``a`` (a covenant) against ``b`` (a covenant or
    an event), and what caused it."""

    id: str
    a: str
    b: str
    cause: str


class Battle(BattleDue):
    """The battle being fought: what each side deals, and each covenant's allocation of what it takes (H-6)."""

    dealt: dict[str, int]
    allocated: dict[str, dict[str, int]]


class Deferred(TypedDict, total=False):
    """A battle waiting for every player's "no counter" (H-15): the spells it waits on, who agreed, who was
    silent."""

    battle: str
    spells: list[str]
    agreed: list[str]
    silent: list[str]


class BoostedBattle(TypedDict, total=False):
    """A battle fought before every player agreed to the boosts it waited on, and what a counter undoes (A-EX-5):
    each card's damage and activity before it, the enemies it defeated, the Riots' Town as it was."""

    battle: str
    spells: list[str]
    agreed: list[str]
    before: dict[str, list[Any]]  # card id -> [damage, active]
    defeated: list[str]
    event_damage: int
    record: BattleDue
    town: list[Any]  # [card id, damage, active, inactive_until]


class Bandits(TypedDict, total=False):
    """The Wave of Bandits this season: the damage dealt to it, who answered and who fought; or discarded."""

    damage: int
    answered: list[str]
    fought: list[str]
    discarded: bool


class Service(TypedDict, total=False):
    """The Call to Service: the season it was answered in, and each covenant's outcome (A-RECK-4)."""

    season: int
    answers: dict[str, str]


class ChaosAnswer(TypedDict):
    chooser: str
    rival: str


class Chaos(TypedDict, total=False):
    """The Season of Chaos: the season, who must choose a rival, who must answer (A-EVT-3)."""

    season: int
    choosing: str | None
    answering: ChaosAnswer | None


class Invasion(TypedDict, total=False):
    """The Armed Invasion: the damage it took, whether it retreated."""

    damage: int
    retreated: bool


class Investigation(TypedDict, total=False):
    """A Quaesitor Investigation: its target, the season it began, the mages investigated, the season it ends
    (None: going on), the last Main Phase its dice were rolled ([season, cycle]) and its outcome."""

    target: str
    since: int
    investigated: list[str]
    ends: int | None
    rolled: list[int]
    outcome: str


class Plague(TypedDict, total=False):
    """The Plague: its counters, and the last season it struck."""

    counters: int
    season: int


class LastGeneration(TypedDict, total=False):
    """The last card generation's roll, which the Mouse may change (A-GEN-1)."""

    seat: str
    kind: str
    value: int


class HeldEvent(TypedDict):
    """An event held for a later season (A-EVT-2)."""

    event: str
    seat: str
    season: str


class PendingEvent(TypedDict, total=False):
    """A directed event its drawer has still to decide (H-5); ``quaesitor``: the one the marks created."""

    seat: str
    event: str
    season: str
    quaesitor: bool


class Bid(TypedDict):
    vis: int
    nonce: str


class Challenge(TypedDict):
    """A Certamen challenge (A-AMB-7): the two mages and their covenants, the Arts chosen, the bids."""

    id: str
    challenger: str
    mage: str
    target: str
    target_mage: str
    cycle: int
    technique: str | None
    form: str | None
    bids: dict[str, Bid]  # seat -> its bid, kept from everyone until it is resolved
    sealed: dict[str, str]  # seat -> the public hash of its bid


# An open offer between two covenants (H-10): what each side gives ("from" is a keyword: the functional form).
Trade = TypedDict("Trade", {"id": str, "from": str, "to": str, "give": dict[str, int], "get": dict[str, int]})


class Ruling(TypedDict):
    approved: bool
    note: str


class CustomAction(TypedDict):
    """A custom Main Phase action and the host's ruling (H-8): None until ruled, or "none needed"."""

    seat: str
    action: str
    text: str
    ruling: Ruling | str | None


class DiscardedCard(TypedDict):
    id: str
    name: str


@dataclass
class CovenantSeat:
    """A player's seat and covenant (the platform reads the Seat fields; the rest is the covenant's)."""

    id: str
    name: str
    covenant: str
    roles: list[str] = field(default_factory=list)
    arts: list[str] = field(default_factory=list)  # the starting mage's chosen Arts (empty: rolled, A-GEN-4)
    square: int = 0
    moved_this_season: bool = False
    gold: int = 4
    vis: int = 4
    provision: int = 0
    score: int = 0
    marked: bool = False
    damaged_another: bool = False  # has damaged another covenant: a drawn Quaesitor's target (A-AMB-19)
    keep_unconverted: dict[str, int] = field(default_factory=dict)  # gold and vis the Yearly Reckoning leaves (A-AMB-9)
    tribute: list[Tribute] = field(default_factory=list)
    tax_owed: int = 0  # Tax and Tithe, assessed at the Main Phase (A-EVT-4); unpaid at Reckoning: tribute (A-RECK-4)
    last_challenged: dict[str, int] = field(default_factory=dict)  # rival seat -> season index of the last challenge
    supported: bool = False
    timezone: str | None = None
    email: str | None = None
    mail_mode: str = "immediate"
    language: str | None = None  # the language its mail is written in (issue 28; None: the game's)
    grants: list[dict[str, Any]] = field(default_factory=list)
    ready: bool = False
    extension_hours_used: float = 0.0


@dataclass
class Card:
    id: str
    name: str
    owner: str | None  # a seat, or None for an independent card (an event)
    kind: str
    active: bool = True
    pending: bool = False  # created this Create/Play phase, not yet kept (A-GEN-2)
    damage: int = 0
    substance: str = ""
    arts: list[str] = field(default_factory=list)
    spells: list[str] = field(default_factory=list)
    attached_to: str | None = None
    counters: int = 0
    inactive_until: str | None = None  # an improvement under construction (A-GEN-3)
    new_damage: bool = False
    inactive_all_season: bool = False
    cast_this_season: list[str] = field(default_factory=list)  # regular spells this mage cast (A-SPELL-2)
    starved: bool = False


@dataclass
class CovenantState(ViewerSequences):
    name: str
    ruleset: str
    rules_version: str
    timezone: str
    options: dict[str, Any]
    house: dict[str, Any]  # the pinned package's content
    pin: dict[str, str]  # name, version, sha256
    powers: dict[str, CovenantSeat] = field(
        default_factory=dict
    )  # seat id -> CovenantSeat (the platform's word for seats)
    order: list[str] = field(default_factory=list)  # clockwise
    starting: str | None = None
    year: int = 1
    season: int = 0  # index into SEASONS
    seasons_begun: int = 0
    cycle: int = 0
    phase: str = "setup"
    turn: list[str] = field(default_factory=list)  # seats still to act in this phase, in order
    passed: list[str] = field(default_factory=list)  # Main: who passed in this round (A-AMB-5)
    acted: bool = False  # Main: someone acted this round
    extra_round: bool = False
    turn_done: bool = False  # Create/Play: the seat at turn generated its card (A-TURN-1)
    cards: dict[str, Card] = field(default_factory=dict)
    discard: list[DiscardedCard] = field(default_factory=list)  # face down (A.4): no player's view shows it
    challenges: dict[str, Challenge] = field(default_factory=dict)
    effects: list[Effect] = field(default_factory=list)  # spells in effect: {"spell", "target", "until", ...}
    events_in_play: list[str] = field(default_factory=list)
    held_events: list[HeldEvent] = field(default_factory=list)
    released: list[HeldEvent] = field(default_factory=list)  # held events firing this Events Phase, in generated order
    events_phase_season: int = 0  # the season whose first Events Phase has begun
    bandits: Bandits = field(
        default_factory=Bandits
    )  # Wave of Bandits: {"damage": n, "answered": [...], "fought": [...]}
    service: Service = field(
        default_factory=Service
    )  # Call to Service: {"season", "answers": {seat: outcome}} (A-RECK-4)
    chaos: Chaos = field(default_factory=Chaos)  # Season of Chaos: {"season", "choosing", "answering"} (A-EVT-3)
    battles: list[BattleDue] = field(
        default_factory=list
    )  # battles due at the end of the Main Phase, in order (A-BAT-1)
    battle: Battle | None = None  # the battle being fought: both sides' damage dealt, each side's allocation
    invasion: Invasion = field(default_factory=Invasion)  # Armed Invasion: {"damage": n, "retreated": bool}
    fought: dict[str, int] = field(default_factory=dict)  # event -> the season its battles were queued (once a season)
    event_until: dict[str, int | None] = field(
        default_factory=dict
    )  # event -> the last season it is in play (None: its own rule)
    defeated: list[str] = field(default_factory=list)  # enemies beaten in battle this season: discarded at its end
    investigation: Investigation = field(
        default_factory=Investigation
    )  # Quaesitor: {"target", "since", "investigated", "ends"}
    plague: Plague = field(default_factory=Plague)  # Plague: {"counters": n, "season": the last season it struck}
    effects_applied: list[str] = field(default_factory=list)  # events whose Main Phase effect ran this season
    deferred: Deferred | None = None  # a battle waiting for every player's "no counter" (H-15): {"battle", "spells"}
    closed_spells: list[str] = field(default_factory=list)  # spells every player confirmed not to counter (H-15)
    boosted_battles: list[BoostedBattle] = field(
        default_factory=list
    )  # battles fought before every player agreed to the boosts
    # they waited on: what a counter later in the phase undoes (A-EX-5), and who agreed (and may not counter)
    last_generation: LastGeneration = field(
        default_factory=LastGeneration
    )  # {"seat", "kind", "value"}: the Mouse may change it after
    tax_assessed: int = 0  # the season whose Tax and Tithe was assessed (once, at its first Main Phase)
    directed_history: list[list[str]] = field(default_factory=list)
    pending_event: PendingEvent | None = None
    next_card: int = 1
    winners: list[str] = field(default_factory=list)
    next_roll: int = 0
    seed: str | None = None
    seed_commitment: str | None = None
    seed_root: str | None = None
    seed_first_roll: int = 0
    credentials: dict[str, str] = field(default_factory=dict)
    windows: dict[str, Window] = field(default_factory=dict)
    seen: dict[str, int] = field(default_factory=dict)
    mail_replies: dict[str, dict[str, Any]] = field(default_factory=dict)
    forked_from: dict[str, Any] | None = None
    spells_cast: list[CastSpell] = field(
        default_factory=list
    )  # this phase's spells, which a counter may still undo (A-SPELL-5)
    trades: dict[str, Trade] = field(default_factory=dict)  # open offers between covenants (H-10)
    actions: list[CustomAction] = field(default_factory=list)  # custom Main Phase actions and the host's rulings (H-8)

    # The read models (projections.projector) index every game by season, month and step; a covenant season
    # has no months, and its step is its phase. Properties, not fields: snapshots carry only the fields.
    @property
    def month(self) -> int:
        return 0

    @property
    def step(self) -> str:
        return self.phase
