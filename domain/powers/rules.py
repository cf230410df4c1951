"""Powers rules as pure functions. Each cites its rule id in rules/ANALYSIS.md (Part P)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

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
    "skill", "agent", "industry", "army", "secret", "item", "consumable", "spell", "scheme", "design",
    "fragment",
)
# P-ASSET-5/6/7: agents, industries and armies act once per season, across all powers.
ONCE_PER_SEASON = frozenset({"agent", "industry", "army"})
# P-ASSET-8: consumables, schemes and designs are gone once used.
SINGLE_USE = frozenset({"consumable", "scheme", "design"})
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
    "sovereign": "a Sovereign", "celestial": "a Celestial", "overlord": "an Overlord",
    "circle": "a Circle", "cult": "a Cult", "cause": "a Cause", "wizard": "a Wizard",
    "dragon": "a Dragon", "paragon": "a Paragon", ADVERSARY: "this adversary",
}


def quota(subclass: str, options: dict) -> Quota:
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


def validate_power(cls: str, subclass: str, options: dict) -> None:
    """A power is one of the three classes and one of its subclasses, or a GM adversary (P-ACT-1, GM-10)."""
    if cls not in CLASSES:
        raise RuleViolation(
            f"a power's class is one of {', '.join(CLASSES)}; {cls!r} is not", rule="P-ACT-1", field="cls"
        )
    if subclass != ADVERSARY and subclass not in SUBCLASSES[cls]:
        raise RuleViolation(
            f"a {cls} is one of {', '.join(SUBCLASSES[cls])} (or an adversary); {subclass!r} is not",
            rule="P-ACT-1", field="subclass",
        )
    if subclass == ADVERSARY:
        q = quota(subclass, options)
        if q.total < 0 or q.public < 0 or q.private < 0 or q.total > 4:
            raise RuleViolation(
                "an adversary takes fewer actions than a player power: 0 to 4 a month",
                rule="P-ACT-1", field="options",
            )


def ordinal(n: int) -> str:
    """1 -> '1st', 2 -> '2nd', 3 -> '3rd', 11 -> '11th'."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def check_action_quota(subclass: str, q: Quota, debt: int, used_public: int, used_private: int,
                       slot: str, cost: int) -> None:
    """Refuse an action (plus any actions spent as assets) that exceeds this month's slots (P-ACT-1, P-ACT-2)."""
    if slot not in ("public", "private"):
        raise RuleViolation("an action's slot is 'public' or 'private'", rule="P-ACT-1", field="slot")
    allowed = q.public if slot == "public" else q.private
    used = used_public if slot == "public" else used_private
    who = TITLE.get(subclass, "this power")
    if allowed == 0:
        other = "private" if slot == "public" else "public"
        raise RuleViolation(
            f"{who} takes no {slot} actions; use a {other} slot", rule="P-ACT-1", field="slot"
        )
    if used + cost > allowed:
        raise RuleViolation(
            f"{who} takes {allowed} {slot} action{'s' if allowed != 1 else ''} a month; "
            f"this would be the {ordinal(used + cost)}",
            rule="P-ACT-1", field="slot",
        )
    budget = q.total - debt
    if used_public + used_private + cost > budget:
        raise RuleViolation(
            f"this power lost {debt} action{'s' if debt != 1 else ''} this month to consequences and has "
            f"{budget} in all; this would be the {ordinal(used_public + used_private + cost)}",
            rule="P-ACT-2", field="slot",
        )


@dataclass(frozen=True)
class PoolPick:
    """One asset as the player puts it into a pool: which asset and how it is used."""

    asset_id: str
    mode: str  # "normal" | "assured" | "critical"


def check_pool(picks: Sequence[tuple[str, str, str]], skill_tag: str | None, *, is_reaction: bool,
               reacting_to_skill: str | None = None) -> None:
    """Pool legality: one asset per class (P-ASSET-1), one skill, the action's skill tag (P-ASSET-3).

    ``picks`` are ``(asset_class, asset_name, mode)``; skill assets are named after their skill.
    """
    seen: dict[str, str] = {}
    for cls, name, _mode in picks:
        if cls in seen:
            what = "skill" if cls == "skill" else cls
            raise RuleViolation(
                f"a pool may hold only one {what}; {seen[cls]!r} and {name!r} are both {cls}s",
                rule="P-ASSET-3" if cls == "skill" else "P-ASSET-1", field="assets",
            )
        seen[cls] = name
    skill = seen.get("skill")
    if skill is None:
        return
    if is_reaction and reacting_to_skill:
        expected = {"subtlety": "vigilance", "vigilance": "subtlety"}.get(reacting_to_skill, reacting_to_skill)
        if skill != expected:
            raise RuleViolation(
                f"a reaction to a {reacting_to_skill} action must use {expected}, not {skill}",
                rule="P-ASSET-3", field="assets",
            )
    elif skill_tag and skill != skill_tag:
        raise RuleViolation(
            f"this action is tagged {skill_tag}, so it can use only the {skill_tag} skill, not {skill}",
            rule="P-ASSET-3", field="assets",
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


def choose_conversions(dice: Sequence[tuple[int, str]], count: int, critical_assets: set[str]) -> list[int]:
    """Which die indices to convert when the player asks for ``count`` conversions (P-DICE-3).

    3s and 4s of critical assets first (each is worth three successes), then the rest in order.
    """
    eligible = [i for i, (face, _) in enumerate(dice) if is_convertible(face)]
    eligible.sort(key=lambda i: (dice[i][1] not in critical_assets, i))
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
    """Groups of powers that tie at one activation index (same class): each needs a coin flip (P.1.4, GM-7)."""
    regular, last = _split_last(entries)
    groups: list[list[str]] = []
    for bucket in (*_by_index(regular).values(), last):
        by_class: dict[int, list[str]] = {}
        for e in bucket:
            by_class.setdefault(CLASS_ORDER[e.cls], []).append(e.power)
        for rank in sorted(by_class):
            powers = sorted(set(by_class[rank]))
            if len(powers) > 1:
                groups.append(powers)
    return groups


def resolution_queue(entries: Sequence[Entry], tiebreak: Callable[[list[str]], list[str]]) -> list[str]:
    """The order of Resolution (P.1.4): all 1st actions, then all 2nd, ...; champion < conspiracy < city;
    ties by ``tiebreak`` (a logged coin flip); a Wizard's final action goes last.

    ``tiebreak`` receives each tie group from ``tie_groups`` in order and returns it reordered.
    """
    regular, last = _split_last(entries)
    queue: list[str] = []
    for bucket in (*(_by_index(regular)[k] for k in sorted(_by_index(regular))), last):
        by_class: dict[int, list[Entry]] = {}
        for e in bucket:
            by_class.setdefault(CLASS_ORDER[e.cls], []).append(e)
        for rank in sorted(by_class):
            group = by_class[rank]
            powers = sorted({e.power for e in group})
            if len(powers) > 1:
                powers = tiebreak(powers)
            order = {p: i for i, p in enumerate(powers)}
            queue.extend(e.action_id for e in sorted(group, key=lambda e: (order[e.power], e.index)))
    return queue


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
