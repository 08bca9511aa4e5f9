"""uvicorn's HTTP protocol with two connection limits it lacks.

* **Header and body timeouts.** uvicorn times out only an idle kept-alive connection, and
  a byte now and then resets that: a client that never finishes its headers holds a
  connection (and a file descriptor) for ever. Here a connection must complete a request's
  headers within ``header_timeout`` of opening, or of the previous answer, and a body must
  not pause longer than that between two pieces (unless the app is the one not reading),
  nor take longer than ``body_timeout`` in all (a piece just before each pause ran out
  would hold it for ever); else the client gets ``408`` and the connection is closed.
* **Connections per client address.** Past ``max_per_client`` open connections from one
  address, a new one gets ``503`` and is closed. A connection upgraded to a WebSocket stays
  counted for as long as it is open (by the WebSocket protocol, ``ws_class``): it holds a
  file descriptor like any other connection, whatever the app's own stream caps say.

Both answers are the API's error form, ``{"error", "code"}``. The protocol is uvicorn's
own (httptools when installed, else h11), subclassed by ``protocol_class``; its
``ws_class`` is uvicorn's WebSocket protocol, subclassed to share the count.
"""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from typing import Any

from uvicorn.protocols.utils import get_remote_addr
from uvicorn.protocols.websockets.auto import AutoWebSocketsProtocol

try:
    from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as _Base
except ImportError:  # httptools is optional: uvicorn's pure-Python h11 protocol
    from uvicorn.protocols.http.h11_impl import H11Protocol as _Base  # type: ignore[assignment]


def _answer(status: str, message: str, code: str) -> bytes:
    body = json.dumps({"error": message, "code": code}).encode()
    return (f"HTTP/1.1 {status}\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\nconnection: close\r\n\r\n").encode() + body


def protocol_class(header_timeout: float, max_per_client: int,
                   body_timeout: float = 300.0) -> type[asyncio.Protocol]:
    """uvicorn's HTTP protocol with these limits, for ``uvicorn.run(http=...)``; its
    ``ws_class`` (None without a WebSocket library), for ``uvicorn.run(ws=...)``."""
    open_per_client: Counter[str] = Counter()
    timed_out = _answer("408 Request Timeout", f"the request's headers or the next part of its "
                        f"body did not arrive within {header_timeout:g} s "
                        "(SHOKUNIN_HEADER_TIMEOUT_SEC)", "timeout")
    too_many = _answer("503 Service Unavailable", f"this client holds {max_per_client} "
                       "connections, the most allowed: close one first "
                       "(SHOKUNIN_MAX_CONNECTIONS_PER_CLIENT)", "too_many_connections")
    body_too_slow = _answer("408 Request Timeout", f"the request's body did not arrive "
                            f"within {body_timeout:g} s (SHOKUNIN_BODY_TIMEOUT_SEC)", "timeout")

    class LimitedProtocol(_Base):
        _peer: str | None = None
        _header_timer: asyncio.TimerHandle | None = None
        _body_timer: asyncio.TimerHandle | None = None
        _body_cycle: object = None  # the request whose body _body_timer bounds

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            peer = self.client[0] if self.client else "unknown"
            if open_per_client[peer] >= max_per_client:
                transport.write(too_many)
                transport.close()
                return
            self._peer = peer
            open_per_client[peer] += 1
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            self._leave()
            super().connection_lost(exc)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            cycle = self.cycle
            if self._peer is None or cycle is None or cycle.response_complete:
                return  # upgraded or refused; or still reading headers (the timer runs)
            if cycle.more_body and not cycle.disconnected:
                self._arm()  # the next part of the body has as long again
                if self._body_cycle is not cycle:  # and the whole body a bound of its own
                    self._disarm_body()
                    self._body_cycle = cycle
                    self._body_timer = self.loop.call_later(body_timeout, self._body_late)
            else:
                self._disarm()
                self._disarm_body()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            cycle = self.cycle
            if (not self.transport.is_closing() and self._peer is not None
                    and (cycle is None or cycle.response_complete)):
                self._arm()  # the next request's headers have as long

        def handle_websocket_upgrade(self, *args: Any) -> None:
            self._leave()  # counted from now on by the WebSocket protocol (ws_class)
            super().handle_websocket_upgrade(*args)

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(header_timeout, self._timed_out)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _disarm_body(self) -> None:
            if self._body_timer is not None:
                self._body_timer.cancel()
                self._body_timer = None
            self._body_cycle = None

        def _body_late(self) -> None:
            self._body_timer = None
            cycle = self.cycle
            if (self.transport.is_closing() or cycle is not self._body_cycle
                    or cycle is None or not cycle.more_body):
                return
            if self.flow.read_paused:  # the app has not read what came: not the client's fault
                self._body_timer = self.loop.call_later(header_timeout, self._body_late)
                return
            if not cycle.response_started:
                self.transport.write(body_too_slow)
            self.transport.close()

        def _timed_out(self) -> None:
            self._header_timer = None
            if self.transport.is_closing():
                return
            if self.flow.read_paused:  # the app has not read what came: not the client's fault
                self._arm()
                return
            cycle = self.cycle  # the last request's: done, or still sending its body
            if cycle is None or cycle.response_complete or not cycle.response_started:
                self.transport.write(timed_out)
            self.transport.close()

        def _leave(self) -> None:
            self._disarm()
            self._disarm_body()
            if self._peer is not None:
                open_per_client[self._peer] -= 1
                if open_per_client[self._peer] <= 0:
                    del open_per_client[self._peer]
                self._peer = None

    LimitedProtocol.ws_class = None  # type: ignore[attr-defined]
    if AutoWebSocketsProtocol is not None:
        class CountedWebSocket(AutoWebSocketsProtocol):  # type: ignore[misc, valid-type]
            """A WebSocket counted in its address's connections until it closes. Made only
            by an upgrade, which has already left the HTTP count."""

            _peer: str | None = None

            def connection_made(self, transport: Any) -> None:
                super().connection_made(transport)
                remote = get_remote_addr(transport)
                self._peer = remote[0] if remote else "unknown"
                open_per_client[self._peer] += 1

            def connection_lost(self, exc: Exception | None) -> None:
                if self._peer is not None:
                    open_per_client[self._peer] -= 1
                    if open_per_client[self._peer] <= 0:
                        del open_per_client[self._peer]
                    self._peer = None
                super().connection_lost(exc)

        LimitedProtocol.ws_class = CountedWebSocket  # type: ignore[attr-defined]
    return LimitedProtocol
