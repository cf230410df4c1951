"""Powers' JSON reads: a battle as you see it and its report. Its commands' JSON routes are made from their
declarations (``api.powers.declared``, ``api.declare``)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends

from api.deps import Principal, get_games
from api.powers.service import BattleReads
from api.schemas import GAME_READ

router = APIRouter(prefix="/games/{game_id}", tags=["powers"], responses=GAME_READ)


# The service, with the battle reads Powers' mixin adds to it (api.rulesets composes it; these routes are mounted
# only where Powers is installed).
BattleReadsDep = Annotated[BattleReads, Depends(get_games)]


@router.get("/battles/{battle_id}")
def battle(game_id: str, battle_id: str, games: BattleReadsDep, me: Principal) -> dict:
    """A battle as you see it (P.4): the battlefield, armies and wounds, goals, whose turn it is."""
    return games.battle(game_id, me, battle_id)


@router.get("/battles/{battle_id}/report")
def battle_report(game_id: str, battle_id: str, games: BattleReadsDep, me: Principal) -> list[dict]:
    """The battle's report round by round, as you saw it (the GM: in full)."""
    return games.battle_report(game_id, me, battle_id)
