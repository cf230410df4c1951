"""The ruleset registry (DESIGN "Rulesets on one platform"): a ruleset is a value registered by name."""

from __future__ import annotations

import dataclasses

import pytest

from domain.platform import ruleset as registry
from domain.platform.ruleset import UnknownRuleset
from domain.powers import rules
from domain.powers.game import Game
from domain.powers.options import PowersOptions
from domain.powers.ruleset import POWERS


def test_powers_is_registered_with_its_version_options_and_steps():
    assert "powers" in registry.names()
    assert registry.get("powers") is POWERS
    assert POWERS.version == rules.RULES_VERSION
    assert POWERS.options is PowersOptions
    assert POWERS.aggregate is Game
    assert tuple(s.name for s in POWERS.steps) == rules.STEPS
    assert POWERS.step("planning").opens == ("planning",)
    assert POWERS.commands["submit_action"] is Game.submit_action


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
    assert (game.state.ruleset, game.state.rules_version) == ("powers", POWERS.version)
    assert game.ruleset is POWERS
