"""Refuse requests a browser sends on behalf of another site.

Browsers put an ``Origin`` header on every cross-origin fetch, every WebSocket handshake
(Socket.IO's included, polling or not) and every POST/PUT/PATCH/DELETE. When it is present
it must be the server's own origin (its host as the ``Host`` header names it), one of
``SHOKUNIN_ALLOWED_ORIGINS``, or, when the server is bound to loopback, a loopback origin on
any port: a client's own dev server (vite on ``localhost:5173``) proxies to shokunin with its
own ``Origin``, and only programs on this machine can serve a page from a loopback origin. A
state-changing request without it but marked ``Sec-Fetch-Site: cross-site`` is refused too.
Clients that are not browsers send neither header and pass (the auth middleware judges them).
A sandboxed page's ``Origin: null`` passes only on a ``capability`` address (a live tool UI's
page, whose secret key is in its path). A refusal names the setting that would allow the
origin.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from shokunin.api.errors import deny
from shokunin.api.perimeter.content_type import UNSAFE_METHODS
from shokunin.api.perimeter.host import host_name, is_loopback_name

SETTING = "SHOKUNIN_ALLOWED_ORIGINS"


def origin_allowed(origin: str, host: str | None, allowed: frozenset[str],
                   loopback: bool = False) -> bool:
    """Whether a request from ``origin`` to the server reached as ``host`` may proceed;
    ``loopback``: the server listens on loopback only, so loopback origins (any port) may."""
    origin = origin.strip().lower()
    if origin in allowed:
        return True
    parsed = urlsplit(origin)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        return False
    if loopback and is_loopback_name(host_name(parsed.netloc)):
        return True
    return host is not None and parsed.netloc == host.strip().lower()


class OriginMiddleware:
    def __init__(self, app: ASGIApp, allowed_origins: Iterable[str] = (),
                 loopback: bool = False,
                 capability: Callable[[Scope], bool] | None = None) -> None:
        self.app = app
        self.allowed = frozenset(o.lower().rstrip("/") for o in allowed_origins)
        self.loopback = loopback
        self.capability = capability  # an address that is its own credential

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            headers = Headers(scope=scope)
            origin = headers.get("origin")
            if (origin is not None and not origin_allowed(origin, headers.get("host"),
                                                          self.allowed, self.loopback)
                    and not (origin == "null" and self.capability is not None
                             and self.capability(scope))):
                await deny(scope, receive, send, 403,
                           # short enough for a WebSocket close reason (123 bytes)
                           f"origin {origin[:40]!r} not allowed: add it to {SETTING}",
                           "forbidden_origin")
                return
            if (origin is None and scope["type"] == "http" and scope["method"] in UNSAFE_METHODS
                    and headers.get("sec-fetch-site") == "cross-site"):
                await deny(scope, receive, send, 403,
                           "cross-site requests are not allowed; to let a site's pages use this "
                           f"server, add its origin to {SETTING} (a JSON list of origins)",
                           "forbidden_origin")
                return
        await self.app(scope, receive, send)
