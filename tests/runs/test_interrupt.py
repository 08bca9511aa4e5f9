"""Runs that wait for a human: a real LangGraph graph whose node calls ``interrupt()``, driven
by ``shokunin.agents.drive`` under the Runner, on the server's checkpointer (SQLite and
PostgreSQL), through Engine.open/close as the server does."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any, TypedDict

import pytest
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from langgraph.types import interrupt

from shokunin import events as ev
from shokunin.agents import drive
from shokunin.config import Settings
from shokunin.engine import Engine
from shokunin.runs import InvalidRunInput, RunContext, Runner, RunStateError
from tests.backends import database_url
from tests.runs.conftest import BACKENDS


class Approval(TypedDict, total=False):
    item: str
    answer: str


def approval_graph(checkpointer: Any) -> CompiledStateGraph:
    async def ask(state: Approval) -> Approval:
        get_stream_writer()(ev.Progress(message=f"asking about {state['item']}"))
        answer = interrupt({"question": f"buy {state['item']}?"})
        return {"answer": f"{state['item']}: {answer}"}

    async def report(state: Approval) -> Approval:
        get_stream_writer()({"kind": "text", "text": state["answer"]})
        return {}

    graph = StateGraph(Approval)
    graph.add_node("ask", ask)
    graph.add_node("report", report)
    graph.add_edge(START, "ask")
    graph.add_edge("ask", "report")
    graph.add_edge("report", END)
    return graph.compile(checkpointer=checkpointer)


class Approver:
    name = "approver"

    def __init__(self, checkpointer: Any) -> None:
        self.graph = approval_graph(checkpointer)

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        state = await drive(self.graph, ctx, {"item": input["item"]})
        return {"answer": state["answer"]}


OpenServer = Callable[[], Awaitable[Engine]]


@pytest.fixture(params=BACKENDS)
async def open_server(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[OpenServer]:
    """Open the engine of a server (store, checkpointer, runner) with the Approver; each call
    is a new server process's engine on the same database."""
    opened: list[Engine] = []
    async with database_url(request.param, tmp_path) as url:
        settings = Settings(data_dir=tmp_path / "data", database_url=url,
                            tools_dirs=[tmp_path / "tool"],
                            tool_settings_file=tmp_path / "settings.json")

        async def open_() -> Engine:
            services = await Engine.open(settings)
            services.runner.register(Approver(services.checkpointer))
            opened.append(services)
            return services

        yield open_
        for services in opened:
            if services.runner.agents:  # not closed by the test
                await services.close()
                services.runner.agents.clear()


async def close(services: Engine) -> None:
    await services.close()
    services.runner.agents.clear()


async def collect(runner: Runner, run_id: str, after: int = 0) -> list[ev.BaseEvent]:
    return await asyncio.wait_for(_collect(runner, run_id, after), 30)


async def _collect(runner: Runner, run_id: str, after: int) -> list[ev.BaseEvent]:
    return [e async for e in runner.stream(run_id, after)]


def kinds(events: list[ev.BaseEvent]) -> list[str]:
    return [e.kind for e in events]


async def test_interrupt_waits_with_its_payload_and_resume_uses_the_answer(
    open_server: OpenServer,
) -> None:
    services = await open_server()
    runner = services.runner
    run_id = await runner.start("approver", "t1", {"item": "tea"})
    asked = await collect(runner, run_id)
    assert kinds(asked) == ["run_started", "progress", "run_interrupted"]
    payload = asked[-1].payload  # type: ignore[attr-defined]
    assert payload["value"] == {"question": "buy tea?"}
    assert [i["value"] for i in payload["interrupts"]] == [{"question": "buy tea?"}]
    assert (await services.store.get_run(run_id)).status == "interrupted"

    await runner.resume(run_id, "yes")
    rest = await collect(runner, run_id, after=asked[-1].seq)
    # LangGraph re-runs the interrupted node from its start: its progress comes again.
    assert kinds(rest) == ["progress", "text", "run_completed"]
    assert rest[1].text == "tea: yes"  # type: ignore[attr-defined]
    assert rest[-1].output == {"answer": "tea: yes"}  # type: ignore[attr-defined]
    run = await services.store.get_run(run_id)
    assert run.status == "completed" and run.finished_at is not None


async def test_replay_from_zero_after_resume_shows_the_whole_run(open_server: OpenServer) -> None:
    services = await open_server()
    runner = services.runner
    run_id = await runner.start("approver", "t1", {"item": "tea"})
    await collect(runner, run_id)
    await runner.resume(run_id, "no")
    await runner.wait(run_id)
    whole = await collect(runner, run_id)
    assert kinds(whole) == ["run_started", "progress", "run_interrupted", "progress", "text",
                            "run_completed"]
    assert [e.seq for e in whole] == list(range(1, 7))
    # A second server (no local history) replays the same from the store.
    other = Runner(services.store, services.bus.__class__(), runner.workspace_root)
    assert [e.seq for e in await collect(other, run_id)] == list(range(1, 7))


async def test_a_client_following_the_interrupted_run_sees_its_continuation(
    open_server: OpenServer,
) -> None:
    """A replay that starts while the run waits ends at run_interrupted; one started after
    the answer (from seq 0 or from the interrupt) follows the resumed run to its end."""
    services = await open_server()
    runner = services.runner
    run_id = await runner.start("approver", "t1", {"item": "tea"})
    asked = await collect(runner, run_id)
    assert kinds(await collect(runner, run_id)) == kinds(asked)  # waits: ends there
    assert await collect(runner, run_id, after=asked[-1].seq) == []
    await runner.resume(run_id, "yes")
    follow_from_zero = asyncio.create_task(collect(runner, run_id))
    follow_from_ask = asyncio.create_task(collect(runner, run_id, asked[-1].seq))
    assert kinds(await follow_from_zero)[-1] == "run_completed"
    assert kinds(await follow_from_ask) == ["progress", "text", "run_completed"]


async def test_a_restart_while_waiting_then_resume_on_the_new_server(
    open_server: OpenServer,
) -> None:
    first = await open_server()
    run_id = await first.runner.start("approver", "t1", {"item": "coffee"})
    asked = await collect(first.runner, run_id)
    await close(first)

    second = await open_server()  # Engine.open fails the unfinished runs
    assert (await second.store.get_run(run_id)).status == "interrupted"
    await second.runner.resume(run_id, "yes")
    rest = await collect(second.runner, run_id, asked[-1].seq)
    assert kinds(rest) == ["progress", "text", "run_completed"]
    assert rest[1].text == "coffee: yes"  # type: ignore[attr-defined]
    whole = await collect(second.runner, run_id)
    assert [e.seq for e in whole] == list(range(1, len(whole) + 1))
    assert kinds(whole)[2] == "run_interrupted" and len(whole) == 6


async def test_a_second_resume_is_refused(open_server: OpenServer) -> None:
    runner = (await open_server()).runner
    run_id = await runner.start("approver", "t1", {"item": "tea"})
    await collect(runner, run_id)
    await runner.resume(run_id, "yes")
    with pytest.raises(RunStateError):
        await runner.resume(run_id, "again")
    await runner.wait(run_id)
    with pytest.raises(RunStateError):
        await runner.resume(run_id, "again")
    assert kinds(await collect(runner, run_id)).count("run_completed") == 1


async def test_resume_refuses_null_and_unstorable_answers(open_server: OpenServer) -> None:
    services = await open_server()
    run_id = await services.runner.start("approver", "t1", {"item": "tea"})
    await collect(services.runner, run_id)
    for bad in (None, {"text": "\ud800"}):
        with pytest.raises(InvalidRunInput):
            await services.runner.resume(run_id, bad)
    assert (await services.store.get_run(run_id)).status == "interrupted"  # still waiting


async def test_cancel_of_a_waiting_run_closes_it(open_server: OpenServer) -> None:
    services = await open_server()
    runner = services.runner
    run_id = await runner.start("approver", "t1", {"item": "tea"})
    asked = await collect(runner, run_id)
    assert await runner.cancel(run_id) is True
    assert await runner.cancel(run_id) is False  # already over
    run = await services.store.get_run(run_id)
    assert run.status == "cancelled" and run.finished_at is not None
    whole = await collect(runner, run_id)
    assert kinds(whole) == ["run_started", "progress", "run_interrupted", "run_cancelled"]
    assert whole[-1].seq == asked[-1].seq + 1
    with pytest.raises(RunStateError):
        await runner.resume(run_id, "yes")
