"""Claims on towns (P-TOWN-1): one claimant of each type, the earliest the senior. The GM records a claim made by
Annex or Commandeer (or a ruling); an Infiltrate makes a conspiracy's, which it keeps only while it has influence
in the town or next to it (P-INFL-6). A conspiracy's claim is heard only by the town's other claimants and the
conspiracies with influence there (P.4)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from domain.errors import RuleViolation
from domain.ids import GM, SYSTEM
from domain.powers import world_rules as wr
from domain.powers import world_view as view
from domain.powers.world_base import WorldEvent, claimant, record, town

if TYPE_CHECKING:
    from domain.powers.game import Game
    from domain.powers.state import GameState


def set_claim(game: Game, town_id: str, power_id: str, reason: str = "ruling") -> None:
    """The GM records a claim made by Annex or Commandeer (or a ruling): one claimant of each type."""
    t = town(game.state, town_id)
    ps = game.power(power_id)
    wr.check_claim(t["claims"], ps.cls, power_id)
    if claimant(t, ps.cls) == power_id:
        raise RuleViolation(f"{ps.name} already claims {t['name']}", rule="P-TOWN-1", field="town_id")
    claim(game, town_id, power_id, reason)


def drop_claim(game: Game, town_id: str, power_id: str, reason: str = "ruling") -> None:
    """The GM records that a power lost its claim on a town."""
    s = game.state
    t = town(s, town_id)
    ps = game.power(power_id)
    if claimant(t, ps.cls) != power_id:
        raise RuleViolation(f"{ps.name} has no claim on {t['name']}", rule="P-TOWN-1", field="town_id")
    _lose(game, town_id, power_id, ps.cls, reason, GM)


def claim(game: Game, town_id: str, power_id: str, reason: str, actor: str = GM) -> None:
    """Record a power's claim on a town; the claimant of its type it displaces loses its claim."""
    s = game.state
    cls = s.powers[power_id].cls
    old = s.world.towns[town_id]["claims"].get(cls)
    if old is not None and old["power"] != power_id:
        _lose(game, town_id, old["power"], cls, reason, actor)
    record(
        game,
        ClaimSet,
        town_id=town_id,
        power_id=power_id,
        cls=cls,
        since=s.world.claim_seq + 1,
        reason=reason,
        actor=actor,
        audience=view.claim_audience(s, town_id, power_id),
    )


def _lose(game: Game, town_id: str, power_id: str, cls: str, reason: str, actor: str) -> None:
    record(
        game,
        ClaimLost,
        town_id=town_id,
        power_id=power_id,
        cls=cls,
        reason=reason,
        actor=actor,
        audience=view.claim_audience(game.state, town_id, power_id),
    )


def check_conspiracy_claims(game: Game, power_id: str) -> None:
    """A conspiracy loses an infiltrated claim once it has no influence in the town or next to it (P-INFL-6)."""
    s = game.state
    ps = s.powers[power_id]
    if ps.cls != "conspiracy":
        return
    for tid, t in sorted(s.world.towns.items()):
        if claimant(t, "conspiracy") == power_id and not wr.keeps_claim(ps.influence, t["hex"]):
            _lose(game, tid, power_id, "conspiracy", "no influence left in the town or next to it", SYSTEM)


def renounce_claims(game: Game, power_id: str, keep: str, reason: str, actor: str = SYSTEM) -> None:
    """A power gives up its claims on every town but ``keep`` (Commandeer, [003:1276])."""
    s = game.state
    cls = s.powers[power_id].cls
    for tid, t in sorted(s.world.towns.items()):
        if tid != keep and claimant(t, cls) == power_id:
            _lose(game, tid, power_id, cls, reason, actor)


# ---------------------------------------------------------------------- events


class ClaimSet(WorldEvent):
    town_id: str
    power_id: str
    cls: str
    since: int
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        w = s.world
        w.towns[self.town_id]["claims"][self.cls] = {"power": self.power_id, "since": self.since}
        w.claim_seq = max(w.claim_seq, self.since)


class ClaimLost(WorldEvent):
    town_id: str
    power_id: str
    cls: str
    reason: str
    actor: str
    audience: list[str]

    def evolve(self, s: GameState) -> None:
        if claimant(s.world.towns[self.town_id], self.cls) == self.power_id:
            del s.world.towns[self.town_id]["claims"][self.cls]
