"""What every part of a Powers game shares: its typed state, the month's queries, and (for the type checker) the
seam to the rest of the aggregate.

``domain.powers.game.Game`` is a thin composition of sub-domain mixins: ``calendar`` (steps, windows, readiness),
``setup`` (powers and what the GM grants them), ``actions`` (actions and dice), ``rulings`` (the GM's difficulties,
rulings and consequences), ``resolution`` (the queue and its outcomes), ``resistance`` (reactions), and ``world``,
``magic``, ``armies``, ``battle``, ``development``, ``catalogue``. Each is a ``GameBase`` (or, for the older ones,
a ``PlatformGame``). Each of the new sub-domain modules is a pair: the mixin's commands decide, checking a command
against the state before recording anything, and its events (``PowersEvent``) evolve the state. The mixin names
its events, so the library redefines each on ``Game`` and it is stored under the topic it always had
(``domain.powers.game:Game.<Name>``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any, NotRequired, TypedDict

from domain import visibility as vis
from domain.dice import Roller
from domain.errors import NotFound
from domain.ids import GM
from domain.platform.game import PlatformGame
from domain.powers import rules
from domain.powers.part import PartEvent
from domain.powers.state import ActionState, Asset, Die, GameState, Pool, PoolAsset, PowerState, Reaction, Window


class PoolAssetData(TypedDict):
    """An asset in a rolled pool, as its events carry it (``PoolAsset``)."""

    asset_id: str
    name: str
    cls: str
    rank: int
    mode: str
    undercut: bool


class DieData(TypedDict):
    """A die of a rolled pool, as its events carry it (``Die``)."""

    face: int
    asset: str
    converted: bool
    removed: bool


class PoolData(TypedDict):
    """A rolled pool as ``DiceRolled`` and ``ReactionDeclared`` carry it (``Pool``); ``key`` and ``path`` prove the
    roll under the month's root (absent for a month committed before per-roll keys), ``salt`` goes into an
    action's submission digest."""

    roll_no: int
    commitment: str | None
    assets: list[PoolAssetData]
    dice: list[DieData]
    locked: bool
    key: NotRequired[str]
    path: NotRequired[list[Any]]
    salt: NotRequired[str]


def pool_from(data: PoolData) -> Pool:
    """The pool an event carries, as the state holds it."""
    return Pool(
        roll_no=data["roll_no"],
        commitment=data.get("commitment"),
        assets=[PoolAsset(**a) for a in data["assets"]],
        dice=[Die(**d) for d in data["dice"]],
        locked=data.get("locked", False),
        key=data.get("key"),
        path=data.get("path"),
    )


if TYPE_CHECKING:
    from domain.powers import actions, calendar, resistance


class PowersEvent(PartEvent):
    """Base of the month's events, each declared in its sub-domain's module and named by the mixin that records it,
    so the library redefines it as ``Game.<Name>``, the topic it has always been stored under. ``evolve`` folds the
    event into the state and reads nothing else; the few whose fold needs another part of the game (the
    catalogue's records of the month) override ``fold`` instead. An event that only tells folds nothing."""


class GameBase(PlatformGame):
    """The month's queries every part of the game asks (a base of each sub-domain mixin of ``Game``)."""

    if TYPE_CHECKING:
        state: GameState

        # The events one sub-domain records and another names (each is ``Game.<Name>`` on a game).
        StepBegan: type[calendar.StepBegan]
        ConversionsLocked: type[actions.ConversionsLocked]
        ReactionConversionsLocked: type[resistance.ReactionConversionsLocked]

        # What the older feature mixins (world, magic, armies, battle, catalogue) offer the month.
        _after_resolved: Callable[[ActionState, dict[str, int]], None]
        _armies_check_pool: Callable[[str | None, str, str | None, list[dict[str, Any]]], None]
        _armies_cleanup: Callable[[], None]
        _armies_end_tidings: Callable[[], None]
        _armies_resolved: Callable[[str], None]
        _battle_may_act: Callable[[Window, str], bool]
        _battle_pending_in: Callable[[Window], list[str]]
        _catalogue_cleanup: Callable[[], None]
        _catalogue_month_began: Callable[[], None]
        _catalogue_month_opened: Callable[[], None]
        _check_conspiracy_claims: Callable[[str], None]
        _check_ruling: Callable[[ActionState, bool], None]
        _check_terms: Callable[[str, list[tuple[Asset, str]], dict[str, Any] | None], None]
        _conclude_ritual: Callable[[str], None]
        _map_hex: Callable[..., str]  # (hex_id, field="hex", rule="P-ACT-4")
        _net_after_resistance: Callable[[ActionState, dict[str, int]], int]
        _on_resolving: Callable[[ActionState, dict[str, str]], bool]
        _put_influence: Callable[[str, str, int, str], None]
        _reactions_to_buy: Callable[[PowerState], int]
        _ritual_resisted: Callable[[ActionState, Mapping[str, int]], tuple[int, int] | None]
        _runes_check_pool: Callable[[str | None, list[dict[str, Any]]], None]
        _season_mana: Callable[[], None]
        _shared_assets: Callable[[str], list[dict[str, Any]]]
        _shared_slots: Callable[[str], tuple[int, int]]
        _shared_tally: Callable[[ActionState], tuple[int, int]]
        _undo_shares: Callable[[str], None]
        _world_cleanup: Callable[[], None]
        _world_end_tidings: Callable[[], None]
        _world_month_ends: Callable[[], None]
        _world_resolved: Callable[[str], None]
        _world_resolving: Callable[[ActionState], None]
        _world_tidings: Callable[[], None]
        active_battles: Callable[[], list[dict[str, Any]]]
        battle_window_closed: Callable[[str, datetime, Roller], None]
        check_location: Callable[[str, str | None, list[dict[str, Any]]], bool]
        check_operating: Callable[[list[dict[str, Any]]], None]
        check_reach: Callable[[str | None, list[dict[str, Any]]], None]
        is_public: Callable[[ActionState], bool]

        # What the sub-domains of the month offer each other.
        def tally(self, a: ActionState, pool: Pool | None = None) -> rules.Tally: ...
        def eligible_resisters(self, action: ActionState) -> list[str]: ...
        def pending_resisters(self) -> list[str]: ...
        def resister_assets(self, a: ActionState) -> list[dict[str, Any]] | None: ...
        def close_window(
            self,
            window_id: str,
            *,
            now: datetime,
            reason: str = "deadline",
            force: bool = False,
            expected_step: str | None = None,
            roller: Roller | None = None,
        ) -> bool: ...
        def _check_planning(self, now: datetime, power_id: str | None = None) -> None: ...
        def _close_planning(self, now: datetime, reason: str) -> None: ...
        def _planning_closed(self, now: datetime) -> None: ...
        def _finalise(self, now: datetime) -> None: ...
        def _mark_used(self, action_id: str) -> None: ...
        def _forewarn(self, a: ActionState, already: list[str]) -> None: ...
        def _lock_conversions_now(self, pool: PoolData, convert: int) -> PoolData: ...
        def _build_pool(
            self,
            power_id: str,
            picks: list[dict[str, Any]],
            *,
            skill_tag: str | None,
            extra_actions: int,
            roller: Roller,
            is_reaction: bool,
            reacting_to_skill: str | None = None,
            dungeon: bool = False,
            where: dict[str, Any] | None = None,
        ) -> PoolData: ...

    seats_field = "powers"  # where a game of Powers keeps its seats: its powers, as its state has always named them
    extension_caps = ("extension_cap_hours_per_window", "extension_cap_hours_per_season")  # GM-8: its options' names

    def seat(self, seat_id: str) -> Any:
        return self.power(seat_id)

    def power(self, power_id: str) -> PowerState:
        """The power, or NotFound."""
        try:
            p: PowerState = self.state.powers[power_id]
        except KeyError:
            raise NotFound(f"no power {power_id!r} in this game", field="power") from None
        return p

    def acts_for(self, principal: str, seat: str) -> bool:
        """The GM acts for adversaries (GM-10)."""
        return principal == GM and self.power(seat).subclass == rules.ADVERSARY

    def action(self, action_id: str) -> ActionState:
        """This month's action, or NotFound."""
        try:
            a: ActionState = self.state.actions[action_id]
        except KeyError:
            raise NotFound(f"no action {action_id!r} this month", field="action_id") from None
        return a

    def reaction(self, reaction_id: str) -> Reaction:
        """This month's reaction, or NotFound."""
        try:
            r: Reaction = self.state.reactions[reaction_id]
        except KeyError:
            raise NotFound(f"no reaction {reaction_id!r} this month", field="reaction_id") from None
        return r

    def _audience(self, a: ActionState) -> list[str]:
        """Who sees an action's own events: its owner and declared collaborators (P.4), and the GM."""
        return vis.powers([a.power, *a.collaborators])

    def actions_of(self, power_id: str) -> list[ActionState]:
        """A power's actions this month, in submission order."""
        actions: list[ActionState] = [a for a in self.state.actions.values() if a.power == power_id]
        return sorted(actions, key=lambda a: a.index)

    def _critical_mode(self) -> str:
        """How a critical asset counts in this game (campaign option ``critical_mode``, P-AMB-5)."""
        mode: str = self.state.options.get("critical_mode", "rolled")
        return mode

    def count_actions(self, power_id: str) -> int:
        """How many actions a power has submitted this month (no list, no sort: every submission asks)."""
        return sum(1 for a in self.state.actions.values() if a.power == power_id)

    def slots_used(self, power_id: str) -> tuple[int, int]:
        """Actions used this month as (public, private), counting actions spent as assets (P-ASSET-2)."""
        pub, priv = self._shared_slots(power_id)
        for a in self.state.actions.values():  # a sum: in any order, so not sorted as ``actions_of`` is
            if a.power != power_id:
                continue
            cost = 1 + a.extra_actions
            if a.slot == "public":
                pub += cost
            else:
                priv += cost
        return pub, priv
