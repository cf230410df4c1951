"""Conformance of the Lodge's prompts beyond ``Move 1`` steps and cubes (L.3, issue 15): a target left open
(LH-1 with L-DUMMY-1, L-DUMMY-2), an Evocation's steps and attack (L-EVO-1, L-EVO-2, L-IMM-2), a Cell offer
(L-PERS-5), a choice a triggered Persistent Effect needs (L-PERS-1), and which part of a phrase that applies
several ways (L-EFF-2). Each is offered as the legal options to its chooser alone, an answer outside them is
refused naming the rule and records nothing, and at its window's deadline the documented default applies."""

from __future__ import annotations

from datetime import timedelta

import pytest

from domain.errors import RuleViolation
from domain.ids import SYSTEM
from domain.lodge.engine import Choices
from domain.lodge.game import DECLINE, NOBODY, RESOLVE, STOP
from domain.lodge.ruleset import board_view
from domain.lodge.state import DUMMY
from domain.platform import flow
from domain.platform.commands import trial_context
from tests.domain.lodge_helpers import (
    NOW,
    arrange,
    at,
    board,
    cubes,
    lodge,
    open_windows,
    recorded,
    room_of,
    sheet,
    slot,
    summoned,
)

LATER = NOW + timedelta(days=30)


def _close_at_deadline(g, window_id: str) -> bool:
    """The platform closes a prompt's window at its deadline (``domain.platform.flow``), as the sweep does."""
    return flow.close(g, window_id, trial_context(g, SYSTEM, LATER), reason="deadline")


def offered(events: list[tuple[str, dict]]) -> list[dict]:
    return [d for k, d in events if k == "ChoiceOffered"]


def refused(g, rule: str, mage: str, choice: str, option: str) -> RuleViolation:
    before = g.version
    with pytest.raises(RuleViolation) as err:
        g.answer_choice(mage, choice, option, now=NOW)
    assert err.value.rule == rule and err.value.field == "option", err.value.message
    assert g.version == before and not g.collect_events()  # a refusal records nothing
    return err.value


# ---------------------------------------------------------------------- targets (LH-1)


def test_l_dummy_1_a_target_left_open_is_asked_among_the_legal_ones_the_dummy_included():
    """L-DUMMY-1 [002:R21]: "It is possible to choose a Dummy Target as the target of an Effect that targets
    Models"; LH-1: the player picks from the legal targets the server computes. Firebolt cast without a target
    offers every Model and the Dummy; a Room is refused (LH-1) and nothing of the spell is recorded until the
    answer: then it resolves on the chosen target."""
    g = lodge()
    slot(g, "ann", "firebolt")
    g.cast_spell("ann", "I", None, Choices(prompt=True), now=NOW)
    (o,) = offered(recorded(g))
    assert (o["kind"], o["mage"], o["rule"]) == ("target", "ann", "LH-1")
    assert o["options"] == ["ann", "bob", "cy", DUMMY] and o["default"] == DUMMY
    assert sheet(g, "ann")["slots"]["I"]["face"] == "down"  # nothing of the spell yet
    refused(g, "LH-1", "ann", o["choice"], "library")
    g.answer_choice("ann", o["choice"], "bob", now=NOW)
    events = recorded(g)
    (revealed,) = [d for k, d in events if k == "SpellRevealed"]
    assert revealed["target"] == "bob" and sheet(g, "bob")["damage"] == ["ann", "ann"]
    assert board(g)["prompts"] == [] and o["choice"] not in open_windows(g)


def test_l_dummy_1_at_the_deadline_the_target_is_the_dummy_and_the_effect_resolves_as_far_as_it_can():
    """L-DUMMY-1 [002:R22]: "The purpose of choosing it as a target is to allow Mages to cast a Spell and resolve
    as much of its Effect as possible". The documented default of a target prompt is the Dummy Target when it is
    offered: Arcane Surge's Damage and Move are skipped (R24, R25) and its Power Point is gained."""
    g = lodge()
    slot(g, "ann", "arcane-surge")
    g.cast_spell("ann", "I", None, Choices(prompt=True), now=NOW)
    (o,) = offered(recorded(g))
    assert _close_at_deadline(g, o["choice"]) is True
    events = recorded(g)
    assert [k for k, _ in events][:2] == ["ChoiceDefaulted", "WindowClosed"]
    statuses = [d["status"] for k, d in events if k == "PhraseResolved"]
    assert statuses == ["skipped", "skipped", "applied"] and sheet(g, "ann")["power_points"] == 1
    assert sheet(g, "bob")["damage"] == [] and _close_at_deadline(g, o["choice"]) is False


def test_l_dummy_2_a_target_prompt_never_offers_the_dummy_to_an_archetype_or_a_physical_attack():
    """L-DUMMY-2 [002:R23] "It cannot be chosen as the target of Effects that require a specific archetype";
    [002:R27] "It is not possible to choose a Dummy Model as the target of a Physical Attack". Tame (beasts only)
    with two beasts in play asks between them; with one it takes it; Strike asks among the Models in the Room.
    Answering the Dummy is refused naming L-DUMMY-2."""
    g = lodge()
    hound, raven = summoned(g, "bob", "hound", "hall"), summoned(g, "cy", "raven", "library")
    slot(g, "ann", "tame")
    g.cast_spell("ann", "I", None, Choices(prompt=True), now=NOW)
    (o,) = offered(recorded(g))
    assert o["options"] == [hound, raven] and o["default"] == hound
    refused(g, "L-DUMMY-2", "ann", o["choice"], DUMMY)
    g.answer_choice("ann", o["choice"], raven, now=NOW)
    assert raven not in board(g)["evocations"]  # 3 Damage on Health 2

    g = lodge()
    hound = summoned(g, "bob", "hound", "hall")
    slot(g, "ann", "tame")
    g.cast_spell("ann", "I", None, Choices(prompt=True), now=NOW)  # one legal target: no prompt
    assert offered(recorded(g)) == [] and hound not in board(g)["evocations"]

    g = lodge()
    at(g, cy="library")
    g.physical_action("ann", "strike", None, Choices(prompt=True), now=NOW)
    (o,) = offered(recorded(g))
    assert o["options"] == ["ann", "bob"] and DUMMY not in o["options"]
    refused(g, "L-DUMMY-2", "ann", o["choice"], DUMMY)
    refused(g, "LH-1", "ann", o["choice"], "cy")  # not in ann's Room


# ---------------------------------------------------------------------- Evocations


def test_l_evo_1_an_evocation_commanded_without_steps_is_asked_each_step_up_to_its_speed_or_to_stop():
    """L-EVO-1 [002:R13]: "The Evocation can perform a number of consecutive "Move 1" Effects equal to this
    value". Each step is asked among the adjacent Rooms, or ``stop``; a Room not adjacent is refused naming
    L-EVO-1; after the last step (or a stop) nothing is left to ask when no foe shares its Room."""
    g = lodge()
    at(g, ann="garden", bob="garden", cy="garden")
    ev = summoned(g, "ann", "wisp", "hall")  # Speed 2
    g.command_evocation("ann", ev, [], None, NOW, Choices(prompt=True))
    (o,) = offered(recorded(g))
    assert (o["kind"], o["rule"], o["default"]) == ("evocation-move", "L-EVO-1", STOP)
    assert o["options"][-1] == STOP and "library" in o["options"] and "sanctum" not in o["options"]
    refused(g, "L-EVO-1", "ann", o["choice"], "sanctum")
    g.answer_choice("ann", o["choice"], "library", now=NOW)
    (second,) = offered(recorded(g))
    assert second["options"] == ["hall", "observatory", STOP]
    g.answer_choice("ann", second["choice"], "observatory", now=NOW)
    assert room_of(g, ev) == "observatory" and board(g)["evocations"][ev]["acted"] is True
    assert board(g)["prompts"] == []  # Speed 2 used, nobody to attack there


def test_l_evo_2_the_attack_is_asked_among_the_foes_in_its_room_never_its_own_side_nor_the_dummy():
    """L-EVO-2 [002:R14]: "Evocations inflict damage equal to this value when attacking a target; an Evocation
    attack is considered a Physical Attack" (so never the Dummy, R27); L-IMM-2 [002:R40] "An Evocation does not
    inflict Damage on the Mage that controls it or the Evocations controlled by that Mage"."""
    g = lodge()
    golem = summoned(g, "ann", "golem", "hall")  # Speed 1, Strength 3
    own = summoned(g, "ann", "wisp", "hall")
    g.command_evocation("ann", golem, [], None, NOW, Choices(prompt=True))
    (step,) = offered(recorded(g))
    g.answer_choice("ann", step["choice"], STOP, now=NOW)
    (o,) = offered(recorded(g))
    assert (o["kind"], o["rule"]) == ("evocation-attack", "L-EVO-2")
    assert o["options"] == ["bob", "cy", NOBODY] and o["default"] == NOBODY
    refused(g, "L-IMM-2", "ann", o["choice"], "ann")
    refused(g, "L-IMM-2", "ann", o["choice"], own)
    refused(g, "L-DUMMY-2", "ann", o["choice"], DUMMY)
    g.answer_choice("ann", o["choice"], "cy", now=NOW)
    assert sheet(g, "cy")["damage"] == ["ann"] * 3 and room_of(g, golem) == "hall"


def test_l_evo_1_at_the_deadline_an_evocation_stays_attacks_nobody_and_so_does_not_act():
    """L-EVO-1 / L-EVO-2: the defaults are ``stop`` and ``none``; an Evocation that neither moves nor attacks has
    not acted, so the command lapses (recorded with its reason) and the Evocation may be commanded again."""
    g = lodge()
    golem = summoned(g, "ann", "golem", "hall")
    g.command_evocation("ann", golem, [], None, NOW, Choices(prompt=True))
    (step,) = offered(recorded(g))
    _close_at_deadline(g, step["choice"])
    (attack,) = offered(recorded(g))
    _close_at_deadline(g, attack["choice"])
    events = recorded(g)
    (lapsed,) = [d for k, d in events if k == "ChoiceLapsed"]
    assert "move or attack" in lapsed["reason"] and board(g)["evocations"][golem]["acted"] is False
    assert sheet(g, "bob")["damage"] == [] and board(g)["prompts"] == []


# ---------------------------------------------------------------------- persistent effects


def _ward_offer(g) -> dict:
    """Ann's Ward on the Library strikes Bob as he walks in; Cy, in her own Cell, is offered its effect."""
    at(g, cy="cell-green")
    slot(g, "ann", "ward", "II")
    g.cast_spell("ann", "II", "library", Choices(), now=NOW)
    g.physical_action("bob", "walk", None, Choices(moves=["library"]), now=NOW)
    (o,) = offered(recorded(g))
    return o


def test_l_pers_5_a_cell_offer_is_a_prompt_to_its_mage_alone_resolved_when_answered():
    """L-PERS-5 [002:R10]: "A Mage who is in the Cell may also resolve a Persistent Effect of a Revealed Card
    whenever the required condition occurs"; LH-5: the server offers an optional prompt when the trigger fires.
    The offer is asked of Cy alone (resolve or decline), an other answer is refused naming L-PERS-5, and
    ``resolve`` resolves the Ward from her Cell."""
    g = lodge()
    o = _ward_offer(g)
    assert (o["kind"], o["mage"], o["rule"]) == ("cell", "cy", "L-PERS-5")
    assert o["options"] == [RESOLVE, DECLINE] and o["default"] == DECLINE
    assert [p["choice"] for p in board_view(g, "cy")["prompts"]] == [o["choice"]]
    assert board_view(g, "bob")["prompts"] == [] and board_view(g, "ann")["prompts"] == []
    refused(g, "L-PERS-5", "cy", o["choice"], "maybe")
    slot(g, "cy", "insight", "QUICK")
    g.cast_spell("cy", "QUICK", None, Choices(), now=NOW)  # an open offer, being optional, blocks nothing
    assert sheet(g, "cy")["power_points"] == 1
    g.answer_choice("cy", o["choice"], RESOLVE, now=NOW)
    closed = [d for k, d in recorded(g) if k == "CellOfferClosed"]
    assert closed == [{"offer": next(iter(closed))["offer"], "mage": "cy", "accepted": True}]
    assert sheet(g, "bob")["damage"] == ["ann", "cy"] and board(g)["offers"] == [] and board(g)["prompts"] == []


def test_l_pers_5_a_cell_offer_left_unanswered_is_declined_at_its_deadline():
    """L-PERS-5 [002:R10] "may also resolve": resolving is Cy's choice, so the deadline's default declines; the
    offer closes unresolved. A ``ResolveFromCell`` command answers the offer's prompt too (its window closes)."""
    g = lodge()
    o = _ward_offer(g)
    assert _close_at_deadline(g, o["choice"]) is True
    closed = [d for k, d in recorded(g) if k == "CellOfferClosed"]
    assert [c["accepted"] for c in closed] == [False] and sheet(g, "bob")["damage"] == ["ann"]

    g = lodge()
    o = _ward_offer(g)
    (offer,) = [o["id"] for o in board(g)["offers"]]
    g.resolve_from_cell("cy", offer, True, Choices(), now=NOW)
    kinds = [k for k, _ in recorded(g)]
    assert kinds[:2] == ["ChoiceAnswered", "WindowClosed"] and "CellOfferClosed" in kinds
    assert board(g)["prompts"] == [] and o["choice"] not in open_windows(g)


def test_l_pers_1_a_choice_a_triggered_persistent_effect_needs_is_asked_of_its_token_owner():
    """L-PERS-1 [002:R6]: "Persistent Effects apply whenever the condition required in their text is met". Bob's
    Regrowth (Heal 1 on him when he is damaged) fires inside Ann's Firebolt; which cube it heals is Bob's choice
    (L-HEAL-1), asked of Bob, and Ann's spell waits for it (L-EFF-1): nothing is recorded until he answers."""
    g = lodge()
    slot(g, "bob", "regrowth", "II")
    g.cast_spell("bob", "II", "bob", Choices(), now=NOW)
    cubes(g, "bob", "cy")
    slot(g, "ann", "firebolt")
    slot(g, "ann", "insight", "QUICK")
    recorded(g)
    g.cast_spell("ann", "I", "bob", Choices(), now=NOW)
    (o,) = offered(recorded(g))
    assert (o["kind"], o["mage"], o["rule"]) == ("heal", "bob", "L-HEAL-1")
    assert o["options"] == ["ann", "cy"] and o["default"] == "ann"
    assert sheet(g, "bob")["damage"] == ["cy"]  # the Firebolt waits too
    assert board_view(g, "ann")["prompts"] == [] and len(board_view(g, "bob")["prompts"]) == 1
    before = g.version
    with pytest.raises(RuleViolation, match="bob's to answer") as err:
        g.cast_spell("ann", "QUICK", None, Choices(), now=NOW)
    assert err.value.rule == "L-EFF-1" and g.version == before
    g.collect_events()
    g.answer_choice("bob", o["choice"], "cy", now=NOW)
    assert sheet(g, "bob")["damage"] == ["ann", "ann"]
    resolved = [d["card"] for k, d in recorded(g) if k == "EffectResolved"]
    assert resolved == ["firebolt", "regrowth"]


# ---------------------------------------------------------------------- L-EFF: a phrase that applies several ways


def test_l_eff_2_which_trophy_a_take_phrase_takes_is_the_resolvers_choice_among_the_owners_held():
    """L-EFF-2 [002:R3] with LH-4 / L-AMB-7: where a phrase applies in full several ways, the resolving Mage
    picks. Plunder ("take a Trophy Token") on Bob, who holds Trophies of Cy and Dee, asks whose; the default is
    the one Bob gained last; an owner he holds none of is refused naming L-EFF-2."""
    g = lodge(mages=("ann", "bob", "cy", "dee"))
    arrange(g, {"op": "trophy", "to": "bob", "of": "cy"}, {"op": "trophy", "to": "bob", "of": "dee"})
    slot(g, "ann", "plunder")
    g.cast_spell("ann", "I", "bob", Choices(prompt=True), now=NOW)
    (o,) = offered(recorded(g))
    assert (o["kind"], o["rule"], o["options"], o["default"]) == ("trophy", "L-EFF-2", ["cy", "dee"], "dee")
    refused(g, "L-EFF-2", "ann", o["choice"], "ann")
    g.answer_choice("ann", o["choice"], "cy", now=NOW)
    assert sheet(g, "ann")["trophies"] == ["cy"] and sheet(g, "bob")["trophies"] == ["dee"]


def test_l_dummy_1_a_room_target_left_open_defaults_to_the_casters_room_at_the_deadline():
    """LH-1 (no Dummy for a Room, L-DUMMY-1 [002:R21] "an Effect that targets Models"): Tremor cast without a
    target asks among the Rooms, the Dummy not among them; at the deadline it takes the Room Ann stands in."""
    g = lodge()
    at(g, ann="crypt")
    slot(g, "ann", "tremor")
    g.cast_spell("ann", "I", None, Choices(prompt=True), now=NOW)
    (o,) = offered(recorded(g))
    assert DUMMY not in o["options"] and "library" in o["options"] and o["default"] == "crypt"
    refused(g, "L-DUMMY-1", "ann", o["choice"], DUMMY)
    _close_at_deadline(g, o["choice"])
    assert board(g)["rooms"]["crypt"]["slots"] == ["ann", "ann", None, None]


def test_l_pers_5_a_cell_offer_still_open_at_clean_up_lapses_and_its_window_closes():
    """L-PERS-5 [002:R10] with LH-5 and L-AMB-8: the Persistent Effect offered lasts no longer than Clean-up's C1
    ([002:R41] "All Mages then discard each Persistent Token"), so its prompt is declined then, the lapse
    recorded with the rule, and the window closed; nothing waits for Cy in turn 2."""
    g = lodge()
    o = _ward_offer(g)
    g.advance(now=NOW)  # actions -> black-rose
    g.advance(now=NOW)  # black-rose -> Clean-up -> turn 2
    events = recorded(g)
    (lapsed,) = [d for k, d in events if k == "ChoiceLapsed"]
    assert lapsed["choice"] == o["choice"] and lapsed["rule"] == "L-PERS-5"
    assert [d["option"] for k, d in events if k == "ChoiceDefaulted"] == [DECLINE]
    assert board(g)["prompts"] == [] and board(g)["offers"] == []
    kinds = [k for k, _ in events]
    at_lapse = kinds.index("ChoiceDefaulted")
    assert kinds[at_lapse : at_lapse + 3] == ["ChoiceDefaulted", "WindowClosed", "ChoiceLapsed"]
    assert o["choice"] not in open_windows(g)
    assert board_view(g, "cy")["prompts"] == [] and sheet(g, "bob")["damage"] == ["ann"]


def test_l_pers_5_a_choice_inside_an_effect_resolved_from_a_cell_is_asked_of_the_mage_in_the_cell():
    """L-PERS-5 [002:R10] with L-HEAL-1 [002:R34] "you can choose any color combination of Damage Cubes to Heal":
    Bob's revealed Regrowth fires when Ann's Firebolt damages him; Bob picks whose cube it heals, then Cy, in her
    own Cell, is offered the same effect, accepts, and picks whose cube her resolution heals."""
    g = lodge()
    at(g, cy="cell-green")
    slot(g, "bob", "regrowth", "II")
    g.cast_spell("bob", "II", "bob", Choices(), now=NOW)
    cubes(g, "bob", "cy", "cy")
    slot(g, "ann", "firebolt")
    recorded(g)
    g.cast_spell("ann", "I", "bob", Choices(), now=NOW)
    (bobs,) = offered(recorded(g))
    assert (bobs["mage"], bobs["kind"]) == ("bob", "heal")
    g.answer_choice("bob", bobs["choice"], "cy", now=NOW)
    assert sheet(g, "bob")["damage"] == ["cy", "ann", "ann"]
    (cell,) = offered(recorded(g))
    assert (cell["mage"], cell["kind"], cell["options"]) == ("cy", "cell", [RESOLVE, DECLINE])
    g.answer_choice("cy", cell["choice"], RESOLVE, now=NOW)
    (heal,) = offered(recorded(g))
    assert (heal["mage"], heal["kind"], heal["options"]) == ("cy", "heal", ["ann", "cy"])
    assert board(g)["offers"]  # the offer closes with its resolution, which waits for Cy's answer
    g.answer_choice("cy", heal["choice"], "ann", now=NOW)
    assert sheet(g, "bob")["damage"] == ["cy", "ann"] and board(g)["offers"] == [] and board(g)["prompts"] == []
