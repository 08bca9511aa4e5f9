"""Run leases: which process runs a run, for how long it has said so, and who takes it over.

A process that runs a run holds its lease: the run row names the holder and a time until
which the holder vouches for it. The holder renews its leases on a heartbeat; a run whose
lease has run out, or whose holder is known to be gone (a dead process on this machine),
is an orphan that another process may claim, one claim winning. Without leases, a process
starting up could not tell a run a crashed process left from one another live process is
running, and several web processes or workers could not share one database.

A holder is ``host:pid:token``: the token tells two engines of one process apart (tests
open several), and a process restarted with the same pid (pid 1 in a container) from its
previous self.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, or_, select, update
from sqlalchemy.ext.asyncio import AsyncEngine

from shokunin.store import schema
from shokunin.store.rows import RunStatus

_HOST = socket.gethostname()
QUEUED = "queue:"  # the prefix of a run's holder while it waits in the job queue
# Holders of engines open in this process: a holder with this pid that is not here is gone.
_OPEN_HERE: set[str] = set()


def _now() -> datetime:
    return datetime.now(UTC)


def holder_gone(holder: str | None) -> bool:
    """True when ``holder`` is surely not running any more: a process of this machine that
    has exited, or an engine of this process that has closed. A holder on another machine
    is never known gone; its lease running out says so."""
    if not holder:
        return True
    host, _, rest = holder.partition(":")
    pid_text, _, _token = rest.partition(":")
    if host != _HOST or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return holder not in _OPEN_HERE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # another user's live process
        return False
    return False


def queued_mark(queue: str, key: str) -> str:
    """The holder of a run waiting in the job queue ``queue`` as the job ``key``: the queue
    vouches for it until a worker takes its lease (``Leases.pass_on``)."""
    return f"{QUEUED}{queue}/{key}"


def queued_in(holder: str | None) -> tuple[str, str] | None:
    """The queue and the job key of a ``queued_mark``; None for any other holder."""
    if not holder or not holder.startswith(QUEUED):
        return None
    queue, _, key = holder.removeprefix(QUEUED).partition("/")
    return queue, key


@dataclass(frozen=True, slots=True)
class Held:
    """A run this holder runs, and what was asked of it from anywhere: to be cancelled, or
    (its thread held) to wait at its next gate."""

    run_id: str
    thread_id: str
    cancel: bool
    thread_held: bool


@dataclass(frozen=True, slots=True)
class Orphan:
    """A running run whose holder is gone or whose lease ran out."""

    id: str
    thread_id: str
    agent: str
    holder: str | None


class Leases:
    """The lease operations of one holder (one open engine) on the runs table."""

    def __init__(self, engine: AsyncEngine, seconds: float) -> None:
        self.engine = engine
        self.seconds = seconds
        self.holder = f"{_HOST}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        _OPEN_HERE.add(self.holder)

    def close(self) -> None:
        """This holder runs nothing any more: its runs are orphans at once."""
        _OPEN_HERE.discard(self.holder)

    def until(self) -> datetime:
        return _now() + timedelta(seconds=self.seconds)

    def values(self) -> dict[str, object]:
        """The columns that give a run row to this holder."""
        return {"lease_holder": self.holder, "lease_until": self.until()}

    async def renew(self) -> list[Held]:
        """Extend this holder's leases on its running runs; return them, each with what
        another process may have asked of it (``request_cancel``, a held thread)."""
        runs, threads = schema.runs, schema.threads
        async with self.engine.begin() as conn:
            await conn.execute(
                update(runs).where(runs.c.lease_holder == self.holder,
                                   runs.c.status == RunStatus.RUNNING)
                .values(lease_until=self.until()))
            rows = await conn.execute(
                select(runs.c.id, runs.c.thread_id, runs.c.cancel_requested, threads.c.held)
                .join(threads, threads.c.id == runs.c.thread_id)
                .where(runs.c.lease_holder == self.holder, runs.c.status == RunStatus.RUNNING))
            return [Held(run_id, thread_id, bool(cancel), bool(held))
                    for run_id, thread_id, cancel, held in rows]

    async def orphans(self) -> list[Orphan]:
        """Running runs no live holder vouches for (oldest first)."""
        runs = schema.runs
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                select(runs.c.id, runs.c.thread_id, runs.c.agent, runs.c.lease_holder,
                       runs.c.lease_until)
                .where(runs.c.status == RunStatus.RUNNING,
                       or_(runs.c.lease_holder.is_(None),
                           runs.c.lease_holder != self.holder),
                       # Only what could be an orphan: an expired lease, or a holder on
                       # this machine (a dead pid says so before its lease runs out).
                       or_(runs.c.lease_until.is_(None), runs.c.lease_until < _now(),
                           runs.c.lease_holder.startswith(f"{_HOST}:", autoescape=True)))
                .order_by(runs.c.created_at))).all()
        now = _now()
        return [Orphan(run_id, thread_id, agent, holder)
                for run_id, thread_id, agent, holder, until in rows
                if expired(until, now) or holder_gone(holder)]

    async def mine(self, run_ids: Sequence[str]) -> list[Orphan]:
        """Those of ``run_ids`` that are still running under this holder, as orphans."""
        if not run_ids:
            return []
        runs = schema.runs
        async with self.engine.connect() as conn:
            rows = (await conn.execute(
                select(runs.c.id, runs.c.thread_id, runs.c.agent)
                .where(runs.c.id.in_(list(run_ids)), runs.c.lease_holder == self.holder,
                       runs.c.status == RunStatus.RUNNING))).all()
        return [Orphan(run_id, thread_id, agent, self.holder)
                for run_id, thread_id, agent in rows]

    async def claim(self, orphan: Orphan) -> bool:
        """Take an orphan's lease; False when another process took it first, or its holder
        renewed it meanwhile (it was not gone after all)."""
        runs = schema.runs
        still = (runs.c.lease_holder.is_(None) if orphan.holder is None
                 else runs.c.lease_holder == orphan.holder)
        if not holder_gone(orphan.holder):  # by expiry only: it must still be expired
            still = and_(still, or_(runs.c.lease_until.is_(None),
                                    runs.c.lease_until < _now()))
        async with self.engine.begin() as conn:
            result = await conn.execute(
                update(runs).where(runs.c.id == orphan.id,
                                   runs.c.status == RunStatus.RUNNING, still)
                .values(**self.values()))
            return result.rowcount == 1

    async def pass_on(self, run_id: str, holder: str, to: str) -> bool:
        """Give a running run's lease from ``holder`` to ``to`` (either may be this holder
        or a job-queue mark, ``queued_mark``), for a lease's length from now; False when
        ``holder`` no longer holds it (one of two racing hand-overs wins)."""
        runs = schema.runs
        async with self.engine.begin() as conn:
            result = await conn.execute(
                update(runs).where(runs.c.id == run_id, runs.c.status == RunStatus.RUNNING,
                                   runs.c.lease_holder == holder)
                .values(lease_holder=to, lease_until=self.until()))
            return result.rowcount == 1

    async def give_up(self, run_ids: Sequence[str]) -> None:
        """This holder stops running ``run_ids``: their leases run out now, for another
        process to claim at its next heartbeat."""
        if not run_ids:
            return
        runs = schema.runs
        async with self.engine.begin() as conn:
            await conn.execute(
                update(runs).where(runs.c.id.in_(list(run_ids)),
                                   runs.c.lease_holder == self.holder,
                                   runs.c.status == RunStatus.RUNNING)
                .values(lease_until=datetime(1970, 1, 1, tzinfo=UTC)))

    async def request_cancel(self, run_id: str) -> bool:
        """Ask whichever process runs ``run_id`` to cancel it (at its next heartbeat); False
        when it is not running."""
        runs = schema.runs
        async with self.engine.begin() as conn:
            result = await conn.execute(
                update(runs).where(runs.c.id == run_id, runs.c.status == RunStatus.RUNNING)
                .values(cancel_requested=True))
            return result.rowcount == 1


def expired(until: datetime | None, now: datetime | None = None) -> bool:
    """A lease time (``until``) that has run out by ``now`` (default: this moment)."""
    now = now or _now()
    if until is None:
        return True
    if until.tzinfo is None:  # SQLite gives back naive UTC
        until = until.replace(tzinfo=UTC)
    return until < now
