"""Builders for battle tests: two sides, three powers, six armies in one hex, in month 1's Battle step."""

from __future__ import annotations

from domain.powers.game import Game
from tests.domain.helpers import NOW, SEED
from tests.domain.test_conformance_armies import block
from tests.domain.world_helpers import resolve_month, world_game

HEX = "2,0"
POWERS = (("north", "city", "sovereign"), ("east", "city", "sovereign"), ("south", "city", "sovereign"))
# side A: north (2 armies) and east (1); side B: south (3). Sturdy armies, so that seven rounds are fought.
ARMIES = {
    "n1": ("north", 4),
    "n2": ("north", 4),
    "e1": ("east", 4),
    "s1": ("south", 4),
    "s2": ("south", 4),
    "s3": ("south", 4),
}


def sturdy(**kw) -> dict:
    return block(defense=6, armor=4, rank=2, **kw)


def battle_game(options: dict | None = None, features: list[dict] = ()) -> Game:
    """Month 1's Battle step, with the six armies in HEX (and a reserve army of north's at 3,0)."""
    g = world_game(*POWERS, planning=False, features=list(features))
    if options:
        g.state.options.update(options)
    for aid, (power, units) in ARMIES.items():
        g.place_army(aid, aid.upper(), HEX, units, controller=power, block=sturdy())
    g.place_army("n3", "N3", "3,0", 2, controller="north", block=sturdy(mobility=2))
    g.advance(NOW, SEED)
    g.advance(NOW, SEED)
    resolve_month(g)
    return g


def order_for(g: Game, battle_id: str, power: str, round_no: int) -> dict:
    """A scripted command for the power whose turn it is: odd rounds slay the first enemy on the field, even
    rounds hold on Advance (or Initiative for the second army of a side)."""
    b = g.battle(battle_id)
    side = b["turn"]["side"]
    mine = g._commandable(b, side, power)
    army = mine[0]
    enemies = g._fighting(b, "B" if side == "A" else "A")
    if round_no % 2 == 1 and enemies:
        return {"army_id": army, "command": "slay", "target": enemies[0]}
    goal = "advance" if len(mine) % 2 else "initiative"
    return {"army_id": army, "command": "hold", "goal": goal}


def plain_setup(g: Game, power: str, armies: list[str], roller, now=NOW, battle_id: str = "b1") -> None:
    """A power's setup with its armies in order and nothing else: no goals of its own, standing orders,
    assets, champion or reinforcements."""
    g.submit_battle_setup(
        battle_id,
        power,
        goals=[],
        armies=armies,
        standing={},
        assets=[],
        champion=False,
        reinforcements=[],
        now=now,
        roller=roller,
        actor=power,
    )
