"""Read models follow rollbacks and forks (issue 24, items 7 and 2), on SQLite and PostgreSQL: after a rollback
My games (``/me``) shows the restored phase, its windows and whether it waits on you; a GM's fork is the GM's
sandbox: its copied events mail nobody, and it is on no player's My games nor opened from there."""

from __future__ import annotations

import re
from datetime import datetime, timezone

import pytest
from fastapi.testclient import TestClient

from application.service import Caller
from domain.platform.commands import CloseWindow, MakePost
from domain.powers import commands as pc
from tests.helpers import add_power

pytestmark = pytest.mark.integration

ANN = "ann@example.org"


@pytest.fixture
def table(api):
    """A game of Powers in Planning (season 1, month 1) where Ann's seat has her address as its contact, and
    a browser signed in as Ann (by a sign-in link, as a mailed one is used)."""
    app = api.app
    games = app.state.games
    game, _, _ = games.create_game("Middle-earth", timezone_name="Europe/Paris")
    ann, _, _ = add_power(games, game, "gm", "Gandalf", "champion", "wizard")
    bob, _, _ = add_power(games, game, "gm", "Balrog", "champion", "adversary")
    games.set_contact(game, ann, ann, ANN, "immediate")
    games.set_contact(game, bob, bob, "bob@example.org", "immediate")
    games.send(game, "gm", pc.Advance())
    games.run(Caller.of(ann), game, MakePost("table", "Well met, all."))  # every reader is mailed of it
    games.send(game, "gm", pc.Advance())
    client = TestClient(app)
    token = app.state.signin_links.issue(ANN)
    page = client.get(f"/signin/email/{token}").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    assert client.post(f"/signin/email/{token}", data={"csrf": csrf}).status_code == 200
    return games, game, {"ann": ann, "bob": bob}, client


def my_row(client: TestClient, name: str) -> str:
    page = client.get("/me").text
    return page[page.index(f">{name}</a>") :].split("</li>")[0]


def test_my_games_shows_the_phase_windows_and_waiting_a_rollback_restored(table):
    games, game, seats, ann = table
    planning = my_row(ann, "Middle-earth")
    assert "Season 1, month 1: Planning" in planning and "waiting on you" in planning
    games.send(game, "gm", pc.Advance())  # to Resolution: no window waits on Ann
    resolution = my_row(ann, "Middle-earth")
    assert "Season 1, month 1: Resolution" in resolution and "waiting on you" not in resolution
    games.rollback(game, "gm", "the resolution came too early", phase="s1m1-planning")
    restored = my_row(ann, "Middle-earth")
    assert "Season 1, month 1: Planning" in restored, restored
    assert "Resolution" not in restored and "waiting on you" in restored and "Planning closes" in restored
    # The phase list the boards show leaves out the phase the rollback undid, and a phase begun again shows.
    assert [p["phase"] for p in games.recent_phases(game, 5)] == ["s1-tidings", "s1m1-planning"]
    games.send(game, "gm", pc.Advance())
    assert [p["phase"] for p in games.recent_phases(game, 5)][-1] == "s1m1-resolution"
    assert "Season 1, month 1: Resolution" in my_row(ann, "Middle-earth")


def test_a_gms_fork_mails_no_player_and_is_on_no_players_my_games(table):
    games, game, seats, ann = table
    projector = games.reads
    source = str(games.get_game(game).id)
    assert {r["recipient"] for r in projector.outbox(source)} >= set(seats.values())  # the source mails them
    fork, _ = games.fork(game, "gm", "Sandbox", "what if the Balrog waits", phase="s1m1-planning")
    key = str(games.get_game(fork).id)
    marked = next(e.originator_version for e in games.iter_events(fork) if type(e).__name__ == "GameForked")
    # The fork's copied events (up to and including its mark) queue no mail at all; after it, none for a player.
    queued = projector.outbox(key)
    assert [r for r in queued if r["version"] <= marked] == [], queued
    assert not {r["recipient"] for r in queued} & set(seats.values())
    # Nobody's address holds a seat of the fork: it is not on Ann's My games, nor opened from there.
    assert projector.db.query("SELECT * FROM rm_seat_contacts WHERE game_id = ?", (key,)) == []
    mine = ann.get("/me").text
    assert "Middle-earth" in mine and "Sandbox" not in mine
    assert ann.get(f"/me/play/{fork}?seat={seats['ann']}", follow_redirects=False).status_code == 303
    assert ann.get(f"/play/{fork}").status_code == 401  # the seat was not opened: "sign in first"
    assert ann.get(f"/play/{game}").status_code == 200  # her seat in the source game opens as before
    # The fork's deadlines are its own: its windows are listed under the fork, the source's are untouched.
    listed = "SELECT window_id, closed FROM rm_windows WHERE game_id = ? ORDER BY window_id"
    windows = projector.db.query(listed, (key,))
    assert windows == projector.db.query(listed, (source,)) and [c for _, c in windows] == [0]
    games.run(Caller.of("gm"), fork, CloseWindow(windows[0][0]))
    assert projector.db.query(listed, (key,)) == [(windows[0][0], 1)]
    assert projector.db.query(listed, (source,)) == windows
    due = {(w["game_id"], w["window_id"]) for w in projector.due_windows(datetime(2999, 1, 1, tzinfo=timezone.utc))}
    assert (source, windows[0][0]) in due and (key, windows[0][0]) not in due
    assert "Planning closes" in my_row(ann, "Middle-earth")  # the source's deadline still shows on My games
    # Rebuilt in batches that cut the fork's copy short of its mark, the read models are the same.
    dumped = projector.dump()
    projector.rebuild(batch_size=3)
    assert projector.dump() == dumped


def test_a_covenant_games_fork_is_on_no_covenants_my_games_and_mails_none(api, games, projector):
    """Where there is no GM the auditor forks (issue 24, item 2; the host rules but keeps no history): the
    sandbox's copied contacts list no covenant's seat, and its copied events mail no covenant."""
    from tests.covenants.play import seat_three

    t = seat_three(games)
    for seat in t.seats:
        games.set_contact(t.game_id, seat, seat, f"{seat}@example.org", "immediate")
    t.run("ann", MakePost("table", "Salve, sodales."))
    assert {r["recipient"] for r in projector.outbox(str(games.get_game(t.game_id).id))} >= {"bob", "cy"}
    now = games.get_game(t.game_id).version  # the post is in the copied history
    fork, _ = games.fork(t.game_id, "gm", "Sandbox", "what if Bob passed", version=now)
    key = str(games.get_game(fork).id)
    assert projector.db.query("SELECT email, seat FROM rm_seat_contacts WHERE game_id = ?", (key,)) == []
    assert projector.outbox(key) == []
