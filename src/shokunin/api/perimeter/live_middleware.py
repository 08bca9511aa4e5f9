"""Every WebSocket and SSE stream of the app holds a lease (``live.py``) for as long as it
lasts: past the caps it is refused (``429 too_many_streams``; a WebSocket before its
handshake), and when its key is revoked it is ended in its protocol's form, a WebSocket
with an ``error`` message and close 1008, a stream with a last ``error`` event.

A stream is an HTTP response of type ``text/event-stream``, known when it starts, so a
refused one never runs its body (a chat's run is not started). Socket.IO counts its own
sessions (a long-polling session is many short requests), so its path is left to it.
Ending a connection cancels the task serving it: the app's own cleanup runs, and this
middleware then writes the last words.
"""

from __future__ import annotations

import asyncio
import json

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from shokunin.api.errors import WS_POLICY_VIOLATION, deny_before_accept, error_response
from shokunin.api.perimeter.auth import app_path
from shokunin.api.perimeter.live import REVOKED_MESSAGE, Lease, LiveConnections, TooManyStreams

REVOKED_CODE = "unauthorized"


def _client(scope: Scope) -> str:
    client = scope.get("client")
    return client[0] if client else "unknown"


def _is_stream(message: Message) -> bool:
    return any(name.lower() == b"content-type" and value.startswith(b"text/event-stream")
               for name, value in message.get("headers", ()))


class LiveMiddleware:
    def __init__(self, app: ASGIApp, live: LiveConnections,
                 own_paths: tuple[str, ...] = ("/socket.io",)) -> None:
        self.app = app
        self.live = live
        self.own_paths = own_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket") or app_path(scope).startswith(
                self.own_paths):
            await self.app(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)
        else:
            await self._http(scope, receive, send)

    def _open(self, scope: Scope, kind: str, task: asyncio.Task[object]) -> Lease:
        """A lease whose revocation cancels ``task``, the one serving the connection (a
        stream's body is sent from a task of its own, which is not the one to cancel)."""
        state = scope.setdefault("state", {})
        lease = self.live.open(kind, _client(scope), state.get("principal"),
                               state.get("key_id"))
        lease.on_revoke.append(lambda: task.cancel(REVOKED_MESSAGE))
        state["lease"] = lease
        return lease

    def _end(self, lease: Lease | None) -> None:
        if lease is not None:
            lease.on_revoke.clear()
            self.live.close(lease)

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        task = asyncio.current_task()
        assert task is not None
        try:
            lease = self._open(scope, "ws", task)
        except TooManyStreams as exc:
            await deny_before_accept(scope, receive, send, 429, str(exc), exc.code)
            return
        accepted = closed = False

        async def tracking_send(message: Message) -> None:
            nonlocal accepted, closed
            accepted = accepted or message["type"] == "websocket.accept"
            closed = closed or message["type"] == "websocket.close"
            await send(message)

        try:
            await self.app(scope, receive, tracking_send)
        except asyncio.CancelledError:
            if not lease.revoked:
                raise
            task.uncancel()
            if accepted and not closed:
                await send({"type": "websocket.send", "text": json.dumps(
                    {"type": "error", "content": REVOKED_MESSAGE, "code": REVOKED_CODE})})
                await send({"type": "websocket.close", "code": WS_POLICY_VIOLATION,
                            "reason": f"{REVOKED_CODE}: key revoked"})
        finally:
            self._end(lease)

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        task = asyncio.current_task()
        assert task is not None
        lease: Lease | None = None
        refused: TooManyStreams | None = None
        ended = False

        async def stream_send(message: Message) -> None:
            nonlocal lease, refused, ended
            if message["type"] == "http.response.start" and _is_stream(message):
                try:
                    lease = self._open(scope, "sse", task)
                except TooManyStreams as exc:
                    refused = exc
                    raise
            elif message["type"] == "http.response.body" and not message.get("more_body"):
                ended = True
            await send(message)

        try:
            await self.app(scope, receive, stream_send)
        except BaseException as exc:
            if refused is not None:  # nothing was sent: the stream's body never ran
                await error_response(429, str(refused), refused.code)(scope, receive, send)
                return
            if lease is None or not lease.revoked or not isinstance(exc,
                                                                    asyncio.CancelledError):
                raise
            task.uncancel()
            if not ended:
                data = json.dumps({"error": REVOKED_MESSAGE, "code": REVOKED_CODE})
                await send({"type": "http.response.body", "more_body": False,
                            "body": f"event: error\ndata: {data}\n\n".encode()})
        finally:
            self._end(lease)
