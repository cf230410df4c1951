"""DESIGN "Rulesets on one platform": the platform never imports a ruleset; a ruleset imports the platform."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import domain.platform

PLATFORM = Path(domain.platform.__file__).parent
RULESETS = ("domain.powers", "domain.covenants")
INFRASTRUCTURE = ("projections", "api", "workers", "sqlalchemy", "fastapi", "celery", "redis", "psycopg")


def imported_modules(path: Path) -> list[tuple[int, str]]:
    """Every module a file imports, absolute (relative imports resolved against its package)."""
    package = ("domain.platform." + ".".join(path.relative_to(PLATFORM).with_suffix("").parts)).rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], *filter(None, [base])]
                )
            out += [(node.lineno, base)] + [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return out


def forbidden_imports(path: Path) -> list[str]:
    return [
        f"{path.name}:{line} imports {module}"
        for line, module in imported_modules(path)
        if any(module == bad or module.startswith(bad + ".") for bad in RULESETS + INFRASTRUCTURE)
    ]


def test_platform_imports_no_ruleset_and_no_infrastructure():
    files = sorted(PLATFORM.rglob("*.py"))
    assert files, "domain/platform has no modules"
    assert [p for f in files for p in forbidden_imports(f)] == []


def test_the_import_check_catches_a_platform_module_that_imports_a_ruleset(tmp_path):
    bad = PLATFORM / "_layering_probe.py"
    bad.write_text("from domain.powers.game import Game\nfrom . import ruleset\nimport domain.powers.rules\n")
    try:
        assert forbidden_imports(bad) == [
            "_layering_probe.py:1 imports domain.powers.game",
            "_layering_probe.py:1 imports domain.powers.game.Game",
            "_layering_probe.py:3 imports domain.powers.rules",
        ]
    finally:
        bad.unlink()


def test_importing_the_platform_loads_no_ruleset():
    modules = [f"domain.platform.{p.stem}" for p in sorted(PLATFORM.glob("*.py")) if p.stem != "__init__"]
    code = (
        f"import importlib, sys\nfor m in {modules!r}: importlib.import_module(m)\n"
        "print(sorted(m for m in sys.modules if m.startswith(('domain.powers', 'projections', 'api', 'workers'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=PLATFORM.parents[1]
    ).stdout.strip()
    assert out == "[]"
