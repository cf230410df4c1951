"""Rules changes replayed in the Lodge (issue 29 item 3, ``Ruleset.redecide``): a rebuilt Room's score as a version's
rules decide it from what the event recorded, the Instability Cubes counted in the Room and its banner (C5, R45-R50).

A ``RoomScored`` carries the counts and the banner it scored; the scoring rule (L-SCORE-1: a colour alone gains the
leftmost banner + 1, R46 replacing R47 as L-AMB-2 has it; otherwise by rank, dense as L-AMB-1 unless the game ranks
by competition; ties reduced by 1, R50, L-AMB-3) decides its Power Points and the changes that pay them. A version of
the Lodge whose scoring differs (a house rule) is this ruleset with ``redecide=VersionRules(its rule)``, and a game
that adopts it scores every later Room by it."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from domain.lodge.scoring import score_room

Scoring = Callable[[dict[str, int], Sequence[int], str], dict[str, int]]  # (counts, banner, ranking) -> PP


def scored(data: Mapping[str, Any], pp: Mapping[str, int]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A ``RoomScored``'s data and changes with these Power Points (as ``LodgeGame`` records them, C5)."""
    room = data["room"]
    changes = [{"op": "pp", "who": who, "amount": n, "why": f"rebuilt {room}"} for who, n in sorted(pp.items())]
    return {**data, "pp": dict(pp)}, changes


@dataclass(frozen=True)
class VersionRules:
    """The rules a version of the Lodge may decide otherwise, and its ``Ruleset.redecide``."""

    score: Scoring = score_room  # L-SCORE-1 as printed
    rule_ids: tuple[str, ...] = ("L-SCORE-1",)

    def __call__(self, game: Any, e: Any) -> tuple[dict[str, Any], list[str]] | None:
        """A recorded ``RoomScored``'s Power Points, and the changes paying them, as this version scores the Room."""
        if type(e).__name__ != "RoomScored" or game is None:
            return None
        ranking = str(game.state.options.get("ranking_mode", "dense"))
        data, changes = scored(e.data, self.score(dict(e.data["counts"]), list(e.data["banner"]), ranking))
        return {"data": data, "changes": changes}, list(self.rule_ids)


def version_rules(game: Any) -> VersionRules:
    """The rules of the version a game is pinned at (the printed ones if that version declares none of its own)."""
    found = game.ruleset.redecide
    return found if isinstance(found, VersionRules) else VersionRules()


redecide = VersionRules()
