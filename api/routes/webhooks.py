"""A game's webhooks (issue 31): the GM, or a host who runs the windows, adds, lists, resumes and removes them."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from api.deps import Principal
from api.schemas import BODY, GAME_READ, Strict
from application import webhooks

router = APIRouter(prefix="/games", tags=["webhooks"])


class WebhookRequest(Strict):
    """A webhook to add: its URL, its receiver's format and the kinds of news it wants."""

    url: str = Field(
        max_length=2000, description="the receiver's URL (https); refused if its host resolves to a private address"
    )
    format: str = Field(max_length=20, description="discord, slack, matrix (hookshot) or json (signed)")
    kinds: list[Annotated[str, Field(max_length=20)]] = Field(
        max_length=10, description="any of: phase, deadline, results, post, end"
    )


class WebhookPublic(Strict):
    """A webhook as its GM sees it: its URL cut to its host; its secret only in the answer that added it."""

    id: str
    format: str
    url: str
    kinds: list[str]
    status: str
    failures: int
    created_at: str
    created_by: str
    last_error: str | None = None
    paused_at: str | None = None
    secret: str | None = None


def _managed(request: Request, game_id: str, me: str) -> Any:
    """The read models' database, once the caller is known to manage the game's webhooks."""
    webhooks.check_manager(request.app.state.games.get_game(game_id, for_update=False), me)
    return request.app.state.projector.db


def _version(request: Request, game_id: str) -> int:
    """The game's version now: a webhook added or resumed announces what follows it."""
    return int(request.app.state.games.get_game(game_id, for_update=False).version)


@router.post("/{game_id}/webhooks", status_code=201, response_model=WebhookPublic, responses={**GAME_READ, **BODY})
async def add_webhook(game_id: str, body: WebhookRequest, request: Request, me: Principal) -> dict:
    """GM or host: add a webhook; a ``json`` one's signing secret is in this answer only."""
    settings = request.app.state.settings

    def add() -> dict:
        return webhooks.add(
            _managed(request, game_id, me),
            game_id,
            me,
            body.url,
            body.format,
            body.kinds,
            allow_private=settings.webhooks_allow_private,
            after=_version(request, game_id),
        )

    return await run_in_threadpool(add)


@router.get("/{game_id}/webhooks", response_model=list[WebhookPublic], responses=GAME_READ)
def list_webhooks(game_id: str, request: Request, me: Principal) -> list[dict]:
    """GM or host: the game's webhooks (never a URL's path or a secret)."""
    return webhooks.listing(_managed(request, game_id, me), game_id)


@router.get("/{game_id}/webhooks/deliveries", responses=GAME_READ)
def webhook_deliveries(game_id: str, request: Request, me: Principal) -> list[dict]:
    """GM or host: the webhook ledger, newest first: what was sent, how often it was tried, how it went."""
    return webhooks.deliveries(_managed(request, game_id, me), game_id)


@router.post("/{game_id}/webhooks/{hook_id}/resume", response_model=WebhookPublic, responses=GAME_READ)
def resume_webhook(game_id: str, hook_id: str, request: Request, me: Principal) -> dict:
    """GM or host: resume a paused webhook; it announces what happens from now on."""
    return webhooks.resume(_managed(request, game_id, me), game_id, hook_id, _version(request, game_id))


@router.delete("/{game_id}/webhooks/{hook_id}", status_code=204, responses=GAME_READ)
def remove_webhook(game_id: str, hook_id: str, request: Request, me: Principal) -> Response:
    """GM or host: remove a webhook; what it has not sent yet is withdrawn."""
    webhooks.remove(_managed(request, game_id, me), game_id, hook_id)
    return Response(status_code=204)
