"""Rituals at Resolution (P-RES-6, P-MAG-4, P-MAG-6): a ritual is not reduced by resistance, but each resister with
half its difficulty in successes is protected from it; a success inflates the ritual's cost, a failure loses its
mana (which Vessel Heart gives back); an action may dispel a permanent ritual at its original difficulty."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import SYSTEM
from domain.powers import magic_rules as mr
from domain.powers.magic_state import MagicEvent, check_names, has_perk, magic_of, record, ritual_of, spell_def

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, GameState


def ritual_resisted(game: Game, action: ActionState, resist: Mapping[str, int]) -> tuple[int, int] | None:
    """P-RES-6 (P-AMB-8): a ritual is not reduced by resistance; each resister with at least half its
    difficulty (rounded up) in successes is protected from its effect. Returns ``(net, resisted)``
    for a ritual (None for any other action), and tells each resister whether it is protected."""
    ritual = ritual_of(game.state, action.id)
    if ritual is None:
        return None
    difficulty = action.difficulty or 0
    for power_id, successes in sorted(resist.items()):
        record(
            game,
            RitualWarded,
            action_id=action.id,
            power_id=power_id,
            successes=successes,
            protected=mr.ritual_protected(successes, difficulty),
            actor=SYSTEM,
            audience=vis.powers([action.power, power_id]),
        )
    return action.successes or 0, 0  # a provisional action's successes are known (ActionProvisional)


def conclude_ritual(game: Game, action_id: str) -> None:
    """After a ritual's action resolves: a success inflates its cost (P-MAG-4); a failure loses the mana,
    which Vessel Heart refunds (P-MAG-6, [003:909])."""
    s = game.state
    ritual = ritual_of(s, action_id)
    a = s.actions[action_id]
    if ritual is None or a.status != "resolved":
        return
    # Vessel Heart gives back what the power spent of its own: mana an action held was the action's.
    refund = {} if a.success or not has_perk(s, a.power, "vessel_heart") else dict(ritual["from_wallet"])
    record(
        game,
        RitualConcluded,
        action_id=action_id,
        cast_id=ritual["cast_id"],
        power_id=a.power,
        spell_id=ritual["spell_id"],
        success=bool(a.success),
        inflation_key=ritual["inflation_key"],
        difficulty=ritual["difficulty"],
        refund=refund,
        actor=SYSTEM,
        audience=vis.powers([a.power]),
    )


def declare_dispel(game: Game, action_id: str, ritual_cast_id: str) -> None:
    """GM: this action tries to dispel a permanent ritual; its difficulty is the ritual's original
    difficulty, whatever the ritual costs now (P-RES-6)."""
    s = game.state
    check_names(ritual=ritual_cast_id)
    done = magic_of(s).get("completed", {}).get(ritual_cast_id)
    if done is None:
        raise NotFound(f"no ritual {ritual_cast_id!r} was completed in this game", rule="P-RES-6", field="ritual")
    spell = spell_def(s, done["spell_id"])
    if spell is None or not spell.permanent:
        raise RuleViolation("only a ritual with a permanent effect can be dispelled", rule="P-RES-6", field="ritual")
    game.set_difficulty(action_id, done["difficulty"])


# ---------------------------------------------------------------------- events


class RitualWarded(MagicEvent):
    action_id: str
    power_id: str
    successes: int
    protected: bool
    actor: str
    audience: list[str]


class RitualConcluded(MagicEvent):
    action_id: str
    cast_id: str
    power_id: str
    spell_id: str
    success: bool
    inflation_key: str
    difficulty: int
    refund: dict[str, int]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        m = magic_of(s)
        if self.success:
            inflation = m.setdefault("inflation", {})
            inflation[self.inflation_key] = inflation.get(self.inflation_key, 0) + 1
            m.setdefault("completed", {})[self.cast_id] = {
                "power_id": self.power_id,
                "spell_id": self.spell_id,
                "difficulty": self.difficulty,
            }
        ps = s.powers[self.power_id]
        for e, n in self.refund.items():
            ps.mana[e] = ps.mana.get(e, 0) + n
