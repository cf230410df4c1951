"""History: feed, GM audit and export, phases, views of the past, rollback, fork, verification."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime
from typing import Annotated, Literal
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import PlainTextResponse, Response, StreamingResponse
from starlette.concurrency import run_in_threadpool

from api import rulesets
from api.deps import GamesDep, IdempotencyKey, Principal
from api.schemas import (
    GAME_COMMAND,
    GAME_READ,
    JSON_LINES,
    LAGGING,
    AtVersion,
    ForkRequest,
    PageSize,
    Position,
    ReceiptPublic,
    RollbackRequest,
    errors,
)
from domain.platform.verify import InvalidExport, parse_export, verify_export
from projections.projector import Projector

router = APIRouter(tags=["history"])


def get_projector(request: Request) -> Projector:
    return request.app.state.projector


ProjectorDep = Annotated[Projector, Depends(get_projector)]

# Every list is paginated: ``after`` (where the last page ended) and ``limit`` (clamped to 1..MAX_LIMIT).
MAX_LIMIT = 5000
WaitFor = Annotated[
    Position | None,
    Query(
        description="Your receipt's sequence: wait (a few seconds at most) "
        "until your timeline holds it; 202 if it does not yet",
    ),
]


def clamp(limit: int, default: int = 500) -> int:
    return min(max(limit if limit is not None else default, 1), MAX_LIMIT)


def read_models_at(request: Request, response: Response, game_id: str, me: str, wait_for: int | None) -> None:
    """With ``wait_for`` (a receipt's sequence), wait until the caller's timeline holds it; if the read
    models still lag, answer 202 with ``X-Lagging: true`` and the page as it stands."""
    if wait_for is None:
        return
    games, projector = request.app.state.games, request.app.state.projector
    key = str(games.get_game(game_id, for_update=False).id)
    if not projector.wait_for(key, me, wait_for, request.app.state.settings.read_wait_seconds):
        response.status_code = 202
        response.headers["X-Lagging"] = "true"


def next_page(request: Request, response: Response, after: int | None) -> None:
    """The cursor of the next page, if there is one: ``X-Next-After`` and a ``Link: <...>; rel="next"``."""
    if after is None:
        return
    query = {**request.query_params, "after": str(after)}
    query.pop("wait_for", None)
    response.headers["X-Next-After"] = str(after)
    response.headers["Link"] = f'<{request.url.replace_query_params(**query)}>; rel="next"'


@router.get("/games/{game_id}/feed", responses={**GAME_READ, **LAGGING})
def feed(
    game_id: str,
    request: Request,
    response: Response,
    games: GamesDep,
    projector: ProjectorDep,
    me: Principal,
    after: Position = 0,
    limit: PageSize = 500,
    wait_for: WaitFor = None,
) -> list[dict]:
    """Your timeline: what you may see, in your own time zone, numbered by your own sequence; one page
    (``after``/``limit``; the next page's cursor in ``X-Next-After`` and ``Link``)."""
    read_models_at(request, response, game_id, me, wait_for)
    limit = clamp(limit)
    zone = ZoneInfo(games.timezone_for(game_id, me))
    items = projector.feed(str(games.get_game(game_id, for_update=False).id), me, after, limit + 1)
    next_page(request, response, items[limit - 1]["seq"] if len(items) > limit else None)
    items = items[:limit]
    for item in items:
        item["local_time"] = datetime.fromisoformat(item["at"]).astimezone(zone).isoformat()
        item["timezone"] = zone.key
    return items


@router.get(
    "/games/{game_id}/audit",
    response_model=None,
    responses={
        **GAME_READ,
        **LAGGING,
        200: {
            "description": "A page of the audit: JSON (``format=json``), JSON Lines (``jsonl``) or CSV (``csv``)",
            "content": {
                "application/json": {"schema": {"type": "array", "items": {"type": "object"}}},
                JSON_LINES: {"schema": {"type": "string", "description": "one JSON object a line"}},
                "text/csv": {"schema": {"type": "string", "description": "a header line, then one row an event"}},
            },
        },
    },
)
def audit(
    game_id: str,
    request: Request,
    response: Response,
    games: GamesDep,
    projector: ProjectorDep,
    me: Principal,
    seat: Annotated[
        str | None,
        Query(description="a seat acting, shown the event or named in it (a ruleset's clients may use its first name)"),
    ] = None,
    phase: str | None = None,
    type: str | None = None,
    actor: str | None = None,
    format: Literal["json", "jsonl", "csv"] = "json",
    after: Position = 0,
    limit: PageSize = 500,
    wait_for: WaitFor = None,
) -> Response | list[dict]:
    """GM: every event with actor, server time, phase, audience and who was shown it; filterable; JSONL/CSV;
    one page of at most ``limit`` events after version ``after`` (next page: ``X-Next-After``, ``Link``)."""
    games.require_gm(me)
    read_models_at(request, response, game_id, me, wait_for)
    rows, next_after = projector.audit_page(
        str(games.get_game(game_id, for_update=False).id),
        seat=rulesets.query_value(request.query_params, "seat"),
        phase=phase,
        event_type=type,
        actor=actor,
        after=after,
        limit=clamp(limit),
    )
    next_page(request, response, next_after)
    out = render_rows(rows, format)
    if isinstance(out, Response):
        out.headers.update({k: v for k, v in response.headers.items() if k.lower().startswith(("x-", "link"))})
        out.status_code = response.status_code or out.status_code
    return out


def render_rows(rows: list[dict], format: str) -> Response | list[dict]:
    """Rows as JSON, JSON Lines or CSV."""
    if format == "jsonl":
        return PlainTextResponse(
            "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), media_type="application/x-ndjson"
        )
    if format == "csv":
        out = io.StringIO()
        columns = ["version", "type", "actor", "at", "phase", "audience", "shown_to", "superseded_by", "data"]
        writer = csv.DictWriter(out, fieldnames=columns)
        writer.writeheader()
        for r in rows:
            writer.writerow(
                {
                    k: json.dumps(r[k], sort_keys=True) if isinstance(r.get(k), (dict, list)) else r.get(k)
                    for k in columns
                }
            )
        return PlainTextResponse(out.getvalue(), media_type="text/csv")
    return rows


@router.get(
    "/games/{game_id}/export",
    response_class=StreamingResponse,
    responses={
        **GAME_READ,
        200: {
            "description": "The events you may see, one JSON object a line (JSON Lines)",
            "content": {JSON_LINES: {"schema": {"type": "string", "description": "one event a line"}}},
        },
    },
)
def export(game_id: str, games: GamesDep, me: Principal) -> Response:
    """The events you may see, as JSON Lines: feed this to `emissary verify` or POST /verify. Streamed
    from your timeline a page at a time."""
    first = games.visible_events(game_id, me, limit=MAX_LIMIT)

    def lines():
        page = first
        while page:
            yield "".join(json.dumps(e, sort_keys=True) + "\n" for e in page)
            if len(page) < MAX_LIMIT:
                return
            page = games.visible_events(game_id, me, after=page[-1]["seq"], limit=MAX_LIMIT)

    return StreamingResponse(lines(), media_type="application/x-ndjson")


@router.get("/games/{game_id}/phases", responses={**GAME_READ, **LAGGING})
def phases(
    game_id: str,
    request: Request,
    response: Response,
    games: GamesDep,
    me: Principal,
    after: Position = 0,
    limit: PageSize = 500,
    wait_for: WaitFor = None,
) -> list[dict]:
    """Every phase the game has begun, and where it began; a page of ``limit`` after the first ``after``."""
    read_models_at(request, response, game_id, me, wait_for)
    items, next_after = games.phases_page(game_id, max(after, 0), clamp(limit))
    next_page(request, response, next_after)
    if me != "gm":
        for item in items:
            item.pop("version")
    return items


@router.get("/games/{game_id}/history/view", responses=GAME_READ)
def view_at(
    game_id: str,
    games: GamesDep,
    me: Principal,
    phase: str | None = None,
    version: AtVersion | None = None,
    as_viewer: Annotated[str | None, Query(alias="as")] = None,
) -> dict:
    """The board as it stood at a past phase: the GM as anyone, a player as themselves then."""
    return games.view_at(game_id, me, phase=phase, version=version if me == "gm" else None, as_viewer=as_viewer)


@router.post("/games/{game_id}/rollback", response_model=ReceiptPublic, responses=GAME_COMMAND)
def rollback(game_id: str, body: RollbackRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """GM: roll the live game back to the start of a phase; nothing is deleted."""
    return games.rollback(game_id, me, body.reason, phase=body.phase, version=body.version, key=key).as_dict()


@router.post("/games/{game_id}/fork", status_code=201, responses=GAME_COMMAND)
def fork(game_id: str, body: ForkRequest, games: GamesDep, me: Principal, key: IdempotencyKey) -> dict:
    """GM: a new game from this one's history up to a phase, for "what if" play."""
    new_id, receipt = games.fork(game_id, me, body.name, body.reason, phase=body.phase, version=body.version, key=key)
    return {"game_id": new_id, "receipt": receipt.as_dict()}


@router.post(
    "/verify",
    responses=errors(413, 422, 429),
    openapi_extra={
        "requestBody": {"required": True, "content": {"application/x-ndjson": {"schema": {"type": "string"}}}}
    },
)
async def verify(request: Request) -> dict:
    """Check an export with the checks of the ruleset its first event names: every seed, roll and sequence it
    shows (the platform's), and what the ruleset seals (Powers' difficulties and submission digests, the
    covenant game's Certamen bids); the report lists what it does not check. Needs no account. A line that
    is not an event, or a ruleset not installed here, is refused (422) naming the line and field."""
    body = await request.body()
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as err:
        raise InvalidExport(f"the export is not UTF-8 text (byte {err.start})", line=None, field="body") from None
    return await run_in_threadpool(lambda: verify_export(parse_export(text)).as_dict())
