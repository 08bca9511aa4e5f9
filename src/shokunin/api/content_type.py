"""415 for a body that is not the media type its route declares.

A cross-site page can POST ``text/plain`` (or a typeless Blob) without a CORS preflight;
a route that parses JSON from whatever arrives would then run a cross-site request.
Checking the declared type closes that path independently of the Origin check.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.routing import Router
from starlette.types import ASGIApp, Receive, Scope, Send

from shokunin.api.declared_body import accepted_media_types, has_body, is_accepted, matching_route
from shokunin.api.errors import deny

UNSAFE_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})


class ContentTypeMiddleware:
    def __init__(self, app: ASGIApp, router: Router) -> None:
        self.app = app
        self.router = router

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] in UNSAFE_METHODS and has_body(scope):
            accepted = accepted_media_types(matching_route(self.router, scope))
            content_type = Headers(scope=scope).get("content-type")
            if accepted is not None and not is_accepted(content_type, accepted):
                sent = content_type.split(";")[0] if content_type else "no content type"
                await deny(scope, receive, send, 415,
                           f"this route takes {' or '.join(sorted(accepted))}, not {sent}",
                           "unsupported_media_type")
                return
        await self.app(scope, receive, send)
