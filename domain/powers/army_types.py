"""Armies as data ([003:594]-[003:859], rules/ANALYSIS.md P.2.10): the levy template, classes, ancestries,
keywords, the level-up table and the example stat blocks. The rules' "Wondrous Armies" section is empty
(P-AMB-42): the GM adds army types to a game as events (``Armies.define_army_type``), not here.

A stat block is a plain dict: ``attack``, ``morale`` and ``presence`` are ``{"die": sides, "bonus": static}``
([003:604] "listed with a die size and a static bonus"); ``defense``, ``armor``, ``mobility`` and ``fee`` are
numbers; ``keywords`` a list; ``element`` one letter or None.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

ATTRIBUTES = ("attack", "morale", "presence")
NUMBERS = ("defense", "armor", "mobility", "fee")

# [003:667] "It is rank 1 with 3 defense and d4 in presence, attack, and morale ... Their rank, fee, and
# mobility are 1."
LEVY_TEMPLATE: dict[str, Any] = {
    "rank": 1,
    "defense": 3,
    "attack": {"die": 4, "bonus": 0},
    "morale": {"die": 4, "bonus": 0},
    "presence": {"die": 4, "bonus": 0},
    "armor": 0,
    "fee": 1,
    "mobility": 1,
    "keywords": [],
    "element": None,
    "cls": "levy",
}

# [003:711]-[003:725] Basic classes: their static bonuses (the mechanisms of momentum are the battle's).
CLASSES: dict[str, dict[str, int]] = {
    "levy": {},
    "archers": {},
    "brawlers": {"presence": 1},
    "dervishes": {},
    "axes": {"attack": 1},
    "hammers": {"attack": 1},
    "infantry": {"defense": 1},
    "pikes": {"presence": 1},
    "rogues": {"attack": 1},
    "shieldbearers": {"morale": 1},
    "tortoise": {"morale": 1},
    "supports": {"morale": 1},
}
# [003:727]-[003:735] Titan classes, for titanic armies only. Dragon and Monster: "3 base Armor but cannot use
# equipment"; Giant and Monster units die on their third wound (P-BAT-4).
TITAN_CLASSES: dict[str, dict[str, int]] = {
    "angel": {},
    "dragon": {"armor": 3},
    "demon": {},
    "devil": {},
    "giant": {},
    "monster": {"armor": 3},
    "war_balloon": {},
}
NO_EQUIPMENT_CLASSES = frozenset({"dragon", "monster"})
TOUGH = frozenset({"giant", "monster"})  # a unit survives two wounds, dying on the third

KEYWORDS: dict[str, tuple[str, ...]] = {
    "general": (
        "agile",
        "bloodlust",
        "needler",
        "fearful",
        "immunized",
        "siege",
        "skirmisher",
        "slayer",
        "valiant",
        "vanguard",
        "wallkeepers",
        "wild_element",
    ),
    "terrain": ("guerilla", "mountaineer", "naval", "nomad", "stealthy"),
    "profession": (
        "greybeards",
        "engineers",
        "racketeers",
        "stablemasters",
        "scoundrels",
        "scouts",
        "arcanists",
        "cooks",
    ),
    "premium": (
        "stampeding",
        "firespitting",
        "frigid",
        "stormblooded",
        "nightmare",
        "alien_mind",
        "juggernaut",
        "incorruptible",
        "flapping",
    ),
    "negative": ("mercenary", "repulsive", "ageless", "servile"),
}
ALL_KEYWORDS = frozenset(k for group in KEYWORDS.values() for k in group)
LEVEL_UP_KEYWORDS = frozenset((*KEYWORDS["general"], *KEYWORDS["terrain"], *KEYWORDS["profession"]))
# Keywords that change a stat block when taken ([003:752] Scouts "+1 Mobility, but -1 Presence";
# [003:766] Mercenary "+2 Fee and mobility"; [003:771] Servile "-1 Morale"; [003:748] Scoundrels "+1 Fee").
KEYWORD_MODS: dict[str, dict[str, int]] = {
    "scouts": {"mobility": 1, "presence": -1},
    "scoundrels": {"fee": 1},
    "mercenary": {"fee": 2, "mobility": 2},
    "servile": {"morale": -1},
}

# [003:773]-[003:791] Ancestries: element, keywords and modifiers (their momentum triggers are the battle's).
ANCESTRIES: dict[str, dict[str, Any]] = {
    "ashborn": {"element": "F", "keywords": ["firespitting"], "mods": {"defense": -1}},
    "deep_dwarves": {"element": "E", "keywords": ["engineers"], "mods": {"defense": 1, "mobility": -1}},
    "mountain_dwarves": {"element": "F", "keywords": ["mountaineer"], "mods": {"defense": 1, "mobility": -1}},
    "diverse": {"element": None, "keywords": ["wild_element"], "mods": {}},
    "triumph_elves": {"element": "A", "keywords": ["agile", "ageless"], "mods": {}},
    "recluse_elves": {"element": "W", "keywords": ["guerilla", "ageless"], "mods": {}},
    "horselords": {"element": "F", "keywords": [], "mods": {"mobility": 1, "fee": 1}},
    "halflings": {"element": "E", "keywords": ["valiant"], "mods": {"attack": -1}},
    "harpies": {"element": "W", "keywords": ["flapping"], "mods": {"attack": 1, "morale": -1}},
    "orcs": {"element": "E", "keywords": [], "mods": {}},
    "drakes": {"element": "F", "keywords": ["wallkeepers"], "mods": {"presence": 1, "fee": 1}},
    "gnolls": {
        "element": "A",
        "keywords": ["skirmisher"],
        "mods": {"mobility": 2, "defense": -1, "armor": -1, "presence": -1},
    },
    "antinium": {"element": "E", "keywords": ["alien_mind", "repulsive"], "mods": {}},
    "skeletons": {"element": "D", "keywords": [], "mods": {"attack": 1, "defense": 1, "morale": 1}},
    "zombies": {"element": "D", "keywords": [], "mods": {"attack": -1, "defense": 1}},
    "wraiths": {"element": "D", "keywords": ["fearful"], "mods": {"mobility": 1, "defense": -1}},
    "ghouls": {"element": "D", "keywords": ["repulsive", "fearful"], "mods": {"attack": 2}},
}
UNDEAD = frozenset({"skeletons", "zombies", "wraiths", "ghouls"})  # [003:793] "undead, not mortal"
TOUGH_ANCESTRIES = frozenset({"zombies"})

# P-ARMY-4 / P-AMB-20: the level-up table's entries on d6 faces 1-6, in the order the rules list them.
LEVEL_UP_TABLE: dict[int, str] = MappingProxyType(  # type: ignore[assignment]
    {1: "presence", 2: "attack", 3: "morale", 4: "defense", 5: "mobility", 6: "keyword"}
)
BONUSES = tuple(LEVEL_UP_TABLE.values())

# [003:675] "The tiers are 0 (Civilian), 1 (Light), 2 (Medium), 3 (Heavy), and 4 (Grand)."
TIERS = ("civilian", "light", "medium", "heavy", "grand")

# The rough terrains ([003:657] "doubled for rough terrain"): the rules name no list; the terrain keywords name
# the ones they make easy ([003:755]-[003:758]: forests, mountains, deserts), so those are rough here, with the
# usual hard going of hills, swamps and jungles. The GM names a hex's terrain when declaring the map.
ROUGH_TERRAINS = frozenset({"mountains", "forest", "desert", "hills", "swamp", "jungle", "marsh"})
EASY_FOR = {"mountaineer": "mountains", "guerilla": "forest", "nomad": "desert"}

# [003:823]-[003:859] The example armies' printed stat blocks, as data: the worked example P-EX-6 compares the
# rules' results with them (P-AMB-19: the rules win where they differ).
EXAMPLE_BLOCKS: dict[str, dict[str, Any]] = {
    "derop_levy": {
        "rank": 1,
        "tier": 1,
        "units": 5,
        "defense": 4,
        "attack": {"die": 4, "bonus": 0},
        "morale": {"die": 6, "bonus": 0},
        "presence": {"die": 4, "bonus": 0},
        "armor": 1,
        "fee": 1,
        "mobility": 0,
    },
    "hammers_of_derop": {
        "rank": 2,
        "tier": 1,
        "units": 5,
        "defense": 5,
        "attack": {"die": 6, "bonus": 1},
        "morale": {"die": 6, "bonus": 0},
        "presence": {"die": 4, "bonus": 0},
        "armor": 1,
        "fee": 2,
        "mobility": 0,
    },
    "derop_stoneshatterers": {
        "rank": 3,
        "tier": 3,
        "units": 4,
        "defense": 5,
        "attack": {"die": 6, "bonus": 1},
        "morale": {"die": 6, "bonus": 0},
        "presence": {"die": 6, "bonus": 0},
        "armor": 3,
        "fee": 3,
        "mobility": 0,
    },
}
