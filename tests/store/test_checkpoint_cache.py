"""Each thread's latest checkpoint is kept in memory by the process that wrote it, and what a
read from memory gives is what the database holds, on every backend."""

from __future__ import annotations

import asyncio
import operator
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.checkpoint.base import CheckpointTuple
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.graph.state import CompiledStateGraph

from shokunin.agents import drive
from shokunin.runs import MemoryBus, RunContext, Runner
from shokunin.store import Store, checkpoint_cache, close_checkpointer, open_checkpointer


class Chat(TypedDict, total=False):
    messages: Annotated[list[AnyMessage], add_messages]
    notes: Annotated[list[dict[str, Any]], operator.add]


def chat_graph(checkpointer: Any) -> CompiledStateGraph:
    def reply(state: Chat) -> Chat:
        said = state["messages"][-1].content
        return {"messages": [AIMessage(f"you said {said}")], "notes": [{"heard": said}]}

    graph = StateGraph(Chat)
    graph.add_node("reply", reply)
    graph.add_edge(START, "reply")
    graph.add_edge("reply", END)
    return graph.compile(checkpointer=checkpointer)


def config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread}}


async def say(graph: CompiledStateGraph, thread: str, text: str) -> Chat:
    return await graph.ainvoke({"messages": [HumanMessage(text)]}, config(thread),
                               durability="exit")


def database_reads(saver: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every read of the latest checkpoint that goes past the cache to the database."""
    reads: list[Any] = []
    backend = type(saver).__mro__[2]  # (our class, the cache, LangGraph's saver, ...)
    original = backend.aget_tuple

    async def counted(self: Any, cfg: Any) -> CheckpointTuple | None:
        reads.append(cfg)
        return await original(self, cfg)

    monkeypatch.setattr(backend, "aget_tuple", counted)
    return reads


def same(a: CheckpointTuple | None, b: CheckpointTuple | None) -> None:
    assert a is not None and b is not None
    assert a.config == b.config and a.parent_config == b.parent_config
    assert a.metadata == b.metadata and a.pending_writes == b.pending_writes
    assert a.checkpoint == b.checkpoint


async def test_a_threads_next_run_reads_its_checkpoint_from_memory_as_the_database_has_it(
    db_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    saver = await open_checkpointer(db_url)
    reopened = None
    try:
        reads = database_reads(saver, monkeypatch)
        graph = chat_graph(saver)
        await say(graph, "t1", "one")
        assert len(reads) == 1  # a new thread: nothing kept yet
        kept = await saver.aget_tuple(config("t1"))
        state = await say(graph, "t1", "two")
        assert len(reads) == 1  # both reads came from memory
        assert [m.content for m in state["messages"]] == [
            "one", "you said one", "two", "you said two"]
        assert state["notes"] == [{"heard": "one"}, {"heard": "two"}]

        reopened = await open_checkpointer(db_url)  # nothing kept: reads the database
        first_turn = await reopened.aget_tuple(kept.config) if kept else None
        same(kept, first_turn)
        same(await saver.aget_tuple(config("t1")), await reopened.aget_tuple(config("t1")))
    finally:
        await close_checkpointer(saver)
        if reopened is not None:
            await close_checkpointer(reopened)


async def test_a_thread_another_process_wrote_since_is_read_from_the_database(
    db_url: str,
) -> None:
    """Two servers on one database: each keeps what it wrote, and neither may answer from
    memory once the other has written the thread."""
    one, two = await open_checkpointer(db_url), await open_checkpointer(db_url)
    try:
        await say(chat_graph(one), "t1", "first")
        await say(chat_graph(two), "t1", "second")
        state = await say(chat_graph(one), "t1", "third")
        assert [m.content for m in state["messages"] if isinstance(m, HumanMessage)] == [
            "first", "second", "third"]
    finally:
        await close_checkpointer(one)
        await close_checkpointer(two)


async def test_pending_writes_of_the_kept_checkpoint_send_the_read_to_the_database(
    db_url: str,
) -> None:
    one, two = await open_checkpointer(db_url), await open_checkpointer(db_url)
    try:
        await say(chat_graph(one), "t1", "hi")
        latest = await one.aget_tuple(config("t1"))
        assert latest is not None and latest.pending_writes == []
        await two.aput_writes(latest.config, [("notes", [{"later": True}])], "task-1")
        again = await one.aget_tuple(config("t1"))
        assert again is not None and again.pending_writes == [
            ("task-1", "notes", [{"later": True}])]
    finally:
        await close_checkpointer(one)
        await close_checkpointer(two)


async def test_changing_a_handed_out_checkpoint_leaves_the_kept_one_as_written(
    db_url: str,
) -> None:
    saver = await open_checkpointer(db_url)
    reopened = await open_checkpointer(db_url)
    try:
        await say(chat_graph(saver), "t1", "hi")
        handed = await saver.aget_tuple(config("t1"))
        assert handed is not None
        handed.checkpoint["channel_values"]["notes"].append({"forged": True})
        handed.checkpoint["channel_versions"]["notes"] = "forged"
        handed.checkpoint["versions_seen"].clear()
        handed.metadata["forged"] = True
        same(await saver.aget_tuple(config("t1")), await reopened.aget_tuple(config("t1")))
    finally:
        await close_checkpointer(saver)
        await close_checkpointer(reopened)


async def test_only_the_most_recently_used_threads_are_kept(
    db_url: str, monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(checkpoint_cache, "MAX_THREADS", 2)
    saver = await open_checkpointer(db_url)
    try:
        reads = database_reads(saver, monkeypatch)
        graph = chat_graph(saver)
        for thread in ("a", "b", "c"):
            await say(graph, thread, "hi")
        del reads[:]
        await saver.aget_tuple(config("c"))
        await saver.aget_tuple(config("b"))
        assert reads == []
        await saver.aget_tuple(config("a"))  # pushed out by c
        assert len(reads) == 1
    finally:
        await close_checkpointer(saver)


async def test_a_run_cancelled_after_changing_its_state_in_place_leaves_memory_as_the_database(
    tmp_path: Path,
) -> None:
    """A node changes an object of its state in place, then its run is cancelled: the next
    run on the thread sees the state the database holds (LangGraph stores the change too,
    in the checkpoint it writes as the run ends)."""
    url = f"sqlite+aiosqlite:///{tmp_path / 'shokunin.db'}"
    store = await Store.open(url)
    saver = await open_checkpointer(url)
    runner = Runner(store, MemoryBus(), tmp_path / "ws")
    seen: list[list[dict[str, Any]]] = []
    spoiled = asyncio.Event()

    async def spoil(state: Chat) -> Chat:
        seen.append([dict(note) for note in state.get("notes", [])])
        if state["messages"][-1].content == "spoil":
            state["notes"][0]["heard"] = "spoiled"  # in place, then wait to be cancelled
            spoiled.set()
            await asyncio.Event().wait()
        return {"notes": [{"heard": state["messages"][-1].content}]}

    graph = StateGraph(Chat)
    graph.add_node("spoil", spoil)
    graph.add_edge(START, "spoil")
    graph.add_edge("spoil", END)
    compiled = graph.compile(checkpointer=saver)

    class Agent:
        name = "spoiler"

        async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
            await drive(compiled, ctx, {"messages": [HumanMessage(input["message"])]},
                        models=False)
            return {}

    runner.register(Agent())
    reopened = await open_checkpointer(url)
    try:
        await runner.wait(await runner.start("spoiler", "t1", {"message": "keep"}))
        cut = await runner.start("spoiler", "t1", {"message": "spoil"})
        await spoiled.wait()
        await runner.cancel(cut)
        await runner.wait(cut)
        stored = await reopened.aget_tuple(config("t1"))
        assert stored is not None
        await runner.wait(await runner.start("spoiler", "t1", {"message": "look"}))
        assert seen[-1] == stored.checkpoint["channel_values"]["notes"]
    finally:
        await runner.shutdown()
        await close_checkpointer(reopened)
        await close_checkpointer(saver)
        await store.close()
