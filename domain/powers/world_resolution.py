"""What an aimed action does to the world when it resolves (P-FEAT-4, P-TOWN-2, P-INFL-6): a dungeon floor
cleared, a ruin's threat lowered and what it becomes built, a stronghold's module, a claim infiltrated, an
industry won over, mana channelled, or a town changed by its action; and harm done to a town (Sack, Slaughter,
P.2.12). A town is public, so what changes it is too (P.4); who acted only when that was public."""

from __future__ import annotations

from copy import deepcopy
from typing import TYPE_CHECKING, Any

from domain import visibility as vis
from domain.ids import SYSTEM
from domain.powers import world_rules as wr
from domain.powers import world_view as view
from domain.powers.magic_state import kept_gain
from domain.powers.world_base import WorldEvent, feature, record, town
from domain.powers.world_claims import claim
from domain.powers.world_map import is_public
from domain.powers.world_state import Built, TownEffect

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, GameState
    from domain.powers.world_state import Aim, Feature, Town


def world_resolved(game: Game, action_id: str) -> None:
    """An aimed action has resolved: record what it did to the world (P-FEAT-4, P-TOWN-2, P-INFL-6)."""
    s = game.state
    aim = s.world.aims.get(action_id)
    a = s.actions[action_id]
    if aim is None or not a.success:
        return
    w = s.world
    if aim.get("feature_id") not in (None, *w.features) or aim.get("town_id") not in (None, *w.towns):
        return  # the GM took what it aimed at off the map since
    if aim["aim"] == "delve":
        f: Feature = w.features[aim["feature_id"]]
        floor = aim["floor"]
        nxt = f["floors"][floor] if floor < len(f["floors"]) else None
        record(
            game,
            FloorCleared,
            feature_id=aim["feature_id"],
            power_id=a.power,
            floor=floor,
            reward=f["floors"][floor - 1]["reward"],
            next_floor={"floor": floor + 1, **nxt} if nxt else None,
            actor=SYSTEM,
            audience=game._audience(a),
        )
    elif aim["aim"] == "clear":
        _ruin_resolved(game, a, aim)
    elif aim["aim"] == "module":
        record(
            game,
            ModuleBuilt,
            feature_id=aim["feature_id"],
            module=aim["module"],
            actor=SYSTEM,
            audience=game._audience(a),
        )
    elif aim["aim"] == "infiltrate":
        claim(game, aim["town_id"], a.power, "infiltrated", actor=SYSTEM)
    elif aim["aim"] == "workers_unite":
        if aim["feature_id"] in w.features:
            record(
                game,
                FeatureOwned,
                feature_id=aim["feature_id"],
                power_id=a.power,
                actor=SYSTEM,
                audience=game._audience(a),
            )
    elif aim["aim"] == "channel":
        for element in dict.fromkeys(aim["mana"]):
            amount = kept_gain(s, a.power, element, aim["mana"].count(element))
            if amount > 0:
                game._mana_granted(
                    power_id=a.power, element=element, amount=amount, actor=SYSTEM, audience=vis.powers([a.power])
                )
    else:
        _town_resolved(game, a, aim)


def _ruin_resolved(game: Game, a: ActionState, aim: Aim) -> None:
    """A successful Clear lowers its ruin's threat; at none the ruin is cleared, and what it becomes is built
    (P-FEAT-4)."""
    f: Feature | None = game.state.world.features.get(aim["feature_id"])
    if f is None or f["kind"] != "ruin" or f["threat"] == 0:
        return  # cleared earlier in the queue this month
    left = wr.ruin_progress(f["threat"], f["difficulty"], a.net or 0)
    record(
        game,
        ThreatReduced,
        feature_id=aim["feature_id"],
        power_id=a.power,
        removed=f["threat"] - left,
        threat=left,
        actor=SYSTEM,
        audience=game._audience(a),
    )
    if left == 0:
        record(
            game,
            RuinCleared,
            feature_id=aim["feature_id"],
            power_id=a.power,
            reward=f["reward"],
            becomes=deepcopy(f["becomes"]),
            actor=SYSTEM,
            audience=game._audience(a),
        )
        if f["becomes"]:
            # A built feature now, and so public (P.4); who holds it stays with them.
            record(
                game,
                FeatureRebuilt,
                feature_id=aim["feature_id"],
                kind=f["becomes"]["kind"],
                modules=list(f["becomes"].get("modules", [])),
                actor=SYSTEM,
                audience=[vis.PUBLIC],
            )


def _town_resolved(game: Game, a: ActionState, aim: Aim) -> None:
    """A successful town action changes its town (P-TOWN-2): taxes are collected, a building is owned by its
    builder; one whose target went earlier in the queue this month does nothing."""
    s = game.state
    w = s.world
    effect = aim["effect"]
    upgrade = effect.get("upgrade")
    target = (upgrade["feature_id"] if upgrade else None) or effect.get("demolish")
    if target is not None and target not in w.features:
        return  # demolished earlier in the queue this month
    if "build" in effect and effect["build"]["id"] in w.features:
        return
    if "trade" in effect and effect["trade"]["with"] not in w.towns:
        return
    if "demolish" in effect and _durable_holds(game, effect["demolish"]):
        return
    # The town is public, so its change is too; who acted is not (a private action stays private).
    by = a.power if is_public(s, a) else None
    t: Town = w.towns[aim["town_id"]]
    coin = wr.town_wealth(t["wealth"], t["statuses"], view.working_features(s, aim["town_id"]))
    take = aim.get("take", "wealth")
    if take != "wealth":
        coin = wr.effective_population(t["population"], t["statuses"])
    record(
        game,
        TownChanged,
        town_id=aim["town_id"],
        kind=aim["kind"],
        effect=effect,
        by=by,
        actor=SYSTEM,
        audience=[vis.PUBLIC],
    )
    if aim["kind"] == "tax" and take == "fear":
        game.earn(a.power, "fear", coin, f"taxes of {t['name']} taken in Fear (a Prison)")
    elif aim["kind"] == "tax":
        record(
            game,
            TaxesCollected,
            town_id=aim["town_id"],
            power_id=a.power,
            coin=coin,
            actor=SYSTEM,
            audience=game._audience(a),
        )
        game.earn(a.power, "coin", coin, f"taxes of {t['name']}")
    if "build" in effect:
        # Loyal to its builder ([003:365]); who that is stays with the builder unless the action was public.
        record(
            game,
            FeatureOwned,
            feature_id=effect["build"]["id"],
            power_id=a.power,
            actor=SYSTEM,
            audience=game._audience(a),
        )


def _durable_holds(game: Game, feature_id: str) -> bool:
    """Durable: "Ignores the first effect each season that would disrupt or damage it" (P-FEAT-1)."""
    f = feature(game.state, feature_id, "P-FEAT-1")
    if "durable" not in f["upgrades"] or f.get("durable_used"):
        return False
    record(game, DurableHeld, feature_id=feature_id, actor=SYSTEM, audience=[vis.PUBLIC])
    return True


def harm_town(
    game: Game, town_id: str, harm: dict[str, Any], reason: str, by: str | None, actor: str = SYSTEM
) -> dict[str, int]:
    """Lower a town's population and wealth and add statuses to it (Sack, Slaughter, Blighted Neighborhood,
    P.2.12); neither falls below 0. The town is public, so the change is too (P.4); ``by`` names who did it
    only when that was public. Returns the change made."""
    t = town(game.state, town_id)
    now = {"population": t["population"], "wealth": t["wealth"]}
    change = {k: max(int(harm[k]), -now[k]) for k in ("population", "wealth") if harm.get(k)}
    statuses = {k: int(v) for k, v in harm.get("statuses", {}).items() if v}
    record(
        game,
        TownHarmed,
        town_id=town_id,
        change=change,
        statuses=statuses,
        reason=reason,
        by=by,
        actor=actor,
        audience=[vis.PUBLIC],
    )
    return change


# ---------------------------------------------------------------------- events


class TaxesCollected(WorldEvent):
    """The record of the town's taxes; the coin itself goes into the wallet (WalletChanged)."""

    town_id: str
    power_id: str
    coin: int
    actor: str
    audience: list[str]


class FeatureOwned(WorldEvent):
    feature_id: str
    power_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.world.features[self.feature_id]["controller"] = self.power_id


class FloorCleared(WorldEvent):
    feature_id: str
    power_id: str
    floor: int
    reward: str
    next_floor: dict[str, Any] | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.world.features[self.feature_id]["cleared"][self.power_id] = self.floor


class ThreatReduced(WorldEvent):
    feature_id: str
    power_id: str
    removed: int
    threat: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.world.features[self.feature_id]["threat"] = self.threat


class RuinCleared(WorldEvent):
    feature_id: str
    power_id: str
    reward: str
    becomes: dict[str, Any] | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        f = s.world.features[self.feature_id]
        if self.becomes:
            f["controller"] = self.becomes.get("controller", self.power_id)


class FeatureRebuilt(WorldEvent):
    """ "Becomes a Stronghold with a Barracks and Alchemy Lab" ([003:493])."""

    feature_id: str
    kind: str
    modules: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        f = s.world.features[self.feature_id]
        f.update({"kind": self.kind, "modules": list(self.modules), "public": True, "threat": 0})


class ModuleBuilt(WorldEvent):
    feature_id: str
    module: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.world.features[self.feature_id]["modules"].append(self.module)


class TownChanged(WorldEvent):
    town_id: str
    kind: str
    effect: TownEffect
    by: str | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        w = s.world
        t = w.towns[self.town_id]
        effect = self.effect
        for k, v in effect.get("statuses", {}).items():
            t["statuses"][k] = t["statuses"].get(k, 0) + v
        t["statuses"] = {k: v for k, v in t["statuses"].items() if v > 0}
        if "population" in effect:
            t["population"] += effect["population"]
            t["feeds"] += 1
        if "road" in effect:
            w.hexes[effect["road"]]["road"] = True
        if "trade" in effect:
            t["wealth"] += effect["trade"]["wealth"]
            w.towns[effect["trade"]["with"]]["wealth"] += effect["trade"]["wealth"]
        if "build" in effect:
            w.features[effect["build"]["id"]] = _built(effect["build"], t["hex"], self.town_id)
        if "upgrade" in effect:
            w.features[effect["upgrade"]["feature_id"]]["upgrades"].extend(effect["upgrade"]["upgrades"])
        if "demolish" in effect:
            w.features.pop(effect["demolish"], None)


def _built(b: Built, hex_id: str, town_id: str) -> Feature:
    """A feature a town action built: public, held by no one until its builder owns it."""
    return {
        "kind": b["kind"],
        "name": b["name"],
        "hex": hex_id,
        "town": town_id,
        "controller": None,
        "public": True,
        "upgrades": list(b["upgrades"]),
        "modules": [],
        "mount": b.get("mount"),
        "stored": 0,
        "floors": [],
        "threat": 0,
        "difficulty": 0,
        "reward": "",
        "becomes": None,
        "known_to": [],
        "cleared": {},
        "asset_id": None,
        "protection": "",
        "inoperable": False,
        "maintenance_due": None,
    }


class TownHarmed(WorldEvent):
    town_id: str
    change: dict[str, int]
    statuses: dict[str, int]
    reason: str
    by: str | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        t = s.world.towns[self.town_id]
        t["population"] += self.change.get("population", 0)
        t["wealth"] += self.change.get("wealth", 0)
        for k, v in self.statuses.items():
            t["statuses"][k] = t["statuses"].get(k, 0) + v


class DurableHeld(WorldEvent):
    feature_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.world.features[self.feature_id]["durable_used"] = True
