"""Group commit for events: many runs append at once, one transaction per batch.

A run awaits its event's commit before publishing it, so a reconnecting client can always
replay from the database; batching keeps that affordable with hundreds of live runs.
"""

from __future__ import annotations

import asyncio
import contextlib

from sqlalchemy.ext.asyncio import AsyncEngine

from shokunin.events import BaseEvent
from shokunin.store import schema

_MAX_BATCH = 500


def _row(event: BaseEvent) -> dict:
    return {
        "run_id": event.run_id,
        "seq": event.seq,
        "thread_id": event.thread_id,
        "kind": event.kind,  # type: ignore[attr-defined]
        "ts": event.ts,
        "body": event.model_dump_json(),
    }


class EventWriter:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._queue: asyncio.Queue[tuple[BaseEvent, asyncio.Future[None]]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="event-writer")

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    async def append(self, event: BaseEvent) -> None:
        """Return once the event is durably stored."""
        self.start()
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self._queue.put((event, future))
        await asyncio.shield(future)

    async def _loop(self) -> None:
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty() and len(batch) < _MAX_BATCH:
                batch.append(self._queue.get_nowait())
            try:
                async with self._engine.begin() as conn:
                    await conn.execute(schema.events.insert(), [_row(e) for e, _ in batch])
            except Exception as exc:  # noqa: BLE001 - every waiter must hear of it
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(exc)
            else:
                for _, fut in batch:
                    if not fut.done():
                        fut.set_result(None)
