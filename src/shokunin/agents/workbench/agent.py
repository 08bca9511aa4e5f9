"""WorkbenchAgent: runs the Workbench graph for one message on a thread.

The graph is compiled with the server's one checkpointer, which keeps every thread's
conversation, so a thread continues across reconnects and restarts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin import events as ev
from shokunin.agents.driver import drive
from shokunin.agents.workbench.brain import Brain
from shokunin.agents.workbench.decision import text_of
from shokunin.agents.workbench.deps import RunDeps
from shokunin.agents.workbench.graph import build_graph
from shokunin.agents.workbench.tools import ImageHold, Toolbox
from shokunin.maps import MapError, MapPackage, mentioned_rooms
from shokunin.runs import RunContext

RECURSION_LIMIT = 40
# Seed 000 highlights the rooms its reply names; a reply naming more lists rooms rather
# than points at them.
MAX_AUTO_HIGHLIGHT = 4
_MAP_EVENTS = (ev.MapShow, ev.HighlightRoom, ev.Arrow, ev.ClearArrows, ev.ClearMap)


class WorkbenchAgent:
    name = "workbench"
    # Its tools and cells are stored as events before they act (Agent: restart).
    restartable = True

    def __init__(self, brain: Brain, pkg: MapPackage | MapError, sample_db: Path,
                 checkpointer: BaseCheckpointSaver | None) -> None:
        self.brain = brain
        self.pkg = pkg  # a MapError: the map failed to load, and the map tools are left out
        self.graph = build_graph(brain, checkpointer)
        self.toolbox = Toolbox(pkg, sample_db)

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        hold = ImageHold(ctx)
        deps = RunDeps(ctx=ctx, hold=hold, tools=self.toolbox.for_run(ctx),
                       language="ja" if input.get("language") == "ja" else "en")
        state = await drive(
            self.graph, ctx, {"messages": [HumanMessage(str(input.get("message", "")))]},
            config={"recursion_limit": RECURSION_LIMIT}, context=deps,
            models=self.brain.calls_model)
        await hold.release()  # a run that ended without an answer still shows its plots
        if isinstance(self.pkg, MapPackage):
            await _highlight_mentions(ctx, self.pkg, text_of(state["messages"][-1]))
        return {"text": text_of(state["messages"][-1])}


async def _highlight_mentions(ctx: RunContext, pkg: MapPackage, reply: str) -> None:
    """Highlight the rooms the reply names (seed 000's automatic ``highlight_room``), unless
    the run already set the map itself: a highlight on top would change what it drew."""
    if any(isinstance(e, _MAP_EVENTS) for e in ctx.history):
        return
    rooms = mentioned_rooms(reply, pkg, most=MAX_AUTO_HIGHLIGHT)
    if 0 < len(rooms) <= MAX_AUTO_HIGHLIGHT:
        await ctx.emit(ev.HighlightRoom(rooms=rooms))
