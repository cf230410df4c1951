"""The mana costs of class actions (rules/ANALYSIS.md P.2.12) paid by the rules of P-MAG-2: Hidden Runes
(mana of the rune's rank, of the terrain's element), Uplift Master (AW), Sacrificial Summoning and Rise, Fingers
(FW). Refused at submission, recording nothing, when the power cannot pay; debited at the action's turn in the
queue, where coin prices are ([003:28])."""

from __future__ import annotations

from domain.dice import FixedRoller
from domain.powers.game import Game
from tests.domain.helpers import NOW, refused, seen, sheet_of
from tests.domain.test_conformance_catalogue_world import FINGER_BLOCK as FINGERS
from tests.domain.world_helpers import HEXES, resolve_month, world_game


def run() -> dict:
    """Three successes from the one agent (6, 5, 5)."""
    return {"roller": FixedRoller([6, 5, 5]), "assets": [{"asset_id": "agent"}], "convert": 0}


def circle(**mana: int) -> Game:
    hexes = [*HEXES[:1], {"hex": "1,0", "terrain": "mountains", "element": "E"}, *HEXES[2:]]
    g = world_game(("circ", "conspiracy", "circle"), assets=[("agent", "circ", "subtlety", "skill", 3)], hexes=hexes)
    g.set_influence("circ", "1,0", 2)
    g.set_influence("circ", "2,0", 2)
    for element, n in mana.items():
        g.grant_mana("circ", element, n)
    return g


def spent(events) -> list[tuple]:
    return [(e.action_id, e.cost, e.paid, e.audience) for e in events if type(e).__name__ == "ManaSpent"]


def test_p_mag_2_uplift_master_costs_AW_refused_when_the_circle_cannot_pay():
    """P-MAG-2 / P.2.12 Uplift Master "Cost: AW" ([003:1177]): an Air and a Water, refused naming P-MAG-2 (and
    the action's rule in the message) with nothing recorded when the Circle holds no Water."""
    g = circle(A=2, E=1)
    err = refused(
        g,
        lambda: g.submit_class_action("circ", "up", "uplift_master", {}, now=NOW, roller=FixedRoller(), roll=False),
        "P-MAG-2",
    )
    assert "AW" in err.message and "P.2.12" in err.message and err.field == "mana"


def test_p_mag_2_uplift_master_debits_one_air_and_one_water_at_its_turn():
    """P-MAG-2 / P.2.12 Uplift Master: AW is paid at the action's turn in the queue ([003:28]), privately."""
    g = circle(A=2, W=1, E=1)
    g.submit_class_action("circ", "up", "uplift_master", {"converted_rank": 1}, now=NOW, **run())
    assert sheet_of(g, "circ")["mana"] == {"A": 2, "W": 1, "E": 1}  # nothing yet: paid at its turn
    assert seen(g)["catalogue"]["kinds"]["up"]["price"]["mana_cost"] == "AW"
    g.collect_events()
    resolve_month(g)
    events = g.collect_events()
    assert spent(events) == [("up", "AW", {"A": 1, "W": 1}, ["power:circ"])]
    assert sheet_of(g, "circ")["mana"] == {"A": 1, "E": 1}
    assert seen(g)["catalogue"]["counters"]["circ"]["masters"] == 1


def test_p_mag_2_hidden_runes_cost_mana_of_the_runes_rank_in_the_hexs_element():
    """P-MAG-2 / P.2.12 Hidden Runes "Cost: mana of the rune's rank matching the terrain's element"
    ([003:1175]): a rank 2 rune in an Earth hex costs EE; two Air do not pay it."""
    g = circle(A=2, E=1)
    err = refused(
        g,
        lambda: g.submit_class_action(
            "circ", "r", "hidden_runes", {"hex": "1,0", "rank": 2}, now=NOW, roller=FixedRoller(), roll=False
        ),
        "P-MAG-2",
    )
    assert "EE" in err.message
    g.grant_mana("circ", "E", 1)
    g.submit_class_action("circ", "r", "hidden_runes", {"hex": "1,0", "rank": 2}, now=NOW, **run())
    g.collect_events()
    resolve_month(g)
    assert spent(g.collect_events()) == [("r", "EE", {"E": 2}, ["power:circ"])]
    assert sheet_of(g, "circ")["mana"] == {"A": 2}


def test_p_mag_2_hidden_runes_in_a_hex_without_an_element_cost_generic_mana():
    """P.2.12 Hidden Runes where the GM gave the hex no element: the rune's rank in any mana (decision in
    ``catalogue_rules.mana_cost``)."""
    g = circle(W=1)
    refused(
        g,
        lambda: g.submit_class_action(
            "circ", "r", "hidden_runes", {"hex": "2,0", "rank": 2}, now=NOW, roller=FixedRoller(), roll=False
        ),
        "P-MAG-2",
    )
    g.grant_mana("circ", "A", 1)
    g.submit_class_action("circ", "r", "hidden_runes", {"hex": "2,0", "rank": 2}, now=NOW, **run())
    g.collect_events()
    resolve_month(g)
    assert spent(g.collect_events()) == [("r", "2", {"A": 1, "W": 1}, ["power:circ"])]


def test_p_mag_2_a_mana_cost_that_can_no_longer_be_paid_at_its_turn_loses_the_action():
    """[003:28] costs are paid at the start of the action: mana spent elsewhere after submission leaves the
    Uplift Master unpaid, so it is lost (P-MAG-2), like a coin price (P.2.12)."""
    g = circle(A=1, W=1)
    g.submit_class_action("circ", "up", "uplift_master", {"converted_rank": 1}, now=NOW, **run())
    g.pay_mana("circ", "up", "W", now=NOW)
    g.collect_events()
    resolve_month(g)
    events = g.collect_events()
    lost = [(e.action_id, e.audience) for e in events if type(e).__name__ == "ActionLost"]
    assert lost == [("up", ["power:circ"])] and spent(events) == []
    assert "masters" not in seen(g)["catalogue"]["counters"].get("circ", {})


def cult(**mana: int) -> Game:
    g = world_game(("cult", "conspiracy", "cult"), assets=[("agent", "cult", "might", "skill", 3)])
    g.define_army_type("cult-fingers", FINGERS)
    for element, n in mana.items():
        g.grant_mana("cult", element, n)
    return g


def test_p_mag_2_rise_fingers_costs_FW():
    """P-MAG-2 / P.2.12 Rise, Fingers "Cost: FW" ([003:1230]): refused without Water; paid F and W at its turn."""
    params = {"hex": "2,0", "units_slain": 4, "type": "cult-fingers"}
    g = cult(F=2)
    err = refused(
        g,
        lambda: g.submit_class_action("cult", "x", "rise_fingers", params, now=NOW, roller=FixedRoller(), roll=False),
        "P-MAG-2",
    )
    assert "FW" in err.message
    g.grant_mana("cult", "W", 1)
    g.submit_class_action("cult", "rise", "rise_fingers", params, now=NOW, **run())
    g.collect_events()
    resolve_month(g)
    assert spent(g.collect_events()) == [("rise", "FW", {"F": 1, "W": 1}, ["power:cult"])]
    assert sheet_of(g, "cult")["mana"] == {"F": 1}
    assert "fingers-rise" in [a["army_id"] for a in seen(g)["armies"]["armies"]]


def test_p_mag_2_sacrificial_summoning_costs_FW():
    """P-MAG-2 / P.2.12 Sacrificial Summoning "Cost: FW" ([003:1224])."""
    g = cult(W=2)
    g.place_army("thralls", "Thralls", "3,0", 3, controller="cult", type_id="cult-fingers")
    params = {"army": "thralls", "type": "cult-fingers"}
    refused(
        g,
        lambda: g.submit_class_action(
            "cult", "s", "sacrificial_summoning", params, now=NOW, roller=FixedRoller(), roll=False
        ),
        "P-MAG-2",
    )
    g.grant_mana("cult", "F", 1)
    g.submit_class_action("cult", "sac", "sacrificial_summoning", params, now=NOW, **run())
    g.collect_events()
    resolve_month(g)
    assert spent(g.collect_events()) == [("sac", "FW", {"F": 1, "W": 1}, ["power:cult"])]
    assert sheet_of(g, "cult")["mana"] == {"W": 1}
