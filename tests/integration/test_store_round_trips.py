"""A command's transaction on PostgreSQL: one round trip to the server, and a refused save leaves nothing behind,
neither in the store nor on the pooled connection the next command gets."""

from __future__ import annotations

import psycopg
import pytest
from eventsourcing.persistence import IntegrityError
from psycopg._pipeline_base import BasePipeline

from api.compose import build_games
from application.service import Caller, CommandKey, hash_token
from domain.errors import Unauthorized
from domain.platform.commands import ReissueLink
from domain.powers import commands as pc
from domain.powers.commands import SubmitAction
from projections.keys import KeyRow
from projections.settings import Settings
from tests.conftest import IN_CI
from tests.helpers import add_power

pytestmark = pytest.mark.integration


@pytest.fixture
def games(pg_schema_url):
    """The service on PostgreSQL with one pooled connection: what one save leaves on it, the next one gets."""
    service = build_games(
        Settings(database_url=pg_schema_url, read_models_sync=False, db_pool_size=1, db_max_overflow=0)
    )
    yield service
    service.close()


def _planning(games) -> tuple[str, str]:
    game_id, _, _ = games.create_game("round trips")
    power, _, _ = add_power(games, game_id, "gm", "C0", "conspiracy", "circle")
    games.send(game_id, "gm", pc.Advance(expected_step="setup"))
    games.send(game_id, "gm", pc.Advance(expected_step="tidings"))
    return game_id, power


def _plot(power: str) -> SubmitAction:
    return SubmitAction(power_id=power, title="plot", convert=0)


def _rows(url: str, table: str) -> int:
    base, schema = url.split("?schema=")
    with psycopg.connect(base, autocommit=True) as conn:
        return conn.execute(f'SELECT count(*) FROM "{schema}"."{table}"').fetchone()[0]


def test_a_command_with_its_key_reaches_postgresql_as_one_statement(games, monkeypatch):
    """The library's recorder syncs its pipeline four times a save (three of them holding the table lock);
    the command's key row, lock, NOTIFY and events go as one statement (the store's save function), which
    commits before it answers."""
    game_id, power = _planning(games)
    statements, syncs = [], []
    real_execute, real_sync = psycopg.Cursor.execute, BasePipeline._enqueue_sync

    def counting_execute(self, query, *args, **kwargs):
        statements.append(query)
        return real_execute(self, query, *args, **kwargs)

    def counting_sync(self):
        syncs.append(1)
        return real_sync(self)

    monkeypatch.setattr(psycopg.Cursor, "execute", counting_execute)
    monkeypatch.setattr(BasePipeline, "_enqueue_sync", counting_sync)
    receipt = games.run(Caller.of(power), game_id, _plot(power), CommandKey("k"))
    assert receipt.events == ["ActionSubmitted", "DiceRolled", "ConversionsLocked"]
    assert len(statements) == 1 and "emissary_events_save" in statements[0].as_string() and syncs == []
    assert not games.recorder.save_function_missing


def test_without_the_save_function_a_save_goes_in_one_pipeline_sync(games, pg_schema_url, monkeypatch):
    """Code deployed before ``emissary migrate`` created the function: the same transaction goes as its
    statements in one pipelined sync, key row included, and a lost race still records nothing."""
    game_id, power = _planning(games)
    base, schema = pg_schema_url.split("?schema=")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'DROP FUNCTION "{schema}".emissary_events_save')
    syncs = []
    real_sync = BasePipeline._enqueue_sync

    def counting_sync(self):
        syncs.append(1)
        return real_sync(self)

    monkeypatch.setattr(BasePipeline, "_enqueue_sync", counting_sync)
    receipt = games.run(Caller.of(power), game_id, _plot(power), CommandKey("k"))
    assert receipt.events == ["ActionSubmitted", "DiceRolled", "ConversionsLocked"]
    assert games.recorder.save_function_missing and len(syncs) == 1, syncs
    assert _rows(pg_schema_url, "emissary_command_keys") == 1
    again = games.run(Caller.of(power), game_id, _plot(power), CommandKey("k"))
    assert again.replayed and _rows(pg_schema_url, "emissary_command_keys") == 1


def test_a_save_that_loses_a_race_records_nothing_and_leaves_the_connection_clean(games, pg_schema_url):
    game_id, power = _planning(games)
    events = _rows(pg_schema_url, "emissary_events")
    first, second = games.get_game(game_id), games.get_game(game_id)
    for game in (first, second):
        game.trigger_event(type(game).CredentialsRevoked, principal="nobody", actor="gm", audience=["sealed"])
    games.save(first)
    with pytest.raises(IntegrityError):
        games.save(second, command_key=KeyRow(game_id, "gm", "lost", "", "{}"))
    assert _rows(pg_schema_url, "emissary_events") == events + 1
    assert _rows(pg_schema_url, "emissary_command_keys") == 0  # the key row went with the events' transaction
    # The one pooled connection is out of the failed transaction: the next command records.
    receipt = games.run(Caller.of(power), game_id, SubmitAction(power_id=power, title="plot", convert=0))
    assert receipt.events == ["ActionSubmitted", "DiceRolled", "ConversionsLocked"]
    assert _rows(pg_schema_url, "emissary_events") == events + 4


def test_a_key_already_recorded_refuses_the_whole_save(games, pg_schema_url):
    game_id, power = _planning(games)
    games.run(Caller.of(power), game_id, _plot(power), CommandKey("k"))
    events = _rows(pg_schema_url, "emissary_events")
    game = games.get_game(game_id)
    game.trigger_event(type(game).CredentialsRevoked, principal="nobody", actor="gm", audience=["sealed"])
    with pytest.raises(IntegrityError):
        games.save(game, command_key=KeyRow(game_id, power, "k", "", "{}"))
    assert _rows(pg_schema_url, "emissary_events") == events
    replay = games.run(Caller.of(power), game_id, _plot(power), CommandKey("k"))
    assert replay.replayed and _rows(pg_schema_url, "emissary_events") == events


def test_a_keyed_save_that_records_no_event_keeps_its_key_alone(games, pg_schema_url):
    """A command that records nothing still keeps its key (its row alone, nothing locked or notified): a repeat
    of the key is refused and records nothing."""
    game_id, _power = _planning(games)
    events = _rows(pg_schema_url, "emissary_events")
    row = KeyRow(game_id, "gm", "quiet", "", "{}")
    games.save(games.get_game(game_id), command_key=row)
    assert _rows(pg_schema_url, "emissary_events") == events and _rows(pg_schema_url, "emissary_command_keys") == 1
    assert games.recorder.select_command_key(game_id, "gm", "quiet") == row
    with pytest.raises(IntegrityError):
        games.save(games.get_game(game_id), command_key=row)
    assert _rows(pg_schema_url, "emissary_command_keys") == 1


def test_a_keyed_command_does_not_look_its_key_up_first_and_a_repeat_still_gets_the_first_receipt(games, monkeypatch):
    """The key's row goes first in the save's transaction, so a new key costs no SELECT before the command;
    a repeat fails on that row, records nothing, and is answered with the first receipt."""
    game_id, power = _planning(games)
    lookups = []
    real_select = games.recorder.select_command_key

    def counting_select(*args):
        lookups.append(args)
        return real_select(*args)

    monkeypatch.setattr(games.recorder, "select_command_key", counting_select)
    first = games.run(Caller.of(power), game_id, _plot(power), CommandKey("once", "f"))
    assert lookups == []
    version = games.get_game(game_id).version
    again = games.run(Caller.of(power), game_id, _plot(power), CommandKey("once", "f"))
    assert again.replayed and {**again.as_dict(), "replayed": False} == first.as_dict()
    assert games.get_game(game_id).version == version


def test_a_repeat_with_a_replaced_token_is_refused_not_answered(games):
    """The first receipt is read only after the caller's token has been checked against the store."""
    game_id, power = _planning(games)
    token_hash = hash_token("old")
    games.run(Caller.of("gm"), game_id, ReissueLink(power, token_hash))
    games.run(Caller.of(power, token_hash), game_id, _plot(power), CommandKey("once"))
    games.run(Caller.of("gm"), game_id, ReissueLink(power, hash_token("new")))
    version = games.get_game(game_id).version
    with pytest.raises(Unauthorized, match="replaced"):
        games.run(Caller.of(power, token_hash), game_id, _plot(power), CommandKey("once"))
    assert games.get_game(game_id).version == version


def test_events_and_snapshots_go_as_plain_arrays_and_read_back_the_same(pg_schema_url, monkeypatch):
    """psycopg dumps the library's composite row type in Python, escaping each field with a regular expression:
    a snapshot (the whole state) cost ~100 ms a save that took one. The events and snapshots go as arrays
    instead, into the same tables and rows: the notification ids come back in the events' order, and the
    game read through its snapshot is the game replayed from its events."""
    from psycopg.types import composite

    dumped = []
    for cls in (composite._SequenceDumper, composite._SequenceBinaryDumper):
        real = cls.dump

        def counting(self, obj, real=real):
            dumped.append(type(obj))
            return real(self, obj)

        monkeypatch.setattr(cls, "dump", counting)
    games = build_games(Settings(database_url=pg_schema_url, read_models_sync=False, snapshot_interval=10))
    replayer = build_games(Settings(database_url=pg_schema_url, read_models_sync=False, snapshot_interval=10))
    try:
        game_id, power = _planning(games)
        for k in range(4):
            games.run(Caller.of(power), game_id, SubmitAction(power_id=power, title=f"plot {k}", convert=0))
        game = games.get_game(game_id, for_update=False)
        assert dumped == []
        snapshots = games.snapshots.recorder.select_events(game.id)
        assert len(snapshots) == game.version // 10  # one a save that crossed a multiple of 10
        replayer.snapshots = None
        replayer.repository.snapshot_store = None
        replayed = replayer.repository.get(game.id)
        from_snapshot = games.repository.get(game.id, version=game.version, deepcopy_from_cache=False)
        assert games.mapper.transcoder.encode(from_snapshot.state) == replayer.mapper.transcoder.encode(replayed.state)
        notifications = games.recorder.select_notifications(start=1, limit=1000)
        mine = [n for n in notifications if n.originator_id == game.id]
        assert [n.originator_version for n in mine] == list(range(1, game.version + 1))
        assert [n.id for n in mine] == sorted(n.id for n in mine)
    finally:
        games.close()
        replayer.close()


def test_snapshot_states_are_stored_lz4_compressed_and_read_back(games, pg_schema_url):
    """A snapshot (hundreds of kB of JSON) costs PostgreSQL about a fifth of the CPU to compress with lz4 as with
    its default pglz (``projections.keys.lz4_states``): the column says lz4, a snapshot is stored so, and the game
    read through it is the game."""
    base, schema = pg_schema_url.split("?schema=")
    with psycopg.connect(base, autocommit=True) as conn:
        has_lz4 = conn.execute(
            "SELECT count(*) FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)"
        ).fetchone()[0]
        if not has_lz4 and not IN_CI:
            pytest.skip("this PostgreSQL has no lz4 (before 14, or built without it): the column keeps pglz")
        compression = conn.execute(
            "SELECT a.attcompression FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
            "JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relname = 'emissary_snapshots' AND a.attname = 'state'",
            (schema,),
        ).fetchone()[0]
    assert compression == "l"
    game_id, _ = _planning(games)
    for i in range(1, 12):  # a state of several kB: stored compressed, not as it is
        add_power(games, game_id, "gm", f"C{i}", "conspiracy", "circle")
    game = games.get_game(game_id)
    games.snapshots.put([type(game).Snapshot.take(game)])
    with psycopg.connect(base, autocommit=True) as conn:
        method, size = conn.execute(
            f'SELECT pg_column_compression(state), octet_length(state) FROM "{schema}".emissary_snapshots '
            "ORDER BY originator_version DESC LIMIT 1"
        ).fetchone()
    assert size > 4000 and method == "lz4"
    games.repository.cache.get(game.id, evict=True)
    read = games.get_game(game_id, for_update=False)
    assert games.mapper.transcoder.encode(read.state) == games.mapper.transcoder.encode(game.state)


def test_the_arrays_psycopg_sends_as_they_are_read_back_as_sent(pg_schema_url):
    """``projections.keys.array_params`` writes the arrays itself (psycopg's list dumpers inspected every
    element): quotes, backslashes, commas, braces and empty or binary states come back as they went."""
    from projections.keys import bytea_array, text_array

    texts = ['a"b', "c\\d", "e,f", "{g}", "", "NULL", "h i"]
    states = [b"", b"\x00\x01\xff", b'{"x":1}' * 500]
    base = pg_schema_url.split("?schema=")[0]
    with psycopg.connect(base, autocommit=True) as conn:
        got_texts, got_states = conn.execute(
            "SELECT %s::text[], %b::bytea[]", (text_array(texts), bytea_array(states))
        ).fetchone()
    assert got_texts == texts and [bytes(s) for s in got_states] == states
