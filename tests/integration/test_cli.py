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


def test_the_long_demo_is_asked_for_as_long_or_by_its_first_name_season():
    from api.cli import build_parser

    for flag in ("--long", "--season"):
        assert build_parser().parse_args(["demo", flag]).long is True
    assert build_parser().parse_args(["demo"]).long is False


def test_the_audits_seat_filter_is_asked_for_as_seat_or_by_its_first_name_power():
    from api.cli import build_parser

    for flag in ("--seat", "--power"):
        assert build_parser().parse_args(["audit", "g", flag, "cult"]).seat == "cult"


def test_the_season_demo_plays_a_season_of_the_map_wallets_magic_and_cleanup(tmp_path):
    """Each number below is the rules' arithmetic on the demo's explicit dice and amounts."""
    out = emissary("demo", "--season", data_dir=tmp_path)
    assert out.returncode == 0, out.stderr
    said = out.stdout
    # P-INFL-3: 4 at 0,0 shifts one to each of two neighbours down a gradient of two.
    assert "(P-INFL-3): now 1 at -1,0, 2 at 0,0, 1 at 1,0." in said
    # P-FEAT-3: 2 coin + 1 for the one module, out of 5.
    assert "(P-FEAT-3): 2 coin left." in said
    assert "Saruman buys the skill lore for 2 fame in Tidings (P-DEV-1): 4 fame left." in said
    # The trade moves both sides at once: 3 + 2 coin and 1 - 1 favor; 6 - 2 coin and 0 + 1 favor.
    assert "Rangers: 5 coin, 0 favor; Gondor: 4 coin, 1 favor." in said
    # FFFW pays Fireball at rank 2; the Air mana is left, and dissipates at Cleanup.
    assert "paying FFFW: rank 2 (P-MAG-2); mana left: 1 A." in said
    assert "mana dissipates: Saruman holds none." in said
    # P-INFL-2: 2 from the action's hex and 1 from a neighbour leave only -1,0.
    assert "(P-INFL-2), leaving 1 at -1,0." in said
    assert "Annex on Tharbad (P.2.12): difficulty 1" in said
    # Gondor's [6, 3] takes one success off Saruman's two.
    assert "Gondor resists the burning with its might: [6, 3] -> 1 success(es)." in said
    assert "'Burn the Tharbad bridge': 2 - 1 resisted = net 1 vs difficulty 1: success." in said
    assert "the ambition is achieved, worth 6 fame (P-AMBI-1); the Rangers now hold 12 fame." in said
    # P-TOWN-4: Sickened 2 costs Bree a person (3 -> 2) and ticks down to 1.
    assert "(now population 2) and the status ticks down to {'sickened': 1}" in said
    assert "Season 2 opens: tidings." in said
    # P.2.12 Hidden Runes: rank 1 <= the 1 influence left at -1,0; [6, 5, 1] is 2 successes against 1; the rune is
    # the Rangers' private asset (P.4), not on Saruman's board.
    assert "difficulty 1, rolled [6, 5, 1]." in said
    assert "a rank 1 Rune at -1,0 is the Rangers' asset" in said and "Saruman's board shows 0 runes." in said
    # P-INFL-4: Mercurial swaps the 1 at -1,0 with the 0 at 0,0.
    assert "between -1,0 and 0,0 (P-INFL-4): now 1 at 0,0." in said


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


def test_the_lodge_demo_plays_a_turn_whose_full_room_is_rebuilt_and_scored(tmp_path):
    """Issue 15: ``emissary demo --ruleset lodge`` plays turn 1: the Library fills (L-INST-2), a target and a
    step are prompts answered from the server's options, and Clean-up scores the Library with its banner
    [3, 2, 1] (Ann 3 cubes, Bob 1: L-SCORE-1) and flips it (C4-C6)."""
    out = emissary("demo", "--ruleset", "lodge", data_dir=tmp_path)
    assert out.returncode == 0, out.stderr
    said = out.stdout
    assert "the target of Firebolt; one of ann, bob, cy, dummy (at the deadline: dummy, LH-1)" in said
    assert "Rooms to rebuild (C4): library." in said
    assert "library scored with banner [3, 2, 1] on cubes {'ann': 3, 'bob': 1}: ann 3, bob 2 (C5)." in said
    assert "library is rebuilt" in said and "Turn 2 opens: prepare." in said
