"""DESIGN "Rulesets on one platform": the platform never imports a ruleset; a ruleset imports the platform."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import domain.platform
from domain.platform import plugin

PLATFORM = Path(domain.platform.__file__).parent
RULESETS = ("domain.powers", "domain.lodge", "domain.covenants")
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


ROOT = PLATFORM.parents[1]


def imports_of(path: Path) -> set[str]:
    """The absolute modules a file imports (no relative imports outside domain/)."""
    out = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            out |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return out


def importing(paths: list[Path], prefixes: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{p.relative_to(ROOT)} imports {m}"
        for p in paths
        for m in imports_of(p)
        if any(m == bad or m.startswith(bad + ".") for bad in prefixes)
    )


def test_projections_are_persistence_and_reads_and_import_nothing_of_the_application_layer():
    """DESIGN "Commands": the application layer (load, decide, save, retry, receipt) is not a read model."""
    assert importing(sorted((ROOT / "projections").rglob("*.py")), ("api", "workers")) == []


def ruleset_packages() -> tuple[str, ...]:
    """Every installed ruleset's packages (issue 26): the one its entry point lives in, and its API package."""
    import domain.rulesets as installed

    found = {p.module.rpartition(".")[0] or p.module for p in entry_points(group=plugin.GROUP)}
    return tuple(sorted(found | {p.api for p in installed.PLUGINS if p.api} | set(RULESETS)))


def names_of(path: Path) -> set[str]:
    """The modules a file imports, and every string in it that is a dotted module name (``"api.powers"``)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    strings = {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return imports_of(path) | {s for s in strings if MODULE_NAME.fullmatch(s)}


MODULE_NAME = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)+(:[\w.]+)?")


def named(path: Path, packages: tuple[str, ...]) -> list[str]:
    """What of ``packages`` the file names."""
    return sorted(m for m in names_of(path) if any(m == p or m.startswith((p + ".", p + ":")) for p in packages))


def naming(paths: list[Path], packages: tuple[str, ...]) -> list[str]:
    return [f"{p.relative_to(ROOT)} names {m}" for p in paths for m in named(p, packages)]


def platform_files() -> list[Path]:
    """Every module of the platform: all of domain/platform, application, projections, workers and api but each
    ruleset's own API package, and the discovery modules ``domain/rulesets.py`` and ``api/rulesets.py``."""
    import domain.rulesets as installed

    own = [ROOT / Path(*p.api.split(".")) for p in installed.PLUGINS if p.api]
    files = [*PLATFORM.rglob("*.py"), ROOT / "domain" / "rulesets.py"]
    files += [f for top in ("api", "application", "projections", "workers") for f in (ROOT / top).rglob("*.py")]
    return sorted(f for f in files if not any(f.is_relative_to(d) for d in own))


def test_no_platform_module_names_a_ruleset():
    """A ruleset is a plugin (issue 26): found through its entry point, it changes no platform file, and no platform
    module names it, by import or by module name, not even the discovery modules."""
    files = platform_files()
    assert ROOT / "api" / "rulesets.py" in files and ROOT / "domain" / "rulesets.py" in files
    assert ROOT / "api" / "cli.py" in files and not [f for f in files if "powers" in f.relative_to(ROOT).parts]
    packages = ruleset_packages()
    assert {"domain.powers", "domain.covenants", "domain.lodge", "api.powers", "api.covenants"} <= set(packages)
    assert naming(files, packages) == []


def test_the_naming_check_catches_a_registry_written_by_hand(tmp_path):
    probe = tmp_path / "registry.py"
    probe.write_text(
        'from domain.covenants.ruleset import COVENANTS\nAPI = {"lodge": "api.lodge"}\n'
        'POINT = "domain.powers.ruleset:PLUGIN"\nPROSE = "the rulesets (see domain.lodge) are plugins"\n'
    )
    assert named(probe, ruleset_packages()) == [
        "api.lodge",
        "domain.covenants.ruleset",
        "domain.covenants.ruleset.COVENANTS",
        "domain.powers.ruleset:PLUGIN",
    ]


def test_no_module_in_workers_imports_api_and_the_application_layer_imports_neither():
    """Issue 26: the application layer stands below api and workers, in a package both import."""
    assert importing(sorted((ROOT / "workers").rglob("*.py")), ("api",)) == []
    assert importing(sorted((ROOT / "application").rglob("*.py")), ("api", "workers")) == []


def test_the_layering_check_sees_an_import_inside_a_function(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from api.mail_intake import MailIntake\n    return MailIntake\n")
    assert imports_of(probe) == {"api.mail_intake", "api.mail_intake.MailIntake"}


def test_workers_build_the_service_without_loading_the_web_framework_or_api():
    code = (
        "import sys, application.compose, application.service, workers.runtime, workers.tasks\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastapi', 'starlette', 'uvicorn', 'api')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stderr


def test_the_api_builds_the_service_without_loading_the_web_framework():
    code = (
        "import sys, api, api.compose, application.service, workers.runtime, workers.tasks\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('fastapi', 'starlette', 'uvicorn')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]", out.stderr


def test_the_read_models_import_no_ruleset():
    """Issue 11: what is a ruleset's own (notification texts, the phases and seats its events begin and add)
    the read models ask of the game's ruleset; they import none."""
    root = PLATFORM.parents[1]
    for name in ("projections/projector.py", "projections/tracking.py", "workers/projection_runner.py"):
        tree = ast.parse((root / name).read_text())
        modules = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        modules += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
        assert [m for m in modules if m.startswith(RULESETS)] == [], name


def names_of_rulesets(path: Path, names: list[str]) -> list[str]:
    """Where a file imports a ruleset's package (``domain.NAME``, ``api.NAME``) or names one in a string."""
    packages = [f"{root}.{n}" for root in ("domain", "api") for n in names]
    found = [f"imports {m}" for m in sorted(imports_of(path)) if any(m == p or m.startswith(p + ".") for p in packages)]
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            paths = [f"{root}{sep}{n}" for root in ("domain", "api") for sep in "./" for n in names]
            found += [f"line {node.lineno} names {n}" for n in names if text == n]
            found += [f"line {node.lineno} names {p}" for p in paths if p in text]
    return found


def test_the_verifier_and_the_cli_name_no_ruleset():
    """Issue 26: ``POST /verify`` and ``emissary verify`` find the ruleset an export names through the registry;
    the platform's verifier, the verify route and the CLI import no ruleset and name none."""
    import domain.rulesets  # noqa: F401  (registers the installed rulesets)
    from domain.platform import ruleset as registry

    names = registry.names()
    assert names, "no ruleset is installed"
    files = [PLATFORM / "verify.py", ROOT / "api" / "routes" / "history.py", ROOT / "api" / "cli.py"]
    assert {str(f.relative_to(ROOT)): names_of_rulesets(f, names) for f in files} == {
        str(f.relative_to(ROOT)): [] for f in files
    }


# ---------------------------------------------------------------------- the platform speaks seats (issue 26 item 3)

RULESET_WORDS = re.compile(r"power|season|month", re.IGNORECASE)
KEYLIKE = re.compile(r"[A-Za-z_][\w.:-]*")  # a name, key or token, not prose (prose has spaces)
TEMPLATES = ROOT / "api" / "web" / "templates"  # the platform's own pages (a ruleset's ship in its package)

# What platform modules still say in Powers' words, per file: only ever lowered (the debt of issue 26 item 3), and now
# paid. (The names Powers' clients sent first, ``power_id`` for a body's or a command's seat and ``power`` for the
# audit's filter, are Powers' own: ``api/powers/old_names.py``.)
SPOKEN_DEBT: dict[str, int] = {}


def ruleset_words(path: Path) -> list[str]:
    """Where a platform module speaks in a ruleset's words (power, season, month): every identifier (a name,
    attribute, argument, keyword, function or class) and every string that is a name or key rather than prose, as
    ``line: word``. Docstrings, comments and sentences are not names; an upcaster (``upcast_v*``, ``_upcast*``)
    reads a stored shape's old names, which is its job."""
    tree = ast.parse(path.read_text(), filename=str(path))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith(("upcast_v", "_upcast")):
            skipped |= {id(n) for n in ast.walk(node)}
    out = []
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Name):
            name = node.id
        elif isinstance(node, ast.Attribute):
            name = node.attr
        elif isinstance(node, ast.arg):
            name = node.arg
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = node.name
        elif isinstance(node, ast.keyword) and node.arg:
            name = node.arg
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and KEYLIKE.fullmatch(node.value):
            name = node.value
        else:
            continue
        if RULESET_WORDS.search(name):
            out.append(f"{node.lineno}: {name}")
    return sorted(out)


def template_words(path: Path) -> list[str]:
    """Every line of a platform template that says power, season or month (a template's text is all shown)."""
    return [
        f"{i}: {line.strip()}" for i, line in enumerate(path.read_text().splitlines(), 1) if RULESET_WORDS.search(line)
    ]


def spoken() -> dict[str, int]:
    found = {str(f.relative_to(ROOT)): len(ruleset_words(f)) for f in platform_files()}
    found |= {str(f.relative_to(ROOT)): len(template_words(f)) for f in sorted(TEMPLATES.rglob("*.html"))}
    return {k: n for k, n in sorted(found.items()) if n}


def test_no_platform_module_speaks_in_a_rulesets_words():
    """Issue 26 item 3: the platform speaks seats. No platform module (``platform_files``) or platform template
    names a power, a season or a month, beyond the recorded debt, which only goes down."""
    found = spoken()
    grown = {k: (n, SPOKEN_DEBT.get(k, 0)) for k, n in found.items() if n > SPOKEN_DEBT.get(k, 0)}
    assert not grown, "\n".join(
        [f"{k}: {n} mentions, {was} allowed" for k, (n, was) in grown.items()]
        + [w for k in grown for w in (template_words(ROOT / k) if k.endswith(".html") else ruleset_words(ROOT / k))]
    )
    paid = {k: (n, found.get(k, 0)) for k, n in SPOKEN_DEBT.items() if found.get(k, 0) < n}
    assert not paid, f"lower SPOKEN_DEBT to what is left: {paid}"


def test_the_words_check_catches_a_power_named_as_a_name_not_in_prose(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        'def f(power_id):\n    """Each power\'s month, in prose."""\n'
        '    return state.powers[power_id], {"season": 1}\n\n\n'
        'def _upcast_v1(state):\n    state["seat"] = state.pop("power_id")\n'
    )
    assert ruleset_words(probe) == ["1: power_id", "3: power_id", "3: powers", "3: season"]
    page = tmp_path / "page.html"
    page.write_text("<p>{{ _('Seat') }}</p>\n<p>{{ season }}</p>\n")
    assert template_words(page) == ["2: <p>{{ season }}</p>"]
