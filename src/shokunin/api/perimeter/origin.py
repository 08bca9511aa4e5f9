"""Refuse requests a browser sends on behalf of another site.

Browsers put an ``Origin`` header on every cross-origin fetch, every WebSocket handshake
(Socket.IO's included, polling or not) and every POST/PUT/PATCH/DELETE. When it is present
it must be the server's own origin (its host as the ``Host`` header names it) or one of
``SHOKUNIN_ALLOWED_ORIGINS``. A state-changing request without it but marked
``Sec-Fetch-Site: cross-site`` is refused too. Clients that are not browsers send neither
header and pass (the auth middleware judges them).
"""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from shokunin.api.errors import deny
from shokunin.api.perimeter.content_type import UNSAFE_METHODS


def origin_allowed(origin: str, host: str | None, allowed: frozenset[str]) -> bool:
    """Whether a request from ``origin`` to the server reached as ``host`` may proceed."""
    origin = origin.strip().lower()
    if origin in allowed:
        return True
    parsed = urlsplit(origin)
    return (parsed.scheme in ("http", "https") and bool(parsed.netloc) and host is not None
            and parsed.netloc == host.strip().lower())


class OriginMiddleware:
    def __init__(self, app: ASGIApp, allowed_origins: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = frozenset(o.lower().rstrip("/") for o in allowed_origins)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if origin is not None and not origin_allowed(origin, headers.get("host"),
                                                         self.allowed):
                await deny(scope, receive, send, 403, f"origin {origin[:100]!r} is not allowed",
                           "forbidden_origin")
                return
            if (origin is None and scope["type"] == "http" and scope["method"] in UNSAFE_METHODS
                    and headers.get("sec-fetch-site") == "cross-site"):
                await deny(scope, receive, send, 403, "cross-site requests are not allowed",
                           "forbidden_origin")
                return
        await self.app(scope, receive, send)
