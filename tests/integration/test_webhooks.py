"""Per-game webhooks (issue 31, item 1), delivered by the sweep's tasks to a real HTTP receiver on loopback: each
receiver's format, the generic body's signature, retries with backoff through the delivery ledger, a failing URL
paused and its GM told, private addresses refused, and nothing an observer may not see."""

from __future__ import annotations

import hashlib
import hmac
import logging
from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.compose import build_games, build_projector
from application import webhooks
from application.service import Caller
from domain.errors import DomainError, RuleViolation
from domain.platform.commands import MakePost
from domain.powers import commands as pc
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import bearer, close_app, close_services
from tests.webhook_receiver import Receiver
from workers import mail, runtime

PUBLIC_URL = "https://emissary.example"


@pytest.fixture
def receiver():
    r = Receiver().start()
    try:
        yield r
    finally:
        r.stop()


@pytest.fixture
def eager(store_settings):
    """The workers' tasks run inline (Celery's eager mode, as the mail tests run them) against this process's
    service and read models, on SQLite and on PostgreSQL; webhooks may reach loopback (the tests' own receiver)."""
    from workers.app import celery_app

    settings = store_settings.model_copy(
        update={
            "webhooks_allow_private": True,
            "public_url": PUBLIC_URL,
            "webhook_pause_after": 3,
            "secret_key": "k" * 40,
        }
    )
    games = build_games(settings)
    projector = build_projector(games, settings)
    runtime.use(games, projector, settings)
    celery_app.conf.task_always_eager = True
    try:
        yield games, projector, settings
    finally:
        celery_app.conf.task_always_eager = False
        close_services(games, projector)


def sweep(at: datetime | None = None) -> dict:
    """The sweep task (catch-up, windows, mail, webhooks) as beat sends it, at ``at``."""
    from workers.tasks import sweep as task

    if at is None:
        return task()
    real = runtime.now
    runtime.now = lambda: at  # type: ignore[assignment]
    try:
        return task()
    finally:
        runtime.now = real  # type: ignore[assignment]


def services(app) -> tuple:
    """The app's game service and read models (the web app keeps them on ``app.state``)."""
    return app.state.games, app.state.projector


def a_game(games, name: str = "Harbour Watch") -> tuple[str, str, str]:
    gid, _, _ = games.create_game(name)
    wiz = add_power(games, gid, "gm", "Wiz", "champion", "wizard")[0]
    sov = add_power(games, gid, "gm", "Sov", "city", "sovereign")[0]
    return gid, wiz, sov


def test_each_format_says_what_happened_names_the_game_and_links_to_it_and_json_is_signed(eager, receiver):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    db = projector.db
    projector.catch_up()
    added = {
        fmt: webhooks.add(
            db, gid, "gm", receiver.url(f"/{fmt}/T0KEN-{fmt}"), fmt, list(webhooks.KINDS), allow_private=True
        )
        for fmt in webhooks.FORMATS
    }
    assert [fmt for fmt, h in added.items() if h["secret"]] == ["json"]  # only the generic format is signed
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning begins
    games.run(Caller.of(wiz), gid, MakePost("table", "Ships sighted off the cape."))
    sweep()
    link = f"{PUBLIC_URL}/play/{gid}"

    discord = receiver.bodies("/discord/T0KEN-discord")
    assert any("Planning" in b["embeds"][0]["title"] for b in discord)
    post = next(b for b in discord if "posted at the table" in b["embeds"][0]["title"])
    assert post["content"].startswith("**Harbour Watch: Wiz posted at the table**")
    assert link in post["content"] and post["embeds"][0]["url"] == link
    assert post["embeds"][0]["description"] == "Ships sighted off the cape."
    assert post["allowed_mentions"] == {"parse": []}

    slack = receiver.bodies("/slack/T0KEN-slack")
    said = next(b for b in slack if "posted at the table" in b["text"])
    assert said["text"] == f"Harbour Watch: Wiz posted at the table: Ships sighted off the cape. <{link}|Harbour Watch>"
    assert [b["type"] for b in said["blocks"]] == ["header", "section", "context"]
    assert said["blocks"][1]["text"] == {"type": "mrkdwn", "text": "Ships sighted off the cape."}

    matrix = receiver.bodies("/matrix/T0KEN-matrix")
    said = next(b for b in matrix if "posted at the table" in b["text"])
    assert said["text"] == f"Harbour Watch: Wiz posted at the table\nShips sighted off the cape.\n{link}"
    assert f'<a href="{link}">Harbour Watch</a>' in said["html"] and said["username"] == "Emissary"

    (request,) = [r for r in receiver.requests("/json/T0KEN-json") if r["headers"]["X-Emissary-Event"] == "post"]
    headers, raw = request["headers"], request["raw"]
    expected = hmac.new(
        added["json"]["secret"].encode(), f"{headers['X-Emissary-Timestamp']}.".encode() + raw, hashlib.sha256
    ).hexdigest()
    assert headers["X-Emissary-Signature"] == f"sha256={expected}"
    assert hmac.compare_digest(
        headers["X-Emissary-Signature"],
        webhooks.sign(added["json"]["secret"], int(headers["X-Emissary-Timestamp"]), raw),
    )
    body = receiver.bodies("/json/T0KEN-json")
    kinds = [b["event"] for b in body]
    assert kinds.count("phase") >= 1 and kinds.count("post") == 1
    assert {b["game"]["name"] for b in body} == {"Harbour Watch"} and {b["game"]["url"] for b in body} == {link}
    # Each delivery is in the ledger, once: a second sweep sends nothing again.
    before = len(receiver.got)
    sweep()
    assert len(receiver.got) == before
    ledger = webhooks.deliveries(db, gid)
    assert (
        len(ledger) == before and {r["status"] for r in ledger} == {"sent"} and {r["attempts"] for r in ledger} == {1}
    )


def test_a_webhook_gets_only_the_kinds_it_asked_for(eager, receiver):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(projector.db, gid, "gm", receiver.url("/results"), "json", ["results"], allow_private=True)
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    games.run(Caller.of(wiz), gid, MakePost("table", "Nothing to see."))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement="The harbour burns."))
    sweep()
    (said,) = receiver.bodies("/results")
    assert said["event"] == "results" and said["title"] == "Results are published"


def test_a_deadline_approaching_is_announced_with_its_public_deadline_only(eager, receiver):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(projector.db, gid, "gm", receiver.url("/deadline"), "json", ["deadline"], allow_private=True)
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    games.declare_ready(gid, sov, sov)
    games.set_deadline(gid, "gm", "s1m1-planning", datetime.now(timezone.utc) + timedelta(minutes=30))
    sweep()  # the sweep queues the reminder (RemindersQueued, the GM's) ...
    sweep()  # ... and, once projected, the webhook says the window closes soon, and nothing of who is reminded
    (said,) = receiver.bodies("/deadline")
    assert (
        said["event"] == "deadline" and "closes in 1 hour, at 20" in said["text"] and said["text"].endswith(" (UTC).")
    )
    assert wiz not in str(said) and "Wiz" not in str(said)


def test_a_failing_url_is_retried_with_backoff_until_it_answers_and_the_ledger_counts_the_attempts(eager, receiver):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(projector.db, gid, "gm", receiver.url("/flaky"), "discord", ["post"], allow_private=True)
    receiver.answers["/flaky"] = [500, 500]
    games.run(Caller.of(wiz), gid, MakePost("table", "Third time lucky."))
    t0 = datetime.now(timezone.utc)
    sweep(t0)
    assert len(receiver.requests("/flaky")) == 1
    (row,) = webhooks.deliveries(projector.db, gid)
    assert (row["status"], row["attempts"], row["last_error"]) == ("queued", 1, "HTTP 500")
    sweep(t0 + timedelta(seconds=5))  # backoff: 10 s after the first failure
    assert len(receiver.requests("/flaky")) == 1
    sweep(t0 + timedelta(seconds=11))
    assert len(receiver.requests("/flaky")) == 2
    sweep(t0 + timedelta(seconds=25))  # 20 s after the second
    assert len(receiver.requests("/flaky")) == 2
    sweep(t0 + timedelta(seconds=32))
    assert len(receiver.requests("/flaky")) == 3
    (row,) = webhooks.deliveries(projector.db, gid)
    assert (row["status"], row["attempts"], row["last_error"]) == ("sent", 3, None)
    assert webhooks.listing(projector.db, gid)[0]["failures"] == 0  # a success ends the run of failures
    sweep(t0 + timedelta(hours=1))
    assert len(receiver.requests("/flaky")) == 3  # sent once, never again


def test_a_url_that_keeps_failing_is_paused_and_the_gm_and_hosts_are_told(eager, receiver):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    hook = webhooks.add(projector.db, gid, "gm", receiver.url("/gone/S3CRET"), "slack", ["post"], allow_private=True)
    receiver.answers["/gone/S3CRET"] = [404] * 20
    for text in ("one", "two"):
        games.run(Caller.of(wiz), gid, MakePost("table", text))
    t0 = datetime.now(timezone.utc)
    sweep(t0)  # two rows, two failures
    sweep(t0 + timedelta(seconds=11))  # the third failure in a row (pause_after=3) pauses it
    (listed,) = webhooks.listing(projector.db, gid)
    assert (listed["status"], listed["failures"], listed["last_error"]) == ("paused", 3, "HTTP 404")
    sent = len(receiver.requests("/gone/S3CRET"))
    assert sent == 3
    games.run(Caller.of(wiz), gid, MakePost("table", "three"))
    sweep(t0 + timedelta(hours=1))
    assert len(receiver.requests("/gone/S3CRET")) == sent  # paused: nothing more is sent or queued
    assert {r["status"] for r in webhooks.deliveries(projector.db, gid)} == {"held"}
    told = [r for r in mail.ledger(projector.db, gid, "gm") if r["kind"].startswith("webhook-paused")]
    assert len(told) == 1 and "is paused" in told[0]["subject"] and "Harbour Watch" in told[0]["subject"]
    assert "http://127.0.0.1/…" in told[0]["body"] and "S3CRET" not in told[0]["body"]
    # Resumed, it announces what happens from now on.
    receiver.answers["/gone/S3CRET"] = []
    assert webhooks.resume(projector.db, gid, hook["id"])["status"] == "active"
    games.run(Caller.of(wiz), gid, MakePost("table", "four"))
    sweep(t0 + timedelta(hours=2))
    assert [b["text"] for b in receiver.bodies("/gone/S3CRET")][-1].endswith(
        f"four <{PUBLIC_URL}/play/{gid}|Harbour Watch>"
    )


def test_a_post_hidden_before_it_is_sent_is_withdrawn(eager, receiver):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(projector.db, gid, "gm", receiver.url("/hide"), "json", ["post"], allow_private=True)
    receiver.answers["/hide"] = [500]
    post = games.run(Caller.of(wiz), gid, MakePost("table", "RUDE-WORDS")).result["post_id"]
    t0 = datetime.now(timezone.utc)
    sweep(t0)
    from domain.platform.commands import HidePost

    games.run(Caller.of("gm"), gid, HidePost(post, "rude"))
    sweep(t0 + timedelta(minutes=1))
    assert len(receiver.requests("/hide")) == 1
    assert [r["status"] for r in webhooks.deliveries(projector.db, gid)] == ["withdrawn"]


def test_the_embedded_worker_delivers_webhooks(tmp_path, receiver):
    import time

    settings = Settings(data_dir=tmp_path, sweep_seconds=0.3, webhooks_allow_private=True, public_url=PUBLIC_URL)
    app = create_app(settings, embedded_workers=True)
    with TestClient(app):
        games, projector = services(app)
        gid, wiz, sov = a_game(games, "Embedded")
        projector.catch_up()
        webhooks.add(projector.db, gid, "gm", receiver.url("/embedded"), "matrix", ["post"], allow_private=True)
        games.run(Caller.of(wiz), gid, MakePost("table", "Hello from the worker."))
        deadline = time.time() + 20
        while not receiver.bodies("/embedded"):
            assert time.time() < deadline, "the embedded worker never delivered the webhook"
            time.sleep(0.1)
    (said,) = receiver.bodies("/embedded")
    assert said["text"].startswith("Embedded: Wiz posted at the table\nHello from the worker.")


# ---------------------------------------------------------------------------------------------- the API and refusals


@pytest.fixture
def api(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, public_url=PUBLIC_URL))
    client = TestClient(app)
    created = client.post("/games", json={"name": "Refusals"}).json()
    yield app, client, created["game_id"], created["gm_token"]
    close_app(app)


def test_a_private_or_loopback_url_is_refused_naming_the_field_and_records_nothing(api, receiver):
    app, client, gid, token = api
    for url in (
        receiver.url("/x"),
        "http://10.1.2.3/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]:8080/hook",
        "http://localhost/hook",
        "http://192.168.0.10/hook",
        "http://[64:ff9b::a01:203]/hook",  # NAT64's well-known prefix: 10.1.2.3 behind a NAT64 gateway
    ):
        answer = client.post(
            f"/games/{gid}/webhooks", json={"url": url, "format": "json", "kinds": ["post"]}, headers=bearer(token)
        )
        assert answer.status_code == 422, url
        assert answer.json()["field"] == "url" and "private" in answer.json()["message"], url
    for bad, field in (
        ({"url": "ftp://example.org/x", "format": "json", "kinds": ["post"]}, "url"),
        ({"url": "https://user:pw@example.org/x", "format": "json", "kinds": ["post"]}, "url"),
        # a control or non-ASCII character: http.client would repeat the path (its token) in an error, or fail
        ({"url": "https://example.org/api/webhooks/1/tok\x01en", "format": "json", "kinds": ["post"]}, "url"),
        ({"url": "https://example.org/api/webhooks/1/tökèn", "format": "json", "kinds": ["post"]}, "url"),
        ({"url": "https://example.org/x", "format": "irc", "kinds": ["post"]}, "format"),
        ({"url": "https://example.org/x", "format": "json", "kinds": ["gossip"]}, "kinds"),
        ({"url": "https://example.org/x", "format": "json", "kinds": []}, "kinds"),
    ):
        answer = client.post(f"/games/{gid}/webhooks", json=bad, headers=bearer(token))
        assert (answer.status_code, answer.json()["field"]) == (422, field), bad
    assert client.get(f"/games/{gid}/webhooks", headers=bearer(token)).json() == []
    assert services(app)[1].db.query("SELECT COUNT(*) FROM webhooks") == [(0,)]


def test_a_url_that_resolves_to_a_private_address_is_refused_at_delivery_too(eager, receiver, monkeypatch):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(projector.db, gid, "gm", receiver.url("/rebound"), "json", ["post"], allow_private=True)
    monkeypatch.setattr(settings, "webhooks_allow_private", False)  # the operator took the permission back
    games.run(Caller.of(wiz), gid, MakePost("table", "Anyone there?"))
    sweep()
    assert receiver.requests("/rebound") == []
    (row,) = webhooks.deliveries(projector.db, gid)
    assert row["status"] == "queued" and row["last_error"].startswith("refused: url: its host resolves to a private")


def test_a_redirect_is_not_followed(eager, receiver):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(projector.db, gid, "gm", receiver.url("/moved"), "json", ["post"], allow_private=True)
    receiver.answers["/moved"] = [302]
    games.run(Caller.of(wiz), gid, MakePost("table", "Follow me."))
    sweep()
    (row,) = webhooks.deliveries(projector.db, gid)
    assert row["last_error"] == "redirect refused (HTTP 302)" and len(receiver.got) == 1


def test_only_the_gm_or_a_host_manages_webhooks_and_the_secret_is_shown_once(tmp_path, receiver):
    app = create_app(Settings(data_dir=tmp_path, public_url=PUBLIC_URL, webhooks_allow_private=True))
    try:
        client = TestClient(app)
        created = client.post("/games", json={"name": "Keys"}).json()
        gid, token = created["game_id"], created["gm_token"]
        _, seat_token, _ = add_power(services(app)[0], gid, "gm", "Wiz", "champion", "wizard")
        body = {"url": receiver.url("/hooks/SECRET-PATH"), "format": "json", "kinds": ["post", "phase"]}
        refused = client.post(f"/games/{gid}/webhooks", json=body, headers=bearer(seat_token))
        assert (refused.status_code, refused.json()["field"]) == (403, "webhooks")
        made = client.post(f"/games/{gid}/webhooks", json=body, headers=bearer(token))
        assert made.status_code == 201 and len(made.json()["secret"]) > 30
        listed = client.get(f"/games/{gid}/webhooks", headers=bearer(token)).json()
        assert [(h["url"], h["secret"], h["kinds"]) for h in listed] == [
            ("http://127.0.0.1/…", None, ["phase", "post"])
        ]
        assert "SECRET-PATH" not in client.get(f"/games/{gid}/webhooks", headers=bearer(token)).text
        assert client.get(f"/games/{gid}/webhooks", headers=bearer(seat_token)).status_code == 403
        gone = client.delete(f"/games/{gid}/webhooks/{made.json()['id']}", headers=bearer(token))
        assert gone.status_code == 204 and client.get(f"/games/{gid}/webhooks", headers=bearer(token)).json() == []
    finally:
        close_app(app)


def test_an_unknown_format_is_refused_in_the_service_too(eager):
    games, projector, settings = eager
    gid, _, _ = a_game(games)
    with pytest.raises(RuleViolation) as err:
        webhooks.add(projector.db, gid, "gm", "https://example.org/x", "irc", ["post"], allow_private=True)
    assert err.value.field == "format"


def test_no_log_line_names_a_webhooks_url_token(eager, receiver, caplog):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(
        projector.db, gid, "gm", receiver.url("/api/webhooks/123/L0G-T0KEN"), "discord", ["post"], allow_private=True
    )
    receiver.answers["/api/webhooks/123/L0G-T0KEN"] = [500, 500, 500, 500]
    with caplog.at_level(logging.DEBUG):
        games.run(Caller.of(wiz), gid, MakePost("table", "Quiet, please."))
        t0 = datetime.now(timezone.utc)
        for minutes in range(5):
            sweep(t0 + timedelta(minutes=minutes * 11))
    assert caplog.records and "webhook paused" in caplog.text
    assert "L0G-T0KEN" not in caplog.text and all("L0G-T0KEN" not in r.getMessage() for r in caplog.records)
    assert all("L0G-T0KEN" not in str(r["body"]) + str(r["last_error"]) for r in webhooks.deliveries(projector.db, gid))


# ---------------------------------------------------------------------------------------------- the GM's page


def signed_in(app, gid: str, token: str) -> TestClient:
    client = TestClient(app)
    assert client.get(f"/signin/{gid}/{token}", follow_redirects=False).status_code == 303
    return client


def csrf(client: TestClient, page: str) -> str:
    import re

    return re.search(r'name="csrf" value="([^"]+)"', client.get(page).text).group(1)


@pytest.mark.parametrize("allow", [False, True])
def test_the_gms_page_adds_a_webhook_shows_its_secret_once_and_refuses_a_private_address_by_field(
    tmp_path, receiver, allow
):
    app = create_app(Settings(data_dir=tmp_path, public_url="http://testserver", webhooks_allow_private=allow))
    try:
        games, projector = services(app)
        gid, gm_token, _ = games.create_game("Page")
        _, seat_token, _ = add_power(games, gid, "gm", "Wiz", "champion", "wizard")
        gm = signed_in(app, gid, gm_token)
        assert 'href="/play/' + gid + '/webhooks"' in gm.get(f"/play/{gid}").text  # the console links to it
        page = f"/play/{gid}/webhooks"
        form = {
            "csrf": csrf(gm, page),
            "url": receiver.url("/page/P4GE-T0KEN"),
            "format": "json",
            "kinds[]": ["post", "results"],
        }
        shown = gm.post(page, data=form, headers={"Origin": "http://testserver"})
        assert shown.status_code == 200 and "P4GE-T0KEN" not in shown.text
        if not allow:
            assert "private, loopback or link-local" in shown.text and 'id="err-webhooks-url"' in shown.text
            assert webhooks.listing(projector.db, gid) == []
        else:
            (hook,) = webhooks.listing(projector.db, gid)
            secret = projector.db.query("SELECT secret FROM webhooks")[0][0]
            assert secret in shown.text and "X-Emissary-Signature" in shown.text
            again = gm.get(page).text
            assert secret not in again and "http://127.0.0.1/…" in again  # shown once; the address cut to its host
            form = {"csrf": csrf(gm, page)}
            gone = gm.post(f"{page}/{hook['id']}/remove", data=form, headers={"Origin": "http://testserver"})
            assert "Webhook removed." in gone.text and webhooks.listing(projector.db, gid) == []
        player = signed_in(app, gid, seat_token)
        assert player.get(page).status_code == 403
    finally:
        close_app(app)


def test_a_covenant_host_manages_the_webhooks_from_the_table_and_another_seat_may_not(tmp_path):
    from application.service import new_token
    from domain.platform.commands import ReissueLink
    from tests.covenants.play import seat_three

    app = create_app(Settings(data_dir=tmp_path, public_url="http://testserver"))
    try:
        games, projector = services(app)
        t = seat_three(games)
        pages = {}
        for seat in ("ann", "bob"):  # Ann hosts (she runs the windows), Bob plays
            token, digest = new_token()
            games.run(Caller.of("gm"), t.game_id, ReissueLink(seat, digest))
            client = signed_in(app, t.game_id, token)
            pages[seat] = (client.get(f"/play/{t.game_id}").text, client.get(f"/play/{t.game_id}/webhooks"))
        link = f'href="/play/{t.game_id}/webhooks"'
        assert link in pages["ann"][0] and pages["ann"][1].status_code == 200
        assert link not in pages["bob"][0] and pages["bob"][1].status_code == 403
        with pytest.raises(DomainError):
            webhooks.check_manager(games.get_game(t.game_id, for_update=False), "bob")
        webhooks.check_manager(games.get_game(t.game_id, for_update=False), "ann")
    finally:
        close_app(app)


def test_a_chats_webhook_url_is_redacted_in_any_log_line():
    from projections import logs

    line = logs.redact(
        "POST https://discord.com/api/webhooks/123456/Abc-DEF_ghi and https://hooks.slack.com/services/T0/B1/x2"
    )
    assert "Abc-DEF_ghi" not in line and "T0/B1/x2" not in line
    assert "/api/webhooks/123456/[redacted]" in line and "hooks.slack.com/services/[redacted]" in line


@pytest.fixture
def tls_receiver(tmp_path):
    """A receiver over HTTPS with a certificate for ``localhost`` (made by openssl), and that certificate."""
    import subprocess

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost"]
        + ["-addext", "subjectAltName=DNS:localhost", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )
    r = Receiver(tls=(str(cert), str(key))).start()
    try:
        yield r, str(cert)
    finally:
        r.stop()


def test_https_is_sent_to_the_checked_address_with_the_hosts_certificate_checked(eager, tls_receiver, monkeypatch):
    import ssl

    from workers import webhooks as sender

    receiver, cert = tls_receiver
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(projector.db, gid, "gm", receiver.url("/tls", "localhost"), "json", ["post"], allow_private=True)
    games.run(Caller.of(wiz), gid, MakePost("table", "Over TLS."))
    t0 = datetime.now(timezone.utc)
    sweep(t0)  # the system's authorities do not know the test's certificate: refused, and retried later
    (row,) = webhooks.deliveries(projector.db, gid)
    assert row["status"] == "queued" and "CERTIFICATE_VERIFY_FAILED" in row["last_error"]
    assert receiver.got == []
    monkeypatch.setattr(sender, "tls_context", lambda: ssl.create_default_context(cafile=cert))
    sweep(t0 + timedelta(seconds=11))
    (said,) = receiver.bodies("/tls")
    assert said["text"] == "Over TLS." and webhooks.deliveries(projector.db, gid)[0]["status"] == "sent"


def test_the_gms_narration_is_announced_as_narration(eager, receiver):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(projector.db, gid, "gm", receiver.url("/narration"), "json", ["post"], allow_private=True)
    games.run(Caller.of("gm"), gid, MakePost("narration", "Winter comes early."))
    games.run(Caller.of(wiz), gid, MakePost(f"desk-{wiz}", "DESK-SECRET: may I?"))  # the GM's desk: not public
    sweep()
    (said,) = receiver.bodies("/narration")
    assert (said["title"], said["text"]) == ("The GM wrote in the narration", "Winter comes early.")


def test_a_webhook_added_through_the_api_announces_only_what_follows_it(tmp_path, receiver):
    from workers.app import celery_app

    settings = Settings(data_dir=tmp_path, public_url=PUBLIC_URL, webhooks_allow_private=True)
    app = create_app(settings)
    try:
        games, projector = services(app)
        client = TestClient(app)
        created = client.post("/games", json={"name": "Since"}).json()
        gid, token = created["game_id"], created["gm_token"]
        games.run(Caller.of("gm"), gid, MakePost("narration", "BEFORE-THE-HOOK"))
        body = {"url": receiver.url("/since"), "format": "json", "kinds": ["post"]}
        assert client.post(f"/games/{gid}/webhooks", json=body, headers=bearer(token)).status_code == 201
        games.run(Caller.of("gm"), gid, MakePost("narration", "AFTER-THE-HOOK"))
        runtime.use(games, projector, settings)
        celery_app.conf.task_always_eager = True
        try:
            sweep()
        finally:
            celery_app.conf.task_always_eager = False
        assert [b["text"] for b in receiver.bodies("/since")] == ["AFTER-THE-HOOK"]
        ledger = client.get(f"/games/{gid}/webhooks/deliveries", headers=bearer(token)).json()
        assert [(r["kind"], r["status"], r["attempts"]) for r in ledger] == [("post", "sent", 1)]
    finally:
        close_app(app)


def test_a_removed_webhook_sends_nothing_more_and_what_it_had_queued_is_withdrawn(eager, receiver):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    hook = webhooks.add(projector.db, gid, "gm", receiver.url("/removed"), "slack", ["post"], allow_private=True)
    receiver.answers["/removed"] = [503]
    games.run(Caller.of(wiz), gid, MakePost("table", "Going, going."))
    t0 = datetime.now(timezone.utc)
    sweep(t0)
    webhooks.remove(projector.db, gid, hook["id"])
    games.run(Caller.of(wiz), gid, MakePost("table", "Gone."))
    sweep(t0 + timedelta(minutes=5))
    assert len(receiver.requests("/removed")) == 1
    assert [(r["status"], r["attempts"]) for r in webhooks.deliveries(projector.db, gid)] == [("withdrawn", 1)]
    with pytest.raises(DomainError) as err:
        webhooks.resume(projector.db, gid, hook["id"])
    assert (err.value.status, err.value.field) == (404, "hook_id")


def test_a_delivery_that_fails_in_an_unforeseen_way_is_a_counted_attempt_that_never_repeats_the_url(
    eager, receiver, monkeypatch
):
    """http.client's InvalidURL repeats the URL (a chat's token) in its message, and an error no one foresaw
    must not leave the row 'sending' to be handed out again forever: either is one failed attempt, recorded by
    its kind alone."""
    import http.client

    from workers import webhooks as delivery

    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(projector.db, gid, "gm", receiver.url("/api/webhooks/1/s3cret"), "json", ["post"], allow_private=True)

    def broken(url: str, *args: object, **kwargs: object) -> int:
        raise http.client.InvalidURL(f"URL can't contain control characters. {url!r}")

    monkeypatch.setattr(delivery, "post", broken)
    games.run(Caller.of(wiz), gid, MakePost("table", "Anyone there?"))
    sweep()
    (row,) = webhooks.deliveries(projector.db, gid)
    assert (row["status"], row["attempts"], row["last_error"]) == ("queued", 1, "InvalidURL")
    (hook,) = webhooks.listing(projector.db, gid)
    assert "s3cret" not in repr(hook)


def test_issue_28_a_reply_sent_after_the_post_it_quotes_is_hidden_says_not_its_words(eager, receiver):
    """A reply quoting a post reaches the webhook after the GM hid that post (a retry): it carries the hidden post's
    placeholder with the reason, never its words."""
    from domain.platform.commands import HidePost

    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    webhooks.add(projector.db, gid, "gm", receiver.url("/quote"), "json", ["post"], allow_private=True)
    receiver.answers["/quote"] = [500, 500]
    post = games.run(Caller.of(wiz), gid, MakePost("table", "RUDE-WORDS")).result["post_id"]
    games.run(Caller.of(sov), gid, MakePost("table", "> RUDE-WORDS\n\nSORRY-WORDS", reply_to=post))
    t0 = datetime.now(timezone.utc)
    sweep(t0)
    games.run(Caller.of("gm"), gid, HidePost(post, "rude"))
    sweep(t0 + timedelta(minutes=1))
    sent = [b["text"] for b in receiver.bodies("/quote")]
    assert any("SORRY-WORDS" in t for t in sent)
    assert not any("RUDE-WORDS" in t for t in sent[-1:]) and "hidden: rude" in sent[-1]
