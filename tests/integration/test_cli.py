"""The operator's command line: rebuild the read models, print an audit, play the demo."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

from api.compose import build_games, build_projector
from projections.settings import Settings
from tests.integration.helpers import close_services
from tests.scenarios import play_rich_month


def emissary(*args: str, data_dir) -> subprocess.CompletedProcess:
    env = {**os.environ, "EMISSARY_DATA_DIR": str(data_dir), "EMISSARY_DATABASE_URL": ""}
    return subprocess.run(
        [sys.executable, "-m", "api.cli", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_projections_rebuild_and_audit_from_the_command_line(tmp_path):
    settings = Settings(data_dir=tmp_path)
    games = build_games(settings)
    m = play_rich_month(games)
    projector = build_projector(games, settings)
    projector.catch_up()
    before = projector.dump()
    version = games.get_game(m.game_id).version
    close_services(games, projector)
    out = emissary("projections", "rebuild", data_dir=tmp_path)
    assert out.returncode == 0 and f"from {version} events" in out.stdout
    games = build_games(settings)
    assert build_projector(games, settings).dump() == before
    audit = emissary("audit", m.game_id, "--type", "ReactionDeclared", data_dir=tmp_path)
    rows = [json.loads(line) for line in audit.stdout.splitlines()]
    assert [r["actor"] for r in rows] == [m.powers["sov"]]
    as_csv = emissary("audit", m.game_id, "--format", "csv", "--phase", "s1-tidings", data_dir=tmp_path)
    table = list(csv.DictReader(io.StringIO(as_csv.stdout)))
    assert table and {r["phase"] for r in table} == {"s1-tidings"}


def test_the_demo_plays_a_month(tmp_path):
    out = emissary("demo", data_dir=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "this would be the 5th" in out.stdout and "verifies: True" in out.stdout


def test_the_covenant_demo_plays_a_year_for_three_covenants_and_narrates_it(tmp_path):
    out = emissary("demo", "--ruleset", "covenants", data_dir=tmp_path)
    assert out.returncode == 0, out.stderr
    seasons = [line for line in out.stdout.splitlines() if line.startswith("== Year 1, ")]
    assert [s.split(",")[1].split(":")[0].strip() for s in seasons] == ["spring", "summer", "autumn", "winter"]
    for covenant in ("Fengheld", "Crintera", "Valnastium"):
        assert out.stdout.count(f"{covenant} moves to square") == 4
        assert out.stdout.count(f"{covenant} supports its cards") == 4
    assert "A year is over: now year 2, spring." in out.stdout
    assert "export verifies: True" in out.stdout
    assert "Season 1, month 1: Planning" not in out.stdout  # not Powers' demo


def test_the_demo_of_an_unknown_ruleset_is_refused_naming_those_there_are(tmp_path):
    out = emissary("demo", "--ruleset", "chess", data_dir=tmp_path)
    assert out.returncode == 1 and "no ruleset 'chess'" in out.stdout and "covenants" in out.stdout
