"""No request reaches a 500: every POST and PUT of the JSON API, sent malformed input in each field
(wrong types, huge numbers, NaN and Infinity, null, deep nesting, 1 MB strings) and bodies that are
not JSON at all, answers 4xx with a JSON body naming the field, and records nothing.

The routes come from the OpenAPI document, so a new route with a body is covered at once (and must
be given a valid base body below). An unexpected exception answers a JSON 500 with ``Connection:
close``; the test client re-raises any, so none may happen here.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from api.app import create_app
from projections.settings import Settings
from tests.integration.helpers import close_app

# Close to a megabyte, yet under the body limit (EMISSARY_BODY_LIMIT_BYTES, 1,000,000), so that the schema
# itself must refuse it by name; a larger body is refused whole (413, "body"), below.
MB = "x" * 990_000
DEEP: object = "x"
for _ in range(60):
    DEEP = {"a": [DEEP]}

# A valid body for each route; each case breaks exactly one field of it.
BASE = {
    ("post", "/games"): {"name": "G"},
    ("post", "/games/{game_id}/powers"): {"name": "P", "cls": "city", "subclass": "sovereign"},
    ("post", "/games/{game_id}/powers/{power_id}/assets"): {"name": "might", "cls": "skill", "rank": 2},
    ("put", "/games/{game_id}/season-length"): {"months": 2},
    ("post", "/games/{game_id}/advance"): {"expected_step": "planning"},
    ("post", "/games/{game_id}/windows/{window_id}/close"): {"expected_step": "planning"},
    ("post", "/games/{game_id}/resolve"): {"announcement": "a", "expected_step": "resolution"},
    ("post", "/games/{game_id}/actions"): {"title": "T"},
    ("post", "/games/{game_id}/actions/{action_id}/roll"): {"convert": 0},
    ("post", "/games/{game_id}/actions/{action_id}/conversions"): {"convert": 0},
    ("put", "/games/{game_id}/actions/{action_id}/difficulty"): {"value": 2},
    ("put", "/games/{game_id}/actions/{action_id}/ruling"): {"resistible": True},
    ("post", "/games/{game_id}/actions/{action_id}/consequences"): {"text": "t", "effects": [{"kind": "note"}]},
    ("post", "/games/{game_id}/reactions"): {"action_id": "act-1"},
    ("post", "/games/{game_id}/reactions/{reaction_id}/conversions"): {"convert": 0},
    ("post", "/games/{game_id}/waive"): {"power_id": "ana"},
    ("post", "/games/{game_id}/secrets/{asset_id}/share"): {"to": "bo"},
    ("post", "/games/{game_id}/grants"): {"to": "bo", "text": "t"},
    ("put", "/games/{game_id}/influence"): {"power_id": "ana", "hex": "h1", "amount": 1},
    ("put", "/games/{game_id}/timezone"): {"timezone": "UTC"},
    ("post", "/games/{game_id}/commands"): {"command": "SetMonths", "args": {"months": 2}},
    ("post", "/games/{game_id}/rollback"): {"reason": "r"},
    ("post", "/games/{game_id}/fork"): {"name": "F"},
    ("put", "/games/{game_id}/windows/{window_id}/deadline"): {"closes_at": "2030-01-01T00:00:00Z"},
    ("post", "/games/{game_id}/windows/{window_id}/extensions"): {"hours": 2},
    ("post", "/games/{game_id}/extensions/{request_id}/grant"): {"hours": 2},
    ("post", "/games/{game_id}/extensions/{request_id}/refuse"): {"reason": "r"},
    ("post", "/games/{game_id}/ready"): {"power_id": "ana"},
    ("post", "/inbound/email"): {"to": "a@b.org", "from": "c@d.org", "message_id": "<m@x>"},
    ("post", "/inbound/bounce"): {"message_id": "<m@x>"},
    ("put", "/games/{game_id}/contact"): {"email": "ana@example.org"},
    ("put", "/games/{game_id}/language"): {"seat": "ana", "language": "de"},
    ("put", "/games/{game_id}/notifications"): {
        "seat": "ana",
        "mail": {"post": "off"},
        "quiet_from": "22:00",
        "quiet_until": "07:00",
    },
    ("post", "/games/{game_id}/preview"): {"window_id": "w1"},
    ("post", "/games/{game_id}/invitations"): {"seat": "ana", "email": "ana@example.org", "language": "de"},
    ("post", "/games/{game_id}/observers"): {"email": "watcher@example.org", "language": "de"},
    ("post", "/games/{game_id}/replay"): {"version": "table-2"},
    ("post", "/games/{game_id}/adopt"): {"version": "table-2", "from_phase": "setup"},
    ("post", "/games/{game_id}/webhooks"): {"url": "https://example.org/hook", "format": "json", "kinds": ["post"]},
    ("post", "/games/{game_id}/push"): {
        "endpoint": "https://push.example.org/p/1",
        "keys": {"p256dh": "BAAA", "auth": "AAAA"},
        "label": "phone",
        "kinds": ["move"],
    },
    ("post", "/games/{game_id}/threads"): {"seats": ["ana"]},
    ("post", "/games/{game_id}/threads/{thread_id}/posts"): {"text": "hello"},
    ("put", "/games/{game_id}/posts/{post_id}"): {"text": "hello"},
    ("post", "/games/{game_id}/posts/{post_id}/hide"): {"reason": "r"},
    ("post", "/games/{game_id}/threads/{thread_id}/read"): {"seq": 1},
    ("post", "/games/{game_id}/disputes"): {"seq": 1, "text": "why?"},
    ("post", "/games/{game_id}/disputes/{dispute_id}/answer"): {"text": "see", "points_at": "preview"},
    ("post", "/games/{game_id}/disputes/{dispute_id}/settle"): {"outcome": "upheld", "note": "n"},
    # the fake ruleset's, declared in its own package (tests/plugins/emissary-fake)
    ("post", "/games/{game_id}/table/seats"): {"seat_id": "s1", "name": "S"},
    ("post", "/games/{game_id}/table/posts"): {"text": "t"},
}
# Routes whose body may be left out (every field has a default): an empty body is no body, not a malformed one.
OPTIONAL_BODY = {("post", "/games/{game_id}/preview")}
# Raw bodies (not JSON objects): checked on their own below.
RAW_ROUTES = {("post", "/verify")}

# Every one of these is wrong for every field: no field is a megabyte long, unbounded, or NaN.
BAD_VALUES = {
    "1 MB string": MB,
    "huge integer": 10**30,
    "huge negative float": -1e308,
    "NaN": math.nan,
    "Infinity": math.inf,
    "-Infinity": -math.inf,
    "deeply nested": DEEP,
    "list of megabytes": [MB],
    "object of megabytes": {MB[:64]: MB},
    "object with a megabyte key": {MB: 1},
}
NOT_JSON_BODIES = {
    "not json": b"not json",
    "bad utf-8": b"\xff\xfe{",
    "empty": b"",
    "null": b"null",
    "a list": b"[1,2,3]",
    "a string": b'"x"',
    "truncated": b'{"name": "G"',
    "nested beyond the parser": b"[" * 100_000 + b"]" * 100_000,
    "over the body limit": b'{"name": "' + b"x" * 11_000_000 + b'"}',  # over the upload limit too
}


@pytest.fixture(scope="module")
def api(tmp_path_factory):
    app = create_app(
        Settings(
            data_dir=tmp_path_factory.mktemp("malformed"),
            inbound_key="inbound-key",
            ratelimit_create_game="100000/minute",
            ratelimit_mail="100000/minute",
            ratelimit_verify="100000/minute",
            ratelimit_invitations="100000/minute",
        )
    )
    with TestClient(app) as client:  # raise_server_exceptions: a 500 fails the test
        r = client.post("/games", json={"name": "Malformed"})
        gid = r.json()["game_id"]
        gm = {"Authorization": f"Bearer {r.json()['gm_token']}", "X-Emissary-Inbound-Key": "inbound-key"}
        for name, cls, sub in (("Ana", "conspiracy", "circle"), ("Bo", "city", "sovereign")):
            assert (
                client.post(
                    f"/games/{gid}/powers", headers=gm, json={"name": name, "cls": cls, "subclass": sub}
                ).status_code
                == 201
            )
        for step in ("setup", "tidings"):
            assert client.post(f"/games/{gid}/advance", headers=gm, json={"expected_step": step}).status_code == 200
        yield client, app, gid, gm
    close_app(app)


def routes(app) -> dict[tuple[str, str], dict]:
    """Every POST and PUT of the API with a JSON body: its schema's properties and required fields."""
    spec = app.openapi()
    out = {}
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            if method not in ("post", "put"):
                continue
            content = op.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                ref = content["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
                out[(method, path)] = spec["components"]["schemas"][ref]
            elif content:
                assert (method, path) in RAW_ROUTES, f"{method} {path} takes a body this test does not know"
    return out


def url(path: str, gid: str) -> str:
    return (
        path.replace("{game_id}", gid)
        .replace("{power_id}", "ana")
        .format_map(
            {
                "action_id": "act-1",
                "reaction_id": "rx-1",
                "asset_id": "as-1",
                "window_id": "s1m1-planning",
                "request_id": "rq-1",
                "consequence_id": "csq-1",
                "thread_id": "table",
                "post_id": "post-1",
                "dispute_id": "dsp-1",
            }
        )
    )


# A mail's body may be as large as a whole mail (api.mail_intake.MAX_MAIL_BYTES, 2 MB).
WITHIN_LIMITS = {("post", "/inbound/email", "text", "1 MB string"), ("post", "/inbound/email", "html", "1 MB string")}


def cases():
    app = create_app(Settings(database_url="memory"))
    for (method, path), schema in sorted(routes(app).items()):
        for field in schema["properties"]:
            for label in BAD_VALUES:
                if (method, path, field, label) in WITHIN_LIMITS:
                    continue
                yield pytest.param(method, path, field, label, id=f"{method} {path} {field} {label}")
            nullable = {"type": "null"} in schema["properties"][field].get("anyOf", [])
            if field in schema.get("required", []) and not nullable:
                yield pytest.param(method, path, field, "null", id=f"{method} {path} {field} null")
    close_app(app)


def stored_events(app) -> int:
    return app.state.games.recorder.max_notification_id() or 0


def test_every_route_with_a_body_has_a_valid_base_body(api):
    _, app, _, _ = api
    assert set(routes(app)) == set(BASE)


@pytest.mark.parametrize("method,path,field,label", list(cases()))
def test_a_malformed_field_is_refused_naming_it_and_records_nothing(api, method, path, field, label):
    client, app, gid, gm = api
    body = dict(BASE[(method, path)])
    body[field] = None if label == "null" else BAD_VALUES[label]
    before = stored_events(app)
    r = client.request(
        method.upper(), url(path, gid), headers={**gm, "content-type": "application/json"}, content=json.dumps(body)
    )  # NaN and Infinity as Python writes them
    assert 400 <= r.status_code < 500 and r.status_code not in (401, 403, 404), (r.status_code, r.text[:300])
    error = r.json()
    assert error["field"] == field or error["field"].startswith(f"{field}."), error
    assert field in error["message"], error
    assert len(r.content) < 20_000  # the refusal does not echo the input back
    assert stored_events(app) == before


@pytest.mark.parametrize("label", list(NOT_JSON_BODIES))
def test_a_body_that_is_not_a_json_object_is_refused_on_every_route(api, label):
    client, app, gid, gm = api
    before = stored_events(app)
    for method, path in sorted(BASE):
        if label == "empty" and (method, path) in OPTIONAL_BODY:
            continue
        r = client.request(
            method.upper(),
            url(path, gid),
            headers={**gm, "content-type": "application/json"},
            content=NOT_JSON_BODIES[label],
        )
        assert 400 <= r.status_code < 500, (method, path, r.status_code, r.text[:300])
        assert r.json()["field"] == "body", (method, path, r.json())
    assert stored_events(app) == before


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[1,2,3]",
        '{"type":"SeedRevealed","data":{}}',
        '{"type":"DiceRolled","data":{}}',
        '{"type":"DiceRolled","data":{"action_id":"a","pool":{"roll_no":1e308,"dice":[{"face":NaN}]}}}',
        MB,
        "[" * 100_000,
    ],
)
def test_verify_refuses_malformed_exports_naming_the_line(api, text):
    client, _, _, _ = api
    r = client.post("/verify", content=text, headers={"content-type": "application/x-ndjson"})
    assert r.status_code == 422, r.text[:300]
    assert r.json()["line"] == 1 and r.json()["field"]


def test_an_unexpected_exception_answers_json_500_and_closes_the_connection(tmp_path, caplog):
    app = create_app(Settings(data_dir=tmp_path))

    @app.get("/boom")
    def boom() -> dict:
        raise RuntimeError("a bug")

    with TestClient(app, raise_server_exceptions=False) as client:
        r = client.get("/boom")
    assert r.status_code == 500
    assert r.headers["connection"] == "close"
    assert r.json()["error"] == "InternalError" and "a bug" not in r.text
    assert any("unexpected error" in rec.message and rec.exc_info for rec in caplog.records)
    close_app(app)


@pytest.mark.parametrize(
    "options,field",
    [
        ({"resistance_hours": "soon"}, "options.resistance_hours"),
        ({"planning_hours": 1e308}, "options.planning_hours"),
        ({"planning_hours": -5}, "options.planning_hours"),
        ({"notify_resister_at": "never"}, "options.notify_resister_at"),
    ],
)
def test_ill_typed_game_options_are_refused_when_the_game_is_created(api, options, field):
    client, app, _, _ = api
    before = stored_events(app)
    r = client.post("/games", json={"name": "Options", "options": options})
    assert r.status_code == 422 and r.json()["field"] == field, r.text
    assert stored_events(app) == before


def test_ill_typed_adversary_options_are_refused_when_the_power_is_added(api):
    client, app, gid, gm = api
    before = stored_events(app)
    r = client.post(
        f"/games/{gid}/powers",
        headers=gm,
        json={"name": "Balrog", "cls": "champion", "subclass": "adversary", "options": {"private_actions": "lots"}},
    )
    assert r.status_code == 422 and r.json()["field"] == "options.private_actions", r.text
    assert stored_events(app) == before


def test_the_web_forms_refuse_overlong_text_by_field_and_record_nothing(api):
    client, app, gid, gm = api
    browser = TestClient(app)
    token = gm["Authorization"].split()[1]
    assert browser.get(f"/signin/{gid}/{token}", follow_redirects=False).status_code == 303
    before = stored_events(app)
    r = browser.post(
        f"/play/{gid}/add-power",
        data={"name": "x" * 100_000, "kind": "city:sovereign", "csrf": _csrf(browser.get(f"/play/{gid}").text)},
        follow_redirects=False,
    )
    assert r.status_code == 303
    page = browser.get(f"/play/{gid}")
    assert "at most 80 characters" in page.text
    assert "x" * 1000 not in page.text
    r = browser.post(
        "/new",
        data={"name": "G", "timezone": "x" * 100_000, "csrf": _csrf(browser.get("/new").text)},
        follow_redirects=False,
    )
    assert r.status_code == 303 and r.headers["location"] == "/new"
    page = browser.get("/new")
    assert "at most 64 characters" in page.text and "x" * 1000 not in page.text
    assert stored_events(app) == before


def _csrf(page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', page).group(1)


JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=40)
    | st.sampled_from(["x" * 300, "x" * 70_000, "ana", "bo", "UTC", "2030-01-01T00:00:00Z", "s1m1-planning"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4),
    max_leaves=12,
)


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(data=st.data())
def test_property_any_json_in_any_field_of_any_route_never_answers_500(api, data):
    """Whatever JSON lands in whatever fields (some of it valid, so commands run), the answer is a
    success or a 4xx that names its field or rule; never a 500 (the test client would raise)."""
    client, app, gid, gm = api
    method, path = data.draw(st.sampled_from(sorted(BASE)))
    schema = routes(app)[(method, path)]
    body = dict(BASE[(method, path)])
    for field in data.draw(st.lists(st.sampled_from(sorted(schema["properties"])), min_size=1, max_size=3)):
        body[field] = data.draw(JSON)
    r = client.request(
        method.upper(), url(path, gid), headers={**gm, "content-type": "application/json"}, content=json.dumps(body)
    )
    assert r.status_code < 500, r.text[:300]
    if r.status_code >= 400:
        error = r.json()
        assert error["field"] or error["rule"], error
