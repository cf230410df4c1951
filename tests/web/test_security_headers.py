"""Issue 27, hardening: every answer the application gives (each GET page of every ruleset, the JSON API, an error,
a static file) carries the security headers of ``api/headers.py``, and no page needs what its policy refuses (an
inline script or style, an ``on*=`` handler)."""

from __future__ import annotations

import re

from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from starlette.routing import Route

from api.headers import PAGES
from application.service import Caller, new_token
from tests.helpers import add_power

PARAM = re.compile(r"\{(\w+)(?::\w+)?\}")
INLINE = re.compile(r"<script(?![^>]*\bsrc=)[^>]*>|<style\b|\sstyle=|\son[a-z]+=|javascript:", re.I)


def get_paths(routes) -> list[str]:
    """Every GET route's path, through the included routers."""
    out: list[str] = []
    for route in routes:
        if isinstance(route, APIRoute | Route) and "GET" in (route.methods or ()):
            out.append(route.path)
        elif hasattr(route, "original_router"):
            out += get_paths(route.original_router.routes)
        elif hasattr(route, "routes") and not hasattr(route, "app"):
            out += get_paths(route.routes)
    return sorted(set(out))


def assert_headers(response, path: str) -> None:
    h = response.headers
    assert h.get("content-security-policy"), path
    csp = h["content-security-policy"]
    assert "frame-ancestors 'none'" in csp and "default-src 'self'" in csp, (path, csp)
    assert "'unsafe-inline'" not in csp.split("script-src")[1].split(";")[0], (path, csp)
    assert h.get("x-frame-options") == "DENY", path
    assert h.get("x-content-type-options") == "nosniff", path
    assert h.get("referrer-policy") in ("same-origin", "no-referrer"), path


def test_every_get_page_of_every_ruleset_and_the_api_carry_the_security_headers(app, games):
    from domain.lodge.ruleset import AddMage, BeginGame
    from domain.platform.commands import ReissueLink

    powers, powers_gm, _ = games.create_game("Powers game")
    add_power(games, powers, "gm", "Gondor", "city", "sovereign")
    lodge, lodge_gm, _ = games.create_game("Lodge game", ruleset="lodge")
    games.run_many(Caller.of("gm"), lodge, [AddMage("ann", "Ann", "red"), AddMage("bob", "Bob", "blue"), BeginGame()])
    ann_token, token_hash = new_token()
    games.run(Caller.of("gm"), lodge, ReissueLink("ann", token_hash))
    covenants, covenants_gm, _ = games.create_game("Covenants game", ruleset="covenants")

    paths = get_paths(app.routes)
    assert len(paths) > 30, paths
    pages, crashed = 0, []
    for gid, token in ((powers, powers_gm), (lodge, lodge_gm), (lodge, ann_token), (covenants, covenants_gm)):
        client = TestClient(app, raise_server_exceptions=False)
        assert_headers(client.get(f"/signin/{gid}/{token}"), "/signin")
        for path in paths:
            if "signin" in path:
                continue  # signed in above; a wrong link below
            url = PARAM.sub(lambda m, gid=gid: gid if m.group(1) == "game_id" else "x", path)
            r = client.get(url, headers={"Authorization": f"Bearer {token}"} if not url.startswith("/play") else {})
            if r.status_code == 500:
                crashed.append((gid, url))
                continue
            assert_headers(r, url)
            is_page = r.status_code == 200 and r.headers["content-type"].startswith("text/html")
            if is_page and not url.startswith(("/docs", "/redoc")):
                pages += 1
                assert r.headers["content-security-policy"] == PAGES, url
                assert not INLINE.search(r.text), (url, INLINE.search(r.text))
    # No route crashes, whichever ruleset's game it is asked about (Powers' battle routes on a Lodge's game: 404).
    assert crashed == [], crashed
    assert pages >= 30, pages  # boards, consoles, audit, help, home, new game... of each ruleset

    client = TestClient(app)
    for url in ("/signin/nope/wrong", "/no-such-page", "/games/nope/view", "/static/app.js", "/health"):
        assert_headers(client.get(url), url)
    r = client.get("/games/nope/view")
    assert r.status_code in (401, 404) and r.headers["content-type"].startswith("application/json")
    assert client.post("/games", json={}).status_code == 422
    assert_headers(client.post("/games", json={}), "POST /games (422)")
    docs = client.get("/docs")
    assert docs.status_code == 200 and "sha256-" in docs.headers["content-security-policy"]


def test_a_header_a_route_sets_is_kept(app, games):
    """The sign-in link's page asks for no referrer at all: the application's default does not replace it."""
    r = TestClient(app).get("/signin/email/not-a-live-link")
    assert r.headers["referrer-policy"] == "no-referrer"
    assert_headers(r, "/signin/email")


def test_the_answer_to_a_bug_carries_the_headers_too(app, games, monkeypatch):
    """A 500 is sent by the server's last resort, outside every middleware: it carries the headers itself."""

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(games, "get_game", broken)
    game_id, gm, _ = games.create_game("Powers game")
    r = TestClient(app, raise_server_exceptions=False).get(
        f"/games/{game_id}/battles/b1", headers={"Authorization": f"Bearer {gm}"}
    )
    assert r.status_code == 500 and r.json()["error"] == "InternalError"
    assert_headers(r, "a bug")
