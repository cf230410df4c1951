"""Dice and secrets anyone can verify: per-roll keys under a committed root, the month seed (the GM's
audit) and sealed difficulties, from an export."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from application.service import Games
from domain.dice import commitment
from domain.platform.verify import InvalidExport, parse_export
from domain.powers import commands as pc
from domain.powers.game import digest
from domain.powers.verify import verify_events
from tests.integration.helpers import bearer, close_app
from tests.scenarios import play_rich_month


@pytest.fixture
def month_done():
    games = Games()
    m = play_rich_month(games)
    games.send(m.game_id, "gm", pc.Advance())  # Battle -> month 2: month 1's seed is revealed to the GM
    return games, m


def test_every_viewers_export_verifies_once_the_month_closes(month_done):
    games, m = month_done
    for viewer in ["gm", *m.powers.values()]:
        report = verify_events(games.visible_events(m.game_id, viewer))
        assert report.ok, report.mismatches
        assert report.seeds_verified == (1 if viewer == "gm" else 0)  # P.4: the seed goes to the GM only
    gm = verify_events(games.visible_events(m.game_id, "gm"))
    assert gm.rolls_verified == 5 and gm.difficulties_verified == 1 and gm.rolls_pending == 0
    assert gm.keys_verified == 5 + gm.tie_breaks_verified
    circ = verify_events(games.visible_events(m.game_id, m.powers["circ"]))
    assert circ.difficulties_verified == 1  # the Circle checks its own sealed difficulty
    sov = verify_events(games.visible_events(m.game_id, m.powers["sov"]))
    assert sov.rolls_verified == 2  # its own public edict and its reaction (the duel is private)
    assert sov.difficulties_verified == 0
    cult = verify_events(games.visible_events(m.game_id, m.powers["cult"]))
    assert cult.rolls_verified == 3  # its own rite, the plot it collaborates on, the public edict


def test_rolls_verify_from_their_keys_before_the_month_closes():
    games = Games()
    m = play_rich_month(games)
    report = verify_events(games.visible_events(m.game_id, m.powers["wiz"]))
    assert report.ok and report.rolls_verified == 2 and report.rolls_pending == 0 and report.seeds_verified == 0


def test_a_tampered_roll_is_caught(month_done):
    games, m = month_done
    events = games.visible_events(m.game_id, m.powers["wiz"])
    rolled = next(e for e in events if e["type"] == "DiceRolled")
    rolled["data"]["pool"]["dice"][0]["face"] = rolled["data"]["pool"]["dice"][0]["face"] % 6 + 1
    report = verify_events(events)
    assert not report.ok and "but its key gives" in report.mismatches[0]


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
    assert not report.ok and any("sealed after the roll" in m for m in report.mismatches)


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
    counts = {
        viewer: verify_events(games.visible_events(m.game_id, viewer)).submissions_verified
        for viewer in ["gm", *m.powers.values()]
    }
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
        ok = api.post(
            "/verify",
            content="".join(json.dumps(e) + "\n" for e in events),
            headers={"Content-Type": "application/x-ndjson"},
        )
        assert ok.status_code == 200 and ok.json()["ok"] is True and ok.json()["submissions_verified"] == 3
        for e in events:
            if e["type"] == "DiceRolled" and e["data"]["pool"].get("salt"):
                e["data"]["pool"]["salt"] = "0" * 32  # a salt that is not the one digested
        bad = api.post(
            "/verify",
            content="".join(json.dumps(e) + "\n" for e in events),
            headers={"Content-Type": "application/x-ndjson"},
        )
        assert bad.json()["ok"] is False
        assert any("digest does not match" in x for x in bad.json()["mismatches"])


@pytest.mark.parametrize("viewer", ["gm", "wiz"])
def test_a_deleted_dice_roll_is_reported_missing(month_done, viewer):
    games, m = month_done
    events = games.visible_events(m.game_id, viewer if viewer == "gm" else m.powers[viewer])
    i = next(i for i, e in enumerate(events) if e["type"] == "DiceRolled")
    del events[i]
    report = verify_events(events)
    assert not report.ok
    assert any("missing from your sequence" in x for x in report.mismatches), report.mismatches


@pytest.mark.parametrize("viewer", ["gm", "wiz"])
def test_a_deleted_dice_roll_is_caught_even_with_the_sequence_renumbered(month_done, viewer):
    games, m = month_done
    events = games.visible_events(m.game_id, viewer if viewer == "gm" else m.powers[viewer])
    i = next(i for i, e in enumerate(events) if e["type"] == "DiceRolled")
    del events[i]
    for n, e in enumerate(events, start=1):
        e["seq"] = n
    report = verify_events(events)
    assert not report.ok
    assert any("dice roll is missing" in x for x in report.mismatches), report.mismatches


def test_a_gap_in_the_gms_roll_numbers_is_caught(month_done):
    games, m = month_done
    events = [
        e
        for e in games.visible_events(m.game_id, "gm")
        if not (
            e["type"] in ("DiceRolled", "ActionResolved", "ActionProvisional", "ConversionsLocked", "ActionSubmitted")
            and e["data"].get("action_id") == _first_roll(games, m)
        )
    ]
    for n, e in enumerate(events, start=1):
        e["seq"] = n
    report = verify_events(events)
    assert any("roll numbers are gap-free" in x for x in report.mismatches), report.mismatches


def _first_roll(games, m) -> str:
    rolls = [e for e in games.visible_events(m.game_id, "gm") if e["type"] == "DiceRolled"]
    return rolls[1]["data"]["action_id"]  # a roll in the middle, so the numbers around it remain


def test_an_edited_title_is_caught_by_the_submission_digest(month_done):
    games, m = month_done
    events = games.visible_events(m.game_id, m.powers["wiz"])
    submitted = next(e for e in events if e["type"] == "ActionSubmitted")
    submitted["data"]["title"] = "Something harmless"
    report = verify_events(events)
    assert not report.ok and any("submission digest does not match" in x for x in report.mismatches)


def test_the_report_says_plainly_what_it_does_not_check(month_done):
    games, m = month_done
    player = verify_events(games.visible_events(m.game_id, m.powers["wiz"])).as_dict()
    assert any("descriptions" in s for s in player["not_checked"])
    assert any("only the GM's export shows every roll" in s for s in player["not_checked"])
    gm = verify_events(games.visible_events(m.game_id, "gm")).as_dict()
    assert not any("only the GM's export" in s for s in gm["not_checked"])


@pytest.mark.parametrize(
    "text,line,field",
    [
        ("not json", 1, "line"),
        ("[1,2,3]", 1, "event"),
        ('{"type":"SeedRevealed","data":{}}', 1, "data.seed"),
        ('{"type":"DiceRolled","data":{}}', 1, "data.action_id"),
        (
            '{"seq":1,"type":"GameCreated","data":{}}\n{"type":"DiceRolled","data":{"action_id":"a","pool":'
            '{"roll_no":1,"dice":[{"face":9}]}}}',
            2,
            "data.pool.dice.0.face",
        ),
        ('{"type":"SeedRevealed","data":{"seed":"zz","commitment":"c"}}', 1, "data.seed"),
        ('{"data":{}}', 1, "type"),
        ('{"type":"TiesBroken","data":{"tied":[1],"order":[],"roll_no":1}}', 1, "data.tied.0"),
        ('{"type":"DifficultyRevealed","data":{"action_id":"a","value":"x","nonce":"n"}}', 1, "data.value"),
        ("", None, "body"),
        ("\n  \n", None, "body"),
    ],
)
def test_a_malformed_export_is_refused_naming_the_line_and_field(text, line, field):
    with pytest.raises(InvalidExport) as info:
        verify_events(parse_export(text))
    assert (info.value.line, info.value.field) == (line, field), info.value.message
    assert line is None or f"line {line}" in info.value.message


def test_post_verify_answers_422_naming_the_line_and_field(tmp_path):
    from fastapi.testclient import TestClient

    from api.app import create_app
    from projections.settings import Settings

    app = create_app(Settings(data_dir=tmp_path))
    with TestClient(app) as client:
        for text, line, field in [
            ("not json", 1, "line"),
            ("[1,2,3]", 1, "event"),
            ('{"type":"SeedRevealed","data":{}}', 1, "data.seed"),
            ('{"type":"DiceRolled","data":{}}', 1, "data.action_id"),
            ('\n\n{"type":"DiceRolled","data":{"action_id":"a"}}', 3, "data.pool"),
        ]:
            for content_type in ("application/x-ndjson", "application/json", "text/plain"):
                r = client.post("/verify", content=text, headers={"content-type": content_type})
                assert r.status_code == 422, (text, r.text)
                body = r.json()
                assert (body["line"], body["field"]) == (line, field), body
        r = client.post("/verify", content=b"\xff\xfe", headers={"content-type": "application/x-ndjson"})
        assert r.status_code == 422 and r.json()["field"] == "body"
    close_app(app)


def test_the_cli_refuses_a_malformed_export_naming_the_line(tmp_path):
    path = tmp_path / "export.jsonl"
    path.write_text('{"type":"SeedRevealed","data":{}}\n')
    bad = subprocess.run([sys.executable, "-m", "api.cli", "verify", str(path)], capture_output=True, text=True)
    assert bad.returncode == 2 and json.loads(bad.stdout)["field"] == "data.seed", bad.stdout + bad.stderr


def test_the_cli_refuses_an_export_that_is_not_text(tmp_path):
    path = tmp_path / "export.jsonl"
    path.write_bytes(b"\xff\xfe\x00")
    bad = subprocess.run([sys.executable, "-m", "api.cli", "verify", str(path)], capture_output=True, text=True)
    assert bad.returncode == 2 and json.loads(bad.stdout)["field"] == "body", bad.stdout + bad.stderr


# ---------------------------------------------------------------------- every ruleset (issue 24, item 3)


COVENANT_ARTS = {
    "ann": ["Cr", "In", "Co", "Im", "Vi"],
    "bob": ["Pe", "Im", "Vi", "Re", "Mu"],
    "cy": ["Re", "Mu", "An", "Aq", "Te"],
}


def _covenant_export(api) -> str:
    """A covenant game begun through the API (its starting player is drawn by a die, A-AMB-8): Ann's export."""
    r = api.post("/games", json={"ruleset": "covenants", "name": "Tribunal", "options": {"players": 3}})
    assert r.status_code == 201, r.text
    gid, auditor = r.json()["game_id"], r.json()["gm_token"]

    def send(command: str, **args) -> None:
        r = api.post(f"/games/{gid}/commands", headers=bearer(auditor), json={"command": command, "args": args})
        assert r.status_code == 200, r.text

    for seat, name, covenant in (("ann", "Ann", "Fengheld"), ("bob", "Bob", "Crintera"), ("cy", "Cy", "Valnastium")):
        send("AddCovenant", seat_id=seat, name=name, covenant=covenant, host=seat == "ann", arts=COVENANT_ARTS[seat])
    send("BeginGame")
    ann = api.post(f"/games/{gid}/seats/ann/token", headers=bearer(auditor)).json()["token"]
    export = api.get(f"/games/{gid}/export", headers=bearer(ann))
    assert export.status_code == 200, export.text
    return export.text


def _with_a_die_changed(export: str) -> str:
    events = [json.loads(line) for line in export.splitlines()]
    rolled = next(e for e in events if e["type"] == "DieRolled")
    rolled["data"]["faces"][0] = rolled["data"]["faces"][0] % rolled["data"]["sides"] + 1
    return "".join(json.dumps(e) + "\n" for e in events)


def test_post_verify_checks_a_covenant_export_with_the_covenant_games_checks(api):
    """POST /verify reads the ruleset the export's first event names: a covenant export is checked by the
    covenant game's verifier (its dice under the season's committed root, A.4), and a changed die is caught
    (Powers' verifier, which it ran before, checked 0 rolls and answered ok)."""
    export = _covenant_export(api)
    ndjson = {"Content-Type": "application/x-ndjson"}
    tampered = api.post("/verify", content=_with_a_die_changed(export), headers=ndjson).json()
    assert tampered["ok"] is False and tampered["rolls_verified"] == 0, tampered
    assert any("DieRolled" in m and "but its key gives" in m for m in tampered["mismatches"]), tampered
    honest = api.post("/verify", content=export, headers=ndjson).json()
    assert honest["ok"] is True and honest["ruleset"] == "covenants" and honest["rolls_verified"] == 1, honest
    assert honest["seeds_unrevealed"] and "in force now" in honest["seeds_unrevealed"][0]


def test_emissary_verify_checks_a_covenant_export_with_the_covenant_games_checks(api, tmp_path):
    """``emissary verify`` dispatches as POST /verify does: a covenant export with one die changed exits 1."""
    export = _covenant_export(api)
    path = tmp_path / "export.jsonl"
    path.write_text(_with_a_die_changed(export))
    bad = subprocess.run([sys.executable, "-m", "api.cli", "verify", str(path)], capture_output=True, text=True)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    report = json.loads(bad.stdout)
    assert report["ok"] is False and any("but its key gives" in m for m in report["mismatches"]), report
    path.write_text(export)
    ok = subprocess.run([sys.executable, "-m", "api.cli", "verify", str(path)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert json.loads(ok.stdout)["ruleset"] == "covenants" and json.loads(ok.stdout)["rolls_verified"] == 1


UNKNOWN = '{"seq":1,"type":"GameCreated","data":{"ruleset":"chess","rules_version":"1"}}\n'


def test_an_export_of_a_ruleset_not_installed_is_refused_naming_it(api, tmp_path):
    """The export names its ruleset; one this service does not host is refused (422, exit 2), naming it."""
    r = api.post("/verify", content=UNKNOWN, headers={"Content-Type": "application/x-ndjson"})
    assert r.status_code == 422, r.text
    assert r.json()["field"] == "data.ruleset" and r.json()["line"] == 1 and "'chess'" in r.json()["message"]
    path = tmp_path / "export.jsonl"
    path.write_text(UNKNOWN)
    bad = subprocess.run([sys.executable, "-m", "api.cli", "verify", str(path)], capture_output=True, text=True)
    assert bad.returncode == 2 and json.loads(bad.stdout)["field"] == "data.ruleset", bad.stdout + bad.stderr


def test_an_export_whose_first_event_names_no_ruleset_is_a_powers_export(month_done):
    """Exports made before rulesets name none in their first event: they are checked as Powers games."""
    from domain.platform.verify import verify_export

    games, m = month_done
    events = games.visible_events(m.game_id, m.powers["circ"])
    del events[0]["data"]["ruleset"]
    report = verify_export(events)
    assert report.ok and report.ruleset == "powers" and report.difficulties_verified == 1


def test_p_4_every_committed_seed_is_revealed_once_or_the_report_says_why_not():
    """A rollback's superseded seed goes to the GM (P.4): the GM's export checks it, a player's says it went to
    the GM alone; a fork's copied seed is the source's to reveal. A seed the GM's export never reveals, though a
    later one was committed, is a mismatch, even with the sequence renumbered to hide the missing reveal."""
    from domain.platform.verify import verify_export

    games = Games()
    m = play_rich_month(games)
    fork_id, _ = games.fork(m.game_id, "gm", "what if", phase="s1m1-resolution")
    games.rollback(m.game_id, "gm", "again", phase="s1m1-planning")
    gm = verify_export(games.visible_events(m.game_id, "gm"))
    assert gm.ok and gm.seeds_verified == 1 and len(gm.seeds_unrevealed) == 1, gm
    assert "in force now" in gm.seeds_unrevealed[0]
    wiz = verify_export(games.visible_events(m.game_id, m.powers["wiz"]))
    assert wiz.ok and any("revealed to the GM alone (P.4)" in s for s in wiz.seeds_unrevealed), wiz
    fork = verify_export(games.visible_events(fork_id, "gm"))
    assert fork.ok and any("copied with the source game's history by a fork" in s for s in fork.seeds_unrevealed)
    hidden = [e for e in games.visible_events(m.game_id, "gm") if e["type"] != "SeedRevealed"]
    for n, e in enumerate(hidden, start=1):
        e["seq"] = n
    report = verify_export(hidden)
    assert not report.ok and any("was never revealed" in x for x in report.mismatches), report.mismatches


def test_a_covenant_seasons_revealed_seed_checks_every_key_and_a_swapped_seed_is_caught():
    """A.4: when a season ends its seed is revealed to everyone: every viewer's export checks the season's root
    and every key from it; a changed seed, or a consistent swap of seed and commitment, is caught."""
    from application.service import Games
    from domain.platform.verify import verify_export
    from tests.covenants.play import seat_three, skip_season

    games = Games()
    t = seat_three(games, options={"yearly_consumes": False})
    skip_season(t)
    for viewer in ("gm", "ann", "bob", "cy"):
        report = verify_export(games.visible_events(t.game_id, viewer, limit=10_000))
        assert report.ok and report.ruleset == "covenants", (viewer, report.mismatches)
        assert report.seeds_verified == 1 and report.keys_verified >= 1, (viewer, report)
    events = games.visible_events(t.game_id, "bob", limit=10_000)
    revealed = next(e for e in events if e["type"] == "SeedRevealed")
    revealed["data"]["seed"] = "00" * 32
    assert any("does not hash to its commitment" in x for x in verify_export(events).mismatches)
    revealed["data"]["commitment"] = commitment("00" * 32)
    assert any("never committed" in x for x in verify_export(events).mismatches)
