"""Powers rules as pure functions. Each cites its rule id in rules/ANALYSIS.md (Part P)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from domain.errors import RuleViolation

RULES_VERSION = "powers-2026.11"

CLASSES = ("city", "conspiracy", "champion")
SUBCLASSES: dict[str, tuple[str, ...]] = {
    "city": ("sovereign", "celestial", "overlord"),
    "conspiracy": ("circle", "cult", "cause"),
    "champion": ("wizard", "dragon", "paragon"),
}
ADVERSARY = "adversary"

ASSET_CLASSES = (
    "skill",
    "agent",
    "industry",
    "army",
    "secret",
    "item",
    "consumable",
    "spell",
    "scheme",
    "design",
    "fragment",
    "rune",  # a Circle's, placed in a hex by Hidden Runes ([003:1161], [003:1175])
)
# P-ASSET-5/6/7: agents, industries and armies act once per season, across all powers.
ONCE_PER_SEASON = frozenset({"agent", "industry", "army"})
# P-ASSET-8: consumables, schemes and designs are gone once used.
SINGLE_USE = frozenset({"consumable", "scheme", "design", "rune"})  # a rune "can be expended once" [003:1161]
# P.4: industries (built features of towns) are public; every other asset is private.
PUBLIC_ASSET_CLASSES = frozenset({"industry"})

SKILLS = ("might", "subtlety", "vigilance", "negotiation", "lore", "delve", "craft", "command")

# P.1.4: within one activation index, champions go before conspiracies, which go before cities.
CLASS_ORDER = {"champion": 0, "conspiracy": 1, "city": 2}

STEPS = ("setup", "tidings", "planning", "resolution", "resistance", "battle", "cleanup")


@dataclass(frozen=True)
class Quota:
    """How many public and private actions a power takes each month (P-ACT-1)."""

    public: int
    private: int

    @property
    def total(self) -> int:
        return self.public + self.private


TITLE = {
    "sovereign": "a Sovereign",
    "celestial": "a Celestial",
    "overlord": "an Overlord",
    "circle": "a Circle",
    "cult": "a Cult",
    "cause": "a Cause",
    "wizard": "a Wizard",
    "dragon": "a Dragon",
    "paragon": "a Paragon",
    ADVERSARY: "this adversary",
}


def quota(subclass: str, options: dict[str, Any]) -> Quota:
    """Monthly action slots by subclass (P-ACT-1), with the perks and options that change them."""
    if subclass in ("sovereign", "celestial"):
        return Quota(public=4, private=0)
    if subclass == "overlord":
        return Quota(public=2, private=2)
    if subclass in ("circle", "cult"):
        return Quota(public=0, private=4)
    if subclass == "cause":
        return Quota(public=2, private=2)
    if subclass == "wizard":
        return Quota(public=0, private=5)
    if subclass == "dragon":
        # [003:1354] Subtle Titan makes half the actions private; its upgrade makes all private.
        if options.get("subtle_titan_upgraded"):
            return Quota(public=0, private=4)
        if options.get("subtle_titan"):
            return Quota(public=2, private=2)
        return Quota(public=4, private=0)
    if subclass == "paragon":
        # [003:1386] public while leading any army, otherwise private.
        return Quota(public=4, private=0) if options.get("leading_army") else Quota(public=0, private=4)
    if subclass == ADVERSARY:
        # [003:15] minor adversaries have fewer actions; the GM sets them (GM-10).
        return Quota(public=int(options.get("public_actions", 0)), private=int(options.get("private_actions", 2)))
    raise RuleViolation(f"unknown power subclass {subclass!r}", rule="P-ACT-1", field="subclass")


def validate_power(cls: str, subclass: str, options: dict[str, Any]) -> None:
    """A power is one of the three classes and one of its subclasses, or a GM adversary (P-ACT-1, GM-10)."""
    if cls not in CLASSES:
        raise RuleViolation(
            f"a power's class is one of {', '.join(CLASSES)}; {cls!r} is not", rule="P-ACT-1", field="cls"
        )
    if subclass != ADVERSARY and subclass not in SUBCLASSES[cls]:
        raise RuleViolation(
            f"a {cls} is one of {', '.join(SUBCLASSES[cls])} (or an adversary); {subclass!r} is not",
            rule="P-ACT-1",
            field="subclass",
        )
    if subclass == ADVERSARY:
        q = quota(subclass, options)
        if q.total < 0 or q.public < 0 or q.private < 0 or q.total > 4:
            raise RuleViolation(
                "an adversary takes fewer actions than a player power: 0 to 4 a month",
                rule="P-ACT-1",
                field="options",
            )


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd', 3 -> '3rd', 11 -> '11th'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def check_action_quota(
    subclass: str, q: Quota, debt: int, used_public: int, used_private: int, slot: str, cost: int
) -> None:
    """Refuse an action (plus any actions spent as assets) that exceeds this month's slots (P-ACT-1, P-ACT-2)."""
    if slot not in ("public", "private"):
        raise RuleViolation("an action's slot is 'public' or 'private'", rule="P-ACT-1", field="slot")
    allowed = q.public if slot == "public" else q.private
    used = used_public if slot == "public" else used_private
    who = TITLE.get(subclass, "this power")
    if allowed == 0:
        other = "private" if slot == "public" else "public"
        raise RuleViolation(f"{who} takes no {slot} actions; use a {other} slot", rule="P-ACT-1", field="slot")
    if used + cost > allowed:
        raise RuleViolation(
            f"{who} takes {allowed} {slot} action{'s' if allowed != 1 else ''} a month; "
            f"this would be the {ordinal(used + cost)}",
            rule="P-ACT-1",
            field="slot",
        )
    budget = q.total - debt
    if used_public + used_private + cost > budget:
        raise RuleViolation(
            f"this power lost {debt} action{'s' if debt != 1 else ''} this month to consequences and has "
            f"{budget} in all; this would be the {ordinal(used_public + used_private + cost)}",
            rule="P-ACT-2",
            field="slot",
        )


@dataclass(frozen=True)
class PoolPick:
    """One asset as the player puts it into a pool: which asset and how it is used."""

    asset_id: str
    mode: str  # "normal" | "assured" | "critical"


def check_pool(
    picks: Sequence[tuple[str, str, str]],
    skill_tag: str | None,
    *,
    is_reaction: bool,
    reacting_to_skill: str | None = None,
    dungeon: bool = False,
) -> None:
    """Pool legality: one asset per class (P-ASSET-1), one skill, the action's skill tag (P-ASSET-3);
    in a dungeon, Delve alongside up to one other skill (P-ASSET-4).

    ``picks`` are ``(asset_class, asset_name, mode)``; skill assets are named after their skill.
    """
    seen: dict[str, str] = {}
    for cls, name, _mode in picks:
        if cls == "skill" and dungeon:
            continue  # counted below, by the dungeon exception
        if cls in seen:
            what = "skill" if cls == "skill" else cls
            raise RuleViolation(
                f"a pool may hold only one {what}; {seen[cls]!r} and {name!r} are both {cls}s",
                rule="P-ASSET-3" if cls == "skill" else "P-ASSET-1",
                field="assets",
            )
        seen[cls] = name
    skill = seen.get("skill")
    if dungeon:
        skills = [name for cls, name, _mode in picks if cls == "skill"]
        _check_dungeon_skills(skills)
        # Delve is always relevant in a dungeon ([003:479]); the action's tag governs the other skill.
        others = [s for s in skills if s != "delve"]
        skill = others[0] if others else None
    if skill is None:
        return
    if is_reaction and reacting_to_skill:
        expected = {"subtlety": "vigilance", "vigilance": "subtlety"}.get(reacting_to_skill, reacting_to_skill)
        if skill != expected:
            raise RuleViolation(
                f"a reaction to a {reacting_to_skill} action must use {expected}, not {skill}",
                rule="P-ASSET-3",
                field="assets",
            )
    elif skill_tag and skill != skill_tag and not (dungeon and skill_tag == "delve"):
        raise RuleViolation(
            f"this action is tagged {skill_tag}, so it can use only the {skill_tag} skill, not {skill}",
            rule="P-ASSET-3",
            field="assets",
        )


def _check_dungeon_skills(skills: list[str]) -> None:
    """P-ASSET-4: in a dungeon a pool may hold Delve and at most one other skill."""
    if len(skills) > 2 or (len(skills) == 2 and "delve" not in skills) or len(set(skills)) != len(skills):
        raise RuleViolation(
            f"in a dungeon a pool may hold Delve and up to one other skill, not {' + '.join(skills)}",
            rule="P-ASSET-4",
            field="assets",
        )


def check_mode(mode: str, name: str, assured: bool, critical: bool, novel: bool) -> None:
    """An asset is assured or critical only if it is so (or novel, first use), never both (P-DICE-6..9)."""
    if mode not in ("normal", "assured", "critical"):
        raise RuleViolation(
            f"an asset is used 'normal', 'assured' or 'critical', not {mode!r}", rule="P-DICE-6", field="assets"
        )
    if mode == "assured" and not (assured or novel):
        raise RuleViolation(f"{name!r} is not assured", rule="P-DICE-6", field="assets")
    if mode == "critical" and not (critical or novel):
        raise RuleViolation(f"{name!r} is not critical", rule="P-DICE-7", field="assets")


def is_success_face(face: int) -> bool:
    """Every 5 and 6 succeeds (P-DICE-3)."""
    return face >= 5


def is_convertible(face: int) -> bool:
    """A 3 or 4 may be converted to a success at the cost of one consequence (P-DICE-3)."""
    return face in (3, 4)


@dataclass(frozen=True)
class Tally:
    """The arithmetic of one pool: successes, consequences, dice rolled, pool size."""

    successes: int
    consequences: int
    pool_size: int
    rolled: int


def tally(groups: Sequence[tuple[int, str, Sequence[tuple[int, bool]]]], *, critical_mode: str = "rolled") -> Tally:
    """Successes of a pool (P-DICE-3, P-DICE-6, P-DICE-7 as P-AMB-5).

    ``groups`` are ``(rank, mode, dice)`` per asset, ``dice`` being ``(face, converted)``.
    Assured: ``rank`` automatic successes, no dice. Critical: the group's rolled successes
    (5s, 6s and converted 3s/4s) times three; consequences are never multiplied.
    """
    successes = consequences = pool_size = rolled = 0
    for rank, mode, dice in groups:
        pool_size += rank
        if mode == "assured":
            successes += rank
            continue
        rolled += len(dice)
        natural = sum(1 for face, _ in dice if is_success_face(face))
        converted = sum(1 for face, conv in dice if conv and is_convertible(face))
        consequences += converted
        group = natural + converted
        if mode == "critical":
            group = 3 * rank if critical_mode == "rank" else 3 * group
        successes += group
    return Tally(successes=successes, consequences=consequences, pool_size=pool_size, rolled=rolled)


def conversion_weight(mode: str, critical_mode: str) -> int:
    """Successes one converted 3 or 4 of an asset used this way adds (P-DICE-3, P-DICE-7 as P-AMB-5):
    1 for a normal asset, 3 for a critical one whose rolled successes are tripled, and 0 for a critical
    one under ``critical_mode: "rank"`` (three times its rank, whatever its dice show)."""
    if mode == "critical":
        return 0 if critical_mode == "rank" else 3
    return 1


def choose_conversions(dice: Sequence[tuple[int, str]], count: int, weights: dict[str, int]) -> list[int]:
    """Which die indices to convert when the player asks for ``count`` conversions (P-DICE-3).

    Conversions go where they count most: ``weights`` gives the successes a converted die of each
    asset adds (``conversion_weight``; 1 if absent); dice that would add nothing are never converted.
    """
    eligible = [i for i, (face, asset) in enumerate(dice) if is_convertible(face) and weights.get(asset, 1) > 0]
    eligible.sort(key=lambda i: (-weights.get(dice[i][1], 1), i))
    return sorted(eligible[:count])


def net_successes(action_successes: int, resist_successes: Sequence[int]) -> int:
    """Resisted successes: ``max(0, S - sum(S_resist))`` (P-RES-4, several resisters summed as P-AMB-7)."""
    return max(0, action_successes - sum(resist_successes))


def outcome(net: int, difficulty: int) -> tuple[bool, int]:
    """Success if net >= difficulty; excess = max(0, net - difficulty) (P-DICE-4, P-AMB-11)."""
    return net >= difficulty, max(0, net - difficulty)


def reaction_skill_for(action_skill: str | None) -> str | None:
    """Subtlety is always resisted with vigilance and vice versa; otherwise the same skill (P-ASSET-3)."""
    if action_skill is None:
        return None
    return {"subtlety": "vigilance", "vigilance": "subtlety"}.get(action_skill, action_skill)


@dataclass(frozen=True)
class Entry:
    """One action as the resolution queue sees it."""

    action_id: str
    power: str
    cls: str
    index: int  # 1 for the power's 1st action this month, 2 for its 2nd, ...
    final_goes_last: bool  # a Wizard's final action ([003:1292])


def tie_groups(entries: Sequence[Entry]) -> list[list[str]]:
    """Groups of powers that tie at one activation index (same class), in queue order: each needs a
    coin flip (P.1.4, GM-7). Every tie is flipped, whatever the actions touch (P-AMB-24)."""
    return [powers for _, powers in _buckets(entries) if len(powers) > 1]


def resolution_queue(entries: Sequence[Entry], tiebreak: Callable[[list[str]], list[str]]) -> list[str]:
    """The order of Resolution (P.1.4): all 1st actions, then all 2nd, ...; champion < conspiracy < city;
    ties by ``tiebreak`` (a logged coin flip); a Wizard's final action goes last.

    ``tiebreak`` receives each tie group, in the order ``tie_groups`` lists them, and returns it reordered.
    """
    queue: list[str] = []
    for group, powers in _buckets(entries):
        if len(powers) > 1:
            ordered = tiebreak(list(powers))
            if sorted(ordered) != powers:
                raise AssertionError(f"a tie-break must reorder {powers}, not give {ordered}")
            powers = ordered
        order = {p: i for i, p in enumerate(powers)}
        queue.extend(e.action_id for e in sorted(group, key=lambda e: (order[e.power], e.index)))
    return queue


def _buckets(entries: Sequence[Entry]) -> list[tuple[list[Entry], list[str]]]:
    """The queue's buckets in order: by activation index ascending, the Wizards' final actions last; within
    each, by class. Each bucket is ``(entries, sorted powers)``; one walk shared by ``tie_groups`` and
    ``resolution_queue``, so the flips and the ties they break always line up."""
    regular, last = _split_last(entries)
    by_index = _by_index(regular)
    out: list[tuple[list[Entry], list[str]]] = []
    for bucket in (*(by_index[k] for k in sorted(by_index)), last):
        by_class: dict[int, list[Entry]] = {}
        for e in bucket:
            by_class.setdefault(CLASS_ORDER[e.cls], []).append(e)
        for rank in sorted(by_class):
            group = by_class[rank]
            out.append((group, sorted({e.power for e in group})))
    return out


def _split_last(entries: Sequence[Entry]) -> tuple[list[Entry], list[Entry]]:
    finals: dict[str, Entry] = {}
    for e in entries:
        if e.final_goes_last and (e.power not in finals or e.index > finals[e.power].index):
            finals[e.power] = e
    last_ids = {e.action_id for e in finals.values()}
    return [e for e in entries if e.action_id not in last_ids], list(finals.values())


def _by_index(entries: Sequence[Entry]) -> dict[int, list[Entry]]:
    out: dict[int, list[Entry]] = {}
    for e in entries:
        out.setdefault(e.index, []).append(e)
    return out
