"""The FastAPI app factory: nothing connects at import time."""

from __future__ import annotations

import contextlib
import logging
from datetime import timedelta
from pathlib import Path

from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from api import declare, rulesets, web
from api.compose import build_games, build_projector
from api.deps import document_sender_headers
from api.headers import SecurityHeaders, last_resort
from api.ratelimit import RateLimitMiddleware, RateLimits
from api.routes import (
    commands,
    disputes,
    games,
    history,
    invitations,
    mail,
    posts,
    preview,
    push,
    replay,
    results,
    webhooks,
    windows,
)
from api.routes.metrics import RequestLog
from api.routes.metrics import router as metrics_router
from api.security import BodyLimit, BodyTooLarge, CsrfRefused, ServerSessions, install_log_redaction
from api.web import contact as web_contact
from api.web import disputes as web_disputes
from api.web import help as web_help
from api.web import lobby as web_lobby
from api.web import maillinks as web_maillinks
from api.web import people as web_people
from api.web import push as web_push
from api.web import replay as web_replay
from api.web import routes as web_routes
from api.web import talk as web_talk
from api.web import webhooks as web_webhooks
from api.web.i18n import Language
from application.service import Games
from application.version import release
from domain import limits
from domain.errors import DomainError
from projections import logs
from projections.people import SignInLinks
from projections.sessions import SessionStore
from projections.settings import Settings

log = logging.getLogger("emissary.api")


def create_app(
    settings: Settings | None = None, games_service: Games | None = None, embedded_workers: bool = False
) -> FastAPI:
    """Build the app around a game service (built from settings unless given). With
    ``embedded_workers`` and an in-memory broker, an in-process Celery worker and sweep run too."""
    settings = settings or Settings()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        workers = None
        if embedded_workers and settings.embedded_workers and settings.broker_url.startswith("memory://"):
            from workers.embedded import EmbeddedWorkers

            workers = EmbeddedWorkers(app.state.games, app.state.projector, settings).start()
        install_log_redaction()  # again, after the server configured its logging
        yield
        if workers is not None:
            workers.stop()

    app = FastAPI(
        title="Emissary",
        version=release(),
        description="Event-sourced play-by-post games. Every accepted command returns a receipt; "
        "every refusal names the rule or field.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.games = games_service or build_games(settings)
    app.state.projector = build_projector(app.state.games, settings)
    app.state.sessions = SessionStore(
        app.state.projector.db, settings.secret_key, timedelta(hours=settings.session_ttl_hours)
    )
    app.state.rate_limits = RateLimits(settings)
    app.state.signin_links = SignInLinks(
        app.state.projector.db,
        timedelta(minutes=settings.signin_link_minutes),
        settings.signin_links_per_address,
        timedelta(minutes=settings.signin_window_minutes),
    )
    install_log_redaction()

    @app.exception_handler(DomainError)
    def domain_error(request: Request, exc: DomainError) -> JSONResponse:
        return JSONResponse(status_code=exc.status, content=exc.as_dict())

    @app.exception_handler(BodyTooLarge)
    def body_too_large(request: Request, exc: BodyTooLarge) -> JSONResponse:
        return exc.response()

    app.exception_handler(CsrfRefused)(web_routes.csrf_refused)

    @app.exception_handler(RequestValidationError)
    def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = [{"field": _field(e), "message": _message(e)} for e in exc.errors()]
        first = errors[0] if errors else {"field": "body", "message": "invalid"}
        return JSONResponse(
            status_code=422,
            content={
                "error": "ValidationError",
                "rule": None,
                "field": first["field"],
                "message": f"{first['field']}: {first['message']}",
                "errors": errors,
            },
        )

    @app.exception_handler(StarletteHTTPException)
    def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        # FastAPI's own refusals (a body it cannot parse, a route or method that does not exist), in our shape.
        field = "body" if exc.status_code == 400 else None
        return JSONResponse(
            status_code=exc.status_code,
            headers=getattr(exc, "headers", None),
            content={"error": "HTTPError", "rule": None, "field": field, "message": str(exc.detail)},
        )

    @app.exception_handler(Exception)
    def unexpected_error(request: Request, exc: Exception) -> JSONResponse:
        # A bug: say so in JSON and close the connection, so no client reuses a connection the server drops.
        log.error("unexpected error method=%s path=%s", request.method, request.url.path, exc_info=exc)
        return JSONResponse(
            status_code=500,
            headers={"Connection": "close", **last_resort()},  # sent outside the headers' middleware
            content={
                "error": "InternalError",
                "rule": None,
                "field": None,
                "message": "something went wrong on our side; nothing you sent was wrong, and it was logged",
            },
        )

    @app.get("/health", tags=["ops"])
    def health() -> dict:
        """Liveness: the service answers and its store is reachable; and which release it runs."""
        app.state.games.recorder.max_notification_id()
        return {"status": "ok", "version": release()}

    app.include_router(metrics_router)  # /metrics for Prometheus, behind a key (issue 27)
    for router in api_routers():
        app.include_router(document_sender_headers(router))
    app.add_middleware(Language)  # innermost: the viewer's language for the pages and their formats
    app.add_middleware(ServerSessions, store=app.state.sessions, settings=settings)
    app.add_middleware(BodyLimit, settings=settings)
    app.add_middleware(RateLimitMiddleware, limits=app.state.rate_limits)  # refuses before reading
    app.add_middleware(SecurityHeaders)  # every answer, refusals too, carries them (api/headers.py)
    app.add_middleware(RequestLog)  # outermost: each request's id and game on its log lines; 429s counted (issue 27)
    app.mount("/static", StaticFiles(directory=str(Path(web.__file__).parent / "static")), name="static")
    app.include_router(web_maillinks.router)  # first: /signin/mail/<key> is a mail's board link, not a game's
    app.include_router(web_people.router)  # first: /signin/email/<token> is not a game's /signin/<game>/<token>
    app.include_router(web_talk.router)
    app.include_router(web_disputes.router)  # before the generic /play/{g}/{command} form route
    app.include_router(web_contact.router)  # before the generic /play/{g}/{command} form route
    app.include_router(web_lobby.router)  # /lobby, and the GM's /play/{g}/seats before the generic form route
    app.include_router(web_webhooks.router)  # before the generic /play/{g}/{command} form route
    app.include_router(web_push.router)  # the manifest, the service worker, a seat's push page (issue 31)
    app.include_router(web_replay.router)  # before the generic /play/{g}/{command} form route
    app.include_router(web_help.router)  # /help, made from the code (issue 28)
    app.include_router(web_routes.router)
    for pages in rulesets.parts("web"):  # a ruleset's own pages, if it has any besides its board and forms
        if hasattr(pages, "router"):
            app.include_router(pages.router)
    return app


def api_routers() -> list[APIRouter]:
    """The JSON API's routers, each ruleset's first (``api.rulesets``), then the platform's.

    No two of their routes answer the same request (``tests/integration/test_api_routes.py``), so their order
    decides nothing but speed: FastAPI tries the routers in order, a route at a time (a few microseconds
    each), and most commands a game takes are its ruleset's (an action, a roll, a reaction)."""
    rulesets_first = [*declare.routers(), *(m.router for m in rulesets.parts("routes"))]
    return [
        *rulesets_first,
        games.router,
        commands.declared_router,
        commands.router,
        history.router,
        windows.router,
        mail.router,
        posts.router,
        results.router,
        preview.router,
        disputes.router,
        replay.router,
        webhooks.router,
        push.router,
        invitations.router,
    ]


def _field(error: dict) -> str:
    """The dotted name of the field a validation error is about (``body`` for the body as a whole)."""
    if error.get("type") == "json_invalid":
        return "body"
    where = [p for p in error.get("loc", ()) if p not in ("body", "query", "path", "header")]
    return limits.field_name(where) or (str(error["loc"][0]) if error.get("loc") else "body")


def _message(error: dict) -> str:
    if error.get("type") == "json_invalid":
        return f"the body is not valid JSON ({error.get('ctx', {}).get('error', 'invalid')})"
    return str(error.get("msg", "invalid"))


def create_served_app() -> FastAPI:
    """The factory ``emissary serve`` runs: settings from the environment, embedded workers if no broker."""
    settings = Settings()
    logs.configure(settings.log_level)  # a server process that ``serve --workers N`` spawned logs as its parent does
    return create_app(settings, embedded_workers=True)
