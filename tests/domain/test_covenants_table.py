"""The covenant game on the platform: roles without a GM, hidden facts, a whole game to 25 points."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from application.service import Caller, Games
from domain.covenants.commands import AddCovenant, Move, Pass, RuleOnAction, TakeAction
from domain.covenants.ruleset import COVENANTS
from domain.covenants.verify import verify_covenant_events
from domain.errors import Forbidden, RuleViolation
from domain.platform import roles
from domain.platform.commands import CloseWindow, GrantVisibility, SetDeadline
from domain.powers.ruleset import POWERS
from tests.covenants.play import (
    Dice,
    events_of,
    fixed_three,
    move_all,
    pass_create,
    pass_main,
    play_to_a_sealed_bid,
    seat_three,
    skip_season,
)


def test_the_covenant_game_declares_a_host_and_no_gm_and_powers_keeps_its_gm():
    assert roles.GM not in COVENANTS.roles.declared and roles.HOST in COVENANTS.roles.declared
    assert COVENANTS.roles.organiser == roles.AUDITOR
    assert POWERS.roles.declared == (roles.GM, roles.PLAYER, roles.OBSERVER)
    assert COVENANTS.roles.may({roles.HOST}, roles.RULE) and not COVENANTS.roles.may({roles.HOST}, roles.HISTORY)
    assert not COVENANTS.roles.may({roles.PLAYER}, roles.RULE)


def test_the_host_rules_on_custom_actions_and_grants_what_a_seat_learned_a_player_may_not():
    t = seat_three(Games())
    move_all(t, [1, 2, 3])
    pass_create(t)
    t.run(t.turn()[0], TakeAction(t.turn()[0], "custom", "we hire a cartographer"))
    before = events_of(t)
    with pytest.raises(Forbidden, match="only the host or the auditor may rule"):
        t.run("bob", RuleOnAction(0, True))
    assert events_of(t) == before
    t.run("ann", RuleOnAction(0, True, "granted, for 1 gold"))  # ann holds the host role
    assert t.view("cy")["actions"][0]["ruling"] == {"approved": True, "note": "granted, for 1 gold"}
    with pytest.raises(Forbidden):
        t.run("cy", GrantVisibility("bob", "BOB-LEARNS-THE-SOURCE"))
    t.run("ann", GrantVisibility("bob", "BOB-LEARNS-THE-SOURCE"))
    granted = [e for e in t.games.visible_events(t.game_id, "bob") if e["type"] == "VisibilityGranted"]
    assert granted[0]["actor"] == "ann"


def test_a_playing_host_sees_no_other_players_hidden_facts():
    games = Games()
    t = play_to_a_sealed_bid(games)  # ann, the host, sealed her bid; now bob seals his
    from domain.covenants.commands import SealBid

    t.run("bob", SealBid("bob", t.notes["challenge"], 1))
    bob_nonce = t.view("bob")["challenges"][0]["my_bid"]["nonce"]
    t.run("ann", GrantVisibility("cy", "CY-LEARNS-A-SECRET"))
    ann_sees = str([games.visible_events(t.game_id, "ann"), games.view(t.game_id, "ann")])
    assert "CY-LEARNS-A-SECRET" not in ann_sees
    assert "CY-LEARNS-A-SECRET" in str(games.visible_events(t.game_id, "cy"))
    assert "my_bid" not in str(games.view(t.game_id, "cy")["challenges"])
    # bob's bid stays sealed to the host until it is opened (A-AMB-7); the auditor sees it
    assert bob_nonce not in str([games.view(t.game_id, "ann"), games.visible_events(t.game_id, "ann")])
    assert bob_nonce in str(games.view(t.game_id, "gm"))


def test_a_second_host_and_a_fifth_covenant_are_refused():
    games = Games()
    game_id, _, _ = games.create_game("T", ruleset="covenants", options={"players": 4})
    gm = Caller.of("gm")
    games.run(gm, game_id, AddCovenant("a", "A", "A", host=True))
    with pytest.raises(RuleViolation, match="already has a host"):
        games.run(gm, game_id, AddCovenant("b", "B", "B", host=True))
    for s in "bcd":
        games.run(gm, game_id, AddCovenant(s, s, s))
    with pytest.raises(RuleViolation, match="two to four"):
        games.run(gm, game_id, AddCovenant("e", "E", "E"))
    with pytest.raises(RuleViolation) as err:
        games.create_game("T", ruleset="covenants", options={"players": 5})
    assert err.value.field == "options.players"
    with pytest.raises(Forbidden):
        games.run(Caller.of("b"), game_id, SetDeadline("w", datetime.now(timezone.utc)))  # windows: host only


def test_a_whole_game_is_played_to_25_points_with_seeded_dice_and_every_export_verifies():
    games = Games()
    t = seat_three(games, options={"yearly_consumes": False})
    seasons = 0
    while t.phase() != "over":
        skip_season(t)
        seasons += 1
        assert seasons <= 24
    v = t.view("cy")
    assert seasons == 20 and v["game"]["winners"] == ["ann", "bob", "cy"]
    assert all(c["score"] >= 25 for c in v["covenants"].values())
    for viewer in ("gm", "ann", "bob", "cy"):
        report = verify_covenant_events(games.visible_events(t.game_id, viewer, limit=100_000))
        assert report.ok and report.rolls_verified == 1 and report.seeds_verified >= 19, report


def test_every_turn_has_a_deadline_and_silence_at_it_counts_as_the_default_choice():
    """H-9: "Every player sends an explicit Satisfied/Pass; the phase closes once all have passed in a row. A
    timeout worker treats silence as a pass." Moving is mandatory, so a silent mover takes the first legal
    square."""
    now = [datetime(2026, 3, 1, 12, tzinfo=timezone.utc)]
    games = Games(clock=lambda: now[0])
    t = seat_three(games)
    first = t.turn()[0]
    (window,) = t.view(first)["windows"]
    assert window["kind"].startswith(f"move:{first}:") and window["closes_at"] == "2026-03-03T12:00:00+00:00"
    assert games.close_due_window(t.game_id, window["id"]) is False  # not due yet
    now[0] = datetime(2026, 3, 3, 12, 1, tzinfo=timezone.utc)
    assert games.close_due_window(t.game_id, window["id"]) is True
    v = t.view("gm")
    assert v["covenants"][first]["square"] == 1 and v["game"]["turn"][0] != first
    with pytest.raises(Forbidden):
        t.run("bob", CloseWindow(v["windows"][0]["id"]))
    t.run("ann", CloseWindow(v["windows"][0]["id"]))  # the host closes the next mover's turn now
    assert t.view("gm")["covenants"][v["game"]["turn"][0]]["square"] == 1


def test_trades_are_offered_in_the_main_phase_and_accepted_as_one_atomic_swap():
    """H-10 [000:636] "Covenants may trade among themselves but negotiate their own rates": an offer, then an
    acceptance that moves both sides at once, or a refusal that moves nothing."""
    from domain.covenants.commands import AnswerTrade, OfferTrade

    t = fixed_three(Dice())  # ann starts
    move_all(t, [1, 2, 3])
    pass_create(t)
    trade = t.run("ann", OfferTrade("ann", "bob", {"gold": 3}, {"vis": 2}))["trade_id"]
    assert t.view("cy")["trades"][0]["give"] == {"gold": 3} and t.turn()[0] == "bob"
    for seat, accept in (("cy", True), ("ann", True)):
        before = events_of(t)
        with pytest.raises(RuleViolation, match="A-ECON-1"):
            t.run(seat, AnswerTrade(seat, trade, accept))
        assert events_of(t) == before
    t.run("bob", AnswerTrade("bob", trade, True))
    v = t.view("cy")["covenants"]
    assert (v["ann"]["gold"], v["ann"]["vis"], v["bob"]["gold"], v["bob"]["vis"]) == (1, 6, 7, 2)
    t.run("bob", Pass("bob"))
    t.run("cy", Pass("cy"))
    second = t.run("ann", OfferTrade("ann", "cy", {"vis": 6}, {"gold": 4}))["trade_id"]
    t.run("cy", AnswerTrade("cy", second, False))  # refused: nothing moves
    assert t.view("bob")["trades"] == [] and t.view("bob")["covenants"]["ann"]["vis"] == 6


def test_the_read_models_give_each_covenant_seat_its_own_timeline():
    """The projector indexes a covenant game as it does a Powers game: each viewer's timeline is exactly what
    ``visible_events`` lets them see, sealed bids included (A.4)."""
    from projections.db import ReadModelDB
    from projections.projector import Projector
    from projections.settings import Settings

    games = Games()
    projector = Projector(games, ReadModelDB(Settings(database_url="memory")))
    t = play_to_a_sealed_bid(games)
    projector.catch_up()
    for viewer in ("gm", "ann", "bob", "cy"):
        shown = [(e["seq"], e["type"]) for e in games.visible_events(t.game_id, viewer, limit=1000)]
        indexed = [(e["seq"], e["type"]) for e in projector.timeline(t.game_id, viewer, 0, 1000)]
        assert indexed == shown and shown, viewer
    bob = [e["type"] for e in projector.timeline(t.game_id, "bob", 0, 1000)]
    ann = [e["type"] for e in projector.timeline(t.game_id, "ann", 0, 1000)]
    assert "CertamenBidSealed" in ann and "CertamenBidSealed" not in bob


def test_silence_at_a_reckoning_deadline_supports_what_the_covenant_can_pay_and_the_season_goes_on():
    """H-9 at the Reckoning: a silent covenant's cards are supported from what it has; the season then ends
    with a fresh seed committed for the next one."""
    now = [datetime(2026, 3, 1, 12, tzinfo=timezone.utc)]
    games = Games(clock=lambda: now[0])
    t = seat_three(games)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_main(t)
    first = t.turn()[0]
    t.run(first, Move(first, 10))
    assert t.phase() == "reckoning"
    commitment = t.view("gm")["game"]["seed_commitment"]
    while t.phase() == "reckoning":
        (window,) = t.view("gm")["windows"]
        assert games.close_due_window(t.game_id, window["id"]) is False  # each turn gets its own 48 hours
        now[0] += timedelta(hours=49)
        assert games.close_due_window(t.game_id, window["id"]) is True
    v = t.view("gm")
    assert v["game"]["season"] == "summer" and v["game"]["seed_commitment"] != commitment
    assert all(len(c["cards"]) == 4 for c in v["covenants"].values())  # everything was supported
