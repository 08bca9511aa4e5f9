from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from shokunin import events as ev
from shokunin.runs import Interrupted, MemoryBus, RunContext, Runner
from shokunin.store import Store
from tests.backends import postgres_available

BACKENDS = [
    "sqlite",
    pytest.param("postgres", marks=pytest.mark.skipif(
        not postgres_available(), reason="PostgreSQL not reachable on 127.0.0.1:5432")),
]


class Counter:
    """Emits ``n`` texts, ``delay`` apart; the smallest agent that streams."""

    name = "counter"

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        for i in range(input.get("n", 3)):
            await ctx.emit(ev.Text(text=f"t{i}"))
            await asyncio.sleep(input.get("delay", 0))
        return {"count": input.get("n", 3)}


class Thinker:
    """Streams ``n`` tokens ``delay`` apart, as a model does, then answers; with ``tool``,
    it calls a tool first (stored before it acts). Restartable (see ``Agent``)."""

    name = "thinker"
    restartable = True

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        if input.get("tool"):
            await ctx.emit(ev.ToolCall(call_id="c1", name="write_file", args={}))
        for i in range(input.get("n", 3)):
            await ctx.emit(ev.TextDelta(delta=f"w{i} "))
            await asyncio.sleep(input.get("delay", 0))
        await ctx.emit(ev.Text(text="done"))
        return {"tokens": input.get("n", 3)}


class Broken:
    name = "broken"

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        await ctx.emit(ev.Text(text="about to fail"))
        raise ValueError("disk on fire")


class Asker:
    """Asks a human once, then finishes with the answer."""

    name = "asker"

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        if ctx.resume_value is None:
            raise Interrupted({"question": "proceed?"})
        await ctx.emit(ev.Text(text=f"answer: {ctx.resume_value}"))
        return {"answer": ctx.resume_value}


@pytest.fixture
async def runner(tmp_path: Path) -> AsyncIterator[Runner]:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path / 'runs.db'}")
    runner = Runner(store, MemoryBus(), tmp_path / "ws")
    for agent in (Counter(), Broken(), Asker()):
        runner.register(agent)
    yield runner
    await runner.shutdown()
    await store.close()
