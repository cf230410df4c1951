"""Powers' JSON reads: a battle as you see it and its report; and the first name of a platform route its clients
may still call. Its commands' JSON routes are made from their declarations (``api.powers.declared``,
``api.declare``)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import GamesDep, Principal, SenderDep
from api.powers.service import BattleReads
from api.routes import games as platform
from api.schemas import GAME_COMMAND, GAME_READ, ReceiptPublic

router = APIRouter(prefix="/games/{game_id}", tags=["powers"], responses=GAME_READ)


@router.get("/battles/{battle_id}")
def battle(game_id: str, battle_id: str, games: GamesDep, me: Principal) -> dict:
    """A battle as you see it (P.4): the battlefield, armies and wounds, goals, whose turn it is."""
    return BattleReads(games).battle(game_id, me, battle_id)


@router.get("/battles/{battle_id}/report")
def battle_report(game_id: str, battle_id: str, games: GamesDep, me: Principal) -> list[dict]:
    """The battle's report round by round, as you saw it (the GM: in full)."""
    return BattleReads(games).battle_report(game_id, me, battle_id)


class PowerTokenReplacedPublic(BaseModel):
    power_id: str
    token: str | None = Field(
        description="The power's new bearer token; shown once (null when the request is "
        "a retry of one already answered: tokens are kept only as hashes)"
    )
    receipt: ReceiptPublic


@router.post(
    "/powers/{power_id}/token",
    status_code=201,
    response_model=PowerTokenReplacedPublic,
    responses=GAME_COMMAND,
    deprecated=True,
)
async def replace_token(game_id: str, power_id: str, sender: SenderDep) -> dict:
    """GM: replace a power's token, by the route's first name: ``POST /games/{game_id}/seats/{seat}/token``, whose
    answer names the seat ``seat``; this one answers as it always did, with ``power_id``."""
    out = await platform.replace_token(game_id, power_id, sender)
    return {"power_id": out.pop("seat"), **out}
