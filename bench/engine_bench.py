"""The engine's cost on top of LangGraph, in one process, without a network in between.

Three ways to answer the same messages on SQLite (100 threads x 10 messages, all threads'
messages of one round started together, like clients of a server):

    langgraph   the peer's one-node graph (bench/peer_ws_server.py), bare ``ainvoke`` with
                ``AsyncSqliteSaver`` (durability "exit"): what a hand-rolled server does
    runner      the same graph as a shokunin agent: Runner, RunContext, every event stored
                before it is published, the driver's ``astream``
    workbench   shokunin's Workbench agent with the offline brain: its graph (brain, route),
                tools and step report

Prints CPU per run (the event loop's thread, and all threads with the database's) and each
row's difference to the first way run (``langgraph`` unless ``--ways`` says otherwise). Usage:

    python bench/engine_bench.py [--threads 100] [--messages 10] [--repeat 3] [--text hello]
                                 [--ways langgraph runner workbench]

Instruction counts, which the machine's other load does not change: run one way under
valgrind at two lengths and divide the difference by the runs between them, e.g.

    valgrind --tool=callgrind --callgrind-out-file=/dev/null python bench/engine_bench.py \
        --ways runner --threads 20 --messages 1 --repeat 1      # then --messages 30
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from rich.console import Console
from rich.table import Table

from shokunin.agents.workbench.factory import workbench_agent
from shokunin.config import Settings
from shokunin.maps import load_map
from shokunin.runs import MemoryBus, Runner
from shokunin.store import Store, close_checkpointer, open_checkpointer

sys.path.insert(0, str(Path(__file__).parent))
from peer_graph_agent import PeerGraphAgent, one_node_graph  # noqa: E402 - beside this file

WAYS = ["langgraph", "runner", "workbench"]


async def _timed(rounds: int, threads: list[str], one: Any) -> tuple[float, float]:
    """(event-loop thread CPU, process CPU) per message."""
    loop0, all0 = time.thread_time(), time.process_time()
    for _ in range(rounds):
        await asyncio.gather(*(one(t) for t in threads))
    n = rounds * len(threads)
    return (time.thread_time() - loop0) / n, (time.process_time() - all0) / n


async def bare(folder: Path, n_threads: int, rounds: int, text: str) -> tuple[float, float]:
    async with AsyncSqliteSaver.from_conn_string(str(folder / "peer.db")) as saver:
        await saver.conn.execute("PRAGMA journal_mode=WAL")
        await saver.conn.execute("PRAGMA synchronous=NORMAL")
        graph = one_node_graph(saver)

        async def one(thread: str) -> None:
            await graph.ainvoke({"messages": [HumanMessage(text)]},
                                {"configurable": {"thread_id": thread}}, durability="exit")

        return await _timed(rounds, [uuid.uuid4().hex for _ in range(n_threads)], one)


async def through_runner(folder: Path, n_threads: int, rounds: int, text: str,
                         agent: str) -> tuple[float, float]:
    url = f"sqlite+aiosqlite:///{folder / 'shokunin.db'}"
    settings = Settings(data_dir=folder)
    store = await Store.open(url)
    checkpointer = await open_checkpointer(store)
    try:
        runner = Runner(store, MemoryBus(), folder / "workspaces")
        chosen = (PeerGraphAgent(one_node_graph(checkpointer)) if agent == "runner"
                  else workbench_agent(settings, load_map(settings.map_dir), checkpointer))
        runner.register(chosen)

        async def one(thread: str) -> None:
            await runner.wait(await runner.start(chosen.name, thread, {"message": text}))

        return await _timed(rounds, [uuid.uuid4().hex for _ in range(n_threads)], one)
    finally:
        await close_checkpointer(checkpointer)
        await store.close()


def measure(way: str, n_threads: int, rounds: int, text: str) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        if way == "langgraph":
            return asyncio.run(bare(folder, n_threads, rounds, text))
        return asyncio.run(through_runner(folder, n_threads, rounds, text, way))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=100)
    parser.add_argument("--messages", type=int, default=10, help="messages per thread")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many rounds")
    parser.add_argument("--text", default="hello")
    parser.add_argument("--ways", nargs="+", choices=WAYS, default=WAYS,
                        help="run only these (the first is the base of the differences)")
    args = parser.parse_args()
    ways = args.ways
    best: dict[str, tuple[float, float]] = {}
    for _ in range(args.repeat):  # interleaved, so a busy moment hits every way alike
        for way in ways:
            loop_cpu, all_cpu = measure(way, args.threads, args.messages, args.text)
            old = best.get(way)
            best[way] = (min(loop_cpu, old[0]), min(all_cpu, old[1])) if old else (
                loop_cpu, all_cpu)
    table = Table(title=f"{args.threads} threads x {args.messages} messages {args.text!r}, "
                        f"best of {args.repeat}; CPU ms per message")
    for column in ("way", "event loop", "all threads", f"event loop - {ways[0]}",
                   f"all - {ways[0]}"):
        table.add_column(column, justify="right")
    base = best[ways[0]]
    for way in ways:
        loop_cpu, all_cpu = best[way]
        table.add_row(way, f"{loop_cpu * 1e3:.2f}", f"{all_cpu * 1e3:.2f}",
                      f"{(loop_cpu - base[0]) * 1e3:+.2f}", f"{(all_cpu - base[1]) * 1e3:+.2f}")
    Console().print(table)


if __name__ == "__main__":
    main()
