"""The class catalogue and the partial rules of Powers: a mixin of ``Game`` (ANALYSIS.md P.2.1-P.2.4, P.2.12).

- P-DICE-13: dice outside challenges (d4, d10...), from the month's committed seed, verifiable like any roll;
- P-ACT-1: quotas that change in play (strongholds: domain.powers.world);
- P-ACT-6: the duel; P-ACT-7: seeking; P.2.12: class actions with their formulas; P-DICE-12; P-RES-4: per-target
  resistance.

Its pieces, each a mixin deciding its commands: shared actions (P-DICE-11, ``catalogue_shares``), extra and
triggered reactions (P-RES-1, P-RES-7, ``catalogue_reactions``), assets' terms, fees, free actions, wielders and
immunities (P-ASSET-5..8, P-ACT-5, P-AMB-10, ``catalogue_assets``). Each sub-domain module declares its events, whose
``evolve`` folds one into the state (``catalogue_actions``: class actions; ``catalogue_partial``: dice outside
challenges, quotas, Blighted Neighborhood, Dread Growth, true locations); ``Catalogue`` names every one, so each is
stored under the topic it has always had, ``domain.powers.catalogue:Catalogue.<Name>``
(tests/domain/test_powers_event_topics.py). Their shared reads of the state are pure functions
(``catalogue_state``), their formulas too (``catalogue_rules``).

State lives in ``GameState.catalogue`` (plain JSON data, so snapshots and replays reproduce it); what
belongs to one month is cleared when the next month's Planning begins.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from copy import deepcopy
from typing import TYPE_CHECKING, Any, cast

from eventsourcing.utils import register_topic

from domain import limits
from domain import visibility as vis
from domain.dice import Roller
from domain.errors import RuleViolation
from domain.ids import GM, SYSTEM
from domain.platform.game import PlatformGame
from domain.powers import catalogue_actions as class_actions
from domain.powers import catalogue_assets as asset_terms
from domain.powers import catalogue_partial as partial
from domain.powers import catalogue_reactions as reacting
from domain.powers import catalogue_rules as cr
from domain.powers import catalogue_shares as sharing
from domain.powers import hexmap, rules
from domain.powers import magic_rules as mr
from domain.powers.catalogue_assets import AssetTerms
from domain.powers.catalogue_reactions import Reactions
from domain.powers.catalogue_shares import Shares
from domain.powers.catalogue_state import (
    ClassActionRecord,
    as_game,
    cat,
    claimed_towns,
    claims_of,
    map_town,
    record,
    rune_hexes,
    world_towns,
)
from domain.powers.magic import _draw, kept_gain, pool_of
from domain.powers.options import validate_power_options

if TYPE_CHECKING:
    from domain.powers.state import ActionState, GameState

MONTHLY = ("extra_reactions", "triggered", "kinds", "shares")
QUOTA_PERKS = ("leading_army", "subtle_titan", "subtle_titan_upgraded")


# The inputs of a class action's formula that the map holds once the GM declared the town (P-TOWN-2, P-TOWN-4).
_FROM_THE_MAP = {
    "sack": ("uprising", "wealth"),
    "slaughter": ("uprising", "depopulated", "population"),
    "health_drive": ("population",),
}


def _new_finger_army(army_id: str, power_id: str, stats: dict[str, Any], size: int, hex_id: str) -> dict[str, Any]:
    """A Patron's Finger Army of the Cult's design ([003:1203]), loyal to it, garrisoned where it rose."""
    from domain.powers.armies import _new_army

    return _new_army(army_id, "Patron's Finger Army", power_id, stats, size, hex_id, hex_id, True, False, False)


class Catalogue(Shares, Reactions, AssetTerms, PlatformGame):
    """Commands and events of the class catalogue and the partial rules; shared actions, reactions and assets'
    terms are its pieces' (``catalogue_shares``, ``catalogue_reactions``, ``catalogue_assets``)."""

    if TYPE_CHECKING:
        state: GameState

    # The events, each declared and folded in its sub-domain's module; named here, each is redefined by the
    # library as Catalogue.<Name>, the topic its stored events have always had (catalogue_state.record).
    # class actions
    ClassActionDeclared = class_actions.ClassActionDeclared
    ActionLost = class_actions.ActionLost
    ClassActionOutcome = class_actions.ClassActionOutcome
    TargetResult = class_actions.TargetResult
    RunePlaced = class_actions.RunePlaced
    # the partial rules
    ExtraDiceRolled = partial.ExtraDiceRolled
    QuotaChanged = partial.QuotaChanged
    BlightedTownChosen = partial.BlightedTownChosen
    DreadGrown = partial.DreadGrown
    TrueLocationRecorded = partial.TrueLocationRecorded
    # shared actions
    ShareRolled = sharing.ShareRolled
    ShareConsequenceProposed = sharing.ShareConsequenceProposed
    ShareConsequenceAccepted = sharing.ShareConsequenceAccepted
    ShareUndercut = sharing.ShareUndercut
    # reactions
    ExtraReactionGained = reacting.ExtraReactionGained
    ReactionUsed = reacting.ReactionUsed
    # assets' terms
    FeesDue = asset_terms.FeesDue
    FreeActionTaken = asset_terms.FreeActionTaken
    AssetTermsSet = asset_terms.AssetTermsSet
    ItemWielded = asset_terms.ItemWielded
    ImmunitySet = asset_terms.ImmunitySet

    # ------------------------------------------------------------------ hooks the aggregate calls

    def _catalogue_month_began(self) -> None:
        """Fold: a month's Planning clears the month's catalogue records and extra reactions (P-RES-1)."""
        month: dict[str, object] = cast("dict[str, object]", cat(self.state))
        for key in MONTHLY:
            month.pop(key, None)  # absent, not empty: a month without catalogue records folds as before it existed
        for p in self.state.powers.values():
            p.reaction_allowance = 1

    def _check_ruling(self, a: ActionState, resistible: bool) -> None:
        """Seeking cannot be resisted (P-ACT-7)."""
        record = cat(self.state).get("kinds", {}).get(a.id)
        kind = record["kind"] if record is not None else None
        if resistible and kind in ("targeted_seeking", "broad_seeking"):
            raise RuleViolation("seeking cannot be resisted [003:58]", rule="P-ACT-7", field="resistible")

    def _net_after_resistance(self, a: ActionState, resist: dict[str, int]) -> int:
        """Summed resistance for an outcome that concerns everyone; an action with an effect per target keeps
        its successes, each target's resistance applying to its own share only (P-RES-4 as P-AMB-7); under
        ``multi_resist_mode: "summed"`` every resister's successes add up against the whole action."""
        summed = self.state.options.get("multi_resist_mode") == "summed"
        record = cat(self.state).get("kinds", {}).get(a.id)
        if record is not None and record.get("per_target") and not summed:
            return int(a.successes or 0)
        return rules.net_successes(a.successes or 0, list(resist.values()))

    def _on_resolving(self, a: ActionState, ledger: dict[str, str]) -> bool:
        """At an action's turn in the queue: undercut collaborators' used-up assets (P-ASSET-13), charge the
        fees (P-ASSET-5, P-ASSET-6), and lose a duel declared at the wrong place (P-ACT-6). True if lost."""
        s = self.state
        c = cat(s)
        for n, sh in enumerate(c.get("shares", {}).get(a.id, [])):
            for pa in sh["pool"]["assets"]:
                if pa["cls"] not in rules.ONCE_PER_SEASON:
                    continue
                if pa["asset_id"] in ledger and ledger[pa["asset_id"]] != a.id:
                    record(
                        self,
                        sharing.ShareUndercut,
                        action_id=a.id,
                        share=n,
                        asset_id=pa["asset_id"],
                        name=pa["name"],
                        actor=SYSTEM,
                        audience=vis.powers([sh["power"]]),
                    )
                else:
                    ledger[pa["asset_id"]] = a.id
        kind = c.get("kinds", {}).get(a.id)
        if kind is not None and self._lost_at_its_turn(a, kind):
            return True
        payers: list[tuple[str, Sequence[Mapping[str, Any]]]] = [
            (a.power, [vars(pa) for pa in (a.pool.assets if a.pool else [])])
        ]
        payers += [(sh["power"], sh["pool"]["assets"]) for sh in c.get("shares", {}).get(a.id, [])]
        for payer, assets in payers:
            self._charge_fees(a.id, payer, assets)
        return False

    def _lost_at_its_turn(self, a: ActionState, kind: ClassActionRecord) -> bool:
        """A catalogue action at its turn in the queue: a duel declared at the wrong place is lost (P-ACT-6); its
        coin and mana costs are paid now, and one its power cannot pay does not happen ([003:28]). True if lost."""
        audience = [vis.PUBLIC] if a.slot == "public" else vis.powers([a.power, *a.collaborators])
        if kind.get("kind") == "duel":
            target, declared = kind["params"].get("target"), kind["params"].get("location")
            true = cat(self.state).get("locations", {}).get(target) if isinstance(target, str) else None
            if true is not None and true != declared:
                record(
                    self,
                    class_actions.ActionLost,
                    action_id=a.id,
                    reason=f"the duel was declared at {declared}, but the target was not there [003:54]",
                    actor=SYSTEM,
                    audience=audience,
                )
                return True
        coin = int(kind.get("price", {}).get("coin", 0))
        if coin:
            # [003:28] costs are paid at the start of the action: one its power cannot pay does not happen.
            g = as_game(self)
            try:
                g.pay(
                    a.power, {"coin": coin}, f"{kind['kind'].replace('_', ' ')}: its cost", rule="P.2.12", actor=SYSTEM
                )
            except RuleViolation:
                record(
                    self,
                    class_actions.ActionLost,
                    action_id=a.id,
                    reason=f"its cost of {coin} coin could not be paid [003:28]",
                    actor=SYSTEM,
                    audience=vis.powers([a.power, *a.collaborators]),  # a wallet is private (P.4)
                )
                return True
        return bool(kind.get("price", {}).get("mana_cost")) and not self._paid_in_mana(a, kind)

    def _catalogue_month_opened(self) -> None:
        """At the start of each month: Little Cruelties gains 1 Fear ([003:957], P.2.12)."""
        g = as_game(self)
        for p in sorted(self.state.powers.values(), key=lambda p: p.id):
            if p.options.get("little_cruelties"):
                g.earn(p.id, "fear", 1, "Little Cruelties: a month begins ([003:957])")

    def _credit(self, a: ActionState, outputs: dict[str, Any]) -> None:
        """What a successful class action earns goes into its power's wallet (P-ASSET-10, P.2.12)."""
        g = as_game(self)
        kind = cat(self.state)["kinds"][a.id]["kind"]
        gains = {
            "inquisition": ("fear", outputs.get("fear", 0)),
            "health_drive": ("respect", outputs.get("respect", 0)),
            "sack": ("coin", outputs.get("coin", 0)),
            "slaughter": (g.holdings(a.power).control or "fear", outputs.get("fear_or_respect", 0)),
        }
        resource, amount = gains.get(kind, ("coin", 0))
        if amount:
            g.earn(a.power, resource, int(amount), f"{kind.replace('_', ' ')} [P.2.12]")

    def _after_resolved(self, a: ActionState, resist: dict[str, int]) -> None:
        """Once an action's result is final: what its class action yields (P.2.12), what a seeking uncovers
        (P-ACT-7), and each target's own result for an effect per target (P-RES-4)."""
        c = cat(self.state)
        kind = c.get("kinds", {}).get(a.id)
        if kind is None:
            return
        audience = vis.powers([a.power, *a.collaborators])
        result = {"success": bool(a.success), "successes": int(a.net or 0), "excess": int(a.excess or 0)}
        if kind.get("per_target"):
            targets = self._per_target(a, kind)
            if self.state.options.get("multi_resist_mode") == "summed":  # P-AMB-7's option: all resisters count
                resist = {t: sum(resist.values()) for t in targets}
            per = cr.per_target_results(int(a.successes or 0), int(a.difficulty or 0), resist, targets)
            for t, r in per.items():
                record(
                    self,
                    class_actions.TargetResult,
                    action_id=a.id,
                    target=t,
                    result=r,
                    actor=SYSTEM,
                    audience=vis.powers([a.power, *a.collaborators, t]) if t in self.state.powers else audience,
                )
            if kind["kind"] == "inquisition":
                outputs: dict[str, Any] = {"removed": {t: r["excess"] for t, r in per.items()}}
                outputs["fear"] = sum(outputs["removed"].values())  # [003:955] Fear = influence removed
            else:
                outputs = {"per_target": per}
        elif kind["kind"] in ("targeted_seeking", "broad_seeking"):
            broad = kind["kind"] == "broad_seeking"
            outputs = {
                "area": cr.seeking_area(kind["params"]["hex"], broad),
                "detected": cr.seeking_detects(int(a.net or 0), broad, kind["params"].get("named")),
                "thresholds": cr.seeking_thresholds(broad),
            }
        elif kind["kind"] == "duel":
            outputs = {"target": kind["params"].get("target"), "defeated": bool(a.success)}
            held = self._immunity_held(a.power, str(kind["params"].get("target")))
            if held is not None:  # P-AMB-10, [003:54]: while the immunity applies, a duel cannot kill
                outputs["immunity_held"] = held
        else:
            ca = cr.CLASS_ACTIONS[kind["kind"]]
            outputs = ca.yields(dict(kind["params"]), result)
        record(
            self,
            class_actions.ClassActionOutcome,
            action_id=a.id,
            power_id=a.power,
            kind=kind["kind"],
            success=bool(a.success),
            outputs=outputs,
            actor=SYSTEM,
            audience=audience,
        )
        self._credit(a, outputs)
        if a.success:
            self._apply_to_world(a, kind, outputs)
            self._apply_creation(a, kind, outputs)

    def _apply_to_world(self, a: ActionState, kind: ClassActionRecord, outputs: dict[str, Any]) -> None:
        """What a successful class action does to the map, through the world's own records (P.2.12): Sack and
        Slaughter lower the town and raise its Uprising, Annex and Commandeer claim it, Channel gains the mana
        of its hex's element up to the storage cap (P-MAG-1). Towns not on the map stay as recorded."""
        g = as_game(self)
        town = map_town(self.state, kind["params"].get("town"))
        if town is None:
            return
        name = kind["kind"]
        if name in ("sack", "slaughter"):
            harm: dict[str, Any] = {k: outputs[k] for k in ("wealth", "population") if k in outputs}
            harm["statuses"] = {"uprising": int(outputs.get("uprising", 0))}
            by = a.power if g.is_public(a) else None
            g.harm_town(town, harm, f"{name} [P.2.12]", by)
        elif name in ("annex", "commandeer"):
            g._claim(town, a.power, f"{name} [P.2.12]", actor=SYSTEM)
            if name == "commandeer":
                g.renounce_claims(a.power, town, "commandeered another town [003:1276]")
        elif name == "channel":
            hx = self.state.world.hexes.get(self.state.world.towns[town]["hex"])
            element = hx.get("element") if hx is not None else None
            if element is None:
                return
            amount = kept_gain(self.state, a.power, element, int(outputs.get("mana", 0)))
            if amount > 0:
                g._mana_granted(
                    power_id=a.power, element=element, amount=amount, actor=SYSTEM, audience=vis.powers([a.power])
                )

    def _apply_creation(self, a: ActionState, kind: ClassActionRecord, outputs: dict[str, Any]) -> None:
        """What a successful class action creates (P.2.12): Hidden Runes place a Rune asset in the hex ([003:1175]);
        Rise, Fingers and Sacrificial Summoning raise a Patron's Finger Army ([003:1230], [003:1224]) of the army
        type the Cult designed (``params.type``), through the armies' own records, on the map the GM declared."""
        g = as_game(self)
        p = kind["params"]
        if kind["kind"] == "hidden_runes":
            rune = outputs["rune"]
            record(
                self,
                class_actions.RunePlaced,
                power_id=a.power,
                hex=rune["hex"],
                rank=int(rune["rank"]),
                asset_id=f"rune-{a.id}",
                actor=SYSTEM,
                audience=vis.powers([a.power]),
            )
        elif kind["kind"] in ("rise_fingers", "sacrificial_summoning") and p.get("type") is not None:
            size = int(outputs.get("finger_army_size", 0))
            s = self.state
            hex_id = p.get("hex")
            if kind["kind"] == "sacrificial_summoning":
                from domain.powers.armies import army_audience

                old = s.armies.armies.get(p.get("army", ""))
                if old is None or old["controller"] != a.power:
                    return  # gone or lost since it was declared: nothing left to convert
                hex_id, size = old["hex"], len(old["units"])
                g._army_disbanded(army_id=old["id"], keep_card=False, actor=SYSTEM, audience=army_audience(old))
            if (
                size < 1
                or not isinstance(hex_id, str)
                or hex_id not in s.world.hexes
                or p["type"] not in s.armies.types
            ):
                return
            army = _new_finger_army(f"fingers-{a.id}", a.power, s.armies.types[p["type"]], size, hex_id)
            g._record_army(army, actor=SYSTEM)

    def live_runes(self, power_id: str, *, placed_only: bool = False) -> dict[str, int]:
        """[003:1161] "Each hex can have at most one of your runes": the hexes where this power has a rune, placed
        and not yet expended, or (unless ``placed_only``) being placed by one of its Hidden Runes actions this
        month."""
        s = self.state
        k = cat(s).get("counters", {}).get(power_id, {})
        placed = k.get("rune_assets", {})
        live = {}
        for h, rank in k.get("runes", {}).items():
            asset = s.assets.get(placed.get(h, ""))
            if h in placed and (asset is None or asset.used_up or power_id not in asset.holders):
                continue  # expended (P-ASSET-8: single use) or destroyed
            live[h] = int(rank)
        for aid, kd in ({} if placed_only else cat(s).get("kinds", {})).items():
            a = s.actions.get(aid)
            if kd["kind"] == "hidden_runes" and a is not None and a.power == power_id and not a.discarded:
                if "outcome" not in kd:
                    live.setdefault(kd["params"]["hex"], int(kd["params"]["rank"]))
        return live

    def _runes_check_pool(self, location: str | None, assets: list[dict[str, Any]]) -> None:
        """[003:1161] "A rune can be expended once as part of any ritual or challenge targeting that hex": a Rune
        asset placed by Hidden Runes goes only into a pool whose action is in the rune's hex (the action's
        location; the decision: "targeting that hex" is read as the challenge's location)."""
        s = self.state
        for pick in assets:
            asset_id = pick.get("asset_id") if isinstance(pick, dict) else None
            asset = s.assets.get(asset_id) if isinstance(asset_id, str) else None
            if asset is None or asset.cls != "rune":
                continue
            hexes = [h for h, aid in rune_hexes(s, asset.holders).items() if aid == asset.id]
            if not hexes:
                continue  # a rune the GM granted (a starting rune) is where the GM says
            if not location or hexmap.normal_hex(location) != hexes[0]:
                raise RuleViolation(
                    f"{asset.name} helps only a challenge in its hex [003:1161]", rule="P.2.12", field="assets"
                )

    def _per_target(self, a: ActionState, kind: ClassActionRecord) -> list[str]:
        given = kind["params"].get("targets")
        return list(given) if isinstance(given, list) and given else list(a.targets)

    def effective_consequences(self, a: ActionState) -> int:
        """Consequences that count after perks that ignore some (P-DICE-12)."""
        g = as_game(self)
        taken = g.tally(a).consequences
        record = cat(self.state).get("kinds", {}).get(a.id)
        kinds = list(record.get("kinds", [])) if record is not None else []
        kinds += {"negotiation": ["negotiation"], "craft": ["crafting"]}.get(a.skill or "", [])
        return cr.effective_consequences(taken, kinds, self.state.powers[a.power].options)

    # ------------------------------------------------------------------ P-DICE-13: dice outside challenges

    def roll_dice(
        self,
        roll_id: str,
        *,
        roller: Roller,
        dice: str | None = None,
        purpose: str | None = None,
        power_id: str | None = None,
        params: dict[str, Any] | None = None,
        public: bool = False,
        actor: str = GM,
    ) -> dict[str, Any]:
        """Roll NdX outside a challenge from the month's committed seed (P-DICE-13): explicit dice, or one of
        the rolls the rules fix (``purpose``). The roll carries its key and Merkle path, for its audience."""
        g = as_game(self)
        s = self.state
        limits.check_text(roll_id, "roll_id", limits.IDENTIFIER)
        params = dict(params or {})
        if power_id is not None:
            g.power(power_id)
        if (dice is None) == (purpose is None):
            raise RuleViolation("give either the dice (NdX) or the rule's roll (purpose)", rule="P-DICE-13")
        if dice is not None:
            spec, label = cr.parse_dice(dice), "gm"
        else:
            influence = s.powers[power_id].influence if power_id else {}
            spec, label = cr.fixed_roll(str(purpose), params, influence), str(purpose)
        if s.seed is None or s.seed_commitment is None:
            raise RuleViolation(
                "dice come from the month's committed seed, and no month is open: roll during a month",
                rule="P-DICE-13",
            )
        roll_no = s.next_roll
        proof = g._roll_proof(roll_no)
        faces = roller.faces(roll_no, spec.count, sides=spec.sides)
        if len(faces) != spec.count or not all(1 <= f <= spec.sides for f in faces):
            raise AssertionError(f"roll {roll_no} is not {spec.text}: {faces}")
        result = cr.dice_result(spec, faces)
        audience = [vis.PUBLIC] if public else (vis.powers([power_id]) if power_id else [vis.GM_ONLY])
        record(
            self,
            partial.ExtraDiceRolled,
            roll_id=roll_id,
            power_id=power_id,
            purpose=label,
            dice=spec.text,
            count=spec.count,
            sides=spec.sides,
            modifier=spec.modifier,
            params=params,
            roll_no=roll_no,
            commitment=s.seed_commitment,
            faces=list(faces),
            result=result,
            actor=actor,
            audience=audience,
            **proof,
        )
        return {"roll_id": roll_id, "roll_no": roll_no, "dice": spec.text, "faces": list(faces), **result}

    # ------------------------------------------------------------------ P-ACT-1: quotas that change in play

    def change_quota_perk(self, power_id: str, perk: str, value: bool) -> dict[str, int]:
        """GM: a perk that changes a power's monthly quota is gained, lost, or starts to apply (P-ACT-1): the
        Paragon leading an army, the Dragon's Subtle Titan and its upgrade. Slots already spent stay spent."""
        g = as_game(self)
        ps = g.power(power_id)
        if perk not in QUOTA_PERKS:
            raise RuleViolation(f"the perks that change a quota are {', '.join(QUOTA_PERKS)}", rule="P-ACT-1")
        options = {**ps.options, perk: bool(value)}
        options = validate_power_options(ps.subclass, options)
        q = rules.quota(ps.subclass, options)
        record(
            self,
            partial.QuotaChanged,
            power_id=power_id,
            options=options,
            public=q.public,
            private=q.private,
            actor=GM,
            audience=[vis.PUBLIC],
        )
        return {"public": q.public, "private": q.private}

    # ------------------------------------------------------------------ P.2.12, P-ACT-6, P-ACT-7: catalogue actions

    def _standing(self, power_id: str) -> cr.Standing:
        s = self.state
        k = cat(s).get("counters", {}).get(power_id, {})
        return cr.Standing(
            season=s.season,
            influence=dict(s.powers[power_id].influence),
            heirs=int(k.get("heirs", 0)),
            masters=int(k.get("masters", 0)),
            runes=self.live_runes(power_id),
            saboteurs_this_season=int(k.get("saboteurs", {}).get(str(s.season), 0)),
            last_coming_of_age=int(k.get("last_coming_of_age", 0)),
            last_channel=0,
            health_drives=list(k.get("health_drives", {}).get(str(s.season), [])),
            royal_guard_rank=int(k.get("royal_guard_rank", 0)),
            towns_claimed=len(claimed_towns(self.state, power_id)) if world_towns(self.state) else None,
        )

    def _check_fingers(self, power_id: str, kind: str, params: dict[str, Any]) -> None:
        """On a declared map a Finger Army is raised for real (P.2.12): its stats are the army type the Cult
        designed ([003:1203] "a repeated template"; the GM records it with DefineArmyType), named in
        ``params.type``; Rise, Fingers names a hex of the map; Sacrificial Summoning names an army the Cult
        controls, whose size and rank the map knows."""
        s = self.state
        type_id = params.get("type")
        if not isinstance(type_id, str) or type_id not in s.armies.types:
            raise RuleViolation(
                "name the army type of your Patron's Finger design (params.type; the GM defines it) [003:1203]",
                rule="P.2.12",
                field="params.type",
            )
        if kind == "rise_fingers":
            if hexmap.normal_hex(params.get("hex", "")) not in s.world.hexes:
                raise RuleViolation("Rise, Fingers happens in a hex of the map", rule="P.2.12", field="params.hex")
            return
        army = s.armies.armies.get(params.get("army", "")) if isinstance(params.get("army"), str) else None
        if army is None or army["controller"] != power_id:
            raise RuleViolation(
                "Sacrificial Summoning converts an army you control (params.army) [003:1224]",
                rule="P.2.12",
                field="params.army",
            )
        params.update({"army_size": len(army["units"]), "army_rank": army["rank"]})  # the map knows

    # ------------------------------------------------------------------ P.2.12 mana costs (P-MAG-2)

    def _priced_in_mana(self, power_id: str, kind: str, ca: cr.ClassAction, price: dict[str, Any]) -> dict[str, Any]:
        """A class action that costs mana (Hidden Runes, Uplift Master, Sacrificial Summoning, Rise, Fingers;
        P.2.12) records its cost as a P-MAG-2 cost (``mana_cost``), the rune's in its hex's element on the
        map, and is refused at submission (naming P-MAG-2, recording nothing) if the power cannot pay it.
        Decision: it is debited at its turn in the queue, where coin prices are ([003:28] "Costs are paid at
        the start of each action"); mana gained during the action by then pays first (P-AMB-37)."""
        element = None
        if "element_of" in price.get("mana", {}):
            h = self.state.world.hexes.get(hexmap.normal_hex(price["mana"]["element_of"]))
            element = h.get("element") if h else None
        cost = cr.mana_cost(price, element)
        if cost is None:
            return price
        self._check_mana_cost(power_id, cost, self.state.powers[power_id].mana, kind, ca.source)
        return {**price, "mana_cost": cost}

    @staticmethod
    def _check_mana_cost(power_id: str, cost: str, held: Mapping[str, int], kind: str, source: str) -> dict[str, int]:
        """The mana a P-MAG-2 cost spends from ``held``, or a refusal naming P-MAG-2 and the action's rule."""
        price = mr.parse_cost(cost)
        try:
            payment = mr.check_payment(price, mr.auto_payment(price, held))
            mr.check_held(payment.spent, held)
        except RuleViolation as e:
            raise RuleViolation(
                f"{kind.replace('_', ' ').title()} costs {cost} mana (P.2.12, {source}); {power_id} cannot pay it: "
                f"{e.message}",
                rule="P-MAG-2",
                field="mana",
            ) from None
        return dict(sorted(payment.spent.items()))

    def _paid_in_mana(self, a: ActionState, kind: ClassActionRecord) -> bool:
        """At the action's turn: pay its mana cost by P-MAG-2, from the mana the action holds first, then the
        wallet; one that cannot be paid now is lost ([003:28]). True if paid."""
        cost = kind["price"]["mana_cost"]
        usable = [pool_of(self.state, a.id)["channelled"]]
        held = dict(self.state.powers[a.power].mana)
        for e, n in usable[0].items():
            held[e] = held.get(e, 0) + n
        try:
            spent = self._check_mana_cost(a.power, cost, held, kind["kind"], "")
        except RuleViolation:
            record(
                self,
                class_actions.ActionLost,
                action_id=a.id,
                reason=f"its cost of {cost} mana could not be paid (P-MAG-2) [003:28]",
                actor=SYSTEM,
                audience=vis.powers([a.power, *a.collaborators]),  # mana is private (P.4)
            )
            return False
        pooled, from_wallet = _draw(spent, usable)
        g = as_game(self)
        g._mana_spent(
            power_id=a.power,
            action_id=a.id,
            cost=cost,
            paid=spent,
            pooled=pooled,
            from_wallet=from_wallet,
            actor=SYSTEM,
            audience=vis.powers([a.power]),
        )
        return True

    def submit_class_action(
        self, power_id: str, action_id: str, kind: str, params: dict[str, Any] | None = None, **submit: Any
    ) -> dict[str, Any]:
        """Submit a class action (P.2.12): its difficulty comes from its formula, its limits are checked, and
        ``submit`` goes on to ``submit_action`` (now, roller, assets, convert, slot, location...)."""
        g = as_game(self)
        ps = g.power(power_id)
        params = dict(params or {})
        _check_params(params)
        ca = cr.class_action(kind, ps.cls, ps.subclass, ps.options)
        st = self._standing(power_id)
        on_map = map_town(self.state, params.get("town"))
        if on_map is not None:
            params["town"] = on_map  # by id, whether named by id or hex: "once per town" counts the same town
        if on_map is not None and kind in _FROM_THE_MAP:
            # The map knows the town: what the submitter said of it does not count ("the new Wealth", [003:1339]).
            t = world_towns(self.state)[on_map]
            params.update(
                {k: t["statuses"].get(k, 0) if k in t["statuses"] or k not in t else t[k] for k in _FROM_THE_MAP[kind]}
            )
        if kind == "channel":
            town = params.get("town")
            if not isinstance(town, str) or not town:
                raise RuleViolation("Channel names a claimed town", rule="P.2.12", field="params.town")
            if world_towns(self.state) and on_map not in {t for t, _ in claims_of(self.state, power_id)}:
                raise RuleViolation("Channel selects a town you claim [003:967]", rule="P.2.12", field="params.town")
            last = cat(self.state).get("counters", {}).get(power_id, {}).get("last_channel", {}).get(town, 0)
            st = cr.Standing(**{**vars(st), "last_channel": int(last)})
        if kind in ("rise_fingers", "sacrificial_summoning") and self.state.world.hexes:
            self._check_fingers(power_id, kind, params)
        full = cr.prepare(kind, params, ps.options, st)
        difficulty = ca.difficulty(full)
        # What it costs and yields reads its inputs too: check them now, not when Resolution reaches it.
        price = cr.price(kind, full)
        ca.yields(full, {"success": True, "successes": 0, "excess": 0})
        price = self._priced_in_mana(power_id, kind, ca, price)
        targets = list(submit.pop("targets", []) or [])
        submit.setdefault("skill", ca.skill)
        submit.setdefault("title", kind.replace("_", " ").title())
        location = submit.get("location") or full.get("hex")
        if location is not None:
            submit["location"] = location
        title = submit.pop("title")
        g.submit_action(
            power_id, action_id, title, difficulty=difficulty, resistible=ca.resistible, targets=targets, **submit
        )
        audience = [vis.PUBLIC] if ca.public else g._audience(g.action(action_id))
        record(
            self,
            class_actions.ClassActionDeclared,
            action_id=action_id,
            power_id=power_id,
            kind=kind,
            params=full,
            difficulty=difficulty,
            formula=ca.formula,
            cost=ca.cost,
            price=price,
            declared=list(ca.declared),
            kinds=list(ca.kinds),
            per_target=ca.per_target,
            season=self.state.season,
            actor=submit.get("actor") or power_id,
            audience=audience,
        )
        return {"action_id": action_id, "kind": kind, "difficulty": difficulty, "formula": ca.formula}

    def submit_duel(
        self, power_id: str, action_id: str, target: str, location: str, *, target_is_power: bool = True, **submit: Any
    ) -> dict[str, Any]:
        """Duel (P-ACT-6): difficulty 1, resistible by the target; the target's location is declared now, and
        the action is lost at Resolution if the target was elsewhere."""
        g = as_game(self)
        g.power(power_id)
        hexmap.parse_hex(location)
        limits.check_text(target, "target", limits.IDENTIFIER)
        if target_is_power:
            g.power(target)
            if target == power_id:
                raise RuleViolation("a duel is against someone else", rule="P-ACT-6", field="target")
        title = submit.pop("title", "Duel")
        g.submit_action(
            power_id,
            action_id,
            title,
            difficulty=1,
            resistible=True,
            targets=[target] if target_is_power else [],
            location=location,
            **submit,
        )
        record(
            self,
            class_actions.ClassActionDeclared,
            action_id=action_id,
            power_id=power_id,
            kind="duel",
            params={"target": target, "location": location},
            difficulty=1,
            formula="1 [003:54]",
            cost="",
            price={},
            declared=[],
            kinds=["duel"],
            per_target=False,
            season=self.state.season,
            actor=submit.get("actor") or power_id,
            audience=g._audience(g.action(action_id)),
        )
        return {"action_id": action_id, "kind": "duel", "difficulty": 1}

    def submit_seeking(
        self,
        power_id: str,
        action_id: str,
        hex_id: str,
        *,
        broad: bool = False,
        named: str | None = None,
        **submit: Any,
    ) -> dict[str, Any]:
        """Targeted or Broad Seeking (P-ACT-7): cannot be resisted; what it uncovers is computed from its
        successes at Resolution (1 influence, 2 hidden armies, 3 creatures and hidden objects; doubled for
        Broad Seeking, which covers the hex and its neighbours; +1 assured against the one thing named)."""
        g = as_game(self)
        g.power(power_id)
        hexmap.parse_hex(hex_id)
        if named is not None and named not in cr.SEEK_CATEGORIES:
            raise RuleViolation(
                f"seek one of {', '.join(cr.SEEK_CATEGORIES)}, not {named!r}", rule="P-ACT-7", field="named"
            )
        if broad and named is not None:
            raise RuleViolation(
                "only Targeted Seeking names one thing for an assured success", rule="P-ACT-7", field="named"
            )
        if submit.pop("resistible", False):
            raise RuleViolation("seeking cannot be resisted [003:58]", rule="P-ACT-7", field="resistible")
        kind = "broad_seeking" if broad else "targeted_seeking"
        difficulty = min(cr.seeking_thresholds(broad).values())
        title = submit.pop("title", kind.replace("_", " ").title())
        g.submit_action(
            power_id,
            action_id,
            title,
            difficulty=difficulty,
            resistible=False,
            skill=submit.pop("skill", "vigilance"),
            location=hex_id,
            **submit,
        )
        record(
            self,
            class_actions.ClassActionDeclared,
            action_id=action_id,
            power_id=power_id,
            kind=kind,
            params={"hex": hex_id, "named": named},
            difficulty=difficulty,
            formula="influence 1, hidden armies 2, creatures and hidden objects 3" + (", doubled" if broad else ""),
            cost="",
            price={},
            declared=[],
            kinds=[],
            per_target=False,
            season=self.state.season,
            actor=submit.get("actor") or power_id,
            audience=g._audience(g.action(action_id)),
        )
        return {"action_id": action_id, "kind": kind, "thresholds": cr.seeking_thresholds(broad)}

    # ------------------------------------------------------------------ GM: resistance per target (P-RES-4)

    def rule_per_target(self, action_id: str) -> None:
        """GM: this action's effect falls on each target separately, so each resister's successes reduce only its
        own share (P-RES-4 as P-AMB-7); by default several resisters' successes add up against the action."""
        g = as_game(self)
        a = g.action(action_id)
        if self.state.resolved:
            raise RuleViolation("this month is already resolved", rule="P-RES-4")
        if not a.resistible or len(a.targets) < 2:
            raise RuleViolation("resistance per target is for a resistible action with several targets", rule="P-RES-4")
        if action_id in cat(self.state).get("kinds", {}):
            raise RuleViolation("this catalogue action already says how it is resisted", rule="P-RES-4")
        record(
            self,
            class_actions.ClassActionDeclared,
            action_id=action_id,
            power_id=a.power,
            kind="per_target",
            params={"targets": list(a.targets)},
            difficulty=int(a.difficulty or 0),
            formula="each target's resistance reduces its own share (P-AMB-7)",
            cost="",
            price={},
            declared=[],
            kinds=[],
            per_target=True,
            season=self.state.season,
            actor=GM,
            audience=g._audience(a),
        )

    # ------------------------------------------------------------------ Blighted Neighborhood (P.2.12)

    def choose_blighted_town(self, power_id: str, town_id: str) -> None:
        """Blighted Neighborhood ([003:959]): "Choose a town you claim ... if you claim no town chosen this way,
        choose another claimed town." A town once chosen stays chosen while the power claims it."""
        g = as_game(self)
        ps = g.power(power_id)
        if not ps.options.get("blighted_neighborhood"):
            raise RuleViolation("choosing a blighted town needs Blighted Neighborhood", rule="P.2.12", field="power_id")
        town = map_town(self.state, town_id)
        if town is None or town not in {t for t, _ in claims_of(self.state, power_id)}:
            raise RuleViolation(f"{ps.name} claims no town {town_id!r}", rule="P.2.12", field="town_id")
        held = cat(self.state).get("blighted", {}).get(power_id)
        if held is not None and held in {t for t, _ in claims_of(self.state, power_id)}:
            raise RuleViolation(
                "you still claim the town you chose; choose another only once you claim it no more [003:959]",
                rule="P.2.12",
                field="town_id",
            )
        record(
            self,
            partial.BlightedTownChosen,
            power_id=power_id,
            town_id=town,
            actor=power_id,
            audience=vis.powers([power_id]),
        )

    def _catalogue_cleanup(self) -> None:
        """At each Cleanup, the blighted town loses 1 population and 1 wealth and its power gains 5 Fear
        ([003:959]); a town the power no longer claims is spared."""
        g = as_game(self)
        for power_id, town in sorted(cat(self.state).get("blighted", {}).items()):
            p = self.state.powers.get(power_id)
            if p is None or not p.options.get("blighted_neighborhood"):
                continue
            if town not in {t for t, _ in claims_of(self.state, power_id)}:
                continue
            g.harm_town(town, {"population": -1, "wealth": -1}, "Blighted Neighborhood [003:959]", None)
            g.earn(power_id, "fear", 5, "Blighted Neighborhood: Cleanup ([003:959])")

    # ------------------------------------------------------------------ Tidings: Dread Growth (P.2.12)

    def dread_growth(self, power_id: str, units: int) -> dict[str, int]:
        """A Dragon's army grows each Tidings: 1 unit, or 2 below the most it has had ([003:1327]). ``units`` is
        the army's size now (armies belong to the map); the catalogue keeps the maximum reached."""
        g = as_game(self)
        ps = g.power(power_id)
        if ps.subclass != "dragon":
            raise RuleViolation("Dread Growth is a Dragon's [003:1327]", rule="P.2.12", field="power_id")
        if self.state.step != "tidings":
            raise RuleViolation("Dread Growth happens during Tidings [003:1327]", rule="P.2.12")
        if not isinstance(units, int) or isinstance(units, bool) or not 0 <= units <= 100:
            raise RuleViolation("units is a whole number from 0 to 100", rule="P.2.12", field="units")
        k = cat(self.state).get("counters", {}).get(power_id, {})
        if k.get("dread_growth_season") == self.state.season:
            raise RuleViolation("the army has grown this season", rule="P.2.12")
        gain, maximum = cr.dread_growth(units, int(k.get("dread_maximum", units)))
        record(
            self,
            partial.DreadGrown,
            power_id=power_id,
            units=units,
            gain=gain,
            maximum=maximum,
            season=self.state.season,
            actor=GM,
            audience=vis.powers([power_id]),  # a Subtle Titan's army is Stealthy: its size is not the table's
        )
        return {"gain": gain, "units": units + gain, "maximum": maximum}

    # ------------------------------------------------------------------ GM: true locations (P-ACT-6)

    def record_location(self, power_id: str, hex_id: str) -> None:
        """GM: where a power's champion or leader truly is; a duel declared elsewhere is lost (P-ACT-6)."""
        g = as_game(self)
        g.power(power_id)
        hexmap.parse_hex(hex_id)
        record(self, partial.TrueLocationRecorded, power_id=power_id, hex_id=hex_id, actor=GM, audience=[vis.GM_ONLY])


# From the catalogue's split (5fb83f5) until its pieces' events were declared here again (ef44cd3), main recorded them
# under their pieces' topics (<piece>.<Name>): a game stored then loads them as the events they are.
_RECORDED_BY_PIECE: dict[str, type] = {
    "ShareRolled": Shares,
    "ShareConsequenceProposed": Shares,
    "ShareConsequenceAccepted": Shares,
    "ShareUndercut": Shares,
    "ExtraReactionGained": Reactions,
    "ReactionUsed": Reactions,
    "FeesDue": AssetTerms,
    "FreeActionTaken": AssetTerms,
    "AssetTermsSet": AssetTerms,
    "ItemWielded": AssetTerms,
    "ImmunitySet": AssetTerms,
}
for _name, _piece in _RECORDED_BY_PIECE.items():
    register_topic(f"{_piece.__module__}:{_piece.__qualname__}.{_name}", getattr(Catalogue, _name))


def _check_params(params: dict[str, Any]) -> None:
    if len(params) > limits.ITEMS:
        raise RuleViolation(f"params lists at most {limits.ITEMS} items", field="params")
    for k, v in params.items():
        if not isinstance(k, str) or len(k) > limits.IDENTIFIER:
            raise RuleViolation("a parameter's name is a short text", field="params")
        _check_value(v, f"params.{k}", depth=0)


def _check_value(v: object, name: str, depth: int) -> None:
    """Parameters are small JSON: short texts, numbers, booleans, and short lists and objects of them."""
    if isinstance(v, str):
        limits.check_text(v, name, limits.IDENTIFIER)
    elif isinstance(v, (list, dict)):
        if depth >= 2 or len(v) > limits.ITEMS:
            raise RuleViolation(f"{name} holds at most {limits.ITEMS} items, two levels deep", field=name)
        for item in v.values() if isinstance(v, dict) else v:
            _check_value(item, name, depth + 1)
    elif v is not None and not isinstance(v, (int, float, bool)):
        raise RuleViolation(f"{name} is a text, a number, a boolean or a list of them", field=name)


def catalogue_view(game: Catalogue, viewer: str) -> dict[str, Any]:
    """The catalogue's part of a board (P.4): the GM sees it all; a power its own class actions and their
    outcomes, its share of actions resolved per target, its collaborations, its extra and triggered
    reactions, the terms of assets it holds (and of industries, which are public) and its counters. True
    locations stay with the GM."""
    c = deepcopy(cat(game.state))
    if viewer == GM:
        return dict(c)
    s = game.state
    mine = {aid for aid, a in s.actions.items() if a.power == viewer or viewer in a.collaborators}
    actions: dict[str, ClassActionRecord | dict[str, Any]] = {}
    for aid, k in c.get("kinds", {}).items():
        if aid in mine:
            actions[aid] = k
        elif viewer in k.get("per_target_results", {}):
            actions[aid] = {"kind": k["kind"], "per_target_results": {viewer: k["per_target_results"][viewer]}}
    return {
        "class_actions": actions,
        "shares": {
            aid: [{"power": sh["power"], "slot": sh["slot"], "pool": sh["pool"]} for sh in shares]
            for aid, shares in c.get("shares", {}).items()
            if aid in mine
        },
        "extra_reactions": c.get("extra_reactions", {}).get(viewer, []),
        "triggered_reactions": {r: t for r, t in c.get("triggered", {}).items() if t["power"] == viewer},
        "terms": {
            aid: t
            for aid, t in c.get("terms", {}).items()
            if aid in s.assets and (viewer in s.assets[aid].holders or s.assets[aid].cls in rules.PUBLIC_ASSET_CLASSES)
        },
        "counters": c.get("counters", {}).get(viewer, {}),
        "wielders": game.wielders(viewer),
        "immunities": {
            pid: imm["immunity"]
            for pid, imm in c.get("immunities", {}).items()
            if viewer == pid or viewer in imm["bypassed_by"]
        },
        "blighted_town": c.get("blighted", {}).get(viewer),  # its own choice; the town's decline is public
    }
