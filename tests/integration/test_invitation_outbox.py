"""An invitation's mail is queued by the projector from ``InvitationSent`` (issue 28 item 5; projections.invitations),
in the transaction that records the read models' position: the mail exists iff the event does, whatever stops between
the command and the projector; a replay (a rebuild) sends nothing again; a withdrawn invitation's unsent mail is
withdrawn, and one already handed to a worker is stopped as it is framed, so no dead link is ever mailed."""

from __future__ import annotations

import pytest

from application.mails import Framer
from application.service import Caller
from domain.platform.commands import InviteToSeat, WithdrawInvitation
from projections import lobby
from tests.web.test_invitations import app  # noqa: F401 (the served app, its SMTP sink's port)
from tests.web.test_lobby import services, table
from workers import mail


def invitation_rows(projector) -> list[tuple[str, str, str]]:
    """(id, recipient, status) of every invitation's row in the mail ledger."""
    return projector.db.query(
        "SELECT id, recipient, status FROM mail_ledger WHERE kind LIKE 'invitation %' ORDER BY created_at"
    )


def deliver_all(app) -> list[str]:  # noqa: F811
    games, projector = services(app)
    settings = app.state.settings
    return [
        mail.deliver(projector.db, settings, row_id, frame=Framer(games, settings))
        for row_id, _r, _s in invitation_rows(projector)
    ]


def test_the_invitation_mail_exists_iff_its_event_does_whatever_stops_between_them(app, sink, monkeypatch):  # noqa: F811
    games, projector = services(app)
    t = table(app, "powers")
    projector.catch_up()
    games.on_recorded.clear()  # the process stops once the command is stored, before any projector runs
    games.run(Caller.of(t["opener"]), t["game"], InviteToSeat("c0ffee01", t["listed"], "crash@example.org"))
    assert invitation_rows(projector) == []  # no event projected yet, and no mail

    def crash(*args, **kwargs):
        raise RuntimeError("the projector's process dies mid-batch")

    monkeypatch.setattr(lobby, "flush_lobby", crash)
    with pytest.raises(RuntimeError):
        projector.catch_up()
    assert invitation_rows(projector) == []  # rolled back with the position: the event is still to project
    monkeypatch.undo()
    projector.catch_up()  # the projector that resumes
    rows = invitation_rows(projector)
    assert [(r, s) for _i, r, s in rows] == [("invitation:c0ffee01", "queued")]
    assert deliver_all(app) == ["sent"]
    assert len(sink.wait_for(1)) == 1 and sink.to("crash@example.org")


def test_a_rebuild_of_the_read_models_mails_no_invitation_again(app, sink):  # noqa: F811
    games, projector = services(app)
    t = table(app, "powers")
    games.run(Caller.of(t["opener"]), t["game"], InviteToSeat("c0ffee02", t["listed"], "once@example.org"))
    games.run(Caller.of(t["opener"]), t["game"], InviteToSeat("c0ffee03", t["unlisted"], "never@example.org"))
    games.run(Caller.of(t["opener"]), t["game"], WithdrawInvitation("c0ffee03"))
    projector.catch_up()
    assert sorted(deliver_all(app)) == ["sent", "withdrawn"]
    sink.wait_for(1)
    projector.rebuild()
    assert sorted(s for _i, _r, s in invitation_rows(projector)) == ["sent", "withdrawn"]
    assert sorted(deliver_all(app)) == ["sent", "withdrawn"]  # claimed by nobody: told as it stands
    assert len(sink.messages) == 1 and not sink.to("never@example.org")


def test_a_withdrawn_invitation_mail_is_withdrawn_not_sent_with_a_dead_link(app, sink):  # noqa: F811
    games, projector = services(app)
    t = table(app, "powers")
    gid, opener = t["game"], t["opener"]
    games.run(Caller.of(opener), gid, InviteToSeat("c0ffee04", t["listed"], "late@example.org"))
    projector.catch_up()
    games.run(Caller.of(opener), gid, WithdrawInvitation("c0ffee04"))
    projector.catch_up()
    assert [s for _i, _r, s in invitation_rows(projector)] == ["withdrawn"]
    # withdrawn while its row was already handed to a worker (the projector not yet past the withdrawal)
    games.run(Caller.of(opener), gid, InviteToSeat("c0ffee05", t["unlisted"], "raced@example.org"))
    projector.catch_up()
    games.on_recorded.clear()
    games.run(Caller.of(opener), gid, WithdrawInvitation("c0ffee05"))
    assert deliver_all(app) == ["withdrawn", "withdrawn"]
    assert sink.messages == []
