"""axe-core (from npm: ``package.json``, installed by ``npm ci``) run in a page: the accessibility violations
it finds. Outside CI a machine without it skips the check; in CI it must be there (.ci/run installs it)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


def violations(page) -> list[dict]:
    """The violations axe finds in the page as it stands (WCAG 2 A and AA rules and best practices), each with
    its rule id and the elements it concerns."""
    if not AXE.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"axe-core is not installed ({AXE}): run `npm ci`")
        pytest.skip("axe-core is not installed: run `npm ci`")
    # Evaluated by the browser's DevTools, not added as an inline <script>, which the pages' CSP refuses (issue 27).
    page.evaluate(AXE.read_text(encoding="utf-8") + "\n;undefined")
    found = page.evaluate("async () => (await axe.run(document)).violations")
    return [{"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]]} for v in found]
