"""Powers magic as pure functions (P.2.9 P-MAG-1..6, P-ACT-3, P-RES-6). Each cites its rule id."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from domain.errors import RuleViolation
from domain.powers.spells import SPEEDS

# P-MAG-1: the four terrestrial elements, and Light and Dark ([003:154], [003:180]).
TERRESTRIAL = ("A", "F", "E", "W")
ELEMENTS = (*TERRESTRIAL, "L", "D")
ELEMENT_NAMES = {"A": "Air", "F": "Fire", "E": "Earth", "W": "Water", "L": "Light", "D": "Dark"}

# P-MAG-1: "You can store up to N of each mana during a given season", by perk or class feature.
STORAGE_EACH = {
    "novice_mages": 1,  # Cause [003:1248]
    "personal_magic": 2,  # Dragon [003:1335]
    "holy_magic": 2,  # Paragon [003:1370]
    "circle_magic": 2,  # Circle [003:1155]
    "cult_magic": 2,  # Cult [003:1199]
    "righteous_magic": 2,  # Cause perk [003:1268]
    "indentured_mages": 2,  # Overlord [003:1070]
    "magical_monarch": 2,  # Sovereign perk [003:1019]: two of each other element; the ancestry's stays 4
    "excellent_personal_magic": 3,  # Celestial [003:1032], Wizard [003:1296]
    "magical_beast": 3,  # Dragon perk [003:1358]
    "magical_protector": 4,  # Celestial perk [003:1058]
}
STORAGE_OF_ELEMENT = {"specialized_magic": 4}  # Sovereign [003:987]: 4 of the ancestry's element
ADD_EACH = {"borrowed_magic": 1, "greater_holy_magic": 1}  # Paragon perks [003:1399], [003:1401]
ADD_TO_ELEMENT = {"elemental_specialization": 2}  # [003:903], repeatable with a different element
# Perks that change casting rather than storage (P-MAG-6), and Witchcraft (P-INFL-5, P-EX-3).
OTHER_PERKS = (
    "vessel_heart",  # [003:909]
    "improvised_instants",  # [003:915]
    "elemental_flexibility",  # [003:1318]
    "perfected_spell",  # [003:1308]
    "elemental_efficiency",  # [003:901], repeatable with a different element
    "steady_sorcery",  # [003:913]
    "witchcraft",  # [003:1124]
    "divine_protector",  # Celestial perk [003:1060]: Light or Dark
    "divine_beast",  # Dragon perk [003:1360]: Light or Dark
)
MAGIC_PERKS = (*STORAGE_EACH, *STORAGE_OF_ELEMENT, *ADD_EACH, *ADD_TO_ELEMENT, *OTHER_PERKS)
ELEMENT_PERKS = (
    "specialized_magic",
    "elemental_specialization",
    "elemental_efficiency",
    "magical_protector",
    "magical_beast",
    "divine_protector",
    "divine_beast",
)
# The elements a perk's element may be: "your element" is a terrestrial one for Magical Protector and
# Beast ([003:1028], [003:1325]), Light or Dark for the Divine ones; Elemental Efficiency and
# Specialization choose "a terrestrial element" ([003:901], [003:903]).
PERK_ELEMENTS = {
    "elemental_specialization": TERRESTRIAL,
    "elemental_efficiency": TERRESTRIAL,
    "magical_protector": TERRESTRIAL,
    "magical_beast": TERRESTRIAL,
    "divine_protector": ("L", "D"),
    "divine_beast": ("L", "D"),
}
# P-MAG-1, mana gained: each Tidings these perks generate mana of their element(s), up to the cap.
SEASONAL_MANA = {
    "elemental_specialization": 1,  # [003:903] "gain 1 mana of that element at the start of each season"
    "magical_protector": 1,  # [003:1058]
    "magical_beast": 1,  # [003:1358]
    "divine_protector": 2,  # [003:1060]
    "divine_beast": 2,  # [003:1360]
}
REPEATABLE_PERKS = ("elemental_specialization", "elemental_efficiency")
PERFECTED_MAX = 3  # one spell, and two more with the upgrade ([003:1310])

# The storage a class's own features give (P-MAG-1). A Sovereign's is of one element (its ancestry's),
# so the GM records it as ``specialized_magic`` with that element; an adversary's is the GM's call.
CLASS_STORAGE = {
    "celestial": "excellent_personal_magic",
    "overlord": "indentured_mages",
    "circle": "circle_magic",
    "cult": "cult_magic",
    "cause": "novice_mages",
    "wizard": "excellent_personal_magic",
    "dragon": "personal_magic",
    "paragon": "holy_magic",
}
# P-MAG-5: City on a Hill (Celestial [003:1042]) and Detailed Inspections (Overlord [003:1077]) are class
# features: spells cast from the capitol have doubled range.
CAPITOL_DOUBLES = ("celestial", "overlord")
CONDUIT_KINDS = ("person", "heir", "master", "mage", "shrine", "outpost", "army", "cultist", "influence", "other")


def perk_key(name: str) -> str:
    """A perk as the rules name it ("Vessel Heart") -> its key here ("vessel_heart")."""
    return "_".join(str(name).lower().replace("’", "").replace("'", "").split())


def element_named(text: str) -> str | None:
    """A perk's choice as an element: its letter (``F``) or its name (``Fire``), else None."""
    word = str(text).strip()
    if word.upper() in ELEMENTS and len(word) == 1:
        return word.upper()
    return next((e for e, name in ELEMENT_NAMES.items() if name.lower() == word.lower()), None)


def check_element(element: str, field: str = "element") -> str:
    """P-MAG-1: mana is one of A, F, E, W, L (Light) or D (Dark)."""
    if element not in ELEMENTS:
        raise RuleViolation(
            f"mana is one of {', '.join(f'{e} ({ELEMENT_NAMES[e]})' for e in ELEMENTS)}; {element!r} is not",
            rule="P-MAG-1",
            field=field,
        )
    return element


@dataclass(frozen=True)
class Cost:
    """A mana cost: a generic part payable with any mana, and element symbols payable only in kind."""

    generic: int
    symbols: tuple[str, ...]

    @property
    def elements(self) -> list[str]:
        """P-MAG-2: the spell's elements are the distinct symbols of its cost, whatever mana paid it."""
        return sorted(set(self.symbols), key=ELEMENTS.index)

    @property
    def total(self) -> int:
        return self.generic + len(self.symbols)

    @property
    def text(self) -> str:
        return (str(self.generic) if self.generic or not self.symbols else "") + "".join(self.symbols)


_COST = re.compile(r"^(\d*)([A-Z]*)$")


def parse_cost(text: str) -> Cost:
    """P-MAG-2: ``<generic integer><element letters>``; ``2FF`` is 2 generic + F + F."""
    m = _COST.match(text.strip()) if isinstance(text, str) else None
    if m is None or not (m.group(1) or m.group(2)):
        raise RuleViolation(
            f"a cost is a generic number then element letters (for example 2FF); {text!r} is not",
            rule="P-MAG-2",
            field="cost",
        )
    for s in m.group(2):
        check_element(s, "cost")
    generic = int(m.group(1) or 0)
    if generic > 40 or len(m.group(2)) > 20:
        raise RuleViolation("a cost has at most 40 generic mana and 20 symbols", rule="P-MAG-2", field="cost")
    return Cost(generic, tuple(m.group(2)))


def inflated(cost: Cost, successes: int) -> Cost:
    """P-MAG-4: every successful cast of a ritual adds 2 generic mana to its cost."""
    return Cost(cost.generic + 2 * successes, cost.symbols)


def rank(speed: str, cost: Cost) -> int:
    """P-MAG-3: Fast rank = generic; Slow rank = generic + 1; Ritual rank = 2 x generic."""
    if speed not in SPEEDS:
        raise RuleViolation(f"a spell is one of {', '.join(SPEEDS)}; {speed!r} is not", rule="P-MAG-3", field="speed")
    return {"fast": cost.generic, "slow": cost.generic + 1, "ritual": 2 * cost.generic}[speed]


def ritual_difficulty(cost: Cost, override: int | None = None) -> int:
    """P-MAG-3: a ritual's difficulty is 2 x generic, unless its data gives one (P-AMB-35)."""
    return override if override is not None else 2 * cost.generic


def perfected_reduction(earlier_casts_this_month: int) -> int:
    """P-MAG-6 Perfected Spell: -2 on the first cast of the month, -1 on the second, then none."""
    return {0: 2, 1: 1}.get(earlier_casts_this_month, 0)


def reduced(cost: Cost, by: int) -> Cost:
    """A cost lowered by ``by`` mana: the generic part first, then symbols (a reduction makes no mana)."""
    generic = max(0, cost.generic - by)
    left = max(0, by - cost.generic)
    return Cost(generic, cost.symbols[left:])


def gardens_reduced(cost: Cost, by: int, element: str | None) -> Cost:
    """Mana Gardens [003:453] (P-FEAT-3): "reduce the cost by 1 mana of that element (including generic mana) for
    every Tidings since you last used this ability". The element is the stronghold hex's, the territory the
    gardens collect from: its symbols go first, as only that mana pays them, then the generic part."""
    symbols, generic = list(cost.symbols), cost.generic
    for _ in range(max(0, by)):
        if element is not None and element in symbols:
            symbols.remove(element)
        elif generic:
            generic -= 1
    return Cost(generic, tuple(symbols))


def effective_rank(base: int, *, unique_slow_before: int = 0, through_army: bool = False) -> int:
    """P-MAG-6: Steady Sorcery adds 1 per unique slow spell already cast this month; Borrowed Magic, cast
    through an army, takes 1 off (never below 0)."""
    return max(0, base + unique_slow_before - (1 if through_army else 0))


@dataclass(frozen=True)
class Payment:
    """A checked payment: the mana spent and the substitution a perk allowed, if any."""

    spent: dict[str, int]
    substitution: str | None


def _fits(pay: Counter[str], demand: Counter[str], generic: int) -> bool:
    return all(pay[e] >= n for e, n in demand.items()) and sum(pay.values()) - sum(demand.values()) == generic


def _shortfall(pay: Counter[str], cost: Cost) -> str:
    demand = Counter(cost.symbols)
    parts = [f"elemental {e} short by {n - pay[e]}" for e, n in sorted(demand.items()) if pay[e] < n]
    left = sum(pay.values()) - sum(min(pay[e], n) for e, n in demand.items())
    if left < cost.generic:
        parts.append(f"generic short by {cost.generic - left}")
    elif not parts and left > cost.generic:
        parts.append(f"pays {left - cost.generic} more than the cost")
    return ", ".join(parts) or "does not match the cost"


def check_payment(cost: Cost, pay: Iterable[str], *, improvised: bool = False, flexible: bool = False) -> Payment:
    """P-MAG-2: element symbols are paid with matching mana, the generic part with any; all of it exactly.

    P-MAG-6: with Improvised Instants (fast spells) one symbol may be paid with 2 mana of one other element;
    with Elemental Flexibility one symbol may be paid with 1 mana of another element.
    """
    paid = [check_element(e, "pay") for e in pay]
    got = Counter(paid)
    demand = Counter(cost.symbols)
    if _fits(got, demand, cost.generic):
        return Payment(dict(got), None)
    options: list[tuple[str, Counter[str]]] = []
    flex = [(x, z) for x in sorted(demand) for z in ELEMENTS if flexible and z != x]
    impro = [(x, y) for x in sorted(demand) for y in ELEMENTS if improvised and y != x]
    for x, z in flex:
        options.append((f"elemental_flexibility: {x} paid with {z}", demand - Counter(x) + Counter(z)))
    for x, y in impro:
        options.append((f"improvised_instants: {x} paid with {y}{y}", demand - Counter(x) + Counter(y * 2)))
    for x, z in flex:  # both perks, each on a different symbol
        for x2, y in impro:
            if (demand - Counter(x))[x2] > 0:
                both = demand - Counter(x) - Counter(x2) + Counter(z) + Counter(y * 2)
                options.append(
                    (f"elemental_flexibility: {x} paid with {z}; improvised_instants: {x2} paid with {y}{y}", both)
                )
    for name, option in options:
        if _fits(got, option, cost.generic):
            return Payment(dict(got), name)
    raise RuleViolation(
        f"paying {''.join(paid) or 'nothing'} for {cost.text}: {_shortfall(got, cost)}",
        rule="P-MAG-2",
        field="pay",
    )


def auto_payment(cost: Cost, held: Mapping[str, int]) -> list[str]:
    """A payment from what is held: each symbol in kind, the generic part from the most plentiful mana."""
    left = Counter({e: n for e, n in held.items() if n > 0})
    pay = list(cost.symbols)
    left.subtract(Counter(cost.symbols))
    for _ in range(cost.generic):
        best = max(ELEMENTS, key=lambda e: (left[e], -ELEMENTS.index(e)))
        pay.append(best)
        left[best] -= 1
    return pay


def check_held(spent: Mapping[str, int], held: Mapping[str, int]) -> None:
    """P-MAG-1: mana is spent from the power's wallet; it cannot spend what it does not hold."""
    short = {e: n - held.get(e, 0) for e, n in spent.items() if n > held.get(e, 0)}
    if short:
        text = ", ".join(f"{n} {e}" for e, n in sorted(short.items(), key=lambda kv: ELEMENTS.index(kv[0])))
        raise RuleViolation(f"the power holds too little mana: short by {text}", rule="P-MAG-1", field="pay")


def storage_caps(subclass: str, perks: Mapping[str, Mapping[str, Any]]) -> dict[str, int]:
    """P-MAG-1: each element's storage cap, from the class's own storage and the power's magic perks.

    ``perks`` maps a perk to its parameters (``elements`` for perks that name elements).
    """
    each = 0
    names = [*perks, *([CLASS_STORAGE[subclass]] if subclass in CLASS_STORAGE else [])]
    for perk in names:
        each = max(each, STORAGE_EACH.get(perk, 0))
    caps = dict.fromkeys(ELEMENTS, each)
    for perk, params in perks.items():
        for e in params.get("elements", []):
            if perk in STORAGE_OF_ELEMENT:
                caps[e] = max(caps[e], STORAGE_OF_ELEMENT[perk])
    for perk, params in perks.items():
        for e in ELEMENTS:
            caps[e] += ADD_EACH.get(perk, 0)
        for e in params.get("elements", []):
            caps[e] += ADD_TO_ELEMENT.get(perk, 0)
    return caps


def seasonal_mana(
    perks: Mapping[str, Mapping[str, Any]], held: Mapping[str, int], caps: Mapping[str, int]
) -> dict[str, int]:
    """P-MAG-1: the mana a power's perks generate at the start of a season, each element up to its cap
    (what would go beyond it spoils at once)."""
    due: dict[str, int] = {}
    for perk, params in perks.items():
        for e in params.get("elements", []):
            due[e] = due.get(e, 0) + SEASONAL_MANA.get(perk, 0)
    gained = {e: min(n, caps.get(e, 0) - held.get(e, 0)) for e, n in due.items()}
    return {e: n for e, n in sorted(gained.items(), key=lambda kv: ELEMENTS.index(kv[0])) if n > 0}


def check_gain(held: Mapping[str, int], element: str, amount: int, caps: Mapping[str, int]) -> None:
    """P-MAG-1: a power stores at most its cap of each element (the excess would spoil: refuse it)."""
    check_element(element)
    after = held.get(element, 0) + amount
    if after > caps.get(element, 0):
        raise RuleViolation(
            f"the power can store {caps.get(element, 0)} {ELEMENT_NAMES[element]} mana; it holds "
            f"{held.get(element, 0)}, so {amount} more is too much",
            rule="P-MAG-1",
            field="amount",
        )


def reach(spell_range: int, *, tower: bool = False, capitol: bool = False, speed: str = "fast") -> int:
    """P-MAG-5: a spell's range, doubled when cast from a Tower ([003:454], spells and rituals) or, for a
    City on a Hill or Detailed Inspections, a spell (not a ritual) cast from the capitol. The doublings do
    not stack: each says the range is "doubled", not doubled again."""
    doubled = tower or (capitol and speed != "ritual")
    return spell_range * 2 if doubled else spell_range


def check_submission(speeds_on_action: Iterable[str], speed: str) -> None:
    """P-ACT-3: any number of Fast spells in a submission, at most one Slow, and a Ritual on its own."""
    speeds = list(speeds_on_action)
    if "ritual" in speeds:
        raise RuleViolation(
            "this action is a ritual, and a ritual is submitted on its own: nothing else can be cast in it",
            rule="P-ACT-3",
            field="action_id",
        )
    if speed == "ritual" and speeds:
        raise RuleViolation(
            "a ritual must be an action on its own; this action already has spells cast in it",
            rule="P-ACT-3",
            field="action_id",
        )
    if speed == "slow" and "slow" in speeds:
        raise RuleViolation(
            "an action may include at most one Slow spell, and this one has one", rule="P-ACT-3", field="action_id"
        )


def protection_needed(difficulty: int) -> int:
    """P-RES-6 (P-AMB-8): a resister needs half the ritual's difficulty in successes, rounded up."""
    return math.ceil(difficulty / 2)


def ritual_protected(resist_successes: int, difficulty: int) -> bool:
    """P-RES-6: protected from the ritual's effect if ``S_resist >= ceil(difficulty / 2)``; the ritual's own
    successes are not reduced (P-AMB-8)."""
    return resist_successes >= protection_needed(difficulty)
