"""The JSON API's routes are disjoint: no request matches two of them, so the order the app tries its routers
in (each ruleset's first, for speed: ``api.app.api_routers``) cannot change which route answers."""

from __future__ import annotations

import itertools
import re

from fastapi.routing import APIRoute

from api.app import api_routers


def api_routes() -> list[APIRoute]:
    return [r for router in api_routers() for r in router.routes if isinstance(r, APIRoute)]


def sample(path: str) -> str:
    """A concrete path the route answers: each ``{param}`` replaced by a value no literal segment has."""
    return re.sub(r"\{[^}]+\}", "p-1", path)


def test_no_request_matches_two_api_routes():
    routes = api_routes()
    assert len(routes) > 40  # the platform's and Powers' routes are all here
    clashes = []
    for a, b in itertools.permutations(routes, 2):
        if a.methods & b.methods and b.path_regex.match(sample(a.path)):
            clashes.append(f"{sorted(a.methods & b.methods)} {a.path} is also answered by {b.path}")
    assert not clashes, clashes


def test_the_clash_check_finds_a_route_that_would_shadow_another():
    """The check above can fail: a parameter where another route has a literal segment is a clash."""
    shadowing = APIRoute("/games/{game_id}/{anything}", endpoint=lambda: None, methods=["POST"])
    actions = next(r for r in api_routes() if r.path == "/games/{game_id}/actions" and "POST" in r.methods)
    assert shadowing.path_regex.match(sample(actions.path))
