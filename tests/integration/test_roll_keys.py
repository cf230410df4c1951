"""Per-roll keys under a Merkle root (P.4, README "Trust"): each player verifies exactly the rolls it
was shown, nobody can recompute a roll they were not shown, and the month seed goes to the GM only."""

from __future__ import annotations

import json
import re
import uuid
from datetime import datetime, timezone
from pathlib import Path

import pytest
from eventsourcing.persistence import StoredEvent

from application.service import Games
from domain.dice import ROLLS_PER_COMMITMENT, commitment, faces_from_key, roll_key, roll_tree
from domain.powers import commands as pc
from domain.powers.verify import verify_events
from tests.scenarios import play_rich_month

HEX64 = re.compile(r"\b[0-9a-f]{64}\b")
ROLL_EVENTS = ("DiceRolled", "ReactionDeclared", "TiesBroken")


def _roll_keys(events: list[dict]) -> dict[int, str]:
    """roll number -> key, of every roll in these events (what the GM holds: all of them)."""
    out = {}
    for e in events:
        if e["type"] in ROLL_EVENTS:
            data = e["data"]["pool"] if e["type"] != "TiesBroken" else e["data"]
            out[data["roll_no"]] = data.get("key")
    return out


def _rolls_seen(events: list[dict]) -> set[int]:
    seen = set()
    for e in events:
        data = e["data"]
        if e["type"] in ("DiceRolled", "ReactionDeclared"):
            seen.add(data["pool"]["roll_no"])
        elif e["type"] == "TiesBroken":
            seen.add(data["roll_no"])
        elif e["type"] in ("ActionResolved", "ActionProvisional") and (data.get("details") or {}).get("faces"):
            seen.add(data["details"]["roll_no"])
    return seen


@pytest.fixture
def month_done():
    games = Games()
    m = play_rich_month(games)
    games.send(m.game_id, "gm", pc.Advance())  # Battle -> month 2: month 1's seed is revealed to the GM
    return games, m


def test_p_4_no_player_can_recompute_a_roll_it_was_not_shown(month_done):
    """After the month closed, nothing a player holds (events, export, view) contains a month seed or
    the key of a roll it was not shown, nor derives one: the Sovereign cannot recompute the private duel."""
    games, m = month_done
    gm_events = games.visible_events(m.game_id, "gm")
    seeds = {e["data"]["seed"] for e in gm_events if e["type"] == "SeedRevealed"}
    seeds.add(games.get_game(m.game_id).state.seed)  # and the open month's
    assert len(seeds) == 2
    keys = _roll_keys(gm_events)
    duel = next(e for e in gm_events if e["type"] == "DiceRolled" and e["data"]["action_id"] == m.actions["duel"])[
        "data"
    ]["pool"]
    for viewer in m.powers.values():
        events = games.visible_events(m.game_id, viewer)
        held = json.dumps([events, games.view(m.game_id, viewer)])
        assert not [e for e in events if e["type"] == "SeedRevealed"], viewer
        assert not [s for s in seeds if s in held], f"{viewer} holds a month seed"
        unseen = set(keys) - _rolls_seen(events)
        assert unseen, viewer  # every power misses someone's private roll in this month
        strings = set(HEX64.findall(held))
        for n in unseen:
            assert keys[n] not in strings, f"{viewer} holds the key of roll {n} it was not shown"
            # Nothing it holds derives the key (as a seed), so it cannot brute-force the faces either.
            assert all(roll_key(x, n) != keys[n] for x in strings), (viewer, n)
    sov = games.visible_events(m.game_id, m.powers["sov"])
    assert duel["roll_no"] not in _rolls_seen(sov)
    assert [d["face"] for d in duel["dice"]] == faces_from_key(keys[duel["roll_no"]], len(duel["dice"]))


def test_p_4_a_player_verifies_its_own_rolls_from_their_keys_without_the_seed(month_done):
    games, m = month_done
    for key_ in ("wiz", "circ", "cult", "sov"):
        events = games.visible_events(m.game_id, m.powers[key_])
        report = verify_events(events)
        assert report.ok, report.mismatches
        assert report.seeds_verified == 0 and report.rolls_pending == 0
        assert report.rolls_verified == len(_rolls_seen(events)) >= 1
    # And at once, before the month closes.
    fresh = Games()
    live = play_rich_month(fresh)
    events = fresh.visible_events(live.game_id, live.powers["wiz"])
    report = verify_events(events)
    assert report.ok and report.rolls_pending == 0 and report.rolls_verified == len(_rolls_seen(events)) == 2


def _own_roll(games: Games, m, who: str = "wiz") -> tuple[list[dict], dict]:
    events = games.visible_events(m.game_id, m.powers[who])
    return events, next(e for e in events if e["type"] == "DiceRolled")["data"]["pool"]


def test_a_tampered_face_is_caught(month_done):
    events, pool = _own_roll(*month_done)
    pool["dice"][0]["face"] = pool["dice"][0]["face"] % 6 + 1
    report = verify_events(events)
    assert not report.ok and "but its key gives" in report.mismatches[0]


def test_a_wrong_key_is_caught(month_done):
    events, pool = _own_roll(*month_done)
    pool["key"] = "11" * 32
    report = verify_events(events)
    assert not report.ok and "key and path do not lead to the month's committed root" in report.mismatches[0]


def test_a_wrong_path_is_caught(month_done):
    events, pool = _own_roll(*month_done)
    pool["path"][3] = "22" * 32
    report = verify_events(events)
    assert not report.ok and "key and path do not lead to the month's committed root" in report.mismatches[0]


def test_a_key_and_path_from_another_tree_are_caught(month_done):
    """A sound key and path, but under a root that was never committed: the faces match that key,
    so only the root tells (a GM who made up a seed after seeing the submission)."""
    events, pool = _own_roll(*month_done)
    n, count = pool["roll_no"], len(pool["dice"])
    other = roll_tree("33" * 32, next(e for e in events if e["type"] == "SeedCommitted")["data"]["first_roll"])
    pool["key"], pool["path"] = other.proof(n)
    for d, face in zip(pool["dice"], faces_from_key(pool["key"], count)):
        d["face"] = face
    report = verify_events(events)
    assert not report.ok and "key and path do not lead to the month's committed root" in report.mismatches[0]


def test_the_gms_export_verifies_the_seed_and_every_key_against_it(month_done):
    games, m = month_done
    events = games.visible_events(m.game_id, "gm")
    report = verify_events(events)
    assert report.ok, report.mismatches
    assert report.seeds_verified == 1 and report.rolls_pending == 0
    assert report.keys_verified == len(_roll_keys(events)) == report.rolls_verified + report.tie_breaks_verified
    revealed = next(e for e in events if e["type"] == "SeedRevealed")["data"]
    revealed["seed"] = "44" * 32
    revealed["commitment"] = next(e for e in events if e["type"] == "SeedCommitted")["data"]["commitment"]
    assert any("does not hash to its commitment" in x for x in verify_events(events).mismatches)


def test_a_seed_that_does_not_give_the_committed_root_is_caught(month_done):
    games, m = month_done
    events = games.visible_events(m.game_id, "gm")
    committed = next(e for e in events if e["type"] == "SeedCommitted")["data"]
    committed["root"] = roll_tree("55" * 32, committed["first_roll"]).root
    report = verify_events(events)
    assert any("does not give the committed root" in x for x in report.mismatches)


def test_the_seed_commitment_publishes_the_root_of_the_months_roll_keys(month_done):
    games, m = month_done
    gm_events = games.visible_events(m.game_id, "gm")
    seed = next(e for e in gm_events if e["type"] == "SeedRevealed")["data"]["seed"]
    committed = next(e for e in games.visible_events(m.game_id, m.powers["sov"]) if e["type"] == "SeedCommitted")
    assert committed["data"]["rolls"] == ROLLS_PER_COMMITMENT
    assert committed["data"]["root"] == roll_tree(seed, committed["data"]["first_roll"]).root


def test_p_4_a_fork_reveals_the_copied_month_seed_to_nobody():
    """The copied seed may still govern the original's open month: revealed in the fork, even to its GM,
    it would tell the original's future dice. The fork draws its own seed."""
    games = Games()
    m = play_rich_month(games)
    source_commitment = games.view(m.game_id, "gm")["game"]["seed_commitment"]
    fork_id, _ = games.fork(m.game_id, "gm", "sandbox", phase="s1m1-resolution")
    for viewer in ["gm", *m.powers.values()]:
        events = games.visible_events(fork_id, viewer)
        assert not [e for e in events if e["type"] == "SeedRevealed"], viewer
        assert verify_events(events).ok
    assert games.view(fork_id, "gm")["game"]["seed_commitment"] != source_commitment
    assert games.get_game(m.game_id).state.seed not in json.dumps(games.visible_events(fork_id, "gm"))


def test_the_verifier_rebuilds_a_bounded_number_of_seed_trees(monkeypatch):
    """A hostile export full of revealed seeds costs at most MAX_SEED_AUDITS tree rebuilds, and says so."""
    from domain.platform import verify

    monkeypatch.setattr(verify, "MAX_SEED_AUDITS", 2)
    events = []
    for i in range(4):
        seed = f"{i:02x}" * 32
        events += [
            {
                "type": "SeedCommitted",
                "data": {"commitment": commitment(seed), "root": roll_tree(seed, 1).root, "first_roll": 1},
            },
            {"type": "SeedRevealed", "data": {"seed": seed, "commitment": commitment(seed)}},
        ]
    report = verify_events(events)
    assert report.ok and report.seeds_verified == 2
    assert any("2 revealed seeds after the first 2" in x for x in report.not_checked)


RECORDED = datetime(2026, 11, 29, 21, 0, tzinfo=timezone.utc)  # legacy_seed_game.json
LEGACY = Path(__file__).parent / "data" / "legacy_seed_game.json"


def test_a_game_recorded_before_roll_keys_replays_verifies_the_old_way_and_goes_on_with_keys():
    """tests/integration/data/legacy_seed_game.json: a rich month and the next month's opening, recorded
    by the code before per-roll keys (main at f731b32: SeedCommitted without a root, SeedRevealed public),
    as the stored records of its event store (``play_rich_month`` and one more advance)."""
    old = json.loads(LEGACY.read_text())
    # the clock of the day it was recorded: its deadlines (2 December 2026) are still ahead, whatever today is
    games = Games(clock=lambda: RECORDED)
    games.recorder.insert_events(
        [
            StoredEvent(
                originator_id=uuid.UUID(r["originator_id"]),
                originator_version=r["originator_version"],
                topic=r["topic"],
                state=r["state"].encode(),
            )
            for r in old["events"]
        ]
    )
    gid = old["game_id"]
    game = games.get_game(gid)
    assert game.state.step == "planning" and game.state.month == 2 and game.state.seed_root is None
    for viewer in ["gm", *old["powers"].values()]:
        report = verify_events(games.visible_events(gid, viewer))
        assert report.ok, (viewer, report.mismatches)
        assert report.seeds_verified == 1 and report.rolls_verified >= 1
    # A month committed the old way still rolls the old way, so the GM's audit of its seed checks it.
    wiz = old["powers"]["wiz"]
    games.send(gid, wiz, pc.SubmitAction(wiz, title="Old month", convert=0))
    games.send(gid, "gm", pc.Advance())
    games.send(gid, "gm", pc.Resolve(announcement=""))
    while games.get_game(gid).state.step != "planning":
        games.send(gid, "gm", pc.Advance())
    assert games.get_game(gid).state.seed_root is not None  # from the next month on, roll keys
    r = games.send(gid, wiz, pc.SubmitAction(wiz, title="New month", convert=0))
    report = verify_events(games.visible_events(gid, "gm"))
    assert report.ok and report.seeds_verified == 2 and report.rolls_pending == 0, report.mismatches
    mine = verify_events(games.visible_events(gid, wiz))
    assert mine.ok and mine.seeds_verified == 1 and mine.rolls_pending == 1, mine.mismatches  # month 2's
    assert r.result["roll_no"] in _rolls_seen(games.visible_events(gid, wiz))
