"""The rulesets this service hosts: importing this module registers each (domain.platform.ruleset).

Adding a ruleset adds its package under ``domain/`` and one import here.
"""

from __future__ import annotations

from domain.covenants.ruleset import COVENANTS
from domain.lodge.ruleset import LODGE
from domain.platform.ruleset import Ruleset
from domain.powers.ruleset import POWERS

INSTALLED: tuple[Ruleset, ...] = (POWERS, COVENANTS, LODGE)
DEFAULT: str = INSTALLED[0].name  # the ruleset of a game created without naming one
