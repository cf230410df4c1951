"""Invitations by address on the web and by mail (issue 28 item 5), for every registered ruleset and the tests' fake
one: the GM invites an address from the Seats page (a bad address or language is refused naming its field, keeping
what was typed, recording nothing); the mail goes through the outbox and names the game and its ruleset, carries the
link (written only as it is sent: the ledger never holds it) and is in the invitee's language when the GM gave it;
following the link and pressing the button takes the seat with that address as its contact and signs the browser
in; the link works once, not after a withdrawal, and never with a changed proof; logs never carry its proof."""

from __future__ import annotations

import logging
import re

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from application.mails import Framer
from projections import logs
from projections.settings import Settings
from tests.contract.conftest import RULESETS
from tests.integration.helpers import close_services
from tests.mail.sink import Sink
from tests.web.id_scan import Names, scan_page
from tests.web.test_lobby import post, services, table
from workers import mail

LINK = re.compile(r"(https?://\S+/signin/invite/(\S+))")


@pytest.fixture
def app(tmp_path, sink):
    app = create_app(Settings(data_dir=tmp_path, smtp_port=sink.port, public_url="http://testserver"))
    yield app
    close_services(app.state.games, app.state.projector)


def send_invitations(app) -> list[dict]:
    """Deliver every queued invitation of the outbox as the workers do (framed as it is sent); their ledger rows."""
    games, projector = services(app)
    settings = app.state.settings
    rows = projector.db.query("SELECT id, subject, body FROM mail_ledger WHERE kind LIKE 'invitation %'")
    for row_id, _subject, _body in rows:
        assert mail.deliver(projector.db, settings, row_id, frame=Framer(games, settings)) == "sent"
    return [{"subject": s, "body": b} for _i, s, b in rows]


@pytest.mark.parametrize("name", RULESETS)
def test_an_invited_address_takes_its_seat_by_the_mailed_link_once(app, sink, name, caplog):
    games, _projector = services(app)
    t = table(app, name)
    gid, seat = t["game"], t["listed"]
    page = f"/play/{gid}/seats"
    with TestClient(app) as gm:
        gm.get(f"/signin/{gid}/opener-{gid}")
        before = games.get_game(gid, for_update=False).version
        bad = post(gm, f"{page}/{seat}/invite", {"email": "not an address", "language": "de"}, page=page)
        assert bad.status_code == 303
        shown = gm.get(page).text
        assert f'id="err-invite-{seat}-email"' in shown and 'value="not an address"' in shown
        assert games.get_game(gid, for_update=False).version == before and send_invitations(app) == []
        post(gm, f"{page}/{seat}/invite", {"email": "Invitee@example.org", "language": "de"}, page=page)
        assert "Invitee@example.org" in gm.get(page).text  # pending, with its withdraw button
    with caplog.at_level(logging.DEBUG):
        kept = send_invitations(app)
    assert len(kept) == 1 and "/signin/invite/" not in kept[0]["body"]  # the ledger never holds the link
    sink.wait_for(1)
    sent = sink.to("Invitee@example.org")[-1]
    text = Sink.text(sent)
    url, key = LINK.search(text).groups()
    assert t["name"] in sent["Subject"] and name.capitalize() in sent["Subject"]
    assert t["name"] in text and name.capitalize() in text and t["names"][seat] in text
    assert "Folgen Sie diesem Link" in text  # the invitee's language, as the GM gave it
    proof = key.split(".")[-1]
    assert proof not in caplog.text and proof not in logs.redact(f"GET {url} 200")
    path = url.removeprefix("http://testserver")
    with TestClient(app) as invitee:
        forged = path[:-4] + ("0000" if not path.endswith("0000") else "1111")
        assert invitee.get(forged).status_code == 401
        page_shown = invitee.get(path)
        assert page_shown.status_code == 200 and t["names"][seat] in page_shown.text
        seats = games.get_game(gid, for_update=False).seats
        names = Names(seats={s: str(getattr(v, "name", "") or s) for s, v in seats.items()})
        assert scan_page(page_shown.text, path, names) == []  # words, not ids (issue 28 item 3)
        assert games.contact_of(gid, seat)[0] != "invitee@example.org"  # following the link alone takes nothing
        taken = post(invitee, path, {})
        assert taken.status_code == 303 and taken.headers["location"] == f"/play/{gid}"
        assert games.contact_of(gid, seat) == ("Invitee@example.org", "immediate")
        mine = invitee.get(f"/play/{gid}/contact")
        assert mine.status_code == 200 and t["names"][seat] in mine.text
        assert invitee.get(path).status_code == 401  # once
        assert post(invitee, path, {}, page=f"/play/{gid}/contact").status_code == 401


def test_a_withdrawn_invitation_link_does_not_work(app, sink):
    games, _projector = services(app)
    t = table(app, "powers")
    gid, seat = t["game"], t["listed"]
    page = f"/play/{gid}/seats"
    with TestClient(app) as gm:
        gm.get(f"/signin/{gid}/opener-{gid}")
        post(gm, f"{page}/{seat}/invite", {"email": "late@example.org", "language": ""}, page=page)
        send_invitations(app)
        sink.wait_for(1)
        text = Sink.text(sink.to("late@example.org")[-1])
        assert "Follow this link" in text  # no language given, the game's: English
        invitation = next(iter(games.get_game(gid, for_update=False).invitations))
        withdrawn = post(gm, f"/play/{gid}/invitations/{invitation}/withdraw", {}, page=page)
        assert withdrawn.status_code == 303 and "late@example.org" not in gm.get(page).text
    path = LINK.search(text).group(1).removeprefix("http://testserver")
    with TestClient(app) as invitee:
        assert invitee.get(path).status_code == 401
    assert games.contact_of(gid, seat)[0] != "late@example.org"


def test_the_json_api_invites_as_the_gm_only(app, sink):
    games, _projector = services(app)
    t = table(app, "powers")
    gid, seat = t["game"], t["listed"]
    with TestClient(app) as client:
        url = f"/games/{gid}/invitations"
        body = {"seat": seat, "email": "api@example.org", "language": "de"}
        assert client.post(url, json=body).status_code == 401
        refused = client.post(url, json={**body, "email": "nope"}, headers={"Authorization": f"Bearer opener-{gid}"})
        assert refused.status_code == 422 and "email" in refused.text
        gm = {"Authorization": f"Bearer opener-{gid}", "Idempotency-Key": "invite-api-once"}
        made = client.post(url, json=body, headers=gm)
        assert made.status_code == 201, made.text
        again = client.post(url, json=body, headers=gm)  # a retry: the first receipt, the one invitation, one mail
        assert again.status_code == 201 and again.json()["result"] == made.json()["result"], again.text
    assert len(send_invitations(app)) == 1
    sink.wait_for(1)
    assert "/signin/invite/" in Sink.text(sink.to("api@example.org")[-1])
