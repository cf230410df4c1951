"""The covenant game's arithmetic and checks, as pure functions of plain values (ANALYSIS Part A, A.2).

The sub-domain modules (``domain.covenants.track``, ``cards``, ``certamen``, ...) call these before they record
anything; each refusal is a RuleViolation naming the A-* id it enforces. Recommended decisions (A-AMB-n) are
taken as stated.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TypedDict

from domain.covenants.errors import RuleViolation


class RollStep(TypedDict):
    """A step that changed a generation roll (A-GEN-1): curse, predetermined, halved, mouse or set."""

    step: str
    value: int


class HeldCard(TypedDict, total=False):
    """What the limits read of a card a covenant holds (A-LIM-1)."""

    kind: str
    name: str
    active: bool


class Being(TypedDict, total=False):
    """What the attack reads of a being in battle (A-BAT-1): its Might, whether it is active, its weapon."""

    might: int
    active: bool
    weapon: int
    weapon_damage: int


RULES_VERSION = "covenants-1"

# A.1.1: the Season Track by index, and the Year Track.
TRACK = (
    "begin", "property", "improvement", "personnel", "item", "magic",
    "property", "improvement", "personnel", "event", "end",
)  # fmt: skip
EVENT_SQUARE = 9
END_SQUARE = 10
SEASONS = ("spring", "summer", "autumn", "winter")

# A.1.2: the phases of a cycle, then the Reckoning and the season's end.
CYCLE = ("move", "create", "events", "main", "certamen")


# ---------------------------------------------------------------- A.2.1 track, order, turns


def legal_moves(current: int, first_move: bool, event_occupied: bool) -> list[int]:
    """A-TRACK-1: the squares a token may move to (at least one square right; a season's first move no
    further than Event; never onto an occupied Event square)."""
    out = []
    for t in range(current + 1, END_SQUARE + 1):
        if first_move and t > EVENT_SQUARE:
            continue
        if t == EVENT_SQUARE and event_occupied:
            continue
        out.append(t)
    return out


def check_move(current: int, target: int, first_move: bool, event_occupied: bool) -> None:
    """A-TRACK-1, naming which clause a refused move breaks."""
    if target <= current:
        raise RuleViolation(f"a move must be at least one square to the right of {current}", rule="A-TRACK-1")
    if first_move and target > EVENT_SQUARE:
        raise RuleViolation("the first move of a season may go no further than the Event square", rule="A-TRACK-1")
    if target == EVENT_SQUARE and event_occupied:
        raise RuleViolation("the Event square is occupied", rule="A-TRACK-1")
    if target > END_SQUARE:
        raise RuleViolation("the track ends at the End square", rule="A-TRACK-1")


def square_kind(square: int) -> str:
    """A-TRACK-2: the resource type a square generates ('event', 'begin' and 'end' generate none)."""
    return TRACK[square]


def clockwise(order: Sequence[str], starting: str) -> list[str]:
    """A-ORDER-1: the seats in turn order, clockwise from the starting player."""
    i = list(order).index(starting)
    return list(order[i:]) + list(order[:i])


def next_starting_player(order: Sequence[str], scores: Mapping[str, int], current: str) -> str:
    """A-ORDER-2 with A-AMB-8: the lowest score; among ties, the first clockwise after the current starter."""
    low = min(scores[s] for s in order)
    after = clockwise(order, current)[1:] + [current]
    return next(s for s in after if scores[s] == low)


# ---------------------------------------------------------------- A.2.2 generation


def random_arts(
    d6: Iterable[int], d20: Iterable[int], techniques: Sequence[str], forms: Sequence[str]
) -> tuple[list[str], list[str], int, int]:
    """A-GEN-4: two Techniques from d6 (rerolling 6 and duplicates), three Forms from ceil(d20/2) (rerolling a
    duplicate Form, A-AMB-16). Returns the Arts and how many of each die were used."""
    tech: list[str] = []
    used6 = 0
    for face in d6:
        used6 += 1
        if face != 6 and techniques[face - 1] not in tech:
            tech.append(techniques[face - 1])
        if len(tech) == 2:
            break
    form: list[str] = []
    used20 = 0
    for face in d20:
        used20 += 1
        f = forms[math.ceil(face / 2) - 1]
        if f not in form:
            form.append(f)
        if len(form) == 3:
            break
    return tech, form, used6, used20


def modified_roll(
    faces: Sequence[int],
    sides: int,
    *,
    cursed: bool = False,
    predetermined: int | None = None,
    halved: bool = False,
    mouse: int = 0,
    set_to: int | None = None,
) -> tuple[int, list[RollStep]]:
    """A-GEN-1 in the order of A-AMB-6: curse (the lesser of two dice), predetermined value, halving, the
    Mouse's +/-2, a set value. Returns the value and each step taken (each step is recorded)."""
    steps: list[RollStep] = []
    if cursed:
        if len(faces) != 2:
            raise RuleViolation("a cursed covenant rolls every die twice", rule="A-GEN-1")
        value = min(faces)
        steps.append({"step": "curse", "value": value})
    else:
        value = faces[0]
    if predetermined is not None:
        value = predetermined
        steps.append({"step": "predetermined", "value": value})
    if halved:
        value = max(1, value // 2)
        steps.append({"step": "halved", "value": value})
    if mouse:
        if abs(mouse) > 2:
            raise RuleViolation("the Mouse adds or subtracts up to 2", rule="A-GEN-1", field="mouse")
        value = min(sides, max(1, value + mouse))
        steps.append({"step": "mouse", "value": value})
    if set_to is not None:
        if not 1 <= set_to <= sides:
            raise RuleViolation(f"a d{sides} shows 1 to {sides}", rule="A-GEN-1", field="set_to")
        value = set_to
        steps.append({"step": "set", "value": value})
    return value, steps


# ---------------------------------------------------------------- A.2.3 limits


def check_caps(kind: str, name: str, covenant: Sequence[HeldCard], *, unique: bool, in_play_names: set[str]) -> None:
    """A-LIM-1: whether a card of this kind may join this covenant (``covenant``: its cards in play, each a dict
    with ``kind``, ``name``, ``active``)."""
    count = {k: sum(1 for c in covenant if c["kind"] == k) for k in {c["kind"] for c in covenant}}
    named = {c["name"] for c in covenant}
    if unique and name in in_play_names:
        raise RuleViolation(f"{name} is already in play", rule="A-LIM-1")
    if kind == "villagers":
        cap = 4 + 4 * _named(named, covenant, "Expansion/Major") + 2 * _named(named, covenant, "Expansion/Minor")
        if count.get("villagers", 0) + 1 > cap:
            raise RuleViolation(f"this covenant supports at most {cap} Villagers", rule="A-LIM-1")
    if kind == "livestock":
        cap = 4 + 4 * sum(1 for c in covenant if c["name"] == "Specialist: Bailiff")
        if count.get("livestock", 0) + 1 > cap:
            raise RuleViolation(f"this covenant supports at most {cap} Livestock", rule="A-LIM-1")
    if kind == "town":
        if count.get("town", 0):
            raise RuleViolation("a covenant may have at most one Town", rule="A-LIM-1")
        if not any("Expansion" in c["name"] for c in covenant):
            raise RuleViolation("a Town needs an Improvement (Expansion) in play", rule="A-LIM-1")
        if count.get("villagers", 0) < 4:
            raise RuleViolation("a Town needs four Villagers to discard", rule="A-LIM-1")
    if kind in ("vis_source", "mine"):
        grogs = sum(1 for c in covenant if c["kind"] == "grogs" and c["active"])
        held = count.get("vis_source", 0) + count.get("mine", 0)
        if held + 1 > 2 * grogs:
            raise RuleViolation(f"at most 2 Vis Sources and Mines per active Grogs ({grogs} active)", rule="A-LIM-1")


def _named(named: set[str], covenant: Sequence[HeldCard], part: str) -> int:
    """The active cards whose name has ``part``: one under construction has no effect yet (A-GEN-3, A-LIM-2)."""
    return sum(1 for c in covenant if part in c["name"] and c["active"])


def unsupported_holdings(covenant: Sequence[HeldCard]) -> int:
    """A-LIM-1 with A-AMB-11: how many Vis Sources and Mines must go when active Grogs drop."""
    grogs = sum(1 for c in covenant if c["kind"] == "grogs" and c["active"])
    held = sum(1 for c in covenant if c["kind"] in ("vis_source", "mine"))
    return max(0, held - 2 * grogs)


# ---------------------------------------------------------------- A.2.4 spells


def aegis_value(vis: int) -> int:
    """A-SPELL-4 and A-AMB-18: 1 per pawn beyond the initial 2, up to 5 pawns."""
    return max(0, min(vis - 2, 3))


def resistance(*, rival: bool, aegis: int, mr: int) -> int:
    """A-SPELL-4 [000:77]-[000:86]: what a target takes off a spell's vis, its rival covenant's Aegis and its own
    MR; a target in the caster's own covenant takes nothing off."""
    return aegis + mr if rival else 0


def target_strengths(vis: int, resistances: Sequence[int], *, per_target: bool) -> list[int]:
    """A-AMB-17 [000:87] "Multiple targets are calculated independently; therefore, the maximum Magical Resistance
    determines the spell strength for reaching all targets": each target's spell strength is the vis less the
    highest resistance (Aegis and MR) among the targets, so the spell reaches all or none; or, the campaign option
    per_target, less its own."""
    if per_target:
        return [vis - r for r in resistances]
    return [vis - max(resistances, default=0)] * len(resistances)


def effective_magnitude(strength: int, min_vis: int, max_vis: int) -> int | None:
    """A-SPELL-4: None if the spell fails (strength below its minimum), else min(strength, max)."""
    if strength < min_vis:
        return None
    return min(strength, max_vis)


def check_learn(spell_arts: Sequence[str], mage_arts: Iterable[str]) -> None:
    """A-SPELL-1: learning needs at least one of the spell's Arts."""
    if not set(spell_arts) & set(mage_arts):
        raise RuleViolation(f"learning this spell needs one of {list(spell_arts)}", rule="A-SPELL-1")


def check_cast_arts(spell_arts: Sequence[str], mage_arts: Iterable[str]) -> None:
    """A-SPELL-1: casting needs all the spell's Arts."""
    missing = sorted(set(spell_arts) - set(mage_arts))
    if missing:
        raise RuleViolation(f"casting this spell needs the Arts {missing}", rule="A-SPELL-1")


def expires_at(cast_season_index: int, duration_seasons: int) -> int:
    """A-SPELL-3: a spell of N seasons cast in season s (counted as its first) ends at the start of the same
    phase in season s + N; a regular spell (0) ends with season s."""
    return cast_season_index + max(duration_seasons, 0) if duration_seasons else cast_season_index


def counters(pawns: int, target_strength: int) -> bool:
    """A-SPELL-5: a counter succeeds when its pawns exceed the target spell's strength."""
    return pawns > target_strength


def check_target_kind(target: str, *, animate: bool, structure: bool, mage: bool) -> None:
    """A spell's target kind against a card ([000:22] "animate ... is synonymous with "being", the latter with either
    "item" or "structure""; A-DMG-2 [000:125] "Structures (Improvement and Town cards) and Items (everything
    else)"): a spell at beings strikes only the animate, at structures only structures, at items only the rest."""
    fits = {"being": animate, "mage": mage, "structure": structure, "item": not animate and not structure}
    if not fits.get(target, True):
        raise RuleViolation(f"this spell targets a {target}, and the card is not one", rule="A-DMG-2", field="target")


def check_self_target(raises_own: bool, self_allowed: bool, meets_targeting: bool) -> None:
    """A-SPELL-6: a mage may target itself if the spell says so, or if it meets the targeting and the spell
    raises none of its own abilities."""
    if self_allowed:
        return
    if raises_own:
        raise RuleViolation("a mage may not raise its own Certamen or Magical Resistance", rule="A-SPELL-6")
    if not meets_targeting:
        raise RuleViolation("the caster is not a legal target of this spell", rule="A-SPELL-6")


def check_phase(allowed_phases: Sequence[str], phase: str, seasons: Sequence[str], season: str) -> None:
    """A-SPELL-8: an effect naming a phase or a season may be used only then."""
    if phase not in allowed_phases:
        raise RuleViolation(f"this spell is cast in the {', '.join(allowed_phases)} phase", rule="A-SPELL-8")
    if season not in seasons:
        raise RuleViolation(f"this spell is cast in {', '.join(seasons)}", rule="A-SPELL-8")


# ---------------------------------------------------------------- A.2.5 damage and battle


def is_active_after_damage(*, animate: bool, might_type: str | None, might: int, structure: bool, damage: int) -> bool:
    """A-DMG-1/-3: any damage rotates a mundane being; a being of other Might stays active until damage reaches
    its Might; a structure stands until 5 (A-DMG-2)."""
    if structure:
        return damage < 5
    if animate and might_type in ("magical", "faerie", "demon"):
        return damage < might
    return damage == 0


def destroyed(*, structure: bool, damage: int) -> bool:
    """A-DMG-2: a structure is destroyed at 5 cumulative damage."""
    return structure and damage >= 5


def passive_heal(damage: int, inactive_all_season: bool, new_damage: bool) -> int:
    """A-DMG-4: after Reckoning a mundane being inactive all season with no new damage loses 1 damage."""
    if damage and inactive_all_season and not new_damage:
        return damage - 1
    return damage


def attack_total(beings: Sequence[Being], *, bard: bool = False, captains: int = 0) -> int:
    """A-BAT-1: the sum of the Might of a side's active beings of that Might, their weapons, +1 per qualifying
    being with Bartholomew, +1 per Turb Captain's group."""
    total = 0
    for b in beings:
        if not b.get("active", True):
            continue
        weapon = max(0, b.get("weapon", 0) - b.get("weapon_damage", 0))
        total += b["might"] + weapon + (1 if bard and b["might"] >= 1 else 0)
    return total + captains


def check_allocation(damage: int, capacities: Mapping[str, int], allocation: Mapping[str, int]) -> None:
    """A-BAT-1: all the damage is assigned; no being takes more than its capacity until every being is full."""
    if sum(allocation.values()) != damage:
        raise RuleViolation(f"assign exactly {damage} damage", rule="A-BAT-1", field="allocation")
    unknown = set(allocation) - set(capacities)
    if unknown:
        raise RuleViolation(f"{sorted(unknown)} are not in this battle", rule="A-BAT-1", field="allocation")
    full = all(allocation.get(b, 0) >= cap for b, cap in capacities.items())
    over = [b for b, n in allocation.items() if n > capacities[b]]
    if over and not full:
        raise RuleViolation(
            f"{over} take more than their capacity while others are not full", rule="A-BAT-1", field="allocation"
        )


def marks_aggression(*, target_covenant: str | None, caster_covenant: str, harmful: bool) -> bool:
    """A-AGG-1: any spell at a rival covenant marks the caster's; at its own, only a harmful one."""
    if target_covenant is None:
        return False
    return target_covenant != caster_covenant or harmful


# ---------------------------------------------------------------- A.2.6 Certamen


def certamen_score(
    rating: int, arts: Iterable[str], technique: str, form: str, vis: int, *, bonus: int = 0, distracted: bool = False
) -> int:
    """A-CERT-3: rating + 1 per chosen Art the mage has + vis spent (+ bonuses); Distractions halves, rounded up,
    after every addition (A-AMB-7)."""
    have = set(arts)
    score = rating + bonus + (technique in have) + (form in have) + vis
    return math.ceil(score / 2) if distracted else score


# ---------------------------------------------------------------- A.2.7 Reckoning and economy


def yearly_points(provision: int, gold: int, vis: int, *, curse6: bool = False, provision_per_point: int = 4) -> int:
    """A-RECK-3 and A-RECK-6: 1 per 4 provision (a house rule's ``provision_per_point``), per 2 gold, per pawn of vis
    (less 1 with curse 6)."""
    points = provision // provision_per_point + gold // 2 + vis
    return max(0, points - 1) if curse6 else points


def apply_tribute(points: int, score: int, owed: int) -> tuple[int, int, int]:
    """A-RECK-4: each point owed comes off this year's points, then off the score. Returns (new score, points
    paid from this year, points paid from the score); the receiver of tribute owed to a covenant gets both."""
    from_year = min(points, owed)
    from_score = min(score, owed - from_year)
    return score + points - from_year - from_score, from_year, from_score


def winners(scores: Mapping[str, int], target: int = 25, *, surplus: Mapping[str, int] | None = None) -> list[str]:
    """A-RECK-5 with A-AMB-8: nobody below the target; else everyone with the highest score (a shared win), or,
    given each covenant's unconverted surplus (the optional tiebreak), those of them whose surplus is largest."""
    if not scores or max(scores.values()) < target:
        return []
    top = max(scores.values())
    best = sorted(s for s, v in scores.items() if v == top)
    if surplus is not None:
        most = max(surplus[s] for s in best)
        best = [s for s in best if surplus[s] == most]
    return best


RATES = {("provision", "gold"): (2, 1), ("gold", "provision"): (1, 2), ("gold", "vis"): (2, 1), ("vis", "gold"): (1, 2)}


def convert(give: str, amount: int, get: str, *, market: bool, famine: bool, artisan_rate: int = 0) -> int:
    """A-ECON-1: what ``amount`` of ``give`` buys: 2 provision <-> 1 gold, 2 gold <-> 1 vis at a Market Fair
    or Town; gold a Touch of the Artisan enhanced buys ``artisan_rate`` provision a piece (its house package's
    rate, [000:590] 7); nothing to or from provision during a Famine."""
    if famine and "provision" in (give, get):
        raise RuleViolation("no conversion to or from provision during a Famine", rule="A-ECON-1")
    if not market:
        raise RuleViolation("conversions need a Market Fair or your own Town", rule="A-ECON-1")
    if artisan_rate and (give, get) == ("gold", "provision"):
        return amount * artisan_rate
    rate = RATES.get((give, get))
    if rate is None:
        raise RuleViolation(f"{give} does not convert to {get}", rule="A-ECON-1")
    pay, receive = rate
    if amount % pay:
        raise RuleViolation(f"{give} converts in lots of {pay}", rule="A-ECON-1", field="amount")
    return amount // pay * receive


# ---------------------------------------------------------------- A.2.8 events


def parity_success(face: int) -> bool:
    """A-EVT-3: an event's d6 test succeeds on an even roll."""
    return face % 2 == 0


def tax(provision_capacity: int, gold: int, *, courtly: bool = False) -> int:
    """A-EVT-4 with A-AMB-14: floor((capacity/2 + gold)/4), at least 2 gold (with Courtly Connections /5, at
    least 1)."""
    base = provision_capacity // 2 + gold
    return max(1, base // 5) if courtly else max(2, base // 4)


def famine_loss(provision: int) -> int:
    """A-EVT-4 with A-AMB-14: a Famine takes floor(P/2)."""
    return provision // 2


def riots_outcome(damage: int) -> str:
    """A-EVT-4 with A-AMB-13: 9 or more discards the Town, 4 to 8 ends the event, less rotates the Town."""
    if damage >= 9:
        return "town_discarded"
    if damage >= 4:
        return "event_ends"
    return "town_inactive"


def curse_surcharge(curses: Iterable[int], spell_arts: Sequence[str]) -> int:
    """A-EVT-4, the Hedge Mage's curses 3 and 4 ([000:755]-[000:758]): a Te spell, and a Cr spell, of the cursed
    covenant each need one additional pawn of vis."""
    have = set(curses)
    return (3 in have and "Te" in spell_arts) + (4 in have and "Cr" in spell_arts)


def unseelie_victims(beings_with_might: int) -> int:
    return math.ceil(beings_with_might / 4)


def check_directed(event: str, target: str, history: Iterable[tuple[str, str]], active_on_target: int) -> None:
    """A-EVT-2: a target receives each directed event once a game (Quaesitor excepted), and at most 2 at once."""
    if event != "Quaesitor Investigation" and (event, target) in set(history):
        raise RuleViolation(f"{target} has already been the target of {event}", rule="A-EVT-2")
    if active_on_target >= 2:
        raise RuleViolation(f"{target} already has two directed events in effect", rule="A-EVT-2")
