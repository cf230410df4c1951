"""Actions aimed at the world (P-ACT-4): a Planning action is aimed (``aim_action``) at a dungeon floor, a ruin, a
town action (P-TOWN-2), an Infiltrate, Workers, Unite! or Channel Influence (P-INFL-6), or a stronghold module
(P-FEAT-3), so the rules set its difficulty where they give a formula; a town action's difficulty follows the town
as the queue leaves it. The GM rules an action subtle against a stronghold (GM-22)."""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from typing import TYPE_CHECKING, Any

from domain import limits
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.powers import world_rules as wr
from domain.powers import world_view as view
from domain.powers.world_base import (
    WorldEvent,
    claimant,
    feature,
    has_perk,
    hex_of,
    map_hex,
    record,
    town,
    whole,
)
from domain.powers.world_influence import influence_payment, pay_influence
from domain.powers.world_state import Aim, Built, TownEffect

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, GameState, PowerState
    from domain.powers.world_state import Town

AIMS = ("delve", "clear", "town", "infiltrate", "module", "workers_unite", "channel")
GM_FACTS = ("new_resources", "excess_mobility", "rooted_agent_ranks", "agents_died")

# A town action's plan: its difficulty, who may resist it, and its effect on the town.
Plan = tuple[int, list[str], TownEffect]


def aim_action(
    game: Game,
    action_id: str,
    aim: str,
    *,
    feature_id: str | None = None,
    town_id: str | None = None,
    floor: int | None = None,
    kind: str | None = None,
    params: dict[str, Any] | None = None,
    actor: str | None = None,
) -> None:
    """Say what a Planning action is aimed at, so the rules can set its difficulty and record its effect:
    a dungeon floor (``delve``), a ruin (``clear``), a town action (``town``, P-TOWN-2), ``infiltrate``
    (P-INFL-6) or a stronghold ``module`` (P-FEAT-3)."""
    s = game.state
    a = game.action(action_id)
    check_aimable(s.step, a, s.world.aims.get(action_id), aim, actor)
    params = dict(params or {})
    aimed: Aim = {"aim": aim, "power": a.power}
    difficulty, resisters = _plan(game, a, aim, feature_id, town_id, floor, kind, params, aimed, actor)
    record(game, ActionAimed, action_id=action_id, aim=aimed, actor=actor or a.power, audience=game._audience(a))
    if aimed.get("paid"):
        # The cost is paid when the action is taken ([003:28]); influence by the rule of P-INFL-2 or the
        # action's own text (Channel Influence: 1 at each of its locations).
        pay_influence(game, a, aimed["paid"], actor or a.power)
    if difficulty is not None:
        game._difficulty_declared(
            action_id=action_id,
            value=difficulty,
            tiers={},
            after_roll=a.pool is not None,
            actor=SYSTEM,
            audience=game._audience(a),
        )
    if resisters:
        game._ruling_issued(
            action_id=action_id, resistible=True, targets=resisters, actor=SYSTEM, audience=game._audience(a)
        )
    if aim == "infiltrate":
        t = s.world.towns[town_id or ""]
        told = sorted({*view.claim_watchers(s, town_id or ""), *(c["power"] for c in t["claims"].values())} - {a.power})
        if told:
            record(
                game,
                InfiltrationAnnounced,
                town_id=town_id or "",
                power_id=a.power,
                power_name=s.powers[a.power].name,
                actor=SYSTEM,
                audience=vis.powers(told),
            )


def _plan(
    game: Game,
    a: ActionState,
    aim: str,
    feature_id: str | None,
    town_id: str | None,
    floor: int | None,
    kind: str | None,
    params: dict[str, Any],
    aimed: Aim,
    actor: str | None,
) -> tuple[int | None, list[str]]:
    """Check what the action is aimed at and fill in its record: its difficulty where the rules give one, and
    who may resist it."""
    s = game.state
    if aim in ("delve", "clear", "module"):
        f = feature(s, feature_id or "")
        if not view.sees_feature(s, feature_id or "", a.power):
            raise NotFound(f"no feature {feature_id!r} on the map", field="feature_id")
        at(a, f["hex"])
        aimed["feature_id"] = feature_id or ""
        return wr.feature_aim(aim, f, a.power, floor, params, aimed), []
    if aim == "workers_unite":
        return _plan_workers_unite(game, a, feature_id or "", params, aimed)
    if aim == "channel":
        _plan_channel(s, a, params, aimed)
        return None, []
    t = town(s, town_id or "")
    at(a, t["hex"])
    if aim == "infiltrate":
        aimed["town_id"] = town_id or ""
        return infiltration(t, a.power, s.powers, s.world.towns)
    aimed.update({"town_id": town_id or "", "kind": str(kind)})
    check_gm_facts(actor, params)
    difficulty, resisters, effect = _town_plan(game, a.power, town_id or "", t, str(kind), params)
    aimed.update({"effect": effect, "difficulty": difficulty})
    if kind == "tax":
        aimed["take"] = params.get("take", "wealth")
    return difficulty, resisters


def _plan_workers_unite(
    game: Game, a: ActionState, feature_id: str, params: dict[str, Any], aimed: Aim
) -> tuple[int, list[str]]:
    """Workers, Unite! (P-INFL-6): an industry in a town the conspiracy claims; cost and difficulty half its
    complexity, rounded down (P-AMB-27); its former loyal power may resist."""
    s = game.state
    f = feature(s, feature_id)
    if s.powers[a.power].cls != "conspiracy":
        raise RuleViolation("Workers, Unite! is a conspiracy action", rule="P-INFL-6", field="action_id")
    if not (f["town"] and wr.feature_type(f["kind"]).industry):
        raise RuleViolation(f"{f['name']!r} is not an industry of a town", rule="P-INFL-6", field="feature_id")
    t: Town = s.world.towns[f["town"]]
    if claimant(t, "conspiracy") != a.power:
        raise RuleViolation(f"Workers, Unite! needs a claim on {t['name']}", rule="P-INFL-6", field="feature_id")
    at(a, f["hex"])
    cost, difficulty = wr.workers_unite(wr.complexity(f["kind"], f["upgrades"], f.get("mount")))
    aimed.update({"feature_id": feature_id, "paid": influence_payment(game, a, cost, params)})
    return difficulty, [f["controller"]] if f["controller"] and f["controller"] != a.power else []


def _plan_channel(s: GameState, a: ActionState, params: dict[str, Any], aimed: Aim) -> None:
    """Channel Influence (P-INFL-6): "Spend 1 Influence at up to 3 locations, generating a mana of the
    terrain element from each." """
    if s.powers[a.power].cls != "conspiracy":
        raise RuleViolation("Channel Influence is a conspiracy action", rule="P-INFL-6", field="action_id")
    hexes = params.get("hexes")
    if not isinstance(hexes, list) or not 1 <= len(hexes) <= 3:
        raise RuleViolation("channel influence at 1 to 3 locations", rule="P-INFL-6", field="params")
    places = [map_hex(s, h, "params", "P-INFL-6") for h in hexes]
    if len(set(places)) != len(places):
        raise RuleViolation("channel at distinct locations", rule="P-INFL-6", field="params")
    held = s.powers[a.power].influence
    for h in places:
        if held.get(h, 0) < 1:
            raise RuleViolation(f"you have no influence in {h} to channel", rule="P-INFL-6", field="params")
        if s.world.hexes[h]["element"] is None:
            raise RuleViolation(f"the GM has given {h} no mana element", rule="P-INFL-6", field="params")
    mana = [e for h in places if (e := s.world.hexes[h]["element"]) is not None]  # each checked above
    aimed.update({"paid": {h: 1 for h in places}, "mana": mana})


def at(a: ActionState, hex_id: str) -> None:
    """The action must be located where its target is (P-ACT-4)."""
    if a.location is None or hex_of(a.location) != hex_id:
        raise RuleViolation(
            f"this action must be located at {hex_id}, where its target is", rule="P-ACT-4", field="location"
        )


def _tax_take(game: Game, power_id: str, town_id: str, params: dict[str, Any]) -> str:
    """What a Tax takes (P-TOWN-2): coin by the town's wealth; coin by its population with Slumlord
    ([003:893]); Fear by its population where a working Prison stands in the town ([003:416])."""
    s = game.state
    take = params.get("take", "wealth")
    if take == "wealth":
        return "wealth"
    if take == "population":
        if s.powers[power_id].options.get("slumlord") or has_perk(game, power_id, "slumlord"):
            return "population"
        raise RuleViolation("taxing by population needs the Slumlord perk [003:893]", rule="P-TOWN-2")
    if take == "fear":
        if any(
            f["kind"] == "prison" and f["town"] == town_id and not view.is_stopped(s, town_id, f)
            for f in s.world.features.values()
        ):
            return "fear"
        raise RuleViolation("taxing in Fear needs a working Prison in the town [003:416]", rule="P-TOWN-2")
    raise RuleViolation("a Tax takes wealth, population (Slumlord) or fear (a Prison)", rule="P-TOWN-2", field="params")


def _town_plan(game: Game, power_id: str, town_id: str, t: Town, kind: str, params: dict[str, Any]) -> Plan:
    """A town action's difficulty, resisters and effect by its formula (P-TOWN-2). Each needs a claim."""
    if kind not in wr.TOWN_ACTIONS:
        raise RuleViolation(f"a town action is one of {', '.join(wr.TOWN_ACTIONS)}", rule="P-TOWN-2", field="kind")
    claimants = {c["power"] for c in t["claims"].values()}
    if power_id not in claimants:
        raise RuleViolation(f"{kind} needs a claim on {t['name']}", rule="P-TOWN-2", field="town_id")
    s = game.state
    w = s.world
    if kind == "tax":
        # Slumlord [003:893]: "Adds 'Uprising' instead of 'Taxed'", on top of the Uprising every Tax adds.
        by_population = _tax_take(game, power_id, town_id, params) == "population"
        statuses = {"uprising": 2} if by_population else {"taxed": 1, "uprising": 1}
        return _rated(s, town_id, kind, {"statuses": statuses})
    if kind == "feed":
        return _rated(s, town_id, kind, {"population": 1})
    if kind == "lay_roads":
        target = map_hex(s, params.get("hex", t["hex"]), "params")
        return wr.roads_difficulty(w.hexes[target]["terrain"]), [], {"road": target}
    if kind == "feast":
        ranks = whole(params.get("rooted_agent_ranks", 0), "params")
        return wr.feast_difficulty(ranks, bool(params.get("agents_died", False))), [], {"feast": True}
    if kind == "trade":
        return _trade_plan(s, power_id, params)
    if kind == "build":
        return _rated(s, town_id, kind, {"build": _build(s, params)})
    fid = str(params.get("feature_id"))
    f = w.features.get(fid)
    if f is None or f["town"] != town_id:
        raise NotFound(f"no feature {fid!r} in {t['name']}", field="params")
    if kind == "upgrade":
        added = [str(u) for u in params.get("upgrades", [])]
        wr.check_upgrades(f["kind"], [*f["upgrades"], *added])
        return _rated(s, town_id, kind, {"upgrade": {"feature_id": fid, "upgrades": added}})
    others = sorted(claimants - {power_id})
    return wr.DEMOLISH_DIFFICULTY, others, {"demolish": fid}


def _trade_plan(s: GameState, power_id: str, params: dict[str, Any]) -> Plan:
    other = town(s, str(params.get("with")))
    mine = {c["power"] for c in other["claims"].values()}
    if not mine:
        raise RuleViolation("an unclaimed town cannot trade", rule="P-TOWN-2", field="params")
    same = power_id in mine
    new = whole(params.get("new_resources", 0), "params", 0, 20)
    excess = whole(params.get("excess_mobility", 0), "params", 0, 50)
    return wr.trade_difficulty(excess, same), [], {"trade": {"with": params["with"], "wealth": new}}


def _build(s: GameState, params: dict[str, Any]) -> Built:
    fkind = str(params.get("feature"))
    upgrades = [str(u) for u in params.get("upgrades", [])]
    wr.check_upgrades(fkind, upgrades)
    fid = limits.check_text(params.get("id"), "params", limits.IDENTIFIER, required=True, what="a feature id")
    if fid in s.world.features:
        raise RuleViolation(f"feature id {fid!r} is taken", rule="P-FEAT-1", field="params")
    name = limits.check_text(params.get("name", fkind), "params", limits.ASSET_NAME, what="a feature's name")
    return {"id": fid, "kind": fkind, "name": name, "upgrades": upgrades, "mount": params.get("mount")}


def _rated(s: GameState, town_id: str, kind: str, effect: TownEffect) -> Plan:
    """A town action the town's own state rates: its difficulty now, no resisters, its effect."""
    return town_difficulty(s, town_id, kind, effect) or 0, [], effect


def town_difficulty(s: GameState, town_id: str, kind: str, effect: TownEffect) -> int | None:
    """A town action's difficulty from the town as it stands now (P-TOWN-2): Tax from its negative statuses,
    Feed from its population and the Feeds taken this season, Build and Upgrade from the features there.
    None for the actions whose difficulty the GM's facts or the terrain set, which the month does not change."""
    w = s.world
    t: Town = w.towns[town_id]
    here = sum(1 for f in w.features.values() if f["town"] == town_id)
    if kind == "tax":
        return wr.tax_difficulty(t["statuses"])
    if kind == "feed":
        return wr.feed_difficulty(t["population"], t["feeds"])
    if kind == "build":
        b = effect["build"]
        return wr.build_difficulty(wr.complexity(b["kind"], b["upgrades"], b.get("mount")), here)
    if kind == "upgrade" and effect["upgrade"]["feature_id"] in w.features:
        f = w.features[effect["upgrade"]["feature_id"]]
        upgrades = [*f["upgrades"], *effect["upgrade"]["upgrades"]]
        return wr.upgrade_difficulty(wr.complexity(f["kind"], upgrades, f.get("mount")), here - 1)
    return None


def world_resolving(game: Game, a: ActionState) -> None:
    """At an aimed town action's turn in the queue, its difficulty is the town's as the actions before it left
    it (P-TOWN-2: [003:364] a Feed is doubled "for each time this action has been taken in this town this
    season"; a Build counts the features built before it). A difficulty the GM set or sealed stays."""
    s = game.state
    aim = s.world.aims.get(a.id)
    if aim is None or aim["aim"] != "town" or a.sealed is not None or aim["town_id"] not in s.world.towns:
        return
    if a.difficulty != aim.get("difficulty"):
        return  # the GM ruled on it since it was aimed
    now = town_difficulty(s, aim["town_id"], aim["kind"], aim["effect"])
    if now is None or now == a.difficulty:
        return
    game._difficulty_declared(
        action_id=a.id, value=now, tiers=dict(a.tiers), after_roll=True, actor=SYSTEM, audience=game._audience(a)
    )


def check_aimable(step: str, a: ActionState, earlier: Aim | None, aim: str, actor: str | None) -> None:
    """P-ACT-4: an action is aimed once, during Planning, at one of AIMS, and (GM-2) before the GM seals its
    difficulty. The GM may aim an action again, to complete it with the facts only the GM gives (GM_FACTS), as
    long as nothing was paid for the first aim."""
    if step != "planning" or a.discarded:
        raise RuleViolation("an action is aimed during Planning, before it is resolved", rule="P-ACT-4")
    if earlier is not None and (actor != GM or earlier.get("paid")):
        raise RuleViolation("this action is already aimed", rule="P-ACT-4", field="action_id")
    if aim not in AIMS:
        raise RuleViolation(f"an action is aimed at one of {', '.join(AIMS)}", rule="P-ACT-4", field="aim")
    if a.sealed is not None:
        raise RuleViolation(
            "the GM sealed this action's difficulty, which can never be replaced: aim an action before its "
            "difficulty is sealed",
            rule="GM-2",
            field="action_id",
        )


def infiltration(
    t: Town, power: str, powers: Mapping[str, PowerState], towns: Mapping[str, Town]
) -> tuple[int, list[str]]:
    """P-INFL-6 Infiltrate: a conspiracy with the most influence among the conspiracies in a town it does not
    yet claim (P-TOWN-1). Returns the difficulty (by the towns it claims and the others' influence) and the
    resisters: the town's other claimants."""
    ps = powers[power]
    if ps.cls != "conspiracy":
        raise RuleViolation("only conspiracies infiltrate", rule="P-INFL-6", field="action_id")
    if claimant(t, "conspiracy") == power:
        raise RuleViolation(f"{ps.name} already claims {t['name']}", rule="P-TOWN-1", field="town_id")
    others = [p.influence.get(t["hex"], 0) for p in powers.values() if p.id != power and p.cls == "conspiracy"]
    if not wr.has_most_influence(ps.influence.get(t["hex"], 0), others):
        raise RuleViolation("Infiltrate needs the most influence in the town", rule="P-INFL-6", field="town_id")
    claimed = sum(1 for x in towns.values() if claimant(x, "conspiracy") == power)
    resisters = sorted({c["power"] for c in t["claims"].values()} - {power})
    return wr.infiltrate_difficulty(claimed, sum(others)), resisters


def check_gm_facts(actor: str | None, params: Mapping[str, Any]) -> None:
    """P-TOWN-2: how many resources are new to a town, how far goods travel, the rooted agents' ranks and who
    died are facts of the world only the GM knows, and they set the difficulty and the reward: a power aims a
    town action without them and the GM completes it."""
    if actor not in (None, GM) and any(k in params for k in GM_FACTS):
        raise RuleViolation(
            f"the GM gives {', '.join(k for k in GM_FACTS if k in params)}: aim without them and the GM "
            "completes the action",
            rule="P-TOWN-2",
            field="params",
        )


def rule_subtle(game: Game, action_id: str, feature_id: str, *, overcome: bool = False) -> None:
    """The GM rules that an action targets something inside a stronghold by subtle means (GM-22). [003:445]
    "powers must find a way to overcome this immunity in order to target anything inside this stronghold
    subtly. Unsubtle means, such as magic or invading a stronghold with an army naturally bypass this
    immunity": refused (P-FEAT-3) unless the action's power holds the stronghold or the GM rules that it
    overcame the secret protection."""
    s = game.state
    a = game.action(action_id)
    if s.step != "planning" or a.discarded or s.resolved:
        raise RuleViolation("an action is ruled subtle during Planning, before it is resolved", rule="P-FEAT-3")
    f = feature(s, feature_id)
    if f["kind"] != "stronghold":
        raise RuleViolation(f"{f['name']} is not a stronghold", rule="P-FEAT-3", field="feature_id")
    # An inoperable stronghold shelters nothing, as it keeps nothing private (P-FEAT-3, unpaid maintenance).
    if f["controller"] != a.power and not overcome and not f["inoperable"]:
        raise RuleViolation(
            f"anything inside {f['name']} is immune to subtle targeting: overcome its protection first, or act "
            "by unsubtle means such as magic or an army",
            rule="P-FEAT-3",
            field="feature_id",
        )
    record(
        game,
        SubtleRuled,
        action_id=action_id,
        feature_id=feature_id,
        overcome=bool(overcome),
        actor=GM,
        audience=vis.powers([a.power]),
    )


# ---------------------------------------------------------------------- events


class ActionAimed(WorldEvent):
    action_id: str
    aim: Aim
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.world.aims[self.action_id] = deepcopy(self.aim)


class InfiltrationAnnounced(WorldEvent):
    town_id: str
    power_id: str
    power_name: str
    actor: str
    audience: list[str]


class SubtleRuled(WorldEvent):
    action_id: str
    feature_id: str
    overcome: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.world.subtle[self.action_id] = {"feature_id": self.feature_id, "overcome": self.overcome}


class AimsClosed(WorldEvent):
    """The month's aims are done with (the history keeps them)."""

    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.world.aims, s.world.subtle, s.world.spent = {}, {}, {}
