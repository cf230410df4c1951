"""What every part of development (``domain.powers.development``) shares: its state (``GameState.development``),
the base of its events, how they are recorded, and the lookups its rules refuse by.

Development's rules live in sub-domain modules (``development_wallets``: wallets and their ledger, favor and
insight, the GM's answers; ``development_trades``: trades; ``development_perks``: fame spent on development, perks
and their nerfs; ``development_ambitions``: ambitions), each a pair: functions that decide, which check a command
against the state and record its events, and the events, whose ``evolve`` folds one into the state and reads nothing
else. ``Development`` names every event class, so each is stored under the topic it always had,
``domain.powers.development:Development.<Name>``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.platform.game import PlatformGame

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import Asset, GameState


class HeldPerk(TypedDict):
    """A perk a power holds: its choice (``detail``), its upgrades, whether it was a starting perk, and the fame
    paid for it and for each upgrade (what a nerf refunds, P-DEV-6)."""

    name: str
    detail: str
    upgrades: int
    starting: bool
    paid: list[int]


class Nerf(TypedDict):
    """A perk the GM nerfed, awaiting its power's choice (P-DEV-6)."""

    name: str
    detail: str
    reason: str


@dataclass
class Holdings:
    """One power's wallet, its control resource, its perks and its development counters."""

    wallet: dict[str, int] = field(default_factory=dict)  # resource -> amount, fame included (never negative)
    control: str | None = None  # respect or fear ([003:263])
    perks: list[HeldPerk] = field(default_factory=list)
    skills_bought: int = 0  # P-DEV-2: starting skills are not counted
    perks_bought: int = 0  # P-DEV-4: new perks and upgrades share this counter (P-AMB-33)
    nerfs: list[Nerf] = field(default_factory=list)  # perks the GM nerfed, awaiting the power's choice (P-DEV-6)


@dataclass
class Task:
    id: str
    text: str | None  # a ❓ task's text is known from a GM-only event until it is revealed
    central: bool
    mysterious: bool
    status: str = "open"  # open, done, lost
    revealed: bool = True


@dataclass
class Ambition:
    id: str
    power: str
    name: str
    kind: str
    type: str
    fame: int
    required: int
    tasks: list[Task]
    reward: dict[str, int]
    reward_text: str
    compensation: dict[str, int]
    status: str = "offered"  # offered, declined, active, achieved, failed, abandoned
    fame_awarded: int = 0


@dataclass
class Trade:
    id: str
    from_power: str
    to: str
    give: dict[str, int]
    want: dict[str, int]
    note: str
    status: str = "open"  # open, accepted, declined, withdrawn


@dataclass
class Question:
    """An insight or favor spent on something the GM answers (P-ASSET-11, GM-21)."""

    id: str
    power: str
    kind: str
    text: str
    answer: str | None = None


@dataclass
class DevelopmentState:
    holdings: dict[str, Holdings] = field(default_factory=dict)  # power id -> Holdings
    ambitions: dict[str, Ambition] = field(default_factory=dict)
    trades: dict[str, Trade] = field(default_factory=dict)
    questions: dict[str, Question] = field(default_factory=dict)
    # perks the GM added to this game's catalogue (P-AMB-42)
    perks: dict[str, dict[str, Any]] = field(default_factory=dict)


DEVELOPMENT_TYPES = (Holdings, Task, Ambition, Trade, Question, DevelopmentState)


class DevelopmentEvent(PlatformGame.Event):
    """Base of development's events: ``evolve`` folds the event into the state, reading nothing else.
    ``Development`` names each subclass, and the library redefines it there as ``Development.<Name>``, the topic
    development's events have always been stored under."""

    def evolve(self, s: GameState) -> None:
        pass  # a record that changes nothing the state keeps: the feed tells it

    def apply(self, aggregate: Any) -> None:
        self.evolve(aggregate.state)
        super().apply(aggregate)


def record(game: PlatformGame, event: type[DevelopmentEvent], **fields: Any) -> None:
    """Record a development event as ``Development`` names it (``domain.powers.development:Development.<Name>``,
    its stored topic)."""
    from domain.powers.development import Development

    game.trigger_event(getattr(Development, event.__name__), **fields)


def fold_holdings(s: GameState, power_id: str) -> Holdings:
    """A power's holdings, created on first use (only events' ``evolve`` call this)."""
    return s.development.holdings.setdefault(power_id, Holdings())


def credit(wallet: dict[str, int], changes: Mapping[str, int]) -> None:
    for resource, amount in changes.items():
        wallet[resource] = wallet.get(resource, 0) + amount


def who(game: Game, power_id: str) -> str:
    """The power's name, as refusals name it (NotFound for no such power)."""
    return str(game.power(power_id).name)


def own(power_id: str) -> list[str]:
    """The audience of a power's own records: the power and the GM (P.4)."""
    return vis.powers([power_id])


def task_dicts(a: Ambition) -> list[dict[str, Any]]:
    return [{"central": t.central, "status": t.status} for t in a.tasks]


def held_perk(h: Holdings, name: str, detail: str) -> HeldPerk:
    """The perk ``name`` (with its choice ``detail``) the holdings hold, or refused."""
    for p in h.perks:
        if p["name"] == name and p["detail"] == detail:
            return p
    raise RuleViolation(f"this power has no perk {name!r}" + (f" ({detail})" if detail else ""), field="name")


def skill_of(assets: Mapping[str, Asset], power_id: str, name: str) -> Asset | None:
    """The power's skill asset ``name`` (the first by id), or None."""
    return next(
        (
            a
            for a in sorted(assets.values(), key=lambda a: a.id)
            if a.cls == "skill" and a.name == name and power_id in a.holders
        ),
        None,
    )


def active(a: Ambition) -> Ambition:
    """P-AMBI-1: the ambition, refused unless its power holds it."""
    if a.status != "active":
        raise RuleViolation(f"this ambition is {a.status}, not held", rule="P-AMBI-1", field="ambition_id")
    return a


def open_task(a: Ambition, task_id: str) -> Task:
    """The ambition's task ``task_id``, refused unless it is still open (P-AMBI-1)."""
    for t in a.tasks:
        if t.id == task_id:
            if t.status != "open":
                raise RuleViolation(f"task {task_id} is already {t.status}", rule="P-AMBI-1", field="task_id")
            return t
    raise NotFound(f"no task {task_id!r} in this ambition", field="task_id")
