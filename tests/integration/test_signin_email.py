"""Signing in by email (issue 17, "a person, not a link"): a one-time link mailed over real SMTP (a loopback
sink) gathers every seat whose contact is that address, across games and rulesets; the link works once and
expires; the sign-in page answers the same whatever the address; a person never reaches another address's seats."""

from __future__ import annotations

import re
from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from application.service import Caller
from domain.errors import Unauthorized
from domain.platform.commands import DeclareReady
from domain.powers import commands as pc
from tests.covenants.play import seat_three
from tests.helpers import add_power
from tests.integration.helpers import close_app, close_services
from tests.mail.sink import Sink

ANN, BOB = "ann@example.org", "bob@example.org"
LINK = re.compile(r"(https?://\S+/signin/email/(\S+))")


@pytest.fixture
def app(store_settings, sink):
    settings = store_settings.model_copy(update={"smtp_port": sink.port, "public_url": "http://testserver"})
    app = create_app(settings)
    yield app
    close_services(app.state.games, app.state.projector)


@pytest.fixture
def signin_links(app):
    """The app's store of mailed sign-in links."""
    return app.state.signin_links


@pytest.fixture
def site(app, games):
    # A game of Powers in Planning: Ann and Bob each hold a seat.
    powers, _, _ = games.create_game("Middle-earth", timezone_name="Europe/Paris")
    ann, ann_token, _ = add_power(games, powers, "gm", "Gandalf", "champion", "wizard")
    bob, _, _ = add_power(games, powers, "gm", "Balrog", "champion", "adversary")
    games.set_contact(powers, ann, ann, ANN, "immediate")
    games.set_contact(powers, bob, bob, BOB, "immediate")
    games.send(powers, "gm", pc.Advance())
    games.send(powers, "gm", pc.Advance())
    # A covenant game (another ruleset) where Ann holds a seat and Bob none.
    table = seat_three(games)
    games.set_contact(table.game_id, "cy", "cy", "Ann@Example.org", "immediate")
    return app, {"powers": powers, "covenants": table.game_id, "ann": ann, "bob": bob, "ann_token": ann_token}


def csrf(client: TestClient, page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get(page).text).group(1)


def ask(client: TestClient, email: str):
    return client.post("/signin", data={"email": email, "csrf": csrf(client, "/signin")})


def link_in(sink: Sink, address: str, n: int = 1) -> tuple[str, str]:
    sink.wait_for(n)
    mails = sink.to(address)
    assert len(mails) == n, [m["Subject"] for m in sink.messages]
    url, token = LINK.search(Sink.text(mails[-1])).groups()
    return url, token


def signed_in(app, sink: Sink, address: str, n: int = 1) -> TestClient:
    client = TestClient(app)
    ask(client, address)
    url, token = link_in(sink, address, n)
    page = client.get(url.replace("http://testserver", ""))
    assert page.status_code == 200 and "Sign in" in page.text
    done = client.post(f"/signin/email/{token}", data={"csrf": csrf(client, f"/signin/email/{token}")})
    assert done.status_code == 200 and "My games" in done.text, done.text
    return client


def test_a_person_signs_in_by_a_mailed_link_and_sees_every_seat_of_their_address(site, sink, projector):
    app, g = site
    client = signed_in(app, sink, ANN)
    mine = client.get("/me").text
    # Both of Ann's games, in two rulesets, and neither of Bob's seats.
    assert "Middle-earth" in mine and "Gandalf" in mine and "Tribunal" in mine
    assert "Powers" in mine and "Covenants" in mine
    assert "Balrog" not in mine
    # Her Powers seat opens without its secret link, on this device.
    board = client.get(f"/me/play/{g['powers']}?seat={g['ann']}")
    assert board.status_code == 200 and "Gandalf" in board.text
    # The mail is in the ledger with its link redacted; the token itself is kept nowhere.
    token = LINK.search(Sink.text(sink.to(ANN)[0])).group(2)
    rows = projector.db.query("SELECT * FROM signin_links") + projector.db.query(
        "SELECT * FROM mail_ledger WHERE game_id = '-'"
    )
    assert rows and token not in repr(rows)
    assert any("[redacted]" in repr(r) for r in rows)


def test_my_games_says_waiting_on_you_until_the_seat_has_acted(site, sink):
    app, g = site
    client = signed_in(app, sink, ANN)
    mine = client.get("/me").text
    row = mine[mine.index("Middle-earth") :].split("</li>")[0]
    assert "waiting on you" in row and "Season 1, month 1: Planning" in row
    assert "(Europe/Paris)" in row  # the seat's zone until the person chooses one
    # Ready by the board's form, as the person (no secret link): the window no longer waits on her.
    client.get(f"/me/play/{g['powers']}?seat={g['ann']}")
    done = client.post(f"/play/{g['powers']}/ready", data={"csrf": csrf(client, f"/play/{g['powers']}")})
    assert done.status_code == 200 and "Marked ready" in done.text
    row = client.get("/me").text
    row = row[row.index("Middle-earth") :].split("</li>")[0]
    assert "waiting on you" not in row and "planning closes" in row.lower()
    # The person's own zone, once chosen, is the one deadlines are shown in.
    client.post("/me/timezone", data={"timezone": "Asia/Tokyo", "csrf": csrf(client, "/me")})
    assert "(Asia/Tokyo)" in client.get("/me").text
    # On another device too.
    assert "(Asia/Tokyo)" in signed_in(app, sink, ANN, n=2).get("/me").text
    refused = client.post("/me/timezone", data={"timezone": "Mars/Olympus", "csrf": csrf(client, "/me")})
    assert "is not a time zone" in refused.text and "(Asia/Tokyo)" in refused.text


def test_a_sign_in_link_works_once(site, sink):
    app, _ = site
    first = signed_in(app, sink, ANN)
    token = LINK.search(Sink.text(sink.to(ANN)[0])).group(2)
    other = TestClient(app)
    assert other.get(f"/signin/email/{token}").status_code == 401
    reused = other.post(f"/signin/email/{token}", data={"csrf": csrf(other, "/signin")})
    assert reused.status_code == 401 and "does not work" in reused.text
    assert other.get("/me", follow_redirects=False).headers["location"] == "/signin"
    assert "Gandalf" in first.get("/me").text  # the browser that used it stays signed in


def test_an_expired_sign_in_link_is_refused(site, sink, signin_links):
    app, _ = site
    client = TestClient(app)
    ask(client, ANN)
    _, token = link_in(sink, ANN)
    links = signin_links
    links.clock = lambda: datetime.now(timezone.utc) + timedelta(minutes=31)  # the link lives 30 minutes
    assert client.get(f"/signin/email/{token}").status_code == 401
    late = client.post(f"/signin/email/{token}", data={"csrf": csrf(client, "/signin")})
    assert late.status_code == 401
    assert client.get("/me", follow_redirects=False).status_code == 303


def test_the_sign_in_page_answers_the_same_whatever_the_address(site, sink):
    app, _ = site
    client = TestClient(app)

    def answer(email: str) -> tuple[int, str]:
        r = ask(client, email)
        return r.status_code, re.sub(r'name="csrf" value="[^"]+"', "", r.text)

    known, unknown = answer(ANN), answer("nobody@example.org")
    assert known == unknown
    sink.wait_for(1)
    assert len(sink.to(ANN)) == 1 and sink.to("nobody@example.org") == []
    # Past its share of links an address gets no more mail, and the page still says the same.
    assert answer(ANN) == known and answer(ANN) == known and answer(ANN) == known
    sink.wait_for(3)
    assert len(sink.to(ANN)) == 3


def test_a_person_never_reaches_another_addresss_seats(site, sink, games, projector):
    """Security: Bob, signed in as bob@, asks for Ann's seats by every door; a contact that moves away ends
    Ann's access to that seat, for pages and for commands."""
    app, g = site
    bob = signed_in(app, sink, BOB)
    mine = bob.get("/me").text
    assert "Balrog" in mine and "Gandalf" not in mine and "Tribunal" not in mine and ANN not in mine
    # Ann's seat asked for by name: Bob gets his own seat's board, never hers.
    board = bob.get(f"/me/play/{g['powers']}?seat={g['ann']}").text
    # The page is Balrog's: its title, its own line in who has acted, its own sheet; Gandalf is only named
    # where any seat sees the other powers (targets, collaborators), never as "you".
    assert "<title>Balrog · Middle-earth</title>" in board and "You (Balrog)" in board and "<p>Balrog, " in board
    assert "You (Gandalf)" not in board and "<p>Gandalf, " not in board
    # A read model that says otherwise (lagging, or tampered with) is checked against the game itself.
    with projector.db.transaction() as cur:
        cur.execute("INSERT INTO rm_seat_contacts (email, game_id, seat) VALUES (?,?,?)", (BOB, g["covenants"], "cy"))
    assert "Tribunal" not in bob.get("/me").text
    # A game where Bob holds no seat: no board.
    assert bob.get(f"/me/play/{g['covenants']}?seat=cy").status_code == 401
    # Ann's contact moves to another address: her person session no longer reaches that seat.
    ann = signed_in(app, sink, ANN)
    games.set_contact(g["powers"], g["ann"], g["ann"], "gandalf@elsewhere.org", "immediate")
    assert "Middle-earth" not in ann.get("/me").text
    assert ann.get(f"/me/play/{g['powers']}?seat={g['ann']}").status_code == 401
    # And a command sent as the person for that seat is refused by the service itself, recording nothing.
    before = games.get_game(g["powers"], for_update=False).version
    with pytest.raises(Unauthorized):
        games.run(Caller.of_person(g["ann"], ANN), g["powers"], DeclareReady(g["ann"]))
    assert games.get_game(g["powers"], for_update=False).version == before
    # Her secret link still works alone.
    linked = TestClient(app)
    linked.get(f"/signin/{g['powers']}/{g['ann_token']}")
    assert "Gandalf" in linked.get(f"/play/{g['powers']}").text


def test_signing_out_ends_the_person_but_not_the_links(site, sink, signin_links):
    app, g = site
    signin_links.per_address = 10  # four sign-ins of one address within the hour
    client = signed_in(app, sink, ANN)
    client.get(f"/signin/{g['powers']}/{g['ann_token']}")  # a fresh session id: the person comes along
    assert "Tribunal" in client.get("/me").text
    out = client.post("/me/signout", data={"csrf": csrf(client, "/me")})
    assert out.status_code == 200 and "Sign in by email" in out.text
    assert client.get("/me", follow_redirects=False).status_code == 303
    assert "Gandalf" in client.get(f"/play/{g['powers']}").text  # signed in by its link, that stays
    other = signed_in(app, sink, ANN, n=2)
    another = signed_in(app, sink, ANN, n=3)
    at_board = signed_in(app, sink, ANN, n=4)  # "Sign out" on a board opened as the person signs the person out
    at_board.get(f"/me/play/{g['powers']}?seat={g['ann']}")
    at_board.post(f"/signout/{g['powers']}", data={"csrf": csrf(at_board, f"/play/{g['powers']}")})
    assert at_board.get("/me", follow_redirects=False).status_code == 303
    other.post("/me/signout/everywhere", data={"csrf": csrf(other, "/me")})
    assert another.get("/me", follow_redirects=False).status_code == 303


def test_migration_0006_people_adds_the_sign_in_tables_and_has_the_read_models_rebuilt(store_settings):
    """A database with games recorded before 0006 gets ``rm_seat_contacts`` filled: the revision empties every
    read model and the projector's position, so the next catch-up rebuilds them all from the events."""
    from api.compose import build_games, build_projector
    from projections import migrations

    games = build_games(store_settings)
    projector = build_projector(games, store_settings)
    try:
        gid, _, _ = games.create_game("Old game")
        pid, _, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
        games.set_contact(gid, pid, pid, ANN, "immediate")
        assert migrations.downgrade(projector.db, "0005_boards") == ["0005_boards"]
        with projector.db.transaction() as cur:  # as a database from before 0006: the new read model empty
            cur.execute("DELETE FROM rm_seat_contacts")
        assert projector.position() > 0
        assert migrations.upgrade(projector.db) == migrations.heads()  # 0006_people, and every later revision
        assert projector.position() == 0 and projector.db.query("SELECT COUNT(*) FROM rm_audit")[0][0] == 0
        assert projector.db.query("SELECT COUNT(*) FROM signin_links")[0][0] == 0
        projector.catch_up()
        assert projector.db.query("SELECT email, seat FROM rm_seat_contacts") == [(ANN, pid)]
    finally:
        close_services(games, projector)


def test_asking_for_links_is_rate_limited_per_client(store_settings, sink):
    """Past ``EMISSARY_RATELIMIT_SIGNIN_MAIL`` a client's requests for links get 429, whatever the address."""
    settings = store_settings.model_copy(update={"smtp_port": sink.port, "ratelimit_signin_mail": "2/minute"})
    app = create_app(settings)
    try:
        client = TestClient(app)
        assert [ask(client, f"x{i}@example.org").status_code for i in range(3)] == [200, 200, 429]
    finally:
        close_app(app)


def test_a_rollback_that_restores_a_contact_restores_the_seat_to_its_person(site, sink, games):
    """``rm_seat_contacts`` follows the game as it stands: a contact changed in a phase that is rolled back
    is the earlier address again (and the seat is that person's again)."""
    app, g = site
    start = games.get_game(g["powers"], for_update=False).version
    games.set_contact(g["powers"], g["ann"], g["ann"], "gandalf@elsewhere.org", "immediate")
    ann = signed_in(app, sink, ANN)
    assert "Middle-earth" not in ann.get("/me").text
    games.rollback(g["powers"], "gm", "the contact was changed by mistake", version=start)
    assert "Middle-earth" in ann.get("/me").text
    assert ann.get(f"/me/play/{g['powers']}?seat={g['ann']}").status_code == 200


def test_a_mailed_links_token_never_reaches_a_log():
    from api.security import redact

    assert redact("GET /signin/email/s3cr3t-t0ken HTTP/1.1") == "GET /signin/email/[redacted] HTTP/1.1"


def test_a_person_with_two_seats_in_one_game_opens_the_one_they_choose(site, sink, games):
    app, g = site
    saruman, _, _ = add_power(games, g["powers"], "gm", "Saruman", "champion", "wizard")
    games.set_contact(g["powers"], saruman, saruman, ANN, "immediate")
    ann = signed_in(app, sink, ANN)
    mine = ann.get("/me").text
    assert "Gandalf" in mine and "Saruman" in mine
    for seat, name, other in ((saruman, "Saruman", "Gandalf"), (g["ann"], "Gandalf", "Saruman")):
        board = ann.get(f"/me/play/{g['powers']}?seat={seat}").text
        sheet = board.split("My power sheet", 1)[1][:400]
        assert name in sheet and other not in sheet


def test_sign_in_links_keep_a_hash_work_once_expire_and_are_forgotten():
    from projections.db import ReadModelDB
    from projections.people import SignInLinks
    from projections.settings import Settings

    db = ReadModelDB(Settings(database_url="memory"))
    now = [datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)]
    links = SignInLinks(db, timedelta(minutes=30), 2, timedelta(minutes=60), clock=lambda: now[0])
    first, second = links.issue("Ann@Example.org"), links.issue("ann@example.org")
    assert first and second and links.issue("ANN@example.org") is None  # two an hour, whatever the case
    assert first not in repr(db.query("SELECT * FROM signin_links"))
    assert links.use(first) == "ann@example.org" and links.use(first) is None
    now[0] += timedelta(minutes=31)
    assert not links.is_live(second) and links.use(second) is None
    now[0] += timedelta(minutes=30)  # past the window: a new link, and the old ones are forgotten
    assert links.issue(ANN) is not None
    assert db.query("SELECT COUNT(*) FROM signin_links")[0][0] == 1
    db.close()


def test_a_game_played_in_turns_waits_on_you_only_at_your_turn(site, sink, games):
    """Covenants' turn windows (H-9) wait on the seat whose turn it is: a covenant is not "waiting on you"
    while another covenant is to move, and is once the turn is its own."""
    from domain.covenants.commands import Move
    from tests.covenants.play import Table

    app, g = site
    t = Table(games, g["covenants"], ["ann", "bob", "cy"])
    last = t.turn()[-1]  # the order is drawn: the seat that moves last this phase
    games.set_contact(g["covenants"], last, last, "dee@example.org", "immediate")
    dee = signed_in(app, sink, "dee@example.org")

    def row() -> str:
        html = dee.get("/me").text
        return html[html.index("Tribunal") :].split("</li>")[0]

    assert len(t.turn()) > 1 and "waiting on you" not in row() and "your move" not in row()
    square = 1
    while t.turn()[0] != last:
        t.run(t.turn()[0], Move(t.turn()[0], square))
        square += 2
    assert "waiting on you" in row() and "your move" in row()
