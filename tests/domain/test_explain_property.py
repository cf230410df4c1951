"""Property (issue 29): for any pool, conversions, asset modes, undercut, resistance and difficulty, the derivation
of an action's result computes from its own dice and terms exactly what the rules computed (``rules.tally``,
``rules.net_successes``, ``rules.outcome``): P-DICE-3 (5s and 6s, converted 3s and 4s), P-DICE-6 (assured), P-DICE-7
and P-AMB-5 (critical, under either critical mode), P-ASSET-13 (undercut), P-RES-4 and P-DICE-4. The events are
built as Resolution records them; no term is taken "as published" to make the sum come out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from domain.platform import explain
from domain.powers import rules
from domain.powers.explain import derive

faces = st.integers(min_value=1, max_value=6)
asset = st.fixed_dictionaries(
    {
        "rank": st.integers(min_value=1, max_value=4),
        "mode": st.sampled_from(["normal", "assured", "critical"]),
        "undercut": st.booleans(),
    }
)


@st.composite
def actions(draw):
    assets = draw(st.lists(asset, min_size=1, max_size=4))
    dice: list[dict] = []
    for n, a in enumerate(assets):
        rolled = [] if a["mode"] == "assured" else draw(st.lists(faces, min_size=a["rank"], max_size=a["rank"]))
        for f in rolled:
            dice.append({"face": f, "asset": f"as{n}", "converted": False, "removed": a["undercut"]})
    convertible = [i for i, d in enumerate(dice) if d["face"] in (3, 4)]
    converted = sorted(draw(st.sets(st.sampled_from(convertible))) if convertible else [])
    return {
        "assets": assets,
        "dice": dice,
        "converted": converted,
        "critical_mode": draw(st.sampled_from(["rolled", "rank"])),
        "resisted": draw(st.integers(min_value=0, max_value=6)),
        "difficulty": draw(st.integers(min_value=0, max_value=8)),
    }


def events_of(x: dict) -> tuple[list[dict], dict]:
    """The owner's events of one resolved action, as Resolution records them, and what it published."""
    pool_assets = [
        {"asset_id": f"as{n}", "name": f"asset {n}", "cls": "skill", "rank": a["rank"], "mode": a["mode"]}
        for n, a in enumerate(x["assets"])
    ]
    for i in x["converted"]:
        x["dice"][i]["converted"] = True
    groups = []
    for n, a in enumerate(x["assets"]):
        if a["undercut"]:
            continue
        mine = [(d["face"], d["converted"]) for d in x["dice"] if d["asset"] == f"as{n}"]
        groups.append((a["rank"], a["mode"], mine))
    t = rules.tally(groups, critical_mode=x["critical_mode"])
    net = rules.net_successes(t.successes, [x["resisted"]])
    ok, excess = rules.outcome(net, x["difficulty"])
    pool = {
        "roll_no": 7,
        "commitment": "c" * 64,
        "assets": pool_assets,
        "locked": False,
        "dice": [{**d, "converted": False, "removed": False} for d in x["dice"]],
    }
    events = [
        {"seq": 1, "type": "GameCreated", "data": {"options": {"critical_mode": x["critical_mode"]}}},
        {"seq": 2, "type": "ActionSubmitted", "data": {"action_id": "a1", "title": "T", "power_id": "p"}},
        {"seq": 3, "type": "DiceRolled", "data": {"action_id": "a1", "pool": pool}},
        {"seq": 4, "type": "ConversionsLocked", "data": {"action_id": "a1", "converted": x["converted"]}},
    ]
    seq = 5
    for n, a in enumerate(x["assets"]):
        if a["undercut"]:
            lost = [i for i, d in enumerate(x["dice"]) if d["asset"] == f"as{n}"]
            events.append(
                {"seq": seq, "type": "AssetUndercut", "data": {"action_id": "a1", "asset_id": f"as{n}", "dice": lost}}
            )
            seq += 1
    published = {"successes": t.successes, "net": net, "difficulty": x["difficulty"], "success": ok, "excess": excess}
    data = {"action_id": "a1", **published, "resisted": x["resisted"], "details": {}, "tier": None}
    events.append({"seq": seq, "type": "ActionResolved", "data": data})
    return events, published


@settings(max_examples=300, deadline=None)
@given(actions())
def test_p_dice_3_a_derivation_recomputes_the_rules_result_from_its_own_dice(x):
    events, published = events_of(x)
    d = derive(events)["action:a1"]
    assert explain.recomputes(d) == []
    assert d["result"]["published"] == published
    # the successes come from the dice and the assets' modes alone: nothing was added to make the sum come out
    assert not any(s["id"] in ("added", "published") for s in d["steps"]), d["steps"]
