"""A Socket.IO client that records every event the Studio sends it, and a project to watch."""

from __future__ import annotations

from typing import Any

import httpx
import socketio

from tests.waiting import eventually

CONCEPT = {"description": "雨の街を走る", "platform": "web", "scope": "mvp"}


async def new_project(http: httpx.AsyncClient) -> str:
    """A new project of the Studio (its id), made over REST."""
    response = await http.post("/api/projects", json={"name": "雨", "concept": CONCEPT})
    assert response.status_code == 201
    return response.json()["id"]


class Watcher:
    def __init__(self, url: str, dialect: str | None = None,
                 transport: str = "websocket") -> None:
        self.url = url + (f"?dialect={dialect}" if dialect else "")
        self.transport = transport
        self.sio = socketio.AsyncClient(reconnection=False)
        self.events: list[tuple[str, Any]] = []
        self.sio.on("*", self._record)

    async def _record(self, event: str, data: Any) -> None:
        self.events.append((event, data))

    async def __aenter__(self) -> Watcher:
        await self.sio.connect(self.url, transports=[self.transport], wait_timeout=10)
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self.transport == "polling":  # the client would wait out its pending long-poll
            await self.sio.eio.disconnect(abort=True)
        else:
            await self.sio.disconnect()

    def named(self, name: str) -> list[Any]:
        return [data for event, data in self.events if event == name]

    async def wait(self, predicate: Any, timeout: float = 20.0, *,
                   what: str = "the events awaited") -> None:
        """Until ``predicate()`` (of the events recorded so far) holds."""
        await eventually(predicate, timeout, what=what)
