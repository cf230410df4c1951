"""Rules changes replayed in the Lodge (issue 29 item 3, ``Ruleset.redecide``): a rebuilt Room's score as a version's
rules decide it from what the event recorded, the Instability Cubes counted in the Room and its banner (C5, R45-R50).

A ``RoomScored`` carries the counts and the banner it scored; the scoring rule (L-SCORE-1: a colour alone gains the
leftmost banner + 1, R46 replacing R47 as L-AMB-2 has it; otherwise by rank, dense as L-AMB-1 unless the game ranks
by competition; ties reduced by 1, R50, L-AMB-3) decides its Power Points and the changes that pay them. A version of
the Lodge whose scoring differs (a house rule) is this ruleset with ``redecide=redecider(its rule)``."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from domain.lodge.scoring import score_room

Scoring = Callable[[dict[str, int], Sequence[int], str], dict[str, int]]  # (counts, banner, ranking) -> PP


def scored(data: Mapping[str, Any], pp: Mapping[str, int]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A ``RoomScored``'s data and changes with these Power Points (as ``LodgeGame`` records them, C5)."""
    room = data["room"]
    changes = [{"op": "pp", "who": who, "amount": n, "why": f"rebuilt {room}"} for who, n in sorted(pp.items())]
    return {**data, "pp": dict(pp)}, changes


def redecider(
    rule: Scoring = score_room, rule_ids: list[str] | None = None
) -> Callable[[Any, Any], tuple[dict[str, Any], list[str]] | None]:
    """``Ruleset.redecide`` for a version that scores a rebuilt Room by ``rule`` (L-SCORE-1 as printed by default)."""

    def again(game: Any, e: Any) -> tuple[dict[str, Any], list[str]] | None:
        if type(e).__name__ != "RoomScored" or game is None:
            return None
        ranking = str(game.state.options.get("ranking_mode", "dense"))
        pp = rule(dict(e.data["counts"]), list(e.data["banner"]), ranking)
        data, changes = scored(e.data, pp)
        return {"data": data, "changes": changes}, list(rule_ids or ["L-SCORE-1"])

    return again


redecide = redecider()
