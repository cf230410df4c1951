"""Fame, development, ambitions and resources through the one command path: who may send each command,
what its receipt reports, and that snapshots and replays reproduce the feature's state."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from application.service import Caller, Games
from domain.errors import Forbidden, NotFound, RuleViolation
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import development_rules as dr
from domain.powers import magic as m
from domain.powers.game import Game
from tests.domain.helpers import NOW, SEED, asset_of, sheet_of, step_of, trade_of
from tests.helpers import add_power


def setup(snapshot_interval: int = 100) -> tuple[Games, str, str, str]:
    games = Games(snapshot_interval=snapshot_interval)
    gid, _, _ = games.create_game("Wallets", "GM")
    a = add_power(games, gid, "gm", "Gondor", "city", "sovereign")[0]
    b = add_power(games, gid, "gm", "Rangers", "conspiracy", "circle")[0]
    games.send(gid, "gm", pc.Advance())
    return games, gid, a, b


def run(games: Games, gid: str, who: str, command) -> dict:
    return games.run(Caller.of(who), gid, command).result


def test_players_trade_and_spend_and_the_gm_awards_through_the_command_path():
    games, gid, a, b = setup()
    with pytest.raises(Forbidden):
        run(games, gid, a, dev.AdjustResources(a, {"coin": 5}, "I deserve it"))
    run(games, gid, "gm", dev.AdjustResources(a, {"coin": 5}, "taxes"))
    run(games, gid, "gm", dev.AwardFame(a, 2, "wrote the epic's song"))
    with pytest.raises(Forbidden):
        run(games, gid, b, dev.SpendResources(a, {"coin": 1}, "spend another's coin"))
    trade = run(games, gid, a, dev.ProposeTrade(a, b, give={"coin": 2}, note="for a map"))["trade_id"]
    with pytest.raises(Forbidden):
        run(games, gid, a, dev.AcceptTrade(b, trade))  # a seat acts only for itself
    with pytest.raises(RuleViolation, match="only the power it was offered to"):
        run(games, gid, a, dev.AcceptTrade(a, trade))
    run(games, gid, b, dev.AcceptTrade(b, trade))
    assert games.view(gid, b)["development"]["mine"]["wallet"]["coin"] == 2
    receipt = run(games, gid, a, dev.BuyDevelopment(a, "skill", "lore"))
    assert receipt["price"] == 2 and asset_of(games.get_game(gid), receipt["asset_id"])["name"] == "lore"
    with pytest.raises(RuleViolation, match="respect"):
        run(games, gid, b, dev.ProposeTrade(b, a, give={"respect": 1}))
    with pytest.raises(RuleViolation) as info:
        dev.BuyDevelopment(a, "skill", 3)  # ill-typed fields are refused when the command is built
    assert info.value.field == "name"


def test_the_gm_offers_an_ambition_and_only_its_power_accepts_it():
    games, gid, a, b = setup()
    aid = run(
        games,
        gid,
        "gm",
        dev.OfferAmbition(a, "Hold the Ford", "minor", 6, 1, [{"text": "Win at the ford", "central": True}]),
    )["ambition_id"]
    with pytest.raises(NotFound):
        run(games, gid, b, dev.AcceptAmbition(b, aid))
    run(games, gid, a, dev.AcceptAmbition(a, aid))
    with pytest.raises(Forbidden):
        run(games, gid, a, dev.CompleteTask(aid, "t1"))
    run(games, gid, "gm", dev.CompleteTask(aid, "t1"))
    assert games.view(gid, a)["development"]["mine"]["wallet"]["fame"] == 6
    assert games.view(gid, b)["development"]["mine"]["wallet"]["fame"] == 0


def test_snapshots_and_replays_reproduce_wallets_perks_ambitions_and_trades():
    games, gid, a, b = setup(snapshot_interval=3)
    run(games, gid, "gm", dev.AdjustResources(a, {"coin": 5, "fame": 9, "favor": 1}, "start"))
    run(games, gid, a, dev.ChooseControl(a, "respect"))
    run(games, gid, a, dev.BuyDevelopment(a, "perk", "Savior"))
    run(games, gid, "gm", m.GrantMagicPerk(a, "excellent_personal_magic"))  # stores 3 of each (P-MAG-1)
    run(games, gid, a, dev.SpendFavor(a, "mana", element="Light"))
    run(games, gid, "gm", dev.OfferAmbition(a, "Q", "minor", 9, 1, [{"text": "x"}, {"text": "y", "central": True}]))
    run(games, gid, a, dev.ProposeTrade(a, b, give={"coin": 1}))
    live = games.get_game(gid)
    events = list(games.events.get(live.id))
    assert games.snapshots is not None and list(games.snapshots.get(live.id))  # snapshots were taken
    for version in range(1, live.version + 1):
        replayed = None
        for e in events[:version]:
            replayed = e.mutate(replayed)
        assert games.repository.get(live.id, version=version).state == replayed.state
    stored = games.repository.get(live.id)
    assert stored.state == live.state
    assert stored.state.development.holdings[a].perks[0]["name"] == "Savior"
    assert all(isinstance(x, dev.Ambition) for x in stored.state.development.ambitions.values())
    assert sheet_of(stored, a)["mana"] == {"L": 3}


POWERS = ("gondor", "rangers", "smaug")
wallet_op = st.one_of(
    st.tuples(st.just("adjust"), st.sampled_from(POWERS), st.sampled_from([*dr.WALLET, "coin"]), st.integers(-2, 6)),
    st.tuples(st.just("spend"), st.sampled_from(POWERS), st.sampled_from(dr.SPENDABLE), st.integers(1, 4)),
    st.tuples(st.just("propose"), st.sampled_from(POWERS), st.sampled_from(POWERS), st.integers(0, 3)),
    st.tuples(st.just("accept"), st.integers(0, 9)),
    st.tuples(st.just("accept"), st.integers(0, 9)),
    st.tuples(st.just("favor"), st.sampled_from(POWERS)),
    st.tuples(st.just("insight"), st.sampled_from(POWERS)),
    st.tuples(st.just("buy"), st.sampled_from(POWERS), st.sampled_from(["skill", "rank", "perk"])),
    st.tuples(st.just("advance")),
)


def ledger(events) -> dict[str, dict[str, int]]:
    """Every wallet as the events say, read independently of the event bodies."""
    out: dict[str, dict[str, int]] = {p: {} for p in POWERS}
    offers = {}

    def add(p, changes, sign=1):
        for k, v in changes.items():
            out[p][k] = out[p].get(k, 0) + sign * v

    for e in events:
        name = type(e).__name__
        if name == "WalletChanged":
            add(e.power_id, e.changes)
        elif name == "TradeProposed":
            offers[e.trade_id] = e
        elif name == "TradeAccepted":
            t = offers[e.trade_id]
            add(t.from_power, t.give, -1), add(t.to, t.give), add(t.to, t.want, -1), add(t.from_power, t.want)
        elif name in ("FavorSpent", "InsightSpent"):
            add(e.power_id, {"favor" if name == "FavorSpent" else "insight": -1})
        elif name == "DevelopmentBought":
            add(e.power_id, {"fame": -e.price})
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(wallet_op, min_size=5, max_size=40))
@example(
    [
        ("adjust", "rangers", "coin", 3),
        ("adjust", "gondor", "insight", 2),
        ("propose", "gondor", "rangers", 2),
        ("accept", 0),
        ("favor", "gondor"),
        ("adjust", "gondor", "fame", 4),
        ("buy", "gondor", "skill"),
        ("buy", "gondor", "rank"),
    ]
)
def test_a_wallet_never_goes_negative_and_is_always_the_sum_of_its_ledger(ops):
    g = Game.start("Ledger", "GM")
    for pid, cls, sub in (
        ("gondor", "city", "sovereign"),
        ("rangers", "conspiracy", "circle"),
        ("smaug", "champion", "dragon"),
    ):
        g.add_power(pid, pid, cls, sub)
    g.advance(NOW, SEED)
    trades: list[str] = []
    for n, op in enumerate(ops):
        before = len(g.pending_events)
        try:
            kind = op[0]
            if kind == "adjust":
                g.adjust_resources(op[1], {op[2]: op[3]}, f"op {n}")
            elif kind == "spend":
                g.spend_resources(op[1], {op[2]: op[3]}, f"op {n}")
            elif kind == "propose":
                g.propose_trade(op[1], f"t{n}", op[2], {"insight": op[3]} if op[3] else {}, {"coin": 1})
                trades.append(f"t{n}")
            elif kind == "accept" and trades:
                t = trade_of(g, trades[op[1] % len(trades)])
                g.accept_trade(t["to"], t["trade_id"])
            elif kind == "favor":
                g.spend_favor(op[1], "mana", question_id=f"f{n}", element="L")
            elif kind == "insight":
                g.spend_insight(op[1], f"q{n}", "why?")
            elif kind == "buy":
                name = {"skill": "lore", "rank": "lore", "perk": "Quickdraw"}[op[2]]
                g.buy_development(op[1], op[2], name, asset_id=f"s{n}")
            elif kind == "advance" and step_of(g) != "resolution":
                g.advance(NOW, SEED)
        except RuleViolation:
            assert len(g.pending_events) == before  # a refusal records nothing
        for p in POWERS:
            assert all(v >= 0 for v in g.holdings(p).wallet.values()), (p, g.holdings(p).wallet)
    told = ledger(g.pending_events)
    for p in POWERS:
        assert {k: v for k, v in g.holdings(p).wallet.items() if v} == {k: v for k, v in told[p].items() if v}
