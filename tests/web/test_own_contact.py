"""Issue 28 item 5: a player sets their own contact address and notification mode from their board. A new address
is used for nothing until its reader follows the link mailed to it; the mode, or an address kept or removed, is
recorded at once as the seat's own ``SetContact``. A link turned to another seat, used twice or mistyped does
nothing; a bad address or mode is refused naming its field and records nothing."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import close_services
from tests.mail.sink import Sink

LINK = re.compile(r"(https?://\S+/contact/confirm/\S+)")


@pytest.fixture
def app(tmp_path, sink):
    app = create_app(Settings(data_dir=tmp_path, smtp_port=sink.port, public_url="http://testserver"))
    yield app
    close_services(app.state.games, app.state.projector)


@pytest.fixture
def games(app):
    return app.state.games


@pytest.fixture
def table(games):
    gid, _, _ = games.create_game("Middle-earth", timezone_name="Europe/Paris")
    ann, ann_token, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
    bob, _, _ = add_power(games, gid, "gm", "Balrog", "champion", "adversary")
    return {"game": gid, "ann": ann, "ann_token": ann_token, "bob": bob}


@pytest.fixture
def ann(app, table):
    with TestClient(app) as client:
        client.get(f"/signin/{table['game']}/{table['ann_token']}")
        yield client


def csrf(client: TestClient, page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get(page).text).group(1)


def post(client: TestClient, path: str, data: dict, page: str | None = None):
    data = {"csrf": csrf(client, page or path), **data}
    return client.post(path, data=data, headers={"Origin": "http://testserver"}, follow_redirects=False)


def contact_events(games, game_id: str) -> list:
    return [e for e in games.iter_events(game_id) if type(e).__name__ == "ContactSet"]


def test_the_board_links_to_the_seats_own_notifications(ann, table):
    board = ann.get(f"/play/{table['game']}").text
    assert f'href="/play/{table["game"]}/contact"' in board
    page = ann.get(f"/play/{table['game']}/contact").text
    assert 'id="contact-email"' in page and 'id="contact-mode"' in page and "Gandalf" in page


def test_a_new_address_is_used_once_its_reader_confirms_it(app, ann, table, games, sink):
    g, seat = table["game"], table["ann"]
    r = post(ann, f"/play/{g}/contact", {"email": "Ann@Example.org", "mode": "digest"})
    assert r.status_code == 303
    assert "on its way" in ann.get(f"/play/{g}/contact").text
    assert contact_events(games, g) == [] and games.contact_of(g, seat) == (None, "immediate")
    sink.wait_for(1)
    (mail,) = sink.to("Ann@example.org")  # the domain is written in lower case
    text = Sink.text(mail)
    assert "Middle-earth" in text
    link = LINK.search(text).group(1)
    path = link.removeprefix("http://testserver")
    with TestClient(app) as phone:  # another device, signed in nowhere
        page = phone.get(path)
        assert page.status_code == 200 and "Confirm this address" in page.text
        assert contact_events(games, g) == []  # fetching the link (a mail scanner) changes nothing
        r = post(phone, path, {}, page=path)
        assert r.status_code == 303 and r.headers["location"] == "/me"
        (event,) = contact_events(games, g)
        assert (event.seat, event.email, event.mode, event.actor) == (seat, "Ann@example.org", "digest", seat)
        assert "Middle-earth" in phone.get("/me").text  # signed in as the address's person
        again = post(phone, path, {}, page="/me")
        assert again.status_code == 401 and len(contact_events(games, g)) == 1  # once only
        # signed in by email, the seat's forms run as its person: a dispute raised (it read a KeyError before)
        raised = post(phone, f"/play/{g}/disputes/raise", {"seq": 1, "text": "Why?"}, page=f"/play/{g}/disputes")
        assert raised.status_code == 303 and "Dispute raised." in phone.get(f"/play/{g}/disputes").text


def test_a_link_turned_to_another_seat_does_nothing(app, ann, table, games, sink):
    g = table["game"]
    post(ann, f"/play/{g}/contact", {"email": "ann@example.org", "mode": "immediate"})
    sink.wait_for(1)
    link = LINK.search(Sink.text(sink.to("ann@example.org")[0])).group(1)
    parts = urlsplit(link)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    turned = f"{parts.path}?{urlencode({**query, 'seat': table['bob']})}"
    with TestClient(app) as evil:
        assert evil.get(turned).status_code == 401
        assert post(evil, turned, {}, page="/signin").status_code == 401
    assert contact_events(games, g) == [] and games.contact_of(g, table["bob"])[0] is None


@pytest.mark.parametrize(
    "data,field",
    [({"email": "not an address", "mode": "immediate"}, "email"), ({"email": "", "mode": "hourly"}, "mode")],
)
def test_a_bad_address_or_mode_is_refused_naming_it_and_keeps_what_was_typed(ann, table, games, sink, data, field):
    g = table["game"]
    r = post(ann, f"/play/{g}/contact", data)
    assert r.status_code == 303
    page = ann.get(f"/play/{g}/contact").text
    assert f'id="err-contact-{field}"' in page
    if field == "email":
        assert 'value="not an address"' in page
    assert contact_events(games, g) == [] and sink.to("not an address") == []


def test_the_mode_and_a_kept_or_removed_address_are_recorded_at_once(ann, table, games, sink):
    g, seat = table["game"], table["ann"]
    games.set_contact(g, seat, seat, "ann@example.org", "immediate")
    post(ann, f"/play/{g}/contact", {"email": "ANN@example.org", "mode": "off"})
    assert games.contact_of(g, seat)[1] == "off"
    post(ann, f"/play/{g}/contact", {"email": "", "mode": "immediate"})
    assert games.contact_of(g, seat) == (None, "immediate")
    assert sink.messages == []  # nothing to confirm


def test_the_gms_console_has_no_notifications_page(app, games):
    gid, gm_token, _ = games.create_game("Console")
    with TestClient(app) as gm:
        gm.get(f"/signin/{gid}/{gm_token}")
        assert 'href="/play/' + gid + '/contact"' not in gm.get(f"/play/{gid}").text
        assert gm.get(f"/play/{gid}/contact").status_code == 401


def test_the_confirmation_links_token_is_in_no_ledger_row_and_no_log_line(
    app, ann, table, games, projector, sink, caplog
):
    """The mailed link signs its reader in as the address's person: the mail ledger (which the GM reads through
    GET /games/{g}/mail) keeps the mail with its token redacted, and no log line carries it."""
    g = table["game"]
    with caplog.at_level("DEBUG"):
        post(ann, f"/play/{g}/contact", {"email": "ann@example.org", "mode": "immediate"})
        sink.wait_for(1)
        (mail,) = sink.to("ann@example.org")
        token = LINK.search(Sink.text(mail)).group(1).split("/contact/confirm/")[1].split("?")[0]
        ann.get(f"/contact/confirm/{token}")
    assert len(token) > 20
    rows = projector.db.query("SELECT subject, body FROM mail_ledger WHERE game_id = ?", (g,))
    assert rows and all(token not in str(row) for row in rows)
    assert any("/contact/confirm/[redacted]" in str(row) for row in rows)
    assert token not in caplog.text
