"""Observers by invitation on the web, by mail and through the API (issue 28 item 5; P.4), for every registered ruleset
and the tests' fake one: the GM invites an address to observe from the Seats page (a bad address is refused naming
its field, keeping what was typed, recording nothing); the mail, queued by the projector, carries the link (never kept
in the ledger) in the invitee's language; following it and pressing the button signs the browser in as an observer,
whose page shows the game's public events and no seat's hidden text or the address, and whose other pages answer no
server error; the GM revokes the observer from the Seats page and the browser is signed out."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from tests.contract.conftest import RULESETS
from tests.mail.sink import Sink
from tests.web.id_scan import Names, scan_page
from tests.web.test_invitations import app, send_invitations  # noqa: F401 (the served app and its SMTP sink)
from tests.web.test_lobby import hidden_texts, post, services, table

LINK = re.compile(r"(https?://\S+/signin/invite/(\S+))")
PAGES = ("contact", "talk", "disputes", "live", "me", "audit", "preview", "rules", "links", "seats")


@pytest.mark.parametrize("name", RULESETS)
def test_an_invited_observer_watches_the_public_record_and_is_revoked(app, sink, name):  # noqa: F811
    games, projector = services(app)
    t = table(app, name)
    gid = t["game"]
    page = f"/play/{gid}/seats"
    with TestClient(app) as gm:
        gm.get(f"/signin/{gid}/opener-{gid}")
        before = games.get_game(gid, for_update=False).version
        bad = post(gm, f"/play/{gid}/observers/invite", {"email": "not an address", "language": "de"}, page=page)
        assert bad.status_code == 303 and bad.headers["location"].endswith("#observers")
        shown = gm.get(page).text
        assert 'id="err-observers-email"' in shown and 'value="not an address"' in shown
        assert games.get_game(gid, for_update=False).version == before and send_invitations(app) == []
        post(gm, f"/play/{gid}/observers/invite", {"email": "Watcher@example.org", "language": "de"}, page=page)
        assert "Invited to observe: Watcher@example.org" in gm.get(page).text
    kept = send_invitations(app)
    assert len(kept) == 1 and "/signin/invite/" not in kept[0]["body"]
    sink.wait_for(1)
    sent = sink.to("Watcher@example.org")[-1]
    text = Sink.text(sent)
    assert t["name"] in sent["Subject"] and "beobachten" in sent["Subject"] and "beobachten" in text
    url, _key = LINK.search(text).groups()
    path = url.removeprefix("http://testserver")
    hidden = hidden_texts(name, t["played"])
    with TestClient(app) as watcher:
        offered = watcher.get(path)
        assert offered.status_code == 200 and t["name"] in offered.text
        seats = games.get_game(gid, for_update=False).seats
        names = Names(seats={s: str(getattr(v, "name", "") or s) for s, v in seats.items()})
        assert scan_page(offered.text, path, names) == []
        taken = post(watcher, path, {})
        assert taken.status_code == 303 and taken.headers["location"] == f"/play/{gid}"
        board = watcher.get(f"/play/{gid}")
        assert board.status_code == 200 and "You are observing" in board.text
        public = projector.timeline(gid, "observer", limit=10_000)
        assert public and all(str(i["seq"]) in board.text for i in public[:5])
        leaked = [h for h in [*hidden, "watcher@example.org", "Watcher@example.org"] if h in board.text]
        assert leaked == []
        for other in PAGES:
            answer = watcher.get(f"/play/{gid}/{other}")
            assert answer.status_code < 500, (other, answer.status_code)
            assert [h for h in hidden if h in answer.text] == [], other
        with TestClient(app) as gm:
            gm.get(f"/signin/{gid}/opener-{gid}")
            invitation = next(i for i, v in games.get_game(gid, for_update=False).invitations.items() if not v["seat"])
            assert "Observing: Watcher@example.org" in gm.get(page).text
            revoked = post(gm, f"/play/{gid}/invitations/{invitation}/withdraw", {}, page=page)
            assert revoked.status_code == 303
            after = gm.get(page).text
            assert "link no longer works" in after and "Observing: Watcher" not in after
        assert watcher.get(f"/play/{gid}").status_code == 401


def test_the_json_api_invites_an_observer_as_the_gm_only(app, sink):  # noqa: F811
    games, _projector = services(app)
    t = table(app, "powers")
    gid = t["game"]
    with TestClient(app) as client:
        url = f"/games/{gid}/observers"
        body = {"email": "api-watcher@example.org"}
        assert client.post(url, json=body).status_code == 401
        refused = client.post(url, json={"email": "nope"}, headers={"Authorization": f"Bearer opener-{gid}"})
        assert refused.status_code == 422 and "email" in refused.text
        gm = {"Authorization": f"Bearer opener-{gid}"}
        made = client.post(url, json=body, headers=gm)
        assert made.status_code == 201, made.text
        invitation = made.json()["result"]["invitation"]
        assert games.get_game(gid, for_update=False).invitations[invitation]["seat"] == ""
        gone = client.delete(
            f"/games/{gid}/invitations/{invitation}", headers={"Authorization": f"Bearer opener-{gid}"}
        )
        assert gone.status_code == 200, gone.text
    rows = services(app)[1].db.query("SELECT status FROM mail_ledger WHERE kind = ?", (f"invitation {invitation}",))
    assert rows == [("withdrawn",)] and sink.messages == []  # withdrawn before it went: nothing is sent
