"""Issue 28 item 5, find and join: a GM opens seats (listed in the lobby or not, with a note, the pace and the
language); ``/lobby`` lists only the listed ones, with public facts only; a newcomer takes one by a form with their
address, which becomes the seat's contact once its reader confirms it (a link mailed to it: a stranger's address
typed there gets that one mail), and is signed in at its board with a new link (every earlier one stops
working). Bad input is refused naming its field, keeps what was typed, and records nothing. For every registered
ruleset and the tests' fake one."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from application.service import Caller, hash_token
from domain.errors import Unauthorized
from domain.platform.commands import OpenSeat, ReissueLink
from domain.platform.roles import LINKS
from projections.settings import Settings
from tests.contract.conftest import RULESETS
from tests.contract.drivers import DRIVERS
from tests.integration.helpers import close_services
from tests.mail.sink import Sink
from tests.web.id_scan import Names, scan_page

ORIGIN = {"Origin": "http://testserver"}
CONFIRM = re.compile(r"(https?://\S+/contact/confirm/\S+)")


@pytest.fixture
def app(tmp_path, sink):
    app = create_app(Settings(data_dir=tmp_path, smtp_port=sink.port, public_url="http://testserver"))
    yield app
    close_services(app.state.games, app.state.projector)


def services(app):
    """The served app's application service and projector."""
    return app.state.games, app.state.projector


def csrf(client: TestClient, page: str) -> str:
    return re.search(r'name="csrf" value="([^"]+)"', client.get(page).text).group(1)


def post(client: TestClient, path: str, data: dict, page: str | None = None):
    return client.post(path, data={"csrf": csrf(client, page or path), **data}, headers=ORIGIN, follow_redirects=False)


def version(games, game_id: str) -> int:
    return games.get_game(game_id, for_update=False).version


def table(app, name: str) -> dict:
    """A played game of the ruleset: who opens seats (signed in with a known link), two seats to open, their names."""
    games = services(app)[0]
    played = DRIVERS[name].play(games)
    gid = played.game_id
    game = games.get_game(gid, for_update=False)
    opener = next(p for p in played.viewers if game.may(p, LINKS))
    seats = [v for v in played.viewers if v in game.seats and v != opener and not game.may(v, LINKS)]
    games.run(Caller.of(opener), gid, ReissueLink(opener, hash_token(f"opener-{gid}")))
    listed, unlisted = seats[-1], seats[0]
    games.run(Caller.of(listed), gid, ReissueLink(listed, hash_token(f"old-{gid}"))) if opener != "gm" else None
    names = {s: str(getattr(game.seats[s], "name", "") or s) for s in (listed, unlisted)}
    return {
        "played": played,
        "game": gid,
        "name": game.state.name,
        "opener": opener,
        "listed": listed,
        "unlisted": unlisted,
        "names": names,
    }


def hidden_texts(name: str, played) -> set[str]:
    """Every text some viewer of the game may not see: a stranger in the lobby sees none of them."""
    return {t for texts in DRIVERS[name].hidden(played).values() for t in texts if t}


@pytest.mark.parametrize("name", RULESETS)
def test_the_lobby_lists_the_seats_their_gm_listed_with_public_facts_only(app, name):
    games, projector = services(app)
    t = table(app, name)
    gid, opener = t["game"], t["opener"]
    games.run(
        Caller.of(opener),
        gid,
        OpenSeat(t["listed"], "Seeks a patient diplomat", listed=True, pace="steady", language="de"),
    )
    games.run(Caller.of(opener), gid, OpenSeat(t["unlisted"], "Only for friends"))
    projector.catch_up()
    with TestClient(app) as client:
        page = client.get("/lobby", headers={"Accept-Language": "en"}).text
        assert t["name"] in page and t["names"][t["listed"]] in page and "Seeks a patient diplomat" in page
        assert "steady: a step every few days" in page and "German" in page and name.capitalize() in page
        assert f"/lobby/{gid}/{t['listed']}" in page
        assert f"/lobby/{gid}/{t['unlisted']}" not in page and "Only for friends" not in page  # not listed
        for text in hidden_texts(name, t["played"]):
            assert text not in page, text
        assert f"/lobby/{gid}/" not in client.get(f"/lobby?ruleset=no-such-{name}").text
        assert f"/lobby/{gid}/" not in client.get("/lobby?pace=brisk").text
        assert f"/lobby/{gid}/" not in client.get("/lobby?language=fr").text
        assert f"/lobby/{gid}/{t['listed']}" in client.get(f"/lobby?ruleset={name}&pace=steady&language=de").text
        # the unlisted seat is open to whom the GM sends its page
        assert "Only for friends" in client.get(f"/lobby/{gid}/{t['unlisted']}").text
        assert client.get(f"/lobby/{gid}/no-such-seat").status_code == 404


@pytest.mark.parametrize("name", RULESETS)
def test_a_newcomer_takes_an_open_seat_by_the_form_and_is_signed_in_at_its_board(app, sink, name):
    games, projector = services(app)
    t = table(app, name)
    gid, seat = t["game"], t["listed"]
    games.run(Caller.of(t["opener"]), gid, OpenSeat(seat, "", listed=True))
    projector.catch_up()
    page = f"/lobby/{gid}/{seat}"
    with TestClient(app) as client:
        before = version(games, gid)
        refused = post(client, page, {"email": "not an address"})
        assert refused.status_code == 303 and refused.headers["location"].startswith(page)
        shown = client.get(page).text
        assert 'id="err-take-email"' in shown and 'value="not an address"' in shown and 'aria-invalid="true"' in shown
        assert version(games, gid) == before and seat in games.get_game(gid, for_update=False).open_seats
        taken = post(client, page, {"email": "Newcomer@Example.org"})
        assert taken.status_code == 303 and taken.headers["location"] == f"/play/{gid}/contact#contact"
        # no contact until the address's reader confirms it: a stranger's address typed here gets the link alone
        assert games.contact_of(gid, seat)[0] is None
        mine = client.get(f"/play/{gid}/contact")  # the seat's own page: this browser is signed in as the seat
        assert mine.status_code == 200 and t["names"][seat] in mine.text and "on its way" in mine.text
        assert client.get(f"/play/{gid}").status_code == 200
        sink.wait_for(1)
        (mail,) = sink.to("Newcomer@example.org")
        link = CONFIRM.search(Sink.text(mail)).group(1).removeprefix("http://testserver")
        assert client.get(link).status_code == 200 and games.contact_of(gid, seat)[0] is None  # a scanner's fetch
        assert post(client, link, {}, page=link).status_code == 303
        assert games.contact_of(gid, seat) == ("Newcomer@example.org", "immediate")
        with pytest.raises(Unauthorized):
            games.authenticate(gid, f"old-{gid}")
        projector.catch_up()
        assert f"/lobby/{gid}/{seat}" not in client.get("/lobby").text  # taken: off the lobby
        assert client.get(page).status_code == 404
        again = post(client, page, {"email": "late@example.org"}, page="/signin")
        assert again.status_code == 404 and games.contact_of(gid, seat)[0] == "Newcomer@example.org"


def test_only_the_gm_opens_seats_on_the_seats_page_and_bad_input_records_nothing(app):
    games, projector = services(app)
    t = table(app, "powers")
    gid, seat = t["game"], t["listed"]
    with TestClient(app) as stranger:
        assert stranger.get(f"/play/{gid}/seats").status_code == 403
    with TestClient(app) as gm:
        gm.get(f"/signin/{gid}/opener-{gid}")
        page = f"/play/{gid}/seats"
        assert t["names"][seat] in gm.get(page).text
        before = version(games, gid)
        bad = post(gm, f"{page}/{seat}", {"note": "Hi", "pace": "brisk", "language": "not a language!"}, page=page)
        assert bad.status_code == 303
        shown = gm.get(page).text
        assert f'id="err-open-{seat}-language"' in shown and 'value="Hi"' in shown
        assert version(games, gid) == before
        post(gm, f"{page}/{seat}", {"note": "Hi", "pace": "brisk", "language": "de", "listed": "1"}, page=page)
        projector.catch_up()
        assert f"/lobby/{gid}/{seat}" in gm.get("/lobby").text
        post(gm, f"{page}/{seat}", {"close": "1"}, page=page)
        projector.catch_up()
        assert f"/lobby/{gid}/{seat}" not in gm.get("/lobby").text


@pytest.mark.parametrize("language", ["en", "de"])
@pytest.mark.parametrize("name", RULESETS)
def test_the_lobby_and_seats_pages_show_words_not_ids(app, name, language):
    """Issue 28 item 3 on the new pages: no seat id, window id or class name in what they show."""
    games, projector = services(app)
    t = table(app, name)
    gid = t["game"]
    games.run(Caller.of(t["opener"]), gid, OpenSeat(t["listed"], "Seeks a player", listed=True, pace="brisk"))
    projector.catch_up()
    game = games.get_game(gid, for_update=False)
    names = Names(seats={s: str(getattr(seat, "name", "") or s) for s, seat in game.seats.items()})
    lang = {"Accept-Language": language}
    found: list[str] = []
    with TestClient(app) as gm:
        gm.get(f"/signin/{gid}/opener-{gid}")
        for page in ("/lobby", f"/lobby/{gid}/{t['listed']}", f"/play/{gid}/seats"):
            shown = gm.get(page, headers=lang)
            assert shown.status_code == 200, page
            found += scan_page(shown.text, page, names)
    assert found == [], "\n".join(found)
