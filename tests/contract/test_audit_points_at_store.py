"""The audit points at the event store (issue 30), for every registered ruleset and the fake one: the audit keeps no
copy of each event's JSON (only the kinds SQL reads across games, ``projections.stored.KEPT``, and a sealed event's
mark), its readers read the payload from the store, and every answer the read models give (the GM's audit a page of
100 at a time, keyset forwards and back, with each filter; every viewer's timeline, an observer's too, whole and by
pages; the newest of each type; phases and outbox) is the same after a rebuild as it was projected event by event, on
a game played by the ruleset's driver, rolled back and played on, and forked. Hidden information (P-VIS): no viewer's
timeline lists an event it may not see, or carries a sealed event's payload, or another payload than the store's.
"""

from __future__ import annotations

import json
import uuid

import pytest

import domain.rulesets  # noqa: F401  (registers the installed rulesets)
from application.service import Games
from domain import visibility as vis
from domain.ids import GM
from domain.platform import ruleset as registry
from projections import stored
from projections.db import ReadModelDB
from projections.projector import ENVELOPE, Projector
from projections.settings import Settings
from tests.contract.drivers import DRIVERS

PAGE = 100  # the GM's audit page
OBSERVER = vis.observer("someone")  # an invited observer: the public events only


def opened(settings: Settings) -> tuple[Games, Projector]:
    games = Games(env={k: v for k, v in settings.eventsourcing_env().items() if not k.startswith("AGGREGATE_CACHE")})
    return games, Projector(games, ReadModelDB(settings))


@pytest.fixture
def store(store_settings):
    """Each real store (SQLite files, and PostgreSQL), with its projector."""
    games, projector = opened(store_settings)
    yield games, projector
    projector.db.close()
    games.close()


def played_long(games: Games, projector: Projector, name: str) -> list[str]:
    """The ruleset's game played by its driver, rolled back to its rollback phase and played on (the driver's
    play once more, in a game of its own), and forked: the game ids, projected as they went."""
    driver = DRIVERS[name]
    played = driver.play(games)
    projector.catch_up()
    games.rollback(played.game_id, GM, "the audit contract rolls back", phase=driver.rollback_phase)
    projector.catch_up()
    fork_id, _ = games.fork(played.game_id, GM, "audit contract fork", phase=driver.fork_phase)
    again = driver.play(games)
    projector.catch_up()
    return [played.game_id, str(fork_id), again.game_id]


def viewers(games: Games, game_id: str) -> list[str]:
    seats = sorted(str(s) for s in games.get_game(game_id, for_update=False).seats)
    return [GM, *seats, OBSERVER]


def audit_answers(projector: Projector, game_id: str, seats: list[str]) -> dict:
    """Every audit answer: its pages of ``PAGE`` forwards (each page's cursor back too), for no filter and for each
    type, actor, phase and seat the game has; the newest of each type."""
    whole = projector.audit(game_id)
    out: dict = {"whole": whole}
    filters: list[dict] = [{}]
    filters += [{"event_type": t} for t in sorted({i["type"] for i in whole})]
    filters += [{"actor": a} for a in sorted({i["actor"] for i in whole})]
    filters += [{"phase": p} for p in sorted({i["phase"] for i in whole})]
    filters += [{"seat": s} for s in seats]
    for f in filters:
        pages, after = [], 0
        while after is not None:
            rows, nxt = projector.audit_page(game_id, after=after, limit=PAGE, **f)
            back = projector.audit_page_before(
                game_id, after=after, limit=PAGE, **{k: v for k, v in f.items() if k != "seat"}
            )
            pages.append((after, back, rows, nxt))
            after = nxt
        out[json.dumps(f)] = pages
    out["latest"] = {t: projector.latest_of_type(game_id, t, 5) for t in sorted({i["type"] for i in whole})}
    return out


def timeline_answers(projector: Projector, game_id: str, who: list[str]) -> dict:
    """Each viewer's timeline whole, by pages of 7 forwards, and newest first before a number."""
    out = {}
    for v in who:
        whole = projector.timeline(game_id, v, 0, 100_000)
        pages, after = [], 0
        while True:
            page = projector.timeline(game_id, v, after, 7)
            if not page:
                break
            pages.append(page)
            after = page[-1]["seq"]
        newest = projector.timeline(game_id, v, limit=9, newest_first=True, before=max(len(whole) - 3, 1))
        out[v] = {"whole": whole, "pages": pages, "newest": newest, "feed": projector.feed(game_id, v)}
    return out


def answers(games: Games, projector: Projector, game_ids: list[str]) -> dict:
    out = {}
    for g in game_ids:
        who = viewers(games, g)
        out[g] = {
            "audit": audit_answers(projector, g, who[1:]),
            "timelines": timeline_answers(projector, g, who),
            "phases": projector.phases(g),
            "outbox": projector.outbox(g),
        }
    return out


def store_payloads(games: Games, game_id: str) -> dict[int, dict]:
    """Each event's payload as the store holds it (without the envelope), by version."""
    reader = stored.Payloads(games)
    return {
        e.originator_version: {k: v for k, v in reader.parsed(e).items() if k not in ENVELOPE}
        for e in games.recorder.select_events(uuid.UUID(game_id))
    }


def test_every_read_model_answer_is_the_same_after_a_rebuild_and_the_audit_keeps_no_copy(store, ruleset):
    """Issue 30: rebuilt, the read models answer every reader alike; the audit copies no event's JSON but the kinds
    SQL reads across games (``stored.KEPT``) and a sealed event's mark, and reads the rest from the store."""
    games, projector = store
    game_ids = played_long(games, projector, ruleset.name)
    before = answers(games, projector, game_ids)
    projector.rebuild()
    assert answers(games, projector, game_ids) == before, ruleset.name
    kept = projector.db.query("SELECT type, scope, data FROM rm_audit WHERE data IS NOT NULL")
    assert all(kind in stored.KEPT or scope == -1 for kind, scope, _ in kept), ruleset.name
    assert projector.db.query("SELECT COUNT(*) FROM rm_audit WHERE data IS NULL")[0][0] > 0
    for g in game_ids:  # the GM's audit shows each event's payload as the store holds it
        held = store_payloads(games, g)
        for item in before[g]["audit"]["whole"]:
            assert item["data"] == ({"sealed": True} if vis.SEALED in item["audience"] else held[item["version"]])


def test_no_timeline_lists_or_carries_what_its_viewer_may_not_see_P_VIS(store, ruleset):
    """P-VIS (hidden information): read from the store, a viewer's timeline still lists exactly the events
    ``vis.can_see`` lets it see, each with the store's payload, and a sealed event's payload reaches no one: not
    even the GM's audit carries more than ``{"sealed": true}`` of it."""
    games, projector = store
    game_ids = played_long(games, projector, ruleset.name)
    projector.rebuild()
    for g in game_ids:
        held = store_payloads(games, g)
        rows = projector.db.query("SELECT version, audience FROM rm_audit WHERE game_id = ? ORDER BY version", (g,))
        audience = {v: a.split(",") for v, a in rows}
        for v in viewers(games, g):
            if v == GM:
                continue
            items = projector.timeline(g, v, 0, 100_000)
            may = [ver for ver, aud in audience.items() if vis.can_see(aud, v)]
            assert len(items) == len(may), (ruleset.name, g, v)
            for item, ver in zip(items, may, strict=True):
                assert item["type"] != "StateRestored" or item["data"] == {"sealed": True}
                if "sealed" not in item["data"] and item["type"] not in ("PostMade", "PostEdited", "DisputeRaised"):
                    assert item["data"] == held[ver], (ruleset.name, v, ver)
        for item in projector.audit(g):
            if vis.SEALED in item["audience"]:
                assert item["data"] == {"sealed": True}, (ruleset.name, item["version"])


def test_an_audit_of_the_old_shape_migrates_to_one_that_points_at_the_store(store_settings):
    """Upgrades (issue 30): an audit of the shape before (every event's JSON copied, ``data`` NOT NULL) is carried
    by revision 0012 to the new one (``data`` may be NULL, kept for ``stored.KEPT`` and sealed events only), and
    reads as it did; the downgrade gives the old shape back."""
    from projections import migrations

    games, projector = opened(store_settings)
    try:
        name = "powers" if "powers" in registry.names() else registry.names()[0]
        game_ids = played_long(games, projector, name)
        before = answers(games, projector, game_ids)
        # The shape before: NOT NULL, and every row's JSON as the projector copied it then.
        migrations.downgrade(projector.db, "0011_push")
        with projector.db.transaction() as cur:
            for g in game_ids:
                full = {v: json.dumps(d) for v, d in stored.Payloads(games).of(g, _null_rows(projector, g)).items()}
                cur.executemany(
                    "UPDATE rm_audit SET data = ? WHERE game_id = ? AND version = ?",
                    [(d, g, v) for v, d in full.items()],
                )
        assert projector.db.query("SELECT COUNT(*) FROM rm_audit WHERE data = '{}'")[0][0] == 0
        migrations.upgrade(projector.db)
        assert answers(games, projector, game_ids) == before
        kept = projector.db.query("SELECT type, scope FROM rm_audit WHERE data IS NOT NULL")
        assert kept and all(kind in stored.KEPT or scope == -1 for kind, scope in kept)
        with projector.db.transaction() as cur:  # NULL is allowed now
            cur.execute("UPDATE rm_audit SET data = NULL WHERE version = 1")
    finally:
        projector.db.close()
        games.close()


def _null_rows(projector: Projector, game_id: str) -> list[tuple[int, None]]:
    """Every row of the game's audit whose payload is read from the store (after the downgrade: ``'{}'``)."""
    rows = projector.db.query("SELECT version, data FROM rm_audit WHERE game_id = ?", (game_id,))
    return [(v, None) for v, d in rows if d == "{}"]
