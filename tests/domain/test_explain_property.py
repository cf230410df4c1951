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


# ---------------------------------------------------------------------- the covenant game's Yearly Reckoning

SEATS = ("ann", "bob", "cy", "dee")


@st.composite
def years(draw):
    """A Yearly Reckoning's terms: 2 to 4 covenants, each with a Winter surplus, some of it kept unconverted, curse 6
    or not, out of play or not, a score and tribute owed to the lord or to another covenant; the campaign's flags."""
    seats = list(SEATS[: draw(st.integers(min_value=2, max_value=4))])
    small = st.integers(min_value=0, max_value=12)
    covenants = {}
    for seat in seats:
        gold, vis = draw(small), draw(small)
        owed = st.fixed_dictionaries(
            {"points": st.integers(min_value=1, max_value=3), "to": st.sampled_from([None, *seats])}
        )
        covenants[seat] = {
            "provision": draw(small),
            "gold": gold,
            "vis": vis,
            "kept_gold": draw(st.integers(min_value=0, max_value=gold)),
            "kept_vis": draw(st.integers(min_value=0, max_value=vis)),
            "curse6": draw(st.booleans()),
            "out": draw(st.booleans()),
            "score": draw(st.integers(min_value=0, max_value=30)),
            "tribute": [t for t in draw(st.lists(owed, max_size=3)) if t["to"] != seat],
        }
    return {
        "covenants": covenants,
        "starting": draw(st.sampled_from(seats)),
        "target": draw(st.integers(min_value=5, max_value=30)),
        "consumes": draw(st.booleans()),
        "tiebreak": draw(st.booleans()),
    }


def reckoned(x: dict) -> dict:
    """The YearReckoned a game records for these terms, computed as ``reckoning._yearly_reckoning`` computes it, from
    the rules' own functions (A-RECK-3..6, A-AMB-8, A-AMB-9, A-ORDER-2)."""
    from domain.covenants import rules as covenant_rules

    covenants, order = x["covenants"], list(x["covenants"])
    points, spent = {}, {}
    for seat, c in covenants.items():
        gold, vis = c["gold"] - c["kept_gold"], c["vis"] - c["kept_vis"]
        points[seat] = covenant_rules.yearly_points(c["provision"], gold, vis, curse6=c["curse6"])
        spent[seat] = {"gold": gold // 2 * 2, "vis": vis} if x["consumes"] else {"gold": 0, "vis": 0}
        if c["out"]:
            points[seat], spent[seat] = 0, {"gold": 0, "vis": 0}
    scores = {seat: c["score"] for seat, c in covenants.items()}
    gained = dict.fromkeys(order, 0)
    for seat, c in covenants.items():
        owed = [] if c["out"] else c["tribute"]
        scores[seat], from_year, from_score = covenant_rules.apply_tribute(
            points[seat], scores[seat], sum(t["points"] for t in owed)
        )
        paid = from_year + from_score
        for t in owed:
            take = min(t["points"], paid)
            paid -= take
            if t["to"] is not None:
                gained[t["to"]] += take
    scores = {seat: scores[seat] + gained[seat] for seat in order}
    surplus = None
    if x["tiebreak"]:
        surplus = {k: c["gold"] - spent[k]["gold"] + 2 * (c["vis"] - spent[k]["vis"]) for k, c in covenants.items()}
    won = covenant_rules.winners(scores, x["target"], surplus=surplus)
    nxt = None if won else covenant_rules.next_starting_player(order, scores, x["starting"])
    seats = {
        seat: {
            **c,
            "tribute": [] if c["out"] else c["tribute"],
            "unconverted": None if surplus is None else surplus[seat],
        }
        for seat, c in covenants.items()
    }
    terms = {
        "year": 3,
        "target": x["target"],
        "consumes": x["consumes"],
        "order": [*covenant_rules.clockwise(order, x["starting"])[1:], x["starting"]],
        "seats": seats,
    }
    return {"points": points, "scores": scores, "spent": spent, "winners": won, "starting": nxt, "terms": terms}


@settings(max_examples=300, deadline=None)
@given(years())
def test_a_reck_3_to_6_a_reckonings_derivation_recomputes_its_points_scores_and_winners_from_its_terms(x):
    from domain.covenants.explain import derive as derive_covenants

    data = reckoned(x)
    events = [{"seq": 1, "type": "CovenantGameCreated", "data": {}}, {"seq": 2, "type": "YearReckoned", "data": data}]
    d = derive_covenants(events)["reckoning:3"]
    assert explain.recomputes(d) == []
    published = d["result"]["published"]
    assert published["winners"] == data["winners"] and published["starting"] == data["starting"]
    for seat in x["covenants"]:
        assert published[f"points:{seat}"] == data["points"][seat]
        assert published[f"score:{seat}"] == data["scores"][seat]
        assert published[f"gold spent:{seat}"] == data["spent"][seat]["gold"]
    # points and scores are computed from the surplus, the tribute and the scores before: none is read as published
    given = {s["id"] for s in d["steps"] if s["op"] == "given"}
    for seat, c in x["covenants"].items():
        assert f"{seat}-score" not in given and (c["out"] or f"{seat}-points" not in given)
    in_play = not all(c["out"] for c in x["covenants"].values())
    assert {s["rule"] for s in d["steps"]} >= {"A-RECK-4", "A-RECK-5", *(["A-RECK-3"] if in_play else [])}


def test_a_reckoning_whose_published_score_was_changed_does_not_recompute():
    x = {
        "covenants": {
            "ann": {
                **dict.fromkeys(("provision", "kept_gold", "kept_vis", "score"), 0),
                "gold": 5,
                "vis": 2,
                "curse6": False,
                "out": False,
                "tribute": [{"points": 1, "to": "bob"}],
            },  # fmt: skip
            "bob": {
                **dict.fromkeys(("provision", "gold", "vis", "kept_gold", "kept_vis"), 0),
                "score": 7,
                "curse6": False,
                "out": False,
                "tribute": [],
            },  # fmt: skip
        },
        "starting": "ann",
        "target": 25,
        "consumes": True,
        "tiebreak": False,
    }
    from domain.covenants.explain import derive as derive_covenants

    data = reckoned(x)
    assert data["scores"] == {"ann": 3, "bob": 8}  # 2 + 2 points, 1 of them paid to bob
    events = [{"seq": 1, "type": "YearReckoned", "data": data}]
    assert explain.recomputes(derive_covenants(events)["reckoning:3"]) == []
    data["scores"]["bob"] = 9
    wrong = explain.recomputes(derive_covenants(events)["reckoning:3"])
    assert wrong and "score:bob" in wrong[0]
