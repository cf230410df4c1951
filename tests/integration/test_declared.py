"""One declaration per command (issue 26): a command a ruleset declares once (``api.declare``) gets its JSON route
and its OpenAPI entry, with no route written for it."""

from __future__ import annotations

import dataclasses
import json
from datetime import datetime

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from api import declare, rulesets
from api.app import create_app
from api.declare import Declared, Route
from api.powers.schemas import SeasonLengthRequest
from domain.platform.commands import Command
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


def session_csrf(app, browser: TestClient) -> str:
    """The browser session's CSRF token (the table has no board to read it from)."""
    return app.state.sessions.load(browser.cookies["emissary_session"]).csrf


def test_the_fake_ruleset_declares_its_commands_in_its_own_package_and_gets_their_routes_and_forms(spec, tmp_path):
    """The table (tests/plugins/emissary-fake) declares Join and Post once, in its own package; no platform file
    names it, yet its JSON routes are served and documented and its forms are posted, each through ``Games.run``."""
    declared = declare.declared_of("table")
    assert {d.command.__name__ for d in declared} == {"Join", "Post"}
    assert spec["paths"]["/games/{game_id}/table/seats"]["post"]["tags"] == ["table"]
    assert "/games/{game_id}/table/posts" in spec["paths"]
    assert set(declare.forms_of("table")) == {"join", "post"}
    app = create_app(Settings(data_dir=tmp_path))
    try:
        api = TestClient(app)
        r = api.post("/games", json={"name": "Table", "ruleset": "table"})
        gid, gm = r.json()["game_id"], {"Authorization": f"Bearer {r.json()['gm_token']}"}
        r = api.post(f"/games/{gid}/table/seats", json={"seat_id": "ann", "name": "Ann"}, headers=gm)
        assert r.status_code == 201 and r.json()["events"][0] == "Joined", r.text
        r = api.post(f"/games/{gid}/table/posts", json={"seat_id": "ann", "text": "hello"}, headers=gm)
        assert r.status_code == 201 and r.json()["events"] == ["Posted"], r.text
        r = api.post(f"/games/{gid}/table/posts", json={"seat_id": "cy", "text": "hello"}, headers=gm)
        assert r.status_code == 422 and r.json()["rule"] == "TABLE-1"  # the table's own rule, as from any channel
        browser = TestClient(app)
        browser.get(f"/signin/{gid}/{r.request.headers['Authorization'][7:]}")
        csrf = session_csrf(app, browser)
        r = browser.post(
            f"/play/{gid}/join", data={"seat_id": "bob", "name": "Bob", "csrf": csrf}, follow_redirects=False
        )
        assert r.status_code == 303 and r.headers["location"] == f"/play/{gid}#seats"
        assert api.get(f"/games/{gid}/view", headers=gm).json()["seats"] == ["ann", "bob"]
    finally:
        close_app(app)


def test_each_command_is_declared_once_and_each_form_has_a_name_of_its_own():
    from api.web.routes import FORMS as PLATFORM_FORMS

    for ruleset in rulesets.API_PACKAGES:
        declared = declare.declared_of(ruleset)
        commands = [d.command for d in declared]
        assert len(commands) == len(set(commands)), ruleset
        names = [d.form.name for d in declared if d.form is not None]
        assert len(names) == len(set(names)) and not set(names) & set(PLATFORM_FORMS), ruleset
        routes = [(d.route.method, d.route.path) for d in declared if d.route is not None]
        assert len(routes) == len(set(routes)), ruleset


ROUTE_ARGS = [  # (command, a route's fields as its request schema dumps them)
    ("SubmitAction", {"power_id": "p1", "title": "Scout", "targets": ["a", "b"], "difficulty": None, "convert": 0}),
    ("SubmitAction", {"power_id": "p1", "title": "Raid", "assets": [{"kind": "might", "n": 2, "tags": ["x"]}]}),
    ("SubmitAction", {"power_id": "p1", "title": "Raid", "assets": [{"weight": 0.5}]}),  # a fraction: the adapter's
    ("RollAction", {"action_id": "act-1", "extra_actions": 2, "convert": None}),
]


@pytest.mark.parametrize("name, args", ROUTE_ARGS)
def test_a_routes_command_of_plain_fields_built_directly_is_the_one_its_json_gives(name, args):
    """Issue 30: a route's command whose fields are all plain JSON types is built from its fields directly (its
    ``__post_init__`` checks each strictly), not through JSON and the adapter; it is the same command, field for field
    and of the same types."""
    from domain.powers import commands as pc

    cls = getattr(pc, name)
    assert declare._plain(cls)
    built = declare.build(cls, dict(args), where="")
    via_json = declare._adapter(cls).validate_json(json.dumps(args), strict=True)
    assert built == via_json
    assert [type(v) for v in vars(built).values()] == [type(v) for v in vars(via_json).values()]


@pytest.mark.parametrize(
    "args, field",
    [
        ({"power_id": "p1", "title": 5}, "title"),  # refused by the command's own check, named as the adapter names it
        ({"power_id": "p1"}, "title"),  # missing
        ({"power_id": "p1", "title": "x", "targets": "a"}, "targets"),
        ({"power_id": "p1", "title": "x", "convert": True}, "convert"),  # a bool is no count
        ({"power_id": "p1", "title": "x", "assets": [{"n": float("nan")}]}, ""),  # no JSON number
    ],
)
def test_a_routes_command_refused_on_the_direct_path_is_refused_as_the_adapter_refuses_it(args, field):
    from domain.errors import RuleViolation
    from domain.powers.commands import SubmitAction

    with pytest.raises(RuleViolation) as err:
        declare.build(SubmitAction, dict(args), where="")
    assert err.value.field == field or (not field and "not a JSON number" in err.value.message), err.value.as_dict()


@dataclasses.dataclass(frozen=True)
class _Timed(Command):
    at: datetime
    hours: float = 1.0
    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)


@dataclasses.dataclass(frozen=True)
class _Loose(Command):
    name: str
    things: list[dict[str, object]] = dataclasses.field(default_factory=list)


def test_only_commands_of_plain_json_fields_are_built_directly():
    """A time, a float, a tuple (which JSON converts) or a type JSON has not: the adapter builds the command."""
    assert not declare._plain(_Timed) and not declare._plain(_Loose)
    built = declare.build(_Timed, {"at": "2026-01-01T00:00:00+00:00", "hours": 2, "tags": ["a"]}, where="")
    assert built.at == datetime.fromisoformat("2026-01-01T00:00:00+00:00") and built.tags == ("a",)
    assert built.hours == 2.0 and type(built.hours) is float
