"""Conformance of the Lodge's effect engine: L-EFF (R1-R4), L-PERS (R5-R10), L-EVO (R11-R20), L-DUMMY
(R21-R27) and L-MOVE (R28-R30), one test per rule id, named after it (ANALYSIS Part L)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from domain.errors import RuleViolation
from domain.lodge.catalogue import Card, default_catalogue
from domain.lodge.engine import Choices
from domain.lodge.game import LodgeGame
from domain.lodge.ruleset import board_view
from domain.lodge.state import DUMMY
from tests.domain.lodge_helpers import (
    NOW,
    arrange,
    at,
    board,
    kinds,
    lodge,
    phrases,
    recorded,
    reserve,
    room_of,
    sheet,
    slot,
    summoned,
    tokens,
)


def cast(g, mage, card, target=None, where="I", **choices):
    slot(g, mage, card, where)
    g.cast_spell(mage, where, target, Choices(**choices))
    return recorded(g)


def refused(g, rule, fn, *args, says=None):
    before = g.version
    with pytest.raises(RuleViolation, match=says) as err:
        fn(*args)
    assert err.value.rule == rule, err.value.message
    assert g.version == before and not g.collect_events()  # a refusal records nothing
    return err.value


# ---------------------------------------------------------------------- L-EFF


def test_l_eff_1_an_effect_is_an_ordered_list_of_phrases_from_the_card_data():
    """L-EFF-1 [002:R1]: "Most game components of the game and each Physical Action have Effects, which are
    composed of one or more icons and/or sentences that allow you to influence the game"."""
    surge = default_catalogue().cards["arcane-surge"]
    assert [p.op for p in surge.phrases] == ["damage", "move", "gain_pp"]
    assert all(c.phrases or c.persistent for c in default_catalogue().physical_actions)
    with pytest.raises(ValidationError, match="teleport"):
        Card.model_validate({"id": "x", "name": "X", "target": {"kind": "none"}, "phrases": [{"op": "teleport"}]})
    with pytest.raises(ValidationError, match="needs an amount"):
        Card.model_validate({"id": "x", "name": "X", "target": {"kind": "none"}, "phrases": [{"op": "damage"}]})
    g = lodge()
    at(g, bob="hall")
    events = cast(g, "ann", "arcane-surge", "bob", moves=["library"])
    done = phrases(events)
    assert [(p["index"], p["phrase"]["op"]) for p in done] == [(0, "damage"), (1, "move"), (2, "gain_pp")]
    assert done[0]["words"] == "Inflict 2 Damage on the target"


def test_l_eff_2_phrases_in_order_each_applied_in_full_or_its_parts_skipped_with_the_reason():
    """L-EFF-2 [002:R2] "Each sentence that makes up an Effect must be applied in full, beginning with the first
    and proceeding in order"; [002:R3] "If a phrase cannot be applied in full, the parts that cannot be applied
    (even all of them) are skipped and you continue with the next phrase"."""
    g = lodge()
    arrange(g, *({"op": "instability", "room": "library", "slot": i, "by": "bob"} for i in range(3)))
    events = cast(g, "ann", "tremor", "library")
    (p,) = phrases(events)
    assert p["status"] == "partly applied" and p["applied"] == ["1 Instability in library"]
    assert p["skipped"] == [{"part": "1 Instability", "reason": "no vacant slot in library", "rule": "L-INST-1"}]
    g = lodge()
    events = cast(g, "ann", "arcane-surge", DUMMY)  # the first two skipped, the third still applied
    assert [p["status"] for p in phrases(events)] == ["skipped", "skipped", "applied"]
    assert kinds(events)[-1] == "EffectResolved"


def test_l_eff_3_an_effect_is_resolved_even_if_nothing_applied_and_after_resolution_triggers_fire():
    """L-EFF-3 [002:R4]: "An Effect is considered resolved when an attempt has been made to apply all the
    phrases that make up the Effect, even if none of them could be applied"."""
    g = lodge()
    at(g, ann="crypt")
    cast(g, "ann", "echo", "ann", where="II")  # Echo: after an Effect resolves, 1 Instability in the caster's Room
    events = cast(g, "bob", "firebolt", DUMMY)
    assert [p["status"] for p in phrases(events)][0] == "skipped"
    resolved = [d for k, d in events if k == "EffectResolved"]
    assert resolved[0]["card"] == "firebolt" and resolved[0]["statuses"] == ["skipped"]
    assert resolved[1]["card"] == "echo" and resolved[1]["trigger"]["on"] == "effect_resolved"
    assert board(g)["rooms"]["crypt"]["slots"] == ["ann", None, None, None]  # once: not after its own casting


# ---------------------------------------------------------------------- L-PERS


def test_l_pers_1_a_persistent_effect_applies_whenever_its_condition_is_met():
    """L-PERS-1 [002:R6]: "Persistent Effects apply whenever the condition required in their text is met"."""
    g = lodge()
    cast(g, "ann", "ward", "library", where="II")
    g.physical_action("bob", "walk", None, Choices(moves=["library"]))
    g.physical_action("cy", "walk", None, Choices(moves=["library"]))
    assert sheet(g, "bob")["damage"] == ["ann"] and sheet(g, "cy")["damage"] == ["ann"]
    fired = [d for k, d in recorded(g) if k == "EffectResolved" and d["trigger"]]
    assert [d["target"] for d in fired] == ["bob", "cy"]


def test_l_pers_2_one_persistent_token_per_spell_slot():
    """L-PERS-2 [002:R7]: "...places on the target their Persistent Token corresponding to the Spell Slot
    ([QUICK], I, II or III) in which that Spell is located"."""
    g = lodge()
    arrange(g, {"op": "token", "mage": "ann", "slot": "II", "card": "ward", "kind": "room", "target": "crypt"})
    events = cast(g, "ann", "ward", "library", where="II")
    assert (
        "PersistentSkipped",
        {
            "mage": "ann",
            "slot": "II",
            "card": "ward",
            "reason": "the Persistent Token of slot II is already in play (L-PERS-2)",
        },
    ) in events
    assert list(tokens(g)) == ["ann:II"] and tokens(g)["ann:II"]["target"] == "crypt"
    cast(g, "ann", "thornskin", "ann", where="III")
    assert sorted(tokens(g)) == ["ann:II", "ann:III"]


def test_l_pers_3_the_token_goes_on_the_mage_sheet_the_evocation_card_or_in_the_room():
    """L-PERS-3 [002:R8]: "If the target is a Mage (including themselves), they place the Persistent Token on
    their Mage Sheet; if it is an Evocation, they place it on their Evocation Card; if it is a Room, they place
    it in the Room"."""
    g = lodge()
    ev = summoned(g, "bob", "hound", "hall")
    places = []
    for card, target, where in (("ward", "library", "I"), ("thornskin", "bob", "II"), ("feedback", ev, "III")):
        places += [d["on"] for k, d in cast(g, "ann", card, target, where=where) if k == "PersistentPlaced"]
    assert places == ["in library", "on the Mage Sheet of bob", f"on the card of {ev}"]
    assert {t["kind"] for t in tokens(g).values()} == {"room", "mage", "evocation"}


def test_l_pers_4_the_effect_ends_when_its_spell_card_leaves_the_mage_sheet():
    """L-PERS-4 [002:R9]: "The Persistent Effect ends when the Spell Card is removed from the Mage Sheet for any
    reason; when that happens, the Mage regains their Persistence Tokens"."""
    g = lodge()
    cast(g, "ann", "thornskin", "ann", where="I")  # ann gains 1 PP whenever she is damaged
    cast(g, "bob", "firebolt", "ann", where="I")
    assert sheet(g, "ann")["power_points"] == 1
    slot(g, "bob", "forget", "II")
    g.cast_spell("bob", "II", "ann", Choices())  # discards ann's slot I
    changes = [c for e in g.collect_events() for c in getattr(e, "changes", [])]
    assert {"op": "untoken", "mage": "ann", "slot": "I", "why": "its Spell Card was discarded"} in changes
    assert "ann:I" not in tokens(g) and sheet(g, "ann")["slots"]["I"]["card"] is None
    cast(g, "cy", "firebolt", "ann", where="I")
    assert sheet(g, "ann")["power_points"] == 1  # no longer triggered


def test_l_pers_5_a_mage_in_their_cell_may_resolve_a_revealed_cards_persistent_effect():
    """L-PERS-5 [002:R10]: "A Mage who is in the Cell may also resolve a Persistent Effect of a Revealed Card
    whenever the required condition occurs"."""
    g = lodge()
    at(g, cy="cell-green")
    cast(g, "ann", "ward", "library", where="II")
    g.physical_action("bob", "walk", None, Choices(moves=["library"]))
    offers = [d for k, d in recorded(g) if k == "CellOfferMade"]
    assert [(o["mage"], o["card"]) for o in offers] == [("cy", "ward")]  # ann and bob are not in their Cells
    offer = offers[0]["offer"]
    refused(g, "L-PERS-5", g.resolve_from_cell, "ann", offer, True, Choices())
    g.resolve_from_cell("cy", offer, True, Choices())
    closed = [d for k, d in recorded(g) if k == "CellOfferClosed"]
    assert closed == [{"offer": offer, "mage": "cy", "accepted": True}]
    assert sheet(g, "bob")["damage"] == ["ann", "cy"] and board(g)["offers"] == []
    refused(g, "L-PERS-5", g.resolve_from_cell, "cy", offer, True, Choices())  # an offer is taken once


# ---------------------------------------------------------------------- L-EVO


def test_l_evo_1_speed_is_the_number_of_consecutive_move_1_steps():
    """L-EVO-1 [002:R13]: "The Evocation can perform a number of consecutive "Move 1" Effects equal to this
    value"."""
    g = lodge()
    ev = summoned(g, "ann", "hound", "observatory")  # Speed 3
    refused(g, "L-EVO-1", g.command_evocation, "ann", ev, ["library", "hall", "crypt", "sanctum"], None)
    refused(g, "L-MOVE-1", g.command_evocation, "ann", ev, ["library", "crypt"], None)  # not adjacent
    g.command_evocation("ann", ev, ["library", "hall", "crypt"], None)
    assert room_of(g, ev) == "crypt"


def test_l_evo_2_an_evocation_inflicts_its_strength_as_a_physical_attack():
    """L-EVO-2 [002:R14]: "Evocations inflict damage equal to this value when attacking a target; an Evocation
    attack is considered a Physical Attack"."""
    g = lodge()
    ev = summoned(g, "ann", "golem", "hall")  # Strength 3
    refused(g, "L-DUMMY-2", g.command_evocation, "ann", ev, [], DUMMY, says="R27")
    g.command_evocation("ann", ev, [], "bob")
    assert sheet(g, "bob")["damage"] == ["ann"] * 3


def test_l_evo_3_evocation_damage_uses_its_controllers_colour_and_is_dealt_by_the_model():
    """L-EVO-3 [002:R15]: "When an Evocation inflicts Damage, place Damage Cubes of its controller's Color on the
    target Mage Sheet or Evocation Card; this Damage is considered as dealt by the Evocation Model"."""
    g = lodge()
    ev = summoned(g, "ann", "ghoul", "hall")
    target = summoned(g, "bob", "golem", "hall")
    g.command_evocation("ann", ev, [], target)
    (p,) = [e for e in g.collect_events() if type(e).__name__ == "PhraseResolved"]
    assert [(c["by"], c["dealt_by"]) for c in p.changes] == [("ann", ev), ("ann", ev)]
    assert board(g)["evocations"][target]["damage"] == ["ann", "ann"]


def test_l_evo_4_an_evocation_with_cubes_reaching_its_health_is_defeated():
    """L-EVO-4 [002:R16]: "When an Evocation has a number of Damage Cubes on its card equal to its Health value,
    it is defeated; remove its Model from the Lodge, place its Evocation Card in the Evocation Card Deck, and the
    owner takes back the Evocation Base attached to the defeated Model"."""
    g = lodge()
    ev = summoned(g, "bob", "wisp", "hall")  # Health 2
    bases = g.state.mages["bob"]["bases"]
    cast(g, "ann", "firebolt", ev)
    assert ev not in g.state.evocations and ev not in g.state.positions
    assert g.state.deck[-1] == "wisp" and g.state.mages["bob"]["bases"] == bases + 1


@pytest.mark.parametrize(
    ("spell", "controller", "card", "buff", "removed"),
    [
        ("banish", "bob", "hound", 0, True),  # non-Forgotten, another's, Health 3
        ("banish", "bob", "hound", 1, False),  # current Health 4 > 3 (R18)
        ("banish", "bob", "shade", 0, False),  # another's Forgotten (R17)
        ("banish", "ann", "wraith", 0, True),  # one's own, any Health, Forgotten (R19)
        ("oblivion", "bob", "wraith", 0, True),  # a Forgotten Spell (R20)
    ],
)
def test_l_evo_5_who_may_remove_an_evocation(spell, controller, card, buff, removed):
    """L-EVO-5 [002:R17] "A non-Forgotten Spell cannot remove another Mages's Forgotten Evocation"; [002:R18]
    "...cannot remove another Mage's Evocation with a Health value greater than 3"; [002:R19] "An Effect that
    removes your own Evocation allows the Mage to ignore the previous points"; [002:R20] "A Forgotten Spell that
    removes an Evocation ignores the previous points"."""
    g = lodge()
    ev = summoned(g, controller, card, "hall")
    arrange(g, {"op": "health", "evocation": ev, "amount": buff})
    (p,) = phrases(cast(g, "ann", spell, ev))
    assert (ev not in board(g)["evocations"]) is removed
    assert p["status"] == ("applied" if removed else "skipped")
    if not removed:
        assert p["skipped"][0]["rule"] == "L-EVO-5"


# ---------------------------------------------------------------------- L-DUMMY


def test_l_dummy_1_the_dummy_target_is_offered_to_effects_that_target_models():
    """L-DUMMY-1 [002:R21]: "It is possible to choose a Dummy Target as the target of an Effect that targets
    Models; the Dummy Target counts as a Model, even if it is not physically in the Lodge"; [002:R22] "...to
    allow Mages to cast a Spell and resolve as much of its Effect as possible"."""
    g = lodge()
    events = cast(g, "ann", "arcane-surge", DUMMY)
    assert kinds(events)[-1] == "EffectResolved" and sheet(g, "ann")["power_points"] == 1
    for spell in ("banish", "unravel", "forget"):  # an Evocation, a Room, a Mage: not "Models"
        slot(g, "ann", spell, "II")
        refused(g, "L-DUMMY-1", g.cast_spell, "ann", "II", DUMMY, Choices())


def test_l_dummy_2_phrases_on_the_dummy_are_skipped_and_it_has_no_archetype_nor_physical_attacks():
    """L-DUMMY-2 [002:R23] "It cannot be chosen as the target of Effects that require a specific archetype";
    [002:R24] "It ignores Effects that inflict Damage, steal Power Points or involve components owned by a Mage";
    [002:R25] "...cannot be moved, cannot be removed"; [002:R26] "Any Effect that refers to a Dummy Target value
    is ignored"; [002:R27] "It is not possible to choose a Dummy Model as the target of a Physical Attack"."""
    g = lodge()
    slot(g, "ann", "tame", "II")
    refused(g, "L-DUMMY-2", g.cast_spell, "ann", "II", DUMMY, Choices(), says="R23")
    refused(g, "L-DUMMY-2", g.physical_action, "ann", "strike", DUMMY, Choices(), says="R27")
    reasons = {}
    for spell in ("firebolt", "siphon", "plunder", "gust", "measure", "mend"):
        g = lodge()
        (p,) = phrases(cast(g, "ann", spell, DUMMY))
        assert p["status"] == "skipped" and p["skipped"][0]["rule"] == "L-DUMMY-2"
        reasons[spell] = p["skipped"][0]["reason"]
    assert reasons["firebolt"].endswith("(R24)") and reasons["siphon"].endswith("(R24)")
    assert reasons["plunder"].endswith("(R24)") and reasons["gust"].endswith("(R25)")
    assert "(R26)" in reasons["measure"] and reasons["mend"].endswith("(R26)")


# ---------------------------------------------------------------------- L-MOVE


def test_l_move_1_move_n_is_n_steps_each_to_an_adjacent_room_chosen_by_the_controller():
    """L-MOVE-1 [002:R28]: "When a Model performs "Move," its controller moves it to an adjacent Room; they repeat
    this operation a number of times equal to the number indicated after the word "Move"."""
    g = lodge()
    slot(g, "ann", "gust")
    refused(g, "L-MOVE-1", g.cast_spell, "ann", "I", "bob", Choices(moves=["library", "sanctum"]))
    refused(g, "L-MOVE-1", g.cast_spell, "ann", "I", "bob", Choices(moves=["library"]))  # a step unchosen
    g.cast_spell("ann", "I", "bob", Choices(moves=["library", "observatory"]))
    moves = [c for e in g.collect_events() for c in getattr(e, "changes", []) if c["op"] == "move"]
    assert [(c["from"], c["room"]) for c in moves] == [("hall", "library"), ("library", "observatory")]


def test_l_move_2_place_takes_from_the_reserve_or_teleports():
    """L-MOVE-2 [002:R29]: "When a Model places itself (or is placed) in a Lodge Room, if it is not already in the
    Lodge, it is taken from the reserve; if that Model is already in the Lodge its position changes from the Room
    it was in directly to the Room in which it is placed, without passing through other Rooms"."""
    g = lodge()
    (p,) = phrases(cast(g, "ann", "blink", "sanctum"))  # not adjacent to the Hall
    assert p["applied"] == ["ann placed in sanctum"] and room_of(g, "ann") == "sanctum"
    reserve(g, "bob")  # bob is in the reserve
    (p,) = phrases(cast(g, "bob", "blink", "garden"))
    assert p["applied"] == ["bob placed in garden from the reserve"]


def test_l_move_3_no_mage_moves_into_a_cell_but_an_effect_may_place_one_in_their_own():
    """L-MOVE-3 [002:R30]: "You cannot move your Mage or another Mage into a Cell, however some Game Effects may
    place a Mage into their Cell"."""
    g = lodge()
    refused(g, "L-MOVE-3", g.physical_action, "ann", "walk", None, Choices(moves=["cell-red"]))
    (p,) = phrases(cast(g, "ann", "blink", "cell-blue"))
    assert p["status"] == "skipped" and p["skipped"][0]["rule"] == "L-MOVE-3"
    (p,) = phrases(cast(g, "ann", "retreat", where="II"))
    assert p["status"] == "applied" and room_of(g, "ann") == "cell-red"
    g.physical_action("ann", "walk", None, Choices(moves=["hall"]))  # out of a Cell is a move like any other
    assert room_of(g, "ann") == "hall"


def test_l_dummy_1_the_server_offers_the_dummy_among_the_legal_targets_of_effects_that_target_models():
    """L-DUMMY-1 [002:R21] with LH-1: the player picks from the legal targets the server computes; the Dummy is
    always offered for effects that target Models (not for an archetype, R23, nor a Physical Attack, R27)."""
    g = lodge()
    for where, card in zip(("QUICK", "I", "II", "III"), ("firebolt", "tame", "banish", "unravel"), strict=True):
        slot(g, "ann", card, where)
    hound = summoned(g, "bob", "hound", "hall")
    choices = board_view(g, "ann")["choices"]
    assert choices["spells"]["QUICK"]["targets"] == ["ann", "bob", "cy", hound, DUMMY]
    assert choices["spells"]["I"]["targets"] == [hound]  # Tame targets a beast
    assert choices["spells"]["II"]["targets"] == [hound] and DUMMY not in choices["spells"]["III"]["targets"]
    assert DUMMY not in choices["physical_actions"]["strike"] and "cell-red" not in choices["steps"]
    assert board_view(g, "bob")["choices"]["spells"] == {}  # bob sees his own choices, not ann's cards


@pytest.mark.parametrize(("restricted", "removed"), [(True, False), (False, True)])
def test_l_evo_5_removal_by_an_effect_that_is_not_a_spell_follows_the_option(restricted, removed):
    """L-EVO-5 with L-AMB-6: R17/R18 restrict a "non-Forgotten Spell"; by default every non-Forgotten Effect
    that removes another Mage's Evocation is restricted too (``non_spell_removal_restricted``)."""
    g = lodge(non_spell_removal_restricted=restricted)
    ev = summoned(g, "bob", "golem", "hall")  # Health 5
    g.advance(now=NOW)
    g.black_rose_act("uproot", ev)
    assert (ev not in board(g)["evocations"]) is removed


def test_l_pers_4_a_spell_card_replaced_in_its_slot_ends_its_persistent_effect():
    """L-PERS-4 [002:R9]: "The Persistent Effect ends when the Spell Card is removed from the Mage Sheet for any
    reason" (here: the Mage puts another card in its slot while the token is out)."""
    g = LodgeGame.start("Lodge")
    g.add_mage("ann", "Ann", "red")
    g.add_mage("bob", "Bob", "blue")
    g.begin(now=NOW, seed="seed")
    slot(g, "ann", "thornskin")
    arrange(g, {"op": "token", "mage": "ann", "slot": "I", "card": "thornskin", "kind": "mage", "target": "ann"})
    g.collect_events()
    g.prepare_spells("ann", {"I": "firebolt", "II": "mend"})
    events = recorded(g)
    assert kinds(events) == ["PersistentEnded", "SpellsPrepared"] and tokens(g) == {}
    assert events[0][1] == {"mage": "ann", "slot": "I", "why": "its Spell Card left the Mage Sheet"}
