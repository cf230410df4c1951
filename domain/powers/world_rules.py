"""Pure rules of the world around the month: towns, features, statuses and influence (rules/ANALYSIS.md
P.2.7 and P.2.8). Each function cites its rule id; the aggregate (``domain.powers.world``) records what
they compute. Features are data (P-FEAT-1): the catalogue below is read by the rules, never branched on
by name except where the text gives a feature a rule of its own (Bank wealth, walls, strongholds).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from domain.errors import RuleViolation
from domain.powers import hexmap

if TYPE_CHECKING:
    from domain.powers.world_state import Aim

# ---------------------------------------------------------------------- the feature catalogue (P-FEAT-1)


@dataclass(frozen=True)
class FeatureType:
    """One kind of feature, as the rules list it ([003:376]-[003:459])."""

    kind: str
    built: bool  # built features of towns are public (P.4); non-built ones are per feature
    industry: bool = False  # needs mortal effort: stops when the town is too small (P-TOWN-3)
    complexity: int = 0
    mobility: int = 0
    rank: int = 0
    fee: int = 0
    wealth: int = 0
    materials: tuple[str, ...] = ()
    upgrades: tuple[str, ...] = ()
    assured_for: str | None = None
    wealth_per_upgrade: int = 0  # Port and Caravansary: each upgrade adds +1 wealth too
    extended_adds: int | None = None  # Training Grounds: Extended is +6 mobility, not x2
    goal: dict[str, Any] | None = None  # walls: the battle goal and its thresholds per side (P-FEAT-2, P-AMB-13)


COMMON = ("extended", "specialized", "durable")
TRADED = ("extended", "commercial", "specialized", "durable")
VAULTED = ("vaults", "specialized", "durable")
CATALOGUE: dict[str, FeatureType] = {
    t.kind: t
    for t in (
        # Extractors: "Lumberyard", "Mine", "Dredger", "Quarry", "Weaver" share one type ([003:376]).
        FeatureType("extractor", True, True, 1, 3, 1, 1, 1, ("wood",), COMMON, assured_for="craft"),
        FeatureType("farm", True, True, 1, 3, 1, 0, 1, ("wood",), COMMON),
        FeatureType("guild", True, True, 3, 6, 2, 2, 1, ("stone",), TRADED),
        FeatureType("college", True, True, 6, 6, 3, 3, 1, ("wood", "paper"), TRADED),
        FeatureType("port", True, True, 3, 6, 1, 2, 2, ("wood",), COMMON, wealth_per_upgrade=1),
        FeatureType("caravansary", True, True, 2, 4, 1, 2, 2, ("wood",), (*COMMON, "vast"), wealth_per_upgrade=1),
        FeatureType("bank", True, True, 3, 0, 2, 1, 0, ("stone",), VAULTED),
        FeatureType("prison", True, True, 2, 0, 1, 0, 0, ("wood", "stone"), VAULTED),
        FeatureType(
            "training_grounds", True, True, 2, 0, 2, 2, 0, ("wood",), (*COMMON, "oldblood_recruiting"), extended_adds=6
        ),
        FeatureType("herd", True, True, 3, 6, 2, 3, 1, (), COMMON),
        # Defenses: the a/b thresholds are read defender/attacker (P-AMB-13) and stored per side, never parsed.
        FeatureType(
            "wooden_walls",
            True,
            False,
            2,
            materials=("wood",),
            goal={"name": "Wooden Walls", "defender": 2, "attacker": 2, "wallkeepers_morale": 1},
        ),
        FeatureType(
            "stone_walls",
            True,
            False,
            4,
            materials=("stone",),
            goal={"name": "Stone Walls", "defender": 2, "attacker": 4, "wallkeepers_morale": 2},
        ),
        FeatureType(
            "layered_walls",
            True,
            False,
            7,
            materials=("stone",),
            goal={"name": "Layered Walls", "defender": 2, "attacker": 6, "wallkeepers_morale": 3},
        ),
        FeatureType("stronghold", True, False, 6, materials=("stone",)),
        # Non-built features: shown per feature (P.4).
        FeatureType("dungeon", False),
        FeatureType("ruin", False),
        FeatureType("outpost", False),
        FeatureType("landmark", False),
    )
}

MODULES = {
    "barracks": "iron",
    "apartments": "stone",
    "mana_gardens": "salt",
    "tower": "stone",
    "spell_laboratory": "paper",
    "alchemical_laboratory": "salt",
    "labyrinth": "stone",
}

HERD_MOUNTS = {"horses": 0, "giant_rams": 1, "griffins": 2, "hippopotamuses": 3, "drakes": 4}


def feature_type(kind: str) -> FeatureType:
    """The catalogue entry of a feature kind, or a refusal naming P-FEAT-1."""
    t = CATALOGUE.get(kind)
    if t is None:
        raise RuleViolation(
            f"a feature is one of {', '.join(sorted(CATALOGUE))}; {kind!r} is not", rule="P-FEAT-1", field="kind"
        )
    return t


def check_upgrades(kind: str, upgrades: Sequence[str]) -> None:
    """A feature takes only the upgrades its catalogue entry lists, each once (P-FEAT-1)."""
    t = feature_type(kind)
    for u in upgrades:
        if u not in t.upgrades:
            allowed = ", ".join(t.upgrades) or "none"
            raise RuleViolation(
                f"a {kind} takes the upgrades {allowed}; {u!r} is not one", rule="P-FEAT-1", field="upgrades"
            )
    if len(set(upgrades)) != len(upgrades):
        raise RuleViolation("each upgrade is taken once", rule="P-FEAT-1", field="upgrades")


def complexity(kind: str, upgrades: Sequence[str] = (), mount: str | None = None) -> int:
    """A feature's complexity: its base, +2 per upgrade ([003:376] "Each upgrade increases complexity by 2"),
    plus a herd's mounts ([003:421])."""
    return feature_type(kind).complexity + 2 * len(upgrades) + HERD_MOUNTS.get(mount or "", 0)


def mobility(kind: str, upgrades: Sequence[str] = ()) -> int:
    """A feature's mobility: Extended doubles it (Training Grounds: +6) (P-FEAT-1)."""
    t = feature_type(kind)
    if "extended" not in upgrades:
        return t.mobility
    return t.mobility + t.extended_adds if t.extended_adds is not None else 2 * t.mobility


def asset_rank(kind: str, upgrades: Sequence[str] = ()) -> int:
    """The rank of the asset a feature provides: Specialized adds +1 to Extractors, Farms, Guilds and Training
    Grounds; a Vast Caravansary is rank 2 (P-FEAT-1)."""
    t = feature_type(kind)
    if kind == "caravansary" and "vast" in upgrades:
        return 2
    plus = "specialized" in upgrades and kind in ("extractor", "farm", "guild", "training_grounds")
    return t.rank + (1 if plus else 0)


def is_critical(kind: str, upgrades: Sequence[str] = ()) -> bool:
    """A Specialized Port or Caravansary "Becomes Critical"; so is a Specialized Herd for Train (P-FEAT-1)."""
    return "specialized" in upgrades and kind in ("port", "caravansary", "herd")


def wealth(kind: str, upgrades: Sequence[str] = (), stored: int = 0) -> int:
    """The wealth a feature adds to its town (P-FEAT-1). A Bank adds a third of its stored coin, at most 3,
    or 6 when Specialized ([003:413]); Commercial adds +2; Port and Caravansary upgrades add +1 each."""
    t = feature_type(kind)
    if kind == "bank":
        return min(stored // 3, 6 if "specialized" in upgrades else 3)
    return t.wealth + t.wealth_per_upgrade * len(upgrades) + (2 if "commercial" in upgrades else 0)


def prison_relief(upgrades: Sequence[str]) -> int:
    """Uprising a Prison removes at the end of every month: 1, or 2 when Specialized (P-FEAT-1)."""
    return 2 if "specialized" in upgrades else 1


def wall_goal(kind: str, modules: Sequence[str] = ()) -> dict[str, Any] | None:
    """The battle goal a feature gives its hex (P-FEAT-2): walls give theirs; a stronghold has the
    protection of stone walls, layered with a Labyrinth ([003:441], [003:455])."""
    if kind == "stronghold":
        kind = "layered_walls" if "labyrinth" in modules else "stone_walls"
    goal = feature_type(kind).goal
    return dict(goal) if goal else None


# ---------------------------------------------------------------------- strongholds (P-FEAT-3)

STRONGHOLD_COMPLEXITY = 6


def module_complexity(existing_modules: int) -> int:
    """The k-th module costs 3k: "3, plus 3 for each module the stronghold already has" ([003:447])."""
    return 3 * (existing_modules + 1)


def maintenance(modules: int) -> int:
    """Coin due each Tidings: 2 + 1 per module ([003:459])."""
    return 2 + modules


# ---------------------------------------------------------------------- towns (P-TOWN-1..4)

CLAIM_TYPES = ("city", "conspiracy", "champion")
NEGATIVE_STATUSES = ("taxed", "depopulated", "uprising", "sickened")
TOWN_STATUSES = ("depopulated", "booming", "sickened", "growing", "taxed", "uprising")


def effective_population(population: int, statuses: Mapping[str, int]) -> int:
    """Population less Depopulated X, plus Booming X (P-TOWN-3, P-TOWN-4)."""
    return max(0, population - statuses.get("depopulated", 0) + statuses.get("booming", 0))


def town_wealth(base: int, statuses: Mapping[str, int], features: Sequence[dict[str, Any]]) -> int:
    """A town's wealth: its own, Booming X, and what its working features add (P-TOWN-4, P-FEAT-1)."""
    total = base + statuses.get("booming", 0)
    for f in features:
        if not f.get("stopped"):
            total += wealth(f["kind"], f.get("upgrades", []), f.get("stored", 0))
    return total


def senior_claimant(claims: Mapping[str, Mapping[str, Any]]) -> str | None:
    """The power holding the earliest claim (P-TOWN-1); claims are ``{type: {"power", "since"}}``."""
    if not claims:
        return None
    power: str = min(claims.values(), key=lambda c: c["since"])["power"]
    return power


def check_claim(claims: Mapping[str, Mapping[str, Any]], claim_type: str, power: str) -> None:
    """At most one claimant of each power type (P-TOWN-1)."""
    if claim_type not in CLAIM_TYPES:
        raise RuleViolation(f"a claim is a {', '.join(CLAIM_TYPES)} claim", rule="P-TOWN-1", field="cls")
    held = claims.get(claim_type)
    if held is not None and held["power"] != power:
        raise RuleViolation(
            f"this town already has a {claim_type} claimant; a town has at most one of each type",
            rule="P-TOWN-1",
            field="town_id",
        )


def stopped_industries(
    effective_pop: int, industries: Sequence[dict[str, Any]], stop_order: Sequence[str] = ()
) -> list[str]:
    """Which industries cease to operate (P-TOWN-3): each with complexity above the effective population,
    then, while the population is below the number still working, the next in the senior claimant's order
    (by default the most recently built first). ``industries`` are ``{"id", "complexity"}`` in build order."""
    stopped = [i["id"] for i in industries if i["complexity"] > effective_pop]
    working = [i["id"] for i in industries if i["id"] not in stopped]
    order = [x for x in stop_order if x in working] + [x for x in reversed(working) if x not in stop_order]
    while len(working) > effective_pop and order:
        victim = order.pop(0)
        working.remove(victim)
        stopped.append(victim)
    return sorted(stopped)


def cleanup_statuses(population: int, statuses: Mapping[str, int]) -> tuple[int, dict[str, int]]:
    """A town at Cleanup (P-TOWN-4, P.1.2 order): Sickened loses 1 population and Growing gains 1, Growing
    counteracting Sickened; then every status ticks down by one stack."""
    sick, growing = statuses.get("sickened", 0) > 0, statuses.get("growing", 0) > 0
    if sick and not growing:
        population = max(0, population - 1)
    elif growing and not sick:
        population += 1
    return population, {k: v - 1 for k, v in statuses.items() if v - 1 > 0}


# ---------------------------------------------------------------------- town actions (P-TOWN-2)

TOWN_ACTIONS = ("tax", "trade", "lay_roads", "feast", "feed", "build", "upgrade", "demolish")
DIFFICULT_TERRAIN = frozenset({"mountains", "forest", "swamp", "hills", "desert", "jungle", "tundra"})


@dataclass(frozen=True)
class TownActionPlan:
    """What a town action needs and does, as its formula gives it (P-TOWN-2)."""

    difficulty: int
    resistible_by: tuple[str, ...] = ()
    effect: dict[str, Any] = field(default_factory=dict)


def tax_difficulty(statuses: Mapping[str, int]) -> int:
    """Tax: the sum of the town's negative statuses ([003:360])."""
    return sum(statuses.get(s, 0) for s in NEGATIVE_STATUSES)


def trade_difficulty(excess_mobility: int, same_claimant: bool) -> int:
    """Trade: the goods' excess mobility, +2 if no one power claims both towns ([003:361])."""
    return max(0, excess_mobility) + (0 if same_claimant else 2)


def roads_difficulty(terrain: str) -> int:
    """Lay Roads: 3, or 6 in difficult terrain ([003:362])."""
    return 6 if terrain in DIFFICULT_TERRAIN else 3


def feast_difficulty(rooted_agent_ranks: int, agents_died_recently: bool) -> int:
    """Hold a Feast: the rooted agents' total rank; +1 and then doubled if agents died here this season or
    the last ([003:363], P-AMB-25)."""
    return 2 * (rooted_agent_ranks + 1) if agents_died_recently else rooted_agent_ranks


def feed_difficulty(population: int, times_this_season: int) -> int:
    """Feed: the population, doubled for each earlier Feed here this season ([003:364], P-AMB-25)."""
    doubled: int = population * 2**times_this_season  # typeshed: int ** int may be a float (a negative power)
    return doubled


def build_difficulty(new_complexity: int, existing_features: int) -> int:
    """Build: the new feature's complexity plus the features already there ([003:365])."""
    return new_complexity + existing_features


def upgrade_difficulty(new_complexity: int, other_features: int) -> int:
    """Upgrade: the new complexity plus the other features, less the 1 it saves over a Build (P-AMB-26)."""
    return max(0, new_complexity + other_features - 1)


DEMOLISH_DIFFICULTY = 1  # [003:367]; the other claimants may resist


# ---------------------------------------------------------------------- dungeons and ruins (P-FEAT-4)


def floor_open(floors_cleared: int, floor: int) -> bool:
    """A dungeon's floor is open to a power once it cleared every floor above it (P-FEAT-4)."""
    return floor == floors_cleared + 1


def ruin_progress(threat: int, difficulty: int, net_successes: int) -> int:
    """A ruin's threat after a clearing action: less the excess successes over its difficulty (P-FEAT-4)."""
    return max(0, threat - max(0, net_successes - difficulty))


# ---------------------------------------------------------------------- influence (P-INFL-2..6)


def check_spend(
    location: str, held: Mapping[str, int], amounts: Mapping[str, int], already: Mapping[str, int] | None = None
) -> None:
    """Influence spent by an action: any amount from the action's hex, at most 1 from each neighbouring
    hex over the whole action (``already`` is what it spent before), none from anywhere else, and never more
    than is there (P-INFL-2)."""
    around = set(hexmap.neighbours(location))
    already = already or {}
    for hex_, n in amounts.items():
        if n < 1:
            raise RuleViolation("spend a positive amount of influence", rule="P-INFL-2", field="amounts")
        if hex_ != location and hex_ not in around:
            raise RuleViolation(
                f"influence is spent from the action's hex {location} and its neighbours; {hex_} is "
                f"{hexmap.distance(location, hex_)} hexes away",
                rule="P-INFL-2",
                field="amounts",
            )
        if hex_ in around and n + already.get(hex_, 0) > 1:
            raise RuleViolation(
                f"at most 1 influence from each neighbouring hex for one action; {n} asked from {hex_}"
                + (f", and the action already took {already[hex_]} from there" if already.get(hex_) else ""),
                rule="P-INFL-2",
                field="amounts",
            )
        if n > held.get(hex_, 0):
            raise RuleViolation(
                f"you have {held.get(hex_, 0)} influence in {hex_}, not {n}", rule="P-INFL-2", field="amounts"
            )


def shift(held: Mapping[str, int], a: str, b: str) -> dict[str, int]:
    """One shift of influence during Tidings: 1 from ``a`` to a neighbouring ``b``, legal only down a
    gradient of at least two, ``inf(a) - inf(b) >= 2`` before the shift (P-INFL-3)."""
    if b not in hexmap.neighbours(a):
        raise RuleViolation(f"influence shifts to a neighbouring hex; {b} is not next to {a}", rule="P-INFL-3")
    ia, ib = held.get(a, 0), held.get(b, 0)
    if ia - ib < 2:
        raise RuleViolation(
            f"influence shifts down a gradient of at least two: {a} has {ia}, {b} has {ib}",
            rule="P-INFL-3",
            field="shifts",
        )
    out = dict(held)
    out[a], out[b] = ia - 1, ib + 1
    return {h: n for h, n in out.items() if n > 0}


OUTPOST_FLOOR = 3


def outpost_floor(current: int) -> int:
    """At Tidings each outpost is raised to at least 3 influence (P-INFL-4)."""
    return max(current, OUTPOST_FLOOR)


MERCURIAL_SWAPS = 2  # [003:931] "swap your influence between any two hexes twice"


def mercurial_swap(
    held: Mapping[str, int], raised: Mapping[str, int], outposts: set[str], a: str, b: str
) -> tuple[dict[str, int], dict[str, int]]:
    """Mercurial [003:931]: swap the influence of hexes ``a`` and ``b`` as it stood before the outpost reset
    (``raised`` is what the reset added), then raise the outposts again (P-INFL-4). Returns the new influence
    and what the reset now adds."""
    # Influence shifted out of a raised outpost since the reset cannot take it below nothing.
    before = {h: max(0, n - raised.get(h, 0)) for h, n in held.items()}
    before[a], before[b] = before.get(b, 0), before.get(a, 0)
    again = {h: outpost_floor(before.get(h, 0)) - before.get(h, 0) for h in sorted(outposts)}
    again = {h: n for h, n in again.items() if n}
    after = {h: n + again.get(h, 0) for h, n in before.items()}
    after.update({h: outpost_floor(before.get(h, 0)) for h in again})
    return {h: n for h, n in after.items() if n}, again


MECHANISMS = ("coercion", "emissaries", "intimidation", "sacrifice", "witchcraft")


def generated(mechanism: str, ranks: Sequence[int]) -> int:
    """Influence a generation mechanism yields (P-INFL-5): the rank of the item, agent, industry or spell;
    for Intimidation, the greatest level among the opposed armies."""
    if mechanism not in MECHANISMS:
        raise RuleViolation(f"a mechanism is one of {', '.join(MECHANISMS)}", rule="P-INFL-5", field="mechanism")
    if not ranks or any(r < 1 for r in ranks):
        raise RuleViolation("give the rank (or the armies' levels) that generates it", rule="P-INFL-5", field="ranks")
    if mechanism != "intimidation" and len(ranks) != 1:
        raise RuleViolation(f"{mechanism} generates from one rank", rule="P-INFL-5", field="ranks")
    return max(ranks)


def feature_aim(
    aim: str, f: Mapping[str, Any], power: str, floor: int | None, params: Mapping[str, Any], record: Aim
) -> int:
    """The difficulty of an action aimed at a feature, its aim's facts added to ``record``: a dungeon's floor
    revealed to the power (``delve``, P-FEAT-4), a ruin with threat left (``clear``, P-FEAT-4), a module not yet
    built on the power's own stronghold (``module``, P-FEAT-3)."""
    if aim == "delve":
        if f["kind"] != "dungeon":
            raise RuleViolation(f"{f['name']!r} is not a dungeon", rule="P-FEAT-4", field="feature_id")
        done = f["cleared"].get(power, 0)
        if floor is None or not 1 <= floor <= len(f["floors"]) or not floor_open(done, floor):
            raise RuleViolation(
                f"floor {floor} is not revealed to you: completing a floor reveals the next (you have cleared {done})",
                rule="P-FEAT-4",
                field="floor",
            )
        record["floor"] = floor
        floor_difficulty: int = f["floors"][floor - 1]["difficulty"]
        return floor_difficulty
    if aim == "clear":
        if f["kind"] != "ruin" or f["threat"] <= 0:
            raise RuleViolation(f"{f['name']!r} is not a ruin with threat left", rule="P-FEAT-4")
        ruin_difficulty: int = f["difficulty"]
        return ruin_difficulty
    if f["kind"] != "stronghold" or f["controller"] != power:
        raise RuleViolation("modules are built on one's own stronghold", rule="P-FEAT-3")
    module = str(params.get("module"))
    if module not in MODULES or module in f["modules"]:
        raise RuleViolation(
            f"a module is one of {', '.join(m for m in MODULES if m not in f['modules'])}",
            rule="P-FEAT-3",
            field="params",
        )
    record["module"] = module
    return module_complexity(len(f["modules"]))


def infiltrate_difficulty(towns_claimed: int, others_influence: int) -> int:
    """Infiltrate: towns already claimed plus the sum of other influence in the town ([003:1128])."""
    return towns_claimed + others_influence


def has_most_influence(mine: int, others: Sequence[int]) -> bool:
    """Infiltrate needs the most influence in the town: more than any other conspiracy (P-INFL-6)."""
    return mine > 0 and all(mine > o for o in others)


def keeps_claim(influence: Mapping[str, int], town_hex: str) -> bool:
    """A conspiracy keeps an infiltrated claim while it has influence in the town or an adjacent hex
    (P-INFL-6)."""
    return any(influence.get(h, 0) > 0 for h in (town_hex, *hexmap.neighbours(town_hex)))


def _half(x: int) -> int:
    # P-AMB-27: halves round down, with a minimum of 1 when the base is at least 1.
    return max(1, x // 2) if x >= 1 else 0


def into_the_fold(agent_rank: int) -> tuple[int, int]:
    """Into the Fold: (cost in influence, difficulty) = the agent's rank ([003:1133])."""
    return agent_rank, agent_rank


def into_the_fold_follower(excess: int) -> bool:
    """With three excess successes an independent agent becomes a follower ([003:1133])."""
    return excess >= 3


def workers_unite(industry_complexity: int) -> tuple[int, int]:
    """Workers, Unite!: cost and difficulty half the industry's complexity, rounded down (P-AMB-27)."""
    return _half(industry_complexity), _half(industry_complexity)


def heretical_soldiers(army_rank: int, army_size: int) -> tuple[int, int]:
    """Heretical Soldiers: cost the army's rank, difficulty twice its size ([003:1137])."""
    return army_rank, 2 * army_size
