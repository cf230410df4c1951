"""Fame, development, ambitions and resources as pure rules (rules/ANALYSIS.md P.2.2, P.2.5).

Each function cites its rule id; a refusal raises RuleViolation naming it. The perk catalogue is
data ([003:863]-[003:1406]): the group a perk belongs to decides who may take it (P-DEV-5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain import limits
from domain.errors import RuleViolation
from domain.powers.rules import ADVERSARY, SKILLS

# P-ASSET-9: resources, never assets. Mana is the magic rules' and influence the map's; they are named
# here only so that neither can be put into a pool or granted as an asset.
NOT_ASSETS = ("coin", "respect", "fear", "mana", "favor", "insight", "influence")
# What a power's wallet holds (mana stays in PowerState.mana, influence in PowerState.influence).
RESOURCES = ("coin", "respect", "fear", "favor", "insight")
WALLET = (*RESOURCES, "fame")
CONTROL = ("respect", "fear")  # [003:263] a power uses one of them to exert control
SPENDABLE = ("coin", "respect", "fear")  # P-ASSET-10: respect and fear are spent like coin
TRADEABLE = ("coin", "favor", "insight")
STARTING_CONTROL = 3  # [003:263] "start with 3 of the chosen resources"
FAVOR_MANA = 3  # P-ASSET-11: a favor is an infusion of 3 Light or Dark mana
# Mana is kept by element code, as the magic rules name them (P-MAG-1: A, F, E, W, L and D).
FAVOR_ELEMENTS = {"L": "Light", "D": "Dark"}
FAVOR_USES = ("mana", "miracle", "keyword")
MAX_AMOUNT = 1000  # one change of a wallet; a typo of 10**9 is refused rather than recorded

# The rule a shortfall of each resource breaks: the rule that lets it be spent.
SPEND_RULE = {
    "coin": "P-ASSET-10",
    "respect": "P-ASSET-10",
    "fear": "P-ASSET-10",
    "favor": "P-ASSET-11",
    "insight": "P-ASSET-11",
    "fame": "P-DEV-1",
}

MAJOR, MINOR = "major", "minor"
FAME_RANGE = {MAJOR: (15, 25), MINOR: (5, 10)}  # P-AMBI-1, [003:188]
SKILL_RANK_CAP = 10  # an asset's rank is 1 to 10 (P-DICE-2)


def check_not_resource(name: str | None, field: str) -> None:
    """P-ASSET-9: coin, respect, fear, mana, favor, insight and influence never go into a pool."""
    if isinstance(name, str) and name.strip().lower() in NOT_ASSETS:
        raise RuleViolation(
            f"{name.strip().lower()} is a resource, not an asset: resources pay costs and never join a pool",
            rule="P-ASSET-9",
            field=field,
        )


def check_changes(changes: object, allowed: tuple[str, ...], field: str, *, signed: bool) -> dict[str, int]:
    """A map of wallet resources to whole amounts (non-zero; positive unless ``signed``), or a refusal."""
    if not isinstance(changes, dict) or not changes:
        raise RuleViolation(f"{field} names at least one resource and its amount", field=field)
    out: dict[str, int] = {}
    for resource, amount in changes.items():
        check_resource(resource, allowed, field)
        if isinstance(amount, bool) or not isinstance(amount, int) or amount == 0 or abs(amount) > MAX_AMOUNT:
            raise RuleViolation(
                f"{field}.{resource} is a whole number from 1 to {MAX_AMOUNT}"
                + (" (negative to take away)" if signed else ""),
                field=f"{field}.{resource}",
            )
        if amount < 0 and not signed:
            raise RuleViolation(f"{field}.{resource} must be positive", field=f"{field}.{resource}")
        out[resource] = amount
    return out


def check_resource(resource: object, allowed: tuple[str, ...], field: str) -> str:
    """``resource`` is one of ``allowed``; respect and fear refused from trades by P-ASSET-10."""
    if resource in allowed:
        return str(resource)
    if allowed == TRADEABLE and resource in CONTROL:
        raise RuleViolation(
            f"{resource} can be spent like coin, but never traded", rule="P-ASSET-10", field=f"{field}.{resource}"
        )
    if resource == "fame":
        raise RuleViolation(
            "fame is not a resource: it comes from ambitions and the GM, and is spent only on development, "
            "during Tidings",
            rule="P-DEV-1",
            field=f"{field}.{resource}",
        )
    if resource in WALLET:
        raise RuleViolation(f"{resource} cannot be used here; {', '.join(allowed)} can", field=f"{field}.{resource}")
    if resource in NOT_ASSETS:
        raise RuleViolation(
            f"{resource} is not kept in a wallet (mana is the magic rules', influence the map's)",
            field=f"{field}.{resource}",
        )
    raise RuleViolation(f"{resource!r} is not one of {', '.join(allowed)}", field=f"{field}.{resource}")


def check_balance(wallet: dict[str, int], changes: dict[str, int], who: str) -> None:
    """A wallet never goes negative: each shortfall names the rule that lets that resource be spent."""
    for resource, amount in changes.items():
        have = wallet.get(resource, 0)
        if have + amount < 0:
            raise RuleViolation(
                f"{who} has {have} {resource} and cannot pay {-amount}",
                rule=SPEND_RULE[resource],
                field=resource,
            )


# ---------------------------------------------------------------------- development prices


def new_skill_price(bought: int) -> int:
    """P-DEV-2: the k-th New Skill bought costs 2k fame; starting skills are not counted."""
    return 2 * (bought + 1)


def skill_rank_price(rank: int) -> int:
    """P-DEV-3: raising a skill to rank r costs 2r fame (2 to 3 costs 6)."""
    return 2 * rank


def new_skill(power: str, name: str, held: bool, asset_id: str, taken: bool, bought: int) -> tuple[int, str, int]:
    """P-DEV-2: a New Skill is one of the game's skills the power lacks, under a new asset id (``taken``: the id
    is already an asset's). Returns its price, rule and rank."""
    check_skill(name)
    if held:
        raise RuleViolation(f"{power} already has the {name} skill", rule="P-DEV-2", field="name")
    limits.check_text(asset_id, "asset_id", limits.IDENTIFIER, required=True, what="the new skill's id")
    if taken:
        raise RuleViolation(f"asset {asset_id!r} already exists", field="asset_id")
    return new_skill_price(bought), "P-DEV-2", 1


def skill_rank(power: str, name: str, rank: int | None) -> tuple[int, str, int]:
    """P-DEV-3: a skill the power has (at ``rank``, None without it) rises one rank, to at most
    SKILL_RANK_CAP. Returns the price, rule and new rank."""
    check_skill(name)
    if rank is None:
        raise RuleViolation(f"{power} has no {name} skill to raise", rule="P-DEV-3", field="name")
    if rank + 1 > SKILL_RANK_CAP:
        raise RuleViolation(f"a skill's rank is at most {SKILL_RANK_CAP}", rule="P-DEV-3", field="name")
    return skill_rank_price(rank + 1), "P-DEV-3", rank + 1


def perk_price(bought: int) -> int:
    """P-DEV-4: the k-th new perk or upgrade costs 5 + 2(k-1); one counter for both (P-AMB-33)."""
    return 5 + 2 * bought


def check_tidings(step: str) -> None:
    """P-DEV-1: fame is spent on development only during Tidings."""
    if step != "tidings":
        raise RuleViolation(
            f"fame is spent on development during Tidings only; this is {step.title()}", rule="P-DEV-1", field="step"
        )


# ---------------------------------------------------------------------- perks (P-DEV-5)


@dataclass(frozen=True)
class Perk:
    """A perk of the catalogue: who may take it, whether it has an upgrade, what it excludes."""

    name: str
    group: str
    upgrade: bool = False
    repeatable: bool = False  # taken again with another choice ([003:873], [003:901], [003:903])
    versus: str | None = None  # 🆚: the perk it excludes

    def who(self) -> str:
        """Who may take it, in words."""
        if self.group == "influence":
            return "only Conspiracies"
        if self.group in CONTROL:
            return f"only powers that use {self.group.title()}"
        if self.group in SUBCLASS_GROUPS:
            return f"only a {self.group.title()}"
        return "any power"


SUBCLASS_GROUPS = (
    "sovereign",
    "celestial",
    "overlord",
    "circle",
    "cult",
    "cause",
    "wizard",
    "dragon",
    "paragon",
)
PERK_GROUPS = ("general", "municipal", "magic", "military", "influence", *CONTROL, *SUBCLASS_GROUPS)


def _perks(group: str, *names: str, upgrade: tuple[str, ...] = (), repeatable: tuple[str, ...] = ()) -> list[Perk]:
    return [Perk(n, group, upgrade=n in upgrade, repeatable=n in repeatable) for n in names]


def _versus(perks: list[Perk], *pairs: tuple[str, str]) -> dict[str, Perk]:
    out = {p.name: p for p in perks}
    for a, b in pairs:
        out[a] = Perk(a, out[a].group, out[a].upgrade, out[a].repeatable, versus=b)
        out[b] = Perk(b, out[b].group, out[b].upgrade, out[b].repeatable, versus=a)
    return out


PERKS: dict[str, Perk] = _versus(
    [
        *_perks(
            "general",
            "Confident Duelist",
            "Confident Negotiator",
            "Confident Crafter",
            "Confident Ritualist",
            "Desperate Reaction",
            "Flexible Skills",
            "Managerial Practices",
            "Prepared Reaction",
            "Personal Touch",
            repeatable=("Flexible Skills",),
        ),
        *_perks("municipal", "Civil Servants", "Heavy Construction", "Slumlord", "Five Year Plan", "Seeder"),
        *_perks(
            "magic",
            "Elemental Efficiency",
            "Elemental Specialization",
            "Drain Curios",
            "Renowned Ritualist",
            "Vessel Heart",
            "Mystic Reactions",
            "Steady Sorcery",
            "Improvised Instants",
            repeatable=("Elemental Efficiency", "Elemental Specialization"),
        ),
        *_perks("military", "Forced March", "Capable Generals", "Quickdraw"),
        *_perks(
            "influence",
            "Mass Channel",
            "Mercurial",
            "More Outposts",
            "More Influence",
            "Municipal Mana",
            "Urban Outposts",
        ),
        *_perks("respect", "Mercy Campaign", "Health Drive", "Savior"),
        *_perks("fear", "Inquisition", "Little Cruelties", "Blighted Neighborhood"),
        *_perks("sovereign", "Big Family", "Magical Heirs", "Magical Monarch"),
        *_perks("celestial", "Satellite Shrines", "Magical Protector", "Divine Protector"),
        *_perks("overlord", "Privateers"),
        *_perks("circle", "Immortal Masters", "Many Masters", "Disrupting Runes", "Wodewalkers"),
        *_perks("cult", "Flexible Summoning", "Risen Ranks", "Gate Guardians", "Protector Race"),
        *_perks("cause", "Righteous Magic", "Molotovs"),
        *_perks(
            "wizard",
            "Perfected Spell",
            "Channeled Shield",
            "Master of Artifice",
            "Dreamwalk",
            "Elemental Flexibility",
            upgrade=("Perfected Spell",),
        ),
        *_perks(
            "dragon",
            "Knowledge Gobbler",
            "Ironskin",
            "Ironmind",
            "Warbacked",
            "Monstrous",
            "Subtle Titan",
            "Magical Beast",
            "Divine Beast",
            upgrade=("Subtle Titan",),
        ),
        *_perks(
            "paragon",
            "Crusader",
            "Borrowed Magic",
            "Greater Holy Magic",
            "Distant Loyalties",
            "Warmaster",
            upgrade=("Crusader",),
        ),
    ],
    ("Municipal Mana", "Urban Outposts"),  # [003:938]
    ("Magical Protector", "Divine Protector"),  # [003:1059]
    ("Ironskin", "Ironmind"),  # [003:1347]
    ("Magical Beast", "Divine Beast"),  # [003:1359]
)


def check_perk_definition(name: str, group: str, versus: str | None, catalogue: Mapping[str, Perk]) -> None:
    """P-DEV-5, P-AMB-42: the GM adds a perk the text lacks; its group decides who may take it."""
    if name in catalogue:
        raise RuleViolation(f"{name!r} is already a perk of the catalogue", rule="P-DEV-5", field="name")
    if group not in PERK_GROUPS:
        raise RuleViolation(f"a perk's group is one of {', '.join(PERK_GROUPS)}", rule="P-DEV-5", field="group")
    if versus is not None and versus not in catalogue:
        raise RuleViolation(f"{versus!r} is not a perk of the catalogue", rule="P-DEV-5", field="versus")


# Perks whose effect the rules already read from a power's options: taking the perk sets the option.
PERK_OPTIONS = {
    "Personal Touch": "personal_touch",
    # read by the class catalogue (domain.powers.catalogue)
    **{
        name: name.lower().replace(" ", "_")
        for name in (
            "Confident Duelist",
            "Confident Negotiator",
            "Confident Crafter",
            "Confident Ritualist",
            "Flexible Summoning",
            "Desperate Reaction",
            "Prepared Reaction",
            "Mystic Reactions",
            "Inquisition",
            "Health Drive",
            "Big Family",
            "Many Masters",
            "Molotovs",
            "Little Cruelties",
        )
    },
}


def check_perk(
    perk: Perk,
    cls: str,
    subclass: str,
    control: str | None,
    held: Sequence[Mapping[str, Any]],
    detail: str,
    *,
    catalogue: Mapping[str, Perk],
    swap_from: str = "",
) -> None:
    """P-DEV-5: who may take a perk (its group), 🆚 pairs (either side may name the other), and a perk
    taken once unless repeatable."""
    if perk.group == "influence" and cls != "conspiracy":
        raise RuleViolation(f"{perk.name}: only Conspiracies can take these perks", rule="P-DEV-5", field="name")
    if perk.group in CONTROL and control != perk.group:
        uses = f"uses {control.title()}" if control else "has not chosen Respect or Fear"
        raise RuleViolation(
            f"{perk.name}: only powers that use {perk.group.title()} can take these perks; this power {uses}",
            rule="P-DEV-5",
            field="name",
        )
    if perk.group in SUBCLASS_GROUPS and subclass != perk.group:
        raise RuleViolation(f"{perk.name} is a perk of a {perk.group.title()}", rule="P-DEV-5", field="name")
    names = {h["name"] for h in held if h["name"] != swap_from}
    excluded = {n for n in names if n == perk.versus or (n in catalogue and catalogue[n].versus == perk.name)}
    for other in sorted(excluded):
        raise RuleViolation(f"{perk.name} and {other} exclude each other (🆚)", rule="P-DEV-5", field="name")
    same = [h for h in held if h["name"] == perk.name and h["name"] != swap_from]
    if same and not perk.repeatable:
        raise RuleViolation(f"this power already has {perk.name}", rule="P-DEV-5", field="name")
    if perk.repeatable and any(h["detail"].strip().lower() == detail.strip().lower() for h in same):
        raise RuleViolation(
            f"{perk.name} is repeatable only with a different choice than {detail!r}", rule="P-DEV-5", field="detail"
        )


# ---------------------------------------------------------------------- ambitions (P-AMBI-1)


def check_ambition(kind: str, fame: int, required: int, tasks: list[dict[str, Any]]) -> None:
    """P-AMBI-1: fame score in its range (major 15-25, minor 5-10), N central tasks of those listed."""
    if kind not in FAME_RANGE:
        raise RuleViolation("an ambition is 'major' or 'minor'", rule="P-AMBI-1", field="kind")
    low, high = FAME_RANGE[kind]
    if isinstance(fame, bool) or not isinstance(fame, int) or not low <= fame <= high:
        raise RuleViolation(f"a {kind} ambition has a fame score from {low} to {high}", rule="P-AMBI-1", field="fame")
    central = sum(1 for t in tasks if t.get("central"))
    if not 1 <= required <= central:
        raise RuleViolation(
            f"an ambition is achieved after N of its ❗ tasks: N is 1 to {central} here",
            rule="P-AMBI-1",
            field="required",
        )
    if tasks and tasks[0].get("mysterious"):
        raise RuleViolation(
            "a ❓ task is revealed when the task before it is done: the first task cannot be one",
            rule="P-AMBI-1",
            field="tasks",
        )


def minor_slots(subclass: str, starting: bool) -> int:
    """P-AMBI-1: one minor ambition at a time; a Wizard is Multifocused ([003:1294]) and holds two, though it
    "still start[s] with just one" (before the first season)."""
    return 2 if subclass == "wizard" and not starting else 1


def check_slot(kind: str, subclass: str, held: list[str], *, starting: bool = False) -> None:
    """P-AMBI-1: at most one major and one minor ambition at a time (two minors for a Wizard)."""
    limit = 1 if kind == MAJOR else minor_slots(subclass, starting)
    if sum(1 for k in held if k == kind) >= limit:
        which = "a major ambition" if kind == MAJOR else f"{limit} minor ambition{'s' if limit > 1 else ''}"
        raise RuleViolation(
            f"a power holds at most {which} at a time; achieve, fail or abandon one first",
            rule="P-AMBI-1",
            field="kind",
        )


def ambition_outcome(required: int, tasks: list[dict[str, Any]]) -> str | None:
    """P-AMBI-1: achieved once N ❗ tasks are done; failed once too few ❗ tasks are left to reach N."""
    done = sum(1 for t in tasks if t["central"] and t["status"] == "done")
    open_ = sum(1 for t in tasks if t["central"] and t["status"] == "open")
    if done >= required:
        return "achieved"
    if done + open_ < required:
        return "failed"
    return None


def fame_reward(subclass: str, fame: int) -> int:
    """P-AMBI-1: adversaries earn no fame from their ambitions ([003:194])."""
    return 0 if subclass == ADVERSARY else fame


def favor_element(element: object) -> str:
    """P-ASSET-11: a favor's mana is Light (L) or Dark (D); the code of the element named."""
    for code, name in FAVOR_ELEMENTS.items():
        if isinstance(element, str) and element.strip().lower() in (code.lower(), name.lower()):
            return code
    raise RuleViolation("a favor's mana is 3 Light or 3 Dark", rule="P-ASSET-11", field="element")


def check_skill(name: str) -> None:
    """A skill is one of the game's skills (P-ASSET-3)."""
    if name not in SKILLS:
        raise RuleViolation(f"a skill is one of {', '.join(SKILLS)}; {name!r} is not", rule="P-ASSET-3", field="name")
