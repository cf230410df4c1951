"""Rules changes replayed in Powers (issue 29 item 3, ``Ruleset.redecide``): a recorded result as a version's rules
decide it from the inputs the event carries, never new dice; and the same rules decide its results afresh.

An ``ActionResolved`` carries its net successes (the committed dice tallied, P-DICE-3, less what resistance took,
P-RES-4) and the difficulty it faced; the success test (P-DICE-4: ``net >= difficulty``, the excess above it, P-AMB-11)
decides ``success`` and ``excess`` from them. A version of Powers whose success test differs (a house rule) is this
ruleset with ``redecide=VersionRules(margin=n)`` (success needs ``n`` net successes beyond the difficulty, its excess
counted from there: a rule as data, so a derivation shows it step by step): replaying a game under it re-decides each
resolved action's success and excess from the same net and difficulty, a game that adopts it resolves every later action
by it (``version_rules``), and the "why" of each action resolved after the adoption is derived by it
(``domain.powers.explain``, ``in_force``). What a resolved action set off when it was recorded (its ritual, its world
effects, its battle) stays as recorded: a replay amends results, it decides nothing new."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domain.platform.explain import rules_of
from domain.powers import rules


@dataclass(frozen=True)
class VersionRules:
    """The rules a version of Powers may decide otherwise, and its ``Ruleset.redecide``."""

    margin: int = 0  # P-DICE-4 as printed: success needs the difficulty, no more
    rule: str = "P-DICE-4"

    def outcome(self, net: int, difficulty: int) -> tuple[bool, int]:
        """P-DICE-4 as this version has it: success if net >= difficulty + margin, the excess beyond that."""
        return rules.outcome(net, difficulty + self.margin)

    def __call__(self, game: Any, e: Any) -> tuple[dict[str, Any], list[str]] | None:
        """A recorded ``ActionResolved``'s success and excess as this version decides them (P-DICE-4)."""
        if type(e).__name__ != "ActionResolved":
            return None
        success, excess = self.outcome(int(e.net), int(e.difficulty))
        return {"success": success, "excess": excess}, [self.rule]


def version_rules(game: Any) -> VersionRules:
    """The rules of the version a game is pinned at (the printed ones if that version declares none of its own)."""
    found = game.ruleset.redecide
    return found if isinstance(found, VersionRules) else VersionRules()


def in_force(version: str | None) -> VersionRules:
    """The rules of the installed version of Powers named ``version`` (a result's derivation is made by the version in
    force when it was resolved); the printed ones for None, or a version that is not installed or declares none."""
    return rules_of("powers", version, VersionRules())


redecide = VersionRules()
