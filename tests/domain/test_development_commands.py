"""Fame, development, ambitions and resources through the one command path: who may send each command,
what its receipt reports, and that snapshots and replays reproduce the feature's state."""

from __future__ import annotations

import pytest

from domain.errors import Forbidden, NotFound, RuleViolation
from domain.powers import development as dev
from projections.service import Caller, Games


def setup(snapshot_interval: int = 100) -> tuple[Games, str, str, str]:
    games = Games(snapshot_interval=snapshot_interval)
    gid, _, _ = games.create_game("Wallets", "GM")
    a = games.add_power(gid, "gm", "Gondor", "city", "sovereign")[0]
    b = games.add_power(gid, "gm", "Rangers", "conspiracy", "circle")[0]
    games.advance(gid, "gm")
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
    assert receipt["price"] == 2 and games.get_game(gid).state.assets[receipt["asset_id"]].name == "lore"
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
    assert stored.state.powers[a].mana == {"L": 3}
