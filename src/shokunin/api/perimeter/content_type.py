"""415 for a body that is not the media type its route declares.

A cross-site page can POST ``text/plain`` (or a typeless Blob) without a CORS preflight;
a route that parses JSON from whatever arrives would then run a cross-site request.
Checking the declared type closes that path independently of the Origin check. The check
runs when the endpoint first reads the body (after routing, so the route is known); a
route that never reads its body is not affected by it.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shokunin.api.errors import ApiError
from shokunin.api.perimeter.declared_body import accepted_media_types, has_body, is_accepted

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class ContentTypeMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not (scope["type"] == "http" and scope["method"] in UNSAFE_METHODS
                and has_body(scope)):
            await self.app(scope, receive, send)
            return
        checked = False

        async def checking_receive() -> Message:
            nonlocal checked
            if not checked:
                checked = True
                check(scope)
            return await receive()

        await self.app(scope, checking_receive, send)


def check(scope: Scope) -> None:
    """Raise 415 unless the request's media type is one its route takes."""
    accepted = accepted_media_types(scope)
    content_type = Headers(scope=scope).get("content-type")
    if accepted is not None and not is_accepted(content_type, accepted):
        sent = content_type.split(";")[0] if content_type else "no content type"
        raise ApiError(415, f"this route takes {' or '.join(sorted(accepted))}, not {sent}",
                          "unsupported_media_type")
