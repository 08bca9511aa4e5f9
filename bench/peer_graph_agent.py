"""The peer's one-node graph (peer_ws_server.py) as a shokunin agent.

Run by the Runner like any agent: every event stored before it is published, the
driver's stream. Beside the peer, it shows what shokunin's engine costs on the same
LangGraph work (engine_bench.py in one process, ws_bench.py's ``shokunin-one-node``
over WS /ws).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.graph import MessagesState, StateGraph

from shokunin import events as ev
from shokunin.agents.driver import drive
from shokunin.runs import RunContext

sys.path.insert(0, str(Path(__file__).parent))
import peer_ws_server as peer  # noqa: E402 - the peer's graph, from beside this file


def one_node_graph(checkpointer: Any) -> Any:
    builder = StateGraph(MessagesState)
    peer.build(builder, "one")
    return builder.compile(checkpointer=checkpointer)


class PeerGraphAgent:
    """Its answer is the run's one ``text`` event."""

    def __init__(self, graph: Any, name: str = "peer_graph") -> None:
        self.graph = graph
        self.name = name

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        state = await drive(self.graph, ctx, {"messages": [HumanMessage(input["message"])]},
                            models=False)
        text = str(state["messages"][-1].content)
        await ctx.emit(ev.Text(text=text))
        return {"text": text}
