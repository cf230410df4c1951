"""Issue 10, "Web" and "Limits": each hole, with the attack refused.

CSRF (origin and per-session token), server-side sessions (the cookie holds no token; sign out here
or everywhere; a replaced link ends its sessions; sessions expire), sign-in links that follow the
request's own address, tokens kept out of the access log, request body caps, and per-client rate
limits in memory and in the real Redis."""

from __future__ import annotations

import base64
import logging
import os
import re
import threading
import time
import uuid
from datetime import datetime, timedelta
from pathlib import Path

import httpx
import pytest
import uvicorn
from fastapi.testclient import TestClient
from pydantic import ValidationError

from api.app import create_app
from api.security import COOKIE
from application import invitations
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.integration.topology import free_port

REDIS_URL = os.environ.get("EMISSARY_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
TEMPLATES = Path(__file__).resolve().parents[2] / "api" / "web" / "templates"


@pytest.fixture
def app(store_settings):
    app = create_app(store_settings)
    yield app
    close_app(app)


def make_app(tmp_path, **settings):
    return create_app(Settings(data_dir=tmp_path / "data", **settings))


def game_with_power(app) -> tuple[str, str, str, str]:
    """A game in Planning with one power: (game id, GM token, power id, power token)."""
    games = app.state.games
    gid, gm, _ = games.create_game("Security")
    pid, token, _ = add_power(games, gid, "gm", "Lord", "city", "overlord")
    return gid, gm, pid, token


def signed_in(app, gid: str, token: str, base_url: str = "http://testserver") -> TestClient:
    client = TestClient(app, base_url=base_url)
    r = client.get(f"/signin/{gid}/{token}", follow_redirects=False)
    assert r.status_code == 303, r.text
    return client


def csrf_of(client: TestClient, gid: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get(f"/play/{gid}").text).group(1)


@pytest.fixture
def sessions(app):
    """The app's store of web sessions."""
    return app.state.sessions


def secret_key(app) -> str:
    """The key the app signs its links with (an invitation's, issue 28)."""
    return app.state.settings.secret_key


def powers_of(app, gid: str) -> set[str]:
    return set(app.state.games.get_game(gid, for_update=False).state.powers)


# ---------------------------------------------------------------------------------------------- CSRF


def test_csrf_a_form_posted_from_another_origin_is_refused_and_records_nothing(app):
    gid, gm, pid, _ = game_with_power(app)
    client = signed_in(app, gid, gm)
    form = {"name": "Evil", "kind": "city:overlord", "csrf": csrf_of(client, gid)}
    before = powers_of(app, gid)
    for header in ({"Origin": "https://evil.example"}, {"Referer": "https://evil.example/page"}, {"Origin": "null"}):
        r = client.post(f"/play/{gid}/add-power", data=form, headers=header, follow_redirects=False)
        assert r.status_code == 403 and "origin: a form posted from" in r.text
    assert powers_of(app, gid) == before
    ok = client.post(
        f"/play/{gid}/add-power", data=form, headers={"Origin": "http://testserver"}, follow_redirects=False
    )
    assert ok.status_code == 303 and powers_of(app, gid) == before | {"evil"}


def test_csrf_a_form_without_the_session_token_or_with_a_wrong_one_is_refused(app):
    gid, gm, pid, _ = game_with_power(app)
    client = signed_in(app, gid, gm)
    other = signed_in(app, gid, gm)  # the same GM in another browser: its token is not this session's
    same_origin = {"Origin": "http://testserver"}
    before = powers_of(app, gid)
    for form in (
        {"name": "Evil", "kind": "city:overlord"},
        {"name": "Evil", "kind": "city:overlord", "csrf": "forged"},
        {"name": "Evil", "kind": "city:overlord", "csrf": csrf_of(other, gid)},
    ):
        r = client.post(f"/play/{gid}/add-power", data=form, headers=same_origin, follow_redirects=False)
        assert r.status_code == 403 and "csrf" in r.text
    assert powers_of(app, gid) == before
    # Creating a game and signing out are forms too.
    anonymous = TestClient(app)
    r = anonymous.post("/new", data={"name": "Drive-by"}, follow_redirects=False)
    assert r.status_code == 403 and "csrf" in r.text
    assert client.post(f"/signout/{gid}", follow_redirects=False).status_code == 403
    assert client.get(f"/play/{gid}").status_code == 200  # still signed in


def test_csrf_with_a_public_url_only_that_origin_may_post(tmp_path):
    app = make_app(tmp_path, public_url="https://emissary.example")
    gid, gm, _, _ = game_with_power(app)
    client = signed_in(app, gid, gm, base_url="https://testserver")  # the cookie is Secure
    form = {"name": "Evil", "kind": "city:overlord", "csrf": csrf_of(client, gid)}
    r = client.post(
        f"/play/{gid}/add-power", data=form, headers={"Origin": "https://testserver"}, follow_redirects=False
    )
    assert r.status_code == 403 and "https://emissary.example" in r.text
    r = client.post(
        f"/play/{gid}/add-power", data=form, headers={"Origin": "https://emissary.example"}, follow_redirects=False
    )
    assert r.status_code == 303 and "evil" in powers_of(app, gid)


def test_csrf_every_post_form_in_the_templates_carries_the_token():
    forms = []
    for path in sorted(TEMPLATES.parents[1].rglob("templates/**/*.html")):  # the platform's and every ruleset's
        forms += [
            (path.name, m)
            for m in re.findall(r"<form[^>]*method=\"?post\"?[^>]*>.{0,40}", path.read_text(), flags=re.I | re.S)
        ]
    assert len(forms) >= 25
    assert [f for f in forms if "{{ csrf_field() }}" not in f[1]] == []


def test_csrf_every_post_form_on_the_rendered_pages_carries_this_sessions_token(tmp_path):
    app = make_app(tmp_path)
    gid, gm, pid, token = game_with_power(app)
    for tok in (gm, token):
        client = signed_in(app, gid, tok)
        html = client.get(f"/play/{gid}").text
        forms = re.findall(r"<form[^>]*method=\"post\"[^>]*>(.*?)</form>", html, flags=re.S)
        assert forms and all(f'name="csrf" value="{csrf_of(client, gid)}"' in f for f in forms)


# ------------------------------------------------------------------------------------------ sessions


def test_the_session_cookie_holds_no_token(app):
    gid, gm, pid, token = game_with_power(app)
    client = TestClient(app)
    r = client.get(f"/signin/{gid}/{token}", follow_redirects=False)
    cookie = r.headers["set-cookie"]
    value = client.cookies[COOKIE]
    blob = value + "".join(
        base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)).decode("latin-1")
        for part in value.split(".")
        if re.fullmatch(r"[\w-]+", part)
    )
    assert token not in blob and gm not in blob and token not in cookie
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie and "Secure" not in cookie
    assert len(client.cookies) == 1
    assert client.get(f"/play/{gid}").status_code == 200


def test_the_session_cookie_is_secure_when_the_public_url_is_https(tmp_path):
    app = make_app(tmp_path, public_url="https://emissary.example")
    gid, _, _, token = game_with_power(app)
    r = TestClient(app).get(f"/signin/{gid}/{token}", follow_redirects=False)
    assert "; Secure" in r.headers["set-cookie"]


def test_sign_in_exchanges_the_link_for_a_session_at_once(app):
    gid, _, _, token = game_with_power(app)
    r = TestClient(app).get(f"/signin/{gid}/{token}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == f"/play/{gid}"
    assert r.headers["referrer-policy"] == "no-referrer"


def test_sign_out_ends_only_this_browser(app):
    gid, _, pid, token = game_with_power(app)
    here, there = signed_in(app, gid, token), signed_in(app, gid, token)
    r = here.post(f"/signout/{gid}", data={"csrf": csrf_of(here, gid)}, follow_redirects=False)
    assert r.status_code == 303
    assert here.get(f"/play/{gid}").status_code == 401
    assert there.get(f"/play/{gid}").status_code == 200


def test_sign_out_everywhere_ends_every_session_of_that_principal_only(app):
    gid, gm, pid, token = game_with_power(app)
    here, there, elsewhere = (signed_in(app, gid, token) for _ in range(3))
    gm_browser = signed_in(app, gid, gm)
    r = here.post(f"/signout/{gid}/everywhere", data={"csrf": csrf_of(here, gid)}, follow_redirects=False)
    assert r.status_code == 303
    for client in (here, there, elsewhere):
        assert client.get(f"/play/{gid}").status_code == 401
    assert gm_browser.get(f"/play/{gid}").status_code == 200
    assert signed_in(app, gid, token).get(f"/play/{gid}").status_code == 200  # the link itself still works


def test_a_reissued_link_ends_that_players_sessions(app, games, sessions):
    gid, gm, pid, token = game_with_power(app)
    player = signed_in(app, gid, token)
    gm_browser = signed_in(app, gid, gm)
    r = gm_browser.post(
        f"/play/{gid}/reissue", data={"who": pid, "csrf": csrf_of(gm_browser, gid)}, follow_redirects=False
    )
    assert r.status_code == 303
    assert player.get(f"/play/{gid}").status_code == 401
    assert (
        sessions.db.query("SELECT COUNT(*) FROM web_session_grants WHERE game_id = ? AND principal = ?", (gid, pid))[0][
            0
        ]
        == 0
    )
    console = gm_browser.get(f"/play/{gid}")
    assert console.status_code == 200
    # Replaced by other means (the API): the old token's sessions end too.
    new_token = re.search(r"/signin/[^/]+/([\w-]+)", console.text).group(1)
    player = signed_in(app, gid, new_token)
    games.reissue_link(gid, "gm", pid)
    assert player.get(f"/play/{gid}").status_code == 401


def test_a_reissued_gm_link_keeps_the_gm_signed_in_in_this_browser_only(app):
    gid, gm, _, _ = game_with_power(app)
    here, there = signed_in(app, gid, gm), signed_in(app, gid, gm)
    here.post(f"/play/{gid}/reissue", data={"who": "gm", "csrf": csrf_of(here, gid)})
    assert here.get(f"/play/{gid}").status_code == 200
    assert there.get(f"/play/{gid}").status_code == 401


def test_sessions_expire(tmp_path):
    app = make_app(tmp_path, session_ttl_hours=2)
    gid, _, _, token = game_with_power(app)
    client = signed_in(app, gid, token)
    assert client.get(f"/play/{gid}").status_code == 200
    store = app.state.sessions
    real = store.clock
    store.clock = lambda: real() + timedelta(hours=2, seconds=1)
    assert client.get(f"/play/{gid}").status_code == 401


def test_signing_in_gives_a_new_session_id(app):
    """A session id planted in the browser before sign-in is worthless afterwards."""
    gid, _, _, token = game_with_power(app)
    client = TestClient(app)
    client.get("/new")  # an anonymous session, with a form
    planted = client.cookies[COOKIE]
    client.get(f"/signin/{gid}/{token}")
    assert client.cookies[COOKIE] != planted
    attacker = TestClient(app, cookies={COOKIE: planted})
    assert attacker.get(f"/play/{gid}").status_code == 401


# --------------------------------------------------------------------------------- sign-in links


def test_sign_in_links_follow_the_requests_address_when_no_public_url_is_set(tmp_path):
    app = make_app(tmp_path)
    client = TestClient(app, base_url="http://127.0.0.1:8765")
    page = client.get("/new").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    html = client.post("/new", data={"name": "Ports", "csrf": csrf}, headers={"Origin": "http://127.0.0.1:8765"}).text
    assert re.search(r"http://127\.0\.0\.1:8765/signin/[0-9a-f-]{36}/[\w-]+", html)
    assert "127.0.0.1:8000" not in html


def test_sign_in_links_use_the_public_url_when_set(tmp_path):
    app = make_app(tmp_path, public_url="https://emissary.example/")
    client = TestClient(app, base_url="https://emissary.example")
    csrf = re.search(r'name="csrf" value="([^"]+)"', client.get("/new").text).group(1)
    html = client.post(
        "/new", data={"name": "Public", "csrf": csrf}, headers={"Origin": "https://emissary.example"}
    ).text
    assert re.search(r"https://emissary\.example/signin/[0-9a-f-]{36}/[\w-]+", html)


def test_production_refuses_to_start_without_a_public_url_or_with_in_memory_rate_limits():
    prod = {
        "env": "production",
        "database_url": "postgresql://u:p@db/emissary",
        "secret_key": "k" * 40,
        "inbound_key": "i" * 24,
    }
    with pytest.raises(ValidationError, match="EMISSARY_PUBLIC_URL must be set in production"):
        Settings(**prod, ratelimit_storage_url="redis://redis:6379/1")
    with pytest.raises(ValidationError, match="EMISSARY_RATELIMIT_STORAGE_URL must be redis"):
        Settings(**prod, public_url="https://emissary.example")
    assert Settings(**prod, public_url="https://emissary.example", ratelimit_storage_url="redis://redis:6379/1")
    with pytest.raises(ValidationError, match="EMISSARY_PUBLIC_URL is an http"):
        Settings(public_url="emissary.example")


# ----------------------------------------------------------------------------------- access log


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        from uvicorn.logging import AccessFormatter

        self.setFormatter(AccessFormatter('%(client_addr)s - "%(request_line)s" %(status_code)s', use_colors=False))
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def test_the_access_log_never_contains_a_token(tmp_path, capfd):
    app = make_app(tmp_path)
    gid, gm, _, token = game_with_power(app)
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="info", access_log=True))
    thread = threading.Thread(target=server.run, daemon=True)
    lines = Lines()
    access = logging.getLogger("uvicorn.access")
    try:
        thread.start()
        deadline = time.time() + 20
        while not server.started:
            assert time.time() < deadline, "server did not start"
            time.sleep(0.05)
        access.addHandler(lines)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", follow_redirects=True) as http:
            assert http.get(f"/signin/{gid}/{token}").status_code == 200  # followed to the board
            assert http.get(f"/signin/{gid}/{gm}?x=1").status_code == 200
            assert http.get(f"/signin/{gid}/wrong-{token}").status_code == 401
            # an invitation's link (issue 28): its key carries the proof that takes a seat
            invite = invitations.link("", secret_key(app), gid, "abcd1234")
            assert http.get(invite).status_code == 401  # no such invitation: refused, and still never logged
    finally:
        access.removeHandler(lines)
        server.should_exit = True
        thread.join(10)
    text = "\n".join(lines.lines)
    assert f"/signin/{gid}/[redacted]" in text and f"/play/{gid}" in text
    assert token not in text and gm not in text
    proof = invite.rsplit(".", 1)[-1]
    assert "/signin/invite/[redacted]" in text and proof not in text
    printed = "".join(capfd.readouterr())  # what uvicorn's own access log handler printed
    assert f"/signin/{gid}/[redacted]" in printed and token not in printed and gm not in printed
    assert proof not in printed


# ---------------------------------------------------------------------------------- body limits


def test_body_limit_a_declared_oversize_body_is_refused_with_413_naming_the_limit(tmp_path):
    app = make_app(tmp_path, body_limit_bytes=10_000, upload_body_limit_bytes=50_000)
    client = TestClient(app, client=("127.0.0.1", 50000))  # keyless mail intake takes loopback clients only
    r = client.post(
        "/games", content=b'{"name": "' + b"x" * 20_000 + b'"}', headers={"content-type": "application/json"}
    )
    assert r.status_code == 413 and r.json()["field"] == "body" and "10000 bytes" in r.json()["message"]
    assert r.json()["limit_bytes"] == 10_000
    assert client.post("/games", json={"name": "small"}).status_code == 201


def test_body_limit_a_streamed_body_is_counted_as_it_arrives(tmp_path):
    app = make_app(tmp_path, body_limit_bytes=10_000, upload_body_limit_bytes=50_000)
    client = TestClient(app, client=("127.0.0.1", 50000))  # keyless mail intake takes loopback clients only

    def chunks():
        for _ in range(30):
            yield b"x" * 1000

    r = client.post("/games", content=chunks(), headers={"content-type": "application/json"})
    assert "content-length" not in {k.lower() for k in r.request.headers}
    assert r.status_code == 413 and "10000 bytes" in r.json()["message"]
    # A web form is capped the same way.
    r = client.post("/new", content=chunks(), headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413


def test_body_limit_mail_intake_has_a_bigger_cap_than_json_routes(tmp_path):
    app = make_app(tmp_path, body_limit_bytes=10_000, upload_body_limit_bytes=50_000)
    client = TestClient(app, client=("127.0.0.1", 50000))  # keyless mail intake takes loopback clients only
    mail = {"to": "nobody@emissary.local", "from": "a@b.c", "message_id": "<m1@b.c>", "text": "y" * 20_000}
    r = client.post("/inbound/email", json=mail)
    assert r.status_code == 404 and r.json()["field"] == "to"  # read in full, and refused: an unknown address
    mail["text"] = "y" * 60_000
    r = client.post("/inbound/email", json=mail)
    assert r.status_code == 413 and "50000 bytes" in r.json()["message"]
    assert (
        client.post("/verify", content=b"{}\n" * 20_000, headers={"content-type": "application/x-ndjson"}).status_code
        == 413
    )


def test_body_limit_a_real_server_refuses_a_huge_body_before_reading_it(tmp_path):
    app = make_app(tmp_path)  # the default caps: 1 MB, 10 MB for mail
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    try:
        thread.start()
        deadline = time.time() + 20
        while not server.started:
            assert time.time() < deadline, "server did not start"
            time.sleep(0.05)

        def body():
            for _ in range(50):
                yield b"x" * 1_000_000

        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as http:
            r = http.post("/games", content=body(), headers={"content-type": "application/json"})
            assert r.status_code == 413 and "1000000 bytes" in r.json()["message"]
            r = http.post("/inbound/email", content=b"x" * 20_000_000, headers={"content-type": "application/json"})
            assert r.status_code == 413 and "10000000 bytes" in r.json()["message"]
    finally:
        server.should_exit = True
        thread.join(10)


# ---------------------------------------------------------------------------------- rate limits

LIMITS = {
    "ratelimit_auth_failures": "5/minute",
    "ratelimit_create_game": "3/minute",
    "ratelimit_mail": "2/minute",
    "ratelimit_verify": "2/minute",
}


def check_rate_limits(app) -> None:
    games = app.state.games
    gid, gm, _ = games.create_game("Limits")
    client = TestClient(app, client=("127.0.0.1", 50000))  # keyless mail intake takes loopback clients only
    bad = {"Authorization": "Bearer wrong"}
    for _ in range(5):
        assert client.get(f"/games/{gid}/view", headers=bad).status_code == 401
    r = client.get(f"/games/{gid}/view", headers=bad)
    assert r.status_code == 429 and int(r.headers["retry-after"]) >= 1 and "failed sign-ins" in r.json()["message"]
    # While over the budget, every wrong guess is refused (429, and counted), but the right credential from the
    # same address still works: another client's failures never lock a valid token out (issue 27).
    assert client.get(f"/games/{gid}/view", headers={"Authorization": f"Bearer {gm}"}).status_code == 200
    assert client.get(f"/signin/{gid}/wrong").status_code == 429
    assert client.get(f"/signin/{gid}/{gm}").status_code in (200, 303)
    assert client.get(f"/games/{gid}/view", headers=bad).status_code == 429

    for _ in range(3):
        assert client.post("/games", json={"name": "ok"}).status_code == 201
    r = client.post("/games", json={"name": "one too many"})
    assert r.status_code == 429 and "Retry-After" in r.headers and "new games" in r.json()["message"]
    assert "3 per 1 minute" in r.json()["message"]
    assert client.post("/new", data={"name": "and by the web"}).status_code == 429

    mail = {"to": "nobody@emissary.local", "from": "a@b.c", "message_id": "<m@b.c>", "text": "hi"}
    for _ in range(2):
        r = client.post("/inbound/email", json=mail)
        assert r.status_code == 404 and r.json()["field"] == "to"  # read, and refused: an unknown address
    r = client.post("/inbound/email", json=mail)
    assert r.status_code == 429 and "inbound mails" in r.json()["message"]

    for _ in range(2):  # an empty export: the route runs and names what is missing
        assert client.post("/verify", content=b"", headers={"content-type": "application/x-ndjson"}).status_code == 422
    r = client.post("/verify", content=b"", headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 429 and int(r.headers["retry-after"]) <= 60


def test_rate_limits_in_memory(tmp_path):
    check_rate_limits(make_app(tmp_path, **LIMITS))


def test_rate_limits_are_per_client(tmp_path):
    app = make_app(tmp_path, **LIMITS)
    a = TestClient(app, client=("10.0.0.1", 1234))
    b = TestClient(app, client=("10.0.0.2", 1234))
    for _ in range(3):
        assert a.post("/games", json={"name": "a"}).status_code == 201
    assert a.post("/games", json={"name": "a"}).status_code == 429
    assert b.post("/games", json={"name": "b"}).status_code == 201


@pytest.fixture
def redis_prefix():
    """A unique key prefix in the real Redis, its keys deleted afterwards. Never skipped in CI."""
    import redis

    conn = redis.Redis.from_url(REDIS_URL)
    try:
        conn.ping()
    except redis.RedisError as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"Redis must be reachable in CI at {REDIS_URL}: {exc}")
        pytest.skip(f"Redis not reachable at {REDIS_URL}: {exc}")
    prefix = f"emissary-test-{uuid.uuid4().hex[:12]}"
    yield prefix
    for key in conn.scan_iter(f"*{prefix}*"):
        conn.delete(key)
    conn.close()


@pytest.mark.integration
def test_rate_limits_in_redis(tmp_path, redis_prefix):
    check_rate_limits(make_app(tmp_path, ratelimit_storage_url=REDIS_URL, ratelimit_key_prefix=redis_prefix, **LIMITS))


@pytest.mark.integration
def test_rate_limits_in_redis_are_shared_by_every_server_process(tmp_path, redis_prefix):
    import redis

    settings = {"ratelimit_storage_url": REDIS_URL, "ratelimit_key_prefix": redis_prefix, **LIMITS}
    one, two = make_app(tmp_path / "one", **settings), make_app(tmp_path / "two", **settings)
    for app in (one, two, one):
        assert TestClient(app).post("/games", json={"name": "x"}).status_code == 201
    r = TestClient(two).post("/games", json={"name": "x"})
    assert r.status_code == 429
    assert any(redis_prefix in k.decode() for k in redis.Redis.from_url(REDIS_URL).scan_iter(f"*{redis_prefix}*"))


def test_an_anonymous_session_lives_an_hour_and_a_signed_in_one_its_full_lifetime(tmp_path):
    app = make_app(tmp_path, session_ttl_hours=48)
    gid, _, _, token = game_with_power(app)
    client = TestClient(app)
    client.get("/new")
    (anonymous,) = app.state.sessions.db.query("SELECT expires_at FROM web_sessions")[0]
    client.get(f"/signin/{gid}/{token}")
    (signed,) = app.state.sessions.db.query("SELECT expires_at FROM web_sessions")[0]
    hours = (datetime.fromisoformat(signed) - datetime.fromisoformat(anonymous)).total_seconds() / 3600
    assert 46.9 < hours < 47.1


def test_no_log_line_of_the_service_carries_a_sign_in_token(tmp_path):
    """Anything logged through the root handlers (as `emissary serve` configures them) is redacted too."""
    import io

    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        make_app(tmp_path)
        log = logging.getLogger("emissary.api.redaction")  # a fresh logger: earlier tests' logging setup may
        log.disabled, log.propagate = False, True  # have disabled the existing ones or raised
        log.setLevel(logging.INFO)  # the root's level (a Celery worker does)
        log.warning("odd request to %s", "/signin/g-1/SECRET-TOKEN")
        log.warning("odd request to /signin/g-1/OTHER-TOKEN?x=1")
    finally:
        root.removeHandler(handler)
    text = stream.getvalue()
    assert "/signin/g-1/[redacted]" in text and "SECRET-TOKEN" not in text and "OTHER-TOKEN" not in text


@pytest.mark.integration
def test_a_valid_token_is_not_locked_out_by_another_clients_failures_in_redis(tmp_path, redis_prefix):
    """Production's limiter (Redis, shared by every process): one client guesses from an address until it is
    over its budget; another client at the same address (a shared NAT) uses the right token and is let in, by the
    API and by a sign-in link, while the guesser stays refused (issue 27)."""
    one = make_app(tmp_path, ratelimit_storage_url=REDIS_URL, ratelimit_key_prefix=redis_prefix, **LIMITS)
    try:
        gid, gm, pid, token = game_with_power(one)
        guesser = TestClient(one, client=("203.0.113.7", 40001))
        for _ in range(5):
            assert guesser.get(f"/games/{gid}/view", headers={"Authorization": "Bearer wrong"}).status_code == 401
        assert guesser.get(f"/games/{gid}/view", headers={"Authorization": "Bearer wrong"}).status_code == 429
        neighbour = TestClient(one, client=("203.0.113.7", 40002))
        r = neighbour.get(f"/games/{gid}/view", headers={"Authorization": f"Bearer {token}"})
        assert r.status_code == 200, r.text
        browser = TestClient(one, client=("203.0.113.7", 40003))
        assert browser.get(f"/signin/{gid}/{token}").status_code == 200
        assert browser.get(f"/play/{gid}").status_code == 200
        assert browser.get(f"/signin/{gid}/{token}x").status_code == 429  # a wrong link still is not
        assert guesser.get(f"/games/{gid}/view", headers={"Authorization": "Bearer wrong"}).status_code == 429
    finally:
        close_app(one)
