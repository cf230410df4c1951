"""Support, fees, desertion and disbanding (P-SUP-1..3, P-ARMY-5): a power supports as many units as its claims,
influence, perks and the GM's bonus allow, and pays during Tidings for those beyond; an army's fee is paid after it
moves or fights; an army whose fee (or its power's support) went unpaid may desert; a loyal army is disbanded at the
start of Tidings, a levy in its origin town, its card kept for a re-levy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import limits
from domain import visibility as vis
from domain.errors import RuleViolation
from domain.ids import GM, SYSTEM
from domain.powers import army_rules as ar
from domain.powers.armies_base import ArmyEvent, armies_of, army, own_army, perks, record, settled, whole
from domain.powers.armies_state import army_audience, army_owner, visible

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


# ---------------------------------------------------------------------- support (P-SUP-1, P-SUP-2)


def units_counted(s: GameState, power_id: str) -> int:
    """P-SUP-1: the units a power's armies count against its limit."""
    return ar.units_counted(armies_of(s, power_id), "Privateers" in perks(s, power_id))


def support_limit(game: Game, power_id: str) -> int:
    """P-SUP-2, from the towns a power claims (world), its influence, its perks and what the GM records."""
    s = game.state
    p = game.power(power_id)
    pops = [t["population"] for t in s.world.towns.values() if power_id in {c["power"] for c in t["claims"].values()}]
    influenced = sum(1 for n in p.influence.values() if n >= 1)
    bonus = s.armies.bonus.get(power_id, 0) + ar.effects_support(p.subclass, perks(s, power_id))
    return ar.support_limit(p.cls, pops, influenced, bonus)


def support_due(game: Game, power_id: str) -> int:
    """P-SUP-1: the units beyond the support limit."""
    return ar.support_due(game.support_limit(power_id), game.units_counted(power_id))


def set_support_bonus(game: Game, power_id: str, bonus: int) -> None:
    """GM: what a power's other effects add to its support limit (P-SUP-2)."""
    game.power(power_id)
    whole(bonus, "bonus", 0, 1000, "P-SUP-2")
    record(game, SupportBonusSet, power_id=power_id, bonus=bonus, actor=GM, audience=vis.powers([power_id]))


def pay_support(game: Game, power_id: str, changes: dict[str, int], actor: str | None = None) -> None:
    """P-SUP-1: during Tidings, one coin, respect or fear for each unit beyond the support limit."""
    s = game.state
    if s.step != "tidings":
        raise RuleViolation("support is paid during Tidings", rule="P-SUP-1")
    if settled(s.armies, power_id, s.season):
        raise RuleViolation("support is already settled this season", rule="P-SUP-1")
    due = game.support_due(power_id)
    if not isinstance(changes, dict) or set(changes) - set(ar.SUPPORT_RESOURCES):
        raise RuleViolation("support is paid in coin, respect or fear (P-AMB-21)", rule="P-SUP-1")
    amounts = {k: whole(v, k, 0, 100000, "P-SUP-1") for k, v in changes.items() if v}
    if sum(amounts.values()) != due:
        raise RuleViolation(f"{due} units are beyond the support limit: pay {due}", rule="P-SUP-1")
    if amounts:
        game.pay(power_id, amounts, "support of armies", rule="P-SUP-1", actor=actor or power_id)
    record(
        game,
        SupportSettled,
        power_id=power_id,
        due=due,
        paid=amounts,
        actor=actor or power_id,
        audience=vis.powers([power_id]),
    )


def end_tidings(game: Game) -> None:
    """The end of Tidings (P-SUP-1): a power that has not paid for its units beyond the limit owes them; the GM
    rules what follows (desertions, P-SUP-3)."""
    s = game.state
    for pid in sorted(s.powers):
        if settled(s.armies, pid, s.season) or not armies_of(s, pid):
            continue
        due = game.support_due(pid)
        if due:
            record(game, SupportUnpaid, power_id=pid, due=due, actor=SYSTEM, audience=vis.powers([pid]))


# ---------------------------------------------------------------------- fees and desertion (P-SUP-3)


def fee_due(game: Game, army: dict[str, Any]) -> None:
    """P-SUP-3: "The fee is paid after the army moves or fights a battle"."""
    fee = ar.army_fee(army)
    if fee:
        record(game, ArmyFeeDue, army_id=army["id"], coin=fee, actor=SYSTEM, audience=army_owner(army))


def pay_army_fee(game: Game, army_id: str, power_id: str, resource: str = "coin", actor: str | None = None) -> None:
    """Pay an army's fee (P-SUP-3) in coin, or in fear for a Servile army, halved ([003:771])."""
    a = own_army(game.state, army_id, power_id)
    if not a["fee_due"]:
        raise RuleViolation(f"{a['name']} is owed no fee", rule="P-SUP-3", field="army_id")
    if resource == "fear" and "servile" in a["keywords"]:
        amount = ar.fee_in_fear(a, a["fee_due"])
    elif resource == "coin":
        amount = a["fee_due"]
    else:
        raise RuleViolation("a fee is paid in coin (a Servile army's in fear too)", rule="P-SUP-3")
    game.pay(power_id, {resource: amount}, f"fee of {a['name']}", rule="P-SUP-3", actor=actor or power_id)
    record(
        game,
        ArmyFeePaid,
        army_id=army_id,
        resource=resource,
        amount=amount,
        actor=actor or power_id,
        audience=army_owner(a),
    )


def desert_army(game: Game, army_id: str, to: str | None, reason: str) -> None:
    """GM: an army whose fee went unpaid deserts, and may join another power (P-SUP-3, a GM decision); so may one
    of a power that left its support unpaid at the end of Tidings (P-SUP-1)."""
    s = game.state
    a = army(s, army_id)
    limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
    support = s.armies.support.get(a["controller"] or "")
    unsupported = support is not None and support["season"] == s.season and support["paid"] is None
    if not a["fee_due"] and not unsupported:
        raise RuleViolation(f"{a['name']} is owed no fee: it has no cause to desert", rule="P-SUP-3")
    if to is not None:
        game.power(to)
    audience = [vis.PUBLIC] if visible(a) else vis.powers([p for p in (a["controller"], to) if p])
    record(game, ArmyDeserted, army_id=army_id, to=to, reason=reason.strip(), actor=GM, audience=audience)


# ---------------------------------------------------------------------- disbanding (P-SUP-1, P-ARMY-5)


def disband_army(game: Game, army_id: str, power_id: str, actor: str | None = None) -> None:
    """P-SUP-1: "At the start of each season, during Tidings, you may disband any of your loyal armies"; a levy is
    disbanded "a free action while in their origin town" (P-ARMY-5), its card kept."""
    s = game.state
    a = own_army(s, army_id, power_id)
    town = s.world.towns.get(a["origin_town"] or "")
    in_origin = town is not None and a["hex"] == town["hex"]
    paid = settled(s.armies, power_id, s.season)
    if not in_origin and not (a["loyal"] and s.step == "tidings" and not paid):
        raise RuleViolation(
            "a loyal army is disbanded at the start of Tidings (before support is settled), a levy in its origin town",
            rule="P-SUP-1" if a["loyal"] else "P-ARMY-5",
            field="army_id",
        )
    record(
        game, ArmyDisbanded, army_id=army_id, keep_card=in_origin, actor=actor or power_id, audience=army_audience(a)
    )
    if in_origin and town is not None:
        back = min(ar.depopulation(len(a["units"])), town["statuses"].get("depopulated", 0))
        if back:
            game._town_changed(
                town_id=a["origin_town"],
                kind="disband",
                effect={"statuses": {"depopulated": -back}},
                by=None,
                actor=SYSTEM,
                audience=[vis.PUBLIC],
            )


# ---------------------------------------------------------------------- events


class SupportBonusSet(ArmyEvent):
    power_id: str
    bonus: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.bonus[self.power_id] = self.bonus


class SupportSettled(ArmyEvent):
    power_id: str
    due: int
    paid: dict[str, int]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.support[self.power_id] = {"season": s.season, "due": self.due, "paid": dict(self.paid)}


class SupportUnpaid(ArmyEvent):
    power_id: str
    due: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.support[self.power_id] = {"season": s.season, "due": self.due, "paid": None}


class ArmyFeeDue(ArmyEvent):
    army_id: str
    coin: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army_id]["fee_due"] += self.coin


class ArmyFeePaid(ArmyEvent):
    army_id: str
    resource: str
    amount: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army_id]["fee_due"] = 0


class ArmyDeserted(ArmyEvent):
    army_id: str
    to: str | None
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        army = s.armies.armies[self.army_id]
        army.update({"controller": self.to, "fee_due": 0, "loyal": False, "seen_by": [], "level_up": None})
        if self.army_id in s.assets:
            s.assets[self.army_id].holders = [self.to] if self.to else []


class ArmyDisbanded(ArmyEvent):
    army_id: str
    keep_card: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        army = s.armies.armies.pop(self.army_id)
        if self.keep_card:
            s.armies.cards[self.army_id] = army
        if self.army_id in s.assets:
            s.assets[self.army_id].holders = []
