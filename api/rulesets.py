"""The rulesets the API serves: ruleset name -> its API package, as its plugin declares it (``Plugin.api``, found
through the entry-point group ``emissary.rulesets``; README "Adding a ruleset"). A ruleset's package may hold any of:

- ``declared.py`` with ``DECLARED``: its commands, each declared once with its JSON route and its web form
  (``api.declare``), from which the platform makes the routes, their OpenAPI entries and the forms;
- ``routes.py`` with ``router``: its other JSON routes (its reads);
- ``web.py`` with ``board`` (and ``FORMS``, forms of its pages that no command declares): its pages (templates in
  its ``templates/`` folder);
- ``demo.py`` with ``play_demo`` (and ``play_demo_long``, for ``--long``): what ``emissary demo --ruleset NAME`` plays;
- ``status.py`` with ``seats(view, me)``: who has acted or is ready, from the viewer's view, for the status strip
  (``api.web.status``);
- ``help.py`` with ``MAIL`` (and ``VERBS``, ``USAGE``): its mail lines with an example each, and ``rules/`` (its rules
  text and ``ids.json``): what its help pages show besides its declared commands (``api.help``, issue 28);
- ``old_names.py`` with ``FIELDS`` and ``QUERY``: the names its clients sent for a platform's field or query
  parameter before the platform had its own, still accepted (``old_names``).

Importing this module imports no FastAPI.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import Any

from domain import rulesets as installed

API_PACKAGES: dict[str, str] = {p.ruleset.name: p.api for p in installed.PLUGINS if p.api}


def part(ruleset: str, name: str) -> ModuleType | None:
    """A ruleset package's module ``name`` (``routes``, ``web``, ``declared``, ``demo``), or None if it has none."""
    package = API_PACKAGES[ruleset]
    module = f"{package}.{name}"
    if importlib.util.find_spec(module) is None:
        return None
    return importlib.import_module(module)


def parts(name: str) -> list[ModuleType]:
    """The module ``name`` of every ruleset package that has one, in registry order."""
    return [m for ruleset in API_PACKAGES if (m := part(ruleset, name)) is not None]


@functools.cache
def old_names(kind: str) -> dict[str, str]:
    """The names every ruleset's clients may still send for the platform's (its package's ``old_names`` module:
    ``FIELDS``, a JSON body's or a command's field; ``QUERY``, a query parameter), old name -> the platform's."""
    return {old: new for m in parts("old_names") for old, new in getattr(m, kind, {}).items()}


def query_value(query: Mapping[str, str], name: str) -> str | None:
    """A query parameter's value, sent under its name or else under one a ruleset's clients gave it first; None if
    it is empty under every name."""
    names = [name, *(old for old, new in old_names("QUERY").items() if new == name)]
    return next((query[n] for n in names if query.get(n)), None)


def template_loaders() -> dict[str, Any]:
    """Each ruleset's ``templates/`` folder, under its name (found without importing the package's modules)."""
    from jinja2 import FileSystemLoader

    out: dict[str, Any] = {}
    for ruleset, package in API_PACKAGES.items():
        spec = importlib.util.find_spec(package)
        for folder in (spec.submodule_search_locations or []) if spec else []:
            if (Path(folder) / "templates").is_dir():
                out[ruleset] = FileSystemLoader(str(Path(folder) / "templates"))
    return out
