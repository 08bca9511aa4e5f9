"""LangGraph's AsyncSqliteSaver, with writes that finish once begun.

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


class CommittingSqliteSaver(AsyncSqliteSaver):
    async def aput(self, *args: Any, **kwargs: Any) -> Any:
        return await asyncio.shield(super().aput(*args, **kwargs))

    async def aput_writes(self, *args: Any, **kwargs: Any) -> None:
        await asyncio.shield(super().aput_writes(*args, **kwargs))

    async def adelete_thread(self, *args: Any, **kwargs: Any) -> None:
        await asyncio.shield(super().adelete_thread(*args, **kwargs))
