"""WorkbenchAgent: runs the Workbench graph for one message on a thread.

The checkpointer (SQLite, under the data folder) keeps every thread's conversation, so a
thread continues across reconnects and restarts.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiosqlite
from langchain_core.messages import HumanMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph.state import CompiledStateGraph

from shokunin.agents.workbench.brain import Brain
from shokunin.agents.workbench.decision import text_of
from shokunin.agents.workbench.deps import RunDeps
from shokunin.agents.workbench.graph import build_graph
from shokunin.agents.workbench.tools import ImageHold, build_toolbox
from shokunin.maps import MapError, MapPackage
from shokunin.runs import RunContext

RECURSION_LIMIT = 40
# Checkpoint once per run, at its end: a run cut short by a crash is marked failed on
# restart and its events are stored, so per-step checkpoints would buy nothing a user sees
# while costing a write per step under load.


class WorkbenchAgent:
    name = "workbench"

    def __init__(self, brain: Brain | None, pkg: MapPackage | MapError, sample_db: Path,
                 checkpoint_db: Path | None) -> None:
        self.brain = brain
        self.pkg = pkg
        self.sample_db = sample_db
        self.checkpoint_db = checkpoint_db
        self._graph: CompiledStateGraph | None = None
        self._conn: aiosqlite.Connection | None = None
        self._lock = asyncio.Lock()

    async def graph(self) -> CompiledStateGraph:
        async with self._lock:
            if self._graph is None:
                saver = None
                if self.checkpoint_db is not None:
                    self.checkpoint_db.parent.mkdir(parents=True, exist_ok=True)
                    self._conn = await aiosqlite.connect(self.checkpoint_db)
                    # WAL + NORMAL: a commit per step without an fsync per step.
                    await self._conn.execute("PRAGMA journal_mode=WAL")
                    await self._conn.execute("PRAGMA synchronous=NORMAL")
                    saver = AsyncSqliteSaver(self._conn)
                    await saver.setup()
                assert self.brain is not None
                self._graph = build_graph(self.brain, saver)
            return self._graph

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        if isinstance(self.pkg, MapError):
            raise self.pkg
        graph = await self.graph()
        hold = ImageHold(ctx)
        deps = RunDeps(ctx=ctx, hold=hold)
        deps.tools = build_toolbox(ctx, self.pkg, self.sample_db, hold, lambda: deps.step)
        state = await graph.ainvoke(
            {"messages": [HumanMessage(str(input.get("message", "")))]},
            config={"configurable": {"thread_id": ctx.thread_id},
                    "recursion_limit": RECURSION_LIMIT},
            context=deps, durability="exit")
        await hold.release()  # a run that ended without an answer still shows its plots
        return {"text": text_of(state["messages"][-1])}

    async def aclose(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None
            self._graph = None
