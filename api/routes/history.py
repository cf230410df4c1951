"""History: feed, GM audit and export, phases, views of the past, rollback, fork, verification."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from typing import Annotated, Literal
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import PlainTextResponse, Response
from starlette.concurrency import run_in_threadpool

from api.deps import GamesDep, IdempotencyKey, Principal
from api.schemas import ForkRequest, ReceiptPublic, RollbackRequest
from domain.verify import InvalidExport, parse_export, verify_events
from projections.projector import Projector

router = APIRouter(tags=["history"])


def get_projector(request: Request) -> Projector:
    return request.app.state.projector


ProjectorDep = Annotated[Projector, Depends(get_projector)]


@router.get("/games/{game_id}/feed")
def feed(game_id: str, games: GamesDep, projector: ProjectorDep, me: Principal, after: int = 0,
         limit: int = 500) -> list[dict]:
    """Your timeline: what you may see, in your own time zone, numbered by your own sequence."""
    projector.catch_up()
    zone = ZoneInfo(games.timezone_for(game_id, me))
    items = projector.feed(str(games.get_game(game_id, for_update=False).id), me, after, min(max(limit, 1), 5000))
    for item in items:
        item["local_time"] = datetime.fromisoformat(item["at"]).astimezone(zone).isoformat()
        item["timezone"] = zone.key
    return items


@router.get("/games/{game_id}/audit", response_model=None)
def audit(game_id: str, games: GamesDep, projector: ProjectorDep, me: Principal, power: str | None = None,
          phase: str | None = None, type: str | None = None, actor: str | None = None,
          format: Literal["json", "jsonl", "csv"] = "json") -> Response | list[dict]:
    """GM: every event with actor, server time, phase, audience and who was shown it; filterable; JSONL/CSV."""
    games.require_gm(me)
    projector.catch_up()
    rows = projector.audit(str(games.get_game(game_id, for_update=False).id), power=power, phase=phase,
                           event_type=type, actor=actor)
    return render_rows(rows, format)


def render_rows(rows: list[dict], format: str) -> Response | list[dict]:
    """Rows as JSON, JSON Lines or CSV."""
    if format == "jsonl":
        return PlainTextResponse("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows),
                                 media_type="application/x-ndjson")
    if format == "csv":
        out = io.StringIO()
        columns = ["version", "type", "actor", "at", "phase", "audience", "shown_to", "superseded_by", "data"]
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        for r in rows:
            writer.writerow({k: json.dumps(r[k], sort_keys=True) if isinstance(r.get(k), (dict, list)) else r.get(k)
                             for k in columns})
        return PlainTextResponse(out.getvalue(), media_type="text/csv")
    return rows


@router.get("/games/{game_id}/export")
def export(game_id: str, games: GamesDep, me: Principal) -> PlainTextResponse:
    """The events you may see, as JSON Lines: feed this to `emissary verify` or POST /verify."""
    lines = "".join(json.dumps(e, sort_keys=True) + "\n" for e in games.visible_events(game_id, me, limit=10**9))
    return PlainTextResponse(lines, media_type="application/x-ndjson")


@router.get("/games/{game_id}/phases")
def phases(game_id: str, games: GamesDep, me: Principal) -> list[dict]:
    """Every phase the game has begun, and where it began."""
    items = games.phases(game_id)
    if me != "gm":
        for item in items:
            item.pop("version")
    return items


@router.get("/games/{game_id}/history/view")
def view_at(game_id: str, games: GamesDep, me: Principal, phase: str | None = None, version: int | None = None,
            as_viewer: Annotated[str | None, Query(alias="as")] = None) -> dict:
    """The board as it stood at a past phase: the GM as anyone, a player as themselves then."""
    return games.view_at(game_id, me, phase=phase, version=version if me == "gm" else None, as_viewer=as_viewer)


@router.post("/games/{game_id}/rollback", response_model=ReceiptPublic)
def rollback(game_id: str, body: RollbackRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """GM: roll the live game back to the start of a phase; nothing is deleted."""
    return games.rollback(game_id, me, body.reason, phase=body.phase, version=body.version, key=key).as_dict()


@router.post("/games/{game_id}/fork", status_code=201)
def fork(game_id: str, body: ForkRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """GM: a new game from this one's history up to a phase, for "what if" play."""
    new_id, receipt = games.fork(game_id, me, body.name, body.reason, phase=body.phase, version=body.version, key=key)
    return {"game_id": new_id, "receipt": receipt.as_dict()}


@router.post("/verify", openapi_extra={"requestBody": {"required": True, "content": {
    "application/x-ndjson": {"schema": {"type": "string"}}}}})
async def verify(request: Request) -> dict:
    """Check an export: recompute every roll, sealed difficulty and submission digest it shows, and look
    for missing events; the report lists what it does not check. Needs no account. A line that is not an
    event is refused (422) naming the line and field."""
    body = await request.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidExport(f"the export is not UTF-8 text (byte {err.start})", line=None, field="body") from None
    return await run_in_threadpool(lambda: verify_events(parse_export(text)).as_dict())
