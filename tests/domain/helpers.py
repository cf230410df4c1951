"""Builders for domain tests: a game in Planning with powers and assets, the clock pinned."""

from __future__ import annotations

import copy
from datetime import datetime, timedelta, timezone

import pytest

import domain.powers.ruleset  # noqa: F401  (registers Powers: a game looks its ruleset up, e.g. for its window rules)
from domain.dice import FixedRoller
from domain.errors import RuleViolation
from domain.powers.game import Game
from domain.powers.views import board_view

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)
SEED = "ab" * 32


def later(hours: float) -> datetime:
    return NOW + timedelta(hours=hours)


def game_in_planning(*powers: tuple[str, str, str], assets: list[tuple] = (), options: dict | None = None) -> Game:
    """A new game with these ``(id, cls, subclass)`` powers and ``(asset_id, power, name, cls, rank, kw)`` assets,
    advanced to month 1 Planning."""
    g = Game.start("Test game", "GM", options=options)
    for pid, cls, sub, *opts in powers:
        g.add_power(pid, pid.title(), cls, sub, opts[0] if opts else None)
    for asset_id, power, name, cls, rank, *kw in assets:
        g.grant_asset(asset_id, power, name, cls, rank, **(kw[0] if kw else {}))
    g.advance(NOW, SEED)
    g.advance(NOW, SEED)
    assert g.state.step == "planning"
    return g


def submit(g: Game, power: str, action_id: str, faces: list[int] | None = None, **kw) -> None:
    """Submit an action with the dice given explicitly."""
    roller = FixedRoller(faces) if faces is not None else FixedRoller()
    kw.setdefault("now", NOW)
    g.submit_action(power, action_id, kw.pop("title", action_id), roller=roller, **kw)


def refused(g: Game, call, rule: str) -> RuleViolation:
    """Run a command that must be refused with ``rule``, and check it recorded and changed nothing."""
    g.collect_events()
    before = copy.deepcopy(g.state)
    with pytest.raises(RuleViolation) as info:
        call()
    assert info.value.rule == rule, info.value.message
    assert g.collect_events() == []
    assert g.state == before
    return info.value


# ---------------------------------------------------------------------- what a viewer sees (P.4)


def seen(g: Game, viewer: str = "gm") -> dict:
    """The game as ``viewer`` sees it now (the ruleset's view; the GM sees every action and sheet)."""
    return board_view(g, viewer)


def step_of(g: Game) -> str:
    """The step of the month the game is in, as everyone sees it."""
    return seen(g)["game"]["step"]


def window_of(g: Game, window_id: str, viewer: str = "gm") -> dict:
    """A window as ``viewer`` sees it (the GM: its extensions, requests and who it waits on)."""
    (w,) = [w for w in seen(g, viewer)["windows"] if w["window_id"] == window_id]
    return w


def sheet_of(g: Game, power: str) -> dict:
    """A power's sheet as the GM sees it."""
    (s,) = [s for s in seen(g)["sheets"] if s["power_id"] == power]
    return s


def action_of(g: Game, action_id: str) -> dict:
    """An action as the GM sees it, its result included once resolved."""
    (a,) = [a for a in seen(g)["actions"] if a["action_id"] == action_id]
    return a


def asset_of(g: Game, asset_id: str) -> dict | None:
    """An asset as the GM sees it on its holders' sheets, with ``holders``: the powers whose sheets list it."""
    found = [(s["power_id"], a) for s in seen(g)["sheets"] for a in s["assets"] if a["asset_id"] == asset_id]
    return {**found[0][1], "holders": [p for p, _ in found]} if found else None


def town_of(g: Game, town_id: str) -> dict:
    """A town on the GM's map: its population, statuses, claims (class -> power) and features."""
    (t,) = [t for t in seen(g)["map"]["towns"] if t["id"] == town_id]
    return t


def features_seen(g: Game) -> dict[str, dict]:
    """Every feature on the GM's map, in towns and out of them, by id."""
    m = seen(g)["map"]
    return {f["id"]: f for f in [*m["features"], *(f for t in m["towns"] for f in t["features"])]}


def army_of(g: Game, army_id: str) -> dict:
    """An army's full card as the GM sees it."""
    (a,) = [a for a in seen(g)["armies"]["armies"] if a["army_id"] == army_id]
    return a


def ambition_of(g: Game, ambition_id: str) -> dict:
    """An ambition as the GM sees it on its holder's development sheet (its status, reward, tasks)."""
    sheets = seen(g)["development"]["sheets"].values()
    (a,) = [a for s in sheets for a in s["ambitions"] if a["ambition_id"] == ambition_id]
    return a


def question_of(g: Game, question_id: str) -> dict:
    """A question to the GM as the GM sees it on its asker's development sheet."""
    sheets = seen(g)["development"]["sheets"].values()
    (q,) = [q for s in sheets for q in s["questions"] if q["question_id"] == question_id]
    return q


def resolved_of(g: Game, action_id: str) -> dict:
    """A resolved action as the GM sees it, its result's figures (successes, resisted, net, success, excess) at the
    top; refused (an AssertionError) while the action is not resolved."""
    a = action_of(g, action_id)
    assert a["result"] is not None, f"{action_id} is {a['status']}, not resolved"
    return {**a, **a["result"]}


def trade_of(g: Game, trade_id: str) -> dict:
    """A trade as the GM sees it on the development sheets of its two sides."""
    sheets = seen(g)["development"]["sheets"].values()
    (t, *_) = [t for s in sheets for t in s["trades"] if t["trade_id"] == trade_id]
    return t
