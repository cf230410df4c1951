"""The armies on the map (P-ARMY-8, P-ASSET-7, P-ASSET-14, P-ARMY-7, P.4): the GM defines army types as data (the
rules' "Wondrous Armies" section is empty) and places armies; an army with a controller is its asset; the GM says
who detected a non-visible army; the battle records Experience (P-BAT-13) and an army dispersed by rout.

An army is recorded whole for its controller (``ArmyPlaced``) and its public card for those who see it
(``ArmySighted``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import limits
from domain import visibility as vis
from domain.copying import deepcopy
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.powers import army_rules as ar
from domain.powers import army_types as at
from domain.powers.armies_base import ArmyEvent, army, map_hex, record, whole
from domain.powers.armies_state import army_audience, army_owner, new_army, visible
from domain.powers.armies_view import public_card

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState

ELEMENTS = ("A", "F", "E", "W", "D", "L", None)


def block(data: Any, rule: str = "P-ARMY-8") -> dict[str, Any]:
    """A stat block given as data, checked (P-ARMY-8)."""
    if not isinstance(data, dict):
        raise RuleViolation("a stat block is an object", rule=rule, field="block")
    out: dict[str, Any] = {}
    for a in at.ATTRIBUTES:
        d = data.get(a)
        if not isinstance(d, dict):
            raise RuleViolation(f"{a} is {{die, bonus}}", rule=rule, field=a)
        die = whole(d.get("die"), a, 2, ar.MAX_DIE, rule)
        if die % 2:
            raise RuleViolation(f"{a}'s die has an even number of sides", rule=rule, field=a)
        out[a] = {"die": die, "bonus": whole(d.get("bonus", 0), a, -5, 10, rule)}
    out["defense"] = whole(data.get("defense"), "defense", 0, 30, rule)
    out["armor_base"] = whole(data.get("armor", 0), "armor", -5, 30, rule)
    out["mobility"] = whole(data.get("mobility", 1), "mobility", -5, 30, rule)
    out["fee"] = whole(data.get("fee", 0), "fee", 0, 100, rule)
    out["rank"] = whole(data.get("rank", 1), "rank", 1, 20, rule)
    out["tier"] = whole(data.get("tier", 0), "tier", 0, len(at.TIERS) - 1, rule)
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


# ---------------------------------------------------------------------- the GM's types and armies


def define_army_type(game: Game, type_id: str, data: dict[str, Any]) -> None:
    """GM: an army type as data (the rules' "Wondrous Armies" section is empty, P-AMB-42)."""
    limits.check_text(type_id, "type_id", limits.IDENTIFIER, required=True, what="an army type's id")
    record(game, ArmyTypeDefined, type_id=type_id, block=block(data), actor=GM, audience=[vis.PUBLIC])


def place_army(
    game: Game,
    army_id: str,
    name: str,
    hex_id: str,
    units: int,
    *,
    controller: str | None = None,
    type_id: str | None = None,
    data: dict[str, Any] | None = None,
    garrison: str | None = None,
    loyal: bool = False,
    personal: bool = False,
    hidden: bool = False,
) -> None:
    """GM: put an army on the map (a rogue army, a City's starting army, a wondrous army of a type)."""
    s = game.state
    limits.check_text(army_id, "army_id", limits.IDENTIFIER, required=True, what="an army's id")
    limits.check_text(name, "name", limits.ASSET_NAME, required=True, what="an army's name")
    if army_id in s.armies.armies or army_id in s.assets:
        raise RuleViolation(f"there is already an army or asset {army_id!r}", rule="P-ARMY-8", field="army_id")
    if controller is not None:
        game.power(controller)
    if type_id is not None:
        if type_id not in s.armies.types:
            raise NotFound(f"no army type {type_id!r}", field="type_id")
        stats = deepcopy(s.armies.types[type_id])
    else:
        stats = block(data)
    where = map_hex(s.world, hex_id)
    home = map_hex(s.world, garrison) if garrison is not None else where
    whole(units, "units", 1, ar.MAX_SIZE, "P-ARMY-8")
    if personal and (controller is None or game.power(controller).cls != "champion"):
        raise RuleViolation("a Personal Army is a champion's own body", rule="P-SUP-3", field="personal")
    record_army(game, new_army(army_id, name.strip(), controller, stats, units, where, home, loyal, personal, hidden))


def record_army(game: Game, army: dict[str, Any], actor: str = GM) -> None:
    """Record a new army, and grant it as an asset to its controller (but a champion's Personal Army)."""
    place(game, army, actor)
    if army["controller"] and not army["personal"]:
        # The army as an asset of its controller (P-ASSET-7: a profession keyword makes it help outside
        # combat); its rank follows the army's.
        game._asset_granted(
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


def place(game: Game, army: dict[str, Any], actor: str) -> None:
    """The whole army goes to its controller (its wounds and Experience are theirs); the table, or those who
    detected it, see the card P.4 makes public."""
    record(game, ArmyPlaced, army=army, actor=actor, audience=army_owner(army))
    seen = army_audience(army)
    if seen != army_owner(army):
        record(game, ArmySighted, army_id=army["id"], card=public_card(army), actor=actor, audience=seen)


def detect_army(game: Game, army_id: str, power_id: str) -> None:
    """GM: a power detected a non-visible army (Seeking, [003:497]); it sees its card from now on (P.4)."""
    a = army(game.state, army_id)
    game.power(power_id)
    if visible(a) or power_id == a["controller"] or power_id in a["seen_by"]:
        raise RuleViolation(f"{power_id} already sees {a['name']}", rule="P.4", field="power_id")
    record(
        game,
        ArmyDetected,
        army_id=army_id,
        power_id=power_id,
        card=public_card(a),
        actor=GM,
        audience=vis.powers([power_id]),
    )


# ---------------------------------------------------------------------- what the battle records


def grant_experience(game: Game, army_id: str, rank: int) -> None:
    """An army's Experience (P-ASSET-14, gained after battle, P-BAT-13): a one-use asset only this army uses
    (towards its Train)."""
    a = army(game.state, army_id)
    whole(rank, "rank", 1, 10, "P-ASSET-14")
    if a["controller"] is None:
        raise RuleViolation("a rogue army's experience is the GM's to keep", rule="P-ASSET-14")
    asset_id = f"{army_id}.xp{len(a['experience']) + 1}"
    record(game, ExperienceGained, army_id=army_id, asset_id=asset_id, rank=rank, actor=GM, audience=army_owner(a))
    game._asset_granted(
        asset_id=asset_id,
        power_id=a["controller"],
        name=f"Experience of {a['name']}",
        cls="consumable",
        rank=rank,
        assured=False,
        critical=False,
        novel=False,
        actor=SYSTEM,
        audience=army_owner(a),
    )


def record_dispersal(game: Game, army_id: str) -> None:
    """GM (or the battle): an army fully dispersed by rout; its cowards may be gathered next season (P-ARMY-7). Its
    former controller gets the "+3 asset" for gathering them."""
    s = game.state
    a = army(s, army_id)
    if ar.size(a) != 0 or not a["units"]:
        raise RuleViolation(f"{a['name']} is not fully dispersed by rout", rule="P-ARMY-7", field="army_id")
    dispersed = {**deepcopy(a), "fled": len(a["units"]), "season": s.season}
    # The record keeps its wounds and Experience: the controller's; the army leaves the others' boards.
    record(game, ArmyDispersed, army_id=army_id, record=dispersed, actor=GM, audience=army_owner(a))
    if a["controller"]:
        game._asset_granted(
            asset_id=f"{army_id}.cowards{s.season}",
            power_id=a["controller"],
            name=f"Former command of {a['name']}",
            cls="consumable",
            rank=ar.COWARDS_ASSET_RANK,
            assured=False,
            critical=False,
            novel=False,
            actor=SYSTEM,
            audience=army_owner(a),
        )


# ---------------------------------------------------------------------- events


class ArmyTypeDefined(ArmyEvent):
    type_id: str
    block: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.types[self.type_id] = self.block


class ArmySighted(ArmyEvent):
    """The feed's record of what the table saw; the army itself is in ArmyPlaced."""

    army_id: str
    card: dict[str, Any]
    actor: str
    audience: list[str]


class ArmyPlaced(ArmyEvent):
    army: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army["id"]] = deepcopy(self.army)
        s.armies.dispersed.pop(self.army["id"], None)


class ArmyDetected(ArmyEvent):
    army_id: str
    power_id: str
    card: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army_id]["seen_by"].append(self.power_id)


class ExperienceGained(ArmyEvent):
    army_id: str
    asset_id: str
    rank: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies[self.army_id]["experience"].append(self.asset_id)
        s.armies.bound[self.asset_id] = {"army": self.army_id, "kind": "train"}


class ArmyDispersed(ArmyEvent):
    army_id: str
    record: dict[str, Any]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.armies.armies.pop(self.army_id)
        s.armies.dispersed[self.army_id] = deepcopy(self.record)
        if self.record["controller"]:
            s.armies.bound[f"{self.army_id}.cowards{self.record['season']}"] = {"army": self.army_id, "kind": "gather"}
        if self.army_id in s.assets:
            s.assets[self.army_id].holders = []


class ArmyRestored(ArmyEvent):
    """A levy's card raised again, or cowards gathered: the army's asset comes back to its controller."""

    army_id: str
    power_id: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        army = s.armies.armies[self.army_id]
        if self.army_id in s.assets:
            s.assets[self.army_id].holders = [self.power_id]
            s.assets[self.army_id].rank = army["rank"]
        else:
            from domain.powers.state import Asset

            s.assets[self.army_id] = Asset(
                id=self.army_id, name=army["name"], cls="army", rank=army["rank"], holders=[self.power_id]
            )
