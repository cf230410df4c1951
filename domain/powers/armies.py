"""Armies outside combat (rules/ANALYSIS.md P.2.10 P-ARMY-1..9, P.2.6 P-SUP-1..3, P-ASSET-7, P-ASSET-14).

Armies stand on the hexes of the world's map. The GM places armies (rogue forces, a City's starting armies,
wondrous armies from types the GM defines as events: the rules' "Wondrous Armies" section is empty); powers
raise them by Levy and improve them by Train and Forge Armaments, move them by Muster and recover cowards by
Gather Cowards: each such action is aimed at its army during Planning (``aim_army_action``), which sets its
difficulty by the rule's formula, and its effect is recorded when it resolves (``_armies_resolved``).
Season bookkeeping runs from ``Game.advance``: support is settled at the end of Tidings, mustered armies go
home and recover at Cleanup.

The battle sub-machine (P-BAT-*) records through ``grant_experience`` (P-BAT-13), ``record_dispersal`` (a rout
that leaves no active unit) and ``_fee_due`` (a fee after a battle, P-SUP-3). What it reads is all on the army:
its hex, units (wounds and routs per unit), stats, armor (base and tier), keywords, statuses, momentum, its
Experience assets and the wounds a unit survives.

Who sees what (P.4, [003:326]): "Scores and keywords of visible armies are default public"; a non-visible army
(Stealthy, dispersed, or hidden by the GM, e.g. inside an outpost) is seen by its controller, the GM and those
the GM says detected it. Wounds, routs, Experience (an asset, [003:324]), fees owed and pending level-ups are
the controller's: the battle shows wounds on the battlemap, the map does not. An army is recorded whole for its
controller (``ArmyPlaced``) and its public card for those who see it (``ArmySighted``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypedDict

from eventsourcing.domain import event

from domain import limits
from domain import visibility as vis
from domain.copying import deepcopy
from domain.dice import Roller
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.platform.game import PlatformGame
from domain.powers import army_rules as ar
from domain.powers import army_types as at
from domain.powers import hexmap
from domain.powers.world_state import WorldState

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import ActionState, GameState, PowerState

ARMY_AIMS = ("muster", "train", "forge", "levy", "gather")
ELEMENTS = ("A", "F", "E", "W", "D", "L", None)


class Support(TypedDict):
    """A power's support settled for a season (P-SUP-1): the units' cost beyond its limit and what it paid (None:
    unpaid at the end of Tidings)."""

    season: int
    due: int
    paid: dict[str, int] | None


class Bound(TypedDict):
    """An asset bound to one army's action (P-ASSET-14, P-ARMY-7): Experience to its Train, a former command to its
    Gather Cowards."""

    army: str
    kind: str


@dataclass
class ArmiesState:
    # type id -> stat block the GM defined (wondrous armies)
    types: dict[str, dict[str, Any]] = field(default_factory=dict)
    armies: dict[str, dict[str, Any]] = field(default_factory=dict)  # army id -> the army (see _new_army)
    # a disbanded levy's card, kept for a re-levy (P-ARMY-5)
    cards: dict[str, dict[str, Any]] = field(default_factory=dict)
    # army id -> an army fully dispersed by rout (P-ARMY-7)
    dispersed: dict[str, dict[str, Any]] = field(default_factory=dict)
    aims: dict[str, dict[str, Any]] = field(default_factory=dict)  # this month's action id -> what it does to armies
    bound: dict[str, Bound] = field(default_factory=dict)  # asset id -> the army it serves: Experience, command
    support: dict[str, Support] = field(default_factory=dict)  # power -> its support settled this season (P-SUP-1)
    bonus: dict[str, int] = field(default_factory=dict)  # power -> support limit from effects (P-SUP-2)


ARMIES_TYPES = (ArmiesState,)


def _int(value: Any, field: str, low: int, high: int, rule: str) -> int:
    return limits.whole_number(value, field, low, high, rule)


def _hex(value: Any, field: str = "hex") -> str:
    return hexmap.normal_hex(value)  # refusals name the field "hex", as they always have


def visible(army: dict[str, Any]) -> bool:
    """[003:326] Stealthy and dispersed armies (and those the GM hides, inside an outpost) are not visible."""
    return not (army["hidden"] or "stealthy" in army["keywords"])


def _block(data: Any, rule: str = "P-ARMY-8") -> dict[str, Any]:
    """A stat block given as data, checked (P-ARMY-8)."""
    if not isinstance(data, dict):
        raise RuleViolation("a stat block is an object", rule=rule, field="block")
    out: dict[str, Any] = {}
    for a in at.ATTRIBUTES:
        d = data.get(a)
        if not isinstance(d, dict):
            raise RuleViolation(f"{a} is {{die, bonus}}", rule=rule, field=a)
        die = _int(d.get("die"), a, 2, ar.MAX_DIE, rule)
        if die % 2:
            raise RuleViolation(f"{a}'s die has an even number of sides", rule=rule, field=a)
        out[a] = {"die": die, "bonus": _int(d.get("bonus", 0), a, -5, 10, rule)}
    out["defense"] = _int(data.get("defense"), "defense", 0, 30, rule)
    out["armor_base"] = _int(data.get("armor", 0), "armor", -5, 30, rule)
    out["mobility"] = _int(data.get("mobility", 1), "mobility", -5, 30, rule)
    out["fee"] = _int(data.get("fee", 0), "fee", 0, 100, rule)
    out["rank"] = _int(data.get("rank", 1), "rank", 1, 20, rule)
    out["tier"] = _int(data.get("tier", 0), "tier", 0, len(at.TIERS) - 1, rule)
    kws = data.get("keywords", [])
    if not isinstance(kws, list) or len(kws) > 30:
        raise RuleViolation("keywords is a list", rule=rule, field="keywords")
    out["keywords"] = [str(k) for k in kws]
    element = data.get("element")
    if element not in ELEMENTS:
        raise RuleViolation("an army's element is one of A, F, E, W, D, L", rule=rule, field="element")
    out["element"] = element
    out["cls"] = str(data.get("cls", "levy"))
    ancestry = data.get("ancestry")
    if ancestry is not None and (not isinstance(ancestry, str) or ancestry not in at.ANCESTRIES):
        raise RuleViolation(f"{ancestry!r} is not an ancestry", rule=rule, field="ancestry")
    out["ancestry"] = ancestry
    out["premium"] = bool(data.get("premium", False))
    out["titanic"] = bool(data.get("titanic", False))
    out["wondrous"] = bool(data.get("wondrous", False))
    ar.check_block(out)
    if out["tier"] and (out["wondrous"] or out["cls"] in at.NO_EQUIPMENT_CLASSES):
        raise RuleViolation("wondrous armies do not have equipment", rule="P-ARMY-6", field="tier")
    return out


class Armies(PlatformGame):
    """Armies outside combat: their commands and events (a base of ``Game``)."""

    if TYPE_CHECKING:  # the Game's events and queries this feature uses
        state: GameState
        # events of Game (keyword arguments: their fields)
        _asset_granted: Callable[..., None]
        _difficulty_declared: Callable[..., None]
        _town_changed: Callable[..., None]
        action: Callable[[str], ActionState]
        _audience: Callable[[ActionState], list[str]]

        def power(self, power_id: str) -> PowerState: ...
        def pay(self, power_id: str, changes: dict[str, int], reason: str, *, rule: str, actor: str) -> None: ...

    # ------------------------------------------------------------------ queries

    def army(self, army_id: str) -> dict[str, Any]:
        """The army, or NotFound."""
        try:
            return self.state.armies.armies[army_id]
        except KeyError:
            raise NotFound(f"no army {army_id!r}", field="army_id") from None

    def _own_army(self, army_id: str, power_id: str) -> dict[str, Any]:
        a = self.army(army_id)
        if a["controller"] != power_id:
            raise NotFound(f"you control no army {army_id!r}", field="army_id")
        return a

    def armies_of(self, power_id: str) -> list[dict[str, Any]]:
        return [a for _, a in sorted(self.state.armies.armies.items()) if a["controller"] == power_id]

    def _perks(self, power_id: str) -> set[str]:
        """The perks a power holds (domain.powers.development), by the names the rules give them."""
        holdings = self.state.development.holdings.get(power_id)
        return {p["name"] for p in holdings.perks} if holdings is not None else set()

    def units_counted(self, power_id: str) -> int:
        """P-SUP-1: the units a power's armies count against its limit."""
        return ar.units_counted(self.armies_of(power_id), "Privateers" in self._perks(power_id))

    def support_limit(self, power_id: str) -> int:
        """P-SUP-2, from the towns a power claims (world), its influence, its perks and what the GM records."""
        p = self.power(power_id)
        pops = [
            t["population"]
            for t in self.state.world.towns.values()
            if power_id in {c["power"] for c in t["claims"].values()}
        ]
        influenced = sum(1 for n in p.influence.values() if n >= 1)
        bonus = self.state.armies.bonus.get(power_id, 0) + ar.effects_support(p.subclass, self._perks(power_id))
        return ar.support_limit(p.cls, pops, influenced, bonus)

    def support_due(self, power_id: str) -> int:
        """P-SUP-1: the units beyond the support limit."""
        return ar.support_due(self.support_limit(power_id), self.units_counted(power_id))

    # ------------------------------------------------------------------ the GM's armies and types

    def define_army_type(self, type_id: str, block: dict[str, Any]) -> None:
        """GM: an army type as data (the rules' "Wondrous Armies" section is empty, P-AMB-42)."""
        limits.check_text(type_id, "type_id", limits.IDENTIFIER, required=True, what="an army type's id")
        self._army_type_defined(type_id=type_id, block=_block(block), actor=GM, audience=[vis.PUBLIC])

    @event("ArmyTypeDefined")
    def _army_type_defined(self, type_id: str, block: dict[str, Any], actor: str, audience: list[str]) -> None:
        self.state.armies.types[type_id] = block

    def place_army(
        self,
        army_id: str,
        name: str,
        hex_id: str,
        units: int,
        *,
        controller: str | None = None,
        type_id: str | None = None,
        block: dict[str, Any] | None = None,
        garrison: str | None = None,
        loyal: bool = False,
        personal: bool = False,
        hidden: bool = False,
    ) -> None:
        """GM: put an army on the map (a rogue army, a City's starting army, a wondrous army of a type)."""
        limits.check_text(army_id, "army_id", limits.IDENTIFIER, required=True, what="an army's id")
        limits.check_text(name, "name", limits.ASSET_NAME, required=True, what="an army's name")
        if army_id in self.state.armies.armies or army_id in self.state.assets:
            raise RuleViolation(f"there is already an army or asset {army_id!r}", rule="P-ARMY-8", field="army_id")
        if controller is not None:
            self.power(controller)
        if type_id is not None:
            if type_id not in self.state.armies.types:
                raise NotFound(f"no army type {type_id!r}", field="type_id")
            stats = deepcopy(self.state.armies.types[type_id])
        else:
            stats = _block(block)
        where = _map_hex(self.state.world, hex_id)
        home = _map_hex(self.state.world, garrison) if garrison is not None else where
        _int(units, "units", 1, ar.MAX_SIZE, "P-ARMY-8")
        if personal and (controller is None or self.power(controller).cls != "champion"):
            raise RuleViolation("a Personal Army is a champion's own body", rule="P-SUP-3", field="personal")
        army = _new_army(army_id, name.strip(), controller, stats, units, where, home, loyal, personal, hidden)
        self._record_army(army)

    def _record_army(self, army: dict[str, Any], actor: str = GM) -> None:
        self._place(army, actor)
        if army["controller"] and not army["personal"]:
            # The army as an asset of its controller (P-ASSET-7: a profession keyword makes it help outside
            # combat); its rank follows the army's.
            self._asset_granted(
                asset_id=army["id"],
                power_id=army["controller"],
                name=army["name"],
                cls="army",
                rank=army["rank"],
                assured=False,
                critical=False,
                novel=False,
                actor=SYSTEM,
                audience=army_owner(army),
            )

    def _place(self, army: dict[str, Any], actor: str) -> None:
        """The whole army goes to its controller (its wounds and Experience are theirs); the table, or those who
        detected it, see the card P.4 makes public."""
        self._army_placed(army=army, actor=actor, audience=army_owner(army))
        seen = army_audience(army)
        if seen != army_owner(army):
            self._army_sighted(army_id=army["id"], card=_public_card(self, army), actor=actor, audience=seen)

    @event("ArmySighted")
    def _army_sighted(self, army_id: str, card: dict[str, Any], actor: str, audience: list[str]) -> None:
        pass  # the feed's record of what the table saw; the army itself is in ArmyPlaced

    @event("ArmyPlaced")
    def _army_placed(self, army: dict[str, Any], actor: str, audience: list[str]) -> None:
        self.state.armies.armies[army["id"]] = deepcopy(army)
        self.state.armies.dispersed.pop(army["id"], None)

    def detect_army(self, army_id: str, power_id: str) -> None:
        """GM: a power detected a non-visible army (Seeking, [003:497]); it sees its card from now on (P.4)."""
        army = self.army(army_id)
        self.power(power_id)
        if visible(army) or power_id == army["controller"] or power_id in army["seen_by"]:
            raise RuleViolation(f"{power_id} already sees {army['name']}", rule="P.4", field="power_id")
        self._army_detected(
            army_id=army_id,
            power_id=power_id,
            card=_public_card(self, army),
            actor=GM,
            audience=vis.powers([power_id]),
        )

    @event("ArmyDetected")
    def _army_detected(
        self, army_id: str, power_id: str, card: dict[str, Any], actor: str, audience: list[str]
    ) -> None:
        self.state.armies.armies[army_id]["seen_by"].append(power_id)

    def set_support_bonus(self, power_id: str, bonus: int) -> None:
        """GM: what a power's other effects add to its support limit (P-SUP-2; the Paragon's 5 and the perks
        Warbacked, Crusader and Warmaster are counted from the power's class and perks)."""
        self.power(power_id)
        _int(bonus, "bonus", 0, 1000, "P-SUP-2")
        self._support_bonus_set(power_id=power_id, bonus=bonus, actor=GM, audience=vis.powers([power_id]))

    @event("SupportBonusSet")
    def _support_bonus_set(self, power_id: str, bonus: int, actor: str, audience: list[str]) -> None:
        self.state.armies.bonus[power_id] = bonus

    def grant_experience(self, army_id: str, rank: int) -> None:
        """An army's Experience (P-ASSET-14, gained after battle, P-BAT-13): a one-use asset only this army uses
        (towards its Train)."""
        army = self.army(army_id)
        _int(rank, "rank", 1, 10, "P-ASSET-14")
        if army["controller"] is None:
            raise RuleViolation("a rogue army's experience is the GM's to keep", rule="P-ASSET-14")
        asset_id = f"{army_id}.xp{len(army['experience']) + 1}"
        self._experience_gained(army_id=army_id, asset_id=asset_id, rank=rank, actor=GM, audience=army_owner(army))
        self._asset_granted(
            asset_id=asset_id,
            power_id=army["controller"],
            name=f"Experience of {army['name']}",
            cls="consumable",
            rank=rank,
            assured=False,
            critical=False,
            novel=False,
            actor=SYSTEM,
            audience=army_owner(army),
        )

    @event("ExperienceGained")
    def _experience_gained(self, army_id: str, asset_id: str, rank: int, actor: str, audience: list[str]) -> None:
        self.state.armies.armies[army_id]["experience"].append(asset_id)
        self.state.armies.bound[asset_id] = {"army": army_id, "kind": "train"}

    def record_dispersal(self, army_id: str) -> None:
        """GM (or the battle): an army fully dispersed by rout; its cowards may be gathered next season
        (P-ARMY-7). Its former controller gets the "+3 asset" for gathering them."""
        army = self.army(army_id)
        if ar.size(army) != 0 or not army["units"]:
            raise RuleViolation(f"{army['name']} is not fully dispersed by rout", rule="P-ARMY-7", field="army_id")
        record = {**deepcopy(army), "fled": len(army["units"]), "season": self.state.season}
        # The record keeps its wounds and Experience: the controller's; the army leaves the others' boards.
        self._army_dispersed(army_id=army_id, record=record, actor=GM, audience=army_owner(army))
        if army["controller"]:
            self._asset_granted(
                asset_id=f"{army_id}.cowards{self.state.season}",
                power_id=army["controller"],
                name=f"Former command of {army['name']}",
                cls="consumable",
                rank=ar.COWARDS_ASSET_RANK,
                assured=False,
                critical=False,
                novel=False,
                actor=SYSTEM,
                audience=army_owner(army),
            )

    @event("ArmyDispersed")
    def _army_dispersed(self, army_id: str, record: dict[str, Any], actor: str, audience: list[str]) -> None:
        s = self.state
        s.armies.armies.pop(army_id)
        s.armies.dispersed[army_id] = deepcopy(record)
        if record["controller"]:
            s.armies.bound[f"{army_id}.cowards{record['season']}"] = {"army": army_id, "kind": "gather"}
        if army_id in s.assets:
            s.assets[army_id].holders = []

    # ------------------------------------------------------------------ actions aimed at armies

    def aim_army_action(self, action_id: str, kind: str, params: dict[str, Any], actor: str | None = None) -> None:
        """Aim a Planning action at armies: Muster (P-ARMY-1), Train (P-ARMY-3), Forge Armaments (P-ARMY-6),
        Levy (P-ARMY-5) or Gather Cowards (P-ARMY-7). Aim before rolling: Experience and a former command are
        assets only the aimed action may use (P-ASSET-14, P-ARMY-7)."""
        a = self.action(action_id)
        s = self.state
        if s.step != "planning" or a.discarded or a.status not in ("proposed", "rolled", "locked"):
            raise RuleViolation("an action is aimed during Planning, before it is resolved", rule="P-ACT-4")
        if self._aim_of(action_id) is not None:
            raise RuleViolation("this action is already aimed", rule="P-ACT-4", field="action_id")
        if kind not in ARMY_AIMS:
            raise RuleViolation(f"an army action is one of {', '.join(ARMY_AIMS)}", rule="P-ACT-4", field="kind")
        params = dict(params or {})
        record: dict[str, Any] = {"kind": kind, "power": a.power, "season": s.season, "month": s.month}
        if kind == "muster":
            record["moves"], difficulty = self._plan_muster(a.power, params)
        elif kind == "train":
            army = self._own_army(str(params.get("army_id")), a.power)
            if army["level_up"] is not None:
                raise RuleViolation(f"{army['name']} has a level-up to finish first", rule="P-ARMY-3")
            record["army_id"] = army["id"]
            difficulty = ar.train_difficulty(army["rank"] + 1, ar.size(army))
        elif kind == "forge":
            army = self._own_army(str(params.get("army_id")), a.power)
            tier = _int(params.get("tier"), "tier", 0, len(at.TIERS) - 1, "P-ARMY-6")
            ar.check_forge(army, tier)
            record.update({"army_id": army["id"], "tier": tier})
            difficulty = ar.forge_difficulty(tier, ar.size(army), army["ancestry"])
        elif kind == "levy":
            record["levy"], difficulty = self._plan_levy(a.power, params)
        else:
            army_id = str(params.get("army_id"))
            d = s.armies.dispersed.get(army_id)
            if d is None or d["season"] != s.season - 1:
                raise RuleViolation(
                    "Gather Cowards gathers an army fully dispersed by rout last season", rule="P-ARMY-7"
                )
            record["army_id"] = army_id
            difficulty = 0
        if a.pool is not None and any(_bound_misused(self.state.armies, pa.asset_id, record) for pa in a.pool.assets):
            raise RuleViolation("this action's pool uses an asset bound to another army's action", rule="P-ASSET-14")
        self._army_action_aimed(action_id=action_id, aim=record, actor=actor or a.power, audience=self._audience(a))
        self._difficulty_declared(
            action_id=action_id,
            value=difficulty,
            tiers={},
            after_roll=a.pool is not None,
            actor=SYSTEM,
            audience=self._audience(a),
        )

    def _aim_of(self, action_id: str) -> dict[str, Any] | None:
        aim = self.state.armies.aims.get(action_id)
        s = self.state
        if aim is None or (aim["season"], aim["month"]) != (s.season, s.month):
            return None
        return aim

    def _plan_muster(self, power_id: str, params: dict[str, Any]) -> tuple[list[dict[str, Any]], int]:
        """P-ARMY-1: each army from its garrison along a path of hexes; cost against mobility; +2 a regarrison."""
        moves = params.get("moves")
        if not isinstance(moves, list) or not moves:
            raise RuleViolation("a muster moves armies: moves [{army_id, path, regarrison}]", rule="P-ARMY-1")
        out: list[dict[str, Any]] = []
        costs: list[dict[str, Any]] = []
        for m in moves:
            if not isinstance(m, dict):
                raise RuleViolation("each move is {army_id, path, regarrison}", rule="P-ARMY-1", field="moves")
            army = self._own_army(str(m.get("army_id")), power_id)
            if any(o["army_id"] == army["id"] for o in out):
                raise RuleViolation(f"{army['name']} moves once in a muster", rule="P-ARMY-1", field="moves")
            if army["mustered"] and "Forced March" not in self._perks(power_id):  # [003:919]
                raise RuleViolation(
                    f"{army['name']} is not in its garrison: a muster moves armies from their garrisons",
                    rule="P-ARMY-1",
                    field="moves",
                )
            path = m.get("path")
            if not isinstance(path, list) or not 2 <= len(path) <= 50:
                raise RuleViolation("a path is a list of hexes from the army's hex", rule="P-ARMY-1", field="path")
            path = [_hex(h, "path") for h in path]
            if path[0] != army["hex"]:
                raise RuleViolation(f"{army['name']}'s path starts at {army['hex']}", rule="P-ARMY-1", field="path")
            cost = ar.path_cost(path, self.state.world.hexes, army["keywords"])
            regarrison = bool(m.get("regarrison", False))
            if regarrison and not _can_garrison(self.state.world, path[-1]):
                raise RuleViolation(
                    f"{path[-1]} has no town, stronghold or outpost to garrison", rule="P-ARMY-1", field="moves"
                )
            out.append({"army_id": army["id"], "path": path, "cost": cost, "regarrison": regarrison})
            costs.append({"cost": cost, "mobility": army["mobility"], "regarrison": regarrison})
        return out, ar.muster_difficulty(costs)

    def _plan_levy(self, power_id: str, params: dict[str, Any]) -> tuple[dict[str, Any], int]:
        """P-ARMY-5: a new army in a claimed town that is not Depopulated, or a kept card raised again."""
        s = self.state
        town_id = str(params.get("town_id"))
        town = s.world.towns.get(town_id)
        if town is None:
            raise NotFound(f"no town {town_id!r}", field="town_id")
        levy_size = _int(params.get("size"), "size", 1, ar.MAX_SIZE, "P-ARMY-5")
        ar.check_levy(town, power_id, levy_size)
        army_id = str(params.get("army_id"))
        limits.check_text(army_id, "army_id", limits.IDENTIFIER, required=True, what="an army's id")
        card_id = params.get("card")
        if card_id is not None:
            card = s.armies.cards.get(str(card_id))
            if card is None or card["controller"] != power_id:
                raise NotFound(f"you keep no army card {card_id!r}", field="card")
            if levy_size > card["levy_size"]:
                raise RuleViolation(
                    f"a re-levy regains its card only if no larger than its recorded size ({card['levy_size']})",
                    rule="P-ARMY-5",
                    field="size",
                )
            army_id = str(card_id)
            stats: dict[str, Any] = {k: deepcopy(card[k]) for k in _STAT_KEYS}
            name = card["name"]
        else:
            bonus = params.get("bonus")
            stats = ar.levy_stats(str(params.get("ancestry")), bonus if isinstance(bonus, dict) else {})
            stats.update({"ancestry": str(params.get("ancestry")), "rank": 1, "tier": 0})
            stats.update({"premium": False, "titanic": False, "wondrous": False})
            name = limits.check_text(params.get("name"), "name", limits.ASSET_NAME, required=True, what="a name")
        if army_id in s.armies.armies or (army_id in s.assets and card_id is None):
            raise RuleViolation(f"there is already an army or asset {army_id!r}", rule="P-ARMY-5", field="army_id")
        levy = {"army_id": army_id, "name": name, "town_id": town_id, "size": levy_size, "stats": stats}
        if card_id is not None:
            levy["card"] = str(card_id)
        return levy, ar.levy_difficulty(levy_size, town["statuses"].get("uprising", 0))

    def _armies_check_pool(self, action_id: str | None, power_id: str, location: str | None, assets: list[Any]) -> None:
        """Before a pool is rolled: Experience only in its army's Train, a former command only in its Gather
        Cowards (P-ASSET-14, P-ARMY-7); an army helps only by P-ASSET-7."""
        aim = self._aim_of(action_id) if action_id else None
        s = self.state
        for pick in assets:
            asset_id = pick.get("asset_id") if isinstance(pick, dict) else None
            if not isinstance(asset_id, str):
                continue
            if _bound_misused(self.state.armies, asset_id, aim):
                b = s.armies.bound[asset_id]
                raise RuleViolation(
                    f"{asset_id!r} serves only a {b['kind']} aimed at army {b['army']!r}: aim the action first",
                    rule="P-ASSET-14" if b["kind"] == "train" else "P-ARMY-7",
                    field="assets",
                )
            army = s.armies.armies.get(asset_id)
            if army is not None and army["controller"] == power_id:
                where = _hex(location) if location else None
                used = s.season if asset_id in s.season_ledger else None
                ar.check_helps(army, where, used, s.season)

    @event("ArmyActionAimed")
    def _army_action_aimed(self, action_id: str, aim: dict[str, Any], actor: str, audience: list[str]) -> None:
        s = self.state
        s.armies.aims = {k: v for k, v in s.armies.aims.items() if (v["season"], v["month"]) == (s.season, s.month)}
        s.armies.aims[action_id] = deepcopy(aim)

    def _armies_resolved(self, action_id: str) -> None:
        """An action aimed at armies has resolved: record its effect (P-ARMY-1, 3, 5, 6, 7; P-SUP-3 fees)."""
        aim = self._aim_of(action_id)
        a = self.state.actions[action_id]
        if aim is None or not a.success:
            return
        s = self.state
        kind = aim["kind"]
        if kind == "muster":
            for m in aim["moves"]:
                army = s.armies.armies.get(m["army_id"])
                if army is None or army["controller"] != a.power or army["hex"] != m["path"][0]:
                    continue  # gone, deserted or moved since the muster was aimed
                home = m["path"][-1] if m["regarrison"] else army["garrison"]
                self._army_moved(
                    army_id=army["id"],
                    hex=m["path"][-1],
                    garrison=home,
                    mustered=not m["regarrison"],
                    reason="muster",
                    actor=SYSTEM,
                    audience=army_audience(army),
                )
                self._fee_due(army)
        elif kind == "train":
            army = s.armies.armies.get(aim["army_id"])
            if army is None or army["controller"] != a.power:
                return
            spent = [pa.asset_id for pa in (a.pool.assets if a.pool else []) if pa.asset_id in army["experience"]]
            self._train_succeeded(
                army_id=army["id"],
                action_id=action_id,
                dice=ar.level_up_dice(a.excess or 0),
                experience=spent,
                actor=SYSTEM,
                audience=army_owner(army),
            )
        elif kind == "forge":
            army = s.armies.armies.get(aim["army_id"])
            if army is None or army["controller"] != a.power or army["tier"] >= aim["tier"]:
                return
            self._army_armed(army_id=army["id"], tier=aim["tier"], actor=SYSTEM, audience=army_audience(army))
        elif kind == "levy":
            levy = aim["levy"]
            town = s.world.towns.get(levy["town_id"])
            if town is None or levy["army_id"] in s.armies.armies:
                return
            army = _levied_army(levy, a.power, town["hex"], s.armies.cards[levy["card"]] if "card" in levy else None)
            if army["id"] in s.assets:  # a card raised again: its asset comes back to its controller
                self._place(army, SYSTEM)
                self._army_restored(army_id=army["id"], power_id=a.power, actor=SYSTEM, audience=army_owner(army))
            else:
                self._record_army(army, actor=SYSTEM)
            stacks = ar.depopulation(levy["size"])
            if stacks:
                self._town_changed(
                    town_id=levy["town_id"],
                    kind="levy",
                    effect={"statuses": {"depopulated": stacks}},
                    by=None,
                    actor=SYSTEM,
                    audience=[vis.PUBLIC],
                )
        else:
            d = s.armies.dispersed.get(aim["army_id"])
            if d is None:
                return
            back = ar.cowards_recovered(a.net or 0, d["fled"])
            if back == 0:
                return
            army = _recovered_army(d, a.power, back)
            self._place(army, SYSTEM)
            self._army_restored(army_id=army["id"], power_id=a.power, actor=SYSTEM, audience=army_owner(army))

    @event("ArmyRestored")
    def _army_restored(self, army_id: str, power_id: str, actor: str, audience: list[str]) -> None:
        s = self.state
        army = s.armies.armies[army_id]
        if army_id in s.assets:
            s.assets[army_id].holders = [power_id]
            s.assets[army_id].rank = army["rank"]
        else:
            from domain.powers.state import Asset

            s.assets[army_id] = Asset(id=army_id, name=army["name"], cls="army", rank=army["rank"], holders=[power_id])

    @event("ArmyMoved")
    def _army_moved(
        self, army_id: str, hex: str, garrison: str, mustered: bool, reason: str, actor: str, audience: list[str]
    ) -> None:
        army = self.state.armies.armies[army_id]
        army["hex"], army["garrison"], army["mustered"] = hex, garrison, mustered

    def _fee_due(self, army: dict[str, Any]) -> None:
        """P-SUP-3: "The fee is paid after the army moves or fights a battle"."""
        fee = ar.army_fee(army)
        if fee:
            self._army_fee_due(army_id=army["id"], coin=fee, actor=SYSTEM, audience=army_owner(army))

    @event("ArmyFeeDue")
    def _army_fee_due(self, army_id: str, coin: int, actor: str, audience: list[str]) -> None:
        self.state.armies.armies[army_id]["fee_due"] += coin

    def pay_army_fee(self, army_id: str, power_id: str, resource: str = "coin", actor: str | None = None) -> None:
        """Pay an army's fee (P-SUP-3) in coin, or in fear for a Servile army, halved ([003:771])."""
        army = self._own_army(army_id, power_id)
        if not army["fee_due"]:
            raise RuleViolation(f"{army['name']} is owed no fee", rule="P-SUP-3", field="army_id")
        if resource == "fear" and "servile" in army["keywords"]:
            amount = ar.fee_in_fear(army, army["fee_due"])
        elif resource == "coin":
            amount = army["fee_due"]
        else:
            raise RuleViolation("a fee is paid in coin (a Servile army's in fear too)", rule="P-SUP-3")
        self.pay(power_id, {resource: amount}, f"fee of {army['name']}", rule="P-SUP-3", actor=actor or power_id)
        self._army_fee_paid(
            army_id=army_id, resource=resource, amount=amount, actor=actor or power_id, audience=army_owner(army)
        )

    @event("ArmyFeePaid")
    def _army_fee_paid(self, army_id: str, resource: str, amount: int, actor: str, audience: list[str]) -> None:
        self.state.armies.armies[army_id]["fee_due"] = 0

    def desert_army(self, army_id: str, to: str | None, reason: str) -> None:
        """GM: an army whose fee went unpaid deserts, and may join another power (P-SUP-3, a GM decision); so may
        one of a power that left its support unpaid at the end of Tidings (P-SUP-1)."""
        army = self.army(army_id)
        limits.check_text(reason, "reason", limits.REASON, required=True, what="the reason")
        support = self.state.armies.support.get(army["controller"] or "")
        unsupported = support is not None and support["season"] == self.state.season and support["paid"] is None
        if not army["fee_due"] and not unsupported:
            raise RuleViolation(f"{army['name']} is owed no fee: it has no cause to desert", rule="P-SUP-3")
        if to is not None:
            self.power(to)
        audience = [vis.PUBLIC] if visible(army) else vis.powers([p for p in (army["controller"], to) if p])
        self._army_deserted(army_id=army_id, to=to, reason=reason.strip(), actor=GM, audience=audience)

    @event("ArmyDeserted")
    def _army_deserted(self, army_id: str, to: str | None, reason: str, actor: str, audience: list[str]) -> None:
        s = self.state
        army = s.armies.armies[army_id]
        army.update({"controller": to, "fee_due": 0, "loyal": False, "seen_by": [], "level_up": None})
        if army_id in s.assets:
            s.assets[army_id].holders = [to] if to else []

    # ------------------------------------------------------------------ level-ups (P-ARMY-3, P-ARMY-4)

    @event("TrainSucceeded")
    def _train_succeeded(
        self, army_id: str, action_id: str, dice: int, experience: list[str], actor: str, audience: list[str]
    ) -> None:
        self.state.armies.armies[army_id]["level_up"] = {
            "action_id": action_id,
            "dice": dice,
            "faces": None,
            "experience": list(experience),
        }

    def roll_level_up(self, army_id: str, power_id: str, roller: Roller, actor: str | None = None) -> list[int]:
        """P-ARMY-3/4: roll the level-up dice (3 plus the Train's excess successes) on the committed roller."""
        army = self._own_army(army_id, power_id)
        lu = army["level_up"]
        if lu is None or lu["faces"] is not None:
            raise RuleViolation(f"{army['name']} has no level-up dice to roll", rule="P-ARMY-3", field="army_id")
        if self.state.seed is None:
            raise RuleViolation("level-up dice are rolled within the month of the Train", rule="P-DICE-2")
        roll_no = self.state.next_roll
        proof = self._roll_proof(roll_no)
        faces = roller.faces(roll_no, lu["dice"])
        self._level_up_rolled(
            army_id=army_id,
            roll_no=roll_no,
            faces=list(faces),
            proof=proof,
            actor=actor or power_id,
            audience=army_owner(army),
        )
        return list(faces)

    @event("LevelUpRolled")
    def _level_up_rolled(
        self, army_id: str, roll_no: int, faces: list[int], proof: dict[str, Any], actor: str, audience: list[str]
    ) -> None:
        self.state.armies.armies[army_id]["level_up"]["faces"] = list(faces)
        self.state.next_roll = roll_no + 1

    def choose_level_up(
        self, army_id: str, power_id: str, choices: list[Any], new_class: str | None = None, actor: str | None = None
    ) -> None:
        """P-ARMY-3/4: "select three bonuses from the rolled options (repetitions allowed)"; rank +1 and fee +1.
        A Levy chooses its new class, which is one of the three (P-AMB-18; two with the campaign option)."""
        army = self._own_army(army_id, power_id)
        lu = army["level_up"]
        if lu is None or lu["faces"] is None:
            raise RuleViolation(f"roll {army['name']}'s level-up dice first", rule="P-ARMY-3", field="army_id")
        if army["cls"] == "levy" and new_class is None:
            raise RuleViolation("a Levy chooses a new class when it levels up", rule="P-ARMY-4", field="new_class")
        if not isinstance(choices, list):
            raise RuleViolation("choices is a list of bonuses", rule="P-ARMY-4", field="choices")
        count = int(self.state.options.get("levelup_bonuses", 3))
        picked = ar.check_choices(ar.level_up_options(lu["faces"]), choices, count, new_class)
        stats = {k: deepcopy(army[k]) for k in _STAT_KEYS}
        if new_class is not None:
            stats = ar.change_class(stats, army["cls"], new_class)
        for b in picked:
            stats = ar.apply_bonus(stats, b)
        stats["rank"] += 1
        stats["fee"] += 1
        self._army_leveled_up(
            army_id=army_id,
            stats=stats,
            bonuses=picked,
            new_class=new_class,
            actor=actor or power_id,
            audience=army_audience(army),
        )

    @event("ArmyLeveledUp")
    def _army_leveled_up(
        self,
        army_id: str,
        stats: dict[str, Any],
        bonuses: list[dict[str, Any]],
        new_class: str | None,
        actor: str,
        audience: list[str],
    ) -> None:
        s = self.state
        army = s.armies.armies[army_id]
        army.update(deepcopy(stats))
        army["level_up"] = None
        if army_id in s.assets:
            s.assets[army_id].rank = army["rank"]

    def discard_train(self, army_id: str, power_id: str, actor: str | None = None) -> None:
        """P-ARMY-3 / P-ASSET-14: "If you are unhappy with the result you can discard the Train action, refunding
        any Experience spent but no other costs"."""
        army = self._own_army(army_id, power_id)
        if army["level_up"] is None:
            raise RuleViolation(f"{army['name']} has no Train to discard", rule="P-ARMY-3", field="army_id")
        self._train_discarded(
            army_id=army_id,
            refunded=list(army["level_up"]["experience"]),
            actor=actor or power_id,
            audience=army_owner(army),
        )

    @event("TrainDiscarded")
    def _train_discarded(self, army_id: str, refunded: list[str], actor: str, audience: list[str]) -> None:
        self.state.armies.armies[army_id]["level_up"] = None
        for asset_id in refunded:
            if asset_id in self.state.assets:
                self.state.assets[asset_id].used_up = False

    @event("ArmyArmed")
    def _army_armed(self, army_id: str, tier: int, actor: str, audience: list[str]) -> None:
        self.state.armies.armies[army_id]["tier"] = tier

    # ------------------------------------------------------------------ disbanding and support (P-SUP-1)

    def disband_army(self, army_id: str, power_id: str, actor: str | None = None) -> None:
        """P-SUP-1: "At the start of each season, during Tidings, you may disband any of your loyal armies"; a levy
        is disbanded "a free action while in their origin town" (P-ARMY-5), its card kept."""
        army = self._own_army(army_id, power_id)
        s = self.state
        town = s.world.towns.get(army["origin_town"] or "")
        in_origin = town is not None and army["hex"] == town["hex"]
        paid = _settled(s.armies, power_id, s.season)
        if not in_origin and not (army["loyal"] and s.step == "tidings" and not paid):
            raise RuleViolation(
                "a loyal army is disbanded at the start of Tidings (before support is settled), a levy in its "
                "origin town",
                rule="P-SUP-1" if army["loyal"] else "P-ARMY-5",
                field="army_id",
            )
        self._army_disbanded(
            army_id=army_id, keep_card=in_origin, actor=actor or power_id, audience=army_audience(army)
        )
        if in_origin and town is not None:
            back = min(ar.depopulation(len(army["units"])), town["statuses"].get("depopulated", 0))
            if back:
                self._town_changed(
                    town_id=army["origin_town"],
                    kind="disband",
                    effect={"statuses": {"depopulated": -back}},
                    by=None,
                    actor=SYSTEM,
                    audience=[vis.PUBLIC],
                )

    @event("ArmyDisbanded")
    def _army_disbanded(self, army_id: str, keep_card: bool, actor: str, audience: list[str]) -> None:
        s = self.state
        army = s.armies.armies.pop(army_id)
        if keep_card:
            s.armies.cards[army_id] = army
        if army_id in s.assets:
            s.assets[army_id].holders = []

    def pay_support(self, power_id: str, changes: dict[str, int], actor: str | None = None) -> None:
        """P-SUP-1: during Tidings, one coin, respect or fear for each unit beyond the support limit."""
        s = self.state
        if s.step != "tidings":
            raise RuleViolation("support is paid during Tidings", rule="P-SUP-1")
        if _settled(s.armies, power_id, s.season):
            raise RuleViolation("support is already settled this season", rule="P-SUP-1")
        due = self.support_due(power_id)
        if not isinstance(changes, dict) or set(changes) - set(ar.SUPPORT_RESOURCES):
            raise RuleViolation("support is paid in coin, respect or fear (P-AMB-21)", rule="P-SUP-1")
        amounts = {k: _int(v, k, 0, 100000, "P-SUP-1") for k, v in changes.items() if v}
        if sum(amounts.values()) != due:
            raise RuleViolation(f"{due} units are beyond the support limit: pay {due}", rule="P-SUP-1")
        if amounts:
            self.pay(power_id, amounts, "support of armies", rule="P-SUP-1", actor=actor or power_id)
        self._support_settled(
            power_id=power_id, due=due, paid=amounts, actor=actor or power_id, audience=vis.powers([power_id])
        )

    @event("SupportSettled")
    def _support_settled(self, power_id: str, due: int, paid: dict[str, int], actor: str, audience: list[str]) -> None:
        self.state.armies.support[power_id] = {"season": self.state.season, "due": due, "paid": dict(paid)}

    def _armies_end_tidings(self) -> None:
        """The end of Tidings (P-SUP-1): a power that has not paid for its units beyond the limit owes them; the
        GM rules what follows (desertions, P-SUP-3)."""
        s = self.state
        for pid in sorted(s.powers):
            if _settled(s.armies, pid, s.season) or not self.armies_of(pid):
                continue
            due = self.support_due(pid)
            if due:
                self._support_unpaid(power_id=pid, due=due, actor=SYSTEM, audience=vis.powers([pid]))

    @event("SupportUnpaid")
    def _support_unpaid(self, power_id: str, due: int, actor: str, audience: list[str]) -> None:
        self.state.armies.support[power_id] = {"season": self.state.season, "due": due, "paid": None}

    # ------------------------------------------------------------------ Cleanup (P-ARMY-2, P-ARMY-9)

    def _armies_cleanup(self) -> None:
        """Cleanup: mustered armies return to their garrisons (P-ARMY-2), then routed units return and wounds
        heal (P-ARMY-9), in the order P.1.2 recommends."""
        for army_id, army in sorted(self.state.armies.armies.items()):
            if army["mustered"]:
                self._army_moved(
                    army_id=army_id,
                    hex=army["garrison"],
                    garrison=army["garrison"],
                    mustered=False,
                    reason="returned",
                    actor=SYSTEM,
                    audience=army_audience(army),
                )
        for army_id, army in sorted(self.state.armies.armies.items()):
            units = ar.recover(army)
            if units != army["units"]:
                self._army_recovered(army_id=army_id, units=units, actor=SYSTEM, audience=army_owner(army))

    def keep_scars(self, army_id: str, power_id: str, keep: bool, actor: str | None = None) -> None:
        """Orcs "may choose to leave a wound present as a scar instead of healing it" (P-ARMY-9): their wounds stay
        through the season's recovery while ``keep`` holds."""
        army = self._own_army(army_id, power_id)
        if army["ancestry"] != "orcs":
            raise RuleViolation("only orc armies keep their wounds as scars", rule="P-ARMY-9", field="army_id")
        self._scars_kept(army_id=army_id, keep=bool(keep), actor=actor or power_id, audience=army_owner(army))

    @event("ScarsKept")
    def _scars_kept(self, army_id: str, keep: bool, actor: str, audience: list[str]) -> None:
        self.state.armies.armies[army_id]["keep_scars"] = keep

    @event("ArmyRecovered")
    def _army_recovered(self, army_id: str, units: list[dict[str, Any]], actor: str, audience: list[str]) -> None:
        self.state.armies.armies[army_id]["units"] = deepcopy(units)


_STAT_KEYS = (
    "rank",
    "tier",
    "attack",
    "morale",
    "presence",
    "defense",
    "armor_base",
    "mobility",
    "fee",
    "keywords",
    "element",
    "cls",
    "ancestry",
    "premium",
    "titanic",
    "wondrous",
)


def army_audience(army: dict[str, Any]) -> list[str]:
    """Who sees an army's scores and position: the table if it is visible, else its controller and those
    who detected it (P.4)."""
    if visible(army):
        return [vis.PUBLIC]
    return vis.powers([p for p in [army["controller"], *army["seen_by"]] if p])


def army_owner(army: dict[str, Any]) -> list[str]:
    """The army's controller alone, as an audience (none for an army no one controls)."""
    return vis.powers([army["controller"]] if army["controller"] else [])


def _map_hex(world: WorldState, hex_id: Any) -> str:
    """A hex of the map, or refused (P-ACT-4)."""
    h = _hex(hex_id)
    if h not in world.hexes:
        raise RuleViolation(f"{h} is not on the map", rule="P-ACT-4", field="hex")
    return h


def _can_garrison(world: WorldState, hex_id: str) -> bool:
    """Whether an army may garrison at ``hex_id``: a town or a stronghold or outpost stands there."""
    return any(t["hex"] == hex_id for t in world.towns.values()) or any(
        f["hex"] == hex_id and f["kind"] in ("stronghold", "outpost") for f in world.features.values()
    )


def _settled(armies: ArmiesState, power_id: str, season: int) -> bool:
    """Whether the power's support was settled (paid, or recorded unpaid) this season (P-SUP-1)."""
    support = armies.support.get(power_id)
    return support is not None and support["season"] == season


def _bound_misused(armies: ArmiesState, asset_id: str, aim: dict[str, Any] | None) -> bool:
    """Whether an asset bound to an army's action (its kind and army) joins another action."""
    b = armies.bound.get(asset_id)
    if b is None:
        return False
    return aim is None or aim["kind"] != b["kind"] or aim.get("army_id") != b["army"]


def _levied_army(levy: dict[str, Any], power: str, town_hex: str, card: dict[str, Any] | None) -> dict[str, Any]:
    """A Loyalist Levy's army, in its town (P-ARMY-5); raised from a card, it keeps the card's experience and
    levy size."""
    army = _new_army(
        levy["army_id"], levy["name"], power, levy["stats"], levy["size"], town_hex, town_hex, False, False, False
    )
    army.update({"origin_town": levy["town_id"], "levy_size": levy["size"]})
    if card is not None:
        army.update({"experience": list(card["experience"]), "levy_size": card["levy_size"]})
    return army


def _recovered_army(dispersed: dict[str, Any], power: str, back: int) -> dict[str, Any]:
    """A dispersed army's cowards gathered again by ``power`` (P-ARMY-7): ``back`` fresh units; gathered by
    another power than its own, it is not loyal, has no experience and is garrisoned where it stands."""
    army = {**deepcopy(dispersed), "controller": power, "seen_by": []}
    army["units"] = [{"wounds": 0, "routed": False} for _ in range(back)]
    army["mustered"], army["fee_due"], army["level_up"] = False, 0, None
    for k in ("fled", "season"):
        army.pop(k, None)
    if dispersed["controller"] != power:
        army.update({"loyal": False, "experience": [], "garrison": army["hex"]})
    return army


def _new_army(
    army_id: str,
    name: str,
    controller: str | None,
    stats: dict[str, Any],
    units: int,
    hex_id: str,
    garrison: str,
    loyal: bool,
    personal: bool,
    hidden: bool,
) -> dict[str, Any]:
    """An army as the state keeps it: what the battle (P-BAT-*) will read is all here."""
    army = {k: deepcopy(stats[k]) for k in _STAT_KEYS}
    army.update(
        {
            "id": army_id,
            "name": name,
            "controller": controller,
            "units": [{"wounds": 0, "routed": False} for _ in range(units)],
            "wounds_to_die": ar.wounds_to_die(stats["cls"], stats["ancestry"]),
            "hex": hex_id,
            "garrison": garrison,
            "mustered": False,
            "loyal": loyal,
            "personal": personal,
            "hidden": hidden,
            "seen_by": [],
            "origin_town": None,
            "levy_size": None,
            "experience": [],
            "statuses": {},
            "momentum": 0,
            "fee_due": 0,
            "level_up": None,
            "keep_scars": False,
        }
    )
    return army


# ---------------------------------------------------------------------- who sees what (P.4)


def _public_card(game: Armies, army: dict[str, Any]) -> dict[str, Any]:
    """What the table sees of a visible army: its scores and keywords ([003:326]), where it stands, its size."""
    return {
        "army_id": army["id"],
        "name": army["name"],
        "controller": army["controller"],
        "hex": army["hex"],
        "rank": army["rank"],
        "cls": army["cls"],
        "ancestry": army["ancestry"],
        "tier": at.TIERS[army["tier"]],
        "size": ar.size(army),
        "attack": dict(army["attack"]),
        "morale": dict(army["morale"]),
        "presence": dict(army["presence"]),
        "defense": army["defense"],
        "armor": ar.armor(army),
        "mobility": army["mobility"],
        "fee": army["fee"],
        "element": army["element"],
        "keywords": list(army["keywords"]),
        "premium": army["premium"],
        "titanic": army["titanic"],
        "garrison": army["garrison"],
        "mustered": army["mustered"],
    }


def _full_card(game: Game, army: dict[str, Any]) -> dict[str, Any]:
    return {
        **_public_card(game, army),
        "units": deepcopy(army["units"]),
        "wounds_to_die": army["wounds_to_die"],
        "loyal": army["loyal"],
        "personal": army["personal"],
        "visible": visible(army),
        "origin_town": army["origin_town"],
        "experience": [
            {"asset_id": x, "rank": game.state.assets[x].rank, "used_up": game.state.assets[x].used_up}
            for x in army["experience"]
            if x in game.state.assets
        ],
        "statuses": dict(army["statuses"]),
        "fee_due": army["fee_due"],
        "level_up": deepcopy(army["level_up"]),
        "keep_scars": army.get("keep_scars", False),
    }


def armies_view(game: Game, viewer: str) -> dict[str, Any]:
    """The armies part of a viewer's board (P.4): the GM sees every army in full; a power its own in full, the
    visible armies' public cards, and hidden armies only where it detected them."""
    s = game.state
    out: dict[str, Any] = {"types": deepcopy(s.armies.types), "armies": []}
    for _, army in sorted(s.armies.armies.items()):
        if viewer == GM or army["controller"] == viewer:
            out["armies"].append(_full_card(game, army))
        elif visible(army) or viewer in army["seen_by"]:
            out["armies"].append(_public_card(game, army))
    if viewer == GM:
        out["dispersed"] = deepcopy(s.armies.dispersed)
        out["support"] = {pid: _support(game, pid) for pid in sorted(s.powers)}
    elif viewer in s.powers:
        out["support"] = {viewer: _support(game, viewer)}
        out["cards"] = sorted(k for k, c in s.armies.cards.items() if c["controller"] == viewer)
    return out


def _support(game: Game, power_id: str) -> dict[str, Any]:
    return {
        "limit": game.support_limit(power_id),
        "units": game.units_counted(power_id),
        "due": game.support_due(power_id),
        "settled": deepcopy(game.state.armies.support.get(power_id)),
    }


# ---------------------------------------------------------------------- commands


@dataclass(frozen=True)
class DefineArmyType(Command):
    """GM: define an army type as data (wondrous armies)."""

    type_id: str
    block: dict[str, Any]


@dataclass(frozen=True)
class PlaceArmy(Command):
    """GM: put an army on the map, of a type or with its own stat block."""

    army_id: str
    name: str
    hex: str
    units: int
    controller: str | None = None
    type_id: str | None = None
    block: dict[str, Any] | None = None
    garrison: str | None = None
    loyal: bool = False
    personal: bool = False
    hidden: bool = False


@dataclass(frozen=True)
class DetectArmy(Command):
    """GM: a power detected a non-visible army (P.4)."""

    army_id: str
    power_id: str


@dataclass(frozen=True)
class SetSupportBonus(Command):
    """GM: what a power's effects add to its support limit (P-SUP-2)."""

    power_id: str
    bonus: int


@dataclass(frozen=True)
class GrantExperience(Command):
    """GM (or the battle): an army's one-use Experience asset (P-ASSET-14)."""

    army_id: str
    rank: int


@dataclass(frozen=True)
class RecordDispersal(Command):
    """GM (or the battle): an army fully dispersed by rout (P-ARMY-7)."""

    army_id: str


@dataclass(frozen=True)
class AimArmyAction(Command):
    """Aim one's Planning action at armies: muster, train, forge, levy or gather."""

    action_id: str
    kind: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class RollLevelUp(Command):
    """Roll a trained army's level-up dice (P-ARMY-3)."""

    power_id: str
    army_id: str


@dataclass(frozen=True)
class ChooseLevelUp(Command):
    """Choose a level-up's bonuses from the rolled options (P-ARMY-4); a Levy its new class."""

    power_id: str
    army_id: str
    choices: list[Any]
    new_class: str | None = None


@dataclass(frozen=True)
class DiscardTrain(Command):
    """Discard a Train's level-up, refunding the Experience spent (P-ARMY-3)."""

    power_id: str
    army_id: str


@dataclass(frozen=True)
class KeepScars(Command):
    """An orc army keeps its wounds as scars through recovery, or heals them again (P-ARMY-9)."""

    power_id: str
    army_id: str
    keep: bool = True


@dataclass(frozen=True)
class PayArmyFee(Command):
    """Pay an army's fee (P-SUP-3)."""

    power_id: str
    army_id: str
    resource: str = "coin"


@dataclass(frozen=True)
class DesertArmy(Command):
    """GM: an army with an unpaid fee deserts, perhaps to another power (P-SUP-3)."""

    army_id: str
    reason: str
    to: str | None = None


@dataclass(frozen=True)
class DisbandArmy(Command):
    """Disband a loyal army at the start of Tidings, or a levy in its origin town (P-SUP-1, P-ARMY-5)."""

    power_id: str
    army_id: str


@dataclass(frozen=True)
class PaySupport(Command):
    """Pay for the units beyond the support limit in coin, respect or fear (P-SUP-1)."""

    power_id: str
    changes: dict[str, int]


def _define_army_type(game: Game, cmd: DefineArmyType, ctx: Context) -> None:
    require_gm(ctx)
    game.define_army_type(cmd.type_id, dict(cmd.block))


def _place_army(game: Game, cmd: PlaceArmy, ctx: Context) -> None:
    require_gm(ctx)
    game.place_army(
        cmd.army_id,
        cmd.name,
        cmd.hex,
        cmd.units,
        controller=cmd.controller,
        type_id=cmd.type_id,
        block=dict(cmd.block) if cmd.block is not None else None,
        garrison=cmd.garrison,
        loyal=cmd.loyal,
        personal=cmd.personal,
        hidden=cmd.hidden,
    )


def _detect_army(game: Game, cmd: DetectArmy, ctx: Context) -> None:
    require_gm(ctx)
    game.detect_army(cmd.army_id, cmd.power_id)


def _set_support_bonus(game: Game, cmd: SetSupportBonus, ctx: Context) -> None:
    require_gm(ctx)
    game.set_support_bonus(cmd.power_id, cmd.bonus)


def _grant_experience(game: Game, cmd: GrantExperience, ctx: Context) -> None:
    require_gm(ctx)
    game.grant_experience(cmd.army_id, cmd.rank)


def _record_dispersal(game: Game, cmd: RecordDispersal, ctx: Context) -> None:
    require_gm(ctx)
    game.record_dispersal(cmd.army_id)


def _aim_army_action(game: Game, cmd: AimArmyAction, ctx: Context) -> dict[str, Any]:
    a = game.state.actions.get(cmd.action_id)
    if a is None or (ctx.principal != GM and a.power != ctx.principal):
        raise NotFound(f"no action {cmd.action_id!r} of yours this month", field="action_id")
    require_seat(game, ctx, a.power)
    game.aim_army_action(cmd.action_id, cmd.kind, dict(cmd.params), actor=ctx.principal)
    return {"action_id": cmd.action_id, "difficulty": game.state.actions[cmd.action_id].difficulty}


def _roll_level_up(game: Game, cmd: RollLevelUp, ctx: Context) -> dict[str, Any]:
    require_seat(game, ctx, cmd.power_id)
    return {"faces": game.roll_level_up(cmd.army_id, cmd.power_id, ctx.roller(game), actor=ctx.principal)}


def _choose_level_up(game: Game, cmd: ChooseLevelUp, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.choose_level_up(cmd.army_id, cmd.power_id, list(cmd.choices), cmd.new_class, actor=ctx.principal)


def _discard_train(game: Game, cmd: DiscardTrain, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.discard_train(cmd.army_id, cmd.power_id, actor=ctx.principal)


def _keep_scars(game: Game, cmd: KeepScars, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.keep_scars(cmd.army_id, cmd.power_id, cmd.keep, actor=ctx.principal)


def _pay_army_fee(game: Game, cmd: PayArmyFee, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.pay_army_fee(cmd.army_id, cmd.power_id, cmd.resource, actor=ctx.principal)


def _desert_army(game: Game, cmd: DesertArmy, ctx: Context) -> None:
    require_gm(ctx)
    game.desert_army(cmd.army_id, cmd.to, cmd.reason)


def _disband_army(game: Game, cmd: DisbandArmy, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.disband_army(cmd.army_id, cmd.power_id, actor=ctx.principal)


def _pay_support(game: Game, cmd: PaySupport, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.pay_support(cmd.power_id, dict(cmd.changes), actor=ctx.principal)


ARMY_COMMANDS: Mapping[type, Handler] = {
    DefineArmyType: _define_army_type,
    PlaceArmy: _place_army,
    DetectArmy: _detect_army,
    SetSupportBonus: _set_support_bonus,
    GrantExperience: _grant_experience,
    RecordDispersal: _record_dispersal,
    AimArmyAction: _aim_army_action,
    RollLevelUp: _roll_level_up,
    ChooseLevelUp: _choose_level_up,
    DiscardTrain: _discard_train,
    KeepScars: _keep_scars,
    PayArmyFee: _pay_army_fee,
    DesertArmy: _desert_army,
    DisbandArmy: _disband_army,
    PaySupport: _pay_support,
}
