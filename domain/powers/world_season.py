"""The world's season (P-INFL-4, P-FEAT-3, P-TOWN-3, P-TOWN-4), run from ``Game.advance``: at Tidings the season's
counters start over, outposts are raised and strongholds' maintenance falls due, to be paid before Tidings ends
or the stronghold becomes inoperable; at a month's end a Prison calms Uprising and the month's aims close; at
Cleanup towns' statuses act and tick down, and the industries that stop or resume are told."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from domain import visibility as vis
from domain.errors import NotFound, RuleViolation
from domain.ids import SYSTEM
from domain.powers import world_rules as wr
from domain.powers import world_view as view
from domain.powers.world_aims import AimsClosed
from domain.powers.world_base import WorldEvent, feature, has_perk, record
from domain.powers.world_influence import OutpostsReset, put_influence
from domain.powers.world_resolution import TownChanged

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def world_tidings(game: Game) -> None:
    """Tidings: the season's counters start over; outposts are raised to 3 influence (P-INFL-4); each
    stronghold's maintenance falls due (P-FEAT-3)."""
    s = game.state
    w = s.world
    if not w.hexes:
        return
    record(game, WorldSeasonBegan, season=s.season, actor=SYSTEM, audience=[vis.PUBLIC])
    raised: dict[str, dict[str, int]] = {}
    for fid, f in sorted(w.features.items()):
        owner = f["controller"]
        if f["kind"] == "outpost" and owner and s.powers[owner].cls == "conspiracy":
            have = s.powers[owner].influence.get(f["hex"], 0)
            if wr.outpost_floor(have) != have:
                raised.setdefault(owner, {})[f["hex"]] = wr.outpost_floor(have) - have
                put_influence(game, owner, f["hex"], wr.outpost_floor(have), SYSTEM)
        if f["kind"] == "stronghold" and owner and not f["inoperable"]:
            record(
                game,
                MaintenanceDue,
                feature_id=fid,
                power_id=owner,
                coin=wr.maintenance(len(f["modules"])),
                actor=SYSTEM,
                audience=vis.powers([owner]),
            )
    # Mercurial swaps "before resetting the influence in your outposts" [003:931], yet the reset is automatic:
    # keep what the reset added so a swap can be worked out on the earlier values and the reset redone.
    for pid in sorted(s.powers):
        if s.powers[pid].cls == "conspiracy" and has_perk(game, pid, "mercurial"):
            record(
                game, OutpostsReset, power_id=pid, raised=raised.get(pid, {}), actor=SYSTEM, audience=vis.powers([pid])
            )


def pay_maintenance(game: Game, feature_id: str, power_id: str, actor: str | None = None) -> None:
    """Pay a stronghold's maintenance this Tidings (P-FEAT-3)."""
    s = game.state
    f = feature(s, feature_id)
    if f["controller"] != power_id:
        raise NotFound(f"you hold no stronghold {feature_id!r}", field="feature_id")
    if s.step != "tidings" or not f["maintenance_due"]:
        raise RuleViolation("maintenance is paid during Tidings, when it is due", rule="P-FEAT-3")
    # The coin comes out of the owner's wallet; a shortfall is refused naming P-FEAT-3.
    game.pay(
        power_id,
        {"coin": f["maintenance_due"]},
        f"maintenance of {f['name']}",
        rule="P-FEAT-3",
        actor=actor or power_id,
    )
    record(
        game,
        MaintenancePaid,
        feature_id=feature_id,
        power_id=power_id,
        coin=f["maintenance_due"],
        actor=actor or power_id,
        audience=vis.powers([power_id]),
    )


def world_end_tidings(game: Game) -> None:
    """Tidings ends: a stronghold whose maintenance went unpaid becomes inoperable (P-FEAT-3)."""
    for fid, f in sorted(game.state.world.features.items()):
        if f["kind"] == "stronghold" and f["maintenance_due"] and f["controller"]:
            record(
                game,
                StrongholdInoperable,
                feature_id=fid,
                power_id=f["controller"],
                coin=f["maintenance_due"],
                actor=SYSTEM,
                audience=vis.powers([f["controller"]]),
            )


def world_month_ends(game: Game) -> None:
    """The end of a month: a Prison removes Uprising, 1 or 2 when Specialized (P-FEAT-1); the month's aims
    are done with (the history keeps them)."""
    s = game.state
    w = s.world
    if w.aims or w.subtle or w.spent:
        record(game, AimsClosed, actor=SYSTEM, audience=[vis.GM_ONLY])
    relief: dict[str, int] = {}
    for f in w.features.values():
        if f["kind"] == "prison" and f["town"] and not view.is_stopped(s, f["town"], f):
            relief[f["town"]] = relief.get(f["town"], 0) + wr.prison_relief(f["upgrades"])
    for tid, n in sorted(relief.items()):
        if w.towns[tid]["statuses"].get("uprising", 0) > 0:
            less = -min(n, w.towns[tid]["statuses"]["uprising"])
            record(
                game,
                TownChanged,
                town_id=tid,
                kind="prison",
                effect={"statuses": {"uprising": less}},
                by=None,
                actor=SYSTEM,
                audience=[vis.PUBLIC],
            )


def world_cleanup(game: Game) -> None:
    """Cleanup: Sickened and Growing act, then the towns' statuses tick down (P-TOWN-4); what that does to
    the industries (P-TOWN-3) is part of the record."""
    s = game.state
    changes: dict[str, dict[str, Any]] = {}
    for tid, t in sorted(s.world.towns.items()):
        pop, statuses = wr.cleanup_statuses(t["population"], t["statuses"])
        if (pop, statuses) != (t["population"], t["statuses"]):
            changes[tid] = {"population": pop, "statuses": statuses}
    if not changes:
        return

    # The table's record names the public industries only: a hidden one is its controller's to know.
    def stopped(tid: str) -> list[str]:
        return [fid for fid in view.stopped_ids(s, tid) if view.sees_feature(s, fid, vis.PUBLIC)]

    before = {tid: stopped(tid) for tid in changes}
    record(game, TownsCleanedUp, towns=changes, actor=SYSTEM, audience=[vis.PUBLIC])
    for tid in changes:
        after = stopped(tid)
        if after != before[tid]:
            record(
                game,
                IndustriesChanged,
                town_id=tid,
                stopped=after,
                resumed=sorted(set(before[tid]) - set(after)),
                actor=SYSTEM,
                audience=[vis.PUBLIC],
            )


# ---------------------------------------------------------------------- events


class WorldSeasonBegan(WorldEvent):
    season: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        w = s.world
        w.generated = {}
        for t in w.towns.values():
            t["feeds"] = 0
        for f in w.features.values():
            f["durable_used"] = False


class MaintenanceDue(WorldEvent):
    feature_id: str
    power_id: str
    coin: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.world.features[self.feature_id]["maintenance_due"] = self.coin


class MaintenancePaid(WorldEvent):
    feature_id: str
    power_id: str
    coin: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        s.world.features[self.feature_id]["maintenance_due"] = None


class StrongholdInoperable(WorldEvent):
    feature_id: str
    power_id: str
    coin: int
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        f = s.world.features[self.feature_id]
        f["inoperable"], f["maintenance_due"] = True, None


class TownsCleanedUp(WorldEvent):
    towns: dict[str, dict[str, Any]]
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        for tid, c in self.towns.items():
            t = s.world.towns[tid]
            t["population"], t["statuses"] = c["population"], dict(c["statuses"])


class IndustriesChanged(WorldEvent):
    """Which industries work is computed from the town (P-TOWN-3); this is the feed's record of it."""

    town_id: str
    stopped: list[str]
    resumed: list[str]
    actor: str
    audience: list[str]
