"""The README's API example runs as written, with curl and jq, against a real ``emissary serve``."""

from __future__ import annotations

import json
import os
import re
import subprocess

import httpx

from tests.integration.topology import ROOT, Topology, free_port, wait_healthy


def readme_api_example() -> str:
    text = (ROOT / "README.md").read_text()
    block = re.search(r"<!-- api-example:[^>]*-->\n```sh\n(.*?)```", text, re.S)
    assert block, "README.md lost its marked API example"
    return block.group(1)


def json_objects(text: str) -> list[dict]:
    """The JSON answers curl printed back to back (it adds no newline)."""
    decoder, found, at = json.JSONDecoder(), [], 0
    while (at := text.find("{", at)) != -1:
        obj, at = decoder.raw_decode(text, at)
        found.append(obj)
    return found


def test_the_readme_api_example_runs_as_written(tmp_path):
    """README promise: every example runs as written (issue 9: the month example targeted a Balrog that
    was never added). Only the address changes, to this test's server."""
    script = readme_api_example()
    assert script.startswith("E=localhost:8000;")
    port = free_port()
    env = {
        **os.environ,
        "EMISSARY_DATA_DIR": str(tmp_path / "data"),
        "EMISSARY_PORT": str(port),
        "EMISSARY_EMBEDDED_WORKERS": "false",
    }
    env.pop("EMISSARY_DATABASE_URL", None)
    top = Topology(env, tmp_path)
    try:
        top.start("api", "serve")
        wait_healthy(f"http://127.0.0.1:{port}", proc=top.procs["api"])
        ran = subprocess.run(
            [
                "bash",
                "-euo",
                "pipefail",
                "-c",
                script.replace("E=localhost:8000", f"E=127.0.0.1:{port}", 1) + '\necho "GAME $G $GM"\n',
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert ran.returncode == 0, ran.stderr
        lines = [line for line in ran.stdout.splitlines() if line.strip()]
        game_id, gm_token = lines[-1].split()[1:]
        answers = json_objects(ran.stdout.rsplit("GAME ", 1)[0])
        assert answers and not [a for a in answers if "error" in a], ran.stdout
        duel = answers[-1]
        assert duel["result"]["action_id"] and duel["result"]["dice"], duel
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"authorization": f"Bearer {gm_token}"}) as http:
            view = http.get(f"/games/{game_id}/view").json()
        assert {p["power_id"] for p in view["powers"]} == {"gandalf", "balrog"}
        assert view["game"]["step"] == "planning"
    finally:
        top.stop_all()
