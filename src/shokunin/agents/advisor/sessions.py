"""The Advisor's sessions, the use cases every face calls (REST and SSE for the seed's client,
MCP's ``ask_advisor``): open a session, find one the caller may use, ask in it, clear it.

A session is an Advisor thread; its ``meta`` holds the user's profile (``user_info``).
"""

from __future__ import annotations

from shokunin.agents.advisor.agent import NAME
from shokunin.runs import Runner, ThreadNotFound, access, delete_thread
from shokunin.store import Store, ThreadRow, ThreadSummary


async def open_session(store: Store, who: str | None, profile: dict[str, str],
                       title: str) -> str:
    """A new session owned by ``who``, holding ``profile``; its id."""
    session_id, _ = await access.thread_for(store, who, None, agent=NAME,
                                            title=title or "相談")
    await store.set_thread_meta(session_id, {"user_info": profile})
    return session_id


async def session(store: Store, who: str | None, session_id: str) -> ThreadRow:
    """The session's thread (its ``meta`` too), if it is an Advisor session ``who`` may see;
    else ``InvalidThreadId`` / ``ThreadNotFound`` ("no session ...")."""
    await access.visible_thread(store, who, session_id, agent=NAME, noun="session")
    thread = await store.get_thread(session_id)
    if thread is None:  # deleted since
        raise ThreadNotFound(f"no session {session_id!r}")
    return thread


async def ask(runner: Runner, who: str | None, session_id: str, message: str) -> str:
    """Start the Advisor on ``message`` in the session; the run's id."""
    await session(runner.store, who, session_id)
    return await runner.start(NAME, session_id, {"message": message}, owner=who)


async def set_step(runner: Runner, who: str | None, session_id: str, step: str) -> str:
    """Move the session to ``step`` (a run that records it); the run's id."""
    await session(runner.store, who, session_id)
    return await runner.start(NAME, session_id, {"set_step": step}, owner=who)


async def clear(runner: Runner, who: str | None, session_id: str) -> None:
    """Forget the conversation and its step (runs, events, checkpoints, diagrams); the
    session's id, owner, title and profile stay. ``RunStateError`` while a run is live."""
    thread = await session(runner.store, who, session_id)
    await delete_thread(runner, session_id)
    await runner.store.ensure_thread(session_id, NAME, title=thread.title, owner=thread.owner)
    await runner.store.set_thread_meta(session_id, thread.meta or {})


async def delete(runner: Runner, who: str | None, session_id: str) -> None:
    """Delete the session and all it holds. ``RunStateError`` while a run is live."""
    await session(runner.store, who, session_id)
    await delete_thread(runner, session_id)


async def session_ids(store: Store, who: str | None, limit: int) -> list[ThreadSummary]:
    """The sessions ``who`` may see, newest first."""
    return await access.listed_threads(store, who, agent=NAME, limit=limit)
