"""The Main Phase's exchanges (H-8, H-10, A-ECON-1): custom actions and the host's rulings, conversions, and
trades between covenants."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.covenants import reckoning, rules, track
from domain.covenants.base import PUBLIC, CovenantEvent
from domain.covenants.errors import RuleViolation
from domain.covenants.state import CovenantState
from domain.errors import NotFound

if TYPE_CHECKING:
    from domain.covenants.game import CovenantGame


def take_action(game: CovenantGame, seat: str, action: str, text: str) -> None:
    game.require_turn(seat, "main")
    a = game.house.main_actions.get(action)
    if a is None:
        raise RuleViolation(f"the Main Phase actions are {sorted(game.house.main_actions)}", field="action")
    game.trigger_event(
        game.ActionTaken, seat=seat, action=action, text=text, needs_ruling=a.host_approves, actor=seat, audience=PUBLIC
    )
    track.end_turn(game, seat, acted=True)


class ActionTaken(CovenantEvent):
    seat: str
    action: str
    text: str
    needs_ruling: bool
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.actions.append(
            {
                "seat": self.seat,
                "action": self.action,
                "text": self.text,
                "ruling": None if self.needs_ruling else "none needed",
            }
        )


def rule_on_action(game: CovenantGame, index: int, approved: bool, note: str, actor: str) -> None:
    if not 0 <= index < len(game.state.actions) or game.state.actions[index]["ruling"] is not None:
        raise RuleViolation("no custom action awaits a ruling there", field="index")
    game.trigger_event(game.ActionRuled, index=index, approved=approved, note=note, actor=actor, audience=PUBLIC)


class ActionRuled(CovenantEvent):
    index: int
    approved: bool
    note: str
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.actions[self.index]["ruling"] = {"approved": self.approved, "note": self.note}


def convert(game: CovenantGame, seat: str, give: str, amount: int, get: str) -> int:
    """A-ECON-1 [000:632] "all covenants may convert resources they own": the provision a covenant owns in the
    Main Phase is what it holds and what its cards make this season ([000:49] "any provisions generated during
    a season"; counted at the Reckoning, A-RECK-1, which takes back what was converted ahead). Gold a Touch of
    the Artisan enhanced converts at its rate ([000:590]), the rest at the Market Fair's."""
    s = game.state
    if s.phase != "main":
        raise RuleViolation("conversions happen in the Main Phase", rule="A-ECON-1")
    market = "Market Fair" in s.events_in_play or any(c.kind == "town" for c in game.covenant_cards(seat))
    famine = "Famine" in s.events_in_play
    p = s.powers[seat]
    held = owned(game, seat, give)
    artisan = [e for e in s.effects if e.get("artisan") and e["target"] == seat] if get == "provision" else []
    enhanced = min(amount, p.gold, sum(e["artisan"] for e in artisan)) if give == "gold" else 0
    got = rules.convert(give, amount - enhanced, get, market=market, famine=famine) if amount > enhanced else 0
    if enhanced:
        rate = game.house.spells[artisan[0]["spell"]].artisan_rate
        got += rules.convert(give, enhanced, get, market=market, famine=famine, artisan_rate=rate)
    if held < amount:
        raise RuleViolation(f"you hold {held} {give}", rule="A-ECON-1", field="amount")
    game.trigger_event(
        game.Converted,
        seat=seat,
        give=give,
        amount=amount,
        get=get,
        got=got,
        actor=seat,
        audience=PUBLIC,
        artisan=enhanced,
    )
    return got


class Converted(CovenantEvent):
    seat: str
    give: str
    amount: int
    get: str
    got: int
    actor: str
    audience: list[str]
    artisan: int = 0

    def evolve(self, s: CovenantState) -> None:
        artisan = self.artisan
        p = s.powers[self.seat]
        setattr(
            p, self.give, getattr(p, self.give) - self.amount
        )  # provision below 0: drawn on this season's, made at the Reckoning
        setattr(p, self.get, getattr(p, self.get) + self.got)
        for e in [e for e in s.effects if e.get("artisan") and e["target"] == self.seat]:  # enhanced gold is spent
            used = min(artisan, e["artisan"])
            e["artisan"], artisan = e["artisan"] - used, artisan - used
        s.effects = [e for e in s.effects if e.get("artisan", 1)]


def offer_trade(
    game: CovenantGame, seat: str, to: str, give: dict[str, int], get: dict[str, int], trade_id: str
) -> None:
    """A Main Phase action: offer another covenant an exchange at a rate the two agree ([000:636])."""
    game.require_turn(seat, "main")
    game.power(to)
    game.refuse_out_of_play(to, "to")
    if to == seat:
        raise RuleViolation("trade with another covenant", rule="A-ECON-1", field="to")
    for side, amounts in (("give", give), ("get", get)):
        if set(amounts) - {"gold", "vis", "provision"} or any(
            not isinstance(v, int) or v < 0 for v in amounts.values()
        ):
            raise RuleViolation("a trade moves whole gold, vis and provision", rule="A-ECON-1", field=side)
    if not any(give.values()) and not any(get.values()):
        raise RuleViolation("a trade moves something", rule="A-ECON-1", field="give")
    _check_holds(game, seat, give, "give")
    game.trigger_event(
        game.TradeOffered,
        trade_id=trade_id,
        seat=seat,
        to=to,
        give=dict(give),
        get=dict(get),
        actor=seat,
        audience=PUBLIC,
    )
    track.end_turn(game, seat, acted=True)


def owned(game: CovenantGame, seat: str, what: str) -> int:
    """The gold, vis or provision a covenant owns in a season, to convert, trade or pay (A-ECON-1 [000:632] "all
    covenants may convert resources they own", [000:636] "Covenants may trade among themselves"): its provision
    is what it holds and what its cards make this season ([000:49] "any provisions generated during a season";
    the Reckoning counts it, A-RECK-1, and takes back what went ahead; once the covenant has allocated its support,
    what the Reckoning left it); its gold and vis, what it holds."""
    if what == "provision" and not game.state.powers[seat].supported:
        return int(reckoning.tally(game, seat, [])[2]["provision"])
    return int(getattr(game.state.powers[seat], what))


def _check_holds(game: CovenantGame, seat: str, amounts: dict[str, int], where: str) -> None:
    short = [k for k, v in amounts.items() if owned(game, seat, k) < v]
    if short:
        raise RuleViolation(f"{seat} does not hold the {', '.join(short)} of this trade", rule="A-ECON-1", field=where)


class TradeOffered(CovenantEvent):
    trade_id: str
    seat: str
    to: str
    give: dict[str, int]
    get: dict[str, int]
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        s.trades[self.trade_id] = {
            "id": self.trade_id,
            "from": self.seat,
            "to": self.to,
            "give": self.give,
            "get": self.get,
        }


def answer_trade(game: CovenantGame, seat: str, trade_id: str, accept: bool) -> None:
    """The other covenant accepts (both sides move at once, or nothing does) or refuses; the offerer may
    withdraw."""
    tr = game.state.trades.get(trade_id)
    if tr is None:
        raise NotFound(f"no open trade {trade_id!r}", field="trade_id")
    if accept:
        if seat != tr["to"]:
            raise RuleViolation("only the covenant offered a trade accepts it", rule="A-ECON-1")
        if "Famine" in game.state.events_in_play and (tr["give"].get("provision") or tr["get"].get("provision")):
            raise RuleViolation("no conversion to or from provision during a Famine", rule="A-ECON-1")
        _check_holds(game, tr["from"], tr["give"], "give")
        _check_holds(game, tr["to"], tr["get"], "get")
    elif seat not in (tr["to"], tr["from"]):
        raise RuleViolation("only the two covenants of a trade close it", rule="A-ECON-1")
    game.trigger_event(game.TradeClosed, trade_id=trade_id, accepted=accept, actor=seat, audience=PUBLIC)


class TradeClosed(CovenantEvent):
    trade_id: str
    accepted: bool
    actor: str
    audience: list[str]

    def evolve(self, s: CovenantState) -> None:
        tr = s.trades.pop(self.trade_id)
        if self.accepted:
            a, b = s.powers[tr["from"]], s.powers[tr["to"]]
            for k, v in tr["give"].items():
                setattr(a, k, getattr(a, k) - v)
                setattr(b, k, getattr(b, k) + v)
            for k, v in tr["get"].items():
                setattr(b, k, getattr(b, k) - v)
                setattr(a, k, getattr(a, k) + v)
