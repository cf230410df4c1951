"""The project extends the eventsourcing library through its public road only (issue 26, item 8).

An AST scan of every source package (not tests/) for uses of the library's private members (names with one leading
underscore, defined by its classes): a method of a class derived from the library's that overrides one, an access
to one through ``self``, ``cls`` or ``super()`` in such a class, and an access to one on any other object (that the
project does not define itself). What must stay is listed below with why; an entry no longer used fails too, so the
list only shrinks.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import eventsourcing

ROOT = Path(__file__).resolve().parent.parent
LIBRARY = Path(eventsourcing.__file__).resolve().parent

# (file, class, name): why no public road exists for it.
ALLOWED = {
    # The library runs no public method inside its SQLite insert transaction with the cursor; its docs (examples
    # "searchable content", "searchable timestamps") extend this hook to write rows beside the events.
    ("projections/keys.py", "SQLiteKeyedRecorder", "_insert_events"),
}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _base_names(node: ast.ClassDef) -> list[str]:
    names = []
    for base in node.bases:
        if isinstance(base, ast.Subscript):  # Generic[...]-style bases
            base = base.value
        if isinstance(base, ast.Name):
            names.append(base.id)
        elif isinstance(base, ast.Attribute):
            names.append(base.attr)
    return names


def _is_self(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id in {"self", "cls"}) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


class _Classes(ast.NodeVisitor):
    """One pass over a file: each class's bases and own private names (its methods, class attributes and
    ``self._x`` assignments), and each access to a private attribute with the class it is in."""

    def __init__(self, rel: str) -> None:
        self.rel = rel
        self.classes: list[tuple[ast.ClassDef, list[str], set[str]]] = []
        self.accesses: list[tuple[str, ast.ClassDef | None, bool]] = []  # (name, class, through self)
        self.stack: list[tuple[ast.ClassDef, set[str]]] = []

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        own = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for item in node.body:
            if isinstance(item, ast.Assign):
                own.update(t.id for t in item.targets if isinstance(t, ast.Name))
            elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                own.add(item.target.id)
        entry = (node, _base_names(node), {n for n in own if _private(n)})
        self.classes.append(entry)
        self.stack.append((node, entry[2]))
        self.generic_visit(node)
        self.stack.pop()

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if _private(node.attr):
            owner = self.stack[-1] if self.stack else None
            on_self = _is_self(node.value)
            if on_self and owner is not None and isinstance(node.ctx, ast.Store):
                owner[1].add(node.attr)
            self.accesses.append((node.attr, owner[0] if owner else None, on_self))
        self.generic_visit(node)


def _scan(texts: dict[Path, str], root: Path) -> list[_Classes]:
    scans = []
    for path, text in texts.items():
        scan = _Classes(path.relative_to(root).as_posix())
        scan.visit(ast.parse(text))
        scans.append(scan)
    return scans


def _by_name(scans: list[_Classes]) -> dict[str, list[tuple[list[str], set[str]]]]:
    found: dict[str, list[tuple[list[str], set[str]]]] = {}
    for scan in scans:
        for node, bases, own in scan.classes:
            found.setdefault(node.name, []).append((bases, own))
    return found


# The project's classes and the private names it defines itself, read from the text of every file (parsing them
# all takes seconds); only the files that name one of the library's private members are parsed.
CLASS = re.compile(r"^[ \t]*class[ \t]+(\w+)[ \t]*\(([^)]*)\)[ \t]*:", re.MULTILINE)
DEFINED = re.compile(r"\bdef[ \t]+(_[A-Za-z]\w*)|\bself\.(_[A-Za-z]\w*)[ \t]*(?::[^=\n]+)?=[^=]")
NAMED = re.compile(r"(?:\.|\bdef[ \t]+)(_[A-Za-z]\w*)")


def _project_index(texts: dict[Path, str]) -> tuple[dict[str, list[tuple[list[str], set[str]]]], set[str]]:
    classes: dict[str, list[tuple[list[str], set[str]]]] = {}
    defined: set[str] = set()
    for text in texts.values():
        for name, bases in CLASS.findall(text):
            names = [b.split("[")[0].strip().split(".")[-1] for b in bases.split(",") if b.strip() and "=" not in b]
            classes.setdefault(name, []).append((names, set()))
        defined.update(a or b for a, b in DEFINED.findall(text))
    return classes, defined


def _library_files() -> list[Path]:
    return [p for p in LIBRARY.rglob("*.py") if not {"tests", "examples"} & set(p.relative_to(LIBRARY).parts)]


def _source_files(root: Path) -> list[Path]:
    packages = [d for d in root.iterdir() if (d / "__init__.py").exists() and d.name not in {"tests", ".venv"}]
    return sorted(p for d in packages for p in d.rglob("*.py"))


def _inherited(name: str, library: dict, project: dict, seen: frozenset[str] = frozenset()) -> set[str] | None:
    """The library's private names a class of this name inherits (the project's class of that name, else the
    library's), or None if it derives from no class of the library."""
    if name in seen:
        return None
    seen = seen | {name}
    found: set[str] | None = None
    if name in project:
        for bases, _own in project[name]:
            for base in bases:  # a base named as the class itself (``class Event(Aggregate.Event)``) is the library's
                mine = base == name
                more = _inherited(base, library, {} if mine else project, seen - {name} if mine else seen)
                if more is not None:
                    found = (found or set()) | more
        return found
    for bases, own in library.get(name, []):
        found = (found or set()) | own
        for base in bases:
            found |= _inherited(base, library, {}, seen) or set()
    return found


def library_private_uses(root: Path) -> set[tuple[str, str, str]]:
    """(file, class or "", name) for every use of a private member of the library's classes under ``root``."""
    library = _by_name(_scan({p: p.read_text(encoding="utf-8") for p in _library_files()}, LIBRARY))
    every_private = set().union(*(own for entries in library.values() for _bases, own in entries))
    texts = {p: p.read_text(encoding="utf-8") for p in _source_files(root)}
    project, defined_here = _project_index(texts)
    scans = _scan({p: t for p, t in texts.items() if set(NAMED.findall(t)) & every_private}, root)
    resolved: dict[str, set[str]] = {}  # base name -> the library's private names it brings

    def hooks(node: ast.ClassDef) -> set[str]:
        out: set[str] = set()
        for base in _base_names(node):
            if base not in resolved:
                resolved[base] = _inherited(base, library, project) or set()
            out |= resolved[base]
        return out

    uses: set[tuple[str, str, str]] = set()
    for scan in scans:
        for node, _bases, _own in scan.classes:
            inherited = hooks(node)
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in inherited:
                    uses.add((scan.rel, node.name, item.name))  # an override
        for name, owner, on_self in scan.accesses:
            if on_self and owner is not None and name in hooks(owner):
                uses.add((scan.rel, owner.name, name))  # a call or read of an inherited private member
            elif not on_self and name in every_private and name not in defined_here:
                uses.add((scan.rel, owner.name if owner else "", name))  # another object's, the library's
    return uses


def test_the_source_uses_no_private_member_of_the_library_but_the_listed_ones():
    uses = library_private_uses(ROOT)
    assert uses - ALLOWED == set(), "use the library's public road, or list the hook in ALLOWED with why"
    assert ALLOWED - uses == set(), "a listed hook is no longer used: take it off the list"


def test_the_scan_finds_an_override_a_call_and_a_foreign_access(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "store.py").write_text(
        "from eventsourcing.application import Application, Repository\n"
        "class Store(Application):\n"
        "    def _notify(self, recordings):\n"
        "        self._take_snapshots(None)\n"
        "    def _mine(self):\n"
        "        return self._mine\n"
        "class Games(Store):\n"
        "    def _take_snapshots(self, event):\n"
        "        pass\n"
        "class Repo(Repository):\n"
        "    def fold(self, gid, v):\n"
        "        return super()._reconstruct_aggregate(gid, v, None)\n"
        "class Other:\n"
        "    def _notify(self):\n"
        "        return self._notify\n"
        "def fork(game, new_id):\n"
        "    game._id = new_id\n"
    )
    assert library_private_uses(tmp_path) == {
        ("pkg/store.py", "Store", "_notify"),
        ("pkg/store.py", "Store", "_take_snapshots"),
        ("pkg/store.py", "Games", "_take_snapshots"),
        ("pkg/store.py", "Repo", "_reconstruct_aggregate"),
        ("pkg/store.py", "", "_id"),
    }
