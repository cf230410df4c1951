"""Disputes (issue 29 item 4): a seat disputes an event it was shown, named by its own number for it; the GM (or the
hosts who were shown it, where there is no GM) answers in the dispute's thread, pointing at a derivation, a preview,
a rollback or a rules replay, and settles it. Writes are commands through the one service
(``domain.platform.disputes``); the list reads the game and the caller's timeline. A dispute the caller may not read
is answered as one that does not exist (404, the same words)."""

from __future__ import annotations

from typing import Any, Literal

from fastapi import APIRouter
from pydantic import Field

from api.deps import GamesDep, Principal, SenderDep
from api.routes.history import ProjectorDep
from api.schemas import COMMAND, GAME_READ, Id, ReceiptPublic, Strict
from domain import limits
from domain.ids import GM
from domain.platform.commands import AnswerDispute, RaiseDispute, SettleDispute
from domain.platform.feed import words
from domain.platform.posts import POST_TEXT

router = APIRouter(prefix="/games/{game_id}", tags=["disputes"], responses=GAME_READ)


class DisputeRequest(Strict):
    seq: int = Field(ge=1, le=limits.NUMBER * 1000, description="The disputed event's number in your own feed")
    text: str = Field(min_length=1, max_length=POST_TEXT, description="What you dispute, and why")


class AnswerRequest(Strict):
    text: str = Field(min_length=1, max_length=POST_TEXT)
    points_at: str | None = Field(
        None,
        max_length=limits.IDENTIFIER * 2,
        description="derivation:<result id>, preview[:<window>], rollback:<phase> or replay[:<version>]",
    )


class SettleRequest(Strict):
    outcome: Literal["upheld", "rejected", "withdrawn"] = Field(
        description="upheld or rejected (whoever answers it), withdrawn (whoever raised it)"
    )
    note: str = Field("", max_length=limits.REASON)


def disputes_seen(games: Any, projector: Any, game_id: str, viewer: str) -> list[dict]:
    """The disputes ``viewer`` may read, oldest first, each with the disputed event in the viewer's own numbering
    (``seq``; the GM also its ``version``), its kind in words, the raiser's name, the answers and the outcome."""
    game = games.get_game(game_id, for_update=False)
    key = str(game.id)
    out = []
    for d in game.disputes_for(viewer):
        seq: int | None = d["seq"] if d["raiser"] == viewer else None
        version = None
        if seq is None:  # the GM, or a host it was raised to (who was shown the event): their own number for it
            version = games.seen_version(game.id, d["raiser"], d["seq"])
            seq = projector.seq_of(key, viewer, version) if version is not None and projector is not None else None
        seat = game.seats.get(d["raiser"])
        item = {
            "dispute_id": d["id"],
            "thread_id": d["thread"],
            "raised_by": d["raiser"],
            "raised_by_name": getattr(seat, "name", d["raiser"]),
            "event": {"seq": seq, "kind": d["about"], "words": words(d["about"])},
            "answers": [{"post_id": a["post"], "points_at": a["points_at"], "by": a["by"]} for a in d["answers"]],
            "outcome": d["outcome"],
            "note": d["note"],
            "may_answer": d["outcome"] is None and game.rules_dispute(viewer, d),
            "may_withdraw": d["outcome"] is None and viewer == d["raiser"],
        }
        if viewer == GM:
            item["event"]["version"] = version
        out.append(item)
    return out


@router.get("/disputes")
def list_disputes(game_id: str, games: GamesDep, projector: ProjectorDep, me: Principal) -> list[dict]:
    """The disputes you may read (yours; the GM every one; a host those raised to it), oldest first, each with the
    disputed event in your own numbering, its thread, the answers and what they point at, and the outcome."""
    return disputes_seen(games, projector, game_id, me)


@router.post("/disputes", status_code=201, response_model=ReceiptPublic, responses=COMMAND)
async def raise_dispute(game_id: str, body: DisputeRequest, sender: SenderDep) -> dict:
    """Dispute an event you were shown, by its number in your feed: a thread with the GM (or the hosts who were
    shown it) opens with your text; ``result.dispute_id`` and ``result.thread_id`` name them."""
    return await sender.run(game_id, RaiseDispute(body.seq, body.text))


@router.post("/disputes/{dispute_id}/answer", response_model=ReceiptPublic, responses=COMMAND)
async def answer_dispute(game_id: str, dispute_id: Id, body: AnswerRequest, sender: SenderDep) -> dict:
    """GM (the hosts it was raised to, where there is no GM): answer in the dispute's thread, pointing at what settles
    it (a derivation, a preview, a rollback, a rules replay)."""
    return await sender.run(game_id, AnswerDispute(dispute_id, body.text, body.points_at))


@router.post("/disputes/{dispute_id}/settle", response_model=ReceiptPublic, responses=COMMAND)
async def settle_dispute(game_id: str, dispute_id: Id, body: SettleRequest, sender: SenderDep) -> dict:
    """Record the outcome: upheld or rejected (whoever answers it), withdrawn (whoever raised it), with a note."""
    return await sender.run(game_id, SettleDispute(dispute_id, body.outcome, body.note))
