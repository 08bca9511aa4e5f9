"""WorkbenchAgent: runs the Workbench graph for one message on a thread.

The graph is compiled with the server's one checkpointer, which keeps every thread's
conversation, so a thread continues across reconnects and restarts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin.agents.driver import drive
from shokunin.agents.workbench.brain import Brain
from shokunin.agents.workbench.decision import text_of
from shokunin.agents.workbench.deps import RunDeps
from shokunin.agents.workbench.graph import build_graph
from shokunin.agents.workbench.tools import ImageHold, build_toolbox
from shokunin.maps import MapError, MapPackage
from shokunin.runs import RunContext

RECURSION_LIMIT = 40


class WorkbenchAgent:
    name = "workbench"

    def __init__(self, brain: Brain | None, pkg: MapPackage | MapError, sample_db: Path,
                 checkpointer: BaseCheckpointSaver | None) -> None:
        self.brain = brain
        self.pkg = pkg
        self.sample_db = sample_db
        self.graph = build_graph(brain, checkpointer) if brain is not None else None

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        if isinstance(self.pkg, MapError):
            raise self.pkg
        assert self.graph is not None and self.brain is not None  # see factory.py
        hold = ImageHold(ctx)
        deps = RunDeps(ctx=ctx, hold=hold)
        deps.tools = build_toolbox(ctx, self.pkg, self.sample_db, hold, lambda: deps.step)
        try:
            state = await drive(
                self.graph, ctx, {"messages": [HumanMessage(str(input.get("message", "")))]},
                config={"recursion_limit": RECURSION_LIMIT}, context=deps,
                models=self.brain.calls_model)
            await hold.release()  # a run that ended without an answer still shows its plots
        finally:
            # The tools hold the run (deps -> tools -> closures -> deps): break the cycle so
            # the run is freed when it ends, not by a full collection of the oldest objects
            # (under load, a pause of a second for hundreds of thousands of them).
            deps.tools = {}
        return {"text": text_of(state["messages"][-1])}
