"""Rules changes replayed in Powers (issue 29 item 3, ``Ruleset.redecide``): a recorded result as a version's rules
decide it from the inputs the event carries, never new dice.

An ``ActionResolved`` carries its net successes (the committed dice tallied, P-DICE-3, less what resistance took,
P-RES-4) and the difficulty it faced; the success test (P-DICE-4: ``net >= difficulty``, the excess above it,
P-AMB-11) decides ``success`` and ``excess`` from them. A version of Powers whose success test differs (a house rule)
is this ruleset with ``redecide=redecider(its test)``: replaying a game under it re-decides each resolved action's
success and excess, from the same net and difficulty. What a resolved action set off when it was recorded (its
ritual, its world effects, its battle) stays as recorded: a replay amends results, it decides nothing new."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from domain.powers import rules

Outcome = Callable[[int, int], tuple[bool, int]]  # (net successes, difficulty) -> (success, excess)


def redecider(
    outcome: Outcome = rules.outcome, rule: str = "P-DICE-4"
) -> Callable[[Any, Any], tuple[dict[str, Any], list[str]] | None]:
    """``Ruleset.redecide`` for a version whose success test is ``outcome`` (P-DICE-4 as printed by default)."""

    def again(game: Any, e: Any) -> tuple[dict[str, Any], list[str]] | None:
        if type(e).__name__ != "ActionResolved":
            return None
        success, excess = outcome(int(e.net), int(e.difficulty))
        return {"success": success, "excess": excess}, [rule]

    return again


redecide = redecider()
