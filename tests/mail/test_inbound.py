"""The hosted-provider endpoints (/inbound/email, /inbound/bounce): keyed, sized, answering only the
holder's contact, and queueing the reply in the outbox even when the broker is down."""

from __future__ import annotations

import time

import pytest
import redis
from celery.contrib.testing.worker import start_worker
from fastapi.testclient import TestClient
from pydantic import ValidationError

from api.app import create_app
from api.mail_intake import MAX_MAIL_BYTES, MailIntake
from application.mail_addresses import talk_address
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.mail.sink import Sink
from tests.mail.test_smtp import TURN, setup_game
from workers import mail, runtime

KEY = "k" * 32
HEADERS = {"x-emissary-inbound-key": KEY}


@pytest.fixture
def app(store_settings, sink):
    """The API on each real store (SQLite and PostgreSQL: the outbox's SQL runs on both)."""
    app = create_app(store_settings.model_copy(update={"inbound_key": KEY, "smtp_port": sink.port}))
    yield app
    close_app(app)


def payload(games, gid: str, token: str, **extra) -> dict:
    address = MailIntake(games, "emissary.local").address_for(gid, token)
    return {
        "to": address,
        "from": "gandalf@example.org",
        "subject": "turn",
        "text": TURN,
        "message_id": "<h1@x>",
        **extra,
    }


def rows(app) -> list[dict]:
    db = app.state.projector.db
    keys = ["recipient", "address", "status", "kind", "message_id"]
    return [dict(zip(keys, r)) for r in db.query(f"SELECT {', '.join(keys)} FROM mail_ledger")]


def test_production_refuses_to_start_without_an_inbound_key():
    prod = dict(
        env="production",
        database_url="postgresql://u:p@db/emissary",
        secret_key="s" * 40,
        public_url="https://emissary.example",
        ratelimit_storage_url="redis://redis:6379/1",
    )
    with pytest.raises(ValidationError, match="EMISSARY_INBOUND_KEY"):
        Settings(**prod)
    with pytest.raises(ValidationError, match="EMISSARY_INBOUND_KEY"):
        Settings(**prod, inbound_key="change-me-change-me")
    assert Settings(**prod, inbound_key=KEY).inbound_key == KEY


def test_without_a_key_only_clients_on_this_machine_may_post_mail(tmp_path):
    app = create_app(Settings(data_dir=tmp_path))  # no inbound key, unlike this module's app
    try:
        games = app.state.games
        gid, pid, token = setup_game(games)
        outside = TestClient(app, client=("203.0.113.9", 40000))
        r = outside.post("/inbound/email", json=payload(games, gid, token))
        assert r.status_code == 403 and r.json()["field"] == "x-emissary-inbound-key"
        assert outside.post("/inbound/bounce", json={"message_id": "<m@x>"}).status_code == 403
        assert games.view(gid, pid)["my_actions"] == [] and rows(app) == []
        local = TestClient(app, client=("127.0.0.1", 40000))
        assert local.post("/inbound/email", json=payload(games, gid, token)).json()["accepted"] is True
    finally:
        close_app(app)


def test_a_wrong_key_is_refused_and_records_nothing(app, games):
    gid, pid, token = setup_game(games)
    client = TestClient(app, client=("127.0.0.1", 40000))  # on loopback, but a key is set: it is required
    for headers in ({}, {"x-emissary-inbound-key": "k" * 31}):
        r = client.post("/inbound/email", json=payload(games, gid, token), headers=headers)
        assert r.status_code == 403 and r.json()["field"] == "x-emissary-inbound-key"
    assert games.view(gid, pid)["my_actions"] == [] and rows(app) == []


def test_the_reply_goes_to_the_holders_contact_never_to_the_forged_sender(app, games):
    gid, pid, token = setup_game(games)
    client = TestClient(app)
    r = client.post(
        "/inbound/email", json=payload(games, gid, token, **{"from": "victim@example.com"}), headers=HEADERS
    )
    assert r.status_code == 200 and r.json()["accepted"] is True
    assert [(x["recipient"], x["address"]) for x in rows(app)] == [(pid, "gandalf@example.org")]


def test_an_unknown_token_is_404_and_nobody_is_answered(app, games):
    gid, pid, token = setup_game(games)
    client = TestClient(app)
    for to in (f"turns+{gid}.{'x' * 32}@emissary.local", f"turns+{gid}.{token}@elsewhere.example"):
        r = client.post(
            "/inbound/email", json=payload(games, gid, token, to=to, **{"from": "victim@example.com"}), headers=HEADERS
        )
        assert r.status_code == 404 and r.json()["field"] == "to"
    assert rows(app) == [] and games.view(gid, pid)["my_actions"] == []


def test_a_valid_token_whose_holder_has_no_contact_is_recorded_but_not_answered(app, games):
    gid, pid, token = setup_game(games)
    other, other_token, _ = add_power(games, gid, "gm", "Radagast", "champion", "wizard")
    client = TestClient(app)
    r = client.post(
        "/inbound/email",
        json=payload(games, gid, other_token, text="ready", message_id="<r@x>", **{"from": "victim@example.com"}),
        headers=HEADERS,
    )
    assert r.status_code == 200 and r.json()["accepted"] is True
    assert [(x["recipient"], x["address"], x["status"]) for x in rows(app)] == [(other, None, "no address")]


def test_mail_1_a_mailed_field_obeys_the_api_limit_and_an_oversized_mail_is_413(app, games):
    gid, pid, token = setup_game(games)
    client = TestClient(app)
    long = f"action: Plot\n  description: {'d' * 5001}\n"
    r = client.post("/inbound/email", json=payload(games, gid, token, text=long), headers=HEADERS)
    assert r.status_code == 200 and r.json()["accepted"] is False
    assert "line 2: description is at most 5000 characters" in r.json()["body"]
    huge = f"action: Plot\n  description: {'d' * (5 * 1024 * 1024)}\n"
    r = client.post(
        "/inbound/email", json=payload(games, gid, token, text=huge, message_id="<huge@x>"), headers=HEADERS
    )
    assert r.status_code == 413 and r.json()["field"] == "body"
    assert len(huge) > MAX_MAIL_BYTES and games.view(gid, pid)["my_actions"] == []
    assert [x["kind"] for x in rows(app)] == ["receipt <h1@x>"]  # only the refusal of the first


def test_a_bounce_is_scoped_to_a_mail_this_service_sent(app, games, projector):
    gid, pid, token = setup_game(games)
    client = TestClient(app)
    db = projector.db
    row_id = mail.record(
        db, game_id=gid, version=1, recipient=pid, address="gandalf@example.org", kind="note", subject="s", body="b"
    )
    mail.mark(db, row_id, "sent", message_id="<sent-1@emissary.local>")
    r = client.post("/inbound/bounce", json={"message_id": "<forged@elsewhere>"}, headers=HEADERS)
    assert r.status_code == 404 and r.json()["field"] == "message_id"
    assert [x["status"] for x in rows(app)] == ["sent"]  # recorded nothing
    assert (
        client.post("/inbound/bounce", json={"message_id": "sent-1@emissary.local"}, headers=HEADERS).status_code == 200
    )
    assert [x["status"] for x in rows(app)] == ["bounced"]


@pytest.fixture
def machine_redis():
    """The machine's Redis, on a database of its own for this test."""
    client = redis.Redis(host="127.0.0.1", port=6379, db=12)
    client.flushdb()
    yield "redis://127.0.0.1:6379/12"
    client.flushdb()


def switch_broker(app, url: str) -> None:
    """Point the Celery app at another broker. Its producers come from kombu's process-wide pools, which
    an earlier test in this process may have filled for another broker (the embedded memory one)."""
    from kombu import pools

    pools.reset()
    app.close()
    app.amqp._producer_pool = None
    app.conf.broker_url = url


def test_with_the_broker_down_intake_succeeds_and_a_worker_sends_the_queued_reply_later(
    app, sink, machine_redis, games, projector, settings
):
    """The reply is in the outbox with the turn: the broker is only the fast path."""
    from datetime import datetime, timezone

    from workers.app import celery_app
    from workers.tasks import dispatch_mail

    gid, pid, token = setup_game(games)
    runtime.use(games, projector, settings)
    broker = celery_app.conf.broker_url
    switch_broker(celery_app, "redis://127.0.0.1:1/0")  # nothing listens there
    try:
        r = TestClient(app).post("/inbound/email", json=payload(games, gid, token), headers=HEADERS)
        assert r.status_code == 200 and r.json()["accepted"] is True
        assert len(games.view(gid, pid)["my_actions"]) == 1
        assert [(x["address"], x["status"]) for x in rows(app)] == [("gandalf@example.org", "queued")]
        switch_broker(celery_app, machine_redis)
        with start_worker(celery_app, pool="solo", perform_ping_check=False, shutdown_timeout=10):
            dispatch_mail(datetime.now(timezone.utc))  # the sweep's part: hands out the due row
            deadline = time.time() + 30
            while not (replies := [m for m in sink.messages if "] Recorded: " in m["Subject"]]):
                assert time.time() < deadline, "the queued reply was never sent"
                time.sleep(0.05)
        # (Notifications of the game's events may go out beside it, once the projector has seen them.)
        assert len(replies) == 1 and replies[0]["To"] == "gandalf@example.org"
        assert "Receipt: sequence" in Sink.text(replies[0])
        assert [x["status"] for x in rows(app) if x["kind"].startswith("receipt")] == ["sent"], rows(app)
    finally:
        switch_broker(celery_app, broker)


def test_a_subject_with_line_breaks_is_answered_on_one_line(app, sink, games, projector, settings):
    gid, pid, token = setup_game(games)
    r = TestClient(app).post(
        "/inbound/email", json=payload(games, gid, token, subject="my\r\nBcc: x@y turn"), headers=HEADERS
    )
    assert r.status_code == 200
    db = projector.db
    [row_id] = [r[0] for r in db.query("SELECT id FROM mail_ledger")]
    assert mail.deliver(db, settings, row_id) == "sent"
    [reply] = sink.wait_for(1)
    assert reply["Subject"] == "Recorded: my Bcc: x@y turn" and reply["Bcc"] is None


def test_mail_1_a_game_busy_through_every_retry_answers_503_with_retry_after_never_a_refusal(
    app, monkeypatch, games, settings
):
    """Issue 24, item 8: a provider takes a 409 as final and drops the turn; a game still busy after every retry is a
    temporary failure (503 and Retry-After, so the provider sends it again), nothing recorded and nobody answered.
    A reply to a thread's notification met the same race as a refusal mailed back ("Nothing was posted")."""
    from domain.errors import Busy

    gid, pid, token = setup_game(games)
    version = games.get_game(gid, for_update=False).version

    def busy(*args, **kwargs):
        raise Busy("the game was busy; nothing was recorded after 8 attempts, try again")

    monkeypatch.setattr(games, "run_turn", busy)
    client = TestClient(app)
    talk = talk_address("emissary.local", settings.secret_key, games.get_game(gid), pid, "table")
    for to in (payload(games, gid, token)["to"], talk):
        r = client.post("/inbound/email", json={**payload(games, gid, token), "to": to}, headers=HEADERS)
        assert r.status_code == 503, (to, r.text)
        assert r.headers["retry-after"] == "5" and "busy" in r.json()["message"]
    assert games.get_game(gid, for_update=False).version == version and rows(app) == []
