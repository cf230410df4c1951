"""The FastAPI app factory: nothing connects at import time."""

from __future__ import annotations

import contextlib
import logging

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse

from datetime import timedelta
from pathlib import Path

from fastapi.staticfiles import StaticFiles

from api import web
from api.ratelimit import RateLimitMiddleware, RateLimits
from api.security import BodyLimit, BodyTooLarge, CsrfRefused, ServerSessions, install_log_redaction
from api.routes import actions, games, history, mail, windows
from api.web import routes as web_routes
from domain.errors import DomainError
from projections.service import Games
from projections.sessions import SessionStore
from projections.settings import Settings
from projections.store import build_games, build_projector

log = logging.getLogger("emissary.api")


def create_app(settings: Settings | None = None, games_service: Games | None = None,
               embedded_workers: bool = False) -> FastAPI:
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
        version="0.1.0",
        description="Event-sourced play-by-post games. Every accepted command returns a receipt; "
                    "every refusal names the rule or field.",
        lifespan=lifespan,
    )
    app.state.settings = settings
    app.state.games = games_service or build_games(settings)
    app.state.projector = build_projector(app.state.games, settings)
    app.state.sessions = SessionStore(app.state.projector.db, settings.secret_key,
                                      timedelta(hours=settings.session_ttl_hours))
    app.state.rate_limits = RateLimits(settings)
    install_log_redaction()

    @app.exception_handler(DomainError)
    def domain_error(request: Request, exc: DomainError) -> JSONResponse:
        return JSONResponse(status_code=exc.status, content=exc.as_dict())

    @app.exception_handler(BodyTooLarge)
    def body_too_large(request: Request, exc: BodyTooLarge) -> JSONResponse:
        return exc.response()

    app.add_exception_handler(CsrfRefused, web_routes.csrf_refused)

    @app.exception_handler(RequestValidationError)
    def validation_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errors = exc.errors()
        first = errors[0] if errors else {}
        where = [str(p) for p in first.get("loc", ()) if p not in ("body", "query", "path", "header")]
        field = ".".join(where) or None
        return JSONResponse(status_code=422, content={
            "error": "ValidationError", "rule": None, "field": field,
            "message": f"{field or 'request'}: {first.get('msg', 'invalid')}",
            "errors": [{"field": ".".join(str(p) for p in e.get("loc", ())[1:]), "message": e.get("msg")}
                       for e in errors],
        })

    @app.get("/health", tags=["ops"])
    def health() -> dict:
        """Liveness: the service answers and its store is reachable."""
        app.state.games.recorder.max_notification_id()
        return {"status": "ok"}

    app.include_router(games.router)
    app.include_router(actions.router)
    app.include_router(history.router)
    app.include_router(windows.router)
    app.include_router(mail.router)
    app.add_middleware(ServerSessions, store=app.state.sessions, settings=settings)
    app.add_middleware(BodyLimit, settings=settings)
    app.add_middleware(RateLimitMiddleware, limits=app.state.rate_limits)  # outermost: refuses before reading
    app.mount("/static", StaticFiles(directory=str(Path(web.__file__).parent / "static")), name="static")
    app.include_router(web_routes.router)
    return app


def create_served_app() -> FastAPI:
    """The factory ``emissary serve`` runs: settings from the environment, embedded workers if no broker."""
    return create_app(embedded_workers=True)
