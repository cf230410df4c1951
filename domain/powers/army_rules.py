"""Pure rules of armies outside combat (rules/ANALYSIS.md P.2.10 P-ARMY-1..9, P.2.6 P-SUP-1..3, P-ASSET-7,
P-ASSET-14). Each function cites its rule; refusals raise RuleViolation naming it.

An army here is the dict ``domain.powers.armies`` keeps (``units`` is a list of ``{"wounds", "routed"}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from domain.copying import deepcopy
from domain.errors import RuleViolation
from domain.powers import army_types as at
from domain.powers import hexmap

MAX_DIE = 20  # die sizes grow by 2 a bonus; the rules set no cap, the limit only keeps numbers sane
MAX_SIZE = 100


def size(army: dict[str, Any]) -> int:
    """[003:596] "The number of active units in an army is called its Size": not routed, not slain."""
    return sum([not u["routed"] for u in army["units"]])


def armor(army: dict[str, Any]) -> int:
    """P-ARMY-6: "An army's armor is increased by the rank of their armaments" - base armor plus the tier."""
    armor_base: int = army["armor_base"]
    tier: int = army["tier"]
    return max(0, armor_base + tier)


def wounds_to_die(cls: str, ancestry: str | None) -> int:
    """P-BAT-4 / P-AMB-14: a unit dies at its 2nd wound; Giants, Monsters and Zombies at their 3rd."""
    return 3 if cls in at.TOUGH or ancestry in at.TOUGH_ANCESTRIES else 2


def _bump(stats: dict[str, Any], name: str, by: int) -> None:
    if name in at.ATTRIBUTES:
        stats[name] = {**stats[name], "bonus": stats[name]["bonus"] + by}
    else:
        stats[name] = stats[name] + by


def apply_mods(stats: dict[str, Any], mods: dict[str, Any]) -> dict[str, Any]:
    """Static modifiers of an ancestry, class or keyword: "+1 Attack" is +1 to the attack's static bonus (the
    Hammers of Derop: d6+1), "+1 Defense" a point of Defense."""
    out = deepcopy(stats)
    for name, by in mods.items():
        _bump(out, name, by)
    return out


# ---------------------------------------------------------------------- P-ARMY-4 the level-up table


def level_up_options(faces: list[int]) -> list[str]:
    """P-ARMY-4 / P-AMB-20: each d6 face names the table's entry in the listed order."""
    return [at.LEVEL_UP_TABLE[f] for f in faces]


def random_build(faces: list[int], count: int = 3) -> list[str]:
    """P-ARMY-4: "For a Random build you roll many d6 and just take the first three unique bonuses"."""
    out: list[str] = []
    for bonus in level_up_options(faces):
        if bonus not in out:
            out.append(bonus)
        if len(out) == count:
            return out
    raise RuleViolation(f"these dice give only {len(out)} unique bonuses; roll more", rule="P-ARMY-4", field="faces")


def check_choices(options: list[str], choices: list[Any], count: int, new_class: str | None) -> list[dict[str, Any]]:
    """P-ARMY-4 / P-AMB-18: select ``count`` bonuses from the rolled options (repetitions allowed); a Levy
    levelling up "chooses a new class" ([003:691]) and that choice is one of the bonuses. A keyword bonus names
    its General, Terrain or Profession keyword: ``{"bonus": "keyword", "keyword": "valiant"}``."""
    picked: list[dict[str, Any]] = []
    for c in choices:
        item = c if isinstance(c, dict) else {"bonus": c}
        bonus = item.get("bonus")
        if not isinstance(bonus, str) or bonus not in options:
            raise RuleViolation(
                f"{bonus!r} was not rolled; the rolled options are {', '.join(sorted(set(options)))}",
                rule="P-ARMY-4",
                field="choices",
            )
        if bonus == "keyword":
            kw = item.get("keyword")
            if not isinstance(kw, str) or kw not in at.LEVEL_UP_KEYWORDS:
                raise RuleViolation(
                    "a level-up keyword is a General, Terrain or Profession keyword", rule="P-ARMY-4", field="choices"
                )
            picked.append({"bonus": "keyword", "keyword": kw})
        else:
            picked.append({"bonus": bonus})
    want = count - (1 if new_class else 0)
    if len(picked) != want:
        raise RuleViolation(
            f"select {want} bonuses" + (" (choosing the class is one of three)" if new_class else ""),
            rule="P-ARMY-4",
            field="choices",
        )
    return picked


def apply_bonus(stats: dict[str, Any], bonus: dict[str, Any]) -> dict[str, Any]:
    """P-ARMY-4: "Presence/Attack/Morale: die size +2", "Defense: +1", "Mobility: +1", "Keyword"."""
    out = deepcopy(stats)
    b = bonus["bonus"]
    if b in at.ATTRIBUTES:
        out[b] = {**out[b], "die": min(MAX_DIE, out[b]["die"] + 2)}
    elif b in ("defense", "mobility"):
        out[b] += 1
    else:
        kw = bonus["keyword"]
        if kw in out["keywords"]:
            raise RuleViolation(f"the army already has {kw}", rule="P-ARMY-4", field="choices")
        out["keywords"] = [*out["keywords"], kw]
        out = apply_mods(out, at.KEYWORD_MODS.get(kw, {}))
    return out


def change_class(stats: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    """A Levy's new class ([003:691]) brings the class's static bonus (Hammers: +1 Attack)."""
    if old != "levy":
        raise RuleViolation("only a Levy chooses a new class when it levels up", rule="P-ARMY-4", field="new_class")
    if new not in at.CLASSES or new == "levy":
        raise RuleViolation(f"a class is one of {', '.join(c for c in at.CLASSES if c != 'levy')}", rule="P-ARMY-4")
    out = apply_mods(stats, at.CLASSES[new])
    out["cls"] = new
    return out


# ---------------------------------------------------------------------- P-ARMY-1 muster


def path_cost(path: list[str], hexes: dict[str, Any], keywords: list[str]) -> int:
    """P-ARMY-1: each hex entered costs 1, rough terrain doubles it, a road negates it ([003:657]); a terrain
    keyword makes its terrain never difficult ([003:755]-[003:758]); Naval moves through water like roads."""
    cost = 0
    for a, b in zip(path, path[1:]):
        if hexmap.distance(a, b) != 1:
            raise RuleViolation(
                f"{a} and {b} are not neighbours: a path goes hex by hex", rule="P-ARMY-1", field="path"
            )
        h = hexes.get(b)
        if h is None:
            raise RuleViolation(f"{b} is not on the map", rule="P-ARMY-1", field="path")
        terrain = h["terrain"]
        if h["road"] or ("naval" in keywords and terrain in ("water", "sea", "lake", "river")):
            continue
        easy = any(at.EASY_FOR.get(k) == terrain for k in keywords)
        cost += 2 if terrain in at.ROUGH_TERRAINS and not easy else 1
    return cost


def muster_difficulty(moves: list[dict[str, Any]]) -> int:
    """P-ARMY-1: "For armies moved beyond their mobility, the Difficulty is increased by the difference"; "by 2
    for each army moving to a new garrison". ``moves``: ``{"cost", "mobility", "regarrison"}``."""
    return sum(max(0, m["cost"] - m["mobility"]) + (2 if m["regarrison"] else 0) for m in moves)


# ---------------------------------------------------------------------- P-ARMY-3, 5, 6, 7


def train_difficulty(new_rank: int, army_size: int) -> int:
    """P-ARMY-3: "Difficulty: The new rank + a quarter the army size rounded down"."""
    return new_rank + army_size // 4


def level_up_dice(excess: int) -> int:
    """P-ARMY-3: "rolls three dice ... If they leveled up from training, roll additional dice equal to the excess
    successes"."""
    return 3 + max(0, excess)


def levy_difficulty(levy_size: int, uprising: int) -> int:
    """P-ARMY-5: "Difficulty: the size plus the town's "Uprising" status"."""
    return levy_size + uprising


def check_levy(town: Mapping[str, Any], power_id: str, levy_size: int) -> None:
    """P-ARMY-5: "a claimed town that is not Depopulated"; "a size up to the town's population"."""
    if power_id not in {c["power"] for c in town["claims"].values()}:
        raise RuleViolation(f"a levy is raised in a town one claims; not {town['name']}", rule="P-ARMY-5")
    if town["statuses"].get("depopulated", 0) > 0:
        raise RuleViolation(f"{town['name']} is Depopulated: no levy there", rule="P-ARMY-5", field="town_id")
    if not 1 <= levy_size <= town["population"]:
        raise RuleViolation(
            f"a levy's size is 1 to the town's population ({town['population']})", rule="P-ARMY-5", field="size"
        )


def depopulation(units: int) -> int:
    """P-ARMY-5: Depopulated "equal to a quarter of the chosen size, rounded down" on levy, and as many stacks
    removed for "a quarter of the number of returning units" on disbanding."""
    return units // 4


def levy_stats(ancestry: str, bonus: dict[str, Any]) -> dict[str, Any]:
    """P-ARMY-5: the levy template, then "a set of Ancestry bonuses, then ... a single levelup bonus"."""
    if ancestry not in at.ANCESTRIES:
        raise RuleViolation(f"an ancestry is one of {', '.join(at.ANCESTRIES)}", rule="P-ARMY-5", field="ancestry")
    a = at.ANCESTRIES[ancestry]
    stats = {**deepcopy(at.LEVY_TEMPLATE), "armor_base": 0}
    stats = apply_mods(stats, {k: v for k, v in a["mods"].items() if k != "armor"})
    stats["armor_base"] += a["mods"].get("armor", 0)
    stats["element"] = a["element"]
    stats["keywords"] = list(a["keywords"])
    if not isinstance(bonus.get("bonus"), str) or bonus.get("bonus") not in at.BONUSES:
        raise RuleViolation(f"a level-up bonus is one of {', '.join(at.BONUSES)}", rule="P-ARMY-5", field="bonus")
    return apply_bonus(stats, check_choices(list(at.BONUSES), [bonus], 1, None)[0])


def forge_difficulty(target_tier: int, army_size: int, ancestry: str | None) -> int:
    """P-ARMY-6: "The target tier + a quarter the army size rounded down"; Harpies "+2 difficulty on challenges
    to provide them armor" ([003:783])."""
    return target_tier + army_size // 4 + (2 if ancestry == "harpies" else 0)


def check_forge(army: dict[str, Any], target_tier: int) -> None:
    """P-ARMY-6: tiers 0 to 4, upward; wondrous armies and Dragons/Monsters use no equipment ([003:675])."""
    if army["cls"] in at.NO_EQUIPMENT_CLASSES or army.get("wondrous"):
        raise RuleViolation(f"{army['name']} cannot use equipment", rule="P-ARMY-6", field="army_id")
    if not army["tier"] < target_tier < len(at.TIERS):
        raise RuleViolation(
            f"the target tier is above {army['tier']} and at most {len(at.TIERS) - 1}", rule="P-ARMY-6", field="tier"
        )


def cowards_recovered(successes: int, fled: int) -> int:
    """P-ARMY-7: "the number of successes is the number of units recovered, up to a maximum of the number that
    fled"."""
    return max(0, min(successes, fled))


COWARDS_ASSET_RANK = 3  # P-ARMY-7: "If you previously controlled the unit, gain a +3 asset."


# ---------------------------------------------------------------------- P-ARMY-8 premium and titanic


def check_block(block: dict[str, Any]) -> None:
    """P-ARMY-8: a premium army's "attribute dice start at d6 and they have one free premium keyword"; a titanic
    army uses a titan class; every keyword is one the rules name."""
    for kw in block["keywords"]:
        if kw not in at.ALL_KEYWORDS:
            raise RuleViolation(f"{kw!r} is not an army keyword", rule="P-ARMY-8", field="keywords")
    if block.get("premium"):
        if any(block[a]["die"] < 6 for a in at.ATTRIBUTES):
            raise RuleViolation("a premium army's attribute dice start at d6", rule="P-ARMY-8", field="premium")
        if not any(k in at.KEYWORDS["premium"] for k in block["keywords"]):
            raise RuleViolation("a premium army has one free premium keyword", rule="P-ARMY-8", field="keywords")
    titan = block["cls"] in at.TITAN_CLASSES
    if bool(block.get("titanic")) != titan:
        raise RuleViolation(
            "a titanic army uses a titan class, and only a titanic army does", rule="P-ARMY-8", field="cls"
        )
    if not titan and block["cls"] not in at.CLASSES:
        raise RuleViolation(f"{block['cls']!r} is not a class", rule="P-ARMY-8", field="cls")


def premium_block(block: dict[str, Any], premium_keyword: str) -> dict[str, Any]:
    """P-ARMY-8: make a stat block premium: dice at least d6, and its free premium keyword."""
    if premium_keyword not in at.KEYWORDS["premium"]:
        raise RuleViolation(f"{premium_keyword!r} is not a premium keyword", rule="P-ARMY-8", field="keywords")
    out = deepcopy(block)
    for a in at.ATTRIBUTES:
        out[a] = {**out[a], "die": max(6, out[a]["die"])}
    out["keywords"] = [*out["keywords"], premium_keyword]
    out["premium"] = True
    return out


# ---------------------------------------------------------------------- P-ARMY-9 recovery


def recover(army: dict[str, Any]) -> list[dict[str, Any]]:
    """P-ARMY-9: "any routed units return and each army heals a number of wounds equal to half their size"
    (rounded down, P-AMB-27); Ageless "Heals half as many wounds"; Orcs "may choose to leave a wound present as
    a scar instead of healing it" ([003:789]). The most wounded units heal first, so the healing keeps the most
    units from the edge of death."""
    units = [{"wounds": u["wounds"], "routed": False} for u in army["units"]]
    heal = 0 if army.get("keep_scars") else len(units) // 2
    if "ageless" in army["keywords"]:
        heal //= 2
    for _ in range(heal):
        worst = max(range(len(units)), key=lambda i: (units[i]["wounds"], -i), default=None)
        if worst is None or units[worst]["wounds"] == 0:
            break
        units[worst]["wounds"] -= 1
    return units


# ---------------------------------------------------------------------- P-SUP-1..3


def support_limit(cls: str, claimed_populations: list[int], influenced_hexes: int, bonus: int) -> int:
    """P-SUP-2: a City, the population of its 4 largest claimed towns; a Conspiracy, the hexes where it has at
    least 1 influence; a Champion 0; each plus what its effects add (Paragon 5, Warbacked +5, ...)."""
    if cls == "city":
        base = sum(sorted(claimed_populations, reverse=True)[:4])
    elif cls == "conspiracy":
        base = influenced_hexes
    else:
        base = 0
    return base + bonus


# P-SUP-2: what effects add to the limit. Paragon "You have a support limit of 5" ([003:1386]); Warbacked
# ([003:1350]), Crusader ([003:1394]) and Warmaster ([003:1405]) "+5 Support Limit" each.
SUPPORT_PERKS = {"Warbacked": 5, "Crusader": 5, "Warmaster": 5}
SUPPORT_SUBCLASS = {"paragon": 5}


def effects_support(subclass: str, perks: set[str]) -> int:
    """P-SUP-2: the support limit a power's class features and perks give it."""
    return SUPPORT_SUBCLASS.get(subclass, 0) + sum(n for perk, n in SUPPORT_PERKS.items() if perk in perks)


def units_counted(armies: list[dict[str, Any]], privateers: bool = False) -> int:
    """P-SUP-1: "every unit in each army that is controlled by you" counts, loyal armies too ("do still count
    against support limit"); Juggernaut "Counts as +2 size" ([003:760]). Routed units are still the power's.
    Privateers: "Your largest mercenary army does not count towards your support limit" ([003:1098])."""

    def counted(a: dict[str, Any]) -> int:
        return len(a["units"]) + (2 if "juggernaut" in a["keywords"] else 0)

    total = sum(counted(a) for a in armies)
    mercenaries = [counted(a) for a in armies if "mercenary" in a["keywords"]]
    return total - (max(mercenaries) if privateers and mercenaries else 0)


def support_due(limit: int, units: int) -> int:
    """P-SUP-1: one coin, respect or fear "for every unit you still control ... beyond your support limit"."""
    return max(0, units - limit)


SUPPORT_RESOURCES = ("coin", "respect", "fear")  # P-AMB-21: "loyalty" read as respect


def army_fee(army: dict[str, Any]) -> int:
    """P-SUP-3: "Armies loyal to their controller waive the fee, and a Personal Army ... never charges one"."""
    if army["loyal"] or army["personal"]:
        return 0
    return int(army["fee"])


def fee_in_fear(army: dict[str, Any], fee: int) -> int:
    """Servile: "any fees for this army are halved when paid with Fear" ([003:771]); a cost of at least 1 stays
    at least 1 (P-AMB-27)."""
    return max(1, fee // 2) if "servile" in army["keywords"] and fee else fee


# ---------------------------------------------------------------------- P-ASSET-7 armies as non-combat assets


def check_helps(army: dict[str, Any], location: str | None, used_season: int | None, season: int) -> None:
    """P-ASSET-7: only an army with a profession keyword helps outside combat, once per season, only in its
    current hex (after mustering); a Personal Army never helps in a challenge."""
    if army["personal"]:
        raise RuleViolation(f"{army['name']} is a Personal Army: it never helps in a challenge", rule="P-ASSET-7")
    if not any(k in at.KEYWORDS["profession"] for k in army["keywords"]):
        raise RuleViolation(
            f"{army['name']} has no profession keyword: it helps only in combat", rule="P-ASSET-7", field="assets"
        )
    if location is None or location != army["hex"]:
        raise RuleViolation(
            f"{army['name']} helps only in its current hex, {army['hex']}", rule="P-ASSET-7", field="location"
        )
    if used_season == season:
        raise RuleViolation(f"{army['name']} has already helped this season", rule="P-ASSET-7", field="assets")
