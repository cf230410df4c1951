"""Inputs within bounds (issue 24, item 5): every whole number a request names, in a path, a query or a body
(the JSON API's routes, every ruleset's, the web pages'), is within what both stores hold, a signed 64-bit
column (``domain.limits.BIGINT``); anything beyond is refused (422) naming the field, and records nothing.

The routes and their whole-number parameters are found by walking the app, so a new route is covered here
without editing this test; so are the commands of every installed ruleset through the generic route.
"""

from __future__ import annotations

import dataclasses
import re
import types
import typing
from collections.abc import Iterator
from typing import Annotated, Any

import pytest
from fastapi.routing import APIRoute
from pydantic import TypeAdapter

from api.app import create_app
from api.compose import build_games
from api.mail_intake import MailIntake
from domain import limits
from domain.errors import RuleViolation
from domain.platform.commands import PLATFORM_COMMANDS
from domain.rulesets import INSTALLED
from projections.settings import Settings
from tests.integration.helpers import bearer, close_app
from tests.mail.test_smtp import TURN, setup_game

pytestmark = pytest.mark.integration

BEYOND = {"2^63": 2**63, "2^64": 2**64, "-2^63-1": -(2**63) - 1}
# A value for each path parameter that is not the game (what the route looks up may not exist: the bounds
# are checked first), and for the required query parameters that are not numbers, so that the largest number
# accepted reaches the store. A new route's other required parameters still name themselves beside the number.
SAMPLE = {"thread_id": "table"}
QUERY = {"/games/{game_id}/posts": {"tied_to": "phase:setup"}, "/games/{game_id}/search": {"q": "word"}}


def app_routes(app) -> Iterator[Any]:
    """Every route of the app (FastAPI's own and those of every router it includes), as FastAPI runs it."""
    for route in app.routes:
        if hasattr(route, "effective_route_contexts"):  # an included router (FastAPI >= 0.160)
            yield from route.effective_route_contexts()
        elif isinstance(route, APIRoute):
            yield route


def _params(dependant) -> Iterator[Any]:
    yield from dependant.path_params
    yield from dependant.query_params
    for sub in dependant.dependencies:
        yield from _params(sub)


def integer_schema(param) -> dict | None:
    """The JSON schema of a parameter's whole number (its bounds), or None if it takes none."""
    info = param.field_info
    hint = Annotated[info.annotation, *info.metadata] if info.metadata else info.annotation
    schema = TypeAdapter(hint).json_schema()
    return next((s for s in (schema, *schema.get("anyOf", ())) if s.get("type") == "integer"), None)


def integer_params(app) -> dict[tuple[str, str], dict[str, dict]]:
    """(method, path) -> {parameter name: its integer schema}, for every route that takes a whole number."""
    found: dict[tuple[str, str], dict[str, dict]] = {}
    for route in app_routes(app):
        ints = {p.alias: s for p in _params(route.dependant) if (s := integer_schema(p)) is not None}
        for method in sorted(route.methods or ()):
            if ints and method != "HEAD":
                found[(method, route.path)] = ints
    return found


def _routes_with_integers() -> dict[tuple[str, str], dict[str, dict]]:
    app = create_app(Settings(database_url="memory"))
    try:
        return integer_params(app)
    finally:
        close_app(app)


ROUTES = _routes_with_integers()


def recorded(api) -> int:
    return api.app.state.games.recorder.max_notification_id() or 0


def new_game(api, ruleset: str | None = None) -> tuple[str, dict]:
    body = {"name": "Bounds"} | ({"ruleset": ruleset} if ruleset else {})
    r = api.post("/games", json=body)
    assert r.status_code == 201, r.text
    return r.json()["game_id"], bearer(r.json()["gm_token"])


def test_the_walk_finds_the_routes_named_in_the_issue():
    """The routes whose huge numbers answered 500 (issue 24) are among those the walk finds."""
    for route, param in [
        ("/games/{game_id}/events", "after"),
        ("/games/{game_id}/feed", "after"),
        ("/games/{game_id}/audit", "after"),
        ("/games/{game_id}/phases", "after"),
        ("/games/{game_id}/view", "version"),
        ("/games/{game_id}/threads/{thread_id}/posts", "before"),
        ("/play/{game_id}/audit", "after"),
        ("/play/{game_id}", "before"),
    ]:
        assert param in ROUTES[("GET", route)], (route, param)


@pytest.mark.parametrize("method,path", sorted(ROUTES), ids=[f"{m} {p}" for m, p in sorted(ROUTES)])
def test_every_whole_number_in_a_path_or_query_is_bounded_to_what_both_stores_hold(method, path):
    """Each is declared with bounds within a signed 64-bit column, so no store is ever asked for more."""
    for name, schema in ROUTES[(method, path)].items():
        assert limits.SMALLEST_BIGINT <= schema.get("minimum", limits.SMALLEST_BIGINT - 1), (name, schema)
        assert schema.get("maximum", limits.BIGINT + 1) <= limits.BIGINT, (name, schema)


@pytest.mark.parametrize("method,path", sorted(ROUTES), ids=[f"{m} {p}" for m, p in sorted(ROUTES)])
def test_a_whole_number_beyond_its_bounds_is_refused_naming_it_on_both_stores(api, monkeypatch, method, path, settings):
    """2^63, 2^64, one below the smallest 64-bit number, and -1 where a number cannot be negative: 422 naming
    the parameter, nothing recorded; the largest number accepted is answered without a server error."""
    gid, gm = new_game(api)
    monkeypatch.setattr(settings, "read_wait_seconds", 0.05)  # wait_for at its largest: no wait
    url = path.replace("{game_id}", gid)
    url = re.sub(r"\{(\w+)\}", lambda m: SAMPLE.get(m.group(1), "x-1"), url)
    before = recorded(api)
    for name, schema in ROUTES[(method, path)].items():
        values = dict(BEYOND)
        if schema.get("minimum", -1) >= 0:
            values["-1"] = -1
        for label, value in values.items():
            r = api.request(method, url, params={**QUERY.get(path, {}), name: str(value)}, headers=gm)
            assert r.status_code == 422, (name, label, r.status_code, r.text[:300])
            assert name in {e["field"] for e in r.json()["errors"]}, (name, label, r.json())
            assert r.json()["field"] == name or path not in QUERY, (name, label, r.json())
        r = api.request(method, url, params={**QUERY.get(path, {}), name: str(schema["maximum"])}, headers=gm)
        assert r.status_code < 500, (name, schema["maximum"], r.status_code, r.text[:300])
    assert recorded(api) == before


def _integer_paths(hint: Any, value: int, path: str) -> Iterator[tuple[Any, str]]:
    """(JSON for a field of this type holding ``value`` somewhere, the dotted path to it) for each place a
    whole number goes in the type: the field itself, an item of a list, a value of a dict."""
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is int:
        yield value, path
    elif origin in (typing.Union, types.UnionType):
        for arg in args:
            yield from _integer_paths(arg, value, path)
    elif origin in (list, tuple, set, frozenset) and args:
        for inner, where in _integer_paths(args[0], value, f"{path}.0"):
            yield [inner], where
    elif origin is dict and args:
        for inner, where in _integer_paths(args[1], value, f"{path}.k"):
            yield {"k": inner}, where


def command_integers(ruleset) -> list[tuple[str, str, Any, str]]:
    """(command, field, JSON holding a number, its dotted path) for each whole number a command of the
    ruleset, or of the platform, takes in its fields."""
    out = []
    for cls in (*ruleset.commands, *PLATFORM_COMMANDS):
        hints = typing.get_type_hints(cls)
        for f in dataclasses.fields(cls):
            if f.init:
                out += [(cls.__name__, f.name, v, p) for v, p in _integer_paths(hints[f.name], 0, f"args.{f.name}")]
    return out


def _with(value: Any, number: int) -> Any:
    """The same JSON with its one whole number replaced by ``number``."""
    if isinstance(value, list):
        return [_with(value[0], number)]
    if isinstance(value, dict):
        return {"k": _with(value["k"], number)}
    return number


@pytest.mark.parametrize("ruleset", [r.name for r in INSTALLED])
def test_command_numbers_beyond_64_bits_are_refused_naming_args_field_on_both_stores(api, ruleset):
    """``POST /games/{g}/commands``: a number beyond a signed 64-bit column anywhere in a command's fields
    (the field, a list's item, a dict's value) is refused (422) naming ``args.<field>``; nothing recorded."""
    gid, gm = new_game(api, ruleset)
    found = command_integers(next(r for r in INSTALLED if r.name == ruleset))
    assert found, f"{ruleset} has commands with whole numbers"
    before = recorded(api)
    for command, field, shape, where in found:
        for label, number in BEYOND.items():
            body = {"command": command, "args": {field: _with(shape, number)}}
            r = api.post(f"/games/{gid}/commands", json=body, headers=gm)
            assert r.status_code == 422, (command, where, label, r.status_code, r.text[:300])
            assert r.json()["field"] == where, (command, label, r.json())
    assert recorded(api) == before


def test_every_whole_number_in_a_request_body_is_bounded_to_what_both_stores_hold():
    """Every integer of every JSON body the API takes (nested ones too) declares bounds a 64-bit column holds."""
    app = create_app(Settings(database_url="memory"))
    try:
        spec = app.openapi()
    finally:
        close_app(app)
    unbounded = []

    def walk(schema: Any, where: str) -> None:
        if isinstance(schema, dict):
            if schema.get("type") == "integer":
                low, high = schema.get("minimum"), schema.get("maximum")
                if low is None or high is None or low < limits.SMALLEST_BIGINT or high > limits.BIGINT:
                    unbounded.append(where)
            for key, value in schema.items():
                walk(value, f"{where}.{key}")
        elif isinstance(schema, list):
            for i, value in enumerate(schema):
                walk(value, f"{where}.{i}")

    names = {
        op["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
        for ops in spec["paths"].values()
        for op in ops.values()
        if "application/json" in op.get("requestBody", {}).get("content", {})
    }
    assert names
    for name in sorted(names):
        walk(spec["components"]["schemas"][name], name)
    # the schemas a body refers to (an action's pool assets, a consequence's effects)
    for name, schema in spec["components"]["schemas"].items():
        if name.endswith("Request"):
            walk(schema, name)
    assert not unbounded, unbounded


def test_a_web_form_number_beyond_64_bits_is_refused_naming_the_field(api):
    """The same bound from every channel: the GM's asset form with a rank of 2^64 is refused naming ``rank``
    (the command checks it, whichever channel built it), and nothing is recorded."""
    gid, gm = new_game(api)
    r = api.post(f"/games/{gid}/powers", headers=gm, json={"name": "Ana", "cls": "city", "subclass": "sovereign"})
    assert r.status_code == 201, r.text
    power = r.json()["power_id"]
    token = gm["Authorization"].split()[1]
    assert api.get(f"/signin/{gid}/{token}", follow_redirects=False).status_code == 303
    csrf = re.search(r'name="csrf" value="([^"]+)"', api.get(f"/play/{gid}").text).group(1)
    before = recorded(api)
    r = api.post(
        f"/play/{gid}/asset",
        data={"power_id": power, "name": "Might", "cls": "skill", "rank": str(2**64), "csrf": csrf},
        follow_redirects=False,
    )
    assert r.status_code == 303
    assert "what the game&#39;s records hold" in api.get(f"/play/{gid}").text
    assert recorded(api) == before


@pytest.mark.parametrize(
    "value,path",
    [
        (2**63, "f"),
        (-(2**63) - 1, "f"),
        ([1, 2**64], "f.1"),
        ({"u1": 3, "u2": 2**64}, "f.u2"),
        ({"a": [{"b": 2**70}]}, "f.a.0.b"),
        ((0, -(2**64)), "f.1"),
    ],
)
def test_a_whole_number_no_store_holds_is_refused_wherever_it_sits_naming_its_path(value, path):
    with pytest.raises(RuleViolation) as refused:
        limits.check_whole_numbers(value, "f")
    assert refused.value.field == path


@pytest.mark.parametrize("value", [limits.BIGINT, limits.SMALLEST_BIGINT, True, 1e300, "9" * 40, {"k": [0, None]}])
def test_what_a_64_bit_column_holds_and_what_is_not_a_whole_number_pass(value):
    limits.check_whole_numbers(value, "f")


def test_a_mailed_number_beyond_64_bits_is_refused_naming_the_line_and_records_nothing(store_settings):
    """By mail too (the command checks it, whichever channel built it): ``convert: 99999999999999999999`` was
    recorded before; now the turn is refused naming the field, and nothing is recorded."""
    games = build_games(store_settings)
    try:
        gid, _, token = setup_game(games)
        intake = MailIntake(games, "emissary.local")
        before = games.recorder.max_notification_id()
        turn = TURN.replace("convert: 1", f"convert: {10**20}")
        reply = intake.receive(intake.address_for(gid, token), "<huge@x>", turn)
        assert not reply.accepted, reply.body
        assert "convert is a whole number from" in reply.body
        assert games.recorder.max_notification_id() == before
    finally:
        games.close()
