"""The no-leak property for push (issue 31, item 2; P.4), on every registered ruleset and the fake one: every seat of
a played game subscribes a device to every kind of news from the game's first event, and each device is pushed only
what its seat may see. Checked on what a device reads: each request to the push service stood in on loopback is
decrypted with that device's own keys (``tests.push_service``), and no message carries a text the ruleset's driver
says the seat must not see, nor any text that only events hidden from the seat hold (another seat's, the GM's),
nor a sign-in token. ``test_the_checker_catches_a_planted_leak`` shows the checker fails on a leak."""

from __future__ import annotations

import json
from collections.abc import Iterable

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from api.compose import build_games, build_projector
from application import push
from application.service import Caller
from application.webhooks import PUBLIC_SCOPE
from domain.errors import DomainError
from domain.ids import GM
from domain.platform.commands import MakePost, OpenThread
from projections.settings import Settings
from tests.contract.conftest import RULESETS
from tests.contract.drivers import DRIVERS
from tests.integration.helpers import close_services
from tests.push_service import Device
from tests.scenarios import play_rich_month
from tests.webhook_receiver import Receiver
from workers import runtime

MIN = 8  # shorter strings (a number, "gm", a seat id's part) say nothing of their own


def strings(value: object) -> Iterable[str]:
    """Every string in a payload, its keys' values at any depth."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from strings(v)
    elif isinstance(value, list | tuple):
        for v in value:
            yield from strings(v)


def hidden_from(projector, key: str, seat: str) -> set[str]:
    """The texts of the game's events the seat is not shown that no event it is shown holds (a public event is
    everyone's, a seat seated after it too)."""
    shown, hidden = set(), set()
    rows = projector.db.query("SELECT version, scope, shown_to, data FROM rm_audit WHERE game_id = ?", (key,))
    payloads = projector.stored.of(key, [(r[0], r[3]) for r in rows])  # read from the store (issue 30)
    for version, scope, shown_to, _ in rows:
        found = {s for s in strings(payloads[version]) if len(s) >= MIN}
        (shown if scope == PUBLIC_SCOPE or seat in shown_to.split(",") else hidden).update(found)
    return {s for s in hidden - shown if not s.startswith("{")}


def leaks(messages: list[str], hidden: Iterable[str]) -> list[tuple[str, str]]:
    """(text, message) for each hidden text found in a message."""
    return [(h, m) for m in messages for h in hidden if h and h in m]


@pytest.fixture
def served(tmp_path):
    from workers.app import celery_app

    settings = Settings(data_dir=tmp_path, push_allow_private=True, public_url="https://emissary.example")
    games = build_games(settings)
    projector = build_projector(games, settings)
    runtime.use(games, projector, settings)
    celery_app.conf.task_always_eager = True
    service = Receiver().start()
    try:
        yield games, projector, service
    finally:
        service.stop()
        celery_app.conf.task_always_eager = False
        close_services(games, projector)


def push_everything(games, projector, service, game_id: str, seats: list[str]) -> dict[str, list[str]]:
    """A device per seat, every kind, from the game's first event: what each seat's device decrypts."""
    from workers.tasks import sweep

    projector.catch_up()
    devices = {seat: Device(service.url(f"/push/{i}")) for i, seat in enumerate(seats)}
    for seat, device in devices.items():
        sub = device.subscription(kinds=list(push.KINDS))
        push.subscribe(
            projector.db,
            game_id,
            seat,
            sub["endpoint"],
            sub["keys"]["p256dh"],
            sub["keys"]["auth"],
            "phone",
            sub["kinds"],
            allow_private=True,
            after=0,
        )
    sweep()
    return {
        seat: [json.dumps(device.decrypt(r), ensure_ascii=False) for r in service.requests(f"/push/{i}")]
        for i, (seat, device) in enumerate(devices.items())
    }


def names(games, key: str) -> dict[str, str]:
    return {str(s): getattr(held, "name", str(s)) for s, held in games.get_game(key, for_update=False).seats.items()}


@pytest.mark.parametrize("name", RULESETS)
def test_p_4_no_push_carries_what_its_seat_may_not_see(name, served):
    games, projector, service = served
    driver = DRIVERS[name]
    played = driver.play(games)
    seats = [v for v in played.viewers if v != GM]
    key = str(games.get_game(played.game_id, for_update=False).id)
    marked = False
    try:  # a private thread between the first and last seats, which mentions the last; a mention at the table
        thread = games.run(Caller.of(seats[0]), key, OpenThread([seats[-1]], "Whispers")).result["thread_id"]
        called = names(games, key)[seats[-1]]
        games.run(Caller.of(seats[0]), key, MakePost(thread, f"WHISPERED-MARKER-TEXT for @{called}"))
        games.run(Caller.of(seats[0]), key, MakePost("table", f"TABLE-MARKER-TEXT, @{called}"))
        marked = True
    except DomainError:
        pass
    said = push_everything(games, projector, service, key, seats)
    assert any(said.values()), f"{name}: no push was sent at all, so the check would prove nothing"
    secrets = driver.hidden(played)
    for seat in seats:
        hidden = set(secrets.get(seat, [])) | hidden_from(projector, key, seat)
        if marked and seat not in (seats[0], seats[-1]):
            hidden.add("WHISPERED-MARKER-TEXT")
        assert leaks(said[seat], hidden) == [], (name, seat)
    if marked and len(seats) > 1:
        assert any("WHISPERED-MARKER-TEXT" in m for m in said[seats[-1]])  # its reader is told
        assert any("TABLE-MARKER-TEXT" in m for m in said[seats[-1]])  # mentioned


def test_p_4_a_powers_month_pushes_no_private_action_disclosure_secret_or_token(served):
    games, projector, service = served
    m = play_rich_month(games)
    seats = list(names(games, m.game_id))
    said = push_everything(games, projector, service, m.game_id, seats)
    tokens = [t for t in m.tokens.values() if t]
    for seat in seats:
        assert leaks(said[seat], [*hidden_from(projector, m.game_id, seat), *tokens]) == [], seat
    assert any("PUBLIC-ANNOUNCEMENT" in msg for msgs in said.values() for msg in msgs)  # results are everyone's


def test_the_checker_catches_a_planted_leak(served):
    games, projector, service = served
    m = play_rich_month(games)
    projector.catch_up()
    seats = list(names(games, m.game_id))
    found = {seat: hidden_from(projector, m.game_id, seat) for seat in seats}
    kept_from = [seat for seat in seats if "PRIVATE-CULT-RITE" in found[seat]]
    assert 0 < len(kept_from) < len(seats)  # hidden from some seats, not from the one that holds it
    planted = json.dumps({"title": "G: news", "body": "The GM says: PRIVATE-CULT-RITE"})
    assert leaks([planted], found[kept_from[0]])
