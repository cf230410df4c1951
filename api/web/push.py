"""Push to phones on the pages (issue 31, item 2): the installable web app (its manifest, its service worker, served
from our origin at the root so that the worker's scope is the whole site) and a seat's page for push
(``/play/<game>/push``, linked from Notifications): this browser turns push on for the kinds it chooses, and every
device of the seat is listed with a button that removes it.

Turning push on needs JavaScript (``static/push.js``: the service worker, the browser's permission, the push
subscription); the script fills the form's hidden fields with the subscription and posts the form, which calls
what the JSON route calls (``application.push.subscribe``). Without JavaScript the page says so, and the list of
devices and their buttons still work."""

from __future__ import annotations

import json
from pathlib import Path

from fastapi import APIRouter, Request, Response
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import HTMLResponse, RedirectResponse

from api.security import web_session
from api.web.kit import flash, form_of, games_of, templates, who
from application import push
from domain.errors import DomainError
from domain.platform.i18n import _
from projections.db import ReadModelDB

router = APIRouter(include_in_schema=False)
STATIC = Path(__file__).resolve().parent / "static"


@router.get("/manifest.webmanifest")
def manifest() -> Response:
    """The web app's manifest: its name, icons and start page, so a phone may install the pages as an app."""
    body = {
        "name": "Emissary",
        "short_name": "Emissary",
        "description": "Play-by-post games",
        "start_url": "/me",
        "scope": "/",
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": "#1f3a5f",
        "icons": [
            {"src": "/static/icon-192.png", "sizes": "192x192", "type": "image/png", "purpose": "any"},
            {"src": "/static/icon-512.png", "sizes": "512x512", "type": "image/png", "purpose": "any"},
        ],
    }
    return Response(json.dumps(body), media_type="application/manifest+json")


@router.get("/sw.js")
def service_worker() -> Response:
    """The service worker, from the site's root (its scope is the whole site): it shows a push as a notification
    and opens the seat's board when the notification is clicked. Checked for a new version at each visit."""
    return Response(
        (STATIC / "sw.js").read_bytes(),
        media_type="text/javascript",
        headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"},
    )


def _page(game_id: str) -> RedirectResponse:
    return RedirectResponse(f"/play/{game_id}/push#push", status_code=303)


def _seat(request: Request, game_id: str) -> tuple[str, ReadModelDB]:
    """(the signed-in seat, the read models' database), or the refusal (not signed in, not a seat)."""
    me = who(request, game_id)
    push.check_seat(games_of(request).get_game(game_id, for_update=False), me)
    return me, request.app.state.projector.db


@router.get("/play/{game_id}/push", response_class=HTMLResponse)
def push_page(request: Request, game_id: str) -> Response:
    """A seat: push to this device, for the kinds it chooses; the seat's devices, each removable."""
    try:
        me, db = _seat(request, game_id)
    except DomainError as err:
        return templates.TemplateResponse(
            request, "message.html", {"title": _("Push notifications"), "text": err.message}, status_code=err.status
        )
    game = games_of(request).get_game(game_id, for_update=False)
    context = {
        "game_id": game_id,
        "seated": True,
        "game_name": game.state.name,
        "seat_name": getattr(game.seats[me], "name", me),
        "devices": push.listing(db, game_id, me),
        "kinds": [(k, _(w)) for k, w in push.KINDS.items()],
        "public_key": push.public_key(push.vapid(request.app.state.settings)),
        "flash": web_session(request).pop("flash", None),
    }
    return templates.TemplateResponse(request, "push.html", context)


@router.post("/play/{game_id}/push")
async def subscribe(request: Request, game_id: str) -> Response:
    """A seat: push to this browser (the subscription the page's script filled in), for the kinds chosen."""
    f = await form_of(request)
    kinds = f.get("kinds[]", [])
    kinds = [kinds] if isinstance(kinds, str) else kinds
    settings = request.app.state.settings

    def add() -> dict:  # resolves the endpoint's host and writes: off the event loop
        me, db = _seat(request, game_id)
        version = int(games_of(request).get_game(game_id, for_update=False).version)
        return push.subscribe(
            db,
            game_id,
            me,
            f.get("endpoint", ""),
            f.get("p256dh", ""),
            f.get("auth", ""),
            f.get("label", ""),
            kinds,
            allow_private=settings.push_allow_private,
            after=version,
        )

    try:
        made = await run_in_threadpool(add)
    except DomainError as err:
        kept = {"label": str(f.get("label", ""))[: push.MAX_LABEL], "kinds": kinds}
        flash(request, kind="error", form="push", field=err.field, rule=None, text=err.message, values=kept)
        return _page(game_id)
    flash(request, kind="ok", form="push", text=_("Push is on for {device}.").format(device=made["label"]))
    return _page(game_id)


@router.post("/play/{game_id}/push/{sub_id}/remove")
async def unsubscribe(request: Request, game_id: str, sub_id: str) -> Response:
    """A seat: push to this device no more."""
    await form_of(request)

    def remove() -> None:
        me, db = _seat(request, game_id)
        push.unsubscribe(db, game_id, me, sub_id)

    try:
        await run_in_threadpool(remove)
    except DomainError as err:
        flash(request, kind="error", form="push", field=err.field, rule=None, text=err.message)
        return _page(game_id)
    flash(request, kind="ok", form="push", text=_("That device gets no more pushes."))
    return _page(game_id)
