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

from copy import deepcopy
from typing import TYPE_CHECKING, Any

from eventsourcing.utils import register_topic

from domain.dice import Roller
from domain.ids import GM
from domain.platform.game import PlatformGame
from domain.powers import catalogue_actions as class_actions
from domain.powers import catalogue_assets as asset_terms
from domain.powers import catalogue_partial as partial
from domain.powers import catalogue_reactions as reacting
from domain.powers import catalogue_shares as sharing
from domain.powers import rules
from domain.powers.catalogue_assets import AssetTerms
from domain.powers.catalogue_reactions import Reactions
from domain.powers.catalogue_shares import Shares
from domain.powers.catalogue_state import ClassActionRecord, cat
from domain.powers.part import as_game

if TYPE_CHECKING:
    from domain.powers.state import ActionState, GameState


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

    # ------------------------------------------------------------------ hooks the aggregate calls: each decides or
    # folds in its sub-domain's module (catalogue_actions, catalogue_partial)

    def _catalogue_month_began(self) -> None:
        """Fold: a month's Planning clears the month's catalogue records and extra reactions (P-RES-1)."""
        partial.month_began(self.state)

    def _check_ruling(self, a: ActionState, resistible: bool) -> None:
        """Seeking cannot be resisted (P-ACT-7)."""
        class_actions.check_ruling(as_game(self), a, resistible)

    def _net_after_resistance(self, a: ActionState, resist: dict[str, int]) -> int:
        """Summed resistance for an outcome that concerns everyone; an action with an effect per target keeps
        its successes, each target's resistance applying to its own share only (P-RES-4 as P-AMB-7); under
        ``multi_resist_mode: "summed"`` every resister's successes add up against the whole action."""
        return class_actions.net_after_resistance(as_game(self), a, resist)

    def _on_resolving(self, a: ActionState, ledger: dict[str, str]) -> bool:
        """At an action's turn in the queue: undercut collaborators' used-up assets (P-ASSET-13), charge the
        fees (P-ASSET-5, P-ASSET-6), and lose a duel declared at the wrong place (P-ACT-6). True if lost."""
        return class_actions.on_resolving(as_game(self), a, ledger)

    def _catalogue_month_opened(self) -> None:
        """At the start of each month: Little Cruelties gains 1 Fear ([003:957], P.2.12)."""
        partial.month_opened(as_game(self))

    def _after_resolved(self, a: ActionState, resist: dict[str, int]) -> None:
        """Once an action's result is final: what its class action yields (P.2.12), what a seeking uncovers
        (P-ACT-7), and each target's own result for an effect per target (P-RES-4)."""
        class_actions.after_resolved(as_game(self), a, resist)

    def live_runes(self, power_id: str, *, placed_only: bool = False) -> dict[str, int]:
        """[003:1161] "Each hex can have at most one of your runes": the hexes where this power has a rune, placed
        and not yet expended, or (unless ``placed_only``) being placed by one of its Hidden Runes actions this
        month."""
        return class_actions.live_runes(as_game(self), power_id, placed_only=placed_only)

    def _runes_check_pool(self, location: str | None, assets: list[dict[str, Any]]) -> None:
        """[003:1161] "A rune can be expended once as part of any ritual or challenge targeting that hex": a Rune
        asset placed by Hidden Runes goes only into a pool whose action is in the rune's hex (the action's
        location; the decision: "targeting that hex" is read as the challenge's location)."""
        class_actions.runes_check_pool(as_game(self), location, assets)

    def effective_consequences(self, a: ActionState) -> int:
        """Consequences that count after perks that ignore some (P-DICE-12)."""
        return class_actions.effective_consequences(as_game(self), a)

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
        return partial.roll_dice(
            as_game(self),
            roll_id,
            roller=roller,
            dice=dice,
            purpose=purpose,
            power_id=power_id,
            params=params,
            public=public,
            actor=actor,
        )

    def change_quota_perk(self, power_id: str, perk: str, value: bool) -> dict[str, int]:
        """GM: a perk that changes a power's monthly quota is gained, lost, or starts to apply (P-ACT-1): the
        Paragon leading an army, the Dragon's Subtle Titan and its upgrade. Slots already spent stay spent."""
        return partial.change_quota_perk(as_game(self), power_id, perk, value)

    def submit_class_action(
        self, power_id: str, action_id: str, kind: str, params: dict[str, Any] | None = None, **submit: Any
    ) -> dict[str, Any]:
        """Submit a class action (P.2.12): its difficulty comes from its formula, its limits are checked, and
        ``submit`` goes on to ``submit_action`` (now, roller, assets, convert, slot, location...)."""
        return class_actions.submit_class_action(as_game(self), power_id, action_id, kind, params, **submit)

    def submit_duel(
        self, power_id: str, action_id: str, target: str, location: str, *, target_is_power: bool = True, **submit: Any
    ) -> dict[str, Any]:
        """Duel (P-ACT-6): difficulty 1, resistible by the target; the target's location is declared now, and
        the action is lost at Resolution if the target was elsewhere."""
        return class_actions.submit_duel(
            as_game(self), power_id, action_id, target, location, target_is_power=target_is_power, **submit
        )

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
        return class_actions.submit_seeking(
            as_game(self), power_id, action_id, hex_id, broad=broad, named=named, **submit
        )

    def rule_per_target(self, action_id: str) -> None:
        """GM: this action's effect falls on each target separately, so each resister's successes reduce only its
        own share (P-RES-4 as P-AMB-7); by default several resisters' successes add up against the action."""
        class_actions.rule_per_target(as_game(self), action_id)

    def choose_blighted_town(self, power_id: str, town_id: str) -> None:
        """Blighted Neighborhood ([003:959]): "Choose a town you claim ... if you claim no town chosen this way,
        choose another claimed town." A town once chosen stays chosen while the power claims it."""
        partial.choose_blighted_town(as_game(self), power_id, town_id)

    def _catalogue_cleanup(self) -> None:
        """At each Cleanup, the blighted town loses 1 population and 1 wealth and its power gains 5 Fear
        ([003:959]); a town the power no longer claims is spared."""
        partial.cleanup(as_game(self))

    def dread_growth(self, power_id: str, units: int) -> dict[str, int]:
        """A Dragon's army grows each Tidings: 1 unit, or 2 below the most it has had ([003:1327]). ``units`` is
        the army's size now (armies belong to the map); the catalogue keeps the maximum reached."""
        return partial.dread_growth(as_game(self), power_id, units)

    def record_location(self, power_id: str, hex_id: str) -> None:
        """GM: where a power's champion or leader truly is; a duel declared elsewhere is lost (P-ACT-6)."""
        partial.record_location(as_game(self), power_id, hex_id)


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
