"""A rich scripted month through the game service, shared by projection, rewind and verify tests."""

from __future__ import annotations

from dataclasses import dataclass, field

from api.powers.service import PowersGames


@dataclass
class Month:
    games: PowersGames
    game_id: str
    powers: dict[str, str]
    actions: dict[str, str] = field(default_factory=dict)
    assets: dict[str, str] = field(default_factory=dict)


def play_rich_month(games: PowersGames, *, finish: bool = True) -> Month:
    """Four powers; private, public, collaborative, sealed and resistible actions; a disclosure;
    a shared secret; influence; a reaction; resolution and the window closing."""
    gid, _, _ = games.create_game("Rich month", "GM", "Europe/Paris")
    m = Month(games, gid, {})
    for key, name, cls, sub in (
        ("wiz", "Wiz", "champion", "wizard"),
        ("circ", "Circ", "conspiracy", "circle"),
        ("cult", "Cult", "conspiracy", "cult"),
        ("sov", "Sov", "city", "sovereign"),
    ):
        m.powers[key] = games.add_power(gid, "gm", name, cls, sub)[0]
    p = m.powers
    for key, pid in p.items():
        m.assets[f"{key}-might"] = games.grant_asset(gid, "gm", pid, "might", "skill", 3).result["asset_id"]
    m.assets["circ-secret"] = games.grant_asset(gid, "gm", p["circ"], "SECRET-ASSET-CIRC", "secret", 2).result[
        "asset_id"
    ]
    games.set_influence(gid, "gm", p["circ"], "hex-7", 2)
    games.set_influence(gid, "gm", p["cult"], "hex-7", 1)
    games.set_influence(gid, "gm", p["cult"], "hex-9", 3)
    games.advance(gid, "gm")
    games.advance(gid, "gm")

    def act(key: str, name: str, **kw) -> None:
        m.actions[name] = games.submit_action(gid, p[key], p[key], **kw).result["action_id"]

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
    games.set_difficulty(gid, "gm", m.actions["plot"], 3, sealed=True)
    games.roll_action(gid, p["circ"], m.actions["plot"], assets=[{"asset_id": m.assets["circ-might"]}], convert=1)
    act("cult", "rite", title="PRIVATE-CULT-RITE", convert=0)
    act(
        "sov", "edict", title="PUBLIC-SOV-EDICT", slot="public", assets=[{"asset_id": m.assets["sov-might"]}], convert=0
    )
    cid = games.propose_consequence(
        gid,
        "gm",
        m.actions["plot"],
        "CONSEQUENCE-CIRC",
        [{"kind": "disclose", "to": p["sov"], "text": "DISCLOSED-CIRC-TO-SOV"}],
    ).result["consequence_id"]
    games.accept_consequence(gid, p["circ"], m.actions["plot"], cid)
    games.share_secret(gid, p["circ"], p["circ"], m.assets["circ-secret"], p["wiz"])
    games.grant_visibility(gid, "gm", p["wiz"], "SEEKING-FOUND-CULT-SHRINE", source="seeking", about=p["cult"])
    if not finish:
        return m
    games.advance(gid, "gm")
    games.resolve(gid, "gm", "PUBLIC-ANNOUNCEMENT")
    games.declare_reaction(gid, p["sov"], p["sov"], m.actions["duel"], [{"asset_id": m.assets["sov-might"]}], 1)
    return m
