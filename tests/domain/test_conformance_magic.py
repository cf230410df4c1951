"""Magic (rules/ANALYSIS.md P.2.9, P-ACT-3, P-RES-6) as conformance tests, one or more per rule id, and the
worked example P-EX-3 (Fireball costs) with its payments given explicitly."""

from __future__ import annotations

import copy

import pytest

from domain.dice import FixedRoller
from domain.errors import DomainError, NotFound
from domain.powers import magic_rules as mr
from domain.powers.game import Game
from domain.powers.views import board_view
from tests.domain.helpers import (
    NOW,
    SEED,
    action_of,
    game_in_planning,
    later,
    refused,
    resolved_of,
    seen,
    sheet_of,
    step_of,
    submit,
)
from tests.domain.world_helpers import act, to_next_season, world_game


def mage_game(*extra: tuple, assets: list[tuple] = ()) -> Game:
    """A Wizard ``w`` (stores 3 of each mana, casts through its person at 0,0), a Circle ``c`` and whatever else,
    in month 1 Planning, each with an unrolled action ``<id>-act`` to cast in; the wizard knows Fireball."""
    g = game_in_planning(
        ("w", "champion", "wizard"),
        ("c", "conspiracy", "circle"),
        *extra,
        assets=[("w-lore", "w", "lore", "skill", 4), ("c-lore", "c", "lore", "skill", 3), *assets],
    )
    for pid, p in g.state.powers.items():
        submit(g, pid, f"{pid}-act", roll=False, slot="private" if p.private else "public")
    g.set_conduit("w", "self", "the wizard", "0,0", "person")
    g.teach_spell("w", "fireball")
    return g


def refused_with(g: Game, call, error: type[DomainError], rule: str | None) -> DomainError:
    """Like ``refused``, for refusals that are not RuleViolations (a NotFound names its rule too)."""
    g.collect_events()
    before = copy.deepcopy(g.state)
    with pytest.raises(error) as info:
        call()
    assert info.value.rule == rule, info.value.message
    assert g.collect_events() == [] and g.state == before
    return info.value


def fill(g: Game, power: str, **mana: int) -> None:
    for element, n in mana.items():
        g.grant_mana(power, element, n)


def cast(g: Game, spell: str, pay: str | None = None, power: str = "w", cast_id: str = "k", **kw):
    """Cast as ``power``; in Planning, in its action ``<power>-act`` unless ``action_id`` is given."""
    kw.setdefault("now", NOW)
    kw.setdefault("through", "self")
    if step_of(g) == "planning":
        kw.setdefault("action_id", f"{power}-act")
    return g.cast_spell(power, cast_id, spell, pay=None if pay is None else list(pay), **kw)


def ritual_month(g: Game, spell: str, faces: list[int], power: str = "w", action_id: str = "R", **kw) -> None:
    """Submit ``action_id`` unrolled, cast the ritual into it, then roll its lore with ``faces``."""
    submit(g, power, action_id, roll=False, **kw)
    cast(g, spell, power=power, action_id=action_id, cast_id=f"cast-{action_id}")
    g.roll_action(action_id, now=NOW, roller=FixedRoller(faces), assets=[{"asset_id": f"{power}-lore"}], convert=0)


def ritual_month_cast_only(g: Game, spell: str, action_id: str, power: str = "w") -> None:
    """Cast the ritual into an already submitted action, and roll it with a failing pool."""
    cast(g, spell, power=power, action_id=action_id, cast_id=f"cast-{action_id}")
    g.roll_action(action_id, now=NOW, roller=FixedRoller([1, 1, 1, 1]), assets=[{"asset_id": f"{power}-lore"}])


def resolve_month(g: Game) -> None:
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())


# ---------------------------------------------------------------- P-MAG-1: mana wallets and storage caps


def test_p_mag_1_mana_is_air_fire_earth_water_light_or_dark():
    """P-MAG-1 "A wallet per element: A, F, E, W, plus Light and Dark." Any other mana is refused."""
    g = mage_game()
    fill(g, "w", A=1, F=1, E=1, W=1, L=1, D=1)
    assert sheet_of(g, "w")["mana"] == {"A": 1, "F": 1, "E": 1, "W": 1, "L": 1, "D": 1}
    err = refused(g, lambda: g.grant_mana("w", "Q", 1), "P-MAG-1")
    assert "Q" in err.message
    refused(g, lambda: g.grant_mana("w", "F", 0), "P-MAG-1")
    refused(g, lambda: g.grant_mana("w", "F", "2"), "P-MAG-1")


def test_p_mag_1_each_class_stores_up_to_its_cap_of_each_element():
    """P-MAG-1 "Each power has a per-element storage cap, set by its class and perks." A Wizard stores three
    of each ([003:1296]), a Circle two ([003:1155]); a grant beyond the cap is refused and records nothing."""
    g = mage_game()
    fill(g, "w", F=3)
    fill(g, "c", F=2)
    refused(g, lambda: g.grant_mana("w", "F", 1), "P-MAG-1")
    refused(g, lambda: g.grant_mana("c", "F", 1), "P-MAG-1")
    assert (sheet_of(g, "w")["mana"], sheet_of(g, "c")["mana"]) == ({"F": 3}, {"F": 2})


def test_p_mag_1_perks_raise_the_caps():
    """P-MAG-1: Elemental Specialization stores two more of its element ([003:903]); a Sovereign stores 4 of
    its ancestry's element (Specialized Magic, [003:987]) and, with Magical Monarch, two of every other."""
    g = mage_game(("s", "city", "sovereign"))
    refused(g, lambda: g.grant_mana("s", "E", 1), "P-MAG-1")  # no storage until its ancestry is recorded
    g.grant_magic_perk("s", "specialized_magic", "E")
    fill(g, "s", E=4)
    refused(g, lambda: g.grant_mana("s", "F", 1), "P-MAG-1")
    g.grant_magic_perk("s", "magical_monarch")
    fill(g, "s", F=2)
    refused(g, lambda: g.grant_mana("s", "F", 1), "P-MAG-1")
    g.grant_magic_perk("w", "elemental_specialization", "F")
    fill(g, "w", F=5)
    refused(g, lambda: g.grant_mana("w", "F", 1), "P-MAG-1")
    refused(g, lambda: g.grant_magic_perk("w", "elemental_specialization", "F"), "P-MAG-6")  # a new element each time
    assert seen(g)["magic"]["powers"]["w"]["caps"]["F"] == 5


def test_p_mag_1_perks_a_power_holds_through_development_count_as_its_magic_perks():
    """P-MAG-1/P-MAG-6: a perk bought or granted as development (domain.powers.development) is the same perk:
    Elemental Specialization chosen as "Fire" stores two more Fire, and Vessel Heart keeps mana at Cleanup."""
    g = mage_game()
    g.grant_perk("w", "Elemental Specialization", "Fire")
    g.grant_perk("w", "Vessel Heart")
    fill(g, "w", F=5)
    refused(g, lambda: g.grant_mana("w", "F", 1), "P-MAG-1")
    refused(g, lambda: g.grant_magic_perk("w", "vessel_heart"), "P-MAG-6")  # it has it already
    assert board_view(g, "c")["magic"]["powers"]["w"]["perks"] == {
        "elemental_specialization": {"elements": ["F"]},
        "vessel_heart": {"elements": []},
    }
    for _ in range(10):
        if step_of(g) == "cleanup":
            break
        if step_of(g) == "resolution":
            g.resolve(now=NOW, roller=FixedRoller())
        else:
            g.advance(NOW, SEED)
    assert sheet_of(g, "w")["mana"] == {"F": 5}


def test_p_mag_1_an_adversary_without_a_storage_perk_holds_no_mana():
    """P-MAG-1 "A power without a storage perk cannot hold mana across steps." """
    g = mage_game(("orc", "champion", "adversary"))
    refused(g, lambda: g.grant_mana("orc", "F", 1), "P-MAG-1")
    g.grant_magic_perk("orc", "personal_magic")
    fill(g, "orc", F=2)
    assert sheet_of(g, "orc")["mana"] == {"F": 2}


def test_p_mag_1_stored_mana_dissipates_at_cleanup_unless_the_power_has_vessel_heart():
    """P-MAG-1 "Stored mana dissipates at Cleanup unless the power has Vessel Heart." ([003:909])"""
    g = mage_game()
    g.grant_magic_perk("w", "vessel_heart")
    fill(g, "w", F=2)
    fill(g, "c", W=2)
    for _ in range(10):
        if step_of(g) == "cleanup":
            break
        if step_of(g) == "resolution":
            g.resolve(now=NOW, roller=FixedRoller())
        else:
            g.advance(NOW, SEED)
    assert step_of(g) == "cleanup"
    assert (sheet_of(g, "w")["mana"], sheet_of(g, "c")["mana"]) == ({"F": 2}, {})


def test_p_mag_1_perks_generate_mana_each_tidings_up_to_the_cap():
    """P-MAG-1, mana gained: Elemental Specialization "gain 1 mana of that element at the start of each season"
    ([003:903]); Magical Protector one of the power's element ([003:1058]); Divine Protector two Light or Dark
    ([003:1060]). What goes beyond a cap spoils."""
    g = mage_game(("sky", "city", "celestial"))
    g.grant_magic_perk("w", "elemental_specialization", "F")
    g.grant_magic_perk("w", "vessel_heart")
    g.grant_magic_perk("sky", "magical_protector", "E")
    g.grant_magic_perk("sky", "divine_protector", "L")
    refused(g, lambda: g.grant_magic_perk("c", "divine_beast", "F"), "P-MAG-6")  # Light or Dark
    fill(g, "w", F=4)
    g.collect_events()
    for _ in range(10):
        if step_of(g) == "tidings":
            break
        if step_of(g) == "resolution":
            g.resolve(now=NOW, roller=FixedRoller())
        else:
            g.advance(NOW, SEED)
    assert (seen(g)["game"]["season"], step_of(g)) == (2, "tidings")
    assert (sheet_of(g, "w")["mana"], sheet_of(g, "sky")["mana"]) == ({"F": 5}, {"E": 1, "L": 2})
    grants = [e for e in g.collect_events() if type(e).__name__ == "ManaGranted"]
    assert [(e.power_id, e.element, e.amount, e.actor, e.audience) for e in grants] == [
        ("sky", "E", 1, "system", ["power:sky"]),
        ("sky", "L", 2, "system", ["power:sky"]),
        ("w", "F", 1, "system", ["power:w"]),
    ]
    assert mr.seasonal_mana({"elemental_specialization": {"elements": ["F"]}}, {"F": 5}, {"F": 5}) == {}


def test_p_mag_1_a_power_cannot_spend_mana_it_does_not_hold():
    """P-MAG-1: casting spends mana from the wallet; paying with mana not held is refused."""
    g = mage_game()
    fill(g, "w", F=2, W=1)
    err = refused(g, lambda: cast(g, "fireball", "FFWE"), "P-MAG-1")
    assert "1 E" in err.message


def test_p_mag_1_mana_gained_during_an_action_is_spent_in_it_whatever_the_cap_or_lost_with_it():
    """P-AMB-37 "A power whose cap is 0 may still receive mana during an action and spend it within that same
    action. Any leftover is lost at the end of the action." """
    g = mage_game(("orc", "champion", "adversary"))
    g.teach_spell("orc", "fireball")
    g.set_conduit("orc", "self", "the warlord", "2,2", "person")
    refused(g, lambda: g.grant_mana("orc", "F", 2), "P-MAG-1")
    refused(g, lambda: g.channel_mana("orc-act", "Q", 2, now=NOW), "P-MAG-1")
    g.channel_mana("orc-act", "F", 3, now=NOW)
    g.channel_mana("orc-act", "E", 2, now=NOW)
    out = cast(g, "fireball", "FFEE", power="orc")
    assert (out["pooled"], out["from_wallet"], sheet_of(g, "orc")["mana"]) == ({"channelled": {"E": 2, "F": 2}}, {}, {})
    assert board_view(g, "orc")["magic"]["powers"]["orc"]["action_mana"] == {
        "orc-act": {"channelled": {"F": 1}, "contributed": {}}
    }
    submit(g, "orc", "A2", roll=False)
    refused(g, lambda: cast(g, "fireball", "FFEE", power="orc", action_id="A2", cast_id="k2"), "P-MAG-1")  # not A2's
    resolve_month(g)
    g.advance(NOW, SEED)
    assert board_view(g, "orc")["magic"]["powers"]["orc"]["action_mana"] == {}
    assert sheet_of(g, "orc")["mana"] == {}


def test_p_mag_3_powers_combine_their_mana_pools_to_complete_a_ritual():
    """P-MAG-3 quoting [003:523] "Unlike spells, powers can combine their efforts and mana pools to complete a
    ritual." Aaron's ritual costs nine mana, more than a Wizard stores; a collaborator adds its own."""
    g = mage_game()
    g.teach_spell("w", "aarons-ritual")
    fill(g, "w", A=3, W=3, F=2)
    fill(g, "c", A=2, W=2, F=2)
    submit(g, "w", "R", roll=False, collaborators=["c"])
    refused(g, lambda: g.contribute_mana("w", "R", ["A"], now=NOW), "P-DICE-11")  # not its own collaborator
    refused(g, lambda: g.contribute_mana("c", "w-act", ["A"], now=NOW), "P-DICE-11")
    refused(g, lambda: g.contribute_mana("c", "R", ["A", "A", "A"], now=NOW), "P-MAG-1")  # holds two
    g.contribute_mana("c", "R", ["A", "A", "W", "F"], now=NOW)
    assert sheet_of(g, "c")["mana"] == {"W": 1, "F": 1}
    refused(g, lambda: cast(g, "fireball", "FFFA", action_id="R"), "P-MAG-1")  # a spell cannot use its F
    out = cast(g, "aarons-ritual", "WWWWAAAAA", action_id="R")
    assert out["pooled"] == {"contributed": {"A": 2, "W": 1}}
    assert (out["from_wallet"], sheet_of(g, "w")["mana"]) == ({"A": 3, "W": 3}, {"F": 2})
    assert pool_left(g, "R") == {"F": 1}  # lost with the action


def pool_left(g: Game, action_id: str) -> dict:
    return g.state.magic["pools"][action_id]["contributed"]


# ---------------------------------------------------------------- P-MAG-2: paying a cost


def test_p_mag_2_symbols_are_paid_in_kind_and_the_generic_part_with_any_mana():
    """P-MAG-2 "Parse the cost as <generic integer><element letters>; for example, 2FF means 2 generic + F + F.
    The elemental symbols must be paid with matching mana. The generic part can be paid with any mana." """
    assert mr.parse_cost("2FF") == mr.Cost(2, ("F", "F"))
    assert mr.parse_cost("WWWWAAAAA") == mr.Cost(0, tuple("WWWWAAAAA"))
    g = mage_game()
    fill(g, "w", F=3, W=1, E=1)
    out = cast(g, "fireball", "FFWE")
    assert out["paid"] == {"E": 1, "F": 2, "W": 1}
    assert sheet_of(g, "w")["mana"] == {"F": 1}


def test_p_mag_2_without_a_payment_the_cost_is_paid_in_kind_then_from_the_most_plentiful_mana():
    g = mage_game()
    fill(g, "w", F=2, W=3, E=1)
    assert cast(g, "fireball")["paid"] == {"F": 2, "W": 2}
    assert sheet_of(g, "w")["mana"] == {"W": 1, "E": 1}


def test_p_mag_2_a_short_or_excess_payment_is_refused_naming_what_is_wrong():
    g = mage_game()
    fill(g, "w", F=3, W=3, E=3)
    assert "generic short by 1" in refused(g, lambda: cast(g, "fireball", "FFW"), "P-MAG-2").message
    assert "elemental F short by 1" in refused(g, lambda: cast(g, "fireball", "FWWE"), "P-MAG-2").message
    assert "pays 1 more than the cost" in refused(g, lambda: cast(g, "fireball", "FFWEE"), "P-MAG-2").message


def test_p_mag_2_an_actions_own_mana_cost_is_paid_by_the_same_rules():
    """P-MAG-2 applies to every mana cost: Uplift Master "Cost: AW" ([003:1177]) is an Air and a Water; mana
    gained during the action pays first (P-AMB-37)."""
    g = mage_game()
    fill(g, "c", A=2, W=1, F=1)
    refused(g, lambda: g.pay_mana("c", "c-act", "AW", pay=["A", "F"], now=NOW), "P-MAG-2")
    refused_with(g, lambda: g.pay_mana("c", "w-act", "AW", now=NOW), NotFound, "P-MAG-1")  # not its action
    out = g.pay_mana("c", "c-act", "AW", now=NOW)
    assert (out["paid"], sheet_of(g, "c")["mana"]) == ({"A": 1, "W": 1}, {"A": 1, "F": 1})
    g.channel_mana("c-act", "W", 1, now=NOW)
    out = g.pay_mana("c", "c-act", "1W", pay=["W", "F"], now=NOW)
    assert (out["pooled"], out["from_wallet"], sheet_of(g, "c")["mana"]) == (
        {"channelled": {"W": 1}},
        {"F": 1},
        {"A": 1},
    )
    spent = [e for e in g.collect_events() if type(e).__name__ == "ManaSpent"]
    assert [e.audience for e in spent] == [["power:c"], ["power:c"]]


def test_p_mag_2_the_elements_of_a_spell_are_the_distinct_symbols_of_its_cost():
    """P-MAG-2 "The spell's element set is the set of distinct symbols in the cost, whatever mana was actually
    spent." """
    assert mr.parse_cost("2FF").elements == ["F"]
    assert mr.parse_cost("1AWW").elements == ["A", "W"]
    assert mr.parse_cost("3").elements == []


def test_p_amb_42_freeze_river_has_the_cost_the_gm_sets_and_is_taught_only_once_defined():
    """P-AMB-42: "Catalogue data has to come from the designer." Freeze River is named ([003:507]) without a
    cost: the service ships no cost for it; teaching it before the GM defines it is refused naming P-AMB-42,
    recording nothing; once defined (a slow spell 1WW here, the GM's choice), it is learned and cast as any."""
    g = mage_game()
    err = refused(g, lambda: g.teach_spell("c", "freeze-river"), "P-AMB-42")
    assert "without a cost" in err.message
    g.define_spell("freeze-river", "Freeze River", "slow", "1WW", range=3)
    g.teach_spell("c", "freeze-river")
    assert [s["spell_id"] for s in seen(g)["magic"]["powers"]["c"]["known"]] == ["freeze-river"]
    assert {s["spell_id"]: s for s in seen(g)["magic"]["catalogue"]}["freeze-river"]["base_cost"] == "1WW"


def test_p_mag_2_the_gm_adds_spells_whose_costs_must_parse():
    """P-AMB-42: the catalogue is data; the GM adds spells to a game (an event). A malformed cost is refused."""
    g = mage_game()
    refused(g, lambda: g.define_spell("bad", "Bad", "fast", "2XF"), "P-MAG-1")
    refused(g, lambda: g.define_spell("bad", "Bad", "fast", "F2"), "P-MAG-2")
    refused(g, lambda: g.define_spell("bad", "Bad", "quick", "2F"), "P-MAG-3")
    refused(g, lambda: g.define_spell("fireball", "Fireball", "fast", "2FF"), "P-MAG-2")  # the id is taken
    g.define_spell("freeze-river", "Freeze River", "slow", "1WW", range=3)
    events = g.collect_events()
    assert [(type(e).__name__, e.audience) for e in events] == [("SpellDefined", ["public"])]
    g.teach_spell("c", "freeze-river")
    assert [s["spell_id"] for s in seen(g)["magic"]["powers"]["c"]["known"]] == ["freeze-river"]


# ---------------------------------------------------------------- P-MAG-3: ranks


def test_p_mag_3_fast_rank_is_generic_slow_is_generic_plus_one_ritual_twice_generic():
    """P-MAG-3 "Fast rank = generic cost. Slow rank = generic + 1. Ritual rank = 2 x generic, and its
    difficulty = 2 x generic." """
    g = mage_game()
    g.define_spell("quake", "Quake", "slow", "3E")
    g.define_spell("wall", "Wall of Earth", "ritual", "3EE")
    g.teach_spell("w", "quake")
    g.teach_spell("w", "wall")
    fill(g, "w", E=3, F=3)
    submit(g, "w", "A1", roll=False)
    assert cast(g, "quake", "EFFF", action_id="A1", cast_id="k1")["rank"] == 4
    fill(g, "w", E=1, A=3)
    submit(g, "w", "R", roll=False)
    out = cast(g, "wall", "EEEAA", action_id="R", cast_id="k2")
    assert (out["rank"], out["difficulty"]) == (6, 6)
    assert action_of(g, "R")["difficulty"] == 6  # the ritual's action is a challenge at its difficulty


def test_p_mag_3_a_ritual_with_a_stated_difficulty_keeps_it():
    """P-AMB-35: Aaron's ritual ("Cost: WWWWAAAAA, Difficulty 6") has no generic part; the stated difficulty
    overrides the formula's 0."""
    g = mage_game()
    g.grant_magic_perk("w", "elemental_specialization", "A")  # 5 A and 3 W can be held; 4 W needs more
    g.grant_magic_perk("w", "elemental_specialization", "W")
    g.teach_spell("w", "aarons-ritual")
    fill(g, "w", W=4, A=5)
    submit(g, "w", "R", roll=False)
    out = cast(g, "aarons-ritual", action_id="R")
    assert (out["rank"], out["difficulty"], out["paid"]) == (0, 6, {"A": 5, "W": 4})
    assert action_of(g, "R")["difficulty"] == 6


def test_p_feat_3_mana_gardens_reduce_a_ritual_by_the_tidings_since_their_last_use():
    """P-FEAT-3, Mana Gardens ([003:453]): "When you conduct a ritual here, reduce the cost by 1 mana of that
    element (including generic mana) for every Tidings since you last used this ability." P-AMB-28: the count
    starts at the start of the epic. The element is the stronghold hex's; the difficulty keeps the full cost."""
    g = world_game(
        ("w", "champion", "wizard"),
        assets=[("w-lore", "w", "lore", "skill", 4)],
        hexes=[{"hex": "0,0", "element": "E"}, {"hex": "1,0", "element": "E"}],
        features=[{"id": "keep", "kind": "stronghold", "hex": "0,0", "controller": "w", "modules": ["mana_gardens"]}],
        planning=False,
    )
    g.define_spell("wall", "Wall of Earth", "ritual", "3EE")
    g.teach_spell("w", "wall")
    g.set_conduit("w", "self", "the wizard", "0,0", "person")
    g.set_conduit("w", "far", "an apprentice", "1,0", "person")

    def tidings_then_planning() -> None:
        g.adjust_resources("w", {"coin": 3}, "upkeep")
        g.pay_maintenance("keep", "w")  # an inoperable stronghold collects nothing
        g.advance(NOW, SEED)

    def ritual(action_id: str, pay: str, through: str = "self") -> dict:
        act(g, "w", action_id, "0,0")
        return cast(g, "wall", pay, action_id=action_id, cast_id=f"k-{action_id}", through=through)

    g.advance(NOW, SEED)  # the first Tidings: one since the start of the epic
    tidings_then_planning()
    fill(g, "w", E=3, A=3)
    # Conducted elsewhere, the ritual costs its whole 3EE: four mana is refused, nothing recorded.
    act(g, "w", "R0", "1,0")
    refused(g, lambda: cast(g, "wall", "EAAA", action_id="R0", cast_id="k0", through="far"), "P-MAG-2")
    out = ritual("R1", "EAAA")  # 3EE less one E
    assert out["paid"] == {"A": 3, "E": 1} and out["difficulty"] == 6
    used = [e for e in g.collect_events() if type(e).__name__ == "ManaGardensUsed"]
    assert [(e.feature_id, e.reduction, e.audience) for e in used] == [("keep", 1, ["power:w"])]
    fill(g, "w", A=3)
    # Just used: no Tidings since, so the next ritual there this season pays the whole 3EE.
    assert ritual("R1b", "EEAAA")["paid"] == {"A": 3, "E": 2}
    g.roll_action("R1b", now=NOW, roller=FixedRoller([1, 1, 1, 1]), assets=[{"asset_id": "w-lore"}])
    g.roll_action("R1", now=NOW, roller=FixedRoller([1, 1, 1, 1]), assets=[{"asset_id": "w-lore"}])
    g.roll_action("R0", now=NOW, roller=FixedRoller([1, 1, 1, 1]), assets=[{"asset_id": "w-lore"}])
    to_next_season(g)
    tidings_then_planning()
    to_next_season(g)
    tidings_then_planning()
    fill(g, "w", E=3, A=3)
    act(g, "w", "R2", "0,0")
    # Two Tidings since: 3EE less E and E; paying an E too is refused, nothing recorded.
    refused(g, lambda: cast(g, "wall", "EAAA", action_id="R2", cast_id="k2"), "P-MAG-2")
    out = cast(g, "wall", "AAA", action_id="R2", cast_id="k2")
    assert out["paid"] == {"A": 3}
    assert mr.gardens_reduced(mr.parse_cost("3EE"), 4, "E") == mr.parse_cost("1")
    assert mr.gardens_reduced(mr.parse_cost("1F"), 3, None) == mr.parse_cost("F")


# ---------------------------------------------------------------- P-MAG-4: ritual cost inflation


def _ritual_game(power_specific: bool) -> Game:
    g = mage_game(("z", "champion", "wizard"), assets=[("z-lore", "z", "lore", "skill", 4)])
    g.define_spell("ward", "Ward", "ritual", "1E", power_specific=power_specific)
    g.set_conduit("z", "self", "the other wizard", "5,5", "person")
    g.grant_magic_perk("z", "elemental_specialization", "E")
    for p in ("w", "z"):
        g.teach_spell(p, "ward")
    return g


def test_p_mag_4_each_success_adds_two_generic_for_everyone():
    """P-MAG-4 "Every successful cast adds +2 to the ritual's generic cost. The counter is kept ... globally
    otherwise." A failed cast adds nothing."""
    g = _ritual_game(power_specific=False)
    fill(g, "w", E=2)
    fill(g, "z", E=2)
    ritual_month(g, "ward", [6, 6, 1, 1], action_id="RW")  # 2 successes >= difficulty 2
    ritual_month(g, "ward", [1, 1, 1, 1], power="z", action_id="RZ")  # fails
    resolve_month(g)
    assert (action_of(g, "RW")["result"]["success"], action_of(g, "RZ")["result"]["success"]) == (True, False)
    assert seen(g)["magic"]["inflation"] == {"ward": 1}
    g.advance(NOW, SEED)
    fill(g, "z", E=4)
    submit(g, "z", "RZ2", roll=False)
    out = cast(g, "ward", power="z", action_id="RZ2", cast_id="k3")
    assert (out["cost"], out["rank"], out["difficulty"], out["paid"]) == ("3E", 6, 6, {"E": 4})


def test_p_mag_4_a_ritual_of_a_powers_own_rules_inflates_for_that_power_only():
    """P-MAG-4 "The counter is kept per power for rituals granted by a power's own rules." """
    g = _ritual_game(power_specific=True)
    fill(g, "w", E=2)
    ritual_month(g, "ward", [6, 6, 1, 1], action_id="RW")
    resolve_month(g)
    assert seen(g)["magic"]["inflation"] == {"w/ward": 1}
    view = board_view(g, "z")["magic"]["powers"]["z"]["known"]
    assert [(s["cost"], s["difficulty"]) for s in view] == [("1E", 2)]
    mine = board_view(g, "w")["magic"]["powers"]["w"]["known"]
    assert [(s["cost"], s["difficulty"]) for s in mine if s["spell_id"] == "ward"] == [("3E", 6)]


# ---------------------------------------------------------------- P-MAG-5: casting through, and range


def test_p_mag_5_a_caster_needs_a_conduit_within_the_spells_range():
    """P-MAG-5 "A caster must have a conduit within the spell's range." """
    g = mage_game()
    g.define_spell("bolt", "Bolt", "fast", "1A", range=2)
    g.teach_spell("w", "bolt")
    fill(g, "w", A=3)
    refused(g, lambda: cast(g, "bolt", "AA", through="nobody"), "P-MAG-5")
    refused(g, lambda: cast(g, "bolt", "AA", target="3,0"), "P-MAG-5")
    refused(g, lambda: cast(g, "fireball", target="0,1"), "P-MAG-5")  # an unranged spell: its own hex only
    out = cast(g, "bolt", "AA", target="2,-1")
    assert (out["from_hex"], out["target"]) == ("0,0", "2,-1")
    g.set_conduit("w", "heir", "an heir", "3,1", "heir")
    fill(g, "w", A=1)
    assert cast(g, "bolt", "AA", through="heir", target="3,0", cast_id="k2")["through"] == "heir"


def test_p_mag_5_range_is_doubled_from_a_tower_and_for_spells_from_a_celestials_capitol():
    """P-MAG-5 "Range is doubled from a Tower, and by City on a Hill or Detailed Inspections for spells cast
    from the capitol." """
    g = mage_game(("sky", "city", "celestial"))
    g.define_spell("bolt", "Bolt", "fast", "1A", range=2)
    g.define_spell("storm", "Storm", "ritual", "A", range=2)
    for p in ("w", "sky"):
        g.teach_spell(p, "bolt")
    g.teach_spell("sky", "storm")
    g.set_conduit("w", "capitol", "a borrowed capitol", "0,0", "other", capitol=True)
    g.set_conduit("w", "tower", "the tower", "0,0", "other", tower=True)
    g.set_conduit("sky", "capitol", "the capitol", "0,0", "person", capitol=True)
    fill(g, "w", A=3)
    fill(g, "sky", A=3)
    refused(g, lambda: cast(g, "bolt", "AA", through="capitol", target="4,0"), "P-MAG-5")  # not a wizard's feature
    cast(g, "bolt", "AA", through="tower", target="4,0", cast_id="k1")
    cast(g, "bolt", "AA", power="sky", through="capitol", target="4,0", cast_id="k2")
    refused(g, lambda: cast(g, "bolt", "AA", power="sky", through="capitol", target="5,0"), "P-MAG-5")
    submit(g, "sky", "R", roll=False, slot="public")
    refused(g, lambda: cast(g, "storm", power="sky", through="capitol", target="4,0", action_id="R"), "P-MAG-5")
    assert cast(g, "storm", power="sky", through="capitol", target="2,0", action_id="R", cast_id="k3")["rank"] == 0


# ---------------------------------------------------------------- P-MAG-6: perks that alter costs


def test_p_mag_6_improvised_instants_pays_one_symbol_of_a_fast_spell_with_two_of_another_element():
    """P-MAG-6 "Improvised Instants: any one symbol may be paid with 2 mana of another element, without
    changing the spell's element" ([003:915], fast spells only)."""
    g = mage_game()
    g.define_spell("quake", "Quake", "slow", "1EE")
    g.teach_spell("w", "quake")
    fill(g, "w", F=1, W=2, E=3)
    refused(g, lambda: cast(g, "fireball", "FWWEE"), "P-MAG-2")
    g.grant_magic_perk("w", "improvised_instants")
    out = cast(g, "fireball", "FWWEE")
    assert (out["elements"], out["rank"]) == (["F"], 2)
    assert out["substitution"].startswith("improvised_instants: F paid with")
    fill(g, "w", W=3, E=2)
    submit(g, "w", "A1", roll=False)
    refused(g, lambda: cast(g, "quake", "EWWW", action_id="A1"), "P-MAG-2")  # not for a slow spell


def test_p_mag_6_elemental_flexibility_substitutes_one_required_mana():
    """P-MAG-6 "Elemental Flexibility: substitute 1 required mana" ([003:1318])."""
    g = mage_game()
    fill(g, "w", F=1, W=3)
    refused(g, lambda: cast(g, "fireball", "FWWW"), "P-MAG-2")
    g.grant_magic_perk("w", "elemental_flexibility")
    assert cast(g, "fireball", "FWWW")["substitution"] == "elemental_flexibility: F paid with W"
    fill(g, "w", W=3)
    refused(g, lambda: cast(g, "fireball", "WWWW", cast_id="k2"), "P-MAG-2")  # one symbol, not two


def test_p_mag_6_perfected_spell_costs_two_less_first_each_month_then_one_less():
    """P-MAG-6 "Perfected Spell: -2 cost on the first cast each month, -1 on the second" ([003:1308])."""
    g = mage_game()
    refused(g, lambda: g.grant_magic_perk("w", "perfected_spell", spells=["unknown"]), "P-MAG-6")
    g.grant_magic_perk("w", "perfected_spell", spells=["fireball"])
    events = g.collect_events()
    assert [(type(e).__name__, e.audience) for e in events] == [
        ("MagicPerkGranted", ["public"]),  # perks are public (P.4); the spell perfected is not
        ("SpellsPerfected", ["power:w"]),
    ]
    fill(g, "w", F=3, E=3)
    assert (cast(g, "fireball", "FF", cast_id="k1")["reduction"], sheet_of(g, "w")["mana"]) == (2, {"F": 1, "E": 3})
    fill(g, "w", F=2)
    out = cast(g, "fireball", "FFE", cast_id="k2")
    assert (out["reduction"], out["paid"], out["rank"]) == (1, {"E": 1, "F": 2}, 2)
    refused(g, lambda: cast(g, "fireball", "FF", cast_id="k3"), "P-MAG-2")
    fill(g, "w", F=1)
    assert cast(g, "fireball", "FFEE", cast_id="k3")["reduction"] == 0


def test_p_mag_6_elemental_efficiency_refunds_one_mana_of_its_element():
    """P-MAG-6 "Elemental Efficiency: casting a spell of the chosen element refunds 1 mana of that element"."""
    g = mage_game()
    g.grant_magic_perk("w", "elemental_efficiency", "F")
    fill(g, "w", F=3, W=2)
    assert cast(g, "fireball", "FFWW")["refund"] == {"F": 1}
    assert sheet_of(g, "w")["mana"] == {"F": 2}


def test_p_mag_6_steady_sorcery_and_borrowed_magic_change_the_effective_rank():
    """P-MAG-6 "Steady Sorcery: +1 effective rank per unique slow spell already cast this month" and
    "Borrowed Magic: -1 effective rank when cast through an army"."""
    g = mage_game(("pal", "champion", "paragon"))
    for sid in ("mend", "heal"):
        g.define_spell(sid, sid.title(), "slow", "1W")
        g.teach_spell("w", sid)
    g.teach_spell("pal", "fireball")
    g.grant_magic_perk("w", "steady_sorcery")
    for i, sid in enumerate(("mend", "heal", "mend", "heal")):
        fill(g, "w", W=2)
        submit(g, "w", f"A{i}", roll=False)
        out = cast(g, sid, "WW", action_id=f"A{i}", cast_id=f"k{i}")
        assert (out["rank"], out["effective_rank"]) == (2, 2 + min(i, 2))  # "unique": mend counts once
    g.set_conduit("pal", "host", "the host", "1,1", "army")
    g.set_conduit("pal", "self", "the paragon", "1,1", "person")
    fill(g, "pal", F=2, E=2)
    assert cast(g, "fireball", "FFEE", power="pal", through="host", cast_id="k8")["effective_rank"] == 2
    g.grant_magic_perk("pal", "borrowed_magic")
    fill(g, "pal", F=2, E=2)
    out = cast(g, "fireball", "FFEE", power="pal", through="host", cast_id="k9")
    assert (out["rank"], out["effective_rank"]) == (2, 1)
    fill(g, "pal", F=2, E=2)
    assert cast(g, "fireball", "FFEE", power="pal", through="self", cast_id="k10")["effective_rank"] == 2


def test_p_mag_6_vessel_heart_refunds_the_mana_of_a_failed_ritual():
    """P-MAG-6 "Vessel Heart: refunds mana spent on a failed ritual" ([003:909]); without it the mana is lost
    ([003:505] "When you fail a ritual, the mana you would have spent is lost")."""
    g = _ritual_game(power_specific=False)
    g.grant_magic_perk("w", "vessel_heart")
    fill(g, "w", E=2)
    fill(g, "z", E=2)
    ritual_month(g, "ward", [1, 1, 1, 1], action_id="RW")
    ritual_month(g, "ward", [1, 1, 1, 1], power="z", action_id="RZ")
    assert (sheet_of(g, "w")["mana"], sheet_of(g, "z")["mana"]) == ({}, {})
    fill(g, "w", E=1)
    submit(g, "w", "RW2", roll=False)
    g.channel_mana("RW2", "E", 1, now=NOW)  # mana the action held was never the power's to get back
    ritual_month_cast_only(g, "ward", "RW2")
    resolve_month(g)
    assert (sheet_of(g, "w")["mana"], sheet_of(g, "z")["mana"]) == ({"E": 3}, {})
    assert seen(g)["magic"]["inflation"] == {}


def test_p_mag_6_indentured_mages_record_uprising_equal_to_the_generic_cost():
    """P-MAG-6 "Indentured Mages: add Uprising equal to the spell's generic cost" ([003:1070])."""
    g = mage_game(("ov", "city", "overlord"))
    g.teach_spell("ov", "fireball")
    g.set_conduit("ov", "mages", "the mages of Derop", "2,2", "mage")
    fill(g, "ov", F=2, E=2)
    assert cast(g, "fireball", "FFEE", power="ov", through="mages")["uprising"] == {"hex": "2,2", "amount": 2}


# ---------------------------------------------------------------- P-ACT-3: submission rules for magic


def test_p_act_3_any_number_of_fast_spells_but_one_slow_spell_per_action():
    """P-ACT-3 "A submission may include any number of Fast spells. A *️⃣ submission may include at most one
    Slow spell." """
    g = mage_game()
    g.define_spell("mend", "Mend", "slow", "W")
    g.teach_spell("w", "mend")
    fill(g, "w", F=3, W=3, E=3)
    submit(g, "w", "A1", roll=False)
    cast(g, "fireball", action_id="A1", cast_id="k1")
    cast(g, "mend", "W", action_id="A1", cast_id="k2")
    err = refused(g, lambda: cast(g, "mend", "W", action_id="A1", cast_id="k3"), "P-ACT-3")
    assert "at most one Slow" in err.message
    fill(g, "w", F=2)
    cast(g, "fireball", "FFEW", action_id="A1", cast_id="k4")
    assert [c["cast_id"] for c in seen(g)["magic"]["powers"]["w"]["casts_this_month"]] == ["k1", "k2", "k4"]


def test_p_act_3_a_ritual_is_an_action_on_its_own():
    """P-ACT-3 "A Ritual must be a submission on its own." """
    g = _ritual_game(power_specific=False)
    fill(g, "w", E=3, F=3)
    submit(g, "w", "A1", roll=False)
    cast(g, "fireball", "FFEF", action_id="A1", cast_id="k1")
    refused(g, lambda: cast(g, "ward", "EE", action_id="A1", cast_id="k2"), "P-ACT-3")
    submit(g, "w", "R", roll=False)
    cast(g, "ward", "EE", action_id="R", cast_id="k3")
    refused(g, lambda: cast(g, "fireball", "FFF", action_id="R", cast_id="k4"), "P-ACT-3")


def test_p_act_3_slow_spells_and_rituals_are_cast_in_an_action_fast_spells_also_in_battle_once():
    """P-ACT-3 ([003:503]) with [003:576] "Spellcasting: Each Power may cast up to one fast spell." """
    g = mage_game()
    g.define_spell("mend", "Mend", "slow", "W")
    g.teach_spell("w", "mend")
    fill(g, "w", F=3, W=3)
    refused(g, lambda: cast(g, "mend", "W", action_id=None), "P-ACT-3")
    refused(g, lambda: cast(g, "fireball", "FFWW", action_id=None), "P-ACT-3")  # Planning: in an action
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    assert step_of(g) == "battle"
    assert cast(g, "fireball", "FFWW", cast_id="k1")["context"] == "battle"
    refused(g, lambda: cast(g, "fireball", "FWW", cast_id="k2"), "P-ACT-3")


def test_p_act_3_a_spell_the_power_does_not_know_cannot_be_cast():
    g = mage_game()
    fill(g, "c", F=2)
    g.set_conduit("c", "m", "a master", "0,0", "master")
    refused_with(g, lambda: cast(g, "fireball", "FF", power="c", through="m"), NotFound, "P-ASSET-8")


# ---------------------------------------------------------------- P-RES-6: ritual resistance


def _resisted_ritual(resist_faces: list[int]) -> Game:
    g = _ritual_game(power_specific=False)
    g.define_spell("curse", "Curse", "ritual", "2F")  # difficulty 4: a resister needs 2 successes
    g.teach_spell("w", "curse")
    g.grant_asset("z-might", "z", "might", "skill", len(resist_faces))
    fill(g, "w", F=3, A=1)
    ritual_month(g, "curse", [6, 6, 6, 6], action_id="R", targets=["z"], resistible=True)
    g.advance(NOW, SEED)
    g.resolve(now=NOW, roller=FixedRoller())
    g.declare_reaction(
        "z", "rz", "R", now=later(1), roller=FixedRoller(resist_faces), assets=[{"asset_id": "z-might"}], convert=0
    )
    return g


def test_p_res_6_a_resister_with_half_the_difficulty_is_protected_and_the_ritual_is_not_reduced():
    """P-RES-6 "A resister is protected if S_resist >= ceil(difficulty/2) ... " (P-AMB-8: protection applies
    only to that resister; the ritual still resolves on its own successes, no subtraction)."""
    g = _resisted_ritual([6, 5])
    a = resolved_of(g, "R")
    result = a["result"]
    assert (a["status"], result["successes"], result["net"], result["resisted"], result["success"]) == (
        "resolved",
        4,
        4,
        0,
        True,
    )
    warded = [e for e in g.collect_events() if type(e).__name__ == "RitualWarded"]
    assert [(e.power_id, e.successes, e.protected, e.audience) for e in warded] == [
        ("z", 2, True, ["power:w", "power:z"])
    ]
    assert seen(g)["magic"]["inflation"] == {"curse": 1}


def test_p_res_6_a_resister_short_of_half_the_difficulty_is_not_protected():
    g = _resisted_ritual([6, 1])
    warded = [e for e in g.collect_events() if type(e).__name__ == "RitualWarded"]
    assert [(e.successes, e.protected) for e in warded] == [(1, False)]
    assert action_of(g, "R")["result"]["net"] == 4
    assert mr.protection_needed(5) == 3 and mr.ritual_protected(2, 5) is False


def test_p_res_6_dispelling_a_permanent_ritual_has_its_original_difficulty():
    """P-RES-6 "Dispelling a permanent ritual has the ritual's original difficulty." The ritual's cost has
    grown since (P-MAG-4); the dispel's difficulty has not."""
    g = _ritual_game(power_specific=False)
    fill(g, "w", E=2)
    ritual_month(g, "ward", [6, 6, 1, 1], action_id="RW")
    resolve_month(g)
    cast_id = next(iter(seen(g)["magic"]["powers"]["w"]["rituals_completed"]))
    assert seen(g)["magic"]["inflation"] == {"ward": 1}
    g.advance(NOW, SEED)
    submit(g, "z", "D", roll=False)
    refused_with(g, lambda: g.declare_dispel("D", "nothing"), NotFound, "P-RES-6")
    g.declare_dispel("D", cast_id)
    assert action_of(g, "D")["difficulty"] == 2


# ---------------------------------------------------------------- P.4: who sees mana and spells


def test_p4_mana_spells_and_conduits_are_shown_to_their_owner_and_the_gm_only():
    """P.4 "Resources: coin, respect, fear, mana ... private"; "Assets (... spells)" hidden; "Perks are
    public"."""
    g = mage_game()
    g.define_spell("secret-art", "Whispering Flame", "fast", "1F", for_power="w")
    g.teach_spell("w", "secret-art")
    g.grant_magic_perk("w", "vessel_heart")
    fill(g, "w", F=2)
    mine, theirs, gm = board_view(g, "w"), board_view(g, "c"), board_view(g, "gm")
    assert mine["magic"]["powers"]["w"]["mana"] == {"F": 2}
    assert {s["name"] for s in mine["magic"]["powers"]["w"]["known"]} == {"Fireball", "Whispering Flame"}
    assert theirs["magic"]["powers"]["w"] == {"perks": {"vessel_heart": {"elements": []}}}
    assert "Whispering Flame" not in str(theirs) and "the wizard" not in str(theirs)
    assert gm["magic"]["powers"]["w"]["mana"] == {"F": 2}
    assert "Whispering Flame" in str(gm["magic"]["catalogue"])
    teach = [e for e in g.collect_events() if type(e).__name__ in ("SpellDefined", "SpellLearned", "ConduitSet")]
    assert all(e.audience == ["power:w"] for e in teach)


# ---------------------------------------------------------------- P-EX-3: Fireball costs [003:509]


def test_p_ex_3_fireball_costs_two_fire_and_any_two_other_mana_rank_two_element_fire():
    """[003:509] "Fireball's Cost is a fast spell with cost 2FF, so casting it costs two instances of Fire mana
    plus any two other mana. Its rank is 2 and its element is just Fire, even when a Water and an Earth mana
    were spent on the generic components." Cases: pay [F,F,W,E] ok; pay [F,F,F,F] ok."""
    for pay in ("FFWE", "FFFF"):
        g = mage_game()
        g.grant_magic_perk("w", "elemental_specialization", "F")  # four Fire is more than a Wizard's three
        fill(g, "w", F=4, W=1, E=1)
        out = cast(g, "fireball", pay)
        assert (out["rank"], out["elements"], sum(out["paid"].values())) == (2, ["F"], 4)


def test_p_ex_3_short_payments_fail():
    """P-EX-3: pay [F,F,W] -> generic short by 1; pay [F,W,W,E] -> elemental F short by 1."""
    g = mage_game()
    fill(g, "w", F=3, W=3, E=3)
    assert refused(g, lambda: cast(g, "fireball", "FFW"), "P-MAG-2").message.endswith("generic short by 1")
    assert refused(g, lambda: cast(g, "fireball", "FWWE"), "P-MAG-2").message.endswith("elemental F short by 1")


def test_p_ex_3_improvised_instants_pays_one_fire_with_two_water():
    """P-EX-3: perk ImprovisedInstants, pay [F,W,W,E,E] -> ok, rank 2, elements [F] (one F paid by WW)."""
    g = mage_game()
    g.grant_magic_perk("w", "improvised_instants")
    fill(g, "w", F=1, W=2, E=2)
    out = cast(g, "fireball", "FWWEE")
    assert (out["rank"], out["elements"], out["paid"]) == (2, ["F"], {"E": 2, "F": 1, "W": 2})
    assert sheet_of(g, "w")["mana"] == {}


def test_p_ex_3_a_slow_spell_and_a_ritual_of_the_same_cost():
    """P-EX-3: "A slow spell with the cost 2FF would have rank 3." Derived: as a ritual, rank 4, difficulty 4;
    after one successful cast, cost 4FF, rank 8, difficulty 8."""
    g = mage_game()
    g.define_spell("slow-fireball", "Slow Fireball", "slow", "2FF")
    g.define_spell("fire-ritual", "Fire Ritual", "ritual", "2FF")
    g.teach_spell("w", "slow-fireball")
    g.teach_spell("w", "fire-ritual")
    fill(g, "w", F=3, E=3)
    submit(g, "w", "A1", roll=False)
    assert cast(g, "slow-fireball", "FFEE", action_id="A1", cast_id="k1")["rank"] == 3
    fill(g, "w", F=2, E=1)
    ritual_month(g, "fire-ritual", [6, 6, 6, 6], action_id="R")
    (ritual,) = [c for c in seen(g)["magic"]["powers"]["w"]["casts_this_month"] if c["cast_id"] == "cast-R"]
    assert (action_of(g, "R")["difficulty"], ritual["rank"]) == (4, 4)
    resolve_month(g)
    assert action_of(g, "R")["result"]["success"] is True
    known = {s["spell_id"]: s for s in board_view(g, "w")["magic"]["powers"]["w"]["known"]}
    assert (known["fire-ritual"]["cost"], known["fire-ritual"]["rank"], known["fire-ritual"]["difficulty"]) == (
        "4FF",
        8,
        8,
    )


def test_p_ex_3_witchcraft_gains_influence_equal_to_fireballs_rank_in_the_target_hex():
    """P-EX-3: influence_mechanism Witchcraft, spell Fireball (fast) -> influence gain in the target hex 2
    ([003:1124] "Once per season, when you cast a spell, gain influence equal to the spell's rank in the
    targeted hex")."""
    g = mage_game()
    g.teach_spell("c", "fireball")
    refused(g, lambda: g.grant_magic_perk("w", "witchcraft"), "P-INFL-5")  # a conspiracy's mechanism
    g.grant_magic_perk("c", "witchcraft")
    g.set_conduit("c", "m", "a master", "1,1", "master")
    fill(g, "c", F=2)
    g.grant_mana("c", "W", 2)
    submit(g, "c", "A1", roll=False)
    cast(g, "fireball", "FFWW", power="c", through="m", action_id="A1")
    assert sheet_of(g, "c")["influence"] == {"1,1": 2}
    fill(g, "c", F=2, W=2)
    cast(g, "fireball", "FFWW", power="c", through="m", action_id="A1", cast_id="k2")
    assert sheet_of(g, "c")["influence"] == {"1,1": 2}  # once per season


# ---------------------------------------------------------------- P-EX-7: Aaron's ritual [003:237]


def test_p_ex_7_aarons_ritual_is_difficulty_6_by_override_and_its_nine_mana_need_a_cooperative_ritual():
    """P-EX-7 BladeOfAaronNoda: task "Cast Aaron's ritual ... Cost: WWWWAAAAA, Difficulty 6". "The cost has no
    generic component, so the formula gives rank 0 / difficulty 0. The stated Difficulty 6 must be an explicit
    override (P-AMB-35). Also: 9 mana exceeds most storage caps (e.g. 3 per element) -> needs a cooperative
    ritual ([003:505])." """
    cost = mr.parse_cost("WWWWAAAAA")
    assert (mr.rank("ritual", cost), mr.ritual_difficulty(cost)) == (0, 0)
    assert mr.ritual_difficulty(cost, 6) == 6
    g = mage_game()
    g.teach_spell("w", "aarons-ritual")
    refused(g, lambda: g.grant_mana("w", "A", 4), "P-MAG-1")  # a Wizard stores 3 of each element
    fill(g, "w", A=3, W=3)
    submit(g, "w", "R", roll=False, collaborators=["c"])
    refused(g, lambda: cast(g, "aarons-ritual", "WWWWAAAAA", action_id="R"), "P-MAG-1")  # alone it is short
    fill(g, "c", A=2, W=1)
    g.contribute_mana("c", "R", ["A", "A", "W"], now=NOW)
    out = cast(g, "aarons-ritual", "WWWWAAAAA", action_id="R")
    assert (out["rank"], out["difficulty"], out["paid"]) == (0, 6, {"A": 5, "W": 4})
    assert action_of(g, "R")["difficulty"] == 6


# ---------------------------------------------------------------- every other refusal names its rule, records nothing


def test_magic_refusals_name_their_rule_and_record_nothing():
    g = mage_game()
    g.define_spell("art", "Art of W", "fast", "F", for_power="w")
    g.define_spell("mend", "Mend", "slow", "W")
    g.teach_spell("w", "mend")
    fill(g, "w", F=2, W=2)
    rule_violations = [
        (lambda: g.teach_spell("c", "art"), "GM-15"),  # another power's design
        (lambda: g.teach_spell("w", "fireball"), "P-ASSET-8"),  # known already
        (lambda: g.grant_magic_perk("w", "telekinesis"), "P-MAG-6"),
        (lambda: g.grant_magic_perk("w", "elemental_specialization"), "P-MAG-1"),  # names no element
        (lambda: g.grant_magic_perk("w", "vessel_heart", "F"), "P-MAG-6"),
        (lambda: g.grant_magic_perk("w", "elemental_efficiency", "L"), "P-MAG-6"),  # terrestrial only
        (lambda: g.grant_magic_perk("w", "perfected_spell", spells=[1]), "P-MAG-6"),
        (lambda: g.set_conduit("w", "x", "X", "0,0", "dragonfly"), "P-MAG-5"),
        (lambda: g.set_conduit("w", "x", "X", "north", "person"), "P-ACT-4"),
        (lambda: g.define_spell("far", "Far", "fast", "F", range=99), "P-MAG-5"),
        (lambda: g.define_spell("hard", "Hard", "fast", "F", difficulty=3), "P-MAG-3"),
        (lambda: g.channel_mana("w-act", "F", 0, now=NOW), "P-MAG-1"),
        (lambda: g.contribute_mana("c", "w-act", [], now=NOW), "P-DICE-11"),
        (lambda: cast(g, "fireball", "FF", through=["self"]), "P-MAG-2"),
        (lambda: cast(g, "fireball", [2]), "P-MAG-2"),
        (lambda: cast(g, "fireball", "FFWW", target="0,0", now=later(24 * 30)), "P.1.2"),  # after the deadline
    ]
    for call, rule in rule_violations:
        refused(g, call, rule)
    g.grant_magic_perk("w", "vessel_heart")
    refused(g, lambda: g.grant_magic_perk("w", "vessel_heart"), "P-MAG-6")  # once
    refused_with(g, lambda: g.teach_spell("w", "nothing"), NotFound, "GM-15")
    refused_with(g, lambda: g.remove_conduit("w", "nothing"), NotFound, "P-MAG-5")
    refused_with(g, lambda: cast(g, "fireball", "FF", action_id="c-act"), NotFound, "P-ACT-3")  # not its action
    submit(g, "w", "S", roll=False)
    g.set_difficulty("S", 3, sealed=True, nonce="n" * 16)
    g.define_spell("rite", "Rite", "ritual", "W")
    g.teach_spell("w", "rite")
    refused(g, lambda: cast(g, "rite", "W", action_id="S"), "P-MAG-3")  # its difficulty is the ritual's
    submit(g, "w", "D", [6, 6, 6, 6], assets=[{"asset_id": "w-lore"}], convert=0)
    g.discard_action("D", now=NOW)
    refused(g, lambda: cast(g, "fireball", "FFWW", action_id="D"), "P-DICE-10")
    g.advance(NOW, SEED)
    refused(g, lambda: g.channel_mana("w-act", "F", 1, now=NOW), "P.1.2")
    refused(g, lambda: cast(g, "mend", "W", action_id="w-act"), "P-ACT-3")  # Resolution: no casting in actions
    g.resolve(now=NOW, roller=FixedRoller())
    assert step_of(g) == "battle"
    g.advance(NOW, SEED)
    submit(g, "c", "C1", [6, 1, 1], assets=[{"asset_id": "c-lore"}], targets=["w"], resistible=True, convert=0)
    g.advance(later(1), SEED)
    g.resolve(now=later(1), roller=FixedRoller())
    assert step_of(g) == "resistance"
    g.teach_spell("c", "fireball")
    g.set_conduit("c", "m", "a master", "0,0", "master")
    fill(g, "c", F=2, W=2)
    refused(g, lambda: cast(g, "fireball", "FFWW", power="c", through="m", action_id=None), "P-RES-3")
    assert cast(g, "fireball", "FFWW", action_id=None, now=later(2))["context"] == "resistance"  # w may resist
    g.declare_reaction("w", "rw", "C1", now=later(2), roller=FixedRoller([1, 1, 1, 1]), assets=[{"asset_id": "w-lore"}])
    assert step_of(g) == "battle"
