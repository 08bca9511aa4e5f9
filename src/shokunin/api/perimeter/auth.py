"""The auth middleware: every HTTP request and WebSocket handshake, of every route and
mounted app, carries a valid token once auth is on, except the public paths (/health,
the login page and its stylesheet, logout) and a ``capability``: an address that is its own
credential (a live tool UI's page, whose secret key is in its path).

Tokens come as ``Authorization: Bearer <token>`` or, from browsers (WebSocket and
EventSource cannot set headers), in the HttpOnly cookie the login page sets; never in a
URL. The caller's principal goes to ``scope["state"]["principal"]``: ``"admin"``,
``"key:<name>"``, or None when auth is off; an API key's id to ``scope["state"]["key_id"]``.

Wrong tokens are counted per client address (``login_limit``, shared with ``POST /login``):
past the limit, a request that carries a token gets ``429 too_many_attempts`` with
``Retry-After`` (a WebSocket before its handshake), whether or not the token is right, so
the answer tells a guesser nothing; other addresses are not slowed.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Collection

from starlette.datastructures import Headers
from starlette.requests import cookie_parser
from starlette.responses import RedirectResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from shokunin.api.errors import deny, deny_before_accept, error_response
from shokunin.api.perimeter.login_limit import limiter_of
from shokunin.auth import ADMIN, Authenticator, parse_token

COOKIE = "shokunin_token"
PUBLIC_PATHS = frozenset({"/health", "/login", "/login.css", "/logout"})


def encode_cookie(token: str) -> str:
    """The cookie value for ``token`` (URL-safe base64: any token survives cookie syntax)."""
    return base64.urlsafe_b64encode(token.encode()).decode()


def _decode_cookie(value: str) -> str | None:
    try:
        return base64.urlsafe_b64decode(value.encode()).decode()
    except (binascii.Error, UnicodeError, ValueError):
        return None


def token_from(headers: Headers) -> str | None:
    """The token a request carries: a Bearer header first, else the login cookie."""
    scheme, _, credentials = headers.get("authorization", "").partition(" ")
    if scheme.lower() == "bearer" and credentials.strip():
        return credentials.strip()
    cookie = cookie_parser(headers.get("cookie", "")).get(COOKIE)
    return _decode_cookie(cookie) if cookie else None


def app_path(scope: Scope) -> str:
    """The request's path inside the app (without a proxy's root_path prefix)."""
    path, root = scope["path"], scope.get("root_path", "")
    return path[len(root):] if root and path.startswith(root) else path


class AuthMiddleware:
    def __init__(self, app: ASGIApp, authenticator: Authenticator,
                 public_paths: Collection[str] = PUBLIC_PATHS,
                 capability: Callable[[Scope], bool] | None = None) -> None:
        self.app = app
        self.authenticator = authenticator
        self.public_paths = frozenset(public_paths)
        self.capability = capability  # a request whose address is its own credential

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        state = scope.setdefault("state", {})
        state["principal"] = None
        if app_path(scope) in self.public_paths or (
                self.capability is not None and self.capability(scope)):
            await self.app(scope, receive, send)
            return
        if not self.authenticator.ready:
            await deny(scope, receive, send, 503, "the server is starting", "unavailable")
            return
        if not await self.authenticator.enabled():
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        token = token_from(headers)
        limiter = limiter_of(scope["app"].state) if token and "app" in scope else None
        client = scope["client"][0] if scope.get("client") else "unknown"
        if limiter is not None and (wait := limiter.retry_after(client)) is not None:
            await _too_many(scope, receive, send, wait)
            return
        principal = await self.authenticator.principal(token) if token else None
        if principal is None:
            if limiter is not None:
                limiter.failed(client, token)
            await self._refuse(scope, receive, send, headers, token is not None)
            return
        state["principal"] = principal
        if principal != ADMIN:  # live connections of a key end when it is revoked (live.py)
            parsed = parse_token(token) if token else None
            state["key_id"] = parsed.key_id if parsed else None
        await self.app(scope, receive, send)

    async def _refuse(self, scope: Scope, receive: Receive, send: Send, headers: Headers,
                      had_token: bool) -> None:
        if (scope["type"] == "http" and scope["method"] in ("GET", "HEAD")
                and "text/html" in headers.get("accept", "")):
            login = scope.get("root_path", "") + "/login"
            await RedirectResponse(login, status_code=303)(scope, receive, send)
            return
        message = "invalid or revoked token" if had_token else "a token is required"
        await deny(scope, receive, send, 401, message, "unauthorized",
                   {"WWW-Authenticate": 'Bearer realm="shokunin"'})


async def _too_many(scope: Scope, receive: Receive, send: Send, wait: int) -> None:
    message = f"too many wrong tokens from this address: try again in {wait} s"
    if scope["type"] == "websocket":
        await deny_before_accept(scope, receive, send, 429, message, "too_many_attempts")
        return
    await error_response(429, message, "too_many_attempts",
                         {"Retry-After": str(wait)})(scope, receive, send)
