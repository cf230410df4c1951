"""Dice and secrets anyone can verify: commit-reveal seeds and sealed difficulties, from an export."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from domain.dice import commitment
from domain.powers.game import digest
from domain.verify import verify_events
from projections.service import Games
from tests.scenarios import play_rich_month


@pytest.fixture
def month_done():
    games = Games()
    m = play_rich_month(games)
    games.advance(m.game_id, "gm")  # Battle -> month 2: month 1's seed is revealed
    return games, m


def test_every_viewers_export_verifies_once_the_month_closes(month_done):
    games, m = month_done
    for viewer in ["gm", *m.powers.values()]:
        report = verify_events(games.visible_events(m.game_id, viewer))
        assert report.ok, report.mismatches
        assert report.seeds_verified == 1
    gm = verify_events(games.visible_events(m.game_id, "gm"))
    assert gm.rolls_verified == 5 and gm.difficulties_verified == 1 and gm.rolls_pending == 0
    circ = verify_events(games.visible_events(m.game_id, m.powers["circ"]))
    assert circ.difficulties_verified == 1  # the Circle checks its own sealed difficulty
    sov = verify_events(games.visible_events(m.game_id, m.powers["sov"]))
    assert sov.rolls_verified == 2  # its own public edict and its reaction (the duel is private)
    assert sov.difficulties_verified == 0
    cult = verify_events(games.visible_events(m.game_id, m.powers["cult"]))
    assert cult.rolls_verified == 3  # its own rite, the plot it collaborates on, the public edict


def test_rolls_are_pending_until_the_seed_is_revealed():
    games = Games()
    m = play_rich_month(games)
    report = verify_events(games.visible_events(m.game_id, m.powers["wiz"]))
    assert report.ok and report.rolls_verified == 0 and report.rolls_pending >= 1


def test_a_tampered_roll_is_caught(month_done):
    games, m = month_done
    events = games.visible_events(m.game_id, m.powers["wiz"])
    rolled = next(e for e in events if e["type"] == "DiceRolled")
    rolled["data"]["pool"]["dice"][0]["face"] = rolled["data"]["pool"]["dice"][0]["face"] % 6 + 1
    report = verify_events(events)
    assert not report.ok and "but its seed gives" in report.mismatches[0]


def test_a_changed_sealed_difficulty_is_caught(month_done):
    games, m = month_done
    events = games.visible_events(m.game_id, m.powers["circ"])
    revealed = next(e for e in events if e["type"] == "DifficultyRevealed")
    revealed["data"]["value"] += 1
    report = verify_events(events)
    assert not report.ok and "does not match its sealed commitment" in report.mismatches[0]


def test_a_swapped_seed_is_caught(month_done):
    games, m = month_done
    events = games.visible_events(m.game_id, "gm")
    seed_event = next(e for e in events if e["type"] == "SeedRevealed")
    seed_event["data"]["seed"] = "00" * 32
    assert not verify_events(events).ok
    seed_event["data"]["commitment"] = commitment("00" * 32)  # a consistent swap still breaks the rolls
    assert not verify_events(events).ok


def test_a_difficulty_sealed_after_its_roll_is_caught(month_done):
    games, m = month_done
    events = games.visible_events(m.game_id, m.powers["circ"])
    i = next(i for i, e in enumerate(events) if e["type"] == "DifficultyCommitted")
    moved = events.pop(i)
    j = next(j for j, e in enumerate(events) if e["type"] == "ConversionsLocked")
    events.insert(j + 1, moved)
    report = verify_events(events)
    assert not report.ok and "sealed after the roll" in report.mismatches[0]


def test_the_cli_verifies_an_export_file(month_done, tmp_path):
    games, m = month_done
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in games.visible_events(m.game_id, m.powers["circ"])))
    ok = subprocess.run([sys.executable, "-m", "api.cli", "verify", str(path)], capture_output=True, text=True)
    assert ok.returncode == 0 and json.loads(ok.stdout)["ok"] is True
    lines = path.read_text().splitlines()
    tampered = [json.loads(line) for line in lines]
    for e in tampered:
        if e["type"] == "DifficultyRevealed":
            e["data"]["nonce"] = "0" * 32
    path.write_text("".join(json.dumps(e) + "\n" for e in tampered))
    bad = subprocess.run([sys.executable, "-m", "api.cli", "verify", str(path)], capture_output=True, text=True)
    assert bad.returncode == 1 and json.loads(bad.stdout)["ok"] is False


def test_p_4_each_viewer_checks_the_published_digests_it_holds_the_salt_of(month_done):
    """The GM checks every submission against Resolution's published digests; a power checks its own,
    those it collaborates on, and public ones once their dice are public: no more (P.4)."""
    games, m = month_done
    counts = {viewer: verify_events(games.visible_events(m.game_id, viewer)).submissions_verified
              for viewer in ["gm", *m.powers.values()]}
    p = m.powers
    assert counts == {"gm": 4, p["wiz"]: 2, p["circ"]: 2, p["cult"]: 3, p["sov"]: 1}


def test_a_digest_that_does_not_match_the_locked_conversions_is_caught(month_done):
    games, m = month_done
    events = games.visible_events(m.game_id, m.powers["wiz"])
    locked = next(e for e in events if e["type"] == "ConversionsLocked")
    locked["data"]["converted"] = [] if locked["data"]["converted"] else [0]  # dice are random: any change
    report = verify_events(events)
    assert not report.ok and "digest does not match its dice and conversions" in report.mismatches[0]


def test_a_submission_left_out_of_the_published_resolution_is_caught(month_done):
    """The owner of a submission notices a Resolution that did not consume it, even when the published
    list is otherwise consistent."""
    games, m = month_done
    events = games.visible_events(m.game_id, m.powers["wiz"])
    mine = next(e for e in events if e["type"] == "ConversionsLocked")["data"]["digest"]
    published = next(e for e in events if e["type"] == "ResolutionPublished")["data"]
    published["submissions"] = [d for d in published["submissions"] if d != mine]
    published["submissions_digest"] = digest(sorted(published["submissions"]))
    report = verify_events(events)
    assert not report.ok and "missing from the published resolution" in report.mismatches[0]
    published["submissions_digest"] = "0" * 64
    assert any("submissions_digest is not the digest" in x for x in verify_events(events).mismatches)


def test_post_verify_checks_the_submission_digests_of_an_export(month_done):
    """``POST /verify`` (no account needed) reports the digests it checked, and a tampered one."""
    from fastapi.testclient import TestClient

    from api.app import create_app

    games, m = month_done
    events = games.visible_events(m.game_id, m.powers["cult"])
    with TestClient(create_app(games_service=games)) as api:
        ok = api.post("/verify", content="".join(json.dumps(e) + "\n" for e in events),
                      headers={"Content-Type": "application/x-ndjson"})
        assert ok.status_code == 200 and ok.json()["ok"] is True and ok.json()["submissions_verified"] == 3
        for e in events:
            if e["type"] == "DiceRolled" and e["data"]["pool"].get("salt"):
                e["data"]["pool"]["salt"] = "0" * 32  # a salt that is not the one digested
        bad = api.post("/verify", content="".join(json.dumps(e) + "\n" for e in events),
                       headers={"Content-Type": "application/x-ndjson"})
        assert bad.json()["ok"] is False
        assert any("digest does not match" in x for x in bad.json()["mismatches"])
