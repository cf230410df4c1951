"""Assets' terms in the class catalogue: a mixin of ``Game`` (ANALYSIS.md P-ASSET-5..8, P-ACT-5, P-AMB-10).

The terms the GM records for agents, industries and armies (fee, loyalty, mobility, home, profession...) and the
fees they charge when they act (P-ASSET-5..7); free actions that spend an asset (P-ACT-5); who wields a magic item
(P-ASSET-8); a power's immunity and who knows how to overcome it (P-AMB-10). Kept in ``GameState.catalogue``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, cast

from domain import limits
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.game import PlatformGame
from domain.powers import catalogue_rules as cr
from domain.powers import hexmap, rules
from domain.powers.catalogue_state import CatalogueEvent, Terms, cat, claimed_towns, record, world_towns
from domain.powers.part import as_game

if TYPE_CHECKING:
    from domain.powers.state import Asset, GameState

TERMS: dict[str, type] = {
    "fee": int,
    "loyal_to": str,
    "mobility": int,
    "home": str,
    "rooted": bool,
    "follower": bool,
    "hex": str,
    "profession": str,
    "personal": bool,
    "levy": bool,
    "origin": str,
}


class FeeDue(TypedDict):
    """An asset's fee for having acted (P-ASSET-5, P-ASSET-6)."""

    asset_id: str
    name: str
    fee: int


def _term_ok(typ: type, value: object) -> bool:
    if typ is int:  # a fee or a mobility: a whole number, never a bool
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 100
    return isinstance(value, typ)


class AssetTerms(PlatformGame):
    """Commands and events of assets' terms, fees, wielders and immunities (P-ASSET-5..8, P-AMB-10)."""

    if TYPE_CHECKING:
        state: GameState

    def _check_terms(self, power_id: str, chosen: list[tuple[Asset, str]], where: dict[str, Any] | None) -> None:
        """Each agent, industry and army in a pool, against the terms the GM recorded (P-ASSET-5..7); each spell,
        against the casts that paid for it (P-ASSET-8)."""
        g = as_game(self)
        g._check_spell_assets(power_id, chosen, where)
        where = where or {}
        terms = cat(self.state).get("terms", {})
        for asset, _mode in chosen:
            t = terms.get(asset.id, {})
            # An asset the GM granted without terms is taken as granted: the GM vouched it can help.
            if t:
                cr.check_asset_terms(
                    {"id": asset.id, "name": asset.name, "cls": asset.cls},
                    t,
                    power_id,
                    location=where.get("location"),
                    against=[p for p in where.get("against", []) if p != power_id],
                    bases=self._bases(power_id),
                )

    def _bases(self, power_id: str) -> list[str] | None:
        """Where a power's followers work from (P-ASSET-5): a conspiracy's influenced hexes, a city's claimed
        towns (on the map, once the GM declared it), a champion's hex (as the GM recorded it)."""
        ps = self.state.powers[power_id]
        if ps.cls == "conspiracy":
            return sorted(h for h, n in ps.influence.items() if n > 0)
        if ps.cls == "city" and world_towns(self.state):
            return sorted({t["hex"] for t in claimed_towns(self.state, power_id)})
        where = cat(self.state).get("locations", {}).get(power_id)
        if ps.cls == "champion" and where:
            return [where]
        return None

    def _charge_fees(self, action_id: str, payer: str, assets: Sequence[Mapping[str, Any]]) -> None:
        """Each agent, industry and army that acted charges its fee unless loyal to the payer (P-ASSET-5,
        P-ASSET-6): paid from the wallet if it can be; else recorded unpaid, for the GM (GM-27)."""
        g = as_game(self)
        terms = cat(self.state).get("terms", {})
        fees: list[FeeDue] = []
        for pa in assets:
            fee = 0 if pa.get("undercut") else cr.fee_due(pa["cls"], terms.get(pa["asset_id"], {}), payer)
            if fee:
                fees.append({"asset_id": pa["asset_id"], "name": pa["name"], "fee": fee})
        if not fees:
            return
        total = sum(f["fee"] for f in fees)
        try:
            g.pay(payer, {"coin": total}, "fees of the assets that acted", rule="P-ASSET-5", actor=SYSTEM)
            paid = True
        except RuleViolation:
            paid = False
        record(
            self,
            FeesDue,
            action_id=action_id,
            power_id=payer,
            fees=fees,
            total=total,
            paid=paid,
            actor=SYSTEM,
            audience=vis.powers([payer]),
        )

    def take_free_action(
        self, power_id: str, kind: str, *, asset_id: str | None = None, note: str = ""
    ) -> dict[str, Any]:
        """Something the rules make free: it spends no action (P-ACT-5)."""
        g = as_game(self)
        ps = g.power(power_id)
        source = cr.check_free_action(kind)
        limits.check_text(note, "note", limits.DESCRIPTION, what="a note")
        if self.state.step == "setup":
            raise RuleViolation("the game has not begun", rule="P-ACT-5")
        asset = self.state.assets.get(asset_id) if asset_id else None
        if asset is None or power_id not in asset.holders or asset.used_up:
            raise NotFound(f"{ps.name} holds no asset {asset_id!r}", rule="P-ACT-5", field="asset_id")
        terms = cat(self.state).get("terms", {}).get(asset.id, {})
        gained: dict[str, int] = {}
        if kind == "execute_agent":
            if asset.cls != "agent":
                raise RuleViolation(f"{asset.name!r} is not an agent", rule="P-ACT-5", field="asset_id")
            if terms.get("loyal_to") != power_id:
                raise RuleViolation(
                    f"{asset.name!r} is not in your power: only an agent loyal to you is executed freely",
                    rule="P-ACT-5",
                    field="asset_id",
                )
            gained = {"fear": asset.rank}  # [003:176] fear equal to the agent's rank (P-ASSET-10)
        elif kind == "disband_levy":
            if asset.cls != "army" or not terms.get("levy"):
                raise RuleViolation(f"{asset.name!r} is not a levy", rule="P-ACT-5", field="asset_id")
            if not terms.get("origin") or terms.get("hex") != terms.get("origin"):
                raise RuleViolation(
                    f"a levy is disbanded freely only in its origin town ({terms.get('origin')}); "
                    f"{asset.name!r} is at {terms.get('hex')}",
                    rule="P-ACT-5",
                    field="asset_id",
                )
        record(
            self,
            FreeActionTaken,
            power_id=power_id,
            kind=kind,
            asset_id=asset.id,
            name=asset.name,
            note=note,
            source=source,
            gained=gained,
            actor=power_id,
            audience=vis.powers([power_id]),
        )
        if gained.get("fear"):
            g.earn(power_id, "fear", gained["fear"], f"executed {asset.name} ([003:176])", actor=power_id)
        return {"kind": kind, "asset_id": asset.id, "gained": gained}

    def set_asset_terms(self, asset_id: str, terms: dict[str, Any]) -> None:
        """GM: an agent's, industry's or army's fee, loyalty, mobility, home, profession... (P-ASSET-5..7)."""
        asset = self.state.assets.get(asset_id)
        if asset is None:
            raise NotFound(f"no asset {asset_id!r}", field="asset_id")
        if asset.cls not in ("agent", "industry", "army"):
            raise RuleViolation(
                f"terms are for agents, industries and armies; {asset.name!r} is a {asset.cls}", rule="P-ASSET-5"
            )
        if not isinstance(terms, dict):
            raise RuleViolation("terms are an object of named fields", rule="P-ASSET-5", field="terms")
        clean: dict[str, Any] = {}
        g = as_game(self)
        for k, v in terms.items():
            typ = TERMS.get(k)
            if typ is None:
                raise RuleViolation(f"terms.{k} is not a term; they are {', '.join(TERMS)}", field=f"terms.{k}")
            if not _term_ok(typ, v):
                raise RuleViolation(f"terms.{k} is a {typ.__name__}", field=f"terms.{k}")
            if k in ("home", "hex", "origin"):
                hexmap.parse_hex(v)
            if k == "loyal_to":
                g.power(v)
            clean[k] = v
        if clean.get("personal") and clean.get("profession"):
            raise RuleViolation("a Personal Army cannot take profession keywords [003:110]", rule="P-ASSET-7")
        audience = [vis.PUBLIC] if asset.cls in rules.PUBLIC_ASSET_CLASSES else vis.powers(asset.holders)
        record(self, AssetTermsSet, asset_id=asset_id, terms=cast(Terms, clean), actor=GM, audience=audience)

    def wielders(self, power_id: str) -> dict[str, str]:
        """item id -> its wielder, for the magic items ``power_id`` holds and gave to someone (P-ASSET-8)."""
        out = {}
        for item_id, w in cat(self.state).get("wielders", {}).items():
            item = self.state.assets.get(item_id)
            if item is not None and w["power"] == power_id and power_id in item.holders:
                out[item_id] = w["wielder"]
        return out

    def wield_item(
        self,
        power_id: str,
        asset_id: str,
        wielder: str | None,
        *,
        action_id: str | None = None,
        actor: str | None = None,
    ) -> None:
        """Give a magic item to a wielder, an agent or army of the power's or a champion itself, or take it back
        (``wielder`` None). [003:539] "The Wielder of an item can be selected when the item is obtained or created,
        and it can be changed as part of any Action involving the item or its wielder"; [003:541] "Each Wielder can
        benefit from a single item at a time, apart from Champions, which can use three differently named items"
        (P-ASSET-8; Master of Artifice, two more)."""
        g = as_game(self)
        ps = g.power(power_id)
        item = self.state.assets.get(asset_id)
        if item is None or item.cls != "item" or power_id not in item.holders:
            raise NotFound(f"{ps.name} holds no magic item {asset_id!r}", rule="P-ASSET-8", field="asset_id")
        if wielder == power_id and ps.cls != "champion":
            raise RuleViolation(
                f"only a champion wields items personally; give {item.name!r} to an agent or army of yours",
                rule="P-ASSET-8",
                field="wielder",
            )
        if wielder not in (None, power_id):
            w = self.state.assets.get(str(wielder))
            if w is None or w.cls not in ("agent", "army") or power_id not in w.holders:
                raise RuleViolation(
                    "an item's wielder is an agent or army of yours, or a champion itself",
                    rule="P-ASSET-8",
                    field="wielder",
                )
        held = self.wielders(power_id)
        current = held.get(asset_id)
        if current == wielder:
            raise RuleViolation(f"{item.name!r} is already wielded so", rule="P-ASSET-8", field="wielder")
        if current is not None:
            self._check_wield_action(power_id, action_id, {asset_id, current, *([wielder] if wielder else [])})
        if wielder is not None:
            cr.check_wield(
                item.name,
                [self.state.assets[i].name for i, w in held.items() if w == wielder],
                champion=wielder == power_id,
                artifice=g._has_perk(power_id, "master of artifice"),
            )
        record(
            self,
            ItemWielded,
            power_id=power_id,
            asset_id=asset_id,
            wielder=wielder,
            action_id=action_id if current is not None else None,
            actor=actor or power_id,
            audience=vis.powers([power_id]),
        )

    def _check_wield_action(self, power_id: str, action_id: str | None, involved: set[str]) -> None:
        """A wielder changes "as part of any Action involving the item or its wielder" ([003:539]): one of the
        power's actions this Planning whose pool holds the item or a wielder (a champion is in all its own)."""
        a = self.state.actions.get(action_id or "")
        uses = {pa.asset_id for pa in (a.pool.assets if a is not None and a.pool else [])} | {a.power if a else ""}
        if a is None or a.power != power_id or a.discarded or self.state.step != "planning" or not uses & involved:
            raise RuleViolation(
                "an item changes wielder as part of an action involving the item or its wielder [003:539]: name "
                "one of your actions this Planning whose pool holds it or them",
                rule="P-ASSET-8",
                field="action_id",
            )

    def set_immunity(self, power_id: str, immunity: str, bypassed_by: list[str] | None = None) -> None:
        """GM: a power's immunity, as data (P-AMB-10: an adversary has the one the GM records, a minor adversary
        none unless the GM overrides; [003:54] a non-minor champion's "immunity ability"), and the powers that know
        how to overcome it. While it applies, a duel defeats the power but cannot kill it ([003:54]). An empty
        ``immunity`` lifts it. The power, those who know how to overcome it and the GM know it."""
        g = as_game(self)
        g.power(power_id)
        text = limits.check_text(immunity, "immunity", limits.REASON, what="an immunity")
        knowing = sorted(set(bypassed_by or []))
        for p in knowing:
            g.power(p)
            if p == power_id:
                raise RuleViolation("a power does not overcome its own immunity", rule="P-AMB-10", field="bypassed_by")
        wanted = {"immunity": text.strip(), "bypassed_by": knowing} if text.strip() else None
        if wanted == cat(self.state).get("immunities", {}).get(power_id):
            raise RuleViolation("this power's immunity is already so", rule="P-AMB-10", field="immunity")
        record(
            self,
            ImmunitySet,
            power_id=power_id,
            immunity=text.strip(),
            bypassed_by=knowing,
            actor=GM,
            audience=vis.powers([power_id, *knowing]),
        )

    def _immunity_held(self, attacker: str, target: str) -> bool | None:
        """Whether ``target``'s immunity still protects it against ``attacker`` ([003:54]); None if it has none."""
        imm = cat(self.state).get("immunities", {}).get(target)
        return None if imm is None else attacker not in imm["bypassed_by"]


# ---------------------------------------------------------------------- events


class FeesDue(CatalogueEvent):
    """What the assets that acted charged (the feed tells it; the wallet's own records paid it)."""

    action_id: str
    power_id: str
    fees: list[FeeDue]
    total: int
    paid: bool
    actor: str
    audience: list[str]


class FreeActionTaken(CatalogueEvent):
    power_id: str
    kind: str
    asset_id: str
    name: str
    note: str
    source: str
    gained: dict[str, int]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        asset = s.assets[self.asset_id]
        asset.holders = []
        asset.used_up = True
        cat(s).get("terms", {}).pop(self.asset_id, None)


class AssetTermsSet(CatalogueEvent):
    asset_id: str
    terms: Terms
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        cat(s).setdefault("terms", {})[self.asset_id] = self.terms.copy()


class ItemWielded(CatalogueEvent):
    power_id: str
    asset_id: str
    wielder: str | None
    action_id: str | None
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        wielders = cat(s).setdefault("wielders", {})
        if self.wielder is None:
            wielders.pop(self.asset_id, None)
        else:
            wielders[self.asset_id] = {"power": self.power_id, "wielder": self.wielder}


class ImmunitySet(CatalogueEvent):
    power_id: str
    immunity: str
    bypassed_by: list[str]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        immunities = cat(s).setdefault("immunities", {})
        if self.immunity:
            immunities[self.power_id] = {"immunity": self.immunity, "bypassed_by": list(self.bypassed_by)}
        else:
            immunities.pop(self.power_id, None)
