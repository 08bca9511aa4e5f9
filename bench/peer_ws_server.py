"""The peer for ws_bench.py: a hand-rolled FastAPI WebSocket server over plain LangGraph.

What a user who writes their own LangGraph server would write, no more, no less: one
graph compiled at startup with ``AsyncSqliteSaver``, a LangGraph thread per connection,
and per message one ``ainvoke`` (durability "exit") of a one-node graph whose node returns
a short text, sent back as ``{"type": "text", "content": ..., "done": true}``. No event
log, no replay, no cancel. Uvicorn runs with the same WebSocket options as
``shokunin serve`` (no per-message deflate), and the checkpoint file uses WAL like
shokunin's, so the comparison measures the engine, not the transport or the journal.

``--graph agent`` runs the shape of shokunin's offline Workbench run instead: a brain node
asks for one tool call, LangGraph's ``ToolNode`` runs it, the brain answers (three steps),
so that shokunin's cost on top of the same LangGraph work can be read off too.

    python bench/peer_ws_server.py --port 8765 --db /tmp/peer.db [--graph agent]
"""

from __future__ import annotations

import argparse
import json
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import uvicorn
from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition


async def answer(state: MessagesState) -> dict[str, Any]:
    return {"messages": [AIMessage(f"You said: {state['messages'][-1].content}")]}


@tool
async def highlight_room(room_names: str) -> str:
    """Highlight rooms on the floor plan. room_names: comma-separated room names."""
    return f"Highlighted {room_names}."


async def brain(state: MessagesState) -> dict[str, Any]:
    last = state["messages"][-1]
    if isinstance(last, ToolMessage):
        return {"messages": [AIMessage(f"Done: {last.content}")]}
    call = {"name": "highlight_room", "args": {"room_names": str(last.content)},
            "id": f"call_{uuid.uuid4().hex[:12]}", "type": "tool_call"}
    return {"messages": [AIMessage("", tool_calls=[call])]}


def build(builder: StateGraph, graph: str) -> None:
    if graph == "one":
        builder.add_node("answer", answer)
        builder.add_edge(START, "answer")
        return
    builder.add_node("brain", brain)
    builder.add_node("tools", ToolNode([highlight_room]))
    builder.add_edge(START, "brain")
    builder.add_conditional_edges("brain", tools_condition)
    builder.add_edge("tools", "brain")


def create_app(db: str, graph: str = "one") -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncSqliteSaver.from_conn_string(db) as saver:
            await saver.conn.execute("PRAGMA journal_mode=WAL")
            await saver.conn.execute("PRAGMA synchronous=NORMAL")
            builder = StateGraph(MessagesState)
            build(builder, graph)
            app.state.graph = builder.compile(checkpointer=saver)
            yield

    app = FastAPI(lifespan=lifespan)

    @app.websocket("/ws")
    async def chat(ws: WebSocket) -> None:
        await ws.accept()
        config = {"configurable": {"thread_id": uuid.uuid4().hex}}
        try:
            while True:
                data = json.loads(await ws.receive_text())
                state = await app.state.graph.ainvoke(
                    {"messages": [HumanMessage(data["message"])]}, config, durability="exit")
                await ws.send_text(json.dumps(
                    {"type": "text", "content": state["messages"][-1].content, "done": True},
                    ensure_ascii=False))
        except WebSocketDisconnect:
            pass

    @app.get("/health")
    async def health() -> dict[str, str]:
        return {"status": "ok"}

    return app


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--db", default="peer-checkpoints.db")
    parser.add_argument("--graph", choices=["one", "agent"], default="one")
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args()
    uvicorn.run(create_app(args.db, args.graph), host=args.host, port=args.port,
                log_level=args.log_level, ws_per_message_deflate=False)


if __name__ == "__main__":
    main()
