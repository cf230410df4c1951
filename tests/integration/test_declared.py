"""One declaration per command (issue 26): a command a ruleset declares once (``api.declare``) gets its JSON route
and its OpenAPI entry, with no route written for it."""

from __future__ import annotations

import pytest
from fastapi import FastAPI

from api import declare, rulesets
from api.app import create_app
from api.declare import Declared, Route
from api.powers.schemas import SeasonLengthRequest
from domain.powers.commands import SetMonths
from projections.settings import Settings
from tests.integration.helpers import close_app

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def spec():
    app = create_app(Settings(database_url="memory"))
    yield app.openapi()
    close_app(app)


def test_a_command_declared_once_gets_its_route_and_its_openapi_entry():
    app = FastAPI()
    doc = "GM: the months of this season."
    declared = Declared(SetMonths, Route("PUT", "/months", "months", doc, SeasonLengthRequest, 202))
    app.include_router(declare.router([declared], tags=["probe"]))
    op = app.openapi()["paths"]["/games/{game_id}/months"]["put"]
    assert op["description"] == doc and op["tags"] == ["probe"] and op["operationId"].startswith("months_")
    assert op["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/SeasonLengthRequest")
    assert "202" in op["responses"] and "409" in op["responses"]
    assert [p["name"] for p in op["parameters"] if p["in"] == "path"] == ["game_id"]


def test_every_declared_route_of_every_ruleset_is_served_and_documented(spec):
    found = 0
    for ruleset in rulesets.API_PACKAGES:
        for d in declare.declared_of(ruleset):
            if d.route is None:
                continue
            found += 1
            op = spec["paths"][f"/games/{{game_id}}{d.route.path}"][d.route.method.lower()]
            assert op["operationId"].startswith(d.route.name + "_"), d.command
            assert str(d.route.status) in op["responses"], d.command
            assert [p["name"] for p in op["parameters"] if p["in"] == "path"] == ["game_id", *d.route.parameters()]
            if d.route.body is not None:
                ref = op["requestBody"]["content"]["application/json"]["schema"]["$ref"]
                assert ref.endswith("/" + d.route.body.__name__), d.command
    assert found >= 18  # Powers' routes at least
