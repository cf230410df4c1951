"""Resistance in Powers (P.2.4): who may resist a provisional action, declaring a reaction with one's own assets,
fixing its conversions, and waiving (P-RES-1..4, P-AMB-39)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from domain import visibility as vis
from domain.dice import Roller
from domain.errors import NotFound, RuleViolation
from domain.platform.game import _at
from domain.powers.actions import choose_conversions, spend
from domain.powers.base import GameBase, PoolData, PowersEvent, pool_from
from domain.powers.resolution import record_season_use
from domain.powers.state import ActionState, GameState, Reaction, Window


class ReactionDeclared(PowersEvent):
    reaction_id: str
    power_id: str
    action_id: str
    pool: PoolData
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.reactions[self.reaction_id] = Reaction(
            id=self.reaction_id, power=self.power_id, action_id=self.action_id, pool=pool_from(self.pool)
        )
        p = s.powers[self.power_id]
        p.reactions_used += 1
        p.commands += 1
        s.next_roll = self.pool["roll_no"] + 1
        # The same bookkeeping as an action's: what the roll spends, and the season ledger. A reaction
        # comes after the whole queue, so it uses its once-a-season assets now (P-ASSET-12).
        spend(s, self.pool["assets"])
        record_season_use(s, self.pool["assets"], self.reaction_id)


class ReactionConversionsLocked(PowersEvent):
    reaction_id: str
    converted: list[int]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        r = s.reactions[self.reaction_id]
        for i in self.converted:
            r.pool.dice[i].converted = True
        r.pool.locked = True


class ReactionsWaived(PowersEvent):
    power_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        p = s.powers[self.power_id]
        p.done_reacting = True
        p.commands += 1


class Resistance(GameBase):
    """Reactions against the month's provisional actions (a base of ``domain.powers.game.Game``)."""

    ReactionDeclared = ReactionDeclared
    ReactionConversionsLocked = ReactionConversionsLocked
    ReactionsWaived = ReactionsWaived

    def eligible_resisters(self, action: ActionState) -> list[str]:
        """Powers that may resist this action: its targets, other than its owner (P-RES-1, GM-6)."""
        if not action.resistible:
            return []
        return sorted(p for p in action.targets if p in self.state.powers and p != action.power)

    def pending_resisters(self) -> list[str]:
        """Eligible resisters of provisional actions that have neither reacted out nor waived (P-AMB-39)."""
        pending = set()
        for a in self.state.actions.values():
            if a.status != "provisional":
                continue
            for p in self.eligible_resisters(a):
                ps = self.state.powers[p]
                if not ps.done_reacting and ps.reactions_used < ps.reaction_allowance + self._reactions_to_buy(ps):
                    pending.add(p)
        return sorted(pending)

    def declare_reaction(
        self,
        power_id: str,
        reaction_id: str,
        action_id: str,
        *,
        now: datetime,
        roller: Roller,
        assets: list[dict[str, Any]],
        convert: int | None = 0,
        actor: str | None = None,
    ) -> None:
        """Resist a provisional action alone, with one's own assets (P-RES-1, P-RES-3, P-RES-4)."""
        ps = self.power(power_id)
        w = self._check_resistance(now, power_id)
        a = self.state.actions.get(action_id)
        if a is None or a.status != "provisional" or power_id not in self.eligible_resisters(a):
            raise NotFound("there is no action you may resist with that id", rule="P-RES-1", field="action_id")
        if ps.done_reacting:
            raise RuleViolation("you waived your reaction this month", rule="P-AMB-39", field="action_id")
        if ps.reactions_used >= ps.reaction_allowance:
            raise RuleViolation(
                f"each power gets {ps.reaction_allowance} reaction a month, and you have used it",
                rule="P-RES-1",
                field="action_id",
            )
        if any(r.power == power_id and r.action_id == action_id for r in self.state.reactions.values()):
            raise RuleViolation("you have already resisted this action", rule="P-RES-1", field="action_id")
        if any(p.get("asset_id") == "action" for p in assets):
            raise RuleViolation("a resister cannot spend actions as assets", rule="P-RES-3", field="assets")
        self._armies_check_pool(None, power_id, a.location, assets)
        self._runes_check_pool(a.location, assets)  # not mobility: P-ACT-4 measures from an action's own location
        pool = self._build_pool(
            power_id,
            assets,
            skill_tag=None,
            extra_actions=0,
            roller=roller,
            is_reaction=True,
            reacting_to_skill=a.skill,
        )
        if convert is not None:
            self._lock_conversions_now(pool, convert)
        self.trigger_event(
            self.ReactionDeclared,
            reaction_id=reaction_id,
            power_id=power_id,
            action_id=action_id,
            pool=pool,
            actor=actor or power_id,
            audience=vis.powers([power_id]),
        )
        self._close_if_everyone_acted(w, now)

    def _check_resistance(self, now: datetime, power_id: str | None = None) -> Window:
        w = self.open_window("resistance")
        if self.state.step != "resistance" or w is None:
            raise RuleViolation("reactions are declared while the resistance window is open", rule="P-RES-2")
        if now >= _at(w.deadline_for(power_id)):
            raise RuleViolation(
                f"the resistance window closed at {w.deadline_for(power_id)}", rule="P-RES-2", field="deadline"
            )
        return w

    def lock_reaction(self, reaction_id: str, *, now: datetime, convert: int, actor: str | None = None) -> None:
        """Fix a reaction's conversions, if they were not fixed with its roll (P-AMB-6)."""
        r = self.reaction(reaction_id)
        self._check_resistance(now, r.power)
        if r.pool.locked:
            raise RuleViolation("conversions are fixed and cannot be changed", rule="P-DICE-5", field="convert")
        chosen = choose_conversions(r.pool, convert, None, self._critical_mode())
        self.trigger_event(
            self.ReactionConversionsLocked,
            reaction_id=reaction_id,
            converted=chosen,
            actor=actor or r.power,
            audience=vis.powers([r.power]),
        )

    def waive_reactions(self, power_id: str, *, now: datetime, actor: str | None = None) -> None:
        """Waive this month's remaining reactions; silence is a waiver too when the window closes (P-AMB-39)."""
        ps = self.power(power_id)
        w = self._check_resistance(now, power_id)
        if ps.done_reacting:
            raise RuleViolation("you have already waived", rule="P-AMB-39")
        self.trigger_event(
            self.ReactionsWaived, power_id=power_id, actor=actor or power_id, audience=vis.powers([power_id])
        )
        self._close_if_everyone_acted(w, now)

    def _close_if_everyone_acted(self, w: Window, now: datetime) -> None:
        if not self.pending_resisters():
            self.close_window(w.id, now=now, reason="everyone acted or waived")
