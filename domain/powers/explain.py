"""How a resolved action came about (issue 29), from the events one viewer was shown (``domain.platform.explain``).

An action's result (``action:<id>``: its ``ActionResolved``, or its ``ActionProvisional`` while resistance is open) is
derived step by step: its dice (roll number, faces, proof) and assets, each asset's successes (P-DICE-3, P-DICE-6,
P-DICE-7), undercut assets (P-ASSET-13), what collaborators added (P-DICE-11), the resistance (P-RES-4), the difficulty
(a sealed one opened against its commitment, GM-2), and the success test and excess (P-DICE-4) as the rules version in
force when the action resolved has it (a game that adopted a house version resolves by it from the adoption on:
``redecide.in_force``). What the viewer was not shown (a private action's dice, for its target; another power's
reaction) is listed as withheld."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from domain.dice import seal_difficulty
from domain.platform.explain import Derivation, Events, InForce
from domain.platform.i18n import N_
from domain.powers import rules
from domain.powers.explain_battle import derive as battle_rounds
from domain.powers.redecide import in_force


@dataclass
class _Action:
    """What the viewer's events say of one action, as they are read."""

    submitted: Mapping[str, Any] | None = None
    pool: Mapping[str, Any] | None = None  # DiceRolled's pool
    pool_seq: int | None = None
    converted: list[int] | None = None
    undercut: dict[str, int | None] = field(default_factory=dict)  # asset id -> the seq that undercut it
    declared: tuple[int, int | None] | None = None  # (value, seq)
    committed: tuple[str, int | None] | None = None  # (commitment, seq)
    revealed: tuple[Mapping[str, Any], int | None] | None = None
    reactions: dict[str, dict[str, Any]] = field(default_factory=dict)
    result: Mapping[str, Any] | None = None  # ActionProvisional or ActionResolved, as the event stands
    version: str | None = None  # the rules version the result was recorded under (None: the game's first)


def _read(events: Events) -> tuple[dict[str, _Action], str]:
    actions: dict[str, _Action] = {}
    critical_mode = "rolled"
    by_reaction: dict[str, str] = {}
    versions = InForce()
    for e in events:
        kind, data, seq = e.get("type"), e.get("data") or {}, e.get("seq")
        version = versions.read(e)
        if kind == "GameCreated":
            critical_mode = (data.get("options") or {}).get("critical_mode", critical_mode)
        if kind in ("ReactionConversionsLocked",) and data.get("reaction_id") in by_reaction:
            r = actions[by_reaction[data["reaction_id"]]].reactions[data["reaction_id"]]
            r["converted"], r["locked_seq"] = list(data.get("converted") or []), seq
            continue
        action_id = data.get("action_id")
        if not isinstance(action_id, str):
            continue
        a = actions.setdefault(action_id, _Action())
        if kind == "ActionSubmitted":
            a.submitted = {**data, "seq": seq}
        elif kind == "DiceRolled":
            a.pool, a.pool_seq = data.get("pool"), seq
            locked = [i for i, d in enumerate((a.pool or {}).get("dice", [])) if d.get("converted")]
            a.converted = locked if (a.pool or {}).get("locked") else None
        elif kind == "ConversionsLocked":
            a.converted = list(data.get("converted") or [])
        elif kind == "AssetUndercut":
            a.undercut[data["asset_id"]] = seq
        elif kind == "DifficultyDeclared":
            a.declared, a.committed, a.revealed = (data["value"], seq), None, None
        elif kind == "DifficultyCommitted":
            a.committed, a.declared = (data["commitment"], seq), None
        elif kind == "DifficultyRevealed":
            a.revealed = (data, seq)
        elif kind == "ReactionDeclared":
            by_reaction[data["reaction_id"]] = action_id
            dice = (data.get("pool") or {}).get("dice", [])
            converted = [k for k, die in enumerate(dice) if die.get("converted")]
            a.reactions[data["reaction_id"]] = {
                "power": data["power_id"],
                "pool": data["pool"],
                "seq": seq,
                "converted": converted,
            }
        elif kind in ("ActionProvisional", "ActionResolved"):
            a.result, a.version = {**data, "type": kind, "seq": seq}, version
    return actions, critical_mode


def derive(events: Events) -> dict[str, dict[str, Any]]:
    """Every action result and battle round these events show their viewer, derived (``Ruleset.derive``)."""
    actions, critical_mode = _read(events)
    out = battle_rounds(events)
    for action_id, a in actions.items():
        if a.result is not None:
            d = _action(action_id, a, critical_mode)
            out[d.result_id] = d.as_dict()
    return out


def _action(action_id: str, a: _Action, critical_mode: str) -> Derivation:
    res = a.result or {}
    details = res.get("details") or {}
    sub = a.submitted or {}
    title = str(sub.get("title") or details.get("title") or action_id)
    d = Derivation(f"action:{action_id}", "action", title, {"seq": res["seq"], "type": res["type"]})
    d.provisional = res["type"] == "ActionProvisional"
    successes = _successes(d, a, res, details, critical_mode)
    net = _resistance(d, a, res, successes)
    difficulty = _difficulty(d, a, res)
    ok, excess = _success(d, net, difficulty, a.version)
    if d.provisional:
        published = {"successes": res["successes"], "difficulty": res["difficulty"]}
        d.result = {"published": published, "steps": {"successes": successes, "difficulty": difficulty}}
        d.withheld.append(N_("the resistance: its window is open, and the result is provisional (P-RES-5)"))
    else:
        published = {k: res[k] for k in ("successes", "net", "difficulty", "success", "excess")}
        d.result = {
            "published": published,
            "steps": {"successes": successes, "net": net, "difficulty": difficulty, "success": ok, "excess": excess},
        }
        if res.get("tier"):
            d.result["tier"] = res["tier"]
    return d


def _success(d: Derivation, net: str, difficulty: str, version: str | None) -> tuple[str, str]:
    """The success test and the excess (P-DICE-4), as the rules version in force has them: as printed, the net
    successes reach the difficulty; a house version may ask for more (``VersionRules.margin``)."""
    rules_v = in_force(version)
    if not rules_v.margin:
        reached = bool(d.value(net) >= d.value(difficulty))
        says = N_("succeeds if the net successes reach the difficulty")
        ok = d.step("success", rules_v.rule, says, "at_least", [net, difficulty], reached)
        beyond = max(0, d.value(net) - d.value(difficulty))
        says = N_("successes beyond the difficulty")
        return ok, d.step("excess", rules_v.rule, says, "minus_floor0", [net, difficulty], beyond)
    says = N_("the net successes needed under the rules version {version}: the difficulty and {margin} more")
    value = d.value(difficulty) + rules_v.margin
    needed = d.step(
        "needed", rules_v.rule, says, "sum", [difficulty, rules_v.margin], value, version=version, margin=rules_v.margin
    )
    says = N_("succeeds if the net successes reach the successes needed")
    ok = d.step("success", rules_v.rule, says, "at_least", [net, needed], bool(d.value(net) >= value))
    says = N_("successes beyond those needed")
    return ok, d.step("excess", rules_v.rule, says, "minus_floor0", [net, needed], max(0, d.value(net) - value))


def _successes(d: Derivation, a: _Action, res: Mapping[str, Any], details: Mapping[str, Any], mode: str) -> str:
    """The action's successes: from its dice where the viewer was shown them, else as published."""
    published = int(res["successes"])
    pool = a.pool or (details if details.get("faces") is not None and "roll_no" in details else None)
    if pool is None:
        d.withheld.append(N_("the action's dice and assets: you were shown its result only (P.4)"))
        return d.given("successes", "P-DICE-3", N_("successes, as published"), published, res["seq"])
    seq = a.pool_seq if a.pool is not None else res["seq"]
    if a.pool is None:  # a public action's dice, as Resolution published them: faces and conversions, no grouping
        i = d.roll(N_("the action's dice"), pool, seq)
        converted = list(details.get("converted") or [])
        return _tally_flat(d, i, converted, details, published, seq)
    i = d.roll(N_("the action's dice"), _with_faces(pool), seq)
    converted = a.converted if a.converted is not None else []
    refs = []
    for n, pa in enumerate(pool.get("assets", [])):
        dice = [k for k, die in enumerate(pool.get("dice", [])) if die.get("asset") == pa["asset_id"]]
        refs.extend(_group(d, n, pa, i, dice, converted, a, mode, seq))
    if len(refs) == 1:
        return _shared(d, refs[0], published, res["seq"])
    own = d.step("own", "P-DICE-2", N_("the pool's successes"), "sum", refs, sum(d.value(r) for r in refs))
    return _shared(d, own, published, res["seq"])


def _with_faces(pool: Mapping[str, Any]) -> dict[str, Any]:
    """A pool as its events carry it (a die an object), with its faces in a list, as a roll shows them."""
    return {**pool, "faces": [die["face"] for die in pool.get("dice", [])]}


def _counted(d: Derivation, prefix: str, roll: int, dice: list[int], converted: list[int], **who: Any) -> list[str]:
    """The 5s and 6s of these dice, and their converted 3s and 4s (P-DICE-3), as two steps."""
    faces = d.dice[roll]["faces"]
    conv = [k for k in converted if k in dice and 0 <= k < len(faces)]
    says = N_("{who}: 5s and 6s")
    fives = d.step(
        f"{prefix}-fives",
        "P-DICE-3",
        says,
        "count",
        {"roll": roll, "dice": dice, "faces": [5, 6]},
        sum(1 for k in dice if faces[k] >= 5),
        **who,
    )
    says = N_("{who}: 3s and 4s converted, a consequence each")
    turned = d.step(
        f"{prefix}-converted",
        "P-DICE-3",
        says,
        "count",
        {"roll": roll, "dice": conv, "faces": [3, 4]},
        sum(1 for k in conv if faces[k] in (3, 4)),
        **who,
    )
    return [fives, turned]


def _group(
    d: Derivation,
    n: int,
    pa: Mapping[str, Any],
    roll: int,
    dice: list[int],
    converted: list[int],
    a: _Action,
    mode: str,
    seq: int | None,
) -> list[str]:
    """One asset's successes (P-DICE-3; assured P-DICE-6; critical P-DICE-7 as P-AMB-5); none when undercut."""
    who, rank = f"{pa['name']} ({pa['cls']} {pa['rank']})", int(pa["rank"])
    if pa["asset_id"] in a.undercut:
        says = N_("{who}: undercut, its dice removed")
        d.given(f"a{n}-undercut", "P-ASSET-13", says, 0, a.undercut[pa["asset_id"]], who=who)
        return []
    if pa.get("mode") == "assured":
        return [d.given(f"a{n}", "P-DICE-6", N_("{who}: assured, its rank in automatic successes"), rank, seq, who=who)]
    fives, turned = _counted(d, f"a{n}", roll, dice, converted, who=who)
    total = d.value(fives) + d.value(turned)
    group = d.step(f"a{n}", "P-DICE-3", N_("{who}: successes"), "sum", [fives, turned], total, who=who)
    if pa.get("mode") != "critical":
        return [group]
    if mode == "rank":
        return [
            d.given(f"a{n}-critical", "P-AMB-5", N_("{who}: critical, three times its rank"), 3 * rank, seq, who=who)
        ]
    says = N_("{who}: critical, three times its successes")
    return [d.step(f"a{n}-critical", "P-DICE-7", says, "times", [group, 3], 3 * total, who=who)]


def _tally_flat(
    d: Derivation, roll: int, converted: list[int], details: Mapping[str, Any], published: int, seq: int | None
) -> str:
    """A public action's successes from its published dice: 5s and 6s, converted 3s and 4s, then what its assets'
    modes add (assured, critical, collaborators) as one term."""
    every = list(range(len(d.dice[roll]["faces"])))
    fives, turned = _counted(d, "dice", roll, every, converted, who=d.dice[roll]["label"])
    own = d.step(
        "own", "P-DICE-3", N_("successes on the dice"), "sum", [fives, turned], d.value(fives) + d.value(turned)
    )
    for pa in details.get("assets", []):
        if pa.get("undercut"):
            says = N_("{who}: undercut, its dice removed")
            d.given(f"undercut-{pa['name']}", "P-ASSET-13", says, 0, seq, who=str(pa["name"]))
    return _shared(d, own, published, seq, flat=True)


def _shared(d: Derivation, own: str, published: int, seq: int | None, flat: bool = False) -> str:
    """The published successes: the pool's own, plus what else the rules added (collaborators' pools, P-DICE-11)."""
    extra = published - d.value(own)
    if not extra:
        return own
    shown = d.given("published", "P-DICE-3", N_("successes, as published"), published, seq)
    if flat:
        says, rule = (
            N_(
                "added by assured and critical assets, undercut dice and collaborators: the published "
                "successes less the dice's"
            ),
            "P-DICE-6",
        )
    else:
        says, rule = N_("added by the collaborators' pools: the published successes less the pool's"), "P-DICE-11"
    added = d.step("added", rule, says, "minus", [shown, own], extra)
    return d.step("successes", "P-DICE-3", N_("successes"), "sum", [own, added], published)


def _resistance(d: Derivation, a: _Action, res: Mapping[str, Any], successes: str) -> str:
    """Net successes after resistance (P-RES-4); each reaction the viewer was shown, with its dice."""
    if res["type"] == "ActionProvisional":
        return successes
    resisted = int(res.get("resisted") or 0)
    if not resisted and not a.reactions and int(res["net"]) == d.value(successes):
        return successes  # nobody resisted: the net successes are the successes (P-RES-4)
    shown = 0
    for reaction_id, r in sorted(a.reactions.items(), key=lambda kv: kv[1]["seq"] or 0):
        i = d.roll(N_("resistance by {power}"), _with_faces(r["pool"]), r["seq"], power=r["power"])
        every = [k for k, die in enumerate(r["pool"].get("dice", [])) if not die.get("removed")]
        fives, turned = _counted(d, reaction_id, i, every, r.get("converted") or [], who=d.dice[i]["label"])
        shown += d.value(fives) + d.value(turned)
    says = N_("successes of the resistance, as published")
    total = d.given("resisted", "P-RES-4", says, resisted, res["seq"])
    if not a.reactions and resisted:
        d.withheld.append(N_("the resisters' dice: each reaction is its resister's and the GM's (P.4)"))
    elif a.reactions and shown != resisted:
        d.withheld.append(
            N_("part of the resistance: assured or critical assets, or reactions you were not shown (P.4)")
        )
    net = int(res["net"])
    if net == rules.net_successes(d.value(successes), [resisted]):
        says = N_("net successes: the successes less the resistance, at least 0")
        return d.step("net", "P-RES-4", says, "minus_floor0", [successes, total], net)
    # An action with an effect per target (P-AMB-7), or a ritual warded off (P-RES-6): its net as published.
    says = N_("net successes, the resistance applied per target or as a ward, as published")
    return d.given("net", "P-AMB-7", says, net, res["seq"])


def _difficulty(d: Derivation, a: _Action, res: Mapping[str, Any]) -> str:
    """The difficulty the action faced: declared, or sealed and opened against its commitment (GM-2)."""
    value = int(res["difficulty"])
    if a.revealed is not None:
        opened, seq = a.revealed
        if seal_difficulty(int(opened["value"]), str(opened["nonce"])) == opened["commitment"]:
            says = N_("a sealed difficulty, opened: it matches the commitment the GM made before the roll")
        else:
            says = N_("a sealed difficulty, opened: it DOES NOT match its commitment")
        return d.given("difficulty", "GM-2", says, value, seq)
    if a.declared is not None:
        return d.given("difficulty", "GM-2", N_("the difficulty the GM declared"), value, a.declared[1])
    return d.given("difficulty", "P-DICE-1", N_("the difficulty"), value, res["seq"])
