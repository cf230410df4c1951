"""The pure battle rules wired into the flow (issue 13): each test plays a battle through the aggregate's commands
and checks the state and the per-viewer report. Rule ids: P-BAT-2, P-BAT-3, P-BAT-5, P-BAT-6, P-BAT-7, P-BAT-11,
P-MAG-2."""

from __future__ import annotations

import pytest

from domain.errors import RuleViolation
from domain.powers import battle_rules as br
from domain.powers.battle import battle_report
from tests.domain.battle_helpers import HEX, battle_game, plain_setup
from tests.domain.helpers import NOW, sheet_of
from tests.domain.test_conformance_armies import block
from tests.domain.test_replay import replay


class Max:
    """Every die shows its highest face."""

    def faces(self, roll_no, count, sides=6):
        return [sides] * count


ROLL = Max()


def sturdy(**kw) -> dict:
    return block(**{"defense": 6, "armor": 4, "rank": 2, **kw})


def fight(north: dict, south: dict, *, n_units: int = 3, s_units: int = 4, g=None):
    """A battle of one army of north's ("x") against one of south's ("y"), run to north's first command."""
    g = g or battle_game()
    g.place_army("x", "X", HEX, n_units, controller="north", block=sturdy(**north))
    g.place_army("y", "Y", HEX, s_units, controller="south", block=sturdy(**south))
    g.declare_battle("b1", HEX, "north", ["south"], now=NOW, actor="north")
    for p, armies in (("north", ["x"]), ("south", ["y"])):
        plain_setup(g, p, armies, ROLL)
    to_turn(g, "north")
    return g


def to_turn(g, power):
    b = g.battle("b1")
    while not (b["step"] == "commands" and b["turn"]["power"] == power):
        for p in g.battle_pending(b):
            if b["step"] == "deployment":
                g.deploy_armies("b1", p, [], now=NOW, roller=ROLL, actor=p)
            elif b["step"] == "spellcasting":
                g.cast_battle_spell("b1", p, None, None, now=NOW, roller=ROLL, actor=p)
            elif b["step"] == "commands":
                army = g._commandable(b, b["turn"]["side"], p)[0]
                g.give_command("b1", p, army, "hold", goal="advance", now=NOW, roller=ROLL, actor=p)
            elif b["step"] == "goals":
                g.offer_terms("b1", p, None, now=NOW, roller=ROLL, actor=p)
            elif b["step"] == "cleanup":
                g.retreat_or_rout("b1", p, [], {}, now=NOW, roller=ROLL, actor=p)
            break


def last_command(g, viewer):
    events = [e for r in battle_report(list(g._pending_events), "b1", viewer) for e in r["events"]]
    return [e for e in events if e["event"] == "BattleCommandGiven"][-1]


def slay(g, **kw):
    return g.give_command("b1", "north", "x", "slay", "y", now=NOW, roller=ROLL, actor="north", **kw)


def refused(g, rule, **kw):
    before = len(g._pending_events)
    with pytest.raises(RuleViolation) as e:
        slay(g, **kw)
    assert e.value.rule == rule
    assert len(g._pending_events) == before


def armies(g):
    return g.state.armies.armies


def test_p_bat_5_firespitting_burn_bypasses_armor_and_the_fire_element_resists():
    """P-BAT-5 [003:749], [003:755]: Firespitting deals Burn on odd rounds, chosen by the commanding player; armor
    soaks only untyped damage; an army of the Fire element resists one wound of it. A damage the keywords do not
    allow is refused naming P-BAT-5, and nothing is recorded."""
    g = fight({"keywords": ["firespitting"]}, {"element": "F"})
    refused(g, "P-BAT-5", damage="frost")
    armor = br.current_armor(armies(g)["y"])
    out = slay(g, damage="burn")
    hit = out["hit"]
    assert hit["damage"] == "burn" and hit["armor_lost"] == 0 and hit["resisted"] == 1
    assert br.current_armor(armies(g)["y"]) == armor > 0  # the armor is untouched
    assert sum(hit["wounds"]) == hit["successes"] - 1 > 0
    for viewer in ("north", "south"):
        assert last_command(g, viewer)["hit"]["damage"] == "burn"
    assert not battle_report(list(g._pending_events), "b1", "east")[0]["events"][1:]


def test_p_bat_5_untyped_damage_is_soaked_by_armor_first():
    """P-BAT-5: without a damage type the armor soaks the first points."""
    g = fight({"keywords": ["firespitting"]}, {"element": "F"})
    hit = slay(g)["hit"]
    assert hit["damage"] is None and hit["armor_lost"] > 0 and hit["resisted"] == 0


def test_p_bat_2_axes_destroy_two_armor_a_point_for_a_momentum():
    """P-BAT-2 [003:695]: Axes spend a momentum; each point of damage destroys two armor. Without momentum it is
    refused naming P-BAT-3; an option the army lacks, naming P-BAT-2."""
    g = fight({"cls": "axes", "keywords": ["skirmisher"]}, {"armor": 12})
    refused(g, "P-BAT-2", options=["slayer"])
    m = armies(g)["x"]["momentum"]
    hit = slay(g, options=["axes"])["hit"]
    assert hit["options"] == ["axes"] and hit["armor_lost"] == 2 * hit["successes"]
    assert armies(g)["x"]["momentum"] == m - 1
    assert last_command(g, "south")["hit"]["options"] == ["axes"]


def test_p_bat_2_needler_halves_the_threshold_and_the_successes():
    """P-BAT-2 [003:722]: Needler halves the threshold and the successes (rounding down)."""
    g = fight({"keywords": ["needler"]}, {})
    hit = slay(g, options=["needler"])["hit"]
    assert hit["threshold"] == 3 and hit["successes"] == 1  # 3 dice of 6+1 all succeed: halved to 1


def test_p_bat_6_bloodlust_lets_the_attacker_allocate_the_wounds():
    """P-BAT-6 [003:721]: with Bloodlust the attacker chooses where the wounds go; without it an allocation is
    refused naming P-BAT-6 and nothing is recorded."""
    g = fight({"keywords": ["bloodlust"], "armor": 0}, {"armor": 0, "defense": 2})
    hit = slay(g, allocation=[3, 3])["hit"]
    assert hit["slain"] == 1 and hit["wounds"][3] == 2
    g2 = fight({"armor": 0}, {"armor": 0, "defense": 2})
    refused(g2, "P-BAT-6", allocation=[3, 3])


def test_p_bat_2_tortoise_guards_against_a_ranged_attack():
    """P-BAT-2 [003:701]: a Tortoise army spends a momentum for +3 Defense against a ranged attack (Archers'
    command attacks are ranged, [003:692])."""
    g = fight({"cls": "archers"}, {"cls": "tortoise", "keywords": ["skirmisher"]})
    m = armies(g)["y"]["momentum"]
    hit = slay(g)["hit"]
    assert hit["kind"] == "ranged" and hit["reactions"] == ["tortoise"] and hit["threshold"] == 9
    assert armies(g)["y"]["momentum"] == m - 1


def test_p_bat_2_dervishes_add_their_remaining_momentum_to_defense_until_cleanup():
    """P-BAT-2 [003:694]: Dervishes spend a momentum once a round; the momentum left is added to Defense."""
    g = fight({}, {"cls": "dervishes", "keywords": ["skirmisher"]})
    hit = slay(g)["hit"]
    assert hit["reactions"] == ["dervishes"] and hit["threshold"] == 6 + 1
    assert armies(g)["y"]["dervish_used"]


def test_p_bat_7_supports_pass_a_momentum_to_an_ally_on_the_field():
    """P-BAT-7 [003:702]: Supports pass a momentum to an ally on the field, when commanded; to an enemy it is
    refused naming P-BAT-7 and nothing is recorded."""
    g = battle_game()
    g.place_army("x", "X", HEX, 3, controller="north", block=sturdy(cls="supports", keywords=["skirmisher"]))
    g.place_army("z", "Z", HEX, 3, controller="north", block=sturdy())
    g.place_army("y", "Y", HEX, 3, controller="south", block=sturdy())
    g.declare_battle("b1", HEX, "north", ["south"], now=NOW, actor="north")
    for p, listed in (("north", ["x", "z"]), ("south", ["y"])):
        plain_setup(g, p, listed, ROLL)
    to_turn(g, "north")
    before = len(g._pending_events)
    with pytest.raises(RuleViolation) as e:
        g.give_command("b1", "north", "x", "rest", pass_to="y", now=NOW, roller=ROLL, actor="north")
    assert e.value.rule == "P-BAT-7" and len(g._pending_events) == before
    assert armies(g)["z"]["momentum"] == 0
    g.give_command("b1", "north", "x", "hold", goal="advance", pass_to="z", now=NOW, roller=ROLL, actor="north")
    assert armies(g)["z"]["momentum"] == 1 and armies(g)["x"]["momentum"] == 1
    assert last_command(g, "south")["changes"]["z"]["momentum"] == 1


def test_p_bat_3_shieldbearers_restore_twice_the_momentum_spent_in_armor():
    """P-BAT-3 [003:700]: Shieldbearers spend momentum to restore twice as much armor when commanded."""
    g = fight({"cls": "shieldbearers", "keywords": ["skirmisher"]}, {})
    armies(g)["x"]["armor"] = 0  # a test's shortcut to a battered army: the rule restores from here
    g.give_command("b1", "north", "x", "hold", goal="advance", restore=1, now=NOW, roller=ROLL, actor="north")
    assert br.current_armor(armies(g)["x"]) == 2 and armies(g)["x"]["momentum"] == 1


def to_step(g, step):
    b = g.battle("b1")
    while b["step"] != step:
        for p in g.battle_pending(b):
            if b["step"] == "deployment":
                g.deploy_armies("b1", p, [], now=NOW, roller=ROLL, actor=p)
            elif b["step"] == "spellcasting":
                g.cast_battle_spell("b1", p, None, None, now=NOW, roller=ROLL, actor=p)
            elif b["step"] == "commands":
                army = g._commandable(b, b["turn"]["side"], p)[0]
                g.give_command("b1", p, army, "rest", now=NOW, roller=ROLL, actor=p)
            elif b["step"] == "goals":
                g.offer_terms("b1", p, None, now=NOW, roller=ROLL, actor=p)
            elif b["step"] == "cleanup":
                g.retreat_or_rout("b1", p, [], {}, now=NOW, roller=ROLL, actor=p)
            break


def test_p_mag_2_a_fast_spell_in_the_spellcasting_step_pays_its_mana_once_a_round():
    """[003:576], P-MAG-2: a power casts one fast spell per round in the Spellcasting step, paying its cost (Fireball
    2FF) from its wallet; a power that cannot pay is refused naming P-MAG-2 and nothing is recorded. The payment is
    the caster's own (P.4): the other side's report shows the spell, never the wallet."""
    g = battle_game()
    g.teach_spell("north", "fireball")
    g = fight({}, {}, g=g)
    to_step(g, "spellcasting")
    assert "north" in g.battle_pending(g.battle("b1"))
    before = len(g._pending_events)
    with pytest.raises(RuleViolation) as e:
        g.cast_battle_spell("b1", "north", "fireball", "y", now=NOW, roller=ROLL, actor="north")
    assert e.value.rule == "P-MAG-2" and len(g._pending_events) == before
    # a sovereign stores no Fire (P-MAG-1): the mana is granted by the event itself, as a Channel in battle would
    g._mana_granted(power_id="north", element="F", amount=8, actor="gm", audience=["power:north"])
    g.cast_battle_spell("b1", "north", "fireball", "y", now=NOW, roller=ROLL, actor="north")
    assert sheet_of(g, "north")["mana"].get("F", 0) == 4
    spent = [e for e in g._pending_events if type(e).__name__ == "ManaSpent"]
    assert len(spent) == 1 and spent[0].paid == {"F": 4} and spent[0].audience == ["power:north"]
    rounds = battle_report(list(g._pending_events), "b1", "south")
    cast = [e for r in rounds for e in r["events"] if e["event"] == "BattleSpellCast"]
    assert cast and cast[0]["spell_id"] == "fireball" and "paid" not in str(rounds)
    r = g.battle("b1")["round"]
    to_step(g, "deployment")
    to_step(g, "spellcasting")
    assert g.battle("b1")["round"] == r + 1
    g.cast_battle_spell("b1", "north", "fireball", "y", now=NOW, roller=ROLL, actor="north")  # the next round's
    assert sheet_of(g, "north")["mana"].get("F", 0) == 0
    assert replay(list(g._pending_events)).state == g.state


def test_p_bat_11_the_celestials_awesome_power_wounds_it_by_its_distance_from_the_capitol():
    """P-BAT-11 [003:1028]: the Celestial, fighting outside its capitol, takes wounds at the start of each battle
    equal to its distance from the capitol (no rout check). Its other armies take none; the wounds are in the
    battle's report for both sides."""
    from tests.domain.helpers import SEED
    from tests.domain.world_helpers import resolve_month, world_game

    g = world_game(("north", "city", "celestial"), ("south", "city", "sovereign"), planning=False)
    g.place_army(
        "cel",
        "The Ancient",
        HEX,
        6,
        controller="north",
        garrison="0,0",
        loyal=True,
        block=sturdy(titanic=True, cls="giant"),
    )
    g.place_army("n1", "N1", HEX, 3, controller="north", block=sturdy())
    g.place_army("y", "Y", HEX, 3, controller="south", block=sturdy())
    g.advance(NOW, SEED)
    g.advance(NOW, SEED)
    resolve_month(g)
    g.declare_battle("b1", HEX, "north", ["south"], now=NOW, actor="north")
    for p, listed in (("north", ["cel", "n1"]), ("south", ["y"])):
        plain_setup(g, p, listed, ROLL)
    cel = armies(g)["cel"]
    assert sorted(u["wounds"] for u in cel["units"]) == [0, 0, 0, 0, 1, 1]  # 2 hexes from 0,0
    assert all(u["wounds"] == 0 for u in armies(g)["n1"]["units"])
    for viewer in ("north", "south"):
        started = [e for r in battle_report(list(g._pending_events), "b1", viewer) for e in r["events"]]
        started = [e for e in started if e["event"] == "BattleStarted"]
        assert started[0]["changes"]["cel"]["units"] == cel["units"]
    assert replay(list(g._pending_events)).state == g.state


@pytest.mark.parametrize("attacked", [False, True])
def test_p_bat_7_harpies_gain_a_momentum_at_the_end_of_a_round_without_a_wound(attacked):
    """P-BAT-7 Harpies ([003:775]-[003:803]): "Gains momentum when they end a round without receiving a wound or
    routing": at the round's Cleanup, unless the round wounded them."""
    g = fight(
        {"cls": "archers"}, {"ancestry": "harpies", "armor": 0}
    )  # Harpies fly on odd rounds: a ranged attack reaches
    m = armies(g)["y"]["momentum"]
    if attacked:
        slay(g)
    else:
        g.give_command("b1", "north", "x", "hold", goal="advance", now=NOW, roller=ROLL, actor="north")
    to_step(g, "cleanup")
    assert armies(g)["y"]["momentum"] == m + (0 if attacked else 1)
    cleaned = [e for r in battle_report(list(g._pending_events), "b1", "north") for e in r["events"]]
    cleaned = [e for e in cleaned if e["event"] == "BattleCleanedUp"]
    assert ("y" in cleaned[-1]["changes"] and "momentum" in cleaned[-1]["changes"]["y"]) != attacked
    assert replay(list(g._pending_events)).state == g.state


def test_p_bat_7_a_fire_spell_cast_in_battle_gives_ashborn_a_momentum():
    """P-BAT-7 (battle_rules.momentum_trigger "spell"): Ashborn gain a momentum when a Fire spell is cast (Fireball,
    2FF), whoever casts it; both sides' reports show the ruling."""
    g = battle_game()
    g.teach_spell("north", "fireball")
    g = fight({}, {"ancestry": "ashborn"}, g=g)
    to_step(g, "spellcasting")
    g._mana_granted(power_id="north", element="F", amount=4, actor="gm", audience=["power:north"])
    m = armies(g)["y"]["momentum"]
    assert m < 4
    g.cast_battle_spell("b1", "north", "fireball", "y", now=NOW, roller=ROLL, actor="north")
    assert armies(g)["y"]["momentum"] == m + 1
    for viewer in ("north", "south"):
        ruled = [e for r in battle_report(list(g._pending_events), "b1", viewer) for e in r["events"]]
        ruled = [e for e in ruled if e["event"] == "BattleRuled"]
        assert ruled[-1]["changes"] == {"y": {"momentum": m + 1}} and "Fireball" in ruled[-1]["reason"]


def test_p_bat_11_a_repulsive_army_makes_its_mortal_allies_check_morale_at_deployment():
    """P-BAT-11 [003:769] Repulsive: "When this army joins a battle on the same side as mortal units, those units
    must pass a rank 2 morale challenge" (battle_rules.repulsive_checks; routs due = size // 2, P-AMB-16). Every
    die a 1: the ally routs half its units; the enemy does not roll."""

    class Ones:
        def faces(self, roll_no, count, sides=6):
            return [1] * count

    g = battle_game()
    g.place_army("r", "Ghastly", HEX, 2, controller="north", block=sturdy(keywords=["repulsive"]))
    g.place_army("x", "X", HEX, 4, controller="north", block=sturdy())
    g.place_army("y", "Y", HEX, 4, controller="south", block=sturdy())
    g.declare_battle("b1", HEX, "north", ["south"], now=NOW, actor="north")
    for p, listed in (("north", ["x", "r"]), ("south", ["y"])):
        plain_setup(g, p, listed, Ones())
    assert sum(u["routed"] for u in armies(g)["x"]["units"]) == 2
    assert not any(u["routed"] for u in armies(g)["y"]["units"])
    deployed = [e for r in battle_report(list(g._pending_events), "b1", "south") for e in r["events"]]
    deployed = [e for e in deployed if e["event"] == "BattleDeployed"]
    assert [r["what"] for r in deployed[0]["rolls"]] == ["repulsion morale of x"]


@pytest.mark.parametrize("momentum", [False, True])
def test_p_bat_5_hammers_deal_crush_for_a_momentum(momentum):
    """P-BAT-5 [003:696]: Hammers deal Crush damage for a momentum (armor does not soak it); without a momentum the
    choice is refused naming P-BAT-3 and nothing is recorded."""
    g = fight({"cls": "hammers", "keywords": ["skirmisher"] if momentum else []}, {})
    if not momentum:
        refused(g, "P-BAT-3", damage="crush")
        return
    m = armies(g)["x"]["momentum"]
    hit = slay(g, damage="crush")["hit"]
    assert hit["damage"] == "crush" and hit["options"] == ["hammers"] and hit["armor_lost"] == 0
    assert armies(g)["x"]["momentum"] == m - 1 and sum(hit["wounds"]) == hit["successes"] > 0
