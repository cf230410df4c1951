"""The no-leak property for webhooks (issue 31, item 1; P.4), on every registered ruleset and the fake one: a game's
webhooks, asking for every kind of news in every format from the game's first event, are sent only what an
observer may see. Checked three ways against a real receiver on loopback: no body carries a text the ruleset's
driver says some seat must not see, nor any text that only a restricted event holds (the GM's, or some seats'),
nor a seat's sign-in token; and every delivery is of an event every seat is shown (or a reminder of a publicly
opened window). ``test_the_checker_catches_a_planted_leak`` shows the checker fails on a leak."""

from __future__ import annotations

import json
from collections.abc import Iterable

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from api.compose import build_games, build_projector
from application import webhooks
from application.service import Caller
from domain.errors import DomainError
from domain.ids import GM
from domain.platform.commands import MakePost, OpenThread
from projections.settings import Settings
from tests.contract.conftest import RULESETS
from tests.contract.drivers import DRIVERS
from tests.integration.helpers import close_services
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


def restricted_only(projector, key: str) -> set[str]:
    """The texts of the game's restricted events (the GM's, or some seats') that no public event holds (each
    event's payload read from the store, where the audit points: issue 30)."""
    public, hidden = set(), set()
    rows = projector.db.query("SELECT version, scope, data FROM rm_audit WHERE game_id = ?", (key,))
    payloads = projector.stored.of(key, [(r[0], r[2]) for r in rows])
    for version, scope, _ in rows:
        found = {s for s in strings(payloads[version]) if len(s) >= MIN}
        (public if scope == webhooks.PUBLIC_SCOPE else hidden).update(found)
    return {s for s in hidden - public if not s.startswith("{")}


def leaks(bodies: list[str], hidden: Iterable[str]) -> list[tuple[str, str]]:
    """(text, body) for each hidden text found in a body."""
    return [(h, b) for b in bodies for h in hidden if h and h in b]


@pytest.fixture
def served(tmp_path):
    from workers.app import celery_app

    settings = Settings(data_dir=tmp_path, webhooks_allow_private=True, public_url="https://emissary.example")
    games = build_games(settings)
    projector = build_projector(games, settings)
    runtime.use(games, projector, settings)
    celery_app.conf.task_always_eager = True
    receiver = Receiver().start()
    try:
        yield games, projector, receiver
    finally:
        receiver.stop()
        celery_app.conf.task_always_eager = False
        close_services(games, projector)


def deliver_everything(games, projector, receiver, game_id: str) -> list[str]:
    """Every format's webhook on the game, every kind, from its first event; the bodies they were sent."""
    from workers.tasks import sweep

    projector.catch_up()
    for fmt in webhooks.FORMATS:
        webhooks.add(
            projector.db, game_id, GM, receiver.url(f"/{fmt}"), fmt, list(webhooks.KINDS), allow_private=True, after=0
        )
    sweep()
    return [r["raw"].decode() for r in receiver.got]


def observer_only(projector, key: str) -> None:
    """Every delivery is of an event every seat is shown, or of a reminder of a window opened in public."""
    for row in webhooks.deliveries(projector.db, key, limit=10_000):
        ((kind, scope),) = projector.db.query(
            "SELECT type, scope FROM rm_audit WHERE game_id = ? AND version = ?", (key, row["version"])
        )
        assert scope == webhooks.PUBLIC_SCOPE or kind == "RemindersQueued", (kind, row)


@pytest.mark.parametrize("name", RULESETS)
def test_p_4_no_webhook_body_carries_what_an_observer_may_not_see(name, served):
    games, projector, receiver = served
    driver = DRIVERS[name]
    played = driver.play(games)
    seats = [v for v in played.viewers if v != GM]
    key = str(games.get_game(played.game_id, for_update=False).id)
    marked = False
    try:  # a private thread's post, and a post at the table, where the ruleset's seats may post
        thread = games.run(Caller.of(seats[0]), key, OpenThread([seats[-1]], "Whispers")).result["thread_id"]
        games.run(Caller.of(seats[0]), key, MakePost(thread, "WHISPERED-MARKER-TEXT"))
        games.run(Caller.of(seats[0]), key, MakePost("table", "TABLE-MARKER-TEXT"))
        marked = True
    except DomainError:
        pass
    bodies = deliver_everything(games, projector, receiver, key)
    assert bodies, f"{name}: no webhook was sent at all, so the check would prove nothing"
    hidden = {h for viewer, texts in driver.hidden(played).items() if viewer != GM for h in texts}
    hidden |= restricted_only(projector, key) | {"WHISPERED-MARKER-TEXT"}
    assert leaks(bodies, hidden) == []
    observer_only(projector, key)
    if marked:
        assert any("TABLE-MARKER-TEXT" in b for b in bodies)


def test_p_4_a_powers_month_sends_no_private_action_disclosure_secret_or_token(served):
    games, projector, receiver = served
    m = play_rich_month(games)
    bodies = deliver_everything(games, projector, receiver, m.game_id)
    private = ["PRIVATE-WIZ-DUEL", "PRIVATE-CIRC-PLOT", "PRIVATE-CULT-RITE", "DESC-WIZ", "DESC-CIRC"]
    private += ["SECRET-ASSET-CIRC", "DISCLOSED-CIRC-TO-SOV", "SEEKING-FOUND-CULT-SHRINE", "CONSEQUENCE-CIRC"]
    assert leaks(bodies, [*private, *(t for t in m.tokens.values() if t)]) == []
    assert any("PUBLIC-ANNOUNCEMENT" in b for b in bodies)  # the published resolution is everyone's
    assert {json.loads(b)["event"] for b in receiver_bodies(receiver, "/json")} >= {"phase", "results"}
    observer_only(projector, m.game_id)


def receiver_bodies(receiver: Receiver, path: str) -> list[str]:
    return [r["raw"].decode() for r in receiver.requests(path)]


def test_the_checker_catches_a_planted_leak(served):
    games, projector, receiver = served
    m = play_rich_month(games)
    hidden = restricted_only(projector, m.game_id) if projector.catch_up() >= 0 else set()
    assert "PRIVATE-CULT-RITE" in hidden and "PUBLIC-ANNOUNCEMENT" not in hidden
    planted = json.dumps({"text": "The GM says: PRIVATE-CULT-RITE"})
    assert leaks([planted], hidden)
