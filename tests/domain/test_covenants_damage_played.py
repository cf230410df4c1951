"""Damage and healing as played (A-DMG-1..3, A-BAT-1 with H-6): a structure's damage adds up across seasons until
it falls at 5; a being of Faerie Might stays active until its damage reaches its Might; a Herbalist heals as a
Main Phase action the player chooses. Commands through the service with explicit dice; state from the views."""

from __future__ import annotations

from domain.covenants.commands import Cast, Heal, Move
from tests.covenants.play import Dice, fixed_three, generate_and_keep, pass_create, pass_main, pass_until, reckon
from tests.domain.test_conformance_covenants_played import moves, refused

WITHERING = "Withering of the Wooden Wall"  # Pe He, 1 damage per pawn to a He structure (house name, [000:526])
ISSANDRA = "Companion: Issandra, Faery Princess"


def card(t, seat: str, card_id: str) -> dict | None:
    return next((c for c in t.view("cy")["covenants"][seat]["cards"] if c["id"] == card_id), None)


def end_season(t, starve: dict | None = None) -> None:
    pass_main(t)
    t.run(t.turn()[0], Move(t.turn()[0], 10))
    reckon(t, starve)


def test_a_dmg_2_a_structures_damage_adds_up_across_seasons_and_it_falls_at_five():
    """A-DMG-2 [000:125] "Structures (animated or not) must take 5 damage to be destroyed—the points are cumulative,
    and cannot be removed except via "repair."": Bob's 3 damage stays through the season's end (no healing for a
    structure, A-DMG-4); Cy's 2 the next season destroy it."""
    d = Dice()
    arts = {"bob": ["Pe", "He", "Cr", "Ig", "Au"], "cy": ["Pe", "He", "Re", "Mu", "An"]}
    t = fixed_three(d, arts=arts)
    moves(t, {"ann": 2, "bob": 1, "cy": 3})
    wall = generate_and_keep(t, d, {"ann": 2})["ann"]  # Improve Covenant (Expansion/Minor), a He structure
    assert card(t, "ann", wall)["active"]  # Spring qualifies: built at once (A-GEN-3)
    pass_until(t, "bob")
    out = t.run("bob", Cast("bob", t.mage("bob"), WITHERING, wall, 3))
    assert out["magnitude"] == 3 and t.view("cy")["covenants"]["bob"]["marked"]  # a rival's structure (A-AGG-1)
    assert card(t, "ann", wall)["damage"] == 3 and card(t, "ann", wall)["active"]  # still standing below 5
    end_season(t)
    assert t.view("cy")["game"]["season"] == "summer" and card(t, "ann", wall)["damage"] == 3
    moves(t, {"ann": 1, "bob": 2, "cy": 3})
    pass_create(t)
    pass_until(t, "cy")
    discarded = t.view("gm")["discard"]["count"]
    t.run("cy", Cast("cy", t.mage("cy"), WITHERING, wall, 2))
    assert card(t, "ann", wall) is None and t.view("gm")["discard"]["count"] == discarded + 1


def faery_and_herbalist(d: Dice):
    """Spring, year one: Ann keeps a Herbalist (cycle 1) and Issandra, Faery Princess (cycle 2), both Personnel."""
    t = fixed_three(d, arts={"bob": ["Cr", "Ig", "Au", "Pe", "Vi"]})
    moves(t, {"ann": 3, "bob": 1, "cy": 2})
    herbalist = generate_and_keep(t, d, {"ann": 14})["ann"]
    pass_main(t)
    moves(t, {"ann": 8, "bob": 4, "cy": 5})
    issandra = generate_and_keep(t, d, {"ann": 20})["ann"]
    assert t.phase() == "main" and t.turn()[0] == "ann"
    return t, herbalist, issandra


def test_a_dmg_3_a_being_of_faerie_might_stays_active_until_its_damage_equals_its_might():
    """A-DMG-3 [000:126] "Beings with Might ratings other than mundane remain active after taking damage until that
    damage equals their Might rating." Issandra's Faery Might is 1, and 2 in Spring ([000:237])."""
    d = Dice()
    t, _, issandra = faery_and_herbalist(d)
    t.run("ann", _pass("ann"))
    t.run("bob", Cast("bob", t.mage("bob"), "Sphere of Flame", issandra, 1))
    assert card(t, "ann", issandra)["damage"] == 1 and card(t, "ann", issandra)["active"]
    pass_until(t, "bob")
    t.run("bob", Cast("bob", t.mage("bob"), "Arc of Lightning", issandra, 1))
    assert card(t, "ann", issandra)["damage"] == 2 and not card(t, "ann", issandra)["active"]


def test_a_dmg_1_a_herbalist_heals_a_damaged_being_as_the_players_main_phase_action():
    """A-DMG-1 [000:121] "Once a mundane being is fully healed (all damage is removed), it is unrotated and becomes
    active again." with the Herbalist [000:249] "This card may heal (remove) 1 point of damage from any other being
    in the same covenant per season." as a Main Phase action the player chooses (the house list's "heal", H-8);
    A-DMG-3: Issandra, healed below her Might, is active again."""
    d = Dice()
    t, herbalist, issandra = faery_and_herbalist(d)
    grogs = next(c["id"] for c in t.view("cy")["covenants"]["ann"]["cards"] if c["name"] == "Grogs")
    refused(t, "ann", Heal("ann", herbalist, grogs), "A-DMG-1")  # nothing to heal yet
    t.run("ann", _pass("ann"))
    t.run("bob", Cast("bob", t.mage("bob"), "Sphere of Flame", grogs, 1))
    pass_until(t, "bob")
    t.run("bob", Cast("bob", t.mage("bob"), "Arc of Lightning", issandra, 2))
    assert not card(t, "ann", grogs)["active"] and not card(t, "ann", issandra)["active"]
    pass_until(t, "ann")
    refused(t, "ann", Heal("ann", herbalist, herbalist), "A-DMG-1")  # "any other being"
    refused(t, "bob", Heal("bob", herbalist, grogs), "A-ORDER-1")
    out = t.run("ann", Heal("ann", herbalist, grogs))
    assert out == {"card_id": grogs, "damage": 0, "active": True}
    assert card(t, "ann", grogs)["active"] and card(t, "ann", grogs)["damage"] == 0
    pass_until(t, "ann")
    refused(t, "ann", Heal("ann", herbalist, issandra), "A-DMG-1")  # once a season
    end_season(t, {"ann": [grogs]})  # Summer: the Herbalist may heal again; Issandra's Might is still 2
    moves(t, {"ann": 1, "bob": 2, "cy": 3})
    pass_create(t)
    pass_until(t, "ann")
    assert t.run("ann", Heal("ann", herbalist, issandra)) == {"card_id": issandra, "damage": 1, "active": True}


def _pass(seat: str):
    from domain.covenants.commands import Pass

    return Pass(seat)


def test_a_dmg_1_an_inactive_mundane_being_is_discarded_at_the_end_of_winter_after_passive_healing():
    """A-DMG-1 [000:122] "At the end of Winter Reckoning, any inactive mundane beings are discarded. This comes after
    any passive healing" with A-DMG-4 and A-AMB-10: in Autumn Bob deals Cy's Grogs 2 and Cy deals Ann's Grogs 1; in
    Winter both spend the whole season inactive without new damage and heal 1: Ann's is healed fully and active
    again, and stays; Cy's is still damaged and inactive, and is discarded."""
    from tests.covenants.play import skip_season

    d = Dice()
    t = fixed_three(d, arts={"bob": ["Cr", "Ig", "Au", "Pe", "Vi"], "cy": ["Cr", "Ig", "Re", "Mu", "An"]})
    for _ in range(2):
        skip_season(t)
    assert t.view("cy")["game"]["season"] == "autumn"
    moves(t, {"ann": 1, "bob": 2, "cy": 3})
    pass_create(t)
    cards = t.view("cy")["covenants"]
    ann_grogs = next(c["id"] for c in cards["ann"]["cards"] if c["name"] == "Grogs")
    cy_grogs = next(c["id"] for c in cards["cy"]["cards"] if c["name"] == "Grogs")
    pass_until(t, "bob")
    t.run("bob", Cast("bob", t.mage("bob"), "Sphere of Flame", cy_grogs, 2))
    t.run("cy", Cast("cy", t.mage("cy"), "Sphere of Flame", ann_grogs, 1))
    end_season(t)
    assert card(t, "cy", cy_grogs)["damage"] == 2 and card(t, "ann", ann_grogs)["damage"] == 1  # new: no healing
    assert t.view("cy")["game"]["season"] == "winter"
    moves(t, {"ann": 1, "bob": 2, "cy": 3})
    pass_create(t)
    end_season(t)
    assert t.view("cy")["game"]["season"] == "spring" and t.view("cy")["game"]["year"] == 2
    assert card(t, "cy", cy_grogs) is None  # healed to 1, still inactive: discarded
    assert card(t, "ann", ann_grogs)["damage"] == 0 and card(t, "ann", ann_grogs)["active"]
