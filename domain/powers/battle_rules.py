"""Pure battle rules of Powers (rules/ANALYSIS.md P.2.11 P-BAT-1..14, P.1.3; worked examples P-EX-4, P-EX-5,
P-EX-12). No events, no I/O: each function takes army dicts as ``domain.powers.armies`` keeps them (``_new_army``)
and dice faces the caller rolled, and returns NEW dicts (inputs are never mutated). A rule that sets only top-level
keys (momentum, armor, triggered) returns a shallow copy, whose units and statuses are the input's; a rule that
changes units or statuses copies deeply first. So nothing may change a returned army's nested values in place
except through these rules. Refusals raise RuleViolation naming the rule id.

Battle-time keys this module reads and writes on an army dict (absent means the default in brackets):

- ``armor``: armor points left in this battle [full: ``army_rules.armor`` = base + tier]. ``clear_battle`` drops
  it after the battle: armor lost in battle is not a permanent loss (P-EX-4 "7 wounds without permanent losses").
- ``units[i]["new"]``: wounds the unit took in this battle [0]. Bloodied counts only these (P-AMB-36).
- ``statuses``: battle statuses by name, capitalised as the rules print them (``"Strengthened": 2``); reading is
  case-insensitive. ``Bloodied`` is kept here as the army's level (P-BAT-6); it is a tracker and does not tick
  down at Cleanup (ticking it would re-trigger routs on every new first wound, against [003:610]). ``Delayed``
  ticks only through ``tick_delayed`` (P-BAT-14), not in ``cleanup``.
- ``dervish_defense``, ``dervish_used``: the Dervishes' guard until Cleanup [0] (P-BAT-2).
- ``triggered``: the momentum triggers already fired this round [none] (P-BAT-7 ``momentum_trigger``).
- ``mortal``: overrides whether an army is mortal [mortal unless undead or a never-mortal titan] (P-BAT-11).

Decisions (the recommended ones of the P-AMB table unless said):
- P-AMB-12: "+1" of Slay and Hold, and each point of Escalation, is +1 to the static bonus of every die.
- P-AMB-14: a unit dies at its 2nd wound; Giants, Monsters, Zombies at their 3rd (``army["wounds_to_die"]``).
- P-AMB-15: armor soaks first and automatically (untyped damage, or any with Arcanists); wounds are then
  allocated by the defender (default: the least wounded active unit); Rest restores armor to its maximum.
- P-AMB-16: a morale check rolls the active units' morale dice at threshold = the rank given; routs =
  max(0, routs_due - successes); Demon/Devil "missing successes" = dice rolled - successes; Frightened and
  Repulsive use routs_due = size // 2.
- P-AMB-44: Delayed drops by 1 at each round's Cleanup; the army arrives at the next Deployment once it is 0.
- P-EX-5 / P-AMB-17: the Derop levy example is reproduced three ways in tests/domain/test_conformance_battle.py:
  the analysis's recommended "reproduces text" fixture (Defense 4, morale d4+1: 1 wound, 1 routed), and the
  rule-consistent fixtures A (the prose's Defense 3: 2 wounds, 1 routed) and B (the stat block, morale d6: 1
  wound, 2 routed). The rules here are the same for all three; only the stats differ.
- P-BAT-9: whether mortal armies accept terms on their own is "a morale check whose parameters are unspecified":
  the GM decides it; ``morale`` and ``count_successes`` compute whatever check the GM names.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from domain.copying import deepcopy
from domain.errors import RuleViolation
from domain.powers import army_rules as ar
from domain.powers import army_types as at

MAX_ROUNDS = 7  # P-BAT-10 [003:651] "at the end of 7 rounds"
STEPS = ("deployment", "spellcasting", "commands", "goals", "cleanup")  # P.1.3 [003:575]-[003:581]
# P-BAT-8 [003:634]-[003:635]: thresholds per side (P-AMB-13: stored per side as data, never parsed from "a/b").
BASE_GOALS = {"initiative": (3, 3), "advance": (2, 2)}
# P-BAT-8 [003:641], [003:647]: the goal rewards the rules give an effect on the battle; any other reward a side
# proposes ("Kill Count Caliphrase") is recorded with the round's score for the GM to rule.
REMOVE, REMOVE_NEXT_ROUND = "remove", "remove_next_round"
GOAL_REWARDS = {REMOVE: "remove this goal", REMOVE_NEXT_ROUND: "remove this goal next round"}
# P-AMB-13: how a printed "a/b" goal threshold (the walls' 2/2, 2/4, 2/6) is read; the first is recommended.
THRESHOLD_ORDERS = ("defender_attacker", "attacker_defender")
COMMANDS = ("slay", "hold", "charge", "rest")  # P-BAT-3 [003:585]-[003:588] (+ specials, once per battle)
ATTACK_OPTIONS = ("needler", "slayer", "axes", "hammers")  # P-BAT-2 the attacker's choices ([003:695]-[003:727])
ATTACK_COMMANDS = ("slay", "charge", "attack")  # "attack": a basic attack outside a command (Pikes, P-EX-5)

# P-BAT-1 / [003:810]-[003:817]: which statuses add or remove dice on which checks.
DICE_STATUSES: dict[str, tuple[tuple[str, int], ...]] = {
    "attack": (("Strengthened", 1), ("Weakened", -1)),
    "presence": (("Mobile", 1), ("Pinned", -1)),
    "morale": (("Emboldened", 1), ("Scattered", -1)),
}
ALL_CHECKS = (("Hastened", 1), ("Frozen", -1))
NEGATIVE_STATUSES = frozenset({"Burning", "Frightened", "Vulnerable", "Weakened", "Pinned", "Scattered", "Frozen"})
TRACKERS = frozenset({"Bloodied", "Delayed"})  # not ticked by cleanup (see the module docstring)

# [003:600] elemental damage types, and the element each matches ([003:626] "resist one wound whenever they take
# damage of a type matching their element"). The rules pair them only by name: burn/Fire (the Derop block's
# "res: Burn"), freeze/Water (Frigid's "Frost"), shock/Air (Stormblooded), crush/Earth (Hammers, Stampeding),
# flare/Light, void/Dark.
DAMAGE_ELEMENT = {"burn": "F", "freeze": "W", "frost": "W", "shock": "A", "crush": "E", "flare": "L", "void": "D"}
TERRESTRIAL = frozenset({"A", "F", "E", "W"})
# [003:735]-[003:738] terrain keywords: +1 attack and defense while in their terrain.
TERRAIN_OF = {"guerilla": "forest", "mountaineer": "mountains", "naval": "coast", "nomad": "plains"}
NEVER_MORTAL_CLASSES = frozenset({"angel", "demon", "devil", "dragon"})
FEAR_CLASSES = frozenset({"demon", "devil"})  # P-BAT-11 [003:708]-[003:709]
DEMON_THRESHOLD = 2
REPULSIVE_RANK = 2  # [003:769] "a rank 2 morale challenge"


# ---------------------------------------------------------------------- small readers


def _writable(army: dict[str, Any]) -> dict[str, Any]:
    """A copy of ``army`` whose units and statuses, the only nested values these rules change in place, are its own
    (both hold plain numbers, so one level of copying is a deep copy of them); the rest is shared, unchanged."""
    out = dict(army)
    out["units"] = [dict(u) for u in army["units"]]
    if "statuses" in army:
        out["statuses"] = dict(army["statuses"])
    return out


def status(army: dict[str, Any], name: str) -> int:
    """The stacks of a status (case-insensitive name; absent is 0)."""
    statuses = army.get("statuses")
    if not statuses:
        return 0
    low = name.lower()
    return sum(int(v) for k, v in statuses.items() if k.lower() == low)


def _set_status(army: dict[str, Any], name: str, value: int) -> None:
    """Set a status on a (copied) army, keeping the spelling already used for it."""
    statuses = army.setdefault("statuses", {})
    for k in [k for k in statuses if k.lower() == name.lower()]:
        del statuses[k]
    if value > 0:
        statuses[name] = value


def has(army: dict[str, Any], keyword: str) -> bool:
    """A keyword of the army, its class or ancestry by name, or a keyword its ancestry brings ([003:775]-[003:791]
    "Gnolls: A, Skirmisher")."""
    if keyword in army.get("keywords", ()) or army.get("ancestry") == keyword or army.get("cls") == keyword:
        return True
    ancestry = at.ANCESTRIES.get(army.get("ancestry") or "")
    return ancestry is not None and keyword in ancestry["keywords"]


def size(army: dict[str, Any]) -> int:
    """[003:595] "The number of active units in an army is called its Size"."""
    return ar.size(army)


def current_armor(army: dict[str, Any]) -> int:
    """P-BAT-5: the armor points the army has left in this battle (full at the start)."""
    return int(army["armor"]) if "armor" in army else ar.armor(army)


def max_armor(army: dict[str, Any]) -> int:
    """P-AMB-15: the maximum Rest restores, equipment + base."""
    return ar.armor(army)


def wounds_to_die(army: dict[str, Any]) -> int:
    """P-BAT-4 / P-AMB-14: the wound a unit dies at (2; Giants, Monsters, Zombies 3)."""
    if "wounds_to_die" in army:
        return int(army["wounds_to_die"])
    return ar.wounds_to_die(army.get("cls", "levy"), army.get("ancestry"))


def mortal(army: dict[str, Any]) -> bool:
    """[003:793] "Skeletons, Zombies, Wraiths, and Ghouls are undead, not mortal"; Angels, Demons, Devils and
    Dragons are never mortal, nor wondrous armies ("Creatures that were never mortal gain an ancestry based on their
    element", [003:797]). An army may say so itself (``army["mortal"]``)."""
    if "mortal" in army:
        return bool(army["mortal"])
    if army.get("wondrous"):
        return False
    return army.get("ancestry") not in at.UNDEAD and army.get("cls") not in NEVER_MORTAL_CLASSES


def active_indices(army: dict[str, Any]) -> list[int]:
    return [i for i, u in enumerate(army["units"]) if not u["routed"]]


# ---------------------------------------------------------------------- P-BAT-1 the combat check


def check_dice(army: dict[str, Any], attribute: str, *, damage: str | None = None) -> int:
    """P-BAT-1: "armies roll a number of these dice equal to their number of active units" ([003:604]), plus or
    minus status dice: Strengthened/Weakened on attack, Mobile/Pinned on presence, Emboldened/Scattered on morale,
    Hastened/Frozen on all; Juggernaut "+2 dice on presence checks" ([003:760]). Stormblooded dealing Shock damage
    "only rolls as many damage dice as they have wounded units" ([003:757]). Never below 0."""
    if attribute not in at.ATTRIBUTES:
        raise RuleViolation(f"a combat check rolls one of {', '.join(at.ATTRIBUTES)}", rule="P-BAT-1")
    n = size(army)
    for name, sign in (*DICE_STATUSES[attribute], *ALL_CHECKS):
        n += sign * status(army, name)
    if attribute == "presence" and has(army, "juggernaut"):
        n += 2
    if attribute == "attack" and damage == "shock" and has(army, "stormblooded"):
        n = min(n, sum(1 for u in army["units"] if not u["routed"] and u["wounds"] > 0))
    return max(0, n)


def die_size(army: dict[str, Any], attribute: str) -> int:
    """P-BAT-1: [003:604] "listed with a die size and a static bonus"."""
    if attribute not in at.ATTRIBUTES:
        raise RuleViolation(f"a combat check rolls one of {', '.join(at.ATTRIBUTES)}", rule="P-BAT-1")
    return int(army[attribute]["die"])


def count_successes(faces: list[int], bonus: int, threshold: int) -> int:
    """P-BAT-1: each die adds the static bonus; count the dice that "match or beat" the threshold."""
    return sum(1 for f in faces if f + bonus >= threshold)


def _check_faces(army: dict[str, Any], attribute: str, faces: list[int], rule: str, **kw: str | None) -> None:
    want = check_dice(army, attribute, **kw)
    if len(faces) != want:
        raise RuleViolation(
            f"{army.get('name', army.get('id'))} rolls {want} {attribute} dice, not {len(faces)}", rule=rule
        )
    sides = die_size(army, attribute)
    for f in faces:
        if not isinstance(f, int) or not 1 <= f <= sides:
            raise RuleViolation(f"a face of a d{sides} is 1 to {sides}, not {f!r}", rule=rule, field="faces")


def terrain_bonus(army: dict[str, Any], terrain: str | None) -> int:
    """[003:735]-[003:738]: Guerilla, Mountaineer, Naval, Nomad: +1 attack and defense in their terrain."""
    if not terrain:
        return 0
    t = terrain.lower().rstrip("s")
    return sum(1 for kw, where in TERRAIN_OF.items() if has(army, kw) and where.rstrip("s") == t)


# ---------------------------------------------------------------------- P-BAT-2 defense and the basic attack


def defense(
    target: dict[str, Any],
    *,
    earlier_attacks: int = 0,
    tags: frozenset[str] = frozenset(),
    terrain: str | None = None,
) -> int:
    """P-BAT-2: the threshold of an attack is the target's Defense, modified by Vulnerable -2 ([003:809]),
    Vanguard +1 for each earlier attack against it this round ([003:729]), the Dervishes' guard (their remaining
    momentum once they spent one this round, [003:694]; ``dervish_defense``), Tortoise +3 against a ranged or
    airborne attack when it spent a momentum (tag ``"tortoise"`` with ``"ranged"`` or ``"airborne"``, [003:701]),
    and a terrain keyword's +1 ([003:735]). Never below 0."""
    d = int(target["defense"])
    if status(target, "Vulnerable") > 0:
        d -= 2
    if has(target, "vanguard"):
        d += max(0, earlier_attacks)
    d += int(target.get("dervish_defense", 0))
    if "tortoise" in tags and ("ranged" in tags or "airborne" in tags):
        d += 3
    d += terrain_bonus(target, terrain)
    return max(0, d)


@dataclass(frozen=True)
class Hit:
    """The outcome of one attack, for events and reports."""

    successes: int
    armor_lost: int
    wounds: tuple[int, ...]  # new wounds per unit index (of the target's units before the attack), as allocated
    slain: int
    routs_due: int  # >0 when the attack raised Bloodied (P-BAT-6); the caller then rolls morale
    bloodied_raised: bool
    threshold: int = 0
    armor_broken: bool = False
    resisted: int = 0  # wounds resisted by the element (P-BAT-5)
    routed: int = 0  # units routed instead of wounded (Nightmare, P-BAT-6)
    damage: str | None = None


def attack_kind(attacker: dict[str, Any], *, from_command: bool = True) -> str:
    """[003:606] attacks are melee unless changed: Archers' attacks from commands are ranged ([003:692]), a War
    Balloon's always ([003:712]); a Flying army's melee attacks are Airborne ([003:819])."""
    if attacker.get("cls") == "war_balloon" or (from_command and attacker.get("cls") == "archers"):
        return "ranged"
    if status(attacker, "Flying") > 0:
        return "airborne"
    return "melee"


def damage_types(attacker: dict[str, Any], *, round_no: int = 1, command: str = "slay") -> tuple[str, ...]:
    """The elemental damage an army's keywords and class let it deal this attack (besides untyped): Hammers
    Crush for a momentum ([003:696]), Stampeding Crush with Charge ([003:754]), Firespitting Burn on odd rounds
    ([003:755]), Frigid Frost on even rounds ([003:756]), Stormblooded Shock ([003:757]). Spells and items may
    give others: ``attack`` takes any ``damage`` the caller allows."""
    out: list[str] = []
    if attacker.get("cls") == "hammers" or (has(attacker, "stampeding") and command == "charge"):
        out.append("crush")
    if has(attacker, "firespitting") and round_no % 2 == 1:
        out.append("burn")
    if has(attacker, "frigid") and round_no % 2 == 0:
        out.append("frost")
    if has(attacker, "stormblooded"):
        out.append("shock")
    return tuple(out)


def valid_targets(attacker: dict[str, Any], enemies: list[dict[str, Any]], *, kind: str | None = None) -> list[str]:
    """P-BAT-12: Flying "cannot be targeted by melee attacks"; Taunt: "Enemy armies must make their melee attacks
    against you if able" ([003:818]-[003:819]). Returns the ids the attack may target."""
    kind = kind or attack_kind(attacker)
    able = [e for e in enemies if size(e) > 0 and not (kind == "melee" and status(e, "Flying") > 0)]
    if kind == "melee":
        taunting = [e for e in able if status(e, "Taunt") > 0]
        if taunting:
            able = taunting
    return [e["id"] for e in able]


def check_target(
    attacker: dict[str, Any], target: dict[str, Any], enemies: list[dict[str, Any]], *, kind: str | None = None
) -> None:
    """Refuses an attack on a target the attacker may not choose (P-BAT-12 Flying, Taunt)."""
    if target["id"] not in valid_targets(attacker, enemies, kind=kind):
        kind = kind or attack_kind(attacker)
        why = "it is Flying" if status(target, "Flying") > 0 else "a Taunting army must be attacked first"
        raise RuleViolation(f"a {kind} attack cannot target {target.get('name', target['id'])}: {why}", rule="P-BAT-12")


def resistance(target: dict[str, Any], damage: str | None) -> int:
    """P-BAT-5: one wound resisted per instance of damage matching the army's element; Immunized 3 ([003:724]);
    Wild Element matches every terrestrial element ([003:731])."""
    if damage is None:
        return 0
    element = DAMAGE_ELEMENT.get(damage)
    if element is None:
        raise RuleViolation(f"{damage!r} is not a damage type", rule="P-BAT-5", field="damage")
    matches = target.get("element") == element or (has(target, "wild_element") and element in TERRESTRIAL)
    if not matches:
        return 0
    return 3 if has(target, "immunized") else 1


def _default_unit(units: list[dict[str, Any]], dead: set[int]) -> int | None:
    """[003:612] "defenders will want to put new wounds on the least wounded unit"."""
    live = [i for i, u in enumerate(units) if not u["routed"] and i not in dead]
    if not live:
        return None
    return min(live, key=lambda i: (units[i]["wounds"], i))


def attack(
    attacker: dict[str, Any],
    target: dict[str, Any],
    faces: list[int],
    *,
    command: str = "slay",
    escalation: int = 0,
    earlier_attacks: int = 0,
    allocation: list[int] | None = None,
    options: frozenset[str] = frozenset(),
    reactions: frozenset[str] = frozenset(),
    damage: str | None = None,
    kind: str | None = None,
    terrain: str | None = None,
    modifier: int = 0,
    dodge: int = 0,
) -> tuple[dict[str, Any], Hit]:
    """P-BAT-2 basic attack ([003:606]), P-BAT-4 wounds and deaths, P-BAT-5 armor and resistance, P-BAT-6 the
    Bloodied level. Returns the new target and the Hit.

    - ``faces``: the attacker's attack dice, ``check_dice(attacker, "attack", damage=damage)`` of them.
    - bonus per die: the attack's static bonus, +1 for Slay (P-AMB-12), + ``escalation``, + a terrain keyword.
    - threshold: ``defense(target, ...)``; ``options`` the attacker chose: ``"needler"`` halves the threshold and
      the successes (round down both, [003:722]); ``"slayer"`` doubles the threshold, each success two wounds on
      the same unit ([003:727]); the two conflict. ``"axes"``: each point of damage destroys two armor ([003:695];
      the caller spends the momentum with ``spend_momentum``). ``"hammers"`` makes the damage Crush ([003:696]).
    - ``reactions`` the target chose: ``"tortoise"`` (+3 defense against ranged/airborne, spends its momentum),
      ``"dervishes"`` (once per round: spend a momentum, the remaining momentum is added to Defense until
      Cleanup). Their momentum is spent on the returned target. ``dodge``: momentum an Agile target spends "to
      dodge incoming attacks, absorbing wounds like armor" ([003:720]), one wound a momentum, after armor; only
      what absorbs a wound is spent.
    - ``modifier``: any other static change to the attack dice (Archers' and Monsters' -1 to strike two armies
      with one roll, [003:692], [003:711]: the caller calls ``attack`` once per target with the same faces).
    - armor soaks each point first if the damage is untyped or the target has Arcanists ([003:749]); then the
      element resists wounds (P-BAT-5); the rest are wounds allocated by ``allocation`` (one unit index per wound,
      or per pair with Slayer; the defender's choice, or the attacker's with Bloodlust, ``allocator``), the rest
      to the least wounded active unit. Nightmare: each wound instead routs a unit ([003:758]), the most wounded
      first.
    - Bloodied = the greatest new wounds (this battle, P-AMB-36) on a unit; when it rises, ``routs_due`` =
      size // 2 after the attack, the full size if the attacker is Fearful ([003:723]); 0 with Alien Mind (it
      "Doesn't make morale checks when bloodied", [003:759]).
    """
    damage, kind = _check_attack(attacker, target, faces, command, options, damage, escalation, kind)
    options = frozenset(options)
    out = _writable(target)
    tags = _spend_reactions(out, reactions, kind)
    threshold = defense(out, earlier_attacks=earlier_attacks, tags=frozenset(tags), terrain=terrain)
    threshold = threshold // 2 if "needler" in options else threshold * 2 if "slayer" in options else threshold
    bonus = int(attacker["attack"]["bonus"]) + (1 if command == "slay" else 0) + escalation + modifier
    successes = count_successes(faces, bonus + terrain_bonus(attacker, terrain), threshold)
    successes = successes // 2 if "needler" in options else successes
    armor_before = current_armor(out)
    packets = _soak(out, successes, options, damage)
    armor = out["armor"]
    if dodge:
        _dodge(out, packets, dodge)
    resisted = _resist(packets, resistance(out, damage))
    prior = status(out, "Bloodied")
    added, routed, dead, level = _allocate_wounds(out, attacker, packets, allocation, prior)
    out["units"] = [u for i, u in enumerate(out["units"]) if i not in dead]
    raised = level > prior
    if raised:
        _set_status(out, "Bloodied", level)
    due = _routs_due(out, attacker) if raised else 0
    broken = armor_before > 0 and armor == 0
    out = cap_momentum(_momentum_on_hit(out, broken, raised))
    return out, Hit(
        successes=successes,
        armor_lost=armor_before - armor,
        wounds=tuple(added),
        slain=len(dead),
        routs_due=due,
        bloodied_raised=raised,
        threshold=threshold,
        armor_broken=broken,
        resisted=resisted,
        routed=routed,
        damage=damage,
    )


def _routs_due(out: dict[str, Any], attacker: dict[str, Any]) -> int:
    """When Bloodied rises, half the army's size after the attack must check morale, all of it if the attacker
    is Fearful ([003:723]); none with Alien Mind ([003:759]) (P-BAT-6)."""
    after = size(out)
    if after == 0 or has(out, "alien_mind"):
        return 0
    return after if has(attacker, "fearful") else after // 2


def _check_attack(
    attacker: dict[str, Any],
    target: dict[str, Any],
    faces: list[int],
    command: str,
    options: frozenset[str],
    damage: str | None,
    escalation: int,
    kind: str | None,
) -> tuple[str | None, str]:
    """The guards of ``attack`` before any die counts (P-BAT-1 to P-BAT-5, P-BAT-8, P-BAT-12). Returns the
    attack's damage (Crush with Hammers) and its kind."""
    if command not in ATTACK_COMMANDS:
        raise RuleViolation(
            f"{command!r} does not attack; attacks come from {', '.join(ATTACK_COMMANDS)}", rule="P-BAT-3"
        )
    if size(attacker) == 0:
        raise RuleViolation(f"{attacker.get('name', attacker['id'])} has no active units", rule="P-BAT-4")
    if size(target) == 0:
        raise RuleViolation(f"{target.get('name', target['id'])} has no active units to attack", rule="P-BAT-4")
    options = frozenset(options)
    if "needler" in options and "slayer" in options:
        raise RuleViolation("Slayer conflicts with Needler: choose one", rule="P-BAT-2", field="options")
    for opt, need in (("needler", "needler"), ("slayer", "slayer"), ("axes", "axes"), ("hammers", "hammers")):
        if opt in options and not has(attacker, need):
            raise RuleViolation(f"{attacker.get('name', attacker['id'])} is not {need.title()}", rule="P-BAT-2")
    unknown = options - {"needler", "slayer", "axes", "hammers"}
    if unknown:
        raise RuleViolation(f"unknown attack options {sorted(unknown)}", rule="P-BAT-2", field="options")
    if "hammers" in options:
        damage = "crush"
    if damage is not None and damage not in DAMAGE_ELEMENT:
        raise RuleViolation(f"{damage!r} is not a damage type", rule="P-BAT-5", field="damage")
    if escalation < 0:
        raise RuleViolation("escalation is never negative", rule="P-BAT-8", field="escalation")
    _check_faces(attacker, "attack", faces, "P-BAT-1", damage=damage)
    kind = kind or attack_kind(attacker)
    if kind == "melee" and status(target, "Flying") > 0:
        raise RuleViolation(
            f"{target.get('name', target['id'])} is Flying: melee attacks cannot target it", rule="P-BAT-12"
        )
    return damage, kind


def _spend_reactions(out: dict[str, Any], reactions: frozenset[str], kind: str) -> set[str]:
    """The target's reactions to an attack, their momentum spent on ``out``: Tortoise adds its tag to the
    defense against ranged or airborne attacks, Dervishes (once a round) add the momentum left (P-BAT-2)."""
    tags = {kind}
    for r in reactions:
        if r not in ("tortoise", "dervishes"):
            raise RuleViolation(f"unknown reaction {r!r}", rule="P-BAT-2", field="reactions")
        if not has(out, r):
            raise RuleViolation(f"{out.get('name', out['id'])} is not {r.title()}", rule="P-BAT-2")
        if out.get("momentum", 0) < 1:
            raise RuleViolation(f"{out.get('name', out['id'])} has no momentum to spend", rule="P-BAT-3")
        if r == "tortoise":
            if kind not in ("ranged", "airborne"):
                raise RuleViolation("Tortoise guards only against ranged or airborne attacks", rule="P-BAT-2")
            tags.add("tortoise")
        else:
            if out.get("dervish_defense") or out.get("dervish_used"):
                raise RuleViolation("Dervishes guard once per round", rule="P-BAT-2", field="reactions")
            out["momentum"] -= 1
            out["dervish_defense"] = out["momentum"]
            out["dervish_used"] = True
            continue
        out["momentum"] -= 1
    return tags


def _soak(out: dict[str, Any], successes: int, options: frozenset[str], damage: str | None) -> list[int]:
    """Armor soaks first, point by point (P-AMB-15); Axes destroy two armor a point; elemental damage passes
    armor unless the target has Arcanists ([003:749]). Sets ``out``'s armor and returns the wounds per packet
    still to allocate (two a packet with Slayer)."""
    per_point = 2 if "slayer" in options else 1
    armor = current_armor(out)
    soaks = damage is None or has(out, "arcanists")
    packets: list[int] = []
    for _ in range(successes):
        dealt = per_point
        while dealt and soaks and armor > 0:
            armor = max(0, armor - (2 if "axes" in options else 1))
            dealt -= 1
        if dealt:
            packets.append(dealt)
    out["armor"] = armor
    return packets


def _dodge(out: dict[str, Any], packets: list[int], dodge: int) -> None:
    """An Agile target spends momentum to absorb wounds like armor, one a momentum ([003:720]); only what
    absorbs a wound is spent."""
    if not has(out, "agile"):
        raise RuleViolation(f"{out.get('name', out['id'])} is not Agile", rule="P-BAT-2", field="dodge")
    if dodge < 0 or dodge > out.get("momentum", 0):
        raise RuleViolation(f"{out.get('name', out['id'])} cannot spend {dodge} momentum", rule="P-BAT-3")
    dodged = 0
    while dodged < dodge and packets:
        packets[-1] -= 1
        dodged += 1
        if packets[-1] == 0:
            packets.pop()
    out["momentum"] -= dodged


def _resist(packets: list[int], resist: int) -> int:
    """Element resistance takes wounds off the instance of damage (P-BAT-5). Returns the wounds resisted."""
    resisted = 0
    while resist and packets:
        packets[-1] -= 1
        resist -= 1
        resisted += 1
        if packets[-1] == 0:
            packets.pop()
    return resisted


def _allocate_wounds(
    out: dict[str, Any], attacker: dict[str, Any], packets: list[int], allocation: list[int] | None, prior: int
) -> tuple[list[int], int, set[int], int]:
    """Allocates the packets' wounds on ``out``'s units (P-BAT-4, P-BAT-6): by ``allocation``, the rest to the
    least wounded active unit; Nightmare routs a unit a wound instead, the most wounded first ([003:758]).
    Returns the new wounds per unit, the units routed, the units slain and the Bloodied level reached."""
    n = len(out["units"])
    added = [0] * n
    routed = 0
    dead: set[int] = set()
    level = prior
    die_at = wounds_to_die(out)
    chosen = list(allocation or [])
    if has(attacker, "nightmare"):
        for _ in range(sum(packets)):
            live = active_indices(out)
            if not live:
                break
            i = max(live, key=lambda j: (out["units"][j]["wounds"], -j))
            out["units"][i]["routed"] = True
            routed += 1
        packets = []
    for k, amount in enumerate(packets):
        if k < len(chosen):
            i = chosen[k]
            if not isinstance(i, int) or not 0 <= i < n:
                raise RuleViolation(
                    f"unit {i!r} is not one of the army's {n} units", rule="P-BAT-6", field="allocation"
                )
            if out["units"][i]["routed"] or i in dead:
                raise RuleViolation(
                    f"unit {i} is routed or slain: wounds go to active units", rule="P-BAT-6", field="allocation"
                )
        else:
            pick = _default_unit(out["units"], dead)
            if pick is None:
                break
            i = pick
        u = out["units"][i]
        for _ in range(amount):
            if i in dead:
                break
            u["wounds"] += 1
            u["new"] = u.get("new", 0) + 1
            added[i] += 1
            level = max(level, u["new"])
            if u["wounds"] >= die_at:
                dead.add(i)
    return added, routed, dead, level


def _momentum_on_hit(target: dict[str, Any], broken: bool, raised: bool) -> dict[str, Any]:
    """Ancestry momentum the target gains from a hit: Deep Dwarves "when their armor is broken" ([003:776]),
    Zombies "whenever their Bloodied level increases" ([003:789])."""
    gain = (1 if broken and target.get("ancestry") == "deep_dwarves" else 0) + (
        1 if raised and target.get("ancestry") == "zombies" else 0
    )
    return gain_momentum(target, gain) if gain else target


def attacker_momentum(attacker: dict[str, Any], hit: Hit) -> dict[str, Any]:
    """Ancestry momentum the attacker gains from its hit: Diverse "when breaking an enemy's armor" ([003:778]),
    Ghouls "when they bloody another army" ([003:791]). (Allies' triggers, like Mountain Dwarves', are the
    caller's: ``ally_momentum``.)"""
    gain = (1 if hit.armor_broken and attacker.get("ancestry") == "diverse" else 0) + (
        1 if hit.bloodied_raised and attacker.get("ancestry") == "ghouls" else 0
    )
    return gain_momentum(attacker, gain) if gain else dict(attacker)


def ally_momentum(ally: dict[str, Any], hit: Hit) -> dict[str, Any]:
    """Mountain Dwarves: "Gains momentum when an ally's armor is broken" ([003:777])."""
    if hit.armor_broken and ally.get("ancestry") == "mountain_dwarves":
        return gain_momentum(ally, 1)
    return dict(ally)


def allocator(attacker: dict[str, Any]) -> str:
    """P-BAT-6: "By default, the defender chooses how to allocate wounds"; Bloodlust: "this army chooses how
    wounds are distributed" ([003:721]). Returns ``"attacker"`` or ``"defender"``."""
    return "attacker" if has(attacker, "bloodlust") else "defender"


# ---------------------------------------------------------------------- P-BAT-6 morale and rout


def morale_dice(target: dict[str, Any]) -> int:
    """P-BAT-6: the morale check rolls the active units' morale dice, ± Emboldened/Scattered/Hastened/Frozen."""
    return check_dice(target, "morale")


def rout(army: dict[str, Any], n: int, allocation: list[int] | None = None) -> tuple[dict[str, Any], int]:
    """Rout ``n`` active units: those named in ``allocation`` first, then the most wounded ([003:612]
    "defenders will usually want to rout their most wounded unit first"). Also the voluntary rout of Cleanup
    ([003:581]). Returns the new army and the units routed."""
    out = _writable(army)
    done = 0
    for i in allocation or []:
        if done >= n:
            break
        if not isinstance(i, int) or not 0 <= i < len(out["units"]) or out["units"][i]["routed"]:
            raise RuleViolation(f"unit {i!r} is not an active unit to rout", rule="P-BAT-6", field="allocation")
        out["units"][i]["routed"] = True
        done += 1
    while done < n:
        live = active_indices(out)
        if not live:
            break
        i = max(live, key=lambda j: (out["units"][j]["wounds"], -j))
        out["units"][i]["routed"] = True
        done += 1
    return cap_momentum(out), done


def morale(
    target: dict[str, Any],
    faces: list[int],
    attacker_rank: int,
    routs_due: int,
    *,
    allocation: list[int] | None = None,
    wall_rank: int = 0,
) -> tuple[dict[str, Any], int]:
    """P-BAT-6 [003:610]: "they inflict routs equal to half the target's size ... which the target resists with a
    morale check equal to the attacker's rank, with one fewer rout per success". Each die adds the morale static
    bonus (Wallkeepers defending an untaken wall add the wall's rank, [003:730]); threshold = ``attacker_rank``;
    routs = max(0, routs_due - successes). Returns the new target and the units routed."""
    _check_faces(target, "morale", faces, "P-BAT-6")
    bonus = int(target["morale"]["bonus"]) + (wall_rank if has(target, "wallkeepers") else 0)
    successes = count_successes(faces, bonus, attacker_rank)
    return rout(target, max(0, routs_due - successes), allocation)


# ---------------------------------------------------------------------- P-BAT-8 presence and goals


def presence(
    army: dict[str, Any], faces: list[int], threshold: int, *, command: str = "hold", wall_goal: bool = False
) -> int:
    """P-BAT-8 [003:630]: "When applying presence, an army rolls a presence check against a chosen goal's
    threshold". Hold adds +1 to each die (P-AMB-12), Charge does not; Engineers "+2 presence against goals related
    to walls or siege equipment" ([003:744], a static +2 likewise). Returns the successes."""
    if command not in ("hold", "charge", "presence"):
        raise RuleViolation(f"{command!r} does not apply presence", rule="P-BAT-3")
    _check_faces(army, "presence", faces, "P-BAT-1")
    bonus = int(army["presence"]["bonus"]) + (1 if command == "hold" else 0)
    if wall_goal and has(army, "engineers"):
        bonus += 2
    return count_successes(faces, bonus, threshold)


def printed_thresholds(goal: dict[str, Any], order: str) -> tuple[int, int]:
    """P-AMB-13: the (attacker, defender) thresholds of a goal printed "a/b" (the walls, [003:435]-[003:439]). The
    catalogue keeps the printed pair as the recommended reading stores it (``defender`` = a, ``attacker`` = b);
    the campaign option ``goal_threshold_order`` = ``attacker_defender`` reads a as the attackers' instead."""
    if order not in THRESHOLD_ORDERS:
        raise RuleViolation(f"goal_threshold_order is one of {', '.join(THRESHOLD_ORDERS)}", rule="P-AMB-13")
    a, b = int(goal["defender"]), int(goal["attacker"])
    return (b, a) if order == "defender_attacker" else (a, b)


def defender_reactions(target: dict[str, Any], kind: str) -> frozenset[str]:
    """P-BAT-2 defender reactions. Decision: by post the defender is not asked in the middle of the attacker's
    turn, so an army with Tortoise (against a ranged or airborne attack) or Dervishes (once a round) reacts
    whenever it can, spending the momentum the rule asks; Tortoise first when both could."""
    if int(target.get("momentum", 0)) < 1:
        return frozenset()
    if has(target, "tortoise") and kind in ("ranged", "airborne"):
        return frozenset({"tortoise"})
    if has(target, "dervishes") and not (target.get("dervish_defense") or target.get("dervish_used")):
        return frozenset({"dervishes"})
    return frozenset()


def opening_goals(walls: dict[str, Any] | None, order: str) -> dict[str, dict[str, Any]]:
    """A new battle's goals (P-BAT-8): initiative and advance, and the walls' where a stronghold stands (its
    printed thresholds read by ``order``, P-AMB-13); the attackers' reward for the walls removes the goal
    ([003:641])."""
    goals: dict[str, dict[str, Any]] = {g: {"A": t[0], "B": t[1]} for g, t in BASE_GOALS.items()}
    if walls is not None:
        attacker, defender = printed_thresholds(walls, order)
        goals["walls"] = {
            "A": attacker,
            "B": defender,
            "name": walls["name"],
            "wallkeepers": walls.get("wallkeepers_morale", 0),  # Wallkeepers' morale on untaken walls
            "rewards": {"A": REMOVE},  # [003:641] "Attacker: ... reward: Remove this goal"
        }
    return goals


def check_declaration(step: str, options: dict[str, Any], month: int, months_per_season: int, by_gm: bool) -> None:
    """P-AMB-1: battles are declared in the Battle step, by the GM alone where the campaign says so, and in the
    season's last month where battles wait for the season's end."""
    if step != "battle":
        raise RuleViolation("battles are declared in a month's Battle step", rule="P-AMB-1", field="step")
    if not by_gm and options.get("battle_declared_by", "controller") == "gm":
        raise RuleViolation("in this campaign the GM declares battles", rule="P-AMB-1", field="authorization")
    if options.get("battle_timing", "every_month") == "season_end" and month < months_per_season:
        raise RuleViolation(
            f"in this campaign battles are declared when a season ends: in the Battle step of its last month "
            f"(month {months_per_season}), not month {month}",
            rule="P-AMB-1",
            field="step",
        )


def goal_open(goal: dict[str, Any], round_no: int) -> bool:
    """P-BAT-8: a goal is in play unless a side's reward removed it ("Remove this goal", [003:641]) or removed it
    for this round ("remove this goal for next round", [003:647])."""
    return not goal.get("removed") and goal.get("closed") != round_no


def goal_rewards(
    goals: dict[str, Any], winners: dict[str, str | None], round_no: int
) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """P-BAT-8: the goals won this round with a reward for the winning side: what the rewards that act on the goal
    itself do to it ("Remove this goal", [003:641]: removed; "remove this goal for next round", [003:647]: closed
    next round), and each reward's words for the round's score (GOAL_REWARDS; a proposed one as proposed, for the GM
    to rule)."""
    changes: dict[str, dict[str, Any]] = {}
    words: dict[str, str] = {}
    for g, side in winners.items():
        reward = goals.get(g, {}).get("rewards", {}).get(side) if side is not None else None
        if not reward:
            continue
        words[g] = GOAL_REWARDS.get(reward, reward)
        if reward == REMOVE:
            changes[g] = {"removed": True}
        elif reward == REMOVE_NEXT_ROUND:
            changes[g] = {"closed": round_no + 1}
    return changes, words


def score_goals(
    successes: dict[str, dict[str, int]], *, walls_standing: bool = False, attackers: str | None = None
) -> dict[str, str | None]:
    """P-BAT-8 / P-EX-12: each goal goes to the side with strictly more presence successes; "No one wins ties"
    ([003:579]) and no successes win nothing. While Walls stand, "attackers may not score Advance Goals"
    ([003:639]): if the attackers would win Advance, nobody does (the defenders did not have more)."""
    out: dict[str, str | None] = {}
    for goal, per_side in successes.items():
        ranked = sorted(per_side.items(), key=lambda kv: -kv[1])
        winner: str | None = None
        if ranked and ranked[0][1] > 0 and (len(ranked) == 1 or ranked[0][1] > ranked[1][1]):
            winner = ranked[0][0]
        if goal == "advance" and walls_standing and winner is not None and winner == attackers:
            winner = None
        out[goal] = winner
    return out


# ---------------------------------------------------------------------- P-BAT-3 commands and P-BAT-7 momentum


def gain_momentum(army: dict[str, Any], n: int = 1) -> dict[str, Any]:
    """P-BAT-7: momentum is capped at the active units ([003:602]); Skeletons "Cannot gain momentum" ([003:788])."""
    out = dict(army)
    if army.get("ancestry") == "skeletons" or n <= 0:
        return out
    out["momentum"] = min(size(out), int(out.get("momentum", 0)) + n)
    return out


def rest(army: dict[str, Any]) -> dict[str, Any]:
    """P-BAT-3 [003:588] "Rest: gain a momentum and restore armor": +1 momentum (capped, P-BAT-7) and armor back
    to its maximum, equipment + base (P-AMB-15) - unless Burning: "You cannot gain or restore armor" ([003:807])."""
    out = gain_momentum(army, 1)
    if status(out, "Burning") <= 0:
        out["armor"] = max(current_armor(out), max_armor(out))
    return out


def spend_momentum(army: dict[str, Any], n: int = 1) -> dict[str, Any]:
    """P-BAT-3: Charge "Spend a momentum to Attack and Apply Presence" ([003:587]); the class abilities spend it
    too. Refused, naming P-BAT-3, without enough momentum."""
    have = int(army.get("momentum", 0))
    if n < 1 or have < n:
        raise RuleViolation(
            f"{army.get('name', army.get('id'))} has {have} momentum; it cannot spend {n}",
            rule="P-BAT-3",
            field="momentum",
        )
    out = dict(army)
    out["momentum"] = have - n
    return out


def cap_momentum(army: dict[str, Any]) -> dict[str, Any]:
    """P-BAT-7 [003:602]: "Momentum is capped at the number of active units"."""
    out = dict(army)
    out["momentum"] = max(0, min(int(out.get("momentum", 0)), size(out)))
    return out


def starting_momentum(army: dict[str, Any], same_side: list[dict[str, Any]], *, round_no: int = 1) -> int:
    """P-BAT-7: the momentum an army starts the battle with. Skirmisher "starts each battle with 2 momentum"
    ([003:726]); Recluse Elves "3 momentum, reduced by 1 per present friendly army" ([003:780], never below 0);
    the larger of the two if both. Cooks: "Other armies on your side start with a momentum (Doesn't stack with
    other cooks)" ([003:750]): +1 if another army on the side has Cooks. Horselords "gain momentum equal to the
    round number" they enter ([003:781]). Skeletons cannot gain momentum. Capped at the size.
    ``same_side``: the other armies on its side (the army itself, if listed, is skipped)."""
    if army.get("ancestry") == "skeletons":
        return 0
    others = [a for a in same_side if a.get("id") != army.get("id")]
    base = 0
    if has(army, "skirmisher"):
        base = 2
    if army.get("ancestry") == "recluse_elves":
        base = max(base, 3 - len(others))
    if any(has(a, "cooks") for a in others):
        base += 1
    if army.get("ancestry") == "horselords":
        base += max(0, round_no)
    return max(0, min(base, size(army)))


TRIGGERS = (
    "attacked",
    "attacks",
    "presence",
    "goal_won",
    "goal_lost",
    "enemy_routs",
    "round_end",
    "deployment",
    "spell",
)
# Elemental ancestries ([003:798]-[003:803]): the trigger that gains them a momentum, the first time each round.
ELEMENTAL_TRIGGER = {"A": "presence", "F": "attacks", "E": "attacked", "W": "goal_lost", "D": "enemy_routs"}


def elemental_ancestry(army: dict[str, Any]) -> str | None:
    """[003:797] "Creatures that were never mortal gain an ancestry based on their element": an army with no
    ancestry but an element."""
    return army.get("element") if army.get("ancestry") is None else None


def momentum_trigger(
    army: dict[str, Any],
    trigger: str,
    *,
    round_no: int = 1,
    attacker: dict[str, Any] | None = None,
    spell_element: str | None = None,
    spell_rank: int | None = None,
    unharmed: bool = False,
    sunlight: bool = False,
    centenium: bool = False,
) -> dict[str, Any]:
    """P-BAT-7: momentum an ancestry gains (or loses) when something happens to it in battle ([003:775]-[003:803]).
    ``trigger`` is one of TRIGGERS; "first time each round" triggers are remembered in ``army["triggered"]`` until
    Cleanup. Capped at the size; Skeletons gain none (``gain_momentum``).

    - attacked: Earth elementals (first each round); Halflings "when attacked by a larger army"; Wraiths "the
      first time each round they are attacked by a mortal army" (``attacker``).
    - attacks / presence / goal_lost / enemy_routs: Fire / Air / Water / Dark elementals, first each round.
    - goal_won: Drakes "at the end of each round their side wins a goal".
    - round_end: Harpies "when they end a round without receiving a wound or routing" (``unharmed``); Light
      elementals "at the end of the first four rounds ... in sunlight, or at the end of just the first round".
    - deployment: Orcs "if they are wounded"; Antinium "each round a Centenium is on the battlefield on their
      side" (``centenium``).
    - spell: Ashborn lose all momentum when a Water spell is cast, gain one for a Fire spell; Triumph Elves "if
      an ally cast a spell with rank matching the round number" (``spell_element``, ``spell_rank``).
    (Deep Dwarves, Mountain Dwarves, Diverse, Zombies and Ghouls: ``attack``, ``attacker_momentum``,
    ``ally_momentum``; Horselords: ``starting_momentum``.)"""
    if trigger not in TRIGGERS:
        raise RuleViolation(f"a momentum trigger is one of {', '.join(TRIGGERS)}", rule="P-BAT-7", field="trigger")
    anc = army.get("ancestry")
    fired = set(army.get("triggered", ()))
    gain = 0
    first = trigger not in fired
    element = elemental_ancestry(army)
    if element is not None and ELEMENTAL_TRIGGER.get(element) == trigger and first:
        gain += 1
    if trigger == "attacked" and attacker is not None:
        if anc == "halflings" and size(attacker) > size(army):
            gain += 1
        if anc == "wraiths" and mortal(attacker) and first:
            gain += 1
    elif trigger == "goal_won" and anc == "drakes" and first:
        gain += 1
    elif trigger == "round_end":
        if anc == "harpies" and unharmed:
            gain += 1
        if element == "L" and round_no <= (4 if sunlight else 1):
            gain += 1
    elif trigger == "deployment":
        if anc == "orcs" and any(u["wounds"] > 0 for u in army["units"]):
            gain += 1
        if anc == "antinium" and centenium:
            gain += 1
    elif trigger == "spell":
        if anc == "ashborn" and spell_element == "W":
            out = dict(army)
            out["momentum"] = 0
            return out
        if anc == "ashborn" and spell_element == "F":
            gain += 1
        if anc == "triumph_elves" and spell_rank is not None and spell_rank == round_no:
            gain += 1
    out = gain_momentum(army, gain)
    out["triggered"] = sorted(fired | {trigger})
    return out


def starting_statuses(army: dict[str, Any]) -> dict[str, int]:
    """Statuses an army enters a battle with: Stealthy "starts battles with Strengthened 1" ([003:739]); a War
    Balloon "Starts combat with Flying 1" ([003:712])."""
    out: dict[str, int] = {}
    if has(army, "stealthy"):
        out["Strengthened"] = 1
    if army.get("cls") == "war_balloon":
        out["Flying"] = 1
    return out


def round_statuses(army: dict[str, Any], round_no: int) -> dict[str, int]:
    """P-BAT-12 Flying at the start of a round: Angel on even rounds, Dragon and Flapping on odd ([003:706],
    [003:707], [003:762]). Returns the statuses to add."""
    odd = round_no % 2 == 1
    if (army.get("cls") == "angel" and not odd) or ((army.get("cls") == "dragon" or has(army, "flapping")) and odd):
        return {"Flying": 1}
    return {}


def add_statuses(army: dict[str, Any], statuses: dict[str, int]) -> dict[str, Any]:
    """Add stacks of statuses (P-BAT-12). Burning forbids gaining armor but not statuses."""
    out = deepcopy(army)
    for name, x in statuses.items():
        _set_status(out, name, status(out, name) + x)
    return out


def restore_armor(army: dict[str, Any], momentum: int) -> dict[str, Any]:
    """Shieldbearers: "When commanded, this army can spend momentum to restore up to twice that much armor"
    ([003:700]); capped at the maximum (P-AMB-15); Burning forbids it ([003:807])."""
    if not has(army, "shieldbearers"):
        raise RuleViolation(f"{army.get('name', army.get('id'))} is not Shieldbearers", rule="P-BAT-3")
    if status(army, "Burning") > 0:
        raise RuleViolation("a Burning army cannot restore armor", rule="P-BAT-12")
    out = spend_momentum(army, momentum)
    out["armor"] = min(max_armor(out), current_armor(out) + 2 * momentum)
    return out


# P-BAT-3: what each basic command does: (attacks, applies presence, momentum it spends).
COMMAND_PARTS: dict[str, tuple[bool, bool, int]] = {
    "slay": (True, False, 0),
    "hold": (False, True, 0),
    "charge": (True, True, 1),
    "rest": (False, False, 0),
}


def command_parts(command: str, army: dict[str, Any] | None = None) -> tuple[bool, bool, int]:
    """P-BAT-3 [003:585]-[003:588]: Slay attacks, Hold applies presence, Charge spends a momentum to do both, Rest
    gains a momentum and restores armor. Refuses an unknown command, and a Charge with no momentum (naming
    P-BAT-3)."""
    if command not in COMMAND_PARTS:
        raise RuleViolation(f"a command is one of {', '.join(COMMANDS)}", rule="P-BAT-3", field="command")
    parts = COMMAND_PARTS[command]
    if army is not None and parts[2] > int(army.get("momentum", 0)):
        raise RuleViolation(
            f"{army.get('name', army.get('id'))} has no momentum to {command}", rule="P-BAT-3", field="momentum"
        )
    return parts


def check_special(name: str, used: Iterable[str]) -> None:
    """P-BAT-3 [003:590]: "Generally, these special commands can only be used once per battle"."""
    if name in set(used):
        raise RuleViolation(f"{name} has been used this battle: a special command is once per battle", rule="P-BAT-3")


def first_initiative(deployed: dict[str, int], *, defender: str | None = None) -> str | None:
    """P.1.3 [003:578] "the power with fewer deployed armies seizes the initiative at the start of the battle";
    P-AMB-22: sides are compared by the armies deployed at the start, a tie goes to the defender (the side that
    did not declare); with no defender named, None (the caller flips a logged coin)."""
    if not deployed:
        return None
    fewest = min(deployed.values())
    sides = [s for s, n in deployed.items() if n == fewest]
    if len(sides) == 1:
        return sides[0]
    return defender if defender in sides else None


def battle_ends(round_no: int, sides: dict[str, list[dict[str, Any]]], *, surrendered: bool = False) -> bool:
    """P-BAT-10 [003:651]: "A battle ends when only one side has active armies remaining or at the end of 7
    rounds" (or when terms of surrender are accepted). ``round_no``: the round just finished."""
    active = [s for s, armies in sides.items() if any(not destroyed(a) for a in armies)]
    return surrendered or len(active) <= 1 or round_no >= MAX_ROUNDS


def pass_momentum(giver: dict[str, Any], receiver: dict[str, Any], n: int = 1) -> tuple[dict[str, Any], dict[str, Any]]:
    """Supports: "This unit may pass momentum on to other units" ([003:702]): the giver spends ``n``, the receiver
    gains them (capped at its size; Skeletons gain none, P-BAT-7)."""
    if not has(giver, "supports"):
        raise RuleViolation(f"{giver.get('name', giver.get('id'))} is not Supports", rule="P-BAT-7")
    return spend_momentum(giver, n), gain_momentum(receiver, n)


def offer_surrender(escalation: int) -> int:
    """P-BAT-9 [003:580]: "Any side with escalation may spend 1 escalation to offer terms of surrender ... the
    escalation is spent either way". Refused, naming P-BAT-9, with none."""
    if escalation < 1:
        raise RuleViolation("a side needs escalation to offer terms of surrender", rule="P-BAT-9", field="escalation")
    return escalation - 1


def advance_escalation(escalation: int) -> int:
    """P-BAT-8 [003:635]: Advance "Gain +1 Escalation"."""
    return escalation + 1


# ---------------------------------------------------------------------- P-BAT-11 deployment triggers


def deployment_checks(army: dict[str, Any], others: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """P-BAT-11 [003:708]-[003:709]: when a Demon or Devil is deployed, "opposed mortal armies make a morale check
    with threshold 2; routing a unit for each missing success". ``others``: the armies opposed to ``army``.
    Returns (army_id, dice, threshold) for each check; the caller rolls ``dice`` morale dice, counts successes
    with ``count_successes(faces, morale bonus, threshold)`` and routs ``deployment_routs(dice, successes)``.
    Repulsive (same side) is ``repulsive_checks``: a different rout count."""
    if army.get("cls") not in FEAR_CLASSES:
        return []
    return [(o["id"], morale_dice(o), DEMON_THRESHOLD) for o in others if mortal(o) and size(o) > 0]


def deployment_routs(dice: int, successes: int) -> int:
    """P-BAT-11 / P-AMB-16: "routing a unit for each missing success", missing measured against the dice rolled."""
    return max(0, dice - successes)


def repulsive_checks(army: dict[str, Any], allies: list[dict[str, Any]]) -> list[tuple[str, int, int, int]]:
    """P-BAT-11 [003:769] Repulsive: "When this army joins a battle on the same side as mortal units, those units
    must pass a rank 2 morale challenge". ``allies``: the other armies on its side. Returns (army_id, dice,
    threshold, routs_due) for each, with routs_due = size // 2 (P-AMB-16); resolve with ``morale``."""
    if not has(army, "repulsive"):
        return []
    return [
        (a["id"], morale_dice(a), REPULSIVE_RANK, size(a) // 2)
        for a in allies
        if a.get("id") != army.get("id") and mortal(a) and size(a) > 0
    ]


# ---------------------------------------------------------------------- P-BAT-12 cleanup


def _wound(out: dict[str, Any], lines: list[str], why: str) -> None:
    """One wound that is not an attack's (Burn, the Awesome Power's distance): on the least wounded active unit
    ([003:612]); it counts for Bloodied but forces no routs (only an attack does, [003:610])."""
    name = out.get("name", out.get("id"))
    i = _default_unit(out["units"], set())
    if i is None:
        return
    u = out["units"][i]
    u["wounds"] += 1
    u["new"] = u.get("new", 0) + 1
    if u["new"] > status(out, "Bloodied"):
        _set_status(out, "Bloodied", u["new"])
    slain = u["wounds"] >= wounds_to_die(out)
    if slain:
        out["units"].pop(i)
    lines.append(f"{name} {why}: 1 wound" + (", a unit slain" if slain else ""))


def _burn(army: dict[str, Any], lines: list[str]) -> dict[str, Any]:
    """P-BAT-12 Burning: "Take 1 wound from Burn each cleanup" ([003:807])."""
    out = _writable(army)
    name = out.get("name", out.get("id"))
    if status(out, "Burning") <= 0 or size(out) == 0:
        return out
    if resistance(out, "burn"):
        lines.append(f"{name} resists the burn")
    elif has(out, "arcanists") and current_armor(out) > 0:
        out["armor"] = current_armor(out) - 1
        lines.append(f"{name} burns: 1 armor lost")
    else:
        _wound(out, lines, "burns")
    return out


def awesome_power_wounds(army: dict[str, Any], distance: int) -> tuple[dict[str, Any], list[str]]:
    """P-BAT-11: the Celestial's Awesome Power: "when fighting outside your capitol, you take wounds at the start
    of each battle equal to your range distance from your capitol" ([003:1028]). ``distance``: hexes from the
    capitol (0 inside it). Wounds, not attacks: no rout check."""
    if distance < 0:
        raise RuleViolation("a distance is never negative", rule="P-BAT-11", field="distance")
    out = deepcopy(army)
    lines: list[str] = []
    for _ in range(distance):
        _wound(out, lines, f"fights {distance} hexes from its capitol")
    return cap_momentum(out), lines


def cleanup_dice(army: dict[str, Any]) -> int:
    """The morale dice Frightened needs at this Cleanup (0 when not Frightened), counted after Burning."""
    burnt = _burn(army, [])
    return morale_dice(burnt) if status(burnt, "Frightened") > 0 and size(burnt) > 0 else 0


def cleanup(army: dict[str, Any], frightened_faces: list[int] | None = None) -> tuple[dict[str, Any], list[str]]:
    """P-BAT-12 [003:581] "Some statuses on armies trigger, then they all tick down by 1":
    1. Burning: "Take 1 wound from Burn each cleanup" ([003:807]): Burn damage (Fire; armor soaks it only with
       Arcanists, the Fire element resists it); on the least wounded unit. Not an attack: it does not force routs.
    2. Frightened X: "Roll a rank X morale challenge during each cleanup (before ticking down)" ([003:808]):
       ``frightened_faces`` (``cleanup_dice`` of them) at threshold X, routs_due = size // 2 (P-AMB-16).
    3. Every status ticks down by 1; Valiant: "Negative statuses tick down by 2" ([003:728]). Bloodied and
       Delayed do not (see the module docstring).
    4. The Dervishes' guard ends with the round.
    Returns the new army and the report lines."""
    lines: list[str] = []
    name = army.get("name", army.get("id"))
    out = _burn(army, lines)
    x = status(out, "Frightened")
    if x > 0 and size(out) > 0:
        if frightened_faces is None:
            raise RuleViolation(f"{name} is Frightened: roll {cleanup_dice(out)} morale dice", rule="P-BAT-12")
        due = size(out) // 2
        out, routed = morale(out, frightened_faces, x, due)
        lines.append(f"{name} is Frightened {x}: {routed} routed")
    valiant = has(out, "valiant")
    for k in list(out.get("statuses", {})):
        if k.capitalize() in TRACKERS or k in TRACKERS:
            continue
        step = 2 if valiant and k.capitalize() in NEGATIVE_STATUSES else 1
        v = int(out["statuses"][k]) - step
        if v > 0:
            out["statuses"][k] = v
        else:
            del out["statuses"][k]
            lines.append(f"{name}: {k} ends")
    for k in ("dervish_defense", "dervish_used", "triggered"):
        out.pop(k, None)
    return cap_momentum(out), lines


# ---------------------------------------------------------------------- P-BAT-14 reinforcements, P-BAT-4 end


def arrives(army: dict[str, Any]) -> bool:
    """P-BAT-14 [003:563]: a reinforcement "marked with Delayed X ... added when Delayed reaches 0" (P-AMB-44:
    Delayed 0 deploys in round 1)."""
    return status(army, "Delayed") <= 0


def tick_delayed(army: dict[str, Any]) -> dict[str, Any]:
    """P-BAT-14 / P-AMB-44: Delayed drops by 1 at each round's Cleanup."""
    out = deepcopy(army)
    _set_status(out, "Delayed", max(0, status(out, "Delayed") - 1))
    return out


def destroyed(army: dict[str, Any]) -> bool:
    """P-BAT-4 [003:612]: "When an army loses its last unit to either wounds or rout, it is destroyed"."""
    return size(army) == 0


def clear_battle(army: dict[str, Any]) -> dict[str, Any]:
    """After the battle: the battle-only keys go (armor is whole again: armor lost is no permanent loss, P-EX-4;
    Bloodied, the per-unit new wounds, the battle statuses). Wounds and routs stay until the season's recovery
    (P-ARMY-9)."""
    out = deepcopy(army)
    for k in ("armor", "dervish_defense", "dervish_used", "triggered"):
        out.pop(k, None)
    out["units"] = [{"wounds": u["wounds"], "routed": u["routed"]} for u in out["units"]]
    out["statuses"] = {}
    out["momentum"] = 0
    return out


# ---------------------------------------------------------------------- P-BAT-13 after the battle


@dataclass(frozen=True)
class Aftermath:
    """P-BAT-13: what the battle leaves."""

    experience_rank: int
    survivors: tuple[str, ...]
    fear: dict[str, int]
    coin: dict[str, int]
    fees: dict[str, int] = field(default_factory=dict)
    influence: dict[str, int] = field(default_factory=dict)
    lost: tuple[str, ...] = ()


def after_battle(
    before: dict[str, dict[str, Any]],
    after: dict[str, dict[str, Any]],
    *,
    fear_users: Iterable[str] = frozenset(),
    scoundrels: Iterable[str] = frozenset(),
    kills: Iterable[tuple[str, str, int]] = (),
    sides: dict[str, str] | None = None,
    intimidators: Iterable[str] = frozenset(),
    winner: str | None = None,
) -> Aftermath:
    """P-BAT-13 [003:651]: "count the armies that permanently lost at least one unit. Every army that survived the
    battle gains a one-use Experience asset of that rank" (P-AMB-40: the count over all sides). Routed units are
    not lost; an army absent from ``after`` lost them all. Survivors: armies not destroyed (P-BAT-4).

    - Fear ([003:175]): each power in ``fear_users`` gains "the number of units they slew plus the rank of the
      highest ranked unit they slew"; ``kills`` = (slayer army id, victim army id, units), from the battle record.
    - Scoundrels ([003:747]) "provides 1 coin every time they slay a unit": to its controller, by ``kills``; an
      army is a scoundrel by keyword or by being in ``scoundrels``.
    - Fees ([003:625]) "paid after the army moves or fights a battle": each fighting army's fee to its controller,
      unless loyal or personal.
    - Intimidation ([003:1120] "when you win a battle in a hex, gain influence there equal to the greatest level of
      the opposed armies", P-INFL-5, P-AMB-41 level = rank): each power in ``intimidators`` on the ``winner``
      side (``sides``: army id -> side) gains it; no winner, no influence. Once a season is the caller's count."""
    lost = tuple(
        sorted(a for a, b in before.items() if len((after.get(a) or {"units": []})["units"]) < len(b["units"]))
    )
    survivors = tuple(sorted(a for a in before if a in after and not destroyed(after[a])))
    fear_set = set(fear_users)
    scoundrel_set = set(scoundrels) | {a for a, b in before.items() if "scoundrels" in b.get("keywords", ())}
    fear: dict[str, int] = {}
    best: dict[str, int] = {}
    coin: dict[str, int] = {}
    for slayer, victim, n in kills:
        if n <= 0 or slayer not in before or victim not in before:
            continue
        power = before[slayer].get("controller")
        if power is None:
            continue
        if power in fear_set:
            fear[power] = fear.get(power, 0) + n
            best[power] = max(best.get(power, 0), int(before[victim]["rank"]))
        if slayer in scoundrel_set:
            coin[power] = coin.get(power, 0) + n
    for power, rank in best.items():
        fear[power] += rank
    fees: dict[str, int] = {}
    for a, b in before.items():
        power = b.get("controller")
        if power and not b.get("loyal") and not b.get("personal") and b.get("fee", 0):
            fees[power] = fees.get(power, 0) + int(b["fee"])
    influence: dict[str, int] = {}
    if sides and winner is not None:
        for power in intimidators:
            mine = {sides[a] for a, b in before.items() if b.get("controller") == power and a in sides}
            if winner not in mine:
                continue
            ranks = [int(b["rank"]) for a, b in before.items() if a in sides and sides[a] not in mine]
            if mine and ranks:
                influence[power] = max(ranks)
    return Aftermath(
        experience_rank=len(lost),
        survivors=survivors,
        fear=fear,
        coin=coin,
        fees=fees,
        influence=influence,
        lost=lost,
    )
