"""Issue 27: one version, the one pyproject.toml names, shown by ``emissary --version`` and the ``/health`` answer,
with its entry in CHANGELOG.md (Keep a Changelog: the newest release first, under an Unreleased section)."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_the_version_is_the_one_pyproject_names_as_installed():
    from application.version import release

    assert re.fullmatch(r"\d+\.\d+\.\d+", VERSION)
    assert release() == VERSION  # read from the installed metadata: no second copy to keep in step


def test_emissary_version_prints_it():
    done = subprocess.run(
        [sys.executable, "-m", "api.cli", "--version"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"emissary {VERSION}"


def test_the_health_answer_and_the_api_docs_name_it(tmp_path):
    from fastapi.testclient import TestClient

    from api.app import create_app
    from projections.settings import Settings
    from tests.integration.helpers import close_app

    app = create_app(Settings(data_dir=tmp_path / "data"))
    try:
        with TestClient(app) as client:
            assert client.get("/health").json() == {"status": "ok", "version": VERSION}
            assert client.get("/openapi.json").json()["info"]["version"] == VERSION
    finally:
        close_app(app)


def test_the_changelog_has_this_releases_entry_first():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n") and "Keep a Changelog" in text
    headings = re.findall(r"^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$", text, re.MULTILINE)
    assert headings[0] == ("Unreleased", ""), headings
    releases = [name for name, _ in headings[1:]]
    assert releases[0] == VERSION, releases  # the newest release is the one pyproject names
    assert all(date for _, date in headings[1:]), headings  # every release is dated
    dates = [date for _, date in headings[1:]]
    assert dates == sorted(dates, reverse=True)  # newest first
    entry = text.split(f"## [{VERSION}]", 1)[1].split("\n## [", 1)[0]
    sections = re.findall(r"^### (\w+)$", entry, re.MULTILINE)
    assert sections and set(sections) <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}
