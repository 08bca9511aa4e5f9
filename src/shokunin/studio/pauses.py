"""Pauses: where a paused project's nodes wait, woken at once by a resume in this process
(another process's resume is seen by polling the database)."""

from __future__ import annotations

import asyncio
import contextlib


class Pauses:
    def __init__(self) -> None:
        self._events: dict[str, asyncio.Event] = {}

    async def wait(self, project_id: str, timeout: float) -> None:
        event = self._events.setdefault(project_id, asyncio.Event())
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(timeout):
                await event.wait()

    def wake(self, project_id: str) -> None:
        event = self._events.pop(project_id, None)
        if event is not None:
            event.set()
