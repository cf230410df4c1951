"""The bench's code paths at tiny sizes, so that ``make bench`` cannot rot. Timings are never asserted:
only that each figure is printed under its name, as a positive number."""

from __future__ import annotations

import math

import pytest

from projections.settings import Settings
from tests import bench


def _positive(figures: dict[str, float], names: set[str]) -> None:
    assert set(figures) == names
    for name, value in figures.items():
        assert isinstance(value, float) and math.isfinite(value) and value > 0, (name, value)


def test_bench_read_figures_board_and_event_pages(tmp_path):
    figures = bench.read_figures(tmp_path, small=20, large=150, runs=1, page=10)
    _positive(
        figures,
        {
            "board_10k_vs_100",
            "board_console_10k_vs_100",
            "events_page_10k_vs_100",
            "events_page_10k_vs_100_events",
            "events_page_10k_vs_100_feed",
        },
    )
    assert figures["events_page_10k_vs_100"] == max(
        figures["events_page_10k_vs_100_events"], figures["events_page_10k_vs_100_feed"]
    )


def test_bench_command_late_vs_early_plays_months_over_http(tmp_path):
    bench.NOTES.clear()
    value = bench.command_late_vs_early(tmp_path, actions=12, window=3, n_powers=2, games=2)
    _positive({"command_late_vs_early": value}, {"command_late_vs_early"})
    note = next(n for n in bench.NOTES if n.startswith("# command_late_vs_early"))
    assert "2 pair(s) of games, 2 powers, 2 month(s) to 12 actions" in note, note  # 4 actions a power a month


def test_bench_command_vs_bare_store_like_for_like(tmp_path):
    bench.NOTES.clear()
    settings = Settings(data_dir=tmp_path / "api")
    settings.data_dir.mkdir()
    env = {**settings.eventsourcing_env(), "SQLITE_DBNAME": str(tmp_path / "bare.sqlite3")}
    value = bench.ratio("sqlite", settings, env, clients=2, n_powers=4, workers=2, runs=3, bare_saves=20)
    _positive({"command_vs_bare_store": value}, {"command_vs_bare_store"})
    note = next(n for n in bench.NOTES if n.startswith("# sqlite"))
    assert "2 process(es) each side, 3 alternating runs" in note and note.count(", ") >= 2, note


def test_bench_only_option_names_every_figure(capsys):
    names = [name for group in bench.GROUPS for name in group[0]]
    for figure in (
        "board_10k_vs_100",
        "events_page_10k_vs_100",
        "command_late_vs_early",
        "command_vs_bare_store",
        "covenants_turn_vs_powers_action",
        "effect_phrases_per_s_vs_events_saved",
    ):
        assert figure in names
    with pytest.raises(SystemExit) as exc:
        bench.main(["--only", "no_such_figure"])
    assert exc.value.code == 2
    assert "invalid choice: 'no_such_figure'" in capsys.readouterr().err


def test_bench_covenants_turn_vs_powers_action_alternates_on_one_service(tmp_path):
    bench.NOTES.clear()
    value = bench.covenants_turn_vs_powers_action(tmp_path, runs=3, seasons=1, months=1)
    _positive({"covenants_turn_vs_powers_action": value}, {"covenants_turn_vs_powers_action"})
    note = next(n for n in bench.NOTES if n.startswith("# covenants_turn_vs_powers_action"))
    assert "median of 3" in note and "(covenants)" in note and "(Powers)" in note, note


def test_bench_effect_phrases_per_s_vs_events_saved_plays_a_long_lodge_game(tmp_path):
    bench.NOTES.clear()
    value = bench.effect_phrases_per_s_vs_events_saved(tmp_path, turns=4, runs=2, warm_turns=1)
    _positive({"effect_phrases_per_s_vs_events_saved": value}, {"effect_phrases_per_s_vs_events_saved"})
    note = next(n for n in bench.NOTES if n.startswith("# effect_phrases_per_s_vs_events_saved"))
    assert "one Lodge game of 5 turns" in note and "2 alternating runs" in note, note


def test_bench_post_figures_thread_pages_and_search(tmp_path):
    bench.NOTES.clear()
    figures = bench.post_figures(tmp_path, small=12, large=60, runs=1, page=5)
    _positive(figures, {"thread_page_10k_vs_100", "search_10k_posts_ms"})
    assert any(n.startswith("# posts: a page of 5 of a 12-post thread") for n in bench.NOTES)


def test_bench_battle_round_vs_command_plays_rounds_by_deadline(tmp_path):
    bench.NOTES.clear()
    figures = bench.battle_round_vs_command(tmp_path, runs=2, warm=1)
    _positive(figures, {"battle_round_vs_command", "battle_round_vs_command_all_windows"})
    assert figures["battle_round_vs_command_all_windows"] >= figures["battle_round_vs_command"]
    note = next(n for n in bench.NOTES if n.startswith("# battle_round_vs_command"))
    assert "a round of 8 armies resolved at its Commands deadline" in note and "median of 2" in note, note
    assert "battle_round_vs_command" in [name for group in bench.GROUPS for name in group[0]]


FAKE_PEER = """
import json, sys, time
if sys.argv[1] == "server":
    print("starting", flush=True)
    print("listening 1", flush=True)
    time.sleep(600)
for line in sys.stdin:
    command, *arg = line.split()
    if command == "quit":
        break
    if command == "play" and {fail}:
        answer = {{"error": "planted failure"}}
    else:
        answer = {{"seconds": [0.001] * int(arg[0])}} if command == "play" else {{"match": "m"}}
    print(json.dumps(answer), flush=True)
"""


def _fake_peer(tmp_path, fail: bool = False) -> tuple[list[str], list[str]]:
    """A stand-in for tests/bench_peer/peer.js speaking its line protocol (no npm, no node)."""
    import sys

    script = tmp_path / "fake_peer.py"
    script.write_text(FAKE_PEER.format(fail=fail))
    return [sys.executable, str(script), "server"], [sys.executable, str(script), "client"]


def test_bench_vs_boardgameio_alternates_with_the_peer_and_stops_it(tmp_path):
    from tests import procs

    bench.NOTES.clear()
    figures = bench.vs_boardgameio_memory(
        tmp_path, actions=12, window=4, chunk=5, games=1, peer_argv=_fake_peer(tmp_path)
    )
    _positive(figures, {"vs_boardgameio_memory_early", "vs_boardgameio_memory_late"})
    note = next(n for n in bench.NOTES if n.startswith("# vs_boardgameio_memory"))
    assert "1 pair(s) of games of 12 actions" in note and "boardgame.io 1000/s" in note, note
    assert not any("fake_peer" in " ".join(map(str, p.args)) for p in procs.live())


def test_bench_vs_boardgameio_stops_the_peer_when_it_fails(tmp_path):
    from tests import procs

    with pytest.raises(RuntimeError, match="planted failure"):
        bench.vs_boardgameio_memory(tmp_path, actions=4, window=2, games=1, peer_argv=_fake_peer(tmp_path, fail=True))
    assert not any("fake_peer" in " ".join(map(str, p.args)) for p in procs.live())


def test_bench_vs_boardgameio_skips_with_a_line_without_npm_or_in_ci(tmp_path, monkeypatch):
    bench.NOTES.clear()
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))  # no npm, no node
    assert bench.vs_boardgameio_memory(tmp_path) == {}
    assert any("skipped, npm (or node) is not installed" in n for n in bench.NOTES), bench.NOTES
    monkeypatch.setenv("CI", "true")
    assert bench.install_peer(tmp_path / "cache") is None
    assert any("skipped in CI" in n for n in bench.NOTES) and not (tmp_path / "cache").exists()


def test_bench_capacity_drives_many_games_on_postgres_for_one_and_two_api_processes(tmp_path, pg_available):
    from tests import procs
    from tests.conftest import PG_URL

    bench.NOTES.clear()
    figures = bench.capacity_figures(tmp_path, PG_URL.split("?")[0], games=2, seats=2, closed=2, peak_rate=50)
    names = {name for group in bench.GROUPS for name in group[0] if name.startswith("capacity_")}
    _positive(figures, names)
    assert "capacity_commands_per_s_postgres_2_api" in names and "capacity_p99_ms_postgres" in names
    notes = [n for n in bench.NOTES if n.startswith("# capacity")]
    assert len(notes) == 2 and "`serve --workers 1`" in notes[0] and "`serve --workers 2`" in notes[1], notes
    assert all("2 games x 2 clients (4 connections)" in n and "API processes" in n for n in notes), notes
    assert not any("api.cli" in " ".join(map(str, p.args)) for p in procs.live())
