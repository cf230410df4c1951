"""A rich scripted month through the game service, shared by projection, rewind and verify tests."""

from __future__ import annotations

from dataclasses import dataclass, field

from application.service import Games
from domain.powers import commands as pc
from tests.helpers import add_power


@dataclass
class Month:
    games: Games
    game_id: str
    powers: dict[str, str]
    actions: dict[str, str] = field(default_factory=dict)
    assets: dict[str, str] = field(default_factory=dict)
    tokens: dict[str, str | None] = field(default_factory=dict)  # power id -> its sign-in token
    gm_token: str | None = None


def play_rich_month(games: Games, *, finish: bool = True) -> Month:
    """Four powers; private, public, collaborative, sealed and resistible actions; a disclosure;
    a shared secret; influence; a reaction; resolution and the window closing."""
    gid, gm_token, _ = games.create_game("Rich month", "GM", "Europe/Paris")
    m = Month(games, gid, {}, gm_token=gm_token)
    for key, name, cls, sub in (
        ("wiz", "Wiz", "champion", "wizard"),
        ("circ", "Circ", "conspiracy", "circle"),
        ("cult", "Cult", "conspiracy", "cult"),
        ("sov", "Sov", "city", "sovereign"),
    ):
        pid, m.tokens[pid], _ = add_power(games, gid, "gm", name, cls, sub)
        m.powers[key] = pid
    p = m.powers
    for key, pid in p.items():
        m.assets[f"{key}-might"] = games.send(gid, "gm", pc.GrantAsset(pid, "might", "skill", 3)).result["asset_id"]
    m.assets["circ-secret"] = games.send(gid, "gm", pc.GrantAsset(p["circ"], "SECRET-ASSET-CIRC", "secret", 2)).result[
        "asset_id"
    ]
    games.send(gid, "gm", pc.SetInfluence(p["circ"], "hex-7", 2))
    games.send(gid, "gm", pc.SetInfluence(p["cult"], "hex-7", 1))
    games.send(gid, "gm", pc.SetInfluence(p["cult"], "hex-9", 3))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())

    def act(key: str, name: str, **kw) -> None:
        m.actions[name] = games.send(gid, p[key], pc.SubmitAction(p[key], **kw)).result["action_id"]

    act(
        "wiz",
        "duel",
        title="PRIVATE-WIZ-DUEL",
        description="DESC-WIZ",
        skill="might",
        targets=[p["sov"]],
        resistible=True,
        difficulty=1,
        assets=[{"asset_id": m.assets["wiz-might"]}],
        convert=2,
    )
    act("circ", "plot", title="PRIVATE-CIRC-PLOT", description="DESC-CIRC", roll=False, collaborators=[p["cult"]])
    games.send(gid, "gm", pc.SetDifficulty(m.actions["plot"], 3, sealed=True))
    games.send(
        gid, p["circ"], pc.RollAction(m.actions["plot"], assets=[{"asset_id": m.assets["circ-might"]}], convert=1)
    )
    act("cult", "rite", title="PRIVATE-CULT-RITE", convert=0)
    act(
        "sov", "edict", title="PUBLIC-SOV-EDICT", slot="public", assets=[{"asset_id": m.assets["sov-might"]}], convert=0
    )
    cid = games.send(
        gid,
        "gm",
        pc.ProposeConsequence(
            m.actions["plot"],
            "CONSEQUENCE-CIRC",
            [{"kind": "disclose", "to": p["sov"], "text": "DISCLOSED-CIRC-TO-SOV"}],
        ),
    ).result["consequence_id"]
    games.send(gid, p["circ"], pc.AcceptConsequence(m.actions["plot"], cid))
    games.send(gid, p["circ"], pc.ShareSecret(p["circ"], m.assets["circ-secret"], p["wiz"]))
    games.grant_visibility(gid, "gm", p["wiz"], "SEEKING-FOUND-CULT-SHRINE", source="seeking", about=p["cult"])
    if not finish:
        return m
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement="PUBLIC-ANNOUNCEMENT"))
    games.send(gid, p["sov"], pc.DeclareReaction(p["sov"], m.actions["duel"], [{"asset_id": m.assets["sov-might"]}], 1))
    return m


BATTLE_BLOCK = {
    "rank": 2,
    "defense": 5,
    "attack": {"die": 6, "bonus": 0},
    "morale": {"die": 6, "bonus": 0},
    "presence": {"die": 6, "bonus": 0},
    "armor": 2,
    "fee": 1,
    "mobility": 2,
    "keywords": [],
    "cls": "infantry",
}


def four_power_battle(games: Games, name: str = "battle") -> tuple[str, list[str]]:
    """A new Powers game whose four powers' eight armies (two each, 4 units of ``BATTLE_BLOCK``) stand in one battle
    on hex 0,0, two powers a side, every army with a standing Slay order at the next power's first army (P-BAT-1..8):
    the battle's set-up submitted, its first windows still to close. Shared by ``tests/bench.py``'s battle round and
    the battle preview's test. Returns the game id and the powers' ids."""
    from application.service import Caller
    from domain.powers import armies, battle, world

    gm = Caller.of("gm")
    gid, _, _ = games.create_game(name, "gm")
    powers = [add_power(games, gid, "gm", f"P{i}", "city", "sovereign")[0] for i in range(4)]
    games.run(gm, gid, world.DeclareMap(hexes=[{"hex": "0,0"}], towns=[], features=[]))
    for i in range(8):
        games.run(gm, gid, armies.PlaceArmy(f"a{i}", f"A{i}", "0,0", 4, powers[i % 4], block=BATTLE_BLOCK))
    for _ in range(3):
        games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement=""))
    a, b = [powers[0], powers[2]], [powers[1], powers[3]]
    games.run(Caller.of(a[0]), gid, battle.DeclareBattle("b", "0,0", a[0], b, [a[1]]))
    games.run(gm, gid, battle.SetBattleTerrain("b", "plain", "", "standing"))
    for i, p in enumerate(powers):
        mine = [f"a{k}" for k in range(8) if k % 4 == i]
        orders = {x: {"command": "slay", "target": f"a{(i + 1) % 4}"} for x in mine}
        games.run(Caller.of(p), gid, battle.SubmitBattleSetup("b", p, armies=mine, standing=orders))
    return gid, powers
