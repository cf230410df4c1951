"""Every text a person types has a length limit (domain/limits.py), enforced by the command itself,
so the JSON API, the web forms and the mail intake are all covered. A refusal names the field and
records nothing."""

from __future__ import annotations

import copy

import pytest

from domain import limits
from domain.errors import RuleViolation
from domain.powers.game import Game
from tests.domain.helpers import NOW, SEED, action_of, game_in_planning, later, seen, submit

MB = "x" * 1_000_000


def refused_by_field(g: Game, call, field: str) -> RuleViolation:
    g.collect_events()
    before = copy.deepcopy(g.state)
    with pytest.raises(RuleViolation) as info:
        call()
    assert info.value.field == field, info.value.message
    assert g.collect_events() == [] and g.state == before
    assert len(info.value.message) < 200  # the refusal does not echo the megabyte back
    return info.value


def planning() -> Game:
    return game_in_planning(("c", "conspiracy", "circle"), ("s", "city", "sovereign"))


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"name": MB}, "name"),
        ({"name": "x" * (limits.GAME_NAME + 1)}, "name"),
        ({"gm_name": MB}, "gm_name"),
        ({"timezone": MB}, "timezone"),
    ],
)
def test_a_game_is_not_created_with_overlong_text(kwargs, field):
    args = {"name": "g", "gm_name": "gm", **kwargs}
    with pytest.raises(RuleViolation) as info:
        Game.start(**args)
    assert info.value.field == field


def test_the_longest_allowed_name_is_accepted():
    assert seen(Game.start("x" * limits.GAME_NAME, "gm"))["game"]["name"] == "x" * limits.GAME_NAME


def test_a_power_name_of_100000_characters_is_refused():
    g = Game.start("g", "gm")
    refused_by_field(g, lambda: g.add_power("p", "x" * 100_000, "city", "sovereign"), "name")


def test_an_asset_name_is_limited():
    g = Game.start("g", "gm")
    g.add_power("p", "P", "city", "sovereign")
    refused_by_field(g, lambda: g.grant_asset("a", "p", MB, "agent", 2), "name")


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"title": MB}, "title"),
        ({"description": MB}, "description"),
        ({"description": "d" * (limits.DESCRIPTION + 1)}, "description"),
        ({"location": MB}, "location"),
        ({"targets": ["s"] * (limits.ITEMS + 1)}, "targets"),
    ],
)
def test_an_action_text_is_limited(kwargs, field):
    g = planning()
    refused_by_field(g, lambda: submit(g, "c", "a1", [], **kwargs), field)


def test_a_description_at_the_limit_is_accepted():
    g = planning()
    submit(g, "c", "a1", [], description="d" * limits.DESCRIPTION)
    assert len(action_of(g, "a1")["description"]) == limits.DESCRIPTION


def test_gm_texts_are_limited():
    g = planning()
    submit(g, "c", "a1", [], convert=0)
    refused_by_field(g, lambda: g.propose_consequence("a1", "csq", MB, []), "text")
    refused_by_field(
        g, lambda: g.propose_consequence("a1", "csq", "t", [{"kind": "status", "name": MB, "stacks": 1}]), "effects"
    )
    refused_by_field(
        g,
        lambda: g.propose_consequence("a1", "csq", "t", [{"kind": "status", "name": {"a": 1}, "stacks": 1}]),
        "effects",
    )
    refused_by_field(
        g, lambda: g.propose_consequence("a1", "csq", "t", [{"kind": "disclose", "to": ["s"], "text": "x"}]), "effects"
    )
    refused_by_field(g, lambda: g.set_difficulty("a1", 2, tiers={"3": MB}), "tiers")
    refused_by_field(g, lambda: g.grant_visibility("s", MB), "text")
    refused_by_field(g, lambda: g.set_influence("c", MB, 2), "hex")
    refused_by_field(g, lambda: g.set_timezone("c", MB), "timezone")
    g.advance(later(1), SEED)
    refused_by_field(g, lambda: g.resolve(now=later(2), roller=None, announcement=MB), "announcement")


def test_window_texts_are_limited():
    g = planning()
    refused_by_field(g, lambda: g.request_extension("c", "s1m1-planning", 2, "r1", now=NOW, reason=MB), "reason")
    g.request_extension("c", "s1m1-planning", 2, "r1", now=NOW, reason="travel")
    refused_by_field(g, lambda: g.refuse_extension("r1", MB), "reason")


def test_rewind_texts_are_limited():
    g = planning()
    refused_by_field(g, lambda: g.rollback(2, copy.deepcopy(g.state), reason=MB, now=NOW, seed=SEED), "reason")
    refused_by_field(g, lambda: g.mark_forked("x", 2, name=MB, reason="", seed=SEED), "name")


@pytest.mark.parametrize(
    "email", [MB + "@example.org", "x" * 250 + "@example.org", "not an email", "a@b", "a@@example.org"]
)
def test_a_contact_address_is_a_valid_email_of_at_most_254_characters(email):
    g = planning()
    refused_by_field(g, lambda: g.set_contact("c", email), "email")


def test_a_valid_contact_address_is_recorded_normalized():
    g = planning()
    g.collect_events()
    g.set_contact("c", "Ana@Example.ORG")
    assert [e.email for e in g.collect_events() if type(e).__name__ == "ContactSet"] == ["Ana@example.org"]
