"""A seat's notification preferences reach its mail (issue 31, item 3), through the worker path every mail takes
(the projector's outbox, ``workers.tasks.dispatch_mail``, the ledger, real SMTP to a local sink): quiet hours hold a
seat's mail until they end, a kind turned off is never mailed, and the one daily digest carries what every channel
gathered for it (mail's and push's), each piece of news once."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from api.app import create_app
from application.service import Caller
from domain.platform.commands import SetNotifications, SetTimezone
from projections.settings import Settings
from tests.integration.helpers import close_app
from tests.mail.sink import Sink
from tests.mail.test_mails_people_act_on import BASE, KEY, SECRET, powers_game
from workers import mail, runtime


@pytest.fixture
def app(tmp_path, sink):
    from workers.app import celery_app

    app = create_app(
        Settings(data_dir=tmp_path, smtp_port=sink.port, public_url=BASE, secret_key=SECRET, inbound_key=KEY)
    )
    runtime.use(app.state.games, app.state.projector, app.state.settings)
    celery_app.conf.task_always_eager = True
    yield app
    celery_app.conf.task_always_eager = False
    close_app(app)


def dispatch(projector, now: datetime) -> dict:
    from workers.tasks import dispatch_mail

    projector.catch_up()
    return dispatch_mail(now)


def statuses(projector, games, gid: str, seat: str) -> list[str]:
    key = str(games.get_game(gid, for_update=False).id)
    return [r["status"] for r in mail.ledger(projector.db, key, seat)]


def test_quiet_hours_hold_a_seats_mail_until_they_end_and_others_are_told_at_once(app, games, projector, sink):
    gid, wiz, bal = powers_game(games)
    now = datetime.now(timezone.utc)
    games.run(Caller.of(wiz), gid, SetTimezone(wiz, "UTC"))
    start, end = (now - timedelta(hours=1)).strftime("%H:00"), (now + timedelta(hours=2)).strftime("%H:00")
    games.run(Caller.of(wiz), gid, SetNotifications(wiz, quiet_from=start, quiet_until=end))
    dispatch(projector, now)
    told = sink.wait_for(1)
    assert told and all("balrog@example.org" in m["X-Rcpt"] for m in told)
    held = statuses(projector, games, gid, wiz)
    assert held and set(held) == {"held"}
    assert sink.to("gandalf@example.org") == []

    dispatch(projector, now + timedelta(minutes=30))  # still quiet: still held
    assert set(statuses(projector, games, gid, wiz)) == {"held"}
    dispatch(projector, now + timedelta(hours=2, minutes=1))  # they have ended
    sink.wait_for(len(told) + len(held))
    assert set(statuses(projector, games, gid, wiz)) == {"sent"}
    assert any("Planung" in m["Subject"] for m in sink.to("gandalf@example.org"))


def test_a_kind_turned_off_is_never_mailed(app, games, projector, sink):
    """Planning waits on every power: for the Balrog it is his move, on mail as on push."""
    gid, wiz, bal = powers_game(games)
    games.run(Caller.of(bal), gid, SetNotifications(bal, mail={"move": "off"}))
    now = datetime.now(timezone.utc)
    dispatch(projector, now)
    sink.wait_for(1)
    assert "off" in statuses(projector, games, gid, bal)
    assert not any("Planning" in m["Subject"] for m in sink.to("balrog@example.org"))
    assert any("Planung" in m["Subject"] for m in sink.to("gandalf@example.org"))  # the other seat's mail comes


def test_a_new_step_that_waits_on_the_seat_is_its_move_on_mail_as_on_push(app, games, projector, sink):
    """One check of "waits on me" for every channel (``notify_policy.waits_on_at``): a seat that turned ``phase``
    off but wants ``move`` still hears that Planning began, for Planning waits on it; mail once read the new step
    as ``phase`` and dropped it while push sent it as the seat's move."""
    gid, wiz, bal = powers_game(games)
    games.run(Caller.of(bal), gid, SetNotifications(bal, mail={"phase": "off", "move": "now"}))
    dispatch(projector, datetime.now(timezone.utc))
    sink.wait_for(2)
    assert any("Planning" in m["Subject"] for m in sink.to("balrog@example.org"))


def test_the_one_daily_digest_carries_every_channels_news_once(app, games, projector, sink):
    gid, wiz, _ = powers_game(games)
    games.run(
        Caller.of(wiz), gid, SetNotifications(wiz, mail={"phase": "digest", "move": "digest"}, push={"post": "digest"})
    )
    now = datetime.now(timezone.utc)
    dispatch(projector, now)
    key = str(games.get_game(gid, for_update=False).id)
    gathered = [r for r in mail.ledger(projector.db, key, wiz) if r["status"] == "digest"]
    assert gathered and sink.to("gandalf@example.org") == []
    first = gathered[0]
    # push gathers a post at the table for the digest, and the phase mail already gathered (told once)
    mail.gather(
        projector.db,
        channel="push",
        game_id=key,
        version=9999,
        recipient=wiz,
        kind="post",
        subject="PUSH-ONLY-NEWS",
        body="Ana wrote at the table.",
    )
    mail.gather(
        projector.db,
        channel="push",
        game_id=key,
        version=first["version"],
        recipient=wiz,
        kind=first["kind"],
        subject="PUSH-TWIN",
        body=first["body"],
    )
    dispatch(projector, now + timedelta(days=1, minutes=1))
    [digest] = [m for m in sink.wait_for(3) if "Zusammenfassung" in m["Subject"]]
    text = Sink.text(digest)
    assert "gandalf@example.org" in digest["X-Rcpt"] and "Zusammenfassung" in digest["Subject"]
    assert "PUSH-ONLY-NEWS" in text and "PUSH-TWIN" not in text
    assert text.count(first["subject"]) == 1
    assert f"({len(gathered) + 1} " in digest["Subject"]  # every gathered mail and the push's own news
    assert "digest" not in statuses(projector, games, gid, wiz)  # each went into the digest, none is left


def test_a_digest_that_falls_due_in_quiet_hours_waits_for_their_end(app, games, projector, sink):
    gid, wiz, _ = powers_game(games)
    now = datetime.now(timezone.utc)
    later = now + timedelta(days=1, minutes=1)
    start, end = (later - timedelta(hours=1)).strftime("%H:00"), (later + timedelta(hours=2)).strftime("%H:00")
    games.run(Caller.of(wiz), gid, SetTimezone(wiz, "UTC"))
    games.run(
        Caller.of(wiz),
        gid,
        SetNotifications(wiz, mail={"phase": "digest", "move": "digest"}, quiet_from=start, quiet_until=end),
    )
    dispatch(projector, now)  # the digest's news is gathered, not held: a digest is no news at once
    dispatch(projector, later)
    assert "held" in statuses(projector, games, gid, wiz) and sink.to("gandalf@example.org") == []
    dispatch(projector, later + timedelta(hours=2, minutes=1))
    [digest] = [m for m in sink.wait_for(1) if "gandalf@example.org" in m["X-Rcpt"]]
    assert "Zusammenfassung" in digest["Subject"]


def test_a_deadline_within_quiet_hours_is_warned_of_at_once_while_other_news_waits(app, games, projector, sink):
    from workers.tasks import sweep

    gid, wiz, bal = powers_game(games)
    now = datetime.now(timezone.utc)
    games.run(Caller.of(wiz), gid, SetTimezone(wiz, "UTC"))
    start, end = (now - timedelta(hours=1)).strftime("%H:00"), (now + timedelta(hours=2)).strftime("%H:00")
    games.run(Caller.of(wiz), gid, SetNotifications(wiz, quiet_from=start, quiet_until=end))
    games.set_deadline(gid, "gm", "s1m1-planning", now + timedelta(minutes=30))  # within the quiet hours
    sweep()  # the reminder is queued ...
    sweep()  # ... and mailed
    key = str(games.get_game(gid, for_update=False).id)
    rows = {r["kind"]: r["status"] for r in mail.ledger(projector.db, key, wiz)}
    reminders = [k for k in rows if k.startswith("reminder ")]
    assert reminders and all(rows[k] == "sent" for k in reminders), rows
    assert {s for k, s in rows.items() if not k.startswith("reminder ")} == {"held"}
    sink.wait_for(1)
    assert any("Erinnerung" in m["Subject"] for m in sink.to("gandalf@example.org"))
    assert not any(
        "Planung" in m["Subject"] and "Erinnerung" not in m["Subject"] for m in sink.to("gandalf@example.org")
    )
