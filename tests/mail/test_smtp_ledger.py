"""The delivery ledger is a log too (issue 24, item 8): the GM's ledger of every seat's mail holds no seat's
thread reply address (whoever holds it posts as that seat, by mail), while each seat's own ledger and mail keep
theirs."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from api.compose import build_games, build_projector
from api.mail_intake import MailIntake
from application.service import Caller
from domain.platform.commands import MakePost, OpenThread
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_services
from tests.mail.sink import Sink
from workers import mail, runtime


@pytest.fixture
def table(tmp_path):
    from workers.app import celery_app

    sink = Sink().start()
    settings = Settings(data_dir=tmp_path, smtp_port=sink.port, secret_key="k" * 40)
    games = build_games(settings)
    projector = build_projector(games, settings)
    runtime.use(games, projector, settings)
    celery_app.conf.task_always_eager = True
    gid, _, _ = games.create_game("Letters")
    for name in ("Ann", "Bob"):
        pid, _, _ = add_power(games, gid, "gm", name, "champion", "wizard")
        games.set_contact(gid, pid, pid, f"{pid}@example.org", "immediate")
    try:
        yield games, projector, settings, gid, sink
    finally:
        celery_app.conf.task_always_eager = False
        close_services(games, projector)
        sink.stop()


def test_the_gms_ledger_holds_no_seats_thread_reply_address_the_seats_own_does(table):
    from workers.tasks import dispatch_mail

    games, projector, settings, gid, sink = table
    thread = games.run(Caller.of("ann"), gid, OpenThread(["bob"], "Border")).result["thread_id"]
    games.run(Caller.of("ann"), gid, MakePost(thread, "Cede the ford?"))
    projector.catch_up()
    dispatch_mail(datetime.now(timezone.utc))
    (note,) = sink.wait_for(1)
    address = note["Reply-To"]
    assert MailIntake(games, settings.mail_domain, settings.secret_key).holder(address) == (gid, "bob")
    key = str(games.get_game(gid).id)
    everyone = mail.ledger(projector.db, key)
    assert [r["recipient"] for r in everyone] == ["bob"]
    mac = address.split("@")[0].split(".")[-1]
    assert len(mac) == 24 and mac not in everyone[0]["body"]
    assert "[redacted]" in everyone[0]["body"] and "Cede the ford?" in everyone[0]["body"]
    assert address in mail.ledger(projector.db, key, "bob")[0]["body"]  # Bob's own ledger: his address
