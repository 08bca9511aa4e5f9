"""The server's one checkpointer lives in the store's own database, on every backend."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import TypedDict

import pytest
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import END, START, StateGraph
from sqlalchemy import inspect, text

from shokunin.store import Store, close_checkpointer, open_checkpointer


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
    saver = await open_checkpointer(db_url)
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

    reopened = await open_checkpointer(db_url)  # a restarted server
    try:
        state = await counter_graph(reopened).aget_state(config)
        assert state.values == {"n": 2}
        await reopened.adelete_thread("t1")  # what deleting a thread does
        assert (await counter_graph(reopened).aget_state(config)).values == {}
    finally:
        await close_checkpointer(reopened)


async def test_the_backend_follows_the_database_url(db_url: str) -> None:
    saver = await open_checkpointer(db_url)
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
    with pytest.raises(ValueError, match="SQLite or PostgreSQL"):
        await open_checkpointer("mysql+aiomysql://u@h/db")


async def test_a_checkpoint_write_cut_by_a_cancel_still_commits_and_frees_the_database(
    tmp_path: Path,
) -> None:
    """A run cancelled between the saver's INSERT and its COMMIT (a cancel, a shutdown) must
    not leave the shared connection holding SQLite's write lock: the store's writer then
    failed with "database is locked"."""
    path = tmp_path / "shokunin.db"
    saver = await open_checkpointer(f"sqlite+aiosqlite:///{path}")
    gate, commit = asyncio.Event(), saver.conn.commit

    async def slow_commit() -> None:
        await gate.wait()
        await commit()

    saver.conn.commit = slow_commit
    config = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
    write = asyncio.create_task(saver.aput(config, empty_checkpoint(), {}, {}))
    try:
        for _ in range(500):  # until the INSERT is in and the COMMIT waits
            if saver.conn.in_transaction:
                break
            await asyncio.sleep(0.01)
        assert saver.conn.in_transaction, "the write never reached its COMMIT"
        write.cancel()
        await asyncio.sleep(0.05)  # the cancel reaches the write
        gate.set()
        for _ in range(100):
            if not saver.conn.in_transaction:
                break
            await asyncio.sleep(0.01)
        with sqlite3.connect(path, timeout=1) as other:  # another writer gets the lock
            other.execute("BEGIN IMMEDIATE")
            rows = other.execute(
                "SELECT COUNT(*) FROM checkpoints WHERE thread_id = 't1'").fetchone()[0]
            other.rollback()
    finally:
        gate.set()
        await close_checkpointer(saver)
    assert rows == 1
