"""The rulesets this service hosts: every plugin of the entry-point group ``emissary.rulesets`` (issue 26), found
and registered on import (``domain.platform.plugin``). Adding a ruleset installs its package; nothing here changes.
"""

from __future__ import annotations

from domain.platform.plugin import GROUP, Plugin, discover
from domain.platform.ruleset import Ruleset

PLUGINS: tuple[Plugin, ...] = discover()  # every installed plugin, in order
INSTALLED: tuple[Ruleset, ...] = tuple(p.ruleset for p in PLUGINS if p.listed)  # the rulesets offered, in order
UNLISTED: frozenset[str] = frozenset(p.ruleset.name for p in PLUGINS if not p.listed)  # hosted, never offered
if not INSTALLED:
    raise RuntimeError(f"no ruleset is installed under the entry-point group {GROUP}: reinstall (make or pip install)")
DEFAULT: str = INSTALLED[0].name  # the ruleset of a game created without naming one
