"""Trades (P-ASSET-10): a power offers another resources for resources; both sides move at once when the other
accepts, if both wallets still hold what they give. Respect and fear are never traded, fame is spent only on
development (P-DEV-1). A trade is its two powers' and the GM's (P.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain import limits
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.powers import development_rules as dr
from domain.powers.development_state import DevelopmentEvent, Trade, credit, fold_holdings, record, who

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def propose_trade(
    game: Game,
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
    game.power(to)
    if to == power_id:
        raise RuleViolation("a trade is between two powers", field="to")
    limits.check_text(note, "note", limits.REASON, what="a note")
    give = dr.check_changes(give, dr.TRADEABLE, "give", signed=False) if give else {}
    want = dr.check_changes(want, dr.TRADEABLE, "want", signed=False) if want else {}
    if not give and not want:
        raise RuleViolation("a trade gives or asks for something", field="give")
    dr.check_balance(game.holdings(power_id).wallet, {k: -v for k, v in give.items()}, who(game, power_id))
    record(
        game,
        TradeProposed,
        trade_id=trade_id,
        from_power=power_id,
        to=to,
        give=give,
        want=want,
        note=note,
        actor=actor or power_id,
        audience=vis.powers([power_id, to]),
    )


def _open_trade(game: Game, power_id: str, trade_id: str, side: str) -> Trade:
    t = game.state.development.trades.get(trade_id)
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


def accept_trade(game: Game, power_id: str, trade_id: str, actor: str | None = None) -> None:
    """The other side accepts: both sides move at once, if both wallets still hold what they give."""
    t = _open_trade(game, power_id, trade_id, "to")
    try:
        dr.check_balance(
            game.holdings(t.from_power).wallet, {k: -v for k, v in t.give.items()}, who(game, t.from_power)
        )
    except RuleViolation as err:
        # The accepting power may learn the offer fails, never what the other wallet holds (P.4).
        raise RuleViolation(
            f"{who(game, t.from_power)} no longer holds what it offered; this trade cannot be accepted",
            rule=err.rule,
            field="trade_id",
        ) from None
    dr.check_balance(game.holdings(t.to).wallet, {k: -v for k, v in t.want.items()}, who(game, t.to))
    record(game, TradeAccepted, trade_id=trade_id, actor=actor or power_id, audience=vis.powers([t.from_power, t.to]))


def decline_trade(game: Game, power_id: str, trade_id: str, actor: str | None = None) -> None:
    t = _open_trade(game, power_id, trade_id, "to")
    record(
        game,
        TradeClosed,
        trade_id=trade_id,
        status="declined",
        actor=actor or power_id,
        audience=vis.powers([t.from_power, t.to]),
    )


def withdraw_trade(game: Game, power_id: str, trade_id: str, actor: str | None = None) -> None:
    t = _open_trade(game, power_id, trade_id, "from")
    record(
        game,
        TradeClosed,
        trade_id=trade_id,
        status="withdrawn",
        actor=actor or power_id,
        audience=vis.powers([t.from_power, t.to]),
    )


# ---------------------------------------------------------------------- events


class TradeProposed(DevelopmentEvent):
    trade_id: str
    from_power: str
    to: str
    give: dict[str, int]
    want: dict[str, int]
    note: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.development.trades[self.trade_id] = Trade(
            self.trade_id, self.from_power, self.to, dict(self.give), dict(self.want), self.note
        )


class TradeAccepted(DevelopmentEvent):
    trade_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        t = s.development.trades[self.trade_id]
        t.status = "accepted"
        giver, taker = fold_holdings(s, t.from_power).wallet, fold_holdings(s, t.to).wallet
        credit(giver, {k: -v for k, v in t.give.items()})
        credit(taker, t.give)
        credit(taker, {k: -v for k, v in t.want.items()})
        credit(giver, t.want)


class TradeClosed(DevelopmentEvent):
    trade_id: str
    status: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.development.trades[self.trade_id].status = self.status
