"""Builders for the world's tests: a game with a declared map, and a month played to its end."""

from __future__ import annotations

from domain.dice import FixedRoller
from domain.powers.game import Game
from tests.domain.helpers import NOW, SEED

# A small map: a row of plains 0,0 .. 4,0, mountains at 0,1, forest at 1,1.
HEXES = [{"hex": f"{q},0", "terrain": "plains"} for q in range(5)] + [
    {"hex": "0,1", "terrain": "mountains"},
    {"hex": "1,1", "terrain": "forest"},
    {"hex": "-1,0", "terrain": "plains"},
    {"hex": "0,-1", "terrain": "plains"},
    {"hex": "1,-1", "terrain": "plains"},
    {"hex": "-1,1", "terrain": "plains"},
]


def world_game(
    *powers: tuple,
    towns: list[dict] = (),
    features: list[dict] = (),
    assets: list[tuple] = (),
    hexes: list[dict] | None = None,
    planning: bool = True,
) -> Game:
    """A game with these ``(id, cls, subclass[, options])`` powers and a declared map, in month 1 Planning
    (or in Setup with ``planning=False``)."""
    g = Game.start("World", "GM")
    for pid, cls, sub, *opts in powers:
        g.add_power(pid, pid.title(), cls, sub, opts[0] if opts else None)
    for asset_id, power, name, cls, rank, *kw in assets:
        g.grant_asset(asset_id, power, name, cls, rank, **(kw[0] if kw else {}))
    g.declare_map(hexes if hexes is not None else HEXES, list(towns), list(features))
    if planning:
        g.advance(NOW, SEED)
        g.advance(NOW, SEED)
        assert g.state.step == "planning"
    return g


def act(g: Game, power: str, action_id: str, location: str | None, faces: list[int] | None = None, **kw) -> None:
    """Submit an action at ``location``; rolled now with ``faces`` if given, else only proposed."""
    title = kw.pop("title", action_id)
    kw.setdefault("skill", None)
    kw.setdefault("slot", "public" if g.state.powers[power].private == 0 else "private")
    if faces is None:
        g.submit_action(power, action_id, title, now=NOW, roller=FixedRoller(), location=location, roll=False, **kw)
    else:
        g.submit_action(power, action_id, title, now=NOW, roller=FixedRoller(faces), location=location, **kw)


def resolve_month(g: Game) -> None:
    """Planning -> Resolution -> Resistance (closed) -> Battle."""
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    if g.state.step == "resistance":
        w = g.open_window("resistance")
        assert w is not None
        g.close_window(w.id, now=NOW, force=True, reason="test")
    assert g.state.step == "battle"


def to_next_season(g: Game) -> None:
    """From month 1 Planning of a 2-month season to the next season's Tidings, with no actions."""
    resolve_month(g)
    g.advance(NOW, SEED)  # month 2 planning
    resolve_month(g)
    g.advance(NOW, SEED)  # cleanup
    assert g.state.step == "cleanup"
    g.advance(NOW, SEED)  # tidings
    assert g.state.step == "tidings"


def names(events: list) -> list[str]:
    return [type(e).__name__ for e in events]
