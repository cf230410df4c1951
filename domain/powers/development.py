"""Fame, development, ambitions and resources: wallets with a ledger, trades, perks and ambitions.

Every change of a wallet is an event with a reason (the ledger); a wallet never goes negative, and
a refusal names the rule that lets that resource be spent. Wallets, fame, trades, questions and an
ambition's details are the owner's and the GM's (P.4); perks, and the names and fame scores of
ambitions held, are public. Mana is the magic rules' (``PowerState.mana``): a favor spent on mana
records it through ``ManaGranted``, as any other gain of mana.

``Development`` is development's part of a Powers game (a base of ``Game``): it names development's events, each
declared and folded in its sub-domain's module (``development_state`` lists them, with the state they fold), and
delegates each command to the module that decides it. The commands and the view are here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from domain.ids import GM, SYSTEM
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.platform.game import PlatformGame
from domain.powers import development_ambitions as ambitions
from domain.powers import development_perks as perks
from domain.powers import development_rules as dr
from domain.powers import development_trades as trades
from domain.powers import development_wallets as wallets
from domain.powers.development_state import DEVELOPMENT_TYPES as DEVELOPMENT_TYPES
from domain.powers.development_state import Ambition as Ambition
from domain.powers.development_state import DevelopmentState as DevelopmentState
from domain.powers.development_state import HeldPerk as HeldPerk
from domain.powers.development_state import Holdings as Holdings
from domain.powers.development_state import Nerf as Nerf
from domain.powers.development_state import Question as Question
from domain.powers.development_state import Task as Task
from domain.powers.development_state import Trade as Trade
from domain.powers.development_state import record

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


class Development(PlatformGame):
    """Commands and events of wallets, trades, fame, development and ambitions (a base of ``Game``)."""

    if TYPE_CHECKING:
        state: GameState

    # The events, each declared and folded in its sub-domain's module; named here, each is redefined by the
    # library as Development.<Name>, the topic its stored events have always had.
    # wallets, favor and insight
    ControlChosen = wallets.ControlChosen
    WalletChanged = wallets.WalletChanged
    FavorSpent = wallets.FavorSpent
    InsightSpent = wallets.InsightSpent
    QuestionAnswered = wallets.QuestionAnswered
    # trades
    TradeProposed = trades.TradeProposed
    TradeAccepted = trades.TradeAccepted
    TradeClosed = trades.TradeClosed
    # development and perks
    DevelopmentBought = perks.DevelopmentBought
    PerkGained = perks.PerkGained
    PerkNerfed = perks.PerkNerfed
    NerfSettled = perks.NerfSettled
    PerkLost = perks.PerkLost
    PerkDefined = perks.PerkDefined
    # ambitions
    AmbitionOffered = ambitions.AmbitionOffered
    AmbitionMysteriesRecorded = ambitions.AmbitionMysteriesRecorded
    AmbitionTaken = ambitions.AmbitionTaken
    AmbitionDeclined = ambitions.AmbitionDeclined
    AmbitionTaskChanged = ambitions.AmbitionTaskChanged
    AmbitionTaskRevealed = ambitions.AmbitionTaskRevealed
    AmbitionEnded = ambitions.AmbitionEnded
    AmbitionClosed = ambitions.AmbitionClosed

    def _game(self) -> Game:
        """This aggregate as the ``Game`` it is part of (development's rules call the month's own methods)."""
        return cast("Game", self)

    # ------------------------------------------------------------------ queries

    def holdings(self, power_id: str) -> Holdings:
        """A power's wallet, perks and counters (empty until something is recorded)."""
        self._game().power(power_id)
        return self.state.development.holdings.get(power_id) or Holdings()

    def perk_catalogue(self) -> dict[str, dr.Perk]:
        """The rules' perks and those the GM added to this game (P-DEV-5, P-AMB-42)."""
        return perks.perk_catalogue(self.state)

    # ------------------------------------------------------------------ wallets (P-ASSET-9..11)

    def choose_control(self, power_id: str, resource: str, actor: str | None = None) -> None:
        """[003:263] A power uses Respect or Fear to exert control and starts with 3 of it (P-ASSET-10)."""
        wallets.choose_control(self._game(), power_id, resource, actor)

    def adjust_resources(self, power_id: str, changes: dict[str, int], reason: str) -> None:
        """GM: credit or debit a wallet with a reason (fees, rewards, compensation, corrections: GM-18)."""
        wallets.adjust_resources(self._game(), power_id, changes, reason)

    def award_fame(self, power_id: str, amount: int, reason: str) -> None:
        """GM: fame for an ambition split, a playtest tip or helping the GM ([003:253]-[003:255], GM-18)."""
        wallets.award_fame(self._game(), power_id, amount, reason)

    def spend_resources(self, power_id: str, changes: dict[str, int], reason: str, actor: str | None = None) -> None:
        """P-ASSET-10: coin, respect and fear are spent (fees, bribes, costs), each spending with its reason."""
        wallets.spend_resources(self._game(), power_id, changes, reason, actor)

    def pay(self, power_id: str, changes: dict[str, int], reason: str, *, rule: str, actor: str) -> None:
        """Pay a cost from a wallet for another rule: a shortfall is refused naming ``rule``, and nothing is
        recorded (``development_wallets.pay``)."""
        wallets.pay(self._game(), power_id, changes, reason, rule=rule, actor=actor)

    def earn(self, power_id: str, resource: str, amount: int, reason: str, actor: str = SYSTEM) -> int:
        """A gain another rule computes (P-ASSET-10); returns what was credited (``development_wallets.earn``)."""
        return wallets.earn(self._game(), power_id, resource, amount, reason, actor)

    def _wallet_changed(
        self, *, power_id: str, changes: dict[str, int], reason: str, actor: str, audience: list[str]
    ) -> None:
        """Record WalletChanged, the ledger's one entry (every change of a wallet is recorded through this)."""
        record(
            self,
            wallets.WalletChanged,
            power_id=power_id,
            changes=changes,
            reason=reason,
            actor=actor,
            audience=audience,
        )

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
        """P-ASSET-11: a favor buys 3 Light or Dark mana, or a miracle or premium keyword the GM grants
        (``development_wallets.spend_favor``)."""
        wallets.spend_favor(
            self._game(),
            power_id,
            use,
            question_id=question_id,
            element=element,
            request=request,
            action_id=action_id,
            now=now,
            actor=actor,
        )

    def spend_insight(self, power_id: str, question_id: str, question: str, actor: str | None = None) -> None:
        """P-ASSET-11: an insight is spent when its follow-up question is asked; the GM answers (GM-21)."""
        wallets.spend_insight(self._game(), power_id, question_id, question, actor)

    def answer_question(self, question_id: str, answer: str) -> None:
        """GM: answer an insight's question or a favor's request."""
        wallets.answer_question(self._game(), question_id, answer)

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
        """Offer another power resources for resources; it moves only when the other side accepts."""
        trades.propose_trade(self._game(), power_id, trade_id, to, give, want, note, actor)

    def accept_trade(self, power_id: str, trade_id: str, actor: str | None = None) -> None:
        """The other side accepts: both sides move at once, if both wallets still hold what they give."""
        trades.accept_trade(self._game(), power_id, trade_id, actor)

    def decline_trade(self, power_id: str, trade_id: str, actor: str | None = None) -> None:
        trades.decline_trade(self._game(), power_id, trade_id, actor)

    def withdraw_trade(self, power_id: str, trade_id: str, actor: str | None = None) -> None:
        trades.withdraw_trade(self._game(), power_id, trade_id, actor)

    # ------------------------------------------------------------------ development (P-DEV-1..6)

    def buy_development(
        self, power_id: str, kind: str, name: str, detail: str = "", asset_id: str = "", actor: str | None = None
    ) -> int:
        """Spend fame during Tidings (P-DEV-1) on a new skill, a skill rank, a new perk or an upgrade; returns
        the price paid."""
        return perks.buy_development(self._game(), power_id, kind, name, detail, asset_id, actor)

    def grant_perk(self, power_id: str, name: str, detail: str = "") -> None:
        """GM: a starting perk ([003:264]); free, and not counted by New Perk (P-DEV-4)."""
        perks.grant_perk(self._game(), power_id, name, detail)

    def nerf_perk(self, power_id: str, name: str, detail: str = "", reason: str = "") -> None:
        """GM: a perk is nerfed; its power gets a 1 fame tip, and may refund or swap it (P-DEV-6)."""
        perks.nerf_perk(self._game(), power_id, name, detail, reason)

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
        """P-DEV-6: the power keeps a nerfed perk, refunds what it paid, or swaps it."""
        perks.settle_nerf(self._game(), power_id, name, choice, detail, swap_to, swap_detail, actor)

    def define_perk(
        self, name: str, group: str, *, upgrade: bool = False, repeatable: bool = False, versus: str | None = None
    ) -> None:
        """GM: add a perk the rules text lacks or a house perk (P-AMB-42); perks are public (P.4)."""
        perks.define_perk(self._game(), name, group, upgrade=upgrade, repeatable=repeatable, versus=versus)

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
        ambitions.offer_ambition(
            self._game(),
            power_id,
            ambition_id,
            name,
            kind,
            fame,
            required,
            tasks,
            type=type,
            reward=reward,
            reward_text=reward_text,
            compensation=compensation,
        )

    def accept_ambition(self, power_id: str, ambition_id: str, actor: str | None = None) -> None:
        """Take an offered ambition, if a slot is free (P-AMBI-1); its name and score become public."""
        ambitions.accept_ambition(self._game(), power_id, ambition_id, actor)

    def decline_ambition(self, power_id: str, ambition_id: str, actor: str | None = None) -> None:
        ambitions.decline_ambition(self._game(), power_id, ambition_id, actor)

    def abandon_ambition(self, power_id: str, ambition_id: str, actor: str | None = None) -> None:
        """P-AMBI-1: a power may abandon an ambition at any time."""
        ambitions.abandon_ambition(self._game(), power_id, ambition_id, actor)

    def complete_task(self, ambition_id: str, task_id: str, fame: int | None = None) -> None:
        """GM confirms a task done (GM-11); N ❗ tasks done achieve the ambition."""
        ambitions.complete_task(self._game(), ambition_id, task_id, fame)

    def lose_task(self, ambition_id: str, task_id: str, reason: str) -> None:
        """GM: a task can no longer be done by this power; the ambition fails when too few ❗ tasks are left."""
        ambitions.lose_task(self._game(), ambition_id, task_id, reason)


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
