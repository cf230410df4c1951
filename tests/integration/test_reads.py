"""Reads come from read models (DESIGN.md "Reads"): no read request projects or replays, every list is
paginated with a cursor, a page costs the same at any game length, and a client can wait for its own write."""

from __future__ import annotations

import sqlite3
import threading
from collections import Counter
from urllib.parse import parse_qs, urlparse

import pytest
from fastapi.testclient import TestClient

from api.app import create_app
from api.routes.results import BOARD_EVENTS
from api.web.routes import BOARD_FEED, BOARD_PHASES
from application.service import Games, event_data
from domain import visibility as vis
from projections import stored
from projections.projector import Projector
from projections.settings import Settings
from tests.helpers import add_power
from tests.integration.helpers import bearer, close_app
from tests.scenarios import play_rich_month

pytestmark = pytest.mark.integration


def truth(games: Games, game_id: str, viewer: str) -> list[tuple[int, str, dict]]:
    """What ``viewer`` may see, straight from the event store: (version, type, data) in order."""
    return [
        (e.originator_version, type(e).__name__, event_data(e))
        for e in games.events.get(games.get_game(game_id).id)
        if vis.can_see(e.audience, viewer)
    ]


def walk(api: TestClient, path: str, headers: dict, **params) -> tuple[list[dict], int]:
    """Every item of a paginated list, following ``X-Next-After`` (and checking ``Link`` agrees); and how
    many pages it took."""
    items, pages, after = [], 0, None
    while True:
        query = {**params, **({"after": after} if after is not None else {})}
        r = api.get(path, headers=headers, params=query)
        assert r.status_code == 200, r.text
        items.extend(r.json())
        pages += 1
        after = r.headers.get("X-Next-After")
        if after is None:
            assert "Link" not in r.headers
            return items, pages
        link = r.headers["Link"]
        assert link.endswith('>; rel="next"') and parse_qs(urlparse(link[1:-13]).query)["after"] == [after]


@pytest.fixture
def table(store_settings):
    """A rich month, a rollback, a fork and a power who joins late, behind the API."""
    app = create_app(store_settings)
    games = app.state.games
    m = play_rich_month(games)
    games.rollback(m.game_id, "gm", "a ruling was wrong", phase="s1m1-planning")
    late = add_power(games, m.game_id, "gm", "Late", "champion", "dragon")[0]
    fork_id, _ = games.fork(m.game_id, "gm", "What if", phase="s1m1-planning")
    tokens = {who: games.reissue_link(m.game_id, "gm", who)[0] for who in ("gm", *m.powers.values(), late)}
    fork_gm = games.reissue_link(fork_id, "gm", "gm")[0]
    with TestClient(app) as api:
        yield api, games, m, tokens, fork_id, fork_gm
    close_app(app)


def test_cursors_cover_every_visible_event_exactly_once_per_viewer(table):
    """/events and /feed pages, followed by their cursors, give each viewer every event they may see
    exactly once, in order, numbered 1..n, with the same data as the event store (the late power's
    timeline starts with every public event before it)."""
    api, games, m, tokens, fork_id, fork_gm = table
    cases = [(m.game_id, who, token) for who, token in tokens.items()] + [(fork_id, "gm", fork_gm)]
    for game_id, who, token in cases:
        expected = truth(games, game_id, who)
        for path in (f"/games/{game_id}/events", f"/games/{game_id}/feed"):
            items, pages = walk(api, path, bearer(token), limit=7)
            assert pages == -(-len(expected) // 7) and len(expected) > 7, (path, who, pages)
            assert [i["seq"] for i in items] == list(range(1, len(expected) + 1)), (path, who)
            assert [(i["type"], i["data"]) for i in items] == [(t, d) for _, t, d in expected], (path, who)
            if who == "gm":
                assert [i["version"] for i in items] == [v for v, _, _ in expected]
            else:
                assert "version" not in items[0] and "audience" not in items[0]
            # after=N (the parameter clients already send) starts after the viewer's own N-th event
            tail = api.get(path, headers=bearer(token), params={"after": len(expected) - 2}).json()
            assert [i["seq"] for i in tail] == [len(expected) - 1, len(expected)]


def test_audit_and_phase_cursors_cover_every_row_exactly_once(table):
    """The audit (API, each format, and web page) and the phase list page through everything once."""
    api, games, m, tokens, *_ = table
    gm = bearer(tokens["gm"])
    versions = [v for v, _, _ in truth(games, m.game_id, "gm")]
    head = games.get_game(m.game_id).version
    items, pages = walk(api, f"/games/{m.game_id}/audit", gm, limit=9)
    assert [i["version"] for i in items] == list(range(1, head + 1)) and pages == -(-head // 9)
    assert set(versions) <= {i["version"] for i in items}
    for fmt in ("jsonl", "csv"):
        r = api.get(f"/games/{m.game_id}/audit", headers=gm, params={"limit": 9, "format": fmt, "after": 9})
        assert r.headers["X-Next-After"] == "18" and r.status_code == 200
    # A filtered page reads at most `limit` events: it may hold fewer, with a cursor to go on.
    rolls, _ = walk(api, f"/games/{m.game_id}/audit", gm, limit=5, type="DiceRolled", actor=m.powers["wiz"])
    everything = [i for i in items if i["type"] == "DiceRolled" and i["actor"] == m.powers["wiz"]]
    assert rolls == everything and rolls
    # A seat's events (acting, shown or named), asked for as ``seat`` or by its first name ``power``: the same.
    by_seat, _ = walk(api, f"/games/{m.game_id}/audit", gm, limit=50, seat=m.powers["cult"])
    by_power, _ = walk(api, f"/games/{m.game_id}/audit", gm, limit=50, power=m.powers["cult"])
    assert by_seat == by_power and 0 < len(by_seat) < len(items)
    for who in ("gm", m.powers["sov"]):
        phases, pages = walk(api, f"/games/{m.game_id}/phases", bearer(tokens[who]), limit=2)
        expected = games.phases(m.game_id)
        assert [p["phase"] for p in phases] == [p["phase"] for p in expected] and pages == -(-len(expected) // 2)
        assert all(("version" in p) == (who == "gm") for p in phases)


def test_the_audit_page_is_paginated(table):
    """The web audit page shows one page of events with a link to the next, and the pages cover the
    whole log once (it used to be one page of the whole history: 2.9 MB at 10,000 events)."""
    api, games, m, tokens, *_ = table
    api.get(f"/signin/{m.game_id}/{tokens['gm']}")
    head = games.get_game(m.game_id).version
    seen, url, pages = [], f"/play/{m.game_id}/audit?limit=25", 0
    while url:
        r = api.get(url)
        assert r.status_code == 200
        rows = [
            int(cell.split("</td>")[0])
            for cell in r.text.split("<tr")[2:]
            if cell.startswith(("><td>", ' class="superseded"><td>'))
            for cell in [cell.split("<td>", 1)[1]]
        ]
        assert 0 < len(rows) <= 25
        seen.extend(rows)
        pages += 1
        nxt = r.text.split('rel="next"')[0].rsplit('href="', 1)[-1] if 'rel="next"' in r.text else None
        url = f"/play/{m.game_id}/audit{nxt.split(chr(34))[0]}".replace("&amp;", "&") if nxt else None
    assert seen == list(range(1, head + 1)) and pages == -(-head // 25)
    csv = api.get(f"/play/{m.game_id}/audit", params={"format": "csv", "limit": 10})
    assert csv.headers["X-Next-After"] == "10" and len(csv.text.strip().splitlines()) == 11


def test_a_read_request_neither_projects_nor_replays(app, games, monkeypatch):
    """Every read (API lists, export, board, console, audit page) answers with the projector and every
    replay of a game's history made to fail: reads come from the read models and the cached state."""
    m = play_rich_month(games)
    tokens = {who: games.reissue_link(m.game_id, "gm", who)[0] for who in ("gm", m.powers["wiz"])}
    real_get = games.events.get

    def no_replay(originator_id, *args, gt=None, **kwargs):
        if gt is None:
            raise AssertionError("a read replayed the game's history")
        return real_get(originator_id, *args, gt=gt, **kwargs)

    def no_projection(*args, **kwargs):
        raise AssertionError("a read projected")

    with TestClient(app) as api:
        for who, token in tokens.items():
            api.get(f"/games/{m.game_id}/view", headers=bearer(token))  # the game is cached, as in a server
        monkeypatch.setattr(games.events, "get", no_replay)
        monkeypatch.setattr(Games, "iter_events", no_projection)
        monkeypatch.setattr(Projector, "catch_up", no_projection)
        monkeypatch.setattr(Projector, "_one_batch", no_projection)
        for who, token in tokens.items():
            for path in ("events", "feed", "phases", "export", "view"):
                r = api.get(f"/games/{m.game_id}/{path}", headers=bearer(token))
                assert r.status_code == 200 and r.content, (who, path, r.text)
            web = TestClient(app)
            web.get(f"/signin/{m.game_id}/{token}")
            assert web.get(f"/play/{m.game_id}").status_code == 200
            if who == "gm":
                assert web.get(f"/play/{m.game_id}/audit").status_code == 200
        r = api.get(f"/games/{m.game_id}/audit", headers=bearer(tokens["gm"]))
        assert r.status_code == 200 and len(r.json()) > 10


def _long_game_app(tmp_path, events: int):
    from tests.bench import build_long_game

    app = create_app(Settings(data_dir=tmp_path / f"g{events}", embedded_workers=False))
    game = build_long_game(app.state.games, events)
    gid = str(game.id)
    return app, gid, app.state.games.reissue_link(gid, "gm", "c")[0], app.state.games.reissue_link(gid, "gm", "gm")[0]


class Meter:
    """Counts what a request costs: read-model queries, rows and SQLite VM steps; event-store reads and
    the events they return. Never time."""

    def __init__(self, app) -> None:
        self.db, self.games = app.state.projector.db, app.state.games
        self.counts: Counter = Counter()

    def __enter__(self) -> Meter:
        db, games, counts = self.db, self.games, self.counts
        self._query, self._select = db.query, games.recorder.select_events

        def query(sql, params=()):
            rows = self._query(sql, params)
            counts["queries"] += 1
            counts["rows"] += len(rows)
            return rows

        def select_events(*args, **kwargs):
            events = self._select(*args, **kwargs)
            counts["store reads"] += 1
            counts["events read"] += len(events)
            return events

        def step() -> int:
            counts["vm steps"] += 1000
            return 0

        db.query, games.recorder.select_events = query, select_events
        db.conn.set_progress_handler(step, 1000)
        return self

    def __exit__(self, *exc) -> None:
        self.db.query, self.games.recorder.select_events = self._query, self._select
        self.db.conn.set_progress_handler(None, 1000)


def test_a_page_of_a_5000_event_game_costs_what_a_page_of_a_100_event_game_costs(tmp_path):
    """The same requests on a game of 100 events and of 5,000: the same number of queries, rows read and
    events read, and SQLite work within a small factor (counted, never timed)."""
    costs = {}
    for size in (100, 5000):
        app, gid, token, gm_token = _long_game_app(tmp_path, size)
        with TestClient(app) as api, TestClient(app) as web, TestClient(app) as gm_web:
            web.get(f"/signin/{gid}/{token}")
            gm_web.get(f"/signin/{gid}/{gm_token}")
            page = {"after": 2, "limit": 10}
            requests = {
                "events": lambda: api.get(f"/games/{gid}/events", headers=bearer(token), params=page),
                "feed": lambda: api.get(f"/games/{gid}/feed", headers=bearer(token), params=page),
                "gm events": lambda: api.get(f"/games/{gid}/events", headers=bearer(gm_token), params={"limit": 20}),
                "phases": lambda: api.get(
                    f"/games/{gid}/phases", headers=bearer(token), params={"after": 1, "limit": 3}
                ),
                "audit": lambda: api.get(f"/games/{gid}/audit", headers=bearer(gm_token), params={"limit": 20}),
                "board": lambda: web.get(f"/play/{gid}"),
                "console": lambda: gm_web.get(f"/play/{gid}"),
                "audit page": lambda: gm_web.get(f"/play/{gid}/audit", params={"limit": 20}),
            }
            for name, request in requests.items():
                assert request().status_code == 200  # warm: connections, the cached game
                with Meter(app) as meter:
                    assert request().status_code == 200, name
                costs[size, name] = meter.counts
        close_app(app)
    for name in requests:
        small, big = costs[100, name], costs[5000, name]
        assert big["queries"] == small["queries"], (name, small, big)
        if name in ("board", "console"):  # more of its feed to show (bounded below): each a store read at most
            assert big["store reads"] <= small["store reads"] + big["rows"] - small["rows"], (name, small, big)
        else:
            assert big["store reads"] == small["store reads"], (name, small, big)
        # A page's payloads are read from the event store (issue 30: the audit points at it), by a few ranges of
        # its key: the page's events and the short gaps between them, never the game's history.
        for cost in (small, big):
            assert cost["events read"] <= 2 * cost["rows"] + 2 * stored.GAP, (name, small, big)
        if name in ("board", "console"):  # a 100-event game has fewer than a board's page of feed and phases
            # and at most BOARD_EVENTS of the viewer's newest events for the results' "Why?" (issue 29)
            assert small["rows"] < big["rows"] <= BOARD_FEED + BOARD_PHASES + BOARD_EVENTS + 20, (name, small, big)
        elif name == "audit page":  # its phase filter offers the latest BOARD_PHASES phases, as the board shows
            assert small["rows"] < big["rows"] <= small["rows"] + BOARD_PHASES, (name, small, big)
        else:
            assert big["rows"] == small["rows"], (name, small, big)
        assert big["vm steps"] <= 1.5 * small["vm steps"] + 5000, (name, small, big)


def test_a_read_right_after_a_write_sees_it_in_the_embedded_default(tmp_path):
    """Embedded (the default): the process that records a command brings the read models up to date
    before it answers, so the receipt's sequence is already the last item of /events and of the feed."""
    app = create_app(Settings(data_dir=tmp_path))
    with TestClient(app) as api:
        gid = api.post("/games", json={"name": "Now"}).json()
        token, game_id = gid["gm_token"], gid["game_id"]
        for name in ("A", "B", "C"):
            receipt = api.post(
                f"/games/{game_id}/powers",
                headers=bearer(token),
                json={"name": name, "cls": "champion", "subclass": "wizard"},
            ).json()["receipt"]
            for path in ("events", "feed"):
                page = api.get(f"/games/{game_id}/{path}", headers=bearer(token)).json()
                assert page[-1]["seq"] == receipt["sequence"] and page[-1]["type"] == "PowerAdded", path


def test_wait_for_waits_for_the_projector_or_says_the_read_is_lagging(tmp_path):
    """With a projection runner (read_models_sync off), reads may lag: ``wait_for=<receipt sequence>``
    waits for the runner, and answers 202 with ``X-Lagging: true`` if it does not catch up in time."""
    settings = Settings(data_dir=tmp_path, read_models_sync=False, read_wait_seconds=0.3)
    app = create_app(settings)
    projector = app.state.projector
    with TestClient(app) as api:
        created = api.post("/games", json={"name": "Later"}).json()
        token, game_id = created["gm_token"], created["game_id"]
        receipt = api.post(
            f"/games/{game_id}/powers",
            headers=bearer(token),
            json={"name": "A", "cls": "champion", "subclass": "wizard"},
        ).json()["receipt"]
        wait = {"wait_for": receipt["sequence"]}
        assert api.get(f"/games/{game_id}/events", headers=bearer(token)).json() == []  # not projected yet
        r = api.get(f"/games/{game_id}/events", headers=bearer(token), params=wait)
        assert r.status_code == 202 and r.headers["X-Lagging"] == "true" and r.json() == []
        runner = threading.Timer(0.1, projector.catch_up)
        runner.start()
        try:
            settings.read_wait_seconds = 5
            r = api.get(f"/games/{game_id}/feed", headers=bearer(token), params=wait)
        finally:
            runner.cancel()
            runner.join()
        assert r.status_code == 200 and "X-Lagging" not in r.headers
        assert r.json()[-1]["seq"] == receipt["sequence"] and r.json()[-1]["type"] == "PowerAdded"


def test_rm_timeline_pages_use_the_index(tmp_path):
    """A page of a timeline is a range of the (game, viewer, seq) key, not a scan of the game."""
    app = create_app(Settings(data_dir=tmp_path))
    db = app.state.projector.db
    plan = db.conn.execute(
        "EXPLAIN QUERY PLAN SELECT t.seq FROM rm_timeline t JOIN rm_audit a ON a.game_id = t.game_id "
        "AND a.version = t.version WHERE t.game_id = ? AND t.viewer = ? AND t.seq > ? ORDER BY t.seq LIMIT ?",
        ("g", "gm", 0, 10),
    ).fetchall()
    detail = " ".join(str(row[-1]) for row in plan)
    assert "SEARCH t USING PRIMARY KEY (game_id=? AND viewer=? AND seq>?)" in detail, detail
    assert "SCAN" not in detail and "TEMP B-TREE" not in detail, detail
    assert isinstance(db.conn, sqlite3.Connection)
    close_app(app)


def test_production_leaves_the_read_models_to_its_projector_unless_told_otherwise():
    """EMISSARY_READ_MODELS_SYNC: on by default where nothing else projects, off in production (the projector
    service keeps them; API processes projecting too would serialise every command on its lock)."""
    prod = dict(
        env="production",
        database_url="postgresql://u:p@db/emissary",
        secret_key="s" * 40,
        inbound_key="i" * 24,
        public_url="https://emissary.example",
        ratelimit_storage_url="redis://r:6379/1",
    )
    assert Settings().syncs_read_models is True
    assert Settings(**prod).syncs_read_models is False
    assert Settings(**prod, read_models_sync=True).syncs_read_models is True
    assert Settings(read_models_sync=False).syncs_read_models is False
