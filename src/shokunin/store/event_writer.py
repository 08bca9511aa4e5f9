"""Group commit: many runs write at once, one transaction per batch.

A run awaits its write's commit before publishing the event, so a reconnecting client can
always replay from the database; batching keeps that affordable with hundreds of live runs.
Run rows (create, finish) go through the same queue, so they stay ordered with the run's
events and cost no transaction of their own.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from sqlalchemy import Executable
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from shokunin.events import BaseEvent
from shokunin.store import schema

_MAX_BATCH = 500

# An item is a list of event rows (dicts) and statements, written in order in one
# transaction, with the future its writer waits on.
_Item = tuple[list[dict[str, Any] | Executable], asyncio.Future[None]]


def event_row(event: BaseEvent) -> dict[str, Any]:
    return {
        "run_id": event.run_id,
        "seq": event.seq,
        "thread_id": event.thread_id,
        "kind": event.kind,  # type: ignore[attr-defined]
        "ts": event.ts,
        "body": event.model_dump_json(),
    }


async def _write(conn: AsyncConnection, items: list[_Item]) -> None:
    rows: list[dict[str, Any]] = []
    for what in (w for parts, _ in items for w in parts):
        if isinstance(what, dict):
            rows.append(what)
            continue
        if rows:  # keep order: earlier events before this statement
            await conn.execute(schema.events.insert(), rows)
            rows = []
        await conn.execute(what)
    if rows:
        await conn.execute(schema.events.insert(), rows)


class EventWriter:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._queue: asyncio.Queue[_Item | None] = asyncio.Queue()  # None: stop
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.create_task(self._loop(), name="event-writer")

    async def stop(self) -> None:
        """Commit everything queued so far, then end the loop."""
        if self._task is None:
            return
        await self._queue.put(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout=30)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._task = None

    async def append(self, event: BaseEvent, *statements: Executable) -> None:
        """Return once the event (and any statements, in the same transaction) is stored."""
        await self._submit([*statements, event_row(event)])

    async def execute(self, statement: Executable) -> None:
        """Run a statement in the next batch; return once it is committed."""
        await self._submit([statement])

    async def _submit(self, what: list[dict[str, Any] | Executable]) -> None:
        self.start()
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self._queue.put((what, future))
        await asyncio.shield(future)

    async def _loop(self) -> None:
        stopping = False
        while not stopping:
            first = await self._queue.get()
            if first is None:
                return
            batch = [first]
            while not self._queue.empty() and len(batch) < _MAX_BATCH:
                item = self._queue.get_nowait()
                if item is None:
                    stopping = True
                    break
                batch.append(item)
            try:
                async with self._engine.begin() as conn:
                    await _write(conn, batch)
            except Exception:  # noqa: BLE001 - retried one by one below
                await self._one_by_one(batch)
            else:
                for _, fut in batch:
                    if not fut.done():
                        fut.set_result(None)

    async def _one_by_one(self, batch: list[_Item]) -> None:
        """A failed batch is retried item by item, so only the bad write fails."""
        for item in batch:
            fut = item[1]
            try:
                async with self._engine.begin() as conn:
                    await _write(conn, [item])
            except Exception as exc:  # noqa: BLE001 - the waiter hears of it
                if not fut.done():
                    fut.set_exception(exc)
            else:
                if not fut.done():
                    fut.set_result(None)
