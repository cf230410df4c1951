"""The covenant game's rules as written, played through the typed commands (issue 25, part B): each test runs
commands through ``api.service.Games`` with explicit dice, quotes the rule, and checks that a refusal names it
and records nothing."""

from __future__ import annotations

import copy

import pytest

from api.service import Games
from domain.covenants import house
from domain.covenants.commands import Discard, Generate, Keep, Move
from domain.errors import RuleViolation
from tests.covenants.play import (
    Dice,
    events_of,
    fixed_three,
    generate_and_keep,
    move_all,
    pass_create,
    pass_main,
    reckon,
    skip_season,
)


def refused(t, seat, command, rule):
    before = events_of(t)
    with pytest.raises(RuleViolation, match=rule):
        t.run(seat, command)
    assert events_of(t) == before


def cards(t, seat: str) -> dict[str, dict]:
    return {c["id"]: c for c in t.view("gm")["covenants"][seat]["cards"]}


def named(t, seat: str, name: str) -> list[str]:
    return [i for i, c in cards(t, seat).items() if c["name"] == name]


def end_season(t, starve: dict | None = None) -> None:
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t, starve)


# ---------------------------------------------------------------- A-GEN


def test_a_gen_0_a_package_without_a_starting_card_is_refused_naming_it():
    """A-GEN-0 "The service needs data-driven generator tables ... supplied by the host" with [000:4] "Each player
    begins with a card representing a starting mage with five Arts learned; two Villagers cards, one Grogs card":
    a package the starting cards cannot be dealt from is refused, naming the card, and no game is created."""
    data = copy.deepcopy(house.default_data())
    del data["cards"]["Grogs"]
    personnel = data["generators"]["personnel"]["faces"]
    data["generators"]["personnel"]["faces"] = {f: (None if c == "Grogs" else c) for f, c in personnel.items()}
    games = Games()
    with pytest.raises(RuleViolation, match="A-GEN-0") as err:
        games.create_game("T", ruleset="covenants", options={"house": "custom", "house_package": data})
    assert err.value.field == "cards.Grogs" and "Grogs" in str(err.value)
    assert games.recorder.max_notification_id() in (None, 0)
    mislabelled = copy.deepcopy(house.default_data())
    mislabelled["cards"]["Villagers"]["kind"] = "livestock"
    with pytest.raises(RuleViolation, match="A-GEN-0") as err:
        games.create_game("T", ruleset="covenants", options={"house": "custom", "house_package": mislabelled})
    assert err.value.field == "cards.Villagers"


def test_a_gen_2_discard_is_for_a_card_just_created_on_ones_own_turn():
    """A-GEN-2 [000:175] "If a player generates a resource he does not want, he may create the card and discard
    it." Discarding is the choice of a card just generated, in its Create/Play turn: never a card in play (the
    Starting Mage, a card kept), nor out of turn; those leave play only as a rule says (starved at the
    Reckoning, A-RECK-1)."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [1, 2, 3])
    mage = t.mage("ann")
    refused(t, "ann", Discard("ann", mage), "A-GEN-2")  # in play, though on her own Create/Play turn
    d.push([1])  # Villagers
    villagers = t.run("ann", Generate("ann"))["card_id"]
    t.run("ann", Keep("ann", villagers))
    refused(t, "ann", Discard("ann", villagers), "A-GEN-2")  # kept: in play, and no longer her turn
    d.push([1])  # Bob's Expansion/Major, just created: only Bob, on his turn, discards it
    major = t.run("bob", Generate("bob"))["card_id"]
    refused(t, "ann", Discard("ann", major), "A-GEN-2")
    t.run("bob", Discard("bob", major))
    assert major not in cards(t, "bob") and t.turn() == ["cy"]
    pass_create(t)
    assert t.phase() == "main" and t.turn()[0] == "ann"
    refused(t, "ann", Discard("ann", mage), "A-GEN-2")
    assert mage in cards(t, "ann")


def test_a_gen_3_an_improvement_under_construction_does_not_raise_the_villagers_cap():
    """A-GEN-3 [000:176] "if a card is created "off-season", it is paid for but remains inactive (undergoes
    construction) until the beginning of first qualifying season's Move Phase" and A-LIM-2 "An inactive card
    cannot use its effects": an Expansion/Major kept in Summer ("Inactivate this card until Spring") does not
    let the covenant support more than 4 Villagers (A-LIM-1) before it is built."""
    d = Dice()
    t = fixed_three(d)
    skip_season(t)  # Summer
    move_all(t, [2, 1, 3])
    major = generate_and_keep(t, d, {"ann": 1})["ann"]  # Improve Covenant (Expansion/Major)
    assert not cards(t, "ann")[major]["active"] and cards(t, "ann")[major]["inactive_until"] == "spring"
    pass_main(t)
    move_all(t, [6, 4, 5])
    generate_and_keep(t, d, {"ann": 1})  # a third Villagers
    end_season(t)  # Autumn: the Expansion is still under construction
    move_all(t, [1, 2, 3])
    generate_and_keep(t, d, {"ann": 1})  # a fourth
    pass_main(t)
    move_all(t, [6, 4, 5])
    assert len(named(t, "ann", "Villagers")) == 4
    d.push([1])
    fifth = t.run("ann", Generate("ann"))["card_id"]
    refused(t, "ann", Keep("ann", fifth), "A-LIM-1")
    t.run("ann", Discard("ann", fifth))
    assert len(named(t, "ann", "Villagers")) == 4
