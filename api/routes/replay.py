"""Rules changes replayed (issue 29 item 3): ``POST /games/{g}/replay`` replays the game's history under another
installed version of its ruleset in a scratch copy and answers the difference, event by event; ``POST
/games/{g}/adopt`` adopts that version from a phase, recorded with the difference attached, every seat told what it
may see. The GM's or a host's alone."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import Field

from api.deps import CurrentCaller, GamesDep
from api.schemas import GAME_COMMAND, Id, Strict
from application import replay as replays

router = APIRouter(tags=["history"])


class ReplayRequest(Strict):
    version: Id = Field(description="The installed version of the game's ruleset to replay under")
    from_phase: Id | None = Field(default=None, description="Replay from the start of this phase; by default setup")


class AdoptRequest(Strict):
    version: Id = Field(description="The installed version of the game's ruleset to adopt")
    from_phase: Id = Field(description="The phase from whose start the new version counts (setup: the whole game)")


@router.post("/games/{game_id}/replay", responses=GAME_COMMAND)
def replay(game_id: str, body: ReplayRequest, games: GamesDep, me: CurrentCaller) -> dict:
    """GM or host: the game's history replayed under another installed version of its ruleset, in a scratch copy
    with the same committed dice: each event whose result, state or scores would change (before, after) with the rule
    ids involved, and how the game would end up. Nothing is recorded; anyone else is refused (403)."""
    return replays.replay(games, me, game_id, body.version, body.from_phase)


@router.post("/games/{game_id}/adopt", responses=GAME_COMMAND)
def adopt(game_id: str, body: AdoptRequest, games: GamesDep, me: CurrentCaller) -> dict:
    """GM or host: adopt another installed version of the ruleset from the start of a phase: the game carries on as
    its history replayed under it, recorded with the difference attached; each seat is told the changes it may see.
    Refused, recording nothing, for anyone else (403), a version not installed or already pinned (422)."""
    return replays.adopt(games, me, game_id, body.version, body.from_phase)
