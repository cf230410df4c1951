"""Mails people act on (issue 28, item 4), over real SMTP to a local sink: each mail names its game and ruleset,
says what happened in words, links to its reader's own board (the link opens that seat's board and no other),
gives times in the reader's zone and language, threads per game, and a window's reminder at a threshold goes
once, however often and however concurrently the sweep runs. Checked for every registered ruleset."""

from __future__ import annotations

import re
import threading
from datetime import datetime, timedelta, timezone

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from application.mail_addresses import board_link
from application.mails import subject_prefix, thread_root
from application.service import Caller
from domain.platform.commands import MakePost, RollBack, SetLanguage
from domain.powers import commands as pc
from projections import logs
from projections.settings import Settings
from tests.contract.drivers import DRIVERS
from tests.helpers import add_power
from tests.integration.helpers import close_app
from tests.mail.sink import Sink
from workers import mail, runtime

BASE = "http://testserver"
SECRET = "a-secret-key-of-the-tests-only-0123456789"
KEY = "k" * 32
LINK = re.compile(re.escape(BASE) + r"/signin/mail/\S+")


@pytest.fixture
def app(tmp_path, sink):
    from workers.app import celery_app

    app = create_app(
        Settings(data_dir=tmp_path, smtp_port=sink.port, public_url=BASE, secret_key=SECRET, inbound_key=KEY)
    )
    runtime.use(app.state.games, app.state.projector, app.state.settings)
    celery_app.conf.task_always_eager = True
    yield app
    celery_app.conf.task_always_eager = False
    close_app(app)


def dispatch(projector) -> None:
    from workers.tasks import dispatch_mail

    projector.catch_up()
    dispatch_mail(datetime.now(timezone.utc))


def powers_game(games) -> tuple[str, str, str]:
    """Der Ring, a Powers game in Europe/Berlin: Gandalf reads German, the Balrog English; Planning is open."""
    gid, _, _ = games.create_game("Der Ring", timezone_name="Europe/Berlin")
    wiz, _, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
    bal, _, _ = add_power(games, gid, "gm", "Balrog", "champion", "adversary", {"private_actions": 2})
    games.send(gid, "gm", pc.GrantAsset(wiz, "Demonhunting blade", "item", 2))  # Gandalf's own (P.4)
    games.set_contact(gid, wiz, wiz, "gandalf@example.org", "immediate")
    games.set_contact(gid, bal, bal, "balrog@example.org", "immediate")
    games.run(Caller.of(wiz), gid, SetLanguage(wiz, "de"))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    return gid, wiz, bal


def opened_as(app, link: str) -> tuple[str, str]:
    """Whom a fresh browser is signed in as after following ``link``, and the page it then lands on."""
    client = TestClient(app)
    first = client.get(link, follow_redirects=False)
    assert first.status_code == 303, first.text
    [(game_id, grant)] = app.state.sessions.load(first.cookies["emissary_session"]).grants.items()
    page = client.get(first.headers["location"])
    assert page.status_code == 200 and first.headers["location"] == f"/play/{game_id}"
    return grant.principal, page.text


def test_a_mail_names_its_game_and_ruleset_links_to_its_readers_board_in_their_zone_and_language(
    app, games, projector, sink
):
    gid, wiz, bal = powers_game(games)
    dispatch(projector)
    sink.wait_for(2)
    german, english = sink.to("gandalf@example.org"), sink.to("balrog@example.org")
    assert german and english
    for m in german + english:
        assert m["Subject"].startswith("[Der Ring · Powers] ")
        assert "Der Ring" in Sink.text(m) and "Powers" in Sink.text(m)
    [planning] = [m for m in german if "Planung" in m["Subject"]]  # the phase by its title, in German
    text = Sink.text(planning)
    assert planning["Subject"] == "[Der Ring · Powers] Saison 1, Monat 1: Planung"
    assert "Die Planung hat begonnen" in text and "Wartet auf dich" in text
    assert "Dez. 2026" in text and "CET" in text and "UTC" not in text  # Berlin's time, German dates
    [told] = [m for m in english if "Planning" in m["Subject"]]
    assert "Planning has begun: submit your actions." in Sink.text(told) and "Dec " in Sink.text(told)
    assert "CET" in Sink.text(told) and "s1m1" not in Sink.text(told)

    [mine] = {link for m in german for link in LINK.findall(Sink.text(m))}  # one link, Gandalf's own
    [theirs] = {link for m in english for link in LINK.findall(Sink.text(m))}
    assert mine != theirs
    assert mine.rsplit(".", 1)[1] not in logs.redact(f"GET {mine}")  # a log line never holds the link's proof
    seat, page = opened_as(app, mine)
    assert seat == wiz and "Demonhunting blade" in page
    seat, page = opened_as(app, theirs)
    assert seat == bal and "Demonhunting blade" not in page  # the Balrog's board, which hides Gandalf's asset
    assert TestClient(app).get(mine[:-4] + "0000", follow_redirects=False).status_code == 401  # a made-up proof

    key = str(games.get_game(gid).id)
    for row in mail.ledger(projector.db, key) + mail.ledger(projector.db, key, wiz):
        assert "/signin/mail/" not in row["body"]  # the link is written as the mail is sent, never kept

    root = thread_root(key, "emissary.local")
    assert {m["References"] for m in german + english} == {root} and {m["In-Reply-To"] for m in german} == {root}
    assert len({m["Message-ID"] for m in german + english}) == len(german + english)


def test_a_reply_to_a_turn_threads_under_the_game_and_the_turn_it_answers(app, games, projector, sink):
    gid, wiz, _ = powers_game(games)
    token = games.reissue_link(gid, "gm", wiz)[0]
    r = TestClient(app).post(
        "/inbound/email",
        json={
            "to": f"turns+{gid}.{token}@emissary.local",
            "from": "gandalf@example.org",
            "subject": "Mein Zug",
            "text": "ready\n",
            "message_id": "<zug-1@example.org>",
        },
        headers={"x-emissary-inbound-key": KEY},
    )
    assert r.status_code == 200
    dispatch(projector)
    [reply] = [m for m in sink.wait_for(1) if "Mein Zug" in m["Subject"]]
    root = thread_root(str(games.get_game(gid).id), "emissary.local")
    assert reply["Subject"] == "[Der Ring · Powers] Erfasst: Mein Zug"  # Gandalf reads German (issue 28 item 4)
    assert reply["In-Reply-To"] == "<zug-1@example.org>" and reply["References"] == f"{root} <zug-1@example.org>"
    assert "Der Ring" in Sink.text(reply) and LINK.search(Sink.text(reply))


def test_a_reminder_goes_once_per_window_and_threshold_however_often_the_sweep_runs(app, games, projector, sink):
    from workers.tasks import sweep

    gid, wiz, bal = powers_game(games)
    dispatch(projector)
    before = len(sink.wait_for(2))
    games.set_deadline(gid, "gm", "s1m1-planning", datetime.now(timezone.utc) + timedelta(minutes=30))
    projector.catch_up()
    threads = [threading.Thread(target=sweep) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for _ in range(3):
        sweep()
    # The GM rolls the game back to the start of Planning and sets the same deadline: the game reminds again (the
    # rollback undid the first), the ledger sends nothing new.
    reminded = [e for e in games.iter_events(gid) if type(e).__name__ == "RemindersQueued"]
    assert len(reminded) == 1
    games.run(Caller.of("gm"), gid, RollBack("the deadline again", phase="s1m1-planning"))
    games.set_deadline(gid, "gm", "s1m1-planning", datetime.now(timezone.utc) + timedelta(minutes=30))
    projector.catch_up()
    for _ in range(3):
        sweep()
    again = [e for e in games.iter_events(gid) if type(e).__name__ == "RemindersQueued"]
    assert len(again) == 2  # the domain queued it twice
    sink.wait_for(before + 2)
    reminders = [m for m in sink.messages if "Reminder" in m["Subject"] or "Erinnerung" in m["Subject"]]
    assert sorted(m["X-Rcpt"] for m in reminders) == ["balrog@example.org", "gandalf@example.org"]
    [de] = [m for m in reminders if m["X-Rcpt"] == "gandalf@example.org"]
    assert de["Subject"].startswith("[Der Ring · Powers] Erinnerung: Saison 1, Monat 1: Planung")
    assert "CET" in de["Subject"] and "Wartet auf dich" in Sink.text(de)


@pytest.mark.parametrize("name", sorted(DRIVERS))
def test_every_ruleset_mails_its_game_and_ruleset_and_each_seat_only_its_own_link(app, games, projector, sink, name):
    driver = DRIVERS[name]
    played = driver.play(games)
    gid, seats = played.game_id, [v for v in played.viewers if v != "gm"]
    for seat in seats:
        games.set_contact(gid, seat, seat, f"{seat}@example.org", "immediate")
        games.reissue_link(gid, "gm", seat)  # the seat's sign-in link: its board link stands while it does
    games.run(Caller.of(seats[0]), gid, SetLanguage(seats[0], "de"))
    games.run(Caller.of(seats[0]), gid, MakePost("table", "Hello, table"))  # every other seat is told
    dispatch(projector)
    sink.wait_for(len(seats) - 1)
    prefix = games.read(gid, subject_prefix)
    links = {s: games.read(gid, lambda g, s=s: board_link(BASE, SECRET, g, s)) for s in seats}
    hidden = driver.hidden(played)
    told = 0
    for seat in seats:
        mails = sink.to(f"{seat}@example.org")
        told += bool(mails)
        for m in mails:
            text = Sink.text(m)
            assert m["Subject"].startswith(f"{prefix} ") and name.capitalize() in m["Subject"]
            assert name.capitalize() in text and prefix[1:].split(" · ")[0] in text
            assert set(LINK.findall(text)) <= {links[seat]}, "a mail carries another seat's link"
            assert "turns+" not in text
            for secret in hidden.get(seat, []):
                assert secret not in text + m["Subject"], f"{seat} was mailed {secret}"
    assert told >= len(seats) - 1
    poster = games.read(gid, lambda g: g.seats[seats[0]].name)
    posts = [m for s in seats[1:] for m in sink.to(f"{s}@example.org") if "Hello, table" in Sink.text(m)]
    assert posts and all(f"{poster} wrote in " in Sink.text(m) for m in posts)  # its author by name
    assert all("Reply to this mail (or write to talk+" in Sink.text(m) for m in posts)  # a reply lands in the thread
    for seat in seats[1:2]:
        assert opened_as(app, links[seat])[0] == seat


def test_the_outbox_keeps_english_whatever_the_language_of_the_request_that_recorded_the_event(games, projector):
    """The projector words what it keeps under English; each mail is worded again for its reader as it is queued."""
    from application.i18n import translations_for
    from domain.platform import i18n

    with i18n.use(translations_for("de")):
        gid, wiz, _ = powers_game(games)
        projector.catch_up()
    texts = [o["body"]["text"] for o in projector.outbox(str(games.get_game(gid).id), wiz)]
    assert "Planning has begun: submit your actions." in texts and not [t for t in texts if "Planung" in t]


def test_a_seat_chooses_the_language_of_its_mail_through_the_api_and_a_bad_tag_records_nothing(app, games, sink):
    gid, _, _ = games.create_game("Der Ring", timezone_name="Europe/Berlin")
    wiz, token, _ = add_power(games, gid, "gm", "Gandalf", "champion", "wizard")
    client, auth = TestClient(app), {"Authorization": f"Bearer {token}"}
    before = games.get_game(gid).version
    refused = client.put(f"/games/{gid}/language", headers=auth, json={"language": "deutsch bitte"})
    assert refused.status_code == 422 and "language" in refused.text
    assert games.get_game(gid).version == before  # nothing recorded
    assert client.put(f"/games/{gid}/language", headers=auth, json={"language": "de"}).status_code == 200
    assert [e.language for e in games.iter_events(gid) if type(e).__name__ == "LanguageSet"] == ["de"]


def test_a_daily_digest_is_framed_and_worded_for_its_reader(app, games, projector, sink):
    from workers.tasks import dispatch_mail

    gid, wiz, _ = powers_game(games)
    games.set_contact(gid, wiz, wiz, "gandalf@example.org", "digest")
    dispatch(projector)
    dispatch_mail(datetime.now(timezone.utc) + timedelta(days=1, minutes=1))
    [digest] = [m for m in sink.wait_for(1) if "gandalf@example.org" in m["X-Rcpt"]]
    assert digest["Subject"].startswith("[Der Ring · Powers] Deine tägliche Zusammenfassung (")
    assert "Die Planung hat begonnen" in Sink.text(digest) and LINK.search(Sink.text(digest))


def test_the_sign_in_mail_names_the_seats_it_opens_in_the_language_the_page_was_asked_in(app, games, sink):
    gid, wiz, _ = powers_game(games)
    client = TestClient(app)
    client.cookies.set("lang", "de")
    page = client.get("/signin").text
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    assert client.post("/signin", data={"email": "gandalf@example.org", "csrf": csrf}).status_code == 200
    [signin] = [m for m in sink.wait_for(1) if "Emissary" in m["Subject"]]
    text = Sink.text(signin)
    assert signin["Subject"] == "Dein Anmeldelink für Emissary"
    assert "Gandalf in Der Ring (Powers)" in text and "Balrog" not in text  # the address's own seat only


def test_a_frame_that_fails_does_not_hold_up_the_mail(settings, projector, sink):
    def broken(item):
        raise KeyError("a frame that fails")

    db = projector.db
    row_id = mail.record(
        db, game_id="g", version=1, recipient="p", address="p@example.org", kind="note", subject="s", body="b"
    )
    assert mail.deliver(db, settings, row_id, frame=broken) == "sent"
    [sent] = sink.wait_for(1)
    assert sent["Subject"] == "s" and Sink.text(sent).strip() == "b"


def test_a_rulesets_notice_names_seats_by_name_when_the_mail_is_worded():
    """Powers' battle notices and the Lodge's scores name seats by their public names (issue 28); the projector's
    English copy, worded without names, keeps the ids."""
    from application.mails import _takes_names
    from domain.lodge.ruleset import notify as lodge_notify
    from domain.powers.notify import notify as powers_notify

    step = {"eligible": ["pow-1", "pow-2"], "battle_id": "b1", "round": 1, "step": "setup"}
    names = {"pow-1": "Gondor", "pow-2": "Mordor", "ann": "Ann"}
    assert powers_notify("BattleStepBegan", step, names)["text"].startswith("Waiting for: Gondor, Mordor.")
    assert "pow-1" in powers_notify("BattleStepBegan", step)["text"]
    scored = {"data": {"room": "Great Hall", "pp": {"ann": 3}}}
    assert lodge_notify("RoomScored", scored, names)["text"] == "Power Points for the rebuilt Great Hall: Ann 3."
    assert _takes_names(powers_notify) and _takes_names(lodge_notify) and not _takes_names(lambda kind, data: None)


def test_a_mail_kept_for_an_address_the_seat_has_left_carries_no_link_that_signs_in_as_the_seat(app, games):
    """The board link signs its follower in as the seat while the seat's link stands: a ledger row kept for an
    address the seat has since left (retried after the seat's contact moved, or a seat taken over) is framed with
    the link that asks its reader to sign in instead, so the previous holder is not handed the seat."""
    from application.mails import Framer

    gid, wiz, bal = powers_game(games)
    key = str(games.get_game(gid).id)
    frame = Framer(games, runtime.settings())
    row = {"game_id": key, "recipient": wiz, "kind": "notification", "subject": "s", "body": "b"}
    assert LINK.findall(frame({**row, "address": "Gandalf@Example.org"}).body)  # the seat's address of now
    games.set_contact(gid, wiz, wiz, "frodo@example.org", "immediate")
    left = frame({**row, "address": "gandalf@example.org"}).body
    assert not LINK.findall(left) and f"{BASE}/me/play/{key}?seat=" in left
    assert LINK.findall(frame({**row, "address": "frodo@example.org"}).body)


def test_a_reminder_sent_before_reminders_were_keyed_by_window_is_not_sent_again_after_a_rebuild(projector):
    """A ledger row of an older release (kind ``reminder``, under the event's version) counts as sent for the
    rebuilt outbox's row of that event (``reminder <window> <hours>``), so a rebuild mails no past reminder."""
    db = projector.db
    mail.record(
        db, game_id="g", version=7, recipient="p", address="p@example.org", kind="reminder", subject="s", body="b"
    )
    with db.transaction() as cur:
        cur.executemany(
            "INSERT INTO rm_outbox (game_id, version, recipient, kind, body, created_at, status) "
            "VALUES (?,?,?,?,?,?,'queued')",
            [
                ("g", 7, "p", "reminder w1 24", "{}", "2026-12-07T00:00:00+00:00"),  # the one it sent
                ("g", 9, "p", "reminder w2 24", "{}", "2026-12-07T00:00:00+00:00"),  # another, never sent
            ],
        )
    assert [(n["version"], n["kind"]) for n in mail.new_notifications(db)] == [(9, "reminder w2 24")]


def test_a_quote_of_a_post_hidden_since_is_replaced_in_the_readers_language_in_the_mail_sent(
    app, games, projector, sink
):
    """Issue 28 items 4 and 7: the Balrog answers a post of his, quoting it; the GM hides the quoted post before the
    answer's mail goes out. Gandalf reads German: his mail of the answer shows the placeholder and its reason in
    German, never the hidden words; the Balrog's, English."""
    from domain.platform.commands import HidePost

    gid, wiz, bal = powers_game(games)
    dispatch(projector)
    before = len(sink.wait_for(2))
    games.run(Caller.of(bal), gid, MakePost("table", "The ring is at SPOILER-WORDS. QUOTED-POST"))
    projector.catch_up()
    key = str(games.get_game(gid).id)
    page, _ = projector.posts.page(key, "gm", "table", limit=50)
    [quoted] = [p["post_id"] for p in page if "QUOTED-POST" in p["text"]]
    games.run(
        Caller.of(bal), gid, MakePost("table", "> The ring is at SPOILER-WORDS. QUOTED-POST\n\nANSWER", reply_to=quoted)
    )
    projector.catch_up()  # the answer's mail is queued with the quote as it stood
    games.run(Caller.of("gm"), gid, HidePost(quoted, "a spoiler"))
    dispatch(projector)
    sink.wait_for(before + 1)
    [german] = [m for m in sink.to("gandalf@example.org") if "ANSWER" in Sink.text(m)]
    assert "SPOILER-WORDS" not in Sink.text(german)
    assert "[Der hier zitierte Beitrag wurde verborgen: a spoiler]" in Sink.text(german), Sink.text(german)
