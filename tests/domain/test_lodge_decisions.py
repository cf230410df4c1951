"""The decisions of ANALYSIS L.6 (L-AMB-1 .. L-AMB-16), each shown through the typed commands on the service, with
the game options that name them (``LodgeOptions``: ranking_mode, non_spell_removal_restricted, defeat_pp, and the
Crown of the Summoner of LH-6) tested at both values."""

from __future__ import annotations

from typing import Any

import pytest

from domain.errors import RuleViolation
from domain.lodge.ruleset import (
    AdvancePhase,
    BlackRoseAct,
    CastSpell,
    CommandEvocation,
    LodgeOptions,
    PhysicalAction,
    PrepareSpells,
    ResolveFromCell,
)
from domain.lodge.state import BLACK_ROSE, DUMMY
from tests.domain.lodge_helpers import HOUND_GHOUL, WRAITH, Table


@pytest.fixture
def tables():
    made: list[Table] = []

    def table(*args: Any, **kwargs: Any) -> Table:
        made.append(Table(*args, **kwargs))
        return made[-1]

    yield table
    for t in made:
        t.close()


def _phrases(events: list[tuple[str, dict]], card: str | None = None) -> list[dict]:
    return [d for k, d in events if k == "PhraseResolved" and card in (None, d["card"])]


def _scored(events: list[tuple[str, dict]]) -> dict:
    (scored,) = [d for k, d in events if k == "RoomScored"]
    return scored


@pytest.mark.parametrize(("ranking", "cy"), [("dense", 2), ("competition", 1)])
def test_l_amb_1_after_a_tie_for_the_most_the_central_banner_follows_the_ranking_mode(tables, ranking, cy):
    """L-AMB-1: "the second-highest distinct count gets the central banner (dense ranking). Provide competition
    ranking (1-1-3) as a campaign option": the Hall (banner [4, 2, 1]) filled Ann 2, Bob 2, Cy 1."""
    t = tables(ranking_mode=ranking)
    t.prepare(ann={"I": "tremor"}, bob={"I": "tremor"})
    t.run("ann", CastSpell("ann", "I", "hall"))
    t.run("bob", CastSpell("bob", "I", "hall"))
    t.run("cy", PhysicalAction("cy", "meddle"))
    assert _scored(t.to_cleanup())["pp"] == {"ann": 3, "bob": 3, "cy": cy}


def test_l_amb_2_one_colour_alone_gains_the_leftmost_banner_plus_one_not_both(tables):
    """L-AMB-2: "R46 replaces R47: the total is leftmost + 1": Ann's 4 cubes alone in the Library ([3, 2, 1])."""
    t = tables()
    t.prepare(ann={"I": "unravel"})
    t.run("ann", CastSpell("ann", "I", "library"), PhysicalAction("ann", "walk", moves=["library"]))
    t.run("ann", PhysicalAction("ann", "meddle"))
    scored = _scored(t.to_cleanup())
    assert scored["counts"] == {"ann": 4} and scored["pp"] == {"ann": 4}
    assert t.view()["mages"]["ann"]["power_points"] == 4


def test_l_amb_3_a_tie_on_the_rightmost_banner_is_reduced_too(tables):
    """L-AMB-3: the R50 reduction applies "to any group tied at the same count. It only matters when the rightmost
    banner is 2 or more": the Vault of lodge-wide-rooms ([5, 3, 2]) filled 3, 2, 1, 1: the two 1s gain 2 - 1."""
    t = tables(("ann", "bob", "cy", "dee"), package="lodge-wide-rooms")
    t.prepare(ann={"I": "unravel"}, bob={"I": "tremor"})
    t.run("ann", CastSpell("ann", "I", "vault"))
    t.run("bob", CastSpell("bob", "I", "vault"))
    for mage in ("cy", "dee"):
        t.run(mage, PhysicalAction(mage, "walk", moves=["vault"]), PhysicalAction(mage, "meddle"))
    assert _scored(t.to_cleanup())["pp"] == {"ann": 5, "bob": 3, "cy": 1, "dee": 1}


def _defeat_cy(t: Table) -> None:
    """Ann's two Firebolts (4 Damage), then Bob's (2): Cy's 6th cube defeats her."""
    t.prepare(ann={"QUICK": "firebolt", "I": "firebolt"}, bob={"I": "firebolt"})
    t.run("ann", CastSpell("ann", "QUICK", "cy"), CastSpell("ann", "I", "cy"))
    t.run("bob", CastSpell("bob", "I", "cy"))


@pytest.mark.parametrize(("table", "pp"), [(None, {"ann": 0, "bob": 0}), ([3, 1], {"ann": 3, "bob": 1})])
def test_l_amb_4_the_defeat_power_point_table_is_off_until_the_host_sets_one(tables, table, pp):
    """L-AMB-4: "Model defeat scoring as a configurable table scored like rooms (ranked by damage dealt, with
    R38's tie rule), and leave it off until the source is found": off, Cy's defeat gains nobody Power Points; with
    the option defeat_pp [3, 1], Ann (4 Damage) gains 3 and Bob (2) 1; Bob, who dealt the last, takes the Trophy."""
    t = tables(**({"defeat_pp": table} if table else {}))
    _defeat_cy(t)
    view = t.view()
    assert {m: view["mages"][m]["power_points"] for m in ("ann", "bob")} == pp
    assert view["mages"]["bob"]["trophies"] == ["cy"] and view["mages"]["cy"]["damage"] == []


def test_l_amb_5_an_evocations_kill_credits_its_controller_in_its_colour(tables):
    """L-AMB-5: "The Trophy and any PP go to the controller, the colour of the cubes": Bob's Hound deals Cy's 6th
    Damage, a cube of Bob's, and Bob takes the Trophy and, with a defeat table, the Power Points."""
    t = tables(seed=HOUND_GHOUL, defeat_pp=[2, 1])
    t.prepare(ann={"QUICK": "firebolt", "I": "firebolt"}, bob={"QUICK": "call-beast"})
    t.run("bob", CastSpell("bob", "QUICK"))
    hound = t.evocation("hound")
    t.run("ann", CastSpell("ann", "QUICK", "cy"), CastSpell("ann", "I", "cy"), PhysicalAction("ann", "strike", "cy"))
    t.new()
    t.run("bob", CommandEvocation("bob", hound, attack="cy"))  # the 6th Damage of 6
    (hit,) = _phrases(t.new())
    assert hit["applied"] == ["1 Damage to cy"] and hit["resolver"] == "bob"
    view = t.view()
    assert view["mages"]["bob"]["trophies"] == ["cy"] and view["mages"]["ann"]["trophies"] == []
    assert (view["mages"]["ann"]["power_points"], view["mages"]["bob"]["power_points"]) == (2, 1)  # 5 cubes, 1


@pytest.mark.parametrize(("restricted", "removed"), [(True, False), (False, True)])
def test_l_amb_6_a_non_spell_effect_removes_as_the_option_says(tables, restricted, removed):
    """L-AMB-6: "Apply R17/R18 to every non-Forgotten Effect that removes another Mage's Evocation ... Make it
    configurable": the Black Rose's Uproot (not a Spell) on Bob's Forgotten Wraith, Health 6."""
    t = tables(seed=WRAITH, non_spell_removal_restricted=restricted)
    t.prepare(bob={"QUICK": "call-beast"})
    t.run("bob", CastSpell("bob", "QUICK"))
    wraith = t.evocation("wraith")
    t.run("gm", AdvancePhase("actions"))
    t.new()
    t.run("gm", BlackRoseAct("uproot", wraith))
    (p,) = _phrases(t.new())
    assert (wraith not in t.view()["evocations"]) is removed
    assert p["status"] == ("applied" if removed else "skipped")


def test_l_amb_7_the_resolving_mage_picks_among_the_maximal_subsets_and_every_skipped_unit_is_logged(tables):
    """L-AMB-7: "Apply the maximum applicable; the resolving Mage picks the subset when it is a free choice. Every
    skipped unit is logged": Heal 2 on Cy's [Red, Blue, Red] is asked (whose two cubes); Heal 5 logs 2 skipped."""
    t = tables()
    t.prepare(ann={"QUICK": "quake", "I": "mend", "II": "restoration"})
    t.run("ann", PhysicalAction("ann", "strike", "cy"))
    t.run("bob", PhysicalAction("bob", "strike", "cy"))
    t.run("ann", CastSpell("ann", "QUICK"))
    t.run("ann", CastSpell("ann", "I", "cy"))
    (prompt,) = t.view("ann")["prompts"]
    assert prompt["kind"] == "heal" and prompt["options"] == ["ann,ann", "ann,bob"]
    from domain.lodge.ruleset import AnswerChoice

    t.run("ann", AnswerChoice("ann", prompt["choice"], "ann,bob"))
    assert t.view()["mages"]["cy"]["damage"] == ["ann"]
    t.new()
    t.run("ann", CastSpell("ann", "II", "cy"))
    (p,) = _phrases(t.new())
    assert p["status"] == "partly applied" and p["skipped"] == [
        {"part": "Heal 4", "reason": "only 1 cubes healed on cy", "rule": "L-HEAL-1"}
    ]


def test_l_amb_8_a_persistent_effect_ends_at_the_earliest_of_its_card_leaving_and_clean_up(tables):
    """L-AMB-8: "It ends at the earliest of the card leaving the Mage Sheet or Clean-up step C1": Ann's Thornskin on
    Bob fires on his Damage until Cy's Forget discards it; her Thornskin on Cy lasts until Clean-up only."""
    t = tables()
    t.prepare(ann={"I": "thornskin", "II": "thornskin"}, cy={"I": "forget", "QUICK": "firebolt"}, bob={"I": "firebolt"})
    t.run("ann", CastSpell("ann", "I", "bob"), CastSpell("ann", "II", "cy"))
    t.run("cy", CastSpell("cy", "QUICK", "bob"))
    assert t.view()["mages"]["ann"]["power_points"] == 1
    t.run("cy", CastSpell("cy", "I", "ann"))  # slot I leaves Ann's sheet
    assert [tok["slot"] for tok in t.view()["persistent_tokens"]] == ["II"]
    t.run("bob", CastSpell("bob", "I", "ann"))
    assert t.view()["mages"]["ann"]["power_points"] == 1  # Bob's Damage on Ann: no Thornskin on Ann
    events = t.to_cleanup()
    assert dict(events)["PersistentTokensReturned"]["tokens"] == ["ann:II"]
    assert t.view()["persistent_tokens"] == []


def test_l_amb_9_a_persistent_effect_fires_once_per_event_and_not_on_its_own_resolution(tables):
    """L-AMB-9: "At most one trigger per Persistent Effect per triggering event. Its own resolution cannot trigger it
    again": Ann's Echo (after an Effect resolves: 1 Instability in her Room) fires once after her Insight, not again
    after its own resolution."""
    t = tables()
    t.prepare(ann={"I": "echo", "II": "insight"})
    t.run("ann", CastSpell("ann", "I", "ann"))
    t.new()
    t.run("ann", CastSpell("ann", "II"))
    resolved = [d["card"] for k, d in t.new() if k == "EffectResolved"]
    assert resolved == ["insight", "echo"] and t.view()["rooms"]["hall"]["slots"][:2] == ["ann", None]


def test_l_amb_10_a_defeat_comes_when_the_cubes_reach_health_and_excess_damage_is_not_placed(tables):
    """L-AMB-10: "Defeated when cubes >= current Health. Excess damage is not placed": the Black Rose's Wither (6
    Damage) on Cy, who has 3 of 6: 3 placed, 3 skipped, Cy defeated."""
    t = tables()
    t.prepare(ann={"I": "firebolt"})
    t.run("ann", CastSpell("ann", "I", "cy"), PhysicalAction("ann", "strike", "cy"))
    t.run("gm", AdvancePhase("actions"))
    t.new()
    t.run("gm", BlackRoseAct("wither", "cy"))
    (p,) = _phrases(t.new())
    assert p["applied"] == ["3 Damage to cy"] and p["skipped"][0] == {
        "part": "3 Damage to cy",
        "reason": "cy was defeated first",
        "rule": "L-AMB-10",
    }
    assert t.view()["black_rose"]["trophies"] == ["cy"] and t.view()["mages"]["cy"]["room"] == "cell-green"


def test_l_amb_11_the_dummy_is_a_model_only_for_targeting(tables):
    """L-AMB-11: "Treat it as a Model only for target legality. Every positional or value phrase is skipped": it is
    offered as the target of Gust and Measure; the Move and the Power Points per its Strength are skipped."""
    t = tables()
    t.prepare(ann={"I": "gust", "II": "measure"})
    choices = t.view("ann")["choices"]["spells"]
    assert DUMMY in choices["I"]["targets"] and DUMMY in choices["II"]["targets"]
    t.new()
    t.run("ann", CastSpell("ann", "I", DUMMY), CastSpell("ann", "II", DUMMY))
    move, per = _phrases(t.new())
    assert move["skipped"][0]["reason"] == "the Dummy Target ignores this (R25)"
    assert per["skipped"][0]["reason"] == "refers to a Dummy Target value (R26)"
    assert t.view()["mages"]["ann"]["power_points"] == 0


def test_l_amb_12_the_persistence_token_that_returns_is_the_persistent_token_of_its_slot(tables):
    """L-AMB-12: R9 "Persistence Tokens" and R7 "Persistent Token" are "the same component": Ann's slot-I token goes
    on Bob's sheet, comes back when Cy's Forget discards the card, and slot I's token may be placed again."""
    t = tables()
    t.prepare(ann={"I": "thornskin"}, cy={"I": "forget"})
    t.run("ann", CastSpell("ann", "I", "bob"))
    assert t.view()["persistent_tokens"] == [
        {"mage": "ann", "slot": "I", "card": "thornskin", "kind": "mage", "target": "bob"}
    ]
    t.new()
    t.run("cy", CastSpell("cy", "I", "ann"))
    changes = [c for e in t.games.visible_events(t.id, "gm")[-3:] for c in e["data"].get("changes", [])]
    assert {"op": "untoken", "mage": "ann", "slot": "I", "why": "its Spell Card was discarded"} in changes
    assert t.view()["persistent_tokens"] == []


def test_l_amb_13_a_rebuilt_room_returns_its_cubes_after_scoring_and_its_models_stay(tables):
    """L-AMB-13: "Return the cubes to their owners after scoring. Models stay put": the Library, filled by Ann's
    Unravel and Bob's Meddle while he stands in it, is scored, flipped to its B side empty, and Bob is still there."""
    t = tables()
    t.prepare(ann={"I": "unravel"})
    t.run("ann", CastSpell("ann", "I", "library"))
    t.run("bob", PhysicalAction("bob", "walk", moves=["library"]), PhysicalAction("bob", "meddle"))
    events = t.to_cleanup()
    kinds = [k for k, _ in events]
    assert kinds.index("RoomScored") < kinds.index("RoomFlipped")
    assert dict(events)["RoomFlipped"] == {"room": "library", "returned": {"ann": 3, "bob": 1}}
    view = t.view()
    assert view["rooms"]["library"] == {"side": "B", "slots": [None] * 4, "must_rebuild": False}
    assert view["mages"]["bob"]["room"] == "library"


def test_l_amb_14_the_cell_of_r10_is_the_mages_own(tables):
    """L-AMB-14: "The Mage's own Cell": Cy, placed in her own Cell, is offered Ann's Ward when Bob enters the
    Library; once she has walked out of it she may no longer resolve it (only decline)."""
    t = tables()
    t.prepare(ann={"I": "ward"}, cy={"I": "retreat"})
    t.run("ann", CastSpell("ann", "I", "library"))
    t.run("cy", CastSpell("cy", "I"))
    assert t.view("cy")["mages"]["cy"]["room"] == "cell-green"
    t.run("bob", PhysicalAction("bob", "walk", moves=["library"]))
    (offer,) = t.view("cy")["offers"]
    assert t.view("ann")["offers"] == [] and t.view("bob")["offers"] == []
    t.run("cy", PhysicalAction("cy", "walk", moves=["hall"]))
    assert t.view("cy")["choices"]["cell_offers"] == {offer["id"]: ["decline"]}
    with pytest.raises(RuleViolation) as refused:
        t.run("cy", ResolveFromCell("cy", offer["id"], True))
    assert refused.value.rule == "L-PERS-5"


def test_l_amb_15_damage_a_persistent_effect_produces_is_its_resolvers(tables):
    """L-AMB-15: "Treat any Damage an Effect produces by conversion as damage from its resolver": the Damage of Ann's
    Ward is Ann's (her cube on Bob, who enters) and so, by R39, nothing to Ann when she enters it herself."""
    t = tables()
    t.prepare(ann={"I": "ward"})
    t.run("ann", CastSpell("ann", "I", "library"))
    t.run("bob", PhysicalAction("bob", "walk", moves=["library"]))
    t.new()
    t.run("ann", PhysicalAction("ann", "walk", moves=["library"]))
    (ward,) = _phrases(t.new(), "ward")
    assert ward["skipped"][0]["rule"] == "L-IMM-1"
    view = t.view()
    assert view["mages"]["bob"]["damage"] == ["ann"] and view["mages"]["ann"]["damage"] == []


def test_l_amb_16_the_turn_and_the_game_end_are_the_rules_packages(tables):
    """L-AMB-16: the turn structure and the game end are missing from the text; the host's package gives them (LH-7):
    its phases in order, each allowing its commands (a Spell cast in the Prepare phase is refused), Clean-up after
    the last, and the end after its turns, Trophies adding their Power Points (R37)."""
    t = tables()
    package = t.view()["game"]["package"]
    assert package == {"id": "lodge-house-1", "version": "1", "house_rules": True}
    t.run("ann", PrepareSpells("ann", {"I": "doom"}))
    with pytest.raises(RuleViolation) as refused:
        t.run("ann", CastSpell("ann", "I", "cy"))
    assert refused.value.rule == "LH-7"
    t.run("gm", AdvancePhase("prepare"))
    t.run("ann", CastSpell("ann", "I", "cy"))  # Doom: Cy is defeated, Ann takes her Trophy
    phases = []
    for _ in range(3):
        phases.append(t.view()["game"]["phase"])
        for phase in ("prepare", "actions", "black-rose"):
            if t.view()["game"]["phase"] == phase:
                t.run("gm", AdvancePhase(phase))
    assert phases == ["actions", "prepare", "prepare"]
    (ended,) = [d for k, d in t.events() if k == "GameEnded"]
    assert ended["scores"] == {"ann": 2, "bob": 0, "cy": 0, BLACK_ROSE: 0}  # 1 Trophy, 2 Power Points each


def test_the_lodge_options_cite_their_decisions_and_refuse_what_they_do_not_allow(tables):
    """Each option the analysis names (PART X.7; LH-6) has its recommended default and a description citing its id;
    an unknown value is refused when the game is created, naming the option."""
    fields = LodgeOptions.model_fields
    assert (fields["ranking_mode"].default, fields["non_spell_removal_restricted"].default) == ("dense", True)
    assert fields["crown_of_the_summoner"].default is False and fields["defeat_pp"].default is None
    for name, rule in (
        ("ranking_mode", "L-AMB-1"),
        ("non_spell_removal_restricted", "L-AMB-6"),
        ("crown_of_the_summoner", "LH-6"),
        ("defeat_pp", "L-AMB-4"),
    ):
        assert rule in (fields[name].description or "")
    for options in ({"ranking_mode": "olympic"}, {"non_spell_removal_restricted": "yes"}, {"defeat_pp": [-1]}):
        with pytest.raises(RuleViolation) as refused:
            tables(**options)
        assert next(iter(options)) in (refused.value.field or "")


def test_l_amb_6_a_persistent_effect_is_a_spells_and_removes_only_as_a_spell_may_whatever_the_option(tables):
    """L-AMB-6 covers the Effects that are not Spells; a Persistent Effect is a Spell Effect ([002:R5]: "Persistent
    are a type of Spell Effects"), so R17 holds for it even with non_spell_removal_restricted off: Ann's Banishing
    Circle in the Library does not remove Bob's Forgotten Wraith when it enters."""
    t = tables(seed=WRAITH, non_spell_removal_restricted=False)
    t.prepare(ann={"I": "banishing-circle"}, bob={"QUICK": "call-beast"})
    t.run("bob", CastSpell("bob", "QUICK"))
    wraith = t.evocation("wraith")
    t.run("ann", CastSpell("ann", "I", "library"))
    t.new()
    t.run("bob", CommandEvocation("bob", wraith, moves=["library"]))
    (circle,) = _phrases(t.new(), "banishing-circle")
    assert wraith in t.view()["evocations"]
    assert circle["status"] == "skipped" and circle["skipped"][0]["rule"] == "L-EVO-5"
