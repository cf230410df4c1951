"""Conformance tests of the pure battle rules (rules/ANALYSIS.md P.2.11 P-BAT-1..14) and the worked examples
P-EX-4, P-EX-5 and P-EX-12, one or more tests per rule id, with explicit dice faces. The armies are the dicts
``domain.powers.armies`` keeps (``_new_army``)."""

from __future__ import annotations

from copy import deepcopy

import pytest

from domain.errors import RuleViolation
from domain.powers import battle_rules as br
from domain.powers.armies import _new_army


def army(army_id: str = "a", units: int = 4, **kw) -> dict:
    """An army as the state keeps it; ``kw`` overrides its stats (``armor`` is the base armor)."""
    stats = {
        "rank": 1,
        "tier": 0,
        "attack": {"die": 6, "bonus": 0},
        "morale": {"die": 6, "bonus": 0},
        "presence": {"die": 6, "bonus": 0},
        "defense": 3,
        "armor_base": kw.pop("armor", 0),
        "mobility": 1,
        "fee": 1,
        "keywords": [],
        "element": None,
        "cls": "infantry",
        "ancestry": None,
        "premium": False,
        "titanic": False,
        "wondrous": False,
    }
    extra = {k: kw.pop(k) for k in ("statuses", "momentum", "controller", "loyal") if k in kw}
    stats.update(kw)
    a = _new_army(
        army_id, army_id.title(), extra.pop("controller", "p1"), stats, units, "0,0", "0,0", False, False, False
    )
    a.update(extra)
    return a


def with_wounds(a: dict, *wounds: int, routed: tuple[int, ...] = ()) -> dict:
    out = deepcopy(a)
    out["units"] = [{"wounds": w, "routed": i in routed} for i, w in enumerate(wounds)]
    return out


def refuses(rule: str, call, *args, **kw) -> RuleViolation:
    with pytest.raises(RuleViolation) as info:
        call(*args, **kw)
    assert info.value.rule == rule, info.value.message
    return info.value


def pure(call, *args, **kw):
    """Call a rule and check it left its army arguments unchanged."""
    before = deepcopy(args)
    out = call(*args, **kw)
    assert args == before, "a pure rule mutated its input"
    return out


# ---------------------------------------------------------------------- P-BAT-1 the combat check


def test_p_bat_1_dice_equal_active_units():
    """P-BAT-1 [003:604]: "armies roll a number of these dice equal to their number of active units (units that are
    not routed or slain)"."""
    a = with_wounds(army(units=5), 0, 1, 0, 0, 0, routed=(2,))
    assert [br.check_dice(a, x) for x in ("attack", "presence", "morale")] == [4, 4, 4]
    assert br.die_size(army(attack={"die": 8, "bonus": 1}), "attack") == 8
    refuses("P-BAT-1", br.check_dice, a, "defense")


def test_p_bat_1_status_dice_per_attribute():
    """P-BAT-1: Strengthened/Weakened change attack dice, Mobile/Pinned presence, Emboldened/Scattered morale,
    Hastened/Frozen every check ([003:810]-[003:817]); opposite statuses counteract; never below 0."""
    a = army(units=4, statuses={"Strengthened": 2, "Pinned": 1, "Emboldened": 1, "Scattered": 3})
    assert (br.check_dice(a, "attack"), br.check_dice(a, "presence"), br.check_dice(a, "morale")) == (6, 3, 2)
    b = army(units=4, statuses={"Hastened": 2, "Frozen": 1, "Weakened": 1})
    assert (br.check_dice(b, "attack"), br.check_dice(b, "presence"), br.check_dice(b, "morale")) == (4, 5, 5)
    assert br.check_dice(army(units=2, statuses={"Frozen": 5}), "morale") == 0


def test_p_bat_1_juggernaut_two_more_presence_dice():
    """P-BAT-1 [003:760] Juggernaut: "+2 dice on presence checks" (only presence)."""
    j = army(units=3, keywords=["juggernaut"])
    assert (br.check_dice(j, "presence"), br.check_dice(j, "attack")) == (5, 3)


def test_p_bat_1_stormblooded_shock_rolls_one_die_per_wounded_unit():
    """P-BAT-1 [003:757] Stormblooded: "when [dealing Shock damage] only rolls as many damage dice as they have
    wounded units"; untyped attacks roll the full size."""
    s = with_wounds(army(units=4, keywords=["stormblooded"]), 1, 0, 1, 0)
    assert br.check_dice(s, "attack", damage="shock") == 2
    assert br.check_dice(s, "attack") == 4
    t = army("t", units=3, defense=3)
    _, hit = br.attack(s, t, [6, 6], command="attack", damage="shock")
    assert hit.successes == 2 and hit.armor_lost == 0 and sum(hit.wounds) == 2  # shock: no armor soaks it
    refuses("P-BAT-1", br.attack, s, t, [6, 6, 6, 6], command="attack", damage="shock")


def test_p_bat_1_successes_match_or_beat_with_static_bonus():
    """P-BAT-1: each die adds the static bonus; count those that "match or beat" the threshold."""
    assert br.count_successes([1, 2, 3, 4], 0, 3) == 2
    assert br.count_successes([1, 2, 3, 4], 1, 3) == 3
    assert br.count_successes([], 5, 1) == 0


def test_p_bat_1_wrong_dice_are_refused():
    """P-BAT-1: the rules say how many dice and what size; other faces are refused."""
    a, t = army("a", units=3), army("t")
    refuses("P-BAT-1", br.attack, a, t, [6, 6])
    refuses("P-BAT-1", br.attack, a, t, [6, 6, 7])


# ---------------------------------------------------------------------- P-BAT-2 the basic attack


def test_p_bat_2_basic_attack_armor_absorbs_first():
    """P-BAT-2 [003:606]: "Threshold: Target's Defense. Difficulty 0. For each excess success, the defending army
    loses a point of armor or takes a wound on a unit"; armor absorbs first (P-AMB-15)."""
    a, t = army("a", units=4), army("t", units=3, defense=4, armor=1)
    new, hit = pure(br.attack, a, t, [4, 3, 6, 5], command="attack")
    assert (hit.threshold, hit.successes, hit.armor_lost, hit.armor_broken) == (4, 3, 1, True)
    assert hit.wounds == (1, 1, 0) and br.current_armor(new) == 0
    assert [u["wounds"] for u in new["units"]] == [1, 1, 0]


def test_p_bat_2_slay_adds_one_to_each_die():
    """P-BAT-2 / P-BAT-3 / P-AMB-12: Slay is "Attack with +1": +1 on each die's static bonus."""
    a, t = army("a", units=2), army("t", defense=4)
    assert br.attack(a, t, [3, 3], command="attack")[1].successes == 0
    assert br.attack(a, t, [3, 3], command="slay")[1].successes == 2
    assert br.attack(a, t, [3, 2], command="charge")[1].successes == 0


def test_p_bat_2_escalation_is_a_bonus_to_attack_rolls():
    """P-BAT-2 / P-AMB-12: "Your escalation is a permanent bonus to attack rolls" ([003:635]): +1 static a point."""
    a, t = army("a", units=3), army("t", defense=5)
    assert br.attack(a, t, [3, 4, 2], command="attack", escalation=2)[1].successes == 2
    refuses("P-BAT-8", br.attack, a, t, [3, 4, 2], escalation=-1)


def test_p_bat_2_defense_modifiers_vulnerable_vanguard_terrain():
    """P-BAT-2: Vulnerable -2 ([003:809]); Vanguard "+1 defense against attacks for each previous attack this
    round" ([003:729]); Mountaineer "+1 attack and defense while in Mountains" ([003:736])."""
    assert br.defense(army(defense=4, statuses={"Vulnerable": 1})) == 2
    assert br.defense(army(defense=1, statuses={"Vulnerable": 3})) == 0
    v = army(defense=4, keywords=["vanguard"])
    assert [br.defense(v, earlier_attacks=n) for n in (0, 1, 3)] == [4, 5, 7]
    assert br.defense(army(defense=4), earlier_attacks=3) == 4
    m = army(defense=3, keywords=["mountaineer"])
    assert (br.defense(m, terrain="mountains"), br.defense(m, terrain="plains")) == (4, 3)
    a = army("a", units=2, keywords=["mountaineer"])
    assert br.attack(a, army("t", defense=4), [3, 3], command="attack", terrain="mountains")[1].successes == 2


def test_p_bat_2_dervishes_add_remaining_momentum_once_a_round():
    """P-BAT-2 [003:694] Dervishes: "Once per round, when attacked, this army may spend a momentum. If they do,
    their remaining momentum is added to their defense for the remainder of the round"."""
    d = army("d", units=4, cls="dervishes", defense=3, momentum=3)
    a = army("a", units=2)
    new, hit = br.attack(a, d, [5, 6], command="attack", reactions=frozenset({"dervishes"}))
    assert (hit.threshold, hit.successes, new["momentum"]) == (5, 2, 2)
    _, hit2 = br.attack(a, new, [4, 6], command="attack")
    assert hit2.threshold == 5  # the guard lasts the round
    refuses("P-BAT-2", br.attack, a, new, [4, 6], reactions=frozenset({"dervishes"}))
    after, _ = br.cleanup(new)
    assert br.defense(after) == 3
    refuses("P-BAT-2", br.attack, a, army("x"), [4, 6], reactions=frozenset({"dervishes"}))


def test_p_bat_2_tortoise_three_more_defense_against_ranged():
    """P-BAT-2 [003:701] Tortoise: "When receiving a ranged or airborne attack, this army can spend a momentum to
    gain +3 defense against the attack"; not against melee."""
    t = army("t", units=3, cls="tortoise", defense=3, momentum=1)
    archers = army("a", units=2, cls="archers")
    new, hit = br.attack(archers, t, [6, 5], command="attack", reactions=frozenset({"tortoise"}))
    assert (hit.threshold, hit.successes, new["momentum"]) == (6, 1, 0)
    refuses("P-BAT-2", br.attack, army("m", units=2), t, [6, 5], reactions=frozenset({"tortoise"}))
    refuses("P-BAT-3", br.attack, archers, new, [6, 5], reactions=frozenset({"tortoise"}))


def test_p_bat_2_needler_halves_threshold_and_successes():
    """P-BAT-2 [003:722] Needler: "halve the threshold for success ... and the number of successes. Round down
    both times"."""
    n = army("n", units=5, keywords=["needler"])
    t = army("t", units=4, defense=5)
    _, hit = br.attack(n, t, [2, 2, 2, 1, 6], command="attack", options=frozenset({"needler"}))
    assert (hit.threshold, hit.successes, sum(hit.wounds)) == (2, 2, 2)
    _, plain = br.attack(n, t, [2, 2, 2, 1, 6], command="attack")
    assert plain.successes == 1
    refuses("P-BAT-2", br.attack, army("x", units=5), t, [2, 2, 2, 1, 6], options=frozenset({"needler"}))


def test_p_bat_2_slayer_doubles_threshold_two_wounds_a_success_on_one_unit():
    """P-BAT-2 [003:727] Slayer: "double the threshold ... to deal two wounds per success. Each pair of wounds is
    applied to the same unit. Conflicts with Needler"."""
    s = army("s", units=3, keywords=["slayer", "needler"])
    t = army("t", units=3, defense=3)
    new, hit = br.attack(s, t, [6, 5, 6], command="attack", options=frozenset({"slayer"}))
    assert (hit.threshold, hit.successes, hit.wounds, hit.slain) == (6, 2, (2, 2, 0), 2)
    assert len(new["units"]) == 1
    refuses("P-BAT-2", br.attack, s, t, [6, 5, 6], options=frozenset({"slayer", "needler"}))


def test_p_bat_2_axes_destroy_two_armor_a_point():
    """P-BAT-2 [003:695] Axes: "each point of damage destroys two points of armor"."""
    axes = army("x", units=3, cls="axes")
    t = army("t", units=3, defense=3, armor=4)
    _, hit = br.attack(axes, t, [6, 6, 6], command="attack", options=frozenset({"axes"}))
    assert (hit.armor_lost, sum(hit.wounds)) == (4, 1)
    _, plain = br.attack(axes, t, [6, 6, 6], command="attack")
    assert (plain.armor_lost, sum(plain.wounds)) == (3, 0)


def test_p_bat_2_agile_dodges_wounds_with_momentum():
    """P-BAT-2 [003:720] Agile: "spend Momentum to dodge incoming attacks, absorbing wounds like armor"."""
    t = army("t", units=3, defense=3, momentum=2, ancestry="triumph_elves")
    new, hit = br.attack(army("a", units=3), t, [6, 6, 6], command="attack", dodge=2)
    assert (sum(hit.wounds), new["momentum"]) == (1, 0)
    refuses("P-BAT-2", br.attack, army("a", units=3), army("x"), [6, 6, 6], dodge=1)


# ---------------------------------------------------------------------- P-BAT-3 commands


def test_p_bat_3_commands_slay_hold_charge_rest():
    """P-BAT-3 [003:585]-[003:588]: Slay attacks, Hold applies presence, Charge spends a momentum to do both, Rest
    gains a momentum and restores armor."""
    assert br.COMMANDS == ("slay", "hold", "charge", "rest")
    assert br.command_parts("slay") == (True, False, 0)
    assert br.command_parts("hold") == (False, True, 0)
    assert br.command_parts("charge", army(momentum=1)) == (True, True, 1)
    assert br.command_parts("rest") == (False, False, 0)
    refuses("P-BAT-3", br.command_parts, "flee")


def test_p_bat_3_charge_without_momentum_is_refused():
    """P-BAT-3: Charge "Spend a momentum to Attack and Apply Presence"; with none it is refused naming P-BAT-3."""
    a = army(momentum=0)
    refuses("P-BAT-3", br.command_parts, "charge", a)
    refuses("P-BAT-3", br.spend_momentum, a)
    b = pure(br.spend_momentum, army(momentum=2))
    assert b["momentum"] == 1
    refuses("P-BAT-3", br.spend_momentum, army(momentum=2), 3)


def test_p_bat_3_rest_gains_momentum_and_restores_armor_to_maximum():
    """P-BAT-3 / P-AMB-15: Rest: +1 momentum, armor back to its maximum (equipment + base); Burning: "You cannot
    gain or restore armor" ([003:807])."""
    a = army(units=3, armor=1, tier=2, momentum=0)
    a["armor"] = 0
    r = pure(br.rest, a)
    assert (r["momentum"], br.current_armor(r)) == (1, 3)
    burning = deepcopy(a)
    burning["statuses"] = {"Burning": 2}
    rb = br.rest(burning)
    assert (rb["momentum"], br.current_armor(rb)) == (1, 0)
    full = army(units=1, momentum=1)
    assert br.rest(full)["momentum"] == 1  # capped at the size (P-BAT-7)


def test_p_bat_3_special_commands_once_per_battle():
    """P-BAT-3 [003:590]: "Generally, these special commands can only be used once per battle"."""
    br.check_special("Volley", [])
    refuses("P-BAT-3", br.check_special, "Volley", ["Volley"])


def test_p_bat_3_shieldbearers_restore_twice_the_momentum_spent():
    """P-BAT-3 [003:700] Shieldbearers: "spend momentum to restore up to twice that much armor"."""
    s = army(units=3, cls="shieldbearers", armor=1, tier=3, momentum=2)
    s["armor"] = 0
    r = br.restore_armor(s, 1)
    assert (br.current_armor(r), r["momentum"]) == (2, 1)
    assert br.current_armor(br.restore_armor(s, 2)) == 4
    refuses("P-BAT-3", br.restore_armor, army(momentum=2), 1)


# ---------------------------------------------------------------------- P-BAT-4 units and wounds


def test_p_bat_4_a_unit_dies_at_its_second_wound_and_is_removed():
    """P-BAT-4 / P-AMB-14: a unit dies at its 2nd wound; slain units leave ``units``."""
    t = with_wounds(army("t", units=3, defense=3), 1, 0, 0)
    new, hit = br.attack(army("a", units=1), t, [6], command="attack", allocation=[0])
    assert (hit.slain, len(new["units"]), br.size(new)) == (1, 2, 2)


def test_p_bat_4_giants_monsters_zombies_die_at_the_third():
    """P-BAT-4 [003:710]: "Each unit can survive two wounds, dying on the third" (Giant, Monster, Zombies)."""
    for kw in ({"cls": "giant", "titanic": True}, {"cls": "monster", "titanic": True}, {"ancestry": "zombies"}):
        t = with_wounds(army("t", units=2, **kw), 1, 0)
        new, hit = br.attack(army("a", units=1), t, [6], command="attack", allocation=[0])
        assert (hit.slain, new["units"][0]["wounds"]) == (0, 2), kw
        new2, hit2 = br.attack(army("a", units=1), new, [6], command="attack", allocation=[0])
        assert hit2.slain == 1 and len(new2["units"]) == 1


def test_p_bat_4_size_counts_active_units_and_wounds_go_to_them():
    """P-BAT-4 [003:595]: Size = active units (not routed or slain); wounds are allocated to active units."""
    t = with_wounds(army("t", units=3), 0, 0, 0, routed=(0,))
    assert br.size(t) == 2
    new, hit = br.attack(army("a", units=2), t, [6, 6], command="attack")
    assert hit.wounds == (0, 1, 1)
    refuses("P-BAT-6", br.attack, army("a", units=2), t, [6, 6], allocation=[0])
    refuses("P-BAT-6", br.attack, army("a", units=2), t, [6, 6], allocation=[7])


def test_p_bat_4_destroyed_when_last_unit_lost_to_wounds_or_rout():
    """P-BAT-4 [003:612]: "When an army loses its last unit to either wounds or rout, it is destroyed"."""
    assert br.destroyed(with_wounds(army(units=2), 0, 1, routed=(0, 1)))
    assert not br.destroyed(with_wounds(army(units=2), 0, 1, routed=(0,)))
    t = with_wounds(army("t", units=1), 1)
    new, _ = br.attack(army("a", units=1), t, [6], command="attack")
    assert new["units"] == [] and br.destroyed(new)
    refuses("P-BAT-4", br.attack, army("a", units=1), new, [6])


# ---------------------------------------------------------------------- P-BAT-5 armor


def test_p_bat_5_armor_soaks_only_untyped_damage_unless_arcanists():
    """P-BAT-5 [003:600]: "Armor applies only to untyped damage, not elemental damage"; Arcanists: "Armor functions
    against elemental damage types" ([003:749])."""
    a = army("a", units=2)
    t = army("t", units=3, armor=2)
    _, hit = br.attack(a, t, [6, 6], command="attack", damage="burn")
    assert (hit.armor_lost, sum(hit.wounds)) == (0, 2)
    arc = army("t", units=3, armor=2, keywords=["arcanists"])
    _, hit2 = br.attack(a, arc, [6, 6], command="attack", damage="burn")
    assert (hit2.armor_lost, sum(hit2.wounds)) == (2, 0)
    hammers = army("h", units=2, cls="hammers")
    _, crush = br.attack(hammers, t, [6, 6], command="attack", options=frozenset({"hammers"}))
    assert crush.damage == "crush" and crush.armor_lost == 0


def test_p_bat_5_element_resists_one_wound_immunized_three():
    """P-BAT-5 [003:626]: "Armies resist one wound whenever they take damage of a type matching their element";
    Immunized "resists a total of 3 wounds" ([003:724]); Wild Element resists every terrestrial type ([003:731])."""
    a = army("a", units=4)
    fire = army("t", units=4, element="F")
    _, hit = br.attack(a, fire, [6, 6, 6, 6], command="attack", damage="burn")
    assert (hit.resisted, sum(hit.wounds)) == (1, 3)
    _, other = br.attack(a, fire, [6, 6, 6, 6], command="attack", damage="freeze")
    assert (other.resisted, sum(other.wounds)) == (0, 4)
    imm = army("t", units=4, element="F", keywords=["immunized"])
    assert br.attack(a, imm, [6, 6, 6, 6], command="attack", damage="burn")[1].resisted == 3
    wild = army("t", units=4, ancestry="diverse")
    assert br.attack(a, wild, [6, 6, 6, 6], command="attack", damage="shock")[1].resisted == 1
    assert br.attack(a, wild, [6, 6, 6, 6], command="attack", damage="void")[1].resisted == 0
    refuses("P-BAT-5", br.attack, a, fire, [6, 6, 6, 6], damage="acid")


def test_p_bat_5_armor_broken_triggers_momentum():
    """P-BAT-5: armor "is broken when the last point is removed" ([003:601]): Deep Dwarves gain momentum when their
    armor breaks ([003:776]), Diverse when breaking an enemy's ([003:778]), Mountain Dwarves when an ally's does
    ([003:777])."""
    dd = army("t", units=3, armor=1, ancestry="deep_dwarves")
    new, hit = br.attack(army("a", units=1), dd, [6], command="attack")
    assert hit.armor_broken and new["momentum"] == 1
    div = army("d", units=1, ancestry="diverse")
    assert br.attacker_momentum(div, hit)["momentum"] == 1
    assert br.ally_momentum(army("m", ancestry="mountain_dwarves"), hit)["momentum"] == 1
    _, unbroken = br.attack(army("a", units=1), army("t", armor=2), [6], command="attack")
    assert not unbroken.armor_broken and br.attacker_momentum(div, unbroken)["momentum"] == 0


# ---------------------------------------------------------------------- P-BAT-6 bloodied and rout


def test_p_bat_6_raising_bloodied_forces_half_size_routs():
    """P-BAT-6 [003:610]: "When an attack increases the target's Bloodied status, they inflict routs equal to half
    the target's size (always round down)"; a new wound on a fresh unit does not raise Bloodied 1 again; a wound on
    a wounded unit raises it to 2."""
    t = army("t", units=5)
    a = army("a", units=1)
    t1, h1 = br.attack(a, t, [6], command="attack")
    assert (h1.bloodied_raised, h1.routs_due, br.status(t1, "Bloodied")) == (True, 2, 1)
    t2, h2 = br.attack(a, t1, [6], command="attack")
    assert (h2.bloodied_raised, h2.routs_due) == (False, 0)
    _, h3 = br.attack(a, t2, [6], command="attack", allocation=[0])
    assert (h3.bloodied_raised, h3.slain, h3.routs_due) == (True, 1, 2)  # 4 left: 4 // 2


def test_p_bat_6_bloodied_counts_only_this_battles_wounds():
    """P-BAT-6 / P-AMB-36: Bloodied counts only wounds received in this battle, not scars."""
    t = with_wounds(army("t", units=3, cls="giant", titanic=True), 1, 0, 0)
    new, hit = br.attack(army("a", units=1), t, [6], command="attack", allocation=[0])
    assert (new["units"][0]["wounds"], br.status(new, "Bloodied"), hit.routs_due) == (2, 1, 1)


def test_p_bat_6_morale_check_at_attacker_rank_one_fewer_rout_a_success():
    """P-BAT-6: dice = active units, each die morale die + static bonus, threshold = the attacker's rank, routs =
    max(0, routs_due - successes); the defender routs the most wounded first ([003:612])."""
    t = with_wounds(army("t", units=4, morale={"die": 6, "bonus": 1}), 0, 1, 0, 0)
    assert br.morale_dice(t) == 4
    new, routs = pure(br.morale, t, [3, 1, 2, 1], 4, 2)
    assert routs == 1 and new["units"][1]["routed"] and br.size(new) == 3
    _, none = br.morale(t, [6, 6, 1, 1], 4, 2)
    assert none == 0
    chosen, _ = br.morale(t, [1, 1, 1, 1], 4, 1, allocation=[3])
    assert chosen["units"][3]["routed"] and not chosen["units"][1]["routed"]
    refuses("P-BAT-6", br.morale, t, [1, 1, 1], 4, 2)


def test_p_bat_6_fearful_attacker_routs_due_full_size():
    """P-BAT-6 [003:723] Fearful: "the target's morale check has difficulty equal to their size, rather than half"."""
    _, hit = br.attack(army("f", units=1, keywords=["fearful"]), army("t", units=5), [6], command="attack")
    assert hit.routs_due == 5


def test_p_bat_6_bloodlust_lets_the_attacker_allocate():
    """P-BAT-6 [003:721] Bloodlust: "When attacking, this army chooses how wounds are distributed"."""
    assert br.allocator(army(keywords=["bloodlust"])) == "attacker"
    assert br.allocator(army()) == "defender"
    t = army("t", units=3)
    new, hit = br.attack(army("b", units=2, keywords=["bloodlust"]), t, [6, 6], command="attack", allocation=[2, 2])
    assert hit.wounds == (0, 0, 2) and hit.slain == 1


def test_p_bat_6_nightmare_routs_instead_of_wounding():
    """P-BAT-6 [003:758] Nightmare: "Whenever an attack this army makes would inflict a wound, instead rout a unit"."""
    t = with_wounds(army("t", units=4), 0, 1, 0, 0)
    new, hit = br.attack(army("n", units=2, keywords=["nightmare"]), t, [6, 6], command="attack")
    assert (hit.routed, sum(hit.wounds), hit.bloodied_raised, br.size(new)) == (2, 0, False, 2)
    assert new["units"][1]["routed"]


def test_p_bat_6_alien_mind_makes_no_morale_check():
    """P-BAT-6 [003:759] Alien Mind: "Doesn't make morale checks when bloodied"."""
    _, hit = br.attack(army("a", units=1), army("t", units=4, ancestry="antinium"), [6], command="attack")
    assert hit.bloodied_raised and hit.routs_due == 0


# ---------------------------------------------------------------------- P-BAT-7 momentum


def test_p_bat_7_momentum_capped_at_active_units():
    """P-BAT-7 [003:602]: "Momentum is capped at the number of active units"."""
    a = with_wounds(army(units=3, momentum=3), 0, 0, 0, routed=(0, 1))
    assert pure(br.cap_momentum, a)["momentum"] == 1
    assert br.gain_momentum(army(units=2, momentum=2))["momentum"] == 2
    t = army("t", units=4, momentum=4)
    new, _ = br.morale(t, [1, 1, 1, 1], 4, 2)
    assert new["momentum"] == 2


def test_p_bat_7_starting_momentum_skirmisher_cooks_recluse_elves():
    """P-BAT-7: Skirmisher starts with 2 ([003:726], Gnolls have it); Cooks give +1 to the OTHER armies on their
    side, not stacking ([003:750]); Recluse Elves 3 - friendly armies present ([003:780])."""
    cooks = army("c", keywords=["cooks"])
    assert br.starting_momentum(army("s", keywords=["skirmisher"]), []) == 2
    assert br.starting_momentum(army("g", ancestry="gnolls"), []) == 2
    assert br.starting_momentum(army("x"), [cooks]) == 1
    assert br.starting_momentum(army("x"), [cooks, army("c2", keywords=["cooks"])]) == 1
    assert br.starting_momentum(cooks, [cooks]) == 0
    elves = army("e", ancestry="recluse_elves")
    assert [br.starting_momentum(elves, [army(f"f{i}") for i in range(n)]) for n in (0, 1, 2, 4)] == [3, 2, 1, 0]
    assert br.starting_momentum(army("h", ancestry="horselords"), [], round_no=3) == 3
    assert br.starting_momentum(army("s", units=1, keywords=["skirmisher"]), []) == 1


def test_p_bat_7_skeletons_cannot_gain_momentum():
    """P-BAT-7 [003:788] Skeletons: "Cannot gain momentum"."""
    sk = army("k", ancestry="skeletons", keywords=["skirmisher"])
    assert br.starting_momentum(sk, [army("c", keywords=["cooks"])]) == 0
    assert br.gain_momentum(sk)["momentum"] == 0
    assert br.rest(sk)["momentum"] == 0


# ---------------------------------------------------------------------- P-BAT-8 goals


def test_p_bat_8_presence_check_hold_adds_one():
    """P-BAT-8 [003:630]: an army applying presence rolls a presence check against the goal's threshold; Hold adds
    +1 (P-AMB-12), Charge does not; Engineers +2 against wall goals ([003:744])."""
    a = army(units=3)
    assert br.presence(a, [2, 3, 1], 3, command="hold") == 2
    assert br.presence(a, [2, 3, 1], 3, command="charge") == 1
    eng = army(units=3, keywords=["engineers"])
    assert br.presence(eng, [1, 1, 2], 4, command="charge", wall_goal=True) == 1
    refuses("P-BAT-1", br.presence, a, [2, 3], 3)
    refuses("P-BAT-3", br.presence, a, [2, 3, 1], 3, command="slay")


def test_p_bat_8_more_successes_win_ties_go_to_nobody():
    """P-BAT-8 [003:579]: "No one wins ties"; whichever side has more presence successes on a goal gains it."""
    got = br.score_goals({"initiative": {"A": 2, "B": 3}, "advance": {"A": 1, "B": 1}, "hill": {"A": 0, "B": 0}})
    assert got == {"initiative": "B", "advance": None, "hill": None}
    assert br.score_goals({"advance": {"A": 1}}) == {"advance": "A"}
    assert br.BASE_GOALS == {"initiative": (3, 3), "advance": (2, 2)}
    assert br.advance_escalation(1) == 2


def test_p_bat_8_walls_stop_attackers_scoring_advance():
    """P-BAT-8 [003:639] Walls: "While this goal remains, attackers may not score Advance Goals"."""
    s = {"advance": {"att": 3, "def": 1}, "initiative": {"att": 3, "def": 1}}
    assert br.score_goals(s, walls_standing=True, attackers="att") == {"advance": None, "initiative": "att"}
    assert br.score_goals(s, walls_standing=False, attackers="att")["advance"] == "att"
    assert br.score_goals({"advance": {"att": 0, "def": 2}}, walls_standing=True, attackers="att")["advance"] == "def"


# ---------------------------------------------------------------------- P-BAT-9 surrender


def test_p_bat_9_surrender_spends_escalation_and_needs_some():
    """P-BAT-9 [003:580]: "Any side with escalation may spend 1 escalation to offer terms of surrender ... the
    escalation is spent either way"; with none the offer is refused naming P-BAT-9."""
    assert br.offer_surrender(2) == 1
    assert br.offer_surrender(1) == 0
    refuses("P-BAT-9", br.offer_surrender, 0)


# ---------------------------------------------------------------------- P-BAT-10 round limit


def test_p_bat_10_battle_lasts_at_most_seven_rounds():
    """P-BAT-10 [003:651]: "A battle ends when only one side has active armies remaining or at the end of 7
    rounds"."""
    sides = {"A": [army("a")], "B": [army("b")]}
    assert br.MAX_ROUNDS == 7
    assert br.STEPS == ("deployment", "spellcasting", "commands", "goals", "cleanup")
    assert [br.battle_ends(r, sides) for r in (1, 6, 7)] == [False, False, True]
    gone = {"A": [army("a")], "B": [with_wounds(army("b", units=1), 0, routed=(0,))]}
    assert br.battle_ends(2, gone)
    assert br.battle_ends(2, sides, surrendered=True)


def test_p_bat_10_initiative_at_the_start_goes_to_fewer_armies():
    """P.1.3 [003:578] / P-AMB-22: the side with fewer deployed armies has the first initiative; on a tie, the
    defender."""
    assert br.first_initiative({"A": 3, "B": 2}) == "B"
    assert br.first_initiative({"A": 2, "B": 2}, defender="A") == "A"
    assert br.first_initiative({"A": 2, "B": 2}) is None


# ---------------------------------------------------------------------- P-BAT-11 deployment triggers


def test_p_bat_11_demon_deployment_routs_opposed_mortals_per_missing_success():
    """P-BAT-11 [003:708]: "When this army is deployed, opposed mortal armies make a morale check with threshold 2;
    routing a unit for each missing success" (missing against the dice rolled, P-AMB-16); undead are not mortal."""
    demon = army("dm", units=1, cls="demon", titanic=True)
    mortals = army("m", units=4, statuses={"Emboldened": 1})
    undead = army("u", units=3, ancestry="skeletons")
    checks = br.deployment_checks(demon, [mortals, undead])
    assert checks == [("m", 5, 2)]
    faces = [1, 2, 1, 3, 1]
    successes = br.count_successes(faces, mortals["morale"]["bonus"], 2)
    assert br.deployment_routs(5, successes) == 3
    assert br.deployment_checks(army("x", cls="devil", titanic=True), [mortals])[0][2] == 2
    assert br.deployment_checks(army("i"), [mortals]) == []


def test_p_bat_11_repulsive_allies_take_a_rank_two_morale_challenge():
    """P-BAT-11 [003:769] Repulsive: "When this army joins a battle on the same side as mortal units, those units
    must pass a rank 2 morale challenge" (routs_due = size // 2, P-AMB-16)."""
    ghouls = army("g", units=3, ancestry="ghouls")
    ally = army("m", units=5)
    checks = br.repulsive_checks(ghouls, [ghouls, ally, army("z", ancestry="zombies")])
    assert checks == [("m", 5, 2, 2)]
    _, routed = br.morale(ally, [1, 1, 2, 1, 1], 2, 2)
    assert routed == 1
    assert br.repulsive_checks(army("x"), [ally]) == []


# ---------------------------------------------------------------------- P-BAT-12 battle statuses


def test_p_bat_12_statuses_tick_down_valiant_twice_for_negative():
    """P-BAT-12 [003:581]: statuses "all tick down by 1"; Valiant: "Negative statuses tick down by 2" ([003:728]);
    Bloodied (a tracker) and Delayed (P-BAT-14) are not ticked by Cleanup."""
    a = army(statuses={"Strengthened": 2, "Vulnerable": 1, "Bloodied": 1, "Delayed": 2})
    new, lines = pure(br.cleanup, a)
    assert new["statuses"] == {"Strengthened": 1, "Bloodied": 1, "Delayed": 2}
    assert any("Vulnerable" in line for line in lines)
    v = army(keywords=["valiant"], statuses={"Weakened": 3, "Hastened": 3})
    assert br.cleanup(v)[0]["statuses"] == {"Weakened": 1, "Hastened": 2}


def test_p_bat_12_burning_one_burn_wound_each_cleanup():
    """P-BAT-12 [003:807] Burning: "Take 1 wound from Burn each cleanup"; armor does not soak it; the Fire element
    resists it."""
    a = army(units=2, armor=2, statuses={"Burning": 2})
    new, lines = br.cleanup(a)
    assert [u["wounds"] for u in new["units"]] == [1, 0] and br.current_armor(new) == 2
    assert new["statuses"] == {"Burning": 1, "Bloodied": 1} and lines
    fire = army(units=2, element="F", statuses={"Burning": 1})
    assert [u["wounds"] for u in br.cleanup(fire)[0]["units"]] == [0, 0]


def test_p_bat_12_frightened_rank_x_morale_challenge_before_tick_down():
    """P-BAT-12 [003:808] Frightened: "Roll a rank X morale challenge during each cleanup (before ticking down)"."""
    a = army(units=4, statuses={"Frightened": 3})
    assert br.cleanup_dice(a) == 4 and br.cleanup_dice(army()) == 0
    refuses("P-BAT-12", br.cleanup, a)
    new, lines = br.cleanup(a, [3, 1, 1, 1])
    assert br.size(new) == 3 and new["statuses"] == {"Frightened": 2}
    both = army(units=2, statuses={"Frightened": 2, "Burning": 1})
    both["units"][0]["wounds"] = 1
    assert br.cleanup_dice(both) == 2  # the burn wound lands on the fresh unit: nobody dies
    both["units"][1]["wounds"] = 1
    assert br.cleanup_dice(both) == 1  # the burn slays one before the check


def test_p_bat_12_taunt_and_flying_decide_valid_targets():
    """P-BAT-12: Taunt "Enemy armies must make their melee attacks against you if able"; Flying: "You cannot be
    targeted by melee attacks. Your melee attacks are instead Airborne" ([003:818]-[003:819])."""
    melee = army("m")
    flyer = army("f", statuses={"Flying": 1})
    taunt = army("t", statuses={"Taunt": 3})
    plain = army("p")
    assert br.valid_targets(melee, [flyer, plain]) == ["p"]
    assert br.valid_targets(melee, [flyer, taunt, plain]) == ["t"]
    assert br.valid_targets(army("a", cls="archers"), [flyer, taunt, plain]) == ["f", "t", "p"]
    assert br.attack_kind(flyer) == "airborne"
    refuses("P-BAT-12", br.check_target, melee, plain, [taunt, plain])
    refuses("P-BAT-12", br.check_target, melee, flyer, [flyer, plain])


def test_p_bat_12_flying_sources_by_round_parity():
    """P-BAT-12: Angel gains Flying 1 at even rounds, Dragon and Flapping at odd ([003:706], [003:707], [003:762]);
    a War Balloon starts with Flying 1 and Stealthy with Strengthened 1 ([003:712], [003:739])."""
    angel, dragon = army("a", cls="angel", titanic=True), army("d", cls="dragon", titanic=True)
    harpies = army("h", ancestry="harpies")
    assert [br.round_statuses(angel, r) for r in (1, 2)] == [{}, {"Flying": 1}]
    assert [br.round_statuses(dragon, r) for r in (1, 2)] == [{"Flying": 1}, {}]
    assert br.round_statuses(harpies, 3) == {"Flying": 1}
    assert br.starting_statuses(army("b", cls="war_balloon", titanic=True)) == {"Flying": 1}
    assert br.starting_statuses(army("s", keywords=["stealthy"])) == {"Strengthened": 1}
    assert br.add_statuses(army(statuses={"Flying": 1}), {"Flying": 2})["statuses"] == {"Flying": 3}


# ---------------------------------------------------------------------- P-BAT-13 after the battle


def test_p_bat_13_experience_rank_counts_armies_that_lost_units():
    """P-BAT-13 [003:651]: "count the armies that permanently lost at least one unit. Every army that survived the
    battle gains a one-use Experience asset of that rank" (P-AMB-40); routed units are not lost."""
    before = {"a": army("a", units=4), "b": army("b", units=3), "c": army("c", units=2), "d": army("d", units=2)}
    after = {
        "a": with_wounds(before["a"], 1, 1, 0),  # lost one
        "b": with_wounds(before["b"], 0, 0, 0, routed=(0, 1)),  # routed only
        "c": with_wounds(before["c"], 1, routed=(0,)),  # lost one, the other routed: destroyed
    }  # d was wiped out
    m = pure(br.after_battle, before, after)
    assert m.experience_rank == 3 and m.lost == ("a", "c", "d")
    assert m.survivors == ("a", "b")


def test_p_bat_13_fear_scoundrels_fees_intimidation():
    """P-BAT-13: fear users gain "the number of units they slew plus the rank of the highest ranked unit they slew"
    ([003:175]); Scoundrels "1 coin every time they slay a unit" ([003:747]); fees are due ([003:625]);
    Intimidation: + the highest level among opposing armies (P-INFL-5)."""
    before = {
        "a": army("a", controller="p1", keywords=["scoundrels"], fee=2),
        "b": army("b", controller="p2", rank=3, fee=1),
        "c": army("c", controller="p2", rank=2, loyal=True),
    }
    kills = [("a", "b", 2), ("a", "c", 1)]
    m = br.after_battle(
        before,
        before,
        fear_users={"p1"},
        kills=kills,
        sides={"a": "x", "b": "y", "c": "y"},
        intimidators={"p1"},
        winner="x",
    )
    assert m.fear == {"p1": 3 + 3} and m.coin == {"p1": 3}
    assert m.fees == {"p1": 2, "p2": 1} and m.influence == {"p1": 3}
    assert br.after_battle(before, before, kills=kills).fear == {}
    lost = br.after_battle(before, before, sides={"a": "x", "b": "y", "c": "y"}, intimidators={"p1"}, winner="y")
    assert lost.influence == {}


def test_p_bat_13_clear_battle_restores_armor_keeps_wounds():
    """P-BAT-13 / P-EX-4: armor lost in battle is no permanent loss; wounds and routs stay until recovery."""
    t = army("t", units=2, armor=2)
    hit_t, _ = br.attack(army("a", units=3), t, [6, 6, 6], command="attack")
    done = br.clear_battle(hit_t)
    assert br.current_armor(done) == 2 and done["units"] == [
        {"wounds": 1, "routed": False},
        {"wounds": 0, "routed": False},
    ]
    assert done["statuses"] == {}


# ---------------------------------------------------------------------- P-BAT-14 reinforcements


def test_p_bat_14_delayed_arrives_at_zero_ticks_at_cleanup():
    """P-BAT-14 [003:563] / P-AMB-44: "marked with Delayed X ... added when Delayed reaches 0"; X drops by 1 at
    each round's Cleanup; Delayed 0 deploys in round 1."""
    r = army(statuses={"Delayed": 2})
    assert not br.arrives(r)
    r1 = pure(br.tick_delayed, r)
    assert br.status(r1, "Delayed") == 1 and not br.arrives(r1)
    r2 = br.tick_delayed(r1)
    assert br.arrives(r2) and r2["statuses"] == {}
    assert br.arrives(army())
    assert br.arrives(army(statuses={"delayed": 0}))


# ---------------------------------------------------------------------- worked examples


def test_p_ex_4_knights_absorb_seven():
    """P-EX-4 [003:608]: "The Knights of Count Caliphrase have 4 units and 3 armor, so they can take 7 wounds
    without permanent losses": 7 untyped excess successes -> armor 0 (broken), one wound on each unit, none dead,
    Bloodied 1, routs_due 2; an 8th kills a unit."""
    knights = army("knights", units=4, armor=3, defense=4)
    foe = army("foe", units=8)
    new, hit = br.attack(foe, knights, [6, 6, 6, 6, 6, 6, 6, 1], command="attack")
    assert (hit.successes, br.current_armor(new), hit.armor_broken) == (7, 0, True)
    assert hit.wounds == (1, 1, 1, 1) and hit.slain == 0
    assert (br.status(new, "Bloodied"), hit.routs_due) == (1, 2)
    new2, hit2 = br.attack(foe, knights, [6] * 8, command="attack")
    assert hit2.slain == 1 and len(new2["units"]) == 3


def _fangs() -> dict:
    """The Fangs of Grim Harbors: a rank 4 army of gnolls, 4 active units, untyped basic attack."""
    return army("fangs", units=4, rank=4, ancestry="gnolls")


def test_p_ex_5_derop_levy_text_fixture():
    """P-EX-5 [003:614], the analysis's recommended fixture "reproduces text" (P-AMB-17 decision): Defense 4 and
    morale d4+1. The Fangs roll 6,3,4,2 (basic attack, no Slay +1): 2 successes "tears through the armor and
    inflicts 1 wound"; Bloodied 1, routs_due 2; morale 1,2,1,2,3 +1 at threshold 4: only the 3 succeeds, "so 1
    is immediately routed"."""
    levy = army("levy", units=5, armor=1, defense=4, morale={"die": 4, "bonus": 1}, ancestry="mountain_dwarves")
    new, hit = br.attack(_fangs(), levy, [6, 3, 4, 2], command="attack")
    assert (hit.successes, hit.armor_lost, br.current_armor(new), sum(hit.wounds)) == (2, 1, 0, 1)
    assert (br.status(new, "Bloodied"), hit.routs_due) == (1, 2)
    after, routed = br.morale(new, [1, 2, 1, 2, 3], _fangs()["rank"], hit.routs_due)
    assert routed == 1 and br.size(after) == 4


def test_p_ex_5_derop_levy_fixture_A_prose_stats():
    """P-EX-5 fixture A (the prose's stats, Defense 3, morale d4+1): 3 successes, armor 0, 2 wounds on two units,
    Bloodied 1, routs_due 2, morale 2,3,2,3,4 -> 1 success, 1 routed, 4 active."""
    levy = army("levy", units=5, armor=1, defense=3, morale={"die": 4, "bonus": 1})
    new, hit = br.attack(_fangs(), levy, [6, 3, 4, 2], command="attack")
    assert (hit.successes, br.current_armor(new), hit.wounds) == (3, 0, (1, 1, 0, 0, 0))
    assert (br.status(new, "Bloodied"), hit.routs_due) == (1, 2)
    after, routed = br.morale(new, [1, 2, 1, 2, 3], 4, hit.routs_due)
    assert routed == 1 and br.size(after) == 4


def test_p_ex_5_derop_levy_fixture_B_stat_block():
    """P-EX-5 fixture B (the Derop Levy stat block [003:833]: Defense 4, morale d6+0): 2 successes, armor 0, 1
    wound, Bloodied 1, routs_due 2, morale 1,2,1,2,3 -> 0 successes, 2 routed, 3 active."""
    levy = army("levy", units=5, armor=1, defense=4, morale={"die": 6, "bonus": 0})
    new, hit = br.attack(_fangs(), levy, [6, 3, 4, 2], command="attack")
    assert (hit.successes, br.current_armor(new), sum(hit.wounds), hit.routs_due) == (2, 0, 1, 2)
    after, routed = br.morale(new, [1, 2, 1, 2, 3], 4, hit.routs_due)
    assert routed == 2 and br.size(after) == 3


def test_p_ex_12_assassinate_tie_scores_for_nobody():
    """P-EX-12 [003:644]-[003:647] Assassinate Count Caliphrase (attacker threshold 4, defender 2): attacker 4,5,2
    -> 2 successes, defender 2,3,1 -> 2: a tie, nobody scores; then 4,6,6 -> 3 against 2,1,1 -> 1: the attacker
    wins; a round the defender wins goes to the defender."""
    att, dfn = army("att", units=3), army("dfn", units=3)
    goal = "assassinate"
    r1 = {
        goal: {
            "A": br.presence(att, [4, 5, 2], 4, command="charge"),
            "D": br.presence(dfn, [2, 3, 1], 2, command="charge"),
        }
    }
    assert r1 == {goal: {"A": 2, "D": 2}}
    assert br.score_goals(r1) == {goal: None}
    r2 = {
        goal: {
            "A": br.presence(att, [4, 6, 6], 4, command="charge"),
            "D": br.presence(dfn, [2, 1, 1], 2, command="charge"),
        }
    }
    assert r2 == {goal: {"A": 3, "D": 1}}
    assert br.score_goals(r2) == {goal: "A"}
    r3 = {
        goal: {
            "A": br.presence(att, [1, 2, 3], 4, command="charge"),
            "D": br.presence(dfn, [2, 2, 1], 2, command="charge"),
        }
    }
    assert br.score_goals(r3) == {goal: "D"}


# ---------------------------------------------------------------------- more keyword effects


def test_p_bat_12_melee_attack_on_a_flying_army_is_refused():
    """P-BAT-12 [003:819] Flying: "You cannot be targeted by melee attacks"; ranged attacks still reach it."""
    flyer = army("f", units=2, statuses={"Flying": 1})
    refuses("P-BAT-12", br.attack, army("m", units=1), flyer, [6])
    _, hit = br.attack(army("a", units=1, cls="archers"), flyer, [6], command="attack")
    assert sum(hit.wounds) == 1


def test_p_bat_6_wallkeepers_add_the_wall_rank_to_morale():
    """P-BAT-6 [003:730] Wallkeepers: "While defending with an untaken wall, this army gains a bonus to their morale
    equal to the wall's rank"."""
    w = army("w", units=2, ancestry="drakes")
    assert br.morale(w, [2, 1], 4, 2, wall_rank=2)[1] == 1
    assert br.morale(w, [2, 1], 4, 2)[1] == 2
    assert br.morale(army("x", units=2), [2, 1], 4, 2, wall_rank=2)[1] == 2


def test_p_bat_5_damage_types_keywords_give():
    """P-BAT-5: Hammers Crush ([003:696]), Stampeding Crush with Charge ([003:754]), Firespitting Burn on odd rounds
    ([003:755]), Frigid Frost on even rounds ([003:756]), Stormblooded Shock ([003:757])."""
    assert br.damage_types(army(cls="hammers")) == ("crush",)
    stamp = army(keywords=["stampeding"])
    assert (br.damage_types(stamp), br.damage_types(stamp, command="charge")) == ((), ("crush",))
    ash = army(ancestry="ashborn")
    assert (br.damage_types(ash, round_no=1), br.damage_types(ash, round_no=2)) == (("burn",), ())
    frigid = army(keywords=["frigid"])
    assert (br.damage_types(frigid, round_no=1), br.damage_types(frigid, round_no=2)) == ((), ("frost",))
    assert br.damage_types(army(keywords=["stormblooded"])) == ("shock",)


def test_p_bat_7_ancestry_momentum_triggers():
    """P-BAT-7 [003:775]-[003:803]: Halflings when attacked by a larger army, Wraiths the first time each round a
    mortal army attacks them, an Earth elemental the first time each round it is attacked, Harpies ending a round
    unharmed, Drakes when their side wins a goal, Orcs wounded at deployment, Ashborn losing all momentum to a
    Water spell, Triumph Elves when an ally's spell rank matches the round; Cleanup forgets the round's triggers."""
    big, small = army("big", units=5), army("small", units=2)
    assert br.momentum_trigger(army("h", units=3, ancestry="halflings"), "attacked", attacker=big)["momentum"] == 1
    assert br.momentum_trigger(army("h", units=3, ancestry="halflings"), "attacked", attacker=small)["momentum"] == 0
    w = br.momentum_trigger(army("w", units=3, ancestry="wraiths"), "attacked", attacker=big)
    assert w["momentum"] == 1
    assert br.momentum_trigger(w, "attacked", attacker=big)["momentum"] == 1  # once a round
    w2 = br.momentum_trigger(br.cleanup(w)[0], "attacked", attacker=big)
    assert w2["momentum"] == 2
    assert (
        br.momentum_trigger(army("w", ancestry="wraiths"), "attacked", attacker=army("s", ancestry="skeletons"))[
            "momentum"
        ]
        == 0
    )
    earth = army("e", units=3, element="E", wondrous=True)
    assert br.momentum_trigger(earth, "attacked", attacker=small)["momentum"] == 1
    assert br.momentum_trigger(army("hp", ancestry="harpies"), "round_end", unharmed=True)["momentum"] == 1
    assert br.momentum_trigger(army("hp", ancestry="harpies"), "round_end")["momentum"] == 0
    assert br.momentum_trigger(army("d", ancestry="drakes"), "goal_won")["momentum"] == 1
    assert br.momentum_trigger(with_wounds(army("o", ancestry="orcs"), 1, 0), "deployment")["momentum"] == 1
    assert br.momentum_trigger(army("o", ancestry="orcs"), "deployment")["momentum"] == 0
    assert br.momentum_trigger(army("a", ancestry="ashborn", momentum=3), "spell", spell_element="W")["momentum"] == 0
    elves = army("t", ancestry="triumph_elves")
    assert br.momentum_trigger(elves, "spell", spell_rank=2, round_no=2)["momentum"] == 1
    assert br.momentum_trigger(elves, "spell", spell_rank=1, round_no=2)["momentum"] == 0
    light = army("l", element="L", wondrous=True)
    assert [br.momentum_trigger(light, "round_end", round_no=r)["momentum"] for r in (1, 2)] == [1, 0]
    assert br.momentum_trigger(light, "round_end", round_no=4, sunlight=True)["momentum"] == 1
    refuses("P-BAT-7", br.momentum_trigger, elves, "sneezes")


def test_p_bat_11_awesome_power_wounds_by_distance_from_capitol():
    """P-BAT-11 [003:1028] the Celestial's Awesome Power: "you take wounds at the start of each battle equal to your
    range distance from your capitol"; wounds, not an attack, so no rout check."""
    celestial = army("cel", units=6, cls="giant", titanic=True, element="E")
    new, lines = br.awesome_power_wounds(celestial, 3)
    assert [u["wounds"] for u in new["units"]] == [1, 1, 1, 0, 0, 0] and len(lines) == 3
    assert br.awesome_power_wounds(celestial, 0)[0]["units"] == celestial["units"]
    refuses("P-BAT-11", br.awesome_power_wounds, celestial, -1)


def test_p_bat_11_wondrous_and_never_mortal_armies_ignore_the_demon():
    """P-BAT-11: only mortal armies check against a Demon: undead ([003:793]), wondrous creatures ([003:797]) and
    Angels, Demons, Devils, Dragons are not mortal."""
    demon = army("dm", units=1, cls="demon", titanic=True)
    others = [army("ent", wondrous=True, element="E"), army("dr", cls="dragon", titanic=True), army("m")]
    assert [c[0] for c in br.deployment_checks(demon, others)] == ["m"]


def test_p_bat_7_supports_pass_momentum():
    """P-BAT-7 [003:702] Supports: "This unit may pass momentum on to other units"; the receiver is still capped."""
    giver, receiver = br.pass_momentum(army("s", cls="supports", momentum=3), army("r", units=2, momentum=1), 2)
    assert (giver["momentum"], receiver["momentum"]) == (1, 2)
    refuses("P-BAT-7", br.pass_momentum, army("x", momentum=3), army("r"), 1)
    refuses("P-BAT-3", br.pass_momentum, army("s", cls="supports", momentum=0), army("r"), 1)


def test_p_bat_7_shallow_copies_of_the_momentum_rules_never_reach_back_into_their_input():
    """P-BAT-7: the momentum rules return shallow copies (their units and statuses are the input's); every rule that
    then wounds, routs, burns or ticks statuses copies those first, so a chain of rules leaves every army it was
    given as it was."""
    a = army("a", units=4, momentum=1, statuses={"Burning": 1, "Frightened": 1})
    t = army("t", units=4, momentum=2, statuses={"Strengthened": 2})
    before_a, before_t = deepcopy(a), deepcopy(t)
    gained = pure(br.gain_momentum, t, 1)
    capped = pure(br.cap_momentum, gained)
    triggered = pure(br.momentum_trigger, capped, "attacked", attacker=a)
    hit_target, hit = pure(br.attack, a, triggered, [6, 6, 6, 6], command="slay")
    routed, _ = pure(br.rout, triggered, 2)
    spent = pure(br.spend_momentum, a, 1)
    cleaned, _ = pure(br.cleanup, spent, [1] * br.cleanup_dice(spent))
    assert hit.successes > 0 and hit_target["units"] != t["units"] and routed["units"] != t["units"]
    assert "Frightened" not in cleaned["statuses"] and cleaned["units"] != a["units"]
    assert (a, t) == (before_a, before_t)
    assert triggered["units"] == t["units"] and triggered["statuses"] == {"Strengthened": 2}
