"""Preferences hold and digests leak nothing (issue 31, item 3; P.4), on every registered ruleset and the fake one.

Each seat of a played game (the ruleset's driver, plus a private thread's post and a post at the table where its
seats may post) gets its mail through the worker path every mail takes, over real SMTP to a local sink: one seat
turned every kind off and is sent nothing; every other seat wants every kind in the daily digest, is sent nothing
at once, and then one digest, which carries no text the driver says that seat must not see, no text only events
hidden from that seat hold (another seat's, or the GM's), and no other seat's private post.
``test_the_checker_catches_a_planted_leak`` shows the check fails on a leak."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta, timezone

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from api.compose import build_games, build_projector
from application.service import Caller
from domain import visibility as vis
from domain.errors import DomainError
from domain.ids import GM
from domain.platform.commands import MakePost, OpenThread, SetNotifications
from domain.platform.notifications import KINDS
from projections.settings import Settings
from tests.contract.conftest import RULESETS
from tests.contract.drivers import DRIVERS
from tests.integration.helpers import close_services
from tests.mail.sink import Sink
from workers import runtime

MIN = 8  # shorter strings (a number, "gm", a seat id's part) say nothing of their own
EVERYTHING = {k: "digest" for k in KINDS}
NOTHING = {k: "off" for k in KINDS}


def strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings(v)


def hidden_from(projector, key: str, seat: str) -> set[str]:
    """The texts of the game's events this seat may not see that no event it may see holds (each event's payload
    read from the store, where the audit points: issue 30)."""
    seen, unseen = set(), set()
    rows = projector.db.query("SELECT version, audience, data FROM rm_audit WHERE game_id = ?", (key,))
    payloads = projector.stored.of(key, [(r[0], r[2]) for r in rows])
    for version, audience, _ in rows:
        found = {s for s in strings(payloads[version]) if len(s) >= MIN}
        (seen if vis.can_see(audience.split(","), seat) else unseen).update(found)
    return {s for s in unseen - seen if not s.startswith("{")}


def leaks(bodies: Iterable[str], hidden: Iterable[str]) -> list[tuple[str, str]]:
    return [(h, b[:200]) for b in bodies for h in hidden if h and h in b]


@pytest.fixture
def served(tmp_path, sink):
    from workers.app import celery_app

    settings = Settings(data_dir=tmp_path, smtp_port=sink.port, public_url="https://emissary.example")
    games = build_games(settings)
    projector = build_projector(games, settings)
    runtime.use(games, projector, settings)
    celery_app.conf.task_always_eager = True
    try:
        yield games, projector
    finally:
        celery_app.conf.task_always_eager = False
        close_services(games, projector)


def address(seat: str) -> str:
    return f"seat-{''.join(c for c in seat if c.isalnum()).lower()}@example.org"


@pytest.mark.parametrize("name", RULESETS)
def test_p_4_preferences_hold_and_no_digest_carries_what_its_reader_may_not_see(name, served, sink):
    from workers.tasks import dispatch_mail

    games, projector = served
    driver = DRIVERS[name]
    played = driver.play(games)
    seats = [v for v in played.viewers if v != GM]
    key = str(games.get_game(played.game_id, for_update=False).id)
    try:  # a private thread's post, and a post at the table, where the ruleset's seats may post
        thread = games.run(Caller.of(seats[0]), key, OpenThread([seats[-1]], "Whispers")).result["thread_id"]
        games.run(Caller.of(seats[0]), key, MakePost(thread, "WHISPERED-MARKER-TEXT"))
        games.run(Caller.of(seats[0]), key, MakePost("table", "TABLE-MARKER-TEXT"))
    except DomainError:
        pass
    silent, readers = seats[0], seats[1:]
    for seat in seats:
        games.set_contact(key, seat, seat, address(seat), "immediate")
        chosen = NOTHING if seat == silent else EVERYTHING
        games.run(Caller.of(seat), key, SetNotifications(seat, mail=chosen, push=chosen))
    projector.catch_up()
    now = datetime.now(timezone.utc)
    dispatch_mail(now)
    assert sink.messages == [], f"{name}: a mail went at once to a seat that wants only the digest or nothing"
    dispatch_mail(now + timedelta(days=1, minutes=1))
    got = sink.wait_for(1) if readers else []
    assert sink.to(address(silent)) == [], f"{name}: a seat that turned every kind off was mailed"
    digests = {seat: [Sink.text(m) for m in sink.to(address(seat))] for seat in readers}
    assert got and any(digests.values()), f"{name}: no digest went at all, so the check would prove nothing"
    told = driver.hidden(played)
    for seat, bodies in digests.items():
        assert len(bodies) <= 1, f"{name}: {seat} got more than its one daily digest"
        hidden = set(told.get(seat, [])) | hidden_from(projector, key, seat)
        if seat != seats[-1]:
            hidden.add("WHISPERED-MARKER-TEXT")
        assert leaks(bodies, hidden) == [], f"{name}: {seat}'s digest"


def test_the_checker_catches_a_planted_leak(served):
    games, projector = served
    driver = DRIVERS["powers"]
    played = driver.play(games)
    projector.catch_up()
    key = str(games.get_game(played.game_id, for_update=False).id)
    wiz = played.viewers[1]
    hidden = hidden_from(projector, key, wiz)
    assert "PRIVATE-CULT-RITE" in hidden  # the cult's private action, which the wizard may not see
    assert "PRIVATE-WIZ-DUEL" not in hidden  # the wizard's own
    assert leaks(["Your daily digest\nThe GM says: PRIVATE-CULT-RITE"], hidden)
