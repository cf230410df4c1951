"""Every covenant window's default on silence is legal in the states it meets (issue 24 "no game can get stuck",
H-9), and the choices a seat is offered are exactly what it may send (``Ruleset.offers``). Played through the
service with explicit dice and an injected clock; the deadline is closed as the workers close it."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from application.service import Games
from domain.covenants.commands import (
    AllocateDamage,
    AnswerTrade,
    Cast,
    DecideEvent,
    DrawEvent,
    Move,
    OfferTrade,
    Pass,
)
from domain.covenants.ruleset import COVENANTS
from domain.platform.commands import CloseWindow
from tests.covenants.play import (
    ARTS,
    Dice,
    Table,
    fixed_three,
    move_all,
    pass_create,
    pass_main,
    pass_until,
    reckon,
    skip_season,
)
from tests.domain.test_conformance_covenants_played import moves, refused

LIGHTNING = {"ann": ["Cr", "Au", "Pe", "An", "Vi"]}  # Arc of Lightning


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 3, 1, 12, tzinfo=timezone.utc)

    def __call__(self) -> datetime:
        return self.now


def offered(t, seat: str) -> list:
    """What the seat is offered now, but the closing of windows Ann's host role offers her (H-9)."""
    return [c for c in t.games.read(t.game_id, lambda g: COVENANTS.offers(g, seat)) if not isinstance(c, CloseWindow)]


def silence(t, clock: Clock, seat: str) -> bool:
    """The seat says nothing: its turn's deadline passes and the workers close the window."""
    (window,) = [w for w in t.view("gm")["windows"] if w["kind"].split(":")[1] == seat]
    clock.now = datetime.fromisoformat(window["closes_at"]) + timedelta(minutes=1)
    return t.games.close_due_window(t.game_id, window["id"])


def skeletons_at_ann_without_grogs_or_vis(d: Dice, games: Games):
    """Ann's Grogs starves at the first Reckoning; in year two's Spring Bob plays the Army of Skeletons at her
    ([000:727]) and she gives Bob her 4 vis in a trade: at the end of the Main Phase she faces the Skeletons with
    no being of Mundane Might and nothing to pay them off with."""
    t = fixed_three(d, options={"yearly_consumes": False}, games=games)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    grogs = next(c["id"] for c in t.view("gm")["covenants"]["ann"]["cards"] if c["kind"] == "grogs")
    reckon(t, starve={"ann": [grogs]})
    for _ in range(3):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([9])
    t.run("bob", DrawEvent("bob"))
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    assert t.phase() == "main"
    pass_until(t, "ann")
    vis = t.view("gm")["covenants"]["ann"]["vis"]
    trade = t.run("ann", OfferTrade("ann", "bob", {"vis": vis}, {}))["trade_id"]
    t.run("bob", AnswerTrade("bob", trade, True))
    pass_main(t)
    ann = t.view("gm")["covenants"]["ann"]
    assert t.phase() == "battle" and t.turn() == ["ann"]
    assert ann["vis"] == 0 and not [c for c in ann["cards"] if c["kind"] in ("grogs", "companion", "specialist")]
    assert t.view("gm")["battle"]["to_allocate"] == {"ann": 5}
    return t


def test_a_bat_1_a_covenant_with_no_mundane_being_and_no_vis_answers_the_army_of_skeletons_taking_no_damage():
    """A-BAT-1 [000:139] "all cards with the Mundane Might attribute are subject to damage": a covenant with none
    has nothing the Skeletons' 5 can land on, so its allocation is empty; it cannot pay them off either ([000:733]
    "paying 1 pawn vis"). Before, both answers were refused and the game waited for ever."""
    d, clock = Dice(), Clock()
    t = skeletons_at_ann_without_grogs_or_vis(d, Games(clock=clock))
    refused(t, "ann", AllocateDamage("ann", pay_off=True), "A-EVT-4")
    refused(t, "ann", AllocateDamage("ann", {t.mage("ann"): 5}), "A-BAT-1")  # a mage has no Mundane Might
    assert offered(t, "ann") == [AllocateDamage("ann", {})]
    cards = t.view("gm")["covenants"]["ann"]["cards"]
    t.run("ann", AllocateDamage("ann", {}))
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert t.phase() == "move" and t.view("gm")["covenants"]["ann"]["cards"] == cards  # nothing was damaged
    assert "Army of Skeletons" in t.view("gm")["events_in_play"]  # not beaten: it returns next season


def test_a_bat_1_silence_at_the_army_of_skeletons_with_nothing_to_fight_or_pay_with_closes_the_battle():
    """H-9: the deadline's default is the empty allocation the rule allows (above); the workers' close succeeds
    and the game goes on to the next cycle."""
    d, clock = Dice(), Clock()
    t = skeletons_at_ann_without_grogs_or_vis(d, Games(clock=clock))
    assert silence(t, clock, "ann") is True
    pass_main(t)  # the Main Phase's extra round, after its end (A-AMB-5)
    assert t.phase() == "move" and t.view("gm")["battle"] is None


def quaesitor_prompt(d: Dice, games: Games):
    """Ann is marked in year one (a harmful spell at Cy's mage); in year two's Spring Bob, on the Event square, is
    prompted where to apply the Quaesitor Investigation the mark creates ([000:100], H-13)."""
    t = fixed_three(d, arts=LIGHTNING, games=games)
    move_all(t, [1, 2, 3])
    pass_create(t)
    t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", t.mage("cy"), 2))
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    move_all(t, [1, 9, 2])
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["bob"]
    assert t.view("gm")["pending_event"] == {"seat": "bob", "event": "Quaesitor Investigation", "quaesitor": True}
    return t


def test_h_13_silence_at_the_quaesitor_prompt_applies_the_investigation_to_the_first_marked_covenant():
    """H-13 "Player choice among the marked covenants" leaves no discard while a covenant is marked ([000:100]
    "The player on the Event square decides where to apply the Investigation"): silence applies it to the first
    marked covenant clockwise from the player's left, and passes the player's Events turn (H-9). Before, the
    deadline tried to discard it and was refused by A-AGG-1."""
    d, clock = Dice(), Clock()
    t = quaesitor_prompt(d, Games(clock=clock))
    assert offered(t, "bob") == [DecideEvent("bob", "play", "ann")]  # the one marked covenant; no draw, no pass
    assert silence(t, clock, "bob") is True
    v = t.view("gm")
    assert v["investigation"]["target"] == "ann" and v["pending_event"] is None and t.phase() == "main"


def test_a_evt_1_an_undecided_quaesitor_investigation_is_decided_before_the_player_draws():
    """A-EVT-1 with H-13: the player on the Event square decides the Investigation before drawing, as before
    passing; a draw first left the prompt hanging into the Main Phase."""
    d, clock = Dice(), Clock()
    t = quaesitor_prompt(d, Games(clock=clock))
    refused(t, "bob", DrawEvent("bob"), "A-EVT-1")
    refused(t, "bob", Pass("bob"), "A-EVT-1")
    t.run("bob", DecideEvent("bob", "play", target="ann"))
    assert offered(t, "bob") == [DrawEvent("bob"), Pass("bob")]


def test_h_2_the_moves_a_seat_is_offered_are_the_legal_moves_its_view_shows():
    """H-2 "The player chooses from a list of legal squares the server has computed": the view's list and the
    Move commands offered are one list, and every other seat is offered no move."""
    t = fixed_three(Dice())
    first = t.turn()[0]
    squares = t.view(first)["me"]["legal_moves"]
    assert squares == list(range(1, 10))
    assert [c for c in offered(t, first) if isinstance(c, Move)] == [Move(first, s) for s in squares]
    assert all(not isinstance(c, Move) for seat in t.seats if seat != first for c in offered(t, seat))


def test_a_agg_1_a_quaesitor_prompt_with_nobody_marked_any_more_is_discarded_at_its_deadline():
    """[000:100] creates the Investigation "while there are marked covenants"; a house package whose Gathering of
    the Tribunal stays in play lets the one marked covenant unmark itself while the player on the Event square is
    still deciding. Nothing is left to investigate: the card can only be discarded, and silence discards it."""
    from domain.covenants.commands import AttendTribunal
    from domain.covenants.house import default_data

    package = default_data()
    package["events"]["Gathering of the Tribunal"].update(seasons=["spring", "summer", "autumn", "winter"])
    package["events"]["Gathering of the Tribunal"]["lasts_seasons"] = 4
    d, clock = Dice(), Clock()
    options = {"house": "custom", "house_package": package, "yearly_consumes": False}
    t = fixed_three(d, arts=LIGHTNING, options=options, games=Games(clock=clock))
    for _ in range(4):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([16])
    t.run("bob", DrawEvent("bob"))  # the Tribunal, in play for a year
    pass_until(t, "ann")
    t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", t.mage("cy"), 2))  # Ann is marked
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    assert t.view("gm")["pending_event"] == {"seat": "bob", "event": "Quaesitor Investigation", "quaesitor": True}
    t.run("ann", AttendTribunal("ann"))
    refused(t, "bob", DecideEvent("bob", "play", target="ann"), "A-AGG-1")
    assert offered(t, "bob") == [DecideEvent("bob", "discard")]
    assert silence(t, clock, "bob") is True
    v = t.view("gm")
    assert v["investigation"] == {} and v["pending_event"] is None and t.phase() == "main"


def test_a_evt_3_an_even_chaos_roll_with_every_rival_out_of_play_fights_nobody():
    """[000:691] "if the result is even, that player must choose a rival covenant"; with two covenants and the
    other under a Quaesitor Investigation ([000:767] "removed from the game"), no rival may be chosen: the roll
    obliges nothing and the Season of Chaos goes on. Before, the player could choose nobody and silence chose
    the investigated covenant, which was refused."""
    from application.service import Caller
    from domain.covenants.commands import AddCovenant, BeginGame, RollChaos

    d, clock = Dice(), Clock()
    games = Games(clock=clock, roller_factory=lambda game: d)
    game_id, _, _ = games.create_game("Two", ruleset="covenants", options={"players": 2, "yearly_consumes": False})
    gm = Caller.of("gm")
    games.run_many(
        gm,
        game_id,
        [
            AddCovenant("ann", "Ann", "Fengheld", arts=LIGHTNING["ann"]),
            AddCovenant("bob", "Bob", "Crintera", arts=ARTS["bob"]),
        ],
    )
    d.push([1])  # Ann starts
    games.run(gm, game_id, BeginGame())
    t = Table(games, game_id, ["ann", "bob"])
    move_all(t, [1, 2])
    pass_create(t)
    t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", t.mage("bob"), 2))  # Ann is marked
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9})
    pass_create(t)
    t.run("bob", DecideEvent("bob", "play", target="ann"))  # Ann is out of play
    d.push([6])
    t.run("bob", DrawEvent("bob"))  # the Season of Chaos
    assert t.phase() == "chaos" and t.turn() == ["bob"]
    d.push([4])
    assert t.run("bob", RollChaos("bob")) == {"face": 4, "must_choose_rival": False}
    assert t.phase() == "main" and t.view("gm")["battles"] == []


def test_a_evt_1_a_held_event_of_a_covenant_under_investigation_stays_held_until_it_rejoins():
    """A-EVT-1 "Held events fire at the first Events Phase of their season" with [000:767] the investigated
    covenant's player "may not create nor play cards" and "the state of the covenant ... does not change": Bob's
    event held for Autumn stays held while the Quaesitors keep him out of play. Before, it was released to him
    with nobody at turn, and the Events Phase waited on nobody for good."""
    d = Dice()
    t = fixed_three(d, options={"yearly_consumes": False})
    for _ in range(4):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    d.push([9])
    t.run("bob", DrawEvent("bob"))  # the Army of Skeletons, held for Autumn
    t.run("bob", DecideEvent("bob", "hold", season="autumn"))
    pass_until(t, "bob")
    grogs = next(c["id"] for c in t.view("gm")["covenants"]["ann"]["cards"] if c["kind"] == "grogs")
    t.run("bob", Cast("bob", t.mage("bob"), "Enhance Resistance", grogs, 2))  # at a rival's being: Bob is marked
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    moves(t, {"ann": 9, "bob": 1, "cy": 2})  # Summer
    pass_create(t)
    t.run("ann", DecideEvent("ann", "play", target="bob"))  # the Investigation the mark created
    t.run("ann", Pass("ann"))
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    moves(t, {"ann": 1, "cy": 9})  # Autumn: Bob, out of play, does not move
    pass_create(t)
    v = t.view("gm")
    assert t.phase() == "main" and v["investigation"]["target"] == "bob" and v["pending_event"] is None
    assert v["held_events"] == [{"event": "Army of Skeletons", "seat": "bob", "season": "autumn"}]


def test_a_agg_1_a_player_who_applies_the_investigation_to_its_own_covenant_ends_its_events_turn():
    """[000:767] from the Investigation's application its covenant "do[es] nothing": the player on the Event square
    who applies it to its own covenant (the only one marked) draws nothing more; the Main Phase begins without it."""
    d = Dice()
    t = fixed_three(d, options={"yearly_consumes": False})
    move_all(t, [1, 2, 3])
    pass_create(t)
    grogs = next(c["id"] for c in t.view("gm")["covenants"]["ann"]["cards"] if c["kind"] == "grogs")
    pass_until(t, "bob")
    t.run("bob", Cast("bob", t.mage("bob"), "Enhance Resistance", grogs, 2))  # Bob is marked
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    for _ in range(3):
        skip_season(t)
    moves(t, {"ann": 1, "bob": 9, "cy": 2})
    pass_create(t)
    assert offered(t, "bob") == [DecideEvent("bob", "play", "bob")]
    t.run("bob", DecideEvent("bob", "play", target="bob"))
    assert t.phase() == "main" and "bob" not in t.turn()
    refused(t, "bob", DrawEvent("bob"), "A-ORDER-1")


def test_a_amb_7_a_sealed_bid_beyond_the_vis_held_when_the_bids_open_costs_and_counts_what_is_held():
    """A-AMB-7 "the vis is spent whatever the result": Ann seals all her 4 vis, then accepts a trade that takes 1
    of them; when the bids open she holds 3, and her bid counts and costs 3. Before, she was left with -1 vis, and
    at her Reckoning neither her support nor her silence could be accepted (short of vis whatever she starved)."""
    from domain.covenants.commands import Challenge, ChooseArt, ResolveCertamen, SealBid
    from tests.covenants.play import create_and_discard, seat_three

    t = seat_three(Games())
    move_all(t, [1, 3, 5])
    create_and_discard(t)
    pass_until(t, "ann")
    challenge = t.run("ann", Challenge("ann", t.mage("ann"), t.mage("bob")))["challenge_id"]
    pass_until(t, "bob")
    trade = t.run("bob", OfferTrade("bob", "ann", {"gold": 1}, {"vis": 1}))["trade_id"]
    pass_main(t)
    assert t.phase() == "certamen" and t.view("gm")["covenants"]["ann"]["vis"] == 4
    t.run("ann", ChooseArt("ann", challenge, "Cr"))
    t.run("bob", ChooseArt("bob", challenge, "Vi"))
    t.run("ann", SealBid("ann", challenge, 4))
    t.run("ann", AnswerTrade("ann", trade, True))
    t.run("bob", SealBid("bob", challenge, 0))
    resolver = t.turn()[0]  # the first of the two clockwise from the starting player the dice drew (A-AMB-7)
    result = t.run(resolver, ResolveCertamen(resolver, challenge))
    assert result["paid"] == {"ann": 3, "bob": 0}
    assert t.view("gm")["covenants"]["ann"]["vis"] == 0
