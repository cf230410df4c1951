"""Invitations and lobby takes are rate limited per client address (issue 28; ``EMISSARY_RATELIMIT_INVITATIONS``,
``EMISSARY_RATELIMIT_LOBBY_TAKES``): past the limit the JSON API answers 429 naming the limit, and a web form is
refused next to itself naming the limit, in the reader's language; a refused one records nothing and mails
nobody."""

from __future__ import annotations

import uuid

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from application.service import Caller
from domain.platform.commands import OpenSeat
from projections.settings import Settings
from tests.integration.helpers import close_services
from tests.web.test_lobby import post, services, table, version


@pytest.fixture
def app(tmp_path, sink):
    settings = Settings(
        data_dir=tmp_path,
        smtp_port=sink.port,
        public_url="http://testserver",
        ratelimit_invitations="2/hour",
        ratelimit_lobby_takes="1/hour",
    )
    app = create_app(settings)
    yield app
    close_services(app.state.games, app.state.projector)


def invitation_rows(app) -> int:
    return len(services(app)[1].db.query("SELECT id FROM mail_ledger WHERE kind LIKE 'invitation %'"))


def test_invitations_past_the_limit_are_refused_naming_it_on_the_seats_page_and_by_the_api(app):
    games = services(app)[0]
    t = table(app, "powers")
    gid, seat = t["game"], t["listed"]
    page = f"/play/{gid}/seats"
    with TestClient(app) as gm:
        gm.get(f"/signin/{gid}/opener-{gid}")
        for n in range(2):
            post(gm, f"{page}/{seat}/invite", {"email": f"friend{n}@example.org", "language": ""}, page=page)
        assert invitation_rows(app) == 2
        before = version(games, gid)
        refused = post(gm, f"{page}/{seat}/invite", {"email": "third@example.org", "language": ""}, page=page)
        assert refused.status_code == 303
        shown = gm.get(page).text
        assert "Too many invitations from your address: at most 2 in 1 hour." in shown
        assert f'id="err-invite-{seat}-form"' in shown and 'value="third@example.org"' in shown
        assert version(games, gid) == before and invitation_rows(app) == 2
        gm.cookies.set("lang", "de")
        post(gm, f"{page}/{seat}/invite", {"email": "vierte@example.org", "language": ""}, page=page)
        assert "Zu viele Einladungen von deiner Adresse: höchstens 2 in 1 Stunde." in gm.get(page).text
        api = gm.post(
            f"/games/{gid}/invitations",
            json={"seat": seat, "email": "api@example.org"},
            headers={"Authorization": f"Bearer opener-{gid}"},
        )
        assert api.status_code == 429 and api.json()["limit"] == "2 per 1 hour", api.text
        assert "too many invitations" in api.json()["message"] and int(api.headers["Retry-After"]) > 0
    assert version(games, gid) == before and invitation_rows(app) == 2


def test_an_invitation_sent_by_name_on_the_generic_command_route_counts_against_the_same_limit(app):
    """``POST /games/{g}/commands`` runs any command by its class name: ``InviteToSeat`` and ``InviteObserver`` sent
    so count against the invitations' limit as their own routes do (a review found them uncounted there: any number
    of mails to any addresses from one game)."""
    games = services(app)[0]
    t = table(app, "powers")
    gid, seat = t["game"], t["listed"]
    gm_auth = {"Authorization": f"Bearer opener-{gid}"}
    with TestClient(app) as client:
        sent = [
            client.post(
                f"/games/{gid}/commands",
                json={
                    "command": "InviteToSeat",
                    "args": {"seat": seat, "email": f"by-name{n}@example.org", "invitation": uuid.uuid4().hex},
                },
                headers=gm_auth,
            )
            for n in range(2)
        ]
        assert [r.status_code for r in sent] == [200, 200], [r.text for r in sent]
        assert invitation_rows(app) == 2
        before = version(games, gid)
        for command, args in (
            ("InviteToSeat", {"seat": seat, "email": "third@example.org", "invitation": uuid.uuid4().hex}),
            ("InviteObserver", {"email": "watcher@example.org", "invitation": uuid.uuid4().hex}),
        ):
            over = client.post(f"/games/{gid}/commands", json={"command": command, "args": args}, headers=gm_auth)
            assert over.status_code == 429 and over.json()["limit"] == "2 per 1 hour", over.text
        over = client.post(f"/games/{gid}/observers", json={"email": "w2@example.org"}, headers=gm_auth)
        assert over.status_code == 429  # one budget, whichever way an invitation is sent
    assert version(games, gid) == before and invitation_rows(app) == 2


def test_lobby_takes_past_the_limit_are_refused_naming_it_and_take_nothing(app):
    games, projector = services(app)
    t = table(app, "powers")
    gid = t["game"]
    for seat in (t["listed"], t["unlisted"]):
        games.run(Caller.of(t["opener"]), gid, OpenSeat(seat, "", listed=True))
    projector.catch_up()
    with TestClient(app) as newcomer:
        taken = post(newcomer, f"/lobby/{gid}/{t['listed']}", {"email": "first@example.org"})
        assert taken.status_code == 303 and taken.headers["location"].startswith(f"/play/{gid}")
        before = version(games, gid)
        page = f"/lobby/{gid}/{t['unlisted']}"
        refused = post(newcomer, page, {"email": "second@example.org"})
        assert refused.status_code == 303 and refused.headers["location"] == f"{page}#take"
        shown = newcomer.get(page).text
        assert "Too many seats taken from your address: at most 1 in 1 hour." in shown
        assert 'id="err-take-form"' in shown and 'value="second@example.org"' in shown
    assert version(games, gid) == before and t["unlisted"] in games.get_game(gid, for_update=False).open_seats
