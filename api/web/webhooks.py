"""The GM's page for a game's webhooks (issue 31): list them, add one (its secret shown once), resume, remove.

Every ruleset's GM (or a host who runs the windows) reaches it from the console; it calls what the JSON routes call
(``application.webhooks``), so a refusal reads the same and names the same field."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse

from api.security import web_session
from api.web.kit import flash, form_of, games_of, templates, who
from application import webhooks
from domain.errors import DomainError
from domain.platform.i18n import _

router = APIRouter(include_in_schema=False)


def _page(game_id: str) -> RedirectResponse:
    return RedirectResponse(f"/play/{game_id}/webhooks", status_code=303)


def _managed(request: Request, game_id: str) -> tuple[str, Any]:
    """(the signed-in manager, the read models' database), or the refusal (not signed in, not the GM or a host)."""
    me = who(request, game_id)
    webhooks.check_manager(games_of(request).get_game(game_id, for_update=False), me)
    return me, request.app.state.projector.db


def _version(request: Request, game_id: str) -> int:
    """The game's version now: a webhook added or resumed announces what follows it."""
    return int(games_of(request).get_game(game_id, for_update=False).version)


@router.get("/play/{game_id}/webhooks", response_class=HTMLResponse)
def webhooks_page(request: Request, game_id: str) -> Response:
    """GM or host: the game's webhooks and the form that adds one."""
    try:
        _me, db = _managed(request, game_id)
    except DomainError as err:
        return templates.TemplateResponse(
            request, "message.html", {"title": _("Webhooks"), "text": err.message}, status_code=err.status
        )
    game = games_of(request).get_game(game_id, for_update=False)
    context = {
        "game_id": game_id,
        "name": game.state.name,
        "hooks": webhooks.listing(db, game_id),
        # the receivers by their own names (not words to translate), and ours
        "format_names": {
            "discord": "Discord",
            "slack": "Slack",
            "matrix": "Matrix (hookshot)",
            "json": _("JSON, signed"),
        },
        "kinds": webhooks.KINDS,
        "flash": web_session(request).pop("flash", None),
    }
    return templates.TemplateResponse(request, "webhooks.html", context)


@router.post("/play/{game_id}/webhooks")
async def add_webhook(request: Request, game_id: str) -> Response:
    """GM or host: add a webhook from the form."""
    f = await form_of(request)
    kinds = f.get("kinds[]", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    settings = request.app.state.settings

    def add() -> dict:  # resolves the URL's host and writes: off the event loop, as the JSON route does
        me, db = _managed(request, game_id)
        return webhooks.add(
            db,
            game_id,
            me,
            f.get("url", ""),
            f.get("format", ""),
            kinds,
            allow_private=settings.webhooks_allow_private,
            after=_version(request, game_id),
        )

    try:
        made = await run_in_threadpool(add)
    except DomainError as err:
        kept = {"url": "", "format": f.get("format", ""), "kinds": kinds}  # the URL may hold a token: not kept
        flash(request, kind="error", form="webhooks", field=err.field, rule=None, text=err.message, values=kept)
        return _page(game_id)
    flash(request, kind="ok", form="webhooks", text=_("Webhook added."), secret=made["secret"])
    return _page(game_id)


@router.post("/play/{game_id}/webhooks/{hook_id}/{action}")
async def change_webhook(request: Request, game_id: str, hook_id: str, action: str) -> Response:
    """GM or host: resume or remove a webhook."""
    await form_of(request)
    if action not in ("resume", "remove"):
        return Response(status_code=404)

    def change() -> str:  # reads the store and writes: off the event loop
        _me, db = _managed(request, game_id)
        if action == "resume":
            webhooks.resume(db, game_id, hook_id, _version(request, game_id))
            return _("Webhook resumed.")
        webhooks.remove(db, game_id, hook_id)
        return _("Webhook removed.")

    try:
        done = await run_in_threadpool(change)
    except DomainError as err:
        flash(request, kind="error", form="webhooks", field=err.field, rule=None, text=err.message)
        return _page(game_id)
    flash(request, kind="ok", form="webhooks", text=done)
    return _page(game_id)
