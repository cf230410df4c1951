"""The covenant game's rules as written, played through the typed commands (issue 25, part B): each test runs
commands through ``application.service.Games`` with explicit dice, quotes the rule, and checks that a refusal names it
and records nothing."""

from __future__ import annotations

import copy

import pytest

from application.service import Games
from domain.covenants import house
from domain.covenants.commands import Cast, Discard, DrawEvent, Generate, Keep, Move, Pass, Support
from domain.errors import RuleViolation
from tests.covenants.play import (
    Dice,
    events_of,
    fixed_three,
    generate_and_keep,
    move_all,
    pass_create,
    pass_main,
    pass_until,
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


def test_a_amb_1_a_house_package_given_with_the_default_house_is_refused_not_ignored():
    """A-AMB-1: the house package is the one shipped (``house: "default"``) or the host's (``"custom"``); a package
    sent with the default house would be accepted and never read, so it is refused naming it, creating nothing."""
    games = Games()
    with pytest.raises(RuleViolation, match="A-AMB-1") as err:
        games.create_game("T", ruleset="covenants", options={"house_package": house.default_data()})
    assert err.value.field == "house_package"
    assert games.recorder.max_notification_id() in (None, 0)


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


def mouse_on_the_event_square(d: Dice):
    """Ann keeps a Mouse in Spring of year 1; in Spring of year 2 (Events Phases begin) she is on the Event square."""
    t = fixed_three(d)
    move_all(t, [5, 1, 2])
    mouse = generate_and_keep(t, d, {"ann": 5})["ann"]  # Familiar: Mouse
    end_season(t)
    for _ in range(3):
        skip_season(t)
    assert t.view("gm")["game"]["season"] == "spring" and mouse in cards(t, "ann")
    move_all(t, [9, 1, 2])
    pass_create(t)
    assert t.phase() == "events" and t.turn() == ["ann"]
    return t


def test_a_gen_1_the_mouse_changes_an_event_draw():
    """A-GEN-1 step 4 [000:405] "you may add or subtract up to 2 to any single Resource or Event card generation
    dice roll once per season": the player on the Event square changes the event die by up to 2 with the Mouse;
    once a season; a covenant without one cannot."""
    d = Dice()
    t = mouse_on_the_event_square(d)
    refused(t, "ann", DrawEvent("ann", mouse=3), "A-GEN-1")  # up to 2
    d.push([7])  # Armed Invasion; with the Mouse's +2, 9: the Army of Skeletons, a directed event
    out = t.run("ann", DrawEvent("ann", mouse=2))
    assert out["event"] == "Army of Skeletons" and out["face"] == 9
    assert t.view("gm")["pending_event"]["event"] == "Army of Skeletons"


def test_a_gen_1_the_mouse_changes_an_event_draw_by_mail():
    """A-GEN-1 step 4 by mail: ``draw mouse -2`` draws with the Mouse's change."""
    from tests.mail.test_covenants_mail import _mail, _tokens

    d = Dice()
    t = mouse_on_the_event_square(d)
    d.push([12])  # Riots; with -2, 10: the Hedge Mage Attack
    reply = _mail(t, _tokens(t)["ann"], "draw mouse -2")
    assert reply.accepted, reply.body
    assert t.view("gm")["pending_event"]["event"] == "Hedge Mage Attack"


def test_a_gen_1_no_mouse_no_change_to_the_event_draw():
    """A-GEN-1 step 4: only a covenant with an active Mouse not used this season changes a roll."""
    d = Dice()
    t = fixed_three(d)
    for _ in range(4):
        skip_season(t)
    first = t.turn()[0]
    move_all(t, [9, 1, 2])
    pass_create(t)
    assert t.phase() == "events" and t.turn() == [first]
    refused(t, first, DrawEvent(first, mouse=1), "A-GEN-1")
    with pytest.raises(RuleViolation) as info:  # the refusal names the field it refuses
        t.run(first, DrawEvent(first, mouse=1))
    assert info.value.field == "mouse"


# ---------------------------------------------------------------- A-SPELL


def winter_reckoning(d: Dice, arts: dict | None = None):
    t = fixed_three(d, arts=arts)
    for _ in range(3):
        skip_season(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    end_season_move(t)
    assert t.phase() == "reckoning" and t.view("gm")["game"]["season"] == "winter"
    return t


def end_season_move(t) -> None:
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))


def test_a_spell_8_aegis_is_cast_at_the_beginning_of_winter_reckoning_only():
    """A-SPELL-8 "An effect or spell that names a phase ("Cast during …", "Cast in Spring", "at the beginning of
    Winter Reckoning") may be used only then." Aegis of the Hearth: "Cast at the beginning of Winter Reckoning."
    with A-AMB-10 "Winter Reckoning.begin (item upkeep, Bailiff, Aegis casting) → support allocation": once a
    covenant has allocated its support, the Reckoning has begun and Aegis is too late, the caster's own
    support and another's alike."""
    d = Dice()
    t = winter_reckoning(d)
    assert t.turn()[0] == "ann"
    t.run("ann", Support("ann", []))
    refused(t, "bob", Cast("bob", t.mage("bob"), "Aegis of the Hearth", "bob", 3), "A-SPELL-8")
    t.run("bob", Support("bob", []))
    refused(t, "bob", Cast("bob", t.mage("bob"), "Aegis of the Hearth", "bob", 3), "A-SPELL-8")
    assert t.view("gm")["effects"] == []


# ---------------------------------------------------------------- A-DMG

RUST = "Rust of the Blade"  # a test package's spell at items, as a host may add (A-AMB-1, H-14)


def rust_package() -> dict:
    data = copy.deepcopy(house.default_data())
    data["spells"][RUST] = {
        "arts": ["Pe", "Te"], "target": "item", "forms": ["Te"], "harmful": True, "damage_per_pawn": 1, "max_vis": 3,
        "house": True,
    }  # fmt: skip
    return data


def sword_table(d: Dice):
    """Bob keeps a Sword on his Grogs (Item face 1); Ann can cast Arc of Lightning (Cr Au) and the test package's
    Rust of the Blade (Pe Te)."""
    arts = {"ann": ["Cr", "Au", "Pe", "Te", "Vi"]}
    t = fixed_three(d, arts=arts, options={"house": "custom", "house_package": rust_package()})
    move_all(t, [1, 4, 2])
    t.run("ann", Pass("ann"))
    d.push([1])
    sword = t.run("bob", Generate("bob"))["card_id"]
    grogs = named(t, "bob", "Grogs")[0]
    t.run("bob", Keep("bob", sword, attach_to=grogs))
    pass_create(t)
    assert t.phase() == "main" and t.turn()[0] == "ann"
    return t, sword, grogs


def test_a_dmg_2_a_spell_at_beings_cannot_damage_an_item():
    """[000:22] "animate or (by default) inanimate (the former is synonymous with "being", the latter with either
    "item" or "structure")" and A-DMG-2 [000:125] "Structures (Improvement and Town cards) and Items (everything
    else)": Arc of Lightning ("Target: Being", its forms An, Co, He, Te) cannot strike a Sword, an item of Te."""
    d = Dice()
    t, sword, grogs = sword_table(d)
    refused(t, "ann", Cast("ann", t.mage("ann"), "Arc of Lightning", sword, 2), "A-DMG-2")
    assert cards(t, "bob")[sword]["damage"] == 0
    out = t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", grogs, 1))  # a being of Co: it may
    assert out["magnitude"] == 1 and cards(t, "bob")[grogs]["damage"] == 1


def test_a_dmg_2_an_item_damaged_is_discarded_at_the_end_of_the_season():
    """A-DMG-2 [000:125] "Items are discarded at the end of any season when they sustained damage (unless they
    are immediately repaired)": a spell at items damages Bob's Sword; it is still attached through the season and
    is discarded as the season ends."""
    d = Dice()
    t, sword, grogs = sword_table(d)
    out = t.run("ann", Cast("ann", t.mage("ann"), RUST, sword, 1))
    assert out["magnitude"] == 1 and cards(t, "bob")[sword]["damage"] == 1
    assert cards(t, "bob")[sword]["attached_to"] == grogs  # still in play this season
    discarded = t.view("gm")["discard"]["count"]
    end_season(t)
    assert sword not in cards(t, "bob") and grogs in cards(t, "bob")
    assert t.view("gm")["discard"]["count"] == discarded + 1


GRIMOIRE = "Book (Grimoire)"


def test_a_spell_1_a_mage_casts_only_the_spells_it_learned():
    """A-SPELL-1 [000:74] "In order to "learn" a spell, a Mage must have learned at least one of the Arts listed in
    the spell. In order to cast (use) a spell, a Mage must possess all the Arts listed in the spell" with [000:34]
    "Starting mages may have their first two spells assigned to them as soon as they create them (no Book or Lab
    Study required) if at least one of each spell's Arts match theirs" and [000:69] "new spells are acquired via
    Book Study (Grimoire) or Lab Study": Ann's starting mage has the Arts of three spells; the first two she casts
    are assigned to it, the third is refused until a Grimoire teaches it (three counters, [000:437]); a Grimoire
    cannot teach a spell none of whose Arts the mage has."""
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Cr", "Au", "Re", "Ig", "Pe"]})
    mage = t.mage("ann")
    move_all(t, [5, 1, 2])
    d.push([4])
    book = t.run("ann", Generate("ann"))["card_id"]
    assert cards(t, "ann")[book]["name"] == GRIMOIRE
    refused(t, "ann", Keep("ann", book, attach_to=mage, spell="Distractions of Invisible Horrors"), "A-SPELL-1")
    t.run("ann", Keep("ann", book, attach_to=mage, spell="Sphere of Flame"))  # Cr Ig: learnt in three seasons
    assert cards(t, "ann")[book]["counters"] == 3 and cards(t, "ann")[mage]["spells"] == []
    pass_create(t)
    cy_grogs, ann_grogs = named(t, "cy", "Grogs")[0], named(t, "ann", "Grogs")[0]
    t.run("ann", Cast("ann", mage, "Arc of Lightning", cy_grogs, 1))  # the first spell: assigned as it is cast
    pass_until(t, "ann")
    t.run("ann", Cast("ann", mage, "Levitate on Wings of Air", ann_grogs, 1))  # the second
    assert cards(t, "ann")[mage]["spells"] == ["Arc of Lightning", "Levitate on Wings of Air"]
    pass_until(t, "ann")
    refused(t, "ann", Cast("ann", mage, "Sphere of Flame", cy_grogs, 1), "A-SPELL-1")  # not learnt yet
    end_season(t)
    skip_season(t)
    skip_season(t)  # the Grimoire's last counter goes as Autumn ends
    assert "Sphere of Flame" in cards(t, "ann")[mage]["spells"] and book not in cards(t, "ann")
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_until(t, "ann")
    out = t.run("ann", Cast("ann", mage, "Sphere of Flame", cy_grogs, 1))
    assert out["magnitude"] == 1


def test_a_spell_3_a_regular_spell_lasts_the_season_a_year_spell_ends_as_its_phase_begins_a_year_on():
    """A-SPELL-3 [000:70] "Regular spells have instantaneous effect, or remain in effect for the rest of the current
    season" and [000:72] "Spells that specify a year or multiple season duration begin counting seasons at the time
    they are played; unless specified otherwise, the effect ends at the beginning of the same phase in which the
    card was played": Cy's Might of the Bear (regular) is gone when the season ends; Bob's Aegis of the Hearth,
    cast at the Winter Reckoning "For the next year", holds through the next Winter's Main Phase and ends as that
    Winter's Reckoning begins."""
    d = Dice()
    t = fixed_three(d)
    move_all(t, [1, 2, 3])
    pass_create(t)
    pass_until(t, "cy")
    grogs = named(t, "cy", "Grogs")[0]
    t.run("cy", Cast("cy", t.mage("cy"), "Might of the Bear", grogs, 1))
    assert [e["spell"] for e in t.view("ann")["effects"]] == ["Might of the Bear"]
    end_season(t)
    assert t.view("ann")["effects"] == []
    skip_season(t)
    skip_season(t)
    move_all(t, [1, 2, 3])
    pass_create(t)
    end_season_move(t)
    assert t.phase() == "reckoning" and t.view("gm")["game"]["season"] == "winter"
    t.run("bob", Cast("bob", t.mage("bob"), "Aegis of the Hearth", "bob", 3))
    reckon(t)
    for season in ("spring", "summer", "autumn"):
        assert t.view("gm")["game"]["season"] == season and t.view("cy")["effects"][0]["aegis"] == 1
        skip_season(t)
    move_all(t, list(range(1, 4)))
    pass_create(t)
    while t.phase() == "events":
        t.run(t.turn()[0], Pass(t.turn()[0]))
    assert t.phase() == "main" and t.view("cy")["effects"][0]["aegis"] == 1  # the next Winter's Main Phase
    end_season_move(t)
    assert t.phase() == "reckoning" and t.view("cy")["effects"] == []  # ended as the Reckoning began


def test_a_dmg_4_passive_healing_a_season_inactive_without_new_damage_heals_one_point():
    """A-DMG-4 [000:128] "At the end of any season (after Reckoning) in which a mundane being has spent the entire
    season in an inactive state, and during which time no new damage was applied, one point of damage may be
    removed from that being.": Bob's Grogs, struck for 2 in Spring, keep 2 that season (new damage), heal to 1
    after a quiet Summer, and keep 2 after Autumn's new point."""
    d = Dice()
    t = fixed_three(d, arts={"ann": ["Cr", "Au", "Ig", "Pe", "An"]})
    move_all(t, [1, 2, 3])
    pass_create(t)
    grogs = named(t, "bob", "Grogs")[0]
    t.run("ann", Cast("ann", t.mage("ann"), "Arc of Lightning", grogs, 2))
    assert cards(t, "bob")[grogs]["damage"] == 2 and not cards(t, "bob")[grogs]["active"]
    end_season(t)
    assert cards(t, "bob")[grogs]["damage"] == 2  # damaged this season: no healing
    skip_season(t)
    assert cards(t, "bob")[grogs]["damage"] == 1 and not cards(t, "bob")[grogs]["active"]  # a quiet season
    move_all(t, [1, 2, 3])
    pass_create(t)
    t.run("ann", Cast("ann", t.mage("ann"), "Sphere of Flame", grogs, 1))
    end_season(t)
    assert t.view("gm")["game"]["season"] == "winter" and cards(t, "bob")[grogs]["damage"] == 2  # new damage


def test_a_gen_4_a_starting_mage_without_chosen_arts_rolls_two_techniques_and_three_forms():
    """A-GEN-4 [000:185] "To assign Arts randomly to a starting mage, roll a 6-sided die two times (rerolling on 6
    or duplicates) and index into the list of Techniques. Roll a 20-sided die three times (rerolling on
    duplicates), divide by two, rounded up, and index into the list of Forms." with A-AMB-16 "Reroll when the
    Form is a duplicate": Ann's d6 shows 6 (rerolled), 2 (In), 2 (a duplicate), 5 (Re); her d20 1 (An), 2 (An
    again), 20 (Vi), 7 (Co)."""
    d = Dice()
    d.push([6], [2], [2], [5], [1], [2], [20], [7])
    t = fixed_three(d, arts={"ann": []})
    mage = cards(t, "ann")[t.mage("ann")]
    assert sorted(mage["arts"]) == sorted(["In", "Re", "An", "Vi", "Co"])
    assert cards(t, "bob")[t.mage("bob")]["arts"] == ["Pe", "Im", "Vi", "Re", "Mu"]  # chosen, not rolled
    assert d.rolls == []  # eight rolls for Ann alone


def test_a_spell_1_a_game_pinned_to_a_package_that_teaches_no_spell_keeps_casting_by_the_arts():
    """A-SPELL-1 came with the Grimoire that teaches (``teaches: "spell"``, house 1.1.0). A game created before,
    pinned to a package where no Book teaches, could never give a mage a third spell: it keeps its rule, a mage
    casting what its Arts allow. Ann's starting mage casts a third spell unlearnt there, refused under 1.1.0."""
    earlier = copy.deepcopy(house.default_data())
    earlier["version"] = "1.0.0"
    for c in earlier["cards"].values():
        c.pop("teaches", None)
    for options, third_ok in (({"house": "custom", "house_package": earlier}, True), (None, False)):
        d = Dice()
        t = fixed_three(d, arts={"ann": ["Cr", "Au", "Re", "Ig", "Pe"]}, options=options)
        mage = t.mage("ann")
        move_all(t, [5, 1, 2])
        pass_create(t)
        cy_grogs, ann_grogs = named(t, "cy", "Grogs")[0], named(t, "ann", "Grogs")[0]
        t.run("ann", Cast("ann", mage, "Arc of Lightning", cy_grogs, 1))
        pass_until(t, "ann")
        t.run("ann", Cast("ann", mage, "Levitate on Wings of Air", ann_grogs, 1))
        pass_until(t, "ann")
        third = Cast("ann", mage, "Sphere of Flame", cy_grogs, 1)
        if third_ok:
            assert t.run("ann", third)["magnitude"] == 1
        else:
            refused(t, "ann", third, "A-SPELL-1")
