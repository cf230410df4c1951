"""A scripted Powers season, for newcomers: ``emissary demo --season``.

Every die is given explicitly (a ``FixedRoller``), so the narration is the same on every run and each number
it prints can be checked by hand against the rules it names."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from application.service import Caller, Games
from domain.dice import FixedRoller
from domain.powers import catalogue_commands as cc
from domain.powers import commands as pc
from domain.powers import development as dev
from domain.powers import magic, world

GM = Caller.of("gm")
# A strip of plains with the hills of Moria at its east end.
HEXES = [{"hex": f"{q},0", "terrain": "plains"} for q in range(5)] + [
    {"hex": "0,1", "terrain": "mountains"},
    {"hex": "1,1", "terrain": "forest"},
    {"hex": "-1,0", "terrain": "plains"},
    {"hex": "0,-1", "terrain": "plains"},
    {"hex": "1,-1", "terrain": "plains"},
    {"hex": "-1,1", "terrain": "plains"},
]
TOWNS = [
    {"id": "bree", "name": "Bree", "hex": "0,0", "population": 3, "statuses": {"sickened": 2}},
    {"id": "tharbad", "hex": "2,0", "population": 2},
]
FEATURES: list[dict[str, Any]] = [
    {"id": "barrow", "kind": "dungeon", "name": "Barrow-downs", "hex": "1,1", "floors": [{"difficulty": 2}]},
    {"id": "orthanc", "kind": "stronghold", "name": "Orthanc", "hex": "3,0", "controller": None, "modules": ["tower"]},
]


def play_demo_season(say: Callable[[str], None]) -> Games:
    """Play Tidings > Planning > Resolution > Resistance > Battle > Cleanup with explicit dice; narrate it."""
    dice = FixedRoller()
    games = Games(roller_factory=lambda game: dice)  # in memory: nothing is written anywhere
    gid, _, _ = games.create_game("The Fellowship's Season", "Mira (GM)", "Europe/London")
    wiz = games.send(gid, GM.principal, pc.AddPower("Saruman", "champion", "wizard", "")).result["power_id"]
    rangers = games.send(gid, GM.principal, pc.AddPower("Rangers of the North", "conspiracy", "circle", ""))
    rangers = rangers.result["power_id"]
    gondor = games.send(gid, GM.principal, pc.AddPower("Gondor", "city", "sovereign", "")).result["power_id"]
    features = [dict(f, controller=wiz) if f["id"] == "orthanc" else f for f in FEATURES]
    assets = {
        "might": games.run(GM, gid, pc.GrantAsset(wiz, "might", "skill", 3)).result["asset_id"],
        "subtlety": games.run(GM, gid, pc.GrantAsset(rangers, "subtlety", "skill", 3)).result["asset_id"],
        "vigil": games.run(GM, gid, pc.GrantAsset(gondor, "might", "skill", 2)).result["asset_id"],
        "command": games.run(GM, gid, pc.GrantAsset(gondor, "command", "skill", 2)).result["asset_id"],
    }
    games.run(GM, gid, world.DeclareMap(hexes=HEXES, towns=TOWNS, features=features))
    say(f"Created game {gid}: Saruman (Wizard), the Rangers (Circle) and Gondor (Sovereign).")
    say(
        f"The GM declares the map: {len(HEXES)} hexes, towns Bree (0,0) and Tharbad (2,0), the hidden "
        "Barrow-downs (1,1) and Saruman's stronghold Orthanc (3,0), with a tower module."
    )
    games.run(GM, gid, world.SetClaim("bree", gondor, "annex"))
    games.run(GM, gid, world.SetClaim("tharbad", rangers, "infiltrate"))
    say("Claims: Gondor has annexed Bree; the Rangers have infiltrated Tharbad (one claim of each type, P-TOWN-1).")
    games.run(GM, gid, pc.SetInfluence(rangers, "0,0", 4))
    games.run(GM, gid, dev.AdjustResources(wiz, {"coin": 5, "fame": 6}, "starting purse"))
    games.run(GM, gid, dev.AdjustResources(rangers, {"coin": 3, "favor": 1, "fame": 6}, "starting purse"))
    games.run(GM, gid, dev.AdjustResources(gondor, {"coin": 6}, "starting purse"))
    say("Wallets: Saruman 5 coin and 6 fame, the Rangers 3 coin, 1 favor and 6 fame, Gondor 6 coin (GM-18).")
    games.run(GM, gid, pc.SetMonths(2))
    amb = _tidings(games, gid, wiz, rangers, gondor, say)
    acts = _planning(games, dice, gid, wiz, rangers, gondor, assets, say)
    _resolution(games, dice, gid, wiz, rangers, gondor, assets, acts, say)
    _cleanup(games, dice, gid, wiz, rangers, amb, assets, say)
    return games


def _tidings(games: Games, gid: str, wiz: str, rangers: str, gondor: str, say: Callable[[str], None]) -> str:
    step = games.run(GM, gid, pc.Advance()).result["step"]
    say(f"The season opens: {step}.")
    games.run(Caller.of(rangers), gid, world.ShiftInfluence(rangers, [["0,0", "1,0"], ["0,0", "-1,0"]]))
    spread = games.view(gid, rangers)["me"]["influence"]
    say(
        "The Rangers spread influence down the gradient, 0,0 -> 1,0 and 0,0 -> -1,0 (P-INFL-3): now "
        + ", ".join(f"{n} at {h}" for h, n in sorted(spread.items()))
        + "."
    )
    games.run(Caller.of(wiz), gid, world.PayMaintenance(wiz, "orthanc"))
    coin = games.view(gid, wiz)["development"]["mine"]["wallet"]["coin"]
    say(f"Saruman pays Orthanc's maintenance, 2 coin + 1 for its tower module (P-FEAT-3): {coin} coin left.")
    price = games.run(Caller.of(wiz), gid, dev.BuyDevelopment(wiz, "skill", "lore")).result["price"]
    fame = games.view(gid, wiz)["development"]["mine"]["wallet"]["fame"]
    say(f"Saruman buys the skill lore for {price} fame in Tidings (P-DEV-1): {fame} fame left.")
    tasks = [{"text": "Find the Barrow-downs", "central": True, "mysterious": False}]
    amb = games.run(GM, gid, dev.OfferAmbition(rangers, "Guard the Shire", "minor", 6, 1, tasks)).result["ambition_id"]
    games.run(Caller.of(rangers), gid, dev.AcceptAmbition(rangers, amb))
    say(f"The GM offers the Rangers the minor ambition 'Guard the Shire' ({amb}, 6 fame, 1 task); they accept.")
    trade = games.run(
        Caller.of(rangers), gid, dev.ProposeTrade(rangers, gondor, {"favor": 1}, {"coin": 2}, "for the Shire")
    ).result["trade_id"]
    games.run(Caller.of(gondor), gid, dev.AcceptTrade(gondor, trade))
    mine = games.view(gid, rangers)["development"]["mine"]["wallet"]
    theirs = games.view(gid, gondor)["development"]["mine"]["wallet"]
    say(
        f"Trade {trade}: the Rangers give Gondor 1 favor for 2 coin; Gondor accepts and both sides move at once. "
        f"Rangers: {mine['coin']} coin, {mine['favor']} favor; Gondor: {theirs['coin']} coin, {theirs['favor']} favor."
    )
    return str(amb)


def _planning(
    games: Games,
    dice: FixedRoller,
    gid: str,
    wiz: str,
    rangers: str,
    gondor: str,
    assets: dict,
    say: Callable[[str], None],
) -> dict[str, str]:
    games.run(GM, gid, pc.Advance())
    say("Season 1, month 1: Planning.")
    games.run(GM, gid, magic.GrantMana(wiz, "F", 3))
    games.run(GM, gid, magic.GrantMana(wiz, "W", 1))
    games.run(GM, gid, magic.GrantMana(wiz, "A", 1))
    games.run(GM, gid, magic.TeachSpell(wiz, "fireball"))
    conduit = games.run(GM, gid, magic.SetConduit(wiz, "a crow of Dunland", "2,0")).result["conduit_id"]
    say(
        "The GM grants Saruman 3 Fire, 1 Water and 1 Air mana, teaches him Fireball and sends a crow "
        "of Dunland to Tharbad (2,0) as his conduit."
    )
    dice.rolls.append([6, 5, 2])
    burn = games.run(
        Caller.of(wiz),
        gid,
        pc.SubmitAction(
            wiz,
            title="Burn the Tharbad bridge",
            slot="private",
            location="2,0",
            targets=[gondor],
            resistible=True,
            difficulty=1,
            skill="might",
            assets=[{"asset_id": assets["might"]}],
            convert=0,
        ),
    ).result
    say(
        f"Saruman submits a private, resistible action at Tharbad; his dice are {burn['faces']}: "
        f"{burn['successes']} successes."
    )
    cast = games.run(
        Caller.of(wiz), gid, magic.CastSpell(wiz, "fireball", conduit, "2,0", burn["action_id"], list("FFFW"))
    ).result
    say(
        f"He casts Fireball through the crow at 2,0 in that action, paying FFFW: rank {cast['rank']} "
        f"(P-MAG-2); mana left: {_mana(cast['mana'])}."
    )
    dice.rolls.append([5, 1, 6])
    whisper = games.run(
        Caller.of(rangers),
        gid,
        pc.SubmitAction(
            rangers,
            title="Whispers in the Prancing Pony",
            slot="private",
            location="0,0",
            skill="subtlety",
            assets=[{"asset_id": assets["subtlety"]}],
            convert=0,
        ),
    ).result
    aim = games.run(Caller.of(rangers), gid, world.AimAction(whisper["action_id"], "infiltrate", town_id="bree")).result
    games.run(Caller.of(rangers), gid, world.SpendInfluence(rangers, whisper["action_id"], {"0,0": 2, "1,0": 1}))
    left = games.view(gid, rangers)["me"]["influence"]
    say(
        f"The Rangers' private action at 0,0 rolls {whisper['faces']} ({whisper['successes']} successes) and is "
        f"aimed at infiltrating Bree (difficulty {aim['difficulty']}, P-INFL-6); they spend 2 influence from its hex "
        "and 1 from the neighbouring 1,0 on it (P-INFL-2), leaving "
        + (", ".join(f"{n} at {h}" for h, n in sorted(left.items()) if n) or "none")
        + "."
    )
    dice.rolls.append([6, 4])
    annex = games.run(
        Caller.of(gondor),
        gid,
        cc.SubmitClassAction(
            gondor,
            "annex",
            {"towns_claimed": 1, "town": "tharbad"},
            slot="public",
            location="2,0",
            targets=[rangers],
            assets=[{"asset_id": assets["command"]}],
            convert=0,
        ),
    ).result
    say(
        f"Gondor takes the Sovereign's class action Annex on Tharbad (P.2.12): difficulty {annex['difficulty']} "
        f"(the towns it already claims); rolled {annex['faces']}."
    )
    return {"burn": burn["action_id"], "whisper": whisper["action_id"], "annex": annex["action_id"]}


def _resolution(
    games: Games,
    dice: FixedRoller,
    gid: str,
    wiz: str,
    rangers: str,
    gondor: str,
    assets: dict,
    acts: dict,
    say: Callable[[str], None],
) -> None:
    games.run(GM, gid, pc.Advance())
    r = games.run(GM, gid, pc.Resolve(announcement="Smoke rises over the Greyflood."))
    say(f"Planning closes. Resolution, in rules order: {len(r.result['queue'])} actions.")
    dice.rolls.append([6, 3])
    r = games.run(
        Caller.of(gondor), gid, pc.DeclareReaction(gondor, acts["burn"], [{"asset_id": assets["vigil"]}], convert=0)
    )
    say(f"Gondor resists the burning with its might: {r.result['faces']} -> {r.result['successes']} success(es).")
    games.run(Caller.of(rangers), gid, pc.WaiveReactions(rangers))
    say(
        "The Rangers let Gondor's Annex pass unresisted; everyone who may react has, so the window closes: "
        f"now {games.get_game(gid).state.step}."
    )
    for who, key in ((wiz, "burn"), (rangers, "whisper"), (gondor, "annex")):
        mine = next(a for a in games.view(gid, who)["my_actions"] if a["action_id"] == acts[key])
        res = mine["result"]
        say(
            f"  {mine['title']!r}: {res['successes']} - {res['resisted']} resisted = net {res['net']} "
            f"vs difficulty {res['difficulty']}: {'success' if res['success'] else 'failure'}."
        )


def _cleanup(
    games: Games,
    dice: FixedRoller,
    gid: str,
    wiz: str,
    rangers: str,
    amb: str,
    assets: dict,
    say: Callable[[str], None],
) -> None:
    games.run(GM, gid, dev.CompleteTask(amb, "t1"))
    held = next(a for a in games.view(gid, rangers)["development"]["mine"]["ambitions"] if a["ambition_id"] == amb)
    fame = games.view(gid, rangers)["development"]["mine"]["wallet"]["fame"]
    say(
        f"The GM marks the task 'Find the Barrow-downs' done: the ambition is {held['status']}, worth "
        f"{held['fame_awarded']} fame (P-AMBI-1); the Rangers now hold {fame} fame."
    )
    games.run(GM, gid, pc.Advance())  # battle -> month 2 planning
    games.run(GM, gid, magic.GrantMana(rangers, "E", 1))  # the rune's cost: 1 mana (P.2.12, P-MAG-2)
    dice.rolls.append([6, 5, 1])
    rune = games.run(
        Caller.of(rangers),
        gid,
        cc.SubmitClassAction(
            rangers,
            "hidden_runes",
            {"hex": "-1,0", "rank": 1},
            assets=[{"asset_id": assets["subtlety"]}],
            convert=0,
        ),
    ).result
    say(
        f"Month 2: the Rangers take the Circle's Hidden Runes at -1,0, rank 1 (at most their influence there, "
        f"P.2.12), paying 1 mana (P-MAG-2): difficulty {rune['difficulty']}, rolled {rune['faces']}."
    )
    games.run(GM, gid, pc.Advance())
    games.run(GM, gid, pc.Resolve(announcement="A quiet month."))
    placed = [a for a in games.view(gid, rangers)["me"]["assets"] if a["cls"] == "rune"]
    seen = [a for a in games.view(gid, wiz)["me"]["assets"] if a["cls"] == "rune"]
    say(
        "It succeeds: "
        + ", ".join(f"a rank {a['rank']} {a['name']}" for a in placed)
        + f" is the Rangers' asset, single use, in challenges there only; Saruman's board shows {len(seen)} runes."
    )
    step = games.run(GM, gid, pc.Advance()).result["step"]
    say(f"Battle passes; the season ends: {step}.")
    bree = next(t for t in games.view(gid, "gm")["map"]["towns"] if t["id"] == "bree")
    say(
        f"Cleanup (P-TOWN-4): Bree is Sickened, so it loses a person (now population {bree['population']}) and "
        f"the status ticks down to {bree['statuses']}; mana dissipates: Saruman holds "
        f"{_mana(games.get_game(gid).state.powers[wiz].mana)}."
    )
    games.run(GM, gid, dev.GrantPerk(rangers, "Mercurial"))
    step = games.run(GM, gid, pc.Advance()).result["step"]
    say(f"Season 2 opens: {step}. Orthanc's maintenance falls due again (P-FEAT-3).")
    games.run(Caller.of(rangers), gid, world.MercurialSwap(rangers, "-1,0", "0,0"))
    held = games.view(gid, rangers)["me"]["influence"]
    say(
        "The GM had granted the Rangers Mercurial; before their outposts reset they swap their influence "
        "between -1,0 and 0,0 (P-INFL-4): now "
        + (", ".join(f"{n} at {h}" for h, n in sorted(held.items()) if n) or "none")
        + "."
    )


def _mana(held: dict[str, int]) -> str:
    return ", ".join(f"{n} {element}" for element, n in sorted(held.items())) or "none"
