"""LangGraph's AsyncPostgresSaver, with each thread's latest checkpoint kept in memory
(checkpoint_cache.py): the check that it is still the latest is one indexed query."""

from __future__ import annotations

from langgraph.checkpoint.postgres.aio import AsyncPostgresSaver

from shokunin.store.checkpoint_cache import LatestCheckpointCache

_LATEST = (
    "SELECT c.checkpoint_id, EXISTS (SELECT 1 FROM checkpoint_writes w"
    " WHERE w.thread_id = c.thread_id AND w.checkpoint_ns = c.checkpoint_ns"
    " AND w.checkpoint_id = c.checkpoint_id) AS has_writes"
    " FROM checkpoints c WHERE c.thread_id = %s AND c.checkpoint_ns = %s"
    " ORDER BY c.checkpoint_id DESC LIMIT 1")


class CachingPostgresSaver(LatestCheckpointCache, AsyncPostgresSaver):
    async def _latest_in_database(self, thread_id: str, checkpoint_ns: str) -> tuple[
            str | None, bool]:
        async with self._cursor() as cur:
            await cur.execute(_LATEST, (thread_id, checkpoint_ns))
            row = await cur.fetchone()
        return (row["checkpoint_id"], row["has_writes"]) if row else (None, False)
