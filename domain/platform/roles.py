"""Roles at a table (DESIGN "Rulesets on one platform": seats and roles, GM, host, player, observer).

A ruleset declares its roles, which of them the game's organising credential holds (the principal
``gm`` that created the game), which one a seat gets when it is added, and what each role may do
beyond playing its own seat. Powers has a GM who may do everything and sees everything; the covenant
game has no GM: one seat holds the host role, which rules on gaps and custom actions and runs the
windows, but a host who plays sees the table as a player (``domain.visibility``: a seat sees its own
audience and the public one, whatever its roles), and the organising credential is the auditor.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

GM = "gm"
HOST = "host"
PLAYER = "player"
OBSERVER = "observer"
AUDITOR = "auditor"

# What a role may do beyond acting for its own seat.
RULE = "rule"  # rule on a gap, show a seat what it learned, approve a custom action
WINDOWS = "windows"  # move deadlines, close windows, grant or refuse extensions
LINKS = "links"  # reissue sign-in links
HISTORY = "history"  # roll back, mark a fork
PRIVILEGES = frozenset({RULE, WINDOWS, LINKS, HISTORY})


@dataclass(frozen=True)
class Roles:
    """The roles a ruleset declares and what each may do; the default is a game with a GM."""

    declared: tuple[str, ...] = (GM, PLAYER, OBSERVER)
    organiser: str = GM  # the role of the credential that created the game (principal ``gm``)
    seated: str = PLAYER  # the role a seat has unless given others
    grants: Mapping[str, frozenset[str]] = field(default_factory=lambda: MappingProxyType({GM: PRIVILEGES}))

    def __post_init__(self) -> None:
        unknown = {self.organiser, self.seated, *self.grants} - set(self.declared)
        if unknown:
            raise ValueError(f"roles {sorted(unknown)} are used but not declared")
        bad = {p for ps in self.grants.values() for p in ps} - PRIVILEGES
        if bad:
            raise ValueError(f"unknown privileges {sorted(bad)}")

    def may(self, roles: frozenset[str] | set[str], privilege: str) -> bool:
        """Whether any of these roles holds the privilege."""
        return any(privilege in self.grants.get(r, frozenset()) for r in roles)

    def holders(self, privilege: str) -> list[str]:
        """The roles that hold a privilege, in declared order (for a refusal's sentence)."""
        return [r for r in self.declared if privilege in self.grants.get(r, frozenset())]


WITH_GM = Roles()
"""A game with a GM (Powers): the GM may do everything; seats play."""
