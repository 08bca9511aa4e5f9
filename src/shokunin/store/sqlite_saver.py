"""LangGraph's AsyncSqliteSaver, with writes that finish once begun and each thread's latest
checkpoint kept in memory (checkpoint_cache.py).

The saver writes in two steps on its one connection: the statements, then ``COMMIT``. A
run cancelled between the two (a user's cancel, a shutdown) would leave that connection
holding SQLite's write lock, and the store's writer, on the same file, would wait for it
and then fail with "database is locked". Each write therefore runs to its commit in a task
of its own, whatever happens to the caller.
"""

from __future__ import annotations

import asyncio
from typing import Any

from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

from shokunin.store.checkpoint_cache import LatestCheckpointCache

# One statement, so one trip to aiosqlite's thread.
_LATEST = (
    "SELECT checkpoint_id, EXISTS (SELECT 1 FROM writes w WHERE w.thread_id = c.thread_id"
    " AND w.checkpoint_ns = c.checkpoint_ns AND w.checkpoint_id = c.checkpoint_id)"
    " FROM checkpoints c WHERE c.thread_id = ? AND c.checkpoint_ns = ?"
    " ORDER BY c.checkpoint_id DESC LIMIT 1")


class CommittingSqliteSaver(LatestCheckpointCache, AsyncSqliteSaver):
    async def _latest_in_database(self, thread_id: str, checkpoint_ns: str) -> tuple[
            str | None, bool]:
        async with self.lock:  # never between another write's statements and its commit
            rows = await self.conn.execute_fetchall(_LATEST, (thread_id, checkpoint_ns))
        for checkpoint_id, has_writes in rows:
            return checkpoint_id, bool(has_writes)
        return None, False

    async def aput(self, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.shield(super().aput(*args, **kwargs))

    async def aput_writes(self, *args: Any, **kwargs: Any) -> None:
        await asyncio.shield(super().aput_writes(*args, **kwargs))

    async def adelete_thread(self, *args: Any, **kwargs: Any) -> None:
        await asyncio.shield(super().adelete_thread(*args, **kwargs))
