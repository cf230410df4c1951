"""What every part of a battle (``domain.powers.battle``) shares: the base of its events, how they are recorded, the
battle's dice, and the reads of a battle its rules refuse and fold by.

A battle's rules live in sub-domain modules (``battle_steps``: declaring it, its terrain and its chain of windows;
``battle_setup``: each power's setup; ``battle_field``: the start, each round's deployment and spells;
``battle_commands``: the Commands step; ``battle_end``: goals, surrender, cleanup, the end and the GM's rulings;
``battle_view``: who sees what), each a pair: functions that decide, which check a command against the state and
record its events, and the events, whose ``evolve`` folds one into the state and reads nothing else. The pure
rules (checks, attacks, morale, goals) are ``battle_rules``. ``Battles`` names every event class, so each is stored
under the topic it always had, ``domain.powers.battle:Battles.<Name>``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from domain import visibility as vis
from domain.copying import deepcopy
from domain.dice import Roller
from domain.errors import NotFound, RuleViolation
from domain.powers.part import PartEvent

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState, PowerState

WINDOW_KIND = "battle"


class BattleRoll(TypedDict):
    """A roll of a battle step as its event carries it: what it was for, its dice and faces, and its proof under the
    month's committed seed (P-DICE-2)."""

    roll_no: int
    what: str
    sides: int
    faces: list[int]
    proof: dict[str, Any]


Changes = dict[str, dict[str, Any]]
"""A battle's changes to armies, by army id: only what changed of each (``diff``)."""


class BattlesState(TypedDict, total=False):
    """``GameState.battles``: the game's battles by id (P.1.3), each a dict of JSON-native values (see
    ``battle_steps.BattleDeclared``)."""

    battles: dict[str, dict[str, Any]]


class BattleEvent(PartEvent):
    """Base of a battle's events: ``evolve`` folds the event into the state, reading nothing else. ``Battles``
    names each subclass, and the library redefines it there as ``Battles.<Name>``, the topic a battle's events have
    always been stored under (not a ``PowersEvent``: those are recorded as ``Game.<Name>``)."""


def record(game: Game, event: type[BattleEvent], **fields: Any) -> None:
    """Record a battle event as ``Battles`` names it (``domain.powers.battle:Battles.<Name>``, its stored topic)."""
    from domain.powers.battle import Battles

    game.trigger_event(getattr(Battles, event.__name__), **fields)


def roll(game: Game, roller: Roller, rolls: list[BattleRoll], what: str, count: int, sides: int) -> list[int]:
    """Roll on the committed dice service (P-DICE-2); the roll goes into the event with its proof."""
    if count <= 0:
        return []
    s = game.state
    if s.seed is None:
        raise RuleViolation("battle dice are rolled within the month's committed seed", rule="P-DICE-2")
    roll_no = s.next_roll + len(rolls)
    faces = list(roller.faces(roll_no, count, sides))
    rolls.append({"roll_no": roll_no, "what": what, "sides": sides, "faces": faces, "proof": game._roll_proof(roll_no)})
    return faces


# ---------------------------------------------------------------------- folding helpers


def apply_changes(state: GameState, changes: Changes) -> None:
    """Fold a battle's changes into its armies (an army gone since is skipped)."""
    for aid, ch in deepcopy(changes).items():  # the state never shares the event's values
        army = state.armies.armies.get(aid)
        if army is not None:
            army.update(ch)


def marks(army: dict[str, Any]) -> list[Any]:
    """The army's units' wounds and routs, to tell whether it was harmed this round (P-BAT-7, Harpies)."""
    return [[u["wounds"], bool(u["routed"])] for u in army["units"]]


def advance_rolls(state: GameState, rolls: list[BattleRoll]) -> None:
    if rolls:
        state.next_roll = max(r["roll_no"] for r in rolls) + 1


def diff(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    """The battle's changes to an army (units, statuses, momentum, armor...): only what changed."""
    # The rules' shallow copies share what they did not change: ``is`` settles most keys without comparing.
    changed = {k: v for k, v in after.items() if (w := before.get(k)) is not v and w != v}
    return deepcopy(changed) if changed else changed


# ---------------------------------------------------------------------- reads


def other(side: str) -> str:
    return "B" if side == "A" else "A"


def power_of(state: GameState, power_id: str) -> PowerState:
    """The power, or NotFound (as ``Game.power``)."""
    try:
        power: PowerState = state.powers[power_id]
    except KeyError:
        raise NotFound(f"no power {power_id!r} in this game", field="power") from None
    return power


def battles_of(state: GameState) -> dict[str, dict[str, Any]]:
    battles: dict[str, dict[str, Any]] = state.battles.get("battles", {})
    return battles


def battle_of_window(state: GameState, window_id: str) -> dict[str, Any] | None:
    for b in battles_of(state).values():
        if b.get("window") == window_id:
            return b
    return None


def fighting_in(state: GameState, b: dict[str, Any], side: str | None = None) -> list[str]:
    """Deployed armies with active units, in their side's order."""
    armies, entries = state.armies.armies, b["armies"]
    return [
        aid
        for sd in (("A", "B") if side is None else (side,))
        for aid in b["sides"][sd]["order"]
        if entries[aid]["where"] == "deployed"
        and (army := armies.get(aid)) is not None
        and any(not u["routed"] for u in army["units"])  # a unit active: size > 0
    ]


def pending(b: dict[str, Any]) -> list[str]:
    """Who the battle's current window waits for."""
    if b["step"] == "ended" or b.get("window") is None:
        return []
    return [p for p in b["eligible"] if p not in b["acted"]]


def active_battles(state: GameState) -> list[dict[str, Any]]:
    return [b for _, b in sorted(battles_of(state).items()) if b["step"] != "ended"]


def armies_in(state: GameState, h: str) -> list[dict[str, Any]]:
    return [a for _, a in sorted(state.armies.armies.items()) if a["hex"] == h and a["controller"]]


def battle_powers(b: dict[str, Any]) -> list[str]:
    return [p for side in ("A", "B") for p in b["sides"][side]["powers"]]


def side_of(b: dict[str, Any], power_id: str) -> str:
    sides: dict[str, dict[str, Any]] = b["sides"]
    for side, s in sides.items():
        if power_id in s["powers"]:
            return side
    raise RuleViolation(f"{power_id} takes no part in this battle", rule="P.1.3", field="power_id")


def audience(b: dict[str, Any]) -> list[str]:
    """Who sees a battle's events: its powers and the GM (P.4)."""
    return vis.powers([p for s in b["sides"].values() for p in s["powers"]])


def reserve(state: GameState, b: dict[str, Any], power_id: str) -> list[str]:
    """A power's armies in the battle's hex not yet in the battle: it may deploy them ([003:575])."""
    return [a["id"] for a in armies_in(state, b["hex"]) if a["controller"] == power_id and a["id"] not in b["armies"]]


def reserve_powers(state: GameState, b: dict[str, Any]) -> list[str]:
    return [p for p in battle_powers(b) if reserve(state, b, p)]


def in_battle(state: GameState, power_id: str, h: str) -> bool:
    return any(b["hex"] == h and power_id in battle_powers(b) for b in active_battles(state))


def check_turn(state: GameState, b: dict[str, Any], power_id: str, step: str, now: datetime) -> None:
    """The battle is at this step, waits for this power, and its window is open for it (P.1.3)."""
    if b["step"] != step:
        raise RuleViolation(f"the battle is at its {b['step']} step, not {step}", rule="P.1.3", field="battle_id")
    if power_id not in pending(b):
        raise RuleViolation(f"{power_id} has nothing to do in this step now", rule="P.1.3", field="power_id")
    w = state.windows.get(b["window"])
    if w is None or w.closed or now >= datetime.fromisoformat(w.deadline_for(power_id)):
        raise RuleViolation("this step's window has closed", rule="P.1.3", field="deadline")


# ---------------------------------------------------------------------- events


class BattleRuled(BattleEvent):
    """Changes to armies in a battle that no step makes: a status the GM sets (a spell's effect, the terrain;
    P-BAT-12), or momentum a spell triggers (P-BAT-7, recorded by the system)."""

    battle_id: str
    round: int
    changes: Changes
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        apply_changes(s, self.changes)
