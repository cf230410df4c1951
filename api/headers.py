"""Security headers on every answer the application gives: pages, JSON, errors and static files.

The pages' policy (``PAGES``) allows only what the pages use:

- ``default-src 'self'``: nothing else is loaded from anywhere but this site.
- ``script-src 'self'``: the two scripts every page loads, ``/static/app.js`` and the vendored
  ``/static/htmx.min.js``; no page has an inline script or an ``on*=`` handler, and htmx is told (the
  ``htmx-config`` meta in ``base.html``) not to evaluate expressions (``allowEval``) nor run scripts it swaps in.
- ``style-src 'self'``: ``/static/app.css`` alone; no template has a ``style=`` attribute or a ``<style>``, and
  htmx's own indicator rules (which it would add as an inline ``<style>``) are in ``app.css`` instead
  (``includeIndicatorStyles`` is off).
- ``img-src 'self'``: any image is served from here.
- ``connect-src 'self'``: htmx's requests (the live status strip) go to this site only.
- ``form-action 'self'``, ``base-uri 'none'``, ``object-src 'none'``: forms post here, and no ``<base>`` nor
  plug-in can change where links and scripts come from.
- ``frame-ancestors 'none'`` (and ``X-Frame-Options: DENY`` for older browsers): no site frames a page.

FastAPI's interactive API docs (``/docs``, ``/redoc``) load Swagger UI and ReDoc from their CDN with an inline
script (Swagger UI's start, allowed by its hash, computed from the page itself) and inject styles and a worker;
they get their own policy (``DOCS``), the pages never do.

``Referrer-Policy: same-origin``: sign-in links carry a token in their URL, so no other site ever learns a
page's address; same-origin (not ``no-referrer``) because with ``no-referrer`` a browser sends ``Origin:
null`` on a form post, which the origin check refuses (``api.security.check_origin``). The pages showing a
token set ``no-referrer`` themselves where they post nothing; a header a route set is never overwritten.
``X-Content-Type-Options: nosniff``: a file is never taken for what its type does not say.
"""

from __future__ import annotations

import base64
import hashlib
import re

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

PAGES = "; ".join(
    [
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        "form-action 'self'",
        "base-uri 'none'",
        "object-src 'none'",
        "frame-ancestors 'none'",
    ]
)
CDN = "https://cdn.jsdelivr.net"
DOCS = "; ".join(
    [
        "default-src 'self'",
        f"script-src 'self' {CDN} {{hashes}}",
        f"style-src 'self' {CDN} https://fonts.googleapis.com 'unsafe-inline'",
        "font-src 'self' https://fonts.gstatic.com",
        "img-src 'self' data: https://fastapi.tiangolo.com https://cdn.redoc.ly",
        "connect-src 'self'",
        "worker-src 'self' blob:",
        "form-action 'self'",
        "base-uri 'none'",
        "object-src 'none'",
        "frame-ancestors 'none'",
    ]
)
DOCS_PATHS = ("/docs", "/redoc", "/docs/oauth2-redirect")
ALWAYS = {
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}
INLINE_SCRIPT = re.compile(rb"<script>(.*?)</script>", re.S)


def script_hashes(html: bytes) -> str:
    """The CSP sources allowing each inline script of a page, by its SHA-256."""
    digests = (hashlib.sha256(body).digest() for body in INLINE_SCRIPT.findall(html))
    return " ".join(f"'sha256-{base64.b64encode(d).decode()}'" for d in digests)


class SecurityHeaders:
    """Adds the headers above to every HTTP answer, keeping any a route set itself."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        if scope["path"] in DOCS_PATHS:
            return await self._docs(scope, receive, send)

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                _add(MutableHeaders(scope=message), PAGES)
            await send(message)

        await self.app(scope, receive, with_headers)

    async def _docs(self, scope: Scope, receive: Receive, send: Send) -> None:
        """A docs page is small: hold it whole, to allow its inline script by hash."""
        start: Message = {}
        body = b""

        async def held(message: Message) -> None:
            nonlocal start, body
            if message["type"] == "http.response.start":
                start = message
            elif message["type"] == "http.response.body":
                body += message.get("body", b"")
                if not message.get("more_body", False):
                    _add(MutableHeaders(scope=start), DOCS.format(hashes=script_hashes(body)))
                    await send(start)
                    await send({"type": "http.response.body", "body": body})

        await self.app(scope, receive, held)


def last_resort() -> dict[str, str]:
    """The headers of the server's last-resort answer to a bug (a 500), which is sent outside every middleware."""
    return {"Content-Security-Policy": PAGES, **ALWAYS}


def _add(headers: MutableHeaders, policy: str) -> None:
    if "content-security-policy" not in headers:
        headers["Content-Security-Policy"] = policy
    for name, value in ALWAYS.items():
        if name.lower() not in headers:
            headers[name] = value
