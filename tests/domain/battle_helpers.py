"""Builders for battle tests: two sides, three powers, six armies in one hex, in month 1's Battle step."""

from __future__ import annotations

from api.powers.service import BattleReads
from domain.dice import FixedRoller
from domain.powers import commands as pc
from domain.powers.game import Game
from tests.domain.helpers import NOW, SEED
from tests.domain.test_conformance_armies import block
from tests.domain.world_helpers import resolve_month, world_game
from tests.helpers import add_power

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
    return block(**{"defense": 6, "armor": 4, "rank": 2, **kw})


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


POWERS_2 = (("East", "city", "sovereign"), ("South", "city", "sovereign"))


class Dice(FixedRoller):
    """Explicit dice: a test pushes each roll's faces before the command that rolls them."""

    def push(self, *rolls: list[int]) -> Dice:
        self.rolls.extend(list(r) for r in rolls)
        return self


class Field:
    """A battle played through the service's typed commands (``Games.run``), its dice given explicitly.

    ``armies``: army id -> (controller, hex, units, stat block). The game is in month ``month``'s Battle step.
    ``bid`` is the battle the helpers act on ("b1"; set it to fight another in the same step)."""

    bid = "b1"

    def __init__(
        self,
        armies: dict[str, tuple[str, str, int, dict]],
        *,
        options: dict | None = None,
        features: list[dict] = (),
        months: int = 2,
        month: int = 1,
        powers: tuple[tuple[str, str, str], ...] = (("North", "city", "sovereign"), *POWERS_2),
    ) -> None:
        from application.service import Games
        from domain.powers import armies as pa
        from domain.powers import world

        self.dice = Dice()
        self.games = Games(roller_factory=lambda game: self.dice)
        self.gid, _, _ = self.games.create_game("Field", "GM", options={**(options or {}), "months_per_season": months})
        for name, cls, subclass in powers:
            add_power(self.games, self.gid, "gm", name, cls, subclass)
        hexes = [{"hex": f"{q},0", "terrain": "plains"} for q in range(5)]
        self.run("gm", world.DeclareMap(hexes=hexes, towns=[], features=list(features)))
        for aid, (power, where, units, stats) in armies.items():
            self.run("gm", pa.PlaceArmy(aid, aid.upper(), where, units, power, block=stats))
        for _ in range(3):
            self.games.send(self.gid, "gm", pc.Advance())  # Tidings, Planning, Resolution of month 1
        self.games.send(self.gid, "gm", pc.Resolve(announcement=""))
        while self.game().state.month < month:
            self.games.send(self.gid, "gm", pc.Advance())  # the next month's Planning
            self.games.send(self.gid, "gm", pc.Advance())  # its Resolution
            self.games.send(self.gid, "gm", pc.Resolve(announcement=""))
        assert self.game().state.step == "battle"

    def run(self, who: str, command) -> dict:
        from application.service import Caller

        return self.games.run(Caller.of(who), self.gid, command).result or {}

    def game(self) -> Game:
        return self.games.get_game(self.gid, for_update=False)

    def view(self, viewer: str) -> dict:
        return BattleReads(self.games).battle(self.gid, viewer, self.bid)

    def army(self, army_id: str) -> dict:
        return self.game().state.armies.armies[army_id]

    def declare(self, by: str = "north", enemies=("south",), allies=(), *, who: str | None = None) -> dict:
        from domain.powers import battle as pb

        return self.run(who or by, pb.DeclareBattle(self.bid, HEX, by, list(enemies), list(allies)))

    def setup(self, power: str, armies: list[str], **kw) -> dict:
        from domain.powers import battle as pb

        return self.run(power, pb.SubmitBattleSetup(self.bid, power, armies, **kw))

    def command(self, power: str, army: str, command: str, *dice: list[int], **kw) -> dict:
        """``power`` commands ``army``; ``dice``: the faces of each roll the command makes, in order."""
        from domain.powers import battle as pb

        self.dice.push(*dice)
        out = self.run(power, pb.GiveCommand(self.bid, power, army, command, **kw))
        assert not self.dice.rolls, f"the command left dice unrolled: {self.dice.rolls}"
        return out

    def pass_to(self, step: str, round_no: int | None = None, retreat: dict[str, list[str]] | None = None) -> dict:
        """Every power the battle waits for passes its step until the battle is at ``step`` (of ``round_no``);
        at a Cleanup, the powers in ``retreat`` retreat the armies named."""
        from domain.powers import battle as pb

        while True:
            b = self.view("gm")
            if b["step"] == step and (round_no is None or b["round"] == round_no):
                return b
            assert b["step"] not in ("commands", "ended"), f"the battle is at {b['step']}, not {step}"
            for p in b["pending"]:
                if b["step"] == "deployment":
                    self.run(p, pb.DeployArmies(self.bid, p, []))
                elif b["step"] == "spellcasting":
                    self.run(p, pb.CastBattleSpell(self.bid, p, None))
                elif b["step"] == "goals":
                    self.run(p, pb.OfferTerms(self.bid, p, None))
                elif b["step"] == "surrender":
                    self.run(p, pb.AnswerTerms(self.bid, p, False))
                elif b["step"] == "cleanup":
                    self.run(p, pb.RetreatArmies(self.bid, p, (retreat or {}).get(p, [])))
