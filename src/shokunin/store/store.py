"""The Store: threads, runs and their events, over one async SQLAlchemy engine."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, bindparam, delete, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from shokunin.events import BaseEvent, Event, RunFailed, parse_event
from shokunin.store import schema
from shokunin.store.database import create_engine
from shokunin.store.event_writer import INSERT_RUN, EventWriter, Write, event_row
from shokunin.store.kernel_homes import KernelHomes
from shokunin.store.leases import Leases
from shokunin.store.migrations import migrate
from shokunin.store.rows import RunRow, RunStatus, ThreadRow, ThreadSummary


def _now() -> datetime:
    return datetime.now(UTC)


def _finish(with_usage: bool):  # noqa: ANN202 - a prepared UPDATE
    values = {"status": bindparam("status_"), "error": bindparam("error_"),
              "finished_at": bindparam("finished_at_")}
    if with_usage:
        values["usage"] = bindparam("usage_", type_=schema.runs.c.usage.type)
    return update(schema.runs).where(schema.runs.c.id == bindparam("run_id_")).values(values)


# Prepared once: a run's end is written the same way every time.
_FINISH = {True: _finish(True), False: _finish(False)}


def _dialect_insert(dialect: str):  # noqa: ANN202 - a dialect's insert() constructor
    return postgresql.insert if dialect == "postgresql" else sqlite.insert


class Store:
    def __init__(self, engine: AsyncEngine, lease_seconds: float = 10.0) -> None:
        self.engine = engine
        self.leases = Leases(engine, lease_seconds)
        self.kernel_homes = KernelHomes(engine, self.leases)
        self._writer = EventWriter(engine)
        self._upsert_thread = _dialect_insert(engine.dialect.name)(
            schema.threads).on_conflict_do_nothing(index_elements=["id"])

    @property
    def writer(self) -> EventWriter:
        """The store's one writer: other writes to this database (the checkpointer's) join
        its batches instead of taking SQLite's write lock from it."""
        return self._writer

    @classmethod
    async def open(cls, url: str, lease_seconds: float = 10.0) -> Store:
        store = cls(create_engine(url), lease_seconds)
        await migrate(store.engine)
        return store

    async def close(self) -> None:
        self.leases.close()
        await self._writer.stop()
        await self.engine.dispose()

    # threads
    async def ensure_thread(
        self, thread_id: str, agent: str, title: str = "", owner: str | None = None
    ) -> None:
        """Create the thread unless it exists; safe when two clients race to create it.
        ``owner`` is recorded only by the call that creates it. Written by the event
        writer, so a burst of new threads shares its commits instead of queueing for
        SQLite's lock."""
        await self._writer.execute((self._upsert_thread, {
            "id": thread_id, "agent": agent, "title": title[:200], "meta": {},
            "created_at": _now(), "owner": owner, "held": False}))

    async def set_thread_meta(self, thread_id: str, meta: dict[str, Any]) -> bool:
        """Replace the thread's ``meta`` (a face's own record of it); False if no thread."""
        async with self.engine.begin() as conn:
            result = await conn.execute(update(schema.threads).where(
                schema.threads.c.id == thread_id).values(meta=meta))
            return result.rowcount == 1

    async def set_held(self, thread_id: str, held: bool) -> None:
        """Record that the thread's runs wait at their next gate (or no longer do)."""
        async with self.engine.begin() as conn:
            await conn.execute(update(schema.threads).where(schema.threads.c.id == thread_id)
                               .values(held=held))

    async def get_thread(self, thread_id: str) -> ThreadRow | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(schema.threads).where(schema.threads.c.id == thread_id))).mappings().first()
            return ThreadRow.of(row) if row else None

    # runs
    async def create_run(
        self, run_id: str, thread_id: str, agent: str, input: dict[str, Any],
        first: BaseEvent | None = None,
    ) -> None:
        """Record a new running run; with ``first`` (its ``run_started``) in the same
        transaction, so the run is never seen without its first event."""
        write = (INSERT_RUN, {
            "id": run_id, "thread_id": thread_id, "agent": agent, "status": RunStatus.RUNNING,
            "input": input, "usage": {}, "created_at": _now(), "error": None,
            "finished_at": None, "cancel_requested": False, **self.leases.values()})
        if first is None:
            await self._writer.execute(write)
        else:
            await self._writer.append(first, write)

    async def finish_run(
        self, run_id: str, status: RunStatus, error: str | None = None,
        usage: dict[str, Any] | None = None, final: BaseEvent | None = None,
    ) -> None:
        """Record the run's end; with ``final`` (its terminal event) in the same transaction,
        so no reader sees the status without the event or the event without the status."""
        params: dict[str, Any] = {"run_id_": run_id, "status_": status, "error_": error,
                                  "finished_at_": _now()}
        if usage is not None:
            params["usage_"] = usage
        write = (_FINISH[usage is not None], params)
        if final is None:
            await self._writer.execute(write)
        else:
            await self._writer.append(final, write)

    async def claim_interrupted(self, run_id: str) -> bool:
        """Set an interrupted run running again; False if it was not interrupted (any more)."""
        async with self.engine.begin() as conn:
            result = await conn.execute(
                update(schema.runs)
                .where(schema.runs.c.id == run_id,
                       schema.runs.c.status == RunStatus.INTERRUPTED)
                .values(status=RunStatus.RUNNING, finished_at=None, cancel_requested=False,
                        **self.leases.values()))
            return result.rowcount == 1

    async def running_before(self, thread_id: str, run_id: str) -> bool:
        """Whether a run of the thread started before ``run_id`` is still running (or
        waiting in the job queue): the thread's runs run one at a time, in order."""
        runs = schema.runs
        mine = select(runs.c.created_at).where(runs.c.id == run_id).scalar_subquery()
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(runs.c.id).where(
                    runs.c.thread_id == thread_id, runs.c.status == RunStatus.RUNNING,
                    runs.c.id != run_id,
                    or_(runs.c.created_at < mine,
                        and_(runs.c.created_at == mine, runs.c.id < run_id)))
                .limit(1))).first()
        return row is not None

    async def wait_again(self, run_id: str, holder: str) -> bool:
        """Put a run claimed to be resumed (``claim_interrupted``) back to waiting for its
        answer, while ``holder`` still holds it; False when it is not so any more."""
        runs = schema.runs
        async with self.engine.begin() as conn:
            result = await conn.execute(
                update(runs).where(runs.c.id == run_id, runs.c.status == RunStatus.RUNNING,
                                   runs.c.lease_holder == holder)
                .values(status=RunStatus.INTERRUPTED, finished_at=_now()))
            return result.rowcount == 1

    async def runs_after(self, thread_id: str, run_id: str) -> list[str]:
        """Ids of the thread's runs created after ``run_id`` (oldest first)."""
        runs = schema.runs
        after = select(runs.c.created_at).where(runs.c.id == run_id).scalar_subquery()
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(runs.c.id).where(runs.c.thread_id == thread_id, runs.c.id != run_id,
                                        runs.c.created_at >= after)
                .order_by(runs.c.created_at, runs.c.id))
            return [run for (run,) in rows]

    async def get_run(self, run_id: str) -> RunRow | None:
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(schema.runs).where(schema.runs.c.id == run_id))).mappings().first()
            return RunRow.of(row) if row else None

    async def unfinished_runs(self) -> list[RunRow]:
        """Runs recorded 'running' (oldest first): at start-up, those a previous process
        left."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(select(schema.runs).where(
                schema.runs.c.status == RunStatus.RUNNING).order_by(schema.runs.c.created_at))
            return [RunRow.of(row) for row in rows.mappings()]

    async def fail_runs(self, run_ids: Iterable[str], reason: str) -> int:
        """Runs a gone process left 'running' can never finish there: mark those of
        ``run_ids`` still running failed and close each with a ``run_failed`` event, so a
        client replaying it sees its end; return how many."""
        ids = list(run_ids)
        if not ids:
            return 0
        runs = schema.runs
        async with self.engine.begin() as conn:
            stale = (await conn.execute(
                select(runs.c.id, runs.c.thread_id,
                       select(func.coalesce(func.max(schema.events.c.seq), 0))
                       .where(schema.events.c.run_id == runs.c.id)
                       .scalar_subquery())
                .where(runs.c.id.in_(ids), runs.c.status == RunStatus.RUNNING))).all()
            if not stale:
                return 0
            await conn.execute(
                update(runs).where(runs.c.id.in_([r[0] for r in stale]))
                .values(status=RunStatus.FAILED, error=reason, finished_at=_now()))
            await conn.execute(schema.events.insert(), [
                event_row(RunFailed(run_id=run_id, thread_id=thread_id, seq=last + 1,
                                    error=reason))
                for run_id, thread_id, last in stale])
            return len(stale)

    # events
    async def append_event(self, event: BaseEvent, *writes: Write) -> None:
        """Store the event; with ``writes`` (a face's own rows, e.g. ``StudioRecords``'
        ``*_write`` statements) in the same transaction: the record and what a client is
        told of it are never seen apart."""
        await self._writer.append(event, *writes)

    async def append_events(self, events: list[BaseEvent], *writes: Write) -> None:
        """Store several events of a run (and ``writes``) in one transaction."""
        await self._writer.append_all(events, *writes)

    async def append_thread_event(self, event: BaseEvent, *writes: Write) -> None:
        """Store a thread's own event (``run_id`` empty, ``seq`` the thread's; see
        ``Runner.publish_thread_event``), with ``writes`` in the same transaction. A seq
        taken already raises the database's IntegrityError."""
        await self._writer.append_thread(event, *writes)

    async def thread_events_after(self, thread_id: str, after_seq: int = 0) -> list[Event]:
        """The thread's own events after ``after_seq``, in seq order."""
        table = schema.thread_events
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(table.c.body)
                .where(table.c.thread_id == thread_id, table.c.seq > after_seq)
                .order_by(table.c.seq))
            return [parse_event(body) for (body,) in rows]

    async def last_thread_seq(self, thread_id: str) -> int:
        table = schema.thread_events
        async with self.engine.connect() as conn:
            value = await conn.scalar(
                select(func.max(table.c.seq)).where(table.c.thread_id == thread_id))
            return value or 0

    async def events_after(self, run_id: str, after_seq: int = 0) -> list[Event]:
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(schema.events.c.body)
                .where(schema.events.c.run_id == run_id, schema.events.c.seq > after_seq)
                .order_by(schema.events.c.seq))
            return [parse_event(body) for (body,) in rows]

    async def run_with_events(
        self, run_id: str, after_seq: int = 0
    ) -> tuple[RunRow | None, list[Event]]:
        """The run row and its events after ``after_seq``, read on one connection."""
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(schema.runs).where(schema.runs.c.id == run_id))).mappings().first()
            if row is None:
                return None, []
            bodies = await conn.execute(
                select(schema.events.c.body)
                .where(schema.events.c.run_id == run_id, schema.events.c.seq > after_seq)
                .order_by(schema.events.c.seq))
            return RunRow.of(row), [parse_event(body) for (body,) in bodies]

    async def last_seq(self, run_id: str) -> int:
        async with self.engine.connect() as conn:
            value = await conn.scalar(
                select(func.max(schema.events.c.seq)).where(schema.events.c.run_id == run_id))
            return value or 0

    # thread history (the threads API)
    def _thread_summaries(self) -> Any:
        """threads (with their owner) joined with their run count, last run's start and status."""
        runs, threads = schema.runs, schema.threads
        stats = (select(runs.c.thread_id, func.count().label("run_count"),
                        func.max(runs.c.created_at).label("last_run_at"))
                 .group_by(runs.c.thread_id).subquery())
        last_status = (select(runs.c.status).where(runs.c.thread_id == threads.c.id)
                       .order_by(runs.c.created_at.desc()).limit(1).scalar_subquery())
        updated_at = func.coalesce(stats.c.last_run_at, threads.c.created_at)
        query = (select(threads.c.id, threads.c.agent, threads.c.title, threads.c.created_at,
                        updated_at.label("updated_at"),
                        func.coalesce(stats.c.run_count, 0).label("run_count"),
                        last_status.label("last_status"), threads.c.owner)
                 .select_from(threads.outerjoin(stats, stats.c.thread_id == threads.c.id)))
        return query, updated_at

    @staticmethod
    def _owned_by(owner: str | None) -> list[ColumnElement[bool]]:
        """The filter that keeps an owner's threads; none without an owner."""
        return [] if owner is None else [schema.threads.c.owner == owner]

    async def list_threads(
        self, *, agent: str | None = None, owner: str | None = None, limit: int = 50,
        before: datetime | None = None,
    ) -> list[ThreadSummary]:
        """Threads, newest activity first (``updated_at``: the last run's start, else the
        thread's creation); ``before`` pages on ``updated_at``, ``owner`` scopes."""
        query, updated_at = self._thread_summaries()
        conditions = self._owned_by(owner)
        if agent is not None:
            conditions.append(schema.threads.c.agent == agent)
        if before is not None:
            conditions.append(updated_at < before)
        query = query.where(*conditions).order_by(
            updated_at.desc(), schema.threads.c.id.desc()).limit(limit)
        async with self.engine.connect() as conn:
            return [ThreadSummary.of(row) for row in (await conn.execute(query)).mappings()]

    async def thread_summary(self, thread_id: str) -> ThreadSummary | None:
        """One thread as ``list_threads`` shows it; None if there is no such thread."""
        query, _ = self._thread_summaries()
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                query.where(schema.threads.c.id == thread_id))).mappings().first()
            return ThreadSummary.of(row) if row else None

    async def thread_runs(self, thread_id: str) -> list[RunRow]:
        """The thread's runs, oldest first."""
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(schema.runs).where(schema.runs.c.thread_id == thread_id)
                .order_by(schema.runs.c.created_at, schema.runs.c.id))
            return [RunRow.of(row) for row in rows.mappings()]

    async def thread_events(self, thread_id: str) -> list[Event]:
        """Every event of the thread, run by run (oldest run first), each run in seq order."""
        events, runs = schema.events, schema.runs
        async with self.engine.connect() as conn:
            rows = await conn.execute(
                select(events.c.body)
                .select_from(events.join(runs, runs.c.id == events.c.run_id))
                .where(events.c.thread_id == thread_id)
                .order_by(runs.c.created_at, runs.c.id, events.c.seq))
            return [parse_event(body) for (body,) in rows]

    async def delete_thread(self, thread_id: str) -> bool:
        """Delete the thread, its runs, their events and where its kernel is, in one
        transaction; False if there was no such thread."""
        async with self.engine.begin() as conn:
            await conn.execute(delete(schema.events).where(
                schema.events.c.run_id.in_(select(schema.runs.c.id).where(
                    schema.runs.c.thread_id == thread_id))))
            await conn.execute(delete(schema.runs).where(schema.runs.c.thread_id == thread_id))
            await conn.execute(delete(schema.thread_events).where(
                schema.thread_events.c.thread_id == thread_id))
            # A kernel another process holds for it is not the new thread's of this id.
            await conn.execute(delete(schema.kernel_homes).where(
                schema.kernel_homes.c.thread_id == thread_id))
            result = await conn.execute(delete(schema.threads).where(
                schema.threads.c.id == thread_id))
            return result.rowcount == 1
