"""Results that explain themselves (issue 29): worked derivations, each recomputing its published result from its
own terms (``domain.platform.explain.recomputes``) and showing each viewer only what their events carry."""

from __future__ import annotations

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from domain.covenants.commands import ChooseArt, ResolveCertamen, SealBid
from domain.platform import explain
from domain.platform import ruleset as registry
from tests.contract.drivers import DRIVERS
from tests.contract.test_explain_contract import leaks
from tests.covenants.play import pass_main
from tests.domain.test_conformance_covenants_rules import certamen_table


def derived(games, game_id: str, viewer: str, name: str) -> tuple[dict, list[dict]]:
    events = games.visible_events(game_id, viewer, limit=100_000)
    return explain.derivations(registry.get(name), events), events


def test_a_cert_3_a_certamen_derivation_opens_both_bids_and_names_the_one_highest_score():
    """A-CERT-3: score = rating + Arts + vis spent; equal scores, no winner. A-AMB-7: the bids are sealed, then
    opened against their commitments."""
    _, t, cid = certamen_table()
    pass_main(t)
    t.run("ann", ChooseArt("ann", cid, "Cr"))
    t.run("bob", ChooseArt("bob", cid, "Im"))
    t.run("ann", SealBid("ann", cid, 3))
    t.run("bob", SealBid("bob", cid, 1))
    t.run("ann", ResolveCertamen("ann", cid))
    for viewer in ("gm", "ann", "bob", "cy"):  # a Certamen's resolution is public (A.4)
        found, events = derived(t.games, t.game_id, viewer, "covenants")
        d = found[f"certamen:{cid}"]
        assert explain.recomputes(d) == [] and leaks(d, events) == []
        steps = {s["id"]: s for s in d["steps"]}
        assert steps["ann-score"]["value"] == 6 and steps["bob-score"]["value"] == 3
        assert steps["ann-vis"]["value"] == 3 and "matches its commitment" in steps["ann-vis"]["text"]
        assert d["result"]["published"] == {"winner": "ann"}


def test_recomputing_catches_a_changed_term():
    """A derivation whose published outcome does not follow from its terms is caught (the property's teeth)."""
    _, t, cid = certamen_table()
    pass_main(t)
    t.run("ann", ChooseArt("ann", cid, "Cr"))
    t.run("bob", ChooseArt("bob", cid, "Im"))
    t.run("ann", SealBid("ann", cid, 3))
    t.run("bob", SealBid("bob", cid, 1))
    t.run("ann", ResolveCertamen("ann", cid))
    d = derived(t.games, t.game_id, "gm", "covenants")[0][f"certamen:{cid}"]
    d["steps"][-1]["value"] = "bob"
    assert explain.recomputes(d)
    first_die = next(x for x in derived(t.games, t.game_id, "gm", "covenants")[0].values() if x["kind"] == "die")
    first_die["dice"][0]["faces"] = [f + 1 for f in first_die["dice"][0]["faces"]]
    assert explain.recomputes(first_die)


def test_l_eff_2_a_lodge_effect_shows_each_phrase_and_why_a_part_was_skipped():
    """L-EFF-2: each phrase applied, partly applied or skipped, with the reason and rule of each skip; L-EFF-3: the
    effect resolved even when nothing applied."""
    from application.service import Games

    games = Games()
    try:
        played = DRIVERS["lodge"].play(games)
        found, events = derived(games, played.game_id, "ann", "lodge")
        tremor = next(d for d in found.values() if d["title"].startswith("tremor"))
        assert explain.recomputes(tremor) == [] and leaks(tremor, events) == []
        assert tremor["result"]["published"] == {"statuses": ["partly applied"]}
        assert any(s["rule"] == "L-INST-1" and "no vacant slot" in s["text"] for s in tremor["steps"])
        nothing = next(d for d in found.values() if d["result"]["published"] == {"statuses": []})
        assert explain.recomputes(nothing) == []
    finally:
        games.close()


def test_a_reck_3_a_yearly_reckoning_turns_each_surplus_into_points_and_names_the_next_starter():
    """A-RECK-3 "points = ⌊P/4⌋ + ⌊G/2⌋ + V" of the Winter surplus (A-AMB-9: the conversion spends the gold and vis
    it converts); A-RECK-5: nobody reached 25; A-ORDER-2: the lowest score starts, among equals the first clockwise
    after the starter. Ann, seated with 14 points, has a surplus of 1 provision, 4 gold and 4 vis: 0 + 2 + 4 = 6."""
    from tests.domain.test_covenants_worked_examples import Dice, seated, skip_season

    t = seated(Dice(), {"ann": 14})
    for _ in range(4):
        skip_season(t)
    for viewer in ("gm", "ann", "bob", "cy"):  # a Reckoning is public (A.4)
        found, events = derived(t.games, t.game_id, viewer, "covenants")
        d = found["reckoning:1"]
        assert explain.recomputes(d) == [] and leaks(d, events) == []
        steps = {s["id"]: s for s in d["steps"]}
        assert [steps[f"ann-{k}"]["value"] for k in ("provision", "gold", "vis")] == [1, 4, 4]
        assert steps["ann-provision-points"]["op"] == "floor_div" and steps["ann-provision-points"]["value"] == 0
        assert steps["ann-points"]["args"] == ["@ann-provision-points", "@ann-gold-points", "@ann-vis"]
        published = d["result"]["published"]
        assert published["points:ann"] == 6 and published["score:ann"] == 20 and published["gold spent:ann"] == 4
        assert published["winners"] == [] and published["starting"] == "bob"
        assert steps["starting"]["rule"] == "A-ORDER-2" and steps["winners"]["rule"] == "A-RECK-5"


def test_a_result_is_derived_from_the_viewers_events_each_once_whether_or_not_they_reach_back_to_the_first():
    """``api.routes.results.scoped`` reads a viewer's timeline newest first a group of phases at a time and puts the
    game's first event (its options) before the group: once, also when the group reaches back to it."""
    from api.routes.results import scoped

    class Timeline:
        def __init__(self, items: list[dict]) -> None:
            self.items = items

        def timeline(self, key, viewer, after=0, limit=500, *, newest_first=False, before=None):
            if newest_first:
                return [i for i in reversed(self.items) if before is None or i["seq"] < before][:limit]
            return [i for i in self.items if i["seq"] > after][:limit]

        def rules_told(self, key, viewer):
            return [i for i in self.items if i.get("type") == "RulesChangeTold"]

    class Counting:
        result_scope = None

        @staticmethod
        def derive(events):
            seqs = [e["seq"] for e in events]
            return {"count": {"steps": [], "seqs": seqs}}

    items = [{"seq": n, "type": "E", "phase": "p", "data": {}} for n in range(1, 6)]
    assert scoped(Timeline(items), Counting, "g", "ann", "count")["seqs"] == [1, 2, 3, 4, 5]


def test_a_reck_1_a_seasons_support_shows_what_each_card_made_and_cost_and_what_is_held_after():
    """A-RECK-1: each season a covenant's cards produce, and it pays the upkeep of every card it keeps. The
    derivation of each ``SupportAllocated`` recomputes what was made, paid and held after from what it held before
    and each card's production and upkeep as recorded, for every viewer (a season's support is public, A.4)."""
    from tests.domain.test_covenants_worked_examples import Dice, seated, skip_season

    t = seated(Dice(), {"ann": 14})
    skip_season(t)
    gm_events = t.games.visible_events(t.game_id, "gm", limit=100_000)
    supports = [e for e in gm_events if e["type"] == "SupportAllocated"]
    assert supports and all(e["data"]["terms"] for e in supports)
    for viewer in ("gm", "ann", "bob", "cy"):
        found, events = derived(t.games, t.game_id, viewer, "covenants")
        for e in supports:
            data = e["data"]
            terms = data["terms"]
            d = found[f"support:{terms['year']}:{terms['season']}:{data['seat']}"]
            assert explain.recomputes(d) == [] and leaks(d, events) == []
            steps = {s["id"]: s for s in d["steps"]}
            for r in ("provision", "gold", "vis"):
                assert steps[f"{r}-before"]["value"] == terms["before"][r]
                assert (
                    steps[f"{r}-after"]["value"]
                    == data["after"][r]
                    == (terms["before"][r] + data["made"][r] - data["paid"][r])
                )
                assert steps[f"{r}-after"]["rule"] == "A-RECK-1"
            makers = [s for s in d["steps"] if "-made-" in s["id"]]
            assert makers and all(s["op"] == "given" for s in makers)  # each card's production, named
            assert any(c["name"] in s["text"] for c in terms["cards"] for s in makers)


def test_a_reck_1_a_support_whose_recorded_upkeep_was_changed_does_not_recompute():
    """The support's derivation has teeth: a card's upkeep changed in the record no longer gives what was held."""
    from tests.domain.test_covenants_worked_examples import Dice, seated, skip_season

    t = seated(Dice(), {"ann": 14})
    skip_season(t)
    found, _ = derived(t.games, t.game_id, "gm", "covenants")
    d = next(x for x in found.values() if x["kind"] == "support" and any("-upkeep-" in s["id"] for s in x["steps"]))
    assert explain.recomputes(d) == []
    cost = next(s for s in d["steps"] if "-upkeep-" in s["id"])
    cost["value"] += 1
    assert explain.recomputes(d)
