"""Group commit: many runs write at once, one transaction per batch.

A run awaits its write's commit before publishing the event, so a reconnecting client can
always replay from the database; batching keeps that affordable with hundreds of live runs.
Run rows (create, finish) go through the same queue, so they stay ordered with the run's
events and cost no transaction of their own.

Writes are prepared statements with their parameters, so nothing is built per write. A
batch runs each statement once, as an ``executemany`` of all its rows: first the new run
rows, then the event rows (an event's run row is then always in place before it), then the
updates of runs (their rows exist by then). On a SQLite file the batch is written by a sync
connection in the writer's own thread: one thread hop per batch instead of several per
statement through the async driver.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import Connection, Dialect, Executable, Insert
from sqlalchemy.ext.asyncio import AsyncEngine

from shokunin.events import BaseEvent
from shokunin.store import schema
from shokunin.store.database import sqlite_writer_engine

_MAX_BATCH = 500
# Recent commits (within _BUSY_WITHIN s) that each served several callers on average mean
# sustained load: the next waits _LINGER for company. An idle server, or one run writing
# one event after another, commits at once (lingering would add _LINGER to every event).
_BUSY_WITHIN = 0.005
_LINGER = 0.003
INSERT_RUN = schema.runs.insert()
INSERT_EVENTS = schema.events.insert()
INSERT_THREAD_EVENTS = schema.thread_events.insert()
# Inserts go parents first (threads, runs, events: each row's foreign key is then in
# place); updates come last, when the rows they touch exist.
_TABLE_RANK = {"threads": 0, "runs": 1, "events": 2}


def _rank(statement: Executable) -> int:
    if isinstance(statement, Insert):
        return _TABLE_RANK.get(statement.table.name, 3)  # type: ignore[attr-defined]
    return 4

# One write: a prepared statement and the parameters of one row.
Write = tuple[Executable, dict[str, Any]]
# An item is the writes of one caller, committed in one transaction, with the future its
# caller waits on.
_Item = tuple[list[Write], asyncio.Future[None]]


def event_row(event: BaseEvent) -> dict[str, Any]:
    return {
        "run_id": event.run_id,
        "seq": event.seq,
        "thread_id": event.thread_id,
        "kind": event.kind,
        "ts": event.ts,
        "body": event.model_dump_json(),
    }


def thread_event_row(event: BaseEvent) -> dict[str, Any]:
    """A thread's own event (``run_id`` empty, ``seq`` the thread's)."""
    return {
        "thread_id": event.thread_id,
        "seq": event.seq,
        "kind": event.kind,
        "ts": event.ts,
        "body": event.model_dump_json(),
    }


def _plan(items: list[_Item]) -> list[tuple[Executable, list[dict[str, Any]]]]:
    """The executions of a batch: each statement once with all its rows, in rank order."""
    groups: dict[Executable, list[dict[str, Any]]] = {}
    for writes, _ in items:
        for statement, params in writes:
            groups.setdefault(statement, []).append(params)
    return sorted(groups.items(), key=lambda group: _rank(group[0]))


class _Prepared:
    """A statement compiled once for the driver: its SQL, and how to turn a row of
    parameters into the driver's tuple (the same bind processors SQLAlchemy applies)."""

    def __init__(self, statement: Executable, dialect: Dialect) -> None:
        compiled = statement.compile(dialect=dialect)
        self.sql = str(compiled)
        self.names = tuple(compiled.positiontup or ())
        self.processors = tuple(
            compiled.binds[name].type.dialect_impl(dialect).bind_processor(dialect)
            for name in self.names)

    def rows(self, rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
        pairs = tuple(zip(self.names, self.processors, strict=True))
        return [tuple(process(row[name]) if process else row[name] for name, process in pairs)
                for row in rows]


class EventWriter:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._pending: list[_Item] = []
        self._wake = asyncio.Event()
        self._stopping = False
        self._task: asyncio.Task[None] | None = None
        self._sync_engine = sqlite_writer_engine(engine)
        self._thread: ThreadPoolExecutor | None = None
        self._sync_conn: Connection | None = None  # used only in self._thread
        self._last_commit = 0.0
        self._callers = 0.0  # callers per commit, a moving average over the last few
        self._prepared: dict[Executable, _Prepared] = {}  # used only in self._thread

    def start(self) -> None:
        if self._task is None:
            self._stopping = False
            if self._sync_engine is not None and self._thread is None:
                self._thread = ThreadPoolExecutor(1, thread_name_prefix="event-writer")
            self._task = asyncio.create_task(self._loop(), name="event-writer")

    async def stop(self) -> None:
        """Commit everything queued so far, then end the loop."""
        if self._task is None:
            return
        self._stopping = True
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout=30)
        except TimeoutError:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        self._task = None
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(self._thread, self._close_sync)
            self._thread.shutdown()
            self._thread = None

    async def append(self, event: BaseEvent, *writes: Write) -> None:
        """Return once the event (and any writes, in the same transaction) is stored."""
        await self._submit([*writes, (INSERT_EVENTS, event_row(event))])

    async def append_all(self, events: list[BaseEvent], *writes: Write) -> None:
        """Return once every event (and any writes) is stored (one transaction)."""
        await self._submit([*writes, *((INSERT_EVENTS, event_row(e)) for e in events)])

    async def append_thread(self, event: BaseEvent, *writes: Write) -> None:
        """Return once a thread's own event (and any writes) is stored."""
        await self._submit([*writes, (INSERT_THREAD_EVENTS, thread_event_row(event))])

    async def execute(self, *writes: Write) -> None:
        """Run writes in the next batch (one transaction); return once they are committed."""
        await self._submit(list(writes))

    async def _submit(self, what: list[Write]) -> None:
        self.start()
        # A waiter cancelled meanwhile cancels only its future: the write still happens.
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((what, future))
        self._wake.set()
        await future

    async def _loop(self) -> None:
        while True:
            if not self._pending:
                if self._stopping:
                    return
                self._wake.clear()
                await self._wake.wait()
                if self._busy():
                    # Under sustained load, linger a moment so that the writes of other
                    # runs join this commit: one commit for many instead of one each.
                    await asyncio.sleep(_LINGER)
                continue
            batch, self._pending = self._pending[:_MAX_BATCH], self._pending[_MAX_BATCH:]
            try:
                await self._commit(batch)
                self._last_commit = time.monotonic()
                self._callers = 0.8 * self._callers + 0.2 * len(batch)
            except Exception:  # noqa: BLE001 - retried one by one below
                await self._one_by_one(batch)
            else:
                for _, fut in batch:
                    if not fut.done():
                        fut.set_result(None)

    def _busy(self) -> bool:
        return self._callers > 1.5 and time.monotonic() - self._last_commit < _BUSY_WITHIN

    async def _commit(self, items: list[_Item]) -> None:
        if self._thread is not None:
            await asyncio.get_running_loop().run_in_executor(
                self._thread, self._commit_sync, items)
            return
        async with self._engine.begin() as conn:
            for statement, rows in _plan(items):
                await conn.execute(statement, rows)

    def _commit_sync(self, items: list[_Item]) -> None:
        if self._sync_conn is None:
            assert self._sync_engine is not None
            self._sync_conn = self._sync_engine.connect()
        with self._sync_conn.begin():
            # The driver's cursor, with statements compiled once: SQLAlchemy's per-row
            # parameter building cost more than SQLite's insert.
            cursor = self._sync_conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
            try:
                for statement, rows in _plan(items):
                    prepared = self._prepared.get(statement)
                    if prepared is None:
                        prepared = self._prepared[statement] = _Prepared(
                            statement, self._sync_conn.dialect)
                    cursor.executemany(prepared.sql, prepared.rows(rows))
            finally:
                cursor.close()

    def _close_sync(self) -> None:
        if self._sync_conn is not None:
            self._sync_conn.close()
            self._sync_conn = None
        assert self._sync_engine is not None
        self._sync_engine.dispose()

    async def _one_by_one(self, batch: list[_Item]) -> None:
        """A failed batch is retried item by item, so only the bad write fails."""
        for item in batch:
            fut = item[1]
            try:
                await self._commit([item])
            except Exception as exc:  # noqa: BLE001 - the waiter hears of it
                if not fut.done():
                    fut.set_exception(exc)
            else:
                if not fut.done():
                    fut.set_result(None)
