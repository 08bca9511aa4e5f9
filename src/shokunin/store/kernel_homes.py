"""Kernel homes: which process holds a thread's live sandbox kernel, so that the thread's
next run goes there (a worker's own queue) and a kernel started anywhere else tells the run
that the variables it had are gone.

A home is held like a run's lease: the holder renews it on its heartbeat and it runs out
when the holder dies. A home whose holder is gone, or whose time ran out, is no home: the
next run goes to any worker, and its fresh kernel says why the variables are gone.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncEngine

from shokunin.store import schema
from shokunin.store.leases import Leases, expired, holder_gone

GONE = "this thread's earlier kernel was lost: the process that held it stopped"
ELSEWHERE = ("this thread's kernel is in another process, which did not take this "
             "step")


class KernelHomes:
    """The kernel homes of one holder (one open engine): ``queue`` is the job queue that
    reaches it (a worker's own), None for a process that takes no jobs."""

    def __init__(self, engine: AsyncEngine, leases: Leases) -> None:
        self.engine = engine
        self.leases = leases
        self.queue: str | None = None
        # Other processes hold kernels too (set by the engine): a kernel held here is
        # checked to be still the thread's before each use.
        self.shared = False
        insert = (postgresql.insert if engine.dialect.name == "postgresql"
                  else sqlite.insert)(schema.kernel_homes)
        self._upsert = insert.on_conflict_do_update(
            index_elements=["thread_id"],
            set_={"holder": insert.excluded.holder, "queue": insert.excluded.queue,
                  "until": insert.excluded.until, "lost": None})

    async def arrived(self, thread_id: str) -> str | None:
        """A kernel of this holder now serves the thread: record it. Return why the
        variables the thread had are gone (its kernel was shut down early, or is in
        another process), None when it had none (a first kernel, or one closed while
        idle)."""
        homes = schema.kernel_homes
        async with self.engine.begin() as conn:
            before = (await conn.execute(
                select(homes.c.holder, homes.c.until, homes.c.lost)
                .where(homes.c.thread_id == thread_id))).first()
            await conn.execute(self._upsert.values(
                thread_id=thread_id, holder=self.leases.holder, queue=self.queue,
                until=self.leases.until(), lost=None))
        if before is None:
            return None
        if before.lost:
            return str(before.lost)
        if before.holder == self.leases.holder:
            return None
        return GONE if self._gone(before.holder, before.until) else ELSEWHERE

    async def lost(self, thread_id: str, why: str) -> None:
        """This holder shut the thread's kernel down early: the next kernel, wherever it
        starts, says ``why``."""
        homes = schema.kernel_homes
        async with self.engine.begin() as conn:
            await conn.execute(update(homes).where(homes.c.thread_id == thread_id,
                                                   homes.c.holder == self.leases.holder)
                               .values(lost=why))

    async def is_mine(self, thread_id: str) -> bool:
        """This holder's kernel is still the thread's (not deleted with the thread, nor
        replaced by a kernel another process started for it since)."""
        homes = schema.kernel_homes
        async with self.engine.connect() as conn:
            holder = (await conn.execute(select(homes.c.holder)
                                         .where(homes.c.thread_id == thread_id))).scalar()
        return holder == self.leases.holder

    async def left(self, thread_id: str) -> None:
        """This holder closed the thread's kernel (idle, deleted): no home any more."""
        homes = schema.kernel_homes
        async with self.engine.begin() as conn:
            await conn.execute(delete(homes).where(homes.c.thread_id == thread_id,
                                                   homes.c.holder == self.leases.holder))

    async def renew(self) -> None:
        """Vouch again for every kernel this holder holds (on its heartbeat)."""
        homes = schema.kernel_homes
        async with self.engine.begin() as conn:
            await conn.execute(update(homes).where(homes.c.holder == self.leases.holder)
                               .values(until=self.leases.until()))

    async def queue_of(self, thread_id: str) -> str | None:
        """The job queue of the live worker holding the thread's kernel, else None."""
        homes = schema.kernel_homes
        async with self.engine.connect() as conn:
            row = (await conn.execute(
                select(homes.c.holder, homes.c.queue, homes.c.until)
                .where(homes.c.thread_id == thread_id))).first()
        if row is None or row.queue is None or self._gone(row.holder, row.until):
            return None
        return str(row.queue)

    @staticmethod
    def _gone(holder: str, until: datetime) -> bool:
        return holder_gone(holder) or expired(until)
