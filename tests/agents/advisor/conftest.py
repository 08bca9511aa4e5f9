"""An in-process engine (store, bus, runner) with the Advisor on the shipped playbook and
knowledge base, the offline brain and the builtin tools, for the Advisor's agent tests."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from shokunin.agents.advisor import advisor_agent
from shokunin.config import Settings
from shokunin.events import BaseEvent
from shokunin.runs import MemoryBus, Runner, RunServices
from shokunin.store import Store, close_checkpointer, open_checkpointer
from shokunin.tools import ToolRegistry


@pytest.fixture
async def advisor(tmp_path: Path) -> AsyncIterator[Runner]:
    settings = Settings(data_dir=tmp_path / "data", model="offline")
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'events.db'}")
    checkpointer = await open_checkpointer(store)
    tools = ToolRegistry.from_settings(settings, log_unavailable=False)
    runner = Runner(store, MemoryBus(), tmp_path / "workspaces",
                    RunServices(settings=settings, tools=tools, checkpointer=checkpointer))
    agent = advisor_agent(settings, checkpointer)
    runner.register(agent)
    yield runner
    await runner.shutdown()
    await agent.aclose()
    await close_checkpointer(checkpointer)
    await store.close()


async def consult(runner: Runner, message: str, thread: str = "s1") -> list[BaseEvent]:
    """The events of one question to the Advisor on ``thread``."""
    run_id = await runner.start("advisor", thread, {"message": message})
    return [event async for event in runner.stream(run_id)]


def answer(events: list[BaseEvent]) -> str:
    """The answer's text."""
    return "".join(getattr(e, "text", "") for e in events if e.kind == "text")
