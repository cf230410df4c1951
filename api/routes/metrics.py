"""``GET /metrics`` for Prometheus (issue 27), and the request log: each request's id and game id on every log line
made while it runs, and its 429s counted.

``/metrics`` answers a bearer key (``EMISSARY_METRICS_KEY``) when one is set. Without a key it answers only a client
on this machine (127.0.0.1), and in production not at all: a production scrape always shows the key.
"""

from __future__ import annotations

import hmac
import logging
import re
import time
import uuid

from fastapi import APIRouter, Request, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from application import metrics
from domain.errors import Forbidden, NotFound, Unauthorized
from projections import logs

router = APIRouter(tags=["ops"])
log = logging.getLogger("emissary.request")

LOOPBACK = ("127.0.0.1", "::1")
GAME = re.compile(r"^/(?:games|play|gm|signin|board|console)/([0-9a-fA-F-]{36})(?:/|$)")
REQUEST_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


@router.get("/metrics", include_in_schema=False)
def metrics_page(request: Request) -> Response:
    """The counters of this process (of all of them, in multiprocess mode) and the store's figures, as Prometheus
    reads them."""
    settings = request.app.state.settings
    key = settings.metrics_key
    if key:
        sent = request.headers.get("authorization", "")
        if not hmac.compare_digest(sent.encode(), f"Bearer {key}".encode()):
            raise Unauthorized("send 'Authorization: Bearer <EMISSARY_METRICS_KEY>'", field="authorization")
    elif settings.env == "production":
        raise NotFound("no metrics here: set EMISSARY_METRICS_KEY to serve them", field="path")
    elif (request.client.host if request.client else None) not in LOOPBACK:
        raise Forbidden("metrics are served to this machine only; set EMISSARY_METRICS_KEY", field="authorization")
    return Response(metrics.exposition(request.app.state.projector), media_type=metrics.CONTENT_TYPE_LATEST)


class RequestLog:
    """Outermost: gives the request an id (the client's ``X-Request-ID`` if it is a plain one, else a new one, sent
    back in the answer), names its game on every log line made while it runs, logs one line per request (method,
    path without its query, status, time) and counts the requests a rate limit refused."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        sent = dict(scope.get("headers") or ()).get(b"x-request-id", b"").decode("latin-1")
        request_id = sent if REQUEST_ID.match(sent) else uuid.uuid4().hex
        path = scope.get("path", "")
        game = GAME.match(path)
        ids = logs.REQUEST_ID.set(request_id), logs.GAME_ID.set(game.group(1).lower() if game else None)
        started = time.perf_counter()
        status = 500

        async def answer(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
                if status == 429:
                    metrics.rate_limited(_limit(path))
            await send(message)

        try:
            await self.app(scope, receive, answer)
        finally:
            ms = (time.perf_counter() - started) * 1000
            log.info("request method=%s path=%s status=%s ms=%.1f", scope.get("method"), path, status, ms)
            logs.REQUEST_ID.reset(ids[0])
            logs.GAME_ID.reset(ids[1])


def _limit(path: str) -> str:
    """Which kind of request a rate limit refused (a label of few values: never the path itself)."""
    if path.startswith(("/signin", "/me")):
        return "signin"
    if path.startswith("/inbound"):
        return "inbound"
    if path.startswith("/games"):
        return "games"
    return "other"
