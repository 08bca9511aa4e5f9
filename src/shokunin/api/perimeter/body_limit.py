"""413 for request bodies over the limit: ``max_body_bytes``, or ``max_upload_bytes`` on
routes that take multipart uploads.

A declared Content-Length over both limits is refused before the app runs; otherwise the
route's limit is known once routing chose the route, and the bytes are counted as they
arrive, so a chunked body is bounded too. (starlette's ``RequestBodyLimitMiddleware``
answers in plain text and knows no upload routes.)
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shokunin.api.errors import ApiError, deny
from shokunin.api.perimeter.declared_body import MULTIPART, accepted_media_types


class BodyTooLarge(ApiError):
    def __init__(self, limit: int) -> None:
        super().__init__(413, f"the request body is larger than {limit} bytes", "too_large")


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, max_body_bytes: int, max_upload_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_body_bytes
        self.max_upload_bytes = max_upload_bytes

    def limit_for(self, scope: Scope) -> int:
        """The limit of the routed request's route."""
        accepted = accepted_media_types(scope) or frozenset()
        return self.max_upload_bytes if MULTIPART in accepted else self.max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        declared = Headers(scope=scope).get("content-length", "")
        length = int(declared) if declared.isdigit() else None
        ceiling = max(self.max_body_bytes, self.max_upload_bytes)
        if length is not None and length > ceiling:
            await deny(scope, receive, send, 413, BodyTooLarge(ceiling).message, "too_large")
            return
        limit: int | None = None
        received = 0
        started = False

        async def counting_receive() -> Message:
            nonlocal limit, received
            if limit is None:
                limit = self.limit_for(scope)
                if length is not None and length > limit:
                    raise BodyTooLarge(limit)
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
            await deny(scope, receive, send, 413, exc.message, "too_large")
