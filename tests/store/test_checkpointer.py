"""The server's one checkpointer lives in the store's own database, on every backend."""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import threading
from pathlib import Path
from types import SimpleNamespace
from typing import Any, TypedDict

import pytest
from langgraph.checkpoint.base import ERROR, INTERRUPT, empty_checkpoint
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from sqlalchemy import inspect, text
from sqlalchemy.engine import make_url

from shokunin.store import Store, close_checkpointer, open_checkpointer
from tests.waiting import eventually


class Count(TypedDict):
    n: int


def counter_graph(checkpointer):  # noqa: ANN001, ANN201 - a tiny LangGraph graph
    graph = StateGraph(Count)
    graph.add_node("add", lambda state: {"n": state["n"] + 1})
    graph.add_edge(START, "add")
    graph.add_edge("add", END)
    return graph.compile(checkpointer=checkpointer)


async def test_checkpoints_live_in_the_store_database_and_survive_reopening(
    store: Store, db_url: str
) -> None:
    saver = await open_checkpointer(store)
    try:
        config = {"configurable": {"thread_id": "t1"}}
        await counter_graph(saver).ainvoke({"n": 1}, config)
    finally:
        await close_checkpointer(saver)
    async with store.engine.connect() as conn:  # the store's own database
        names = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
        rows = await conn.scalar(text(
            "SELECT COUNT(*) FROM checkpoints WHERE thread_id = 't1'"))
    assert {"checkpoints", "threads", "runs", "events"} <= names and rows >= 1

    restarted = await Store.open(db_url)  # a restarted server
    reopened = await open_checkpointer(restarted)
    try:
        state = await counter_graph(reopened).aget_state(config)
        assert state.values == {"n": 2}
        await reopened.adelete_thread("t1")  # what deleting a thread does
        assert (await counter_graph(reopened).aget_state(config)).values == {}
    finally:
        await close_checkpointer(reopened)
        await restarted.close()


async def test_the_backend_follows_the_database_url(store: Store, db_url: str) -> None:
    saver = await open_checkpointer(store)
    try:
        if db_url.startswith("sqlite"):
            assert isinstance(saver, AsyncSqliteSaver)
            async with saver.conn.execute("PRAGMA journal_mode") as cur:  # type: ignore
                assert (await cur.fetchone())[0] == "wal"
        else:
            assert type(saver).__name__ == "AsyncPostgresSaver"
    finally:
        await close_checkpointer(saver)


async def test_an_unsupported_database_is_refused() -> None:
    mysql = SimpleNamespace(engine=SimpleNamespace(url=make_url("mysql+aiomysql://u@h/db")))
    with pytest.raises(ValueError, match="SQLite or PostgreSQL"):
        await open_checkpointer(mysql)  # type: ignore[arg-type]


class _CountedCommits:
    """Wraps the store writer's batch commit: how many, and which tables each wrote."""

    def __init__(self, store: Store) -> None:
        self.tables: list[set[str]] = []
        self.gate = threading.Event()
        self.gate.set()
        self.entered = threading.Event()
        self._commit = store.writer._commit_sync
        store.writer._commit_sync = self  # type: ignore[method-assign]

    def __call__(self, items: list[Any]) -> None:
        self.entered.set()
        self.gate.wait(10)
        self.tables.append({statement.table.name for writes, _ in items
                            for statement, _ in writes})
        self._commit(items)


async def test_checkpoint_writes_join_the_store_writers_commits(tmp_path: Path) -> None:
    """Checkpoints are committed by the store's one writer, many in one transaction,
    instead of each taking SQLite's write lock on a connection of its own."""
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'shokunin.db'}")
    commits = _CountedCommits(store)
    saver = await open_checkpointer(store)
    try:
        graph = counter_graph(saver)
        await asyncio.gather(*(
            graph.ainvoke({"n": i}, {"configurable": {"thread_id": f"t{i}"}},
                          durability="exit") for i in range(40)))
        states = [await graph.aget_state({"configurable": {"thread_id": f"t{i}"}})
                  for i in range(40)]
    finally:
        await close_checkpointer(saver)
        await store.close()
    assert [s.values["n"] for s in states] == [i + 1 for i in range(40)]
    with_checkpoints = [t for t in commits.tables if "checkpoints" in t]
    assert with_checkpoints, "no checkpoint went through the store's writer"
    assert len(with_checkpoints) < 20  # 40 checkpoints, batched


async def test_a_checkpoint_write_whose_caller_is_cancelled_still_commits_and_frees_the_database(
    tmp_path: Path,
) -> None:
    """A run cancelled while its checkpoint is being written (a cancel, a shutdown) must
    neither lose the checkpoint nor leave SQLite's write lock held."""
    path = tmp_path / "shokunin.db"
    store = await Store.open(f"sqlite+aiosqlite:///{path}")
    commits = _CountedCommits(store)
    saver = await open_checkpointer(store)
    commits.gate.clear()
    config = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
    write = asyncio.create_task(saver.aput(config, empty_checkpoint(), {}, {}))
    try:
        assert await asyncio.to_thread(commits.entered.wait, 10), "the write never started"
        write.cancel()
        await eventually(write.done, what="the cancel reaching the caller")
        commits.gate.set()
        with contextlib.suppress(asyncio.CancelledError):
            await write
        await store.writer.execute()  # the batch after it: the cancelled one is committed
        with sqlite3.connect(path, timeout=1) as other:  # another writer gets the lock
            other.execute("BEGIN IMMEDIATE")
            rows = other.execute(
                "SELECT COUNT(*) FROM checkpoints WHERE thread_id = 't1'").fetchone()[0]
            other.rollback()
    finally:
        commits.gate.set()
        await close_checkpointer(saver)
        await store.close()
    assert write.cancelled() and rows == 1


def asking_graph(checkpointer):  # noqa: ANN001, ANN201 - waits for a human, then counts
    def ask(state: Count) -> Count:
        return {"n": state["n"] + interrupt("how many more?")}

    graph = StateGraph(Count)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", END)
    return graph.compile(checkpointer=checkpointer)


@pytest.mark.parametrize("first", ["shokunin", "langgraph"])
async def test_the_shared_writer_saver_and_langgraphs_own_read_each_others_checkpoints(
    tmp_path: Path, first: str
) -> None:
    """The rows are LangGraph's own: a run interrupted under one saver resumes under the
    other, whichever wrote first (a database moved between shokunin and plain LangGraph)."""
    path = tmp_path / "shokunin.db"
    url = f"sqlite+aiosqlite:///{path}"
    config = {"configurable": {"thread_id": "t1"}}

    async def with_shokunin(step):  # noqa: ANN001, ANN202
        store = await Store.open(url)
        saver = await open_checkpointer(store)
        try:
            return await step(asking_graph(saver))
        finally:
            await close_checkpointer(saver)
            await store.close()

    async def with_langgraph(step):  # noqa: ANN001, ANN202
        async with AsyncSqliteSaver.from_conn_string(str(path)) as saver:
            return await step(asking_graph(saver))

    async def start(graph):  # noqa: ANN001, ANN202
        return await graph.ainvoke({"n": 1}, config, durability="exit")

    async def resume(graph):  # noqa: ANN001, ANN202
        waiting = await graph.aget_state(config)
        assert [i.value for i in waiting.interrupts] == ["how many more?"]
        return await graph.ainvoke(Command(resume=41), config, durability="exit")

    one, other = (with_shokunin, with_langgraph) if first == "shokunin" else (
        with_langgraph, with_shokunin)
    await one(start)
    assert await other(resume) == {"n": 42}
    assert (await one(lambda graph: graph.aget_state(config))).values == {"n": 42}


async def test_deleting_a_thread_waits_for_its_queued_checkpoint_writes(tmp_path: Path) -> None:
    """A checkpoint still queued in the store's writer when its thread is deleted must not
    bring the thread back once it is committed."""
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'shokunin.db'}")
    commits = _CountedCommits(store)
    saver = await open_checkpointer(store)
    config = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
    try:
        commits.gate.clear()
        write = asyncio.create_task(saver.aput(config, empty_checkpoint(), {}, {}))
        assert await asyncio.to_thread(commits.entered.wait, 10), "the write never started"
        delete = asyncio.create_task(saver.adelete_thread("t1"))
        await eventually(lambda: store.writer._pending,  # noqa: SLF001
                         what="the delete queued behind the write")
        commits.gate.set()
        await asyncio.gather(write, delete)
        assert await saver.aget_tuple(config) is None
    finally:
        commits.gate.set()
        await close_checkpointer(saver)
        await store.close()


# Every column, with the type SQLite stored it as: a blob written as text would still read
# back in Python, but not in LangGraph's own savers' queries of other versions.
_ROWS = {table: f"SELECT {cols}, " + ", ".join(f"typeof({c})" for c in cols.split(", "))
         + f" FROM {table} ORDER BY {cols}" for table, cols in {
    "checkpoints": "thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, "
                   "checkpoint, metadata",
    "writes": "thread_id, checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, "
              "type, value"}.items()}


async def _write_the_same(saver: AsyncSqliteSaver) -> list[Any]:
    """The same checkpoints and writes, as LangGraph would hand them to any saver."""
    base = {**empty_checkpoint(), "ts": "2026-11-26T00:00:00+00:00"}
    first = {**base, "id": "1ef-a", "channel_values": {"n": 1, "note": "ü 日本"}}
    second = {**base, "id": "1ef-b", "channel_values": {"n": 2}}
    root = {"configurable": {"thread_id": 42, "checkpoint_ns": ""}}
    sub = {"configurable": {"thread_id": "t2", "checkpoint_ns": "child:1"}}
    saved = [await saver.aput(root, first, {"source": "input", "step": -1, "note": "日本"}, {}),
             await saver.aput({"configurable": {**root["configurable"], "checkpoint_id": "1ef-a"}},
                              second, {"source": "loop", "step": 0}, {}),
             await saver.aput(sub, first, {}, {})]
    at = saved[1]
    await saver.aput_writes(at, [("n", 3), ("note", "a")], "task-1", "~0")
    await saver.aput_writes(at, [("n", 4)], "task-1", "~0")  # kept as first written
    await saver.aput_writes(at, [(ERROR, "boom"), (INTERRUPT, "ask?")], "task-2")
    await saver.aput_writes(at, [(INTERRUPT, "ask again?")], "task-2")  # replaces
    await saver.aput_writes(saved[2], [("n", 5)], "task-3", "~1")
    return saved


async def test_the_shared_writer_saver_writes_the_rows_langgraphs_own_writes(
    tmp_path: Path,
) -> None:
    async with AsyncSqliteSaver.from_conn_string(str(tmp_path / "langgraph.db")) as stock:
        expected = await _write_the_same(stock)
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'shokunin.db'}")
    saver = await open_checkpointer(store)
    try:
        assert await _write_the_same(saver) == expected
    finally:
        await close_checkpointer(saver)
        await store.close()
    for table, query in _ROWS.items():
        with (contextlib.closing(sqlite3.connect(tmp_path / "langgraph.db")) as theirs,
              contextlib.closing(sqlite3.connect(tmp_path / "shokunin.db")) as ours):
            rows = ours.execute(query).fetchall()
            assert rows and rows == theirs.execute(query).fetchall(), table


async def test_a_closed_checkpointer_refuses_reads_and_writes(tmp_path: Path) -> None:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'shokunin.db'}")
    saver = await open_checkpointer(store)
    config = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
    await saver.aput(config, empty_checkpoint(), {}, {})
    assert await saver.aget_tuple(config) is not None  # the reader's connection is open
    await close_checkpointer(saver)
    try:
        with pytest.raises(RuntimeError, match="closed"):
            await saver.aget_tuple(config)
        with pytest.raises(RuntimeError, match="closed"):
            await saver.aput(config, empty_checkpoint(), {}, {})
        assert saver._sync is None  # the reader's connection was closed with it
    finally:
        await store.close()
