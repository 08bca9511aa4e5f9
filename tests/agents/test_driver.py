"""The shared driver on small real graphs: custom events, bad custom writes, subgraph
interrupts, and graphs without a checkpointer."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import interrupt

from shokunin import events as ev
from shokunin.agents import drive
from shokunin.runs import MemoryBus, RunContext, Runner
from shokunin.store import Store


class State(TypedDict, total=False):
    out: str


class GraphAgent:
    def __init__(self, name: str, graph: CompiledStateGraph) -> None:
        self.name = name
        self.graph = graph

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        return await drive(self.graph, ctx, {})


def one_node(node: Any, checkpointer: Any = None) -> CompiledStateGraph:
    graph = StateGraph(State)
    graph.add_node("only", node)
    graph.add_edge(START, "only")
    graph.add_edge("only", END)
    return graph.compile(checkpointer=checkpointer)


@pytest.fixture
async def runner(tmp_path: Path) -> AsyncIterator[Runner]:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store, MemoryBus(), tmp_path / "ws")
    yield runner
    await runner.shutdown()
    await store.close()


async def run(runner: Runner, agent: GraphAgent) -> list[ev.BaseEvent]:
    runner.register(agent)
    run_id = await runner.start(agent.name, "t1", {})
    return [e async for e in runner.stream(run_id)]


async def test_custom_writes_become_events_and_the_state_is_the_output(runner: Runner) -> None:
    async def node(state: State) -> State:
        write = get_stream_writer()
        write(ev.Log(message="from an Event"))
        write({"kind": "progress", "message": "from a dict", "fraction": 0.5})
        return {"out": "done"}

    events = await run(runner, GraphAgent("custom", one_node(node)))
    assert [e.kind for e in events] == ["run_started", "log", "progress", "run_completed"]
    assert events[2].fraction == 0.5  # type: ignore[attr-defined]
    assert events[-1].output == {"out": "done"}  # type: ignore[attr-defined]


@pytest.mark.parametrize(("written", "says"), [
    (42, "got int"), ({"text": "no kind"}, "got dict"),
    ({"kind": "text"}, "not a valid event"),
])
async def test_a_custom_write_that_is_not_an_event_fails_the_run_clearly(
    runner: Runner, written: Any, says: str
) -> None:
    async def node(state: State) -> State:
        get_stream_writer()(written)
        return {}

    events = await run(runner, GraphAgent("bad", one_node(node)))
    assert events[-1].kind == "run_failed"
    assert says in events[-1].error  # type: ignore[attr-defined]


async def test_an_interrupt_in_a_subgraph_is_reported_once(runner: Runner) -> None:
    async def ask(state: State) -> State:
        return {"out": interrupt("inner?")}

    inner = one_node(ask)
    outer = StateGraph(State)
    outer.add_node("inner", inner)
    outer.add_edge(START, "inner")
    outer.add_edge("inner", END)
    graph = outer.compile(checkpointer=InMemorySaver())
    events = await run(runner, GraphAgent("nested", graph))
    assert events[-1].kind == "run_interrupted"
    payload = events[-1].payload  # type: ignore[attr-defined]
    assert payload["value"] == "inner?" and len(payload["interrupts"]) == 1
    await runner.resume(events[-1].run_id, "yes")
    await runner.wait(events[-1].run_id)
    done = [e async for e in runner.stream(events[-1].run_id, events[-1].seq)]
    assert done[-1].output == {"out": "yes"}  # type: ignore[attr-defined]
