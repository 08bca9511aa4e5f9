"""Holds: the threads whose runs are paused in this process, and where their runs wait.

A pausable agent awaits ``ctx.gate()`` at its node boundaries; while its thread is held
(``Runner.hold``) the run waits there, without asking the database, until
``Runner.release``. The hold is also recorded on the thread: a process whose run's thread
another process held (or released) follows at its next heartbeat, and one that resumes or
revives a run of a held thread holds it first. Who holds a thread across a restart is the
agent's business too: it holds them again in its ``recover`` (the Studio: every project
recorded paused)."""

from __future__ import annotations

import asyncio


class Holds:
    def __init__(self) -> None:
        self._held: dict[str, asyncio.Event] = {}  # thread id -> set when released

    def hold(self, thread_id: str) -> None:
        self._held.setdefault(thread_id, asyncio.Event())

    def release(self, thread_id: str) -> None:
        event = self._held.pop(thread_id, None)
        if event is not None:
            event.set()

    def is_held(self, thread_id: str) -> bool:
        return thread_id in self._held

    async def wait(self, thread_id: str) -> None:
        """Return when the thread is not held (at once if it is not)."""
        event = self._held.get(thread_id)
        if event is not None:
            await event.wait()
