"""413 for request bodies over the limit: ``max_body_bytes``, or ``max_upload_bytes`` on
routes that take multipart uploads.

A declared Content-Length over the limit is refused before the app runs; otherwise the
bytes are counted as they arrive, so a chunked body is bounded too. (starlette's own
``RequestBodyLimitMiddleware`` answers in plain text and has no per-route upload limit.)
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.routing import Router
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shokunin.api.declared_body import MULTIPART, accepted_media_types, matching_route
from shokunin.api.errors import ClientError, deny


class BodyTooLarge(ClientError):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes", "too_large")


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, router: Router, max_body_bytes: int,
                 max_upload_bytes: int) -> None:
        self.app = app
        self.router = router
        self.max_body_bytes = max_body_bytes
        self.max_upload_bytes = max_upload_bytes

    def limit_for(self, scope: Scope) -> int:
        accepted = accepted_media_types(matching_route(self.router, scope)) or frozenset()
        return self.max_upload_bytes if MULTIPART in accepted else self.max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit_for(scope)
        declared = Headers(scope=scope).get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            await deny(scope, receive, send, 413, str(BodyTooLarge(limit).detail), "too_large")
            return
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal received
            message = await receive()
            if message["type"] == "http.request":
                received += len(message.get("body", b""))
                if received > limit:
                    raise BodyTooLarge(limit)
            return message

        async def watching_send(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, counting_receive, watching_send)
        except BodyTooLarge as exc:  # raised where no exception handler converted it
            if started:
                raise
            await deny(scope, receive, send, 413, str(exc.detail), "too_large")
