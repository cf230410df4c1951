"""Conformance of the covenant game (ANALYSIS A.2.1-A.2.3): one test per rule id, rule text quoted.

Dice are explicit (``tests.covenants.play.Dice``): each test pushes the faces the next roll shows."""

from __future__ import annotations

import copy

import pytest

from application.service import Games
from domain.covenants import house, rules
from domain.covenants.commands import Discard, Generate, Keep, Move, Pass
from domain.errors import RuleViolation
from tests.covenants.play import (
    Dice,
    events_of,
    fixed_three,
    move_all,
    pass_create,
    pass_main,
    reckon,
    seat_three,
    skip_season,
)


def refused(t, seat, command, rule):
    """The command is refused naming the rule, and records nothing."""
    before = events_of(t)
    with pytest.raises(RuleViolation, match=rule):
        t.run(seat, command)
    assert events_of(t) == before


# ---------------------------------------------------------------- A-TRACK


def test_a_track_1_legal_moves_right_first_move_no_further_than_event_event_square_single():
    """A-TRACK-1 [000:6] "There is no restriction how far to the right the player may move, but: it must be at
    least one square; the first move a player makes in a given season must be no further than the Events square;
    if any player moves to the End Season square, all other players must go there immediately on the same turn."
    """
    t = fixed_three(Dice())  # ann starts
    refused(t, "ann", Move("ann", 10), "A-TRACK-1")  # a first move beyond Event
    refused(t, "ann", Move("ann", 0), "A-TRACK-1")  # at least one square
    t.run("ann", Move("ann", 9))
    refused(t, "bob", Move("bob", 9), "A-TRACK-1")  # Event is occupied
    assert t.view("bob")["me"]["legal_moves"] == [1, 2, 3, 4, 5, 6, 7, 8]
    t.run("bob", Move("bob", 8))
    t.run("cy", Move("cy", 2))
    assert t.phase() == "create"


def test_a_track_2_the_square_decides_the_card_type_and_event_generates_none():
    """A-TRACK-2 [000:166]-[000:167] "When a player's token occupies a Resource square (Property, Improvement,
    Personnel, Item or Magic) he follows the instructions for that card type"."""
    assert [rules.square_kind(i) for i in range(11)] == list(rules.TRACK)
    d = Dice()
    t = fixed_three(d)
    move_all(t, [9, 3, 1])  # ann on Event skips Create/Play; bob Personnel (d20); cy Property (d20)
    assert t.turn() == ["bob", "cy"]
    d.push([15])
    card = t.run("bob", Generate("bob"))["card_id"]
    assert t.view("gm")["covenants"]["bob"]["cards"][-1]["name"] == "Magus: Sempiris of House Flambeau"
    assert card is not None


# ---------------------------------------------------------------- A-ORDER


def test_a_order_1_every_phase_goes_clockwise_from_the_starting_player():
    """A-ORDER-1: "Every sequential phase starts with starting_player and rotates clockwise" ([000:9] "followed by
    the other players in clockwise order")."""
    t = fixed_three(Dice(), starting_face=3)  # cy starts
    assert t.turn() == ["cy", "ann", "bob"]
    refused(t, "ann", Move("ann", 1), "A-ORDER-1")
    move_all(t, [1, 2, 3])
    assert t.phase() == "create" and t.turn() == ["cy", "ann", "bob"]


def test_a_order_2_the_starting_player_is_drawn_by_the_committed_dice_and_verifiable():
    """A-ORDER-2 [000:4] "At the beginning of each game, a default starting player must be chosen, by rolling
    dice, drawing lots, or by another random method." After each Yearly Reckoning it becomes the lowest score,
    ties to the first clockwise after the current starter (A-AMB-8)."""
    games = Games()  # the service's own seeded roller
    t = seat_three(games)
    rolls = [e for e in games.visible_events(t.game_id, "cy") if e["type"] == "DieRolled"]
    assert rolls[0]["data"]["purpose"] == "starting player" and rolls[0]["data"]["sides"] == 3
    face = rolls[0]["data"]["faces"][0]
    assert t.view("cy")["game"]["starting_player"] == ["ann", "bob", "cy"][face - 1]
    from domain.covenants.verify import verify_covenant_events

    report = verify_covenant_events(games.visible_events(t.game_id, "cy"))
    assert report.ok and report.rolls_verified == 1
    forged = copy.deepcopy(games.visible_events(t.game_id, "cy"))
    for e in forged:
        if e["type"] == "DieRolled":
            e["data"]["faces"] = [face % 3 + 1]
    assert not verify_covenant_events(forged).ok
    assert rules.next_starting_player(["a", "b", "c"], {"a": 5, "b": 3, "c": 3}, "a") == "b"
    assert rules.next_starting_player(["a", "b", "c"], {"a": 5, "b": 3, "c": 3}, "b") == "c"


def test_a_turn_1_one_card_per_create_play_turn():
    """A-TURN-1 [000:582] "The card does not count toward his turn limit." (one card per Create/Play turn)."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [1, 2, 3])
    d.push([1])
    card = t.run("ann", Generate("ann"))["card_id"]
    refused(t, "ann", Generate("ann"), "A-TURN-1")
    t.run("ann", Keep("ann", card))
    assert t.turn() == ["bob", "cy"]


# ---------------------------------------------------------------- A-GEN


def test_a_gen_0_a_package_that_leaves_a_table_empty_is_refused_naming_it():
    """A-GEN-0 [000:177] "The generators for each card type are:" is followed by nothing: the tables come from a
    house rules package, and a package that leaves one empty is refused."""
    data = house.default_data()
    for table in ("generators", "main_actions", "spells", "events"):
        broken = copy.deepcopy(data)
        broken[table] = {}
        with pytest.raises(RuleViolation, match="A-GEN-0") as err:
            house.load(broken)
        assert err.value.field == table
    broken = copy.deepcopy(data)
    del broken["generators"]["item"]["faces"]["6"]
    with pytest.raises(RuleViolation, match="A-GEN-0"):
        house.load(broken)
    games = Games()
    with pytest.raises(RuleViolation, match="A-GEN-0") as err:
        games.create_game(
            "x", ruleset="covenants", options={"house": "custom", "house_package": {**data, "spells": {}}}
        )
    assert err.value.field == "spells"
    assert house.DEFAULT.house_rules is True and "HOUSE RULES" in house.DEFAULT.description
    game_id, _, _ = games.create_game("x", ruleset="covenants")
    pin = games.view(game_id, "gm")["game"]["house"]
    assert pin == {
        "name": house.DEFAULT.name,
        "version": house.DEFAULT.version,
        "sha256": house.DEFAULT.pin()["sha256"],
    }


def test_a_gen_1_modifier_pipeline_curse_predetermine_halve_mouse_set_then_uniqueness():
    """A-GEN-1 [000:751] "must roll it twice and use the lesser value." [000:550] "The target's next die roll is
    halved (rounded down, to a minimum of 1)." [000:405] "you may add or subtract up to 2 to any single Resource or
    Event card generation dice roll once per season." [000:52] "...no player may generate another Sempiris (the
    roll results in no card) until the first one is discarded."."""
    assert rules.modified_roll([5, 2], 6, cursed=True) == (2, [{"step": "curse", "value": 2}])
    value, steps = rules.modified_roll([6], 6, predetermined=3, halved=True, mouse=2, set_to=None)
    assert value == 3 and [s["step"] for s in steps] == ["predetermined", "halved", "mouse"]
    assert rules.modified_roll([1], 6, halved=True)[0] == 1
    with pytest.raises(RuleViolation, match="A-GEN-1"):
        rules.modified_roll([4], 6, mouse=3)
    d = Dice()
    t = fixed_three(d)
    move_all(t, [1, 2, 3])
    refused(t, "ann", Generate("ann", mouse=1), "A-GEN-1")  # no Mouse in Ann's covenant


def test_a_gen_2_a_card_not_kept_is_created_then_discarded_at_phase_end():
    """A-GEN-2 [000:172] "Resources that cannot be paid for or properly assigned are discarded; this means the
    card is created, but then it is immediately (at the end of the phase) placed in the discard pile." [000:175]
    "If a player generates a resource he does not want, he may create the card and discard it."."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [1, 2, 4])
    d.push([1])  # Villagers for ann
    a = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Discard("ann", a))
    d.push([3])  # Library for bob, 3 gold: bob keeps it
    b = t.run("bob", Generate("bob"))["card_id"]
    t.run("bob", Keep("bob", b))
    d.push([2])  # Greatsword for cy: created, never kept
    t.run("cy", Generate("cy"))
    t.run("cy", Pass("cy"))
    assert t.phase() == "main"
    assert t.view("gm")["discard"]["count"] == 2 and t.view("ann")["discard"] == {"count": 2}


def test_a_gen_3_an_improvement_created_off_season_is_paid_for_and_inactive_until_its_season():
    """A-GEN-3 [000:176] "if a card is created "off-season", it is paid for but remains inactive (undergoes
    construction) until the beginning of first qualifying season's Move Phase."."""
    d = Dice()
    t = fixed_three(d)
    skip_season(t)
    skip_season(t)
    assert t.view("gm")["game"]["season"] == "autumn"
    move_all(t, [2, 1, 3])
    d.push([1])  # Improve Covenant (Expansion/Major): "Inactivate this card until Spring"
    t.run("ann", Keep("ann", t.run("ann", Generate("ann"))["card_id"]))
    ann = t.view("gm")["covenants"]["ann"]
    expansion = ann["cards"][-1]
    assert expansion["name"] == "Improve Covenant (Expansion/Major)" and not expansion["active"]
    assert expansion["inactive_until"] == "spring"
    pass_create(t)
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    assert t.view("gm")["game"]["season"] == "winter"
    assert not next(c for c in t.view("gm")["covenants"]["ann"]["cards"] if c["id"] == expansion["id"])["active"]
    skip_season(t)
    assert t.view("gm")["game"]["season"] == "spring"
    assert next(c for c in t.view("gm")["covenants"]["ann"]["cards"] if c["id"] == expansion["id"])["active"]


def test_a_gen_4_random_arts_for_a_starting_mage():
    """A-GEN-4 [000:185] "roll a 6-sided die two times (rerolling on 6 or duplicates) and index into the list of
    Techniques. Roll a 20-sided die three times (rerolling on duplicates), divide by two, rounded up, and index
    into the list of Forms."."""
    tech, form, _, _ = rules.random_arts([6, 2, 2, 4], [3, 4, 20, 11], house.TECHNIQUES, house.FORMS)
    assert tech == ["In", "Pe"] and form == ["Aq", "Vi", "Ig"]


def test_a_gen_1_the_mouse_changes_one_generation_roll_a_season():
    """A-GEN-1 step 4 [000:405] "While the Mouse is in play, you may add or subtract up to 2 to any single
    Resource or Event card generation dice roll once per season." (A-AMB-6: counted per Mouse per season)."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [5, 1, 2])
    d.push([5])  # Familiar: Mouse
    t.run("ann", Keep("ann", t.run("ann", Generate("ann"))["card_id"]))
    pass_create(t)
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t)
    move_all(t, [4, 1, 2])  # ann on Item (d6)
    d.push([3])  # 3 + 2 = 5: the Girdle instead of the Leather Shield
    card = t.run("ann", Generate("ann", mouse=2))["card_id"]
    assert t.view("gm")["covenants"]["ann"]["cards"][-1]["name"] == "Enchanted Item: Girdle of Magical Finesse"
    t.run("ann", Discard("ann", card))
    pass_create(t)
    pass_main(t)
    move_all(t, [6, 3, 4])  # a second cycle of the same season: ann on Property
    refused(t, "ann", Generate("ann", mouse=-1), "A-GEN-1")
