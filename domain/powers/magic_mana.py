"""Mana held by one of this month's actions (P-AMB-37, [003:523]) and an action's own mana cost (P-MAG-2): mana a
power gains during an action is the action's, spent by its casts or lost with it; a declared collaborator puts mana
into an action for its ritual; an action pays its own cost (``AW``...) from the mana it holds first, then the
wallet. At Tidings, perks generate their mana (P-MAG-1)."""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import TYPE_CHECKING, Any

from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.game import _at
from domain.powers import magic_rules as mr
from domain.powers.magic_state import (
    MagicEvent,
    add_mana,
    caps_of,
    check_names,
    draw,
    fold_pool,
    perks_of,
    pool_of,
    record,
    take,
)

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, GameState


def open_action(game: Game, action_id: str, power_id: str | None, now: datetime) -> ActionState:
    """This month's action (the power's, if named), still open to mana: in Planning, before its deadline, not
    discarded."""
    s = game.state
    a = s.actions.get(action_id)
    if a is None or (power_id is not None and a.power != power_id):
        raise NotFound(f"no action {action_id!r} this month", rule="P-MAG-1", field="action_id")
    if s.step != "planning":
        raise RuleViolation(f"this is done during Planning; this is {s.step.title()}", rule="P.1.2")
    w = game.open_window("planning")
    if w is not None and now >= _at(w.deadline_for(a.power)):
        raise RuleViolation(
            f"the Planning deadline passed at {w.deadline_for(a.power)}", rule="P.1.2", field="deadline"
        )
    if a.discarded:
        raise RuleViolation("this action was discarded", rule="P-DICE-10", field="action_id")
    return a


def channel_mana(game: Game, action_id: str, element: str, amount: int, *, now: datetime) -> None:
    """GM: the action's power gains mana during that action (P-AMB-37): held by the action whatever the
    power's storage cap, spent by its casts, and lost with the action if left over."""
    check_names(action_id=action_id, element=element)
    a = open_action(game, action_id, None, now)
    mr.check_element(element)
    if not isinstance(amount, int) or not 1 <= amount <= 20:
        raise RuleViolation("mana is gained 1 to 20 at a time", rule="P-MAG-1", field="amount")
    record(
        game,
        ManaChannelled,
        action_id=action_id,
        power_id=a.power,
        element=element,
        amount=amount,
        actor=GM,
        audience=vis.powers([a.power]),
    )


def contribute_mana(
    game: Game, power_id: str, action_id: str, mana: list[str], *, now: datetime, actor: str | None = None
) -> None:
    """A declared collaborator puts mana from its wallet into an action, for the ritual cast in it:
    "powers can combine their efforts and mana pools to complete a ritual" ([003:523], P-MAG-3); spells
    cannot use it. Mana the ritual does not spend is lost with the action."""
    check_names(action_id=action_id)
    a = open_action(game, action_id, None, now)
    if power_id not in a.collaborators:
        raise RuleViolation(
            "only a declared collaborator of the action puts mana into it", rule="P-DICE-11", field="action_id"
        )
    if not mana or len(mana) > 40:
        raise RuleViolation("contribute 1 to 40 mana", rule="P-MAG-1", field="mana")
    given = Counter(mr.check_element(e, "mana") for e in mana)
    mr.check_held(given, game.power(power_id).mana)
    record(
        game,
        ManaContributed,
        action_id=action_id,
        power_id=power_id,
        owner=a.power,
        mana=dict(sorted(given.items())),
        actor=actor or power_id,
        audience=vis.powers([a.power, power_id]),
    )


def pay_mana(
    game: Game,
    power_id: str,
    action_id: str,
    cost: str,
    *,
    now: datetime,
    pay: list[str] | None = None,
    actor: str | None = None,
) -> dict[str, Any]:
    """Pay an action's own mana cost (Uplift Master's ``AW``, Sacrificial Summoning's ``FW``...) by the
    rules of spell costs (P-MAG-2), from mana the action holds first, then the wallet. The perks that
    change costs are for spells (P-MAG-6), so none applies here."""
    check_names(action_id=action_id, cost=cost)
    if pay is not None and not all(isinstance(e, str) for e in pay):
        raise RuleViolation("a payment lists mana by element letter", rule="P-MAG-2", field="pay")
    open_action(game, action_id, power_id, now)
    price = mr.parse_cost(cost)
    usable = [pool_of(game.state, action_id)["channelled"]]
    held = Counter(game.power(power_id).mana)
    held.update(usable[0])
    payment = mr.check_payment(price, pay if pay is not None else mr.auto_payment(price, held))
    mr.check_held(payment.spent, held)
    pooled, from_wallet = draw(payment.spent, usable)
    spent: dict[str, Any] = {
        "power_id": power_id,
        "action_id": action_id,
        "cost": price.text,
        "paid": dict(sorted(payment.spent.items())),
        "pooled": pooled,
        "from_wallet": from_wallet,
    }
    record(game, ManaSpent, **spent, actor=actor or power_id, audience=vis.powers([power_id]))
    return spent


def mana_spent(
    game: Game,
    *,
    power_id: str,
    action_id: str,
    cost: str,
    paid: dict[str, int],
    pooled: dict[str, dict[str, int]],
    from_wallet: dict[str, int],
    actor: str,
    audience: list[str],
) -> None:
    """Record ManaSpent for a payment checked elsewhere: a battle's spell (``battle_field``), a class action's
    cost (``catalogue_actions``)."""
    record(
        game,
        ManaSpent,
        power_id=power_id,
        action_id=action_id,
        cost=cost,
        paid=paid,
        pooled=pooled,
        from_wallet=from_wallet,
        actor=actor,
        audience=audience,
    )


def season_mana(game: Game) -> None:
    """At Tidings, perks generate their mana (P-MAG-1), recorded as the GM's grants are."""
    s = game.state
    for pid in sorted(s.powers):
        gained = mr.seasonal_mana(perks_of(s, pid), s.powers[pid].mana, caps_of(s, pid))
        for element, amount in gained.items():
            game._mana_granted(power_id=pid, element=element, amount=amount, actor=SYSTEM, audience=vis.powers([pid]))


# ---------------------------------------------------------------------- events


class ManaChannelled(MagicEvent):
    action_id: str
    power_id: str
    element: str
    amount: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        add_mana(fold_pool(s, self.action_id)["channelled"], {self.element: self.amount})


class ManaContributed(MagicEvent):
    action_id: str
    power_id: str
    owner: str
    mana: dict[str, int]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        add_mana(fold_pool(s, self.action_id)["contributed"], self.mana)
        add_mana(s.powers[self.power_id].mana, self.mana, -1)


class ManaSpent(MagicEvent):
    """Mana paid: by an action's own cost, a class action's, a spell cast in Battle (``battle``, ``catalogue``)."""

    power_id: str
    action_id: str
    cost: str
    paid: dict[str, int]
    pooled: dict[str, dict[str, int]]
    from_wallet: dict[str, int]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        take(s, self.power_id, self.action_id, self.pooled, self.from_wallet)
