"""A ruleset is a plugin (issue 26): an installed distribution declares it under the entry-point group
``emissary.rulesets``, and the service finds it there (``importlib.metadata``), never by name.

The entry point names a ``Plugin`` (or a bare ``Ruleset``: a plugin with no API package). Discovery registers
each plugin's ruleset (``domain.platform.ruleset.register``); ``domain/rulesets.py`` and ``api/rulesets.py`` hold
nothing but discovery.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points

from domain.platform.ruleset import Ruleset, register, register_version

GROUP = "emissary.rulesets"


@dataclass(frozen=True)
class Plugin:
    """One installed ruleset, as its entry point declares it."""

    ruleset: Ruleset
    api: str = ""  # its package of pages, JSON routes, forms, templates and demo (``api/rulesets.py``), if any
    order: int = 100  # where it is listed, lower first; the first listed is a new game's default
    listed: bool = True  # False: its games are hosted, but the new-game form and the README do not offer it
    # other installed versions of its ruleset (issue 29): games pinned at one load under it, and a game's history can
    # be replayed under one and adopt it; ``ruleset`` stays the version new games are created with
    versions: tuple[Ruleset, ...] = ()


class PluginError(Exception):
    """An entry point of the group does not name a plugin, or names it under another name than its ruleset's."""


def discover(group: str = GROUP) -> tuple[Plugin, ...]:
    """Every installed plugin of the group, its ruleset registered, by order then name."""
    found: dict[str, Plugin] = {}
    for point in entry_points(group=group):
        if point.name not in found:  # the same distribution seen twice on the path: the first one found wins
            found[point.name] = _loaded(point)
    return tuple(sorted(found.values(), key=lambda p: (p.order, p.ruleset.name)))


def load(name: str, group: str = GROUP) -> Plugin | None:
    """The installed plugin of this name alone, its ruleset registered (no other ruleset's code is loaded); None if
    none is installed."""
    points = entry_points(group=group, name=name)
    return _loaded(next(iter(points))) if points else None


def _loaded(point: EntryPoint) -> Plugin:
    value = point.load()
    plugin = Plugin(value) if isinstance(value, Ruleset) else value
    if not isinstance(plugin, Plugin):
        raise PluginError(f"entry point {point.name} = {point.value} names no Plugin or Ruleset")
    if plugin.ruleset.name != point.name:
        raise PluginError(f"entry point {point.name} = {point.value} names ruleset {plugin.ruleset.name!r}")
    register(plugin.ruleset)
    for other in plugin.versions:
        register_version(other)
    return plugin
