"""The server's one checkpointer lives in the store's own database, on every backend."""

from __future__ import annotations

from typing import TypedDict

import pytest
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
            assert type(saver).__name__ == "AsyncSqliteSaver"
            async with saver.conn.execute("PRAGMA journal_mode") as cur:  # type: ignore
                assert (await cur.fetchone())[0] == "wal"
        else:
            assert type(saver).__name__ == "AsyncPostgresSaver"
    finally:
        await close_checkpointer(saver)


async def test_an_unsupported_database_is_refused() -> None:
    with pytest.raises(ValueError, match="SQLite or PostgreSQL"):
        await open_checkpointer("mysql+aiomysql://u@h/db")
