"""RunQueue: runs sent from web processes to ``shokunin worker`` processes through a job
queue (SAQ, on PostgreSQL or Redis: ``SHOKUNIN_QUEUE_URL``).

A job only says "run this run": the run's row and its first event are stored before it is
sent, and its lease (``store/leases.py``) names the job (``queued_mark``) while it waits.
The worker that takes the job takes the lease from the mark in one update, so a cancel that
took it back first, or a second copy of the job, finds nothing to run. Whatever happens to a
job afterwards, the lease says who runs the run.

Queues: one shared by every worker (``<namespace>``), and one of each worker's own
(``<namespace>.<worker>``), where the runs of threads whose kernel it holds go (kernel
affinity, ``store/kernel_homes.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from shokunin.errors import ErrorCode, ShokuninError
from shokunin.runs.redis_bus import redacted
from shokunin.store.leases import queued_mark

if TYPE_CHECKING:  # SAQ (and psycopg or redis) is imported when a queue opens
    from saq import Queue

FUNCTION = "shokunin.run"
SETTING = "SHOKUNIN_QUEUE_URL"
SCHEMES = ("postgresql", "redis", "rediss")
CHECK_TIMEOUT_SEC = 2.0  # a job's state asked on the heartbeat: past it, asked next beat
OPEN_TIMEOUT_SEC = 10.0
PG_POOL = {"min_size": 1, "max_size": 8}  # SAQ's own default keeps 4 to 20 connections


class QueueUnavailable(ShokuninError, ConnectionError):
    """The job queue cannot be reached or used (the message says which and why)."""

    status = 503
    code = ErrorCode.UNAVAILABLE


@dataclass(frozen=True)
class QueuedRun:
    """What a job carries: the run to run, the input its agent gets (the run's own, or a
    revived run's), and for a resumed run the human's answer."""

    run_id: str
    input: dict[str, Any]
    resume_value: Any = None


def _driverless(url: str) -> str:
    """SAQ takes ``postgresql://``: the SQLAlchemy form ``postgresql+asyncpg://`` too."""
    parts = urlsplit(url)
    scheme = parts.scheme.split("+", 1)[0]
    if scheme == "postgres":
        scheme = "postgresql"
    return urlunsplit(parts._replace(scheme=scheme))


class RunQueue:
    """The job queue of one process: it sends runs (web), or takes them (worker)."""

    def __init__(self, url: str, namespace: str) -> None:
        self.url = _driverless(url)
        self.shared = namespace
        self._queues: dict[str, Queue] = {}

    @classmethod
    async def open(cls, url: str, namespace: str) -> RunQueue:
        """Connect to the shared queue (creating SAQ's tables on PostgreSQL)."""
        queue = cls(url, namespace)
        scheme = urlsplit(queue.url).scheme
        if scheme not in SCHEMES:
            raise QueueUnavailable(
                f"{SETTING} must be a postgresql:// or redis:// URL, not {scheme or '?'}://")
        try:
            async with asyncio.timeout(OPEN_TIMEOUT_SEC):
                shared = await queue._queue(namespace)
                if scheme != "postgresql":  # a Redis client connects lazily: ask it now
                    await shared.redis.ping()  # type: ignore[attr-defined]
        except Exception as exc:
            await queue.close()
            raise QueueUnavailable(
                f"the job queue at {redacted(queue.url)} cannot be used ({SETTING}): "
                f"{type(exc).__name__}: {exc}") from exc
        return queue

    def own(self, holder: str) -> str:
        """The queue of the worker whose lease holder is ``holder``."""
        return f"{self.shared}.{holder.rsplit(':', 1)[-1]}"

    def mark(self, run_id: str, queue: str | None = None) -> str:
        """A new job's mark (the run's lease holder while it waits) in ``queue``."""
        return queued_mark(queue or self.shared, f"{run_id}.{uuid.uuid4().hex[:6]}")

    async def send(self, mark: tuple[str, str], run: QueuedRun, after: float = 0) -> None:
        """Enqueue the job ``mark`` (queue, key) for ``run``, to be taken ``after`` seconds
        from now at the earliest."""
        queue, key = mark
        when = {"scheduled": int(time.time() + after) + 1} if after else {}
        try:
            await (await self._queue(queue)).enqueue(
                FUNCTION, key=key, timeout=0, retries=1, run_id=run.run_id,
                input=run.input, resume_value=run.resume_value, **when)
        except Exception as exc:
            raise QueueUnavailable(
                f"the run could not be sent to a worker: the job queue did not take it "
                f"({type(exc).__name__}); try again shortly") from exc

    async def waiting(self, mark: tuple[str, str]) -> bool:
        """The job still waits in its queue. Not when it is lost or finished, nor when a
        worker took it: a live worker takes the run's lease from the job's mark at once,
        so a job taken a lease ago whose mark still holds the run was taken by a worker
        that died in between."""
        queue, key = mark
        async with asyncio.timeout(CHECK_TIMEOUT_SEC):  # the heartbeat must go on
            job = await (await self._queue(queue)).job(key)
        return job is not None and job.status in {"new", "deferred", "queued"}

    async def drop(self, mark: tuple[str, str]) -> None:
        """Abort the job, if it still waits (a worker that takes it finds nothing to run)."""
        queue, key = mark
        saq_queue = await self._queue(queue)
        job = await saq_queue.job(key)
        if job is not None:
            await saq_queue.abort(job, "the run was taken back")

    async def work(self, holder: str, concurrency: int,
                   take: Callable[[QueuedRun, str], Awaitable[None]]) -> None:
        """Take jobs from the shared queue and from this worker's own (``holder``'s) until
        cancelled: ``take(run, mark)`` runs each to its end (or to its first wait)."""
        from saq import Worker

        async def job(_ctx: dict[str, Any], *, run_id: str, input: dict[str, Any],
                      resume_value: Any = None) -> None:
            saq_job = _ctx["job"]
            mark = queued_mark(saq_job.queue.name, saq_job.key)
            await take(QueuedRun(run_id, input, resume_value), mark)

        workers = []
        for name in (self.shared, self.own(holder)):
            worker = Worker(await self._queue(name), functions=[(FUNCTION, job)],
                            concurrency=concurrency, id=f"{holder}@{name}")
            worker.SIGNALS = []  # the command that runs the worker owns its signals
            workers.append(worker)
        try:
            await asyncio.gather(*(w.start() for w in workers))
        finally:
            for worker in workers:
                with contextlib.suppress(Exception):
                    await worker.stop()

    async def close(self) -> None:
        for queue in reversed(list(self._queues.values())):
            with contextlib.suppress(Exception):
                await queue.disconnect()
        self._queues.clear()

    async def _queue(self, name: str) -> Queue:
        """The SAQ queue ``name``, connected; all of them share the first one's pool."""
        queue = self._queues.get(name)
        if queue is not None:
            return queue
        first = self._queues.get(self.shared)
        if first is None:
            from saq import Queue

            queue = Queue.from_url(self.url, name=name, **(
                PG_POOL if self.url.startswith("postgresql") else {}))
        elif self.url.startswith("postgresql"):
            from saq.queue.postgres import PostgresQueue

            queue = PostgresQueue(pool=first.pool, name=name,  # type: ignore[attr-defined]
                                  manage_pool_lifecycle=False)
        else:
            from saq.queue.redis import RedisQueue

            queue = RedisQueue(first.redis, name=name)  # type: ignore[attr-defined]
        await queue.connect()
        self._queues[name] = queue
        return queue
