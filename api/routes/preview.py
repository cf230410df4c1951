"""A preview for the GM or host (issue 29 item 2): ``POST /games/{g}/preview`` closes the pending step in a scratch
copy and answers every viewer's outcome; the game records one audit line (``Previewed``), seen by the GM and hosts."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field

from api.deps import CurrentCaller, GamesDep
from api.schemas import GAME_COMMAND, Id, Strict
from application import preview as previews

router = APIRouter(tags=["history"])


class PreviewRequest(Strict):
    window_id: Id | None = Field(
        default=None, description="The open window whose close to preview; by default the one the game waits on"
    )


NO_BODY = PreviewRequest()


@router.post("/games/{game_id}/preview", responses=GAME_COMMAND)
def preview(game_id: str, games: GamesDep, me: CurrentCaller, body: PreviewRequest = NO_BODY) -> dict:
    """GM or host: what closing the pending step (a resolution, a battle round, a Reckoning, a Lodge effect chain)
    would publish, for every viewer (each seat's events, view and derivations, the observers', the GM's), closed in
    a scratch copy with the game's own committed dice; publishing it next gives exactly this. Nothing is recorded but
    an audit line the GM and hosts see; anyone else is refused (403, naming the roles that may)."""
    return previews.preview(games, me, game_id, body.window_id).as_dict()
