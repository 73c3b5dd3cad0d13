"""What every response and every state-changing request of ``podium serve`` passes through, for every track.

**Headers.** Each response gets a Content-Security-Policy that lets a page run only scripts served by podium
itself (no inline script: an injected ``<script>`` does not run), load media and images from podium only, be
framed by nobody and post forms only to podium; ``X-Frame-Options: DENY`` for older browsers,
``X-Content-Type-Options: nosniff`` (a file is never run as what it is not), ``Referrer-Policy: same-origin`` (an
item's address never leaves the site). Styles may be inline: podium's pages carry their style in the page.

**Cross-site requests.** A request that changes something (POST, PUT, PATCH, DELETE) made by a browser carries
the pages' cookie whoever's page sent it. ``SameSite=Strict`` stops other sites, but not a page on another port of
the same host, which a browser counts as the same site. So a state-changing request must say where it comes from
and come from here: its ``Origin`` (or, without one, its ``Referer``) must name this server's own host and port
(the ``Host`` it was sent to) or an origin the operator allowed (``PODIUM_ALLOWED_ORIGINS``, for a proxy that
rewrites ``Host``). This holds for every request a page of another origin could make a browser send without
asking: one that carries cookies, and any form (a form's content types are the ones a page may post anywhere; so a
sign-in form cannot be posted from elsewhere either). Requests with an ``Authorization`` header are API clients
(``podium dojo submit --server``, scripts): a browser page can only send that header, or a JSON body, to another
origin after a CORS preflight that podium never grants, so they are let through, and their token decides.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, MutableMapping
from typing import Any
from urllib.parse import urlsplit

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "media-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
)
SECURITY_HEADERS = (
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),
)
STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
# the content types a page may post to another origin without a preflight (what an HTML form sends)
SIMPLE_BODIES = (b"application/x-www-form-urlencoded", b"multipart/form-data", b"text/plain")
ALLOWED_ORIGINS_ENV = "PODIUM_ALLOWED_ORIGINS"


def origin_of(url: str) -> str | None:
    """``host[:port]`` of an ``Origin`` or ``Referer`` value, lower-cased; None for "null" or nonsense."""
    parts = urlsplit(url.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return parts.netloc.lower()


def cross_site_refusal(headers: dict[bytes, bytes], allowed: frozenset[str]) -> str | None:
    """Why a state-changing request is refused, or None when it may go on."""
    if b"authorization" in headers:
        return None
    content_type = headers.get(b"content-type", b"").split(b";")[0].strip().lower()
    if b"cookie" not in headers and content_type not in SIMPLE_BODIES and content_type != b"":
        return None  # no ambient credential, and a body only a script with the server's consent could send
    host = headers.get(b"host", b"").decode("latin-1").strip().lower()
    stated = headers.get(b"origin") or headers.get(b"referer")
    if stated is None:
        return "the request does not say which page sent it (no Origin or Referer header)"
    origin = origin_of(stated.decode("latin-1"))
    if origin is None or (origin != host and origin not in allowed):
        return f"a page of another origin ({stated.decode('latin-1')[:100]}) sent it"
    return None


class WebSafety:
    """ASGI middleware: the security headers on every response, the origin check on every state change."""

    def __init__(self, app: ASGIApp, allowed_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = frozenset(a for a in (origin_of(o) for o in allowed_origins) if a is not None)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                present = {name.lower() for name, _ in message.get("headers", [])}
                extra = [(name, value) for name, value in SECURITY_HEADERS if name not in present]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        if scope["method"] in STATE_CHANGING:
            headers = {name.lower(): value for name, value in scope.get("headers", [])}
            refusal = cross_site_refusal(headers, self.allowed)
            if refusal is not None:
                await _refuse(refusal, with_headers)
                return
        await self.app(scope, receive, with_headers)


async def _refuse(reason: str, send: Send) -> None:
    body = json.dumps(
        {
            "error": f"cross-site request refused: {reason}",
            "fix": "send it from podium's own pages, or as an API client with 'Authorization: Bearer TOKEN'; "
            f"behind a proxy that rewrites Host, list the public origin in {ALLOWED_ORIGINS_ENV}",
        }
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 403,
            "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": body})
