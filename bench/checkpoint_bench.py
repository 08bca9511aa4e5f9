"""A turn's read of its thread's latest checkpoint, by conversation length: LangGraph's own
``AsyncSqliteSaver`` beside shokunin's checkpointer (which keeps each thread's latest
checkpoint in memory and checks it with one query).

For each length, a thread is filled with that many turns (a question and a 900-character
answer, as the Workbench's help text) by the graph itself, then its latest checkpoint is
read many times. Prints µs of CPU per read (all threads, aiosqlite's included). Usage:

    python bench/checkpoint_bench.py [--turns 1 10 50] [--reads 300]
"""

from __future__ import annotations

import argparse
import asyncio
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from rich.console import Console
from rich.table import Table

from shokunin.store import close_checkpointer, open_checkpointer

ANSWER = "これはヘルプの文章です。" * 75  # 900 characters


class Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def chat_graph(saver: BaseCheckpointSaver) -> Any:
    graph = StateGraph(Chat)
    graph.add_node("reply", lambda state: {"messages": [AIMessage(ANSWER)]})
    graph.add_edge(START, "reply")
    graph.add_edge("reply", END)
    return graph.compile(checkpointer=saver)


async def _langgraph(path: Path) -> tuple[BaseCheckpointSaver, Callable[[], Any]]:
    saver = AsyncSqliteSaver.from_conn_string(str(path))
    opened = await saver.__aenter__()
    await opened.conn.execute("PRAGMA journal_mode=WAL")
    return opened, lambda: saver.__aexit__(None, None, None)


async def _shokunin(path: Path) -> tuple[BaseCheckpointSaver, Callable[[], Any]]:
    saver = await open_checkpointer(f"sqlite+aiosqlite:///{path}")
    return saver, lambda: close_checkpointer(saver)


async def per_read(opener: Any, turns: int, reads: int) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        saver, close = await opener(Path(tmp) / "bench.db")
        try:
            graph = chat_graph(saver)
            config = {"configurable": {"thread_id": "t1"}}
            for n in range(turns):
                await graph.ainvoke({"messages": [HumanMessage(f"question {n}")]}, config,
                                    durability="exit")
            latest = await saver.aget_tuple(config)
            assert latest is not None and len(latest.checkpoint["channel_values"][
                "messages"]) == 2 * turns
            start = time.process_time()
            for _ in range(reads):
                await saver.aget_tuple(config)
            return (time.process_time() - start) / reads
        finally:
            await close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, nargs="+", default=[1, 10, 50])
    parser.add_argument("--reads", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=3, help="best of this many")
    args = parser.parse_args()
    table = Table(title=f"latest checkpoint read, CPU µs per read, best of {args.repeat}")
    for column in ("turns", "AsyncSqliteSaver", "shokunin", "ratio"):
        table.add_column(column, justify="right")
    for turns in args.turns:
        peer = min(asyncio.run(per_read(_langgraph, turns, args.reads))
                   for _ in range(args.repeat))
        ours = min(asyncio.run(per_read(_shokunin, turns, args.reads))
                   for _ in range(args.repeat))
        table.add_row(str(turns), f"{peer * 1e6:.0f}", f"{ours * 1e6:.0f}",
                      f"{ours / peer:.2f}")
    Console().print(table)


if __name__ == "__main__":
    main()
