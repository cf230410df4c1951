"""The world around the month: the hex map the GM declares, towns and their claims, features, and
conspiracies' influence on the map (rules/ANALYSIS.md P-ACT-4, P.2.7, P.2.8).

The GM declares the map as data (``declare_map``) and amends it (``amend_map``); each viewer sees it as
P.4 allows (``map_view``): the terrain, roads, towns and their built features are public; non-built
features (outposts, dungeons, ruins) are shown to their controller, to whoever learned of them, or to all
if the GM made them public; what is inside a stronghold stays with its owner. Influence keeps the rules
of ``Game.set_influence`` (a conspiracy sees another's where it has influence too; Incorruptible sees it
all): every change here goes through the same ``InfluenceSet`` event and audience.

Actions reach the world by being aimed (``aim_action``) at a dungeon floor, a ruin, a town action, an
Infiltrate or a stronghold module: the rules set the difficulty where they give a formula, and when the
action resolves its effect is recorded (``_world_resolved``). Season bookkeeping runs from ``advance``:
at Tidings the outposts are raised and strongholds' maintenance falls due; at Cleanup towns' statuses
act and tick down.
"""

from __future__ import annotations

from collections.abc import Mapping
from copy import deepcopy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from eventsourcing.domain import event

from domain import limits
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.commands import Command, Context, Handler, require_gm, require_seat
from domain.platform.game import PlatformGame
from domain.powers import hexmap
from domain.powers import world_rules as wr
from domain.powers.magic import kept_gain

if TYPE_CHECKING:
    from domain.powers.state import ActionState, GameState, PowerState

MAP_ITEMS = 5000  # hexes, towns or features in one declaration: a campaign map, not an unbounded list
AIMS = ("delve", "clear", "town", "infiltrate", "module", "workers_unite", "channel")
# The rules name no element per terrain ("a mana of the terrain element", [003:1129]): the GM declares it per hex.
ELEMENTS = ("A", "F", "E", "W")
GM_FACTS = ("new_resources", "excess_mobility", "rooted_agent_ranks", "agents_died")


def _int(value: Any, field: str, low: int = 0, high: int = limits.NUMBER) -> int:
    return limits.whole_number(value, field, low, high, "P-FEAT-1")


def _hex(value: Any, field: str = "hex") -> str:
    return hexmap.normal_hex(value)  # refusals name the field "hex", as they always have


class World(PlatformGame):
    """The map, towns, features and influence of a Powers game (a base of ``Game``)."""

    def _g(self) -> Any:
        """This aggregate as the ``Game`` it is part of (the rules here call the month's own methods)."""
        return self

    # ------------------------------------------------------------------ the map (P-ACT-4, P.4)

    def declare_map(self, hexes: list, towns: list | None = None, features: list | None = None) -> None:
        """The GM declares the whole map as data, replacing any earlier one (P-ACT-4)."""
        data = self._check_map(hexes, towns or [], features or [], base=None)
        self._map_declared(**data, actor=GM, audience=[vis.GM_ONLY])
        self._publish_map(data, removed=[], whole=True)

    def amend_map(
        self,
        hexes: list | None = None,
        towns: list | None = None,
        features: list | None = None,
        remove: list | None = None,
    ) -> None:
        """The GM adds or replaces hexes, towns and features, or removes them by id (P-ACT-4)."""
        w = self.state.world
        removed = [str(x) for x in (remove or [])]
        if len(removed) > MAP_ITEMS:
            raise RuleViolation(f"remove at most {MAP_ITEMS} items at once", field="remove")
        for x in removed:
            if x not in w.features and x not in w.towns and x not in w.hexes:
                raise NotFound(f"no hex, town or feature {x!r} on the map", field="remove")
        data = self._check_map(hexes or [], towns or [], features or [], base=w, removed=removed)
        # The table hears of removed hexes, towns and public features only: a hidden feature's id is its own.
        seen = [x for x in removed if x in w.hexes or x in w.towns or (x in w.features and w.features[x]["public"])]
        self._map_amended(**data, removed=removed, actor=GM, audience=[vis.GM_ONLY])
        self._publish_map(data, removed=seen, whole=False)

    def _check_map(
        self, hexes: list, towns: list, features: list, base: Any, removed: list | None = None
    ) -> dict[str, dict]:
        for name, items in (("hexes", hexes), ("towns", towns), ("features", features)):
            if not isinstance(items, list) or len(items) > MAP_ITEMS:
                raise RuleViolation(f"{name} is a list of at most {MAP_ITEMS} items", rule="P-ACT-4", field=name)
        gone = set(removed or [])
        out_hexes: dict[str, dict] = {}
        for h in hexes:
            if not isinstance(h, dict):
                raise RuleViolation("each hex is an object with a hex id 'q,r'", rule="P-ACT-4", field="hexes")
            hid = _hex(h.get("hex"))
            terrain = limits.check_text(h.get("terrain", "plains"), "terrain", limits.IDENTIFIER, what="a terrain")
            name = limits.check_text(h.get("name", ""), "name", limits.POWER_NAME, what="a hex's name")
            element = h.get("element")
            if element is not None and element not in ELEMENTS:
                raise RuleViolation(
                    f"a hex's mana element is one of {', '.join(ELEMENTS)}", rule="P-INFL-6", field="hexes"
                )
            out_hexes[hid] = {
                "terrain": terrain.strip().lower(),
                "road": bool(h.get("road", False)),
                "name": name,
                "element": element,
            }
        known_hexes = {h for h in (base.hexes if base else {}) if h not in gone} | set(out_hexes)
        out_towns: dict[str, dict] = {}
        for t in towns:
            out_towns.update(self._check_town(t, known_hexes, base))
        known_towns = {t for t in (base.towns if base else {}) if t not in gone} | set(out_towns)
        out_features: dict[str, dict] = {}
        for f in features:
            out_features.update(self._check_feature(f, known_hexes, known_towns, out_towns, base))
        # A town or feature may not sit on a hex this change removes.
        for tid, t in base.towns.items() if base else []:
            if tid not in gone and tid not in out_towns and t["hex"] not in known_hexes:
                raise RuleViolation(f"town {tid!r} stands on {t['hex']}, which is removed", rule="P-ACT-4")
        for fid, f in base.features.items() if base else []:
            if fid in gone or fid in out_features:
                continue
            if f["hex"] not in known_hexes or (f["town"] is not None and f["town"] not in known_towns):
                raise RuleViolation(
                    f"feature {fid!r} stands on {f['town'] or f['hex']}, which is removed: remove it too",
                    rule="P-ACT-4",
                    field="remove",
                )
        return {"hexes": out_hexes, "towns": out_towns, "features": out_features}

    def _check_town(self, t: Any, known_hexes: set, base: Any) -> dict:
        if not isinstance(t, dict):
            raise RuleViolation("each town is an object with an id and a hex", rule="P-ACT-4", field="towns")
        tid = limits.check_text(t.get("id"), "towns", limits.IDENTIFIER, required=True, what="a town's id")
        hid = _hex(t.get("hex"))
        if hid not in known_hexes:
            raise RuleViolation(f"town {tid!r} is on {hid}, which is not on the map", rule="P-ACT-4", field="towns")
        statuses = t.get("statuses") or {}
        if not isinstance(statuses, dict):
            raise RuleViolation("a town's statuses are {name: stacks}", rule="P-TOWN-4", field="statuses")
        for k, v in statuses.items():
            if k not in wr.TOWN_STATUSES:
                raise RuleViolation(
                    f"a town's status is one of {', '.join(wr.TOWN_STATUSES)}; {k!r} is not",
                    rule="P-TOWN-4",
                    field="statuses",
                )
            _int(v, "statuses", 0, 100)
        old = base.towns.get(tid) if base else None
        claims = deepcopy(old["claims"]) if old else {}
        given = t.get("claims")
        if given is not None:
            if not isinstance(given, dict):
                raise RuleViolation("a town's claims are {power type: power id}", rule="P-TOWN-1", field="claims")
            seq = self.state.world.claim_seq
            kept: dict[str, dict] = {}
            for cls, pid in given.items():
                if self.power(pid).cls != cls:
                    raise RuleViolation(f"{pid} is not a {cls}: it cannot hold the {cls} claim", rule="P-TOWN-1")
                wr.check_claim(kept, cls, pid)
                prior = claims.get(cls)
                if prior and prior["power"] == pid:
                    kept[cls] = prior
                else:
                    seq += 1
                    kept[cls] = {"power": pid, "since": seq}
            claims = kept
        return {
            tid: {
                "name": limits.check_text(t.get("name", tid), "name", limits.POWER_NAME, what="a town's name"),
                "hex": hid,
                "population": _int(t.get("population", 1), "population", 0, 1000),
                "wealth": _int(t.get("wealth", 0), "wealth", 0, 1000),
                "statuses": {k: v for k, v in statuses.items() if v},
                "claims": claims,
                "feeds": old["feeds"] if old else 0,
                "stop_order": [str(x) for x in t.get("stop_order", old["stop_order"] if old else [])],
            }
        }

    def _check_feature(self, f: Any, known_hexes: set, known_towns: set, new_towns: dict, base: Any) -> dict:
        if not isinstance(f, dict):
            raise RuleViolation("each feature is an object with an id, a kind and a hex", rule="P-FEAT-1")
        fid = limits.check_text(f.get("id"), "features", limits.IDENTIFIER, required=True, what="a feature's id")
        kind = str(f.get("kind"))
        ft = wr.feature_type(kind)
        town = f.get("town")
        if town is not None:
            if town not in known_towns:
                raise RuleViolation(f"feature {fid!r} names no town {town!r}", rule="P-ACT-4", field="features")
            hid = (new_towns.get(town) or base.towns[town])["hex"]
        else:
            hid = _hex(f.get("hex"))
        if hid not in known_hexes:
            raise RuleViolation(f"feature {fid!r} is on {hid}, which is not on the map", rule="P-ACT-4")
        for key in ("upgrades", "modules", "floors", "known_to"):
            if not isinstance(f.get(key, []), list) or len(f.get(key, [])) > limits.ITEMS:
                raise RuleViolation(f"a feature's {key} is a list", rule="P-FEAT-1", field=key)
        if any(not isinstance(fl, dict) for fl in f.get("floors", [])):
            raise RuleViolation("each floor is an object with a difficulty", rule="P-FEAT-4", field="floors")
        if f.get("becomes") is not None and not isinstance(f["becomes"], dict):
            raise RuleViolation("what a ruin becomes is a feature: {kind, modules}", rule="P-FEAT-4")
        if kind == "herd" and f.get("mount") not in (None, *wr.HERD_MOUNTS):
            raise RuleViolation(f"a herd's mounts are one of {', '.join(wr.HERD_MOUNTS)}", rule="P-FEAT-1")
        if f.get("asset_id") is not None:
            limits.check_text(f["asset_id"], "asset_id", limits.IDENTIFIER, what="an asset id")
        upgrades = [str(u) for u in f.get("upgrades", [])]
        wr.check_upgrades(kind, upgrades)
        modules = [str(m) for m in f.get("modules", [])]
        for m in modules:
            if kind != "stronghold" or m not in wr.MODULES:
                raise RuleViolation(
                    f"modules belong to strongholds, and are one of {', '.join(wr.MODULES)}", rule="P-FEAT-3"
                )
        controller = f.get("controller")
        if controller is not None:
            self.power(controller)
        floors = []
        for fl in f.get("floors", []) if kind == "dungeon" else []:
            floors.append(
                {
                    "difficulty": _int(fl.get("difficulty"), "floors", 0, 50),
                    "reward": limits.check_text(fl.get("reward", ""), "floors", limits.GRANT_TEXT, what="a reward"),
                }
            )
        known_to = sorted({str(p) for p in f.get("known_to", [])})
        for p in known_to:
            self.power(p)
        old = base.features.get(fid) if base else None
        becomes = f.get("becomes")
        if becomes is not None:
            wr.feature_type(str(becomes.get("kind")))
        return {
            fid: {
                "kind": kind,
                "name": limits.check_text(f.get("name", kind), "name", limits.ASSET_NAME, what="a feature's name"),
                "hex": hid,
                "town": town,
                "controller": controller,
                # Built features of towns are public; the GM decides for the others (P.4, [003:328]).
                "public": bool(f.get("public", ft.built)),
                "upgrades": upgrades,
                "modules": modules,
                "mount": f.get("mount") if kind == "herd" else None,
                "stored": _int(f.get("stored", 0), "stored"),
                "floors": floors,
                "threat": _int(f.get("threat", 0), "threat", 0, 1000),
                "difficulty": _int(f.get("difficulty", 0), "difficulty", 0, 50),
                "reward": limits.check_text(f.get("reward", ""), "reward", limits.GRANT_TEXT, what="a reward"),
                "becomes": deepcopy(becomes),
                "known_to": known_to,
                "cleared": deepcopy(old["cleared"]) if old else {},
                "asset_id": f.get("asset_id"),
                "protection": limits.check_text(
                    f.get("protection", ""), "protection", limits.GRANT_TEXT, what="a protection"
                ),
                "inoperable": bool(f.get("inoperable", False)),
                "maintenance_due": old["maintenance_due"] if old else None,
            }
        }

    @event("MapDeclared")
    def _map_declared(self, hexes: dict, towns: dict, features: dict, actor: str, audience: list) -> None:
        w = self.state.world
        w.hexes, w.towns, w.features = deepcopy(hexes), deepcopy(towns), deepcopy(features)
        w.claim_seq = max([c["since"] for t in towns.values() for c in t["claims"].values()] + [w.claim_seq])

    @event("MapAmended")
    def _map_amended(self, hexes: dict, towns: dict, features: dict, removed: list, actor: str, audience: list) -> None:
        w = self.state.world
        for x in removed:
            w.hexes.pop(x, None)
            w.towns.pop(x, None)
            w.features.pop(x, None)
        w.hexes.update(deepcopy(hexes))
        w.towns.update(deepcopy(towns))
        w.features.update(deepcopy(features))
        w.claim_seq = max([c["since"] for t in w.towns.values() for c in t["claims"].values()] + [w.claim_seq])

    def _publish_map(self, data: dict, removed: list, whole: bool) -> None:
        """Tell the table what it may see of what changed on the map (all of it when it is declared), and each
        power the hidden features it may see."""
        public = map_view(self, vis.PUBLIC)
        changed = {key: set(data[key]) for key in ("hexes", "towns", "features")}
        changed["towns"] |= {f["town"] for f in data["features"].values() if f["town"]}
        if not whole:
            public["hexes"] = [h for h in public["hexes"] if h["hex"] in changed["hexes"]]
            public["towns"] = [t for t in public["towns"] if t["id"] in changed["towns"]]
            public["features"] = [f for f in public["features"] if f["id"] in changed["features"]]
        self._map_published(map=public, removed=removed, whole=whole, actor=GM, audience=[vis.PUBLIC])
        w = self.state.world
        for pid in sorted(self.state.powers):
            mine = {
                fid: _feature_view(self, fid, pid)
                for fid in sorted(changed["features"])
                if fid in w.features and not w.features[fid]["public"] and _sees_feature(self, fid, pid)
            }
            if mine:
                self._features_shown(power_id=pid, features=mine, actor=GM, audience=vis.powers([pid]))

    @event("MapPublished")
    def _map_published(self, map: dict, removed: list, whole: bool, actor: str, audience: list) -> None:
        pass  # the public part of the map, for the table's feed; the state changed in MapDeclared/MapAmended

    @event("FeaturesShown")
    def _features_shown(self, power_id: str, features: dict, actor: str, audience: list) -> None:
        pass

    def reveal_feature(self, feature_id: str, to: str) -> None:
        """The GM shows a power a hidden feature it has found (Seeking, a ruling): it stays known (P.4)."""
        f = self._feature(feature_id)
        self.power(to)
        if to in f["known_to"] or f["controller"] == to or f["public"]:
            raise RuleViolation(f"{self.state.powers[to].name} already knows {f['name']!r}", rule="P-FEAT-4")
        self._feature_learned(
            power_id=to,
            feature_id=feature_id,
            feature=_feature_view(self, feature_id, to),
            actor=GM,
            audience=vis.powers([to]),
        )

    def known_features(self) -> dict[str, list[str]]:
        """Who learned each hidden feature: what a rollback carries over, as what was seen cannot be unseen."""
        return {fid: list(f["known_to"]) for fid, f in sorted(self.state.world.features.items()) if f["known_to"]}

    @event("FeatureLearned")
    def _feature_learned(self, power_id: str, feature_id: str, feature: dict, actor: str, audience: list) -> None:
        f = self.state.world.features[feature_id]
        f["known_to"] = sorted({*f["known_to"], power_id})

    def _feature(self, feature_id: str) -> dict:
        f = self.state.world.features.get(feature_id)
        if f is None:
            raise NotFound(f"no feature {feature_id!r} on the map", field="feature_id")
        return f

    def _town(self, town_id: str) -> dict:
        t = self.state.world.towns.get(town_id)
        if t is None:
            raise NotFound(f"no town {town_id!r} on the map", field="town_id")
        return t

    def check_location(self, power_id: str, location: str | None, assets: list[dict]) -> bool:
        """P-ACT-4: an action is located on a hex of the map, and each of its assets with a place on the map
        (a feature's industry) is within its mobility of that hex. Returns whether the hex holds a dungeon the
        power knows, where Delve joins another skill (P-ASSET-4). Without a declared map, nothing to check."""
        w = self.state.world
        if not w.hexes or location is None:
            return False
        try:
            hid = hexmap.hex_id(*hexmap.parse_hex(location))
        except RuleViolation as err:
            raise RuleViolation(err.message, rule="P-ACT-4", field="location") from None
        if hid not in w.hexes:
            raise RuleViolation(
                f"an action is located on a hex of the map; {location!r} is not on it", rule="P-ACT-4", field="location"
            )
        self.check_reach(hid, assets)
        return any(
            f["kind"] == "dungeon" and f["hex"] == hid and _sees_feature(self, fid, power_id)
            for fid, f in w.features.items()
        )

    def is_public(self, a: Any) -> bool:
        """Whether an action is shown to the table: a public action, unless it is taken inside its owner's
        stronghold, where "any actions taken here become Private" (P-FEAT-3, P-AMB-32: whichever slot it used)."""
        if a.slot != "public":
            return False
        if a.location is None or not self.state.world.hexes:
            return True
        try:
            here = _hex(a.location)
        except RuleViolation:
            return True
        return not any(
            f["kind"] == "stronghold" and f["hex"] == here and f["controller"] == a.power and not f["inoperable"]
            for f in self.state.world.features.values()
        )

    def check_operating(self, assets: list[dict]) -> None:
        """An industry that has ceased to operate lends its asset to no pool: an action's, a collaborator's, a
        reaction's (P-TOWN-3; ``Game._pick_pool`` asks it of every pool)."""
        placed = self._asset_features()
        for pick in assets:
            f = placed.get(pick.get("asset_id"))
            if f is not None and f["town"] and _stopped(self, f["town"], f):
                raise RuleViolation(
                    f"{f['name']!r} has ceased to operate: its town is too small for it",
                    rule="P-TOWN-3",
                    field="assets",
                )

    def _asset_features(self) -> dict:
        """The map's features that are assets, by asset id."""
        return {f["asset_id"]: f for f in self.state.world.features.values() if f.get("asset_id")}

    def check_reach(self, location: str | None, assets: list[dict]) -> None:
        """Every asset must be within its mobility of the action's location (P-ACT-4)."""
        w = self.state.world
        if not w.hexes or location is None:
            return
        placed = self._asset_features()
        for pick in assets:
            f = placed.get(pick.get("asset_id"))
            if f is None:
                continue
            reach = wr.mobility(f["kind"], f["upgrades"])
            if not hexmap.within(f["hex"], location, reach):
                raise RuleViolation(
                    f"{f['name']!r} has mobility {reach} and is {hexmap.distance(f['hex'], location)} hexes from "
                    f"{location}",
                    rule="P-ACT-4",
                    field="assets",
                )

    # ------------------------------------------------------------------ claims (P-TOWN-1)

    def set_claim(self, town_id: str, power_id: str, reason: str = "ruling") -> None:
        """The GM records a claim made by Annex or Commandeer (or a ruling): one claimant of each type."""
        t = self._town(town_id)
        ps = self.power(power_id)
        wr.check_claim(t["claims"], ps.cls, power_id)
        if t["claims"].get(ps.cls, {}).get("power") == power_id:
            raise RuleViolation(f"{ps.name} already claims {t['name']}", rule="P-TOWN-1", field="town_id")
        self._claim(town_id, power_id, reason)

    def drop_claim(self, town_id: str, power_id: str, reason: str = "ruling") -> None:
        """The GM records that a power lost its claim on a town."""
        t = self._town(town_id)
        ps = self.power(power_id)
        if t["claims"].get(ps.cls, {}).get("power") != power_id:
            raise RuleViolation(f"{ps.name} has no claim on {t['name']}", rule="P-TOWN-1", field="town_id")
        self._claim_lost(
            town_id=town_id,
            power_id=power_id,
            cls=ps.cls,
            reason=reason,
            actor=GM,
            audience=self._claim_audience(town_id, power_id),
        )

    def _claim(self, town_id: str, power_id: str, reason: str, actor: str = GM) -> None:
        cls = self.state.powers[power_id].cls
        old = self.state.world.towns[town_id]["claims"].get(cls)
        if old is not None and old["power"] != power_id:
            self._claim_lost(
                town_id=town_id,
                power_id=old["power"],
                cls=cls,
                reason=reason,
                actor=actor,
                audience=self._claim_audience(town_id, old["power"]),
            )
        self._claim_set(
            town_id=town_id,
            power_id=power_id,
            cls=cls,
            since=self.state.world.claim_seq + 1,
            reason=reason,
            actor=actor,
            audience=self._claim_audience(town_id, power_id),
        )

    def _claim_audience(self, town_id: str, power_id: str) -> list[str]:
        """Who learns of a claim: everyone, but a conspiracy's claim only reaches the town's other claimants
        and the conspiracies with influence there (P.4, Infiltrate announcement [003:1128])."""
        if self.state.powers[power_id].cls != "conspiracy":
            return [vis.PUBLIC]
        return vis.powers([power_id, *_claim_watchers(self, town_id)])

    @event("ClaimSet")
    def _claim_set(
        self, town_id: str, power_id: str, cls: str, since: int, reason: str, actor: str, audience: list
    ) -> None:
        w = self.state.world
        w.towns[town_id]["claims"][cls] = {"power": power_id, "since": since}
        w.claim_seq = max(w.claim_seq, since)

    @event("ClaimLost")
    def _claim_lost(self, town_id: str, power_id: str, cls: str, reason: str, actor: str, audience: list) -> None:
        claims = self.state.world.towns[town_id]["claims"]
        if claims.get(cls, {}).get("power") == power_id:
            del claims[cls]

    def _check_conspiracy_claims(self, power_id: str) -> None:
        """A conspiracy loses an infiltrated claim once it has no influence in the town or next to it (P-INFL-6)."""
        ps = self.state.powers[power_id]
        if ps.cls != "conspiracy":
            return
        for tid, t in sorted(self.state.world.towns.items()):
            if t["claims"].get("conspiracy", {}).get("power") == power_id and not wr.keeps_claim(
                ps.influence, t["hex"]
            ):
                self._claim_lost(
                    town_id=tid,
                    power_id=power_id,
                    cls="conspiracy",
                    reason="no influence left in the town or next to it",
                    actor=SYSTEM,
                    audience=self._claim_audience(tid, power_id),
                )

    # ------------------------------------------------------------------ influence (P-INFL-2..6)

    def _put_influence(self, power_id: str, hex_id: str, amount: int, actor: str) -> None:
        """Record a power's influence in a hex with the audience of P.4: the power, and the conspiracies with
        influence there (and Incorruptible) for a conspiracy's; a conspiracy newly there learns theirs."""
        ps = self.state.powers[power_id]
        before = ps.influence.get(hex_id, 0)
        self._g()._influence_set(
            power_id=power_id,
            hex_id=hex_id,
            amount=amount,
            actor=actor,
            audience=vis.powers(
                [power_id, *(_influence_watchers(self, hex_id, power_id) if ps.cls == "conspiracy" else [])]
            ),
        )
        if ps.cls == "conspiracy" and before == 0 and amount > 0:
            others = {
                p.id: p.influence[hex_id]
                for p in self.state.powers.values()
                if p.id != power_id and p.cls == "conspiracy" and p.influence.get(hex_id, 0) > 0
            }
            if others:
                self._g()._influence_disclosed(
                    to=power_id, hex_id=hex_id, entries=others, actor=SYSTEM, audience=vis.powers([power_id])
                )

    def _map_hex(self, hex_id: str, field: str = "hex", rule: str = "P-ACT-4") -> str:
        hid = _hex(hex_id)
        if hid not in self.state.world.hexes:
            raise RuleViolation(f"{hex_id!r} is not a hex of the map", rule=rule, field=field)
        return hid

    def spend_influence(self, power_id: str, action_id: str, amounts: dict, actor: str | None = None) -> None:
        """Pay an action's influence: any amount from its hex, at most 1 from each neighbour (P-INFL-2)."""
        ps = self.power(power_id)
        a = self._g().action(action_id)
        if a.power != power_id:
            raise NotFound(f"no action {action_id!r} of yours this month", field="action_id")
        if self.state.step != "planning":
            raise RuleViolation("influence is spent with the action, during Planning", rule="P-INFL-2")
        if a.location is None or not self.state.world.hexes:
            raise RuleViolation("an action spends influence where it is located: give it a hex", rule="P-INFL-2")
        if not isinstance(amounts, dict) or not amounts or len(amounts) > 7:
            raise RuleViolation("spend from the action's hex and its six neighbours", rule="P-INFL-2", field="amounts")
        spent = {self._map_hex(h, "amounts", "P-INFL-2"): _int(n, "amounts", 1, 1000) for h, n in amounts.items()}
        wr.check_spend(_hex(a.location), ps.influence, spent, self.state.world.spent.get(action_id))
        self._pay_influence(a, spent, actor or power_id)

    @event("InfluenceSpent")
    def _influence_spent(self, power_id: str, action_id: str, amounts: dict, actor: str, audience: list) -> None:
        # What the action took where, for P-INFL-2's limit over all its spending; the power's influence itself
        # is folded by the InfluenceSet events that follow.
        taken = self.state.world.spent.setdefault(action_id, {})
        for h, n in amounts.items():
            taken[h] = taken.get(h, 0) + n

    def shift_influence(self, power_id: str, shifts: list, actor: str | None = None) -> None:
        """During Tidings, shift influence one step at a time down a gradient of two (P-INFL-3)."""
        ps = self.power(power_id)
        if self.state.step != "tidings":
            raise RuleViolation("influence spreads during Tidings", rule="P-INFL-3")
        if ps.cls != "conspiracy":
            raise RuleViolation("influence belongs to conspiracies", rule="P-INFL-1")
        if not isinstance(shifts, list) or not shifts or len(shifts) > 200:
            raise RuleViolation("give 1 to 200 shifts, each [from, to]", rule="P-INFL-3", field="shifts")
        held = dict(ps.influence)
        steps = []
        for s in shifts:
            if not isinstance(s, list | tuple) or len(s) != 2:
                raise RuleViolation("each shift is [from hex, to hex]", rule="P-INFL-3", field="shifts")
            a, b = self._map_hex(s[0], "shifts", "P-INFL-3"), self._map_hex(s[1], "shifts", "P-INFL-3")
            held = wr.shift(held, a, b)
            steps.append([a, b])
        self._influence_shifted(
            power_id=power_id, shifts=steps, actor=actor or power_id, audience=vis.powers([power_id])
        )
        for h in sorted({h for s in steps for h in s}):
            if held.get(h, 0) != ps.influence.get(h, 0):
                self._put_influence(power_id, h, held.get(h, 0), actor or power_id)
        self._check_conspiracy_claims(power_id)

    @event("InfluenceShifted")
    def _influence_shifted(self, power_id: str, shifts: list, actor: str, audience: list) -> None:
        pass

    def set_mechanisms(self, power_id: str, mechanisms: list) -> None:
        """The GM records which generation mechanisms a conspiracy picked (P-INFL-5)."""
        ps = self.power(power_id)
        if ps.cls != "conspiracy":
            raise RuleViolation("only conspiracies generate influence", rule="P-INFL-5", field="power_id")
        chosen = sorted({str(m) for m in mechanisms})
        for m in chosen:
            if m not in wr.MECHANISMS:
                raise RuleViolation(f"a mechanism is one of {', '.join(wr.MECHANISMS)}", rule="P-INFL-5")
        self._mechanisms_set(power_id=power_id, mechanisms=chosen, actor=GM, audience=vis.powers([power_id]))

    @event("MechanismsSet")
    def _mechanisms_set(self, power_id: str, mechanisms: list, actor: str, audience: list) -> None:
        self.state.world.mechanisms[power_id] = list(mechanisms)

    def generate_influence(self, power_id: str, mechanism: str, hex_id: str, ranks: list) -> None:
        """The GM applies a generation mechanism that fired: once a season each (P-INFL-5)."""
        ps = self.power(power_id)
        amount = wr.generated(mechanism, ranks)
        if mechanism not in self.state.world.mechanisms.get(power_id, []):
            raise RuleViolation(f"{ps.name} has not picked {mechanism}", rule="P-INFL-5", field="mechanism")
        if mechanism in self.state.world.generated.get(power_id, []):
            raise RuleViolation(f"{mechanism} fires once a season, and it has", rule="P-INFL-5", field="mechanism")
        hid = self._map_hex(hex_id, "hex_id", "P-INFL-5")
        self._influence_generated(
            power_id=power_id, mechanism=mechanism, hex_id=hid, amount=amount, actor=GM, audience=vis.powers([power_id])
        )
        self._put_influence(power_id, hid, ps.influence.get(hid, 0) + amount, GM)

    @event("InfluenceGenerated")
    def _influence_generated(
        self, power_id: str, mechanism: str, hex_id: str, amount: int, actor: str, audience: list
    ) -> None:
        self.state.world.generated.setdefault(power_id, []).append(mechanism)

    # ------------------------------------------------------------------ aiming actions at the world

    def aim_action(
        self,
        action_id: str,
        aim: str,
        *,
        feature_id: str | None = None,
        town_id: str | None = None,
        floor: int | None = None,
        kind: str | None = None,
        params: dict | None = None,
        actor: str | None = None,
    ) -> None:
        """Say what a Planning action is aimed at, so the rules can set its difficulty and record its effect:
        a dungeon floor (``delve``), a ruin (``clear``), a town action (``town``, P-TOWN-2), ``infiltrate``
        (P-INFL-6) or a stronghold ``module`` (P-FEAT-3)."""
        g = self._g()
        a = g.action(action_id)
        _check_aimable(self.state.step, a, self.state.world.aims.get(action_id), aim, actor)
        params = dict(params or {})
        record: dict = {"aim": aim, "power": a.power}
        difficulty: int | None = None
        resisters: list[str] = []
        if aim in ("delve", "clear", "module"):
            f = self._feature(feature_id or "")
            if not _sees_feature(self, feature_id or "", a.power):
                raise NotFound(f"no feature {feature_id!r} on the map", field="feature_id")
            self._at(a, f["hex"])
            record["feature_id"] = feature_id
            difficulty = wr.feature_aim(aim, f, a.power, floor, params, record)
        elif aim == "workers_unite":
            difficulty, resisters = self._plan_workers_unite(a, feature_id or "", params, record)
        elif aim == "channel":
            self._plan_channel(a, params, record)
        elif aim == "infiltrate":
            t = self._town(town_id or "")
            self._at(a, t["hex"])
            difficulty, resisters = _infiltration(t, a.power, self.state.powers, self.state.world.towns)
            record["town_id"] = town_id
        else:
            t = self._town(town_id or "")
            self._at(a, t["hex"])
            record.update({"town_id": town_id, "kind": kind})
            _check_gm_facts(actor, params)
            difficulty, resisters, effect = self._town_plan(a.power, town_id or "", t, str(kind), params)
            record.update({"effect": effect, "difficulty": difficulty})
            if kind == "tax":
                record["take"] = params.get("take", "wealth")
        self._action_aimed(action_id=action_id, aim=record, actor=actor or a.power, audience=g._audience(a))
        if record.get("paid"):
            # The cost is paid when the action is taken ([003:28]); influence by the rule of P-INFL-2 or the
            # action's own text (Channel Influence: 1 at each of its locations).
            self._pay_influence(a, record["paid"], actor or a.power)
        if difficulty is not None:
            g._difficulty_declared(
                action_id=action_id,
                value=difficulty,
                tiers={},
                after_roll=a.pool is not None,
                actor=SYSTEM,
                audience=g._audience(a),
            )
        if resisters:
            g._ruling_issued(
                action_id=action_id, resistible=True, targets=resisters, actor=SYSTEM, audience=g._audience(a)
            )
        if aim == "infiltrate":
            t = self.state.world.towns[town_id or ""]
            told = sorted(
                {*_claim_watchers(self, town_id or ""), *(c["power"] for c in t["claims"].values())} - {a.power}
            )
            if told:
                self._infiltration_announced(
                    town_id=town_id or "",
                    power_id=a.power,
                    power_name=self.state.powers[a.power].name,
                    actor=SYSTEM,
                    audience=vis.powers(told),
                )

    def _plan_workers_unite(self, a: Any, feature_id: str, params: dict, record: dict) -> tuple[int, list[str]]:
        """Workers, Unite! (P-INFL-6): an industry in a town the conspiracy claims; cost and difficulty half its
        complexity, rounded down (P-AMB-27); its former loyal power may resist."""
        f = self._feature(feature_id)
        if self.state.powers[a.power].cls != "conspiracy":
            raise RuleViolation("Workers, Unite! is a conspiracy action", rule="P-INFL-6", field="action_id")
        if not (f["town"] and wr.feature_type(f["kind"]).industry):
            raise RuleViolation(f"{f['name']!r} is not an industry of a town", rule="P-INFL-6", field="feature_id")
        town = self.state.world.towns[f["town"]]
        if town["claims"].get("conspiracy", {}).get("power") != a.power:
            raise RuleViolation(f"Workers, Unite! needs a claim on {town['name']}", rule="P-INFL-6", field="feature_id")
        self._at(a, f["hex"])
        cost, difficulty = wr.workers_unite(wr.complexity(f["kind"], f["upgrades"], f.get("mount")))
        record.update({"feature_id": feature_id, "paid": self._influence_payment(a, cost, params)})
        return difficulty, [f["controller"]] if f["controller"] and f["controller"] != a.power else []

    def _influence_payment(self, a: Any, cost: int, params: dict) -> dict[str, int]:
        """Where an action's influence cost comes from: ``params["amounts"]``, or all from the action's hex;
        either way by the rule of P-INFL-2, and exactly the cost."""
        amounts = params.get("amounts") or {_hex(a.location or ""): cost}
        if not isinstance(amounts, dict):
            raise RuleViolation("amounts are {hex: influence}", rule="P-INFL-2", field="params")
        paid = {self._map_hex(h, "params", "P-INFL-2"): _int(n, "params", 1, 1000) for h, n in amounts.items()}
        if sum(paid.values()) != cost:
            raise RuleViolation(f"this action costs {cost} influence, not {sum(paid.values())}", rule="P-INFL-2")
        wr.check_spend(
            _hex(a.location or ""), self.state.powers[a.power].influence, paid, self.state.world.spent.get(a.id)
        )
        return paid

    def _plan_channel(self, a: Any, params: dict, record: dict) -> None:
        """Channel Influence (P-INFL-6): "Spend 1 Influence at up to 3 locations, generating a mana of the
        terrain element from each." """
        if self.state.powers[a.power].cls != "conspiracy":
            raise RuleViolation("Channel Influence is a conspiracy action", rule="P-INFL-6", field="action_id")
        hexes = params.get("hexes")
        if not isinstance(hexes, list) or not 1 <= len(hexes) <= 3:
            raise RuleViolation("channel influence at 1 to 3 locations", rule="P-INFL-6", field="params")
        places = [self._map_hex(h, "params", "P-INFL-6") for h in hexes]
        if len(set(places)) != len(places):
            raise RuleViolation("channel at distinct locations", rule="P-INFL-6", field="params")
        held = self.state.powers[a.power].influence
        for h in places:
            if held.get(h, 0) < 1:
                raise RuleViolation(f"you have no influence in {h} to channel", rule="P-INFL-6", field="params")
            if self.state.world.hexes[h]["element"] is None:
                raise RuleViolation(f"the GM has given {h} no mana element", rule="P-INFL-6", field="params")
        record.update({"paid": {h: 1 for h in places}, "mana": [self.state.world.hexes[h]["element"] for h in places]})

    def _pay_influence(self, a: Any, paid: dict, actor: str) -> None:
        ps = self.state.powers[a.power]
        self._influence_spent(
            power_id=a.power, action_id=a.id, amounts=dict(paid), actor=actor, audience=self._g()._audience(a)
        )
        for h, n in sorted(paid.items()):
            self._put_influence(a.power, h, ps.influence.get(h, 0) - n, actor)
        self._check_conspiracy_claims(a.power)

    def _at(self, a: Any, hex_id: str) -> None:
        if a.location is None or _hex(a.location) != hex_id:
            raise RuleViolation(
                f"this action must be located at {hex_id}, where its target is", rule="P-ACT-4", field="location"
            )

    def _tax_take(self, power_id: str, town_id: str, params: dict) -> str:
        """What a Tax takes (P-TOWN-2): coin by the town's wealth; coin by its population with Slumlord
        ([003:893]); Fear by its population where a working Prison stands in the town ([003:416])."""
        take = params.get("take", "wealth")
        if take == "wealth":
            return take
        if take == "population":
            held = self._g().holdings(power_id).perks
            if self.state.powers[power_id].options.get("slumlord") or any(
                p["name"].strip().lower() == "slumlord" for p in held
            ):
                return take
            raise RuleViolation("taxing by population needs the Slumlord perk [003:893]", rule="P-TOWN-2")
        if take == "fear":
            w = self.state.world
            if any(
                f["kind"] == "prison" and f["town"] == town_id and not _stopped(self, town_id, f)
                for f in w.features.values()
            ):
                return take
            raise RuleViolation("taxing in Fear needs a working Prison in the town [003:416]", rule="P-TOWN-2")
        raise RuleViolation(
            "a Tax takes wealth, population (Slumlord) or fear (a Prison)", rule="P-TOWN-2", field="params"
        )

    def _town_plan(self, power_id: str, town_id: str, t: dict, kind: str, params: dict) -> tuple[int, list[str], dict]:
        """A town action's difficulty, resisters and effect by its formula (P-TOWN-2). Each needs a claim."""
        if kind not in wr.TOWN_ACTIONS:
            raise RuleViolation(f"a town action is one of {', '.join(wr.TOWN_ACTIONS)}", rule="P-TOWN-2", field="kind")
        claimants = {c["power"] for c in t["claims"].values()}
        if power_id not in claimants:
            raise RuleViolation(f"{kind} needs a claim on {t['name']}", rule="P-TOWN-2", field="town_id")
        w = self.state.world
        if kind == "tax":
            # Slumlord [003:893]: "Adds 'Uprising' instead of 'Taxed'", on top of the Uprising every Tax adds.
            by_population = self._tax_take(power_id, town_id, params) == "population"
            statuses = {"uprising": 2} if by_population else {"taxed": 1, "uprising": 1}
            return self._rated(town_id, kind, {"statuses": statuses})
        if kind == "feed":
            return self._rated(town_id, kind, {"population": 1})
        if kind == "lay_roads":
            target = self._map_hex(params.get("hex", t["hex"]), "params")
            return wr.roads_difficulty(w.hexes[target]["terrain"]), [], {"road": target}
        if kind == "feast":
            ranks = _int(params.get("rooted_agent_ranks", 0), "params")
            return wr.feast_difficulty(ranks, bool(params.get("agents_died", False))), [], {"feast": True}
        if kind == "trade":
            other = self._town(str(params.get("with")))
            mine = {c["power"] for c in other["claims"].values()}
            if not mine:
                raise RuleViolation("an unclaimed town cannot trade", rule="P-TOWN-2", field="params")
            same = power_id in mine
            new = _int(params.get("new_resources", 0), "params", 0, 20)
            excess = _int(params.get("excess_mobility", 0), "params", 0, 50)
            return wr.trade_difficulty(excess, same), [], {"trade": {"with": params["with"], "wealth": new}}
        if kind == "build":
            fkind = str(params.get("feature"))
            upgrades = [str(u) for u in params.get("upgrades", [])]
            wr.check_upgrades(fkind, upgrades)
            fid = limits.check_text(params.get("id"), "params", limits.IDENTIFIER, required=True, what="a feature id")
            if fid in w.features:
                raise RuleViolation(f"feature id {fid!r} is taken", rule="P-FEAT-1", field="params")
            name = limits.check_text(params.get("name", fkind), "params", limits.ASSET_NAME, what="a feature's name")
            build = {"id": fid, "kind": fkind, "name": name, "upgrades": upgrades, "mount": params.get("mount")}
            return self._rated(town_id, kind, {"build": build})
        fid = str(params.get("feature_id"))
        f = w.features.get(fid)
        if f is None or f["town"] != town_id:
            raise NotFound(f"no feature {fid!r} in {t['name']}", field="params")
        if kind == "upgrade":
            added = [str(u) for u in params.get("upgrades", [])]
            wr.check_upgrades(f["kind"], [*f["upgrades"], *added])
            return self._rated(town_id, kind, {"upgrade": {"feature_id": fid, "upgrades": added}})
        others = sorted(claimants - {power_id})
        return wr.DEMOLISH_DIFFICULTY, others, {"demolish": fid}

    def _rated(self, town_id: str, kind: str, effect: dict) -> tuple[int, list[str], dict]:
        """A town action the town's own state rates: its difficulty now, no resisters, its effect."""
        return self._town_difficulty(town_id, kind, effect) or 0, [], effect

    def _town_difficulty(self, town_id: str, kind: str, effect: dict) -> int | None:
        """A town action's difficulty from the town as it stands now (P-TOWN-2): Tax from its negative statuses,
        Feed from its population and the Feeds taken this season, Build and Upgrade from the features there.
        None for the actions whose difficulty the GM's facts or the terrain set, which the month does not change."""
        w = self.state.world
        t = w.towns[town_id]
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

    def _world_resolving(self, a: Any) -> None:
        """At an aimed town action's turn in the queue, its difficulty is the town's as the actions before it left
        it (P-TOWN-2: [003:364] a Feed is doubled "for each time this action has been taken in this town this
        season"; a Build counts the features built before it). A difficulty the GM set or sealed stays."""
        aim = self.state.world.aims.get(a.id)
        if aim is None or aim["aim"] != "town" or a.sealed is not None or aim["town_id"] not in self.state.world.towns:
            return
        if a.difficulty != aim.get("difficulty"):
            return  # the GM ruled on it since it was aimed
        now = self._town_difficulty(aim["town_id"], aim["kind"], aim["effect"])
        if now is None or now == a.difficulty:
            return
        g = self._g()
        g._difficulty_declared(
            action_id=a.id, value=now, tiers=dict(a.tiers), after_roll=True, actor=SYSTEM, audience=g._audience(a)
        )

    @event("ActionAimed")
    def _action_aimed(self, action_id: str, aim: dict, actor: str, audience: list) -> None:
        self.state.world.aims[action_id] = deepcopy(aim)

    @event("InfiltrationAnnounced")
    def _infiltration_announced(self, town_id: str, power_id: str, power_name: str, actor: str, audience: list) -> None:
        pass

    def _world_resolved(self, action_id: str) -> None:
        """An aimed action has resolved: record what it did to the world (P-FEAT-4, P-TOWN-2, P-INFL-6)."""
        aim = self.state.world.aims.get(action_id)
        a = self.state.actions[action_id]
        if aim is None or not a.success:
            return
        w = self.state.world
        g = self._g()
        if aim.get("feature_id") not in (None, *w.features) or aim.get("town_id") not in (None, *w.towns):
            return  # the GM took what it aimed at off the map since
        if aim["aim"] == "delve":
            f = w.features[aim["feature_id"]]
            floor = aim["floor"]
            nxt = f["floors"][floor] if floor < len(f["floors"]) else None
            self._floor_cleared(
                feature_id=aim["feature_id"],
                power_id=a.power,
                floor=floor,
                reward=f["floors"][floor - 1]["reward"],
                next_floor={"floor": floor + 1, **nxt} if nxt else None,
                actor=SYSTEM,
                audience=g._audience(a),
            )
        elif aim["aim"] == "clear":
            self._ruin_resolved(a, aim)
        elif aim["aim"] == "module":
            self._module_built(
                feature_id=aim["feature_id"], module=aim["module"], actor=SYSTEM, audience=g._audience(a)
            )
        elif aim["aim"] == "infiltrate":
            self._claim(aim["town_id"], a.power, "infiltrated", actor=SYSTEM)
        elif aim["aim"] == "workers_unite":
            if aim["feature_id"] in w.features:
                self._feature_owned(
                    feature_id=aim["feature_id"], power_id=a.power, actor=SYSTEM, audience=g._audience(a)
                )
        elif aim["aim"] == "channel":
            for element in dict.fromkeys(aim["mana"]):
                amount = kept_gain(self.state, a.power, element, aim["mana"].count(element))
                if amount > 0:
                    g._mana_granted(
                        power_id=a.power, element=element, amount=amount, actor=SYSTEM, audience=vis.powers([a.power])
                    )
        else:
            self._town_resolved(a, aim)

    def _ruin_resolved(self, a: ActionState, aim: dict) -> None:
        """A successful Clear lowers its ruin's threat; at none the ruin is cleared, and what it becomes is built
        (P-FEAT-4)."""
        w = self.state.world
        g = self._g()
        f = w.features.get(aim["feature_id"])
        if f is None or f["kind"] != "ruin" or f["threat"] == 0:
            return  # cleared earlier in the queue this month
        left = wr.ruin_progress(f["threat"], f["difficulty"], a.net or 0)
        self._threat_reduced(
            feature_id=aim["feature_id"],
            power_id=a.power,
            removed=f["threat"] - left,
            threat=left,
            actor=SYSTEM,
            audience=g._audience(a),
        )
        if left == 0:
            self._ruin_cleared(
                feature_id=aim["feature_id"],
                power_id=a.power,
                reward=f["reward"],
                becomes=deepcopy(f["becomes"]),
                actor=SYSTEM,
                audience=g._audience(a),
            )
            if f["becomes"]:
                # A built feature now, and so public (P.4); who holds it stays with them.
                self._feature_rebuilt(
                    feature_id=aim["feature_id"],
                    kind=f["becomes"]["kind"],
                    modules=list(f["becomes"].get("modules", [])),
                    actor=SYSTEM,
                    audience=[vis.PUBLIC],
                )

    def _town_resolved(self, a: ActionState, aim: dict) -> None:
        """A successful town action changes its town (P-TOWN-2): taxes are collected, a building is owned by its
        builder; one whose target went earlier in the queue this month does nothing."""
        w = self.state.world
        g = self._g()
        effect = aim["effect"]
        target = (effect.get("upgrade") or {}).get("feature_id") or effect.get("demolish")
        if target is not None and target not in w.features:
            return  # demolished earlier in the queue this month
        if "build" in effect and effect["build"]["id"] in w.features:
            return
        if "trade" in effect and effect["trade"]["with"] not in w.towns:
            return
        if "demolish" in effect and self._durable_holds(effect["demolish"]):
            return
        # The town is public, so its change is too; who acted is not (a private action stays private).
        by = a.power if self.is_public(a) else None
        t = w.towns[aim["town_id"]]
        coin = wr.town_wealth(t["wealth"], t["statuses"], self._working_features(aim["town_id"]))
        take = aim.get("take", "wealth")
        if take != "wealth":
            coin = wr.effective_population(t["population"], t["statuses"])
        self._town_changed(
            town_id=aim["town_id"], kind=aim["kind"], effect=effect, by=by, actor=SYSTEM, audience=[vis.PUBLIC]
        )
        if aim["kind"] == "tax" and take == "fear":
            g.earn(a.power, "fear", coin, f"taxes of {t['name']} taken in Fear (a Prison)")
        elif aim["kind"] == "tax":
            self._taxes_collected(
                town_id=aim["town_id"], power_id=a.power, coin=coin, actor=SYSTEM, audience=g._audience(a)
            )
            g.earn(a.power, "coin", coin, f"taxes of {t['name']}")
        if "build" in effect:
            # Loyal to its builder ([003:365]); who that is stays with the builder unless the action was public.
            self._feature_owned(
                feature_id=effect["build"]["id"], power_id=a.power, actor=SYSTEM, audience=g._audience(a)
            )

    def _durable_holds(self, feature_id: str) -> bool:
        """Durable: "Ignores the first effect each season that would disrupt or damage it" (P-FEAT-1)."""
        f = self.state.world.features[feature_id]
        if "durable" not in f["upgrades"] or f.get("durable_used"):
            return False
        self._durable_held(feature_id=feature_id, actor=SYSTEM, audience=[vis.PUBLIC])
        return True

    @event("DurableHeld")
    def _durable_held(self, feature_id: str, actor: str, audience: list) -> None:
        self.state.world.features[feature_id]["durable_used"] = True

    def _working_features(self, town_id: str) -> list[dict]:
        stopped = _stopped_ids(self, town_id)
        w = self.state.world
        return [{**f, "stopped": fid in stopped} for fid, f in w.features.items() if f["town"] == town_id]

    @event("TaxesCollected")
    def _taxes_collected(self, town_id: str, power_id: str, coin: int, actor: str, audience: list) -> None:
        pass  # the record of the town's taxes; the coin itself goes into the wallet (WalletChanged)

    @event("FeatureOwned")
    def _feature_owned(self, feature_id: str, power_id: str, actor: str, audience: list) -> None:
        self.state.world.features[feature_id]["controller"] = power_id

    @event("FloorCleared")
    def _floor_cleared(
        self,
        feature_id: str,
        power_id: str,
        floor: int,
        reward: str,
        next_floor: dict | None,
        actor: str,
        audience: list,
    ) -> None:
        self.state.world.features[feature_id]["cleared"][power_id] = floor

    @event("ThreatReduced")
    def _threat_reduced(
        self, feature_id: str, power_id: str, removed: int, threat: int, actor: str, audience: list
    ) -> None:
        self.state.world.features[feature_id]["threat"] = threat

    @event("RuinCleared")
    def _ruin_cleared(
        self, feature_id: str, power_id: str, reward: str, becomes: dict | None, actor: str, audience: list
    ) -> None:
        f = self.state.world.features[feature_id]
        if becomes:
            f["controller"] = becomes.get("controller", power_id)

    @event("FeatureRebuilt")
    def _feature_rebuilt(self, feature_id: str, kind: str, modules: list, actor: str, audience: list) -> None:
        # "Becomes a Stronghold with a Barracks and Alchemy Lab" ([003:493]).
        f = self.state.world.features[feature_id]
        f.update({"kind": kind, "modules": list(modules), "public": True, "threat": 0})

    @event("ModuleBuilt")
    def _module_built(self, feature_id: str, module: str, actor: str, audience: list) -> None:
        self.state.world.features[feature_id]["modules"].append(module)

    @event("TownChanged")
    def _town_changed(self, town_id: str, kind: str, effect: dict, by: str | None, actor: str, audience: list) -> None:
        w = self.state.world
        t = w.towns[town_id]
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
            b = effect["build"]
            w.features[b["id"]] = {
                "kind": b["kind"],
                "name": b["name"],
                "hex": t["hex"],
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
        if "upgrade" in effect:
            w.features[effect["upgrade"]["feature_id"]]["upgrades"].extend(effect["upgrade"]["upgrades"])
        if "demolish" in effect:
            w.features.pop(effect["demolish"], None)

    def harm_town(self, town_id: str, harm: dict, reason: str, by: str | None, actor: str = SYSTEM) -> dict:
        """Lower a town's population and wealth and add statuses to it (Sack, Slaughter, Blighted Neighborhood,
        P.2.12); neither falls below 0. The town is public, so the change is too (P.4); ``by`` names who did it
        only when that was public. Returns the change made."""
        t = self._town(town_id)
        change = {k: max(int(harm[k]), -t[k]) for k in ("population", "wealth") if harm.get(k)}
        statuses = {k: int(v) for k, v in harm.get("statuses", {}).items() if v}
        self._town_harmed(
            town_id=town_id, change=change, statuses=statuses, reason=reason, by=by, actor=actor, audience=[vis.PUBLIC]
        )
        return change

    @event("TownHarmed")
    def _town_harmed(
        self, town_id: str, change: dict, statuses: dict, reason: str, by: str | None, actor: str, audience: list
    ) -> None:
        t = self.state.world.towns[town_id]
        for k, v in change.items():
            t[k] += v
        for k, v in statuses.items():
            t["statuses"][k] = t["statuses"].get(k, 0) + v

    def renounce_claims(self, power_id: str, keep: str, reason: str, actor: str = SYSTEM) -> None:
        """A power gives up its claims on every town but ``keep`` (Commandeer, [003:1276])."""
        cls = self.state.powers[power_id].cls
        for tid, t in sorted(self.state.world.towns.items()):
            if tid != keep and t["claims"].get(cls, {}).get("power") == power_id:
                self._claim_lost(
                    town_id=tid,
                    power_id=power_id,
                    cls=cls,
                    reason=reason,
                    actor=actor,
                    audience=self._claim_audience(tid, power_id),
                )

    # ------------------------------------------------------------------ the season (Tidings, Cleanup)

    def _world_tidings(self) -> None:
        """Tidings: the season's counters start over; outposts are raised to 3 influence (P-INFL-4); each
        stronghold's maintenance falls due (P-FEAT-3)."""
        w = self.state.world
        if not w.hexes:
            return
        self._world_season_began(season=self.state.season, actor=SYSTEM, audience=[vis.PUBLIC])
        raised: dict[str, dict[str, int]] = {}
        for fid, f in sorted(w.features.items()):
            owner = f["controller"]
            if f["kind"] == "outpost" and owner and self.state.powers[owner].cls == "conspiracy":
                have = self.state.powers[owner].influence.get(f["hex"], 0)
                if wr.outpost_floor(have) != have:
                    raised.setdefault(owner, {})[f["hex"]] = wr.outpost_floor(have) - have
                    self._put_influence(owner, f["hex"], wr.outpost_floor(have), SYSTEM)
            if f["kind"] == "stronghold" and owner and not f["inoperable"]:
                self._maintenance_due(
                    feature_id=fid,
                    power_id=owner,
                    coin=wr.maintenance(len(f["modules"])),
                    actor=SYSTEM,
                    audience=vis.powers([owner]),
                )
        # Mercurial swaps "before resetting the influence in your outposts" [003:931], yet the reset is automatic:
        # keep what the reset added so a swap can be worked out on the earlier values and the reset redone.
        for pid in sorted(self.state.powers):
            if self.state.powers[pid].cls == "conspiracy" and self._has_perk(pid, "mercurial"):
                self._outposts_reset(power_id=pid, raised=raised.get(pid, {}), actor=SYSTEM, audience=vis.powers([pid]))

    def rule_subtle(self, action_id: str, feature_id: str, *, overcome: bool = False) -> None:
        """The GM rules that an action targets something inside a stronghold by subtle means (GM-22). [003:445]
        "powers must find a way to overcome this immunity in order to target anything inside this stronghold
        subtly. Unsubtle means, such as magic or invading a stronghold with an army naturally bypass this
        immunity": refused (P-FEAT-3) unless the action's power holds the stronghold or the GM rules that it
        overcame the secret protection."""
        a = self._g().action(action_id)
        if self.state.step != "planning" or a.discarded or self.state.resolved:
            raise RuleViolation("an action is ruled subtle during Planning, before it is resolved", rule="P-FEAT-3")
        f = self._feature(feature_id)
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
        self._subtle_ruled(
            action_id=action_id,
            feature_id=feature_id,
            overcome=bool(overcome),
            actor=GM,
            audience=vis.powers([a.power]),
        )

    @event("SubtleRuled")
    def _subtle_ruled(self, action_id: str, feature_id: str, overcome: bool, actor: str, audience: list) -> None:
        self.state.world.subtle[action_id] = {"feature_id": feature_id, "overcome": overcome}

    def _has_perk(self, power_id: str, name: str) -> bool:
        return any(p["name"].strip().lower() == name for p in self._g().holdings(power_id).perks)

    @event("OutpostsReset")
    def _outposts_reset(self, power_id: str, raised: dict, actor: str, audience: list) -> None:
        self.state.world.mercurial[power_id] = {"raised": dict(raised), "swaps": 0}

    def mercurial_swap(self, power_id: str, a: str, b: str, actor: str | None = None) -> None:
        """Mercurial [003:931]: "During Tidings, before resetting the influence in your outposts, swap your
        influence between any two hexes twice." The swap works on the influence as it was before the outpost
        reset, then the reset is applied again (P-INFL-4)."""
        ps = self.power(power_id)
        if ps.cls != "conspiracy" or not self._has_perk(power_id, "mercurial"):
            raise RuleViolation("swapping influence needs the Mercurial perk [003:931]", rule="P-INFL-4")
        record = self.state.world.mercurial.get(power_id)
        if self.state.step != "tidings" or record is None:
            raise RuleViolation("the Mercurial swap happens during Tidings", rule="P-INFL-4")
        if record["swaps"] >= wr.MERCURIAL_SWAPS:
            raise RuleViolation("Mercurial swaps influence twice each Tidings", rule="P-INFL-4")
        ha, hb = self._map_hex(a, "a", "P-INFL-4"), self._map_hex(b, "b", "P-INFL-4")
        if ha == hb:
            raise RuleViolation("swap influence between two different hexes", rule="P-INFL-4", field="b")
        outposts = {
            f["hex"]
            for f in self.state.world.features.values()
            if f["kind"] == "outpost" and f["controller"] == power_id
        }
        held, raised = wr.mercurial_swap(ps.influence, record["raised"], outposts, ha, hb)
        self._mercurial_swapped(
            power_id=power_id, a=ha, b=hb, raised=raised, actor=actor or power_id, audience=vis.powers([power_id])
        )
        for h in sorted(set(held) | set(ps.influence)):
            if held.get(h, 0) != ps.influence.get(h, 0):
                self._put_influence(power_id, h, held.get(h, 0), actor or power_id)
        self._check_conspiracy_claims(power_id)

    @event("MercurialSwapped")
    def _mercurial_swapped(self, power_id: str, a: str, b: str, raised: dict, actor: str, audience: list) -> None:
        record = self.state.world.mercurial[power_id]
        record["raised"], record["swaps"] = dict(raised), record["swaps"] + 1

    @event("WorldSeasonBegan")
    def _world_season_began(self, season: int, actor: str, audience: list) -> None:
        w = self.state.world
        w.generated = {}
        for t in w.towns.values():
            t["feeds"] = 0
        for f in w.features.values():
            f["durable_used"] = False

    @event("MaintenanceDue")
    def _maintenance_due(self, feature_id: str, power_id: str, coin: int, actor: str, audience: list) -> None:
        self.state.world.features[feature_id]["maintenance_due"] = coin

    def pay_maintenance(self, feature_id: str, power_id: str, actor: str | None = None) -> None:
        """Pay a stronghold's maintenance this Tidings (P-FEAT-3)."""
        f = self._feature(feature_id)
        if f["controller"] != power_id:
            raise NotFound(f"you hold no stronghold {feature_id!r}", field="feature_id")
        if self.state.step != "tidings" or not f["maintenance_due"]:
            raise RuleViolation("maintenance is paid during Tidings, when it is due", rule="P-FEAT-3")
        # The coin comes out of the owner's wallet; a shortfall is refused naming P-FEAT-3.
        self._g().pay(
            power_id,
            {"coin": f["maintenance_due"]},
            f"maintenance of {f['name']}",
            rule="P-FEAT-3",
            actor=actor or power_id,
        )
        self._maintenance_paid(
            feature_id=feature_id,
            power_id=power_id,
            coin=f["maintenance_due"],
            actor=actor or power_id,
            audience=vis.powers([power_id]),
        )

    @event("MaintenancePaid")
    def _maintenance_paid(self, feature_id: str, power_id: str, coin: int, actor: str, audience: list) -> None:
        self.state.world.features[feature_id]["maintenance_due"] = None

    def _world_end_tidings(self) -> None:
        """Tidings ends: a stronghold whose maintenance went unpaid becomes inoperable (P-FEAT-3)."""
        for fid, f in sorted(self.state.world.features.items()):
            if f["kind"] == "stronghold" and f["maintenance_due"] and f["controller"]:
                self._stronghold_inoperable(
                    feature_id=fid,
                    power_id=f["controller"],
                    coin=f["maintenance_due"],
                    actor=SYSTEM,
                    audience=vis.powers([f["controller"]]),
                )

    @event("StrongholdInoperable")
    def _stronghold_inoperable(self, feature_id: str, power_id: str, coin: int, actor: str, audience: list) -> None:
        f = self.state.world.features[feature_id]
        f["inoperable"], f["maintenance_due"] = True, None

    def _world_month_ends(self) -> None:
        """The end of a month: a Prison removes Uprising, 1 or 2 when Specialized (P-FEAT-1); the month's aims
        are done with (the history keeps them)."""
        w = self.state.world
        if w.aims or w.subtle or w.spent:
            self._aims_closed(actor=SYSTEM, audience=[vis.GM_ONLY])
        relief: dict[str, int] = {}
        for f in w.features.values():
            if f["kind"] == "prison" and f["town"] and not _stopped(self, f["town"], f):
                relief[f["town"]] = relief.get(f["town"], 0) + wr.prison_relief(f["upgrades"])
        for tid, n in sorted(relief.items()):
            if w.towns[tid]["statuses"].get("uprising", 0) > 0:
                less = -min(n, w.towns[tid]["statuses"]["uprising"])
                self._town_changed(
                    town_id=tid,
                    kind="prison",
                    effect={"statuses": {"uprising": less}},
                    by=None,
                    actor=SYSTEM,
                    audience=[vis.PUBLIC],
                )

    def _world_cleanup(self) -> None:
        """Cleanup: Sickened and Growing act, then the towns' statuses tick down (P-TOWN-4); what that does to
        the industries (P-TOWN-3) is part of the record."""
        w = self.state.world
        changes = {}
        for tid, t in sorted(w.towns.items()):
            pop, statuses = wr.cleanup_statuses(t["population"], t["statuses"])
            if (pop, statuses) != (t["population"], t["statuses"]):
                changes[tid] = {"population": pop, "statuses": statuses}
        if not changes:
            return

        # The table's record names the public industries only: a hidden one is its controller's to know.
        def stopped(tid: str) -> list[str]:
            return [fid for fid in _stopped_ids(self, tid) if _sees_feature(self, fid, vis.PUBLIC)]

        before = {tid: stopped(tid) for tid in changes}
        self._towns_cleaned_up(towns=changes, actor=SYSTEM, audience=[vis.PUBLIC])
        for tid in changes:
            after = stopped(tid)
            if after != before[tid]:
                self._industries_changed(
                    town_id=tid,
                    stopped=after,
                    resumed=sorted(set(before[tid]) - set(after)),
                    actor=SYSTEM,
                    audience=[vis.PUBLIC],
                )

    @event("AimsClosed")
    def _aims_closed(self, actor: str, audience: list) -> None:
        self.state.world.aims, self.state.world.subtle, self.state.world.spent = {}, {}, {}

    @event("TownsCleanedUp")
    def _towns_cleaned_up(self, towns: dict, actor: str, audience: list) -> None:
        for tid, c in towns.items():
            t = self.state.world.towns[tid]
            t["population"], t["statuses"] = c["population"], dict(c["statuses"])

    @event("IndustriesChanged")
    def _industries_changed(self, town_id: str, stopped: list, resumed: list, actor: str, audience: list) -> None:
        pass  # which industries work is computed from the town (P-TOWN-3); this is the feed's record of it


# ---------------------------------------------------------------------- who sees what (P.4)


def _influence_watchers(game: Any, hex_id: str, power_id: str) -> list[str]:
    """Powers that see a conspiracy's influence in a hex: conspiracies with influence there, and
    Incorruptible ([003:1104], [003:761])."""
    return [
        p.id
        for p in game.state.powers.values()
        if p.id != power_id
        and (p.options.get("incorruptible") or (p.cls == "conspiracy" and p.influence.get(hex_id, 0) > 0))
    ]


def influence_seen(game: Any, me: Any) -> list[dict]:
    """Other powers' influence this viewer may see: a conspiracy's where the viewer, a conspiracy too, has
    influence; everything with Incorruptible (P.4, [003:1104])."""
    seen = []
    for p in sorted(game.state.powers.values(), key=lambda p: p.id):
        if p.id == me.id:
            continue
        for hex_id, amount in sorted(p.influence.items()):
            mutual = me.cls == "conspiracy" and p.cls == "conspiracy" and me.influence.get(hex_id, 0) > 0
            if mutual or me.options.get("incorruptible"):
                seen.append({"power": p.id, "hex": hex_id, "amount": amount})
    return seen


def _check_aimable(step: str, a: ActionState, earlier: dict | None, aim: str, actor: str | None) -> None:
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


def _infiltration(
    t: dict, power: str, powers: Mapping[str, PowerState], towns: Mapping[str, dict]
) -> tuple[int, list[str]]:
    """P-INFL-6 Infiltrate: a conspiracy with the most influence among the conspiracies in a town it does not
    yet claim (P-TOWN-1). Returns the difficulty (by the towns it claims and the others' influence) and the
    resisters: the town's other claimants."""
    ps = powers[power]
    if ps.cls != "conspiracy":
        raise RuleViolation("only conspiracies infiltrate", rule="P-INFL-6", field="action_id")
    if t["claims"].get("conspiracy", {}).get("power") == power:
        raise RuleViolation(f"{ps.name} already claims {t['name']}", rule="P-TOWN-1", field="town_id")
    others = [p.influence.get(t["hex"], 0) for p in powers.values() if p.id != power and p.cls == "conspiracy"]
    if not wr.has_most_influence(ps.influence.get(t["hex"], 0), others):
        raise RuleViolation("Infiltrate needs the most influence in the town", rule="P-INFL-6", field="town_id")
    claimed = sum(1 for x in towns.values() if x["claims"].get("conspiracy", {}).get("power") == power)
    resisters = sorted({c["power"] for c in t["claims"].values()} - {power})
    return wr.infiltrate_difficulty(claimed, sum(others)), resisters


def _check_gm_facts(actor: str | None, params: Mapping[str, Any]) -> None:
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


def _claim_watchers(game: Any, town_id: str) -> list[str]:
    """Who learns of a conspiracy's claim on a town: its other claimants and the conspiracies with influence
    in it (the Infiltrate announcement, [003:1128])."""
    t = game.state.world.towns[town_id]
    out = {c["power"] for c in t["claims"].values()}
    out |= {p.id for p in game.state.powers.values() if p.cls == "conspiracy" and p.influence.get(t["hex"], 0) > 0}
    return sorted(out)


def _sees_feature(game: Any, feature_id: str, viewer: str) -> bool:
    f = game.state.world.features[feature_id]
    return viewer == GM or f["public"] or f["controller"] == viewer or viewer in f["known_to"]


def _stopped(game: Any, town_id: str, feature: dict) -> bool:
    return any(game.state.world.features.get(fid) is feature for fid in _stopped_ids(game, town_id))


def _stopped_ids(game: Any, town_id: str) -> list[str]:
    """The town's industries that cease to operate now (P-TOWN-3)."""
    w = game.state.world
    t = w.towns[town_id]
    industries = [
        {"id": fid, "complexity": wr.complexity(f["kind"], f["upgrades"], f.get("mount"))}
        for fid, f in w.features.items()
        if f["town"] == town_id and wr.feature_type(f["kind"]).industry
    ]
    return wr.stopped_industries(wr.effective_population(t["population"], t["statuses"]), industries, t["stop_order"])


def _feature_view(game: Any, feature_id: str, viewer: str) -> dict:
    """A feature as ``viewer`` may see it: its controller and what is inside a stronghold only to its
    controller (and the GM); a dungeon's floors up to the one the viewer reached (P.4, P-FEAT-3, P-FEAT-4)."""
    f = game.state.world.features[feature_id]
    mine = viewer == GM or f["controller"] == viewer
    ft = wr.feature_type(f["kind"])
    out: dict[str, Any] = {
        "id": feature_id,
        "kind": f["kind"],
        "name": f["name"],
        "hex": f["hex"],
        "town": f["town"],
        "built": ft.built,
        "upgrades": list(f["upgrades"]),
        "complexity": wr.complexity(f["kind"], f["upgrades"], f.get("mount")),
    }
    if ft.industry:
        out.update(
            {
                "mobility": wr.mobility(f["kind"], f["upgrades"]),
                "rank": wr.asset_rank(f["kind"], f["upgrades"]),
                "critical": wr.is_critical(f["kind"], f["upgrades"]),
                "fee": ft.fee,
                "wealth": wr.wealth(f["kind"], f["upgrades"], f["stored"]),
                "working": not (f["town"] and feature_id in _stopped_ids(game, f["town"])),
            }
        )
    goal = wr.wall_goal(f["kind"], f["modules"]) if f["kind"] != "stronghold" or mine else None
    if goal:
        out["goal"] = goal
    if f["kind"] == "dungeon":
        reached = len(f["floors"]) if viewer == GM else min(len(f["floors"]), f["cleared"].get(viewer, 0) + 1)
        out["floors"] = [{"floor": i + 1, **fl} for i, fl in enumerate(f["floors"][:reached])]
        out["cleared"] = dict(f["cleared"]) if viewer == GM else f["cleared"].get(viewer, 0)
    if f["kind"] == "ruin":
        out.update({"threat": f["threat"], "difficulty": f["difficulty"]})
    if mine:
        out["controller"] = f["controller"]
        if f["kind"] == "stronghold":
            out.update(
                {
                    "modules": list(f["modules"]),
                    "protection": f["protection"],
                    "inoperable": f["inoperable"],
                    "maintenance": wr.maintenance(len(f["modules"])),
                    "maintenance_due": f["maintenance_due"],
                    "next_module_complexity": wr.module_complexity(len(f["modules"])),
                }
            )
        if f["kind"] == "bank":
            out["stored"] = f["stored"]
        if f["kind"] == "ruin":
            out["reward"] = f["reward"]
    return out


def map_view(game: Any, viewer: str) -> dict[str, Any]:
    """The map as ``viewer`` may see it (P.4): ``"gm"``, a power id, or ``"public"`` (what the whole table
    sees). Terrain, roads and towns are public, with their statuses, built features and which industries
    work; a conspiracy's claim is shown only to the town's claimants and conspiracies with influence there;
    hidden features only to their controller and those who learned of them; influence as ``influence_seen``."""
    w = game.state.world
    me = game.state.powers.get(viewer)
    towns = []
    for tid, t in sorted(w.towns.items()):
        watchers = _claim_watchers(game, tid)
        claims = {
            cls: c["power"]
            for cls, c in t["claims"].items()
            if cls != "conspiracy" or viewer == GM or viewer in watchers
        }
        working = [fid for fid, f in w.features.items() if f["town"] == tid]
        features = [_feature_view(game, fid, viewer) for fid in sorted(working) if _sees_feature(game, fid, viewer)]
        town = {
            "id": tid,
            "name": t["name"],
            "hex": t["hex"],
            "population": t["population"],
            "effective_population": wr.effective_population(t["population"], t["statuses"]),
            "wealth": wr.town_wealth(
                t["wealth"],
                t["statuses"],
                [{**w.features[f], "stopped": f in _stopped_ids(game, tid)} for f in working],
            ),
            "statuses": dict(t["statuses"]),
            "claims": claims,
            "stopped": [fid for fid in _stopped_ids(game, tid) if _sees_feature(game, fid, viewer)],
            "features": features,
        }
        if viewer == GM or viewer in claims.values():
            senior = wr.senior_claimant({k: v for k, v in t["claims"].items() if k in claims})
            town["senior_claimant"] = senior
        towns.append(town)
    out: dict[str, Any] = {
        "hexes": [{"hex": h, **x} for h, x in sorted(w.hexes.items())],
        "towns": towns,
        "features": [
            _feature_view(game, fid, viewer)
            for fid, f in sorted(w.features.items())
            if f["town"] is None and _sees_feature(game, fid, viewer)
        ],
    }
    if viewer == GM:
        out["influence"] = [
            {"power": p.id, "hex": h, "amount": n}
            for p in sorted(game.state.powers.values(), key=lambda p: p.id)
            for h, n in sorted(p.influence.items())
        ]
        out["mechanisms"] = deepcopy(w.mechanisms)
    elif me is not None:
        mine = [{"power": me.id, "hex": h, "amount": n} for h, n in sorted(me.influence.items())]
        out["influence"] = mine + influence_seen(game, me)
        out["mechanisms"] = {"available": list(w.mechanisms.get(viewer, [])), "used": list(w.generated.get(viewer, []))}
    # A Circle's runes are hidden ([003:1161] "destroyed for free by other powers when detected"): its own, and
    # every power's for the GM.
    live = getattr(game, "live_runes", None)
    if live is not None:
        owners = sorted(game.state.powers) if viewer == GM else ([viewer] if me is not None else [])
        out["runes"] = [
            {"power": p, "hex": h, "rank": r} for p in owners for h, r in sorted(live(p, placed_only=True).items())
        ]
    return out


# ---------------------------------------------------------------------- commands


@dataclass(frozen=True)
class DeclareMap(Command):
    """GM: declare the whole map as data (hexes "q,r", terrain, roads, towns, features), replacing it."""

    hexes: list[dict[str, Any]]
    towns: list[dict[str, Any]] = field(default_factory=list)
    features: list[dict[str, Any]] = field(default_factory=list)


@dataclass(frozen=True)
class AmendMap(Command):
    """GM: add or replace hexes, towns and features, or remove them by id."""

    hexes: list[dict[str, Any]] = field(default_factory=list)
    towns: list[dict[str, Any]] = field(default_factory=list)
    features: list[dict[str, Any]] = field(default_factory=list)
    remove: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class RevealFeature(Command):
    """GM: show a power a hidden feature it found."""

    feature_id: str
    to: str


@dataclass(frozen=True)
class SetClaim(Command):
    """GM: record a power's claim on a town (Annex, Commandeer, a ruling): one of each type (P-TOWN-1)."""

    town_id: str
    power_id: str
    reason: str = "ruling"


@dataclass(frozen=True)
class DropClaim(Command):
    """GM: record that a power lost its claim on a town."""

    town_id: str
    power_id: str
    reason: str = "ruling"


@dataclass(frozen=True)
class AimAction(Command):
    """Aim one's Planning action at a dungeon floor, a ruin, a town action, an Infiltrate or a module."""

    action_id: str
    aim: str
    feature_id: str | None = None
    town_id: str | None = None
    floor: int | None = None
    kind: str | None = None
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SpendInfluence(Command):
    """Spend influence on one's action: any from its hex, at most 1 from each neighbour (P-INFL-2)."""

    power_id: str
    action_id: str
    amounts: dict[str, int]


@dataclass(frozen=True)
class ShiftInfluence(Command):
    """During Tidings, shift influence down a gradient of two, one step at a time (P-INFL-3)."""

    power_id: str
    shifts: list[list[str]]


@dataclass(frozen=True)
class SetMechanisms(Command):
    """GM: the influence generation mechanisms a conspiracy picked (P-INFL-5)."""

    power_id: str
    mechanisms: list[str]


@dataclass(frozen=True)
class GenerateInfluence(Command):
    """GM: a generation mechanism fired (once a season each): influence equal to the rank (P-INFL-5)."""

    power_id: str
    mechanism: str
    hex_id: str
    ranks: list[int]


@dataclass(frozen=True)
class RuleSubtle(Command):
    """GM: an action targets something inside a stronghold by subtle means (P-FEAT-3, GM-22)."""

    action_id: str
    feature_id: str
    overcome: bool = False


@dataclass(frozen=True)
class MercurialSwap(Command):
    """Swap a conspiracy's influence between two hexes during Tidings (Mercurial, P-INFL-4)."""

    power_id: str
    a: str
    b: str


@dataclass(frozen=True)
class PayMaintenance(Command):
    """Pay a stronghold's maintenance this Tidings (P-FEAT-3)."""

    power_id: str
    feature_id: str


def _declare_map(game: Any, cmd: DeclareMap, ctx: Context) -> None:
    require_gm(ctx)
    game.declare_map(list(cmd.hexes), list(cmd.towns), list(cmd.features))


def _amend_map(game: Any, cmd: AmendMap, ctx: Context) -> None:
    require_gm(ctx)
    game.amend_map(list(cmd.hexes), list(cmd.towns), list(cmd.features), list(cmd.remove))


def _reveal_feature(game: Any, cmd: RevealFeature, ctx: Context) -> None:
    require_gm(ctx)
    game.reveal_feature(cmd.feature_id, cmd.to)


def _set_claim(game: Any, cmd: SetClaim, ctx: Context) -> None:
    require_gm(ctx)
    game.set_claim(cmd.town_id, cmd.power_id, cmd.reason)


def _drop_claim(game: Any, cmd: DropClaim, ctx: Context) -> None:
    require_gm(ctx)
    game.drop_claim(cmd.town_id, cmd.power_id, cmd.reason)


def _aim_action(game: Any, cmd: AimAction, ctx: Context) -> dict:
    a = game.state.actions.get(cmd.action_id)
    if a is None or (ctx.principal != GM and a.power != ctx.principal):
        raise NotFound(f"no action {cmd.action_id!r} of yours this month", field="action_id")
    if ctx.principal != GM:  # the GM completes an action with the facts only the GM gives (GM_FACTS)
        require_seat(game, ctx, a.power)
    game.aim_action(
        cmd.action_id,
        cmd.aim,
        feature_id=cmd.feature_id,
        town_id=cmd.town_id,
        floor=cmd.floor,
        kind=cmd.kind,
        params=dict(cmd.params),
        actor=ctx.principal,
    )
    return {"action_id": cmd.action_id, "difficulty": game.state.actions[cmd.action_id].difficulty}


def _spend_influence(game: Any, cmd: SpendInfluence, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.spend_influence(cmd.power_id, cmd.action_id, dict(cmd.amounts), actor=ctx.principal)


def _shift_influence(game: Any, cmd: ShiftInfluence, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.shift_influence(cmd.power_id, [list(s) for s in cmd.shifts], actor=ctx.principal)


def _set_mechanisms(game: Any, cmd: SetMechanisms, ctx: Context) -> None:
    require_gm(ctx)
    game.set_mechanisms(cmd.power_id, list(cmd.mechanisms))


def _generate_influence(game: Any, cmd: GenerateInfluence, ctx: Context) -> None:
    require_gm(ctx)
    game.generate_influence(cmd.power_id, cmd.mechanism, cmd.hex_id, list(cmd.ranks))


def _pay_maintenance(game: Any, cmd: PayMaintenance, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.pay_maintenance(cmd.feature_id, cmd.power_id, actor=ctx.principal)


def _rule_subtle(game: Any, cmd: RuleSubtle, ctx: Context) -> None:
    require_gm(ctx, "rule an action subtle")
    game.rule_subtle(cmd.action_id, cmd.feature_id, overcome=cmd.overcome)


def _mercurial_swap(game: Any, cmd: MercurialSwap, ctx: Context) -> None:
    require_seat(game, ctx, cmd.power_id)
    game.mercurial_swap(cmd.power_id, cmd.a, cmd.b, actor=ctx.principal)


WORLD_COMMANDS: Mapping[type, Handler] = {
    MercurialSwap: _mercurial_swap,
    RuleSubtle: _rule_subtle,
    DeclareMap: _declare_map,
    AmendMap: _amend_map,
    RevealFeature: _reveal_feature,
    SetClaim: _set_claim,
    DropClaim: _drop_claim,
    AimAction: _aim_action,
    SpendInfluence: _spend_influence,
    ShiftInfluence: _shift_influence,
    SetMechanisms: _set_mechanisms,
    GenerateInfluence: _generate_influence,
    PayMaintenance: _pay_maintenance,
}


def keep_known_features(state: GameState, known: dict) -> None:
    """Fold what a rollback carried over (``known_features``) into the restored world: state only."""
    for fid, powers in known.items():
        f = state.world.features.get(fid)
        if f is not None:
            f["known_to"] = sorted({*f["known_to"], *(p for p in powers if p in state.powers)})
