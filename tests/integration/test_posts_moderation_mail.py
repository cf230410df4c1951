"""Moderation reaches every channel (issue 24, item 6), on SQLite and PostgreSQL: a post the GM hid, and the
text a post had before its edit, never reach a reader through the mail: not in the ledger a player reads
(``GET /games/{g}/mail``, rows sent or never sent), not in a notification sent after the moderation, not in a
daily digest. The GM keeps the original, in the ledger and in the audit."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from tests.integration.helpers import bearer
from tests.integration.test_posts_api import setup
from tests.mail.sink import Sink
from workers import runtime

pytestmark = pytest.mark.integration

SAID = ("ford", "OLD MILL", "TORCH")  # the words that moderation took out


@pytest.fixture
def mailing(api):
    """The API's own service and read models shared with in-process workers (eager tasks) that send to a
    loopback SMTP sink; the workers' previous wiring is put back afterwards."""
    from workers.app import celery_app

    sink = Sink().start()
    before, eager = dict(runtime._state), celery_app.conf.task_always_eager
    settings = api.app.state.settings.model_copy(update={"smtp_port": sink.port})
    runtime.use(api.app.state.games, api.app.state.projector, settings)
    celery_app.conf.task_always_eager = True
    try:
        yield sink
    finally:
        celery_app.conf.task_always_eager = eager
        runtime._state.clear()
        runtime._state.update(before)
        sink.stop()


def dispatch(at: datetime | None = None) -> dict:
    from workers.tasks import dispatch_mail

    return dispatch_mail(at or datetime.now(timezone.utc))


def test_hidden_and_edited_posts_reach_no_reader_by_mail_and_the_gm_keeps_the_original(api, mailing):
    sink = mailing
    game, t = setup(api)
    ann, bob, cy, gm = (bearer(t[k]) for k in ("ann", "bob", "cy", "gm"))
    # Bob reads his mail as a daily digest; Cy at once.
    for seat, mode in (("bob", "digest"), ("cy", "immediate")):
        body = {"email": f"{seat}@example.org", "mode": mode}
        assert api.put(f"/games/{game}/contact", json=body, headers=bearer(t[seat])).status_code == 200

    def say(text: str) -> str:
        r = api.post(f"/games/{game}/threads/table/posts", json={"text": text}, headers=ann)
        assert r.status_code == 201, r.text
        return r.json()["result"]["post_id"]

    # Moderated before any mail went out: the queued notifications carry what the post says now.
    edited, hidden = say("Cede the ford?"), say("Meet me at the OLD MILL")
    assert api.put(f"/games/{game}/posts/{edited}", json={"text": "Cede the bridge?"}, headers=ann).status_code == 200
    assert api.post(f"/games/{game}/posts/{hidden}/hide", json={"reason": "off-topic"}, headers=gm).status_code == 200
    dispatch()
    sink.wait_for(1)
    cy_mail = " ".join(Sink.text(m) for m in sink.to("cy@example.org"))
    assert "Cede the bridge?" in cy_mail and len(sink.to("cy@example.org")) == 1  # the hidden post: not sent
    assert not any(word in cy_mail for word in SAID)

    # Moderated after its mail went out: the ledger shows readers only the placeholder.
    later = say("Let us TORCH the granary")
    dispatch()
    sink.wait_for(2)
    assert api.post(f"/games/{game}/posts/{later}/hide", json={"reason": "a threat"}, headers=gm).status_code == 200

    for reader in (bob, cy):
        rows = api.get(f"/games/{game}/mail", headers=reader).json()
        shown = " ".join(f"{r['subject']} {r['body']}" for r in rows)
        assert len(rows) == 3 and "Cede the bridge?" in shown
        assert not any(word in shown for word in SAID), shown
        assert sum("hidden" in r["body"] for r in rows) == 2  # the placeholders, with the reason said
        assert "a threat" in shown and {r["status"] for r in rows} <= {"digest", "sent", "withdrawn"}
    # The GM's ledger and audit keep every original.
    everything = str(api.get(f"/games/{game}/mail", headers=gm).json())
    assert all(word in everything for word in ("Cede the ford?", "OLD MILL", "TORCH"))
    audit = str(api.get(f"/games/{game}/audit", headers=gm, params={"limit": 5000}).json())
    assert all(word in audit for word in ("Cede the ford?", "OLD MILL", "TORCH"))

    # Bob's digest, a day later, tells him what the posts say now.
    sent = len(sink.messages)
    dispatch(datetime.now(timezone.utc) + timedelta(days=2))
    sink.wait_for(sent + 1)
    digest = " ".join(Sink.text(m) for m in sink.to("bob@example.org"))
    assert "Cede the bridge?" in digest and not any(word in digest for word in SAID), digest


def test_no_channel_shows_a_reader_what_moderation_took_out(api, mailing):
    """Every channel that carries a post's text, read as a player: the feed, the events and the export, the
    thread page, the posts tied to an action, search, the board's page, and the mail ledger."""
    game, t = setup(api)
    ann, bob, gm = bearer(t["ann"]), bearer(t["bob"]), bearer(t["gm"])
    body = {"email": "bob@example.org", "mode": "digest"}
    assert api.put(f"/games/{game}/contact", json=body, headers=bob).status_code == 200
    said = {}
    for text in ("Cede the ford?", "Meet me at the OLD MILL", "Let us TORCH the granary"):
        r = api.post(f"/games/{game}/threads/table/posts", json={"text": text, "tied_to": "action:a-1"}, headers=ann)
        said[text] = r.json()["result"]["post_id"]
    dispatch()
    assert api.put(f"/games/{game}/posts/{said['Cede the ford?']}", json={"text": "Cede the bridge?"}, headers=ann)
    for text in ("Meet me at the OLD MILL", "Let us TORCH the granary"):
        assert api.post(f"/games/{game}/posts/{said[text]}/hide", json={"reason": "no"}, headers=gm).status_code == 200
    reads = {
        "events": api.get(f"/games/{game}/events", headers=bob, params={"limit": 5000}),
        "feed": api.get(f"/games/{game}/feed", headers=bob),
        "export": api.get(f"/games/{game}/export", headers=bob),
        "thread": api.get(f"/games/{game}/threads/table/posts", headers=bob),
        "tied": api.get(f"/games/{game}/posts", params={"tied_to": "action:a-1"}, headers=bob),
        "mail": api.get(f"/games/{game}/mail", headers=bob),
        **{
            f"search {w}": api.get(f"/games/{game}/search", params={"q": w}, headers=bob)
            for w in ("ford", "mill", "torch")
        },
    }
    for channel, r in reads.items():
        assert r.status_code == 200, (channel, r.text)
        assert not any(word.lower() in r.text.lower() for word in SAID), (channel, r.text)
    assert "Cede the bridge?" in reads["thread"].text and "Cede the bridge?" in reads["mail"].text
    # The GM still reads every original: in the thread (earlier text, hidden posts) and in the audit.
    gm_thread = api.get(f"/games/{game}/threads/table/posts", headers=gm).text
    assert all(word in gm_thread for word in SAID)
