"""The rulesets this service hosts: importing this module registers each (domain.platform.ruleset).

Adding a ruleset adds its package under ``domain/`` and one import here.
"""

from __future__ import annotations

from domain.covenants.ruleset import COVENANTS
from domain.platform.ruleset import Ruleset
from domain.powers.ruleset import POWERS

INSTALLED: tuple[Ruleset, ...] = (POWERS, COVENANTS)
