"""An in-process engine (store, bus, runner) with the Workbench agent, for agent tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest
from langgraph.checkpoint.base import BaseCheckpointSaver

from shokunin.agents.workbench import workbench_agent
from shokunin.config import Settings
from shokunin.events import BaseEvent
from shokunin.maps import load_map
from shokunin.runs import MemoryBus, Runner, RunServices
from shokunin.store import Store, close_checkpointer, open_checkpointer
from shokunin.tools import ToolRegistry

MakeRunner = Callable[..., Awaitable[Runner]]


@pytest.fixture
async def make_runner(tmp_path: Path) -> AsyncIterator[MakeRunner]:
    made: list[tuple[Runner, Store, BaseCheckpointSaver]] = []

    async def make(model: str = "offline", tools: ToolRegistry | None = None) -> Runner:
        settings = Settings(data_dir=tmp_path / "data", model=model)
        url = f"sqlite+aiosqlite:///{tmp_path / 'events.db'}"
        store = await Store.open(url)
        checkpointer = await open_checkpointer(store)
        runner = Runner(store, MemoryBus(), tmp_path / "workspaces",
                        RunServices(settings=settings, tools=tools, checkpointer=checkpointer))
        runner.register(workbench_agent(settings, load_map(settings.map_dir), checkpointer))
        made.append((runner, store, checkpointer))
        return runner

    yield make
    for runner, store, checkpointer in made:
        await runner.shutdown()
        await close_checkpointer(checkpointer)
        await store.close()


async def ask(runner: Runner, message: str, thread: str = "t1") -> list[BaseEvent]:
    run_id = await runner.start("workbench", thread, {"message": message})
    return [event async for event in runner.stream(run_id)]


def kinds(events: list[BaseEvent]) -> list[str]:
    return [e.kind for e in events]
