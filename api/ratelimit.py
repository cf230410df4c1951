"""Per-client rate limits (the ``limits`` library): authentication failures, game creation, mail intake,
``/verify``, sign-in links, invitations and lobby takes. In-memory storage when embedded; Redis in production, so
every process shares the counts. The JSON routes are counted here, before they run; a web form counts itself
(``refusal``), so its refusal is shown next to it, in the reader's language."""

from __future__ import annotations

import math
import re
import time
from datetime import timedelta

from anyio import to_thread
from babel.dates import format_timedelta
from limits import RateLimitItem, parse_many
from limits.storage import storage_from_string
from limits.strategies import FixedWindowRateLimiter
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from api.web.i18n import current_locale
from domain.platform.i18n import N_, _
from projections.settings import Settings

# (method, path, limit): requests that count against a limit whatever their outcome.
COUNTED = [
    ("POST", re.compile(r"^/games/?$"), "create_game"),
    ("POST", re.compile(r"^/new/?$"), "create_game"),
    ("POST", re.compile(r"^/inbound/"), "mail"),
    ("POST", re.compile(r"^/verify/?$"), "verify"),
    ("POST", re.compile(r"^/signin/?$"), "signin_mail"),
    ("POST", re.compile(r"^/games/[^/]+/(invitations|observers)/?$"), "invitations"),
]
# Requests that present or check a credential: refused while the client is over its failure budget.
AUTHENTICATING = re.compile(r"^/(signin|play)/|^/games/[^/]+")
WHAT = {
    "auth_failures": "failed sign-ins",
    "create_game": "new games",
    "mail": "inbound mails",
    "verify": "verifications",
    "signin_mail": "sign-in links asked for",
    "invitations": "invitations",
    "lobby_takes": "seats taken from the lobby",
}


class RateLimits:
    """Named limits per client address, from the settings (``EMISSARY_RATELIMIT_*``)."""

    def __init__(self, settings: Settings) -> None:
        self.storage = storage_from_string(settings.ratelimit_storage_url)
        self.limiter = FixedWindowRateLimiter(self.storage)
        self.prefix = settings.ratelimit_key_prefix
        self.in_memory = settings.ratelimit_storage_url.startswith("memory")
        self.rules: dict[str, list[RateLimitItem]] = {
            name: parse_many(getattr(settings, f"ratelimit_{name}")) for name in WHAT
        }

    def hit(self, name: str, client: str) -> tuple[int, RateLimitItem] | None:
        """Count one; (seconds to wait, the limit) if that went over a limit, else None."""
        for item in self.rules[name]:
            if not self.limiter.hit(item, self.prefix, name, client):
                return self._wait(item, name, client), item
        return None

    def exhausted(self, name: str, client: str) -> tuple[int, RateLimitItem] | None:
        """(seconds to wait, the limit) if the client has no budget left for ``name``, else None."""
        for item in self.rules[name]:
            if not self.limiter.test(item, self.prefix, name, client):
                return self._wait(item, name, client), item
        return None

    def _wait(self, item: RateLimitItem, name: str, client: str) -> int:
        stats = self.limiter.get_window_stats(item, self.prefix, name, client)
        return max(1, math.ceil(stats.reset_time - time.time()))

    async def call(self, fn, *args):
        """Run a storage call: directly in memory, in a thread for a network store."""
        return fn(*args) if self.in_memory else await to_thread.run_sync(fn, *args)


REFUSALS = {  # a web form's refusal, in the reader's language
    "invitations": N_("Too many invitations from your address: at most {amount} in {span}. Try again in {wait}."),
    "lobby_takes": N_("Too many seats taken from your address: at most {amount} in {span}. Try again in {wait}."),
}


async def refusal(request: Request, name: str) -> str | None:
    """Count one ``name`` for this request's client; the sentence refusing it (naming the limit, in the reader's
    language) if that went over the limit, else None."""
    limits: RateLimits = request.app.state.rate_limits
    over = await limits.call(limits.hit, name, request.client.host if request.client else "unknown")
    if over is None:
        return None
    wait, item = over
    locale = current_locale()
    return _(REFUSALS[name]).format(
        amount=item.amount,
        span=format_timedelta(timedelta(seconds=item.get_expiry()), locale=locale),
        wait=format_timedelta(timedelta(seconds=wait), locale=locale),
    )


def too_many(name: str, wait: int, item: RateLimitItem) -> JSONResponse:
    limit = str(item)  # "30 per 1 minute"
    return JSONResponse(
        status_code=429,
        headers={"Retry-After": str(wait)},
        content={
            "error": "TooManyRequests",
            "rule": None,
            "field": None,
            "limit": limit,
            "message": f"too many {WHAT[name]} from your address (at most {limit}); try again in {wait} s",
        },
    )


class RateLimitMiddleware:
    """Counts the limited routes before they run, and counts every 401 answer as a failure.

    A client over its failure budget still has its credential checked: the right one is accepted, a wrong one
    is answered 429 (not 401) and counted. So a valid token or session is never locked out by the failures of
    another client behind the same address (a shared NAT, or someone guessing at it); guessing stays throttled
    in the answers it gets, and a token (``secrets.token_urlsafe(24)``, 192 bits) is not guessed by trying."""

    def __init__(self, app: ASGIApp, limits: RateLimits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        client = scope["client"][0] if scope.get("client") else "unknown"
        path, method = scope["path"], scope["method"]
        for m, pattern, name in COUNTED:
            if method == m and pattern.match(path):
                over = await self.limits.call(self.limits.hit, name, client)
                if over:
                    return await too_many(name, *over)(scope, receive, send)
        over = None
        if AUTHENTICATING.match(path) or any(k == b"authorization" for k, _ in scope["headers"]):
            over = await self.limits.call(self.limits.exhausted, "auth_failures", client)
        status = 0

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            if status == 401 and over:
                return  # a failure while over the budget: answered 429 below, its 401 never sent
            await send(message)

        await self.app(scope, receive, watched)
        if status == 401:
            still_over = await self.limits.call(self.limits.hit, "auth_failures", client)
            if over:
                await too_many("auth_failures", *(still_over or over))(scope, receive, send)
