"""Verifying the fake ruleset's export loads no other ruleset (issue 26): the fake ruleset imports no Powers code,
yet its exports were verified through Powers' verifier at the domain root, which loaded 21 Powers modules, and
``emissary verify`` registered every installed ruleset whatever the export named. The platform's verifier
(``domain.platform.verify``) dispatches to the ``Ruleset.verify`` of the ruleset the export names, and the CLI
loads that ruleset's plugin alone (its entry point, ``domain.platform.plugin.load``), registered by no test."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from emissary_fake.ruleset import FAKE

from application.service import Games
from tests.contract.conftest import registered
from tests.contract.drivers import DRIVERS

ROOT = Path(__file__).parents[2]
RULESETS = ("domain.powers", "domain.covenants", "domain.lodge")

VERIFY = """
import contextlib, io, json, sys
import domain.platform.verify
from api import cli
from domain.platform import ruleset as registry

assert registry.names() == []
out = io.StringIO()
with contextlib.redirect_stdout(out):
    code = cli.main(["verify", sys.argv[1]])
print(json.dumps({"code": code, "report": json.loads(out.getvalue()),
                  "registered": registry.names(),
                  "loaded": sorted(m for m in sys.modules if m.startswith(%r))}))
"""


def test_verifying_the_fake_rulesets_export_through_the_platform_and_the_cli_loads_no_other_ruleset(tmp_path):
    with registered(FAKE.name):
        games = Games()
        try:
            played = DRIVERS[FAKE.name].play(games)
            events = games.visible_events(played.game_id, "bob")
        finally:
            games.close()
    path = tmp_path / "export.jsonl"
    path.write_text("".join(json.dumps(e, sort_keys=True) + "\n" for e in events))
    done = subprocess.run(
        [sys.executable, "-c", VERIFY % (RULESETS,), str(path)], capture_output=True, text=True, cwd=ROOT
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["code"] == 0 and out["report"]["ruleset"] == FAKE.name and out["report"]["rolls_verified"] == 2, out
    assert out["loaded"] == [] and out["registered"] == [FAKE.name]
