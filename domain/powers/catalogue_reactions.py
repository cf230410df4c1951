"""Reactions of the class catalogue: a mixin of ``Game`` (ANALYSIS.md P-RES-1, P-RES-7, P-ACT-2).

Extra reactions a power's perks buy for the month (P-RES-1; Desperate Reaction spends an action of next month,
P-ACT-2), and triggered reactions that resist nothing (P-RES-7: Gate Guardians, a Celestial's teleport home, a
Satellite Shrine's removal). Both are the month's, in ``GameState.catalogue``.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict, cast

from domain import limits
from domain import visibility as vis
from domain.dice import Roller
from domain.errors import NotFound, RuleViolation
from domain.platform.game import PlatformGame
from domain.powers import catalogue_rules as cr
from domain.powers import rules
from domain.powers.actions import spend
from domain.powers.base import PoolData, pool_from
from domain.powers.catalogue_state import CatalogueEvent, ReactionOutcome, cat, record
from domain.powers.part import as_game
from domain.powers.resolution import record_season_use

if TYPE_CHECKING:
    from domain.powers.state import ActionState, GameState, PowerState


class ReactionPrice(TypedDict, total=False):
    """What an extra reaction cost (P-RES-1): an action of next month, a scheme, or mana by element."""

    next_month_actions: int
    scheme: str
    mana: dict[str, int]


class Reactions(PlatformGame):
    """Commands and events of extra and triggered reactions (P-RES-1, P-RES-7)."""

    if TYPE_CHECKING:
        state: GameState

    def _reactions_to_buy(self, ps: PowerState) -> int:
        """Extra reactions a power's perks could still buy this month (P-RES-1): the window waits for them."""
        taken = cat(self.state).get("extra_reactions", {}).get(ps.id, [])
        return sum(1 for perk in cr.EXTRA_REACTION_PERKS if ps.options.get(perk) and perk not in taken)

    def gain_extra_reaction(self, power_id: str, perk: str, *, now: datetime, scheme_id: str | None = None) -> None:
        """Pay a perk's price for one more reaction this month (P-RES-1): Desperate Reaction spends an action
        of next month (P-ACT-2), Prepared Reaction a scheme (not an asset of the roll), Mystic Reactions an A
        mana."""
        g = as_game(self)
        ps = g.power(power_id)
        g._check_resistance(now, power_id)
        if ps.done_reacting:
            raise RuleViolation("you waived your reactions this month", rule="P-AMB-39")
        taken = cat(self.state).get("extra_reactions", {}).get(power_id, [])
        cr.check_extra_reaction(perk, ps.options, taken)
        paid: ReactionPrice = {}
        if perk == "desperate_reaction":
            paid = {"next_month_actions": 1}
        elif perk == "prepared_reaction":
            scheme = self.state.assets.get(scheme_id) if scheme_id else None
            if scheme is None or power_id not in scheme.holders or scheme.cls != "scheme" or scheme.used_up:
                raise RuleViolation("Prepared Reaction spends a scheme you hold", rule="P-RES-1", field="scheme_id")
            paid = {"scheme": scheme.id}
        else:
            if int(ps.mana.get("A", 0)) < 1:
                raise RuleViolation("Mystic Reactions spends an A mana, and you have none", rule="P-RES-1")
            paid = {"mana": {"A": 1}}
        record(
            self,
            ExtraReactionGained,
            power_id=power_id,
            perk=perk,
            paid=paid,
            actor=power_id,
            audience=vis.powers([power_id]),
        )

    def use_reaction(
        self,
        power_id: str,
        reaction_id: str,
        kind: str,
        *,
        now: datetime,
        roller: Roller,
        trigger: str | None = None,
        fee: int | None = None,
        assets: list[dict[str, Any]] | None = None,
        convert: int = 0,
        note: str = "",
    ) -> dict[str, Any]:
        """A triggered response that uses a reaction without resisting anything (P-RES-7): Gate Guardians
        (a pool against the mustering army's fee; the excess is the guardians' size), the Celestial's
        teleport home, a Satellite Shrine's removal."""
        g = as_game(self)
        ps = g.power(power_id)
        w = g._check_resistance(now, power_id)
        rk = cr.reaction_kind(kind, ps.subclass)
        limits.check_text(reaction_id, "reaction_id", limits.IDENTIFIER)
        limits.check_text(note, "note", limits.DESCRIPTION, what="a note")
        if ps.done_reacting:
            raise RuleViolation("you waived your reactions this month", rule="P-AMB-39")
        if ps.reactions_used >= ps.reaction_allowance:
            raise RuleViolation(
                f"each power gets {ps.reaction_allowance} reaction a month, and you have used it",
                rule="P-RES-1",
                field="kind",
            )
        if reaction_id in self.state.reactions or reaction_id in cat(self.state).get("triggered", {}):
            raise RuleViolation(f"reaction {reaction_id!r} already exists", field="reaction_id")
        if trigger is not None and trigger not in self.state.actions:
            raise NotFound(f"no action {trigger!r} this month to react to", rule="P-RES-7", field="trigger")
        if kind in ("gate_guardians", "satellite_shrine") and trigger is None:
            raise RuleViolation(f"{kind.replace('_', ' ')} answers an action: name it", rule="P-RES-7", field="trigger")
        pool = None
        outcome: ReactionOutcome = {}
        if rk.rolls:
            if fee is None or not 0 <= fee <= 20:
                raise RuleViolation("Gate Guardians' difficulty is the mustering army's fee (0 to 20)", rule="P-RES-7")
            pool = g._build_pool(
                power_id, list(assets or []), skill_tag=None, extra_actions=0, roller=roller, is_reaction=True
            )
            g._lock_conversions_now(pool, convert)
            t = g.tally(cast("ActionState", None), pool_from(pool))  # a reaction's own pool: no action is read
            ok, excess = rules.outcome(t.successes, fee)
            outcome = {"successes": t.successes, "difficulty": fee, "success": ok, "guardians": excess}
        record(
            self,
            ReactionUsed,
            reaction_id=reaction_id,
            power_id=power_id,
            kind=kind,
            trigger=trigger,
            note=note,
            pool=pool,
            outcome=outcome,
            actor=power_id,
            audience=vis.powers([power_id]),
        )
        g._close_if_everyone_acted(w, now)
        return {"reaction_id": reaction_id, "kind": kind, **outcome}


# ---------------------------------------------------------------------- events


class ExtraReactionGained(CatalogueEvent):
    power_id: str
    perk: str
    paid: ReactionPrice
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        p = s.powers[self.power_id]
        cat(s).setdefault("extra_reactions", {}).setdefault(self.power_id, []).append(self.perk)
        p.reaction_allowance += 1
        p.debt_next_month += int(self.paid.get("next_month_actions", 0))
        if self.paid.get("scheme"):
            s.assets[self.paid["scheme"]].used_up = True
        for element, n in self.paid.get("mana", {}).items():
            p.mana[element] = p.mana.get(element, 0) - n
            if p.mana[element] <= 0:
                p.mana.pop(element)


class ReactionUsed(CatalogueEvent):
    reaction_id: str
    power_id: str
    kind: str
    trigger: str | None
    note: str
    pool: PoolData | None
    outcome: ReactionOutcome
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        p = s.powers[self.power_id]
        p.reactions_used += 1
        p.commands += 1
        cat(s).setdefault("triggered", {})[self.reaction_id] = {
            "power": self.power_id,
            "kind": self.kind,
            "trigger": self.trigger,
            "outcome": self.outcome.copy(),
        }
        if self.pool is not None:
            s.next_roll = self.pool["roll_no"] + 1
            spend(s, self.pool["assets"])
            record_season_use(s, self.pool["assets"], self.reaction_id)
