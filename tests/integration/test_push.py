"""Push to phones (issue 31, item 2), delivered by the sweep's tasks to a push service stood in on loopback
(``tests.push_service``): the request is a real Web Push request (RFC 8030), its body encrypted for the device's
keys (RFC 8291, aes128gcm) and decrypted here with them, its VAPID header (RFC 8292) signed by the configured key
for the push service's origin. Each device gets only the kinds it asked for; a gone subscription (404, 410) is
dropped; a failing push service is retried with backoff through the push ledger; endpoints and keys appear in no
answer and no log line."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta, timezone

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from fastapi.testclient import TestClient
from pydantic import SecretStr

from api.app import create_app
from api.compose import build_games, build_projector
from application import push
from application.service import Caller
from domain.errors import RuleViolation
from domain.platform.commands import MakePost, OpenThread
from domain.powers import commands as pc
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import bearer, close_app, close_services
from tests.push_service import Device, b64, vapid_claims
from tests.webhook_receiver import Receiver
from workers import runtime

SUBJECT = "mailto:ops@emissary.example"


def vapid_pem(key: ec.EllipticCurvePrivateKey) -> str:
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


@pytest.fixture
def service():
    r = Receiver().start()
    try:
        yield r
    finally:
        r.stop()


@pytest.fixture
def vapid_key():
    return ec.generate_private_key(ec.SECP256R1())


@pytest.fixture
def eager(store_settings, vapid_key):
    """The workers' tasks run inline (Celery's eager mode) against this process's service and read models, on
    SQLite and on PostgreSQL; push may reach loopback (the stand-in push service); the VAPID key is the test's."""
    from workers.app import celery_app

    settings = store_settings.model_copy(
        update={
            "push_allow_private": True,
            "vapid_private_key": SecretStr(vapid_pem(vapid_key)),  # model_copy does not validate
            "vapid_subject": SUBJECT,
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
    """The sweep task (catch-up, windows, mail, webhooks, push) as beat sends it, at ``at``."""
    from workers.tasks import sweep as task

    if at is None:
        return task()
    real = runtime.now
    runtime.now = lambda: at  # type: ignore[assignment]
    try:
        return task()
    finally:
        runtime.now = real  # type: ignore[assignment]


def a_game(games, name: str = "Harbour Watch") -> tuple[str, str, str]:
    gid, _, _ = games.create_game(name)
    wiz = add_power(games, gid, "gm", "Wiz", "champion", "wizard")[0]
    sov = add_power(games, gid, "gm", "Sov", "city", "sovereign")[0]
    return gid, wiz, sov


def subscribed(projector, gid: str, seat: str, device: Device, kinds: list[str] | None = None) -> dict:
    sub = device.subscription(kinds=kinds)
    return push.subscribe(
        projector.db,
        gid,
        seat,
        sub["endpoint"],
        sub["keys"]["p256dh"],
        sub["keys"]["auth"],
        "phone",
        sub["kinds"],
        allow_private=True,
        after=0,
    )


def test_a_push_is_a_real_web_push_request_that_the_device_decrypts_with_its_own_keys(eager, service, vapid_key):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    phone = Device(service.url("/push/wiz-phone"))
    subscribed(projector, gid, wiz, phone, ["move"])
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning begins: a move waits on every power
    sweep()
    (request,) = service.requests("/push/wiz-phone")
    headers = request["headers"]
    assert headers["Content-Encoding"] == "aes128gcm" and headers["Content-Type"] == "application/octet-stream"
    assert headers["TTL"] == str(settings.push_ttl_seconds) and headers["Urgency"] == "normal"
    claims = vapid_claims(request, vapid_key.public_key())
    assert claims["aud"] == service.url("").rstrip("/") and claims["sub"] == SUBJECT
    assert phone.endpoint not in request["raw"].decode("latin-1")  # the body is ciphertext, not the message
    said = phone.decrypt(request)
    assert said == {
        "title": "Harbour Watch: Season 1, month 1: Planning",
        "body": "Planning has begun: submit your actions.",
        "url": f"/play/{gid}",
        "tag": said["tag"],
    }
    # Another device's keys cannot read it: the body is encrypted for this subscription.
    with pytest.raises(Exception):
        Device(phone.endpoint).decrypt(request)
    (row,) = push.deliveries(projector.db, gid, wiz)
    assert (row["status"], row["kind"], row["attempts"], row["body"]) == ("sent", "move", 1, said)
    sweep()  # sent once: a second sweep pushes nothing again
    assert len(service.requests("/push/wiz-phone")) == 1


def test_each_device_is_pushed_only_the_kinds_it_asked_for(eager, service):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    devices = {kind: Device(service.url(f"/push/{kind}")) for kind in push.KINDS}
    for kind, device in devices.items():
        subscribed(projector, gid, wiz, device, [kind])
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning: Wiz's move
    thread = games.run(Caller.of(sov), gid, OpenThread([wiz], "Quiet words")).result["thread_id"]
    games.run(Caller.of(sov), gid, MakePost(thread, "Meet me at the cape."))  # private
    games.run(Caller.of(sov), gid, MakePost("table", "Nothing for anyone in particular."))  # pushed to nobody
    games.run(Caller.of(sov), gid, MakePost("table", "What say you, @Wiz?"))  # a mention
    games.declare_ready(gid, sov, sov)
    games.set_deadline(gid, "gm", "s1m1-planning", datetime.now(timezone.utc) + timedelta(minutes=30))
    sweep()  # the reminder is queued (RemindersQueued) ...
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement="The harbour burns."))  # results
    sweep()  # ... and pushed, with the rest

    def bodies(kind: str) -> list[str]:
        return [devices[kind].decrypt(r)["body"] for r in service.requests(f"/push/{kind}")]

    assert "Planning has begun: submit your actions." in bodies("move")
    assert [b for b in bodies("private") if "Meet me at the cape." in b] == bodies("private") != []
    assert [b for b in bodies("mention") if "@Wiz" in b] == bodies("mention") != []
    (deadline,) = bodies("deadline")
    assert "waits on you" in deadline
    (results,) = bodies("results")
    assert "The harbour burns." in results
    everything = [b for kind in push.KINDS for b in bodies(kind)]
    assert not any("Nothing for anyone" in b for b in everything)
    (request,) = service.requests("/push/deadline")
    assert request["headers"]["Urgency"] == "high"


@pytest.mark.parametrize("gone", [404, 410])
def test_a_subscription_its_push_service_says_is_gone_is_dropped(eager, service, gone):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    phone = Device(service.url("/push/old-phone"))
    subscribed(projector, gid, wiz, phone, ["private", "mention"])
    service.answers["/push/old-phone"] = [gone]
    games.run(Caller.of(sov), gid, MakePost("table", "@Wiz, are you there?"))
    sweep()
    assert len(service.requests("/push/old-phone")) == 1
    assert push.listing(projector.db, gid, wiz) == []
    assert projector.db.query("SELECT COUNT(*) FROM push_subscriptions")[0][0] == 0  # its endpoint and keys too
    (row,) = push.deliveries(projector.db, gid, wiz)
    assert (row["status"], row["last_error"]) == ("gone", f"HTTP {gone}")
    games.run(Caller.of(sov), gid, MakePost("table", "@Wiz? Hello?"))
    sweep(datetime.now(timezone.utc) + timedelta(hours=1))
    assert len(service.requests("/push/old-phone")) == 1  # never pushed again


def test_a_failing_push_service_is_retried_with_backoff_until_it_answers(eager, service):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    phone = Device(service.url("/push/flaky"))
    subscribed(projector, gid, wiz, phone, ["mention"])
    service.answers["/push/flaky"] = [503, 500]
    games.run(Caller.of(sov), gid, MakePost("table", "Third time lucky, @Wiz."))
    t0 = datetime.now(timezone.utc)
    sweep(t0)
    assert len(service.requests("/push/flaky")) == 1
    (row,) = push.deliveries(projector.db, gid, wiz)
    assert (row["status"], row["attempts"], row["last_error"]) == ("queued", 1, "HTTP 503")
    sweep(t0 + timedelta(seconds=5))  # backoff: 10 s after the first failure
    assert len(service.requests("/push/flaky")) == 1
    sweep(t0 + timedelta(seconds=11))
    assert len(service.requests("/push/flaky")) == 2
    sweep(t0 + timedelta(seconds=40))
    requests = service.requests("/push/flaky")
    assert len(requests) == 3
    (row,) = push.deliveries(projector.db, gid, wiz)
    assert (row["status"], row["attempts"]) == ("sent", 3)
    assert "Third time lucky, @Wiz." in phone.decrypt(requests[-1])["body"]
    assert push.listing(projector.db, gid, wiz) != []  # a failure is not a gone subscription


def test_a_post_hidden_before_it_is_pushed_is_withdrawn(eager, service):
    from domain.platform.commands import HidePost

    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    phone = Device(service.url("/push/hidden"))
    subscribed(projector, gid, wiz, phone, ["mention"])
    made = games.run(Caller.of(sov), gid, MakePost("table", "@Wiz RUDE-WORDS"))
    projector.catch_up()
    from workers.push import collect, deliver

    (row_id,) = collect(projector.db, games, datetime.now(timezone.utc))
    games.send(gid, "gm", HidePost(made.result["post_id"], "rude"))
    projector.catch_up()
    assert deliver(projector.db, settings, row_id) == "withdrawn"
    assert service.requests("/push/hidden") == []


def test_a_post_push_gathered_for_the_digest_and_hidden_after_is_a_placeholder_there(eager, service):
    """A post gathered for the daily digest by push (its row kept as ``push post``) reads as the hidden-post
    placeholder once the GM hides it, as a mailed post does: the digest is built from ``mail.moderated`` rows."""
    from domain.platform.commands import HidePost, SetNotifications
    from workers import mail

    games, projector, _settings = eager
    gid, wiz, sov = a_game(games)
    # a mention is its own kind of news for push as for mail (issue 28): the seat's mention choice decides
    games.run(Caller.of(wiz), gid, SetNotifications(wiz, push={"mention": "digest"}))
    projector.catch_up()
    subscribed(projector, gid, wiz, Device(service.url("/push/digest")), ["mention"])
    made = games.run(Caller.of(sov), gid, MakePost("table", "@Wiz RUDE-WORDS"))
    projector.catch_up()
    from workers.push import collect

    collect(projector.db, games, datetime.now(timezone.utc))
    key = str(games.get_game(gid, for_update=False).id)
    gathered = [r for r in mail.digest_rows(projector.db, key, wiz) if r["kind"].startswith("push ")]
    assert gathered and "RUDE-WORDS" in gathered[0]["body"]
    games.send(gid, "gm", HidePost(made.result["post_id"], "rude"))
    projector.catch_up()
    bodies = [r["body"] for r in mail.moderated(projector.db, [{**r, "game_id": key} for r in gathered])]
    assert bodies and not any("RUDE-WORDS" in b for b in bodies) and all("was hidden" in b for b in bodies)


def test_a_seat_taken_by_someone_new_pushes_nothing_to_the_last_holders_devices(eager, service):
    """Issue 31: a seat's devices are its holder's. When the seat changes hands (the GM opens it and a newcomer takes
    it: every earlier link revoked), the devices subscribed before are dropped and what was queued for them
    withdrawn, so the new holder's private news never reaches the last one's phone; the newcomer's own device gets
    it."""
    from domain.platform.commands import OpenSeat, TakeSeat
    from workers.push import collect

    games, projector, _settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    old = Device(service.url("/push/old-holder"))
    subscribed(projector, gid, wiz, old, ["mention"])
    games.run(Caller.of(sov), gid, MakePost("table", "@Wiz before the handover"))
    projector.catch_up()
    (queued,) = collect(projector.db, games, datetime.now(timezone.utc))  # queued for the old phone, not yet sent
    games.run(Caller.of("gm"), gid, OpenSeat(wiz, "a new player"))
    games.run(Caller.of(wiz), gid, TakeSeat(wiz, "0" * 64, None))
    projector.catch_up()
    assert push.listing(projector.db, gid, wiz) == []
    (row,) = push.deliveries(projector.db, gid, wiz)
    assert row["id"] == queued and row["status"] == "withdrawn"
    after = games.get_game(gid, for_update=False).version
    new = Device(service.url("/push/new-holder"))
    sub = new.subscription(kinds=["mention"])
    push.subscribe(
        projector.db,
        gid,
        wiz,
        sub["endpoint"],
        sub["keys"]["p256dh"],
        sub["keys"]["auth"],
        "phone",
        sub["kinds"],
        allow_private=True,
        after=after,
    )
    games.run(Caller.of(sov), gid, MakePost("table", "@Wiz welcome aboard"))
    projector.catch_up()
    made = collect(projector.db, games, datetime.now(timezone.utc))
    assert len(made) == 1 and all(
        r["status"] != "queued" or r["id"] in made for r in push.deliveries(projector.db, gid, wiz)
    )
    assert len(push.listing(projector.db, gid, wiz)) == 1


def test_the_vapid_key_is_made_once_and_kept_in_the_data_directory(tmp_path):
    settings = Settings(data_dir=tmp_path)
    first = push.public_key(push.vapid(settings))
    assert (tmp_path / push.VAPID_FILE).exists()
    assert push.public_key(push.vapid(settings)) == first  # kept, not made again
    assert len(b64(b"\x04" + b"\x00" * 64)) == len(first)  # an uncompressed P-256 point
    given = ec.generate_private_key(ec.SECP256R1())
    configured = Settings(data_dir=tmp_path, vapid_private_key=vapid_pem(given))
    raw = given.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    assert push.public_key(push.vapid(configured)) == b64(raw)


@pytest.fixture
def api(tmp_path):
    app = create_app(Settings(data_dir=tmp_path, push_allow_private=True))
    try:
        yield TestClient(app), app.state.games, app.state.projector.db, app.state.settings
    finally:
        close_app(app)


def test_a_seat_subscribes_lists_and_removes_its_devices_and_never_sees_an_endpoint_or_key(api, service):
    client, games, db, settings = api
    gid, gm_token, _ = games.create_game("Routes")
    wiz, token, _ = add_power(games, gid, "gm", "Wiz", "champion", "wizard")
    phone = Device(service.url("/push/SECRET-ENDPOINT-PATH"))
    body = phone.subscription(label="My phone", kinds=["results", "move"])
    key = client.get("/push/key").json()["public_key"]
    assert key == push.public_key(push.vapid(settings))
    made = client.post(f"/games/{gid}/push", json=body, headers=bearer(token))
    assert made.status_code == 201, made.text
    assert made.json()["label"] == "My phone" and made.json()["kinds"] == ["move", "results"]
    again = client.post(f"/games/{gid}/push", json={**body, "label": "Phone"}, headers=bearer(token))
    assert again.json()["id"] == made.json()["id"]  # the same device: changed, not added
    listed = client.get(f"/games/{gid}/push", headers=bearer(token))
    assert [d["label"] for d in listed.json()] == ["Phone"]
    for answer in (made, again, listed):
        assert "SECRET-ENDPOINT-PATH" not in answer.text and phone.p256dh not in answer.text
    refused = client.post(f"/games/{gid}/push", json=body, headers=bearer(gm_token))
    assert refused.status_code == 403 and refused.json()["field"] == "seat"
    gone = client.delete(f"/games/{gid}/push/{made.json()['id']}", headers=bearer(token))
    assert gone.status_code == 204 and client.get(f"/games/{gid}/push", headers=bearer(token)).json() == []


@pytest.mark.parametrize(
    "change, field",
    [
        ({"kinds": ["everything"]}, "kinds"),
        ({"kinds": []}, "kinds"),
        ({"keys": {"p256dh": b64(b"\x04" + b"\x01" * 64), "auth": b64(b"a" * 16)}}, "keys.p256dh"),
        ({"keys": {"p256dh": "PLACEHOLDER", "auth": b64(b"short")}}, "keys.auth"),
        ({"endpoint": "ftp://push.example/x"}, "endpoint"),
    ],
)
def test_a_bad_subscription_is_refused_naming_its_field_and_records_nothing(api, service, change, field):
    client, games, db, settings = api
    gid, _, _ = games.create_game("Refusals")
    wiz, token, _ = add_power(games, gid, "gm", "Wiz", "champion", "wizard")
    phone = Device(service.url("/push/x"))
    body = {**phone.subscription(), **change}
    if body["keys"]["p256dh"] == "PLACEHOLDER":
        body["keys"]["p256dh"] = phone.p256dh
    answer = client.post(f"/games/{gid}/push", json=body, headers=bearer(token))
    assert answer.status_code == 422 and answer.json()["field"] == field, answer.text
    assert db.query("SELECT COUNT(*) FROM push_subscriptions")[0][0] == 0


def test_a_loopback_endpoint_is_refused_unless_the_operator_allows_it(tmp_path, service):
    phone = Device(service.url("/push/x"))
    sub = phone.subscription()
    with pytest.raises(RuleViolation) as refused:
        push.check_endpoint(sub["endpoint"], allow_private=False)
    assert refused.value.field == "endpoint" and "/push/x" not in refused.value.message
    assert push.check_endpoint(sub["endpoint"], allow_private=True) == sub["endpoint"]


def test_no_log_line_names_an_endpoint_or_a_key(eager, service, caplog):
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    phone = Device(service.url("/push/L0G-T0KEN"))
    subscribed(projector, gid, wiz, phone, ["mention"])
    service.answers["/push/L0G-T0KEN"] = [500, 410]
    caplog.set_level(logging.DEBUG)
    games.run(Caller.of(sov), gid, MakePost("table", "@Wiz!"))
    t0 = datetime.now(timezone.utc)
    sweep(t0)
    sweep(t0 + timedelta(seconds=11))
    assert len(service.requests("/push/L0G-T0KEN")) == 2
    assert "L0G-T0KEN" not in caplog.text and phone.p256dh not in caplog.text and b64(phone.auth) not in caplog.text


def test_the_cli_prints_the_public_key_in_use_and_makes_a_new_private_key(tmp_path, monkeypatch, capsys):
    from api.cli import main

    monkeypatch.setenv("EMISSARY_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("EMISSARY_VAPID_PRIVATE_KEY", raising=False)
    assert main(["vapid"]) == 0
    printed = capsys.readouterr().out.strip()
    assert printed == push.public_key(push.vapid(Settings(data_dir=tmp_path)))  # the data directory's, made once
    kept = (tmp_path / push.VAPID_FILE).read_bytes()
    assert main(["vapid", "--new"]) == 0
    pem = capsys.readouterr().out.strip()
    assert len(push._b64(pem, "key")) == 32 and (tmp_path / push.VAPID_FILE).read_bytes() == kept  # raw, one line
    monkeypatch.setenv("EMISSARY_VAPID_PRIVATE_KEY", pem)
    assert main(["vapid"]) == 0
    assert capsys.readouterr().out.strip() not in ("", printed)  # the configured key is the one in use


def test_in_production_every_process_derives_the_same_vapid_key_from_the_secret_key(tmp_path):
    """Production's processes share no data directory (deploy/docker-compose.yml): without a configured key, the
    API (which hands the public key to the pages) and the workers (which sign with the private one) must agree."""
    secret = "s" * 40

    def production(data_dir, key: str = "") -> Settings:
        return Settings.model_construct(
            env="production", secret_key=secret, data_dir=data_dir, vapid_private_key=SecretStr(key)
        )

    api, worker = push.vapid(production(tmp_path / "api")), push.vapid(production(tmp_path / "worker"))
    assert push.public_key(api) == push.public_key(worker)
    assert not (tmp_path / "api" / push.VAPID_FILE).exists()
    other = Settings.model_construct(
        env="production", secret_key="t" * 40, data_dir=tmp_path, vapid_private_key=SecretStr("")
    )
    assert push.public_key(push.vapid(other)) != push.public_key(api)
    configured = push.new_private_key()
    assert push.public_key(push.vapid(production(tmp_path, configured))) != push.public_key(api)  # the setting wins


def test_issue_28_a_reply_pushed_after_the_post_it_quotes_is_hidden_says_not_its_words(eager, service):
    """A reply that quotes a post (``> ...``) is pushed after the GM hid that post: the push carries the hidden post's
    placeholder with the reason in place of its words, and the reply's own words."""
    from domain.platform.commands import HidePost
    from workers.push import collect, deliver

    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    phone = Device(service.url("/push/quote"))
    subscribed(projector, gid, wiz, phone, ["mention"])
    said = games.run(Caller.of(sov), gid, MakePost("table", "RUDE-WORDS")).result["post_id"]
    games.run(Caller.of(sov), gid, MakePost("table", "> RUDE-WORDS\n\n@Wiz SORRY-WORDS", reply_to=said))
    projector.catch_up()
    (row_id,) = collect(projector.db, games, datetime.now(timezone.utc))
    games.send(gid, "gm", HidePost(said, "rude"))
    projector.catch_up()
    assert deliver(projector.db, settings, row_id) == "sent"
    body = phone.decrypt(service.requests("/push/quote")[-1])["body"]
    assert "RUDE-WORDS" not in body and "SORRY-WORDS" in body and "hidden: rude" in body
