"""Issue 25: every ruleset's campaign options are validated when a game is created through the API: an unknown
option, or any option of the wrong type, is refused with 422 naming the option and the ruleset, and nothing is
recorded. Generic over the installed rulesets and their option schemas, so a new option is covered when added."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from domain import rulesets as installed

RULESETS = {r.name: r for r in installed.INSTALLED}
WRONG = ("not a value", {"not": "a value"}, 1.5, True, -(10**9), None)  # one of them is ill-typed for any option


def stored(api) -> int:
    return api.app.state.games.recorder.max_notification_id() or 0


def ill_typed(model: type[BaseModel], option: str) -> Any:
    """A value the option's schema refuses, on its own."""
    for value in WRONG:
        try:
            model.model_validate({option: value})
        except ValidationError:
            return value
    raise AssertionError(f"{model.__name__}.{option} accepts every value tried")


def refused(api, ruleset: str, options: dict[str, Any], field: str) -> None:
    before = stored(api)
    r = api.post("/games", json={"ruleset": ruleset, "name": "Refused", "options": options})
    assert r.status_code == 422, r.text
    body = r.json()
    assert body["field"] == field and f"'{ruleset}'" in body["message"] and field in body["message"], body
    assert stored(api) == before


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_an_unknown_option_is_refused_naming_it_and_the_rulesets_options(api, name):
    refused(api, name, {"no_such_option": 1}, "options.no_such_option")
    r = api.post("/games", json={"ruleset": name, "name": "Again", "options": {"no_such_option": 1}})
    for option in RULESETS[name].options.model_fields:
        assert option in r.json()["message"]


@pytest.mark.parametrize("name", sorted(RULESETS))
def test_every_option_of_the_wrong_type_is_refused_naming_it(api, name):
    model = RULESETS[name].options
    for option in model.model_fields:
        refused(api, name, {option: ill_typed(model, option)}, f"options.{option}")
