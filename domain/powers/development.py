"""Fame, development, ambitions and resources: wallets with a ledger, trades, perks and ambitions.

Every change of a wallet is an event with a reason (the ledger); a wallet never goes negative, and
a refusal names the rule that lets that resource be spent. Wallets, fame, trades, questions and an
ambition's details are the owner's and the GM's (P.4); perks, and the names and fame scores of
ambitions held, are public. Mana is the magic rules' (``PowerState.mana``): a favor spent on mana
records it through ``ManaGranted``, as any other gain of mana.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypedDict

from eventsourcing.domain import event

from domain import limits
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.platform.game import PlatformGame
from domain.powers import development_rules as dr
from domain.powers import magic_rules as mr
from domain.powers.magic import caps_of

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, Asset, GameState

# ---------------------------------------------------------------------- state


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


# ---------------------------------------------------------------------- the aggregate's part


class Development(PlatformGame):
    """Commands and events of wallets, trades, fame, development and ambitions (a base of ``Game``)."""

    if TYPE_CHECKING:  # events of Game this feature records through (asset and mana gains)
        power: Any  # the Game's (domain.powers.base): the platform reads a seat as ``seat``
        state: GameState
        _asset_granted: Callable[..., None]
        _mana_granted: Callable[..., None]
        _mana_channelled: Callable[..., None]
        # Magic's (action_id, power_id, now): a favor spent without a time passes now=None, which holds while no
        # Planning window is open
        _open_action: Callable[..., ActionState]

    # ------------------------------------------------------------------ queries

    def holdings(self, power_id: str) -> Holdings:
        """A power's wallet, perks and counters (empty until something is recorded)."""
        self.power(power_id)
        return self.state.development.holdings.get(power_id) or Holdings()

    def _who(self, power_id: str) -> str:
        return str(self.power(power_id).name)

    def _own(self, power_id: str) -> list[str]:
        return vis.powers([power_id])

    # ------------------------------------------------------------------ wallets (P-ASSET-9..11)

    def choose_control(self, power_id: str, resource: str, actor: str | None = None) -> None:
        """[003:263] A power uses Respect or Fear to exert control and starts with 3 of it (P-ASSET-10)."""
        h = self.holdings(power_id)
        if resource not in dr.CONTROL:
            raise RuleViolation("a power uses respect or fear to exert control", rule="P-ASSET-10", field="resource")
        if h.control is not None:
            raise RuleViolation(
                f"{self._who(power_id)} already uses {h.control}; the choice is made once",
                rule="P-ASSET-10",
                field="resource",
            )
        self._control_chosen(
            power_id=power_id, resource=resource, actor=actor or power_id, audience=self._own(power_id)
        )
        self._wallet_changed(
            power_id=power_id,
            changes={resource: dr.STARTING_CONTROL},
            reason=f"starts with {dr.STARTING_CONTROL} {resource} ([003:263])",
            actor=SYSTEM,
            audience=self._own(power_id),
        )

    @event("ControlChosen")
    def _control_chosen(self, power_id: str, resource: str, actor: str, audience: list[str]) -> None:
        self._fold_holdings(power_id).control = resource

    def adjust_resources(self, power_id: str, changes: dict[str, int], reason: str) -> None:
        """GM: credit or debit a wallet with a reason (fees, rewards, compensation, corrections: GM-18)."""
        limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
        changes = dr.check_changes(changes, dr.WALLET, "changes", signed=True)
        self._check_fame_earner(power_id, changes)
        dr.check_balance(self.holdings(power_id).wallet, changes, self._who(power_id))
        self._wallet_changed(
            power_id=power_id, changes=changes, reason=reason.strip(), actor=GM, audience=self._own(power_id)
        )

    def award_fame(self, power_id: str, amount: int, reason: str) -> None:
        """GM: fame for an ambition split, a playtest tip or helping the GM ([003:253]-[003:255], GM-18)."""
        limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
        changes = dr.check_changes({"fame": amount}, ("fame",), "amount", signed=False)
        self._check_fame_earner(power_id, changes)
        self._wallet_changed(
            power_id=power_id, changes=changes, reason=reason.strip(), actor=GM, audience=self._own(power_id)
        )

    def _check_fame_earner(self, power_id: str, changes: dict[str, int]) -> None:
        if changes.get("fame", 0) > 0 and dr.fame_reward(self.power(power_id).subclass, 1) == 0:
            raise RuleViolation("adversaries earn no fame", rule="P-AMBI-1", field="fame")

    def spend_resources(self, power_id: str, changes: dict[str, int], reason: str, actor: str | None = None) -> None:
        """P-ASSET-10: coin, respect and fear are spent (fees, bribes, costs), each spending with its reason."""
        limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
        for resource in changes if isinstance(changes, dict) else ():
            if resource in ("favor", "insight"):
                raise RuleViolation(
                    f"{resource} is spent on its own uses (a favor: mana, a miracle or a keyword; an insight: "
                    "a question to the GM)",
                    rule="P-ASSET-11",
                    field=f"changes.{resource}",
                )
        spent = dr.check_changes(changes, dr.SPENDABLE, "changes", signed=False)
        debit = {k: -v for k, v in spent.items()}
        dr.check_balance(self.holdings(power_id).wallet, debit, self._who(power_id))
        self._wallet_changed(
            power_id=power_id,
            changes=debit,
            reason=reason.strip(),
            actor=actor or power_id,
            audience=self._own(power_id),
        )

    def pay(self, power_id: str, changes: dict[str, int], reason: str, *, rule: str, actor: str) -> None:
        """Pay a cost from a wallet for another rule (a fee, P-ASSET-5; support, P-SUP-1; an action's cost,
        [003:146]): a shortfall is refused naming ``rule``, and nothing is recorded."""
        limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
        spent = dr.check_changes(changes, dr.SPENDABLE, "changes", signed=False)
        debit = {k: -v for k, v in spent.items()}
        try:
            dr.check_balance(self.holdings(power_id).wallet, debit, self._who(power_id))
        except RuleViolation as err:
            raise RuleViolation(f"{err.message} ({reason})", rule=rule, field=err.field) from None
        self._wallet_changed(
            power_id=power_id, changes=debit, reason=reason.strip(), actor=actor, audience=self._own(power_id)
        )

    def earn(self, power_id: str, resource: str, amount: int, reason: str, actor: str = SYSTEM) -> int:
        """A gain another rule computes (respect from Build and Train successes, fear from a battle or a slain
        agent: P-ASSET-10). Only powers that use respect gain respect, and likewise fear ([003:166]-[003:176]);
        returns what was credited."""
        limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
        dr.check_resource(resource, dr.RESOURCES, "resource")
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= dr.MAX_AMOUNT:
            raise RuleViolation(f"a gain is a whole number from 0 to {dr.MAX_AMOUNT}", field="amount")
        if amount == 0 or (resource in dr.CONTROL and self.holdings(power_id).control != resource):
            return 0
        self._wallet_changed(
            power_id=power_id,
            changes={resource: amount},
            reason=reason.strip(),
            actor=actor,
            audience=self._own(power_id),
        )
        return amount

    @event("WalletChanged")
    def _wallet_changed(
        self, power_id: str, changes: dict[str, int], reason: str, actor: str, audience: list[str]
    ) -> None:
        _credit(self._fold_holdings(power_id).wallet, changes)

    def _fold_holdings(self, power_id: str) -> Holdings:
        return self.state.development.holdings.setdefault(power_id, Holdings())

    # ------------------------------------------------------------------ favor and insight (P-ASSET-11)

    def spend_favor(
        self,
        power_id: str,
        use: str,
        *,
        question_id: str,
        element: str | None = None,
        request: str = "",
        action_id: str | None = None,
        now: datetime | None = None,
        actor: str | None = None,
    ) -> None:
        """P-ASSET-11: a favor buys 3 Light or Dark mana, or a miracle or premium keyword the GM grants.

        The mana goes into the power's store, up to its cap (P-MAG-1); spent during one of its actions
        (``action_id``, in Planning) it is that action's whatever the cap, spent in it or lost with it (P-AMB-37).
        """
        h = self.holdings(power_id)
        if use not in dr.FAVOR_USES:
            raise RuleViolation(
                f"a favor is spent on {', '.join(dr.FAVOR_USES)}; not {use!r}", rule="P-ASSET-11", field="use"
            )
        if use == "mana":
            element = dr.favor_element(element)
        if use != "mana":
            limits.check_text(request, "request", limits.REASON, required=True, what="what the favor asks for")
        if use != "mana" and action_id is not None:
            raise RuleViolation(
                f"only a favor's mana is held by an action; a {use} is the GM's to grant",
                rule="P-AMB-37",
                field="action_id",
            )
        dr.check_balance(h.wallet, {"favor": -1}, self._who(power_id))
        who = actor or power_id
        if use == "mana" and action_id is not None:
            self._open_action(action_id, power_id, now)
        elif use == "mana":
            try:
                mr.check_gain(self.power(power_id).mana, str(element), dr.FAVOR_MANA, caps_of(self.state, power_id))
            except RuleViolation as e:
                raise RuleViolation(
                    f"{e.message}: spend the favor during one of your actions (action_id) and its mana is that "
                    "action's, whatever your storage (P-AMB-37)",
                    rule="P-MAG-1",
                    field="element",
                ) from None
        if use == "mana":
            self._favor_spent(
                power_id=power_id,
                question_id=None,
                use=use,
                request=f"{dr.FAVOR_MANA} {dr.FAVOR_ELEMENTS[str(element)]} mana",
                actor=who,
                audience=self._own(power_id),
            )
            if action_id is not None:
                self._mana_channelled(
                    action_id=action_id,
                    power_id=power_id,
                    element=element,
                    amount=dr.FAVOR_MANA,
                    actor=who,
                    audience=self._own(power_id),
                )
            else:
                self._mana_granted(
                    power_id=power_id, element=element, amount=dr.FAVOR_MANA, actor=who, audience=self._own(power_id)
                )
        else:
            self._favor_spent(
                power_id=power_id,
                question_id=question_id,
                use=use,
                request=request.strip(),
                actor=who,
                audience=self._own(power_id),
            )

    @event("FavorSpent")
    def _favor_spent(
        self, power_id: str, question_id: str | None, use: str, request: str, actor: str, audience: list[str]
    ) -> None:
        _credit(self._fold_holdings(power_id).wallet, {"favor": -1})
        if question_id is not None:
            self.state.development.questions[question_id] = Question(question_id, power_id, use, request)

    def spend_insight(self, power_id: str, question_id: str, question: str, actor: str | None = None) -> None:
        """P-ASSET-11: an insight is spent when its follow-up question is asked; the GM answers (GM-21)."""
        limits.check_text(question, "question", limits.REASON, required=True, what="the question")
        dr.check_balance(self.holdings(power_id).wallet, {"insight": -1}, self._who(power_id))
        self._insight_spent(
            power_id=power_id,
            question_id=question_id,
            question=question.strip(),
            actor=actor or power_id,
            audience=self._own(power_id),
        )

    @event("InsightSpent")
    def _insight_spent(self, power_id: str, question_id: str, question: str, actor: str, audience: list[str]) -> None:
        _credit(self._fold_holdings(power_id).wallet, {"insight": -1})
        self.state.development.questions[question_id] = Question(question_id, power_id, "insight", question)

    def answer_question(self, question_id: str, answer: str) -> None:
        """GM: answer an insight's question or a favor's request."""
        q = self.state.development.questions.get(question_id)
        if q is None:
            raise NotFound(f"no question {question_id!r}", field="question_id")
        limits.check_text(answer, "answer", limits.GRANT_TEXT, required=True, what="the answer")
        if q.answer is not None:
            raise RuleViolation("this question has been answered", field="question_id")
        self._question_answered(question_id=question_id, answer=answer, actor=GM, audience=self._own(q.power))

    @event("QuestionAnswered")
    def _question_answered(self, question_id: str, answer: str, actor: str, audience: list[str]) -> None:
        self.state.development.questions[question_id].answer = answer

    # ------------------------------------------------------------------ trades (P-ASSET-10)

    def propose_trade(
        self,
        power_id: str,
        trade_id: str,
        to: str,
        give: dict[str, int],
        want: dict[str, int],
        note: str = "",
        actor: str | None = None,
    ) -> None:
        """Offer another power resources for resources; it moves only when the other side accepts.

        Respect and fear are never traded (P-ASSET-10); fame is spent only on development (P-DEV-1)."""
        self.power(to)
        if to == power_id:
            raise RuleViolation("a trade is between two powers", field="to")
        limits.check_text(note, "note", limits.REASON, what="a note")
        give = dr.check_changes(give, dr.TRADEABLE, "give", signed=False) if give else {}
        want = dr.check_changes(want, dr.TRADEABLE, "want", signed=False) if want else {}
        if not give and not want:
            raise RuleViolation("a trade gives or asks for something", field="give")
        dr.check_balance(self.holdings(power_id).wallet, {k: -v for k, v in give.items()}, self._who(power_id))
        self._trade_proposed(
            trade_id=trade_id,
            from_power=power_id,
            to=to,
            give=give,
            want=want,
            note=note,
            actor=actor or power_id,
            audience=vis.powers([power_id, to]),
        )

    @event("TradeProposed")
    def _trade_proposed(
        self,
        trade_id: str,
        from_power: str,
        to: str,
        give: dict[str, int],
        want: dict[str, int],
        note: str,
        actor: str,
        audience: list[str],
    ) -> None:
        self.state.development.trades[trade_id] = Trade(trade_id, from_power, to, dict(give), dict(want), note)

    def _open_trade(self, power_id: str, trade_id: str, side: str) -> Trade:
        t = self.state.development.trades.get(trade_id)
        if t is None or power_id not in (t.from_power, t.to):
            raise NotFound(f"no trade {trade_id!r} of yours", field="trade_id")
        if t.status != "open":
            raise RuleViolation(f"this trade was {t.status}", field="trade_id")
        mine = t.to if side == "to" else t.from_power
        if power_id != mine:
            verb = "accepts or declines" if side == "to" else "withdraws"
            whose = "the power it was offered to" if side == "to" else "the power that offered it"
            raise RuleViolation(f"only {whose} {verb} a trade", field="trade_id")
        return t

    def accept_trade(self, power_id: str, trade_id: str, actor: str | None = None) -> None:
        """The other side accepts: both sides move at once, if both wallets still hold what they give."""
        t = self._open_trade(power_id, trade_id, "to")
        try:
            dr.check_balance(
                self.holdings(t.from_power).wallet, {k: -v for k, v in t.give.items()}, self._who(t.from_power)
            )
        except RuleViolation as err:
            # The accepting power may learn the offer fails, never what the other wallet holds (P.4).
            raise RuleViolation(
                f"{self._who(t.from_power)} no longer holds what it offered; this trade cannot be accepted",
                rule=err.rule,
                field="trade_id",
            ) from None
        dr.check_balance(self.holdings(t.to).wallet, {k: -v for k, v in t.want.items()}, self._who(t.to))
        self._trade_accepted(trade_id=trade_id, actor=actor or power_id, audience=vis.powers([t.from_power, t.to]))

    @event("TradeAccepted")
    def _trade_accepted(self, trade_id: str, actor: str, audience: list[str]) -> None:
        t = self.state.development.trades[trade_id]
        t.status = "accepted"
        giver, taker = self._fold_holdings(t.from_power).wallet, self._fold_holdings(t.to).wallet
        _credit(giver, {k: -v for k, v in t.give.items()})
        _credit(taker, t.give)
        _credit(taker, {k: -v for k, v in t.want.items()})
        _credit(giver, t.want)

    def decline_trade(self, power_id: str, trade_id: str, actor: str | None = None) -> None:
        t = self._open_trade(power_id, trade_id, "to")
        self._trade_closed(
            trade_id=trade_id, status="declined", actor=actor or power_id, audience=vis.powers([t.from_power, t.to])
        )

    def withdraw_trade(self, power_id: str, trade_id: str, actor: str | None = None) -> None:
        t = self._open_trade(power_id, trade_id, "from")
        self._trade_closed(
            trade_id=trade_id, status="withdrawn", actor=actor or power_id, audience=vis.powers([t.from_power, t.to])
        )

    @event("TradeClosed")
    def _trade_closed(self, trade_id: str, status: str, actor: str, audience: list[str]) -> None:
        self.state.development.trades[trade_id].status = status

    # ------------------------------------------------------------------ development (P-DEV-1..6)

    def buy_development(
        self, power_id: str, kind: str, name: str, detail: str = "", asset_id: str = "", actor: str | None = None
    ) -> int:
        """Spend fame during Tidings (P-DEV-1) on a new skill (P-DEV-2), a skill rank (P-DEV-3), or a new
        perk or perk upgrade (P-DEV-4, P-DEV-5); returns the price paid."""
        ps = self.power(power_id)
        h = self.holdings(power_id)
        dr.check_tidings(self.state.step)
        limits.check_text(detail, "detail", limits.TITLE, what="the perk's choice")
        who = actor or power_id
        skill = _skill_of(self.state.assets, power_id, name) if kind in ("skill", "rank") else None
        if kind == "skill":
            taken = asset_id in self.state.assets
            price, rule, rank = dr.new_skill(ps.name, name, skill is not None, asset_id, taken, h.skills_bought)
        elif kind == "rank":
            price, rule, rank = dr.skill_rank(ps.name, name, None if skill is None else skill.rank)
            asset_id = skill.id if skill is not None else asset_id  # skill_rank refused it without one
        elif kind in ("perk", "upgrade"):
            perk = self._perk(name)
            price, rule, rank = dr.perk_price(h.perks_bought), "P-DEV-4", 0
            if kind == "perk":
                dr.check_perk(perk, ps.cls, ps.subclass, h.control, h.perks, detail, catalogue=self.perk_catalogue())
            else:
                held = _held_perk(h, name, detail)
                if not perk.upgrade:
                    raise RuleViolation(f"{name} has no upgrade", rule="P-DEV-4", field="name")
                if held["upgrades"]:
                    raise RuleViolation(f"{name} is already upgraded", rule="P-DEV-4", field="name")
        else:
            raise RuleViolation(
                "a development is a new skill ('skill'), a skill rank ('rank'), a new perk ('perk') or an "
                "upgrade ('upgrade')",
                rule="P-DEV-1",
                field="kind",
            )
        if h.wallet.get("fame", 0) < price:
            raise RuleViolation(
                f"this development costs {price} fame; {ps.name} has {h.wallet.get('fame', 0)}", rule=rule, field="fame"
            )
        self._development_bought(
            power_id=power_id,
            kind=kind,
            name=name,
            detail=detail,
            price=price,
            asset_id=asset_id,
            rank=rank,
            actor=who,
            audience=self._own(power_id),
        )
        if kind == "skill":
            self._asset_granted(
                asset_id=asset_id,
                power_id=power_id,
                name=name,
                cls="skill",
                rank=1,
                assured=False,
                critical=False,
                novel=False,
                actor=who,
                audience=self._own(power_id),
            )
        elif kind in ("perk", "upgrade"):
            self._perk_gained(
                power_id=power_id,
                name=name,
                detail=detail,
                upgrade=kind == "upgrade",
                starting=False,
                paid=price,
                actor=who,
                audience=[vis.PUBLIC],
            )
        return price

    @event("DevelopmentBought")
    def _development_bought(
        self,
        power_id: str,
        kind: str,
        name: str,
        detail: str,
        price: int,
        asset_id: str,
        rank: int,
        actor: str,
        audience: list[str],
    ) -> None:
        h = self._fold_holdings(power_id)
        _credit(h.wallet, {"fame": -price})
        if kind == "skill":
            h.skills_bought += 1
        elif kind == "rank":
            self.state.assets[asset_id].rank = rank
        else:
            h.perks_bought += 1

    def grant_perk(self, power_id: str, name: str, detail: str = "") -> None:
        """GM: a starting perk ([003:264]); free, and not counted by New Perk (P-DEV-4)."""
        ps, h = self.power(power_id), self.holdings(power_id)
        limits.check_text(detail, "detail", limits.TITLE, what="the perk's choice")
        dr.check_perk(
            self._perk(name), ps.cls, ps.subclass, h.control, h.perks, detail, catalogue=self.perk_catalogue()
        )
        self._perk_gained(
            power_id=power_id,
            name=name,
            detail=detail,
            upgrade=False,
            starting=True,
            paid=0,
            actor=GM,
            audience=[vis.PUBLIC],
        )

    @event("PerkGained")
    def _perk_gained(
        self,
        power_id: str,
        name: str,
        detail: str,
        upgrade: bool,
        starting: bool,
        paid: int,
        actor: str,
        audience: list[str],
    ) -> None:
        h = self._fold_holdings(power_id)
        if upgrade:
            held = next(p for p in h.perks if p["name"] == name and p["detail"] == detail)
            held["upgrades"] += 1
            held["paid"].append(paid)
        else:
            h.perks.append({"name": name, "detail": detail, "upgrades": 0, "starting": starting, "paid": [paid]})
        option = dr.PERK_OPTIONS.get(name)
        if option is not None:
            self.state.powers[power_id].options[option] = True

    def nerf_perk(self, power_id: str, name: str, detail: str = "", reason: str = "") -> None:
        """GM: a perk is nerfed; its power gets a 1 fame tip, and may refund or swap it (P-DEV-6)."""
        h = self.holdings(power_id)
        _held_perk(h, name, detail)
        limits.check_text(reason, "reason", limits.REASON, what="the reason")
        if any(n["name"] == name and n["detail"] == detail for n in h.nerfs):
            raise RuleViolation(f"{name} is already nerfed and awaits its power's choice", rule="P-DEV-6", field="name")
        self._perk_nerfed(
            power_id=power_id, name=name, detail=detail, reason=reason, actor=GM, audience=self._own(power_id)
        )
        if dr.fame_reward(self.power(power_id).subclass, 1):
            self._wallet_changed(
                power_id=power_id,
                changes={"fame": 1},
                reason=f"playtest tip: {name} was nerfed ([003:253])",
                actor=GM,
                audience=self._own(power_id),
            )

    @event("PerkNerfed")
    def _perk_nerfed(self, power_id: str, name: str, detail: str, reason: str, actor: str, audience: list[str]) -> None:
        self._fold_holdings(power_id).nerfs.append({"name": name, "detail": detail, "reason": reason})

    def settle_nerf(
        self,
        power_id: str,
        name: str,
        choice: str,
        detail: str = "",
        swap_to: str = "",
        swap_detail: str = "",
        actor: str | None = None,
    ) -> None:
        """P-DEV-6: the power keeps a nerfed perk, refunds what it paid, or exchanges it for a perk of
        the catalogue it may take (P-DEV-5), at no new cost and without counting as a purchase."""
        ps, h = self.power(power_id), self.holdings(power_id)
        if not any(n["name"] == name and n["detail"] == detail for n in h.nerfs):
            raise RuleViolation(f"{name} has not been nerfed", rule="P-DEV-6", field="name")
        held = _held_perk(h, name, detail)
        if choice not in ("keep", "refund", "swap"):
            raise RuleViolation("a nerfed perk is kept, refunded or swapped", rule="P-DEV-6", field="choice")
        if choice == "swap":
            limits.check_text(swap_detail, "swap_detail", limits.TITLE, what="the perk's choice")
            perk = self._perk(swap_to, field_name="swap_to")
            if perk.name == name:
                raise RuleViolation("swap a nerfed perk for another perk", rule="P-DEV-6", field="swap_to")
            if held["upgrades"] and not perk.upgrade:
                raise RuleViolation(
                    f"{name} is upgraded: swap it for a perk with an upgrade, a similarly costed object",
                    rule="P-DEV-6",
                    field="swap_to",
                )
            dr.check_perk(
                perk,
                ps.cls,
                ps.subclass,
                h.control,
                h.perks,
                swap_detail,
                catalogue=self.perk_catalogue(),
                swap_from=name,
            )
        who = actor or power_id
        self._nerf_settled(
            power_id=power_id, name=name, detail=detail, choice=choice, actor=who, audience=self._own(power_id)
        )
        if choice == "keep":
            return
        self._perk_lost(
            power_id=power_id, name=name, detail=detail, reason=f"nerfed: {choice}", actor=who, audience=[vis.PUBLIC]
        )
        if choice == "refund":
            refund = sum(held["paid"])
            if refund:
                self._wallet_changed(
                    power_id=power_id,
                    changes={"fame": refund},
                    reason=f"refund of the nerfed {name} ([003:253])",
                    actor=who,
                    audience=self._own(power_id),
                )
            return
        self._perk_gained(
            power_id=power_id,
            name=swap_to,
            detail=swap_detail,
            upgrade=False,
            starting=held["starting"],
            paid=held["paid"][0],
            actor=who,
            audience=[vis.PUBLIC],
        )
        if held["upgrades"]:
            self._perk_gained(
                power_id=power_id,
                name=swap_to,
                detail=swap_detail,
                upgrade=True,
                starting=held["starting"],
                paid=held["paid"][-1],
                actor=who,
                audience=[vis.PUBLIC],
            )

    @event("NerfSettled")
    def _nerf_settled(
        self, power_id: str, name: str, detail: str, choice: str, actor: str, audience: list[str]
    ) -> None:
        h = self._fold_holdings(power_id)
        h.nerfs = [n for n in h.nerfs if not (n["name"] == name and n["detail"] == detail)]

    @event("PerkLost")
    def _perk_lost(self, power_id: str, name: str, detail: str, reason: str, actor: str, audience: list[str]) -> None:
        h = self._fold_holdings(power_id)
        h.perks = [p for p in h.perks if not (p["name"] == name and p["detail"] == detail)]
        option = dr.PERK_OPTIONS.get(name)
        if option is not None and not any(p["name"] == name for p in h.perks):
            self.state.powers[power_id].options.pop(option, None)

    def perk_catalogue(self) -> dict[str, dr.Perk]:
        """The rules' perks and those the GM added to this game (P-DEV-5, P-AMB-42)."""
        return {**dr.PERKS, **{n: dr.Perk(**spec) for n, spec in self.state.development.perks.items()}}

    def define_perk(
        self, name: str, group: str, *, upgrade: bool = False, repeatable: bool = False, versus: str | None = None
    ) -> None:
        """GM: add a perk the rules text lacks or a house perk (P-AMB-42); perks are public (P.4)."""
        limits.check_text(name, "name", limits.ASSET_NAME, required=True, what="a perk's name")
        name = name.strip()
        dr.check_perk_definition(name, group, versus, self.perk_catalogue())
        self._perk_defined(
            name=name,
            group=group,
            upgrade=bool(upgrade),
            repeatable=bool(repeatable),
            versus=versus,
            actor=GM,
            audience=[vis.PUBLIC],
        )

    @event("PerkDefined")
    def _perk_defined(
        self,
        name: str,
        group: str,
        upgrade: bool,
        repeatable: bool,
        versus: str | None,
        actor: str,
        audience: list[str],
    ) -> None:
        self.state.development.perks[name] = {
            "name": name,
            "group": group,
            "upgrade": upgrade,
            "repeatable": repeatable,
            "versus": versus,
        }

    def _perk(self, name: str, field_name: str = "name") -> dr.Perk:
        perk = self.perk_catalogue().get(name)
        if perk is None:
            raise RuleViolation(f"{name!r} is not a perk of the catalogue", rule="P-DEV-5", field=field_name)
        return perk

    # ------------------------------------------------------------------ ambitions (P-AMBI-1)

    def offer_ambition(
        self,
        power_id: str,
        ambition_id: str,
        name: str,
        kind: str,
        fame: int,
        required: int,
        tasks: list[dict[str, Any]],
        *,
        type: str = "",
        reward: dict[str, int] | None = None,
        reward_text: str = "",
        compensation: dict[str, int] | None = None,
    ) -> None:
        """GM: offer (or write down a proposed) ambition (GM-11); ❓ task texts go to the GM alone."""
        self.power(power_id)
        limits.check_text(name, "name", limits.TITLE, required=True, what="an ambition's name")
        limits.check_text(type, "type", limits.IDENTIFIER, what="an ambition's type")
        limits.check_text(reward_text, "reward_text", limits.REASON, what="the reward")
        if not isinstance(tasks, list) or not 1 <= len(tasks) <= limits.ITEMS:
            raise RuleViolation(f"an ambition lists 1 to {limits.ITEMS} tasks", rule="P-AMBI-1", field="tasks")
        clean = []
        for i, t in enumerate(tasks):
            if not isinstance(t, dict):
                raise RuleViolation("each task is an object with its text", field=f"tasks.{i}")
            limits.check_text(t.get("text"), f"tasks.{i}.text", limits.TITLE, required=True, what="a task")
            clean.append(
                {
                    "id": f"t{i + 1}",
                    "text": t["text"].strip(),
                    "central": bool(t.get("central")),
                    "mysterious": bool(t.get("mysterious")),
                }
            )
        dr.check_ambition(kind, fame, required, clean)
        # The fame an ambition gives is its score; reward and compensation are resources ([003:190]-[003:208]).
        reward = dr.check_changes(reward, dr.RESOURCES, "reward", signed=False) if reward else {}
        compensation = (
            dr.check_changes(compensation, dr.RESOURCES, "compensation", signed=False) if compensation else {}
        )
        self._ambition_offered(
            ambition_id=ambition_id,
            power_id=power_id,
            name=name.strip(),
            kind=kind,
            type=type.strip(),
            fame=fame,
            required=required,
            tasks=[{**t, "text": None if t["mysterious"] else t["text"]} for t in clean],
            reward=reward,
            reward_text=reward_text.strip(),
            compensation=compensation,
            actor=GM,
            audience=self._own(power_id),
        )
        mysteries = {t["id"]: t["text"] for t in clean if t["mysterious"]}
        if mysteries:
            self._mysteries_recorded(ambition_id=ambition_id, texts=mysteries, actor=GM, audience=[vis.GM_ONLY])

    @event("AmbitionOffered")
    def _ambition_offered(
        self,
        ambition_id: str,
        power_id: str,
        name: str,
        kind: str,
        type: str,
        fame: int,
        required: int,
        tasks: list[dict[str, Any]],
        reward: dict[str, int],
        reward_text: str,
        compensation: dict[str, int],
        actor: str,
        audience: list[str],
    ) -> None:
        self.state.development.ambitions[ambition_id] = Ambition(
            id=ambition_id,
            power=power_id,
            name=name,
            kind=kind,
            type=type,
            fame=fame,
            required=required,
            tasks=[
                Task(t["id"], t["text"], t["central"], t["mysterious"], revealed=not t["mysterious"]) for t in tasks
            ],
            reward=dict(reward),
            reward_text=reward_text,
            compensation=dict(compensation),
        )

    @event("AmbitionMysteriesRecorded")
    def _mysteries_recorded(self, ambition_id: str, texts: dict[str, str], actor: str, audience: list[str]) -> None:
        for t in self.state.development.ambitions[ambition_id].tasks:
            if t.id in texts:
                t.text = texts[t.id]

    def _ambition(self, ambition_id: str, power_id: str | None = None) -> Ambition:
        a = self.state.development.ambitions.get(ambition_id)
        if a is None or (power_id is not None and a.power != power_id):
            raise NotFound(f"no ambition {ambition_id!r}" + (" of yours" if power_id else ""), field="ambition_id")
        return a

    def accept_ambition(self, power_id: str, ambition_id: str, actor: str | None = None) -> None:
        """Take an offered ambition, if a slot is free (P-AMBI-1); its name and score become public."""
        a = self._ambition(ambition_id, power_id)
        if a.status != "offered":
            raise RuleViolation(f"this ambition is {a.status}, not offered", rule="P-AMBI-1", field="ambition_id")
        held = [
            x.kind for x in self.state.development.ambitions.values() if x.power == power_id and x.status == "active"
        ]
        dr.check_slot(a.kind, self.power(power_id).subclass, held, starting=self.state.step == "setup")
        who = actor or power_id
        self._ambition_taken(
            ambition_id=ambition_id,
            power_id=power_id,
            name=a.name,
            kind=a.kind,
            fame=a.fame,
            actor=who,
            audience=[vis.PUBLIC],
        )
        if a.compensation:
            self._wallet_changed(
                power_id=power_id,
                changes=dict(a.compensation),
                reason=f"compensation for taking the ambition {a.name!r} ([003:190])",
                actor=SYSTEM,
                audience=self._own(power_id),
            )

    @event("AmbitionTaken")
    def _ambition_taken(
        self, ambition_id: str, power_id: str, name: str, kind: str, fame: int, actor: str, audience: list[str]
    ) -> None:
        self.state.development.ambitions[ambition_id].status = "active"

    def decline_ambition(self, power_id: str, ambition_id: str, actor: str | None = None) -> None:
        a = self._ambition(ambition_id, power_id)
        if a.status != "offered":
            raise RuleViolation(f"this ambition is {a.status}, not offered", rule="P-AMBI-1", field="ambition_id")
        self._ambition_declined(ambition_id=ambition_id, actor=actor or power_id, audience=self._own(power_id))

    @event("AmbitionDeclined")
    def _ambition_declined(self, ambition_id: str, actor: str, audience: list[str]) -> None:
        self.state.development.ambitions[ambition_id].status = "declined"

    def abandon_ambition(self, power_id: str, ambition_id: str, actor: str | None = None) -> None:
        """P-AMBI-1: a power may abandon an ambition at any time."""
        a = _active(self._ambition(ambition_id, power_id))
        self._end(a, "abandoned", "abandoned by its power", actor or power_id)

    def complete_task(self, ambition_id: str, task_id: str, fame: int | None = None) -> None:
        """GM confirms a task done (GM-11). A ❓ task after it is revealed to its power; N ❗ tasks done
        achieve the ambition: its fame (``fame``: a share, when powers split it, [003:192]) and reward."""
        a = _active(self._ambition(ambition_id))
        t = _open_task(a, task_id)
        if t.mysterious and not t.revealed:
            raise RuleViolation("a ❓ task is done only once it is revealed", rule="P-AMBI-1", field="task_id")
        if fame is not None and (isinstance(fame, bool) or not 0 <= fame <= a.fame):
            raise RuleViolation(f"a share of this ambition's fame is 0 to {a.fame}", rule="P-AMBI-1", field="fame")
        self._task_changed(
            ambition_id=ambition_id, task_id=task_id, status="done", reason="", actor=GM, audience=self._own(a.power)
        )
        index = a.tasks.index(t)
        if index + 1 < len(a.tasks):
            nxt = a.tasks[index + 1]
            if nxt.mysterious and not nxt.revealed:
                self._task_revealed(
                    ambition_id=ambition_id, task_id=nxt.id, text=nxt.text, actor=SYSTEM, audience=self._own(a.power)
                )
        if dr.ambition_outcome(a.required, _task_dicts(a)) == "achieved":
            share = a.fame if fame is None else fame
            gained = dr.fame_reward(self.power(a.power).subclass, share)
            self._end(a, "achieved", f"{a.required} ❗ task{'s' if a.required > 1 else ''} done", GM, fame=gained)
            changes = {**({"fame": gained} if gained else {}), **a.reward}
            if changes:
                self._wallet_changed(
                    power_id=a.power,
                    changes=changes,
                    reason=f"ambition achieved: {a.name}",
                    actor=SYSTEM,
                    audience=self._own(a.power),
                )
        else:
            self._fail_if_impossible(a)

    def lose_task(self, ambition_id: str, task_id: str, reason: str) -> None:
        """GM: a task can no longer be done by this power (another power did it without substantial help,
        or it became impossible; GM-11). The ambition fails when too few ❗ tasks are left (P-AMBI-1)."""
        a = _active(self._ambition(ambition_id))
        _open_task(a, task_id)
        limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
        self._task_changed(
            ambition_id=ambition_id,
            task_id=task_id,
            status="lost",
            reason=reason.strip(),
            actor=GM,
            audience=self._own(a.power),
        )
        self._fail_if_impossible(a)

    def _fail_if_impossible(self, a: Ambition) -> None:
        if dr.ambition_outcome(a.required, _task_dicts(a)) == "failed":
            self._end(a, "failed", f"fewer than {a.required} ❗ tasks can still be done", SYSTEM)

    @event("AmbitionTaskChanged")
    def _task_changed(
        self, ambition_id: str, task_id: str, status: str, reason: str, actor: str, audience: list[str]
    ) -> None:
        a = self.state.development.ambitions[ambition_id]
        next(t for t in a.tasks if t.id == task_id).status = status

    @event("AmbitionTaskRevealed")
    def _task_revealed(self, ambition_id: str, task_id: str, text: str | None, actor: str, audience: list[str]) -> None:
        t = next(t for t in self.state.development.ambitions[ambition_id].tasks if t.id == task_id)
        t.revealed, t.text = True, text

    def _end(self, a: Ambition, outcome: str, reason: str, actor: str, fame: int = 0) -> None:
        self._ambition_ended(
            ambition_id=a.id, outcome=outcome, reason=reason, fame=fame, actor=actor, audience=self._own(a.power)
        )
        # The table knew the ambition was held: it learns it is no longer, not how it ended (P.4).
        self._ambition_closed(ambition_id=a.id, power_id=a.power, actor=SYSTEM, audience=[vis.PUBLIC])

    @event("AmbitionEnded")
    def _ambition_ended(
        self, ambition_id: str, outcome: str, reason: str, fame: int, actor: str, audience: list[str]
    ) -> None:
        a = self.state.development.ambitions[ambition_id]
        a.status, a.fame_awarded = outcome, fame

    @event("AmbitionClosed")
    def _ambition_closed(self, ambition_id: str, power_id: str, actor: str, audience: list[str]) -> None:
        pass


def _credit(wallet: dict[str, int], changes: Mapping[str, int]) -> None:
    for resource, amount in changes.items():
        wallet[resource] = wallet.get(resource, 0) + amount


def _task_dicts(a: Ambition) -> list[dict[str, Any]]:
    return [{"central": t.central, "status": t.status} for t in a.tasks]


# ---------------------------------------------------------------------- views (P.4)


def development_view(game: Game, viewer: str) -> dict[str, Any]:
    """What ``viewer`` may see: every power's perks and the names and scores of ambitions held (public);
    its own wallet, counters, prices, ambitions (❓ tasks hidden until revealed), trades and questions.
    The GM sees every power's."""
    d = game.state.development
    out: dict[str, Any] = {
        "perks": {
            pid: [_perk_view(p) for p in d.holdings[pid].perks] for pid in sorted(d.holdings) if d.holdings[pid].perks
        },
        "ambitions": [
            {"ambition_id": a.id, "power": a.power, "name": a.name, "kind": a.kind, "fame": a.fame}
            for a in sorted(d.ambitions.values(), key=lambda a: a.id)
            if a.status == "active"
        ],
    }
    if viewer == GM:
        out["sheets"] = {pid: _own_view(game, pid, gm=True) for pid in sorted(game.state.powers)}
    elif viewer in game.state.powers:
        out["mine"] = _own_view(game, viewer, gm=False)
    return out


def _perk_view(p: HeldPerk) -> dict[str, Any]:
    return {"name": p["name"], "detail": p["detail"], "upgrades": p["upgrades"], "starting": p["starting"]}


def _own_view(game: Game, power_id: str, *, gm: bool) -> dict[str, Any]:
    d = game.state.development
    h = d.holdings.get(power_id) or Holdings()
    skills = {
        a.name: {"rank": a.rank, "next_rank_price": dr.skill_rank_price(a.rank + 1)}
        for a in sorted(game.state.assets.values(), key=lambda a: a.id)
        if a.cls == "skill" and power_id in a.holders
    }
    return {
        "wallet": {r: h.wallet.get(r, 0) for r in dr.WALLET},
        "control": h.control,
        "development": {
            "skills_bought": h.skills_bought,
            "perks_bought": h.perks_bought,
            "new_skill_price": dr.new_skill_price(h.skills_bought),
            "new_perk_price": dr.perk_price(h.perks_bought),
            "skills": skills,
            "open": game.state.step == "tidings",
        },
        "nerfs": [dict(n) for n in h.nerfs],
        "ambitions": [
            _ambition_view(a, gm=gm) for a in sorted(d.ambitions.values(), key=lambda a: a.id) if a.power == power_id
        ],
        "trades": [
            {
                "trade_id": t.id,
                "from": t.from_power,
                "to": t.to,
                "give": dict(t.give),
                "want": dict(t.want),
                "note": t.note,
                "status": t.status,
            }
            for t in sorted(d.trades.values(), key=lambda t: t.id)
            if power_id in (t.from_power, t.to)
        ],
        "questions": [
            {"question_id": q.id, "kind": q.kind, "text": q.text, "answer": q.answer}
            for q in sorted(d.questions.values(), key=lambda q: q.id)
            if q.power == power_id
        ],
    }


def _ambition_view(a: Ambition, *, gm: bool) -> dict[str, Any]:
    return {
        "ambition_id": a.id,
        "name": a.name,
        "kind": a.kind,
        "type": a.type,
        "fame": a.fame,
        "required": a.required,
        "status": a.status,
        "reward": dict(a.reward),
        "reward_text": a.reward_text,
        "compensation": dict(a.compensation),
        "fame_awarded": a.fame_awarded,
        "tasks": [
            {"task_id": t.id, "text": t.text, "central": t.central, "mysterious": t.mysterious, "status": t.status}
            if gm or t.revealed
            else {"task_id": t.id, "locked": True, "central": t.central, "mysterious": True}
            for t in a.tasks
        ],
    }


def _held_perk(h: Holdings, name: str, detail: str) -> HeldPerk:
    """The perk ``name`` (with its choice ``detail``) the holdings hold, or refused."""
    for p in h.perks:
        if p["name"] == name and p["detail"] == detail:
            return p
    raise RuleViolation(f"this power has no perk {name!r}" + (f" ({detail})" if detail else ""), field="name")


def _skill_of(assets: Mapping[str, Asset], power_id: str, name: str) -> Asset | None:
    """The power's skill asset ``name`` (the first by id), or None."""
    return next(
        (
            a
            for a in sorted(assets.values(), key=lambda a: a.id)
            if a.cls == "skill" and a.name == name and power_id in a.holders
        ),
        None,
    )


def _active(a: Ambition) -> Ambition:
    """P-AMBI-1: the ambition, refused unless its power holds it."""
    if a.status != "active":
        raise RuleViolation(f"this ambition is {a.status}, not held", rule="P-AMBI-1", field="ambition_id")
    return a


def _open_task(a: Ambition, task_id: str) -> Task:
    """The ambition's task ``task_id``, refused unless it is still open (P-AMBI-1)."""
    for t in a.tasks:
        if t.id == task_id:
            if t.status != "open":
                raise RuleViolation(f"task {task_id} is already {t.status}", rule="P-AMBI-1", field="task_id")
            return t
    raise NotFound(f"no task {task_id!r} in this ambition", field="task_id")


# ---------------------------------------------------------------------- commands


@dataclass(frozen=True)
class ChooseControl(Command):
    """Use Respect or Fear to exert control, starting with 3 of it ([003:263], P-ASSET-10)."""

    power_id: str
    resource: str


@dataclass(frozen=True)
class AdjustResources(Command):
    """GM: credit (or, negative, debit) a power's wallet, with the reason (GM-18)."""

    power_id: str
    changes: dict[str, int]
    reason: str


@dataclass(frozen=True)
class SpendResources(Command):
    """Spend coin, respect or fear, with the reason (P-ASSET-10)."""

    power_id: str
    changes: dict[str, int]
    reason: str


@dataclass(frozen=True)
class ProposeTrade(Command):
    """Offer another power coin, favor or insight for coin, favor or insight (P-ASSET-10)."""

    power_id: str
    to: str
    give: dict[str, int] = field(default_factory=dict)
    want: dict[str, int] = field(default_factory=dict)
    note: str = ""


@dataclass(frozen=True)
class AcceptTrade(Command):
    """Accept a trade offered to one's power: both sides move at once."""

    power_id: str
    trade_id: str


@dataclass(frozen=True)
class DeclineTrade(Command):
    """Decline a trade offered to one's power."""

    power_id: str
    trade_id: str


@dataclass(frozen=True)
class WithdrawTrade(Command):
    """Withdraw a trade one's power offered."""

    power_id: str
    trade_id: str


@dataclass(frozen=True)
class SpendFavor(Command):
    """Spend a favor: 3 Light or Dark mana, a miracle, or a premium keyword (P-ASSET-11)."""

    power_id: str
    use: str
    element: str | None = None
    request: str = ""
    action_id: str | None = None  # mana spent during this action of the power's (P-AMB-37)


@dataclass(frozen=True)
class SpendInsight(Command):
    """Spend an insight on a follow-up question to the GM (P-ASSET-11, GM-21)."""

    power_id: str
    question: str


@dataclass(frozen=True)
class AnswerQuestion(Command):
    """GM: answer an insight's question or a favor's request."""

    question_id: str
    answer: str


@dataclass(frozen=True)
class AwardFame(Command):
    """GM: fame with its reason (a share of an ambition, a playtest tip, helping the GM: GM-18)."""

    power_id: str
    amount: int
    reason: str


@dataclass(frozen=True)
class BuyDevelopment(Command):
    """Spend fame during Tidings: kind 'skill', 'rank', 'perk' or 'upgrade' (P-DEV-1..5)."""

    power_id: str
    kind: str
    name: str
    detail: str = ""


@dataclass(frozen=True)
class GrantPerk(Command):
    """GM: a starting perk, free and not counted (P-DEV-4, [003:264])."""

    power_id: str
    name: str
    detail: str = ""


@dataclass(frozen=True)
class DefinePerk(Command):
    """GM: add a perk to this game's catalogue, with the group that decides who may take it (P-DEV-5)."""

    name: str
    group: str
    upgrade: bool = False
    repeatable: bool = False
    versus: str | None = None


@dataclass(frozen=True)
class NerfPerk(Command):
    """GM: nerf a power's perk; the power gets a 1 fame tip and chooses what to do (P-DEV-6)."""

    power_id: str
    name: str
    detail: str = ""
    reason: str = ""


@dataclass(frozen=True)
class SettleNerf(Command):
    """Keep, refund or swap a nerfed perk (P-DEV-6)."""

    power_id: str
    name: str
    choice: str
    detail: str = ""
    swap_to: str = ""
    swap_detail: str = ""


@dataclass(frozen=True)
class OfferAmbition(Command):
    """GM: offer an ambition (GM-11); tasks are {"text", "central", "mysterious"} (P-AMBI-1)."""

    power_id: str
    name: str
    kind: str
    fame: int
    required: int
    tasks: list[dict[str, Any]]
    type: str = ""
    reward: dict[str, int] = field(default_factory=dict)
    reward_text: str = ""
    compensation: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class AcceptAmbition(Command):
    """Take an offered ambition (P-AMBI-1)."""

    power_id: str
    ambition_id: str


@dataclass(frozen=True)
class DeclineAmbition(Command):
    """Decline an offered ambition."""

    power_id: str
    ambition_id: str


@dataclass(frozen=True)
class AbandonAmbition(Command):
    """Abandon a held ambition, at any time (P-AMBI-1)."""

    power_id: str
    ambition_id: str


@dataclass(frozen=True)
class CompleteTask(Command):
    """GM: a task of an ambition is done; ``fame`` is this power's share when several split it."""

    ambition_id: str
    task_id: str
    fame: int | None = None


@dataclass(frozen=True)
class LoseTask(Command):
    """GM: a task can no longer be done by this power (P-AMBI-1)."""

    ambition_id: str
    task_id: str
    reason: str


def choose_control(game: Game, cmd: ChooseControl, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.choose_control(cmd.power_id, cmd.resource, actor=ctx.principal)


def adjust_resources(game: Game, cmd: AdjustResources, ctx: Context) -> None:
    require_gm(ctx)
    game.adjust_resources(cmd.power_id, dict(cmd.changes), cmd.reason)


def spend_resources(game: Game, cmd: SpendResources, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.spend_resources(cmd.power_id, dict(cmd.changes), cmd.reason, actor=ctx.principal)


def propose_trade(game: Game, cmd: ProposeTrade, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    trade_id = ctx.new_id("trade")
    game.propose_trade(cmd.power_id, trade_id, cmd.to, dict(cmd.give), dict(cmd.want), cmd.note, actor=ctx.principal)
    return {"trade_id": trade_id}


def accept_trade(game: Game, cmd: AcceptTrade, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.accept_trade(cmd.power_id, cmd.trade_id, actor=ctx.principal)


def decline_trade(game: Game, cmd: DeclineTrade, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.decline_trade(cmd.power_id, cmd.trade_id, actor=ctx.principal)


def withdraw_trade(game: Game, cmd: WithdrawTrade, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.withdraw_trade(cmd.power_id, cmd.trade_id, actor=ctx.principal)


def spend_favor(game: Game, cmd: SpendFavor, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    qid = ctx.new_id("favor")
    game.spend_favor(
        cmd.power_id,
        cmd.use,
        question_id=qid,
        element=cmd.element,
        request=cmd.request,
        action_id=cmd.action_id,
        now=ctx.now,
        actor=ctx.principal,
    )
    return {"question_id": qid} if cmd.use != "mana" else {}


def spend_insight(game: Game, cmd: SpendInsight, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    qid = ctx.new_id("insight")
    game.spend_insight(cmd.power_id, qid, cmd.question, actor=ctx.principal)
    return {"question_id": qid}


def answer_question(game: Game, cmd: AnswerQuestion, ctx: Context) -> None:
    require_gm(ctx)
    game.answer_question(cmd.question_id, cmd.answer)


def award_fame(game: Game, cmd: AwardFame, ctx: Context) -> None:
    require_gm(ctx)
    game.award_fame(cmd.power_id, cmd.amount, cmd.reason)


def buy_development(game: Game, cmd: BuyDevelopment, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    asset_id = ctx.new_id("skill") if cmd.kind == "skill" else ""
    price = game.buy_development(cmd.power_id, cmd.kind, cmd.name, cmd.detail, asset_id, actor=ctx.principal)
    return {"price": price, **({"asset_id": asset_id} if asset_id else {})}


def grant_perk(game: Game, cmd: GrantPerk, ctx: Context) -> None:
    require_gm(ctx)
    game.grant_perk(cmd.power_id, cmd.name, cmd.detail)


def define_perk(game: Game, cmd: DefinePerk, ctx: Context) -> None:
    require_gm(ctx)
    game.define_perk(cmd.name, cmd.group, upgrade=cmd.upgrade, repeatable=cmd.repeatable, versus=cmd.versus)


def nerf_perk(game: Game, cmd: NerfPerk, ctx: Context) -> None:
    require_gm(ctx)
    game.nerf_perk(cmd.power_id, cmd.name, cmd.detail, cmd.reason)


def settle_nerf(game: Game, cmd: SettleNerf, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.settle_nerf(cmd.power_id, cmd.name, cmd.choice, cmd.detail, cmd.swap_to, cmd.swap_detail, actor=ctx.principal)


def offer_ambition(game: Game, cmd: OfferAmbition, ctx: Context) -> dict[str, Any]:
    require_gm(ctx)
    aid = ctx.new_id("amb")
    game.offer_ambition(
        cmd.power_id,
        aid,
        cmd.name,
        cmd.kind,
        cmd.fame,
        cmd.required,
        list(cmd.tasks),
        type=cmd.type,
        reward=dict(cmd.reward),
        reward_text=cmd.reward_text,
        compensation=dict(cmd.compensation),
    )
    return {"ambition_id": aid}


def accept_ambition(game: Game, cmd: AcceptAmbition, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.accept_ambition(cmd.power_id, cmd.ambition_id, actor=ctx.principal)


def decline_ambition(game: Game, cmd: DeclineAmbition, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.decline_ambition(cmd.power_id, cmd.ambition_id, actor=ctx.principal)


def abandon_ambition(game: Game, cmd: AbandonAmbition, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.abandon_ambition(cmd.power_id, cmd.ambition_id, actor=ctx.principal)


def complete_task(game: Game, cmd: CompleteTask, ctx: Context) -> None:
    require_gm(ctx)
    game.complete_task(cmd.ambition_id, cmd.task_id, cmd.fame)


def lose_task(game: Game, cmd: LoseTask, ctx: Context) -> None:
    require_gm(ctx)
    game.lose_task(cmd.ambition_id, cmd.task_id, cmd.reason)


DEVELOPMENT_COMMANDS: Mapping[type, Handler] = {
    ChooseControl: choose_control,
    AdjustResources: adjust_resources,
    SpendResources: spend_resources,
    ProposeTrade: propose_trade,
    AcceptTrade: accept_trade,
    DeclineTrade: decline_trade,
    WithdrawTrade: withdraw_trade,
    SpendFavor: spend_favor,
    SpendInsight: spend_insight,
    AnswerQuestion: answer_question,
    AwardFame: award_fame,
    BuyDevelopment: buy_development,
    GrantPerk: grant_perk,
    DefinePerk: define_perk,
    NerfPerk: nerf_perk,
    SettleNerf: settle_nerf,
    OfferAmbition: offer_ambition,
    AcceptAmbition: accept_ambition,
    DeclineAmbition: decline_ambition,
    AbandonAmbition: abandon_ambition,
    CompleteTask: complete_task,
    LoseTask: lose_task,
}
