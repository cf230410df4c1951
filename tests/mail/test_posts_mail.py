"""Posts by email (issue 16): each post's notification carries the reader's reply address for that thread;
a reply lands in the thread as a post (quoted mail, signatures and HTML left out, as the turn intake does),
once per Message-ID, answered only to the seat's contact; a turn mail may carry ``say:`` and ``to <seat>:``
lines; a player in digest mode gets posts in the daily digest; nobody is mailed a thread they are not in."""

from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone

import pytest

from api.compose import build_games, build_projector
from api.mail_intake import MailIntake
from application.service import Caller
from domain.platform.commands import MakePost, OpenThread
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_services
from tests.mail.sink import Sink
from tests.mail.test_smtp import TURN, setup_game
from workers import mail, runtime

SECRET = "s" * 40


@pytest.fixture
def table(tmp_path, sink):
    from workers.app import celery_app

    settings = Settings(data_dir=tmp_path, smtp_port=sink.port, secret_key=SECRET)
    games = build_games(settings)
    projector = build_projector(games, settings)
    runtime.use(games, projector, settings)
    celery_app.conf.task_always_eager = True
    gid, _, _ = games.create_game("Letters")
    for name, mode in (("Ann", "immediate"), ("Bob", "immediate"), ("Cy", "digest")):
        pid, _, _ = add_power(games, gid, "gm", name, "champion", "wizard")
        games.set_contact(gid, pid, pid, f"{pid}@example.org", mode)
    try:
        yield games, projector, settings, gid
    finally:
        celery_app.conf.task_always_eager = False
        close_services(games, projector)


def dispatch(now: datetime | None = None) -> None:
    from workers.tasks import dispatch_mail

    dispatch_mail(now or datetime.now(timezone.utc))


def test_a_private_thread_by_mail_reply_address_quotes_idempotency_and_contact(table, sink):
    games, projector, settings, gid = table
    thread = games.run(Caller.of("ann"), gid, OpenThread(["bob"], "Border")).result["thread_id"]
    games.run(Caller.of("ann"), gid, MakePost(thread, "Cede the FORD-OF-WILLOWS?"))
    projector.catch_up()
    dispatch()
    (note,) = sink.wait_for(1)
    assert "bob@example.org" in note["X-Rcpt"] and "FORD-OF-WILLOWS" in Sink.text(note)
    address = note["Reply-To"]
    assert address.startswith(f"talk+{games.get_game(gid).id}.{thread}.bob.") and address in Sink.text(note)
    assert sink.to("ann@example.org") == [] and sink.to("cy@example.org") == []  # the author, an outsider

    intake = MailIntake(games, settings.mail_domain, settings.secret_key)
    reply_text = (
        "Agreed, if the mill is mine.\n\nOn Mon, 30 Nov 2026, Ann wrote:\n> Cede the FORD-OF-WILLOWS?\n-- \nBob\n"
    )
    first = intake.receive(address, "<r1@example.org>", reply_text, None, "Re: New post: Border")
    assert first.accepted and first.principal == "bob" and intake.contact(first) == "bob@example.org"
    events = len(games.visible_events(gid, "gm", limit=10_000))
    again = intake.receive(address, "<r1@example.org>", reply_text, None, "Re: New post: Border")
    assert again.body == first.body and len(games.visible_events(gid, "gm", limit=10_000)) == events
    projector.catch_up()
    page, _ = projector.posts.page(str(games.get_game(gid).id), "ann", thread)
    assert [(p["author"], p["text"]) for p in page][-1] == ("bob", "Agreed, if the mill is mine.")

    # an HTML-only reply, with its quote marked up as such
    html = "<div>Then at noon.</div><div class='gmail_quote'>On Mon, Ann wrote: <blockquote>old</blockquote></div>"
    assert intake.receive(address, "<r2@example.org>", None, html, "Re").accepted
    projector.catch_up()
    page, _ = projector.posts.page(str(games.get_game(gid).id), "ann", thread)
    assert page[-1]["text"] == "Then at noon."

    # a made-up address, another seat's thread, or an address of a replaced link: nothing recorded
    forged = address[: address.index(".bob.") + 5] + "0" * 24 + "@" + settings.mail_domain
    cy_try = address.replace(".bob.", ".cy.")
    for bad in (forged, cy_try):
        refused = intake.receive(bad, "<r3@example.org>", "let me in", None, "x")
        assert not refused.accepted and refused.principal is None
    games.reissue_link(gid, "gm", "bob")
    assert not intake.receive(address, "<r4@example.org>", "stale", None, "x").accepted
    assert len(games.visible_events(gid, "gm", limit=10_000)) == events + 1  # the HTML reply (a reissue is sealed)


def test_an_empty_reply_is_refused_and_answered_to_the_contact_only(table, sink):
    games, projector, settings, gid = table
    games.run(Caller.of("ann"), gid, MakePost("table", "Hello all"))
    projector.catch_up()
    dispatch()
    notes = sink.wait_for(1)
    address = next(n for n in notes if "bob@example.org" in n["X-Rcpt"])["Reply-To"]
    reply = MailIntake(games, settings.mail_domain, settings.secret_key).receive(
        address, "<e1@example.org>", "> Hello all\n", None, "Re"
    )
    assert not reply.accepted and "a post cannot be empty" in reply.body and reply.principal == "bob"


def test_a_player_in_digest_mode_gets_posts_in_the_daily_digest(table, sink):
    games, projector, settings, gid = table
    games.run(Caller.of("ann"), gid, MakePost("table", "TABLE-NEWS for everyone"))
    thread = games.run(Caller.of("ann"), gid, OpenThread(["bob"], "")).result["thread_id"]
    games.run(Caller.of("ann"), gid, MakePost(thread, "PRIVATE-ANN-BOB"))
    projector.catch_up()
    dispatch()
    assert sink.to("cy@example.org") == []
    key = str(games.get_game(gid).id)
    assert {r["status"] for r in mail.ledger(projector.db, key, "cy")} == {"digest"}
    dispatch(datetime.now(timezone.utc) + timedelta(days=1, minutes=1))
    (digest,) = [m for m in sink.wait_for(3) if "cy@example.org" in m["X-Rcpt"]]
    body = Sink.text(digest)
    assert "TABLE-NEWS for everyone" in body and "talk+" in body and "PRIVATE-ANN-BOB" not in body


def test_say_and_to_lines_in_a_turn_mail_post_with_the_turn(tmp_path):
    settings = Settings(data_dir=tmp_path, secret_key=SECRET)
    games = build_games(settings)
    projector = build_projector(games, settings)
    try:
        gid, pid, token = setup_game(games)
        intake = MailIntake(games, settings.mail_domain, settings.secret_key)
        turn = TURN.replace("Hi GM,\n", "Hi GM,\nsay: Beware the deep, all of you!\nto balrog: You shall not pass.\n")
        reply = intake.receive(intake.address_for(gid, token), "<t1@example.org>", turn, None, "turn")
        assert reply.accepted, reply.body
        assert "posted to the table" in reply.body and "posted to balrog" in reply.body
        projector.catch_up()
        key = str(games.get_game(gid).id)
        threads = {t["kind"]: t for t in projector.posts.threads(key, "balrog")}
        private = threads["private"]
        assert sorted(private["members"]) == sorted([pid, "balrog"])
        page, _ = projector.posts.page(key, "balrog", private["id"])
        assert [p["text"] for p in page] == ["You shall not pass."]
        page, _ = projector.posts.page(key, "balrog", "table")
        assert [p["text"] for p in page] == ["Beware the deep, all of you!"]
        actions = [e for e in games.visible_events(gid, "gm", limit=10_000) if e["type"] == "ActionSubmitted"]
        assert len(actions) == 1  # and the turn's action was recorded with them

        # a bad talk line refuses the whole mail: nothing recorded
        before = len(games.visible_events(gid, "gm", limit=10_000))
        bad = "say:   \nto nobody: hello\n"
        refused = intake.receive(intake.address_for(gid, token), "<t2@example.org>", bad, None, "turn")
        assert not refused.accepted and "line 1" in refused.body and "line 2" in refused.body
        assert len(games.visible_events(gid, "gm", limit=10_000)) == before
    finally:
        close_services(games, projector)


def test_the_sink_is_quiet_when_nobody_else_may_read_a_thread(table, sink):
    games, projector, settings, gid = table
    games.run(Caller.of("ann"), gid, MakePost("desk-ann", "ANN-ASKS-THE-GM"))
    projector.catch_up()
    dispatch()
    time.sleep(0.3)
    assert sink.messages == []  # the GM has no contact; the author is not told of their own post
