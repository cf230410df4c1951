"""The OpenAPI document says what every route can answer (issue 24, item 5): each status besides success (400,
401, 403, 404, 409, 413, 422, 429, and 202 while the read models lag), in the app's error shape, and the media
types of the export and the audit formats. What a route can answer is read from the route itself (its
dependencies, path, parameters, body) and from the rate limiter's rules, so a new route is held to it at once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from api import deps
from api.app import create_app
from api.ratelimit import AUTHENTICATING, COUNTED
from projections.settings import Settings
from tests.integration.helpers import bearer, close_app
from tests.integration.test_bounds import app_routes

pytestmark = pytest.mark.integration

AUTHENTICATED = {deps.current_principal, deps.current_caller, deps.command_sender}
JSON_LINES = "application/x-ndjson"


@pytest.fixture(scope="module")
def app():
    app = create_app(Settings(database_url="memory"))
    yield app
    close_app(app)


def _calls(dependant) -> Iterator[Any]:
    for sub in dependant.dependencies:
        yield sub.call
        yield from _calls(sub)


def _params(dependant) -> Iterator[Any]:
    yield from dependant.path_params
    yield from dependant.query_params
    for sub in dependant.dependencies:
        yield from _params(sub)


def expected(route, method: str, op: dict) -> set[str]:
    """The statuses this route can answer besides its success, from what it is made of."""
    calls = set(_calls(route.dependant))
    params = {p.alias for p in _params(route.dependant)}
    sample = re.sub(r"\{[^}]+\}", "p-1", route.path)
    body = "requestBody" in op
    out: set[int] = set()
    if calls & AUTHENTICATED:
        out |= {401, 403}  # no valid token; a role that may not
    if "{game_id}" in route.path:
        out.add(404)
    if deps.command_sender in calls or (deps.idempotency_key in calls and "{game_id}" in route.path):
        out |= {409, 422}  # a command: the game moved on or stayed busy; a rule refused it
    if body:
        out.add(413)  # over the body limit
        if "application/json" in op["requestBody"]["content"]:
            out.add(400)  # not JSON
    if body or params - {"game_id"} or route.dependant.header_params:
        out.add(422)
    if AUTHENTICATING.match(sample) or any(m == method and p.match(sample) for m, p, _ in COUNTED):
        out.add(429)
    if "wait_for" in params:
        out.add(202)
    return {str(s) for s in out}


def operations(app) -> Iterator[tuple[str, str, Any, dict]]:
    spec = app.openapi()
    for route in app_routes(app):
        if route.include_in_schema:
            for method in sorted(route.methods - {"HEAD"}):
                yield method, route.path, route, spec["paths"][route.path][method.lower()]


def test_every_route_lists_the_statuses_it_can_answer(app):
    missing = {
        f"{method} {path}": sorted(expected(route, method, op) - set(op["responses"]))
        for method, path, route, op in operations(app)
    }
    assert not {k: v for k, v in missing.items() if v}
    # the checks above are not vacuous: the kinds of routes the issue names are all among them
    ops = {f"{m} {p}": op for m, p, _, op in operations(app)}
    assert {"401", "403", "404", "409", "413", "422", "429"} <= set(ops["POST /games/{game_id}/commands"]["responses"])
    assert {"413", "422", "429"} <= set(ops["POST /verify"]["responses"])
    assert {"202", "401", "404", "422"} <= set(ops["GET /games/{game_id}/events"]["responses"])


def test_every_error_is_documented_in_the_apps_error_shape(app):
    """Each error names its rule or field (``api.app``); a 422 lists every field refused, a 429 its limit."""
    spec = app.openapi()
    schemas = spec["components"]["schemas"]
    for method, path, _, op in operations(app):
        for status, answer in op["responses"].items():
            if status.startswith(("4", "5")):
                ref = answer["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
                assert {"error", "rule", "field", "message"} <= set(schemas[ref]["properties"]), (method, path, status)
                if status == "422":
                    assert "errors" in schemas[ref]["properties"], (method, path)
                if status == "429":
                    assert "limit" in schemas[ref]["properties"], (method, path)
    assert "HTTPValidationError" not in schemas  # FastAPI's {"detail": [...]}: never what this app answers


def test_the_export_and_audit_formats_are_documented_with_their_media_types(app):
    paths = app.openapi()["paths"]
    assert set(paths["/games/{game_id}/export"]["get"]["responses"]["200"]["content"]) == {JSON_LINES}
    audit = paths["/games/{game_id}/audit"]["get"]
    assert set(audit["responses"]["200"]["content"]) == {"application/json", JSON_LINES, "text/csv"}
    formats = next(p for p in audit["parameters"] if p["name"] == "format")["schema"]["enum"]
    assert set(formats) == {"json", "jsonl", "csv"}  # one media type each
    assert JSON_LINES in paths["/verify"]["post"]["requestBody"]["content"]


def test_the_export_and_audit_answer_the_media_types_documented(api):
    """What the document says is what the routes send, on both stores."""
    r = api.post("/games", json={"name": "Documented"})
    gid, gm = r.json()["game_id"], bearer(r.json()["gm_token"])
    documented = api.get("/openapi.json").json()["paths"]
    export = api.get(f"/games/{gid}/export", headers=gm)
    assert export.status_code == 200
    assert (
        export.headers["content-type"].split(";")[0]
        in documented["/games/{game_id}/export"]["get"]["responses"]["200"]["content"]
    )
    audit = documented["/games/{game_id}/audit"]["get"]["responses"]["200"]["content"]
    for format in ("json", "jsonl", "csv"):
        r = api.get(f"/games/{gid}/audit", params={"format": format}, headers=gm)
        assert r.status_code == 200 and r.headers["content-type"].split(";")[0] in audit, (format, r.headers)


def test_every_command_route_documents_the_headers_it_reads(app):
    """A command route reads ``Authorization`` and ``Idempotency-Key`` itself (api.deps.command_sender), not as
    declared parameters: its OpenAPI entry still names both, with the key's bounds."""
    commands = [
        (m, path, op) for m, path, route, op in operations(app) if deps.command_sender in set(_calls(route.dependant))
    ]
    assert len(commands) > 20
    for method, path, op in commands:
        params = {p["name"]: p for p in op["parameters"]}
        assert params["authorization"]["in"] == "header", (method, path)
        key = params["Idempotency-Key"]
        assert key["in"] == "header" and (key["schema"]["minLength"], key["schema"]["maxLength"]) == (1, 200), path
