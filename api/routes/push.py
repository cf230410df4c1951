"""Push to a seat's devices (issue 31): the service's VAPID key, and a seat subscribing, listing and removing its
devices."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request, Response
from pydantic import Field
from starlette.concurrency import run_in_threadpool

from api.deps import Principal
from api.schemas import BODY, GAME_READ, Strict
from application import push

router = APIRouter(tags=["push"])


class PushKeys(Strict):
    """The subscription's keys, as ``PushSubscription.toJSON()`` gives them (base64url)."""

    p256dh: str = Field(max_length=200, description="the device's P-256 public key")
    auth: str = Field(max_length=200, description="the device's 16-byte authentication secret")


class PushSubscriptionRequest(Strict):
    """A device to push to: the browser's push subscription, a label for it and the kinds of news it wants."""

    endpoint: str = Field(max_length=2000, description="the push service's URL for this device (https)")
    keys: PushKeys
    label: str = Field("", max_length=push.MAX_LABEL, description="what the seat calls this device")
    kinds: list[Annotated[str, Field(max_length=20)]] = Field(
        max_length=10, description="any of: " + ", ".join(push.KINDS)
    )


class PushSubscriptionPublic(Strict):
    """A device as its seat sees it: never its endpoint or keys."""

    id: str
    label: str
    kinds: list[str]
    created_at: str
    last_error: str | None = None


class VapidPublic(Strict):
    """The key a page passes to ``pushManager.subscribe`` as ``applicationServerKey``."""

    public_key: str


def _seat(request: Request, game_id: str, me: str) -> tuple[Any, str]:
    """(the read models' database, the caller's seat), once the caller is known to hold a seat of the game."""
    push.check_seat(request.app.state.games.get_game(game_id, for_update=False), me)
    return request.app.state.projector.db, me


@router.get("/push/key", response_model=VapidPublic)
def vapid_key(request: Request) -> dict:
    """The service's VAPID public key (base64url), for ``pushManager.subscribe``."""
    return {"public_key": push.public_key(push.vapid(request.app.state.settings))}


@router.post(
    "/games/{game_id}/push",
    status_code=201,
    response_model=PushSubscriptionPublic,
    responses={**GAME_READ, **BODY},
)
async def subscribe(game_id: str, body: PushSubscriptionRequest, request: Request, me: Principal) -> dict:
    """A seat: push to this device the kinds of news it wants (the same device again: its keys, label, kinds)."""
    settings = request.app.state.settings

    def add() -> dict:  # resolves the endpoint's host and writes: off the event loop
        db, seat = _seat(request, game_id, me)
        version = int(request.app.state.games.get_game(game_id, for_update=False).version)
        return push.subscribe(
            db,
            game_id,
            seat,
            body.endpoint,
            body.keys.p256dh,
            body.keys.auth,
            body.label,
            body.kinds,
            allow_private=settings.push_allow_private,
            after=version,
        )

    return await run_in_threadpool(add)


@router.get("/games/{game_id}/push", response_model=list[PushSubscriptionPublic], responses=GAME_READ)
def list_devices(game_id: str, request: Request, me: Principal) -> list[dict]:
    """A seat: its devices (never an endpoint or a key)."""
    db, seat = _seat(request, game_id, me)
    return push.listing(db, game_id, seat)


@router.get("/games/{game_id}/push/deliveries", responses=GAME_READ)
def push_deliveries(game_id: str, request: Request, me: Principal) -> list[dict]:
    """A seat: its push ledger, newest first: what each device was sent, how often it was tried, how it went."""
    db, seat = _seat(request, game_id, me)
    return push.deliveries(db, game_id, seat)


@router.delete("/games/{game_id}/push/{sub_id}", status_code=204, responses=GAME_READ)
def unsubscribe(game_id: str, sub_id: str, request: Request, me: Principal) -> Response:
    """A seat: push to this device no more; what it has not been sent is withdrawn."""
    db, seat = _seat(request, game_id, me)
    push.unsubscribe(db, game_id, seat, sub_id)
    return Response(status_code=204)
