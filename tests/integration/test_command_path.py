"""One command path (issue 11, DESIGN "Commands"): the JSON API, the web forms, the mail intake and the
workers build the same typed commands and send them through one service entry point, ``Games.run``,
with an explicit ``Caller``; a mail's turn is one transaction through the same service."""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.mail_intake import MailIntake
from application.service import SYSTEM_CALLER, Caller, Games, event_data, hash_token
from domain.errors import Forbidden, NotFound, Unauthorized
from domain.platform.commands import CloseDueWindow, DeclareReady
from domain.powers import commands as pc
from domain.powers.commands import SubmitAction
from tests.helpers import add_power
from tests.integration.helpers import bearer, close_app

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 11, 30, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def app(store_settings):
    app = create_app(store_settings)
    games = app.state.games
    games.clock = lambda: NOW  # the same time and entropy on every channel: the events differ only in ids
    games.entropy = lambda n: "5a" * n
    yield app
    close_app(app)


def planning(games: Games, name: str) -> tuple[str, str, str]:
    """A game in month 1 Planning with one power: (game id, power id, its token)."""
    gid, _, _ = games.create_game(name)
    pid, token, _ = add_power(games, gid, "gm", "Gondor", "city", "sovereign")
    add_power(games, gid, "gm", "Mordor", "city", "overlord")
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Advance())
    return gid, pid, token


def recorded_after(games: Games, gid: str, version: int) -> list[tuple[str, str, dict]]:
    """(type, actor, data) of the events recorded after ``version``, each id of the game's making masked."""
    out = []
    ids: dict[str, str] = {}
    for e in games.iter_events(gid):
        if e.originator_version <= version:
            continue
        data = {k: v for k, v in event_data(e).items() if k != "digest"}  # a digest hashes the action's id
        for k, v in data.items():
            if isinstance(v, str) and re.fullmatch(r"(act|rx|ext|csq)-[0-9a-f]{10}", v):
                data[k] = ids.setdefault(v, f"<{v.split('-')[0]} {len(ids) + 1}>")
        out.append((type(e).__name__, e.actor, data))
    return out


def test_an_action_and_ready_sent_by_api_web_form_and_mail_record_the_same_events(app, games):
    client = TestClient(app)
    channels = {}

    gid, pid, token = planning(games, "By API")
    before = games.get_game(gid).version
    r = client.post(
        f"/games/{gid}/actions",
        headers=bearer(token),
        json={"title": "Scout the pass", "slot": "public", "roll": False},
    )
    assert r.status_code == 201, r.text
    assert client.post(f"/games/{gid}/ready", headers=bearer(token), json={}).status_code == 200
    channels["api"] = recorded_after(games, gid, before)

    gid, pid, token = planning(games, "By web form")
    before = games.get_game(gid).version
    browser = TestClient(app)
    assert browser.get(f"/signin/{gid}/{token}", follow_redirects=False).status_code == 303
    csrf = re.search(r'name="csrf" value="([^"]+)"', browser.get(f"/play/{gid}").text).group(1)
    r = browser.post(
        f"/play/{gid}/submit",
        data={"title": "Scout the pass", "slot": "public", "propose": "on", "csrf": csrf},
        follow_redirects=False,
    )
    assert r.status_code == 303
    browser.post(f"/play/{gid}/ready", data={"csrf": csrf}, follow_redirects=False)
    channels["web"] = recorded_after(games, gid, before)

    gid, pid, token = planning(games, "By mail")
    before = games.get_game(gid).version
    intake = MailIntake(games)
    reply = intake.receive(
        intake.address_for(gid, token), "<turn-1@x>", "action: Scout the pass\n  slot: public\n  propose: yes\nready\n"
    )
    assert reply.accepted, reply.body
    channels["mail"] = recorded_after(games, gid, before)

    types = [t for t, _, _ in channels["api"]]
    assert "ActionSubmitted" in types and "ReadyDeclared" in types
    assert channels["web"] == channels["api"]
    assert channels["mail"] == channels["api"]


def test_run_many_is_one_transaction_a_refused_later_command_records_nothing_of_the_earlier_ones():
    games = Games()
    gid, pid, token = planning(games, "Many")
    before = games.get_game(gid).version
    caller = Caller.of(pid, hash_token(token))
    with pytest.raises(NotFound) as err:
        games.run_many(
            caller, gid, [SubmitAction(power_id=pid, title="Scout", slot="public", roll=False), DeclareReady("nobody")]
        )
    assert err.value.field == "power" and "nobody" in err.value.message
    assert games.get_game(gid).version == before
    scout = SubmitAction(power_id=pid, title="Scout", slot="public", roll=False)
    receipt = games.run_many(caller, gid, [scout, DeclareReady(pid)])
    assert receipt.result["results"][0]["status"] == "proposed" and receipt.result["results"][1] == {}
    assert receipt.events == ["ActionSubmitted", "ReadyDeclared"]


def test_mail_1_a_refused_later_line_records_nothing_of_the_earlier_ones():
    games = Games()
    gid, pid, token = planning(games, "Mail")
    before = games.get_game(gid).version
    intake = MailIntake(games)
    reply = intake.receive(
        intake.address_for(gid, token),
        "<two@x>",
        "action: Scout the pass\n  slot: public\n  propose: yes\nready\ntimezone Mars/Base\n",
    )
    assert not reply.accepted and "line 5: 'Mars/Base' is not an IANA time zone" in reply.body
    assert games.get_game(gid).version == before


def test_the_callers_token_is_checked_against_the_state_its_command_runs_on():
    games = Games()
    gid, pid, token = planning(games, "Token")
    old = Caller.of(pid, hash_token(token))
    games.reissue_link(gid, "gm", pid)
    with pytest.raises(Unauthorized) as err:
        games.run(old, gid, DeclareReady(pid))
    assert err.value.field == "authorization"
    assert not [e for e in games.iter_events(gid) if type(e).__name__ == "ReadyDeclared"]


def test_only_the_services_workers_send_system_commands():
    games = Games()
    gid, _, _ = planning(games, "System")
    window = games.view(gid, "gm")["windows"][0]["window_id"]
    with pytest.raises(Forbidden) as err:
        games.run(Caller.of("gm"), gid, CloseDueWindow(window))
    assert err.value.field == "command"
    assert games.run(SYSTEM_CALLER, gid, CloseDueWindow(window)).result == {"closed": False}  # not due yet


SERVICE = ROOT / "api" / "service.py"  # the service itself, whose private members these are
CHANNELS = [
    *sorted(p for p in (ROOT / "api").rglob("*.py") if p != SERVICE),
    *sorted((ROOT / "workers").rglob("*.py")),
]
PRIVATE = re.compile(
    r"\b(?:games\(\)|games|self\.games|service)\._[a-z]\w*|\._(?:run|read|receipt|roller|cached|lock|"
    r"evict|action_result|own_action)\("
)


def test_no_channel_reaches_into_the_services_private_members():
    """The API routes, web forms, mail intake and workers call the service's public API (``run`` and the
    reads), never ``games._run``, ``games._read`` or other private members."""
    found = [
        f"{path.relative_to(ROOT)}:{n}: {line.strip()}"
        for path in CHANNELS
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if PRIVATE.search(line)
    ]
    assert found == []


def test_authorization_is_an_explicit_caller_not_a_context_variable():
    paths = [
        *CHANNELS,
        *sorted((ROOT / "application").rglob("*.py")),
        *sorted((ROOT / "projections").rglob("*.py")),
        *sorted((ROOT / "domain").rglob("*.py")),
    ]
    found = {str(p.relative_to(ROOT)) for p in paths if re.search(r"ContextVar", p.read_text())}
    # The context variables say how to word or log, never who calls: the reader's language (issue 17), the request's
    # and its game's id on each log line and the ruleset a command's metrics are labelled with (issue 27), and the
    # revisions a migration applied (to report them). (api.deps copies the request's context into the thread a
    # command runs in: that declares no variable.)
    words = {"api/web/i18n.py", "domain/platform/i18n.py"}
    told = {"projections/logs.py", "application/metrics.py", "projections/migrations/__init__.py"}
    assert sorted(found - words - told) == []
    for name in words:
        assert not re.search(r"principal|Caller|authori[sz]", (ROOT / name).read_text(), re.I), name
    declared = [
        v for name in found for v in re.findall(r"ContextVar(?:\[[^\]]*\])?\(\s*\"(\w+)\"", (ROOT / name).read_text())
    ]
    assert len(declared) >= len(found), declared
    assert not [v for v in declared if re.search(r"principal|caller|auth|token|seat|session", v, re.I)], declared


def test_a_gm_link_replaced_by_another_process_cannot_roll_back_here(tmp_path):
    """The rollback and fork routes call the service's convenience methods: their caller is authenticated
    against the store's latest state, so a GM link replaced by another process stops at once."""
    from api.compose import build_games
    from projections.settings import Settings

    settings = Settings(data_dir=tmp_path)
    app = create_app(settings)
    try:
        with TestClient(app) as api:
            games = app.state.games
            gid, gm, _ = games.create_game("Two processes")
            add_power(games, gid, "gm", "Gondor", "city", "sovereign")
            games.send(gid, "gm", pc.Advance())
            version = games.get_game(gid).version
            assert api.get(f"/games/{gid}/view", headers=bearer(gm)).status_code == 200  # the GM is cached here
            other = build_games(settings)
            try:
                other.reissue_link(gid, "gm", "gm")
            finally:
                other.close()
            r = api.post(f"/games/{gid}/rollback", headers=bearer(gm), json={"reason": "oops", "phase": "setup"})
            assert r.status_code == 401 and r.json()["field"] == "authorization"
            r = api.post(f"/games/{gid}/advance", headers=bearer(gm), json={"expected_step": "tidings"})
            assert r.status_code == 401 and r.json()["field"] == "authorization"
            assert games.get_game(gid).version == version + 2  # only the reissue (revoked, issued) by the other
    finally:
        close_app(app)


def test_the_close_window_worker_runs_close_due_window_as_system_once(games, projector, settings):
    from datetime import timedelta

    from workers import runtime, tasks

    gid, _, _ = planning(games, "Worker")
    window = games.view(gid, "gm")["windows"][0]["window_id"]
    saved = dict(runtime._state)
    runtime.use(games, projector, settings)
    try:
        assert tasks.close_window(gid, window) is False  # not due yet: nothing recorded
        games.clock = lambda: NOW + timedelta(days=60)
        assert tasks.close_window(gid, window) is True
        assert tasks.close_window(gid, window) is False  # run twice: closed once
    finally:
        runtime._state.clear()
        runtime._state.update(saved)
    closes = [e for e in games.iter_events(gid) if type(e).__name__ in ("WindowClosed", "PlanningClosed")]
    assert len(closes) == 1 and closes[0].actor == "system"


def test_the_service_and_the_store_it_extends_share_one_store(store_settings):
    """The command service (with each ruleset's commands mixed in) subclasses the store the projector and
    the migrations use; the library names an application's tables and settings after its class, so every
    subclass keeps the store's name, or a game recorded through one would be missing from the other."""
    from api.compose import build_games
    from projections.gamestore import GameStore

    games = build_games(store_settings)
    try:
        gid, _, _ = games.create_game("Shared")
    finally:
        games.close()
    store = GameStore(env=store_settings.eventsourcing_env())
    try:
        assert type(games).name == GameStore.name
        assert store.view(gid, "gm")["game"]["name"] == "Shared"
    finally:
        store.close()


def test_an_api_command_runs_in_one_of_the_services_threads_in_the_requests_language(app, monkeypatch, games):
    """A command route hops once, to ``Games.threads`` (api.deps.Sender), carrying the request's context: the
    command sees the language the request asked for; closing the service shuts those threads."""
    import threading

    from domain.platform import i18n

    seen: list[tuple[str, str]] = []
    run = type(games).run

    def spy(self, *args, **kwargs):
        seen.append((threading.current_thread().name, i18n._("Language")))
        return run(self, *args, **kwargs)

    gid, _, token = planning(games, "threads")
    monkeypatch.setattr(type(games), "run", spy)
    with TestClient(app) as client:
        r = client.post(
            f"/games/{gid}/actions",
            headers={**bearer(token), "Accept-Language": "de"},
            json={"title": "Scout the pass", "slot": "public", "roll": False},
        )
    assert r.status_code == 201, r.text
    assert seen == [(seen[0][0], "Sprache")]  # the German catalog's word, not the English one
    assert seen[0][0].startswith("emissary-command")
    games.close()
    assert games.threads._shutdown


def test_the_command_threads_are_as_many_as_the_setting_says(tmp_path):
    """EMISSARY_COMMAND_THREADS sizes ``Games.threads``: at most that many commands of one process at once."""
    from api.compose import build_games
    from projections.settings import Settings

    games = build_games(Settings(data_dir=tmp_path, command_threads=3))
    try:
        assert games.threads._max_workers == 3
    finally:
        games.close()
    assert Settings(data_dir=tmp_path).command_threads == 32


def test_a_seat_is_sent_as_seat_and_its_old_name_power_id_is_still_accepted(app, games):
    """The platform's commands and bodies name the caller's seat ``seat``; ``power_id`` (their old name) still
    works in a JSON body and in ``/commands``' args, and either names the seat acted for (another's is refused)."""
    client = TestClient(app)
    sent = [
        ("/ready", {"seat": None}),
        ("/ready", {"power_id": None}),
        ("/commands", {"command": "DeclareReady", "args": {"seat": None}}),
        ("/commands", {"command": "DeclareReady", "args": {"power_id": None}}),
    ]
    for n, (path, body) in enumerate(sent):
        gid, pid, token = planning(games, f"Seat {n}")
        before = games.get_game(gid).version
        fill = body.get("args", body)
        fill.update({k: pid for k in fill})
        r = client.post(f"/games/{gid}{path}", headers=bearer(token), json=body)
        assert r.status_code in (200, 201), (path, body, r.text)
        ready = [d for t, _, d in recorded_after(games, gid, before) if t == "ReadyDeclared"]
        assert [d["seat"] for d in ready] == [pid], (path, body)
        fill.update({k: "gm" for k in fill})
        refused = client.post(f"/games/{gid}{path}", headers=bearer(token), json=body)
        assert refused.status_code in (403, 404, 422), (path, body, refused.text)
