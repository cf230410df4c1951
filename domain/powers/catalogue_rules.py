"""The class catalogue and the partial rules of Powers as pure functions and data (ANALYSIS.md P.2.1-P.2.4,
P.2.12). Each function cites its rule id; refusals raise RuleViolation naming it.

Formulas whose inputs live on the map, in wallets or in mana pools (owned by other modules) take those
inputs as declared parameters: the action records them, and the GM may still overrule the difficulty.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from domain.errors import RuleViolation
from domain.powers import hexmap

# ---------------------------------------------------------------------- P-DICE-13: dice outside challenges

MAX_DICE = 50
SIDES = range(2, 101)
_EXPR = re.compile(r"^\s*(\d{1,3})\s*d\s*(\d{1,3})\s*([+-]\s*\d{1,3})?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class DiceSpec:
    """``count`` dice of ``sides`` sides, plus ``modifier`` added to each die (P-DICE-13)."""

    count: int
    sides: int
    modifier: int = 0
    success_at: int | None = None  # a die (with its modifier) at or above this yields the result

    @property
    def text(self) -> str:
        mod = f"{self.modifier:+d}" if self.modifier else ""
        return f"{self.count}d{self.sides}{mod}"


def parse_dice(expr: str) -> DiceSpec:
    """``"2d10"``, ``"1d4+1"``: a die expression (P-DICE-13); the modifier applies to each die."""
    m = _EXPR.match(expr or "")
    if not m:
        raise RuleViolation(f"a roll is written NdX or NdX+M (like 1d4 or 3d10), not {expr!r}", rule="P-DICE-13")
    count, sides = int(m.group(1)), int(m.group(2))
    modifier = int(m.group(3).replace(" ", "")) if m.group(3) else 0
    return check_dice(DiceSpec(count, sides, modifier))


def check_dice(spec: DiceSpec) -> DiceSpec:
    if not 1 <= spec.count <= MAX_DICE:
        raise RuleViolation(f"a roll has 1 to {MAX_DICE} dice, not {spec.count}", rule="P-DICE-13", field="dice")
    if spec.sides not in SIDES:
        raise RuleViolation(f"a die has 2 to 100 sides, not {spec.sides}", rule="P-DICE-13", field="dice")
    return spec


def fixed_roll(purpose: str, params: Mapping[str, Any], influence: Mapping[str, int]) -> DiceSpec:
    """The dice the rules fix for a roll outside a challenge (P-DICE-13).

    - extractor: 1d4, a 4 or more yields the resource; Specialized adds +1 ([003:376], [003:384]);
    - college: an insight of rank 1d4 ([003:404]);
    - saboteurs: Xd10, X the power's influence in the hex after paying costs ([003:1262]);
    - level_up: 3d6, plus one die per excess success when it comes from training (P-ARMY-3);
    - random_build: d6s until three unique bonuses; the GM asks for as many as it takes ([003:687]).
    """
    if purpose == "extractor":
        return DiceSpec(1, 4, 1 if params.get("specialized") else 0, success_at=4)
    if purpose == "college":
        return DiceSpec(1, 4)
    if purpose == "saboteurs":
        hex_id = params.get("hex")
        if not isinstance(hex_id, str):
            raise RuleViolation("a Saboteurs attack names its hex", rule="P-DICE-13", field="params.hex")
        x = int(influence.get(hex_id, 0))
        if x < 1:
            raise RuleViolation(
                f"a Saboteurs attack rolls one d10 per influence in the hex; you have none in {hex_id}",
                rule="P-DICE-13",
                field="params.hex",
            )
        return check_dice(DiceSpec(x, 10))
    if purpose == "level_up":
        excess = params.get("excess", 0)
        if not isinstance(excess, int) or excess < 0:
            raise RuleViolation("a level-up's excess successes are a whole number", rule="P-DICE-13", field="params")
        return check_dice(DiceSpec(3 + excess, 6))
    if purpose == "random_build":
        count = params.get("count", 6)
        if not isinstance(count, int):
            raise RuleViolation("a random build rolls a number of d6", rule="P-DICE-13", field="params.count")
        return check_dice(DiceSpec(count, 6))
    raise RuleViolation(
        f"the rules fix no roll called {purpose!r}; the fixed rolls are {', '.join(FIXED_ROLLS)} "
        "(or give the dice as NdX)",
        rule="P-DICE-13",
        field="purpose",
    )


FIXED_ROLLS = ("extractor", "college", "saboteurs", "level_up", "random_build")


def dice_result(spec: DiceSpec, faces: Sequence[int]) -> dict[str, Any]:
    """What a roll outside a challenge gives: each die with its modifier, the total, and (for a roll with a
    threshold) how many dice reached it."""
    values = [f + spec.modifier for f in faces]
    out: dict[str, Any] = {"values": values, "total": sum(values)}
    if spec.success_at is not None:
        out["hits"] = sum(1 for v in values if v >= spec.success_at)
    return out


# ---------------------------------------------------------------------- P-DICE-12: ignored consequences

# Perk -> the kind of challenge it covers and which consequences it ignores (1-based).
IGNORING_PERKS: dict[str, tuple[str, tuple[int, ...]]] = {
    "confident_duelist": ("duel", (1, 5)),  # [003:867]
    "confident_negotiator": ("negotiation", (1, 5)),  # [003:869]
    "confident_crafter": ("crafting", (1, 5)),  # [003:871]
    "confident_ritualist": ("ritual", (1, 5)),  # [003:873]
    "flexible_summoning": ("summoning", (2,)),  # [003:1228]
}


def effective_consequences(taken: int, kinds: Sequence[str], perks: Mapping[str, Any]) -> int:
    """Consequences that count after perks that ignore some of them (P-DICE-12): with Confident X,
    ``c - [c >= 1] - [c >= 5]`` on X challenges; Flexible Summoning ignores the 2nd on summoning challenges.
    ``kinds`` are what the challenge is (``duel``, ``negotiation``, ``summoning``...)."""
    ignored: set[int] = set()
    for perk, (kind, which) in IGNORING_PERKS.items():
        if perks.get(perk) and kind in kinds:
            ignored.update(which)
    return taken - sum(1 for n in ignored if taken >= n)


# ---------------------------------------------------------------------- P-ACT-7: seeking

SEEK_CATEGORIES = {"influence": 1, "hidden_army": 2, "creature": 3, "hidden_object": 3}


def seeking_thresholds(broad: bool) -> dict[str, int]:
    """Successes needed to detect each category (P-ACT-7): influence 1, hidden armies 2, creatures and
    hidden objects 3; Broad Seeking doubles each."""
    return {k: v * (2 if broad else 1) for k, v in SEEK_CATEGORIES.items()}


def seeking_detects(successes: int, broad: bool, named: str | None) -> dict[str, bool]:
    """Which categories a seeking action with ``successes`` uncovers (P-ACT-7). Targeted Seeking adds one
    assured success against the one thing named (its category)."""
    out = {}
    for category, need in seeking_thresholds(broad).items():
        bonus = 1 if (not broad and named == category) else 0
        out[category] = successes + bonus >= need
    return out


def seeking_area(hex_id: str, broad: bool) -> list[str]:
    """The hexes a seeking covers: Broad Seeking the hex and all surrounding hexes (P-ACT-7)."""
    hexmap.parse_hex(hex_id)
    return sorted([hex_id, *hexmap.neighbours(hex_id)]) if broad else [hex_id]


# ---------------------------------------------------------------------- P-RES-1, P-ACT-2: extra reactions

EXTRA_REACTION_PERKS = {
    "desperate_reaction": "[003:875] spend an action from the next month",
    "prepared_reaction": "[003:883] spend a scheme, which does not apply as an asset to the resistance roll",
    "mystic_reactions": "[003:911] spend an A mana",
}


def check_extra_reaction(perk: str, options: Mapping[str, Any], taken: Sequence[str]) -> None:
    """A perk buys at most one more reaction a month, and only a power with the perk may use it (P-RES-1)."""
    if perk not in EXTRA_REACTION_PERKS:
        raise RuleViolation(
            f"an extra reaction is paid with {', '.join(EXTRA_REACTION_PERKS)}; not {perk!r}",
            rule="P-RES-1",
            field="perk",
        )
    if not options.get(perk):
        raise RuleViolation(f"this power does not have the perk {perk}", rule="P-RES-1", field="perk")
    if perk in taken:
        raise RuleViolation(
            f"{perk} gives up to one additional reaction each month, and it has been used", rule="P-RES-1", field="perk"
        )


# ---------------------------------------------------------------------- P-RES-7: reactions that are not resistances


@dataclass(frozen=True)
class ReactionKind:
    subclasses: tuple[str, ...]
    source: str
    rolls: bool = False  # Gate Guardians rolls a pool against the mustering army's fee


NON_RESIST_REACTIONS = {
    "gate_guardians": ReactionKind(("cult",), "[003:1232]", rolls=True),
    "teleport_home": ReactionKind(("celestial",), "[003:1028]"),
    "satellite_shrine": ReactionKind(("celestial",), "[003:1056]"),
}


def reaction_kind(kind: str, subclass: str) -> ReactionKind:
    """The triggered reaction ``kind`` for this subclass (P-RES-7), or a refusal."""
    rk = NON_RESIST_REACTIONS.get(kind)
    if rk is None:
        raise RuleViolation(
            f"a reaction that is not a resistance is one of {', '.join(NON_RESIST_REACTIONS)}; not {kind!r}",
            rule="P-RES-7",
            field="kind",
        )
    if subclass not in rk.subclasses:
        raise RuleViolation(
            f"{kind.replace('_', ' ')} is a reaction of a {' or '.join(rk.subclasses)} {rk.source}",
            rule="P-RES-7",
            field="kind",
        )
    return rk


# ---------------------------------------------------------------------- P-RES-4: per-target resistance


def per_target_results(
    successes: int, difficulty: int, resist: Mapping[str, int], targets: Sequence[str]
) -> dict[str, Any]:
    """Each target's own net successes (P-RES-4 as P-AMB-7, Inquisition [003:955]): a resister's successes
    reduce only the successes applied to that resister; a target that did not resist takes them all."""
    out = {}
    for t in targets:
        r = int(resist.get(t, 0))
        net = max(0, successes - r)
        ok = net >= difficulty
        out[t] = {"resisted": r, "net": net, "success": ok, "excess": max(0, net - difficulty)}
    return out


# ---------------------------------------------------------------------- P-ACT-5: free actions

FREE_ACTIONS = {
    "execute_agent": "[003:176] executing an agent in your power is a free action",
    "disband_levy": "disbanding a levy in its origin town is a free action",
}


def check_free_action(kind: str) -> str:
    """Only what the rules call free costs no action (P-ACT-5); negotiating with NPCs is an action."""
    if kind == "negotiate_npc":
        raise RuleViolation(
            "substantial negotiations to convince or coordinate with NPCs is an action [003:24]: submit it",
            rule="P-ACT-5",
            field="kind",
        )
    if kind == "communicate":
        raise RuleViolation(
            "communication with other players is not an action [003:24]: there is nothing to record",
            rule="P-ACT-5",
            field="kind",
        )
    if kind not in FREE_ACTIONS:
        raise RuleViolation(
            f"the free actions are {', '.join(FREE_ACTIONS)}; {kind!r} costs an action", rule="P-ACT-5", field="kind"
        )
    return FREE_ACTIONS[kind]


# ---------------------------------------------------------------- P-ASSET-5..7: agents, industries, armies

DEFAULT_AGENT_MOBILITY = 3  # [003:99]


def check_asset_terms(
    asset: Mapping[str, Any],
    terms: Mapping[str, Any],
    power_id: str,
    *,
    location: str | None,
    against: Sequence[str],
    bases: Sequence[str] | None = None,
) -> None:
    """One pool asset against its terms (P-ASSET-5, P-ASSET-6, P-ASSET-7).

    ``asset`` is ``{id, name, cls}``; ``terms`` what the GM recorded (fee, loyal_to, mobility, home,
    rooted, follower, hex, profession, personal). ``against`` are the powers the action works against;
    ``bases`` where a follower may work from (a conspiracy's influenced hexes, a champion's own hex), or None
    where that is not known here (a city's claimed towns belong to the map).
    """
    cls, name = asset["cls"], asset["name"]
    if cls == "industry" and terms.get("loyal_to") and terms["loyal_to"] in against:
        raise RuleViolation(
            f"{name!r} is loyal to {terms['loyal_to']} and refuses to act against them [003:106]",
            rule="P-ASSET-6",
            field="assets",
        )
    if cls == "army":
        if terms.get("personal"):
            raise RuleViolation(
                f"{name!r} is a Personal Army: it never assists in a challenge, duels included [003:110]",
                rule="P-ASSET-7",
                field="assets",
            )
        if not terms.get("profession"):
            raise RuleViolation(
                f"{name!r} has no profession keyword (Engineers, Arcane...): armies without one do not help "
                "outside combat [003:110]",
                rule="P-ASSET-7",
                field="assets",
            )
        where = terms.get("hex")
        if where and location and where != location:
            raise RuleViolation(
                f"{name!r} was mustered to {where} and can be used only there, not at {location} [003:110]",
                rule="P-ASSET-7",
                field="assets",
            )
    if cls == "agent" and terms.get("rooted") and location and terms.get("home"):
        reach = int(terms.get("mobility", DEFAULT_AGENT_MOBILITY))
        distance = hexmap.distance(terms["home"], location)
        if distance > reach:
            raise RuleViolation(
                f"{name!r} is rooted at {terms['home']} and acts only within {reach} hexes of it; {location} is "
                f"{distance} away [003:101]",
                rule="P-ASSET-5",
                field="assets",
            )
    if cls == "agent":
        _check_follower(name, terms, location, bases)


def _check_follower(name: str, terms: Mapping[str, Any], location: str | None, bases: Sequence[str] | None) -> None:
    """[003:101] a follower works as if based in any claimed town (a City), any influenced hex (a Conspiracy),
    or moves with its Champion: the action must be within its mobility of one of those (P-ASSET-5)."""
    if not terms.get("follower") or not location or bases is None:
        return
    reach = int(terms.get("mobility", DEFAULT_AGENT_MOBILITY))
    if not any(hexmap.distance(b, location) <= reach for b in bases):
        raise RuleViolation(
            f"{name!r} is a follower: it works within {reach} hexes of where you are based, and {location} is not",
            rule="P-ASSET-5",
            field="assets",
        )


CHAMPION_ITEMS = 3  # [003:541] "apart from Champions, which can use three differently named items"
ARTIFICE_ITEMS = 2  # [003:1314] Master of Artifice: "You can personally wield two more magic items."


def check_wield(name: str, wielded: Sequence[str], *, champion: bool, artifice: bool) -> None:
    """One more item for a wielder who already wields items named ``wielded`` (P-ASSET-8): a wielder benefits from
    a single item at a time; a champion personally from three differently named ones, two more with Master of
    Artifice."""
    limit = CHAMPION_ITEMS + (ARTIFICE_ITEMS if artifice else 0) if champion else 1
    if len(wielded) >= limit:
        raise RuleViolation(
            f"this wielder already benefits from {len(wielded)} item{'s' if len(wielded) != 1 else ''}, its limit "
            f"[003:541]; free its hands first",
            rule="P-ASSET-8",
            field="wielder",
        )
    if champion and name.strip().lower() in {n.strip().lower() for n in wielded}:
        raise RuleViolation(
            f"a champion uses differently named items, and already wields a {name!r} [003:541]",
            rule="P-ASSET-8",
            field="asset_id",
        )


def fee_due(cls: str, terms: Mapping[str, Any], power_id: str) -> int:
    """The fee an agent, industry or army charges this power each time it acts (P-ASSET-5, P-ASSET-6):
    none if it is loyal to the power."""
    if cls not in ("agent", "industry", "army"):
        return 0
    if terms.get("loyal_to") == power_id:
        return 0
    return int(terms.get("fee", 0))


# ---------------------------------------------------------------------- P.2.12: class actions


@dataclass(frozen=True)
class ClassAction:
    """One class-specific action as data: who may take it, its cost, its difficulty formula, its checks and
    what it yields (P.2.12). ``inputs`` are the parameters the formula reads; ``declared`` those that come
    from map, wallet or mana data this module does not hold (the submitter states them; the GM may
    overrule the difficulty)."""

    name: str
    who: tuple[str, ...]  # subclasses, or a class name, or a perk ("perk:health_drive")
    source: str
    difficulty: Callable[[dict[str, Any]], int]
    formula: str
    cost: str = ""
    resistible: bool = False
    public: bool = False  # announced publicly whatever the slot
    per_target: bool = False
    kinds: tuple[str, ...] = ()  # what the challenge is, for perks that ignore consequences (P-DICE-12)
    inputs: tuple[str, ...] = ()
    declared: tuple[str, ...] = ()
    skill: str | None = None
    yields: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] = field(default=lambda p, r: {})


def _int(params: Mapping[str, Any], key: str, *, lo: int = 0, hi: int = 1000) -> int:
    v = params.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise RuleViolation(f"params.{key} is a whole number from {lo} to {hi}", rule="P.2.12", field=f"params.{key}")
    return v


def march_cost(steps: Sequence[Mapping[str, Any]]) -> float:
    """Movement points a March spends over ``steps`` (each ``{rough, road}``): rough doubles, roads halve."""
    total = 0.0
    for s in steps:
        c = 2.0 if s.get("rough") else 1.0
        total += c / 2 if s.get("road") else c
    return total


def _march(p: dict[str, Any]) -> int:
    steps = p.get("steps")
    if not isinstance(steps, list) or not steps:
        raise RuleViolation("a March lists the hexes it crosses as steps", rule="P.2.12", field="params.steps")
    cost = int(march_cost(steps))  # P-AMB-27: halving (roads) rounds down
    mobilities = p.get("mobilities")
    if not isinstance(mobilities, list) or not mobilities or not all(isinstance(m, int) for m in mobilities):
        raise RuleViolation(
            "a March gives the mobility of yourself and each army moved", rule="P.2.12", field="params.mobilities"
        )
    # [003:1390] each piece moved beyond its mobility raises the difficulty by the difference.
    return sum(max(0, cost - m) for m in mobilities)


def _wander(p: dict[str, Any]) -> int:
    path = p.get("path")
    if not isinstance(path, list) or not path or not all(isinstance(h, str) for h in path):
        raise RuleViolation("a Wander lists the hexes it moves through", rule="P.2.12", field="params.path")
    for h in path:
        hexmap.parse_hex(h)
    mobility = int(p.get("mobility", 6))
    return max(0, len(path) - mobility)


def _wander_yields(p: dict[str, Any], r: dict[str, Any]) -> dict[str, Any]:
    # [003:1304] a point of movement once per hex gains a mana of that hex's type.
    if not r["success"]:
        return {}
    harvest = [h for h in p.get("harvest", []) if h in p["path"]]
    return {"mana_from_hexes": sorted(set(harvest))}


def _coming_of_age(p: dict[str, Any]) -> int:
    return max(0, 4 - _int(p, "seasons_since_last"))


def _saboteurs(p: dict[str, Any]) -> int:
    return 2 + 2 * _int(p, "earlier_uses") + (1 if p.get("molotovs") else 0)


CLASS_ACTIONS: dict[str, ClassAction] = {
    a.name: a
    for a in (
        ClassAction(
            "annex",
            ("city",),
            "[003:965]",
            lambda p: _int(p, "towns_claimed"),
            "the number of towns you already claim",
            resistible=True,
            inputs=("towns_claimed", "town"),
            declared=("towns_claimed",),
            yields=lambda p, r: {"claim": p.get("town")} if r["success"] else {},
        ),
        ClassAction(
            "channel",
            ("city",),
            "[003:967]",
            lambda p: 0,
            "0; one mana of the town's element per season since it was last channelled there",
            inputs=("town",),
            yields=lambda p, r: {"mana": p["seasons_since_last"], "town": p.get("town")},
        ),
        ClassAction(
            "coming_of_age",
            ("sovereign",),
            "[003:1009]",
            _coming_of_age,
            "4 - seasons since you last used it (or since the start of the epic), at least 0",
            kinds=("negotiation",),
            skill="negotiation",
            yields=lambda p, r: {"heir": 1} if r["success"] else {},
        ),
        ClassAction(
            "grand_knighting",
            ("sovereign",),
            "[003:1011]",
            lambda p: int(p.get("guard_rank", 0)),
            "the rank of your current royal guard, if any",
            kinds=("negotiation",),
            skill="negotiation",
            inputs=("army", "army_rank"),
            yields=lambda p, r: {"royal_guard": p.get("army"), "rank": p.get("army_rank")} if r["success"] else {},
        ),
        ClassAction(
            "reform",
            ("celestial",),
            "[003:1052]",
            lambda p: 0,
            "0; regain a unit (max 6) with one wound, then remove wounds equal to the successes",
            inputs=("units",),
            declared=("units",),
            yields=lambda p, r: {
                "units_gained": 1 if _int(p, "units", hi=6) < 6 else 0,
                "wounds_removed": r["successes"],
            },
        ),
        ClassAction(
            "recruit_mercenaries",
            ("overlord",),
            "[003:1094]",
            lambda p: _int(p, "size", lo=1) + _int(p, "mercenary_armies"),
            "the size plus the number of mercenary armies you control",
            cost="2 coin per unit",
            kinds=("negotiation",),
            skill="negotiation",
            inputs=("size", "mercenary_armies", "capitol_population"),
            declared=("mercenary_armies", "capitol_population"),
            yields=lambda p, r: {"army_size": p["size"], "rank": 2, "coin": 2 * p["size"]} if r["success"] else {},
        ),
        ClassAction(
            "reshape_the_land",
            ("circle",),
            "[003:1173]",
            lambda p: 4 if p.get("in_town") else 2,
            "4 in a town, 2 in the wilderness",
            cost="3 influence",
            resistible=True,
            inputs=("hex", "in_town"),
            declared=("in_town",),
        ),
        ClassAction(
            "hidden_runes",
            ("circle",),
            "[003:1175]",
            lambda p: _int(p, "rank", lo=1, hi=20),
            "the rune's rank",
            cost="mana of the rune's rank, of the terrain's element",
            skill="subtlety",
            inputs=("hex", "rank"),
            yields=lambda p, r: {"rune": {"hex": p["hex"], "rank": p["rank"]}} if r["success"] else {},
        ),
        ClassAction(
            "uplift_master",
            ("circle",),
            "[003:1177]",
            lambda p: max(0, 4 - int(p.get("converted_rank", 0))),
            "4 - the rank of a willing follower or agent converted",
            cost="AW",
            yields=lambda p, r: {"master": 1} if r["success"] else {},
        ),
        ClassAction(
            "sacrificial_summoning",
            ("cult",),
            "[003:1224]",
            lambda p: max(0, _int(p, "army_size", lo=1) - _int(p, "army_rank", lo=1)),
            "the sacrificed army's size minus its rank",
            cost="FW",
            kinds=("summoning",),
            inputs=("army", "army_size", "army_rank"),
            declared=("army_size", "army_rank"),
            yields=lambda p, r: {"finger_army_size": p["army_size"]} if r["success"] else {},
        ),
        ClassAction(
            "rise_fingers",
            ("cult",),
            "[003:1230]",
            lambda p: 1,
            "1; the new army's size is the excess successes, at most the units slain",
            cost="FW",
            kinds=("summoning",),
            inputs=("hex", "units_slain"),
            declared=("units_slain",),
            yields=lambda p, r: {"finger_army_size": min(r["excess"], _int(p, "units_slain"))} if r["success"] else {},
        ),
        ClassAction(
            "riot_shaping",
            ("cause",),
            "[003:1260]",
            lambda p: 1 + int(p.get("harm", 0)),
            "1, plus anything you have done to harm the town's denizens (the GM's judgement, GM-25)",
            inputs=("town",),
        ),
        ClassAction(
            "saboteurs",
            ("cause",),
            "[003:1262], [003:1270], P-AMB-38",
            _saboteurs,
            "2, +2 for each earlier use this season, +1 with Molotovs' Burn",
            cost="2 influence",
            skill="subtlety",
            inputs=("hex",),
            yields=lambda p, r: {"attack": f"Xd10, X your influence in {p.get('hex')}"} if r["success"] else {},
        ),
        ClassAction(
            "loyalist_levy",
            ("cause",),
            "[003:1264]",
            lambda p: 3,
            "3; size at most your influence in the town",
            cost="coin equal to the army's size",
            inputs=("hex", "size"),
            yields=lambda p, r: {"army_size": p["size"], "rank_up": 1, "coin": p["size"]} if r["success"] else {},
        ),
        ClassAction(
            "commandeer",
            ("champion",),
            "[003:1276]",
            lambda p: 0,
            "0; claimants may resist",
            resistible=True,
            public=True,
            inputs=("town",),
            yields=lambda p, r: {"claim": p.get("town"), "renounce_other_claims": True} if r["success"] else {},
        ),
        ClassAction(
            "wander",
            ("wizard",),
            "[003:1304]",
            _wander,
            "the hexes moved beyond your mobility (6)",
            inputs=("path",),
            yields=_wander_yields,
        ),
        ClassAction(
            "trample_terrain",
            ("dragon",),
            "[003:1337]",
            lambda p: max(0, _int(p, "movement") - int(p.get("mobility", 0))) + _int(p, "opposing_levels"),
            "the movement beyond your mobility, plus the total level of opposing armies in those hexes",
            public=True,
            inputs=("movement", "mobility", "opposing_levels"),
            declared=("opposing_levels",),
        ),
        ClassAction(
            "slaughter",
            ("dragon",),
            "[003:1338]",
            lambda p: _int(p, "uprising") + _int(p, "depopulated") + _int(p, "opposing_units"),
            "Uprising + Depopulated + the units of opposing armies in the town",
            inputs=("town", "uprising", "depopulated", "opposing_units", "population"),
            declared=("uprising", "depopulated", "opposing_units", "population"),
            yields=lambda p, r: (
                {"population": -1, "fear_or_respect": max(0, _int(p, "population") - 1), "uprising": 2}
                if r["success"]
                else {}
            ),
        ),
        ClassAction(
            "sack",
            ("dragon",),
            "[003:1339]",
            lambda p: _int(p, "uprising") + _int(p, "opposing_units"),
            "Uprising + the units of opposing armies in the town",
            inputs=("town", "uprising", "opposing_units", "wealth"),
            declared=("uprising", "opposing_units", "wealth"),
            yields=lambda p, r: (
                {"wealth": -1, "coin": max(0, _int(p, "wealth") - 1), "uprising": 2} if r["success"] else {}
            ),
        ),
        ClassAction(
            "march",
            ("paragon",),
            "[003:1390]",
            _march,
            "for yourself and each army moved beyond its mobility, the difference (rough x2, roads /2)",
            inputs=("steps", "mobilities"),
        ),
        ClassAction(
            "inquisition",
            ("perk:inquisition",),
            "[003:955]",
            lambda p: 0,
            "0; each excess success removes an influence, per target after that target's reaction",
            resistible=True,
            per_target=True,
            inputs=("hex",),
        ),
        ClassAction(
            "health_drive",
            ("perk:health_drive",),
            "[003:947]",
            lambda p: 1,
            "1; 2 respect per success; population +1 if the successes exceed it; once per town a season",
            inputs=("town", "population"),
            declared=("population",),
            yields=lambda p, r: (
                {"respect": 2 * r["successes"], "population": 1 if r["successes"] > _int(p, "population") else 0}
                if r["success"]
                else {}
            ),
        ),
    )
}


def class_action(kind: str, cls: str, subclass: str, options: Mapping[str, Any]) -> ClassAction:
    """The class action ``kind``, if this power may take it (P.2.12)."""
    ca = CLASS_ACTIONS.get(kind)
    if ca is None:
        raise RuleViolation(
            f"there is no class action {kind!r}; they are {', '.join(CLASS_ACTIONS)}", rule="P.2.12", field="kind"
        )
    allowed = any(
        w == subclass or w == cls or (w.startswith("perk:") and options.get(w.removeprefix("perk:"))) for w in ca.who
    )
    if not allowed:
        who = " or ".join(w.removeprefix("perk:") + (" perk" if w.startswith("perk:") else "") for w in ca.who)
        raise RuleViolation(
            f"{kind.replace('_', ' ')} is an action of a {who} {ca.source}", rule="P.2.12", field="kind"
        )
    return ca


def dread_growth(units: int, maximum: int) -> tuple[int, int]:
    """[003:1327] "At the start of each season, during Tidings, gain 1 unit in your army, keeping track of the
    maximum reached. If you are less than the maximum, gain 2 instead." Returns (gain, new maximum)."""
    gain = 2 if units < maximum else 1
    return gain, max(maximum, units + gain)


def price(kind: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """What a class action costs, as amounts the wallets, mana pools and influence map debit (P.2.12); the
    rules' "Cost:" lines. Costs are paid at the start of the action ([003:28])."""
    if kind == "recruit_mercenaries":
        return {"coin": 2 * int(params["size"])}
    if kind == "loyalist_levy":
        return {"coin": int(params["size"])}
    if kind in ("reshape_the_land", "saboteurs"):
        return {"influence": {"hex": params["hex"], "amount": 3 if kind == "reshape_the_land" else 2}}
    if kind == "hidden_runes":
        return {"mana": {"element_of": params["hex"], "amount": int(params["rank"])}}
    if kind == "uplift_master":
        return {"mana": {"A": 1, "W": 1}}
    if kind in ("sacrificial_summoning", "rise_fingers"):
        return {"mana": {"F": 1, "W": 1}}
    return {}


def mana_cost(price_: Mapping[str, Any], element: str | None = None) -> str | None:
    """A class action's mana price as a P-MAG-2 cost (``<generic><element letters>``), or None if it costs no
    mana: Uplift Master ``AW`` ([003:1177]); Sacrificial Summoning and Rise, Fingers ``FW`` ([003:1224],
    [003:1230]); Hidden Runes "mana of the rune's rank matching the terrain's element" ([003:1175]), so
    ``EE`` for a rank 2 rune in an Earth hex. ``element`` is the hex's element as the GM declared it on the
    map (the rules name no element per terrain, [003:1129]). Decision: where the map gives the hex no
    element (or there is no map) the rune's mana is generic, ``2`` for rank 2: the service cannot tell which
    element matches, and the GM can still rule on it."""
    mana = price_.get("mana")
    if not mana:
        return None
    if "element_of" in mana:
        amount = int(mana["amount"])
        return element * amount if element else str(amount)
    return "".join(e * int(n) for e, n in sorted(mana.items()))


@dataclass(frozen=True)
class Standing:
    """What the catalogue knows of a power when it takes a class action: its influence per hex, and the
    counters the catalogue keeps (heirs, masters, runes, uses this season, seasons since a last use)."""

    season: int
    influence: Mapping[str, int]
    heirs: int = 0
    masters: int = 0
    runes: Mapping[str, int] = field(default_factory=dict)
    saboteurs_this_season: int = 0
    last_coming_of_age: int = 0  # the season of the last use; 0 = the start of the epic (P-AMB-28)
    last_channel: int = 0
    health_drives: Sequence[str] = ()  # towns driven this season
    royal_guard_rank: int = 0
    towns_claimed: int | None = None  # from the map's claims (P-TOWN-1) when the GM has declared towns


def prepare(kind: str, params: Mapping[str, Any], options: Mapping[str, Any], st: Standing) -> dict[str, Any]:
    """Check a class action's own limits and fill in the inputs the catalogue computes (P.2.12). Returns
    the parameters the difficulty formula reads."""
    p = dict(params)
    step = _PREPARE.get(kind)
    if step is not None:
        step(p, options, st)
    return p


def _prepare_annex(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    if st.towns_claimed is not None:
        p["towns_claimed"] = st.towns_claimed  # the map knows: what the submitter said does not count


def _prepare_coming_of_age(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    cap = 5 if options.get("big_family") else 3
    if st.heirs >= cap:
        raise RuleViolation(f"you have {st.heirs} heirs, the most you may have", rule="P.2.12", field="kind")
    p["seasons_since_last"] = max(0, st.season - st.last_coming_of_age)


def _prepare_channel(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    p["seasons_since_last"] = max(0, st.season - st.last_channel)


def _prepare_grand_knighting(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    p["guard_rank"] = st.royal_guard_rank


def _prepare_uplift_master(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    cap = 4 if options.get("many_masters") else 3
    if st.masters >= cap:
        raise RuleViolation(f"you have {st.masters} masters, the most you may have", rule="P.2.12", field="kind")


def _prepare_hidden_runes(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    hex_id = _hex(p)
    rank = _int(p, "rank", lo=1, hi=20)
    have = int(st.influence.get(hex_id, 0))
    if have < 1 or rank > have:
        raise RuleViolation(
            f"a rune's rank is at most your influence in its hex: you have {have} in {hex_id} [003:1175]",
            rule="P.2.12",
            field="params.rank",
        )
    if hex_id in st.runes:
        raise RuleViolation("each hex can have at most one of your runes [003:1161]", rule="P.2.12", field="params.hex")


def _prepare_saboteurs(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    hex_id = _hex(p)
    if int(st.influence.get(hex_id, 0)) < 2:
        raise RuleViolation(
            f"Saboteurs cost 2 influence in the hex; you have {int(st.influence.get(hex_id, 0))} in {hex_id}",
            rule="P.2.12",
            field="params.hex",
        )
    p["earlier_uses"] = st.saboteurs_this_season
    if p.get("molotovs") and not options.get("molotovs"):
        raise RuleViolation("Burn damage needs the Molotovs perk [003:1270]", rule="P.2.12", field="params.molotovs")


def _prepare_reshape_the_land(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    hex_id = _hex(p)
    if int(st.influence.get(hex_id, 0)) < 3:
        raise RuleViolation(
            f"Reshape the Land costs 3 influence; you have {int(st.influence.get(hex_id, 0))} in {hex_id}",
            rule="P.2.12",
            field="params.hex",
        )


def _prepare_loyalist_levy(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    hex_id = _hex(p)
    size = _int(p, "size", lo=1)
    have = int(st.influence.get(hex_id, 0))
    if size > have:
        raise RuleViolation(
            f"a Loyalist Levy's size is at most your influence in the town: {have} in {hex_id} [003:1264]",
            rule="P.2.12",
            field="params.size",
        )


def _prepare_recruit_mercenaries(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    size = _int(p, "size", lo=1)
    most = _int(p, "capitol_population") // 2  # P-AMB-27: halves round down
    if size > most:
        raise RuleViolation(
            f"mercenaries number at most half your capitol's population: {most} [003:1094]",
            rule="P.2.12",
            field="params.size",
        )


def _prepare_health_drive(p: dict[str, Any], options: Mapping[str, Any], st: Standing) -> None:
    town = p.get("town")
    if not isinstance(town, str) or not town:
        raise RuleViolation("a Health Drive names its town", rule="P.2.12", field="params.town")
    if town in st.health_drives:
        raise RuleViolation(
            f"Health Drive is usable once per town per season; {town} had one [003:947]",
            rule="P.2.12",
            field="params.town",
        )


# Each class action's own limits and inputs, by its kind.
_PREPARE: dict[str, Callable[[dict[str, Any], Mapping[str, Any], Standing], None]] = {
    "annex": _prepare_annex,
    "coming_of_age": _prepare_coming_of_age,
    "channel": _prepare_channel,
    "grand_knighting": _prepare_grand_knighting,
    "uplift_master": _prepare_uplift_master,
    "hidden_runes": _prepare_hidden_runes,
    "saboteurs": _prepare_saboteurs,
    "reshape_the_land": _prepare_reshape_the_land,
    "loyalist_levy": _prepare_loyalist_levy,
    "recruit_mercenaries": _prepare_recruit_mercenaries,
    "health_drive": _prepare_health_drive,
}


def _hex(p: Mapping[str, Any]) -> str:
    hex_id = p.get("hex")
    if not isinstance(hex_id, str):
        raise RuleViolation("name the hex as q,r", rule="P.2.12", field="params.hex")
    hexmap.parse_hex(hex_id)
    return hex_id
