"""The ruleset registry (DESIGN "Rulesets on one platform"): a ruleset is a value registered by name."""

from __future__ import annotations

import dataclasses

import pytest

from domain.platform import ruleset as registry
from domain.platform.commands import DeclareReady, declare_ready
from domain.platform.ruleset import RulesetNotInstalled, UnknownRuleset
from domain.powers import rules
from domain.powers.commands import SubmitAction, submit_action
from domain.powers.game import Game
from domain.powers.options import PowersOptions
from domain.powers.ruleset import POWERS
from tests.domain.helpers import seen


def test_powers_is_registered_with_its_version_options_and_steps():
    assert "powers" in registry.names()
    assert registry.get("powers") is POWERS
    assert POWERS.version == rules.RULES_VERSION
    assert POWERS.options is PowersOptions
    assert POWERS.aggregate is Game
    assert tuple(s.name for s in POWERS.steps) == rules.STEPS
    assert POWERS.step("planning").opens == ("planning",)
    assert POWERS.commands[SubmitAction] is submit_action
    assert POWERS.handler(DeclareReady("gondor")) is declare_ready  # platform commands: every ruleset gets them


def test_an_unknown_ruleset_is_refused_naming_the_field_and_the_registered_ones():
    with pytest.raises(UnknownRuleset) as err:
        registry.get("chess")
    assert err.value.field == "ruleset"
    assert "'chess'" in err.value.message and "powers" in err.value.message


def test_a_second_ruleset_under_a_taken_name_is_refused_and_the_same_value_again_is_not():
    assert registry.register(POWERS) is POWERS
    with pytest.raises(ValueError, match="'powers' is already registered"):
        registry.register(dataclasses.replace(POWERS, version="other"))
    assert registry.get("powers") is POWERS


def test_a_game_is_created_with_the_registered_ruleset_name_and_version():
    game = Game.start("g", "gm")
    header = seen(game)["game"]
    assert (header["ruleset"], header["rules_version"]) == ("powers", POWERS.version)
    assert game.ruleset is POWERS


def test_a_game_pinned_at_a_version_the_installed_ruleset_does_not_load_is_refused_naming_both_versions():
    assert registry.for_game("powers", POWERS.version) is POWERS
    with pytest.raises(RulesetNotInstalled) as err:
        registry.for_game("powers", "powers-2031.01")
    assert err.value.field == "rules_version" and err.value.status == 501
    assert "'powers-2031.01'" in err.value.message and POWERS.version in err.value.message
    older = dataclasses.replace(POWERS, version="powers-2027.01", loads=frozenset({POWERS.version}))
    registry.unregister("powers")
    try:
        registry.register(older)
        assert registry.for_game("powers", POWERS.version) is older  # a newer ruleset still loads older games
    finally:
        registry.unregister("powers")
        registry.register(POWERS)
    with pytest.raises(RulesetNotInstalled) as gone:
        registry.for_game("chess", "chess-1")
    assert gone.value.field == "ruleset" and "'chess'" in gone.value.message and "powers" in gone.value.message


def test_powers_declares_its_notification_texts_phases_and_seats():
    """The read models ask these of the game's ruleset (issue 11); Powers' own texts live in domain/powers."""
    assert POWERS.notify is not None and POWERS.mail_grammar is not None
    assert POWERS.notify("StepBegan", {"season": 1, "month": 2, "step": "planning"}) == {
        "subject": "Season 1, month 2: Planning",  # the phase by its title (issue 28)
        "text": "Planning has begun: submit your actions.",
    }
    assert POWERS.notify("StepBegan", {"season": 1, "month": 2, "step": "battle"}) is None  # no mail for every step
    assert POWERS.notify("PowerAdded", {"power_id": "p1"}) is None
    game = Game.start("Seats", "GM")
    game.add_power("p-a", "A", "champion", "dragon")
    events = game.collect_events()
    assert [POWERS.seat_of(e) for e in events if POWERS.seat_of(e) is not None] == ["p-a"]
    assert [POWERS.phase_of(e) for e in events] == [None] * len(events)  # setup begins no phase of its own
