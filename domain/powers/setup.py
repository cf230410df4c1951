"""What the GM sets up at a Powers table and grants as the game goes: its powers with their monthly quotas (P-ACT-1),
assets (P-ASSET-1..8), mana (P-MAG-1) and influence (P-INFL-1); and the Secrets powers share (P-ASSET-8)."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

from domain import limits
from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import GM
from domain.powers import development_rules, magic_rules, rules
from domain.powers.base import GameBase, PowersEvent
from domain.powers.magic_state import caps_of
from domain.powers.options import validate_power_options
from domain.powers.state import Asset, GameState, PowerState


class PowerAdded(PowersEvent):
    power_id: str
    name: str
    cls: str
    subclass: str
    options: dict[str, Any]
    public: int
    private: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.powers[self.power_id] = PowerState(
            id=self.power_id,
            name=self.name,
            cls=self.cls,
            subclass=self.subclass,
            options=deepcopy(self.options),
            public=self.public,
            private=self.private,
        )


class AssetGranted(PowersEvent):
    asset_id: str
    power_id: str
    name: str
    cls: str
    rank: int
    assured: bool
    critical: bool
    novel: bool
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        existing = s.assets.get(self.asset_id)
        if existing is None:
            s.assets[self.asset_id] = Asset(
                id=self.asset_id,
                name=self.name,
                cls=self.cls,
                rank=self.rank,
                holders=[self.power_id],
                assured=self.assured,
                critical=self.critical,
                novel=self.novel,
            )
        else:
            existing.holders.append(self.power_id)


class ManaGranted(PowersEvent):
    power_id: str
    element: str
    amount: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        mana = s.powers[self.power_id].mana
        mana[self.element] = mana.get(self.element, 0) + self.amount


class SecretShared(PowersEvent):
    asset_id: str
    from_power: str
    to: str
    name: str
    rank: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.assets[self.asset_id].holders.append(self.to)


class InfluenceSet(PowersEvent):
    power_id: str
    hex_id: str
    amount: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        influence = s.powers[self.power_id].influence
        if self.amount:
            influence[self.hex_id] = self.amount
        else:
            influence.pop(self.hex_id, None)


class InfluenceDisclosed(PowersEvent):
    to: str
    hex_id: str
    entries: dict[str, Any]
    actor: str
    audience: list[str]


class Setup(GameBase):
    """The powers of a game and what the GM grants them (a base of ``domain.powers.game.Game``)."""

    PowerAdded = PowerAdded
    AssetGranted = AssetGranted
    ManaGranted = ManaGranted
    SecretShared = SecretShared
    InfluenceSet = InfluenceSet
    InfluenceDisclosed = InfluenceDisclosed

    def _asset_granted(
        self,
        asset_id: str,
        power_id: str,
        name: str,
        cls: str,
        rank: int,
        assured: bool,
        critical: bool,
        novel: bool,
        actor: str,
        audience: list[str],
    ) -> None:
        """Record AssetGranted (the other parts of the game record it through this)."""
        self.trigger_event(
            self.AssetGranted,
            asset_id=asset_id,
            power_id=power_id,
            name=name,
            cls=cls,
            rank=rank,
            assured=assured,
            critical=critical,
            novel=novel,
            actor=actor,
            audience=audience,
        )

    def _mana_granted(self, power_id: str, element: str, amount: int, actor: str, audience: list[str]) -> None:
        """Record ManaGranted (the other parts of the game record it through this)."""
        self.trigger_event(
            self.ManaGranted, power_id=power_id, element=element, amount=amount, actor=actor, audience=audience
        )

    def _influence_set(self, power_id: str, hex_id: str, amount: int, actor: str, audience: list[str]) -> None:
        """Record InfluenceSet (the other parts of the game record it through this)."""
        self.trigger_event(
            self.InfluenceSet, power_id=power_id, hex_id=hex_id, amount=amount, actor=actor, audience=audience
        )

    def _influence_disclosed(
        self, to: str, hex_id: str, entries: dict[str, Any], actor: str, audience: list[str]
    ) -> None:
        """Record InfluenceDisclosed (the other parts of the game record it through this)."""
        self.trigger_event(
            self.InfluenceDisclosed, to=to, hex_id=hex_id, entries=entries, actor=actor, audience=audience
        )

    def add_power(
        self, power_id: str, name: str, cls: str, subclass: str, options: dict[str, Any] | None = None
    ) -> None:
        """Add a power of any class and subclass, with its monthly quota (P-ACT-1)."""
        limits.check_text(name, "name", limits.POWER_NAME, required=True, what="a power's name")
        limits.check_text(power_id, "power_id", limits.IDENTIFIER)
        if any(p.name.lower() == name.strip().lower() for p in self.state.powers.values()):
            raise RuleViolation(f"there is already a power named {name.strip()!r}", field="name")
        rules.validate_power(cls, subclass, {})
        options = validate_power_options(subclass, options)
        rules.validate_power(cls, subclass, options)
        q = rules.quota(subclass, options)
        self.trigger_event(
            self.PowerAdded,
            power_id=power_id,
            name=name.strip(),
            cls=cls,
            subclass=subclass,
            options=options,
            public=q.public,
            private=q.private,
            actor=GM,
            audience=[vis.PUBLIC],
        )

    def grant_asset(
        self,
        asset_id: str,
        power_id: str,
        name: str,
        cls: str,
        rank: int,
        assured: bool = False,
        critical: bool = False,
        novel: bool = False,
    ) -> None:
        """Give a power an asset; granting an existing asset id to another power shares it (P-ASSET-5, 6)."""
        self.power(power_id)
        limits.check_text(name, "name", limits.ASSET_NAME, required=True, what="an asset's name")
        limits.check_text(asset_id, "asset_id", limits.IDENTIFIER)
        development_rules.check_not_resource(cls, "cls")
        if cls not in rules.ASSET_CLASSES:
            raise RuleViolation(
                f"an asset's class is one of {', '.join(rules.ASSET_CLASSES)}; {cls!r} is not",
                rule="P-ASSET-1",
                field="cls",
            )
        if not 1 <= rank <= 10:
            raise RuleViolation("an asset's rank is between 1 and 10", rule="P-DICE-2", field="rank")
        if cls == "skill" and name not in rules.SKILLS:
            raise RuleViolation(
                f"a skill is one of {', '.join(rules.SKILLS)}; {name!r} is not", rule="P-ASSET-3", field="name"
            )
        existing = self.state.assets.get(asset_id)
        if existing is not None:
            if power_id in existing.holders:
                raise RuleViolation(
                    f"{self.state.powers[power_id].name} already holds {existing.name!r}", field="asset_id"
                )
            if cls in ("skill", "spell", "item", "consumable"):
                raise RuleViolation(f"{cls}s cannot be shared between powers", rule="P-ASSET-8", field="asset_id")
        audience = [vis.PUBLIC] if cls in rules.PUBLIC_ASSET_CLASSES else vis.powers([power_id])
        self._asset_granted(
            asset_id=asset_id,
            power_id=power_id,
            name=name,
            cls=cls,
            rank=rank,
            assured=assured,
            critical=critical,
            novel=novel,
            actor=GM,
            audience=audience,
        )

    def grant_mana(self, power_id: str, element: str, amount: int) -> None:
        """The GM records mana a power gains (a favor, a ruling); it dissipates at Cleanup ([003:310]).

        P-MAG-1: mana is of an element (A, F, E, W, L or D), and a power stores at most its cap of each.
        """
        p = self.power(power_id)
        element = magic_rules.check_element(element.strip() if isinstance(element, str) else element)
        if not isinstance(amount, int) or not 1 <= amount <= 20:
            raise RuleViolation("mana is granted 1 to 20 at a time", rule="P-MAG-1", field="amount")
        magic_rules.check_gain(p.mana, element, amount, caps_of(self.state, power_id))
        self._mana_granted(power_id=power_id, element=element, amount=amount, actor=GM, audience=vis.powers([power_id]))

    def share_secret(self, power_id: str, asset_id: str, to: str) -> None:
        """Share a Secret with another power; it can never be retracted ([003:114], P-ASSET-8)."""
        asset = self.state.assets.get(asset_id)
        if asset is None or power_id not in asset.holders:
            raise NotFound(f"you hold no asset {asset_id!r}", field="asset_id")
        if asset.cls != "secret":
            raise RuleViolation(
                f"only secrets are shared; {asset.name!r} is a {asset.cls}", rule="P-ASSET-8", field="asset_id"
            )
        self.power(to)
        if to == power_id or to in asset.holders:
            raise RuleViolation(
                f"{self.state.powers[to].name} already knows {asset.name!r}", rule="P-ASSET-8", field="to"
            )
        self.trigger_event(
            self.SecretShared,
            asset_id=asset_id,
            from_power=power_id,
            to=to,
            name=asset.name,
            rank=asset.rank,
            actor=power_id,
            audience=vis.powers([power_id, to]),
        )

    def set_influence(self, power_id: str, hex_id: str, amount: int) -> None:
        """GM records a power's influence in a hex; conspiracies there see each other's (P.4, [003:1104])."""
        self.power(power_id)
        limits.check_text(hex_id, "hex", limits.IDENTIFIER, what="a hex")
        if not hex_id.strip():
            raise RuleViolation("name the hex", field="hex")
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 <= amount <= 20:
            raise RuleViolation("influence is a whole number from 0 to 20", rule="P-INFL-1", field="amount")
        if self.state.world.hexes:
            hex_id = self._map_hex(hex_id, "hex", "P-INFL-1")
        self._put_influence(power_id, hex_id, amount, GM)
        self._check_conspiracy_claims(power_id)
