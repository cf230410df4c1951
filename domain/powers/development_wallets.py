"""Wallets and their ledger (P-ASSET-9..11): every change of a wallet is a ``WalletChanged`` with its reason; a
wallet never goes negative, and a refusal names the rule that lets that resource be spent. A power exerts control
with respect or fear ([003:263]); a favor buys mana, a miracle or a keyword, an insight a question the GM answers
(GM-21). Wallets and questions are the owner's and the GM's (P.4)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, cast

from domain import limits
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.powers import development_rules as dr
from domain.powers import magic_rules as mr
from domain.powers.development_state import (
    DevelopmentEvent,
    Question,
    credit,
    fold_holdings,
    own,
    record,
    who,
)
from domain.powers.magic_state import caps_of

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def choose_control(game: Game, power_id: str, resource: str, actor: str | None = None) -> None:
    """[003:263] A power uses Respect or Fear to exert control and starts with 3 of it (P-ASSET-10)."""
    h = game.holdings(power_id)
    if resource not in dr.CONTROL:
        raise RuleViolation("a power uses respect or fear to exert control", rule="P-ASSET-10", field="resource")
    if h.control is not None:
        raise RuleViolation(
            f"{who(game, power_id)} already uses {h.control}; the choice is made once",
            rule="P-ASSET-10",
            field="resource",
        )
    record(game, ControlChosen, power_id=power_id, resource=resource, actor=actor or power_id, audience=own(power_id))
    game._wallet_changed(
        power_id=power_id,
        changes={resource: dr.STARTING_CONTROL},
        reason=f"starts with {dr.STARTING_CONTROL} {resource} ([003:263])",
        actor=SYSTEM,
        audience=own(power_id),
    )


def adjust_resources(game: Game, power_id: str, changes: dict[str, int], reason: str) -> None:
    """GM: credit or debit a wallet with a reason (fees, rewards, compensation, corrections: GM-18)."""
    limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
    changes = dr.check_changes(changes, dr.WALLET, "changes", signed=True)
    check_fame_earner(game, power_id, changes)
    dr.check_balance(game.holdings(power_id).wallet, changes, who(game, power_id))
    game._wallet_changed(power_id=power_id, changes=changes, reason=reason.strip(), actor=GM, audience=own(power_id))


def award_fame(game: Game, power_id: str, amount: int, reason: str) -> None:
    """GM: fame for an ambition split, a playtest tip or helping the GM ([003:253]-[003:255], GM-18)."""
    limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
    changes = dr.check_changes({"fame": amount}, ("fame",), "amount", signed=False)
    check_fame_earner(game, power_id, changes)
    game._wallet_changed(power_id=power_id, changes=changes, reason=reason.strip(), actor=GM, audience=own(power_id))


def check_fame_earner(game: Game, power_id: str, changes: dict[str, int]) -> None:
    if changes.get("fame", 0) > 0 and dr.fame_reward(game.power(power_id).subclass, 1) == 0:
        raise RuleViolation("adversaries earn no fame", rule="P-AMBI-1", field="fame")


def spend_resources(game: Game, power_id: str, changes: dict[str, int], reason: str, actor: str | None = None) -> None:
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
    dr.check_balance(game.holdings(power_id).wallet, debit, who(game, power_id))
    game._wallet_changed(
        power_id=power_id,
        changes=debit,
        reason=reason.strip(),
        actor=actor or power_id,
        audience=own(power_id),
    )


def pay(game: Game, power_id: str, changes: dict[str, int], reason: str, *, rule: str, actor: str) -> None:
    """Pay a cost from a wallet for another rule (a fee, P-ASSET-5; support, P-SUP-1; an action's cost,
    [003:146]): a shortfall is refused naming ``rule``, and nothing is recorded."""
    limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
    spent = dr.check_changes(changes, dr.SPENDABLE, "changes", signed=False)
    debit = {k: -v for k, v in spent.items()}
    try:
        dr.check_balance(game.holdings(power_id).wallet, debit, who(game, power_id))
    except RuleViolation as err:
        raise RuleViolation(f"{err.message} ({reason})", rule=rule, field=err.field) from None
    game._wallet_changed(power_id=power_id, changes=debit, reason=reason.strip(), actor=actor, audience=own(power_id))


def earn(game: Game, power_id: str, resource: str, amount: int, reason: str, actor: str = SYSTEM) -> int:
    """A gain another rule computes (respect from Build and Train successes, fear from a battle or a slain
    agent: P-ASSET-10). Only powers that use respect gain respect, and likewise fear ([003:166]-[003:176]);
    returns what was credited."""
    limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
    dr.check_resource(resource, dr.RESOURCES, "resource")
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= dr.MAX_AMOUNT:
        raise RuleViolation(f"a gain is a whole number from 0 to {dr.MAX_AMOUNT}", field="amount")
    if amount == 0 or (resource in dr.CONTROL and game.holdings(power_id).control != resource):
        return 0
    game._wallet_changed(
        power_id=power_id,
        changes={resource: amount},
        reason=reason.strip(),
        actor=actor,
        audience=own(power_id),
    )
    return amount


# ---------------------------------------------------------------------- favor and insight (P-ASSET-11)


def spend_favor(
    game: Game,
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
    h = game.holdings(power_id)
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
    dr.check_balance(h.wallet, {"favor": -1}, who(game, power_id))
    if use == "mana" and action_id is not None:
        # A favor spent without a time passes now=None (as it always has), which holds while no Planning window
        # is open; with one open, comparing None with its deadline fails.
        game._open_action(action_id, power_id, cast(datetime, now))
    elif use == "mana":
        try:
            mr.check_gain(game.power(power_id).mana, str(element), dr.FAVOR_MANA, caps_of(game.state, power_id))
        except RuleViolation as e:
            raise RuleViolation(
                f"{e.message}: spend the favor during one of your actions (action_id) and its mana is that "
                "action's, whatever your storage (P-AMB-37)",
                rule="P-MAG-1",
                field="element",
            ) from None
    _favor_spent(game, power_id, use, question_id, str(element), request, action_id, actor or power_id)


def _favor_spent(
    game: Game,
    power_id: str,
    use: str,
    question_id: str,
    element: str,
    request: str,
    action_id: str | None,
    who: str,
) -> None:
    """Record a favor spent: its mana held by the action or gained by the power, or the GM's to grant."""
    if use != "mana":
        record(
            game,
            FavorSpent,
            power_id=power_id,
            question_id=question_id,
            use=use,
            request=request.strip(),
            actor=who,
            audience=own(power_id),
        )
        return
    record(
        game,
        FavorSpent,
        power_id=power_id,
        question_id=None,
        use=use,
        request=f"{dr.FAVOR_MANA} {dr.FAVOR_ELEMENTS[element]} mana",
        actor=who,
        audience=own(power_id),
    )
    if action_id is not None:
        game._mana_channelled(
            action_id=action_id,
            power_id=power_id,
            element=element,
            amount=dr.FAVOR_MANA,
            actor=who,
            audience=own(power_id),
        )
    else:
        game._mana_granted(power_id=power_id, element=element, amount=dr.FAVOR_MANA, actor=who, audience=own(power_id))


def spend_insight(game: Game, power_id: str, question_id: str, question: str, actor: str | None = None) -> None:
    """P-ASSET-11: an insight is spent when its follow-up question is asked; the GM answers (GM-21)."""
    limits.check_text(question, "question", limits.REASON, required=True, what="the question")
    dr.check_balance(game.holdings(power_id).wallet, {"insight": -1}, who(game, power_id))
    record(
        game,
        InsightSpent,
        power_id=power_id,
        question_id=question_id,
        question=question.strip(),
        actor=actor or power_id,
        audience=own(power_id),
    )


def answer_question(game: Game, question_id: str, answer: str) -> None:
    """GM: answer an insight's question or a favor's request."""
    q = game.state.development.questions.get(question_id)
    if q is None:
        raise NotFound(f"no question {question_id!r}", field="question_id")
    limits.check_text(answer, "answer", limits.GRANT_TEXT, required=True, what="the answer")
    if q.answer is not None:
        raise RuleViolation("this question has been answered", field="question_id")
    record(game, QuestionAnswered, question_id=question_id, answer=answer, actor=GM, audience=own(q.power))


# ---------------------------------------------------------------------- events


class ControlChosen(DevelopmentEvent):
    power_id: str
    resource: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        fold_holdings(s, self.power_id).control = self.resource


class WalletChanged(DevelopmentEvent):
    power_id: str
    changes: dict[str, int]
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        credit(fold_holdings(s, self.power_id).wallet, self.changes)


class FavorSpent(DevelopmentEvent):
    power_id: str
    question_id: str | None
    use: str
    request: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        credit(fold_holdings(s, self.power_id).wallet, {"favor": -1})
        if self.question_id is not None:
            s.development.questions[self.question_id] = Question(
                self.question_id, self.power_id, self.use, self.request
            )


class InsightSpent(DevelopmentEvent):
    power_id: str
    question_id: str
    question: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        credit(fold_holdings(s, self.power_id).wallet, {"insight": -1})
        s.development.questions[self.question_id] = Question(self.question_id, self.power_id, "insight", self.question)


class QuestionAnswered(DevelopmentEvent):
    question_id: str
    answer: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.development.questions[self.question_id].answer = self.answer
