"""A declared command's route (``api.declare.CommandRoute``, issue 30): a well-formed request takes the lean path,
past FastAPI's generic handler, and every request is answered as FastAPI's handler answers it, refusals included.

FastAPI's handler alone answers while the app has a dependency override (``CommandRoute``'s rule), so each request
here is sent both ways and the answers compared."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager

import fastapi.routing
import pytest
from fastapi.testclient import TestClient

from tests.integration.helpers import bearer


def _unused() -> None:  # a dependency no route has: overriding it only switches the lean path off
    return None


@contextmanager
def fastapi_handler_only(app) -> Iterator[None]:
    app.dependency_overrides[_unused] = _unused
    try:
        yield
    finally:
        app.dependency_overrides.pop(_unused)


@pytest.fixture
def api(app) -> TestClient:
    return TestClient(app, raise_server_exceptions=False)


def planning_game(api: TestClient) -> tuple[str, str, str]:
    """A game at month 1 Planning with one power: (game, GM token, the power's token)."""
    created = api.post("/games", json={"name": "Lean"}).json()
    game, gm = created["game_id"], created["gm_token"]
    power = {"name": "Alpha", "cls": "conspiracy", "subclass": "circle"}
    token = api.post(f"/games/{game}/powers", json=power, headers=bearer(gm)).json()["token"]
    for step in ("setup", "tidings"):
        assert api.post(f"/games/{game}/advance", headers=bearer(gm), json={"expected_step": step}).status_code == 200
    return game, gm, token


def both_ways(api: TestClient, app, path: str, **kwargs) -> tuple:
    """(status, JSON answer) of the request on the lean path, then on FastAPI's handler alone."""
    lean = api.post(path, **kwargs)
    with fastapi_handler_only(app):
        full = api.post(path, **kwargs)
    return (lean.status_code, lean.json()), (full.status_code, full.json())


def test_a_well_formed_command_does_not_go_through_fastapis_dependency_solver(api, app, monkeypatch):
    game, _, token = planning_game(api)

    async def refuse(**_kwargs):
        raise AssertionError("FastAPI's dependency solver was called")

    monkeypatch.setattr(fastapi.routing, "solve_dependencies", refuse)
    r = api.post(f"/games/{game}/actions", headers=bearer(token), json={"title": "Scout", "convert": 0})
    assert r.status_code == 201, r.text
    assert r.headers["content-type"] == "application/json"
    assert r.json()["events"] == ["ActionSubmitted", "DiceRolled", "ConversionsLocked"]
    with fastapi_handler_only(app):  # the switch the comparisons below rely on: FastAPI's handler, which is refused
        assert api.post(f"/games/{game}/actions", headers=bearer(token), json={"title": "Scout"}).status_code == 500


def test_an_accepted_command_is_answered_alike_both_ways(api, app):
    answers = []
    for only_fastapi in (False, True):
        game, _, token = planning_game(api)
        body = {"title": "Scout", "convert": 0}
        if only_fastapi:
            with fastapi_handler_only(app):
                r = api.post(f"/games/{game}/actions", headers=bearer(token), json=body)
        else:
            r = api.post(f"/games/{game}/actions", headers=bearer(token), json=body)
        assert r.status_code == 201, r.text
        answer = r.json()
        assert answer.pop("game_id") == game
        answers.append((r.headers["content-type"], sorted(answer), answer["events"], answer["sequence"]))
    assert answers[0] == answers[1]


REFUSED = {
    "no content type": {"content": b'{"title": "Scout"}'},
    "not JSON's content type": {"content": b'{"title": "Scout"}', "headers": {"content-type": "text/plain"}},
    "not JSON": {"content": b'{"title": ', "headers": {"content-type": "application/json"}},
    "nested beyond the parser": {"content": b"[" * 100_000, "headers": {"content-type": "application/json"}},
    "not UTF-8": {"content": b'{"title": "\xff"}', "headers": {"content-type": "application/json"}},
    "not an object": {"json": ["Scout"]},
    "a field unknown": {"json": {"title": "Scout", "colour": "red"}},
    "a field ill-typed": {"json": {"title": 7}},
    "a field missing": {"json": {}},
}


@pytest.mark.parametrize("case", sorted(REFUSED))
def test_a_malformed_body_is_refused_alike_both_ways(api, app, case):
    game, _, token = planning_game(api)
    kwargs = REFUSED[case]
    headers = {**bearer(token), **kwargs.get("headers", {})}
    lean, full = both_ways(api, app, f"/games/{game}/actions", **{**kwargs, "headers": headers})
    assert lean == full
    assert lean[0] in (400, 422), lean


def test_a_refused_caller_key_or_command_is_refused_alike_both_ways(api, app):
    game, gm, token = planning_game(api)
    ok = {"title": "Scout", "convert": 0}
    cases = {
        "no token": ({}, ok),
        "a wrong token": (bearer("nope"), ok),
        "a key too long": (bearer(token, "k" * 201), ok),
        "the rules refuse it (the GM has no power to act for)": (bearer(gm), ok),
        "a title too long for the command": (bearer(token), {"title": "x" * 10_000}),
    }
    for name, (headers, body) in cases.items():
        lean, full = both_ways(api, app, f"/games/{game}/actions", headers=headers, json=body)
        assert lean == full, name
        assert lean[0] in (401, 403, 404, 409, 422), (name, lean)
    lean, full = both_ways(api, app, "/games/no-such-game/actions", headers=bearer(token), json=ok)
    assert lean == full and lean[0] in (401, 404), lean


def test_a_route_with_a_path_parameter_and_a_retried_key_answer_alike_both_ways(api, app):
    game, gm, token = planning_game(api)
    key = bearer(token, "key-1")
    first = api.post(f"/games/{game}/actions", headers=key, json={"title": "Scout", "convert": 0})
    assert first.status_code == 201, first.text
    with fastapi_handler_only(app):
        again = api.post(f"/games/{game}/actions", headers=key, json={"title": "Scout", "convert": 0})
    assert again.status_code == 201 and again.json() == {**first.json(), "replayed": True}
    assert api.post(f"/games/{game}/actions", headers=key, json={"title": "Scout", "convert": 0}).json() == again.json()
    # A route whose path names a field (``/actions/{action_id}/roll``): an action of no one, refused alike.
    lean, full = both_ways(api, app, f"/games/{game}/actions/act-0000000000/roll", headers=bearer(gm), json={})
    assert lean == full and lean[0] in (404, 409, 422), lean
    assert json.dumps(lean)  # a JSON answer, not an HTML error page


def test_every_declared_route_is_built_with_the_lean_path_by_this_fastapi(monkeypatch, tmp_path):
    """``CommandRoute`` reads FastAPI internals (``fastapi.routing._effective_route_context_var``, the inclusion's
    dependant and response field, ``fastapi.telemetry.get_telemetry_data``): after a FastAPI upgrade that moves them,
    every command would silently take FastAPI's slower handler (issue 30). Every declared route of every ruleset, as an
    app includes it, is built with its lean path, and the internals it reads are where it reads them."""
    from api import declare
    from api.app import create_app
    from projections.settings import Settings
    from tests.integration.helpers import close_app

    assert declare._EFFECTIVE is fastapi.routing._effective_route_context_var
    assert fastapi.routing.serialize_response is declare.serialize_response
    made: list = []
    real = declare.routers
    monkeypatch.setattr(declare, "routers", lambda: made.extend(real()) or made)
    app = create_app(Settings(data_dir=tmp_path, embedded_workers=False, read_models_sync=False))
    try:
        routes = [r for router in made for r in router.routes]
        assert len(routes) >= 20 and all(isinstance(r, declare.CommandRoute) for r in routes)
        client = TestClient(app, raise_server_exceptions=False)
        for r in routes:  # FastAPI builds an included route's handler when a request first reaches its router
            path = re.sub(r"\{\w+\}", "x", r.path)
            assert client.request(next(iter(r.methods)), path, json={}).status_code < 500, path
        included = [r.path for r in routes if len(r.lean_built) < 2]  # built once as made, once more as included
        assert not included, f"not built again as the app includes them (FastAPI's inclusion changed?): {included}"
        slow = [r.path for r in routes if not all(r.lean_built)]
        assert not slow, f"built without the lean path (FastAPI's internals moved?): {slow}"
    finally:
        close_app(app)
