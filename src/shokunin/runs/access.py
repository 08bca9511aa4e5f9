"""Who may see a thread: the one check every face (HTTP, WebSocket, SSE, Socket.IO, MCP, CLI)
uses, written once.

``who`` is a principal: None (auth off) and ``"admin"`` see every thread; an API key's
principal sees only the threads it owns. A thread it may not see is answered exactly as a
thread that does not exist (``ThreadNotFound``), so ids cannot be probed.
"""

from __future__ import annotations

from datetime import datetime

from shokunin.auth import ADMIN
from shokunin.runs.errors import ThreadNotFound, ThreadOfAnotherFace
from shokunin.runs.ids import check_thread_id, new_thread_id
from shokunin.store import RunRow, Store, ThreadSummary


def owner_scope(who: str | None) -> str | None:
    """The owner whose threads ``who`` is limited to; None when it sees every thread."""
    return None if who in (None, ADMIN) else who


def may_see(who: str | None, thread: ThreadSummary) -> bool:
    scope = owner_scope(who)
    return scope is None or thread.owner == scope


async def visible_thread(store: Store, who: str | None, thread_id: str, *,
                         agent: str | None = None, noun: str = "thread") -> ThreadSummary:
    """The thread's summary row if the id is valid, the thread exists, ``who`` may see it
    and (with ``agent``) that agent made it. Raises ``InvalidThreadId`` or ``ThreadNotFound``
    ("no <noun> '<id>'": a face names its threads in its own words, a session, a project)."""
    check_thread_id(thread_id)
    row = await store.thread_summary(thread_id)
    if row is None or not may_see(who, row) or (agent is not None and row.agent != agent):
        raise ThreadNotFound(f"no {noun} {thread_id!r}")
    return row


async def may_use(store: Store, who: str | None, thread_id: str) -> bool:
    """Whether a run started by ``who`` may go on ``thread_id``: it does not exist yet (the
    run makes it, owned by ``who``) or ``who`` may see it. Raises ``InvalidThreadId``."""
    check_thread_id(thread_id)
    if owner_scope(who) is None:
        return True  # sees every thread: no query
    row = await store.thread_summary(thread_id)
    return row is None or may_see(who, row)


async def thread_for(store: Store, who: str | None, thread_id: str | None, *, agent: str,
                     title: str) -> tuple[str, bool]:
    """The thread a new piece of ``agent``'s work goes on, and whether this call made it:
    the one named (``who`` must see it, ``agent`` must have made it: else
    ``ThreadNotFound`` / ``ThreadOfAnotherFace``), or a new one titled ``title`` and owned
    by ``who``. A caller that then fails should delete a thread it made (``created``)."""
    if thread_id:
        check_thread_id(thread_id)
        row = await store.thread_summary(thread_id)
        if row is not None:
            if not may_see(who, row):
                raise ThreadNotFound(f"no thread {thread_id!r}")
            if row.agent != agent:
                raise ThreadOfAnotherFace(
                    f"thread {thread_id!r} belongs to the {row.agent} face, not the {agent}")
            return thread_id, False
    else:
        thread_id = new_thread_id()
    await store.ensure_thread(thread_id, agent, title=title, owner=who)
    return thread_id, True


async def sees(store: Store, who: str | None, thread_id: str) -> bool:
    """Whether the thread exists and ``who`` may see it (for what a thread holds: a run, a
    dataset)."""
    if owner_scope(who) is None:
        return True
    thread = await store.thread_summary(thread_id)
    return thread is not None and may_see(who, thread)


async def visible_run(store: Store, who: str | None, run_id: str) -> RunRow | None:
    """The run's row if it exists and ``who`` may see its thread; None otherwise."""
    run = await store.get_run(run_id)
    return run if run is not None and await sees(store, who, run.thread_id) else None


async def listed_threads(store: Store, who: str | None, *, agent: str | None, limit: int,
                         before: datetime | None = None) -> list[ThreadSummary]:
    """The threads ``who`` may see (of ``agent``, or every face's), newest first."""
    return await store.list_threads(agent=agent, owner=owner_scope(who), limit=limit,
                                    before=before)
