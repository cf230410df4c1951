"""The state a covenant game folds from its events: plain dataclasses of JSON-native fields."""

from __future__ import annotations

from dataclasses import dataclass, field

from domain.platform.state import ViewerSequences


@dataclass
class CovenantSeat:
    """A player's seat and covenant (the platform reads the Seat fields; the rest is the covenant's)."""

    id: str
    name: str
    covenant: str
    roles: list = field(default_factory=list)
    arts: list = field(default_factory=list)  # the starting mage's chosen Arts (empty: rolled, A-GEN-4)
    square: int = 0
    moved_this_season: bool = False
    gold: int = 4
    vis: int = 4
    provision: int = 0
    score: int = 0
    marked: bool = False
    damaged_another: bool = False  # has damaged another covenant: a drawn Quaesitor's target (A-AMB-19)
    keep_unconverted: dict = field(default_factory=dict)  # gold and vis the Yearly Reckoning leaves (A-AMB-9)
    tribute: list = field(default_factory=list)  # [{"to": seat or None, "points": n, "permanent": bool}]
    tax_owed: int = 0  # Tax and Tithe, assessed at the Main Phase (A-EVT-4); unpaid at Reckoning: tribute (A-RECK-4)
    last_challenged: dict = field(default_factory=dict)  # rival seat -> season index of the last challenge
    supported: bool = False
    timezone: str | None = None
    email: str | None = None
    mail_mode: str = "immediate"
    grants: list = field(default_factory=list)
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
    arts: list = field(default_factory=list)
    spells: list = field(default_factory=list)
    attached_to: str | None = None
    counters: int = 0
    inactive_until: str | None = None  # an improvement under construction (A-GEN-3)
    new_damage: bool = False
    inactive_all_season: bool = False
    cast_this_season: list = field(default_factory=list)  # regular spells this mage cast (A-SPELL-2)
    starved: bool = False


@dataclass
class CovenantState(ViewerSequences):
    name: str
    ruleset: str
    rules_version: str
    timezone: str
    options: dict
    house: dict  # the pinned package's content
    pin: dict  # name, version, sha256
    powers: dict = field(default_factory=dict)  # seat id -> CovenantSeat (the platform's word for seats)
    order: list = field(default_factory=list)  # clockwise
    starting: str | None = None
    year: int = 1
    season: int = 0  # index into SEASONS
    seasons_begun: int = 0
    cycle: int = 0
    phase: str = "setup"
    turn: list = field(default_factory=list)  # seats still to act in this phase, in order
    passed: list = field(default_factory=list)  # Main: who passed in this round (A-AMB-5)
    acted: bool = False  # Main: someone acted this round
    extra_round: bool = False
    turn_done: bool = False  # Create/Play: the seat at turn generated its card (A-TURN-1)
    cards: dict = field(default_factory=dict)
    discard: list = field(default_factory=list)  # face down (A.4): no player's view shows it
    challenges: dict = field(default_factory=dict)
    effects: list = field(default_factory=list)  # spells in effect: {"spell", "target", "until", ...}
    events_in_play: list = field(default_factory=list)
    held_events: list = field(default_factory=list)
    released: list = field(default_factory=list)  # held events firing this Events Phase, in generated order
    events_phase_season: int = 0  # the season whose first Events Phase has begun
    bandits: dict = field(default_factory=dict)  # Wave of Bandits: {"damage": n, "answered": [...], "fought": [...]}
    service: dict = field(default_factory=dict)  # Call to Service: {"season", "answers": {seat: outcome}} (A-RECK-4)
    chaos: dict = field(default_factory=dict)  # Season of Chaos: {"season", "choosing", "answering"} (A-EVT-3)
    battles: list = field(default_factory=list)  # battles due at the end of the Main Phase, in order (A-BAT-1)
    battle: dict | None = None  # the battle being fought: both sides' damage dealt, each side's allocation
    invasion: dict = field(default_factory=dict)  # Armed Invasion: {"damage": n, "retreated": bool}
    fought: dict = field(default_factory=dict)  # event -> the season its battles were queued (once a season)
    event_until: dict = field(default_factory=dict)  # event -> the last season it is in play (None: its own rule)
    defeated: list = field(default_factory=list)  # enemies beaten in battle this season: discarded at its end
    investigation: dict = field(default_factory=dict)  # Quaesitor: {"target", "since", "investigated", "ends"}
    plague: dict = field(default_factory=dict)  # Plague: {"counters": n, "season": the last season it struck}
    effects_applied: list = field(default_factory=list)  # events whose Main Phase effect ran this season
    deferred: dict | None = None  # a battle waiting for every player's "no counter" (H-15): {"battle", "spells"}
    closed_spells: list = field(default_factory=list)  # spells every player confirmed not to counter (H-15)
    boosted_battles: list = field(default_factory=list)  # battles fought before every player agreed to the boosts
    # they waited on: what a counter later in the phase undoes (A-EX-5), and who agreed (and may not counter)
    last_generation: dict = field(default_factory=dict)  # {"seat", "kind", "value"}: the Mouse may change it after
    tax_assessed: int = 0  # the season whose Tax and Tithe was assessed (once, at its first Main Phase)
    directed_history: list = field(default_factory=list)
    pending_event: dict | None = None
    next_card: int = 1
    winners: list = field(default_factory=list)
    next_roll: int = 0
    seed: str | None = None
    seed_commitment: str | None = None
    seed_root: str | None = None
    seed_first_roll: int = 0
    credentials: dict = field(default_factory=dict)
    windows: dict = field(default_factory=dict)
    seen: dict = field(default_factory=dict)
    mail_replies: dict = field(default_factory=dict)
    forked_from: dict | None = None
    spells_cast: list = field(default_factory=list)  # this phase's spells, which a counter may still undo (A-SPELL-5)
    trades: dict = field(default_factory=dict)  # open offers between covenants (H-10)
    actions: list = field(default_factory=list)  # custom Main Phase actions and the host's rulings (H-8)

    # The read models (projections.projector) index every game by season, month and step; a covenant season
    # has no months, and its step is its phase. Properties, not fields: snapshots carry only the fields.
    @property
    def month(self) -> int:
        return 0

    @property
    def step(self) -> str:
        return self.phase
