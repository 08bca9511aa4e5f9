"""Pauses: which projects are paused in this process, and where their nodes wait.

The service marks a project paused or running here as it records the change, and at
start-up for every project recorded as paused; a node waits at its start (a node boundary)
until the project is resumed, without asking the database."""

from __future__ import annotations

import asyncio


class Pauses:
    def __init__(self) -> None:
        self._paused: dict[str, asyncio.Event] = {}  # project id -> set when resumed

    def pause(self, project_id: str) -> None:
        self._paused.setdefault(project_id, asyncio.Event())

    def resume(self, project_id: str) -> None:
        event = self._paused.pop(project_id, None)
        if event is not None:
            event.set()

    async def wait(self, project_id: str) -> None:
        """Return when the project is not paused (at once if it is not)."""
        event = self._paused.get(project_id)
        if event is not None:
            await event.wait()
