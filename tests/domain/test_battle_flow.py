"""The battle sub-machine in the aggregate (P.1.3): declaration (P-AMB-1, walls), setup, the seven rounds with a
window per step, defaults at deadlines, the aftermath (P-BAT-13), replay, and what each viewer sees (P.4)."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domain.dice import FixedRoller, SeededRoller
from domain.errors import RuleViolation
from domain.powers import commands as pc
from domain.powers.battle import battle_report, battle_view
from domain.powers.views import board_view
from tests.domain.battle_helpers import HEX, POWERS, battle_game, order_for, plain_setup, sturdy
from tests.domain.helpers import NOW, SEED, army_of, seen
from tests.domain.test_replay import replay
from tests.domain.world_helpers import act, names, resolve_month, world_game
from tests.helpers import add_power

ROLLER = SeededRoller(SEED)


def declare(g, **kw):
    g.declare_battle("b1", HEX, "north", ["south"], ["east"], now=NOW, actor=kw.pop("actor", "north"))


def momentum_of(g, army_id: str) -> int:
    """An army's momentum on the battlefield of b1, as the GM sees it."""
    (line,) = [a for a in battle_view(g, "b1", "gm")["armies"] if a["army_id"] == army_id]
    return line["momentum"]


def setup_all(g, now=NOW):
    g.submit_battle_setup(
        "b1",
        "north",
        goals=[{"name": "Hold the ford", "threshold": 2}],
        armies=["n1", "n2"],
        standing={"n2": {"command": "rest"}},
        assets=["north-spy"],
        champion=False,
        reinforcements=["n3"],
        now=now,
        roller=ROLLER,
        actor="north",
    )
    plain_setup(g, "east", ["e1"], ROLLER, now=now)
    plain_setup(g, "south", ["s1", "s2", "s3"], ROLLER, now=now)


def pass_step(g, b, now=NOW):
    """Everyone the current non-command window waits for passes."""
    step = b["step"]
    for p in g.battle_pending(b):
        if step == "deployment":
            g.deploy_armies("b1", p, [], now=now, roller=ROLLER, actor=p)
        elif step == "spellcasting":
            g.cast_battle_spell("b1", p, None, None, now=now, roller=ROLLER, actor=p)
        elif step == "goals":
            g.offer_terms("b1", p, None, now=now, roller=ROLLER, actor=p)
        elif step == "surrender":
            g.answer_terms("b1", p, False, now=now, roller=ROLLER, actor=p)
        elif step == "cleanup":
            g.retreat_or_rout("b1", p, [], {}, now=now, roller=ROLLER, actor=p)


def play(g, now=NOW):
    b = g.battle("b1")
    windows = []
    while b["step"] != "ended":
        windows.append(b["window"])
        if b["step"] == "commands":
            p = b["turn"]["power"]
            o = order_for(g, "b1", p, b["round"])
            g.give_command("b1", p, o.pop("army_id"), o.pop("command"), **o, now=now, roller=ROLLER, actor=p)
        else:
            pass_step(g, b, now)
    return windows


def test_p_amb_1_a_battle_is_played_through_seven_rounds_with_a_window_per_step():
    """P.1.3: setup, then per round Deployment > Spellcasting > Commands > Goals > Cleanup, each a window;
    P-BAT-10: at most 7 rounds; P-BAT-14: a reinforcement marked Delayed X arrives when X reaches 0."""
    g = battle_game()
    g.grant_asset("north-spy", "north", "Spy", "agent", 2)
    declare(g)
    b = g.battle("b1")
    assert b["step"] == "setup" and g.open_window("battle") is not None
    setup_all(g)
    assert army_of(g, "n3")["statuses"].get("Delayed", 0) >= 0
    play(g)
    b = g.battle("b1")
    assert b["step"] == "ended"
    assert b["result"]["reason"] == "7 rounds fought" or b["result"]["winner"] is not None
    opened = [e for e in g._pending_events if type(e).__name__ == "WindowOpened" and e.kind == "battle"]
    steps = {e.window_id.split("-")[3] for e in opened if "-r" in e.window_id}
    assert b["round"] == 7 and {f"battle-b1-r{r}-commands" for r in range(1, 8)} <= {e.window_id for e in opened}
    assert {"deployment", "spellcasting", "commands", "goals", "cleanup"} <= steps
    assert "n3" in b["armies"] and b["armies"]["n3"]["where"] in ("deployed", "retreated")
    assert army_of(g, "n3")["hex"] == HEX and army_of(g, "n3")["mustered"]
    # every battle window is closed; the month may end
    assert all(w["closed"] for w in seen(g)["windows"] if w["kind"] == "battle")
    g.advance(NOW, SEED)


def test_the_battle_replays_from_its_events():
    g = battle_game()
    g.grant_asset("north-spy", "north", "Spy", "agent", 2)
    declare(g)
    setup_all(g)
    play(g)
    assert replay(list(g._pending_events)).state == g.state


def test_p_bat_13_after_the_battle_experience_and_fees():
    """P-BAT-13: survivors gain Experience of rank E (armies that lost units); fees are due (P-SUP-3)."""
    g = battle_game()
    g.grant_asset("north-spy", "north", "Spy", "agent", 2)
    declare(g)
    setup_all(g)
    play(g)
    res = g.battle("b1")["result"]
    ended = [type(e).__name__ for e in g._pending_events]
    assert "BattleEnded" in ended and "ArmyFeeDue" in ended
    assert res["experience_rank"] == len(res["lost"])  # P-AMB-40: the armies of every side that lost units
    assert ("ExperienceGained" in ended) == (res["experience_rank"] > 0 and bool(res["survivors"]))
    for aid in res["destroyed"]:
        assert aid not in [a["army_id"] for a in seen(g)["armies"]["armies"]]


def test_p_amb_1_the_campaign_option_lets_only_the_gm_declare():
    g = battle_game({"battle_declared_by": "gm"})
    with pytest.raises(RuleViolation) as err:
        declare(g)
    assert err.value.rule == "P-AMB-1"
    declare(g, actor="gm")
    assert g.battle("b1")["declared_by"] == "north"


def test_p_amb_1_a_battle_needs_opposed_armies_in_the_hex():
    g = battle_game()
    with pytest.raises(RuleViolation) as err:
        g.declare_battle("b1", "4,0", "north", ["south"], now=NOW, actor="north")
    assert err.value.rule == "P-AMB-1"
    assert seen(g)["battles"] == [] and not [e for e in g._pending_events if type(e).__name__.startswith("Battle")]


def test_walls_block_a_declaration_by_armies_that_arrived_this_month():
    """[003:435] (P.1.3 Walls): armies outside the walls cannot declare a battle against armies inside the walls
    before a full month in the location."""
    walls = {"id": "w", "kind": "wooden_walls", "hex": HEX, "controller": "south"}
    g = world_game(*POWERS, features=[walls], assets=[("cmd", "north", "command", "skill", 3)], planning=False)
    g.place_army("n1", "N1", "1,0", 4, controller="north", block=sturdy())
    g.place_army("s1", "S1", HEX, 4, controller="south", block=sturdy())
    g.advance(NOW, SEED)
    g.advance(NOW, SEED)  # month 1 Planning: north musters N1 into the walled hex (P-ARMY-1)
    act(g, "north", "m", "1,0")
    g.aim_army_action("m", "muster", {"moves": [{"army_id": "n1", "path": ["1,0", HEX]}]})
    g.roll_action("m", now=NOW, roller=FixedRoller([6, 6, 6]), assets=[{"asset_id": "cmd"}], convert=0)
    resolve_month(g)
    assert army_of(g, "n1")["hex"] == HEX
    with pytest.raises(RuleViolation) as err:
        g.declare_battle("b1", HEX, "north", ["south"], now=NOW, actor="north")
    assert err.value.rule == "P-FEAT-2"
    g.advance(NOW, SEED)  # month 2: N1 has stood a full month in the hex
    resolve_month(g)
    assert army_of(g, "n1")["hex"] == HEX
    g.declare_battle("b1", HEX, "north", ["south"], now=NOW, actor="north")
    assert "walls" in g.battle("b1")["goals"]


def test_a_deadline_applies_the_gms_default_recorded_as_events():
    """By post: commands not given by the deadline follow the GM's default (hold, or the standing order)."""
    g = battle_game()
    g.grant_asset("north-spy", "north", "Spy", "agent", 2)
    declare(g)
    g.set_battle_terrain("b1", "open plain", "", "standing")
    w = g.open_window("battle")
    late = NOW + timedelta(hours=25)
    g.close_window(w.id, now=late, roller=ROLLER)  # nobody set up: each power's armies in the hex, in id order
    b = g.battle("b1")
    assert b["sides"]["B"]["order"] == ["s1", "s2", "s3"]
    while b["step"] != "commands":
        w = g.open_window("battle")
        late += timedelta(hours=25)
        g.close_window(w.id, now=late, roller=ROLLER)
    w = g.open_window("battle")
    late += timedelta(hours=25)
    g.close_window(w.id, now=late, roller=ROLLER)
    given = [e for e in g._pending_events if type(e).__name__ == "BattleCommandGiven"]
    # One deadline resolves the rest of the round's commands, turn by turn: every army on the field took the
    # default (hold on Advance: no standing order was given), and the battle went on to its Goals.
    assert len(given) == 6 and all(e.by_default and e.command == "hold" and e.goal == "advance" for e in given)
    sides = [b["armies"][e.army_id]["side"] for e in given]
    first = sides[0]
    assert sides == [first, "B" if first == "A" else "A"] * 3  # sides alternate, the initiative side first
    assert b["step"] in ("goals", "cleanup") and b["round"] == 1


def test_commands_refused_out_of_turn_name_the_rule():
    g = battle_game()
    g.grant_asset("north-spy", "north", "Spy", "agent", 2)
    declare(g)
    setup_all(g)
    b = g.battle("b1")
    while b["step"] != "commands":
        pass_step(g, b)
    p = b["turn"]["power"]
    other = "south" if p != "south" else "north"
    before = len(g._pending_events)
    with pytest.raises(RuleViolation):
        g.give_command("b1", other, "s1" if other == "south" else "n1", "rest", now=NOW, roller=ROLLER, actor=other)
    assert len(g._pending_events) == before


def test_p4_secret_assets_go_to_the_gm_only_and_outsiders_see_only_the_declaration():
    g = battle_game()
    g.add_power("west", "West", "city", "sovereign")
    g.grant_asset("north-spy", "north", "Spy", "agent", 2)
    declare(g)
    setup_all(g)
    assert battle_view(g, "b1", "gm")["secret_assets"] == {"north": ["north-spy"]}
    assert battle_view(g, "b1", "north")["secret_assets"] == {"north": ["north-spy"]}
    assert battle_view(g, "b1", "south")["secret_assets"] == {}
    outsider = battle_view(g, "b1", "west")
    assert "armies" not in outsider and "secret_assets" not in outsider
    assert "north-spy" not in str(board_view(g, "south")["battles"])
    report = battle_report(list(g._pending_events), "b1", "south")
    assert "north-spy" not in str(report)
    assert "north-spy" in str(battle_report(list(g._pending_events), "b1", "gm"))
    assert names([]) == []


def test_the_workers_close_a_due_battle_window_and_remind_who_has_not_acted():
    """The workers' path (workers.tasks.close_window -> Games.close_due_window -> CloseDueWindow): a battle window
    closes only when due, with the service's dice, and the default is recorded; reminders go to who is pending."""
    from application.service import Caller, Games
    from domain.powers import armies, battle, world
    from tests.domain.test_conformance_armies import block

    clock = [NOW]
    games = Games(clock=lambda: clock[0])
    gid, _, _ = games.create_game("Workers", "GM")
    for name in ("North", "South"):
        add_power(games, gid, "gm", name, "city", "sovereign")
    gm = Caller.of("gm")
    games.run(gm, gid, world.DeclareMap(hexes=[{"hex": HEX}], towns=[], features=[]))
    for aid, power in (("n1", "north"), ("s1", "south")):
        games.run(gm, gid, armies.PlaceArmy(aid, aid, HEX, 3, power, block=block(defense=6, armor=4)))
    for _ in range(3):
        games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement=""))
    games.run(Caller.of("north"), gid, battle.DeclareBattle("b1", HEX, "north", ["south"]))
    games.run(Caller.of("north"), gid, battle.SubmitBattleSetup("b1", "north", armies=["n1"]))
    assert not games.close_due_window(gid, "battle-b1-setup")  # not due yet: nothing happens
    clock[0] = NOW + timedelta(hours=23, minutes=30)
    assert games.queue_due_reminders(gid, "battle-b1-setup") == ["south"]
    clock[0] = NOW + timedelta(hours=25)
    assert games.close_due_window(gid, "battle-b1-setup")
    b = games.view(gid, "gm")["battles"][0]
    assert b["sides"]["B"]["order"] == ["s1"]  # south's default setup, recorded
    assert b["step"] == "commands" and b["window"] == "battle-b1-r1-commands"
    clock[0] += timedelta(hours=25)
    assert games.close_due_window(gid, "battle-b1-r1-commands")  # both armies take the default, with dice
    events = games.visible_events(gid, "gm", limit=10_000)
    given = [e["data"] for e in events if e["type"] == "BattleCommandGiven"]
    assert len(given) == 2 and all(g["by_default"] and g["rolls"] for g in given)


class MaxRoller:
    """Every die shows its highest face."""

    def faces(self, roll_no, count, sides=6):
        return [sides] * count

    def permutation(self, roll_no, n):
        return list(range(n))


def test_p_bat_9_terms_spend_escalation_and_an_accepted_offer_ends_the_battle():
    """P-BAT-8: Advance gives +1 Escalation; P-BAT-9 [003:580]: a side with escalation spends 1 to offer terms, the
    recipient accepts or declines; a side without escalation cannot offer (refused naming P-BAT-9)."""
    g = battle_game()
    g.grant_asset("north-spy", "north", "Spy", "agent", 2)
    declare(g)
    setup_all(g)
    b = g.battle("b1")
    roll = MaxRoller()
    while b["step"] != "goals":
        if b["step"] == "commands":
            p = b["turn"]["power"]
            army = g._commandable(b, b["turn"]["side"], p)[0]
            if b["turn"]["side"] == "A":
                g.give_command("b1", p, army, "hold", goal="advance", now=NOW, roller=roll, actor=p)
            else:
                g.give_command("b1", p, army, "rest", now=NOW, roller=roll, actor=p)
        else:
            pass_step(g, b)
    assert b["scores"][-1]["winners"]["advance"] == "A"
    assert b["sides"]["A"]["escalation"] == 1 and b["sides"]["B"]["escalation"] == 0
    assert sorted(g.battle_pending(b)) == ["east", "north"]  # only a side with escalation may offer
    g.offer_terms("b1", "north", "leave the ford", now=NOW, roller=roll, actor="north")
    assert b["sides"]["A"]["escalation"] == 0  # spent, whatever the answer
    with pytest.raises(RuleViolation) as err:
        g.offer_terms("b1", "east", "and pay", now=NOW, roller=roll, actor="east")
    assert err.value.rule == "P-BAT-9"
    g.offer_terms("b1", "east", None, now=NOW, roller=roll, actor="east")
    assert b["step"] == "surrender" and g.battle_pending(b) == ["south"]
    g.answer_terms("b1", "south", True, now=NOW, roller=roll, actor="south")
    assert b["step"] == "ended" and b["result"]["winner"] == "A"
    assert b["result"]["reason"] == "side B accepted terms"
    outsider = battle_view(g, "b1", "gm")
    assert outsider["offers"][0]["answer"] is True


def test_p_bat_11_a_demon_deployed_at_the_start_makes_opposed_mortal_armies_check_morale():
    """P-BAT-11 [003:708]: "When this army is deployed, opposed mortal armies make a morale check with threshold 2;
    routing a unit for each missing success" (the analysis' decision: missing against the dice rolled). With
    every die a 1, each of south's three armies routs all its units' worth of dice; north's own army does not roll."""
    from tests.domain.battle_helpers import sturdy

    g = battle_game()
    g.place_army("d1", "Imps", HEX, 2, controller="north", block=sturdy(cls="demon", titanic=True, wondrous=True))
    g.declare_battle("b1", HEX, "north", ["south"], now=NOW, actor="north")

    class Ones:
        def faces(self, roll_no, count, sides=6):
            return [1] * count

    for p, armies in (("north", ["d1"]), ("south", ["s1", "s2", "s3"])):
        plain_setup(g, p, armies, Ones())
    deployed = [e for e in g._pending_events if type(e).__name__ == "BattleDeployed"]
    assert len(deployed) == 1
    assert [r["what"] for r in deployed[0].rolls] == [f"deployment morale of {a}" for a in ("s1", "s2", "s3")]
    for a in ("s1", "s2", "s3"):
        assert all(u["routed"] for u in army_of(g, a)["units"])
    assert not any(u["routed"] for u in army_of(g, "n1")["units"])


def test_battle_notifications_tell_who_is_awaited_not_every_window_closing():
    """By post, a battle's powers are mailed when a step waits for someone and at each turn; a battle window's
    closing is not mailed (it would be one mail a step to every seat)."""
    from domain.powers.notify import notify

    g = battle_game()
    declare(g)
    began = [e for e in g._pending_events if type(e).__name__ == "BattleStepBegan"][-1]
    note = notify("BattleStepBegan", {k: v for k, v in began.__dict__.items()})
    assert (
        note is not None and "north" in note["text"] and began.audience == ["power:east", "power:north", "power:south"]
    )
    assert notify("WindowClosed", {"window_id": "battle-b1-setup", "reason": "deadline"}) is None
    assert notify("WindowClosed", {"window_id": "s1m1-planning", "reason": "deadline"}) is not None
    turn = {"battle_id": "b1", "round": 1, "turn": {"side": "A", "power": "north"}}
    assert "north" in notify("BattleTurnBegan", turn)["subject"]


def test_p_1_3_a_champion_in_the_hex_opts_in_and_a_city_has_none_to_send():
    """[003:561] "Any champions may also declare their involvement if they are also in that hex" (P.1.3)."""
    g = battle_game()
    g.add_power("hero", "Hero", "champion", "wizard")
    g.declare_battle("b1", HEX, "north", ["south"], ["hero"], now=NOW, actor="north")
    with pytest.raises(RuleViolation) as err:
        g.submit_battle_setup(
            "b1",
            "north",
            goals=[],
            armies=["n1"],
            standing={},
            assets=[],
            champion=True,
            reinforcements=[],
            now=NOW,
            roller=ROLLER,
            actor="north",
        )
    assert err.value.rule == "P.1.3" and err.value.field == "champion"
    g.submit_battle_setup(
        "b1",
        "hero",
        goals=[],
        armies=[],
        standing={},
        assets=[],
        champion=True,
        reinforcements=[],
        now=NOW,
        roller=ROLLER,
        actor="hero",
    )
    assert g.battle("b1")["sides"]["A"]["champions"] == ["hero"]
    g2 = battle_game()
    g2.add_power("hero", "Hero", "champion", "wizard")
    g2.record_location("hero", "4,0")  # the GM records where the champion truly is (P-ACT-6): not in the hex
    g2.declare_battle("b1", HEX, "north", ["south"], ["hero"], now=NOW, actor="north")
    with pytest.raises(RuleViolation):
        g2.submit_battle_setup(
            "b1",
            "hero",
            goals=[],
            armies=[],
            standing={},
            assets=[],
            champion=True,
            reinforcements=[],
            now=NOW,
            roller=ROLLER,
            actor="hero",
        )


def test_p_amb_1_through_the_service_a_power_declares_for_itself_and_the_gm_for_any_power():
    from application.service import Caller, Games
    from domain.errors import Forbidden
    from domain.powers import armies, battle, world
    from tests.domain.test_conformance_armies import block

    games = Games()
    gid, _, _ = games.create_game("Declarers", "GM", options={"battle_declared_by": "gm"})
    for name in ("North", "South"):
        add_power(games, gid, "gm", name, "city", "sovereign")
    gm = Caller.of("gm")
    games.run(gm, gid, world.DeclareMap(hexes=[{"hex": HEX}], towns=[], features=[]))
    for aid, power in (("n1", "north"), ("s1", "south")):
        games.run(gm, gid, armies.PlaceArmy(aid, aid, HEX, 3, power, block=block()))
    for _ in range(3):
        games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement=""))
    with pytest.raises(Forbidden):
        games.run(Caller.of("south"), gid, battle.DeclareBattle("b1", HEX, "north", ["south"]))
    with pytest.raises(RuleViolation) as err:
        games.run(Caller.of("north"), gid, battle.DeclareBattle("b1", HEX, "north", ["south"]))
    assert err.value.rule == "P-AMB-1"
    games.run(gm, gid, battle.DeclareBattle("b1", HEX, "north", ["south"]))
    assert games.view(gid, "south")["battles"][0]["declared_by"] == "north"


def test_p_bat_3_a_special_command_is_once_per_battle():
    """P-BAT-3 [003:590]: "Generally, these special commands can only be used once per battle" (per army)."""
    g = battle_game()
    g.grant_asset("north-spy", "north", "Spy", "agent", 2)
    declare(g)
    setup_all(g)
    b = g.battle("b1")
    used = {}
    refused = 0
    while b["step"] != "ended" and b["round"] <= 2:
        if b["step"] != "commands":
            pass_step(g, b)
            continue
        p = b["turn"]["power"]
        army = g._commandable(b, b["turn"]["side"], p)[0]
        if used.get(army):
            before = len(g._pending_events)
            with pytest.raises(RuleViolation) as err:
                g.give_command("b1", p, army, "special", special="shield wall", now=NOW, roller=ROLLER, actor=p)
            assert err.value.rule == "P-BAT-3" and len(g._pending_events) == before
            refused += 1
            g.give_command("b1", p, army, "rest", now=NOW, roller=ROLLER, actor=p)
        else:
            g.give_command("b1", p, army, "special", special="shield wall", now=NOW, roller=ROLLER, actor=p)
            used[army] = True
    assert refused >= 4 and b["specials"] == {a: ["shield wall"] for a in used}


def test_gm_8_a_power_the_battle_waits_for_may_ask_for_more_time_and_keeps_its_window_open():
    """Battle windows are platform windows: the power awaited asks for an extension (GM-8); one with nothing to do
    in the step is refused; the window closes for everyone at the latest deadline."""
    g = battle_game()
    declare(g)
    w = g.open_window("battle")
    g.request_extension("south", w.id, 12, "r1", now=NOW)
    g.grant_extension("r1", now=NOW)
    plain_setup(g, "north", ["n1"], ROLLER)
    with pytest.raises(RuleViolation) as err:
        g.request_extension("north", w.id, 12, "r2", now=NOW)
    assert err.value.rule == "GM-8"
    late = NOW + timedelta(hours=25)
    with pytest.raises(RuleViolation):
        g.close_window(w.id, now=late, roller=ROLLER)  # south's extension runs to 36 hours
    assert g.battle("b1")["step"] == "setup"
    plain_setup(g, "south", ["s1"], ROLLER, now=late)
    assert g.battle("b1")["step"] == "setup" and g.battle_pending(g.battle("b1")) == ["east"]
    g.close_window(w.id, now=NOW + timedelta(hours=37), roller=ROLLER)
    assert g.battle("b1")["sides"]["A"]["order"] == ["n1", "e1"]  # east's default: its armies in the hex


def test_p_bat_7_ancestry_momentum_triggers_fire_in_the_flow():
    """P-BAT-7 ([003:775]-[003:803], battle_rules.momentum_trigger): Drakes gain a momentum at the end of a round
    their side wins a goal; the flow calls the trigger where it happens."""
    from tests.domain.battle_helpers import sturdy

    g = battle_game()
    g.place_army("dk", "Drakes", HEX, 3, controller="north", block=sturdy(ancestry="drakes", element="F"))
    g.declare_battle("b1", HEX, "north", ["south"], now=NOW, actor="north")
    roll = MaxRoller()
    for p, armies in (("north", ["dk"]), ("south", ["s1"])):
        plain_setup(g, p, armies, roll)
    b = g.battle("b1")
    while b["step"] != "commands":
        pass_step(g, b)
    assert momentum_of(g, "dk") == 0
    while b["step"] == "commands":
        p = b["turn"]["power"]
        army = g._commandable(b, b["turn"]["side"], p)[0]
        if p == "north":
            g.give_command("b1", p, army, "hold", goal="advance", now=NOW, roller=roll, actor=p)
        else:
            g.give_command("b1", p, army, "rest", now=NOW, roller=roll, actor=p)
    assert b["scores"][-1]["winners"]["advance"] == "A"
    assert momentum_of(g, "dk") == 1
