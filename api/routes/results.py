"""Results that explain themselves (issue 29): how a result came about, from the events the caller was shown."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from api.deps import GamesDep, Principal
from api.schemas import GAME_READ
from domain import limits
from domain.platform import explain as derivations

router = APIRouter(tags=["history"])
PAGE = 5000

ResultId = Annotated[
    str,
    Path(
        max_length=limits.IDENTIFIER * 2,
        description="the result's id, as the board and the derivations name it: ``action:<id>``, ``post:<id>``...",
    ),
]


def viewer_events(games: Any, game_id: str, viewer: str) -> list[dict]:
    """Every event ``viewer`` may see, in their order (their timeline, a page at a time)."""
    out: list[dict] = []
    while True:
        page = games.visible_events(game_id, viewer, after=out[-1]["seq"] if out else 0, limit=PAGE)
        out.extend(page)
        if len(page) < PAGE:
            return out


def derivations_for(games: Any, game_id: str, viewer: str) -> dict[str, dict]:
    """Every result ``viewer`` may have explained, derived from their own events by the game's ruleset."""
    ruleset = games.get_game(game_id, for_update=False).ruleset
    return derivations.derivations(ruleset, viewer_events(games, game_id, viewer))


@router.get("/games/{game_id}/results/{result_id}/explain", responses=GAME_READ)
def explain(game_id: str, result_id: ResultId, games: GamesDep, me: Principal) -> dict:
    """How a result came about: its dice with their roll numbers, its assets and modifiers, resistance, the
    difficulty (a sealed one once opened), each step with its rule id, and the result; built from the events you
    were shown alone, so it shows nothing you may not see (404 for a result you were not shown, as for none)."""
    ruleset = games.get_game(game_id, for_update=False).ruleset
    found = derivations.explain(ruleset, viewer_events(games, game_id, me), result_id)
    return {**found, "recomputes": not derivations.recomputes(found)}
