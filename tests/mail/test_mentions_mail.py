"""A post that mentions a seat tells that seat by mail (issue 28), through the path every mail takes (the projector's
outbox, ``workers.tasks.dispatch_mail``, the ledger, real SMTP to a local sink), as the kind ``mention`` of the one
vocabulary of news: a seat that turned posts off still hears when it is named, once, in words that say so; a seat
not named hears nothing of the post, and a seat named in a private thread it cannot read is told nothing at all."""

from __future__ import annotations

import json
from datetime import datetime, timezone

from application.service import Caller
from domain.platform.commands import MakePost, OpenThread, SetNotifications
from tests.helpers import add_power
from tests.mail.sink import Sink
from tests.mail.test_mails_people_act_on import powers_game
from tests.mail.test_notification_preferences_mail import app, dispatch  # noqa: F401
from workers import mail

QUIET = {"post": "off", "private": "off", "phase": "off", "move": "off", "other": "off", "deadline": "off"}


def seated(games):
    """Der Ring with a third seat, Saruman; every seat has turned off all mail of posts (and of the game's steps)."""
    gid, wiz, bal = powers_game(games)
    sar, _, _ = add_power(games, gid, "gm", "Saruman", "champion", "wizard")
    games.set_contact(gid, sar, sar, "saruman@example.org", "immediate")
    for seat in (wiz, bal, sar):
        games.run(Caller.of(seat), gid, SetNotifications(seat, mail=QUIET))
    return gid, wiz, bal, sar


def mails(sink: Sink, address: str) -> list[str]:
    return [f"{m['Subject']}\n{Sink.text(m)}" for m in sink.to(address)]


def test_a_mentioned_seat_gets_one_mail_saying_so_and_an_unmentioned_seat_none(app, games, projector, sink):  # noqa: F811
    gid, wiz, bal, sar = seated(games)
    now = datetime.now(timezone.utc)
    dispatch(projector, now)  # what the game said before: all turned off
    games.run(Caller.of(wiz), gid, MakePost("table", "A word, @Balrog: BRIDGE-MARKER"))
    dispatch(projector, now)
    sink.wait_for(1)
    dispatch(projector, now)  # a second sweep sends nothing twice
    told = mails(sink, "balrog@example.org")
    assert len(told) == 1 and "BRIDGE-MARKER" in told[0]
    assert told[0].partition("\n")[0].endswith("] Gandalf mentioned you in The table")
    assert mails(sink, "saruman@example.org") == [] and mails(sink, "gandalf@example.org") == []
    key = str(games.get_game(gid, for_update=False).id)
    assert "off" in [r["status"] for r in mail.ledger(projector.db, key, sar)]  # queued for Saruman, by choice off


def test_a_seat_named_in_a_private_thread_it_cannot_read_is_told_nothing(app, games, projector, sink):  # noqa: F811
    gid, wiz, bal, sar = seated(games)
    now = datetime.now(timezone.utc)
    dispatch(projector, now)
    thread = games.run(Caller.of(wiz), gid, OpenThread([bal], "PACT-TITLE")).result["thread_id"]
    games.run(Caller.of(wiz), gid, MakePost(thread, "Shall we tell @Saruman? @Balrog, SECRET-MARKER"))
    dispatch(projector, now)
    sink.wait_for(1)
    assert len(mails(sink, "balrog@example.org")) == 1
    assert mails(sink, "saruman@example.org") == []
    key = str(games.get_game(gid, for_update=False).id)
    rows = [r for r in projector.outbox(key) if r["recipient"] == sar]
    assert not any("SECRET-MARKER" in json.dumps(r) or "PACT-TITLE" in json.dumps(r) for r in rows)
    assert not any(thread in json.dumps(r) for r in mail.ledger(projector.db, key, sar))
