"""Issue 13: a scripted battle of two sides, three powers and six armies, played through all 7 rounds over the
JSON API (``POST /games/{id}/commands``), with a platform window per step (P.1.3 by post), a window closed by the
GM applying the battle's default, the battle page data per viewer and the report (P.4)."""

from __future__ import annotations

from tests.integration.helpers import bearer

HEX = "2,0"
HEXES = [{"hex": f"{q},0", "terrain": "plains"} for q in range(5)]
BLOCK = {
    "rank": 2,
    "defense": 6,
    "attack": {"die": 6, "bonus": 0},
    "morale": {"die": 6, "bonus": 0},
    "presence": {"die": 4, "bonus": 0},
    "armor": 4,
    "fee": 2,
    "mobility": 2,
    "keywords": [],
    "cls": "infantry",
}
# Six armies: side A north (n1; n3 a reinforcement from 3,0, Delayed 1) and east (e1); side B south (s1, s2; s3
# deployed in round 4).
ARMIES = [
    ("n1", "north", HEX, 4),
    ("e1", "east", HEX, 4),
    ("s1", "south", HEX, 4),
    ("s2", "south", HEX, 4),
    ("s3", "south", HEX, 4),
    ("n3", "north", "3,0", 2),
]
STEPS = ("deployment", "spellcasting", "commands", "goals", "cleanup")


def command(api, game, token, cmd, /, **args):
    r = api.post(f"/games/{game}/commands", headers=bearer(token), json={"command": cmd, "args": args})
    assert r.status_code == 200, r.text
    return r.json()


def setup_game(api):
    r = api.post("/games", json={"name": "Ford of Derop", "gm_name": "Mira"})
    assert r.status_code == 201, r.text
    game, gm = r.json()["game_id"], r.json()["gm_token"]
    tok = {}
    for name in ("North", "East", "South"):
        r = api.post(
            f"/games/{game}/powers", json={"name": name, "cls": "city", "subclass": "sovereign"}, headers=bearer(gm)
        )
        assert r.status_code == 201, r.text
        tok[r.json()["power_id"]] = r.json()["token"]
    assert set(tok) == {"north", "east", "south"}
    command(api, game, gm, "DeclareMap", hexes=HEXES)
    for aid, power, where, units in ARMIES:
        command(
            api,
            game,
            gm,
            "PlaceArmy",
            army_id=aid,
            name=aid.upper(),
            hex=where,
            units=units,
            controller=power,
            block=BLOCK,
        )
    command(api, game, gm, "TeachSpell", power_id="north", spell_id="fireball")
    # the mana for the battle's Fireball (2FF, P-MAG-2): storage to hold it (P-MAG-1), then the mana
    command(api, game, gm, "GrantMagicPerk", power_id="north", perk="excellent_personal_magic")
    command(api, game, gm, "GrantMana", power_id="north", element="F", amount=3)
    command(api, game, gm, "GrantMana", power_id="north", element="A", amount=1)
    r = api.post(
        f"/games/{game}/powers/north/assets",
        json={"name": "Spy in the ford", "cls": "agent", "rank": 2},
        headers=bearer(gm),
    )
    spy = r.json()["result"]["asset_id"]
    for step in ("setup", "tidings", "planning"):
        r = api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": step})
        assert r.status_code == 200, r.text
    r = api.post(f"/games/{game}/resolve", headers=bearer(gm), json={"expected_step": "resolution"})
    assert r.status_code == 200, r.text
    assert api.get(f"/games/{game}/view", headers=bearer(gm)).json()["game"]["step"] == "battle"
    return game, gm, tok, spy


def gm_events(api, game, gm):
    out, after = [], 0
    while True:
        page = api.get(f"/games/{game}/events", headers=bearer(gm), params={"after": after, "limit": 500}).json()
        out += page
        if len(page) < 500:
            return out
        after = page[-1]["seq"]


def pick_order(view, power, round_no):
    side = view["turn"]["side"]
    lines = {a["army_id"]: a for a in view["armies"]}
    mine = [
        a["army_id"]
        for a in view["armies"]
        if a["power"] == power
        and a["where"] == "deployed"
        and a.get("size", 0) > 0
        and a["army_id"] not in view["exhausted"]
    ]
    enemies = [
        a
        for a in view["sides"]["B" if side == "A" else "A"]["order"]
        if lines[a]["where"] == "deployed" and lines[a].get("size", 0) > 0
    ]
    army = mine[0]
    if round_no in (1, 3) and enemies:  # slain armies are few: all 7 rounds are fought
        return {"army_id": army, "command": "slay", "target": enemies[0]}
    if round_no == 4 and lines[army]["momentum"] > 0 and enemies:
        return {"army_id": army, "command": "charge", "target": enemies[0], "goal": "advance"}
    return {"army_id": army, "command": "hold", "goal": "advance" if len(mine) % 2 else "initiative"}


def play_battle(api, game, gm, tok, spy):
    r = command(
        api,
        game,
        tok["north"],
        "DeclareBattle",
        battle_id="b1",
        hex=HEX,
        power_id="north",
        enemies=["south"],
        allies=["east"],
    )
    assert r["result"]["window_id"] == "battle-b1-setup"
    command(api, game, gm, "SetBattleTerrain", battle_id="b1", terrain="a shallow ford", default="hold")
    command(
        api,
        game,
        tok["north"],
        "SubmitBattleSetup",
        battle_id="b1",
        power_id="north",
        armies=["n1"],
        goals=[{"name": "Hold the ford", "threshold": 2}],
        assets=[spy],
        reinforcements=["n3"],
        standing={"n1": {"command": "rest"}},
    )
    command(api, game, tok["east"], "SubmitBattleSetup", battle_id="b1", power_id="east", armies=["e1"])
    command(api, game, tok["south"], "SubmitBattleSetup", battle_id="b1", power_id="south", armies=["s1", "s2"])
    gm_closed = None
    for _ in range(400):
        view = api.get(f"/games/{game}/battles/b1", headers=bearer(gm)).json()
        step, r_no = view["step"], view["round"]
        if step == "ended":
            return view, gm_closed
        if step == "cleanup" and r_no == 3 and gm_closed is None:
            # The GM closes the step before anyone answered: the default (pass) is recorded for everyone.
            gm_closed = view["window"]
            r = api.post(
                f"/games/{game}/windows/{gm_closed}/close", headers=bearer(gm), json={"expected_step": "battle"}
            )
            assert r.status_code == 200, r.text
            continue
        p = view["pending"][0]
        if step == "deployment":
            command(
                api,
                game,
                tok[p],
                "DeployArmies",
                battle_id="b1",
                power_id=p,
                armies=["s3"] if p == "south" and r_no == 4 else [],
            )
        elif step == "spellcasting":
            spell = {"spell_id": "fireball", "target": "s1"} if r_no == 2 else {}
            command(api, game, tok[p], "CastBattleSpell", battle_id="b1", power_id=p, **spell)
            if spell:
                command(
                    api,
                    game,
                    gm,
                    "SetBattleStatus",
                    battle_id="b1",
                    army_id="s1",
                    status="Burning",
                    stacks=1,
                    reason="fireball",
                )
        elif step == "commands":
            assert view["turn"]["power"] == p
            command(api, game, tok[p], "GiveCommand", battle_id="b1", power_id=p, **pick_order(view, p, r_no))
        elif step == "goals":
            command(api, game, tok[p], "OfferTerms", battle_id="b1", power_id=p)
        elif step == "surrender":
            command(api, game, tok[p], "AnswerTerms", battle_id="b1", power_id=p, accept=False)
        elif step == "cleanup":
            command(api, game, tok[p], "RetreatArmies", battle_id="b1", power_id=p)
    raise AssertionError("the battle did not end")


def test_a_scripted_battle_of_three_powers_and_six_armies_plays_seven_rounds_over_the_api(api):
    game, gm, tok, spy = setup_game(api)
    # Out of turn and with a bad command, refusals name the rule and record nothing.
    view, gm_closed = play_battle(api, game, gm, tok, spy)
    assert view["round"] == 7 and view["result"]["reason"] in ("7 rounds fought", "only one side has active armies"), (
        view["result"]
    )
    assert len(ARMIES) == 6 and {a["army_id"] for a in view["armies"]} == {a[0] for a in ARMIES}
    events = gm_events(api, game, gm)
    opened = [e["data"]["window_id"] for e in events if e["type"] == "WindowOpened" and e["data"]["kind"] == "battle"]
    assert opened[0] == "battle-b1-setup"
    for r in range(1, 8):
        for step in STEPS:
            assert any(w.startswith(f"battle-b1-r{r}-{step}") for w in opened), (r, step)
    closed = {e["data"]["window_id"]: e["data"]["reason"] for e in events if e["type"] == "WindowClosed"}
    assert set(opened) <= set(closed)
    assert closed[gm_closed] == "closed by the GM"
    defaults = [e for e in events if e["type"] == "BattleActed" and e["data"]["by_default"]]
    assert {e["data"]["power_id"] for e in defaults if e["data"]["step"] == "cleanup"} == {"north", "east", "south"}
    # s3 joined in round 4's deployment; the reinforcement n3 arrived when its Delayed reached 0.
    deployed = [e["data"] for e in events if e["type"] == "BattleDeployed"]
    assert any(d["armies"] == ["s3"] and d["round"] == 4 for d in deployed)
    assert any(d["armies"] == ["n3"] for d in deployed)
    commands = [e["data"] for e in events if e["type"] == "BattleCommandGiven"]
    assert {c["command"] for c in commands} >= {"slay", "hold"}
    assert all(c["rolls"] for c in commands if c["command"] in ("slay", "hold"))
    # The report, round by round, as each viewer saw it: the GM in full, south without north's secret asset.
    gm_report = api.get(f"/games/{game}/battles/b1/report", headers=bearer(gm)).json()
    south_report = api.get(f"/games/{game}/battles/b1/report", headers=bearer(tok["south"])).json()
    assert [r["round"] for r in gm_report] == list(range(8)) == [r["round"] for r in south_report]
    kinds = {e["event"] for r in gm_report for e in r["events"]}
    assert {"BattleAssetsRevealed", "BattleCommandGiven", "BattleGoalsScored", "BattleEnded"} <= kinds
    assert "BattleAssetsRevealed" not in {e["event"] for r in south_report for e in r["events"]}
    assert any(e["event"] == "BattleCommandGiven" and e["rolls"] for e in south_report[3]["events"])
    # The month can end now that the battle has.
    r = api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": "battle"})
    assert r.status_code == 200, r.text


def test_battle_refusals_name_the_rule_and_the_views_follow_p4(api):
    game, gm, tok, spy = setup_game(api)
    command(
        api,
        game,
        tok["north"],
        "DeclareBattle",
        battle_id="b1",
        hex=HEX,
        power_id="north",
        enemies=["south"],
        allies=["east"],
    )
    r = api.post(
        f"/games/{game}/commands",
        headers=bearer(tok["south"]),
        json={"command": "SubmitBattleSetup", "args": {"battle_id": "b1", "power_id": "north", "armies": ["n1"]}},
    )
    assert r.status_code == 403, r.text
    r = api.post(
        f"/games/{game}/commands",
        headers=bearer(tok["south"]),
        json={
            "command": "SubmitBattleSetup",
            "args": {
                "battle_id": "b1",
                "power_id": "south",
                "armies": ["s1"],
                "goals": [{"name": "a"}, {"name": "b"}, {"name": "c"}],
            },
        },
    )
    assert r.status_code == 422 and "P-BAT-8" in r.text, r.text
    command(
        api,
        game,
        tok["north"],
        "SubmitBattleSetup",
        battle_id="b1",
        power_id="north",
        armies=["n1"],
        assets=[spy],
    )
    south = api.get(f"/games/{game}/battles/b1", headers=bearer(tok["south"])).json()
    assert south["secret_assets"] == {} and spy not in str(south)
    assert api.get(f"/games/{game}/battles/b1", headers=bearer(gm)).json()["secret_assets"] == {"north": [spy]}
    report = api.get(f"/games/{game}/battles/b1/report", headers=bearer(tok["south"])).json()
    assert spy not in str(report)
    assert spy in str(api.get(f"/games/{game}/battles/b1/report", headers=bearer(gm)).json())
    board = api.get(f"/games/{game}/view", headers=bearer(tok["south"])).json()
    assert board["battles"][0]["battle_id"] == "b1" and spy not in str(board)
