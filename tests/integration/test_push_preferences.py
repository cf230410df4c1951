"""A seat's preferences reach its pushes (issue 31, item 3), through the sweep and a push service stood in on
loopback (``tests.push_service``), each push decrypted with the device's keys: the one policy
(``application.notify_policy``) drops a kind the seat turned off for push, holds a push while its quiet hours last
and sends it when they end, and gathers a kind it wants in the digest into its one daily digest, which a seat with
no mail address gets as one push."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

from application import push
from application.service import Caller
from domain.platform.commands import MakePost, OpenThread, SetNotifications, SetTimezone
from domain.powers import commands as pc
from tests.integration.test_push import a_game, eager, service, subscribed, sweep, vapid_key  # noqa: F401
from tests.push_service import Device
from workers import mail


def test_a_kind_turned_off_is_not_pushed_and_one_for_the_digest_comes_in_one_digest_push(eager, service):  # noqa: F811
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    phone = Device(service.url("/push/wiz-phone"))
    subscribed(projector, gid, wiz, phone, ["move", "private"])
    games.run(Caller.of(wiz), gid, SetNotifications(wiz, push={"move": "off", "private": "digest"}))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())  # Planning begins: a move waits on Wiz, which Wiz turned off for push
    thread = games.run(Caller.of(sov), gid, OpenThread([wiz], "Quiet words")).result["thread_id"]
    games.run(Caller.of(sov), gid, MakePost(thread, "Meet me at the cape."))  # private: for the digest
    now = datetime.now(timezone.utc)
    sweep(now)
    assert service.requests("/push/wiz-phone") == []
    key = str(games.get_game(gid, for_update=False).id)
    gathered = [r for r in mail.ledger(projector.db, key, wiz) if r["status"] == "digest"]
    assert [r["kind"] for r in gathered] == ["push post"]
    sweep(now + timedelta(days=1, minutes=1))  # the digest is due; Wiz has no mail address: one push
    (request,) = service.requests("/push/wiz-phone")
    said = phone.decrypt(request)
    assert said["title"].startswith("Harbour Watch: Your daily digest (1 note)")
    assert "Meet me at the cape." in said["body"] and "Planning" not in said["body"]
    assert [r["kind"] for r in push.deliveries(projector.db, gid, wiz)] == ["digest"]
    sweep(now + timedelta(days=2))  # one digest, once
    assert len(service.requests("/push/wiz-phone")) == 1


def test_quiet_hours_hold_a_push_until_they_end(eager, service):  # noqa: F811
    games, projector, settings = eager
    gid, wiz, sov = a_game(games)
    projector.catch_up()
    phone = Device(service.url("/push/wiz-phone"))
    subscribed(projector, gid, wiz, phone, ["private"])
    now = datetime.now(timezone.utc)
    games.run(Caller.of(wiz), gid, SetTimezone(wiz, "UTC"))
    start, end = (now - timedelta(hours=1)).strftime("%H:00"), (now + timedelta(hours=2)).strftime("%H:00")
    games.run(Caller.of(wiz), gid, SetNotifications(wiz, quiet_from=start, quiet_until=end))
    thread = games.run(Caller.of(sov), gid, OpenThread([wiz], "Quiet words")).result["thread_id"]
    games.run(Caller.of(sov), gid, MakePost(thread, "Meet me at the cape."))
    sweep(now)
    sweep(now + timedelta(minutes=30))  # still quiet
    assert service.requests("/push/wiz-phone") == []
    assert [r["status"] for r in push.deliveries(projector.db, gid, wiz)] == ["held"]
    sweep(now + timedelta(hours=2, minutes=1))  # they have ended
    (request,) = service.requests("/push/wiz-phone")
    assert "Meet me at the cape." in phone.decrypt(request)["body"]
    assert [r["status"] for r in push.deliveries(projector.db, gid, wiz)] == ["sent"]
