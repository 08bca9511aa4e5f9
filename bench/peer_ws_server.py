"""The peer for ws_bench.py: a hand-rolled FastAPI WebSocket server over plain LangGraph.

What a user who writes their own LangGraph server would write, no more, no less: one
graph compiled at startup with ``AsyncSqliteSaver``, a LangGraph thread per connection,
and per message one ``ainvoke`` (durability "exit") of a one-node graph whose node returns
a short text, sent back as ``{"type": "text", "content": ..., "done": true}``. No event
log, no replay, no cancel. Uvicorn runs with the same WebSocket options as
``shokunin serve`` (no per-message deflate), and the checkpoint file uses WAL like
shokunin's, so the comparison measures the engine, not the transport or the journal.

    python bench/peer_ws_server.py --port 8765 --db /tmp/peer.db
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
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import START, MessagesState, StateGraph


async def answer(state: MessagesState) -> dict[str, Any]:
    return {"messages": [AIMessage(f"You said: {state['messages'][-1].content}")]}


def create_app(db: str) -> FastAPI:
    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncSqliteSaver.from_conn_string(db) as saver:
            await saver.conn.execute("PRAGMA journal_mode=WAL")
            await saver.conn.execute("PRAGMA synchronous=NORMAL")
            builder = StateGraph(MessagesState)
            builder.add_node("answer", answer)
            builder.add_edge(START, "answer")
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
    parser.add_argument("--log-level", default="warning")
    args = parser.parse_args()
    uvicorn.run(create_app(args.db), host=args.host, port=args.port, log_level=args.log_level,
                ws_per_message_deflate=False)


if __name__ == "__main__":
    main()
